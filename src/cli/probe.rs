//! `probe`: RDMA, transport and path-MTU probes between the hosts of an inventory.

use super::{CollectArgs, ExitStatus, FailOn, emit, status_for};
use crate::report::{self, Format};
use anyhow::{Context, Result};
use std::path::PathBuf;

/// Run RDMA, transport and path-MTU probes between the hosts of an inventory, read their
/// counters before and after, and tie the results to the config findings on each path.
#[derive(clap::Args, Debug)]
pub struct ProbeArgs {
    /// Inventory: TOML (ours) or Ansible YAML. Its linux devices are the probe hosts.
    #[arg(long)]
    pub inventory: PathBuf,
    /// Snapshot of the fabric (from `collect`): the cabling that gives each host its leaf
    /// and each probe its path, and the config findings a probe result is tied to.
    #[arg(long)]
    pub snapshot: Option<PathBuf>,
    /// Write the results (JSON report with the `probes` array) to this file.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Report format on standard output (--out always writes JSON).
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// Exit 1 when a finding (PROBE or, with --snapshot, config) reaches this severity.
    #[arg(long, value_enum, default_value = "error")]
    pub fail_on: FailOn,
    /// Extra or overriding rule files (a folder of TOML files); the embedded rules otherwise.
    #[arg(long)]
    pub rules: Option<PathBuf>,
    /// Extra or overriding vendor parser files (a folder of TOML files); the embedded ones
    /// otherwise.
    #[arg(long)]
    pub parsers: Option<PathBuf>,
    #[command(flatten)]
    pub probe_args: super::probe_run::ProbeArgs,
    #[command(flatten)]
    pub collect: CollectArgs,
}

pub fn run(a: ProbeArgs) -> Result<ExitStatus> {
    let ProbeArgs {
        inventory,
        snapshot,
        out,
        format,
        fail_on,
        rules,
        parsers,
        probe_args,
        collect,
    } = a;
    // As in `audit`: each port's policies in force only for the model that shows them.
    if matches!(format, Format::Model) {
        crate::model::maps::set_keep_policies(true);
    }
    let run = super::probe_run::run(
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
    }
    if let Some(s) = super::probe_status(&run) {
        return Ok(s);
    }
    Ok(status_for(&run.audit.findings, fail_on))
}
