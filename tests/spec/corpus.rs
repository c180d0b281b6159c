//! Real published outputs (../shared/corpus, read-only, never copied into the project) through
//! the parsers: no panic, and a parse status that is truthful. The expected status and number
//! of unrecognized lines per file live in tests/corpus-expected/<platform>.tsv (reviewed by hand; rewrite
//! with UPDATE_GOLDEN=1). A corpus folder `<platform>/<name>/` is read with the command whose
//! id is `<name>`; folders no parser claims are reported as such.
//!
//! Every line a parser leaves unrecognized, and every reference it cannot resolve, in any corpus
//! file is listed in tests/corpus-reviewed/<platform>.tsv with the reason it is acceptable
//! (`irrelevant:` not a RoCE setting, `unsupported:` a RoCE setting not read yet and why,
//! `source:` the file itself is cut, mangled or refers to what it does not hold). A new
//! unrecognized line, or a reviewed one that no longer appears, fails the test; UPDATE_GOLDEN=1
//! adds new ones as `UNREVIEWED`, which fails until a person writes the reason.

use fabric_audit::device::build_device;
use fabric_audit::snapshot::DeviceInput;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn corpus_root() -> Option<PathBuf> {
    let v = std::env::var_os("FABRIC_AUDIT_CORPUS")?;
    let p = PathBuf::from(v);
    assert!(
        p.is_dir(),
        "FABRIC_AUDIT_CORPUS={} is set but is not a folder",
        p.display()
    );
    Some(p)
}

fn files(root: &Path) -> Vec<(String, String, PathBuf)> {
    let mut out = Vec::new();
    for plat in std::fs::read_dir(root).unwrap().flatten() {
        if !plat.path().is_dir() {
            continue;
        }
        let pname = plat.file_name().to_string_lossy().into_owned();
        for cmd in std::fs::read_dir(plat.path()).unwrap().flatten() {
            if !cmd.path().is_dir() {
                continue;
            }
            let cname = cmd.file_name().to_string_lossy().into_owned();
            for f in std::fs::read_dir(cmd.path()).unwrap().flatten() {
                out.push((pname.clone(), cname.clone(), f.path()));
            }
        }
    }
    out.sort();
    out
}

/// One line per corpus file (relpath, status, unrecognized count, undefined count) and the
/// file's review items.
fn result_line(
    parsers: &fabric_audit::parser::Parsers,
    root: &Path,
    plat: &str,
    cid: &str,
    path: &Path,
) -> (String, Vec<ReviewItem>) {
    let rel = path
        .strip_prefix(root)
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/");
    if let Some(summary) = probe_output(plat, cid, path) {
        return (format!("{rel}\tprobe\t{summary}\t-"), Vec::new());
    }
    let Some(p) = parsers.platform(plat) else {
        return (format!("{rel}\tno-parser\t-\t-"), Vec::new());
    };
    let Some(cmd) = p.command_by_id(cid) else {
        return (format!("{rel}\tno-command\t-\t-"), Vec::new());
    };
    let text = fabric_audit::parser::decode(std::fs::read(path).unwrap());
    let concrete = cmd.cmd.replace("{if}", "eth0").replace("{dev}", "mlx5_0");
    let file = format!(
        "devices/corpus/{}",
        path.file_name().unwrap().to_string_lossy()
    );
    let input = DeviceInput::one_file("corpus", plat, &file, &concrete, text);
    let result = std::panic::catch_unwind(|| build_device(parsers, &input));
    let Ok((dev, _)) = result else {
        return (format!("{rel}\tPANIC\t-\t-"), Vec::new());
    };
    let fp = &dev.parse[0];
    let status = format!(
        "{rel}\t{}\t{}\t{}",
        fp.status.as_str(),
        fp.unrecognized.len(),
        fp.undefined.len()
    );
    let unrec = fp.unrecognized.iter().map(|u| ReviewItem {
        rel: rel.clone(),
        kind: "unrecognized",
        line: u.line,
        text: one_cell(&u.text),
    });
    let undef = fp.undefined.iter().map(|u| ReviewItem {
        rel: rel.clone(),
        kind: "undefined",
        line: u.line,
        text: one_cell(&format!("{} {}", u.kind, u.name)),
    });
    (status, unrec.chain(undef).collect())
}

/// One unrecognized line or unresolved reference of a corpus file, as the review record keys it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct ReviewItem {
    rel: String,
    kind: &'static str,
    line: u32,
    text: String,
}

impl ReviewItem {
    fn key(&self) -> String {
        format!("{}\t{}\t{}\t{}", self.rel, self.kind, self.line, self.text)
    }
}

/// A line's text as one TSV cell: trimmed, tabs as spaces.
fn one_cell(s: &str) -> String {
    s.trim().replace(['\t', '\r', '\n'], " ")
}

const REVIEW_HEADER: &str = "# relpath\tkind\tline\ttext\treason\n";
const REASONS: [&str; 3] = ["irrelevant:", "unsupported:", "source:"];

fn reviewed_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus-reviewed")
}

/// The review record: key (relpath, kind, line, text) → reason.
fn read_reviewed() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let Ok(rd) = std::fs::read_dir(reviewed_dir()) else {
        return out;
    };
    for f in rd.flatten() {
        let text = std::fs::read_to_string(f.path()).unwrap_or_default();
        for l in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            if let Some((key, reason)) = l.rsplit_once('\t') {
                out.insert(key.to_string(), reason.to_string());
            }
        }
    }
    out
}

/// Writes the record back: known reasons kept, new items marked UNREVIEWED, gone items dropped.
fn write_reviewed(items: &[ReviewItem], known: &BTreeMap<String, String>) {
    let mut per: BTreeMap<String, String> = BTreeMap::new();
    for it in items {
        let plat = it.rel.split('/').next().unwrap_or("other").to_string();
        let reason = known.get(&it.key()).map_or("UNREVIEWED", |r| r.as_str());
        let e = per.entry(plat).or_insert_with(|| REVIEW_HEADER.to_string());
        e.push_str(&format!("{}\t{reason}\n", it.key()));
    }
    std::fs::create_dir_all(reviewed_dir()).unwrap();
    for (plat, text) in per {
        std::fs::write(reviewed_dir().join(format!("{plat}.tsv")), text).unwrap();
    }
}

/// Each item has a reviewed reason of a known kind; each recorded item still appears.
fn review_problems(items: &[ReviewItem], known: &BTreeMap<String, String>) -> Vec<String> {
    let mut out = Vec::new();
    let keys: std::collections::BTreeSet<String> = items.iter().map(ReviewItem::key).collect();
    for it in items {
        match known.get(&it.key()) {
            None => out.push(format!("not reviewed: {}", it.key())),
            Some(r) if !REASONS.iter().any(|p| r.starts_with(p)) => out.push(format!(
                "reason must start with one of {REASONS:?}: {}\t{r}",
                it.key()
            )),
            Some(_) => {}
        }
    }
    for k in known.keys().filter(|k| !keys.contains(*k)) {
        out.push(format!("reviewed but no longer appears: {k}"));
    }
    out
}

/// Outputs of the probe tools (perftest, qperf, ping -M do) are read by src/probe/output.rs:
/// the figures they give, or the number of error lines when they give none.
fn probe_output(plat: &str, cid: &str, path: &Path) -> Option<String> {
    let tool = match (plat, cid) {
        ("perftest", c) => c,
        ("qperf", _) => "qperf",
        ("linux", "ping-df") => "ping",
        _ => return None,
    };
    let text = fabric_audit::parser::decode(std::fs::read(path).ok()?).ok()?;
    fabric_audit::probe::output::summary(tool, &text)
}

#[test]
fn corpus_parses_truthfully() {
    let Some(root) = corpus_root() else {
        eprintln!("FABRIC_AUDIT_CORPUS not set: corpus test skipped");
        return;
    };
    let parsers = fabric_audit::load_parsers(None).unwrap();
    let mut got = String::from("# relpath\tstatus\tunrecognized\tundefined\n");
    let mut panics = Vec::new();
    let mut items = Vec::new();
    for (plat, cid, path) in files(&root) {
        let (line, review) = result_line(&parsers, &root, &plat, &cid, &path);
        items.extend(review);
        if line.contains("\tPANIC\t") {
            panics.push(line.clone());
        }
        // Consistency: passed ⇔ nothing unrecognized and nothing undefined.
        let cols: Vec<&str> = line.split('\t').collect();
        if cols[1] == "passed" {
            assert_eq!((cols[2], cols[3]), ("0", "0"), "{line}");
        }
        got.push_str(&line);
        got.push('\n');
    }
    assert!(panics.is_empty(), "parser panicked on: {panics:#?}");
    let reviewed = read_reviewed();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        write_reviewed(&items, &reviewed);
    } else {
        let problems = review_problems(&items, &reviewed);
        assert!(
            problems.is_empty(),
            "tests/corpus-reviewed/ is not the reviewed list of what the parsers leave \
             unread:\n{}",
            problems.join("\n")
        );
    }
    // One expected file per platform folder of the corpus: tests/corpus-expected/<platform>.tsv.
    let exp_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus-expected");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        let mut per: BTreeMap<String, String> = BTreeMap::new();
        for l in got.lines().filter(|l| !l.starts_with('#')) {
            let plat = l.split('/').next().unwrap_or("other").to_string();
            let e = per
                .entry(plat)
                .or_insert_with(|| "# relpath\tstatus\tunrecognized\tundefined\n".to_string());
            e.push_str(l);
            e.push('\n');
        }
        std::fs::create_dir_all(&exp_dir).unwrap();
        for (plat, text) in per {
            std::fs::write(exp_dir.join(format!("{plat}.tsv")), text).unwrap();
        }
        return;
    }
    let mut exp = String::new();
    if let Ok(rd) = std::fs::read_dir(&exp_dir) {
        let mut files: Vec<_> = rd.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        files.sort();
        for f in files {
            exp.push_str(&std::fs::read_to_string(&f).unwrap_or_default());
            exp.push('\n');
        }
    }
    let parse = |s: &str| -> BTreeMap<String, String> {
        s.lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .filter_map(|l| {
                l.split_once('\t')
                    .map(|(a, b)| (a.to_string(), b.to_string()))
            })
            .collect()
    };
    let (e, g) = (parse(&exp), parse(&got));
    let mut diffs = Vec::new();
    for (k, v) in &g {
        match e.get(k) {
            Some(ev) if ev == v => {}
            Some(ev) => diffs.push(format!("{k}: expected {ev}, got {v}")),
            None => diffs.push(format!("{k}: not in tests/corpus-expected/ (got {v})")),
        }
    }
    assert!(
        diffs.is_empty(),
        "corpus results changed:\n{}",
        diffs.join("\n")
    );
}

/// Every corpus file that is a form of a configuration (its command has `config = true`), put
/// in `configs/` without a platform, is detected as the platform whose folder holds it: SONiC
/// QoS/buffer fragments rendered by sonic-cfggen, AVD-generated EOS configs, long Junos set
/// files, NVUE recordings (issue 14, "What was seen" 4).
#[test]
fn corpus_configs_are_detected_as_their_platform() {
    let Some(root) = corpus_root() else {
        eprintln!("FABRIC_AUDIT_CORPUS not set: corpus test skipped");
        return;
    };
    let parsers = fabric_audit::load_parsers(None).unwrap();
    let mut wrong = Vec::new();
    let mut seen = 0;
    for (plat, cid, path) in files(&root) {
        let is_config = parsers
            .platform(&plat)
            .and_then(|p| p.command_by_id(&cid))
            .is_some_and(|c| c.config);
        if !is_config {
            continue;
        }
        seen += 1;
        let Ok(text) = fabric_audit::parser::decode(std::fs::read(&path).unwrap()) else {
            continue;
        };
        match parsers.detect(&text) {
            Ok((got, _)) if got == plat => {}
            other => wrong.push(format!("{}: {other:?}", path.display())),
        }
    }
    assert!(seen >= 25, "only {seen} config files in the corpus");
    assert!(wrong.is_empty(), "detected wrongly:\n{}", wrong.join("\n"));
}
