//! The fuzzing smoke run of every CI run (issue 19, SECURITY.md "Fuzzing"): the
//! `examples/fuzz_smoke` program runs every fuzz target's entry point on its seeds (the
//! fixtures and, with FABRIC_AUDIT_CORPUS, the real corpus) and on mutations of them for one
//! second each, and fails on a panic, an input over 10 s, or an input whose peak memory (its
//! own allocator counts it) exceeds 1,000 × its size + 32 MiB. The harness's own checks show
//! it does catch a panic and a memory blow-up.

use std::path::PathBuf;
use std::process::{Command, Output};

/// `target/<profile>/examples/fuzz_smoke`, which `cargo test` builds with the tests.
fn smoke() -> Command {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().and_then(|d| d.parent()).unwrap();
    let bin: PathBuf = dir.join("examples").join("fuzz_smoke");
    assert!(
        bin.exists(),
        "{} is missing: `cargo test` builds the examples",
        bin.display()
    );
    let mut c = Command::new(bin);
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn every_fuzz_target_survives_a_second_of_mutations() {
    let out_dir = tempdir("fuzz-smoke");
    let o = smoke()
        .args(["--seconds", "1", "--out"])
        .arg(&out_dir)
        .output()
        .unwrap();
    let t = text(&o);
    // The figures go to the test log.
    println!("{t}");
    assert!(o.status.success(), "{t}");
    let rows: Vec<Vec<&str>> = t
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .filter(|r: &Vec<&str>| r.len() == 6)
        .collect();
    for target in fabric_audit::fuzzing::smoke::TARGETS {
        let r = rows
            .iter()
            .find(|r| r[0] == target)
            .unwrap_or_else(|| panic!("{target} did not run:\n{t}"));
        let (inputs, seeds): (u64, u64) = (r[1].parse().unwrap(), r[2].parse().unwrap());
        assert!(seeds >= 1, "{target} has no seed input:\n{t}");
        assert!(inputs > seeds + 10, "{target}: mutations did not run:\n{t}");
        assert_eq!(r[5], "0", "{target} failed:\n{t}");
    }
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn the_harness_catches_a_panic_and_a_memory_blow_up() {
    let out_dir = tempdir("fuzz-selfcheck");
    let o = smoke()
        .args(["--seconds", "0.2", "--out"])
        .arg(&out_dir)
        .arg("selfcheck_panic")
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("FAIL selfcheck_panic crash: panicked"), "{t}");
    let saved: Vec<_> = std::fs::read_dir(out_dir.join("selfcheck_panic"))
        .unwrap()
        .flatten()
        .collect();
    assert!(!saved.is_empty(), "the crashing input is saved");
    // 1,000 bytes held per input byte, against 20 × + 0.
    let o = smoke()
        .args([
            "--seconds",
            "0.2",
            "--ratio",
            "20",
            "--allowance",
            "0",
            "--out",
        ])
        .arg(&out_dir)
        .arg("selfcheck_memory")
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("FAIL selfcheck_memory oom"), "{t}");
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn every_fuzz_target_is_a_smoke_target() {
    let mut names: Vec<String> =
        std::fs::read_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz/fuzz_targets"))
            .unwrap()
            .flatten()
            .map(|e| e.path().file_stem().unwrap().to_string_lossy().to_string())
            .collect();
    names.sort();
    let mut known: Vec<String> = fabric_audit::fuzzing::smoke::TARGETS
        .iter()
        .map(|s| s.to_string())
        .collect();
    known.sort();
    assert_eq!(names, known);
}

fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fa-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
