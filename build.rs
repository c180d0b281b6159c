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

fn main() {
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
