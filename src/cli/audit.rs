//! `audit` (collect first with --inventory, probe with --probe), and the catalog commands
//! `explain`, `rules` and `parsers`.

use super::{CollectArgs, ColorChoice, ExitStatus, FailOn, emit, emit_with, status_for, use_color};
use crate::audit::{self, Options};
use crate::report::{self, Format};
use crate::timings::{self, Phase};
use anyhow::{Context, Result};
use std::path::PathBuf;

/// Audit a snapshot folder (configs/, devices/, fabric.toml) and report findings.
#[derive(clap::Args, Debug)]
pub struct AuditArgs {
    /// The snapshot folder (or, with --inventory, where to write the collected one). Several
    /// folders are audited as one fabric: the shards of `collect --shard K/N` (every shard,
    /// each once), or folders that split one fabric's devices. A device may be in one folder
    /// only; fabric.toml, probes.json and waivers.toml may be in any, the same wherever two
    /// hold one.
    #[arg(required_unless_present = "inventory", value_name = "SNAPSHOT")]
    pub snapshot: Vec<PathBuf>,
    /// Collect from the devices of this inventory first, then audit what was collected.
    #[arg(long)]
    pub inventory: Option<PathBuf>,
    #[command(flatten)]
    pub collect: CollectArgs,
    /// Report format [default: table, or `format` of fabric-audit.toml].
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Write the report to FILE instead of standard output.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Exit 1 when a finding reaches this severity [default: error, or `fail-on` of
    /// fabric-audit.toml].
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
    /// Extra or overriding rule files (a folder of TOML files) [default: `rules` of
    /// fabric-audit.toml].
    #[arg(long)]
    pub rules: Option<PathBuf>,
    /// Extra or overriding vendor parser files (a folder of TOML files) [default: `parsers`
    /// of fabric-audit.toml].
    #[arg(long)]
    pub parsers: Option<PathBuf>,
    /// Do not read fabric-audit.toml (found in the snapshot folder or above it, else in the
    /// working directory or above it); flags given on the command line win over it anyway.
    #[arg(long)]
    pub no_config: bool,
    /// Waiver file (default: waivers.toml in the snapshot folder, when there is one).
    #[arg(long)]
    pub waivers: Option<PathBuf>,
    /// Colour in the table: auto (a terminal without NO_COLOR), always or never.
    #[arg(long, value_enum, default_value = "auto")]
    pub color: ColorChoice,
    #[command(flatten)]
    pub view: super::view::ViewArgs,
    /// With --inventory: after collecting, run probes between the hosts (see `probe`) and
    /// audit their results with the snapshot (written to SNAPSHOT/probes.json).
    #[arg(long, requires = "inventory")]
    pub probe: bool,
    #[command(flatten)]
    pub probe_args: super::probe_run::ProbeArgs,
    /// Print on stderr where the time went: load, read, parse, model, links, rules, fixes,
    /// report, then wall, CPU and peak memory.
    #[arg(long)]
    pub timings: bool,
}

/// Fill what the command line left unset from the repository's fabric-audit.toml.
fn with_repo_defaults(a: &mut AuditArgs) -> Result<()> {
    use super::repo_config;
    if a.no_config {
        return Ok(());
    }
    let Some(c) = repo_config::find(a.snapshot.first().map(PathBuf::as_path))? else {
        return Ok(());
    };
    if a.format.is_none() {
        a.format = repo_config::value(&c, "format", &c.format)?;
    }
    if a.fail_on.is_none() {
        a.fail_on = repo_config::value(&c, "fail-on", &c.fail_on)?;
    }
    if a.view.min_severity.is_none() {
        a.view.min_severity = repo_config::value(&c, "min-severity", &c.min_severity)?;
    }
    if a.view.select.is_empty() {
        a.view.select = c.select.clone();
    }
    // The file's ignores and the command line's add up.
    a.view.ignore.extend(c.ignore.iter().cloned());
    a.rules = a.rules.take().or(c.rules);
    a.parsers = a.parsers.take().or(c.parsers);
    Ok(())
}

pub fn run(mut a: AuditArgs) -> Result<ExitStatus> {
    with_repo_defaults(&mut a)?;
    let AuditArgs {
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
        view: view_args,
        probe,
        probe_args,
        no_config: _,
        timings: print_timings,
    } = a;
    let start = std::time::Instant::now();
    if print_timings {
        timings::enable();
    }
    let format = format.unwrap_or(Format::Table);
    // Each port's policies in force are recorded only for the model that shows them.
    if matches!(format, Format::Model) {
        crate::model::maps::set_keep_policies(true);
    }
    let fail_on = fail_on.unwrap_or(FailOn::Error);
    view_args.check_format(format)?;
    let inventory_path = inventory.clone();
    if inventory.is_some() && snapshot.len() > 1 {
        anyhow::bail!(
            "--inventory collects into one snapshot folder; {} were given",
            snapshot.len()
        );
    }
    let folders = match (inventory, snapshot.first()) {
        (Some(inv), snap) => {
            let out = snap.cloned().unwrap_or_else(|| {
                PathBuf::from(format!(
                    "snapshot-{}",
                    crate::collect::writer::now_rfc3339().replace(':', "")
                ))
            });
            let summary = super::collect::collect_run(&inv, &out, parsers.as_deref(), &collect)?;
            if summary.interrupted {
                eprintln!(
                    "fabric-audit: collection interrupted; the snapshot in {} holds what was collected (audit it with `fabric-audit audit {}`)",
                    out.display(),
                    out.display()
                );
                return Ok(ExitStatus::Interrupted);
            }
            if summary.collected() == 0 {
                eprintln!(
                    "fabric-audit: nothing could be collected; the snapshot in {} records why",
                    out.display()
                );
                return Ok(ExitStatus::Error);
            }
            vec![out]
        }
        (None, Some(_)) => snapshot,
        (None, None) => anyhow::bail!("give a snapshot folder or --inventory"),
    };
    let snapshot = folders[0].clone();
    if probe && let Some(inv) = &inventory_path {
        let run = super::probe_run::run(
            inv,
            Some(&snapshot),
            &probe_args,
            &collect,
            rules.as_deref(),
            parsers.as_deref(),
        )?;
        let text = report::render(&run.audit, Format::Json, false);
        let path = snapshot.join(audit::PROBES_FILE);
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        if run.interrupted {
            eprintln!(
                "fabric-audit: probes interrupted; the results so far are in {}",
                path.display()
            );
        }
        if let Some(s) = super::probe_status(&run) {
            return Ok(s);
        }
    }
    let mut a = audit_folders_with_fixes(
        &folders,
        &Options {
            rules_dir: rules,
            parsers_dir: parsers,
            waivers,
        },
    )?;
    let selection = view_args.selection();
    selection.validate(&a)?;
    selection.apply(&mut a);
    let names: Vec<String> = folders.iter().map(|f| f.display().to_string()).collect();
    let view = report::terminal::View {
        color: use_color(color, output.is_some()),
        width: report::width::detect(output.is_some()),
        verbose: view_args.verbose,
        show_info: selection.min_severity == Some(crate::finding::Severity::Info),
        snapshot: Some(names.join(" ")),
    };
    timings::stage(Phase::Report, || {
        let text = match format {
            Format::Json if view_args.statistics => report::statistics::json(&a),
            _ if view_args.statistics => report::statistics::text(&a, view.width),
            // Written as it is serialized, not built in memory first.
            Format::Json => return emit_with(output.as_ref(), |w| report::json::write(&a, w)),
            Format::Model => return emit_with(output.as_ref(), |w| report::write_model(&a, w)),
            // What a plain audit's review renders for this: the audit itself (no copy of its
            // findings into a review).
            Format::Table => report::render_view(&a, format, &view),
            _ => {
                let r = crate::review::Review::of_audit(&a, &names.join(" ")).with_roots(&names);
                return emit_with(output.as_ref(), |w| {
                    report::write_review_view(&r, format, &view, w)
                });
            }
        };
        emit(&text, output.as_ref())
    })?;
    if print_timings {
        eprint!("{}", timings::render(start));
    }
    let status = status_for(&a.findings, fail_on);
    // The process ends with this command: freeing a large fabric port by port cost about 5 %
    // of an audit's CPU (1,000 devices, 52,000 ports), and exit returns the memory anyway.
    std::mem::forget(a);
    Ok(status)
}

/// Audit a snapshot and attach to each finding the fix snippet of its platform, if any.
pub(crate) fn audit_with_fixes(snapshot: &std::path::Path, opts: &Options) -> Result<audit::Audit> {
    audit_folders_with_fixes(std::slice::from_ref(&snapshot.to_path_buf()), opts)
}

/// [`audit_with_fixes`] of several snapshot folders audited as one fabric.
fn audit_folders_with_fixes(snapshot: &[PathBuf], opts: &Options) -> Result<audit::Audit> {
    let (mut a, rs) = audit::run_folders(snapshot, opts)?;
    // Fixes are looked up by the platform of a finding's device (or of its peer's), one of
    // the fabric's.
    let platforms: std::collections::BTreeSet<&str> = a
        .fabric
        .devices
        .iter()
        .map(|d| d.platform.as_str())
        .collect();
    let templates = timings::stage(Phase::Load, || {
        crate::remediate::load_for(opts.parsers_dir.as_deref(), &platforms)
    })?;
    timings::stage(Phase::Fixes, || {
        crate::remediate::attach(&mut a, &rs, snapshot, &templates)
    });
    Ok(a)
}

/// Print a rule's documentation.
#[derive(clap::Args, Debug)]
pub struct ExplainArgs {
    /// Rule id, e.g. PFC001.
    pub id: String,
    /// Extra or overriding rule files (a folder of TOML files), searched with the embedded
    /// ones.
    #[arg(long)]
    pub rules: Option<PathBuf>,
}

/// A rule id with its number padded to three digits (`pfc3` → `PFC003`), as the catalog
/// spells ids.
fn padded_id(id: &str) -> String {
    let up = id.trim().to_ascii_uppercase();
    let split = up.find(|c: char| c.is_ascii_digit()).unwrap_or(up.len());
    let (family, num) = up.split_at(split);
    if num.is_empty() || !num.chars().all(|c| c.is_ascii_digit()) || num.len() >= 3 {
        return up;
    }
    format!("{family}{num:0>3}")
}

/// `explain RULE`: an unknown id gets the nearest known one (`PFC03` → PFC003).
pub fn explain(a: ExplainArgs) -> Result<ExitStatus> {
    let ExplainArgs { id, rules } = a;
    let rs = audit::load_rules(rules.as_deref())?;
    let Some(r) = rs.get(&id) else {
        let known: Vec<String> = rs.rules.iter().map(|r| r.spec.id.clone()).collect();
        let padded = padded_id(&id);
        let hint = match known.iter().find(|k| k.eq_ignore_ascii_case(&padded)) {
            Some(k) => format!(" (did you mean {k}?)"),
            None => crate::report::select::did_you_mean(&id, &known),
        };
        anyhow::bail!(
            "no rule {id:?}{hint}; `fabric-audit rules` lists them ({} known)",
            rs.rules.len()
        );
    };
    emit(&crate::explain::render(r), None)?;
    Ok(ExitStatus::Success)
}

/// List the rules.
#[derive(clap::Args, Debug)]
pub struct RulesArgs {
    /// How to list the catalog: table, json (every rule with its documentation) or markdown.
    /// The report formats (sarif, junit, github, html, concise) describe findings, not rules:
    /// `rules` refuses them (exit 2).
    #[arg(long, value_enum, default_value = "table")]
    pub format: crate::explain::ListFormat,
    /// Extra or overriding rule files (a folder of TOML files), listed with the embedded ones.
    #[arg(long)]
    pub rules: Option<PathBuf>,
}

/// `rules`.
pub fn rules(a: RulesArgs) -> Result<ExitStatus> {
    let RulesArgs { format, rules } = a;
    let rs = audit::load_rules(rules.as_deref())?;
    emit(&crate::explain::list(&rs, format), None)?;
    Ok(ExitStatus::Success)
}

/// How `parsers` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ParsersFormat {
    Text,
    Json,
}

/// List the platforms and the commands each one reads.
#[derive(clap::Args, Debug)]
pub struct ParsersArgs {
    /// Extra or overriding vendor parser files (a folder of TOML files), listed with the
    /// embedded ones.
    #[arg(long)]
    pub parsers: Option<PathBuf>,
    /// Only these platforms (comma-separated ids: nxos, eos, cumulus, sonic, junos, onyx, os10,
    /// linux, or one a --parsers file adds).
    #[arg(long, value_delimiter = ',', value_name = "PLATFORM")]
    pub platform: Vec<String>,
    /// Output format: text, or json (each platform with its commands and the fields each fills).
    #[arg(long, value_enum, default_value = "text")]
    pub format: ParsersFormat,
}

/// `parsers`.
pub fn parsers(a: ParsersArgs) -> Result<ExitStatus> {
    let ParsersArgs {
        parsers,
        platform,
        format,
    } = a;
    let ps = crate::parser::load_parsers(parsers.as_deref())?;
    let known: Vec<String> = ps.platforms.iter().map(|p| p.id.clone()).collect();
    for want in &platform {
        if !known.contains(want) {
            anyhow::bail!(
                "no platform {want:?}{}; known: {}",
                crate::report::select::did_you_mean(want, &known),
                known.join(", ")
            );
        }
    }
    let shown: Vec<&crate::parser::Platform> = ps
        .platforms
        .iter()
        .filter(|p| platform.is_empty() || platform.contains(&p.id))
        .collect();
    if format == ParsersFormat::Json {
        let v: Vec<serde_json::Value> = shown
            .iter()
            .map(|p| {
                serde_json::json!({
                    "id": p.id,
                    "name": p.name,
                    "source": p.source,
                    "commands": p.commands.iter().map(|c| serde_json::json!({
                        "cmd": c.cmd,
                        "id": c.id,
                        "config": c.config,
                        "collect": c.collect,
                        "counters": c.counters,
                        "optional": c.optional,
                        "per": c.per,
                        "fills": c.fills,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        emit(
            &(serde_json::to_string_pretty(&v).context("encoding the platforms")? + "\n"),
            None,
        )?;
        return Ok(ExitStatus::Success);
    }
    let mut out = String::new();
    for p in shown {
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
