//! Embeds `rules/*.toml` and `vendor-parsers/*.toml` into the binary.
use std::fmt::Write as _;
use std::path::Path;

fn embed(dir: &str, out: &mut String, name: &str) {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p: &std::path::PathBuf| p.extension().is_some_and(|e| e == "toml"));
    files.sort();
    let _ = writeln!(out, "pub static {name}: &[(&str, &str)] = &[");
    for f in files {
        let abs = std::fs::canonicalize(&f).unwrap_or(f.clone());
        let fname = f
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "    ({:?}, include_str!({:?})),",
            format!("{dir}/{fname}"),
            abs.display().to_string()
        );
    }
    let _ = writeln!(out, "];");
    println!("cargo:rerun-if-changed={dir}");
}

/// Output of a git command run in the crate's folder, when git and a repository are there
/// (never a network call: rev-parse reads the local repository only).
fn git(args: &[&str]) -> Option<String> {
    let dir = std::env::var("CARGO_MANIFEST_DIR").ok()?;
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

/// `FA_VERSION` for `--version`: "0.1.0 (commit 1234abcd5678)" when the build sees a git
/// commit (or `FA_BUILD_COMMIT` names one, for builds from an archive), else "0.1.0".
fn version() {
    println!("cargo:rerun-if-env-changed=FA_BUILD_COMMIT");
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let commit = std::env::var("FA_BUILD_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .or_else(|| git(&["rev-parse", "--short=12", "HEAD"]));
    // Rebuild when HEAD moves (a commit, a checkout): HEAD itself and the branch it names.
    // Only files that exist are named: cargo takes a missing one as changed on every build,
    // which rebuilt the crate at each `cargo test`/`cargo bench` (a repository whose refs are
    // all loose has no packed-refs).
    let watch = |p: &str| {
        if let Some(path) = git(&["rev-parse", "--git-path", p]).filter(|path| {
            Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default())
                .join(path)
                .exists()
        }) {
            println!("cargo:rerun-if-changed={path}");
        }
    };
    watch("HEAD");
    watch("packed-refs");
    if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watch(&r);
    }
    let full = match commit {
        Some(c) => format!("{version} (commit {c})"),
        None => version,
    };
    println!("cargo:rustc-env=FA_VERSION={full}");
}

fn main() {
    version();
    let mut out = String::new();
    embed("rules", &mut out, "RULES");
    embed("vendor-parsers", &mut out, "PARSERS");
    embed("vendor-parsers/remediation", &mut out, "REMEDIATION");
    let dest =
        Path::new(&std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into())).join("embedded.rs");
    if let Err(e) = std::fs::write(&dest, out) {
        panic!("cannot write {}: {e}", dest.display());
    }
}
