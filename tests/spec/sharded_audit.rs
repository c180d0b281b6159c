//! Issue 16 item 3: several snapshot folders audited as one fabric (`audit DIR1 DIR2 ...`).
//! Every bundled fabric, split into shards by `collect --shard`'s own function, audits to the
//! same JSON report, byte for byte, as the folder that holds it all; folders that disagree on
//! a shared file, or share a device, are refused with both places named.

use crate::common::{copy_tree, fa, fixtures, scratch};
use fabric_audit::collect::shard::shard_of;
use std::path::{Path, PathBuf};

/// Copy `fabric` into `n` shard folders under `dir`: each device's config file and folder to
/// the shard `collect --shard K/n` gives its name; the top-level files to the folders `tops`
/// says (shard indexes, from 1).
fn split(fabric: &Path, dir: &Path, n: u32, tops: &[u32]) -> Vec<PathBuf> {
    let shards: Vec<PathBuf> = (1..=n).map(|k| dir.join(format!("shard-{k}"))).collect();
    for s in &shards {
        std::fs::create_dir_all(s.join("configs")).unwrap();
        std::fs::create_dir_all(s.join("devices")).unwrap();
    }
    for e in std::fs::read_dir(fabric).unwrap().flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_file() {
            for &k in tops {
                std::fs::copy(&p, shards[k as usize - 1].join(&name)).unwrap();
            }
            continue;
        }
        for d in std::fs::read_dir(&p).unwrap().flatten() {
            let q = d.path();
            let device = q.file_stem().unwrap().to_string_lossy().into_owned();
            let to = shards[shard_of(&device, n) as usize - 1]
                .join(&name)
                .join(d.file_name());
            if q.is_dir() {
                copy_tree(&q, &to);
            } else {
                std::fs::copy(&q, &to).unwrap();
            }
        }
    }
    shards
}

fn audit_json(folders: &[&Path]) -> String {
    let mut args = vec!["audit", "--format", "json", "--no-config"];
    args.extend(folders.iter().map(|p| p.to_str().unwrap()));
    let out = fa(&args);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

const FABRICS: &[&str] = &[
    "demo-fabric",
    "demo-mixed-fabric",
    "demo-jvd-ai-fabric",
    "jvd-ai-fabric",
    "clean-fabric",
    "clean-mixed-fabric",
    "scope-single-switch",
];

#[test]
fn shards_audited_together_report_what_the_whole_folder_reports() {
    let tmp = scratch("sharded", "same");
    for name in FABRICS {
        let whole = fixtures().join(name);
        let want = audit_json(&[&whole]);
        // fabric.toml in every shard (as collect --shard writes it), and (for one fabric, to
        // keep the test short) in one shard only.
        let placements: &[(&str, &[u32])] = if *name == "demo-fabric" {
            &[("every", &[1, 2, 3]), ("one", &[2])]
        } else {
            &[("every", &[1, 2, 3])]
        };
        for &(tag, tops) in placements {
            let dir = tmp.join(format!("{name}-{tag}"));
            let shards = split(&whole, &dir, 3, tops);
            let held: usize = shards
                .iter()
                .map(|s| std::fs::read_dir(s.join("devices")).unwrap().count())
                .filter(|&c| c > 0)
                .count();
            let refs: Vec<&Path> = shards.iter().map(PathBuf::as_path).collect();
            let got = audit_json(&refs);
            assert!(
                got == want,
                "{name} in 3 shards ({tag} with fabric.toml; {held} with devices) reports \
                 differently from the whole folder"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn ci_paths_name_the_folder_that_holds_each_file() {
    let tmp = scratch("sharded", "paths");
    let shards = split(&fixtures().join("demo-fabric"), &tmp, 3, &[1, 2, 3]);
    let out = fa(&[
        "audit",
        "--format",
        "github",
        "--no-config",
        shards[0].to_str().unwrap(),
        shards[1].to_str().unwrap(),
        shards[2].to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    let files: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split("file=").nth(1))
        .filter_map(|r| r.split([',', ':']).next())
        .collect();
    assert!(files.len() > 5, "{text}");
    for f in files {
        assert!(Path::new(f).is_file(), "{f} is named but is not there");
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

fn refused(folders: &[&Path]) -> String {
    let mut args = vec!["audit", "--no-config"];
    args.extend(folders.iter().map(|p| p.to_str().unwrap()));
    let out = fa(&args);
    assert_eq!(out.status.code(), Some(2), "{args:?} was not refused");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn folders_that_disagree_on_fabric_toml_are_refused_naming_both() {
    let tmp = scratch("sharded", "disagree");
    let shards = split(&fixtures().join("demo-fabric"), &tmp, 2, &[1, 2]);
    let f2 = shards[1].join("fabric.toml");
    // A comment changes nothing a fabric.toml says: still one fabric.
    let text = std::fs::read_to_string(&f2).unwrap();
    std::fs::write(&f2, format!("# collected elsewhere\n{text}")).unwrap();
    let (a, b) = (shards[0].as_path(), shards[1].as_path());
    let out = fa(&[
        "audit",
        "--no-config",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
    // A different cabling plan is another fabric.
    std::fs::write(&f2, text.replacen("[[link]]", "[[link]]\ncable_m = 3.0", 1)).unwrap();
    let err = refused(&[a, b]);
    let f1 = shards[0].join("fabric.toml");
    assert!(
        err.contains(&*f1.to_string_lossy()) && err.contains(&*f2.to_string_lossy()),
        "{err}"
    );
    assert!(err.contains("differ"), "{err}");
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn a_device_in_two_folders_is_refused_naming_both() {
    let tmp = scratch("sharded", "twice");
    let shards = split(&fixtures().join("demo-fabric"), &tmp, 2, &[1]);
    // leaf1's config also in the other shard's configs/.
    let owner = shard_of("leaf1", 2) as usize - 1;
    let other = 1 - owner;
    let cfg = std::fs::read_dir(shards[owner].join("configs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.file_stem().is_some_and(|s| s == "leaf1"))
        .unwrap();
    let copy = shards[other].join("configs").join(cfg.file_name().unwrap());
    std::fs::copy(&cfg, &copy).unwrap();
    let err = refused(&[&shards[0], &shards[1]]);
    assert!(
        err.contains("device leaf1 is in two snapshot folders"),
        "{err}"
    );
    assert!(
        err.contains(&*cfg.to_string_lossy()) && err.contains(&*copy.to_string_lossy()),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Write a journal saying the folder is shard `k` of `n`.
fn journal(dir: &Path, k: u32, n: u32) {
    std::fs::write(
        dir.join("collection.toml"),
        format!(
            "tool = \"fabric-audit\"\ninventory = \"inv.toml\"\nstarted_at = \"2026-12-01T00:00:00Z\"\n\
             state = \"finished\"\n\n[shard]\nindex = {k}\ncount = {n}\n"
        ),
    )
    .unwrap();
}

#[test]
fn shards_of_a_split_must_all_be_there_once() {
    let tmp = scratch("sharded", "journal");
    let shards = split(&fixtures().join("clean-fabric"), &tmp, 3, &[1, 2, 3]);
    for (i, s) in shards.iter().enumerate() {
        journal(s, i as u32 + 1, 3);
    }
    let all: Vec<&Path> = shards.iter().map(PathBuf::as_path).collect();
    let out = fa(&[
        "audit",
        "--no-config",
        all[0].to_str().unwrap(),
        all[1].to_str().unwrap(),
        all[2].to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = refused(&all[..2]);
    assert!(
        err.contains("shard 3/3") && err.contains("missing"),
        "{err}"
    );
    // One shard alone of several is not the fabric either.
    let err = refused(&all[..1]);
    assert!(
        err.contains("shards 2/3, 3/3") && err.contains("missing"),
        "{err}"
    );
    journal(&shards[2], 2, 3);
    let err = refused(&all);
    assert!(err.contains("are both shard 2/3"), "{err}");
    journal(&shards[2], 3, 4);
    let err = refused(&all);
    assert!(err.contains("different splits"), "{err}");
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn merged_shards_are_the_whole_folder() {
    let tmp = scratch("sharded", "merge");
    let whole = fixtures().join("demo-mixed-fabric");
    let shards = split(&whole, &tmp, 3, &[1, 2, 3]);
    let merged = tmp.join("merged");
    let mut args = vec!["merge", "--out", merged.to_str().unwrap()];
    args.extend(shards.iter().map(|s| s.to_str().unwrap()));
    let out = fa(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(audit_json(&[&merged]) == audit_json(&[&whole]));
    // Never over an earlier folder.
    let out = fa(&args);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not empty"));
    // Refused as the audit refuses: a device in two folders names both, nothing written.
    let leaf = shard_of("leaf1", 3) as usize - 1;
    let cfg = std::fs::read_dir(shards[leaf].join("configs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.file_stem().is_some_and(|s| s == "leaf1"))
        .unwrap();
    let other = (leaf + 1) % 3;
    std::fs::copy(
        &cfg,
        shards[other].join("configs").join(cfg.file_name().unwrap()),
    )
    .unwrap();
    let again = tmp.join("again");
    let mut args = vec!["merge", "--out", again.to_str().unwrap()];
    args.extend(shards.iter().map(|s| s.to_str().unwrap()));
    let out = fa(&args);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("device leaf1 is in two snapshot folders")
    );
    assert!(!again.exists());
    let _ = std::fs::remove_dir_all(&tmp);
}
