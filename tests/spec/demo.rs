//! The README's first command on the bundled demo fabric: the table, the exit code, the JSON
//! contract of README.md "The report", every planted fault found where it was planted (the list is
//! fixtures/demo-fabric/expected-faults.toml), and no error on a device that is correct.

use serde::Deserialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo-fabric")
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    fault: Vec<Fault>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Fault {
    description: String,
    rule: String,
    device: String,
    #[serde(default)]
    interface: Option<String>,
    severity: String,
}

fn run(args: &[&str], envs: &[(&str, &str)]) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_fabric-audit"));
    c.args(args).env_remove("NO_COLOR");
    for (k, v) in envs {
        c.env(k, v);
    }
    c.output().unwrap()
}

#[test]
fn demo_table_exits_1_and_respects_no_color() {
    let d = demo();
    let d = d.to_str().unwrap();
    let out = run(&["audit", d], &[("NO_COLOR", "1")]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let t = String::from_utf8_lossy(&out.stdout);
    assert!(
        t.contains("leaf2 Ethernet1/3") && t.contains("severity") && t.contains("rule"),
        "{t}"
    );
    assert!(!t.contains('\u{1b}'), "NO_COLOR output has escape codes");
    let out = run(&["audit", d, "--color", "always"], &[]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains('\u{1b}'),
        "--color always has no colour"
    );
    let out = run(&["audit", d, "--fail-on", "never"], &[]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn demo_json_matches_the_contract_and_lists_every_planted_fault() {
    let d = demo();
    let out = run(&["audit", d.to_str().unwrap(), "--format", "json"], &[]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // Contract (README.md "The report").
    assert_eq!(v["schema"], "fabric-audit/report/v1");
    assert_eq!(v["tool"]["name"], "fabric-audit");
    assert!(v["tool"]["version"].is_string());
    for k in ["devices", "interfaces", "links", "rules"] {
        assert!(
            v["summary"][k].as_u64().is_some_and(|n| n > 0),
            "summary.{k}"
        );
    }
    for k in ["error", "warning", "info"] {
        assert!(v["summary"]["findings"][k].is_u64());
    }
    for k in ["passed", "partial", "failed"] {
        assert!(v["summary"]["parse"][k].is_u64());
    }
    let findings = v["findings"].as_array().unwrap();
    let count = |s: &str| findings.iter().filter(|f| f["severity"] == s).count() as u64;
    assert_eq!(
        v["summary"]["findings"]["error"].as_u64(),
        Some(count("error"))
    );
    assert_eq!(
        v["summary"]["findings"]["warning"].as_u64(),
        Some(count("warning"))
    );
    for f in findings {
        for k in ["rule", "severity", "title", "message", "device"] {
            assert!(f[k].is_string(), "finding without {k}: {f}");
        }
        assert!(f["evidence"].is_object());
        if let Some(s) = f.get("source") {
            assert!(s["file"].is_string() && s["line"].is_u64(), "{f}");
        }
        if let Some(p) = f.get("peer") {
            assert!(p["device"].is_string() && p["interface"].is_string(), "{f}");
        }
    }
    // Sorted by device, interface, rule.
    let keys: Vec<(String, String, String)> = findings
        .iter()
        .map(|f| {
            (
                f["device"].as_str().unwrap().to_string(),
                f["interface"].as_str().unwrap_or("").to_string(),
                f["rule"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut sorted = keys.clone();
    sorted.sort_by(|a, b| {
        fabric_audit::text::natural_cmp(&a.0, &b.0)
            .then(fabric_audit::text::natural_cmp(&a.1, &b.1))
            .then(a.2.cmp(&b.2))
    });
    assert_eq!(keys, sorted, "findings are not sorted");
    for p in v["parse"].as_array().unwrap() {
        for k in ["device", "file", "platform", "status"] {
            assert!(p[k].is_string(), "{p}");
        }
        assert!(p["unrecognized"].is_array());
    }

    // Every planted fault is found where it was planted.
    let exp: Expected =
        toml::from_str(&std::fs::read_to_string(demo().join("expected-faults.toml")).unwrap())
            .unwrap();
    let mut missing = Vec::new();
    for fault in &exp.fault {
        let hit = findings.iter().any(|f| {
            f["rule"] == fault.rule.as_str()
                && f["device"] == fault.device.as_str()
                && f["severity"] == fault.severity.as_str()
                && fault
                    .interface
                    .as_deref()
                    .is_none_or(|i| f["interface"] == i)
        });
        if !hit {
            missing.push(format!(
                "{} — expected {} {} on {} {}",
                fault.description,
                fault.severity,
                fault.rule,
                fault.device,
                fault.interface.as_deref().unwrap_or("")
            ));
        }
    }
    assert!(
        missing.is_empty(),
        "planted faults not reported:\n{}",
        missing.join("\n")
    );

    // Nothing at error severity on devices that are correct.
    let faulty: BTreeSet<&str> = exp.fault.iter().map(|f| f.device.as_str()).collect();
    let wrong: Vec<String> = findings
        .iter()
        .filter(|f| f["severity"] == "error")
        .filter(|f| {
            let dev = f["device"].as_str().unwrap_or("");
            let peer = f["peer"]["device"].as_str().unwrap_or("");
            !faulty.contains(dev) && !faulty.contains(peer)
        })
        .map(|f| {
            format!(
                "{} {} {}: {}",
                f["rule"], f["device"], f["interface"], f["message"]
            )
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "errors on correct devices:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn output_file_and_deterministic_json() {
    let d = demo();
    let dir = std::env::temp_dir().join(format!("fa-demo-out-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f1 = dir.join("a.json");
    let f2 = dir.join("b.json");
    for f in [&f1, &f2] {
        let out = run(
            &[
                "audit",
                d.to_str().unwrap(),
                "--format",
                "json",
                "--output",
                f.to_str().unwrap(),
            ],
            &[],
        );
        assert_eq!(out.status.code(), Some(1));
        assert!(out.stdout.is_empty());
    }
    assert_eq!(
        std::fs::read(&f1).unwrap(),
        std::fs::read(&f2).unwrap(),
        "same input, same bytes"
    );
    std::fs::remove_dir_all(&dir).ok();
}
