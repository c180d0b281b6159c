//! Issue 17, "What was seen" 5: messages are rendered from model values only. Every rule's
//! message, on every bundled fixture fabric (audited through the CLI) and on every rule
//! fixture case (checked by tests/spec/rule_fixtures.rs through [`bad_messages`]), must hold no
//! sentinel (`255` standing
//! for "no priority", `-1` for "not declared"), no `?` standing for an unknown value, and no
//! internal path of the rule engine (`i.pgs[pg].headroom_bytes`). A "could not decide" message
//! says why the input is missing: not collected, not in the files read, or never provided by
//! the platform.

use crate::common;

use regex::Regex;
use serde_json::Value;
use std::path::PathBuf;

struct Checks {
    sentinel: Regex,
    minus_one: Regex,
    internal: Regex,
}

impl Checks {
    fn new() -> Checks {
        Checks {
            // 255 alone (not inside a number or a dotted address).
            sentinel: Regex::new(r"(?:^|[^\d.])255(?:$|[^\d.])").unwrap(),
            minus_one: Regex::new(r"(?:^|[\s(=,\[])-1(?:$|[^\d])").unwrap(),
            // A rule-engine variable path: a short root, a dot, a field (`i.pgs[pg].x`,
            // `x.xoff_bytes`, `policy.roce_dscp`).
            // A rule-engine variable path: a short root not inside a word or a dotted name, a
            // dot, then a field with an underscore, a subscript or a further field
            // (`i.pgs[pg].headroom_bytes`, `x.xoff_bytes`, `i.watchdog.enabled`); quoted
            // versions (`EOS-x.y`) and file names (`-p.txt`) are not.
            internal: Regex::new(
                r"(?:^|[^\w.\-])(?:i|d|x|a|b|h|s|ad|bd|l|p|q|pg|item|policy|param)\.[a-z]+(?:_[a-z_]+|\[[^\]]*\]|\.[a-z_]+)",
            )
            .unwrap(),
        }
    }

    /// What is wrong with a message, if anything.
    fn bad(&self, f: &Value) -> Option<String> {
        let m = f["message"].as_str().unwrap_or("");
        let why = if self.sentinel.is_match(m) {
            "a sentinel 255"
        } else if self.minus_one.is_match(m) {
            "a sentinel -1"
        } else if m.contains('?') {
            "a literal ?"
        } else if let Some(x) = self.internal.find(m) {
            return Some(format!(
                "internal path {:?}: {}",
                x.as_str(),
                common::describe(f)
            ));
        } else if f["evidence"]["undecided"] == true
            && !f["evidence"]["missing"]
                .as_array()
                .is_none_or(|a| a.is_empty())
            && ![
                "not collected",
                "never provides it",
                "not in the files read",
            ]
            .iter()
            .any(|w| m.contains(w))
        {
            "an undecided message that does not say why the input is missing"
        } else {
            return None;
        };
        Some(format!("{why}: {}", common::describe(f)))
    }
}

fn fabrics() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(common::fixtures())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("configs").is_dir() || p.join("devices").is_dir())
        .collect();
    out.sort();
    out
}

#[test]
fn every_message_on_every_bundled_fabric_is_rendered_from_model_values() {
    let checks = Checks::new();
    let mut bad = Vec::new();
    let mut undecided = 0;
    let list = fabrics();
    assert!(list.len() >= 7, "{list:?}");
    for snap in &list {
        let out = common::fa(&[
            "audit",
            snap.to_str().unwrap(),
            "--format",
            "json",
            "--fail-on",
            "never",
        ]);
        let v: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{}: {e}", snap.display()));
        for f in v["findings"].as_array().unwrap() {
            undecided += usize::from(f["evidence"]["undecided"] == true);
            if let Some(b) = checks.bad(f) {
                bad.push(format!("{}: {b}", snap.display()));
            }
        }
    }
    assert!(undecided > 0, "the fabrics exercise no undecided message");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The findings of one rule fixture case whose message breaks the rules above. The rule cases
/// (tests/spec/rule_fixtures.rs, which together make every rule fire) call it on the audit they
/// already ran, so each case is audited once.
pub(crate) fn bad_messages(findings: &Value) -> Vec<String> {
    static CHECKS: std::sync::OnceLock<Checks> = std::sync::OnceLock::new();
    let checks = CHECKS.get_or_init(Checks::new);
    findings
        .as_array()
        .map(|a| a.iter().filter_map(|f| checks.bad(f)).collect())
        .unwrap_or_default()
}

/// "The platform never provides it" is said only of what no command of the platform fills: a
/// host whose `cma_roce_tos` outputs were not collected is told to collect them (it was told
/// the platform never provides the ToS), while an Onyx switch's priority-group headroom, which
/// no Onyx input fabric-audit reads states, is still "never provides it".
#[test]
fn undecided_says_not_collected_when_a_command_of_the_platform_fills_the_field() {
    let scratch = common::scratch("issue17", "never");
    let snap = scratch.join("demo");
    common::copy_tree(&common::fixtures().join("demo-fabric"), &snap);
    let dir = snap.join("devices/gpu01");
    let mut removed = 0;
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        if e.file_name().to_string_lossy().starts_with("cma_roce_tos") {
            std::fs::remove_file(e.path()).unwrap();
            removed += 1;
        }
    }
    assert_eq!(removed, 2);
    let out = common::fa(&[
        "audit",
        snap.to_str().unwrap(),
        "--format",
        "json",
        "--fail-on",
        "never",
    ]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let tos: Vec<&Value> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["device"] == "gpu01" && f["evidence"]["undecided"] == true)
        .filter(|f| f["evidence"]["why"]["interfaces[].rdma.roce_tos"].is_string())
        .collect();
    assert!(!tos.is_empty(), "no undecided ToS finding on gpu01");
    for f in &tos {
        assert_eq!(
            f["evidence"]["why"]["interfaces[].rdma.roce_tos"], "not_collected",
            "{f:#}"
        );
        let m = f["message"].as_str().unwrap();
        assert!(
            m.contains("not collected (it is in `cma_roce_tos -d {dev}`)"),
            "{m}"
        );
    }
    // What no Onyx input states is still said to be never provided.
    let out = common::fa(&[
        "audit",
        common::fixtures()
            .join("demo-mixed-fabric")
            .to_str()
            .unwrap(),
        "--format",
        "json",
        "--fail-on",
        "never",
    ]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let never: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["evidence"]["why"]["interfaces[].pgs[].headroom_bytes"] == "never_provided")
        .filter_map(|f| f["message"].as_str())
        .collect();
    assert!(
        never
            .iter()
            .any(|m| m.contains("the platform never provides it (no onyx input")),
        "{never:?}"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}
