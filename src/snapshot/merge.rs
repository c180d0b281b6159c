//! `merge DIR... --out DIR`: several snapshot folders written as one, for the commands that
//! take one folder (`diff`, `review`, `remediate`, archiving) after a sharded collection.
//!
//! The folders are first read as one fabric ([`super::Snapshot::open_many`]), so a merge is
//! refused exactly when `audit DIR...` would be (shared files that differ, a device in two
//! folders, shards missing or twice). Then `configs/` and `devices/` of every folder are
//! written into the new one — hard links where the file system allows, copies otherwise;
//! links inside a snapshot are recreated as links, which the audit refuses as it did before —
//! with the shared files from the folder the audit uses them from, and one journal listing
//! every folder's devices (no shard any more).

use super::folders::shared_file;
use super::{JOURNAL, Journal, JournalLimits, Snapshot, read};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

/// What a merge wrote.
pub struct Merged {
    pub devices: usize,
    pub files: usize,
}

/// Merge `roots` into `out`, which must not exist or be empty. `shared` names the top-level
/// files a fabric has once (`fabric.toml`, and the audit's probes and waivers files).
pub fn merge(roots: &[PathBuf], out: &Path, shared: &[&str]) -> Result<Merged> {
    let snap = Snapshot::open_many(roots)?;
    if out.exists() {
        let empty = std::fs::read_dir(out)
            .with_context(|| format!("cannot list {}", out.display()))?
            .next()
            .is_none();
        if !empty {
            bail!(
                "{} exists and is not empty; merge writes a new snapshot folder",
                out.display()
            );
        }
    }
    for r in roots {
        if same_place(r, out) {
            bail!("--out {} is one of the folders merged", out.display());
        }
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let mut files = 0;
    for &name in shared {
        if let Some(dir) = shared_file(roots, name)? {
            files += place(&dir.join(name), &out.join(name))?;
        }
    }
    for r in roots {
        for sub in ["configs", "devices"] {
            let from = r.join(sub);
            match std::fs::symlink_metadata(&from) {
                Ok(m) if m.is_dir() => files += place_tree(&from, &out.join(sub))?,
                Ok(_) => files += place(&from, &out.join(sub))?,
                Err(_) => {}
            }
        }
    }
    if let Some(j) = merged_journal(roots)? {
        let text = toml::to_string(&j).context("encoding the merged journal")?;
        std::fs::write(out.join(JOURNAL), text)
            .with_context(|| format!("cannot write {}", out.join(JOURNAL).display()))?;
        files += 1;
    }
    Ok(Merged {
        devices: snap.devices.len(),
        files,
    })
}

fn same_place(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// Write one entry at `to` (which must not exist): a hard link to a regular file (a copy
/// across file systems), a link recreated as the same link, a folder with its content.
fn place(from: &Path, to: &Path) -> Result<usize> {
    let m = std::fs::symlink_metadata(from)
        .with_context(|| format!("cannot read {}", from.display()))?;
    if std::fs::symlink_metadata(to).is_ok() {
        bail!(
            "{} would be written twice ({} is the second); the folders overlap",
            to.display(),
            from.display()
        );
    }
    if m.is_dir() {
        return place_tree(from, to);
    }
    if m.file_type().is_symlink() {
        let target = std::fs::read_link(from)
            .with_context(|| format!("cannot read the link {}", from.display()))?;
        #[cfg(unix)]
        std::os::unix::fs::symlink(&target, to)
            .with_context(|| format!("cannot create the link {}", to.display()))?;
        #[cfg(not(unix))]
        bail!(
            "{} is a link; merge keeps links on Unix only",
            from.display()
        );
        return Ok(1);
    }
    if !m.is_file() {
        bail!(
            "{} is {}; a snapshot holds files and folders",
            from.display(),
            kind(&m)
        );
    }
    if std::fs::hard_link(from, to).is_err() {
        std::fs::copy(from, to)
            .with_context(|| format!("cannot copy {} to {}", from.display(), to.display()))?;
    }
    Ok(1)
}

fn kind(m: &std::fs::Metadata) -> &'static str {
    read::odd_kind(&m.file_type()).unwrap_or("not a regular file")
}

/// Place every entry of folder `from` into `to` (created if needed).
fn place_tree(from: &Path, to: &Path) -> Result<usize> {
    std::fs::create_dir_all(to).with_context(|| format!("cannot create {}", to.display()))?;
    let mut n = 0;
    let mut entries: Vec<PathBuf> = std::fs::read_dir(from)
        .with_context(|| format!("cannot list {}", from.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for p in entries {
        if let Some(name) = p.file_name() {
            n += place(&p, &to.join(name))?;
        }
    }
    Ok(n)
}

/// One journal for the merged folder: every folder's devices, the earliest start, the latest
/// end, the least finished state, budgets added up. None when no folder has a journal.
fn merged_journal(roots: &[PathBuf]) -> Result<Option<Journal>> {
    let mut out: Option<Journal> = None;
    for r in roots {
        let path = r.join(JOURNAL);
        if !read::entry_exists(&path) {
            continue;
        }
        let text =
            read::read_text(&path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let j: Journal = toml::from_str(&text)
            .map_err(|e| anyhow::anyhow!("{}: not a collection journal: {e}", path.display()))?;
        out = Some(match out {
            None => Journal { shard: None, ..j },
            Some(mut m) => {
                m.started_at = m.started_at.min(j.started_at);
                m.finished_at = match (m.finished_at, j.finished_at) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    _ => None,
                };
                m.state = worst_state(&m.state, &j.state).to_string();
                m.limits = match (m.limits, j.limits) {
                    (Some(a), Some(b)) => Some(JournalLimits {
                        command_budget: a.command_budget + b.command_budget,
                        commands_sent: a.commands_sent + b.commands_sent,
                    }),
                    (a, b) => a.or(b),
                };
                m.devices.extend(j.devices);
                m
            }
        });
    }
    Ok(out)
}

/// Of two journal states, the one that says less was done: running, interrupted, finished.
fn worst_state<'a>(a: &'a str, b: &'a str) -> &'a str {
    let rank = |s: &str| match s {
        "running" => 0,
        "interrupted" => 1,
        "finished" => 2,
        _ => 0,
    };
    if rank(b) < rank(a) { b } else { a }
}
