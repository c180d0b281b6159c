//! The command line: argument types (clap) and one function per subcommand.

use crate::audit::{self, Options};
use crate::finding::Severity;
use crate::report::{self, Format};
use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "fabric-audit",
    version,
    about = "Audit lossless RoCEv2 fabrics: PFC, ECN, DSCP, MTU, buffers, watchdog, scheduling"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Error,
    Warning,
    Info,
    Never,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Audit a snapshot folder (configs/, devices/, fabric.toml) and report findings.
    Audit {
        /// The snapshot folder.
        snapshot: PathBuf,
        #[arg(long, value_enum, default_value = "table")]
        format: Format,
        /// Write the report to FILE instead of standard output.
        #[arg(long, short)]
        output: Option<PathBuf>,
        /// Exit 1 when a finding reaches this severity.
        #[arg(long, value_enum, default_value = "error")]
        fail_on: FailOn,
        /// Extra or overriding rule files.
        #[arg(long)]
        rules: Option<PathBuf>,
        /// Extra or overriding vendor parser files.
        #[arg(long)]
        parsers: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "auto")]
        color: ColorChoice,
    },
    /// Print a rule's documentation.
    Explain {
        /// Rule id, e.g. PFC001.
        id: String,
        #[arg(long)]
        rules: Option<PathBuf>,
    },
    /// List the rules.
    Rules {
        #[arg(long, value_enum, default_value = "table")]
        format: Format,
        #[arg(long)]
        rules: Option<PathBuf>,
    },
    /// List the platforms and the commands each one reads.
    Parsers {
        #[arg(long)]
        parsers: Option<PathBuf>,
    },
}

/// What the process should exit with (0 success, 1 findings reached --fail-on, 2 error).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    Success = 0,
    Failure = 1,
    Error = 2,
}

fn use_color(c: ColorChoice, to_file: bool) -> bool {
    match c {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            !to_file
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stdout().is_terminal()
        }
    }
}

fn emit(text: &str, output: Option<&PathBuf>) -> Result<()> {
    match output {
        Some(p) => std::fs::write(p, text).with_context(|| format!("cannot write {}", p.display())),
        None => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            // A closed pipe (`| head`) is not an error worth a stack of messages.
            let _ = out.write_all(text.as_bytes());
            Ok(())
        }
    }
}

pub fn run(cli: Cli) -> Result<ExitStatus> {
    match cli.command {
        Command::Audit {
            snapshot,
            format,
            output,
            fail_on,
            rules,
            parsers,
            color,
        } => {
            let a = audit::run(
                &snapshot,
                &Options {
                    rules_dir: rules,
                    parsers_dir: parsers,
                },
            )?;
            let text = report::render(&a, format, use_color(color, output.is_some()));
            emit(&text, output.as_ref())?;
            let threshold = match fail_on {
                FailOn::Error => Some(Severity::Error),
                FailOn::Warning => Some(Severity::Warning),
                FailOn::Info => Some(Severity::Info),
                FailOn::Never => None,
            };
            let failed = threshold.is_some_and(|t| a.findings.iter().any(|f| f.severity >= t));
            Ok(if failed {
                ExitStatus::Failure
            } else {
                ExitStatus::Success
            })
        }
        Command::Explain { id, rules } => {
            let rs = audit::load_rules(rules.as_deref())?;
            let r = rs.get(&id).with_context(|| {
                format!(
                    "no rule {id:?}; `fabric-audit rules` lists them ({} known)",
                    rs.rules.len()
                )
            })?;
            emit(&crate::explain::render(r), None)?;
            Ok(ExitStatus::Success)
        }
        Command::Rules { format, rules } => {
            let rs = audit::load_rules(rules.as_deref())?;
            emit(&crate::explain::list(&rs, format), None)?;
            Ok(ExitStatus::Success)
        }
        Command::Parsers { parsers } => {
            let ps = crate::load_parsers(parsers.as_deref())?;
            let mut out = String::new();
            for p in &ps.platforms {
                out.push_str(&format!("{} ({}) — {}\n", p.id, p.name, p.source));
                for c in &p.commands {
                    out.push_str(&format!(
                        "  {:<60} id={}{}{}\n",
                        c.cmd,
                        c.id,
                        if c.config { " [config]" } else { "" },
                        if c.per != "once" {
                            format!(" [{}]", c.per)
                        } else {
                            String::new()
                        }
                    ));
                }
            }
            emit(&out, None)?;
            Ok(ExitStatus::Success)
        }
    }
}
