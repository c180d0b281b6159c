//! Interface ranges in every vendor syntax (issue 14, "nothing dropped silently"): each form a
//! reader knows expands to its ports, with the block's statements on every one; a range it
//! cannot expand (backwards, or not a range of ports at all) is an unrecognized line of its
//! file, with the line number, and its statements go to no port.

use serde_json::Value;
use std::path::{Path, PathBuf};

/// (device, platform, config file name, config text)
const CONFIGS: &[(&str, &str, &str, &str)] = &[
    (
        "nx",
        "nxos",
        "nx.txt",
        "hostname nx\nfeature lldp\ninterface Ethernet1/1-4\n  mtu 9216\ninterface Ethernet 1/17-1/20\n  mtu 9216\ninterface Ethernet1/9-7\n  mtu 9000\n",
    ),
    (
        "eos",
        "eos",
        "eos.txt",
        "hostname eos\ninterface Ethernet1/1-4\n   mtu 9214\ninterface Ethernet5-6\n   mtu 9214\ninterface Ethernet9-7\n   mtu 9000\n",
    ),
    (
        "cl",
        "cumulus",
        "cl.yaml",
        "- set:\n    interface:\n      swp1-32:\n        link:\n          mtu: 9216\n        type: swp\n      swp40-33:\n        link:\n          mtu: 9000\n        type: swp\n    system:\n      hostname: cl\n",
    ),
    (
        "jn",
        "junos",
        "jn.txt",
        "set system host-name jn\nset interfaces interface-range R1 member et-0/0/[0-7]\nset interfaces interface-range R1 mtu 9216\nset interfaces interface-range R2 member et-0/0/[7-3]\nset interfaces interface-range R2 mtu 9000\n",
    ),
    (
        "os10",
        "os10",
        "os10.txt",
        "hostname os10\ninterface range ethernet1/1/1-1/1/4\n mtu 9216\n no shutdown\n!\ninterface ethernet1/1/8\n mtu 9216\n!\ninterface range ethernet1/1/9-1/1/7\n mtu 9000\n",
    ),
    (
        "sonic",
        "sonic",
        "sonic.json",
        "{\n    \"PORT\": {\n        \"Ethernet0\": {\"mtu\": \"9100\", \"admin_status\": \"up\"}\n    },\n    \"PORT_QOS_MAP\": {\n        \"Ethernet0-124\": {\"pfc_enable\": \"3\"}\n    }\n}\n",
    ),
];

fn snapshot() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fa-ranges-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("configs")).unwrap();
    let mut plan = String::new();
    for (dev, platform, file, text) in CONFIGS {
        std::fs::write(dir.join("configs").join(file), text).unwrap();
        plan.push_str(&format!(
            "[[device]]\nname = \"{dev}\"\nplatform = \"{platform}\"\n\n"
        ));
    }
    std::fs::write(dir.join("fabric.toml"), plan).unwrap();
    dir
}

fn audit(dir: &Path, format: &str) -> Value {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fabric-audit"))
        .args(["audit", dir.to_str().unwrap(), "--format", format])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
}

#[test]
fn every_range_syntax_expands_or_is_reported_with_its_line() {
    let dir = snapshot();
    let model = audit(&dir, "model");
    let report = audit(&dir, "json");
    let _ = std::fs::remove_dir_all(&dir);
    let ports = |dev: &str| -> Vec<(String, Option<u64>)> {
        model["devices"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["name"] == dev)
            .unwrap_or_else(|| panic!("{dev} not in the model"))["interfaces"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                (
                    i["name"].as_str().unwrap().to_string(),
                    i["mtu_raw"]["value"].as_u64(),
                )
            })
            .collect()
    };
    let names = |dev: &str| -> Vec<String> { ports(dev).into_iter().map(|p| p.0).collect() };
    let n = |v: std::ops::RangeInclusive<u32>, f: &dyn Fn(u32) -> String| -> Vec<String> {
        v.map(f).collect()
    };
    // expanded, the block's MTU on every port; nothing from the unexpandable block
    let mut want = n(1..=4, &|k| format!("Ethernet1/{k}"));
    want.extend(n(17..=20, &|k| format!("Ethernet1/{k}")));
    assert_eq!(names("nx"), want);
    let mut want = n(1..=4, &|k| format!("Ethernet1/{k}"));
    want.extend(n(5..=6, &|k| format!("Ethernet{k}")));
    assert_eq!(names("eos"), want);
    assert_eq!(names("cl"), n(1..=32, &|k| format!("swp{k}")));
    assert_eq!(names("jn"), n(0..=7, &|k| format!("et-0/0/{k}")));
    let mut want = n(1..=4, &|k| format!("ethernet1/1/{k}"));
    want.push("ethernet1/1/8".into());
    assert_eq!(names("os10"), want);
    // a range is not a SONiC port
    assert_eq!(names("sonic"), vec!["Ethernet0".to_string()]);
    for dev in ["nx", "eos", "cl", "jn", "os10"] {
        for (name, mtu) in ports(dev) {
            assert!(
                mtu.is_some_and(|m| m != 9000),
                "{dev}:{name} mtu {mtu:?}: the unexpandable block's statements leaked"
            );
        }
    }
    // the unexpandable ones: an unrecognized line each, the file partial
    let expect = [
        ("nx", 7),
        ("eos", 6),
        ("cl", 7),
        ("jn", 4),
        ("os10", 9),
        ("sonic", 6),
    ];
    for (dev, line) in expect {
        let p = report["parse"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["device"] == dev)
            .unwrap_or_else(|| panic!("{dev} has no parse entry"));
        assert_eq!(p["status"], "partial", "{dev}: {p}");
        let lines: Vec<u64> = p["unrecognized"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|u| u["line"].as_u64())
            .collect();
        assert_eq!(lines, vec![line], "{dev}: {p}");
    }
}
