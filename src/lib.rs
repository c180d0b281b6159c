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
pub mod fuzzing;
pub mod glob;
pub mod growth;
pub mod model;
pub mod parser;
pub mod platform;
pub mod policy;
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
pub mod toml_pieces;

pub use embedded::read_toml_dir;
pub use parser::load_parsers;

/// The whole command line: parse arguments, run, print the error chain once on failure.
pub fn run() -> cli::ExitStatus {
    let parsed = match cli::idle::parse() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("fabric-audit: error: {e:#}");
            return cli::ExitStatus::Error;
        }
    };
    match cli::run(parsed) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("fabric-audit: error: {e:#}");
            cli::ExitStatus::Error
        }
    }
}
