//! Issue 14, "What was seen", driven through the CLI as a user meets each shape: a snapshot
//! folder holding the file (a golden fixture of ours that reproduces the shape, or one built
//! here from one), `fabric-audit audit --format json|model`, and what the report and the model
//! say. Each test names the item it shows; docs/verification/issue-14.md lists them all with
//! the result on the main the issue was filed against.

use crate::cli::{Scratch, bin};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

fn read_fixture(rel: &str) -> String {
    std::fs::read_to_string(fixture(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn audit(snap: &Path, format: &str) -> Value {
    let out = bin()
        .arg("audit")
        .arg(snap)
        .args(["--format", format])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{format}: {e}: {}",
            String::from_utf8_lossy(&out.stderr)
                .chars()
                .take(2000)
                .collect::<String>()
        )
    })
}

/// The report's parse entry of one file.
fn parse_of<'a>(report: &'a Value, file: &str) -> &'a Value {
    report["parse"]
        .as_array()
        .and_then(|a| a.iter().find(|p| p["file"] == file))
        .unwrap_or_else(|| panic!("no parse entry for {file}: {}", report["parse"]))
}

/// The model's ports of one device (the model is `{devices: [...]}`).
fn ports(model: &Value, device: &str) -> Vec<Value> {
    model["devices"]
        .as_array()
        .and_then(|a| a.iter().find(|d| d["name"] == device))
        .and_then(|d| d["interfaces"].as_array().cloned())
        .unwrap_or_default()
}

fn port(model: &Value, device: &str, name: &str) -> Value {
    ports(model, device)
        .into_iter()
        .find(|i| i["name"] == name)
        .unwrap_or_else(|| panic!("{device}:{name} not in the model"))
}

fn findings<'a>(report: &'a Value, rule: &str) -> Vec<&'a Value> {
    report["findings"]
        .as_array()
        .map(|a| a.iter().filter(|f| f["rule"] == rule).collect())
        .unwrap_or_default()
}

fn unrecognized_lines(p: &Value) -> Vec<u64> {
    p["unrecognized"]
        .as_array()
        .map(|a| a.iter().filter_map(|u| u["line"].as_u64()).collect())
        .unwrap_or_default()
}

/// Item 1: a flat `TABLE|key` CONFIG_DB where one block's field is tab-indented (as in
/// sonic-net/sonic-utilities `tests/mock_tables/config_db.json`, whose `MUX_CABLE` blocks mix a
/// tab into a space-indented file) is read whole: every port keeps its PFC and trust, the
/// same as the file without the tab. (Before: every line after the tab was unrecognized and
/// the device had no port.)
#[test]
fn sonic_flat_config_db_with_a_tab_indented_field_is_read_whole() {
    let spaced = read_fixture("sonic/config-db-flat/layout-flat.txt");
    let mut lines: Vec<String> = spaced.lines().map(String::from).collect();
    // line 3 is the first field of the first block: `        "profile": "ingress_lossy_profile"`
    assert!(
        lines[2].trim_start().starts_with("\"profile\""),
        "{}",
        lines[2]
    );
    lines[2] = format!("\t{}", lines[2].trim_start());
    let tabbed = lines.join("\n") + "\n";
    let s = Scratch::new("i14-flat-tab");
    s.write("configs/leaf1.json", &tabbed);
    s.write("configs/leaf2.json", &spaced);
    let report = audit(&s.0, "json");
    let model = audit(&s.0, "model");
    let p = parse_of(&report, "configs/leaf1.json");
    assert_eq!(p["platform"], "sonic", "{p}");
    assert_eq!(p["status"], "passed", "{p}");
    let facts = |dev: &str| -> Vec<(Value, Value, Value)> {
        ports(&model, dev)
            .iter()
            .map(|i| {
                (
                    i["name"].clone(),
                    i["pfc"]["priorities"]["value"].clone(),
                    i["trust"]["value"].clone(),
                )
            })
            .collect()
    };
    assert_eq!(facts("leaf1"), facts("leaf2"));
    assert!(
        facts("leaf1")
            .iter()
            .any(|(n, pfc, _)| n == "Ethernet120" && pfc == &serde_json::json!([3, 4])),
        "the last port's PFC is read: {:?}",
        facts("leaf1")
    );
}

/// Item 2: Cumulus `nv config show -o json` and `/etc/cumulus/datapath/traffic.conf` as
/// `configs/<device>.json` / `configs/<device>.conf` (the README's config forms) are read as
/// the same outputs are under `devices/`. (Before: both `failed`, every line unrecognized.)
#[test]
fn cumulus_nvue_json_and_traffic_conf_read_as_configs() {
    let s = Scratch::new("i14-cumulus-configs");
    s.write(
        "configs/leaf1.json",
        read_fixture("cumulus/nv-config-show-json/roce-lossy.txt"),
    );
    s.write(
        "configs/leaf2.conf",
        read_fixture("cumulus/traffic-conf/roce-dscp.txt"),
    );
    let report = audit(&s.0, "json");
    let model = audit(&s.0, "model");
    for (dev, file) in [
        ("leaf1", "configs/leaf1.json"),
        ("leaf2", "configs/leaf2.conf"),
    ] {
        let p = parse_of(&report, file);
        assert_eq!(p["platform"], "cumulus", "{dev}: {p}");
        assert_eq!(p["status"], "passed", "{dev}: {p}");
    }
    let swp1 = port(&model, "leaf2", "swp1");
    assert_eq!(swp1["dscp_to_tc"]["value"][26], 3, "{swp1}");
    assert_eq!(swp1["dscp_to_tc"]["file"], "configs/leaf2.conf", "{swp1}");
    assert_eq!(swp1["pfc"]["priorities"]["value"], serde_json::json!([3]));
    let swp1 = port(&model, "leaf1", "swp1");
    assert_eq!(swp1["dscp_to_tc"]["file"], "configs/leaf1.json", "{swp1}");
}

/// Item 4, NX-OS: `show interface` saved with its echoed command line and every line indented
/// (fixtures/nxos/show-interface/echoed-command-indented.txt, the shape of a terminal log) is
/// read: both ports with their MTU. (Before: `failed`, 0 ports.)
#[test]
fn nxos_show_interface_with_echoed_command_and_indentation() {
    let s = Scratch::new("i14-nx-echo");
    s.write("devices/nx1/device.toml", "platform = \"nxos\"\n");
    s.write(
        "devices/nx1/show_interface.txt",
        read_fixture("nxos/show-interface/echoed-command-indented.txt"),
    );
    let report = audit(&s.0, "json");
    let model = audit(&s.0, "model");
    let p = parse_of(&report, "devices/nx1/show_interface.txt");
    assert_eq!(p["status"], "passed", "{p}");
    assert_eq!(port(&model, "nx1", "Ethernet1/7")["mtu_raw"]["value"], 9216);
    assert_eq!(port(&model, "nx1", "Ethernet1/8")["mtu_raw"]["value"], 1500);
}

/// Item 4, EOS `show running-config all`: `default mtu`, `default priority-flow-control`,
/// `no priority-flow-control` carry real settings (the default MTU after an explicit one; PFC
/// off) and are read at their lines. (Before: `partial`, those four lines unrecognized.)
#[test]
fn eos_running_config_all_reads_no_and_default_lines() {
    let s = Scratch::new("i14-eos-all");
    s.write(
        "configs/leaf-all.cfg",
        read_fixture("eos/running-config/running-config-all.txt"),
    );
    let report = audit(&s.0, "json");
    let model = audit(&s.0, "model");
    let p = parse_of(&report, "configs/leaf-all.cfg");
    assert_eq!(p["platform"], "eos", "{p}");
    assert_eq!(p["status"], "passed", "{p}");
    let e1 = port(&model, "leaf-all", "Ethernet1");
    // `mtu 9214` then `default mtu`: the default wins, as the later line
    assert_eq!(e1["mtu_raw"]["value"], 1500, "{e1}");
    assert_eq!(e1["mtu_raw"]["default"], true, "{e1}");
    // `priority-flow-control on` then `default priority-flow-control` (line 11): off
    assert_eq!(e1["pfc"]["mode"]["value"], "off", "{e1}");
    assert_eq!(e1["pfc"]["mode"]["line"], 11, "{e1}");
    let e2 = port(&model, "leaf-all", "Ethernet2");
    assert_eq!(e2["pfc"]["mode"]["value"], "off", "{e2}");
    assert_eq!(e2["pfc"]["mode"]["line"], 17, "{e2}");
}

/// Item 4, multi-ASIC SONiC `mmuconfig -l`: headings name their namespace ("Pool for namespace
/// asic0: NAME", sonic-net/sonic-utilities `tests/mmuconfig_input/mmuconfig_test_vectors.py`,
/// `show_mmu_config_all_masic`). Our own two-ASIC output: the pool's size and xoff are read.
/// (Before: `partial`, every heading unrecognized, no pool.)
#[test]
fn sonic_multi_asic_mmuconfig_headings_are_read() {
    let mut text = String::new();
    for asic in ["asic0", "asic1"] {
        text.push_str(&format!(
            "Pool for namespace {asic}: ingress_lossless_pool\n----  --------\nmode  dynamic\nsize  12766208\ntype  ingress\nxoff  4194304\n----  --------\n\n\
             Profile for namespace {asic}: pg_lossless_100000_5m_profile\n----------  ---------------------\ndynamic_th  0\npool        ingress_lossless_pool\nsize        1248\nxoff        96928\nxon         1248\n----------  ---------------------\n\n"
        ));
    }
    let s = Scratch::new("i14-masic");
    s.write("devices/sw1/device.toml", "platform = \"sonic\"\n");
    s.write("devices/sw1/mmuconfig_-l.txt", &text);
    let report = audit(&s.0, "json");
    let model = audit(&s.0, "model");
    let p = parse_of(&report, "devices/sw1/mmuconfig_-l.txt");
    assert_eq!(p["status"], "passed", "{p}");
    let qos = &model["devices"][0]["qos"];
    assert_eq!(qos["lossless_pool_bytes"]["value"], 12766208, "{qos}");
    assert_eq!(
        qos["lossless_pool_bytes"]["line"], 4,
        "first namespace gives it: {qos}"
    );
    assert_eq!(qos["headroom_pool_bytes"]["value"], 4194304, "{qos}");
}

/// Item 4, SONiC QoS fragments: a CONFIG_DB fragment holding only QoS tables, in the layout
/// sonic-cfggen renders (`"pfc_enable"      : "3,4"`; sonic-net/sonic-utilities
/// `tests/qos_config_input/config_qos.json`), put in `configs/` without a platform, is
/// detected as SONiC and read. (Before: platform `unknown`, `failed`.)
#[test]
fn sonic_qos_fragment_in_configs_is_detected_and_read() {
    let s = Scratch::new("i14-fragment");
    s.write(
        "configs/leaf1.json",
        "{\n    \"DSCP_TO_TC_MAP\": {\n        \"AZURE\": {\n            \"0\" : \"1\",\n            \"3\" : \"3\",\n            \"26\": \"3\",\n            \"48\": \"6\"\n        }\n    },\n    \"PORT_QOS_MAP\": {\n        \"Ethernet0\": {\n            \"dscp_to_tc_map\"  : \"AZURE\",\n            \"pfc_enable\"      : \"3,4\"\n        }\n    },\n    \"WRED_PROFILE\": {\n        \"AZURE_LOSSLESS\" : {\n            \"wred_green_enable\"      : \"true\",\n            \"ecn\"                    : \"ecn_all\",\n            \"green_max_threshold\"    : \"2097152\",\n            \"green_min_threshold\"    : \"1048576\"\n        }\n    }\n}\n",
    );
    let report = audit(&s.0, "json");
    let model = audit(&s.0, "model");
    let p = parse_of(&report, "configs/leaf1.json");
    assert_eq!(p["platform"], "sonic", "{p}");
    assert_eq!(p["status"], "passed", "{p}");
    let e0 = port(&model, "leaf1", "Ethernet0");
    assert_eq!(e0["pfc"]["priorities"]["value"], serde_json::json!([3, 4]));
    assert_eq!(e0["pfc"]["priorities"]["line"], 13, "{e0}");
    assert_eq!(e0["dscp_to_tc"]["value"][26], 3, "{e0}");
}

/// Item 5: `ibv_devinfo -v` alone (no `rdma link` / `ibdev2netdev` output to map its device to
/// a netdev) is a collection gap (PARSE011, info), not an undefined reference (PARSE002,
/// error); an NX-OS `class-map match-any NAME` without `type` is a type-qos class-map
/// (the shape of batfish/batfish's NX-OS `nxos_policy_map` test config), so the qos policy
/// that uses it has no undefined reference and classifies DSCP 26. (Before: PARSE002 errors
/// on both, the class-map line unrecognized.)
#[test]
fn missing_companion_is_a_gap_and_untyped_class_map_is_defined() {
    let s = Scratch::new("i14-gap-classmap");
    s.write("devices/gpu01/device.toml", "platform = \"linux\"\n");
    s.write(
        "devices/gpu01/ibv_devinfo_-v_-d_mlx5_0.txt",
        read_fixture("linux/ibv-devinfo-v/mlx5_0.txt"),
    );
    s.write(
        "configs/nx1.cfg",
        read_fixture("nxos/running-config/classmap-no-type.txt"),
    );
    let report = audit(&s.0, "json");
    let model = audit(&s.0, "model");
    let p2: Vec<_> = findings(&report, "PARSE002");
    assert!(p2.is_empty(), "no undefined reference: {p2:#?}");
    let gap: Vec<_> = findings(&report, "PARSE011")
        .into_iter()
        .filter(|f| f["device"] == "gpu01")
        .collect();
    assert_eq!(gap.len(), 1, "{:#}", report["findings"]);
    assert_eq!(gap[0]["severity"], "info");
    assert!(
        gap[0]["message"].as_str().unwrap_or("").contains("mlx5_0"),
        "{:#}",
        gap[0]
    );
    let nx = parse_of(&report, "configs/nx1.cfg");
    assert_eq!(nx["status"], "passed", "{nx}");
    assert_eq!(
        port(&model, "nx1", "Ethernet1/1")["dscp_to_tc"]["value"][26],
        3
    );
}

/// Item 6 and "What to build" 6: conflicts are findings with both lines. A `traffic.conf`
/// (collected, under `devices/`) listing DSCP 42 under `cos_0` and `cos_4` and `roce_pfc`'s
/// cos_list twice; an NX-OS config binding two qos input policies to one port and putting
/// DSCP 26 in two classes of one policy. (Before: both files `passed` with no finding.)
#[test]
fn conflicting_definitions_are_parse012_with_both_lines() {
    let s = Scratch::new("i14-conflicts");
    s.write("devices/cl1/device.toml", "platform = \"cumulus\"\n");
    s.write(
        "devices/cl1/cat__etc_cumulus_datapath_traffic.conf.txt",
        read_fixture("cumulus/traffic-conf/dscp-in-two-cos.txt"),
    );
    s.write(
        "configs/nx1.cfg",
        read_fixture("nxos/running-config/conflicting-definitions.txt"),
    );
    let report = audit(&s.0, "json");
    let conflicts = |dev: &str| -> Vec<(String, u64, u64)> {
        findings(&report, "PARSE012")
            .into_iter()
            .filter(|f| f["device"] == dev)
            .flat_map(|f| {
                f["evidence"]["conflicts"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .map(|c| {
                (
                    c["what"].as_str().unwrap_or("").to_string(),
                    c["first_line"].as_u64().unwrap_or(0),
                    c["line"].as_u64().unwrap_or(0),
                )
            })
            .collect()
    };
    let cl = conflicts("cl1");
    assert!(cl.contains(&("DSCP 42".to_string(), 4, 6)), "{cl:?}");
    assert!(
        cl.iter()
            .any(|(w, a, b)| w.contains("cos_list") && (*a, *b) == (9, 13)),
        "{cl:?}"
    );
    let nx = conflicts("nx1");
    assert!(
        nx.iter()
            .any(|(w, a, b)| w.contains("service-policy type qos input") && (*a, *b) == (21, 22)),
        "{nx:?}"
    );
    assert!(
        nx.iter()
            .any(|(w, a, b)| w.contains("DSCP 26") && (*a, *b) == (6, 8)),
        "{nx:?}"
    );
    for f in findings(&report, "PARSE012") {
        assert_eq!(f["severity"], "warning", "{f:#}");
    }
}

/// "What to build" 3 on Enterprise SONiC: `interface range Ethernet 0-16` (native names)
/// configures the ports of the range that exist, here the ones the file opens a block for
/// (fixtures/sonic/sonic-cli-running-config/native-range.txt, sources in its README); a
/// comma list too; a range none of whose numbers is a port is reported with its line and its
/// `mtu 1500` reaches no port. (Before: every native range was reported, its settings lost.)
#[test]
fn sonic_cli_native_ranges_configure_the_existing_ports() {
    let s = Scratch::new("i14-sonic-cli-range");
    s.write(
        "configs/es-leaf2.cfg",
        read_fixture("sonic/sonic-cli-running-config/native-range.txt"),
    );
    let report = audit(&s.0, "json");
    let model = audit(&s.0, "model");
    let p = parse_of(&report, "configs/es-leaf2.cfg");
    assert_eq!(p["platform"], "sonic", "{p}");
    assert_eq!(p["status"], "partial", "{p}");
    assert_eq!(unrecognized_lines(p), vec![36], "{p}");
    let names: Vec<String> = ports(&model, "es-leaf2")
        .iter()
        .filter_map(|i| i["name"].as_str().map(String::from))
        .collect();
    assert_eq!(
        names,
        ["Ethernet0", "Ethernet8", "Ethernet16", "Ethernet24"].map(String::from),
        "no port is invented for numbers the file does not name"
    );
    for name in ["Ethernet0", "Ethernet8", "Ethernet16"] {
        let i = port(&model, "es-leaf2", name);
        assert_eq!(i["mtu_raw"]["value"], 9100, "{i}");
        assert_eq!(i["mtu_raw"]["line"], 29, "{i}");
        assert_eq!(
            i["pfc"]["priorities"]["value"],
            serde_json::json!([3]),
            "{i}"
        );
        assert_eq!(i["dscp_to_tc"]["value"][26], 3, "{i}");
    }
    let e24 = port(&model, "es-leaf2", "Ethernet24");
    assert_eq!(e24["mtu_raw"]["value"], 9216, "{e24}");
}

/// "What to build" 3, cut JSON in every reader: an `ip -d -j link show` cut short (a transfer
/// that stopped inside the third netdev) is `partial` with the reason at its line, and the
/// netdevs before the cut are read, as a cut CONFIG_DB or NVUE JSON is. (Before, and until this
/// branch for the `format = "json"` outputs: `failed`, nothing read.)
#[test]
fn a_cut_ip_link_json_is_partial_and_keeps_what_came_before() {
    let full = read_fixture("clean-fabric/devices/gpu01/ip_-d_-j_link_show.txt");
    let at = full
        .find("\"ifname\":\"eth3\"")
        .expect("eth3 in the fixture")
        + 30;
    let s = Scratch::new("i14-cut-ip-json");
    s.write("devices/gpu01/device.toml", "platform = \"linux\"\n");
    s.write("devices/gpu01/ip_-d_-j_link_show.txt", &full[..at]);
    let report = audit(&s.0, "json");
    let model = audit(&s.0, "model");
    let p = parse_of(&report, "devices/gpu01/ip_-d_-j_link_show.txt");
    assert_eq!(p["status"], "partial", "{p}");
    let u = &p["unrecognized"][0];
    assert_eq!(u["line"], 1, "{p}");
    assert!(
        u["text"].as_str().unwrap_or("").contains("JSON ends early"),
        "{p}"
    );
    let eth2 = port(&model, "gpu01", "eth2");
    assert_eq!(eth2["mtu_raw"]["value"], 9000, "{eth2}");
}

/// Beyond the listed shapes ("What to build" 8): a Cumulus Linux 2.x `traffic.conf`
/// (fixtures/cumulus/traffic-conf/cl2x-packet-priorities.txt, the layout of the 2.5 docs'
/// sample: `traffic.packet_priority_source = dscp`, `traffic.cos_N.packet_priorities = [..]`)
/// put in `configs/` is detected as Cumulus and read: DSCP 26 → cos 4 at its line on the
/// link-pause ports `swp2-swp3`. Without the source line the lists are reported, not guessed.
/// (Before: platform `unknown`, `failed`.)
#[test]
fn cumulus_2x_traffic_conf_is_detected_and_read() {
    let text = read_fixture("cumulus/traffic-conf/cl2x-packet-priorities.txt");
    let s = Scratch::new("i14-cl2x");
    s.write("configs/cl25.conf", &text);
    let no_source: String = text
        .lines()
        .filter(|l| !l.starts_with("traffic.packet_priority_source"))
        .map(|l| format!("{l}\n"))
        .collect();
    s.write("configs/cl25b.conf", &no_source);
    s.write(
        "fabric.toml",
        "[[device]]\nname = \"cl25b\"\nplatform = \"cumulus\"\n",
    );
    let report = audit(&s.0, "json");
    let model = audit(&s.0, "model");
    let p = parse_of(&report, "configs/cl25.conf");
    assert_eq!(p["platform"], "cumulus", "{p}");
    assert_eq!(p["status"], "passed", "{p}");
    for name in ["swp2", "swp3"] {
        let i = port(&model, "cl25", name);
        assert_eq!(i["trust"]["value"], "dscp", "{i}");
        assert_eq!(i["dscp_to_tc"]["value"][26], 4, "{i}");
        assert_eq!(i["dscp_to_tc"]["value"][48], 6, "{i}");
        assert_eq!(i["link_pause"]["rx"]["value"], true, "{i}");
    }
    let b = parse_of(&report, "configs/cl25b.conf");
    assert_eq!(b["status"], "partial", "{b}");
    assert_eq!(unrecognized_lines(b), (5..=12).collect::<Vec<u64>>(), "{b}");
}
