//! `collect --shard K/N` end to end against emulated devices on 127.0.0.1: every device is
//! collected by exactly one shard, each shard's folder is an ordinary snapshot whose journal
//! says which shard it is, and the shards audited together report what the unsharded
//! collection reports, byte for byte.

use crate::collect_emulated::{Lab, serve_fabric, stderr};
use fabric_audit::collect::shard::shard_of;
use std::path::{Path, PathBuf};

const N: u32 = 3;

fn collect(lab: &Lab, invf: &Path, out: &Path, shard: Option<&str>) -> std::process::Output {
    let mut args = vec![
        "collect",
        "--inventory",
        invf.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--ssh-config",
        "none",
        "--quiet",
    ];
    if let Some(s) = shard {
        args.extend(["--shard", s]);
    }
    lab.run(&args, &[])
}

fn journal(snap: &Path) -> toml::Table {
    toml::from_str(&std::fs::read_to_string(snap.join("collection.toml")).unwrap()).unwrap()
}

fn audit_json(lab: &Lab, folders: &[PathBuf]) -> Vec<u8> {
    let mut args = vec!["audit", "--format", "json", "--no-config"];
    args.extend(folders.iter().map(|p| p.to_str().unwrap()));
    let out = lab.run(&args, &[]);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{args:?}: {}",
        stderr(&out)
    );
    out.stdout
}

#[test]
fn shards_collected_over_ssh_audit_as_the_whole_collection() {
    let lab = Lab::new("shard");
    let demo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo-fabric");
    let (invf, names) = serve_fabric(&lab, &demo, "demo", |_, _| None);
    let whole = lab.dir.join("whole");
    let out = collect(&lab, &invf, &whole, None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut shards = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for k in 1..=N {
        let dir = lab.dir.join(format!("shard-{k}"));
        let out = collect(&lab, &invf, &dir, Some(&format!("{k}/{N}")));
        assert_eq!(out.status.code(), Some(0), "shard {k}: {}", stderr(&out));
        let j = journal(&dir);
        assert_eq!(j["shard"]["index"].as_integer(), Some(i64::from(k)));
        assert_eq!(j["shard"]["count"].as_integer(), Some(i64::from(N)));
        assert_eq!(j["state"].as_str(), Some("finished"));
        for d in j["device"].as_array().unwrap() {
            let name = d["name"].as_str().unwrap().to_string();
            assert_eq!(shard_of(&name, N), k, "{name} collected by shard {k}");
            assert_eq!(d["status"].as_str(), Some("collected"), "{name}");
            assert!(dir.join("devices").join(&name).is_dir(), "{name}");
            seen.push(name);
        }
        // Every shard plans the whole fabric, as the unsharded collection does.
        assert_eq!(
            std::fs::read(dir.join("fabric.toml")).unwrap(),
            std::fs::read(whole.join("fabric.toml")).unwrap(),
            "shard {k}'s fabric.toml"
        );
        shards.push(dir);
    }
    seen.sort();
    assert_eq!(seen, names, "every device in exactly one shard");
    let want = audit_json(&lab, std::slice::from_ref(&whole));
    assert!(want.len() > 1000);
    // In any order of the folders.
    let mut reversed = shards.clone();
    reversed.reverse();
    for folders in [&shards, &reversed] {
        assert!(
            audit_json(&lab, folders) == want,
            "the {N} shards audited together report differently from the whole collection"
        );
    }
    // `merge` writes the shards as one snapshot: one journal of every device, no shard.
    let merged = lab.dir.join("merged");
    let mut args = vec!["merge", "--out", merged.to_str().unwrap()];
    args.extend(shards.iter().map(|s| s.to_str().unwrap()));
    let out = lab.run(&args, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let j = journal(&merged);
    assert!(j.get("shard").is_none());
    let mut listed: Vec<String> = j["device"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap().to_string())
        .collect();
    listed.sort();
    assert_eq!(listed, names);
    assert!(
        audit_json(&lab, &[merged]) == want,
        "the merged shards report differently"
    );
    // A missing shard is refused, not audited as if its devices were never collected.
    let out = lab.run(
        &[
            "audit",
            "--no-config",
            shards[0].to_str().unwrap(),
            shards[1].to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("shard 3/{N}")),
        "{}",
        stderr(&out)
    );
}

#[test]
fn invalid_shards_are_refused_before_connecting() {
    let lab = Lab::new("shard-bad");
    // No device is served: a refused --shard must stop before any connection.
    let invf = lab.write(
        "inventory.toml",
        "[[device]]\nname = \"leaf1\"\naddress = \"127.0.0.1\"\nport = 9\nplatform = \"nxos\"\n",
    );
    for bad in ["0/4", "5/4", "3/0", "a/b", "2"] {
        let out = collect(&lab, &invf, &lab.dir.join("out"), Some(bad));
        assert_eq!(
            out.status.code(),
            Some(2),
            "--shard {bad}: {}",
            stderr(&out)
        );
        let err = stderr(&out);
        assert!(
            err.contains("--shard") && err.contains("K/N"),
            "--shard {bad}: {err}"
        );
        assert!(
            !lab.dir.join("out").exists(),
            "--shard {bad} wrote a snapshot"
        );
    }
    // A shard that holds no device writes an empty snapshot and succeeds (a CI matrix with
    // more shards than devices).
    let empty = (1..=8).find(|&k| shard_of("leaf1", 8) != k).unwrap();
    let out = collect(
        &lab,
        &invf,
        &lab.dir.join("empty"),
        Some(&format!("{empty}/8")),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        journal(&lab.dir.join("empty"))["device"]
            .as_array()
            .is_none_or(|a| a.is_empty())
    );
}
