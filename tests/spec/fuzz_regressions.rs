//! The fuzz targets' inputs replayed without a fuzzer (SECURITY.md "Fuzzing"): every file
//! under `fuzz/regressions/<target>/` (an input a fuzzer once crashed, hung or blew up on) goes
//! through the same library entry point its target calls, and must return. Also checks that
//! every target under `fuzz/fuzz_targets/` has an entry point here, so a new target cannot be
//! left out of the replay.

use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_fuzz_target_has_a_replay_entry_point() {
    let mut n = 0;
    for e in std::fs::read_dir(root().join("fuzz/fuzz_targets")).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        let src = std::fs::read_to_string(&p).unwrap();
        assert!(
            src.contains("fabric_audit::fuzzing::"),
            "{name}: a target calls a fabric_audit::fuzzing entry point"
        );
        assert!(
            fabric_audit::fuzzing::replay(&name, b""),
            "{name}: no replay entry point"
        );
        n += 1;
    }
    assert!(
        n >= 15,
        "{n} targets: 8 platforms, json, config_db, 2 inventories, fabric.toml, waivers, reports"
    );
    assert!(!fabric_audit::fuzzing::replay("no_such_target", b""));
}

#[test]
fn saved_fuzz_inputs_replay_cleanly() {
    let dir = root().join("fuzz/regressions");
    let mut n = 0;
    for t in std::fs::read_dir(&dir).unwrap() {
        let t = t.unwrap().path();
        if !t.is_dir() {
            continue; // README.md
        }
        let target = t.file_name().unwrap().to_string_lossy().to_string();
        for f in std::fs::read_dir(&t).unwrap() {
            let f = f.unwrap().path();
            let data = std::fs::read(&f).unwrap();
            let start = std::time::Instant::now();
            let ok = std::panic::catch_unwind(|| fabric_audit::fuzzing::replay(&target, &data));
            assert!(ok.is_ok(), "{} panics", f.display());
            assert!(
                ok.unwrap_or(false),
                "{}: unknown target {target}",
                f.display()
            );
            assert!(
                start.elapsed() < std::time::Duration::from_secs(20),
                "{} took {:?}",
                f.display(),
                start.elapsed()
            );
            n += 1;
        }
    }
    assert!(n > 0, "fuzz/regressions holds the inputs found so far");
}
