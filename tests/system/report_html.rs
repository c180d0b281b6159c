//! `--format html`: the self-contained HTML report. In Rust: its SVG picture is well-formed
//! XML with one node per device and one line per link, links coloured by their worst finding,
//! and text from a device cannot break out of its element. In headless Chromium (Debian's
//! `chromium`): the page loads with no console message (an uncaught exception, a
//! `console.error` and a Content-Security-Policy violation are all console messages), its
//! script ran to the end (`data-ready="1"`, nothing in `#js-error`), `#shown` holds the
//! number of findings, and the DOM has exactly one device node per device of the fabric.
//! A page with a broken script or a console error fails the same check.

use crate::common;

use fabric_audit::audit::Audit;
use fabric_audit::finding::{Finding, Remediation, Severity};
use fabric_audit::model::{Device, Endpoint, Fabric, Link};
use fabric_audit::review::Review;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const CHROMIUM: &str = "/usr/bin/chromium";

fn bin(args: &[&str]) -> Output {
    common::fa(args)
}

fn scratch(tag: &str) -> common::Scratch {
    common::scratch("html", tag)
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
        .display()
        .to_string()
}

/// The `<svg>…</svg>` of a report, parsed as XML.
fn svg(html: &str) -> String {
    let start = html.find("<svg").expect("no <svg> in the report");
    let end = html.find("</svg>").expect("no </svg> in the report") + "</svg>".len();
    html[start..end].to_string()
}

/// data-device of every device node of the picture.
fn svg_devices(doc: &roxmltree::Document) -> Vec<String> {
    doc.descendants()
        .filter(|n| n.has_tag_name("g") && n.attribute("data-device").is_some())
        .map(|n| n.attribute("data-device").unwrap_or("").to_string())
        .collect()
}

fn model(snapshot: &str) -> Value {
    let out = bin(&["audit", snapshot, "--format", "model"]);
    serde_json::from_slice(&out.stdout).unwrap()
}

fn names(model: &Value) -> Vec<String> {
    let mut v: Vec<String> = model["devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap().to_string())
        .collect();
    v.sort();
    v
}

/// Write the review scenario's report (tests/common `review_repo`) as HTML and as JSON.
fn review_reports(root: &Path) -> (PathBuf, Value) {
    let repo = common::review_repo(root);
    let base = [
        "review",
        "--repo",
        repo.to_str().unwrap(),
        "--base",
        "base",
        "--path",
        "fabric",
    ];
    let html = root.join("review.html");
    let mut args = base.to_vec();
    args.extend(["--format", "html", "-o", html.to_str().unwrap()]);
    let out = bin(&args);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut args = base.to_vec();
    args.extend(["--format", "json"]);
    let json: Value = serde_json::from_slice(&bin(&args).stdout).unwrap();
    (html, json)
}

fn count(v: &Value, class: &str) -> usize {
    v[class].as_array().map(|a| a.len()).unwrap_or(0)
}

#[test]
fn review_html_has_sections_a_well_formed_picture_and_coloured_links() {
    let root = scratch("rust");
    let (path, json) = review_reports(&root);
    let html = std::fs::read_to_string(&path).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("Content-Security-Policy"));
    // Self-contained: nothing is loaded from elsewhere.
    let outside_svg_ns = html.replace("http://www.w3.org/2000/svg", "");
    for bad in ["http://", "https://", " src=", "@import", "url("] {
        assert!(
            !outside_svg_ns.contains(bad),
            "the report refers to {bad:?}"
        );
    }
    for id in ["sec-new", "sec-fixed", "sec-unchanged", "sec-waived"] {
        assert!(html.contains(&format!("id=\"{id}\"")), "no {id}");
    }
    assert_eq!(html.matches("data-class=\"new\" data-severity").count(), 2);
    assert_eq!(
        html.matches("data-class=\"fixed\" data-severity").count(),
        1
    );

    let text = svg(&html);
    let doc = roxmltree::Document::parse(&text).expect("the SVG is well-formed XML");
    let m = model(&format!("{}/repo/fabric", root.display()));
    let mut devs = svg_devices(&doc);
    devs.sort();
    assert_eq!(devs, names(&m));
    let lines: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("line") && n.attribute("data-a").is_some())
        .collect();
    assert_eq!(lines.len(), m["links"].as_array().unwrap().len());
    // The link of each new finding takes the colour of its severity.
    for f in json["new"].as_array().unwrap() {
        let end = format!(
            "{}:{}",
            f["device"].as_str().unwrap(),
            f["interface"].as_str().unwrap()
        );
        let line = lines
            .iter()
            .find(|l| l.attribute("data-a") == Some(&end) || l.attribute("data-b") == Some(&end))
            .unwrap_or_else(|| panic!("no link at {end}"));
        let sev = f["severity"].as_str().unwrap();
        let worst = line.attribute("data-severity").unwrap();
        assert!(
            worst == sev || worst == "error",
            "{end}: link {worst}, finding {sev}"
        );
        let colour = match worst {
            "error" => "#d62728",
            "warning" => "#e69500",
            _ => "#1f77b4",
        };
        assert_eq!(line.attribute("stroke"), Some(colour), "{end}");
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// A fabric whose names and texts are markup: a leaf and a host named with `<script>`,
/// quotes and `&`, a finding whose message closes the script element.
fn hostile() -> Audit {
    let evil = r#"<script>document.body.setAttribute("data-pwned","1")</script>&'"x"#;
    let dev = |name: &str, role: &str, switch: bool| Device {
        name: name.to_string(),
        platform: if switch { "sonic" } else { "linux" }.to_string(),
        role: role.to_string(),
        is_switch: switch,
        ..Device::default()
    };
    let leaf = format!("leaf{evil}");
    let finding = Finding::from(fabric_audit::finding::Parts {
        rule: "MTU001".into(),
        severity: Severity::Error,
        title: "title </script><b>".into(),
        message: format!("message </script><script>document.title='pwned'</script> {evil}"),
        device: leaf.as_str().into(),
        interface: Some("Ethernet0<i>".into()),
        peer: Some(Box::new(Endpoint {
            device: "gpu&1".into(),
            interface: "eth0\"".into(),
        })),
        source: None,
        evidence: Default::default(),
        remediation: Some(Box::new(Remediation {
            platform: "sonic".into(),
            snippet: "config interface mtu Ethernet0 9216 </pre><script>x()</script>".into(),
            safety: "safe",
            device: None,
        })),
    });
    let waiver = fabric_audit::rules::waivers::parse(
        "[[waiver]]\nrule = \"MTU*\"\nreason = \"<img src=x onerror=alert(1)>\"\nowner = \"a&b\"\nexpires = 2099-01-01\n",
        "w<&>.toml",
    )
    .unwrap();
    Audit {
        fabric: Fabric {
            devices: vec![dev(&leaf, "leaf", true), dev("gpu&1", "unknown", false)],
            links: vec![Link {
                a: Endpoint {
                    device: leaf.clone(),
                    interface: "Ethernet0<i>".into(),
                },
                b: Endpoint {
                    device: "gpu&1".into(),
                    interface: "eth0\"".into(),
                },
                source: "lldp".into(),
                one_sided: false,
                cable_m: None,
                src: None,
                matched_by: vec![],
            }],
            ..Fabric::default()
        },
        findings: vec![finding.clone()],
        rules: 1,
        passes: Default::default(),
        probes: Vec::new(),
        waived: vec![
            fabric_audit::rules::waivers::Waived {
                finding,
                waiver: waiver.into_iter().next().unwrap(),
            }
            .into(),
        ],
        catalog: Vec::new(),
    }
}

fn hostile_html() -> String {
    let a = hostile();
    fabric_audit::report::html::render(&Review::of_audit(&a, "snap<&>"))
}

#[test]
fn text_from_devices_is_escaped() {
    let html = hostile_html();
    // The page's own script element and no other.
    assert_eq!(html.matches("<script").count(), 1, "{html}");
    assert!(!html.contains("<img"));
    assert!(!html.contains("<i>"));
    assert!(html.contains("&lt;script&gt;"));
    assert!(html.contains("gpu&amp;1"));
    assert!(html.contains("eth0&quot;"));
    let text = svg(&html);
    let doc = roxmltree::Document::parse(&text).expect("the SVG is well-formed XML");
    let mut devs = svg_devices(&doc);
    devs.sort();
    let mut want: Vec<String> = hostile()
        .fabric
        .devices
        .into_iter()
        .map(|d| d.name)
        .collect();
    want.sort();
    assert_eq!(devs, want, "names round-trip through the escaping");
}

// ---------------------------------------------------------------------- headless Chromium

/// Chromium, or None (with a SKIPPED line) where it is not installed, unless
/// FA_REQUIRE_TESTBED=1 (scripts/test as root installs it with scripts/test-deps).
fn chromium() -> Option<&'static str> {
    if Path::new(CHROMIUM).exists() {
        return Some(CHROMIUM);
    }
    if std::env::var("FA_REQUIRE_TESTBED").is_ok_and(|v| v == "1") {
        panic!("{CHROMIUM} is missing (scripts/test-deps installs Debian's chromium)");
    }
    eprintln!("SKIPPED: {CHROMIUM} is not installed; the HTML report is not checked in a browser");
    None
}

/// Load a page in headless Chromium (60 s at most, a fresh profile removed afterwards):
/// the DOM after its scripts ran, and Chromium's log.
fn load(browser: &str, page: &Path) -> (String, String) {
    let profile = tempdir("profile");
    let out = Command::new("timeout")
        .arg("60")
        .arg(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(["--enable-logging=stderr", "--v=0", "--dump-dom"])
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&profile);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "chromium {:?} on {}:\n{stderr}",
        out.status.code(),
        page.display()
    );
    (String::from_utf8_lossy(&out.stdout).into_owned(), stderr)
}

fn tempdir(tag: &str) -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let p = std::env::temp_dir().join(format!(
        "fa-html-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(&p).unwrap();
    p
}

/// Chromium's log lines for the page's console: every console call and every uncaught
/// exception or CSP violation, whatever its level, is logged as
/// `[pid:tid:date:INFO:CONSOLE:LINE] "message", source: URL (LINE)` (older releases:
/// `CONSOLE(LINE)`). The report logs nothing, so any such line is a failure.
fn console_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.contains(":CONSOLE:") || l.contains(":CONSOLE("))
        .collect()
}

fn text_of<'a>(dom: &'a str, id: &str) -> Option<&'a str> {
    let open = format!("id=\"{id}\"");
    let at = dom.find(&open)?;
    let rest = &dom[at..];
    let start = rest.find('>')? + 1;
    let end = rest.find('<')?;
    rest.get(start..end)
}

/// Check a loaded page: no console message, script finished, no error shown, `#shown` is
/// `count`, one device node per name in `devices`.
fn check_page(dom: &str, stderr: &str, count: usize, devices: &[String]) -> Result<(), String> {
    let console = console_lines(stderr);
    if !console.is_empty() {
        return Err(format!("console messages:\n{}", console.join("\n")));
    }
    if !dom.contains("<body data-ready=\"1\"") {
        return Err("the page's script did not run to its end (no data-ready=\"1\")".into());
    }
    let err = text_of(dom, "js-error").unwrap_or("(no #js-error)");
    if !err.is_empty() {
        return Err(format!("#js-error: {err}"));
    }
    let shown = text_of(dom, "shown").unwrap_or("(no #shown)");
    if shown != count.to_string() {
        return Err(format!("#shown is {shown:?}, want {count}"));
    }
    let re = regex::Regex::new(r#"<g class="device [^"]*" data-device="([^"]*)""#).unwrap();
    let mut seen: Vec<String> = re
        .captures_iter(dom)
        .map(|c| {
            c[1].replace("&amp;", "&")
                .replace("&quot;", "\"")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&#39;", "'")
        })
        .collect();
    seen.sort();
    let mut want = devices.to_vec();
    want.sort();
    if seen != want {
        return Err(format!("device nodes {seen:?}, want {want:?}"));
    }
    Ok(())
}

#[test]
fn chromium_loads_the_review_and_the_audit_reports_cleanly() {
    let Some(browser) = chromium() else { return };
    let root = scratch("browser");

    let (page, json) = review_reports(&root);
    let total = ["new", "fixed", "unchanged", "waived"]
        .iter()
        .map(|c| count(&json, c))
        .sum::<usize>();
    assert!(total >= 3);
    let devices = names(&model(&format!("{}/repo/fabric", root.display())));
    let (dom, stderr) = load(browser, &page);
    check_page(&dom, &stderr, total, &devices).unwrap_or_else(|e| panic!("review report: {e}"));

    let page = root.join("audit.html");
    let snap = fixture("clean-mixed-fabric");
    let out = bin(&[
        "audit",
        &snap,
        "--format",
        "html",
        "-o",
        page.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value =
        serde_json::from_slice(&bin(&["audit", &snap, "--format", "json"]).stdout).unwrap();
    let total = count(&json, "findings") + count(&json, "waived");
    let (dom, stderr) = load(browser, &page);
    check_page(&dom, &stderr, total, &names(&model(&snap)))
        .unwrap_or_else(|e| panic!("audit report: {e}"));

    // Names full of markup stay text: the injected script neither runs nor trips the CSP.
    let page = root.join("hostile.html");
    std::fs::write(&page, hostile_html()).unwrap();
    let (dom, stderr) = load(browser, &page);
    let devices: Vec<String> = hostile()
        .fabric
        .devices
        .into_iter()
        .map(|d| d.name)
        .collect();
    check_page(&dom, &stderr, 2, &devices).unwrap_or_else(|e| panic!("hostile report: {e}"));
    let body = dom.find("<body").map(|i| &dom[i..]).unwrap_or("");
    let body_tag = &body[..body.find('>').unwrap_or(0)];
    assert!(!body_tag.contains("pwned"), "{body_tag}");
    assert!(!dom.contains("<title>pwned"));
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn chromium_check_fails_on_a_broken_page() {
    let Some(browser) = chromium() else { return };
    let root = scratch("broken");
    let a = hostile();
    let good = fabric_audit::report::html::render(&Review::of_audit(&a, "snap"));
    let devices: Vec<String> = a.fabric.devices.iter().map(|d| d.name.clone()).collect();
    // Without its CSP (so an edited script still runs): an uncaught exception before the end,
    // a console.error, and an edited script the CSP blocks.
    let no_csp = |s: &str| {
        let start = s
            .find("<meta http-equiv=\"Content-Security-Policy\"")
            .unwrap();
        let end = start + s[start..].find('>').unwrap() + 1;
        format!("{}{}", &s[..start], &s[end..])
    };
    let cases = [
        (
            "throws",
            no_csp(&good).replace(
                "  apply();\n  document.body",
                "  noSuchFunction();\n  document.body",
            ),
        ),
        (
            "console-error",
            no_csp(&good).replace(
                "\"use strict\";",
                "\"use strict\"; console.error(\"boom\");",
            ),
        ),
        (
            "csp-blocked",
            good.replace("\"use strict\";", "\"use strict\"; "),
        ),
    ];
    for (name, html) in cases {
        assert_ne!(html, good, "{name}: the edit did not apply");
        let page = root.join(format!("{name}.html"));
        std::fs::write(&page, html).unwrap();
        let (dom, stderr) = load(browser, &page);
        let r = check_page(&dom, &stderr, 2, &devices);
        assert!(r.is_err(), "{name}: a broken page passed the check");
        if name == "throws" {
            // The DOM alone tells too: the script never reached its end.
            assert!(check_page(&dom, "", 2, &devices).is_err());
        }
        eprintln!(
            "{name}: rejected as it should be: {}",
            r.err().unwrap_or_default()
        );
    }
    let _ = std::fs::remove_dir_all(&root);
}
