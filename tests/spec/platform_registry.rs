//! The platform registry (`src/platform/registry.rs`, issue 18 item 4) against the files it
//! describes: every command of every bundled `vendor-parsers/<platform>.toml` has a reader in
//! its platform's table, or the table says why nothing reads it; a reader the table names
//! exists and is the code that handles the command; a command said to be read by nothing is
//! not handled anywhere.

use fabric_audit::platform::registry::{self, By};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/platform")
}

/// The production source of a platform module: `src/platform/<id>.rs` and its folder, without
/// test modules.
fn module_source(id: &str) -> String {
    let mut files = vec![src().join(format!("{id}.rs"))];
    if let Ok(rd) = std::fs::read_dir(src().join(id)) {
        let mut more: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        more.sort();
        files.extend(more);
    }
    files
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .map(|t| without_tests(&t))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A file without its `#[cfg(test)]` items (a test module may sit anywhere in a file): each
/// from the attribute to the brace that closes the item's first block.
fn without_tests(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..i]);
        let item = &rest[i..];
        let Some(open) = item.find('{') else {
            return out;
        };
        let mut depth = 0usize;
        let mut end = item.len();
        for (j, c) in item[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + j + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// The command ids of each bundled parser file.
fn toml_commands() -> BTreeMap<String, BTreeSet<String>> {
    let parsers = fabric_audit::load_parsers(None).expect("the bundled parsers load");
    parsers
        .platforms
        .iter()
        .map(|p| {
            (
                p.id.clone(),
                p.commands.iter().map(|c| c.id.clone()).collect(),
            )
        })
        .collect()
}

#[test]
fn every_bundled_parser_file_has_a_registry_entry_and_back() {
    let files: BTreeSet<String> = toml_commands().into_keys().collect();
    let registry: BTreeSet<String> = registry::ids().map(str::to_string).collect();
    assert_eq!(
        files, registry,
        "vendor-parsers/*.toml against the registry"
    );
}

#[test]
fn every_command_has_a_reader_or_says_why_not() {
    let toml = toml_commands();
    let mut problems = Vec::new();
    for e in registry::PLATFORMS {
        let Some(cmds) = toml.get(e.id) else {
            problems.push(format!("{}: no vendor-parsers/{}.toml", e.id, e.id));
            continue;
        };
        let mut seen = BTreeSet::new();
        for r in e.reads {
            if !seen.insert(r.id) {
                problems.push(format!("{}: {} is in the table twice", e.id, r.id));
            }
            if !cmds.contains(r.id) {
                problems.push(format!(
                    "{}: the table names {}, which vendor-parsers/{}.toml does not have",
                    e.id, r.id, e.id
                ));
            }
        }
        for c in cmds {
            if !seen.contains(c.as_str()) {
                problems.push(format!(
                    "{}: command {c} has no reader in the table (nor a reason why none)",
                    e.id
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_table_tells_the_truth_about_the_code() {
    let mut problems = Vec::new();
    for e in registry::PLATFORMS {
        let code = module_source(e.id);
        for r in e.reads {
            // The table's own line names the id once; the code that handles it names it again.
            let mentions = code.matches(&format!("\"{}\"", r.id)).count();
            match r.by {
                By::Reader(f) => {
                    if mentions < 2 {
                        problems.push(format!(
                            "{}: {} is said to be read by {f}, but no code of src/platform/{} names it",
                            e.id, r.id, e.id
                        ));
                    }
                    for name in f.split(", ") {
                        let last = name.rsplit("::").next().unwrap_or(name);
                        // A reader of another platform's module (`linux::lldp_json`) is
                        // looked up there.
                        let home = name
                            .split("::")
                            .next()
                            .filter(|m| registry::get(m).is_some() && name.contains("::"))
                            .map(module_source);
                        let code = home.as_ref().unwrap_or(&code);
                        if !code.contains(&format!("fn {last}("))
                            && !code.contains(&format!("fn {last}<"))
                        {
                            problems.push(format!(
                                "{}: reader {name} of {} is no function of src/platform/{}",
                                e.id, r.id, e.id
                            ));
                        }
                    }
                }
                By::Unread(why) => {
                    if mentions > 1 {
                        problems.push(format!(
                            "{}: {} is said to be read by nothing, but src/platform/{} names it",
                            e.id, r.id, e.id
                        ));
                    }
                    if why.trim().len() < 20 {
                        problems.push(format!("{}: {}: say why it is not read", e.id, r.id));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// SONiC's `pfcwd show stats` is collected and parsed; the table says why nothing reads it.
#[test]
fn test_modules_are_cut_wherever_they_sit() {
    let t = "fn a() {}\n#[cfg(test)]\nmod tests { fn t() { let x = \"show-roce\"; } }\nfn b() {}\n";
    let cut = without_tests(t);
    assert!(
        cut.contains("fn a()") && cut.contains("fn b()") && !cut.contains("show-roce"),
        "{cut}"
    );
}

#[test]
fn sonic_pfcwd_stats_says_why_it_is_not_read() {
    let sonic = registry::get("sonic").expect("sonic is registered");
    let r = sonic
        .reads
        .iter()
        .find(|r| r.id == "pfcwd-show-stats")
        .expect("pfcwd-show-stats is in SONiC's table");
    assert!(
        matches!(r.by, By::Unread(why) if why.contains("storm")),
        "{r:?}"
    );
}

/// The README's "Adding a platform" section: the number of places it claims is the number it
/// lists, at most 5, and every registered platform has each of them.
#[test]
fn the_readme_places_of_a_platform_are_the_real_ones() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let section = readme
        .split("\n## Adding a platform\n")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("README.md has an \"Adding a platform\" section");
    let claimed: usize = section
        .split("touches ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("the section says how many places a platform touches");
    let places: Vec<&str> = section
        .lines()
        .filter(|l| {
            l.split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        })
        .collect();
    assert_eq!(places.len(), claimed, "{places:#?}");
    assert!(claimed <= 5, "adding a platform touches {claimed} places");
    let want = [
        "`vendor-parsers/<platform>.toml`",
        "`src/platform/<platform>.rs`",
        "`src/platform/mod.rs`",
        "`src/platform/registry.rs`",
        "`fixtures/<platform>/",
    ];
    for (place, w) in places.iter().zip(want) {
        assert!(place.contains(w), "{place:?} should name {w}");
    }
    let module_list = std::fs::read_to_string(root.join("src/platform/mod.rs")).unwrap_or_default();
    for id in registry::ids() {
        assert!(
            root.join(format!("vendor-parsers/{id}.toml")).is_file(),
            "{id}: parser file"
        );
        assert!(
            root.join(format!("src/platform/{id}.rs")).is_file(),
            "{id}: module"
        );
        assert!(
            module_list.contains(&format!("pub mod {id};")),
            "{id}: module line"
        );
        assert!(
            root.join(format!("fixtures/{id}")).is_dir(),
            "{id}: golden cases"
        );
    }
}

/// Where a platform id may be spelled in production code besides its own module and the
/// registry, and why a new switch platform need not touch the place. A new entry here is a new
/// place that adding a platform touches: the README's count must then be revisited.
const SPELLED_ELSEWHERE: &[(&str, &str, &str)] = &[
    (
        "parser/allow.rs",
        "linux cumulus sonic",
        "the read-only allow-list's command shapes of platforms that run a Linux shell; a switch CLI gets the `show …` shape",
    ),
    (
        "platform/conflicts.rs",
        "nxos eos cumulus",
        "contradictions within the config forms of those platforms; optional for another",
    ),
    (
        "collect/run.rs",
        "linux",
        "host-only collection (RDMA discovery)",
    ),
    (
        "collect/inventory.rs",
        "linux",
        "an Ansible host without ansible_network_os is a Linux host",
    ),
    ("cli/probe_run.rs", "linux", "probes run between hosts"),
    (
        "remediate/apply.rs",
        "linux",
        "host fixes are runtime commands, not config merges",
    ),
    (
        "rules/eval.rs",
        "linux",
        "probe rules are checked on the hosts that ran the probe",
    ),
    (
        "policy.rs",
        "sonic",
        "a value of [policy] ecn_profile (SONiC's default WRED profile), not a platform",
    ),
    (
        "schema.rs",
        "nxos",
        "the example device of the rule-input schema",
    ),
    (
        "fuzzing/smoke.rs",
        "sonic",
        "the fuzz smoke run's SONiC corpus folder",
    ),
    (
        "fuzzing/adversarial.rs",
        "nxos eos onyx os10 junos cumulus sonic",
        "the memory harness's costliest stanza per config reader; a new platform falls back to its generic inputs",
    ),
];

#[test]
fn no_platform_is_spelled_outside_its_module_and_the_registry() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    let allowed: BTreeMap<&str, BTreeSet<&str>> = SPELLED_ELSEWHERE
        .iter()
        .map(|(f, ids, _)| (*f, ids.split(' ').collect()))
        .collect();
    let mut found: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let rel = f
            .strip_prefix(&root)
            .unwrap_or(f)
            .display()
            .to_string()
            .replace('\\', "/");
        let code: String = without_tests(&std::fs::read_to_string(f).unwrap_or_default())
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        for id in registry::ids() {
            let own =
                rel == format!("platform/{id}.rs") || rel.starts_with(&format!("platform/{id}/"));
            if own || rel == "platform/registry.rs" {
                continue;
            }
            if code.contains(&format!("\"{id}\"")) {
                found.entry(rel.clone()).or_default().insert(id.to_string());
            }
        }
    }
    let mut problems = Vec::new();
    for (file, ids) in &found {
        for id in ids {
            if !allowed
                .get(file.as_str())
                .is_some_and(|a| a.contains(id.as_str()))
            {
                problems.push(format!(
                    "src/{file} spells the platform \"{id}\": derive it from the platform registry, or list the place in SPELLED_ELSEWHERE with why a new platform need not touch it"
                ));
            }
        }
    }
    for (file, ids, _) in SPELLED_ELSEWHERE {
        for id in ids.split(' ') {
            if !found.get(*file).is_some_and(|s| s.contains(id)) {
                problems.push(format!(
                    "SPELLED_ELSEWHERE lists src/{file} for {id}, which it no longer spells"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
