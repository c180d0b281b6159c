//! Findings at scale are pinned (issue 16): the JSON report of fabrics replicated to about 1,000
//! devices must stay byte for byte what `main` said before the performance work, so no
//! optimisation changes an answer. Each fabric is generated here (`benches/e2e/replicate.rs`,
//! the transformation of the peer benchmark's `scale/replicate.py`) into the test's target
//! folder, audited by the CLI, and summarised: SHA-256 of the whole report, its summary block
//! and the count of findings per rule and severity. The summary must equal
//! `tests/expected-findings/scale-<fabric>.txt`.
//!
//! The pinned files were written by `main`'s binary before any optimisation:
//! `UPDATE_GOLDEN=1 SCALE_AUDIT_BIN=<main's fabric-audit> cargo test --test spec scale_`.
//! `--timings` is tested here too: it reports on stderr and leaves the report unchanged.

#[path = "../../benches/e2e/replicate.rs"]
#[allow(dead_code)]
pub(crate) mod replicate;

use replicate::{Meta, replicate};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> PathBuf {
    std::env::var_os("SCALE_AUDIT_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_fabric-audit")))
}

fn audit_json(snapshot: &Path, extra: &[&str]) -> (Vec<u8>, String) {
    let out = Command::new(bin())
        .arg("audit")
        .arg(snapshot)
        .args(["--format", "json", "--fail-on", "never"])
        .args(extra)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}: {stderr}",
        snapshot.display()
    );
    (out.stdout, stderr)
}

/// The pinned summary of a JSON report.
fn summary(report: &[u8]) -> String {
    let v: serde_json::Value = serde_json::from_slice(report).unwrap();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for f in v["findings"].as_array().unwrap() {
        let key = format!(
            "{} {}",
            f["rule"].as_str().unwrap_or("?"),
            f["severity"].as_str().unwrap_or("?")
        );
        *counts.entry(key).or_default() += 1;
    }
    let digest = data_encoding::HEXLOWER.encode(&Sha256::digest(report));
    let mut s = format!("sha256 {digest}\n");
    s.push_str(&format!("summary {}\n", v["summary"]));
    for (k, n) in counts {
        s.push_str(&format!("findings {k} {n}\n"));
    }
    s
}

/// Generate `pods` copies of a bundled fabric and check its audit against the pinned summary.
fn check_pinned(fixture: &str, pods: usize, meta: Meta, name: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let snap = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("scale-{name}"));
    let devices = replicate(&root.join("fixtures").join(fixture), &snap, pods, meta).unwrap();
    assert!(devices >= 100, "{devices}");
    let got = summary(&audit_json(&snap, &[]).0);
    let path = root.join(format!("tests/expected-findings/scale-{name}.txt"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        want == got,
        "{name} ({devices} devices): the report differs from the one pinned before the \
         optimisations ({}).\nwant:\n{want}\ngot:\n{got}",
        path.display()
    );
}

#[test]
fn scale_clean_fabric_1008_devices_report_is_pinned() {
    check_pinned("clean-fabric", 72, Meta::Keep, "clean-1k");
}

#[test]
fn scale_clean_fabric_without_device_toml_report_is_pinned() {
    check_pinned("clean-fabric", 72, Meta::Drop, "clean-1k-nometa");
}

#[test]
fn scale_demo_mixed_fabric_with_faults_report_is_pinned() {
    check_pinned("demo-mixed-fabric", 20, Meta::Keep, "demo-mixed-200");
}

#[test]
fn timings_go_to_stderr_and_leave_the_report_unchanged() {
    let snap = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/clean-fabric");
    let (plain, _) = audit_json(&snap, &[]);
    let (timed, stderr) = audit_json(&snap, &["--timings"]);
    assert_eq!(plain, timed, "--timings changed the report");
    for phase in [
        "load", "read", "parse", "model", "links", "rules", "fixes", "report",
    ] {
        let line = stderr
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{phase} ")))
            .unwrap_or_else(|| panic!("no {phase} line in:\n{stderr}"));
        let cpu: f64 = line
            .split_whitespace()
            .nth(2)
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| panic!("no CPU seconds in {line:?}"));
        assert!(cpu >= 0.0, "{line}");
        // The peak resident set when the phase (last) ended, in MiB.
        let peak: f64 = line
            .split_whitespace()
            .nth(3)
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| panic!("no peak MiB in {line:?}"));
        assert!(peak > 1.0, "{line}");
    }
    assert!(stderr.contains("peak MiB"), "{stderr}");
    let parse = stderr
        .lines()
        .find(|l| l.trim_start().starts_with("parse "))
        .unwrap();
    let parse_cpu: f64 = parse.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert!(
        parse_cpu > 0.0,
        "parsing 14 devices takes some CPU: {stderr}"
    );
    assert!(stderr.contains("peak RSS"), "{stderr}");
}
