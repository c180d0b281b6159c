//! A back-end GPU fabric after Juniper's AI data center JVD (fixtures/jvd-ai-fabric, written by
//! scripts/gen-jvd-fabric.py and by hand; README.md there cites the design), audited end to end
//! through the CLI. Its class of service keeps traffic class, queue and PFC priority apart: RoCE
//! (DSCP 26) in forwarding class NO-LOSS on queue 4 with PFC priority 3, CNPs (DSCP 48) on queue
//! 3 strict-high. The clean fabric has no error and no warning, and none of the four false
//! findings issue 15 saw on it; its twin (fixtures/demo-jvd-ai-fabric) reports each of its three
//! planted faults and no error on a correct device.

use serde::Deserialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    fault: Vec<Fault>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Fault {
    description: String,
    rule: String,
    device: String,
    interface: Option<String>,
    severity: String,
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

fn run(dir: &Path, format: &str) -> (Option<i32>, serde_json::Value) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fabric-audit"))
        .args(["audit", dir.to_str().unwrap(), "--format", format])
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), v)
}

use crate::common::{self, describe};

#[test]
fn jvd_fabric_has_no_error_and_no_warning() {
    let (code, v) = run(&fixture("jvd-ai-fabric"), "json");
    let findings = v["findings"].as_array().unwrap();
    let bad: Vec<String> = findings
        .iter()
        .filter(|f| f["severity"] == "error" || f["severity"] == "warning")
        .map(describe)
        .collect();
    assert!(bad.is_empty(), "JVD fabric:\n{}", bad.join("\n"));
    assert_eq!(code, Some(0));
    assert_eq!(v["summary"]["devices"].as_u64(), Some(6));
    assert_eq!(v["summary"]["parse"]["failed"].as_u64(), Some(0));
    assert_eq!(v["summary"]["parse"]["partial"].as_u64(), Some(0));
    // Issue 15, "What was seen" 1: what the audit said on every port of this design while it
    // took the queue number for the traffic class and the PFC priority.
    let symptoms = [
        ("DSCP002", "classified to TC 4"),
        ("ECN001", "queue 3"),
        ("SCHED002", "RoCE queue 3"),
        ("SCHED003", "RoCE data queue 3"),
        ("BUF002", "no lossless"),
        ("DSCP003", "not the CNP TC"),
    ];
    for f in findings {
        for (rule, text) in symptoms {
            assert!(
                !(f["rule"] == rule && f["message"].as_str().unwrap_or("").contains(text)),
                "{}",
                describe(f)
            );
        }
    }
    // Each rule the design used to fail was decided (passed), not left undecided: a pass
    // that reads the JVD's own numbers.
    for rule in [
        "DSCP002", "DSCP003", "ECN001", "SCHED001", "SCHED003", "BUF002", "PFC008",
    ] {
        assert!(
            !findings.iter().any(|f| f["rule"] == rule),
            "{rule} did not decide: {:?}",
            findings
                .iter()
                .filter(|f| f["rule"] == rule)
                .map(describe)
                .collect::<Vec<_>>()
        );
    }
}

#[test]
fn jvd_fabric_model_keeps_class_queue_and_pfc_priority_apart() {
    let (_, v) = run(&fixture("jvd-ai-fabric"), "model");
    let leaf1 = v["devices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "leaf1")
        .expect("leaf1 in the model");
    let port = leaf1["interfaces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "et-0/0/0")
        .expect("et-0/0/0 in the model");
    // DSCP 26 → NO-LOSS (queue 4) → PFC priority 3; DSCP 48 → CNP (queue 3), strict.
    let tc = port["dscp_to_tc"]["value"][26].as_u64().unwrap() as usize;
    assert_eq!(tc, 4);
    assert_eq!(port["tc_to_queue"]["value"][tc], 4);
    assert_eq!(port["tc_to_pfc_priority"]["value"][tc], 3);
    assert_eq!(port["queues"][4]["ecn"]["enabled"]["value"], true);
    assert_eq!(port["pgs"][4]["lossless"]["value"], true);
    let cnp = port["dscp_to_tc"]["value"][48].as_u64().unwrap() as usize;
    assert_eq!(cnp, 3);
    assert_eq!(port["queues"][3]["scheduler"]["value"], "strict");
    assert_eq!(port["queues"][4]["scheduler"]["value"], "dwrr");
}

#[test]
fn demo_jvd_fabric_reports_every_planted_fault() {
    let dir = fixture("demo-jvd-ai-fabric");
    let exp: Expected =
        toml::from_str(&std::fs::read_to_string(dir.join("expected-faults.toml")).unwrap())
            .unwrap();
    assert_eq!(exp.fault.len(), 3);
    let (code, v) = run(&dir, "json");
    assert_eq!(code, Some(1));
    let findings = v["findings"].as_array().unwrap();
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
                "{}: {} on {}",
                fault.description, fault.rule, fault.device
            ));
        }
    }
    assert!(missing.is_empty(), "not reported:\n{}", missing.join("\n"));
    let faulty: BTreeSet<&str> = exp.fault.iter().map(|f| f.device.as_str()).collect();
    common::assert_no_errors_off(findings, &faulty);
}
