//! `merge DIR... --out DIR`: the shards of a collection written as one snapshot folder.

use super::ExitStatus;
use anyhow::Result;
use std::path::PathBuf;

/// Write several snapshot folders as one: refused where `audit DIR...` would refuse them
/// (a shared file that differs, a device in two folders, a shard missing or given twice).
#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// The snapshot folders (every shard of a `collect --shard`, each once).
    #[arg(required = true, num_args = 1.., value_name = "SNAPSHOT")]
    pub snapshots: Vec<PathBuf>,
    /// The folder to write (new or empty). Files are hard-linked where the file system
    /// allows, copied otherwise.
    #[arg(long)]
    pub out: PathBuf,
}

pub fn run(a: MergeArgs) -> Result<ExitStatus> {
    let shared = [
        "fabric.toml",
        crate::audit::PROBES_FILE,
        crate::rules::waivers::FILE,
    ];
    let m = crate::snapshot::merge::merge(&a.snapshots, &a.out, &shared)?;
    eprintln!(
        "fabric-audit: merged {} folders ({} devices, {} files) into {}",
        a.snapshots.len(),
        m.devices,
        m.files,
        a.out.display()
    );
    Ok(ExitStatus::Success)
}
