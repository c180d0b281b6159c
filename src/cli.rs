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
        /// The snapshot folder (or, with --inventory, where to write the collected one).
        #[arg(required_unless_present = "inventory")]
        snapshot: Option<PathBuf>,
        /// Collect from the devices of this inventory first, then audit what was collected.
        #[arg(long)]
        inventory: Option<PathBuf>,
        #[command(flatten)]
        collect: CollectArgs,
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
        /// Waiver file (default: waivers.toml in the snapshot folder, when there is one).
        #[arg(long)]
        waivers: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "auto")]
        color: ColorChoice,
        /// With --inventory: after collecting, run probes between the hosts (see `probe`) and
        /// audit their results with the snapshot (written to SNAPSHOT/probes.json).
        #[arg(long, requires = "inventory")]
        probe: bool,
        #[command(flatten)]
        probe_args: crate::probe::command::ProbeArgs,
    },
    /// Run RDMA, transport and path-MTU probes between the hosts of an inventory, read their
    /// counters before and after, and tie the results to the config findings on each path.
    Probe {
        /// Inventory: TOML (ours) or Ansible YAML. Its linux devices are the probe hosts.
        #[arg(long)]
        inventory: PathBuf,
        /// Snapshot of the fabric (from `collect`): the cabling that gives each host its leaf
        /// and each probe its path, and the config findings a probe result is tied to.
        #[arg(long)]
        snapshot: Option<PathBuf>,
        /// Write the results (JSON report with the `probes` array) to this file.
        #[arg(long)]
        out: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "table")]
        format: Format,
        #[arg(long, value_enum, default_value = "error")]
        fail_on: FailOn,
        #[arg(long)]
        rules: Option<PathBuf>,
        #[arg(long)]
        parsers: Option<PathBuf>,
        #[command(flatten)]
        probe_args: crate::probe::command::ProbeArgs,
        #[command(flatten)]
        collect: CollectArgs,
    },
    /// Compare two snapshots (before and after a change): the findings the change introduces,
    /// fixes and leaves, matched by rule, device and object, never by line number.
    Diff {
        before: PathBuf,
        after: PathBuf,
        #[command(flatten)]
        review: ReviewArgs,
    },
    /// Review a change of intended configs kept in git: audit the snapshot folder as it was at
    /// BASE and as it is at HEAD, and report what the change introduces, fixes and leaves.
    Review {
        /// The git repository.
        #[arg(long)]
        repo: PathBuf,
        /// The ref the change starts from (a branch, tag or commit).
        #[arg(long)]
        base: String,
        /// The ref of the change.
        #[arg(long, default_value = "HEAD")]
        head: String,
        /// The snapshot folder inside the repository.
        #[arg(long, default_value = ".")]
        path: String,
        #[command(flatten)]
        review: ReviewArgs,
    },
    /// Snippets that fix the findings of a snapshot, per device in apply order, each marked safe
    /// or needs-review; with --apply-to-copy, merge them into a copy and re-audit it.
    Remediate {
        snapshot: PathBuf,
        /// Only this device's snippets.
        #[arg(long)]
        device: Option<String>,
        /// text or json.
        #[arg(long, value_enum, default_value = "text")]
        format: RemediateFormat,
        /// Copy the snapshot to OUTDIR (new or empty), merge the snippets into its config files,
        /// re-audit it; exit 1 unless every targeted finding is gone and no new error appeared.
        #[arg(long, value_name = "OUTDIR")]
        apply_to_copy: Option<PathBuf>,
        #[arg(long)]
        rules: Option<PathBuf>,
        /// Extra or overriding vendor parser files (and remediation templates in DIR/remediation/).
        #[arg(long)]
        parsers: Option<PathBuf>,
    },
    /// Connect to every device of an inventory over SSH, run its platform's read-only commands
    /// and write a snapshot that `audit` reads.
    Collect {
        /// Inventory: TOML (ours) or Ansible YAML (.yml/.yaml).
        #[arg(long)]
        inventory: PathBuf,
        /// Snapshot folder to write (new or empty, or an earlier snapshot with --force).
        #[arg(long)]
        out: PathBuf,
        /// Extra or overriding vendor parser files; their commands must pass the read-only
        /// allow-list, or the run stops before connecting anywhere.
        #[arg(long)]
        parsers: Option<PathBuf>,
        #[command(flatten)]
        collect: CollectArgs,
    },
    /// Play network devices over SSH on 127.0.0.0/8 from output files (tests, demos, benchmarks).
    #[command(hide = true)]
    Emulate(crate::emulate_cli::EmulateArgs),
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

/// Options shared by `diff` and `review`.
#[derive(clap::Args, Debug, Clone)]
pub struct ReviewArgs {
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// Write the report to FILE instead of standard output.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Exit 1 when a NEW finding reaches this severity (fixed, unchanged and waived ones never
    /// fail).
    #[arg(long, value_enum, default_value = "error")]
    pub fail_on: FailOn,
    #[arg(long)]
    pub rules: Option<PathBuf>,
    #[arg(long)]
    pub parsers: Option<PathBuf>,
    /// Waiver file (default: waivers.toml in the snapshot folder after the change).
    #[arg(long)]
    pub waivers: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RemediateFormat {
    Text,
    Json,
}

/// Options of a collection run (`collect`, `audit --inventory`).
#[derive(clap::Args, Debug, Clone)]
pub struct CollectArgs {
    /// Only these devices or groups (comma-separated names, `*` globs).
    #[arg(long)]
    pub limit: Option<String>,
    /// Devices collected at once (default: 32 per CPU core, 16 to 256).
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// Record the host key of a device not in known_hosts instead of refusing it. A changed
    /// key is refused all the same.
    #[arg(long)]
    pub trust_new_host_keys: bool,
    /// OpenSSH client config to honour (default ~/.ssh/config; "none" to ignore it).
    #[arg(long)]
    pub ssh_config: Option<PathBuf>,
    /// Replace an earlier snapshot in the output folder.
    #[arg(long)]
    pub force: bool,

    /// No progress output.
    #[arg(long, short)]
    pub quiet: bool,
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

/// Load an inventory with the user's ssh_config and `--limit`; warnings go to stderr.
pub(crate) fn load_inventory(
    inventory: &std::path::Path,
    c: &CollectArgs,
) -> Result<crate::collect::inventory::Inventory> {
    use crate::collect::{inventory::Inventory, ssh_config::SshConfig};
    let ssh = match c.ssh_config.as_deref() {
        Some(p) if p.as_os_str() == "none" => None,
        Some(p) => Some(SshConfig::load(p)?),
        None => SshConfig::load_user()?,
    };
    let mut inv = Inventory::load(inventory, ssh.as_ref())?;
    if let Some(l) = &c.limit {
        inv.limit(l)?;
    }
    for w in &inv.warnings {
        eprintln!("fabric-audit: {w}");
    }
    Ok(inv)
}

/// Exit status for findings against `--fail-on`.
pub(crate) fn status_for(findings: &[crate::finding::Finding], fail_on: FailOn) -> ExitStatus {
    let threshold = match fail_on {
        FailOn::Error => Some(Severity::Error),
        FailOn::Warning => Some(Severity::Warning),
        FailOn::Info => Some(Severity::Info),
        FailOn::Never => None,
    };
    if threshold.is_some_and(|t| findings.iter().any(|f| f.severity >= t)) {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    }
}

/// Run a collection and print its summary on stderr.
fn collect_run(
    inventory: &std::path::Path,
    out: &std::path::Path,
    parsers_dir: Option<&std::path::Path>,
    c: &CollectArgs,
) -> Result<crate::collect::run::Summary> {
    use crate::collect::run;
    let inv = load_inventory(inventory, c)?;
    if inv.targets.is_empty() {
        anyhow::bail!("{}: no device to collect from", inventory.display());
    }
    let parsers = crate::load_parsers(parsers_dir)?;
    let progress = if c.quiet {
        run::Progress::Quiet
    } else if std::io::stderr().is_terminal() {
        run::Progress::Bar
    } else {
        run::Progress::Lines
    };
    let opts = run::Options {
        out: out.to_path_buf(),
        concurrency: c.concurrency.unwrap_or_else(run::default_concurrency),
        trust_new_host_keys: c.trust_new_host_keys,
        force: c.force,
        progress,
        counters_only: false,
    };
    let s = run::collect(&inv, parsers, &opts)?;
    let failed: Vec<_> = s
        .devices
        .iter()
        .filter(|d| d.status != "collected")
        .collect();
    if !c.quiet || !failed.is_empty() {
        eprintln!(
            "fabric-audit: collected {} of {} devices into {} in {:.1} s (concurrency {}){}",
            s.collected(),
            s.devices.len(),
            out.display(),
            s.wall.as_secs_f64(),
            s.concurrency,
            if s.interrupted { "; interrupted" } else { "" }
        );
        for d in failed {
            eprintln!(
                "  {} {}: {}",
                d.name,
                d.status,
                d.error.as_deref().unwrap_or("")
            );
        }
    }
    Ok(s)
}

/// Audit a snapshot and attach to each finding the fix snippet of its platform, if any.
fn audit_with_fixes(snapshot: &std::path::Path, opts: &Options) -> Result<audit::Audit> {
    let (mut a, rs) = audit::run_keeping_rules(snapshot, opts)?;
    let templates = crate::remediate::load(opts.parsers_dir.as_deref())?;
    crate::remediate::attach(&mut a, &rs, snapshot, &templates);
    Ok(a)
}

fn review_options(r: &ReviewArgs) -> Options {
    Options {
        rules_dir: r.rules.clone(),
        parsers_dir: r.parsers.clone(),
        waivers: r.waivers.clone(),
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
        Command::Collect {
            inventory,
            out,
            parsers,
            collect,
        } => {
            let summary = collect_run(&inventory, &out, parsers.as_deref(), &collect)?;
            Ok(if summary.collected() == 0 {
                ExitStatus::Error
            } else {
                ExitStatus::Success
            })
        }
        Command::Emulate(args) => crate::emulate_cli::run(args),
        Command::Audit {
            snapshot,
            inventory,
            collect,
            format,
            output,
            fail_on,
            rules,
            parsers,
            waivers,
            color,
            probe,
            probe_args,
        } => {
            let inventory_path = inventory.clone();
            let snapshot = match (inventory, snapshot) {
                (Some(inv), snap) => {
                    let out = snap.unwrap_or_else(|| {
                        PathBuf::from(format!(
                            "snapshot-{}",
                            crate::collect::writer::now_rfc3339().replace(':', "")
                        ))
                    });
                    let summary = collect_run(&inv, &out, parsers.as_deref(), &collect)?;
                    if summary.collected() == 0 {
                        eprintln!(
                            "fabric-audit: nothing could be collected; the snapshot in {} records why",
                            out.display()
                        );
                        return Ok(ExitStatus::Error);
                    }
                    out
                }
                (None, Some(s)) => s,
                (None, None) => anyhow::bail!("give a snapshot folder or --inventory"),
            };
            if probe && let Some(inv) = &inventory_path {
                let run = crate::probe::command::run(
                    inv,
                    Some(&snapshot),
                    &probe_args,
                    &collect,
                    rules.as_deref(),
                    parsers.as_deref(),
                )?;
                let text = report::render(&run.audit, Format::Json, false);
                let path = snapshot.join(audit::PROBES_FILE);
                std::fs::write(&path, text)
                    .with_context(|| format!("cannot write {}", path.display()))?;
                if run.interrupted {
                    eprintln!(
                        "fabric-audit: probes interrupted; the results so far are in {}",
                        path.display()
                    );
                    return Ok(ExitStatus::Error);
                }
            }
            let a = audit_with_fixes(
                &snapshot,
                &Options {
                    rules_dir: rules,
                    parsers_dir: parsers,
                    waivers,
                },
            )?;
            let r = crate::review::Review::of_audit(&a, &snapshot.display().to_string());
            let text = report::render_review(&r, format, use_color(color, output.is_some()));
            emit(&text, output.as_ref())?;
            Ok(status_for(&a.findings, fail_on))
        }
        Command::Probe {
            inventory,
            snapshot,
            out,
            format,
            fail_on,
            rules,
            parsers,
            probe_args,
            collect,
        } => {
            let run = crate::probe::command::run(
                &inventory,
                snapshot.as_deref(),
                &probe_args,
                &collect,
                rules.as_deref(),
                parsers.as_deref(),
            )?;
            if let Some(o) = &out {
                let text = report::render(&run.audit, Format::Json, false);
                std::fs::write(o, text).with_context(|| format!("cannot write {}", o.display()))?;
            }
            emit(&report::render(&run.audit, format, false), None)?;
            if run.interrupted {
                eprintln!("fabric-audit: interrupted; the probe processes on the hosts were ended");
                return Ok(ExitStatus::Error);
            }
            Ok(status_for(&run.audit.findings, fail_on))
        }
        Command::Diff {
            before,
            after,
            review,
        } => {
            let opts = review_options(&review);
            let b = audit::run(
                &before,
                &Options {
                    waivers: None,
                    ..opts.clone()
                },
            )?;
            let a = audit_with_fixes(&after, &opts)?;
            let scope = crate::review::Scope::Diff {
                before: before.display().to_string(),
                after: after.display().to_string(),
            };
            let r = crate::review::Review::of_change(&b, &a, scope);
            emit(
                &report::render_review(&r, review.format, false),
                review.output.as_ref(),
            )?;
            Ok(status_for(&r.new, review.fail_on))
        }
        Command::Review {
            repo,
            base,
            head,
            path,
            review,
        } => {
            use crate::review::git;
            let opts = review_options(&review);
            let bt = git::export(&repo, &base, &path)?;
            let ht = git::export(&repo, &head, &path)?;
            let b = audit::run(
                &bt.snapshot,
                &Options {
                    waivers: None,
                    ..opts.clone()
                },
            )
            .with_context(|| format!("auditing {path} at {base}"))?;
            let a = audit_with_fixes(&ht.snapshot, &opts)
                .with_context(|| format!("auditing {path} at {head}"))?;
            let scope = crate::review::Scope::Git {
                repo: repo.display().to_string(),
                path,
                base,
                head,
                base_commit: bt.commit.clone(),
                head_commit: ht.commit.clone(),
            };
            let r = crate::review::Review::of_change(&b, &a, scope);
            emit(
                &report::render_review(&r, review.format, false),
                review.output.as_ref(),
            )?;
            Ok(status_for(&r.new, review.fail_on))
        }
        Command::Remediate {
            snapshot,
            device,
            format,
            apply_to_copy,
            rules,
            parsers,
        } => {
            let opts = Options {
                rules_dir: rules,
                parsers_dir: parsers,
                waivers: None,
            };
            let templates = crate::remediate::load(opts.parsers_dir.as_deref())?;
            let (a, rs) = audit::run_keeping_rules(&snapshot, &opts)?;
            let mut plan = crate::remediate::plan(&a, &rs, &snapshot, &templates);
            if let Some(d) = &device {
                if !a.fabric.devices.iter().any(|x| &x.name == d) {
                    anyhow::bail!("no device {d:?} in {}", snapshot.display());
                }
                crate::remediate::only_device(&mut plan, d);
            }
            let json = format == RemediateFormat::Json;
            let Some(out) = apply_to_copy else {
                emit(
                    &if json {
                        crate::remediate::json(&plan)
                    } else {
                        crate::remediate::text(&plan)
                    },
                    None,
                )?;
                return Ok(ExitStatus::Success);
            };
            let o = crate::remediate::apply::apply_to_copy(
                &snapshot, &out, &a, &plan, &templates, &opts,
            )?;
            emit(
                &if json {
                    serde_json::to_string_pretty(&o).unwrap_or_default() + "\n"
                } else {
                    crate::remediate::text(&plan) + "\n" + &crate::remediate::apply::text(&o)
                },
                None,
            )?;
            Ok(if o.ok() {
                ExitStatus::Success
            } else {
                ExitStatus::Failure
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
                        "  {:<60} id={}{}{}{}\n",
                        c.cmd,
                        c.id,
                        if c.config { " [config]" } else { "" },
                        if c.counters {
                            " [counters: read around probes]"
                        } else {
                            ""
                        },
                        if c.per != "once" {
                            format!(" [{}]", c.per)
                        } else {
                            String::new()
                        }
                    ));
                    if !c.fills.is_empty() {
                        out.push_str(&wrap_list("fills: ", &c.fills, 100));
                    }
                }
            }
            emit(&out, None)?;
            Ok(ExitStatus::Success)
        }
    }
}

/// `label` and the items, comma-separated, wrapped at `width` with a hanging indent.
fn wrap_list(label: &str, items: &[String], width: usize) -> String {
    let indent = " ".repeat(4 + label.len());
    let mut out = format!("    {label}");
    let mut col = out.len();
    for (k, it) in items.iter().enumerate() {
        let piece = if k + 1 < items.len() {
            format!("{it}, ")
        } else {
            it.clone()
        };
        if col + piece.len() > width && col > indent.len() {
            out.push('\n');
            out.push_str(&indent);
            col = indent.len();
        }
        out.push_str(&piece);
        col += piece.len();
    }
    out.push('\n');
    out
}
