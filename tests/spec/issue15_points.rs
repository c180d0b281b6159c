//! Issue 15, point by point (docs/verification/issue-15.md): the sub-points of "What was seen"
//! that had no test driving the `fabric-audit` binary. Each test edits a bundled fabric (or a
//! golden case) the way the design or the fault is written on the device, runs the binary, and
//! reads the findings or `--format model`. Every one of them fails with 953ef98's binary.

use crate::common::{self, audit_value as run, decided, edit_once as edit, fixtures, scratch};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A copy of a bundled fabric, to edit.
fn copy_of(base: &str, tag: &str) -> common::Scratch {
    common::copy_fixture("i15", base, tag)
}

fn iface<'v>(model: &'v Value, device: &str, name: &str) -> &'v Value {
    model["devices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == device)
        .and_then(|d| {
            d["interfaces"]
                .as_array()
                .unwrap()
                .iter()
                .find(|i| i["name"] == name)
        })
        .unwrap_or_else(|| panic!("no interface {device}:{name}"))
}

/// Item 2: SONiC advertises a port by its alias (`PORT.Ethernet0.alias = etp1`); the host's
/// LLDP names leaf1's port `etp1`. The link is the planned gpu01:eth2 ↔ leaf1:Ethernet0, matched
/// by `alias`, and neither TOPO001 nor TOPO003 fires on correct cabling.
#[test]
fn sonic_port_alias_in_lldp_is_the_planned_port() {
    let snap = copy_of("clean-mixed-fabric", "alias");
    edit(
        &snap,
        "devices/gpu01/lldpctl_-f_json.txt",
        "\"type\": \"ifname\",\n              \"value\": \"Ethernet0\"\n            },\n            \"descr\": \"eth2 uplink\"",
        "\"type\": \"local\",\n              \"value\": \"etp1\"\n            },\n            \"descr\": \"eth2 uplink\"",
    );
    let model = run(&snap, "model");
    let by: Vec<&Value> = model["links"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["matched_by"].as_array())
        .flatten()
        .filter(|m| m["seen_by"] == "gpu01:eth2")
        .collect();
    assert_eq!(by.len(), 1, "{}", model["links"]);
    assert_eq!(by[0]["method"], "alias", "{by:?}");
    assert_eq!(by[0]["port"], "leaf1:Ethernet0", "{by:?}");
    let report = run(&snap, "json");
    for dev in ["gpu01", "leaf1"] {
        for rule in ["TOPO001", "TOPO003"] {
            let f = decided(&report, rule, dev);
            assert!(f.is_empty(), "{dev} {rule}: {f:?}");
        }
    }
}

/// Item 1 (SONiC): TC → queue and PFC priority → queue need not be the identity. RoCE (TC 3) on
/// queue 4, with PFC priority 3 pausing queue 4 (`MAP_PFC_PRIORITY_TO_QUEUE`) and the RoCE
/// scheduler and WRED profile on queue 4, is a correct design: no error on leaf1, and the model
/// shows both remapped entries from their CONFIG_DB lines. The same port with PFC priority 3
/// still pausing queue 3 leaves RoCE's queue unpaused: PFC008 says no priority pauses TC 3 (953ef98
/// said "pauses priority 255").
#[test]
fn sonic_tc_and_pfc_priority_to_queue_maps_need_not_be_identity() {
    let snap = copy_of("clean-mixed-fabric", "tcq");
    let f = snap.join("configs/leaf1.json");
    let mut db: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
    let swap = |m: &mut Value| {
        for (_, m) in m.as_object_mut().unwrap().iter_mut() {
            m["3"] = Value::from("4");
            m["4"] = Value::from("3");
        }
    };
    swap(&mut db["TC_TO_QUEUE_MAP"]);
    let q = db["QUEUE"].as_object_mut().unwrap();
    for p in ["Ethernet0", "Ethernet8", "Ethernet240", "Ethernet248"] {
        let roce = q.remove(&format!("{p}|3")).unwrap();
        let lossy = q.remove(&format!("{p}|4-5")).unwrap();
        q.insert(format!("{p}|3"), lossy.clone());
        q.insert(format!("{p}|4"), roce);
        q.insert(format!("{p}|5"), lossy);
    }
    let unpaused = serde_json::to_string_pretty(&db).unwrap();
    swap(&mut db["MAP_PFC_PRIORITY_TO_QUEUE"]);
    std::fs::write(&f, serde_json::to_string_pretty(&db).unwrap()).unwrap();
    let model = run(&snap, "model");
    let p = iface(&model, "leaf1", "Ethernet0");
    for map in ["tc_to_queue", "pfc_priority_to_queue"] {
        let e = &p["maps"][map]["entries"][3];
        assert_eq!(e["to"], 4, "{map}: {e}");
        assert_eq!(e["how"], "config", "{map}: {e}");
    }
    let report = run(&snap, "json");
    let bad: Vec<String> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["device"] == "leaf1" && f["severity"] != "info")
        .map(common::describe)
        .collect();
    assert!(bad.is_empty(), "{bad:#?}");
    std::fs::write(&f, unpaused).unwrap();
    let report = run(&snap, "json");
    let pfc8 = decided(&report, "PFC008", "leaf1");
    assert_eq!(pfc8.len(), 4, "{pfc8:?}");
    for f in pfc8 {
        let m = f["message"].as_str().unwrap();
        assert!(m.contains("no priority pauses it"), "{m}");
    }
}

/// Item 4 (Junos): on a `vlan-tagging` port the default IP MTU is the media MTU − 18 (802.1Q
/// overhead), not − 14: `mtu 9216` gives 9198.
#[test]
fn junos_vlan_tagging_ip_mtu_is_media_minus_18() {
    let snap = copy_of("clean-mixed-fabric", "vlantag");
    edit(
        &snap,
        "configs/spine2.conf",
        "        description \"leaf1 Ethernet248\";\n        mtu 9216;\n        unit 0 {\n            family inet {\n                mtu 9184;\n",
        "        description \"leaf1 Ethernet248\";\n        vlan-tagging;\n        mtu 9216;\n        unit 0 {\n            vlan-id 100;\n            family inet {\n",
    );
    edit(
        &snap,
        "configs/spine2.conf",
        "        description \"leaf2 Ethernet248\";\n        mtu 9216;\n        unit 0 {\n            family inet {\n                mtu 9184;\n",
        "        description \"leaf2 Ethernet248\";\n        mtu 9216;\n        unit 0 {\n            family inet {\n",
    );
    let model = run(&snap, "model");
    let tagged = &iface(&model, "spine2", "et-0/0/0")["mtu"];
    assert_eq!(tagged["value"], 9198, "{tagged}");
    let untagged = &iface(&model, "spine2", "et-0/0/1")["mtu"];
    assert_eq!(untagged["value"], 9202, "{untagged}");
}

/// Item 4 (OS9): on OS9 9.2(0.2) and later the IP MTU is computed from the link MTU (Dell's
/// `mtu` reference: `no mtu` "reduces the IP MTU value to 1536 bytes"; "Ethernet (untagged) 18
/// bytes"): a 9.11 port with no `mtu` line has link MTU 1554 and IP MTU 1536, recorded as
/// defaults; a port with `mtu 9252` has IP MTU 9252 − 18. (953ef98 and 5190661: IP MTU 1500.)
#[test]
fn os9_port_without_mtu_has_the_documented_default() {
    let snap = scratch("i15", "os9");
    std::fs::create_dir_all(snap.join("configs")).unwrap();
    std::fs::copy(
        fixtures().join("os10/ftos-running-config/s4810-dcb.txt"),
        snap.join("configs/sw1.cfg"),
    )
    .unwrap();
    std::fs::write(
        snap.join("fabric.toml"),
        "[[device]]\nname = \"sw1\"\nplatform = \"os10\"\nrole = \"leaf\"\n",
    )
    .unwrap();
    let model = run(&snap, "model");
    let bare = iface(&model, "sw1", "TenGigabitEthernet0/2");
    assert_eq!(bare["mtu"]["value"], 1536, "{}", bare["mtu"]);
    assert_eq!(bare["mtu"]["default"], true, "{}", bare["mtu"]);
    assert_eq!(bare["mtu_raw"]["value"], 1554, "{}", bare["mtu_raw"]);
    let set = iface(&model, "sw1", "TenGigabitEthernet0/0");
    assert_eq!(set["mtu"]["value"], 9234, "{}", set["mtu"]);
    assert_eq!(set["mtu"]["default"], false, "{}", set["mtu"]);
}

/// A rule fixture case (fixtures/rules/RULE/CASE.toml) run through the binary: the findings of
/// its rule are exactly where the case expects them, with the severity it names.
fn rule_case_via_cli(rule: &str, case: &str) {
    let path = fixtures().join("rules").join(rule).join(case);
    let tmp = scratch("i15case", &format!("{rule}-{case}"));
    let c = common::build_case(&path, &tmp).unwrap();
    let report = run(&tmp, "json");
    let hits: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == rule && f["evidence"]["undecided"] != true)
        .collect();
    let got: Vec<String> = hits.iter().map(|f| common::describe(f)).collect();
    assert_eq!(hits.len(), c.expect.len(), "{case}: {got:#?}");
    for ex in &c.expect {
        assert!(
            hits.iter().any(|f| f["device"] == ex.device.as_str()
                && ex.interface.as_deref().is_none_or(|i| f["interface"] == i)
                && ex.severity.as_deref().is_none_or(|s| f["severity"] == s)),
            "{case}: expected {ex:?}, got {got:#?}"
        );
    }
}

/// Item 5: PFC mode "auto" means what the platform means. Junos keeps its configured PFC toward
/// a peer without DCBX and turns it off only on a DCBX mismatch: a warning naming that risk.
/// NX-OS `priority-flow-control mode auto` (the default) leaves PFC off toward a peer that does
/// not run DCBX, and so does Onyx's `mode auto`: errors.
#[test]
fn pfc003_auto_is_a_warning_on_junos_and_an_error_on_nxos_and_onyx() {
    rule_case_via_cli("PFC003", "junos-dcbx-autonegotiation.toml");
    rule_case_via_cli("PFC003", "nxos-mode-line-missing.toml");
    rule_case_via_cli("PFC003", "onyx-host-port-mode-auto.toml");
}

/// Item 7 (Onyx): ECN thresholds given relative to the queue (`minimum-relative 10
/// maximum-relative 50`) are kept as percent; the byte thresholds stay unknown, not invented.
#[test]
fn onyx_relative_ecn_thresholds_are_kept_as_percent() {
    let snap = copy_of("clean-mixed-fabric", "onyxrel");
    edit(
        &snap,
        "configs/leaf3.cfg",
        "   interface ethernet 1/1-1/2 traffic-class 3 congestion-control ecn minimum-absolute 150 maximum-absolute 1500\n",
        "   interface ethernet 1/1-1/2 traffic-class 3 congestion-control ecn minimum-relative 10 maximum-relative 50\n",
    );
    let model = run(&snap, "model");
    let ecn = &iface(&model, "leaf3", "Eth1/1")["queues"][3]["ecn"];
    assert_eq!(ecn["enabled"]["value"], true, "{ecn}");
    assert_eq!(ecn["min_pct"]["value"], 10.0, "{ecn}");
    assert_eq!(ecn["max_pct"]["value"], 50.0, "{ecn}");
    assert!(ecn["min_bytes"].is_null(), "{ecn}");
    // the port outside the edited range keeps its absolute thresholds
    let other = &iface(&model, "leaf3", "Eth1/31")["queues"][3]["ecn"];
    assert_eq!(other["min_bytes"]["value"], 153600, "{other}");
}

/// Item 7 (Junos): `class-of-service interfaces et-* { ... }` applies to every port it matches:
/// on spine2 (clean-mixed-fabric) each et- port takes the wildcard's classifier, scheduler map
/// and PFC congestion notification profile.
#[test]
fn junos_wildcard_cos_binding_applies_to_every_matching_port() {
    let snap = fixtures().join("clean-mixed-fabric");
    let text = std::fs::read_to_string(snap.join("configs/spine2.conf")).unwrap();
    assert!(text.contains("        et-* {\n            scheduler-map roce-sm;"));
    let model = run(&snap, "model");
    let d = model["devices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "spine2")
        .unwrap();
    let mut ports = 0;
    for i in d["interfaces"].as_array().unwrap() {
        let name = i["name"].as_str().unwrap();
        if !name.starts_with("et-") || name.contains('.') {
            continue;
        }
        ports += 1;
        assert_eq!(i["dscp_to_tc"]["value"][26], 3, "{name}");
        assert_eq!(
            i["pfc"]["priorities"]["value"],
            serde_json::json!([3]),
            "{name}"
        );
        assert_eq!(i["queues"][3]["ecn"]["enabled"]["value"], true, "{name}");
    }
    assert!(ports >= 4, "{ports} et- ports");
}

/// The `file:line` of a map entry, as the text of that line of the snapshot.
fn line_of(snap: &Path, at: &Value) -> String {
    let at = at.as_str().unwrap_or_else(|| panic!("no source: {at}"));
    let (file, n) = at.rsplit_once(':').unwrap();
    let text = std::fs::read_to_string(snap.join(file)).unwrap();
    text.lines()
        .nth(n.parse::<usize>().unwrap() - 1)
        .unwrap()
        .trim()
        .to_string()
}

/// Item 7: egress TC → DSCP rewrite maps have a place in the model, entry by entry with the line
/// that states each. EOS: `qos rewrite dscp` with `qos map traffic-class N to dscp D` (TC 3 →
/// 24 remarks RoCE on every RoCE port: DSCP006; TC 3 → 26 and TC 6 → 48 keep RoCE and CNPs:
/// DSCP006 decides and passes). SONiC: a bound `TC_TO_DSCP_MAP` entry by entry, a TC it does not
/// list unchanged; a port with no map bound unchanged, citing SAI's "Default no map".
#[test]
fn egress_tc_to_dscp_maps_are_modelled_and_checked() {
    rule_case_via_cli("DSCP006", "eos-egress-rewrite-roce-tc.toml");
    rule_case_via_cli("DSCP006", "eos-egress-rewrite-keeps-roce-cnp.toml");
    rule_case_via_cli("DSCP006", "sonic-tc-to-dscp-remark.toml");
    // the pass case decided: no "could not decide" either
    let path = fixtures().join("rules/DSCP006/eos-egress-rewrite-keeps-roce-cnp.toml");
    let snap = scratch("i15", "eoskeep");
    common::build_case(&path, &snap).unwrap();
    let report = run(&snap, "json");
    let any: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "DSCP006" && f["device"] == "leaf3")
        .collect();
    assert!(any.is_empty(), "{any:?}");

    let path = fixtures().join("rules/DSCP006/eos-egress-rewrite-roce-tc.toml");
    let snap = scratch("i15", "eosrw");
    common::build_case(&path, &snap).unwrap();
    let model = run(&snap, "model");
    let m = &iface(&model, "leaf3", "Ethernet1/1")["maps"]["tc_to_dscp"]["entries"];
    assert_eq!(m[3]["to"], 24, "{m}");
    assert_eq!(m[3]["how"], "config", "{m}");
    assert_eq!(
        line_of(&snap, &m[3]["at"]),
        "qos map traffic-class 3 to dscp 24"
    );
    assert_eq!(m[6]["to"], 48, "{m}");
    // without the rewrite statement nothing is rewritten, whatever the map says
    edit(&snap, "configs/leaf3.cfg", "qos rewrite dscp\n", "");
    let model = run(&snap, "model");
    let p = iface(&model, "leaf3", "Ethernet1/1");
    let m = &p["maps"]["tc_to_dscp"]["entries"];
    assert_eq!(m[3]["how"], "unchanged", "{m}");
    assert_eq!(p["dscp_rewrites"]["value"], serde_json::json!([]));
    let report = run(&snap, "json");
    assert!(decided(&report, "DSCP006", "leaf3").is_empty());

    let path = fixtures().join("rules/DSCP006/sonic-tc-to-dscp-remark.toml");
    let snap = scratch("i15", "sonicrw");
    common::build_case(&path, &snap).unwrap();
    let model = run(&snap, "model");
    let m = &iface(&model, "leaf1", "Ethernet0")["maps"]["tc_to_dscp"];
    assert_eq!(m["entries"][3]["to"], 24, "{m}");
    assert_eq!(m["entries"][3]["how"], "config", "{m}");
    assert_eq!(line_of(&snap, &m["entries"][3]["at"]), "\"3\": \"24\",");
    assert_eq!(m["entries"][1]["how"], "unchanged", "{m}");
    let m = &iface(&model, "leaf1", "Ethernet8")["maps"]["tc_to_dscp"];
    assert_eq!(m["entries"][3]["how"], "unchanged", "{m}");
    assert!(
        m["note"].as_str().unwrap().contains("Default no map"),
        "{m}"
    );
    // Junos: a rewrite rule bound on the port gives the RoCE class (queue 3) DSCP 0 at the
    // rule's line; a class the rule does not list is unknown; a port with no rule unchanged.
    rule_case_via_cli("DSCP006", "junos-rewrite-roce.toml");
    let path = fixtures().join("rules/DSCP006/junos-rewrite-roce.toml");
    let snap = scratch("i15", "junosrw");
    common::build_case(&path, &snap).unwrap();
    let model = run(&snap, "model");
    let m = &iface(&model, "spine2", "et-0/0/0")["maps"]["tc_to_dscp"]["entries"];
    assert_eq!(m[3]["to"], 0, "{m}");
    assert_eq!(
        line_of(&snap, &m[3]["at"]),
        "loss-priority low code-point 000000;"
    );
    assert_eq!(m[0]["how"], "unknown", "{m}");
    let model = run(&fixtures().join("clean-mixed-fabric"), "model");
    let m = &iface(&model, "spine2", "et-0/0/0")["maps"]["tc_to_dscp"]["entries"];
    assert_eq!(m[3]["how"], "unchanged", "{m}");
}

/// Item 2: EOS names a module or breakout port `Ethernet1/1` in its config and `Et1/1` in short
/// form; a host whose LLDP sees leaf3's port as `Et1/1` is on the planned port leaf3:Ethernet1/1,
/// matched as a short name, with neither TOPO001 nor TOPO003 on correct cabling.
#[test]
fn eos_short_port_name_in_lldp_is_the_planned_port() {
    let snap = copy_of("clean-fabric", "eosshort");
    edit(
        &snap,
        "devices/gpu05/lldpctl_-f_json.txt",
        "\"value\": \"Ethernet1/1\"\n            },\n            \"descr\": \"eth2 uplink\"",
        "\"value\": \"Et1/1\"\n            },\n            \"descr\": \"eth2 uplink\"",
    );
    let model = run(&snap, "model");
    let by: Vec<&Value> = model["links"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["matched_by"].as_array())
        .flatten()
        .filter(|m| m["seen_by"] == "gpu05:eth2")
        .collect();
    assert_eq!(by.len(), 1, "{}", model["links"]);
    assert_eq!(by[0]["method"], "short-name", "{by:?}");
    assert_eq!(by[0]["port"], "leaf3:Ethernet1/1", "{by:?}");
    let report = run(&snap, "json");
    for dev in ["gpu05", "leaf3"] {
        for rule in ["TOPO001", "TOPO003"] {
            let f = decided(&report, rule, dev);
            assert!(f.is_empty(), "{dev} {rule}: {f:?}");
        }
    }
}

/// Held-out shape (Juniper's 5-stage data center JVD, compute leaf on QFX5120, in the corpus:
/// `class-of-service interfaces et-0/0/48 { scheduler-map sm1; classifiers { dscp
/// dscp-classifier; } rewrite-rules { dscp rw1; } }`): a classifier bound on the physical
/// interface applies to its logical interfaces. Here the AI/ML JVD leaf binds its DSCP
/// classifier that way: DSCP 26 is still NO-LOSS (TC 4) and the leaf has no error or warning
/// (953ef98 and 5190661 read only `unit N classifiers`: the default classifier, DSCP 26 → TC 0,
/// and errors on every port).
#[test]
fn junos_classifier_on_the_physical_interface_applies() {
    let snap = copy_of("jvd-ai-fabric", "physcls");
    edit(
        &snap,
        "configs/leaf1.conf",
        "            scheduler-map sm1;\n            unit * {\n                classifiers {\n                    dscp mydscp;\n                }\n            }\n",
        "            scheduler-map sm1;\n            classifiers {\n                dscp mydscp;\n            }\n",
    );
    let model = run(&snap, "model");
    let p = iface(&model, "leaf1", "et-0/0/0");
    assert_eq!(p["dscp_to_tc"]["value"][26], 4, "{}", p["dscp_to_tc"]);
    assert_eq!(
        line_of(&snap, &p["maps"]["dscp_to_tc"]["entries"][26]["at"]),
        "loss-priority low code-points 011010;"
    );
    let report = run(&snap, "json");
    let bad: Vec<String> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| {
            f["device"] == "leaf1" && (f["severity"] == "error" || f["severity"] == "warning")
        })
        .map(common::describe)
        .collect();
    assert!(bad.is_empty(), "{bad:#?}");
    // The set form of the same binding is recognized and applied (953ef98: unrecognized line).
    let snap = scratch("i15", "physset");
    std::fs::create_dir_all(snap.join("configs")).unwrap();
    std::fs::write(
        snap.join("configs/sw1.conf"),
        "set system host-name sw1\nset interfaces et-0/0/1 mtu 9216\nset interfaces et-0/0/1 unit 0 family inet address 10.0.0.1/31\nset class-of-service classifiers dscp C forwarding-class network-control loss-priority low code-points 011010\nset class-of-service interfaces et-0/0/1 classifiers dscp C\n",
    )
    .unwrap();
    std::fs::write(
        snap.join("fabric.toml"),
        "[[device]]\nname = \"sw1\"\nplatform = \"junos\"\nrole = \"leaf\"\n",
    )
    .unwrap();
    let model = run(&snap, "model");
    assert_eq!(model["devices"][0]["parse"][0]["status"], "passed");
    let p = iface(&model, "sw1", "et-0/0/1");
    assert_eq!(p["dscp_to_tc"]["value"][26], 7, "{}", p["dscp_to_tc"]);
}

// ---- Item 7: per-port policy names in force (`maps.policies` in `--format model`) ----

/// A snapshot of one device `name` of `platform` whose config files are files of the corpus
/// (FABRIC_AUDIT_CORPUS, read-only: copied into the test's scratch folder, never into the
/// project): `(corpus path, file name under configs/)`, or a path from the snapshot root when it
/// has a `/` (`devices/sw1/<command file>`). None when the corpus is not given.
fn corpus_device(tag: &str, platform: &str, files: &[(&str, &str)]) -> Option<common::Scratch> {
    let Some(corpus) = std::env::var_os("FABRIC_AUDIT_CORPUS").map(PathBuf::from) else {
        eprintln!("FABRIC_AUDIT_CORPUS not set: skipped");
        return None;
    };
    let snap = scratch("i15pol", tag);
    std::fs::create_dir_all(snap.join("configs")).unwrap();
    for (from, to) in files {
        let to = match to.contains('/') {
            true => snap.join(to),
            false => snap.join("configs").join(to),
        };
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(corpus.join(from), to).unwrap();
    }
    std::fs::write(
        snap.join("fabric.toml"),
        format!("[[device]]\nname = \"sw1\"\nplatform = \"{platform}\"\nrole = \"leaf\"\n"),
    )
    .unwrap();
    Some(snap)
}

/// The policy of `kind` in force on a port (exactly one).
fn policy<'v>(port: &'v Value, kind: &str) -> &'v Value {
    let all = port["maps"]["policies"]
        .as_array()
        .unwrap_or_else(|| panic!("{}: no policies: {}", port["name"], port["maps"]));
    let hits: Vec<&Value> = all.iter().filter(|p| p["kind"] == kind).collect();
    assert_eq!(hits.len(), 1, "{}: {kind} in {all:?}", port["name"]);
    hits[0]
}

/// Check one policy in force: its name, how it is bound, what it came through, its `file:line`
/// and the text of that line of the snapshot (read by hand in the file when the test was
/// written).
fn check(
    snap: &Path,
    port: &Value,
    kind: &str,
    (name, bound, via): (&str, &str, Option<&str>),
    (at, text): (&str, &str),
) {
    let p = policy(port, kind);
    let who = format!("{} {kind}: {p}", port["name"]);
    assert_eq!(p["name"], name, "{who}");
    assert_eq!(p["bound"], bound, "{who}");
    assert_eq!(p["via"].as_str(), via, "{who}");
    assert_eq!(p["at"], at, "{who}");
    let line = line_of(snap, &p["at"]);
    assert!(line.contains(text), "{who}: line is {line:?}");
}

/// NX-OS, the Azure Local generator's complete switched config (corpus): `system qos` binds the
/// network-qos and queuing policies on every port ("bound globally"); Ethernet1/17-1/32 bind
/// their own `type qos input` policy; a port with none runs the system-defined default.
#[test]
fn nxos_policies_in_force_per_port_on_a_generator_config() {
    let Some(snap) = corpus_device(
        "nxos",
        "nxos",
        &[(
            "nxos/running-config/azgen-nxos-switched-full-config.txt",
            "sw1.txt",
        )],
    ) else {
        return;
    };
    let m = run(&snap, "model");
    let e17 = iface(&m, "sw1", "Ethernet1/17");
    check(
        &snap,
        e17,
        "service-policy type qos input",
        ("AZLOCAL-QOS-MAP", "port", None),
        (
            "configs/sw1.txt:555",
            "service-policy type qos input AZLOCAL-QOS-MAP",
        ),
    );
    for port in [e17, iface(&m, "sw1", "Ethernet1/1")] {
        check(
            &snap,
            port,
            "service-policy type queuing output",
            ("AZLOCAL-QUEUE-OUT", "global", Some("system qos")),
            (
                "configs/sw1.txt:154",
                "service-policy type queuing output AZLOCAL-QUEUE-OUT",
            ),
        );
        check(
            &snap,
            port,
            "service-policy type network-qos",
            ("AZLOCAL-NWQOS", "global", Some("system qos")),
            (
                "configs/sw1.txt:153",
                "service-policy type network-qos AZLOCAL-NWQOS",
            ),
        );
    }
    check(
        &snap,
        iface(&m, "sw1", "Ethernet1/1"),
        "service-policy type qos input",
        ("system-defined default", "default", None),
        ("configs/sw1.txt:506", "interface Ethernet 1/1-1/54"),
    );
    // Only the model shows them: the JSON report's model fields are unchanged.
    let json = run(&snap, "json");
    assert!(
        !json.to_string().contains("\"policies\":[{"),
        "policies in --format json"
    );
}

/// EOS, AVD's molecule `qos` config (corpus): `qos trust` and `service-profile` on the port, on
/// the port-channel for its members, and the global `qos map` / `qos rewrite dscp` lines on
/// every port.
#[test]
fn eos_policies_in_force_per_port_on_avd_qos() {
    let Some(snap) = corpus_device(
        "eos",
        "eos",
        &[("eos/running-config/avd-molecule-qos.txt", "sw1.txt")],
    ) else {
        return;
    };
    let m = run(&snap, "model");
    let e1 = iface(&m, "sw1", "Ethernet1");
    check(
        &snap,
        e1,
        "qos trust",
        ("dscp", "port", None),
        ("configs/sw1.txt:57", "qos trust dscp"),
    );
    check(
        &snap,
        e1,
        "service-profile",
        ("test", "port", None),
        ("configs/sw1.txt:60", "service-profile test"),
    );
    let e3 = iface(&m, "sw1", "Ethernet3");
    check(
        &snap,
        e3,
        "qos trust",
        ("cos", "lag", Some("Port-Channel3")),
        ("configs/sw1.txt:49", "qos trust cos"),
    );
    check(
        &snap,
        e3,
        "service-profile",
        ("experiment", "lag", Some("Port-Channel3")),
        ("configs/sw1.txt:51", "service-profile experiment"),
    );
    check(
        &snap,
        e3,
        "qos rewrite dscp",
        ("on", "global", None),
        ("configs/sw1.txt:84", "qos rewrite dscp"),
    );
    let maps: Vec<&Value> = e1["maps"]["policies"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["kind"] == "qos map dscp")
        .collect();
    assert_eq!(maps.len(), 3, "{maps:?}");
    assert_eq!(maps[1]["name"], "to traffic-class 4");
    assert_eq!(maps[1]["at"], "configs/sw1.txt:88");
    assert!(line_of(&snap, &maps[1]["at"]).starts_with("qos map dscp 18 20 22 26"));
}

/// SONiC, sonic-buildimage's rendered QoS for the Mellanox 4600C T0 (corpus): each
/// `PORT_QOS_MAP` field of the port's entry and the QUEUE bindings of its queues.
#[test]
fn sonic_policies_in_force_per_port_on_a_rendered_qos_config() {
    let Some(snap) = corpus_device(
        "sonic",
        "sonic",
        &[(
            "sonic/config-db-json/sbi-qos-mellanox4600c-d48c40-t0.json",
            "sw1.json",
        )],
    ) else {
        return;
    };
    let m = run(&snap, "model");
    let e2 = iface(&m, "sw1", "Ethernet2");
    check(
        &snap,
        e2,
        "PORT_QOS_MAP dscp_to_tc_map",
        ("AZURE", "port", None),
        ("configs/sw1.json:296", "\"dscp_to_tc_map\"  : \"AZURE\""),
    );
    check(
        &snap,
        e2,
        "PORT_QOS_MAP pfc_enable",
        ("3,4", "port", None),
        ("configs/sw1.json:300", "\"pfc_enable\"      : \"3,4\""),
    );
    check(
        &snap,
        e2,
        "QUEUE|3 wred_profile",
        ("AZURE_LOSSLESS", "port", None),
        (
            "configs/sw1.json:527",
            "\"wred_profile\": \"AZURE_LOSSLESS\"",
        ),
    );
}

/// SONiC `PORT_QOS_MAP|global` binds a map on every port whose own entry does not (the
/// bundled leaf1 with Ethernet0's DSCP map moved to `global`).
#[test]
fn sonic_global_port_qos_map_is_bound_globally() {
    let snap = copy_of("clean-mixed-fabric", "sonicglobal");
    edit(
        &snap,
        "configs/leaf1.json",
        "\"PORT_QOS_MAP\": {\n        \"Ethernet0\": {\n            \"dscp_to_tc_map\": \"ROCE\",\n",
        "\"PORT_QOS_MAP\": {\n        \"global\": {\n            \"dscp_to_tc_map\": \"ROCE\"\n        },\n        \"Ethernet0\": {\n",
    );
    let m = run(&snap, "model");
    let e0 = iface(&m, "leaf1", "Ethernet0");
    check(
        &snap,
        e0,
        "PORT_QOS_MAP dscp_to_tc_map",
        ("ROCE", "global", Some("PORT_QOS_MAP|global")),
        ("configs/leaf1.json:875", "\"dscp_to_tc_map\": \"ROCE\""),
    );
    check(
        &snap,
        iface(&m, "leaf1", "Ethernet240"),
        "PORT_QOS_MAP dscp_to_tc_map",
        ("ROCE", "port", None),
        ("configs/leaf1.json:886", "\"dscp_to_tc_map\": \"ROCE\""),
    );
}

/// Junos, Juniper's JVD configs (corpus): the AI/ML spine binds its CoS with the wildcard
/// `et-*` (every et- port, "wildcard" via the pattern); the 5-stage compute leaf binds its own
/// per port, and a port with no CoS entry runs the default classifier of its family.
#[test]
fn junos_policies_in_force_per_port_on_jvd_configs() {
    let Some(spine) = corpus_device(
        "jvdspine",
        "junos",
        &[(
            "junos/show-configuration/jvd-aiml-mtb-spine1-qfx5240.txt",
            "sw1.conf",
        )],
    ) else {
        return;
    };
    let m = run(&spine, "model");
    let dev = m["devices"][0]["interfaces"].as_array().unwrap();
    let et: Vec<&Value> = dev
        .iter()
        .filter(|i| i["kind"] == "ethernet" && i["name"].as_str().unwrap().starts_with("et-"))
        .collect();
    assert!(et.len() >= 32, "{} et- ports", et.len());
    for port in et {
        let w = Some("et-*");
        check(
            &spine,
            port,
            "congestion-notification-profile",
            ("cnp", "wildcard", w),
            (
                "configs/sw1.conf:693",
                "congestion-notification-profile cnp",
            ),
        );
        check(
            &spine,
            port,
            "scheduler-map",
            ("sm1", "wildcard", w),
            ("configs/sw1.conf:694", "scheduler-map sm1"),
        );
        check(
            &spine,
            port,
            "classifiers dscp",
            ("mydscp", "wildcard", w),
            ("configs/sw1.conf:697", "dscp mydscp"),
        );
    }
    let Some(leaf) = corpus_device(
        "jvdleaf",
        "junos",
        &[(
            "junos/show-configuration/jvd-5stage-compute-leaf1-qfx5120.txt",
            "sw1.conf",
        )],
    ) else {
        return;
    };
    let m = run(&leaf, "model");
    let p48 = iface(&m, "sw1", "et-0/0/48");
    check(
        &leaf,
        p48,
        "scheduler-map",
        ("sm1", "port", None),
        ("configs/sw1.conf:1866", "scheduler-map sm1"),
    );
    check(
        &leaf,
        p48,
        "classifiers dscp",
        ("dscp-classifier", "port", None),
        ("configs/sw1.conf:1868", "dscp dscp-classifier"),
    );
    check(
        &leaf,
        p48,
        "rewrite-rules dscp",
        ("rw1", "port", None),
        ("configs/sw1.conf:1871", "dscp rw1"),
    );
    let p0 = iface(&m, "sw1", "et-0/0/0");
    let c = policy(p0, "classifiers dscp");
    assert_eq!(
        (&c["name"], &c["bound"]),
        (&"default".into(), &"default".into())
    );
}

/// Junos wildcard and explicit entries: on the bundled spine2 (`et-*` binds scheduler map, CNP
/// and DSCP classifier), a port's own entry naming a scheduler map replaces the wildcard's for
/// that port only; its CNP and classifier still come from `et-*`.
#[test]
fn junos_explicit_interface_entry_replaces_the_wildcard_statement_of_its_kind() {
    let snap = copy_of("clean-mixed-fabric", "junosexplicit");
    edit(
        &snap,
        "configs/spine2.conf",
        "                }\n            }\n        }\n    }\n    scheduler-maps {",
        "                }\n            }\n        }\n        et-0/0/1 {\n            scheduler-map roce-sm;\n        }\n    }\n    scheduler-maps {",
    );
    let m = run(&snap, "model");
    let own = iface(&m, "spine2", "et-0/0/1");
    check(
        &snap,
        own,
        "scheduler-map",
        ("roce-sm", "port", None),
        ("configs/spine2.conf:164", "scheduler-map roce-sm"),
    );
    check(
        &snap,
        own,
        "congestion-notification-profile",
        ("roce-cnp", "wildcard", Some("et-*")),
        (
            "configs/spine2.conf:156",
            "congestion-notification-profile roce-cnp",
        ),
    );
    check(
        &snap,
        iface(&m, "spine2", "et-0/0/0"),
        "scheduler-map",
        ("roce-sm", "wildcard", Some("et-*")),
        ("configs/spine2.conf:155", "scheduler-map roce-sm"),
    );
}

/// OS10 `system qos` (bundled leaf4: `trust-map dscp ROCE_DSCP`, `ets mode on`) governs every
/// port that states none of its own ("bound globally"); a port's own policies are "port".
/// OS9 (the Microsoft SDN S4810 config, corpus): the port's `dcb-map` and the global
/// `service-class dynamic dot1p`.
#[test]
fn os10_system_qos_is_bound_globally_and_os9_dcb_map_per_port() {
    let snap = fixtures().join("clean-mixed-fabric");
    let m = run(&snap, "model");
    for name in ["ethernet1/1/1", "ethernet1/1/3"] {
        check(
            &snap,
            iface(&m, "leaf4", name),
            "trust-map dscp",
            ("ROCE_DSCP", "global", Some("system qos")),
            ("configs/leaf4.cfg:96", "trust-map dscp ROCE_DSCP"),
        );
    }
    check(
        &snap,
        iface(&m, "leaf4", "ethernet1/1/3"),
        "ets mode",
        ("on", "global", Some("system qos")),
        ("configs/leaf4.cfg:97", "ets mode on"),
    );
    let p1 = iface(&m, "leaf4", "ethernet1/1/1");
    check(
        &snap,
        p1,
        "service-policy input type network-qos",
        ("ROCE_PFC", "port", None),
        (
            "configs/leaf4.cfg:120",
            "service-policy input type network-qos ROCE_PFC",
        ),
    );
    check(
        &snap,
        p1,
        "ets mode",
        ("on", "port", None),
        ("configs/leaf4.cfg:122", "ets mode on"),
    );
    let Some(os9) = corpus_device(
        "os9",
        "os10",
        &[(
            "os10/ftos-running-config/msft-sdn-s4810-tor1.txt",
            "sw1.txt",
        )],
    ) else {
        return;
    };
    let m = run(&os9, "model");
    check(
        &os9,
        iface(&m, "sw1", "TenGigabitEthernet0/1"),
        "dcb-map",
        ("RDMA-dcb-map-profile", "port", None),
        ("configs/sw1.txt:63", "dcb-map RDMA-dcb-map-profile"),
    );
    check(
        &os9,
        iface(&m, "sw1", "TenGigabitEthernet0/1"),
        "service-class dynamic",
        ("dot1p", "global", None),
        ("configs/sw1.txt:668", "service-class dynamic dot1p"),
    );
    check(
        &os9,
        iface(&m, "sw1", "TenGigabitEthernet0/0"),
        "dcb-map",
        ("none", "default", None),
        ("configs/sw1.txt:54", "interface TenGigabitEthernet 0/0"),
    );
    // OS10, Ansible's unit-test running config (corpus): no trust map anywhere, so OS10's
    // default (traffic class 0) at each port's header.
    let Some(unit) = corpus_device(
        "os10unit",
        "os10",
        &[(
            "os10/running-config/ansible-os10-unit-show-running-config.txt",
            "sw1.txt",
        )],
    ) else {
        return;
    };
    let m = run(&unit, "model");
    check(
        &unit,
        iface(&m, "sw1", "ethernet1/1/1"),
        "trust-map",
        ("none (every packet traffic class 0)", "default", None),
        ("configs/sw1.txt:70", "interface ethernet1/1/1"),
    );
}

/// Device-level QoS: NVUE `qos roce` (bundled spine1) is on every swp port, bound globally;
/// Onyx `roce lossy` (the Oxidized Onyx 3.9 recording, corpus) likewise, with the port range's
/// congestion control on each port of the range; Cumulus traffic.conf (Microsoft SDN, corpus)
/// gives each port its PFC port group and the file's global mapping.
#[test]
fn device_level_qos_is_on_every_port_it_governs() {
    let snap = fixtures().join("clean-mixed-fabric");
    let m = run(&snap, "model");
    let d = m["devices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "spine1")
        .unwrap();
    let mut swp = 0;
    for port in d["interfaces"].as_array().unwrap() {
        if !port["name"].as_str().unwrap().starts_with("swp") {
            continue;
        }
        swp += 1;
        check(
            &snap,
            port,
            "qos roce",
            ("lossless", "global", Some("qos roce")),
            ("configs/spine1.yaml:66", "mode: lossless"),
        );
    }
    assert!(swp >= 4, "{swp} swp ports");
    let Some(onyx) = corpus_device(
        "onyx",
        "onyx",
        &[(
            "onyx/running-config/oxidized-onyx-3.9.2504-output.txt",
            "sw1.txt",
        )],
    ) else {
        return;
    };
    let m = run(&onyx, "model");
    for name in ["Eth1/1", "Eth1/32"] {
        let port = iface(&m, "sw1", name);
        check(
            &onyx,
            port,
            "roce",
            ("lossy", "global", None),
            ("configs/sw1.txt:28", "roce lossy"),
        );
        check(
            &onyx,
            port,
            "traffic-class 3 congestion-control",
            ("ecn", "port", None),
            (
                "configs/sw1.txt:34",
                "interface ethernet 1/1-1/32 traffic-class 3",
            ),
        );
    }
    let Some(cl) = corpus_device(
        "cltraffic",
        "cumulus",
        &[
            (
                "cumulus/nclu-commands/msft-sdn-sn2700-tor1.txt",
                "devices/sw1/net_show_configuration_commands.txt",
            ),
            (
                "cumulus/traffic-conf/msft-sdn-traffic.conf.txt",
                "devices/sw1/cat__etc_cumulus_datapath_traffic.conf.txt",
            ),
        ],
    ) else {
        return;
    };
    let m = run(&cl, "model");
    let swp1 = iface(&m, "sw1", "swp1");
    check(
        &cl,
        swp1,
        "qos pfc",
        ("pfc_port_group", "port", None),
        (
            "devices/sw1/cat__etc_cumulus_datapath_traffic.conf.txt:110",
            "pfc.pfc_port_group.port_set = swp1-swp32",
        ),
    );
    check(
        &cl,
        swp1,
        "qos mapping",
        ("default-global", "global", Some("traffic.conf")),
        (
            "devices/sw1/cat__etc_cumulus_datapath_traffic.conf.txt:8",
            "traffic.packet_priority_source_set",
        ),
    );
}

/// Item 8 on a vendor's reference design (corpus): Juniper's AI/ML back-end spine, audited alone
/// (no links, no LLDP), binds its CoS to every `et-*` port, so lossless settings do not tell
/// its ports apart; the 8 ports that carry traffic set `mtu 9216`, the 74 unused breakout ports
/// (`unit 0 { family inet; }` only) keep the default. Before, all 82 were audited as RoCE and
/// MTU003 gave 74 errors ("MTU 1500 (configured 1514), below the endpoint MTU 9000"); now the
/// ports with an MTU of their own are the scope, and TOPO006 says so once.
#[test]
fn jvd_spine_alone_audits_its_configured_ports_without_errors() {
    let Some(spine) = corpus_device(
        "jvdscope",
        "junos",
        &[(
            "junos/show-configuration/jvd-aiml-mtb-spine1-qfx5240.txt",
            "sw1.conf",
        )],
    ) else {
        return;
    };
    let r = run(&spine, "json");
    assert_eq!(r["summary"]["findings"]["error"], 0, "{}", r["summary"]);
    let scope: Vec<&Value> = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "TOPO006")
        .collect();
    assert_eq!(scope.len(), 1);
    let msg = scope[0]["message"].as_str().unwrap();
    assert!(
        msg.contains("the 8 that carry jumbo frames are audited as RoCE")
            && msg.contains("74 up port(s) at the platform's default MTU not audited"),
        "{msg}"
    );
    let m = run(&spine, "model");
    let roce: Vec<&str> = m["devices"][0]["interfaces"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["roce"] == true)
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        roce,
        [
            "et-0/0/0:0",
            "et-0/0/0:1",
            "et-0/0/1:0",
            "et-0/0/1:1",
            "et-0/0/4:0",
            "et-0/0/4:1",
            "et-0/0/5:0",
            "et-0/0/5:1"
        ]
    );
}

/// NX-OS: "A QoS policy attached to a port channel takes effect even when policies are attached
/// to member ports" (Cisco Nexus 9000 QoS Configuration Guide, "Attaching and Detaching a QoS
/// Policy Action"; see src/platform/nxos/apply.rs). A member that attaches its own `type qos`
/// policy runs its port-channel's: DSCP 26 → TC 3 from PC-QOS at line 11, listed as bound
/// through the LAG. Before, the member's own MEMBER-QOS (TC 5, line 14) was taken.
#[test]
fn nxos_port_channel_policy_overrides_a_members_own() {
    let snap = scratch("i15", "nxos-lag-policy");
    std::fs::create_dir_all(snap.join("configs")).unwrap();
    std::fs::write(
        snap.join("configs/sw1.cfg"),
        "hostname sw1\n\
         class-map type qos match-any ROCE\n  match dscp 26\n\
         policy-map type qos PC-QOS\n  class ROCE\n    set qos-group 3\n\
         policy-map type qos MEMBER-QOS\n  class ROCE\n    set qos-group 5\n\
         interface port-channel10\n  service-policy type qos input PC-QOS\n\
         interface Ethernet1/1\n  channel-group 10 mode active\n  \
         service-policy type qos input MEMBER-QOS\n  no shutdown\n",
    )
    .unwrap();
    std::fs::write(
        snap.join("fabric.toml"),
        "[[device]]\nname = \"sw1\"\nplatform = \"nxos\"\n",
    )
    .unwrap();
    let m = run(&snap, "model");
    let port = m["devices"][0]["interfaces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "Ethernet1/1")
        .unwrap();
    assert_eq!(port["dscp_to_tc"]["value"][26], 3, "{}", port["dscp_to_tc"]);
    assert_eq!(port["dscp_to_tc"]["line"], 11, "{}", port["dscp_to_tc"]);
    let p = policy(port, "service-policy type qos input");
    assert_eq!(
        (&p["name"], &p["bound"]),
        (&"PC-QOS".into(), &"lag".into()),
        "{p}"
    );
}
