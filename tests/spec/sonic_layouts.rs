//! SONiC CONFIG_DB in every layout real files come in (fixtures/sonic/config-db-json/README.md
//! cites where each was seen) gives one device model: the layout is how the file was written,
//! never what the switch does. A truncated file is read up to the cut and says where it stops.

use fabric_audit::device::build_device;
use fabric_audit::snapshot::DeviceInput;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/sonic")
        .join(rel)
}

/// The device model read from one file as command `cid`.
fn model(cid: &str, rel: &str) -> Value {
    let parsers = fabric_audit::load_parsers(None).unwrap();
    let cmd = parsers
        .platform("sonic")
        .unwrap()
        .command_by_id(cid)
        .unwrap();
    let text = fabric_audit::parser::decode(std::fs::read(fixture(rel)).unwrap());
    let input = DeviceInput::one_file("dut", "sonic", "devices/dut/f.json", &cmd.cmd, text);
    let (dev, unknown) = build_device(&parsers, &input);
    assert!(unknown.is_empty(), "{unknown:?}");
    serde_json::to_value(&dev).unwrap()
}

/// The model without where its facts were read (lines differ between layouts).
fn facts(mut v: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.remove("src");
                m.remove("defined_at");
                m.remove("parse");
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

fn status(v: &Value) -> (&str, usize) {
    let p = &v["parse"][0];
    (
        p["status"].as_str().unwrap_or(""),
        p["unrecognized"].as_array().map_or(0, Vec::len),
    )
}

#[test]
fn every_layout_gives_the_same_model() {
    let base = model("config-db-json", "config-db-json/plain-leaf.txt");
    assert_eq!(status(&base), ("passed", 0));
    let want = facts(base);
    // The base must carry the facts the layouts are compared on.
    let ifs = want["interfaces"].as_array().unwrap();
    let e0 = ifs.iter().find(|i| i["name"] == "Ethernet0").unwrap();
    assert_eq!(e0["mtu"], 9100, "{e0}");
    assert_eq!(e0["pfc"]["priorities"], serde_json::json!([3, 4]), "{e0}");
    for (cid, rel) in [
        ("config-db-json", "config-db-json/layout-cfggen-spaced.txt"),
        ("config-db-json", "config-db-json/layout-compact.txt"),
        ("config-db-json", "config-db-json/layout-tabs.txt"),
        ("config-db-json", "config-db-json/layout-yang.txt"),
        ("config-db-flat", "config-db-flat/layout-flat.txt"),
        (
            "config-db-redis-dump",
            "config-db-redis-dump/layout-redis-dump.txt",
        ),
    ] {
        let got = model(cid, rel);
        assert_eq!(status(&got), ("passed", 0), "{rel}: {}", got["parse"]);
        let got = facts(got);
        assert!(
            got == want,
            "{rel}: model differs from plain-leaf.txt:\n{got:#}"
        );
    }
}

#[test]
fn a_cut_file_is_partial_and_names_the_line() {
    let rel = "config-db-json/layout-truncated.txt";
    let text = std::fs::read_to_string(fixture(rel)).unwrap();
    let last = text.lines().count() as u64;
    let got = model("config-db-json", rel);
    let p = &got["parse"][0];
    assert_eq!(p["status"], "partial", "{p}");
    let u = p["unrecognized"].as_array().unwrap();
    assert_eq!(u.len(), 1, "{p}");
    assert_eq!(u[0]["line"], last);
    assert!(
        u[0]["text"].as_str().unwrap().contains("JSON ends early"),
        "{p}"
    );
    // What comes before the cut is read: the ports and their MTU.
    let e0 = got["interfaces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "Ethernet0")
        .unwrap();
    assert_eq!(e0["mtu"], 9100, "{e0}");
}

/// CLI end to end: a sonic-cfggen-rendered config (spaces before the colon) and its re-saved
/// compact form audit to the same findings (the cited lines aside).
#[test]
fn cfggen_layout_and_its_compact_resave_audit_identically() {
    let root = std::env::temp_dir().join(format!("fa-sonic-layouts-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let mut outs = Vec::new();
    for (tag, rel) in [
        ("spaced", "config-db-json/layout-cfggen-spaced.txt"),
        ("compact", "config-db-json/layout-compact.txt"),
    ] {
        let snap = root.join(tag);
        std::fs::create_dir_all(snap.join("configs")).unwrap();
        std::fs::copy(fixture(rel), snap.join("configs/leaf1.json")).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_fabric-audit"))
            .args(["audit", snap.to_str().unwrap(), "--format", "json"])
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{tag}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
        let parse = &v["parse"][0];
        assert_eq!(parse["platform"], "sonic", "{tag}: {parse}");
        assert_eq!(parse["status"], "passed", "{tag}: {parse}");
        let mut findings: Vec<String> = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                let mut f = f.clone();
                for k in ["line", "src", "source", "location", "evidence"] {
                    if let Some(m) = f.as_object_mut() {
                        m.remove(k);
                    }
                }
                // Detection evidence cites lines ("(line 47)"): keep the words only.
                let t = f.to_string();
                t.split("(line ")
                    .map(|part| part.trim_start_matches(|c: char| c.is_ascii_digit() || c == ')'))
                    .collect::<Vec<_>>()
                    .join("(line)")
            })
            .collect();
        findings.sort();
        assert!(
            !findings.is_empty(),
            "{tag}: the leaf has findings to compare"
        );
        outs.push(findings);
    }
    let _ = std::fs::remove_dir_all(&root);
    for (a, b) in outs[0].iter().zip(&outs[1]) {
        assert_eq!(a, b);
    }
    assert_eq!(outs[0].len(), outs[1].len());
}
