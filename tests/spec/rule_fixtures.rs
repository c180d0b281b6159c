//! Every rule on real snapshot files, the way a user runs it: `fixtures/rules/<RULE>/<case>.toml`
//! describes a firing case as edits to a correct base snapshot (`fixtures/clean-fabric` unless
//! `base` says otherwise); the test copies the base, applies the edits (each `replace` text must
//! be present, so a case cannot silently stop applying), runs the `fabric-audit` binary and
//! checks that the rule fires exactly where `expect` says. The clean base itself must pass every
//! rule without a single error or warning, and must exercise every rule that has a fixture.

use crate::common;

use crate::common::{Case, cases, fixtures};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Runs a case; returns, besides the verdict, which rules checked and passed objects in it.
fn run_case(id: &str, path: &Path) -> (Result<(), String>, fabric_audit::rules::eval::Passes) {
    let tmp = std::env::temp_dir().join(format!(
        "fa-rulecase-{}-{}-{}",
        std::process::id(),
        id,
        path.file_stem().unwrap().to_string_lossy()
    ));
    let r = run_case_in(id, path, &tmp);
    let _ = std::fs::remove_dir_all(&tmp);
    r
}

/// The case's snapshot is audited once, in this process, as `audit` does it (the CLI itself is
/// driven end to end by tests/spec/cli.rs and the demo tests).
fn run_case_in(
    id: &str,
    path: &Path,
    tmp: &Path,
) -> (Result<(), String>, fabric_audit::rules::eval::Passes) {
    let case = match common::build_case(path, tmp) {
        Ok(c) => c,
        Err(e) => return (Err(e), Default::default()),
    };
    let a = match fabric_audit::audit::run(tmp, &Default::default()) {
        Ok(a) => a,
        Err(e) => {
            return (
                Err(format!("{}: audit failed: {e:#}", path.display())),
                Default::default(),
            );
        }
    };
    let findings = serde_json::to_value(&a.findings).unwrap();
    // Issue 17: every message of the case is rendered from model values.
    let bad = crate::issue17_messages::bad_messages(&findings);
    if !bad.is_empty() {
        return (
            Err(format!("{}: {}", path.display(), bad.join("\n"))),
            a.passes,
        );
    }
    (check_hits(id, path, &case, &findings), a.passes)
}

fn check_hits(
    id: &str,
    path: &Path,
    case: &Case,
    findings: &serde_json::Value,
) -> Result<(), String> {
    let hits: Vec<&serde_json::Value> = findings
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == id && f["evidence"]["undecided"] != true)
        .collect();
    let mut errs = Vec::new();
    for ex in &case.expect {
        let found = hits.iter().any(|f| {
            f["device"] == ex.device.as_str()
                && ex.interface.as_deref().is_none_or(|i| f["interface"] == i)
                && ex.severity.as_deref().is_none_or(|s| f["severity"] == s)
        });
        if !found {
            errs.push(format!("expected {id} on {ex:?}"));
        }
    }
    if hits.len() != case.expect.len() {
        errs.push(format!(
            "{} {id} findings, {} expected",
            hits.len(),
            case.expect.len()
        ));
    }
    if errs.is_empty() {
        Ok(())
    } else {
        let got: Vec<String> = hits
            .iter()
            .map(|f| {
                format!(
                    "{} {} {}: {}",
                    f["severity"], f["device"], f["interface"], f["message"]
                )
            })
            .collect();
        Err(format!(
            "{}: {}\n  got: {got:#?}",
            path.display(),
            errs.join("; ")
        ))
    }
}

/// Every case fires exactly where it says; and every rule with cases also passes on real
/// objects somewhere (the clean fabric, or the correct parts of its cases), so no rule is
/// tested only from one side.
#[test]
fn every_rule_case_fires_where_expected() {
    let mut failures = Vec::new();
    let mut passes = fabric_audit::rules::eval::Passes::default();
    for base in ["clean-fabric", "clean-mixed-fabric"] {
        let a = fabric_audit::audit::run(&fixtures().join(base), &Default::default()).unwrap();
        merge(&mut passes, a.passes);
    }
    // FA_CASES=text runs only the cases whose path contains it (while writing cases).
    let only = std::env::var("FA_CASES").ok();
    let all: Vec<(String, PathBuf)> = cases()
        .into_iter()
        .filter(|(_, p)| {
            only.as_deref()
                .is_none_or(|o| p.to_string_lossy().contains(o))
        })
        .collect();
    // Cases are independent processes on their own copies: run them on every core.
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some((id, path)) = all.get(k) else {
                        break;
                    };
                    let r = run_case(id, path);
                    results.lock().unwrap().push((k, r));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(k, _)| *k);
    for (_, (r, p)) in results {
        if let Err(e) = r {
            failures.push(e);
        }
        merge(&mut passes, p);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    if only.is_some() {
        return;
    }
    let never: Vec<&String> = all
        .iter()
        .map(|(id, _)| id)
        .filter(|id| passes.count.get(*id).copied().unwrap_or(0) == 0)
        .collect();
    assert!(
        never.is_empty(),
        "rules that never passed on any fixture object: {never:?}"
    );
    // The clean half of "a firing and a clean fixture on every platform it can express": every
    // rule passes on a real object of every platform it claims (in a clean fabric, or in the
    // correct parts of a case).
    let rules = fabric_audit::audit::load_rules(None).unwrap();
    let mut missing = Vec::new();
    for r in &rules.rules {
        for p in &r.spec.platforms {
            if !passes
                .platforms
                .get(&r.spec.id)
                .is_some_and(|s| s.contains(p))
            {
                missing.push(format!("{} on {p}", r.spec.id));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "rules that pass on no object of a platform they claim: {missing:?}"
    );
}

fn merge(into: &mut fabric_audit::rules::eval::Passes, from: fabric_audit::rules::eval::Passes) {
    for (k, n) in from.count {
        *into.count.entry(k).or_default() += n;
    }
    for (k, ps) in from.platforms {
        into.platforms.entry(k).or_default().extend(ps);
    }
}

#[test]
fn clean_fabric_is_clean() {
    let base = fixtures().join("clean-fabric");
    let a = fabric_audit::audit::run(&base, &Default::default()).unwrap();
    // Undecided is acceptable only where the rule does not claim the device's platform (EOS
    // has no static buffer thresholds in its config, so BUF001 cannot decide there).
    let rules = fabric_audit::audit::load_rules(None).unwrap();
    let claims = |rule: &str, device: &str| -> bool {
        let platform = a
            .fabric
            .devices
            .iter()
            .find(|d| d.name == device)
            .map(|d| d.platform.as_str());
        rules
            .get(rule)
            .is_some_and(|r| platform.is_some_and(|p| r.spec.platforms.iter().any(|x| x == p)))
    };
    let noisy: Vec<String> = a
        .findings
        .iter()
        .filter(|f| {
            f.severity() > fabric_audit::finding::Severity::Info
                || (f.undecided() && claims(f.rule(), &f.device))
        })
        .map(|f| {
            format!(
                "{} {} {:?}: {}",
                f.rule(),
                f.device,
                f.interface,
                f.message()
            )
        })
        .collect();
    assert!(
        noisy.is_empty(),
        "clean fabric has findings:\n{}",
        noisy.join("\n")
    );
}

#[test]
fn every_rule_has_a_firing_case() {
    let rules = fabric_audit::audit::load_rules(None).unwrap();
    let have: BTreeMap<String, usize> =
        cases().into_iter().fold(BTreeMap::new(), |mut m, (id, _)| {
            *m.entry(id).or_default() += 1;
            m
        });
    // A rule no platform can express yet (platforms = []) is tested at model level only.
    let missing: Vec<&str> = rules
        .rules
        .iter()
        .filter(|r| !r.spec.platforms.is_empty())
        .map(|r| r.spec.id.as_str())
        .filter(|id| !have.contains_key(*id))
        .collect();
    assert!(
        missing.is_empty(),
        "rules without a firing fixture in fixtures/rules/: {missing:?}"
    );
}

/// Each rule's `platforms` list is a claim: for every platform named there, a firing case
/// written in that platform exists (`fixtures/rules/<RULE>/<platform>-*.toml`), and no case is
/// written for a platform the rule does not claim.
#[test]
fn every_claimed_platform_has_a_firing_case() {
    let rules = fabric_audit::audit::load_rules(None).unwrap();
    let mut have: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut errs = Vec::new();
    for (id, path) in cases() {
        let text = std::fs::read_to_string(&path).unwrap();
        let case: Case = match toml::from_str(&text) {
            Ok(c) => c,
            Err(e) => {
                errs.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        if !stem.starts_with(&format!("{}-", case.platform)) {
            errs.push(format!(
                "{}: a case written in {} is named {}-<slug>.toml",
                path.display(),
                case.platform,
                case.platform
            ));
        }
        match rules.get(&id) {
            None => errs.push(format!("{}: no rule {id}", path.display())),
            Some(r) if !r.spec.platforms.contains(&case.platform) => errs.push(format!(
                "{}: rule {id} does not list platform {} (scripts/add-rule-platform)",
                path.display(),
                case.platform
            )),
            Some(_) => {}
        }
        *have.entry((id, case.platform)).or_default() += 1;
    }
    for r in &rules.rules {
        for p in &r.spec.platforms {
            if !have.contains_key(&(r.spec.id.clone(), p.clone())) {
                errs.push(format!(
                    "{} claims {p} but has no fixtures/rules/{}/{p}-*.toml",
                    r.spec.id, r.spec.id
                ));
            }
        }
    }
    assert!(errs.is_empty(), "{}", errs.join("\n"));
}
