//! Remediation: the snippets fix what they claim. For every firing case of an error rule
//! written in a platform that has a merge, the case's snapshot is built as
//! `tests/rule_fixtures.rs` builds it, `remediate SNAP --apply-to-copy OUT` merges the snippets
//! into a copy, and the copy is audited again: the case's findings must be gone and no error
//! may be new. A rule × platform the template file declares `no_fix` is skipped and counted;
//! a rule × platform with neither a fix nor a `no_fix` fails.

use crate::common;

use crate::common::{cases, fixtures};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn bin() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_fabric-audit"))
}

fn audit(snapshot: &Path) -> Vec<serde_json::Value> {
    let out = bin()
        .arg("audit")
        .arg(snapshot)
        .args(["--format", "json", "--fail-on", "never"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["findings"].as_array().cloned().unwrap_or_default()
}

fn key(f: &serde_json::Value) -> String {
    format!(
        "{} {} {} {}",
        f["rule"], f["device"], f["interface"], f["peer"]
    )
}

fn error_rules() -> BTreeSet<String> {
    let rules = fabric_audit::audit::load_rules(None).unwrap();
    rules
        .rules
        .iter()
        .filter(|r| r.spec.severity == "error")
        .map(|r| r.spec.id.clone())
        .collect()
}

/// Round trip of one case: Ok(None) passed, Ok(Some(reason)) no_fix, Err(failure).
fn round_trip(id: &str, path: &Path, tmp: &Path) -> Result<(), String> {
    let snap = tmp.join("snap");
    let out = tmp.join("out");
    let case = common::build_case(path, &snap)?;
    let before = audit(&snap);
    let r = bin()
        .arg("remediate")
        .arg(&snap)
        .arg("--apply-to-copy")
        .arg(&out)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&r.stdout).into_owned();
    if r.status.code() == Some(2) {
        return Err(format!(
            "{}: remediate failed: {}",
            path.display(),
            String::from_utf8_lossy(&r.stderr)
        ));
    }
    if let Some(why) = &case.withheld {
        // A fault no snippet can fix: every expected object is listed as withheld.
        let missing: Vec<String> = case
            .expect
            .iter()
            .filter(|ex| {
                // "  DSCP002 leaf2:et-0/0/0 (error) [withheld, junos]: why"
                let at = match &ex.interface {
                    Some(i) => format!("{id} {}:{i} (", ex.device),
                    None => format!("{id} {} (", ex.device),
                };
                !report
                    .lines()
                    .any(|l| l.trim_start().starts_with(&at) && l.contains("[withheld"))
            })
            .map(|ex| format!("{} {:?}", ex.device, ex.interface))
            .collect();
        return if missing.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "{}: the case says the fix is withheld ({why}), but it is not for {missing:?}\n{report}",
                path.display()
            ))
        };
    }
    let after = audit(&out);
    let mut errs = Vec::new();
    for ex in &case.expect {
        let still = after.iter().any(|f| {
            f["rule"] == id
                && f["evidence"]["undecided"] != true
                && f["device"] == ex.device.as_str()
                && ex.interface.as_deref().is_none_or(|i| f["interface"] == i)
                && ex.severity.as_deref().is_none_or(|s| f["severity"] == s)
        });
        if still && ex.severity.as_deref() != Some("warning") {
            errs.push(format!(
                "{id} still fires on {} {:?}",
                ex.device, ex.interface
            ));
        }
    }
    let had: BTreeSet<String> = before
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(key)
        .collect();
    for f in after.iter().filter(|f| f["severity"] == "error") {
        if !had.contains(&key(f)) {
            errs.push(format!(
                "new error: {} {} {}: {}",
                f["rule"], f["device"], f["interface"], f["message"]
            ));
        }
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(format!("{}: {}\n{report}", path.display(), errs.join("; ")))
    }
}

#[test]
fn remediation_round_trip_fixes_every_firing_case() {
    let templates = fabric_audit::remediate::load(None).unwrap();
    let errors = error_rules();
    let only = std::env::var("FA_CASES").ok();
    let mut table: BTreeMap<(String, String), String> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut work = Vec::new();
    for (id, path) in cases() {
        if !errors.contains(&id)
            || only
                .as_deref()
                .is_some_and(|o| !path.to_string_lossy().contains(o))
        {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let case: common::Case = toml::from_str(&text).unwrap();
        if case.expect.is_empty() {
            continue;
        }
        let Some(p) = templates.platforms.get(&case.platform) else {
            continue;
        };
        if p.merge.is_none() {
            continue;
        }
        if let Some(reason) = p.no_fix.get(&id) {
            table.insert(
                (id.clone(), case.platform.clone()),
                format!("no_fix ({reason})"),
            );
            continue;
        }
        if !p.fixes.contains_key(&id) {
            failures.push(format!(
                "{id} on {}: neither a fix nor a no_fix",
                case.platform
            ));
            continue;
        }
        work.push((id, case.platform, path));
    }
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some((id, _, path)) = work.get(k) else {
                        break;
                    };
                    let tmp = std::env::temp_dir().join(format!(
                        "fa-remed-{}-{id}-{}",
                        std::process::id(),
                        path.file_stem().unwrap().to_string_lossy()
                    ));
                    let _ = std::fs::remove_dir_all(&tmp);
                    let r = round_trip(id, path, &tmp);
                    let _ = std::fs::remove_dir_all(&tmp);
                    results.lock().unwrap().push((k, r));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(k, _)| *k);
    for (k, r) in results {
        let (id, platform, path) = &work[k];
        let cell = table.entry((id.clone(), platform.clone())).or_default();
        match r {
            Ok(()) => {
                if !cell.starts_with("FAILED") {
                    *cell = "passed".into();
                }
            }
            Err(e) => {
                *cell = format!("FAILED ({})", path.file_name().unwrap().to_string_lossy());
                failures.push(e);
            }
        }
    }
    println!("{:<10} {:<8} result", "rule", "platform");
    for ((id, p), v) in &table {
        println!("{id:<10} {p:<8} {v}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Every error rule that claims a platform with a template file has a fix or a no_fix there.
#[test]
fn every_error_rule_has_a_fix_or_a_reason() {
    let templates = fabric_audit::remediate::load(None).unwrap();
    let rules = fabric_audit::audit::load_rules(None).unwrap();
    let mut missing = Vec::new();
    for r in rules.rules.iter().filter(|r| r.spec.severity == "error") {
        for p in &r.spec.platforms {
            if let Some(t) = templates.platforms.get(p)
                && !t.fixes.contains_key(&r.spec.id)
                && !t.no_fix.contains_key(&r.spec.id)
            {
                missing.push(format!("{} on {p}", r.spec.id));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "error rules with neither a fix nor a no_fix: {missing:?}"
    );
}

/// A value from the device that is not an identifier of the platform withholds the snippet.
#[test]
fn a_hostile_name_withholds_the_snippet() {
    let tmp = std::env::temp_dir().join(format!("fa-remed-hostile-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let snap = tmp.join("snap");
    common::build_case(
        &fixtures().join("rules/PFC003/nxos-mode-line-missing.toml"),
        &snap,
    )
    .unwrap();
    // leaf1: the system qos input policy gets a name with a space and `;` (and is dropped
    // from the class, so DSCP001 fires and its fix would have to print that name).
    let cfg = snap.join("configs/leaf1.cfg");
    let text = std::fs::read_to_string(&cfg).unwrap();
    let text = text
        .replace(
            "policy-map type qos ROCE-CLASSIFY",
            "policy-map type qos ROCE-CLASSIFY ;reload",
        )
        .replace("  service-policy type qos input ROCE-CLASSIFY\n", "");
    std::fs::write(&cfg, text).unwrap();
    let run = |snap: &Path| {
        let out = bin()
            .arg("remediate")
            .arg(snap)
            .args(["--format", "json"])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let v = run(&snap);
    let all = serde_json::to_string(&v).unwrap();
    assert!(
        !all.contains("reload\\n") && !all.contains(";reload\""),
        "{all}"
    );
    let w = v["withheld"].as_array().unwrap();
    assert!(
        w.iter().any(|w| w["rule"] == "DSCP001"
            && w["device"] == "leaf1"
            && w["kind"] == "withheld"
            && w["reason"].as_str().unwrap().contains("not a valid policy")),
        "{w:#?}"
    );
    // The finding's own interface: a value with a line break never reaches a snippet.
    let p = fabric_audit::remediate::load(None).unwrap();
    let nx = &p.platforms["nxos"];
    let t = nx.env.get_template(&nx.fixes["PFC003"][0].name).unwrap();
    let r = t.render(minijinja::context! {
        f => minijinja::context! { interface => "Ethernet1/1\nreload", evidence => minijinja::context!{ pause_too => false } },
    });
    let e = r.unwrap_err();
    assert!(e.detail().unwrap().contains("not a valid interface"), "{e}");
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn remediate_json_lists_steps_per_device() {
    let tmp = std::env::temp_dir().join(format!("fa-remed-json-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    common::build_case(
        &fixtures().join("rules/PFC003/nxos-mode-line-missing.toml"),
        &tmp,
    )
    .unwrap();
    let out = bin()
        .arg("remediate")
        .arg(&tmp)
        .args(["--format", "json", "--device", "leaf2"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema"], "fabric-audit/remediation/v1");
    let devs = v["devices"].as_array().unwrap();
    assert_eq!(devs.len(), 1);
    assert_eq!(devs[0]["device"], "leaf2");
    assert_eq!(devs[0]["config"], "configs/leaf2.cfg");
    let step = &devs[0]["steps"][0];
    assert_eq!(step["safety"], "safe");
    assert_eq!(
        step["snippet"],
        "interface Ethernet1/3\n  priority-flow-control mode on\n"
    );
    assert_eq!(step["fixes"][0]["rule"], "PFC003");
    assert_eq!(step["fixes"][0]["interface"], "Ethernet1/3");
    // The audit report carries the snippet on the finding.
    let out = bin()
        .arg("audit")
        .arg(&tmp)
        .args(["--format", "json", "--fail-on", "never"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let f = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "PFC003")
        .unwrap();
    assert_eq!(f["remediation"]["platform"], "nxos");
    assert_eq!(f["remediation"]["safety"], "safe");
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Per platform: a device name that is not an identifier of the platform (a `;` in a map or
/// policy name) withholds the snippet that would print it, and nothing prints it.
#[test]
fn a_hostile_name_withholds_the_snippet_per_platform() {
    // (fixture case, config file, name, hostile name, rule, device)
    let cases = [(
        "rules/DSCP002/os10-roce-dscp-unmapped.toml",
        "configs/leaf4.cfg",
        "ROCE_DSCP",
        "ROCE;DSCP",
        "DSCP002",
        "leaf4",
    )];
    for (k, (case, file, name, bad, rule, device)) in cases.iter().enumerate() {
        let tmp = std::env::temp_dir().join(format!("fa-remed-hostile-{}-{k}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        common::build_case(&fixtures().join(case), &tmp).unwrap();
        let cfg = tmp.join(file);
        let text = std::fs::read_to_string(&cfg).unwrap();
        assert!(text.contains(name), "{case}: {name} not in {file}");
        std::fs::write(&cfg, text.replace(name, bad)).unwrap();
        let out = bin()
            .arg("remediate")
            .arg(&tmp)
            .args(["--format", "json"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{case}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        for d in v["devices"].as_array().unwrap() {
            for s in d["steps"].as_array().unwrap() {
                assert!(!s["snippet"].as_str().unwrap().contains(bad), "{case}: {s}");
            }
        }
        let w = v["withheld"].as_array().unwrap();
        assert!(
            w.iter().any(|w| w["rule"] == *rule
                && w["device"] == *device
                && w["kind"] == "withheld"
                && w["reason"].as_str().unwrap().contains("not a valid")),
            "{case}: {w:#?}"
        );
        let _ = std::fs::remove_dir_all(&tmp);
    }
}

/// SONiC and Cumulus: an interface name that is not the platform's withholds the snippet.
#[test]
fn a_hostile_interface_withholds_sonic_and_cumulus_snippets() {
    let p = fabric_audit::remediate::load(None).unwrap();
    let policy =
        minijinja::context! { mtu => 9000, encap_overhead => 0, lossless_priorities => vec![3] };
    let sonic = &p.platforms["sonic"];
    let t = sonic
        .env
        .get_template(&sonic.fixes["MTU003"][0].name)
        .unwrap();
    let e = t
        .render(minijinja::context! {
            f => minijinja::context! { interface => "Ethernet0' mtu 1; reboot; echo '" },
            other => (),
            od => (),
            policy => policy.clone(),
        })
        .unwrap_err();
    assert!(e.detail().unwrap().contains("not a valid interface"), "{e}");
    let cl = &p.platforms["cumulus"];
    let t = cl.env.get_template(&cl.fixes["MTU001"][0].name).unwrap();
    let e = t
        .render(minijinja::context! {
            d => minijinja::context! { is_switch => true },
            i => minijinja::context! { name => "swp1 link mtu 1\nnv action reboot system", mtu => 1500 },
            other => minijinja::context! { mtu => 9184 },
            policy => policy,
        })
        .unwrap_err();
    assert!(e.detail().unwrap().contains("not a valid interface"), "{e}");
}

/// Onyx reads only numeric port ids from a config (`interface ethernet 1/1 ...`), so a hostile
/// name cannot come in through the config file: the template's port check is tested directly.
#[test]
fn a_hostile_onyx_port_withholds_the_snippet() {
    let p = fabric_audit::remediate::load(None).unwrap();
    let onyx = &p.platforms["onyx"];
    let t = onyx
        .env
        .get_template(&onyx.fixes["DSCP001"][0].name)
        .unwrap();
    for bad in [
        "Eth1/1\nreload",
        "Eth1/1;reload",
        "Eth1/1 qos trust L2",
        "Po1",
    ] {
        let r = t.render(minijinja::context! {
            f => minijinja::context! { interface => bad },
        });
        let e = r.unwrap_err();
        let d = e.detail().unwrap_or_default();
        assert!(
            d.contains("not a valid port") || d.contains("not an Ethernet port"),
            "{bad:?}: {e}"
        );
    }
    let ok = t
        .render(minijinja::context! { f => minijinja::context! { interface => "Eth1/1" } })
        .unwrap();
    assert_eq!(ok.trim(), "interface ethernet 1/1 qos trust L3");
}

/// `remediate SNAP --format json --apply-to-copy OUT`: the outcome (fixed, not fixed, new errors).
fn apply_to_copy(snap: &Path, out_dir: &Path) -> serde_json::Value {
    let out = bin()
        .arg("remediate")
        .arg(snap)
        .args(["--format", "json", "--apply-to-copy"])
        .arg(out_dir)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{}: {e}: {}",
            snap.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    })
}

/// MTU003 on a mixed fabric whose encapsulation overhead pushes the need above what some
/// switches run: each switch-facing port takes the other end's MTU (or the need), so the fixed
/// copy has no new MTU001 across a link whose ends sit on platforms with different defaults,
/// and a port whose other end cannot reach the need is withheld, saying so.
#[test]
fn mtu_fixes_keep_both_link_ends_equal_across_platforms() {
    for (overhead, fixed_count, withheld_peer) in [(150, 4, 0), (190, 16, 2), (210, 10, 6)] {
        let tmp = common::scratch("remed-mtu", &overhead.to_string());
        let snap = tmp.join("snap");
        common::copy_tree(&fixtures().join("clean-mixed-fabric"), &snap);
        let ft = snap.join("fabric.toml");
        let text = std::fs::read_to_string(&ft).unwrap();
        assert!(text.contains("[policy]\n"));
        std::fs::write(
            &ft,
            text.replacen(
                "[policy]\n",
                &format!("[policy]\nencap_overhead = {overhead}\n"),
                1,
            ),
        )
        .unwrap();
        let out = bin()
            .arg("remediate")
            .arg(&snap)
            .args(["--format", "json"])
            .output()
            .unwrap();
        let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let peer_withheld = plan["withheld"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|w| {
                w["rule"] == "MTU003"
                    && w["reason"]
                        .as_str()
                        .unwrap()
                        .contains("other end of the link cannot reach")
            })
            .count();
        assert_eq!(
            peer_withheld, withheld_peer,
            "overhead {overhead}: {plan:#}"
        );
        let o = apply_to_copy(&snap, &tmp.join("fixed"));
        let fixed = o["fixed"].as_array().unwrap();
        assert_eq!(fixed.len(), fixed_count, "overhead {overhead}: {o:#}");
        assert!(
            fixed.iter().all(|t| t["rule"] == "MTU003"),
            "overhead {overhead}: {o:#}"
        );
        assert_eq!(
            o["new_errors"],
            serde_json::json!([]),
            "overhead {overhead}: {o:#}"
        );
        assert_eq!(
            o["not_fixed"],
            serde_json::json!([]),
            "overhead {overhead}: {o:#}"
        );
        let _ = std::fs::remove_dir_all(&tmp);
    }
}

/// The bundled demo fabrics: every snippet merged into a copy fixes what it claims (the mixed
/// fabric includes a Junos port whose media MTU alone would give another IP MTU than its Onyx
/// peer's) and adds no error.
#[test]
fn demo_fabrics_fix_cleanly() {
    for (demo, fixed_count) in [("demo-fabric", 14), ("demo-mixed-fabric", 47)] {
        let out_dir = common::scratch("remed-demo", demo);
        let o = apply_to_copy(&fixtures().join(demo), &out_dir.join("fixed"));
        assert_eq!(o["not_fixed"], serde_json::json!([]), "{demo}: {o:#}");
        assert_eq!(o["new_errors"], serde_json::json!([]), "{demo}: {o:#}");
        assert_eq!(
            o["fixed"].as_array().unwrap().len(),
            fixed_count,
            "{demo}: {o:#}"
        );
        let _ = std::fs::remove_dir_all(&out_dir);
    }
}
