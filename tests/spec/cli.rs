//! The command line end to end: real binary, real files, exit codes, bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_fabric-audit"))
}

/// A scratch folder removed on drop.
pub struct Scratch(pub PathBuf);
impl Scratch {
    pub fn new(tag: &str) -> Scratch {
        let p = std::env::temp_dir().join(format!(
            "fa-{tag}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Scratch(p)
    }
    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let p = self.0.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, content).unwrap();
        p
    }
}
impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn audit_json(snap: &Path, extra: &[&str]) -> (Output, serde_json::Value) {
    let out = bin()
        .arg("audit")
        .arg(snap)
        .args(["--format", "json"])
        .args(extra)
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out, v)
}

fn findings<'a>(v: &'a serde_json::Value, rule: &str) -> Vec<&'a serde_json::Value> {
    v["findings"]
        .as_array()
        .map(|a| a.iter().filter(|f| f["rule"] == rule).collect())
        .unwrap_or_default()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn snapshot_that_is_a_file_is_a_clear_error() {
    let s = Scratch::new("notdir");
    let f = s.write("snap.txt", "hello");
    let out = bin().arg("audit").arg(&f).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("is not a folder"), "{}", stderr(&out));
    let out = bin()
        .arg("audit")
        .arg(s.0.join("missing"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("does not exist"), "{}", stderr(&out));
}

#[test]
fn empty_snapshot_folder_is_a_clear_error() {
    let s = Scratch::new("emptysnap");
    let out = bin().arg("audit").arg(&s.0).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("nothing to audit"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn malformed_fabric_toml_names_file_and_line() {
    let s = Scratch::new("badfabric");
    s.write("configs/leaf1.cfg", "hostname leaf1\n");
    s.write(
        "fabric.toml",
        "[policy]\nmtu = 9000\n[[device]]\nname = \"leaf1\"\nplatfrom = \"nxos\"\n",
    );
    let out = bin().arg("audit").arg(&s.0).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(e.contains("fabric.toml:5"), "{e}");
    assert!(e.contains("platfrom"), "{e}");
}

#[test]
fn empty_and_binary_files_are_parse_findings_not_panics() {
    let s = Scratch::new("garbage");
    s.write("fabric.toml", "[[device]]\nname = \"leaf1\"\nplatform = \"nxos\"\n[[device]]\nname = \"leaf2\"\nplatform = \"eos\"\n[[device]]\nname = \"leaf3\"\nplatform = \"nxos\"\n");
    s.write("configs/leaf1.cfg", "");
    s.write(
        "configs/leaf2.cfg",
        [0u8, 159, 146, 150, 0, 1, 2, 255, 254, 10, 10],
    );
    s.write(
        "configs/leaf3.cfg",
        "interface Ethernet1/1\n  mtu 9216\n\0\0\0garbage\n",
    );
    let (out, v) = audit_json(&s.0, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let parse3 = findings(&v, "PARSE003");
    let devices: Vec<&str> = parse3.iter().filter_map(|f| f["device"].as_str()).collect();
    assert_eq!(devices, vec!["leaf1", "leaf2", "leaf3"], "{v:#}");
    assert!(parse3[0]["message"].as_str().unwrap().contains("empty"));
    assert!(parse3[1]["message"].as_str().unwrap().contains("UTF-8"));
    assert!(parse3[2]["message"].as_str().unwrap().contains("binary"));
    for p in v["parse"].as_array().unwrap() {
        assert_eq!(p["status"], "failed");
    }
}

#[test]
fn unknown_platform_and_unknown_files_are_reported() {
    let s = Scratch::new("unknownplat");
    s.write(
        "configs/mystery.cfg",
        "this is not any vendor's configuration\nat all\n",
    );
    s.write("devices/gpu01/device.toml", "platform = \"linux\"\n");
    s.write("devices/gpu01/notes.txt", "hand-written notes\n");
    let (out, v) = audit_json(&s.0, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let p4 = findings(&v, "PARSE004");
    assert_eq!(p4.len(), 1, "{v:#}");
    assert_eq!(p4[0]["device"], "mystery");
    let p5 = findings(&v, "PARSE005");
    assert!(
        p5.iter()
            .any(|f| f["device"] == "gpu01" && f["source"]["file"] == "devices/gpu01/notes.txt"),
        "{v:#}"
    );
}

#[test]
fn rules_dir_with_a_typo_is_exit_2_with_file_and_line() {
    let s = Scratch::new("badrules");
    s.write("configs/leaf1.cfg", "hostname leaf1\n");
    s.write(
        "rules/extra.toml",
        "[[rule]]\nid = \"MTU901\"\ntitle = \"t\"\nfamily = \"MTU\"\nseverity = \"error\"\nscope = \"interface\"\nplatforms = [\"nxos\"]\ncheck = \"i.mtuu > 0\"\nmessage = \"m\"\n[rule.doc]\nwhat = \"w\"\nwhy = \"w\"\nexample = \"e\"\nfix = \"f\"\n",
    );
    let out = bin()
        .arg("audit")
        .arg(&s.0)
        .arg("--rules")
        .arg(s.0.join("rules"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(e.contains("extra.toml:8") && e.contains("i.mtuu"), "{e}");
}

#[test]
fn explain_and_rules_listing() {
    let out = bin().args(["explain", "PFC001"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let t = String::from_utf8_lossy(&out.stdout);
    for h in [
        "PFC001",
        "What it checks",
        "Why it matters",
        "Example of a bad config",
        "The fix",
        "References",
    ] {
        assert!(t.contains(h), "missing {h}: {t}");
    }
    let out = bin().args(["explain", "NOPE999"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = bin().args(["rules", "--format", "json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    for id in [
        "PFC001", "PFC008", "ECN008", "DSCP008", "MTU005", "BUF004", "WDG004", "SCHED004",
        "HOST001", "HOST008", "TOPO001", "TOPO002", "TOPO003", "PARSE001", "PARSE002",
    ] {
        assert!(ids.contains(&id), "{id} missing from {ids:?}");
    }
}

#[test]
fn truncated_config_is_reported_not_a_panic() {
    // An intended config cut off mid-line, as a failed copy leaves it: the parser reads what is
    // there, and the audit says what is missing instead of passing or crashing.
    let clean =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/clean-fabric/configs/leaf1.cfg");
    let full = std::fs::read_to_string(clean).unwrap();
    let at = full
        .find("service-policy type queuing output ROCE-EGRESS")
        .unwrap();
    let cut = &full[..at + "service-policy type queuing output ROCE-EG".len()];
    let s = Scratch::new("truncated");
    s.write(
        "fabric.toml",
        "[[device]]\nname = \"leaf1\"\nplatform = \"nxos\"\n",
    );
    s.write("configs/leaf1.cfg", cut);
    let (out, v) = audit_json(&s.0, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let parse = &v["parse"][0];
    assert_eq!(parse["status"], "partial", "{v:#}");
    // The cut line and the references to the policies that never got defined are named.
    let p2 = findings(&v, "PARSE002");
    assert_eq!(p2.len(), 1, "{v:#}");
    assert!(
        p2[0]["message"].as_str().unwrap().contains("ROCE-EG "),
        "{}",
        p2[0]["message"]
    );
    let p8 = findings(&v, "PARSE008");
    assert_eq!(p8.len(), 1, "{v:#}");
    // A last line without its line end is named as a possible truncation.
    let s2 = Scratch::new("truncated2");
    s2.write(
        "fabric.toml",
        "[[device]]\nname = \"leaf1\"\nplatform = \"nxos\"\n",
    );
    s2.write(
        "configs/leaf1.cfg",
        &full[..full.find("interface Ethernet1/2").unwrap() + 14],
    );
    let (_, v) = audit_json(&s2.0, &[]);
    let p1 = findings(&v, "PARSE001");
    assert!(
        p1[0]["message"].as_str().unwrap().contains("truncated"),
        "{v:#}"
    );
}

#[test]
fn parsers_dir_overrides_and_bad_parser_is_exit_2() {
    let s = Scratch::new("parsersdir");
    s.write("configs/leaf1.cfg", "hostname leaf1\n");
    s.write("parsers/nxos.toml", "platform = \"nxos\"\nname = \"x\"\n[[command]]\ncmd = \"show run\"\nid = \"run\"\n[[command.record]]\nkind = \"k\"\nregex = '^(unclosed'\n");
    let out = bin()
        .arg("audit")
        .arg(&s.0)
        .arg("--parsers")
        .arg(s.0.join("parsers"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(e.contains("nxos.toml:8") && e.contains("regex"), "{e}");
    // A valid override replaces the embedded platform: `fabric-audit parsers` shows its source.
    s.write("parsers/nxos.toml", "platform = \"nxos\"\nname = \"Custom NX-OS\"\n[[command]]\ncmd = \"show run\"\nid = \"run\"\nconfig = true\n[[command.record]]\nkind = \"hostname\"\nregex = '^hostname (?P<name>\\S+)$'\n");
    let out = bin()
        .arg("parsers")
        .arg("--parsers")
        .arg(s.0.join("parsers"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let t = String::from_utf8_lossy(&out.stdout);
    assert!(t.contains("Custom NX-OS") && t.contains("eos"), "{t}");
}

#[test]
fn nxos_range_written_with_a_space_expands_to_every_port() {
    // `interface Ethernet 1/17-1/32` (space, stem repeated) as a config generator writes it
    // (microsoft/AzureStack_Network_Switch_Config_Generator, std_cisco_nxos_switched): the 16
    // ports exist, and PFC off on them is found on each, e.g. Ethernet1/20.
    let s = Scratch::new("nxos-range-space");
    s.write(
        "fabric.toml",
        // PFC is off on every port and nothing is cabled: `roce_ports` says which ports carry
        // RoCE (otherwise scope comes from lossless settings, and there are none).
        "[[device]]\nname = \"tor1\"\nplatform = \"nxos\"\n\n[policy]\nroce_ports = [\"Ethernet*\"]\n",
    );
    s.write(
        "configs/tor1.cfg",
        "!Command: show running-config\nversion 10.3(4a)\nhostname tor1\n\
         interface Ethernet 1/17-1/32\n  mtu 9216\n  priority-flow-control mode off\n  no shutdown\n\
         interface Ethernet1/40-2/4\n  no shutdown\n",
    );
    let (_, v) = audit_json(&s.0, &[]);
    let pfc = findings(&v, "PFC003");
    let on = |name: &str| {
        pfc.iter().any(|f| {
            f["interface"] == name && f["message"].as_str().unwrap_or("").contains("'off'")
        })
    };
    assert!(on("Ethernet1/20"), "{v:#}");
    assert!(on("Ethernet1/17") && on("Ethernet1/32"), "{v:#}");
    assert!(!on("Ethernet1/33"), "{v:#}");
    // The range whose ends differ before the last number is not expanded, and says so.
    let parse = &v["parse"][0];
    assert_eq!(parse["status"], "partial", "{v:#}");
    let unrec = parse["unrecognized"].as_array().unwrap();
    assert!(
        unrec.iter().any(|u| u["line"] == 8
            && u["text"]
                .as_str()
                .unwrap_or("")
                .starts_with("interface Ethernet1/40-2/4")),
        "{v:#}"
    );
}

#[test]
fn avd_eos_config_without_banner_is_detected_and_read() {
    // AVD's generated configs start with interface blocks and no `! device:` banner
    // (aristanetworks/avd molecule eos_cli_config_gen ethernet-interfaces.cfg): detection
    // recognizes EOS from its interface syntax, and PFC settings are read.
    let s = Scratch::new("avd-nobanner");
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/eos/running-config/avd-no-banner.txt");
    s.write("configs/leaf1.cfg", std::fs::read(fixture).unwrap());
    // Nothing is cabled: `roce_ports` holds every port to the RoCE rules, so the one with
    // `no priority-flow-control` is judged rather than left out of scope.
    s.write("fabric.toml", "[policy]\nroce_ports = [\"Ethernet*\"]\n");
    let (_, v) = audit_json(&s.0, &[]);
    let parse = &v["parse"][0];
    assert_eq!(parse["platform"], "eos", "{v:#}");
    assert_eq!(parse["status"], "passed", "{v:#}");
    let pfc = findings(&v, "PFC003");
    assert!(
        pfc.iter().any(|f| f["interface"] == "Ethernet3"),
        "no priority-flow-control = PFC off on Ethernet3: {v:#}"
    );
    assert!(!pfc.iter().any(|f| f["interface"] == "Ethernet1"), "{v:#}");
}

/// Issue 14 item 7: a `device.toml` written with `exit_status` (the name the snapshot format's
/// description uses) and a key this version does not know is still used: its command mapping
/// names the file, and the unknown key is a PARSE005 warning at its line.
#[test]
fn device_toml_with_exit_status_and_an_unknown_key_is_still_used() {
    let s = Scratch::new("devtoml");
    s.write(
        "devices/gpu01/device.toml",
        "platform = \"linux\"\nrole = \"host\"\n\n[[command]]\ncmd = \"mlnx_qos -i eth2\"\nfile = \"qos-eth2.out\"\nexit_status = 0\nduration_ms = 41\nhost_key = \"ssh-ed25519 AAAA\"\n",
    );
    s.write(
        "devices/gpu01/qos-eth2.out",
        "DCBX mode: OS controlled\nPriority trust state: dscp\nReceive buffer size (bytes): 130944,130944,0,0,0,0,0,0\nCable len: 7\nPFC configuration:\n\tpriority    0   1   2   3   4   5   6   7\n\tenabled     0   0   0   1   0   0   0   0\n\tbuffer      0   0   0   1   0   0   0   0\n",
    );
    let (out, v) = audit_json(&s.0, &[]);
    assert_ne!(out.status.code(), Some(2), "{}", stderr(&out));
    let parse = v["parse"].as_array().cloned().unwrap_or_default();
    let f = parse
        .iter()
        .find(|p| p["file"] == "devices/gpu01/qos-eth2.out")
        .unwrap_or_else(|| panic!("qos-eth2.out not read: {v:#}"));
    assert_eq!(f["command"], "mlnx_qos -i eth2", "{f:#}");
    let p5 = findings(&v, "PARSE005");
    assert!(
        !p5.iter().any(|f| f["message"]
            .as_str()
            .is_some_and(|m| m.contains("ignored:") || m.contains("qos-eth2.out"))),
        "device.toml must not be ignored: {p5:#?}"
    );
    let unknown: Vec<_> = p5
        .iter()
        .filter(|f| {
            f["message"].as_str().is_some_and(|m| {
                m.contains("devices/gpu01/device.toml:9:1") && m.contains("\"host_key\"")
            })
        })
        .collect();
    assert_eq!(unknown.len(), 1, "{p5:#?}");
    assert_eq!(unknown[0]["severity"], "warning");
    assert_eq!(unknown[0]["source"]["line"], 9, "{:#}", unknown[0]);
}

/// Issue 14 item 5: a host given `mlnx_qos` but no DCQCN sysfs output cannot be judged on
/// DCQCN: ECN005 says it could not decide (info), never "DCQCN off" (an error with a fix).
#[test]
fn host_without_dcqcn_sysfs_is_undecided_not_dcqcn_off() {
    let s = Scratch::new("nosysfs");
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/clean-fabric/devices/gpu01");
    for f in [
        "mlnx_qos_-i_eth2.txt",
        "rdma_link_show_-j.txt",
        "ip_-d_-j_link_show.txt",
    ] {
        s.write(
            &format!("devices/gpu01/{f}"),
            std::fs::read(base.join(f)).unwrap(),
        );
    }
    s.write("devices/gpu01/device.toml", "platform = \"linux\"\n");
    let (out, v) = audit_json(&s.0, &[]);
    assert_ne!(out.status.code(), Some(2), "{}", stderr(&out));
    let ecn5 = findings(&v, "ECN005");
    assert!(
        !ecn5.is_empty(),
        "ECN005 must say it could not decide: {v:#}"
    );
    for f in ecn5 {
        assert_eq!(f["severity"], "info", "{f:#}");
        // It names the missing field, and that it was not collected (not that DCQCN is off).
        assert!(
            f["evidence"]["missing_fields"]
                .as_array()
                .is_some_and(|m| m.iter().any(|x| x == "interfaces[].rdma.np_enable")),
            "{f:#}"
        );
        assert!(
            f["message"]
                .as_str()
                .unwrap_or("")
                .contains("not collected"),
            "{f:#}"
        );
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let (p, t) = (e.path(), to.join(e.file_name()));
        if p.is_dir() {
            copy_tree(&p, &t);
        } else {
            std::fs::copy(&p, &t).unwrap();
        }
    }
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

/// Issue 15 item 2: the host's LLDP names the switch port in its short form (`Eth1/1`) and the
/// switch's LLDP names the host's port by its MAC address (port id subtype MAC, as NIC agents
/// and many lldpd setups send): both are matched against the other end's own tables, the link
/// is found, and neither TOPO001 (one side only) nor TOPO003 (plan disagrees) fires.
#[test]
fn lldp_short_name_and_mac_port_ids_find_the_planned_link() {
    let s = Scratch::new("lldp-mac");
    copy_tree(&fixture("clean-fabric"), &s.0);
    let lldp = s.0.join("devices/gpu01/lldpctl_-f_json.txt");
    let text = std::fs::read_to_string(&lldp).unwrap();
    let long = "\"value\": \"Ethernet1/1\"\n            },\n            \"descr\": \"eth2 uplink\"";
    assert!(text.contains(long), "fixture changed: {lldp:?}");
    std::fs::write(
        &lldp,
        text.replace(long, &long.replace("Ethernet1/1", "Eth1/1")),
    )
    .unwrap();
    // gpu01 eth2 is b8:3f:d2:01:10:04 in its `ip -d -j link show`; NX-OS prints it dotted.
    s.write(
        "devices/leaf1/show_lldp_neighbors.txt",
        "Capability codes:\n  (R) Router, (B) Bridge, (T) Telephone, (C) DOCSIS Cable Device\n  \
         (W) WLAN Access Point, (P) Repeater, (S) Station, (O) Other\n\
         Device ID            Local Intf      Hold-time  Capability  Port ID  \n\
         gpu01                Eth1/1          120        S           b83f.d201.1004\n\
         gpu02                Eth1/2          120        S           eth2\n\
         gpu03                Eth1/3          120        S           eth2\n\
         gpu04                Eth1/4          120        S           eth2\n\
         spine1               Eth1/49         112        BR          Ethernet1/1\n\
         spine2               Eth1/50         96         BR          Ethernet1/1\n\
         \nTotal entries displayed: 6\n",
    );
    let (out, v) = audit_json(&s.0, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    for rule in ["TOPO001", "TOPO003"] {
        assert!(
            findings(&v, rule).is_empty(),
            "{rule}: {:#?}",
            findings(&v, rule)
        );
    }
    let model = bin()
        .arg("audit")
        .arg(&s.0)
        .args(["--format", "model"])
        .output()
        .unwrap();
    let m: serde_json::Value = serde_json::from_slice(&model.stdout).unwrap();
    let port = |dev: &str, name: &str| -> serde_json::Value {
        m["devices"]
            .as_array()
            .and_then(|ds| ds.iter().find(|d| d["name"] == dev))
            .and_then(|d| d["interfaces"].as_array())
            .and_then(|is| is.iter().find(|i| i["name"] == name))
            .cloned()
            .unwrap_or_default()
    };
    let leaf = port("leaf1", "Ethernet1/1");
    assert_eq!(leaf["lldp_peer"], "gpu01:eth2", "{leaf:#}");
    assert_eq!(leaf["lldp_matched_by"], "mac");
    let host = port("gpu01", "eth2");
    assert_eq!(host["lldp_peer"], "leaf1:Ethernet1/1");
    assert_eq!(host["lldp_matched_by"], "short-name");
    let link = m["links"]
        .as_array()
        .and_then(|ls| {
            ls.iter()
                .find(|l| l["a"]["device"] == "gpu01" && l["a"]["interface"] == "eth2")
        })
        .cloned()
        .unwrap_or_default();
    assert_eq!(link["source"], "both", "{link:#}");
    assert_eq!(link["one_sided"], false);
    let methods: Vec<&str> = link["matched_by"]
        .as_array()
        .map(|a| a.iter().filter_map(|x| x["method"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(methods.len(), 2, "{link:#}");
    assert!(methods.contains(&"mac") && methods.contains(&"short-name"));
}

/// Issue 15 item 8: one NX-OS switch config, no fabric.toml links, no LLDP, 48 ports up of
/// which 4 enable PFC: only those 4 are audited as RoCE (the fixture leaves `mtu` off
/// Ethernet1/4 and on none of the other 44, so MTU findings show which ports were audited),
/// and TOPO006 says how scope was decided. With `[policy] roce_ports` the globs decide.
#[test]
fn single_switch_scope_follows_pfc_then_roce_ports() {
    let snap = fixture("scope-single-switch");
    let (out, v) = audit_json(&snap, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let pfc_ports = ["Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/4"];
    let on_ports: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["interface"].as_str())
        .collect();
    assert!(!on_ports.is_empty(), "{v:#}");
    assert!(
        on_ports.iter().all(|p| pfc_ports.contains(p)),
        "{on_ports:?}"
    );
    assert!(on_ports.contains(&"Ethernet1/4"), "{on_ports:?}");
    let scope = findings(&v, "TOPO006");
    assert_eq!(scope.len(), 1, "{scope:#?}");
    let msg = scope[0]["message"].as_str().unwrap_or("");
    assert!(
        msg.contains("4 up port(s) with PFC enabled on priority 3")
            && msg.contains("44 up port(s) without PFC not audited"),
        "{msg}"
    );
    assert_eq!(scope[0]["severity"], "info");

    // The same switch with roce_ports = ["Ethernet1/1*"]: Ethernet1/1 and 1/10-1/19.
    let s = Scratch::new("scope-globs");
    copy_tree(&snap, &s.0);
    s.write("fabric.toml", "[policy]\nroce_ports = [\"Ethernet1/1*\"]\n");
    let (out, v) = audit_json(&s.0, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let globbed = |p: &str| p == "Ethernet1/1" || (p.starts_with("Ethernet1/1") && p.len() == 12);
    let on_ports: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["interface"].as_str())
        .collect();
    assert!(on_ports.iter().all(|p| globbed(p)), "{on_ports:?}");
    for p in 10..20 {
        let name = format!("Ethernet1/{p}");
        assert!(
            on_ports.contains(&name.as_str()),
            "{name} not audited: {on_ports:?}"
        );
    }
    assert!(!on_ports.contains(&"Ethernet1/4"), "{on_ports:?}");
    let scope = findings(&v, "TOPO006");
    let msg = scope
        .first()
        .and_then(|f| f["message"].as_str())
        .unwrap_or("");
    assert!(
        msg.contains("11 up port(s) match the [policy] roce_ports globs (Ethernet1/1*)")
            && msg.contains("37 up port(s) not audited"),
        "{msg}"
    );
}
