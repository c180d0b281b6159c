//! `remediate`: fix snippets per device, and --apply-to-copy to merge and re-audit them.

use super::{ExitStatus, emit};
use crate::audit::{self, Options};
use anyhow::Result;
use clap::ValueEnum;
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RemediateFormat {
    Text,
    Json,
}

/// Snippets that fix the findings of a snapshot, per device in apply order, each marked safe
/// or needs-review; with --apply-to-copy, merge them into a copy and re-audit it.
#[derive(clap::Args, Debug)]
pub struct RemediateArgs {
    /// The snapshot folder whose findings to fix.
    pub snapshot: PathBuf,
    /// Only this device's snippets.
    #[arg(long)]
    pub device: Option<String>,
    /// text or json.
    #[arg(long, value_enum, default_value = "text")]
    pub format: RemediateFormat,
    /// Copy the snapshot to OUTDIR (new or empty), merge the snippets into its config files,
    /// re-audit it. Exit 0: every snippet merged into a config file cleared the findings it
    /// targets, no new error appeared, and no port whose classification changed keeps a DSCP
    /// other than RoCE's lossless. Exit 1: one of these failed (a targeted finding remains, a
    /// new error, a merge failed, a non-RoCE DSCP stays lossless). Host steps are commands to
    /// run on the host, not config lines: they are listed and do not fail the run. Exit 2: the
    /// tool could not do its job (unreadable snapshot, OUTDIR not empty).
    #[arg(long, value_name = "OUTDIR")]
    pub apply_to_copy: Option<PathBuf>,
    /// Extra or overriding rule files (a folder of TOML files); the embedded rules otherwise.
    #[arg(long)]
    pub rules: Option<PathBuf>,
    /// Extra or overriding vendor parser files (and remediation templates in DIR/remediation/).
    #[arg(long)]
    pub parsers: Option<PathBuf>,
}

pub fn run(a: RemediateArgs) -> Result<ExitStatus> {
    let RemediateArgs {
        snapshot,
        device,
        format,
        apply_to_copy,
        rules,
        parsers,
    } = a;
    let opts = Options {
        rules_dir: rules,
        parsers_dir: parsers,
        waivers: None,
    };
    let templates = crate::remediate::load(opts.parsers_dir.as_deref())?;
    let (a, rs) = audit::run_keeping_rules(&snapshot, &opts)?;
    let mut plan = crate::remediate::plan(&a, &rs, std::slice::from_ref(&snapshot), &templates);
    if let Some(d) = &device {
        if !a.fabric.devices.iter().any(|x| &x.name == d) {
            anyhow::bail!("no device {d:?} in {}", snapshot.display());
        }
        crate::remediate::only_device(&mut plan, &a.findings, d);
    }
    let json = format == RemediateFormat::Json;
    let Some(out) = apply_to_copy else {
        // Written as it is made, not built in memory first.
        let mut stdout = std::io::stdout().lock();
        let written = if json {
            crate::remediate::write_json(&plan, &a.findings, &mut stdout)
        } else {
            crate::remediate::write_text(&plan, &a.findings, &mut stdout)
        };
        // A closed pipe (`| head`) is not an error worth a stack of messages.
        drop(written);
        return Ok(ExitStatus::Success);
    };
    let o = crate::remediate::apply::apply_to_copy(&snapshot, &out, &a, &plan, &templates, &opts)?;
    emit(
        &if json {
            serde_json::to_string_pretty(&o).unwrap_or_default() + "\n"
        } else {
            crate::remediate::text(&plan, &a.findings) + "\n" + &crate::remediate::apply::text(&o)
        },
        None,
    )?;
    Ok(if o.ok() {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}
