//! `fabric-audit review --repo --base --head` end to end on a git repository of intended
//! configs made here (tests/common `review_repo`): one commit introduces a PFC and an MTU
//! fault, a later one fixes an old ECN fault. The review reports exactly those two as new and
//! the ECN finding as fixed and exits 1; with the two faults waived it exits 0 and lists the
//! waivers apart. Also: waivers in a plain audit, WAIVER findings, and bad input.

use crate::common;

use serde_json::Value;
use std::path::Path;
use std::process::Output;

fn bin(args: &[&str]) -> Output {
    common::fa(args)
}

fn scratch(tag: &str) -> common::Scratch {
    common::scratch("review", tag)
}

/// (rule, device, interface) of every decided finding of a class.
fn ids(v: &Value, class: &str) -> Vec<(String, String, String)> {
    let mut out: Vec<_> = v[class]
        .as_array()
        .unwrap_or_else(|| panic!("no {class} in {v:#}"))
        .iter()
        .map(|f| f.get("finding").unwrap_or(f))
        .filter(|f| f["evidence"]["undecided"] != true)
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["device"].as_str().unwrap().to_string(),
                f["interface"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

fn t(r: &str, d: &str, i: &str) -> (String, String, String) {
    (r.into(), d.into(), i.into())
}

fn review(repo: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "review",
        "--repo",
        repo.to_str().unwrap(),
        "--base",
        "base",
        "--path",
        "fabric",
    ];
    args.extend_from_slice(extra);
    bin(&args)
}

#[test]
fn review_reports_two_new_one_fixed_and_honours_waivers() {
    let root = scratch("git");
    let repo = common::review_repo(&root);

    let out = review(&repo, &["--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        ids(&v, "new"),
        vec![
            t("MTU001", "leaf1", "Ethernet240"),
            t("PFC003", "spine1", "swp1")
        ]
    );
    assert_eq!(v["new"].as_array().unwrap().len(), 2, "nothing else is new");
    assert_eq!(ids(&v, "fixed"), vec![t("ECN001", "leaf1", "Ethernet0")]);
    assert_eq!(v["fixed"].as_array().unwrap().len(), 1);
    assert_eq!(v["scope"]["kind"], "git");
    assert_eq!(v["scope"]["base"], "base");
    assert_eq!(v["scope"]["head"], "HEAD");
    assert_eq!(v["scope"]["head_commit"].as_str().unwrap().len(), 40);
    // The repository's work tree was not touched.
    assert!(!repo.join("fabric/waivers.toml").exists());

    // The terminal table says the same.
    let out = review(&repo, &[]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains("2 new (2 error), 1 fixed"),
        "{text}"
    );

    // Only new findings fail: with --fail-on never, 0.
    assert_eq!(
        review(&repo, &["--fail-on", "never"]).status.code(),
        Some(0)
    );

    // The faults waived in the head commit: exit 0, the two listed apart with their waivers.
    std::fs::write(repo.join("fabric/waivers.toml"), common::REVIEW_WAIVERS).unwrap();
    common::git(&repo, &["add", "-A"]);
    common::git(&repo, &["commit", "-q", "-m", "waive CHG-1 until CHG-3"]);
    let out = review(&repo, &["--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(ids(&v, "new"), vec![]);
    assert_eq!(ids(&v, "fixed"), vec![t("ECN001", "leaf1", "Ethernet0")]);
    assert_eq!(
        ids(&v, "waived"),
        vec![
            t("MTU001", "leaf1", "Ethernet240"),
            t("PFC003", "spine1", "swp1")
        ]
    );
    let w = &v["waived"][0]["waiver"];
    assert_eq!(w["file"], "waivers.toml");
    assert!(w["line"].as_u64().unwrap() > 0);
    assert!(!w["reason"].as_str().unwrap().is_empty());
    let text = String::from_utf8_lossy(&review(&repo, &[]).stdout).into_owned();
    assert!(text.contains("Waived (not failing)"), "{text}");
    assert!(text.contains("netops@example.com"), "{text}");

    // Bad refs and paths are errors that say what was asked.
    let out = review(&repo, &["--head", "no-such-branch"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("\"no-such-branch\" names no commit"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = bin(&["review", "--repo", root.to_str().unwrap(), "--base", "HEAD"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a git repository"));
    let out = bin(&[
        "review",
        "--repo",
        repo.to_str().unwrap(),
        "--base",
        "base",
        "--path",
        "nowhere",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("\"nowhere\""));
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn waivers_in_a_plain_audit_and_waiver_findings() {
    let root = scratch("audit");
    let snap = root.join("snap");
    common::copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/clean-mixed-fabric"),
        &snap,
    );
    common::apply_case_edits(&snap, "MTU001/sonic-uplink-mtu-9100.toml");
    let audit = |extra: &[&str]| {
        let mut a = vec!["audit", snap.to_str().unwrap(), "--format", "json"];
        a.extend_from_slice(extra);
        bin(&a)
    };
    assert_eq!(audit(&[]).status.code(), Some(1));
    std::fs::write(
        snap.join("waivers.toml"),
        format!(
            "{}\n{}",
            common::REVIEW_WAIVERS,
            r#"
[[waiver]]
rule = "PCF001"
reason = "typo in the rule id"
owner = "someone"
expires = 2099-01-01

[[waiver]]
rule = "ECN001"
reason = "old exception"
owner = "someone"
expires = 2020-01-31
"#
        ),
    )
    .unwrap();
    let out = audit(&[]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // PCF001 names no rule: WAIVER002 is an error, so the audit still fails.
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(ids(&v, "waived"), vec![t("MTU001", "leaf1", "Ethernet240")]);
    let waiver: Vec<(String, u64)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"].as_str().unwrap().starts_with("WAIVER"))
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["source"]["line"].as_u64().unwrap(),
            )
        })
        .collect();
    // PFC003 spine1 swp1 is not faulty here (unused, line 1), PCF001 is unknown (line 18),
    // ECN001's waiver expired (line 24).
    assert_eq!(
        waiver,
        vec![
            ("WAIVER001".to_string(), 1),
            ("WAIVER002".to_string(), 18),
            ("WAIVER003".to_string(), 24)
        ]
    );
    assert!(
        !ids(&v, "findings")
            .iter()
            .any(|f| f.0 == "MTU001" || f.0 == "PARSE005"),
        "{:?}",
        ids(&v, "findings")
    );
    // The terminal report lists the waived finding apart.
    let out = bin(&["audit", snap.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Waived (not counted)") && text.contains("1 waived"),
        "{text}"
    );

    // A waiver file with a missing reason is an error naming the file and line.
    std::fs::write(
        root.join("bad.toml"),
        "[[waiver]]\nrule = \"MTU001\"\nowner = \"x\"\nexpires = 2099-01-01\n",
    )
    .unwrap();
    let out = audit(&["--waivers", root.join("bad.toml").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.toml:1:") && err.contains("reason"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&root);
}
