//! Issue 17, what a report shows: the `concise` format (one parseable line per finding),
//! `--min-severity`, `--select/--ignore RULE|FAMILY`, `--device GLOB`, `--statistics`; flags
//! that would do nothing are errors (exit 2); root-cause groups in JSON and Markdown.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo-fabric")
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fabric-audit"))
        .args(args)
        .env_remove("COLUMNS")
        .output()
        .unwrap()
}

fn audit(extra: &[&str]) -> Output {
    let d = demo();
    let mut args = vec!["audit", d.to_str().unwrap()];
    args.extend(extra);
    run(&args)
}

fn json(extra: &[&str]) -> Value {
    let mut args = vec!["--format", "json"];
    args.extend(extra);
    let out = audit(&args);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stderr));
    })
}

/// (path, line, severity, rule, device, interface, message) of a concise line.
type Concise = (
    String,
    Option<u32>,
    String,
    String,
    String,
    Option<String>,
    String,
);

fn parse_concise(line: &str) -> Concise {
    let sev_at = [": error ", ": warning ", ": info "]
        .iter()
        .filter_map(|s| line.find(s))
        .min()
        .unwrap_or_else(|| panic!("no severity: {line}"));
    let (place, rest) = (&line[..sev_at], &line[sev_at + 2..]);
    let (path, num) = match place.rsplit_once(':') {
        Some((p, n)) if n.bytes().all(|b| b.is_ascii_digit()) => (p, Some(n.parse().unwrap())),
        _ => (place, None),
    };
    let mut words = rest.splitn(4, ' ');
    let sev = words.next().unwrap().to_string();
    let rule = words.next().unwrap().to_string();
    let what = words.next().unwrap();
    let message = words.next().unwrap_or_else(|| panic!("no message: {line}"));
    let (device, iface) = match what.split_once('/') {
        Some((d, i)) => (d.to_string(), Some(i.to_string())),
        None => (what.to_string(), None),
    };
    (path.into(), num, sev, rule, device, iface, message.into())
}

#[test]
fn concise_is_one_parseable_line_per_decided_finding_worst_first() {
    let out = audit(&["--format", "concise"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let v = json(&[]);
    let decided: Vec<&Value> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["evidence"]["undecided"] != true)
        .collect();
    let lines: Vec<Concise> = text.lines().map(parse_concise).collect();
    assert_eq!(lines.len(), decided.len(), "{text}");
    for f in &decided {
        let hit = lines
            .iter()
            .any(|(path, line, sev, rule, dev, iface, msg)| {
                let src = &f["source"];
                sev == f["severity"].as_str().unwrap()
                    && rule == f["rule"].as_str().unwrap()
                    && dev == f["device"].as_str().unwrap()
                    && iface.as_deref() == f["interface"].as_str()
                    && msg == f["message"].as_str().unwrap()
                    && (src.is_null()
                        || (path.ends_with(src["file"].as_str().unwrap())
                            && *line == src["line"].as_u64().map(|l| l as u32)))
            });
        assert!(hit, "{f} is not in:\n{text}");
    }
    // Paths open from the working directory, at a line the file has.
    for (path, line, ..) in &lines {
        if line.is_none() && Path::new(path) == demo() {
            continue; // a finding that cites no file names the snapshot folder
        }
        let body = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        if let Some(l) = line {
            assert!(*l as usize <= body.lines().count().max(1), "{path}:{l}");
        }
    }
    let rank = |s: &str| ["error", "warning", "info"].iter().position(|x| *x == s);
    assert!(
        lines.windows(2).all(|w| rank(&w[0].2) <= rank(&w[1].2)),
        "{text}"
    );
    let verbose = String::from_utf8(audit(&["--format", "concise", "-v"]).stdout).unwrap();
    assert_eq!(
        verbose.lines().count(),
        v["findings"].as_array().unwrap().len()
    );
}

#[test]
fn filters_select_ignore_device_and_min_severity() {
    let rules = |v: &Value| -> Vec<(String, String, String)> {
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["rule"].as_str().unwrap().into(),
                    f["severity"].as_str().unwrap().into(),
                    f["device"].as_str().unwrap().into(),
                )
            })
            .collect()
    };
    let all = rules(&json(&[]));
    let errors = rules(&json(&["--min-severity", "error"]));
    assert_eq!(errors.len(), 18);
    assert!(errors.iter().all(|r| r.1 == "error"));
    let pfc = rules(&json(&["--select", "PFC", "--ignore", "PFC008"]));
    let want: Vec<_> = all
        .iter()
        .filter(|r| r.0.starts_with("PFC") && r.0 != "PFC008")
        .cloned()
        .collect();
    assert_eq!(pfc, want);
    assert!(!pfc.is_empty());
    let leafs = rules(&json(&["--device", "leaf*,spine2"]));
    assert!(
        leafs
            .iter()
            .all(|r| r.2.starts_with("leaf") || r.2 == "spine2")
    );
    assert_eq!(
        leafs.len(),
        all.iter()
            .filter(|r| r.2.starts_with("leaf") || r.2 == "spine2")
            .count()
    );
    // The exit status counts only what is shown.
    assert_eq!(
        audit(&["--ignore", "DSCP,PFC,ECN,MTU"]).status.code(),
        Some(0)
    );
    assert_eq!(audit(&["--device", "gpu01"]).status.code(), Some(0));
    assert_eq!(audit(&["--device", "gpu02"]).status.code(), Some(1));
}

#[test]
fn unknown_codes_and_globs_and_idle_flags_exit_2_with_a_clear_message() {
    for (args, says) in [
        (vec!["--select", "PFC01"], "did you mean PFC001?"),
        (vec!["--ignore", "ECNN"], "did you mean ECN?"),
        (vec!["--device", "lef1"], "did you mean leaf1?"),
        (vec!["--statistics", "--format", "sarif"], "--statistics"),
        (vec!["--limit", "leaf1"], "--inventory"),
        (vec!["--concurrency", "4"], "--inventory"),
        (vec!["--trust-new-host-keys"], "--inventory"),
        (vec!["--command-budget", "5"], "--inventory"),
        (vec!["--tools", "path-mtu"], "without --probe"),
        (
            vec!["--pairs", "all", "--duration", "5"],
            "--pairs, --duration",
        ),
        (vec!["-v", "--format", "json"], "--verbose"),
        (vec!["-v", "--format", "sarif"], "--verbose"),
        (vec!["-v", "--statistics"], "--verbose"),
    ] {
        let out = audit(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn statistics_count_per_rule_as_text_and_json() {
    let v = json(&["--statistics"]);
    let stats = v.as_array().unwrap();
    let find = |r: &str| stats.iter().find(|s| s["rule"] == r).unwrap();
    assert_eq!(find("TOPO002")["count"], 8);
    assert_eq!(find("PFC008")["count"], 5);
    assert_eq!(find("PFC008")["fixable"], 5);
    assert_eq!(find("PFC008")["devices"], 2);
    assert_eq!(find("BUF001")["count"], 0);
    assert_eq!(find("BUF001")["undecided"], 3);
    let counts: Vec<u64> = stats.iter().map(|s| s["count"].as_u64().unwrap()).collect();
    assert!(counts.windows(2).all(|w| w[0] >= w[1]), "{counts:?}");
    let text = String::from_utf8(audit(&["--statistics"]).stdout).unwrap();
    assert!(text.lines().next().unwrap().starts_with("count"), "{text}");
    let pfc008 = text.lines().find(|l| l.contains("PFC008")).unwrap();
    let cols: Vec<&str> = pfc008.split_whitespace().collect();
    assert_eq!(
        &cols[..6],
        ["5", "PFC008", "error", "5", "2", "0"],
        "{text}"
    );
}

#[test]
fn groups_in_json_and_markdown_name_one_cause_for_many_findings() {
    let v = json(&[]);
    let findings = v["findings"].as_array().unwrap();
    let groups = v["groups"].as_array().unwrap();
    assert_eq!(v["summary"]["causes"].as_u64(), Some(groups.len() as u64));
    assert_eq!(v["summary"]["undecided"], 12);
    // Every decided finding is in exactly one group.
    let mut seen = vec![0; findings.len()];
    for g in groups {
        for m in g["members"].as_array().unwrap() {
            seen[m.as_u64().unwrap() as usize] += 1;
        }
    }
    for (i, f) in findings.iter().enumerate() {
        let want = usize::from(f["evidence"]["undecided"] != true);
        assert_eq!(seen[i], want, "{f}");
    }
    // spine1's wrong class-map: one fix, 8 findings; leaf4's missing service-profile: 7.
    let of = |dev: &str| {
        groups
            .iter()
            .find(|g| g["device"] == dev && g["severity"] == "error")
            .unwrap()
    };
    assert_eq!(of("spine1")["members"].as_array().unwrap().len(), 8);
    assert_eq!(of("spine1")["cause"], "fix");
    assert_eq!(of("leaf4")["members"].as_array().unwrap().len(), 7);
    assert_eq!(groups[0]["severity"], "error");
    let md = String::from_utf8(audit(&["--format", "markdown"]).stdout).unwrap();
    assert!(
        // 16: gpu07's DSCP005 and ECN006 share one fix (ToS 106) since issue 17 item 8.
        md.contains("41 findings from 16 root causes; the causes shared by several findings:"),
        "{md}"
    );
    assert!(
        md.contains(
            // The path opens from the working directory (the crate root here; issue 17).
            "- **error** spine1: 8 findings, one fix (DSCP002 ×4, PFC008 ×4) at fixtures/demo-fabric/configs/spine1.cfg:67\n"
        ),
        "{md}"
    );
}

/// Copies a folder (the demo fabric into a scratch repository).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

#[test]
fn fabric_audit_toml_above_the_snapshot_sets_defaults_that_flags_override() {
    let repo = std::env::temp_dir().join(format!("fa-repocfg-spec-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&repo);
    let snap = repo.join("intended/fabric");
    copy_dir(&demo(), &snap);
    let cfg = repo.join("fabric-audit.toml");
    std::fs::write(
        &cfg,
        "format = \"concise\"\nfail-on = \"never\"\nmin-severity = \"warning\"\nignore = [\"ECN\"]\n",
    )
    .unwrap();
    let s = snap.to_str().unwrap();
    let out = run(&["audit", s]);
    assert_eq!(out.status.code(), Some(0), "fail-on = never");
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<Concise> = text.lines().map(parse_concise).collect();
    assert!(!lines.is_empty(), "concise from the file");
    assert!(
        lines
            .iter()
            .all(|l| l.2 != "info" && !l.3.starts_with("ECN")),
        "{text}"
    );
    // A flag wins over the file; --ignore adds to the file's ignores.
    let out = run(&[
        "audit",
        s,
        "--format",
        "json",
        "--fail-on",
        "error",
        "--ignore",
        "PFC",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rules: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(
        rules
            .iter()
            .all(|r| !r.starts_with("ECN") && !r.starts_with("PFC"))
    );
    assert!(rules.contains(&"DSCP002"), "{rules:?}");
    // --no-config: the defaults of the tool.
    let out = run(&["audit", s, "--no-config"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("41 findings from"));
    // A typo in the file is an error naming the file and line, with the nearest key.
    std::fs::write(&cfg, "format = \"table\"\nfail_on = \"never\"\n").unwrap();
    let out = run(&["audit", s]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("fabric-audit.toml:2:") && err.contains("did you mean fail-on?"),
        "{err}"
    );
    std::fs::write(&cfg, "format = \"sarifs\"\n").unwrap();
    let out = run(&["audit", s]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("did you mean sarif?"), "{err}");
    let _ = std::fs::remove_dir_all(&repo);
}
