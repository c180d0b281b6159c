//! The CI report formats (issue 6): markdown, sarif, junit and github, each driven end to end
//! as a user would (`review --repo … --base base --path fabric --format X` on the change-review
//! repository of tests/common, `audit --format X` on the clean fabric) and read back with a
//! real parser; device strings made hostile on purpose must come out as plain text.

use crate::common;

use fabric_audit::finding::{Finding, Location, Remediation, Severity};
use fabric_audit::review::Review;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

fn bin(args: &[&str]) -> Output {
    common::fa(args)
}

fn scratch(tag: &str) -> common::Scratch {
    common::scratch("formats", tag)
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
    Finding::from(fabric_audit::finding::Parts {
        rule: rule.into(),
        severity: sev,
        title: "a title".into(),
        message: message.into(),
        device: device.into(),
        interface: Some(iface.into()),
        peer: None,
        source: Some(Location::new("configs/leaf1.json", 12)),
        evidence: Default::default(),
        remediation: None,
    })
}

// ---------------------------------------------------------------- markdown

mod md {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

    #[derive(Default, Debug)]
    pub struct Doc {
        /// Tables: rows of cells (header row first), cell text with `<br>` as "\n".
        pub tables: Vec<Vec<Vec<String>>>,
        pub html: Vec<String>,
        pub code: Vec<(String, String)>,
        pub headings: Vec<String>,
        pub links: usize,
        pub text: String,
    }

    pub fn parse(s: &str) -> Doc {
        let mut d = Doc::default();
        let mut cell: Option<String> = None;
        let mut code: Option<(String, String)> = None;
        let mut heading: Option<String> = None;
        for ev in Parser::new_ext(s, Options::ENABLE_TABLES) {
            match ev {
                Event::Start(Tag::Table(_)) => d.tables.push(Vec::new()),
                Event::Start(Tag::TableHead) | Event::Start(Tag::TableRow) => {
                    if let Some(t) = d.tables.last_mut() {
                        t.push(Vec::new());
                    }
                }
                Event::Start(Tag::TableCell) => cell = Some(String::new()),
                Event::End(TagEnd::TableCell) => {
                    let c = cell.take().unwrap();
                    d.tables.last_mut().unwrap().last_mut().unwrap().push(c);
                }
                Event::Start(Tag::CodeBlock(kind)) => {
                    let lang = match kind {
                        pulldown_cmark::CodeBlockKind::Fenced(l) => l.to_string(),
                        _ => String::new(),
                    };
                    code = Some((lang, String::new()));
                }
                Event::End(TagEnd::CodeBlock) => d.code.push(code.take().unwrap()),
                Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
                Event::End(TagEnd::Heading(_)) => d.headings.push(heading.take().unwrap()),
                Event::Start(Tag::Link { .. }) | Event::Start(Tag::Image { .. }) => d.links += 1,
                Event::Text(t) | Event::Code(t) => {
                    d.text.push_str(&t);
                    for slot in [&mut cell, &mut heading] {
                        if let Some(c) = slot.as_mut() {
                            c.push_str(&t);
                        }
                    }
                    if let Some((_, c)) = code.as_mut() {
                        c.push_str(&t);
                    }
                }
                Event::Html(h) | Event::InlineHtml(h) => {
                    if h.trim() == "<br>"
                        && let Some(c) = cell.as_mut()
                    {
                        c.push('\n');
                    }
                    d.html.push(h.to_string());
                }
                _ => {}
            }
        }
        d
    }

    /// Body rows of the finding tables (those whose header starts with "severity").
    pub fn rows(d: &Doc) -> Vec<Vec<String>> {
        d.tables
            .iter()
            .filter(|t| {
                t.first()
                    .is_some_and(|h| h.first().is_some_and(|c| c == "severity"))
            })
            .flat_map(|t| t.iter().skip(1).cloned())
            .collect()
    }
}

#[test]
fn markdown_review_comment_lists_new_fixed_and_waived() {
    let root = scratch("md");
    let repo = common::review_repo(&root);
    let out = review(&repo, "markdown");
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let d = md::parse(&text);
    assert!(d.headings[0].contains("2 new (2 error), 1 fixed"), "{text}");
    // Counts table: new 2 errors, fixed 1 error.
    let counts = &d.tables[0];
    assert_eq!(counts[0], ["", "error", "warning", "info"]);
    let row = |name: &str| counts.iter().find(|r| r[0] == name).unwrap().clone();
    assert_eq!(row("new")[1], "2");
    assert_eq!(row("fixed")[1], "1");
    // New first, then fixed: exactly these rows, with the repo-relative source.
    let rows: Vec<(String, String, String)> = md::rows(&d)
        .iter()
        .map(|r| {
            assert_eq!(r.len(), 6, "{r:?}");
            (r[1].clone(), r[2].clone(), r[3].clone())
        })
        .collect();
    let t = |a: &str, b: &str, c: &str| (a.to_string(), b.to_string(), c.to_string());
    assert_eq!(
        rows,
        [
            t("MTU001", "leaf1", "Ethernet240"),
            t("PFC003", "spine1", "swp1"),
            t("ECN001", "leaf1", "Ethernet0"),
        ]
    );
    let src = json_sources(&repo);
    let mtu = &md::rows(&d)[0];
    assert_eq!(
        mtu[5],
        format!("fabric/{}:{}", src["MTU001"].0, src["MTU001"].1)
    );
    assert!(
        d.headings.iter().any(|h| h == "New (2)"),
        "{:?}",
        d.headings
    );
    assert!(d.headings.iter().any(|h| h == "Fixed (1)"));
    assert!(d.html.iter().any(|h| h.contains("<details open><summary>")));

    // Waived: listed apart with reason, owner, expiry and waiver file:line; exit 0.
    waive(&repo);
    let out = review(&repo, "markdown");
    assert_eq!(out.status.code(), Some(0));
    let d = md::parse(&stdout(&out));
    let waived: Vec<Vec<String>> = d
        .tables
        .iter()
        .filter(|t| t[0].contains(&"reason".to_string()))
        .flat_map(|t| t.iter().skip(1).cloned())
        .collect();
    assert_eq!(waived.len(), 2, "{d:?}");
    assert!(waived.iter().all(|r| r.len() == 9));
    assert!(waived.iter().any(|r| r[6] == "netops@example.com"));
    assert!(waived.iter().all(|r| r[8].starts_with("waivers.toml:")));
    assert!(d.headings.iter().any(|h| h == "Waived (not failing) (2)"));

    // A plain audit: "Findings" and a findings-by-severity row.
    let out = bin(&[
        "audit",
        concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/clean-fabric"),
        "--format",
        "markdown",
    ]);
    let d = md::parse(&stdout(&out));
    assert!(d.tables[0].iter().any(|r| r[0] == "findings"));
    assert!(d.headings.iter().any(|h| h.starts_with("Findings (")));
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn markdown_neutralises_device_strings_and_bounds_its_size() {
    use fabric_audit::report::markdown;
    let audit = clean_audit();
    let mut r = Review::of_audit(&audit, "clean-fabric");
    let evil = "x | @admin <script>alert(1)</script> ```` [click](https://evil.example) &amp;\n# not a heading\n> quote";
    let mut f = finding("MTU001", Severity::Error, "leaf<b>1", "Eth|1/`1`", evil);
    let snippet = "interface Ethernet0\n```\n`````\n mtu 9216";
    f.remediation = Some(Box::new(Remediation {
        platform: "sonic".into(),
        snippet: snippet.into(),
        safety: "safe",
        device: None,
    }));
    r.new = vec![f].into();
    r.waived = Vec::new().into();
    let text = markdown::render(&r);
    let d = md::parse(&text);
    let rows = md::rows(&d);
    assert_eq!(rows.len(), 1, "{text}");
    assert_eq!(rows[0].len(), 6, "no extra cell: {text}");
    assert_eq!(rows[0][2], "leaf<b>1");
    assert_eq!(rows[0][3], "Eth|1/`1`");
    // The message comes back as text, line breaks as <br>.
    assert_eq!(rows[0][4].replace('\u{200B}', ""), evil);
    assert!(
        d.html
            .iter()
            .all(|h| !h.to_lowercase().contains("script") && !h.contains("<b>")),
        "{:?}",
        d.html
    );
    assert!(!d.text.contains("@admin"), "a mention would ping");
    assert_eq!(d.links, 0, "no link");
    assert_eq!(d.headings.len(), 2, "{:?}", d.headings);
    assert_eq!(d.code, [("sonic".to_string(), format!("{snippet}\n"))]);

    // The size bound: never over, cut between rows, and the note gives the right count.
    let many: Vec<Finding> = (0..400)
        .map(|i| {
            finding(
                "PFC003",
                Severity::Error,
                &format!("leaf{}", i / 10),
                &format!("Ethernet{i}"),
                &format!("802.3x link pause is on beside PFC, finding {i} of a long list"),
            )
        })
        .collect();
    r.new = many.into();
    for max in [3_000, 20_000] {
        let text = markdown::render_bounded(&r, max);
        assert!(text.len() <= max, "{} > {max}", text.len());
        let d = md::parse(&text);
        let shown = md::rows(&d);
        assert!(!shown.is_empty() && shown.len() < 400);
        assert!(shown.iter().all(|r| r.len() == 6));
        let cut = 400 - shown.len();
        let note = format!(
            "… {cut} more findings not shown (see the JSON report): {cut} error (PFC003 ×{cut})"
        );
        assert!(text.trim_end().ends_with(&note), "{note}\n{text}");
        assert_eq!(
            text.matches("<details").count(),
            text.matches("</details>").count()
        );
    }
    let all = markdown::render_bounded(&r, 10_000_000);
    assert_eq!(md::rows(&md::parse(&all)).len(), 400);
    assert!(!all.contains("more findings not shown"));
    r.new = (0..5000).map(|i| r.new[i % 400].clone()).collect();
    assert!(markdown::render(&r).len() <= markdown::MAX_BYTES);
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
    // helpUri is the rule's first public reference (rules/pfc.toml PFC003).
    assert!(
        pfc["helpUri"]
            .as_str()
            .unwrap()
            .starts_with("https://docs.nvidia.com/networking-ethernet-software/cumulus-linux/"),
        "{}",
        pfc["helpUri"]
    );
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
        // PFC003 cites the link-pause profile the port runs beside PFC.
        let want = if rule == "MTU001" {
            "\"mtu\": \"9100\""
        } else {
            "rx: enable"
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
    r.new = vec![finding("MTU001", Severity::Error, "le&af<1>", "e\"1", msg)].into();
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
    r.new = vec![f].into();
    r.waived = Vec::new().into();
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

/// A writer that keeps what it is given and the largest single write.
#[derive(Default)]
struct Chunks {
    bytes: Vec<u8>,
    writes: usize,
    largest: usize,
}

impl std::io::Write for Chunks {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.writes += 1;
        self.largest = self.largest.max(b.len());
        self.bytes.extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Issue 19: the HTML page, the JUnit document and the GitHub annotations are written a piece
/// at a time, not built whole first (on a config whose ranges name hundreds of ports, each was
/// in turn the audit's peak memory). The bytes are the rendered report's, and a failing writer
/// is an error, not a silent cut.
#[test]
fn html_junit_and_github_are_written_in_pieces_with_the_bytes_of_the_whole_report() {
    use fabric_audit::report::{Format, render_review, write_review};
    let audit = clean_audit();
    let mut r = Review::of_audit(&audit, "clean-fabric");
    // 40 devices: JUnit writes a case (a rule on a device) at a time.
    let many: Vec<Finding> = (0..2000)
        .map(|k| {
            let msg = format!("queue 3 of Ethernet1/{k} marks ECN above the xoff point");
            finding(
                "ECN002",
                Severity::Error,
                &format!("leaf{}", k % 40),
                &format!("Ethernet1/{k}"),
                &msg,
            )
        })
        .collect();
    r.new = many.into();

    struct Full;
    impl std::io::Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    for (format, least) in [
        (Format::Html, 512 << 10),
        (Format::Junit, 200 << 10),
        (Format::Github, 200 << 10),
    ] {
        let whole = render_review(&r, format, false);
        assert!(whole.len() > least, "{format:?}: {} bytes", whole.len());
        let mut w = Chunks::default();
        write_review(&r, format, false, &mut w).unwrap();
        assert_eq!(w.bytes, whole.as_bytes(), "{format:?}");
        assert!(w.writes > 3, "{format:?}: {} writes", w.writes);
        assert!(
            w.largest < 128 << 10,
            "{format:?}: largest write {} bytes",
            w.largest
        );
        let e = write_review(&r, format, false, &mut Full).unwrap_err();
        assert!(e.to_string().contains("disk full"), "{format:?}: {e}");
    }
}
