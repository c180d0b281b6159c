//! The findings of the bundled fabrics, pinned (issue 18: a refactoring must not change what
//! the tool says). Each snapshot below is audited by the CLI (`audit --format json`) and its
//! `findings` array, remediation snippets included, must equal
//! `tests/expected-findings/<snapshot>.json` byte for byte. A change that is meant to change
//! findings rewrites them with `UPDATE_GOLDEN=1` and shows the difference in its commit.

use std::path::Path;
use std::process::Command;

const SNAPSHOTS: [&str; 7] = [
    "demo-fabric",
    "clean-fabric",
    "demo-mixed-fabric",
    "clean-mixed-fabric",
    "scope-single-switch",
    "jvd-ai-fabric",
    "demo-jvd-ai-fabric",
];

fn findings(snapshot: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_fabric-audit"))
        .arg("audit")
        .arg(snapshot)
        .args(["--format", "json", "--fail-on", "never"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}: {}",
        snapshot.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    serde_json::to_string_pretty(&v["findings"]).unwrap() + "\n"
}

#[test]
fn bundled_fabrics_findings_are_pinned() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("tests/expected-findings");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut changed = Vec::new();
    for name in SNAPSHOTS {
        let got = findings(&root.join("fixtures").join(name));
        let path = dir.join(format!("{name}.json"));
        if update {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_default();
        if want != got {
            let first = want
                .lines()
                .zip(got.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(want.lines().count().min(got.lines().count()));
            changed.push(format!(
                "{name}: differs from {} from line {} on (expected {} lines, got {}); \
                 rewrite with UPDATE_GOLDEN=1 if the change is meant",
                path.display(),
                first + 1,
                want.lines().count(),
                got.lines().count()
            ));
        }
    }
    assert!(changed.is_empty(), "{}", changed.join("\n"));
}
