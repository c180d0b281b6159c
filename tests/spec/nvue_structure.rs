//! NVUE revisions are read as structure (src/parser/yaml.rs, format `yaml-lines`): any layout
//! YAML allows gives the same facts, the JSON form reports what it does not know with its line,
//! and a cut JSON file is read up to the cut (fixtures/cumulus/nv-config-show/README.md cites
//! where each shape was seen).

use fabric_audit::device::build_device;
use fabric_audit::snapshot::DeviceInput;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/cumulus")
        .join(rel)
}

/// The device model read from one fixture as command `cid`, without where facts were read.
fn facts(cid: &str, rel: &str) -> Value {
    let parsers = fabric_audit::load_parsers(None).unwrap();
    let cmd = parsers
        .platform("cumulus")
        .unwrap()
        .command_by_id(cid)
        .unwrap();
    let text = fabric_audit::parser::decode(std::fs::read(fixture(rel)).unwrap());
    let input = DeviceInput::one_file("dut", "cumulus", "devices/dut/f.txt", &cmd.cmd, text);
    let (dev, _) = build_device(&parsers, &input);
    let mut v = serde_json::to_value(&dev).unwrap();
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                for k in ["src", "defined_at", "parse"] {
                    m.remove(k);
                }
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

/// `audit --format model` of a snapshot holding one config file; the device and its parse.
fn audit_model(tag: &str, name: &str, rel: &str) -> (Value, Value) {
    let snap = crate::common::scratch("nvue", tag);
    std::fs::create_dir_all(snap.join("configs")).unwrap();
    std::fs::copy(fixture(rel), snap.join("configs").join(name)).unwrap();
    let out = crate::common::fa(&["audit", snap.to_str().unwrap(), "--format", "model"]);
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let _ = std::fs::remove_dir_all(&snap);
    let dev = v["devices"][0].clone();
    let parse = dev["parse"][0].clone();
    (dev, parse)
}

fn iface<'a>(dev: &'a Value, name: &str) -> &'a Value {
    dev["interfaces"]
        .as_array()
        .and_then(|a| a.iter().find(|i| i["name"] == name))
        .unwrap_or_else(|| panic!("no interface {name} in {dev}"))
}

#[test]
fn flow_mappings_give_the_facts_of_the_block_layout() {
    let block = facts("nv-config-show", "nv-config-show/roce-leaf-bond.txt");
    let flow = facts("nv-config-show", "nv-config-show/flow-maps.txt");
    assert_eq!(block, flow);
    assert!(flow["interfaces"].as_array().is_some_and(|a| a.len() == 8));
}

#[test]
fn netlab_patch_shape_is_read_whole_with_lines() {
    let (dev, parse) = audit_model(
        "netlab",
        "leaf07.yaml",
        "nv-config-show/netlab-patch-shape.txt",
    );
    assert_eq!(parse["platform"], "cumulus", "{parse}");
    assert_eq!(parse["status"], "passed", "{parse}");
    // `down : {}` (space before the colon) on line 33 shuts swp2.
    let swp2 = iface(&dev, "swp2");
    assert_eq!(swp2["admin_up"]["value"], false, "{swp2}");
    assert_eq!(swp2["admin_up"]["line"], 33, "{swp2}");
    assert_eq!(swp2["mtu"]["value"], 1500);
    assert_eq!(swp2["mtu"]["line"], 31);
    // the second `- set:` item adds lo
    assert!(
        dev["interfaces"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["name"] == "lo")
    );
}

#[test]
fn nvue_json_reports_unknown_keys_at_their_line() {
    let (dev, parse) = audit_model(
        "unwrapped",
        "leaf09.json",
        "nv-config-show-json/unwrapped-rev-applied.txt",
    );
    assert_eq!(parse["status"], "partial", "{parse}");
    let lines: Vec<u64> = parse["unrecognized"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|u| u["line"].as_u64())
        .collect();
    assert_eq!(lines, vec![11, 11], "{parse}");
    let swp1 = iface(&dev, "swp1");
    assert_eq!(swp1["mtu"]["value"], 9216);
    assert_eq!(swp1["mtu"]["line"], 4);
    assert_eq!(swp1["watchdog"]["enabled"]["value"], true, "{swp1}");
}

#[test]
fn a_cut_nvue_json_is_read_up_to_the_cut() {
    let (dev, parse) = audit_model("cut", "leaf04.json", "nv-config-show-json/cut-transfer.txt");
    assert_eq!(parse["status"], "partial", "{parse}");
    let err = parse["error"].as_str().unwrap_or_default();
    assert!(err.contains("ends early at line 40"), "{parse}");
    let swp1 = iface(&dev, "swp1");
    assert_eq!(swp1["mtu"]["value"], 9100, "{swp1}");
    assert_eq!(swp1["mtu"]["default"], false, "{swp1}");
}
