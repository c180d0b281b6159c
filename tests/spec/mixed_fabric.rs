//! The mixed-NOS fabric (SONiC leaves, a Cumulus spine, a Junos spine, Onyx and OS10 leaves,
//! Linux GPU hosts), audited end to end through the CLI: the clean one has no error and no
//! warning; the demo one (scripts/gen-mixed-fabric.py plants rule cases in it) reports every
//! planted fault where it was planted and no error on a device that is correct.

use serde::Deserialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
struct Expected {
    #[serde(default)]
    fault: Vec<Fault>,
}

#[derive(Deserialize)]
struct Fault {
    description: String,
    rule: String,
    device: String,
    interface: Option<String>,
    severity: Option<String>,
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

fn audit(dir: &Path) -> (Option<i32>, serde_json::Value) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fabric-audit"))
        .args(["audit", dir.to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap();
    (
        out.status.code(),
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!("{e}: {}", String::from_utf8_lossy(&out.stderr));
        }),
    )
}

use crate::common::{self, describe};

#[test]
fn clean_mixed_fabric_has_no_error_and_no_warning() {
    let (code, v) = audit(&fixture("clean-mixed-fabric"));
    let bad: Vec<String> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error" || f["severity"] == "warning")
        .map(describe)
        .collect();
    assert!(bad.is_empty(), "clean mixed fabric:\n{}", bad.join("\n"));
    assert_eq!(code, Some(0));
    // Every device of the plan was read, and every file parsed.
    assert_eq!(v["summary"]["devices"].as_u64(), Some(10));
    assert_eq!(v["summary"]["parse"]["failed"].as_u64(), Some(0));
    assert_eq!(v["summary"]["parse"]["partial"].as_u64(), Some(0));
}

#[test]
fn demo_mixed_fabric_reports_every_planted_fault() {
    let dir = fixture("demo-mixed-fabric");
    let exp: Expected =
        toml::from_str(&std::fs::read_to_string(dir.join("expected-faults.toml")).unwrap())
            .unwrap();
    assert!(!exp.fault.is_empty());
    let (code, v) = audit(&dir);
    assert_eq!(code, Some(1));
    let findings = v["findings"].as_array().unwrap();
    let mut missing = Vec::new();
    for fault in &exp.fault {
        let hit = findings.iter().any(|f| {
            f["rule"] == fault.rule.as_str()
                && f["device"] == fault.device.as_str()
                && fault.severity.as_deref().is_none_or(|s| f["severity"] == s)
                && fault
                    .interface
                    .as_deref()
                    .is_none_or(|i| f["interface"] == i)
        });
        if !hit {
            missing.push(format!(
                "{}: {} on {} {}",
                fault.description,
                fault.rule,
                fault.device,
                fault.interface.as_deref().unwrap_or("")
            ));
        }
    }
    assert!(missing.is_empty(), "not reported:\n{}", missing.join("\n"));
    let faulty: BTreeSet<&str> = exp.fault.iter().map(|f| f.device.as_str()).collect();
    common::assert_no_errors_off(findings, &faulty);
}
