//! No secret reaches the disk or a report (issue 19, "Secrets written to disk"). A table of
//! secrets in the real syntax of the eight platforms (`rows.rs`), each with a unique marker, is
//! (a) served by emulated devices over real SSH on 127.0.0.1 and collected in exec and in
//! interactive-shell sessions: no marker anywhere under the snapshot; and (b) written into a
//! hand-made snapshot (configs/ and devices/) audited in every output format: no marker in any
//! report. What is around a secret stays readable.

mod rows;

use fabric_audit::collect::emulator::Device;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

const BIN: &str = env!("CARGO_BIN_EXE_fabric-audit");
/// Every platform of the registry.
fn platforms() -> impl Iterator<Item = &'static str> {
    fabric_audit::platform::registry::ids()
}
const FORMATS: [&str; 8] = [
    "table", "json", "markdown", "sarif", "junit", "github", "html", "model",
];

fn marker(i: usize) -> String {
    format!("Qz{i:03}vW")
}

/// (platform, marker, line) of every row.
fn rows() -> Vec<(&'static str, String, String)> {
    rows::ROWS
        .iter()
        .enumerate()
        .map(|(i, (p, l))| (*p, marker(i), l.replace("{M}", &marker(i))))
        .collect()
}

/// The text a device of `platform` holds: its rows, one after the other (SONiC's as one JSON
/// document, the way its config DB is printed).
fn text_of(platform: &str) -> String {
    let lines: Vec<String> = rows()
        .into_iter()
        .filter(|(p, _, _)| *p == platform)
        .map(|(_, _, l)| l)
        .collect();
    if platform == "sonic" {
        format!("{{\n    {}\n}}\n", lines.join(",\n    "))
    } else {
        format!("{}\n", lines.join("\n"))
    }
}

/// Every marker found in `text`, with the row's platform.
fn leaks(text: &str) -> Vec<String> {
    rows()
        .into_iter()
        .filter(|(_, m, _)| text.contains(m.as_str()))
        .map(|(p, m, l)| format!("{p} {m}: {l}"))
        .collect()
}

/// The part of each row before its secret, which must still be there after redaction.
fn kept_parts(platform: &str) -> Vec<String> {
    rows()
        .into_iter()
        .filter(|(p, _, _)| *p == platform)
        .filter_map(|(_, m, l)| {
            let before = &l[..l.find(m.as_str())?];
            let last = before.rsplit('\n').next()?.trim();
            // Keep the words before the secret (not the quote or `$6$` glued to it).
            let mut words: Vec<&str> = last.split_whitespace().collect();
            words.pop();
            while words.last().is_some_and(|w| w.starts_with(['"', '\''])) {
                words.pop();
            }
            let keep = words.join(" ");
            (keep.len() >= 4).then_some(keep)
        })
        .collect()
}

#[test]
fn the_table_has_150_secrets_on_8_platforms() {
    let r = rows();
    assert!(r.len() >= 150, "{} rows", r.len());
    for p in platforms() {
        assert!(
            r.iter().filter(|(q, _, _)| *q == p).count() >= 15,
            "{p} has fewer than 15 rows"
        );
    }
    let markers: HashSet<&String> = r.iter().map(|(_, m, _)| m).collect();
    assert_eq!(markers.len(), r.len());
    for (p, m, l) in &r {
        assert!(l.contains(m.as_str()), "{p}: row without its marker: {l}");
    }
}

/// Redaction alone: every row of every platform, whatever platform the text is said to be.
#[test]
fn every_secret_is_redacted_and_the_line_stays_readable() {
    let mut problems = Vec::new();
    for p in platforms() {
        let text = text_of(p);
        let (out, n) = fabric_audit::redact::redact(&text);
        for l in leaks(&out) {
            problems.push(format!("left: {l}"));
        }
        assert!(n >= 15, "{p}: {n}");
        assert_eq!(
            out.lines().count(),
            text.lines().count(),
            "{p}: lines added or removed"
        );
        let flat: String = out.split_whitespace().collect::<Vec<_>>().join(" ");
        for k in kept_parts(p) {
            if !flat.contains(&k) {
                problems.push(format!("{p}: eaten: {k:?}"));
            }
        }
        let again = fabric_audit::redact::redact(&out).1;
        if again != 0 {
            problems.push(format!("{p}: a second pass redacted {again} more"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Linear time: a text 4 times larger takes about 4 times longer (not 16), on lines built to
/// make a backtracking or re-scanning matcher slow.
#[test]
fn redaction_is_linear() {
    let unit =
        "password password key=key= snmp-server community x -----BEGIN $6$ \"passkey\": \"a\\\\\" ";
    let time = |n: usize| {
        let long_line = unit.repeat(n);
        let many_lines = format!("{unit}\n").repeat(n);
        let t = std::time::Instant::now();
        let a = fabric_audit::redact::redact(&long_line);
        let b = fabric_audit::redact::redact(&many_lines);
        assert!(a.1 > 0 && b.1 > 0);
        t.elapsed().as_secs_f64()
    };
    time(1000);
    let small = time(20_000);
    let big = time(80_000);
    assert!(
        big < small * 8.0 + 0.05,
        "4x the input took {:.1}x the time ({small:.3} s -> {big:.3} s)",
        big / small
    );
}

// ---------------------------------------------------------------------------------------
// (a) collect over SSH

use super::collect_emulated::Lab;

/// An emulated device of `platform` answering every command of its vendor file with the
/// platform's secrets (the RDMA discovery command names one port, so the per-interface and
/// per-device commands run too).
fn secret_device(platform: &str, exec: bool) -> Device {
    let parsers = fabric_audit::load_parsers(None).unwrap();
    let p = parsers.platform(platform).unwrap();
    let text = Arc::new(text_of(platform).into_bytes());
    let mut outputs = HashMap::new();
    for c in &p.commands {
        let cmd = c.cmd.replace("{if}", "eth2").replace("{dev}", "mlx5_0");
        let out = if c.id == "rdma-link-json" {
            Arc::new(br#"[{"ifname":"mlx5_0/1","netdev":"eth2"}]"#.to_vec())
        } else {
            text.clone()
        };
        outputs.insert(cmd, out);
    }
    Device {
        platform: platform.into(),
        hostname: format!("{platform}1"),
        exec,
        page_lines: 24,
        outputs,
        live: HashMap::new(),
        hang: HashSet::new(),
        endless: HashMap::new(),
        sticky_paging: false,
        ..Default::default()
    }
}

/// Every file under `dir`, as text.
fn files_under(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let b = std::fs::read(&p).unwrap();
                out.insert(p, String::from_utf8_lossy(&b).into_owned());
            }
        }
    }
    out
}

fn collect_all(mode: &str) {
    let lab = Lab::new(&format!("secrets-{mode}"));
    let mut kh = String::new();
    let mut inv = String::from("[defaults]\nuser = \"audit\"\n");
    inv.push_str(&format!(
        "identity_file = {:?}\nknown_hosts = {:?}\n",
        lab.client_key_file.display().to_string(),
        lab.dir.join("known_hosts").display().to_string()
    ));
    for p in platforms() {
        let addr = lab.serve(secret_device(p, mode == "exec"));
        kh.push_str(&format!(
            "[{}]:{} {}\n",
            addr.ip(),
            addr.port(),
            lab.host_key.public_key().to_openssh().unwrap()
        ));
        inv.push_str(&format!(
            "\n[[device]]\nname = \"{p}1\"\naddress = \"{}\"\nport = {}\nplatform = \"{p}\"\nsession = \"{mode}\"\n",
            addr.ip(),
            addr.port()
        ));
        if p == "linux" {
            inv.push_str("interfaces = [\"eth2\"]\n");
        }
    }
    std::fs::write(lab.dir.join("known_hosts"), kh).unwrap();
    let invf = lab.dir.join("inventory.toml");
    std::fs::write(&invf, inv).unwrap();
    let snap = lab.dir.join("snap");
    let out = Command::new(BIN)
        .args(["collect", "--inventory"])
        .arg(&invf)
        .arg("--out")
        .arg(&snap)
        .args(["--ssh-config", "none"])
        .env("HOME", &lab.dir)
        .env_remove("SSH_AUTH_SOCK")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        snap.join("devices").is_dir(),
        "{mode}: no snapshot: {stderr}"
    );
    assert_eq!(leaks(&stderr), Vec::<String>::new(), "{mode}: stderr");
    assert_eq!(
        leaks(&String::from_utf8_lossy(&out.stdout)),
        Vec::<String>::new()
    );
    let files = files_under(&snap);
    // No secret on disk, checked first so that a collector that writes secrets fails here,
    // with the count, whatever else it gets wrong.
    let mut found = Vec::new();
    for (f, t) in &files {
        for l in leaks(t) {
            found.push(format!("{}: {l}", f.display()));
        }
    }
    assert!(
        found.is_empty(),
        "{mode}: {} secrets on disk:\n{}",
        found.len(),
        found.join("\n")
    );
    // Every platform was collected, and its outputs hold the lines around the secrets.
    for p in platforms() {
        let dir = snap.join("devices").join(format!("{p}1"));
        let outputs: Vec<&String> = files
            .iter()
            .filter(|(f, _)| f.starts_with(&dir) && !f.ends_with("device.toml"))
            .map(|(_, t)| t)
            .collect();
        assert!(
            outputs.len() >= 2,
            "{mode}: {p}: {} output files; stderr: {stderr}",
            outputs.len()
        );
        let all: String = outputs
            .iter()
            .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
            .join("\n");
        for k in kept_parts(p) {
            assert!(
                all.contains(&k),
                "{mode}: {p}: {k:?} missing from the outputs"
            );
        }
        assert!(all.contains("<redacted>"), "{mode}: {p}");
    }
}

#[test]
fn collect_in_exec_sessions_writes_no_secret() {
    collect_all("exec");
}

#[test]
fn collect_in_shell_sessions_writes_no_secret() {
    collect_all("shell");
}

// ---------------------------------------------------------------------------------------
// (b) a hand-made snapshot in every report format

/// configs/<platform>-cfg.cfg for each switch platform, and devices/<platform>-dev/ for every
/// platform: the secrets as the output of its config (or first) command, and once more in a
/// file no command names.
fn hand_made(dir: &Path) {
    let parsers = fabric_audit::load_parsers(None).unwrap();
    std::fs::create_dir_all(dir.join("configs")).unwrap();
    let mut fabric = String::new();
    for p in platforms() {
        let text = text_of(p);
        if p != "linux" {
            std::fs::write(dir.join("configs").join(format!("{p}-cfg.cfg")), &text).unwrap();
            fabric.push_str(&format!(
                "[[device]]\nname = \"{p}-cfg\"\nplatform = \"{p}\"\n\n"
            ));
        }
        let plat = parsers.platform(p).unwrap();
        let cmds: Vec<String> = plat
            .config_command()
            .into_iter()
            .chain(plat.commands.iter().filter(|c| c.per == "once"))
            .map(|c| c.cmd.clone())
            .take(3)
            .collect();
        let d = dir.join("devices").join(format!("{p}-dev"));
        std::fs::create_dir_all(&d).unwrap();
        let mut toml = format!("name = \"{p}-dev\"\nplatform = \"{p}\"\n");
        for (i, c) in cmds.iter().enumerate() {
            let f = format!("out{i}.txt");
            std::fs::write(d.join(&f), &text).unwrap();
            toml.push_str(&format!(
                "\n[[command]]\ncmd = {c:?}\nfile = \"{f}\"\nexit = 0\n"
            ));
        }
        std::fs::write(d.join("unlisted.txt"), &text).unwrap();
        std::fs::write(d.join("device.toml"), toml).unwrap();
    }
    std::fs::write(dir.join("fabric.toml"), fabric).unwrap();
}

fn audit(dir: &Path, format: &str) -> Output {
    Command::new(BIN)
        .arg("audit")
        .arg(dir)
        .args(["--format", format, "--color", "never"])
        .output()
        .unwrap()
}

#[test]
fn a_hand_made_snapshot_reports_no_secret_in_any_format() {
    let dir = std::env::temp_dir().join(format!("fa-secrets-hand-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    hand_made(&dir);
    for f in FORMATS {
        let out = audit(&dir, f);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{f}: exit {:?}: {stderr}",
            out.status.code()
        );
        assert!(stdout.len() > 200, "{f}: {stdout}");
        assert_eq!(leaks(&stdout), Vec::<String>::new(), "{f}: in the report");
        assert_eq!(leaks(&stderr), Vec::<String>::new(), "{f}: on stderr");
        if f == "json" {
            // The unrecognized lines are reported, with their secrets redacted.
            assert!(stdout.contains("<redacted>"), "{f}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Redaction keeps every fact the audit reads: on the four demo fabrics, the only lines that
/// redaction changes are secrets, none of them RoCE configuration.
#[test]
fn the_demo_fabrics_lose_only_secret_lines() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let roce = [
        "mtu",
        "pfc",
        "priority",
        "ecn",
        "dscp",
        "qos",
        "buffer",
        "lldp",
        "interface",
        "watchdog",
        "queue",
        "traffic",
        "cos",
        "tc",
        "pause",
    ];
    let mut changed = Vec::new();
    for fab in [
        "demo-fabric",
        "clean-fabric",
        "demo-mixed-fabric",
        "clean-mixed-fabric",
    ] {
        for (f, t) in files_under(&root.join(fab)) {
            let (out, _) = fabric_audit::redact::redact(&t);
            for (a, b) in t.lines().zip(out.lines()) {
                if a != b {
                    changed.push(format!("{}: {a}", f.display()));
                    let lower = b.to_ascii_lowercase();
                    let word_hit = roce.iter().any(|w| {
                        lower
                            .split(|c: char| !c.is_ascii_alphanumeric())
                            .any(|x| x == *w)
                    });
                    assert!(
                        !word_hit,
                        "{}: a RoCE line changed: {a:?} -> {b:?}",
                        f.display()
                    );
                }
            }
        }
    }
    eprintln!(
        "{} demo lines redacted:\n{}",
        changed.len(),
        changed.join("\n")
    );
}
