//! `fabric-audit diff BEFORE AFTER` end to end on real snapshot folders: the clean fabric with
//! an ECN fault (before), then the same fabric with the ECN fault fixed and an MTU fault added
//! (after). The diff reports the MTU finding as new and the ECN finding as fixed, matched by
//! identity although the config lines moved, and fails only for new findings.

use crate::common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn edit(file: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.contains(from), "{} lacks {from:?}", file.display());
    std::fs::write(file, text.replacen(from, to, 1)).unwrap();
}

fn diff(before: &Path, after: &Path) -> (Option<i32>, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_fabric-audit"))
        .args([
            "diff",
            before.to_str().unwrap(),
            after.to_str().unwrap(),
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), v)
}

fn ids(v: &Value, class: &str) -> Vec<(String, String, String)> {
    v[class]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["evidence"]["undecided"] != true)
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["device"].as_str().unwrap().to_string(),
                f["interface"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn diff_classes_findings_new_fixed_unchanged() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let tmp = std::env::temp_dir().join(format!("fa-diff-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let (before, after) = (tmp.join("before"), tmp.join("after"));
    common::copy_tree(&root.join("fixtures/clean-fabric"), &before);
    // Before: leaf1's RoCE queue lost its ECN marking.
    let ecn = "    bandwidth remaining percent 60\n    random-detect minimum-threshold 150 kbytes maximum-threshold 1500 kbytes drop-probability 100 weight 0 ecn\n";
    edit(
        &before.join("configs/leaf1.cfg"),
        ecn,
        "    bandwidth remaining percent 60\n",
    );
    // After: ECN restored, but a comment block moves every later line, and gpu06 eth3 is left
    // at MTU 1500.
    common::copy_tree(&root.join("fixtures/clean-fabric"), &after);
    let cfg = after.join("configs/leaf1.cfg");
    let text = std::fs::read_to_string(&cfg).unwrap();
    std::fs::write(&cfg, format!("!\n! change 4711: reviewed\n!\n{text}")).unwrap();
    edit(
        &after.join("devices/gpu06/ip_-d_-j_link_show.txt"),
        "\"ifname\":\"eth3\",\"flags\":[\"BROADCAST\",\"MULTICAST\",\"UP\",\"LOWER_UP\"],\"mtu\":9000,",
        "\"ifname\":\"eth3\",\"flags\":[\"BROADCAST\",\"MULTICAST\",\"UP\",\"LOWER_UP\"],\"mtu\":1500,",
    );
    let (code, v) = diff(&before, &after);
    assert_eq!(code, Some(1), "{v:#}");
    let new = ids(&v, "new");
    assert!(
        new.contains(&("MTU002".into(), "gpu06".into(), "eth3".into())),
        "{new:?}"
    );
    // Only MTU rules see the 1500-byte port; nothing else is new.
    assert!(new.iter().all(|(r, _, _)| r.starts_with("MTU")), "{new:?}");
    let fixed = ids(&v, "fixed");
    assert!(
        !fixed.is_empty() && fixed.iter().all(|(r, d, _)| r == "ECN001" && d == "leaf1"),
        "{fixed:?}"
    );
    assert!(ids(&v, "new").iter().all(|(r, _, _)| r != "ECN001"));
    assert_eq!(
        v["summary"]["fixed"]["error"].as_u64(),
        Some(fixed.len() as u64)
    );

    // The reverse: the MTU fault is fixed and the ECN one comes back.
    let (code, v) = diff(&after, &before);
    assert_eq!(code, Some(1));
    assert!(ids(&v, "fixed").contains(&("MTU002".into(), "gpu06".into(), "eth3".into())));
    // Nothing changed: nothing new, exit 0, every finding unchanged (lines moved or not).
    let (code, v) = diff(&before, &before);
    assert_eq!(code, Some(0), "{v:#}");
    assert!(v["new"].as_array().unwrap().is_empty() && v["fixed"].as_array().unwrap().is_empty());
    let _ = std::fs::remove_dir_all(&tmp);
}
