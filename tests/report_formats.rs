//! The CI report formats (issue 6): sarif, junit and github, each driven end to end
//! as a user would (`review --repo … --base base --path fabric --format X` on the change-review
//! repository of tests/common, `audit --format X` on the clean fabric) and read back with a
//! real parser; device strings made hostile on purpose must come out as plain text.

mod common;

use fabric_audit::finding::{Finding, Location, Severity};
use fabric_audit::review::Review;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fabric-audit"))
        .args(args)
        .output()
        .unwrap()
}

fn scratch(tag: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("fa-formats-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(&p).unwrap();
    p
}

fn review(repo: &Path, format: &str) -> Output {
    bin(&[
        "review",
        "--repo",
        repo.to_str().unwrap(),
        "--base",
        "base",
        "--path",
        "fabric",
        "--format",
        format,
    ])
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// Commit the waivers of the two new faults.
fn waive(repo: &Path) {
    std::fs::write(repo.join("fabric/waivers.toml"), common::REVIEW_WAIVERS).unwrap();
    common::git(repo, &["add", "-A"]);
    common::git(repo, &["commit", "-q", "-m", "waive CHG-1 until CHG-3"]);
}

/// rule → (file, line) of the new findings, from the JSON review.
fn json_sources(repo: &Path) -> BTreeMap<String, (String, u64)> {
    let v: Value = serde_json::from_slice(&review(repo, "json").stdout).unwrap();
    v["new"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                (
                    f["source"]["file"].as_str().unwrap().to_string(),
                    f["source"]["line"].as_u64().unwrap(),
                ),
            )
        })
        .collect()
}

/// A line (1-based) of a file of the repository's head commit.
fn head_line(repo: &Path, path: &str, line: u64) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["show", &format!("HEAD:{path}")])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .nth(line as usize - 1)
        .unwrap_or("")
        .to_string()
}

fn clean_audit() -> fabric_audit::audit::Audit {
    fabric_audit::audit::run(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/clean-fabric"),
        &Default::default(),
    )
    .unwrap()
}

fn finding(rule: &str, sev: Severity, device: &str, iface: &str, message: &str) -> Finding {
    Finding {
        rule: rule.into(),
        severity: sev,
        title: "a title".into(),
        message: message.into(),
        device: device.into(),
        interface: Some(iface.into()),
        peer: None,
        source: Some(Location {
            file: "configs/leaf1.json".into(),
            line: 12,
        }),
        evidence: Default::default(),
        remediation: None,
    }
}

// ---------------------------------------------------------------- sarif

#[test]
fn sarif_review_for_code_scanning() {
    let root = scratch("sarif");
    let repo = common::review_repo(&root);
    let out = review(&repo, "sarif");
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    // It reads as SARIF with the types generated from the official schema.
    let typed: serde_sarif::sarif::Sarif = serde_json::from_str(&text).unwrap();
    assert_eq!(typed.runs.len(), 1);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["version"], "2.1.0");
    assert!(
        v["$schema"]
            .as_str()
            .unwrap()
            .contains("sarif-schema-2.1.0")
    );
    let run = &v["runs"][0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "fabric-audit");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    let rules = driver["rules"].as_array().unwrap();
    let pfc = rules.iter().find(|r| r["id"] == "PFC003").unwrap();
    assert_eq!(pfc["defaultConfiguration"]["level"], "error");
    assert!(!pfc["fullDescription"]["text"].as_str().unwrap().is_empty());
    assert!(pfc["help"]["text"].as_str().unwrap().contains("Fix:"));
    assert_eq!(pfc["properties"]["tags"].as_array().unwrap().len(), 1);
    let results = run["results"].as_array().unwrap();
    let mut prints = std::collections::BTreeSet::new();
    for r in results {
        let i = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[i]["id"], r["ruleId"], "ruleIndex points at the rule");
        assert_ne!(r["baselineState"], "absent", "fixed findings are left out");
        let fp = r["partialFingerprints"]["fabricAuditIdentity/v1"]
            .as_str()
            .unwrap();
        assert!(prints.insert(fp.to_string()), "fingerprints differ: {fp}");
    }
    let new: Vec<&Value> = results
        .iter()
        .filter(|r| r["baselineState"] == "new")
        .collect();
    assert_eq!(new.len(), 2, "{text}");
    let src = json_sources(&repo);
    for r in &new {
        let rule = r["ruleId"].as_str().unwrap();
        assert_eq!(r["level"], "error");
        let loc = &r["locations"][0];
        let uri = loc["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap();
        let line = loc["physicalLocation"]["region"]["startLine"]
            .as_u64()
            .unwrap();
        assert!(uri.starts_with("fabric/configs/"), "{uri}");
        assert_eq!(
            (uri.to_string(), line),
            (format!("fabric/{}", src[rule].0), src[rule].1)
        );
        let held = head_line(&repo, uri, line);
        let want = if rule == "MTU001" {
            "\"mtu\": \"9100\""
        } else {
            "enable: on"
        };
        assert!(held.contains(want), "{rule} {uri}:{line} holds {held:?}");
        let names: Vec<&str> = loc["logicalLocations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["name"].as_str().unwrap())
            .collect();
        assert!(
            names.contains(&"leaf1") || names.contains(&"spine1"),
            "{names:?}"
        );
        assert!(r["message"]["text"].as_str().unwrap().contains(names[0]));
    }

    // Waived: results with an accepted external suppression; exit 0.
    waive(&repo);
    let out = review(&repo, "sarif");
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let _: serde_sarif::sarif::Sarif = serde_json::from_str(&text).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    let results = v["runs"][0]["results"].as_array().unwrap();
    let suppressed: Vec<&Value> = results
        .iter()
        .filter(|r| r.get("suppressions").is_some())
        .collect();
    assert_eq!(suppressed.len(), 2);
    for r in suppressed {
        let s = &r["suppressions"][0];
        assert_eq!(s["kind"], "external");
        assert_eq!(s["status"], "accepted");
        assert!(!s["justification"].as_str().unwrap().is_empty());
    }
    assert!(results.iter().all(|r| r["baselineState"] != "new"));

    // A plain audit: snapshot-relative paths, no baseline state.
    let out = bin(&[
        "audit",
        concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/clean-fabric"),
        "--format",
        "sarif",
    ]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    for r in v["runs"][0]["results"].as_array().unwrap() {
        assert!(r.get("baselineState").is_none());
        if let Some(u) = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str() {
            assert!(!u.starts_with("fabric/") && !u.starts_with('/'), "{u}");
        }
    }
    let _ = std::fs::remove_dir_all(&root);
}

// ---------------------------------------------------------------- junit

/// (tests, failures, skipped) of an element's attributes, checked against its testcases.
fn junit_counts(doc: &roxmltree::Document) -> (usize, usize, usize) {
    let attr = |n: roxmltree::Node, a: &str| n.attribute(a).unwrap().parse::<usize>().unwrap();
    let count = |n: roxmltree::Node| {
        let cases: Vec<_> = n
            .descendants()
            .filter(|c| c.has_tag_name("testcase"))
            .collect();
        let with = |t: &str| {
            cases
                .iter()
                .filter(|c| c.children().any(|x| x.has_tag_name(t)))
                .count()
        };
        (cases.len(), with("failure"), with("skipped"))
    };
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    for s in root.children().filter(|c| c.has_tag_name("testsuite")) {
        assert_eq!(
            (attr(s, "tests"), attr(s, "failures"), attr(s, "skipped")),
            count(s),
            "suite {:?}",
            s.attribute("name")
        );
    }
    let c = count(root);
    assert_eq!(
        (
            attr(root, "tests"),
            attr(root, "failures"),
            attr(root, "skipped")
        ),
        c
    );
    c
}

#[test]
fn junit_review_and_clean_fabric() {
    let root = scratch("junit");
    let repo = common::review_repo(&root);
    let out = review(&repo, "junit");
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let doc = roxmltree::Document::parse(&text).unwrap();
    let (_, failures, _) = junit_counts(&doc);
    assert_eq!(failures, 2, "{text}");
    let mut failing: Vec<(String, String)> = doc
        .descendants()
        .filter(|c| c.has_tag_name("testcase"))
        .filter(|c| c.children().any(|x| x.has_tag_name("failure")))
        .map(|c| {
            let f = c.children().find(|x| x.has_tag_name("failure")).unwrap();
            assert_eq!(f.attribute("type"), Some("error"));
            (
                c.attribute("classname").unwrap().to_string(),
                c.attribute("name")
                    .unwrap()
                    .split(' ')
                    .next()
                    .unwrap()
                    .to_string(),
            )
        })
        .collect();
    failing.sort();
    assert_eq!(
        failing,
        [
            ("leaf1".to_string(), "MTU001".to_string()),
            ("spine1".into(), "PFC003".into())
        ]
    );
    // Suites are rule families.
    assert!(
        doc.descendants()
            .any(|s| s.has_tag_name("testsuite") && s.attribute("name") == Some("pfc")),
        "{text}"
    );

    waive(&repo);
    let out = review(&repo, "junit");
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let doc = roxmltree::Document::parse(&text).unwrap();
    let (_, failures, skipped) = junit_counts(&doc);
    assert_eq!((failures, skipped), (0, 2), "{text}");
    for s in doc.descendants().filter(|s| s.has_tag_name("skipped")) {
        let m = s.attribute("message").unwrap();
        assert!(m.starts_with("waived: ") && m.contains("until 20"), "{m}");
    }

    let out = bin(&[
        "audit",
        concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/clean-fabric"),
        "--format",
        "junit",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let doc = roxmltree::Document::parse(&text).unwrap();
    let (tests, failures, _) = junit_counts(&doc);
    assert!(tests >= 1 && failures == 0, "{text}");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn junit_keeps_hostile_text_as_text() {
    let audit = clean_audit();
    let mut r = Review::of_audit(&audit, "clean-fabric");
    let msg = "a ]]> b <c/> & \"q\" 'x' \u{1}\u{7}end";
    r.new = vec![finding("MTU001", Severity::Error, "le&af<1>", "e\"1", msg)];
    let text = fabric_audit::report::junit::render(&r);
    let doc = roxmltree::Document::parse(&text).unwrap();
    let (_, failures, _) = junit_counts(&doc);
    assert_eq!(failures, 1);
    let case = doc
        .descendants()
        .find(|c| c.has_tag_name("testcase") && c.attribute("classname") == Some("le&af<1>"))
        .unwrap();
    let fail = case.children().find(|x| x.has_tag_name("failure")).unwrap();
    let clean = "a ]]> b <c/> & \"q\" 'x' end";
    assert!(fail.text().unwrap().contains(clean), "{text}");
    assert!(fail.attribute("message").unwrap().contains(clean));
}

// ---------------------------------------------------------------- github

/// A workflow command line read back: (command, properties, message), unescaped.
fn gh_parse(line: &str) -> (String, BTreeMap<String, String>, String) {
    let unescape = |s: &str| {
        s.replace("%0D", "\r")
            .replace("%0A", "\n")
            .replace("%3A", ":")
            .replace("%2C", ",")
            .replace("%25", "%")
    };
    let rest = line.strip_prefix("::").unwrap();
    let (head, msg) = rest.split_once("::").unwrap();
    let (cmd, props) = head.split_once(' ').unwrap_or((head, ""));
    let props = props
        .split(',')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap();
            (k.to_string(), unescape(v))
        })
        .collect();
    (cmd.to_string(), props, unescape(msg))
}

#[test]
fn github_annotations_for_a_review() {
    let root = scratch("github");
    let repo = common::review_repo(&root);
    let out = review(&repo, "github");
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let lines: Vec<_> = text.lines().map(gh_parse).collect();
    let src = json_sources(&repo);
    let errors: Vec<_> = lines.iter().filter(|l| l.0 == "error").collect();
    assert_eq!(errors.len(), 2, "{text}");
    for (_, p, msg) in &errors {
        let rule = p["title"].split(' ').next().unwrap();
        assert_eq!(p["file"], format!("fabric/{}", src[rule].0));
        assert_eq!(p["line"], src[rule].1.to_string());
        assert!(!msg.is_empty());
    }
    let titles: Vec<&str> = errors.iter().map(|l| l.1["title"].as_str()).collect();
    assert_eq!(titles, ["MTU001 leaf1 Ethernet240", "PFC003 spine1 swp1"]);
    let last = lines.last().unwrap();
    assert_eq!(last.0, "notice");
    assert!(last.2.contains("2 new (2 error), 1 fixed"), "{text}");

    waive(&repo);
    let out = review(&repo, "github");
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let lines: Vec<_> = text.lines().map(gh_parse).collect();
    assert!(lines.iter().all(|l| l.0 == "notice"), "{text}");
    assert!(
        lines
            .iter()
            .any(|l| l.2.starts_with("2 waived") && l.2.contains("CHG-9"))
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn github_escapes_so_a_message_cannot_start_a_command() {
    let audit = clean_audit();
    let mut r = Review::of_audit(&audit, "clean-fabric");
    let msg = "bad\n::error::pwned\r\n100%0A done";
    let mut f = finding("MTU001", Severity::Warning, "le,af:1", "e1", msg);
    f.source = None;
    r.new = vec![f];
    r.waived.clear();
    let text = fabric_audit::report::github::render(&r);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    let (cmd, props, m) = gh_parse(lines[0]);
    assert_eq!(cmd, "warning");
    assert_eq!(m, msg);
    assert_eq!(props["title"], "MTU001 le,af:1 e1");
    assert!(!props.contains_key("file") && !props.contains_key("line"));
    assert_eq!(gh_parse(lines[1]).0, "notice");
}
