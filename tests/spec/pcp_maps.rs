//! 802.1p (PCP) → traffic class in the model (issue 15 item 1), and per-entry provenance of the
//! classification maps assembled from several lines: `audit --format model` shows, for each PCP
//! and DSCP, the line that classifies it, or the platform default it falls back to. DSCP002
//! judges RoCE through the PCP map where the port trusts only 802.1p.

use std::path::{Path, PathBuf};

/// A snapshot holding one config, copied from a golden case of `fixtures/`, with `fabric.toml`.
fn snapshot(tag: &str, platform: &str, case: &str, extra: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fa-pcp-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("configs")).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(case);
    std::fs::copy(&src, dir.join("configs/sw1.txt")).unwrap();
    std::fs::write(
        dir.join("fabric.toml"),
        format!(
            "{extra}\n[[device]]\nname = \"sw1\"\nplatform = \"{platform}\"\nrole = \"leaf\"\n"
        ),
    )
    .unwrap();
    dir
}

fn audit(dir: &Path, format: &str) -> serde_json::Value {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fabric-audit"))
        .args(["audit", dir.to_str().unwrap(), "--format", format])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
}

fn port(v: &serde_json::Value, name: &str) -> serde_json::Value {
    v["devices"][0]["interfaces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("{name} not in the model"))
}

/// Entry `k` of map `map`: (to, how, at).
fn entry(p: &serde_json::Value, map: &str, k: usize) -> (Option<u64>, String, String) {
    let e = &p["maps"][map]["entries"][k];
    (
        e["to"].as_u64(),
        e["how"].as_str().unwrap_or("?").to_string(),
        e["at"].as_str().unwrap_or("").to_string(),
    )
}

fn model(tag: &str, platform: &str, case: &str) -> serde_json::Value {
    let dir = snapshot(tag, platform, case, "");
    let v = audit(&dir, "model");
    let _ = std::fs::remove_dir_all(&dir);
    v
}

const AT: &str = "configs/sw1.txt:";

#[test]
fn nxos_match_cos_classifies_pcp_entry_by_entry() {
    let v = model(
        "nxos",
        "nxos",
        "nxos/running-config/legacy-pause-nodrop.txt",
    );
    let p = port(&v, "Ethernet1/5");
    assert_eq!(p["trust"]["value"], "pcp");
    assert_eq!(
        p["pcp_to_tc"]["value"],
        serde_json::json!([0, 0, 0, 3, 0, 0, 0, 0])
    );
    // CoS 3: the `match cos 3` line of class-map RDMA, set qos-group 3 by the policy.
    assert_eq!(
        entry(&p, "pcp_to_tc", 3),
        (Some(3), "config".into(), format!("{AT}11"))
    );
    // The rest: class-default, which sets no qos-group: qos-group 0 where the policy is bound.
    assert_eq!(
        entry(&p, "pcp_to_tc", 0),
        (Some(0), "default".into(), format!("{AT}36"))
    );
    assert_eq!(
        entry(&p, "dscp_to_tc", 26),
        (Some(0), "default".into(), format!("{AT}36"))
    );
}

#[test]
fn eos_qos_map_cos_and_dscp_cite_each_line() {
    let v = model("eos", "eos", "eos/running-config/qos-map-cos.txt");
    let p = port(&v, "Ethernet1");
    assert_eq!(p["trust"]["value"], "pcp");
    assert_eq!(
        p["pcp_to_tc"]["value"],
        serde_json::json!([1, 0, 2, 3, 3, 5, 6, 7])
    );
    assert_eq!(
        entry(&p, "pcp_to_tc", 4),
        (Some(3), "config".into(), format!("{AT}10"))
    );
    assert_eq!(
        entry(&p, "pcp_to_tc", 6),
        (Some(6), "config".into(), format!("{AT}11"))
    );
    // EOS's own CoS 0 ↔ 1 inversion where no line speaks.
    assert_eq!(entry(&p, "pcp_to_tc", 0).0, Some(1));
    assert_eq!(entry(&p, "pcp_to_tc", 0).1, "default");
    // The DSCP map: 26 from its own line, the others EOS defaults (not the first map line).
    assert_eq!(
        entry(&p, "dscp_to_tc", 26),
        (Some(3), "config".into(), format!("{AT}12"))
    );
    assert_eq!(entry(&p, "dscp_to_tc", 27).1, "default");
}

#[test]
fn cumulus_nvue_pcp_mapping_per_profile() {
    let v = model("cl", "cumulus", "cumulus/nv-config-show/pcp-mapping.txt");
    let p = port(&v, "swp1");
    assert_eq!(p["trust"]["value"], "pcp");
    assert_eq!(
        p["pcp_to_tc"]["value"],
        serde_json::json!([0, 1, 2, 3, 3, 3, 6, 7])
    );
    assert_eq!(
        entry(&p, "pcp_to_tc", 4),
        (Some(3), "config".into(), format!("{AT}30"))
    );
    assert_eq!(
        entry(&p, "pcp_to_tc", 5),
        (Some(3), "config".into(), format!("{AT}32"))
    );
    assert_eq!(entry(&p, "pcp_to_tc", 2).1, "default");
    // A profile starts from the defaults, not from default-global.
    let p = port(&v, "swp2");
    assert_eq!(
        p["pcp_to_tc"]["value"],
        serde_json::json!([0, 1, 3, 3, 4, 5, 6, 7])
    );
    assert_eq!(
        entry(&p, "pcp_to_tc", 2),
        (Some(3), "config".into(), format!("{AT}37"))
    );
}

#[test]
fn cumulus_traffic_conf_8021p_unnamed_priority_takes_the_default() {
    let v = model("tc", "cumulus", "cumulus/traffic-conf/pcp-source.txt");
    let p = port(&v, "swp1");
    assert_eq!(
        p["pcp_to_tc"]["value"],
        serde_json::json!([0, 1, 2, 3, 3, 5, 6, 0])
    );
    // 7 is named by no line: traffic.port_default_priority (line 14).
    assert_eq!(
        entry(&p, "pcp_to_tc", 7),
        (Some(0), "config".into(), format!("{AT}14"))
    );
    assert_eq!(
        entry(&p, "pcp_to_tc", 4),
        (Some(3), "config".into(), format!("{AT}20"))
    );
}

#[test]
fn os10_dot1p_trust_map_cites_each_qos_group_line() {
    let v = model("os10", "os10", "os10/running-config/intended-range.txt");
    let p = port(&v, "ethernet1/1/1");
    assert_eq!(p["trust"]["value"], "pcp");
    assert_eq!(
        entry(&p, "pcp_to_tc", 3),
        (Some(3), "config".into(), format!("{AT}9"))
    );
    assert_eq!(
        entry(&p, "pcp_to_tc", 5),
        (Some(5), "config".into(), format!("{AT}10"))
    );
    assert_eq!(
        entry(&p, "pcp_to_tc", 7),
        (Some(0), "config".into(), format!("{AT}8"))
    );
}

#[test]
fn sonic_dot1p_map_bound_or_unknown() {
    let v = model("sonic", "sonic", "sonic/config-db-json/dot1p-map.txt");
    let p = port(&v, "Ethernet0");
    assert_eq!(p["trust"]["value"], "pcp");
    assert_eq!(
        p["pcp_to_tc"]["value"],
        serde_json::json!([1, 0, 0, 3, 4, 0, 6, 0])
    );
    assert_eq!(entry(&p, "pcp_to_tc", 3).1, "config");
    // No DOT1P_TO_TC_MAP bound: SAI's "no map", unknown.
    let p = port(&v, "Ethernet4");
    assert!(p.get("pcp_to_tc").is_none(), "{}", p["pcp_to_tc"]);
    assert_eq!(entry(&p, "pcp_to_tc", 3).1, "unknown");
}

fn dscp002(v: &serde_json::Value, iface: &str) -> Vec<serde_json::Value> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "DSCP002" && f["interface"] == iface)
        .cloned()
        .collect()
}

#[test]
fn dscp002_reads_the_pcp_map_where_the_port_trusts_pcp() {
    // As written: PCP 3 → TC 3, lossless. The DSCP map also puts 26 in TC 3.
    let roce = "[policy]\nroce_ports = [\"Ethernet1\"]\n";
    let dir = snapshot("d2ok", "eos", "eos/running-config/qos-map-cos.txt", roce);
    let v = audit(&dir, "json");
    assert!(
        dscp002(&v, "Ethernet1").is_empty(),
        "{:?}",
        dscp002(&v, "Ethernet1")
    );
    // PCP 3 moved to TC 1: the port classifies tagged RoCE by it, whatever DSCP 26 maps to.
    let cfg = dir.join("configs/sw1.txt");
    let text = std::fs::read_to_string(&cfg).unwrap();
    let text = text.replace(
        "qos map cos 3 4 to traffic-class 3",
        "qos map cos 3 4 to traffic-class 1",
    );
    std::fs::write(&cfg, text).unwrap();
    let v = audit(&dir, "json");
    let _ = std::fs::remove_dir_all(&dir);
    let f = dscp002(&v, "Ethernet1");
    assert_eq!(f.len(), 1, "{f:?}");
    let msg = f[0]["message"].as_str().unwrap();
    assert!(msg.contains("PCP 3") && msg.contains("TC 1"), "{msg}");
    assert_eq!(f[0]["evidence"]["by_pcp"], true);
    // cited at the line that maps PCP 3
    assert_eq!(f[0]["source"]["line"], 10, "{}", f[0]);
    // and the fix changes the CoS map, not the DSCP map the port does not read
    let fix = f[0]["remediation"]["snippet"].as_str().unwrap_or("");
    assert_eq!(fix.trim(), "qos map cos 3 to traffic-class 3", "{}", f[0]);
}

/// Enterprise SONiC's `sonic-cli` running configuration in configs/, without a platform: detected
/// as SONiC, read as the CONFIG_DB tables it configures, each map entry at its own line.
#[test]
fn sonic_cli_running_config_is_detected_and_read_entry_by_entry() {
    let dir = std::env::temp_dir().join(format!("fa-pcp-escli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("configs")).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/sonic/sonic-cli-running-config/as-config/configs/es-leaf1.cfg");
    std::fs::copy(&src, dir.join("configs/sw1.txt")).unwrap();
    let v = audit(&dir, "model");
    let report = audit(&dir, "json");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(v["devices"][0]["platform"], "sonic");
    let p = port(&v, "Eth1/1");
    assert_eq!(p["kind"], "ethernet");
    assert_eq!(p["trust"]["value"], "both");
    assert_eq!(
        entry(&p, "dscp_to_tc", 26),
        (Some(3), "config".into(), format!("{AT}6"))
    );
    assert_eq!(
        entry(&p, "pcp_to_tc", 3),
        (Some(3), "config".into(), format!("{AT}10"))
    );
    assert_eq!(p["pfc"]["priorities"]["value"], serde_json::json!([3]));
    assert_eq!(p["pfc"]["priorities"]["line"], 42);
    assert_eq!(p["watchdog"]["detect_ms"]["value"], 200.0);
    let parse = &report["parse"][0];
    assert_eq!(parse["status"], "passed", "{parse}");
    assert_eq!(parse["command"], "show running-configuration", "{parse}");
}
