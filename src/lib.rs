//! fabric-audit: audit lossless RoCEv2 fabrics from switch configs and host command outputs.
//!
//! Pipeline: snapshot → parse (vendor-parsers + platform modules) → model → rules → report.
//! `run()` is the whole command line; `main.rs` only turns its result into an exit code.

pub mod audit;
pub mod cli;
pub mod collect;
pub mod device;
pub mod embedded;
pub mod explain;
pub mod fabric;
pub mod finding;
pub mod model;
pub mod parser;
pub mod platform;
pub mod probe;
pub mod redact;
pub mod remediate;
pub mod report;
pub mod review;
pub mod rules;
pub mod schema;
pub mod snapshot;
pub mod text;
pub mod timings;

use anyhow::Result;
use std::path::Path;

/// Load the embedded parsers, then files from `dir` (same platform id replaces, new ones add).
/// The embedded set alone is compiled once per process and shared.
pub fn load_parsers(dir: Option<&Path>) -> Result<std::sync::Arc<parser::Parsers>> {
    static EMBEDDED: std::sync::OnceLock<Result<std::sync::Arc<parser::Parsers>, String>> =
        std::sync::OnceLock::new();
    let embedded_files = || -> Vec<(String, String)> {
        embedded::PARSERS
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect()
    };
    let compile = |files: &[(String, String)]| {
        parser::Parsers::load(files)
            .map(std::sync::Arc::new)
            .map_err(|errs| {
                format!(
                    "invalid vendor parser file(s):\n{}",
                    errs.iter()
                        .map(|e| format!("  {e}"))
                        .collect::<Vec<_>>()
                        .join("\n")
                )
            })
    };
    match dir {
        None => EMBEDDED
            .get_or_init(|| compile(&embedded_files()))
            .clone()
            .map_err(|e| anyhow::anyhow!(e)),
        Some(d) => {
            let mut files = embedded_files();
            files.extend(read_toml_dir(d)?);
            let parsers = compile(&files).map_err(|e| anyhow::anyhow!(e))?;
            // A user's file is compiled whole now, so a pattern too large fails here, named.
            let bad: Vec<String> = parsers
                .platforms
                .iter()
                .flat_map(|p| p.compile_all())
                .collect();
            if !bad.is_empty() {
                anyhow::bail!("invalid vendor parser file(s):\n  {}", bad.join("\n  "));
            }
            Ok(parsers)
        }
    }
}

/// All `*.toml` files of a folder, sorted, as (path, text).
pub fn read_toml_dir(dir: &Path) -> Result<Vec<(String, String)>> {
    use anyhow::Context;
    let mut out = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read folder {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    for p in paths {
        let text =
            std::fs::read_to_string(&p).with_context(|| format!("cannot read {}", p.display()))?;
        out.push((p.display().to_string(), text));
    }
    Ok(out)
}

/// The whole command line: parse arguments, run, print the error chain once on failure.
pub fn run() -> cli::ExitStatus {
    use clap::Parser;
    let parsed = cli::Cli::parse();
    match cli::run(parsed) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("fabric-audit: error: {e:#}");
            cli::ExitStatus::Error
        }
    }
}
