//! `collect`: run every device's read-only commands over SSH into a snapshot; the options a
//! collection run shares with `audit --inventory` and `probe`.

use super::ExitStatus;
use anyhow::Result;
use std::io::IsTerminal;
use std::path::PathBuf;

/// Options of a collection run (`collect`, `audit --inventory`).
#[derive(clap::Args, Debug, Clone)]
pub struct CollectArgs {
    /// Only these devices or groups (comma-separated names, `*` globs). Needs --inventory.
    #[arg(long, requires = "inventory")]
    pub limit: Option<String>,
    /// Devices collected at once (default: 32 per CPU core, 16 to 256). Needs --inventory.
    #[arg(long, requires = "inventory")]
    pub concurrency: Option<usize>,
    /// Record the host key of a device not in known_hosts instead of refusing it. A changed
    /// key is refused all the same. Needs --inventory.
    #[arg(long, requires = "inventory")]
    pub trust_new_host_keys: bool,
    /// OpenSSH client config to honour (default ~/.ssh/config; "none" to ignore it). Needs
    /// --inventory.
    #[arg(long, requires = "inventory")]
    pub ssh_config: Option<PathBuf>,
    /// Replace an earlier snapshot in the output folder. Needs --inventory.
    #[arg(long, requires = "inventory")]
    pub force: bool,
    /// Commands the whole run may send (every device together); devices not reached when it
    /// is spent are recorded as not collected. Per device, the inventory's `max_interfaces`
    /// and `device_timeout` bound what one host can take. Needs --inventory.
    #[arg(long, default_value_t = crate::collect::run::DEFAULT_COMMAND_BUDGET, requires = "inventory")]
    pub command_budget: u64,

    /// No progress output. Needs --inventory.
    #[arg(long, short, requires = "inventory")]
    pub quiet: bool,
}

/// Connect to every device of an inventory over SSH, run its platform's read-only commands
/// and write a snapshot that `audit` reads.
#[derive(clap::Args, Debug)]
pub struct CollectCmdArgs {
    /// Inventory: TOML (ours) or Ansible YAML (.yml/.yaml).
    #[arg(long)]
    pub inventory: PathBuf,
    /// Snapshot folder to write (new or empty, or an earlier snapshot with --force).
    #[arg(long)]
    pub out: PathBuf,
    /// Extra or overriding vendor parser files; their commands must pass the read-only
    /// allow-list, or the run stops before connecting anywhere.
    #[arg(long)]
    pub parsers: Option<PathBuf>,
    /// Collect only shard K of N (1 ≤ K ≤ N) of the inventory's devices (after --limit): a
    /// device's shard depends on its name and N only (see README "Scale"). Each shard writes
    /// an ordinary snapshot with the whole fabric's fabric.toml; `audit DIR1 DIR2 ...` audits
    /// the shards' folders together as one fabric. A shard with no device is not an error.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<crate::collect::shard::Shard>,
    #[command(flatten)]
    pub collect: CollectArgs,
}

pub fn run(a: CollectCmdArgs) -> Result<ExitStatus> {
    let CollectCmdArgs {
        inventory,
        out,
        parsers,
        shard,
        collect,
    } = a;
    let summary = collect_part(&inventory, &out, parsers.as_deref(), &collect, shard)?;
    Ok(if summary.interrupted {
        ExitStatus::Interrupted
    } else if summary.collected() == 0 && !(shard.is_some() && summary.devices.is_empty()) {
        ExitStatus::Error
    } else {
        ExitStatus::Success
    })
}

/// Load an inventory with the user's ssh_config and `--limit`; warnings go to stderr. A device
/// may name a platform `parsers_dir` adds.
pub(crate) fn load_inventory(
    inventory: &std::path::Path,
    c: &CollectArgs,
    parsers_dir: Option<&std::path::Path>,
) -> Result<crate::collect::inventory::Inventory> {
    use crate::collect::{inventory::Inventory, ssh_config::SshConfig};
    let ssh = match c.ssh_config.as_deref() {
        Some(p) if p.as_os_str() == "none" => None,
        Some(p) => Some(SshConfig::load(p)?),
        None => SshConfig::load_user()?,
    };
    let added = match parsers_dir {
        Some(_) => crate::parser::load_parsers(parsers_dir)?
            .platforms
            .iter()
            .map(|p| p.id.clone())
            .collect(),
        None => Vec::new(),
    };
    let added: Vec<&str> = added.iter().map(String::as_str).collect();
    let mut inv = Inventory::load_with_platforms(inventory, ssh.as_ref(), &added)?;
    if let Some(l) = &c.limit {
        inv.limit(l)?;
    }
    for w in &inv.warnings {
        eprintln!("fabric-audit: {w}");
    }
    Ok(inv)
}

/// Run a collection and print its summary on stderr.
pub(crate) fn collect_run(
    inventory: &std::path::Path,
    out: &std::path::Path,
    parsers_dir: Option<&std::path::Path>,
    c: &CollectArgs,
) -> Result<crate::collect::run::Summary> {
    collect_part(inventory, out, parsers_dir, c, None)
}

/// [`collect_run`] of one shard of the inventory, or of all of it.
fn collect_part(
    inventory: &std::path::Path,
    out: &std::path::Path,
    parsers_dir: Option<&std::path::Path>,
    c: &CollectArgs,
    shard: Option<crate::collect::shard::Shard>,
) -> Result<crate::collect::run::Summary> {
    use crate::collect::run;
    let inv = load_inventory(inventory, c, parsers_dir)?;
    if inv.targets.is_empty() {
        anyhow::bail!("{}: no device to collect from", inventory.display());
    }
    let parsers = crate::parser::load_parsers(parsers_dir)?;
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
        command_budget: c.command_budget,
        shard,
    };
    let s = run::collect(&inv, parsers, &opts)?;
    let devices = s.device_failures(&inv);
    let commands = s.command_problems(&inv);
    if !c.quiet || !devices.is_empty() || s.interrupted {
        let counts = s.counts();
        let of_shard = match shard {
            Some(k) => format!(
                " (shard {k}: {} of the {} devices planned)",
                s.devices.len(),
                inv.targets.len()
            ),
            None => String::new(),
        };
        eprintln!(
            "fabric-audit: collected {} of {} devices into {}{of_shard} in {:.1} s (concurrency {}); {}{}",
            s.collected(),
            s.devices.len(),
            out.display(),
            s.wall.as_secs_f64(),
            s.concurrency,
            counts.describe(),
            if s.interrupted { "; interrupted" } else { "" }
        );
        // One line per distinct cause, with the devices it hit.
        for g in &devices {
            eprintln!("  {}", g.line());
        }
        for g in &commands {
            eprintln!("  {}", g.line());
        }
    }
    for g in s.limits(&inv) {
        match g.devices.as_slice() {
            [one] => eprintln!("  {one} cut short: {}", g.text),
            _ => eprintln!("  cut short: {}", g.line()),
        }
    }
    Ok(s)
}
