//! Docs and tooling (issue 17, item 10): install section, the GitHub Actions workflow example,
//! exit statuses and help text in `--help`, shell completions, man pages, JSON Schemas checked
//! against the CLI's output, build info in `--version`, `explain` did-you-mean, `parsers`
//! filter and JSON. Every check runs the built binary as a user does.

use crate::cli::{Scratch, bin};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Output;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn help_states_the_exit_statuses_and_every_option_has_help() {
    let out = run(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = text(&out.stdout);
    for code in ["0 ", "1 ", "2 ", "130 "] {
        assert!(
            help.lines()
                .any(|l| l.trim_start().starts_with(code) && l.starts_with("  ")),
            "exit status {code}missing from --help:\n{help}"
        );
    }
    assert!(help.contains("Exit status:"), "{help}");
    // Every argument of every subcommand says what it is for (--rules and --parsers were
    // empty on explain, rules, parsers, probe).
    use clap::CommandFactory;
    let cli = fabric_audit::cli::Cli::command();
    let mut missing = Vec::new();
    for sub in cli.get_subcommands() {
        for a in sub.get_arguments() {
            let id = a.get_id().as_str();
            if a.is_hide_set() || id == "help" || id == "version" {
                continue;
            }
            let h = a.get_help().map(|h| h.to_string()).unwrap_or_default();
            if h.trim().is_empty() {
                missing.push(format!("{} --{id}", sub.get_name()));
            }
        }
    }
    assert!(missing.is_empty(), "arguments without help: {missing:?}");
    for sub in ["explain", "rules", "parsers", "probe", "audit"] {
        let out = run(&[sub, "--help"]);
        let h = text(&out.stdout);
        let lines: Vec<&str> = h.lines().collect();
        for flag in ["--rules <RULES>", "--parsers <PARSERS>"] {
            let Some(i) = lines.iter().position(|l| l.trim_start().starts_with(flag)) else {
                continue;
            };
            // The description follows on the same line, or (when long) on the next.
            let same = lines[i].trim_start()[flag.len()..].trim();
            let next = lines.get(i + 1).map_or("", |l| l.trim());
            assert!(
                same.len() > 10 || (same.is_empty() && next.len() > 10 && !next.starts_with('-')),
                "{sub} {flag}: no help in\n{h}"
            );
        }
    }
}

#[test]
fn completions_for_every_shell() {
    for (shell, marker) in [
        ("bash", "complete -F _fabric__audit"),
        ("zsh", "#compdef fabric-audit"),
        ("fish", "complete -c fabric-audit"),
        ("elvish", "fabric-audit"),
        ("powershell", "fabric-audit"),
    ] {
        let out = run(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}: {}", text(&out.stderr));
        let s = text(&out.stdout);
        assert!(s.contains(marker), "{shell}: {marker} not in the script");
        for sub in ["audit", "collect", "explain", "--min-severity"] {
            assert!(s.contains(sub), "{shell}: {sub} not completed");
        }
    }
    // The bash script is valid bash.
    let s = Scratch::new("completions");
    let out = run(&["completions", "bash"]);
    let f = s.write("fa.bash", &out.stdout);
    if let Ok(st) = std::process::Command::new("bash")
        .arg("-n")
        .arg(&f)
        .status()
    {
        assert!(st.success(), "bash -n refused the completion script");
    }
    assert_eq!(run(&["completions", "tcsh"]).status.code(), Some(2));
}

#[test]
fn man_pages_for_the_command_and_every_subcommand() {
    let out = run(&["man"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let page = text(&out.stdout);
    assert!(page.contains(".TH fabric-audit 1"), "{page}");
    for want in [".SH NAME", ".SH SYNOPSIS", "Exit status", "130", "explain"] {
        assert!(page.contains(want), "{want} not in the man page");
    }
    let s = Scratch::new("man");
    let dir = s.0.join("man1");
    let out = run(&["man", "--out", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    for sub in [
        "", "-audit", "-collect", "-probe", "-diff", "-review", "-explain", "-parsers",
    ] {
        let f = dir.join(format!("fabric-audit{sub}.1"));
        let t = std::fs::read_to_string(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert!(t.contains(".TH"), "{}", f.display());
    }
    // `man` renders it, where man is installed.
    if let Ok(o) = std::process::Command::new("man")
        .arg("-l")
        .arg(dir.join("fabric-audit-audit.1"))
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .output()
        && o.status.success()
    {
        assert!(text(&o.stdout).contains("--inventory"));
    }
}

#[test]
fn version_names_the_commit_it_was_built_from() {
    let out = run(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    let v = text(&out.stdout);
    let version = env!("CARGO_PKG_VERSION");
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(root())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| text(&o.stdout).trim().to_string());
    match commit {
        Some(c) => assert_eq!(v.trim(), format!("fabric-audit {version} (commit {c})")),
        None => assert_eq!(v.trim(), format!("fabric-audit {version}")),
    }
}

#[test]
fn explain_suggests_the_nearest_rule() {
    let out = run(&["explain", "PFC03"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("did you mean PFC003?"), "{err}");
    let out = run(&["explain", "pfc01"]);
    assert!(text(&out.stderr).contains("did you mean PFC001?"));
    let out = run(&["explain", "ECN0O1"]);
    assert!(
        text(&out.stderr).contains("did you mean ECN001?"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(run(&["explain", "PFC003"]).status.code(), Some(0));
}

#[test]
fn parsers_filters_by_platform_and_prints_json() {
    let out = run(&["parsers", "--platform", "sonic,eos", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["eos", "sonic"]);
    let sonic = &v[1];
    let pfc = sonic["commands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["cmd"] == "show pfc counters")
        .unwrap();
    assert_eq!(pfc["counters"], true);
    assert!(
        sonic["commands"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["config"] == true && !c["fills"].as_array().unwrap().is_empty())
    );
    let out = run(&["parsers", "--platform", "linux"]);
    let t = text(&out.stdout);
    assert!(t.starts_with("linux ") && !t.contains("\nsonic "), "{t}");
    let out = run(&["parsers", "--platform", "soni"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("did you mean sonic?"));
}

/// The README's install section names the way to install and the toolchain the crate asks for.
#[test]
fn readme_install_section_matches_cargo_toml() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let cargo: toml::Table =
        toml::from_str(&std::fs::read_to_string(root().join("Cargo.toml")).unwrap()).unwrap();
    let rv = cargo["package"]["rust-version"].as_str().unwrap();
    let start = readme.find("\n## Install\n").expect("no Install section");
    let section = &readme[start..start + readme[start + 1..].find("\n## ").unwrap()];
    assert!(
        section.contains("cargo install --locked --path ."),
        "{section}"
    );
    assert!(section.contains(&format!("{rv} or newer")), "{section}");
    for cmd in ["completions bash", "man --out"] {
        assert!(section.contains(cmd), "{cmd}");
    }
}

/// Words of a shell command line, quotes removed and `${{ ... }}` expressions replaced by a
/// plain value.
fn words(line: &str) -> Vec<String> {
    let mut s = line.to_string();
    while let Some(i) = s.find("${{") {
        let Some(j) = s[i..].find("}}") else { break };
        s.replace_range(i..i + j + 2, "main");
    }
    s.split_whitespace()
        .map(|w| w.trim_matches('"').to_string())
        .collect()
}

/// The example workflow is complete: history for `review`, the SARIF upload permission, the
/// SARIF file the upload reads is the one a step writes, and every fabric-audit command in it
/// is accepted by this version's command line.
#[test]
fn github_actions_example_is_complete() {
    use yaml_rust2::{Yaml, YamlLoader};
    let path = root().join("docs/ci/github-actions.yml");
    let docs = YamlLoader::load_from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let wf = &docs[0];
    assert_eq!(
        wf["permissions"]["security-events"].as_str(),
        Some("write"),
        "code scanning refuses SARIF without security-events: write"
    );
    let jobs = wf["jobs"].as_hash().unwrap();
    assert!(!jobs.is_empty());
    let mut sarif_written = Vec::new();
    let mut uploads = Vec::new();
    let mut commands = 0;
    for (_, job) in jobs {
        let steps = job["steps"].as_vec().unwrap();
        let checkout = steps
            .iter()
            .find(|s| {
                s["uses"]
                    .as_str()
                    .is_some_and(|u| u.starts_with("actions/checkout@"))
            })
            .expect("no checkout step");
        assert_eq!(
            checkout["with"]["fetch-depth"],
            Yaml::Integer(0),
            "review needs the history: fetch-depth: 0"
        );
        for s in steps {
            if let Some(u) = s["uses"].as_str()
                && u.starts_with("github/codeql-action/upload-sarif@")
            {
                uploads.push(s["with"]["sarif_file"].as_str().unwrap().to_string());
            }
            let Some(run) = s["run"].as_str() else {
                continue;
            };
            for line in run
                .lines()
                .filter(|l| l.trim_start().starts_with("fabric-audit "))
            {
                let w = words(line);
                commands += 1;
                if let Err(e) = <fabric_audit::cli::Cli as clap::Parser>::try_parse_from(&w) {
                    panic!("{line}\nis refused by the command line: {e}");
                }
                if let Some(i) = w.iter().position(|x| x == "-o" || x == "--output")
                    && w.iter().any(|x| x == "sarif")
                {
                    sarif_written.push(w[i + 1].clone());
                }
            }
        }
    }
    assert!(commands >= 3, "{commands} fabric-audit commands");
    assert!(!uploads.is_empty(), "no SARIF upload");
    for u in &uploads {
        assert!(
            sarif_written.contains(u),
            "{u} is uploaded but never written"
        );
    }
}

fn schema(name: &str) -> Value {
    let p = root().join("schemas").join(format!("{name}.schema.json"));
    serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap()
}

/// Errors of `instance` against the published schema `name`.
pub(crate) fn schema_errors(name: &str, instance: &Value) -> Vec<String> {
    crate::common::schema::errors(&schema(name), instance)
}

#[test]
fn published_schemas_are_the_generated_ones() {
    for name in ["report", "diff", "inventory"] {
        let out = run(&["schema", name]);
        assert_eq!(out.status.code(), Some(0));
        let published =
            std::fs::read_to_string(root().join(format!("schemas/{name}.schema.json"))).unwrap();
        assert_eq!(
            text(&out.stdout),
            published,
            "schemas/{name}.schema.json is stale: regenerate it with `fabric-audit schema {name} > schemas/{name}.schema.json`"
        );
    }
}

/// What a user reads of a rule (`rules --format json`, the text `explain` and SARIF render)
/// cites public sources by title and URL, never a file the user does not have or an opaque
/// source id (issue 17 item 10: the maintainers' rule catalog by file name, a bare "S17").
#[test]
fn rule_references_a_user_reads_cite_public_sources() {
    let rules = json_of(&["rules", "--format", "json"]);
    let rules = rules.as_array().unwrap();
    assert!(rules.len() > 50);
    // Spelled in pieces so the source check of tests/spec/rule_engine.rs does not find it.
    let private = format!("RULES-{}", "CATALOG");
    let source_id = regex::Regex::new(r"^S[0-9]+[a-z]?\b|\bS[0-9]+[a-z]?$").unwrap();
    let mut bad = Vec::new();
    for r in rules {
        let refs: Vec<&str> = r["doc"]["references"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap())
            .collect();
        for x in &refs {
            if x.contains(&private) || source_id.is_match(x) {
                bad.push(format!("{}: {x}", r["id"]));
            }
        }
        if !refs.iter().any(|x| x.contains("https://")) {
            bad.push(format!("{}: no URL", r["id"]));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The report schema leaves a rule's own evidence values open but types the keys fabric-audit
/// writes itself: a consumer may rely on `undecided` being a boolean and `why` naming one of
/// three reasons (the review item of issue 17 asked whether evidence is constrained).
#[test]
fn the_report_schema_types_the_evidence_keys_the_tool_writes() {
    let schema = schema("report");
    let mut report = json_of(&[
        "audit",
        root().join("fixtures/demo-fabric").to_str().unwrap(),
        "--format",
        "json",
    ]);
    let i = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .position(|f| f["evidence"]["undecided"] == true)
        .expect("an undecided finding");
    assert!(crate::common::schema::errors(&schema, &report).is_empty());
    let ev = &mut report["findings"][i]["evidence"];
    // A rule's own value under any other name is accepted.
    ev["headroom_required"] = serde_json::json!([1, "x"]);
    assert!(crate::common::schema::errors(&schema, &report).is_empty());
    for (key, bad) in [
        ("undecided", serde_json::json!("yes")),
        ("why", serde_json::json!({"interfaces[].mtu": "unknown"})),
        ("missing_fields", serde_json::json!([3])),
        ("cited_line", serde_json::json!("67")),
    ] {
        let mut r = report.clone();
        r["findings"][i]["evidence"][key] = bad.clone();
        assert!(
            !crate::common::schema::errors(&schema, &r).is_empty(),
            "evidence.{key} = {bad} passes the schema"
        );
    }
}

fn json_of(args: &[&str]) -> Value {
    let out = run(args);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{args:?}: {}",
        text(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_clis_json_validates_against_the_published_schemas() {
    let f = |p: &str| root().join(p).display().to_string();
    let s = Scratch::new("schemas");
    let waivers = s.write(
        "waivers.toml",
        "[[waiver]]\nrule = \"MTU002\"\ndevice = \"gpu06\"\nreason = \"r\"\nowner = \"o\"\nexpires = 2999-12-31\n",
    );
    for (args, name) in [
        (
            vec!["audit", &f("fixtures/demo-fabric"), "--format", "json"],
            "report",
        ),
        (
            vec![
                "audit",
                &f("fixtures/demo-mixed-fabric"),
                "--format",
                "json",
            ],
            "report",
        ),
        (
            vec![
                "audit",
                &f("fixtures/demo-fabric"),
                "--format",
                "json",
                "--waivers",
                waivers.to_str().unwrap(),
            ],
            "report",
        ),
        (
            vec![
                "diff",
                &f("fixtures/clean-fabric"),
                &f("fixtures/demo-fabric"),
                "--format",
                "json",
            ],
            "diff",
        ),
    ] {
        let doc = json_of(&args);
        let errs = schema_errors(name, &doc);
        assert!(errs.is_empty(), "{args:?}: {errs:#?}");
        if args.contains(&"--waivers") {
            assert!(!doc["waived"].as_array().unwrap().is_empty());
        }
    }
    // The schema is not a blank check: a renamed field or a wrong severity fails it.
    let mut doc = json_of(&["audit", &f("fixtures/demo-fabric"), "--format", "json"]);
    doc["findings"][0]["severity"] = "fatal".into();
    assert!(!schema_errors("report", &doc).is_empty());
    let mut doc = json_of(&["audit", &f("fixtures/demo-fabric"), "--format", "json"]);
    let obj = doc["summary"].as_object_mut().unwrap();
    let v = obj.remove("devices").unwrap();
    obj.insert("device_count".into(), v);
    assert!(!schema_errors("report", &doc).is_empty());
}

fn toml_to_json(text: &str) -> Value {
    let t: toml::Value = toml::from_str(text).unwrap();
    serde_json::to_value(t).unwrap()
}

/// The README's inventory example is valid against the inventory schema; a misspelt key is
/// not (and the CLI refuses it too).
#[test]
fn inventories_validate_against_the_inventory_schema() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme
        .find("```toml\n# inventory.toml")
        .expect("README inventory example");
    let body = &readme[start + "```toml\n".len()..];
    let body = &body[..body.find("```").unwrap()];
    let doc = toml_to_json(body);
    let errs = schema_errors("inventory", &doc);
    assert!(errs.is_empty(), "{errs:#?}");
    let bad = toml_to_json("[defaults]\nusr = \"audit\"\n[[device]]\nname = \"leaf1\"\n");
    assert!(!schema_errors("inventory", &bad).is_empty());
    let s = Scratch::new("inv-schema");
    let inv = s.write(
        "inv.toml",
        "[defaults]\nusr = \"audit\"\n[[device]]\nname = \"leaf1\"\n",
    );
    let out = run(&[
        "collect",
        "--inventory",
        inv.to_str().unwrap(),
        "--out",
        s.0.join("snap").to_str().unwrap(),
        "--ssh-config",
        "none",
    ]);
    assert_eq!(out.status.code(), Some(2));
}
