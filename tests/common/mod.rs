//! The namespace test-bed (scripts/testbed) for the tests that use it: built on `up`, torn
//! down when the `Bed` is dropped. Each test binary uses its own prefix and network so two
//! beds never meet.

#![allow(dead_code)]

pub mod schema;

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

/// Run fabric-audit with `args` and wait for it.
pub fn fa(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_fabric-audit"))
        .args(args)
        .output()
        .unwrap()
}

/// A scratch folder of a test, removed with everything in it when the test is done with it
/// (also when the test panics: the value is dropped as the stack unwinds).
#[derive(Debug)]
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A fresh, empty scratch folder under the temp dir, named by test area, tag and process.
pub fn scratch(area: &str, tag: &str) -> Scratch {
    let p = std::env::temp_dir().join(format!("fa-{area}-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(&p).unwrap();
    Scratch(p)
}

/// Run fabric-audit with HOME set (its ~/.ssh) and no ssh-agent.
pub fn run(home: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_fabric-audit"))
        .args(args)
        .env("HOME", home)
        // A wide terminal, so the tests read table rows unwrapped (the width rules have tests of
        // their own: tests/spec/terminal_output.rs).
        .env("COLUMNS", "200")
        .env_remove("SSH_AUTH_SOCK")
        .output()
        .unwrap()
}

/// A scratch copy of the bundled fabric `base`, to edit (`area` names the test file's folder).
pub fn copy_fixture(area: &str, base: &str, tag: &str) -> Scratch {
    let dir = scratch(area, tag);
    copy_tree(&fixtures().join(base), &dir);
    dir
}

/// Replace the first `from` by `to` in a file of a snapshot copy; the text must be there.
pub fn edit_once(snap: &Path, file: &str, from: &str, to: &str) {
    let p = snap.join(file);
    let body = std::fs::read_to_string(&p).unwrap();
    assert!(body.contains(from), "{file}: {from:?} not found");
    std::fs::write(&p, body.replacen(from, to, 1)).unwrap();
}

/// `fabric-audit audit SNAP --format FORMAT --fail-on never`, which must exit 0; its output read
/// as JSON.
pub fn audit_value(snap: &Path, format: &str) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_fabric-audit"))
        .arg("audit")
        .arg(snap)
        .args(["--format", format, "--fail-on", "never"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Findings of `rule` on `device` in a JSON report that decided (not "could not decide").
pub fn decided<'v>(
    report: &'v serde_json::Value,
    rule: &str,
    device: &str,
) -> Vec<&'v serde_json::Value> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == rule && f["device"] == device)
        .filter(|f| f["evidence"]["undecided"] != true)
        .collect()
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

/// Apply a fixture case's `[[edit]]`s (fixtures/rules/<RULE>/<case>.toml) to a snapshot folder.
pub fn apply_case_edits(snapshot: &std::path::Path, case: &str) {
    case_edits(snapshot, case, false);
}

/// Undo a case's edits (its `with` text back to `replace`).
pub fn revert_case_edits(snapshot: &std::path::Path, case: &str) {
    case_edits(snapshot, case, true);
}

fn case_edits(snapshot: &std::path::Path, case: &str, undo: bool) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/rules")
        .join(case);
    let v: toml::Value = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for e in v["edit"].as_array().unwrap() {
        let f = snapshot.join(e["file"].as_str().unwrap());
        let (mut from, mut to) = (e["replace"].as_str().unwrap(), e["with"].as_str().unwrap());
        if undo {
            std::mem::swap(&mut from, &mut to);
        }
        let body = std::fs::read_to_string(&f).unwrap();
        assert!(
            body.contains(from),
            "{case}: {from:?} not in {}",
            f.display()
        );
        std::fs::write(&f, body.replacen(from, to, 1)).unwrap();
    }
}

pub fn git(repo: &std::path::Path, args: &[&str]) {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args([
            "-c",
            "user.name=Review Test",
            "-c",
            "user.email=review@example.com",
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The change-review scenario of issue 6, as a git repository of intended configs in
/// `root/repo` (snapshot folder `fabric/`), built from the clean mixed fabric:
/// - commit `base` (tagged): the fabric with an old ECN fault (SONiC leaf1 queue 3 without its
///   WRED profile: ECN001 leaf1 Ethernet0);
/// - commit 2: a PFC fault (Cumulus spine1 swp1 runs 802.3x link pause beside PFC: PFC003) and
///   an MTU fault (SONiC leaf1 uplink Ethernet240 at MTU 9100: MTU001);
/// - commit 3 (HEAD): the ECN fault fixed.
///
/// `review --repo root/repo --base base --path fabric` must report exactly PFC003 spine1 swp1 and
/// MTU001 leaf1 Ethernet240 as new and ECN001 leaf1 Ethernet0 as fixed.
pub fn review_repo(root: &std::path::Path) -> PathBuf {
    const ECN: &str = "ECN001/sonic-queue-3-without-wred-profile.toml";
    let repo = root.join("repo");
    let snap = repo.join("fabric");
    let _ = std::fs::remove_dir_all(&repo);
    copy_tree(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/clean-mixed-fabric"),
        &snap,
    );
    git(&repo, &["init", "-q", "-b", "main"]);
    apply_case_edits(&snap, ECN);
    git(&repo, &["add", "-A"]);
    git(
        &repo,
        &[
            "commit",
            "-q",
            "-m",
            "fabric as deployed (queue 3 of leaf1 lacks WRED)",
        ],
    );
    git(&repo, &["tag", "base"]);
    apply_case_edits(&snap, "PFC003/cumulus-link-pause-beside-pfc.toml");
    apply_case_edits(&snap, "MTU001/sonic-uplink-mtu-9100.toml");
    git(
        &repo,
        &[
            "commit",
            "-q",
            "-a",
            "-m",
            "CHG-1: pause on spine1 swp1, leaf1 uplink MTU",
        ],
    );
    revert_case_edits(&snap, ECN);
    git(
        &repo,
        &[
            "commit",
            "-q",
            "-a",
            "-m",
            "CHG-2: WRED profile back on leaf1 queue 3",
        ],
    );
    repo
}

/// The waiver file that accepts the two faults `review_repo` introduces.
pub const REVIEW_WAIVERS: &str = r#"[[waiver]]
rule = "PFC003"
device = "spine1"
object = "swp1"
reason = "link pause kept for the legacy storage shelf until CHG-9 moves it"
owner = "netops@example.com"
expires = 2099-12-31

[[waiver]]
rule = "MTU001"
device = "leaf*"
object = "Ethernet240"
reason = "uplink MTU change rolls out in two steps (CHG-1, CHG-3)"
owner = "fabric-team"
expires = "2099-06-30"
"#;

// ---- Rule fixture cases (fixtures/rules/<RULE>/<case>.toml, see its README) ----

use serde::Deserialize;
use std::path::Path;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    #[serde(default = "clean")]
    pub base: String,
    pub description: String,
    /// Platform the fault is written in (for the per-platform coverage report).
    pub platform: String,
    #[serde(default)]
    pub edit: Vec<Edit>,
    #[serde(default)]
    pub add: Vec<Add>,
    #[serde(default)]
    pub remove: Vec<String>,
    /// Symbolic links made in the snapshot (after `remove`): `file` points at `target`.
    #[serde(default)]
    pub link: Vec<Link>,
    pub expect: Vec<Expect>,
    /// Why no fix can be written for this fault (the remediation round trip then checks that
    /// the fix is withheld on every expected object, instead of applied).
    #[serde(default)]
    pub withheld: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Link {
    pub file: String,
    pub target: String,
}

fn clean() -> String {
    "clean-fabric".into()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Edit {
    pub file: String,
    pub replace: String,
    pub with: String,
    /// Replace every occurrence (default: the first only).
    #[serde(default)]
    pub all: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Add {
    pub file: String,
    pub content: String,
    /// Write `content` this many times, `{n}` in it numbered from 1 (a file too long to spell).
    #[serde(default)]
    pub repeat: Option<usize>,
    /// Add to the end of the base's file instead of replacing it.
    #[serde(default)]
    pub append: bool,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    pub device: String,
    #[serde(default)]
    pub interface: Option<String>,
    #[serde(default)]
    pub severity: Option<String>,
}

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Every case file as (rule id, path), sorted.
pub fn cases() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(fixtures().join("rules")) else {
        return out;
    };
    for d in rd.flatten() {
        if !d.path().is_dir() {
            continue;
        }
        let id = d.file_name().to_string_lossy().into_owned();
        for f in std::fs::read_dir(d.path()).unwrap().flatten() {
            if f.path().extension().is_some_and(|e| e == "toml") {
                out.push((id.clone(), f.path()));
            }
        }
    }
    out.sort();
    out
}

/// Build the snapshot of a case in `tmp` (replaced): the base copied, the edits applied.
pub fn build_case(path: &Path, tmp: &Path) -> Result<Case, String> {
    let text = std::fs::read_to_string(path).unwrap();
    let case: Case = toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let _ = std::fs::remove_dir_all(tmp);
    copy_tree(&fixtures().join(&case.base), tmp);
    for e in &case.edit {
        let f = tmp.join(&e.file);
        let body = std::fs::read_to_string(&f)
            .map_err(|err| format!("{}: edit {}: {err}", path.display(), e.file))?;
        if !body.contains(&e.replace) {
            return Err(format!(
                "{}: {:?} not found in {}",
                path.display(),
                e.replace,
                e.file
            ));
        }
        let new = if e.all {
            body.replace(&e.replace, &e.with)
        } else {
            body.replacen(&e.replace, &e.with, 1)
        };
        std::fs::write(&f, new).unwrap();
    }
    for a in &case.add {
        let f = tmp.join(&a.file);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        let body = match a.repeat {
            Some(n) => (1..=n)
                .map(|i| a.content.replace("{n}", &i.to_string()))
                .collect::<String>(),
            None => a.content.clone(),
        };
        let body = if a.append {
            std::fs::read_to_string(&f).unwrap_or_default() + &body
        } else {
            body
        };
        std::fs::write(&f, body).unwrap();
    }
    for r in &case.remove {
        std::fs::remove_file(tmp.join(r))
            .map_err(|e| format!("{}: remove {r}: {e}", path.display()))?;
    }
    for l in &case.link {
        let f = tmp.join(&l.file);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&l.target, &f)
            .map_err(|e| format!("{}: link {}: {e}", path.display(), l.file))?;
    }
    Ok(case)
}

/// One finding of a JSON report on a line: severity, rule, device, interface, message.
pub fn describe(f: &serde_json::Value) -> String {
    format!(
        "{} {} {} {}: {}",
        f["severity"], f["rule"], f["device"], f["interface"], f["message"]
    )
}

/// A bundled fabric with planted faults: no error on a device (or toward a peer) that carries
/// none of them.
pub fn assert_no_errors_off(
    findings: &[serde_json::Value],
    faulty: &std::collections::BTreeSet<&str>,
) {
    let wrong: Vec<String> = findings
        .iter()
        .filter(|f| f["severity"] == "error")
        .filter(|f| {
            let peer = f["peer"]["device"].as_str().unwrap_or("");
            !faulty.contains(f["device"].as_str().unwrap_or("")) && !faulty.contains(peer)
        })
        .map(describe)
        .collect();
    assert!(
        wrong.is_empty(),
        "errors on correct devices:\n{}",
        wrong.join("\n")
    );
}
