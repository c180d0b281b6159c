//! Issue 15, "What was seen" items 3-7 and switch MACs of item 2: what a vendor means by a
//! default, by "auto", by a policy in force, by a platform maximum. Each test edits a bundled
//! clean fabric the way the fault (or the correct design) is written on the device, runs the
//! `fabric-audit` binary on it, and reads the findings or the model (`--format model`) it prints.

use crate::common::{self, audit_value as run, decided, edit_once as edit, fixtures, scratch};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A copy of a bundled fabric, to edit.
fn copy_of(base: &str, tag: &str) -> common::Scratch {
    common::copy_fixture("semantics", base, tag)
}

fn iface<'v>(model: &'v Value, device: &str, name: &str) -> &'v Value {
    let d = model["devices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == device)
        .unwrap_or_else(|| panic!("no device {device}"));
    d["interfaces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == name)
        .unwrap_or_else(|| panic!("no interface {device}:{name}"))
}

/// Item 4: an NX-OS leaf running the system-defined `default-8q-out-policy` has q7 strict and
/// q1-q6 at 0 % remaining bandwidth: with CNPs in qos-group 7 SCHED001 holds, and the RoCE
/// queue's 0 % share is a SCHED002 warning (on old main: SCHED001 error "DWRR" on q7 and
/// SCHED002 undecided, weight unknown).
#[test]
fn nxos_default_8q_out_policy_is_q7_strict_and_zero_shares() {
    let snap = copy_of("clean-fabric", "nx8q");
    let leaf1 = "configs/leaf1.cfg";
    edit(
        &snap,
        leaf1,
        "service-policy type queuing output ROCE-EGRESS",
        "service-policy type queuing output default-8q-out-policy",
    );
    edit(
        &snap,
        leaf1,
        "  class CNP\n    set qos-group 6",
        "  class CNP\n    set qos-group 7",
    );
    edit(&snap, "fabric.toml", "mtu = 9000", "mtu = 9000\ncnp_tc = 7");
    let report = run(&snap, "json");
    assert!(
        decided(&report, "SCHED001", "leaf1").is_empty(),
        "{:?}",
        decided(&report, "SCHED001", "leaf1")
    );
    let s2 = decided(&report, "SCHED002", "leaf1");
    assert_eq!(s2.len(), 6, "{s2:?}");
    assert!(
        s2.iter()
            .all(|f| f["message"].as_str().unwrap().contains("guaranteed 0")),
        "{s2:?}"
    );
    let model = run(&snap, "model");
    let q = &iface(&model, "leaf1", "Ethernet1/1")["queues"];
    assert_eq!(q[7]["scheduler"]["value"], "strict");
    assert_eq!(q[7]["scheduler"]["default"], true);
    assert_eq!(q[3]["weight_pct"]["value"], 0.0);
    assert_eq!(q[0]["weight_pct"]["value"], 100.0);
}

/// Item 4: SONiC `DEVICE_METADATA.default_pfcwd_status = enable` starts the watchdog on the
/// ports `pfcwd start_default` covers (DEVICE_NEIGHBOR ports with `pfc_enable`), recorded as a
/// default; a CONFIG_DB read before it wrote PFC_WD is not "no watchdog" (old main: WDG001).
#[test]
fn sonic_default_pfcwd_status_enables_watchdog_on_active_pfc_ports() {
    let snap = copy_of("clean-mixed-fabric", "pfcwd");
    let f = snap.join("configs/leaf1.json");
    let mut db: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
    let o = db.as_object_mut().unwrap();
    o.remove("PFC_WD");
    let mut nb = serde_json::Map::new();
    for p in ["Ethernet0", "Ethernet8", "Ethernet240"] {
        nb.insert(
            p.into(),
            serde_json::json!({"name": "peer", "port": "eth0"}),
        );
    }
    o.insert("DEVICE_NEIGHBOR".into(), Value::Object(nb));
    std::fs::write(&f, serde_json::to_string_pretty(&db).unwrap()).unwrap();
    let model = run(&snap, "model");
    let w = &iface(&model, "leaf1", "Ethernet0")["watchdog"];
    assert_eq!(w["enabled"]["value"], true, "{w}");
    assert_eq!(w["enabled"]["default"], true, "{w}");
    assert_eq!(w["detect_ms"]["value"], 200.0, "{w}");
    assert_eq!(w["restore_ms"]["value"], 200.0, "{w}");
    assert_eq!(w["action"]["value"], "drop", "{w}");
    // not a DEVICE_NEIGHBOR port: start_default skips it
    let w = &iface(&model, "leaf1", "Ethernet248")["watchdog"];
    assert_eq!(w["enabled"]["value"], false, "{w}");
    let report = run(&snap, "json");
    let wdg: Vec<String> = decided(&report, "WDG001", "leaf1")
        .iter()
        .map(|f| f["interface"].to_string())
        .collect();
    assert_eq!(wdg, vec!["\"Ethernet248\""]);
}

/// Item 4: an EOS watchdog that no line turns on, inferred from a configured global timeout,
/// is recorded as a default (an inference), not as a stated fact.
#[test]
fn eos_watchdog_inferred_from_timeout_is_a_default() {
    let snap = copy_of("clean-fabric", "eoswd");
    let cfg = "configs/leaf3.cfg";
    let body = std::fs::read_to_string(snap.join(cfg)).unwrap();
    std::fs::write(
        snap.join(cfg),
        body.replace("   priority-flow-control pause watchdog\n", ""),
    )
    .unwrap();
    let model = run(&snap, "model");
    let w = &iface(&model, "leaf3", "Ethernet1/1")["watchdog"]["enabled"];
    assert_eq!(w["value"], true, "{w}");
    assert_eq!(w["default"], true, "{w}");
    assert!(w["line"].as_u64().is_some(), "{w}");
}

/// Item 6: an NX-OS port at 9216 facing an EOS port at 9214 (each its platform maximum, both
/// above the fabric's need) loses no RoCE frame: MTU001 says so as info, not an error that no
/// snippet could clear (old main: error).
#[test]
fn mtu001_both_ends_at_platform_maxima_is_info() {
    let snap = copy_of("clean-fabric", "mtumax");
    edit(
        &snap,
        "configs/spine1.cfg",
        "  description leaf3 Ethernet1/49\n  no switchport\n  speed 100000\n  mtu 9214",
        "  description leaf3 Ethernet1/49\n  no switchport\n  speed 100000\n  mtu 9216",
    );
    let report = run(&snap, "json");
    let m: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "MTU001")
        .collect();
    assert_eq!(m.len(), 1, "{m:?}");
    assert_eq!(m[0]["severity"], "info", "{m:?}");
    let msg = m[0]["message"].as_str().unwrap();
    assert!(msg.contains("platform maxima"), "{msg}");
    assert!(msg.contains("9214") && msg.contains("9216"), "{msg}");
    // one end below its maximum stays an error
    edit(
        &snap,
        "configs/leaf3.cfg",
        "   description spine1 Ethernet1/3\n   mtu 9214",
        "   description spine1 Ethernet1/3\n   mtu 9200",
    );
    let report = run(&snap, "json");
    let sev: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "MTU001")
        .map(|f| &f["severity"])
        .collect();
    assert_eq!(sev, vec!["error"]);
}

/// `remediate SNAP --apply-to-copy OUT`, then audit OUT: (plan report, findings after).
fn remediate_and_reaudit(snap: &Path, out: &Path) -> (String, Value) {
    let r = std::process::Command::new(env!("CARGO_BIN_EXE_fabric-audit"))
        .arg("remediate")
        .arg(snap)
        .arg("--apply-to-copy")
        .arg(out)
        .output()
        .unwrap();
    assert_ne!(
        r.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    (
        String::from_utf8_lossy(&r.stdout).into_owned(),
        run(out, "json"),
    )
}

/// Item 6: on an EOS switched port the `l2 mtu` governs what a RoCE frame may carry, so the fix
/// writes `l2 mtu`, and the fixed copy audits clean of MTU003 (old main wrote `mtu`, which
/// leaves a switched port's L2 limit as it was).
#[test]
fn eos_mtu_fix_on_switched_port_writes_l2_mtu() {
    let snap = copy_of("clean-fabric", "eosl2");
    edit(
        &snap,
        "configs/leaf3.cfg",
        "   description gpu05 eth2\n   mtu 9214\n   speed 100g\n   no switchport\n   ip address 10.1.3.0/31\n",
        "   description gpu05 eth2\n   speed 100g\n   l2 mtu 1500\n",
    );
    let before = run(&snap, "json");
    assert_eq!(decided(&before, "MTU003", "leaf3").len(), 1);
    let fixed = scratch("semantics", "eosl2-fixed");
    let out = fixed.join("copy");
    let (plan, after) = remediate_and_reaudit(&snap, &out);
    assert!(plan.contains("l2 mtu 9214"), "{plan}");
    let cfg = std::fs::read_to_string(out.join("configs/leaf3.cfg")).unwrap();
    assert!(cfg.contains("   l2 mtu 9214\n"), "{cfg}");
    assert!(!cfg.contains("   l2 mtu 1500\n"), "{cfg}");
    assert!(decided(&after, "MTU003", "leaf3").is_empty());
}

/// Item 6: an NX-OS leaf on the system-defined `default-8q-out-policy` with CNPs in queue 6:
/// the queuing fixes never edit the system policy (the device refuses); they write a named copy
/// and apply it under `system qos`, and the re-audited copy is clear of SCHED001 and ECN001.
#[test]
fn nxos_queuing_fix_copies_the_system_default_policy() {
    let snap = copy_of("clean-fabric", "nxcopy");
    edit(
        &snap,
        "configs/leaf1.cfg",
        "service-policy type queuing output ROCE-EGRESS",
        "service-policy type queuing output default-8q-out-policy",
    );
    let before = run(&snap, "json");
    assert_eq!(decided(&before, "SCHED001", "leaf1").len(), 6);
    let fixed = scratch("semantics", "nxcopy-fixed");
    let out = fixed.join("copy");
    let (plan, after) = remediate_and_reaudit(&snap, &out);
    assert!(!plan.contains("policy-map type queuing default-"), "{plan}");
    let cfg = std::fs::read_to_string(out.join("configs/leaf1.cfg")).unwrap();
    assert!(
        cfg.contains("service-policy type queuing output FA-8q-out"),
        "{cfg}"
    );
    assert!(!cfg.contains("output default-8q-out-policy"), "{cfg}");
    for rule in ["SCHED001", "ECN001", "SCHED002"] {
        let left = decided(&after, rule, "leaf1");
        assert!(left.is_empty(), "{rule}: {left:?}");
    }
    let parse: Vec<&Value> = after["parse"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["device"] == "leaf1" && p["status"] != "passed")
        .collect();
    assert!(parse.is_empty(), "{parse:?}");
}

/// Item 3 (EOS): a `policy-map type quality-of-service` class with `set traffic-class N`,
/// applied to the ports (`service-policy type qos input` in their qos profile), decides the
/// traffic class of the DSCPs it matches; the rest keep the global map. Here it puts RoCE
/// (DSCP 26) in TC 1: DSCP002 fires on every RoCE port of the leaf (old main read the global
/// map only, 26 → 3, and saw nothing).
#[test]
fn eos_policy_set_traffic_class_decides_the_port_map() {
    let snap = copy_of("clean-fabric", "eospm");
    let cfg = "configs/leaf3.cfg";
    edit(
        &snap,
        cfg,
        "qos map dscp 48 to traffic-class 6\n!\n",
        "qos map dscp 48 to traffic-class 6\n!\nclass-map type qos match-any ROCE-CM\n   match dscp 26\n!\npolicy-map type quality-of-service ROCE-PM\n   class ROCE-CM\n      set traffic-class 1\n!\n",
    );
    edit(
        &snap,
        cfg,
        "   qos trust dscp\n",
        "   qos trust dscp\n   service-policy type qos input ROCE-PM\n",
    );
    let model = run(&snap, "model");
    let m = &iface(&model, "leaf3", "Ethernet1/1")["dscp_to_tc"];
    assert_eq!(m["value"][26], 1, "{m}");
    assert_eq!(m["value"][48], 6, "{m}");
    assert_eq!(m["default"], false, "{m}");
    let report = run(&snap, "json");
    let d = decided(&report, "DSCP002", "leaf3");
    assert_eq!(d.len(), 6, "{d:?}");
    let parse: Vec<&Value> = report["parse"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["device"] == "leaf3" && p["status"] != "passed")
        .collect();
    assert!(parse.is_empty(), "{parse:?}");
}

/// Item 3 (OS10): `set qos-group N` in the ingress `type qos` policy takes precedence over the
/// trust map ("marking takes precedence over trust-based classification"): RoCE marked into
/// qos-group 4 is a DSCP002 error on every RoCE port of the leaf (old main: the trust map only).
#[test]
fn os10_policy_set_qos_group_wins_over_trust_map() {
    let snap = copy_of("clean-mixed-fabric", "os10pm");
    let cfg = "configs/leaf4.cfg";
    edit(
        &snap,
        cfg,
        "policy-map type application policy-iscsi\n!\n",
        "policy-map type application policy-iscsi\n!\nclass-map type qos ROCE_MARK\n match ip dscp 26\n!\npolicy-map type qos ROCE_CLASSIFY\n class ROCE_MARK\n  set qos-group 4\n!\n",
    );
    edit(
        &snap,
        cfg,
        "system qos\n trust-map dscp ROCE_DSCP\n",
        "system qos\n trust-map dscp ROCE_DSCP\n service-policy input type qos ROCE_CLASSIFY\n",
    );
    let model = run(&snap, "model");
    let m = &iface(&model, "leaf4", "ethernet1/1/1")["dscp_to_tc"];
    assert_eq!(m["value"][26], 4, "{m}");
    assert_eq!(m["value"][27], 3, "{m}");
    let report = run(&snap, "json");
    let d = decided(&report, "DSCP002", "leaf4");
    assert!(!d.is_empty(), "{d:?}");
    assert!(
        d.iter()
            .all(|f| f["message"].as_str().unwrap().contains("TC 4")),
        "{d:?}"
    );
}

/// Item 3 (OS10): the `class-trust` form (`class class-trust` / `trust diffserv` in the ingress
/// `type qos` policy) trusts DSCP with the default map (DSCP d → d / 8): a leaf classified that
/// way carries RoCE (26 → 3) and CNPs (48 → 6) correctly (old main: trust "port", everything in
/// TC 0, DSCP002 errors on a correct design).
#[test]
fn os10_class_trust_form_trusts_dscp() {
    let snap = copy_of("clean-mixed-fabric", "os10ct");
    let cfg = "configs/leaf4.cfg";
    edit(
        &snap,
        cfg,
        "policy-map type application policy-iscsi\n!\n",
        "policy-map type application policy-iscsi\n!\npolicy-map type qos TRUST\n class class-trust\n  trust diffserv\n!\n",
    );
    edit(
        &snap,
        cfg,
        "system qos\n trust-map dscp ROCE_DSCP\n",
        "system qos\n service-policy input type qos TRUST\n",
    );
    let model = run(&snap, "model");
    let i = iface(&model, "leaf4", "ethernet1/1/1");
    assert_eq!(i["trust"]["value"], "dscp", "{}", i["trust"]);
    assert_eq!(i["dscp_to_tc"]["value"][26], 3);
    assert_eq!(i["dscp_to_tc"]["value"][48], 6);
    let report = run(&snap, "json");
    let d = decided(&report, "DSCP002", "leaf4");
    assert!(d.is_empty(), "{d:?}");
}

/// Item 2: a host whose LLDP agent sees the switch port by its MAC (port id subtype mac) is
/// matched to the port whose `show interfaces` prints that address (old main: the switch had
/// no MACs, the link was "seen as" a MAC and TOPO003/TOPO001 fired on correct cabling).
#[test]
fn switch_port_mac_from_show_interfaces_identifies_the_link() {
    let snap = copy_of("clean-fabric", "swmac");
    let dev = snap.join("devices/leaf3");
    std::fs::create_dir_all(&dev).unwrap();
    std::fs::write(
        dev.join("device.toml"),
        "platform = \"eos\"\nrole = \"leaf\"\n\n[[command]]\ncmd = \"show interfaces\"\nfile = \"show_interfaces.txt\"\nexit = 0\n",
    )
    .unwrap();
    // shape of EOS `show interfaces` as in fixtures/eos/show-interfaces/leaf-400g.txt
    std::fs::write(
        dev.join("show_interfaces.txt"),
        "Ethernet1/1 is up, line protocol is up (connected)\n  Hardware is Ethernet, address is 5c16.c7a1.0b01 (bia 5c16.c7a1.0b01)\n  IP MTU 9214 bytes, BW 100000000 kbit\nEthernet1/2 is up, line protocol is up (connected)\n  Hardware is Ethernet, address is 5c16.c7a1.0b02 (bia 5c16.c7a1.0b02)\n  IP MTU 9214 bytes, BW 100000000 kbit\n",
    )
    .unwrap();
    edit(
        &snap,
        "devices/gpu05/lldpctl_-f_json.txt",
        "\"type\": \"ifname\",\n              \"value\": \"Ethernet1/1\"\n            },\n            \"descr\": \"eth2 uplink\"",
        "\"type\": \"mac\",\n              \"value\": \"5c:16:c7:a1:0b:01\"\n            },\n            \"descr\": \"eth2 uplink\"",
    );
    let model = run(&snap, "model");
    assert_eq!(
        iface(&model, "leaf3", "Ethernet1/1")["mac"]["value"],
        "5c:16:c7:a1:0b:01"
    );
    let link = model["links"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["a"]["device"] == "gpu05" && l["a"]["interface"] == "eth2")
        .unwrap_or_else(|| panic!("no gpu05:eth2 link: {}", model["links"]));
    assert_eq!(link["b"]["interface"], "Ethernet1/1", "{link}");
    let by: Vec<&Value> = link["matched_by"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["seen_by"] == "gpu05:eth2")
        .collect();
    assert_eq!(by.len(), 1, "{link}");
    assert_eq!(by[0]["method"], "mac", "{link}");
    let report = run(&snap, "json");
    for rule in ["TOPO001", "TOPO003"] {
        let f = decided(&report, rule, "gpu05");
        assert!(f.is_empty(), "{rule}: {f:?}");
    }
}

/// Item 7: a Junos drop profile's `fill-level [ 10 50 ]` is kept as percent on the ECN queue
/// (`ecn.min_pct` / `ecn.max_pct`), and the byte thresholds stay unknown rather than invented
/// (old main: the percentages were dropped from the model).
#[test]
fn junos_fill_levels_are_kept_as_percent() {
    let model = run(&fixtures().join("clean-mixed-fabric"), "model");
    let i = iface(&model, "spine2", "et-0/0/0");
    let q: Vec<&Value> = i["queues"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| q["ecn"]["min_pct"].is_object())
        .collect();
    assert!(!q.is_empty(), "{}", i["queues"]);
    for q in q {
        assert_eq!(q["ecn"]["min_pct"]["value"], 10.0, "{q}");
        assert_eq!(q["ecn"]["max_pct"]["value"], 50.0, "{q}");
        assert!(q["ecn"]["min_bytes"].is_null(), "{q}");
    }
}

/// MTU001's platform maxima and the remediation templates' `max_ip_mtu` are one set of figures:
/// a rule that calls an MTU "the platform maximum" must agree with what a fix may write.
#[test]
fn mtu001_platform_maxima_match_the_remediation_templates() {
    let rules = fabric_audit::audit::load_rules(None).unwrap();
    let mtu001 = rules.rules.iter().find(|r| r.spec.id == "MTU001").unwrap();
    let maxima = mtu001.spec.params["platform_max_mtu"].as_table().unwrap();
    let templates = fabric_audit::remediate::load(None).unwrap();
    for (platform, t) in &templates.platforms {
        let Some(m) = t.max_ip_mtu else { continue };
        assert_eq!(
            maxima.get(platform).and_then(|v| v.as_integer()),
            Some(i64::from(m)),
            "{platform}"
        );
    }
    assert_eq!(maxima.len(), 7);
}

/// Item 4, on a real CONFIG_DB (sonic-utilities' mock CONFIG_DB, in the corpus): it says
/// `default_pfcwd_status enable` and lists 29 DEVICE_NEIGHBOR ports, but `start_default` covers
/// only ports with a `pfc_enable`, and those already carry PFC_WD entries: no watchdog may be
/// invented for the rest (0 wrong facts), and the configured ones stay stated facts.
#[test]
fn sonic_start_default_invents_no_watchdog_on_the_mock_config_db() {
    let Some(corpus) = std::env::var_os("FABRIC_AUDIT_CORPUS").map(PathBuf::from) else {
        eprintln!("FABRIC_AUDIT_CORPUS not set: skipped");
        return;
    };
    let src = corpus.join("sonic/config-db-flat/su-mock-tables-config_db.json");
    let snap = scratch("semantics", "mockdb");
    std::fs::create_dir_all(snap.join("configs")).unwrap();
    std::fs::copy(&src, snap.join("configs/sw1.json")).unwrap();
    std::fs::write(
        snap.join("fabric.toml"),
        "[[device]]\nname = \"sw1\"\nplatform = \"sonic\"\nrole = \"leaf\"\n",
    )
    .unwrap();
    let model = run(&snap, "model");
    let dev = &model["devices"][0];
    let mut stated = 0;
    for i in dev["interfaces"].as_array().unwrap() {
        let e = &i["watchdog"]["enabled"];
        if e["value"] == true {
            assert_eq!(e["default"], false, "{}: {e}", i["name"]);
            stated += 1;
        }
    }
    assert!(stated >= 2, "{}", dev["interfaces"]);
}

/// Item 2 (OS10, Cumulus): a neighbor that sees a switch port by its MAC is matched to the port
/// whose MAC the switch's own table gives: OS10 `show interface` ("Current address is …") and
/// Cumulus `ip -d -j link show`; each match says it was made by `mac` (old main: neither
/// platform had port MACs; the links were "seen as" a MAC and TOPO001/TOPO003 fired).
#[test]
fn os10_and_cumulus_port_macs_identify_links() {
    let snap = copy_of("clean-mixed-fabric", "os10clmac");
    // OS10 leaf4: the block shape of fixtures/os10/show-interface/leaf-ports.txt
    std::fs::write(
        snap.join("devices/leaf4/show_interface.txt"),
        "Ethernet 1/1/1 is up, line protocol is up\nDescription: gpu03 eth3\nHardware is Eth, address is 3c:2c:30:1a:00:01\n    Current address is 3c:2c:30:1a:00:01\nMTU 9216 bytes, IP MTU 9184 bytes\n\nEthernet 1/1/2 is up, line protocol is up\nHardware is Eth, address is 3c:2c:30:1a:00:02\n    Current address is 3c:2c:30:1a:00:02\n",
    )
    .unwrap();
    edit(
        &snap,
        "devices/gpu03/lldpctl_-f_json.txt",
        "\"type\": \"ifname\",\n              \"value\": \"ethernet1/1/1\"",
        "\"type\": \"mac\",\n              \"value\": \"3c:2c:30:1a:00:01\"",
    );
    // Cumulus spine1: iproute2 JSON as in fixtures/cumulus/ip-link-json/leaf-ports.txt
    std::fs::write(
        snap.join("devices/spine1/ip_-d_-j_link_show.txt"),
        r#"[{"ifindex":6,"ifname":"swp4","flags":["BROADCAST","MULTICAST","UP","LOWER_UP"],"mtu":9216,"operstate":"UP","link_type":"ether","address":"1c:34:da:5a:10:04","broadcast":"ff:ff:ff:ff:ff:ff"},{"ifindex":7,"ifname":"swp5","flags":["BROADCAST","MULTICAST"],"mtu":9216,"operstate":"DOWN","link_type":"ether","address":"1c:34:da:5a:10:05","broadcast":"ff:ff:ff:ff:ff:ff"}]
"#,
    )
    .unwrap();
    edit(
        &snap,
        "devices/leaf4/show_lldp_neighbors.txt",
        "spine1               swp4                          ",
        "spine1               1c:34:da:5a:10:04             ",
    );
    let model = run(&snap, "model");
    assert_eq!(
        iface(&model, "leaf4", "ethernet1/1/1")["mac"]["value"],
        "3c:2c:30:1a:00:01"
    );
    assert_eq!(
        iface(&model, "spine1", "swp4")["mac"]["value"],
        "1c:34:da:5a:10:04"
    );
    for (seen_by, port) in [
        ("gpu03:eth3", "leaf4:ethernet1/1/1"),
        ("leaf4:ethernet1/1/31", "spine1:swp4"),
    ] {
        let m: Vec<&Value> = model["links"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|l| l["matched_by"].as_array())
            .flatten()
            .filter(|m| m["seen_by"] == seen_by)
            .collect();
        assert_eq!(m.len(), 1, "{seen_by}: {m:?}");
        assert_eq!(m[0]["method"], "mac", "{seen_by}");
        assert_eq!(m[0]["port"], port, "{seen_by}");
    }
    let report = run(&snap, "json");
    for dev in ["gpu03", "leaf4", "spine1"] {
        for rule in ["TOPO001", "TOPO003"] {
            let f = decided(&report, rule, dev);
            assert!(f.is_empty(), "{dev} {rule}: {f:?}");
        }
    }
}
