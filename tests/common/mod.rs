//! The namespace test-bed (scripts/testbed) for the tests that use it: built on `up`, torn
//! down when the `Bed` is dropped. Each test binary uses its own prefix and network so two
//! beds never meet.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

pub struct Bed {
    pub state: PathBuf,
    script: PathBuf,
    prefix: &'static str,
    net: &'static str,
}

impl Bed {
    fn cmd(&self, what: &str) -> std::process::Output {
        Command::new(&self.script)
            .arg(what)
            .env("FA_TESTBED_DIR", &self.state)
            .env("FA_TESTBED_PREFIX", self.prefix)
            .env("FA_TESTBED_NET", self.net)
            .output()
            .unwrap()
    }
}

impl Drop for Bed {
    fn drop(&mut self) {
        let _ = self.cmd("down");
    }
}

/// Build the bed, or None (with a SKIPPED line) where namespaces cannot be made, unless
/// FA_REQUIRE_TESTBED=1 (set by scripts/test as root, so CI never skips it silently).
pub fn up(prefix: &'static str, net: &'static str, tag: &str) -> Option<Bed> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let bed = Bed {
        state: std::env::temp_dir().join(format!("fa-{tag}-{}", std::process::id())),
        script: root.join("scripts/testbed"),
        prefix,
        net,
    };
    let out = bed.cmd("up");
    let required = std::env::var("FA_REQUIRE_TESTBED").is_ok_and(|v| v == "1");
    match out.status.code() {
        Some(0) => Some(bed),
        Some(77) if !required => {
            eprintln!(
                "SKIPPED: the namespace test-bed cannot run here: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            std::mem::forget(bed);
            None
        }
        _ => panic!(
            "scripts/testbed up failed ({:?}):\n{}\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// Run fabric-audit with HOME set (its ~/.ssh) and no ssh-agent.
pub fn run(home: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_fabric-audit"))
        .args(args)
        .env("HOME", home)
        .env_remove("SSH_AUTH_SOCK")
        .output()
        .unwrap()
}

/// Copy a folder tree (a fixture snapshot into a scratch folder).
pub fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        let t = to.join(e.file_name());
        if p.is_dir() {
            copy_tree(&p, &t);
        } else {
            std::fs::copy(&p, &t).unwrap();
        }
    }
}
