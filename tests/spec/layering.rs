//! The layers of the house (issue 18), checked on the source: a module may use only modules of
//! a lower layer, so there is no import cycle between top-level modules, and the async runtime
//! and the SSH stack stay in the two modules that talk to the network.
//!
//! The table below is the one place the allowed edges are written. A new top-level module
//! fails this test until it is given a layer.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Top-level module → layer. A module may import modules of strictly lower layers only.
const LAYERS: &[(&str, u8)] = &[
    // Text helpers, secret redaction, the bundled rule/parser/template files.
    ("text", 0),
    ("redact", 0),
    ("embedded", 0),
    ("glob", 0),
    // Lists that grow by an eighth (issue 19).
    ("growth", 0),
    // Per-phase wall and CPU times (`--timings`).
    ("timings", 0),
    ("toml_pieces", 0),
    // The normalized model (facts with provenance, probe records).
    ("model", 1),
    // What sits directly on the model: findings, the rule-input schema, the parser engine.
    ("finding", 2),
    ("schema", 2),
    ("parser", 2),
    // The fabric's [policy] checked against the keys the rules declare.
    ("policy", 3),
    // Reading a snapshot folder; the platform readers (vendor structures → model).
    ("snapshot", 3),
    ("platform", 3),
    // A device's files → its model; collection over SSH (writes snapshots).
    ("device", 4),
    ("collect", 4),
    // The fabric: devices, links, scope.
    ("fabric", 5),
    // Rules over a fabric; probes between hosts of a fabric; report formats over their own
    // input (`report::input`: the audit's results, the rule catalog as report entries, waived
    // findings), which the audit and the review fill: a report imports neither the rule
    // engine nor the review.
    ("rules", 6),
    ("probe", 6),
    ("report", 6),
    // The offline audit: snapshot in, findings out (it fills the report input).
    ("audit", 7),
    // What reads reports and audits: change review, rule explanations, remediation.
    ("review", 9),
    ("explain", 9),
    ("remediate", 10),
    // The command line and the fuzzing entry points (each reaches the whole pipeline), then the
    // crate root.
    ("cli", 11),
    ("fuzzing", 11),
    ("lib", 12),
];

/// Modules allowed to use the async runtime and the SSH stack.
const NETWORK: &[&str] = &["collect", "probe"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a file belongs to (`src/platform/nxos/show.rs` → `platform`).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap_or(file);
    let first = rel
        .components()
        .next()
        .map(|c| c.as_os_str().to_string_lossy().to_string())
        .unwrap_or_default();
    let name = first.trim_end_matches(".rs").to_string();
    if name == "main" || name == "lib" {
        "lib".into()
    } else {
        name
    }
}

/// The production code of a file: line comments removed, and everything from the first
/// `#[cfg(test)]` on (test modules sit at the end of a file and may use anything).
fn production_code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) if !l[..i].contains('"') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every top-level module a piece of code names through `crate::`.
fn uses(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    out
}

fn edges() -> BTreeMap<(String, String), BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(
        files.len() > 50,
        "found only {} files under src/",
        files.len()
    );
    let layer: BTreeMap<&str, u8> = LAYERS.iter().copied().collect();
    let mut out: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        let from = module_of(&src, &f);
        for to in uses(&production_code(&text)) {
            // Items of the crate root re-exported for users (`load_parsers`) are not modules.
            if to == from || !layer.contains_key(to.as_str()) && !is_module(&src, &to) {
                continue;
            }
            let rel = f.strip_prefix(&src).unwrap_or(&f).display().to_string();
            out.entry((from.clone(), to)).or_default().insert(rel);
        }
    }
    out
}

fn is_module(src: &Path, name: &str) -> bool {
    src.join(format!("{name}.rs")).exists() || src.join(name).is_dir()
}

#[test]
fn every_module_has_a_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let known: BTreeSet<&str> = LAYERS.iter().map(|(m, _)| *m).collect();
    let missing: BTreeSet<String> = files
        .iter()
        .map(|f| module_of(&src, f))
        .filter(|m| !known.contains(m.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "top-level modules without a layer in tests/spec/layering.rs: {missing:?}"
    );
}

#[test]
fn modules_use_only_lower_layers() {
    let layer: BTreeMap<&str, u8> = LAYERS.iter().copied().collect();
    let all = edges();
    assert!(
        all.contains_key(&("audit".to_string(), "rules".to_string())),
        "the scan found no audit → rules edge: it reads nothing"
    );
    let mut bad = Vec::new();
    for ((from, to), files) in &all {
        let (Some(a), Some(b)) = (layer.get(from.as_str()), layer.get(to.as_str())) else {
            bad.push(format!("{from} → {to}: module without a layer ({files:?})"));
            continue;
        };
        if b >= a {
            bad.push(format!(
                "{from} (layer {a}) uses {to} (layer {b}) in {}",
                files.iter().cloned().collect::<Vec<_>>().join(", ")
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "imports against the layers:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_network_stack_stays_in_collect_and_probe() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut bad = Vec::new();
    for f in files {
        let m = module_of(&src, &f);
        if NETWORK.contains(&m.as_str()) {
            continue;
        }
        let code = production_code(&std::fs::read_to_string(&f).unwrap_or_default());
        for needle in ["tokio::", "russh::", "use tokio", "use russh"] {
            if code.contains(needle) {
                bad.push(format!("{} uses {needle}", f.display()));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Item 1 of issue 18: the report formats read their own input type; the rule engine, the
/// review and the audit fill it.
#[test]
fn reports_import_neither_rules_nor_review_nor_audit() {
    let all = edges();
    let bad: Vec<String> = all
        .iter()
        .filter(|((from, to), _)| {
            from == "report" && matches!(to.as_str(), "rules" | "review" | "audit")
        })
        .map(|((_, to), files)| format!("report uses {to} in {files:?}"))
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(
        all.contains_key(&("audit".to_string(), "report".to_string())),
        "the audit fills the report input"
    );
}

/// The checker itself: an upward import and a grouped import are both seen.
#[test]
fn the_scan_sees_plain_and_grouped_imports() {
    let code = production_code(
        "use crate::audit::Audit;\nuse crate::{report, model::Src};\n// crate::cli in a comment\nfn f() { crate::text::x(); }\n#[cfg(test)]\nmod t { use crate::cli; }",
    );
    let got = uses(&code);
    let want: BTreeSet<String> = ["audit", "report", "model", "text"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(got, want);
}
