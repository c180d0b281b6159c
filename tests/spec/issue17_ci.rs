//! Issue 17, "What was seen" 6 and 8: review and CI formats, and remediation, driven end to end
//! through the CLI on the bundled fabrics.
//!
//! - a change review annotates the changed `match dscp` line, not the `service-policy` that
//!   binds the class map, shows a source column, and offers a GitHub suggestion for a fix that
//!   is one line of the changed file;
//! - `audit --format sarif|github` paths open from the working directory, and every SARIF
//!   result has a physical location;
//! - JUnit shows undecided checks as skipped; `rules` refuses report formats (exit 2);
//! - the Markdown budget is spent errors first, what is cut counted per rule;
//! - a link's fix applied at the other end is under that device and names it;
//! - remediation: ToS 106 (DSCP 26 + ECT(0)) for DSCP005, the NX-OS class-map fix takes out
//!   `match dscp 24` (and the re-audit catches a fix that does not), SONiC fixes say how to
//!   persist, warnings without a snippet are listed, and `--apply-to-copy` on the demo exits 0.

use crate::common;
use crate::scale::replicate;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn bin(args: &[&str]) -> Output {
    common::fa(args)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A git repository holding the clean fabric at `base`, then one commit that turns spine1's
/// `match dscp 26` into `match dscp 24` (the demo's planted fault, as a change).
fn dscp_change_repo(tag: &str) -> (common::Scratch, PathBuf) {
    change_repo(tag, &[("\n  match dscp 26\n", "\n  match dscp 24\n")])
}

/// A git repository holding the clean fabric at `base`, then one commit of `edits` (each
/// `(from, to)` replaced once) in spine1's config.
fn change_repo(tag: &str, edits: &[(&str, &str)]) -> (common::Scratch, PathBuf) {
    let scratch = common::scratch("issue17", tag);
    let repo = scratch.join("repo");
    common::copy_tree(&root().join("fixtures/clean-fabric"), &repo.join("fabric"));
    common::git(&repo, &["init", "-q", "-b", "main"]);
    common::git(&repo, &["add", "-A"]);
    common::git(&repo, &["commit", "-q", "-m", "clean"]);
    common::git(&repo, &["tag", "base"]);
    let cfg = repo.join("fabric/configs/spine1.cfg");
    let mut text = std::fs::read_to_string(&cfg).unwrap();
    for (from, to) in edits {
        assert!(text.contains(from), "{from}");
        text = text.replacen(from, to, 1);
    }
    std::fs::write(&cfg, text).unwrap();
    common::git(&repo, &["commit", "-q", "-a", "-m", "RoCE on 24"]);
    (scratch, repo)
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

/// The line number of the first line of `file` equal to `line` (trimmed).
fn line_of(file: &Path, line: &str) -> u32 {
    let text = std::fs::read_to_string(file).unwrap();
    text.lines().position(|l| l.trim() == line).unwrap() as u32 + 1
}

#[test]
fn review_annotates_the_changed_line_with_source_column_and_suggestion() {
    let (scratch, repo) = dscp_change_repo("review");
    let changed = line_of(&repo.join("fabric/configs/spine1.cfg"), "match dscp 24");
    let binding = line_of(
        &repo.join("fabric/configs/spine1.cfg"),
        "service-policy type qos input ROCE-CLASSIFY",
    );
    assert_ne!(changed, binding);

    // GitHub annotations: every new error on the changed line, inside the diff.
    let out = review(&repo, "github");
    assert_eq!(out.status.code(), Some(1));
    let gh = stdout(&out);
    let errors: Vec<&str> = gh.lines().filter(|l| l.starts_with("::error ")).collect();
    assert_eq!(errors.len(), 8, "{gh}");
    for l in &errors {
        assert!(
            l.contains(&format!("file=fabric/configs/spine1.cfg,line={changed},")),
            "{l}"
        );
    }

    // JSON: the line first cited is kept as evidence.
    let v: Value = serde_json::from_slice(&review(&repo, "json").stdout).unwrap();
    for f in v["new"].as_array().unwrap() {
        assert_eq!(f["source"]["line"], changed, "{f}");
        assert_eq!(f["evidence"]["cited_line"], binding, "{f}");
    }

    // The review table has a source column naming file and line.
    let table = stdout(&review(&repo, "table"));
    let header = table.lines().nth(3).unwrap_or("");
    assert!(
        header.contains("message") && header.contains("source"),
        "{table}"
    );
    let flat: String = table
        .lines()
        .map(|l| {
            l.rsplit('┆')
                .next()
                .unwrap_or("")
                .trim_end_matches('│')
                .trim()
        })
        .collect();
    assert!(
        flat.contains(&format!("fabric/configs/spine1.cfg:{changed}")),
        "{table}"
    );

    // Markdown: the one-line fix as a GitHub suggestion of the changed line.
    let md = stdout(&review(&repo, "markdown"));
    assert!(
        md.contains(&format!(
            "Suggested change of fabric/configs/spine1.cfg:{changed}:\n\n```suggestion\n  match dscp 26\n```"
        )),
        "{md}"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

/// Two changes in one file: the fault (`match dscp 24`, far above the `service-policy` line the
/// rules cite) and an unrelated edit just below that line. The annotations go to the line the
/// fix rewrites, not to the nearer unrelated edit.
#[test]
fn review_with_several_changes_in_a_file_annotates_the_line_the_fix_rewrites() {
    let (scratch, repo) = change_repo(
        "several",
        &[
            ("\n  match dscp 26\n", "\n  match dscp 24\n"),
            (
                "ip route 0.0.0.0/0 192.0.2.1\n",
                "ip route 0.0.0.0/0 192.0.2.254\n",
            ),
        ],
    );
    let cfg = repo.join("fabric/configs/spine1.cfg");
    let changed = line_of(&cfg, "match dscp 24");
    let unrelated = line_of(&cfg, "ip route 0.0.0.0/0 192.0.2.254");
    let binding = line_of(&cfg, "service-policy type qos input ROCE-CLASSIFY");
    // The unrelated edit is the nearer one: the nearest changed line would be wrong.
    assert!(unrelated.abs_diff(binding) < changed.abs_diff(binding));
    let out = review(&repo, "github");
    assert_eq!(out.status.code(), Some(1));
    let gh = stdout(&out);
    let errors: Vec<&str> = gh.lines().filter(|l| l.starts_with("::error ")).collect();
    assert_eq!(errors.len(), 8, "{gh}");
    for l in &errors {
        assert!(
            l.contains(&format!("file=fabric/configs/spine1.cfg,line={changed},")),
            "{l}"
        );
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn ci_paths_open_from_the_working_directory_and_sarif_always_locates() {
    // The test runs in the crate root: the snapshot as a user types it.
    let gh = stdout(&bin(&[
        "audit",
        "fixtures/demo-fabric",
        "--format",
        "github",
    ]));
    let files: Vec<&str> = gh
        .lines()
        .filter_map(|l| l.split("file=").nth(1))
        .map(|r| r.split(',').next().unwrap())
        .collect();
    assert!(files.len() > 20, "{gh}");
    for f in &files {
        assert!(f.starts_with("fixtures/demo-fabric/"), "{f}");
        assert!(root().join(f).is_file(), "{f} does not open from the cwd");
    }

    let out = bin(&["audit", "fixtures/demo-fabric", "--format", "sarif"]);
    let sarif: serde_sarif::sarif::Sarif = serde_json::from_slice(&out.stdout).unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let _ = sarif;
    let results = v["runs"][0]["results"].as_array().unwrap();
    assert!(results.len() > 40);
    for r in results {
        let uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap_or_else(|| panic!("no physical location: {r:#}"));
        assert!(uri.starts_with("fixtures/demo-fabric/"), "{uri}");
        assert!(root().join(uri).is_file(), "{uri}");
    }
    // The undecided findings (no line of their own) point at their device's config.
    let leaf3 = results
        .iter()
        .find(|r| {
            r["message"]["text"]
                .as_str()
                .unwrap()
                .starts_with("leaf3: could not decide")
        })
        .expect("an undecided finding on leaf3");
    assert_eq!(
        leaf3["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "fixtures/demo-fabric/configs/leaf3.cfg"
    );
}

#[test]
fn junit_shows_undecided_checks_as_skipped() {
    let json: Value =
        serde_json::from_slice(&bin(&["audit", "fixtures/demo-fabric", "--format", "json"]).stdout)
            .unwrap();
    let undecided: Vec<(String, String)> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["evidence"]["undecided"] == true)
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["device"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(!undecided.is_empty());
    let xml = stdout(&bin(&[
        "audit",
        "fixtures/demo-fabric",
        "--format",
        "junit",
    ]));
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let skipped: usize = doc
        .root_element()
        .attribute("skipped")
        .unwrap()
        .parse()
        .unwrap();
    assert!(skipped >= undecided.len(), "{xml}");
    for (rule, device) in &undecided {
        let case = doc
            .descendants()
            .find(|n| {
                n.has_tag_name("testcase")
                    && n.attribute("classname") == Some(device)
                    && n.attribute("name")
                        .is_some_and(|x| x.starts_with(&format!("{rule} ")))
            })
            .unwrap_or_else(|| panic!("no case {rule} {device}"));
        let skip = case
            .children()
            .find(|c| c.has_tag_name("skipped"))
            .unwrap_or_else(|| panic!("{rule} {device} is not skipped: {xml}"));
        assert!(
            skip.attribute("message")
                .unwrap()
                .contains("could not decide"),
            "{rule} {device}"
        );
    }
}

#[test]
fn rules_lists_as_table_json_or_markdown_and_refuses_report_formats() {
    for f in ["sarif", "junit", "github", "html", "concise"] {
        let out = bin(&["rules", "--format", f]);
        assert_eq!(out.status.code(), Some(2), "rules --format {f}");
        assert!(out.stdout.is_empty(), "rules --format {f} printed a table");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("possible values: table, json, markdown"),
            "{err}"
        );
    }
    let json: Value = serde_json::from_slice(&bin(&["rules", "--format", "json"]).stdout).unwrap();
    let n = json.as_array().unwrap().len();
    let out = bin(&["rules", "--format", "markdown"]);
    assert_eq!(out.status.code(), Some(0));
    let md = stdout(&out);
    let rows: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| ---"))
        .collect();
    assert_eq!(rows.len(), n + 1, "{md}");
    assert_eq!(rows[0], "| id | severity | family | scope | title |");
    assert!(md.contains(&format!("{n} rules")));
}

#[test]
fn markdown_budget_goes_to_errors_first_and_counts_what_is_cut() {
    let snap = Path::new(env!("CARGO_TARGET_TMPDIR")).join("issue17-md-budget");
    let devices = replicate::replicate(
        &root().join("fixtures/demo-fabric"),
        &snap,
        24,
        replicate::Meta::Keep,
    )
    .unwrap();
    assert!(devices >= 300, "{devices}");
    let json: Value = serde_json::from_slice(
        &bin(&[
            "audit",
            snap.to_str().unwrap(),
            "--format",
            "json",
            "--fail-on",
            "never",
        ])
        .stdout,
    )
    .unwrap();
    let errors = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .count();
    let md = stdout(&bin(&[
        "audit",
        snap.to_str().unwrap(),
        "--format",
        "markdown",
        "--fail-on",
        "never",
    ]));
    assert!(md.len() <= 60_000, "{}", md.len());
    let rows: Vec<Vec<&str>> = md
        .lines()
        .filter(|l| {
            l.starts_with("| error |") || l.starts_with("| warning |") || l.starts_with("| info |")
        })
        .map(|l| l.split(" | ").collect())
        .collect();
    assert!(!rows.is_empty());
    // Worst first: no warning or info row before the last error row, and as many error rows
    // as the budget allows before anything else.
    let sev: Vec<&str> = rows.iter().map(|r| r[0].trim_start_matches("| ")).collect();
    let first_other = sev.iter().position(|s| *s != "error").unwrap_or(sev.len());
    assert!(
        sev[first_other..].iter().all(|s| *s != "error"),
        "an error after a warning or info: {sev:?}"
    );
    assert!(first_other > 0, "the first row is not an error");
    // What is cut is counted per severity and rule, and the counts add up.
    let note = md
        .lines()
        .find(|l| l.starts_with("… "))
        .expect("a note of what was cut");
    let cut: usize = note
        .trim_start_matches("… ")
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let total = json["findings"].as_array().unwrap().len();
    assert_eq!(cut + rows.len(), total, "{note}");
    if first_other < errors {
        assert!(note.contains(" error ("), "{note}");
    }
    assert!(note.contains("info (TOPO002 ×"), "{note}");
    let _ = std::fs::remove_dir_all(&snap);
}

#[test]
fn a_fix_at_the_other_end_of_a_link_is_under_that_device_and_names_it() {
    let json: Value = serde_json::from_slice(
        &bin(&[
            "audit",
            "fixtures/demo-mixed-fabric",
            "--format",
            "json",
            "--fail-on",
            "never",
        ])
        .stdout,
    )
    .unwrap();
    // MTU001 leaf3 Eth1/32 is fixed on spine2.
    let f = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "MTU001" && f["device"] == "leaf3")
        .expect("MTU001 on leaf3");
    assert_eq!(f["remediation"]["device"], "spine2", "{f:#}");
    let md = stdout(&bin(&[
        "audit",
        "fixtures/demo-mixed-fabric",
        "--format",
        "markdown",
        "--fail-on",
        "never",
    ]));
    let at = md
        .find("Fixes MTU001 leaf3 Eth1/32 — apply on spine2 (the other end of the link):")
        .unwrap_or_else(|| panic!("{md}"));
    // The fix is inside spine2's block.
    let block_start = md[..at].rfind("<details").unwrap();
    let summary = &md[block_start..at];
    assert!(
        summary.starts_with("<details open><summary>spine2 ")
            || summary.starts_with("<details><summary>spine2 "),
        "{summary}"
    );
}

// ---------------------------------------------------------------- remediation (item 8)

fn remediate_json(snap: &str) -> Value {
    let out = bin(&["remediate", snap, "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn steps_of<'a>(plan: &'a Value, device: &str) -> Vec<&'a Value> {
    plan["devices"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["device"] == device)
        .flat_map(|d| d["steps"].as_array().unwrap().iter())
        .collect()
}

#[test]
fn dscp005_host_fix_sets_tos_106_and_the_reaudit_clears_ecn006_too() {
    let plan = remediate_json("fixtures/demo-fabric");
    let steps = steps_of(&plan, "gpu07");
    let step = steps
        .iter()
        .find(|s| {
            s["fixes"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t["rule"] == "DSCP005")
        })
        .expect("a DSCP005 step on gpu07");
    let snippet = step["snippet"].as_str().unwrap();
    let tos: u32 = snippet
        .split(" -t ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("{snippet}"));
    // Re-audit the host as the command leaves it: the RDMA-CM default ToS is what -t set.
    let scratch = common::scratch("issue17", "tos");
    let snap = scratch.join("snap");
    common::copy_tree(&root().join("fixtures/demo-fabric"), &snap);
    std::fs::write(
        snap.join("devices/gpu07/cma_roce_tos_-d_mlx5_0.txt"),
        format!("{tos}\n"),
    )
    .unwrap();
    let v: Value = serde_json::from_slice(
        &bin(&[
            "audit",
            snap.to_str().unwrap(),
            "--format",
            "json",
            "--fail-on",
            "never",
        ])
        .stdout,
    )
    .unwrap();
    let left: Vec<String> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["device"] == "gpu07" && f["severity"] != "info")
        .map(|f| format!("{} {}", f["rule"], f["message"]))
        .collect();
    assert!(left.is_empty(), "ToS {tos} leaves {left:?}");
    assert_eq!(tos, 106);
    // One step fixes both.
    assert!(
        step["fixes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["rule"] == "ECN006")
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn nxos_class_map_fix_takes_out_the_wrong_dscp_and_the_reaudit_checks_it() {
    let scratch = common::scratch("issue17", "classmap");
    let out_dir = scratch.join("copy");
    let out = bin(&[
        "remediate",
        "fixtures/demo-fabric",
        "--apply-to-copy",
        out_dir.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let o: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{o:#}");
    let cfg = std::fs::read_to_string(out_dir.join("configs/spine1.cfg")).unwrap();
    assert!(cfg.contains("\n  match dscp 26\n"), "{cfg}");
    assert!(!cfg.contains("match dscp 24"), "{cfg}");
    assert_eq!(o["lossless_besides_roce"], serde_json::json!([]));

    // A fix that adds 26 and keeps 24 (the template without its `no match` lines) is caught
    // by the re-audit: DSCP 24 stays lossless on the ports whose classification changed.
    let parsers = scratch.join("parsers");
    std::fs::create_dir_all(parsers.join("remediation")).unwrap();
    let nxos =
        std::fs::read_to_string(root().join("vendor-parsers/remediation/nxos.toml")).unwrap();
    let old = nxos.replace(
        "{% for o in others %}\n  no match dscp {{ o | int }}\n{% endfor %}\n",
        "",
    );
    assert_ne!(old, nxos);
    std::fs::write(parsers.join("remediation/nxos.toml"), old).unwrap();
    let out_dir2 = scratch.join("copy2");
    let out = bin(&[
        "remediate",
        "fixtures/demo-fabric",
        "--device",
        "spine1",
        "--parsers",
        parsers.to_str().unwrap(),
        "--apply-to-copy",
        out_dir2.to_str().unwrap(),
    ]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("STILL LOSSLESS spine1:Ethernet1/1: DSCP 24 besides RoCE's"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn sonic_fixes_say_how_to_persist() {
    let plan = remediate_json("fixtures/demo-mixed-fabric");
    let sonic: Vec<&Value> = plan["devices"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["platform"] == "sonic")
        .flat_map(|d| d["steps"].as_array().unwrap().iter())
        .collect();
    assert!(!sonic.is_empty());
    for s in sonic {
        let snippet = s["snippet"].as_str().unwrap();
        assert!(
            snippet
                .trim_end()
                .lines()
                .last()
                .unwrap()
                .contains("config save -y"),
            "{snippet}"
        );
    }
}

#[test]
fn warnings_without_a_snippet_are_listed_and_apply_to_copy_exit_is_honest() {
    let plan = remediate_json("fixtures/demo-fabric");
    let w = plan["withheld"].as_array().unwrap();
    for iface in ["Ethernet1/1", "Ethernet1/50"] {
        assert!(
            w.iter().any(|x| x["rule"] == "ECN002"
                && x["device"] == "leaf3"
                && x["interface"] == iface
                && x["severity"] == "warning"
                && !x["reason"].as_str().unwrap().is_empty()),
            "{w:#?}"
        );
    }
    let text = stdout(&bin(&["remediate", "fixtures/demo-fabric"]));
    assert!(
        text.contains("ECN002 leaf3:Ethernet1/1 (warning) [no_template]: no automatic fix: "),
        "{text}"
    );

    // Everything that could be merged was, and cleared its findings: exit 0; the host steps are
    // listed as commands to run on the hosts.
    let scratch = common::scratch("issue17", "apply");
    let out = bin(&[
        "remediate",
        "fixtures/demo-fabric",
        "--apply-to-copy",
        scratch.join("copy").to_str().unwrap(),
    ]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("RUN ON HOST gpu07"), "{text}");
    assert!(!text.contains("NOT MERGED"), "{text}");
    let help = stdout(&bin(&["remediate", "--help"]));
    assert!(
        help.contains("Exit 0:") && help.contains("Exit 1:"),
        "{help}"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}
