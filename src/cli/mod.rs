//! The command line: argument types (clap) and one function per subcommand.

pub mod audit;
pub mod collect;
pub mod emulate;
pub mod idle;
pub mod merge;
pub mod probe;
pub mod probe_run;
pub mod remediate;
pub mod repo_config;
pub mod review;
pub mod schemas;
pub mod view;

use crate::finding::Severity;
use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use std::io::IsTerminal;
use std::path::PathBuf;

pub use collect::CollectArgs;
pub(crate) use collect::load_inventory;
pub use review::ReviewArgs;

/// The exit statuses, as `--help` prints them.
pub const EXIT_STATUS_HELP: &str = "\
Exit status:
  0    success: no finding reached --fail-on
  1    a finding reached --fail-on (default: error); remediate --apply-to-copy: a targeted
       finding remains or a new error appeared
  2    the tool could not do its job: bad arguments, unreadable snapshot, bad rule, parser or
       policy file, nothing could be collected, no probe produced a result
  130  interrupted by Ctrl-C (collect, audit --inventory, probe), after writing what it had";

/// `--version`: the crate version, and the git commit it was built from when the build saw one.
pub const VERSION: &str = env!("FA_VERSION");

#[derive(Parser, Debug)]
#[command(
    name = "fabric-audit",
    version = VERSION,
    about = "Audit lossless RoCEv2 fabrics: PFC, ECN, DSCP, MTU, buffers, watchdog, scheduling",
    after_help = EXIT_STATUS_HELP
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Largest snapshot file read (bytes, or with K/M/G: 64M, 1G); a larger file is reported
    /// (PARSE010), not read. The snapshot itself cannot raise it.
    #[arg(long, global = true, value_name = "SIZE", value_parser = parse_size)]
    pub max_file_size: Option<u64>,
}

fn parse_size(s: &str) -> Result<u64, String> {
    crate::snapshot::read::parse_size(s)
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
    Audit(audit::AuditArgs),
    /// Run RDMA, transport and path-MTU probes between the hosts of an inventory, read their
    /// counters before and after, and tie the results to the config findings on each path.
    Probe(probe::ProbeArgs),
    /// Compare two snapshots (before and after a change): the findings the change introduces,
    /// fixes and leaves, matched by rule, device and object, never by line number.
    Diff(review::DiffArgs),
    /// Review a change of intended configs kept in git: audit the snapshot folder as it was at
    /// BASE and as it is at HEAD, and report what the change introduces, fixes and leaves.
    Review(review::ReviewCmdArgs),
    /// Snippets that fix the findings of a snapshot, per device in apply order, each marked safe
    /// or needs-review; with --apply-to-copy, merge them into a copy and re-audit it.
    Remediate(remediate::RemediateArgs),
    /// Connect to every device of an inventory over SSH, run its platform's read-only commands
    /// and write a snapshot that `audit` reads.
    Collect(collect::CollectCmdArgs),
    /// Write several snapshot folders (the shards of `collect --shard`) as one snapshot, for
    /// the commands that take one folder.
    Merge(merge::MergeArgs),
    /// Play network devices over SSH on 127.0.0.0/8 from output files (tests, demos, benchmarks).
    #[command(hide = true)]
    Emulate(emulate::EmulateArgs),
    /// Print a rule's documentation.
    Explain(audit::ExplainArgs),
    /// List the rules.
    Rules(audit::RulesArgs),
    /// List the platforms and the commands each one reads.
    Parsers(audit::ParsersArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(CompletionsArgs),
    /// Print the man page (roff), or write one page per subcommand into a folder.
    Man(ManArgs),
    /// Print the JSON Schema of the JSON report, the change report (diff) or the inventory
    /// (also published in the repository's schemas/ folder).
    Schema(schemas::SchemaArgs),
}

/// Print a shell completion script.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "bash: fabric-audit completions bash > /etc/bash_completion.d/fabric-audit\n\
zsh:  fabric-audit completions zsh > \"${fpath[1]}/_fabric-audit\""
)]
pub struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Print the man page.
#[derive(clap::Args, Debug)]
pub struct ManArgs {
    /// Write fabric-audit.1 and one fabric-audit-SUBCOMMAND.1 per subcommand into this folder
    /// instead of printing fabric-audit.1.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

fn completions(a: CompletionsArgs) -> Result<ExitStatus> {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "fabric-audit", &mut buf);
    emit(&String::from_utf8_lossy(&buf), None)?;
    Ok(ExitStatus::Success)
}

fn man(a: ManArgs) -> Result<ExitStatus> {
    use clap::CommandFactory;
    let cmd = Cli::command();
    match a.out {
        Some(dir) => {
            std::fs::create_dir_all(&dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            clap_mangen::generate_to(cmd, &dir)
                .with_context(|| format!("cannot write the man pages into {}", dir.display()))?;
        }
        None => {
            let mut buf = Vec::new();
            clap_mangen::Man::new(cmd)
                .render(&mut buf)
                .context("rendering the man page")?;
            emit(&String::from_utf8_lossy(&buf), None)?;
        }
    }
    Ok(ExitStatus::Success)
}

/// What the process should exit with (0 success, 1 findings reached --fail-on, 2 error,
/// 130 interrupted by Ctrl-C after writing what it had).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    Success = 0,
    Failure = 1,
    Error = 2,
    Interrupted = 130,
}

/// The exit status of a probe run: 130 when interrupted, 2 when no probe produced a result
/// (every one failed, was invalid, timed out or could not reach its hosts), else `None`
/// (the findings decide).
pub(crate) fn probe_status(run: &probe_run::ProbeRun) -> Option<ExitStatus> {
    if run.interrupted {
        return Some(ExitStatus::Interrupted);
    }
    let probes = &run.audit.probes;
    if probes.iter().any(|p| p.status == "ok") {
        return None;
    }
    let mut by: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for p in probes {
        *by.entry(p.status.as_str()).or_default() += 1;
    }
    let how: Vec<String> = by.iter().map(|(s, n)| format!("{n} {s}")).collect();
    eprintln!(
        "fabric-audit: no probe produced a result ({} probe(s){}{})",
        probes.len(),
        if how.is_empty() { "" } else { ": " },
        how.join(", ")
    );
    Some(ExitStatus::Error)
}

pub(crate) fn use_color(c: ColorChoice, to_file: bool) -> bool {
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

/// Exit status for findings against `--fail-on`.
pub(crate) fn status_for(findings: &[crate::finding::Finding], fail_on: FailOn) -> ExitStatus {
    let threshold = match fail_on {
        FailOn::Error => Some(Severity::Error),
        FailOn::Warning => Some(Severity::Warning),
        FailOn::Info => Some(Severity::Info),
        FailOn::Never => None,
    };
    if threshold.is_some_and(|t| findings.iter().any(|f| f.severity() >= t)) {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    }
}

pub(crate) fn emit(text: &str, output: Option<&PathBuf>) -> Result<()> {
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

/// [`emit`] of a report written by `write` as it is produced: to the file (created or
/// truncated) or to standard output, where a closed pipe ends the output quietly.
pub(crate) fn emit_with(
    output: Option<&PathBuf>,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<()> {
    match output {
        Some(p) => {
            let mut f = std::fs::File::create(p)
                .with_context(|| format!("cannot write {}", p.display()))?;
            write(&mut f).with_context(|| format!("cannot write {}", p.display()))
        }
        None => {
            let mut out = std::io::stdout().lock();
            match write(&mut out) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(e).context("cannot write the report to standard output")
                }
                _ => Ok(()),
            }
        }
    }
}

/// Run one subcommand.
pub fn run(cli: Cli) -> Result<ExitStatus> {
    if let Some(n) = cli.max_file_size {
        crate::snapshot::read::set_max_file_bytes(n);
    }
    match cli.command {
        Command::Collect(a) => collect::run(a),
        Command::Merge(a) => merge::run(a),
        Command::Emulate(a) => emulate::run(a),
        Command::Audit(a) => audit::run(a),
        Command::Probe(a) => probe::run(a),
        Command::Diff(a) => review::run_diff(a),
        Command::Review(a) => review::run_review(a),
        Command::Remediate(a) => remediate::run(a),
        Command::Explain(a) => audit::explain(a),
        Command::Rules(a) => audit::rules(a),
        Command::Parsers(a) => audit::parsers(a),
        Command::Completions(a) => completions(a),
        Command::Man(a) => man(a),
        Command::Schema(a) => schemas::run(a),
    }
}
