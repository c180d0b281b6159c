//! Several snapshot folders read as one fabric (`audit DIR1 DIR2 ...`): the shards of a
//! `collect --shard K/N`, or any folders that split one fabric's devices between them.
//!
//! The files a fabric has once — `fabric.toml`, `probes.json`, `waivers.toml` — may sit in
//! any of the folders, but where two folders hold one they must say the same thing (equal
//! TOML values for `fabric.toml`, so the comment naming the inventory's path may differ;
//! equal bytes for the others), or the audit stops naming both files. A device belongs to one
//! folder: a device found in two (its `configs/` file, its `devices/` folder or its journal
//! entry) stops the audit naming both places. Folders whose journals say they are shards of a
//! `collect --shard` must be every shard of one split, each once.

use super::{JOURNAL, Journal, JournalShard, read};
use anyhow::{Result, bail};
use std::path::{Path, PathBuf};

/// The folder of `roots` whose `name` is the one to use: None when no folder has it, an
/// error naming both files when two folders hold different ones.
pub fn shared_file(roots: &[PathBuf], name: &str) -> Result<Option<PathBuf>> {
    let holders: Vec<&PathBuf> = roots
        .iter()
        .filter(|r| read::entry_exists(&r.join(name)))
        .collect();
    let Some(first) = holders.first() else {
        return Ok(None);
    };
    for other in &holders[1..] {
        if !same_content(&first.join(name), &other.join(name), name) {
            bail!(
                "{} and {} differ: snapshot folders audited as one fabric share one {name} \
                 (collect --shard writes the same in every shard); make them agree, or keep it \
                 in one folder only",
                first.join(name).display(),
                other.join(name).display()
            );
        }
    }
    Ok(Some((*first).clone()))
}

/// True when two copies of a shared file say the same: equal TOML values for `fabric.toml`
/// (comments and layout aside), equal bytes otherwise. A file that cannot be read compares
/// by what reading it gave (the audit reports a refused file on its own).
fn same_content(a: &Path, b: &Path, name: &str) -> bool {
    let (ta, tb) = (read::read_text(a), read::read_text(b));
    match (&ta, &tb) {
        (Ok(x), Ok(y)) if name == "fabric.toml" => {
            match (x.parse::<toml::Table>(), y.parse::<toml::Table>()) {
                (Ok(p), Ok(q)) => p == q,
                _ => x == y,
            }
        }
        (Ok(x), Ok(y)) => x == y,
        (Err(x), Err(y)) => x.to_string() == y.to_string(),
        _ => false,
    }
}

/// The shard a folder's journal says it holds, if any (an unreadable journal says nothing
/// here; the snapshot reader reports it).
fn journal_shard(root: &Path) -> Option<JournalShard> {
    let text = read::read_text(&root.join(JOURNAL)).ok()?;
    toml::from_str::<Journal>(&text).ok()?.shard
}

/// Refuse folders that are not every shard of one split, each once, when any says it is a
/// shard: a missing shard's devices would read as never collected (one shard alone of
/// several too), a shard given twice would hold its devices twice, and shards of different
/// N are different splits.
pub fn check_shards(roots: &[PathBuf]) -> Result<()> {
    let shards: Vec<(&PathBuf, Option<JournalShard>)> =
        roots.iter().map(|r| (r, journal_shard(r))).collect();
    let Some((first, of)) = shards.iter().find_map(|(r, s)| s.map(|s| (*r, s.count))) else {
        return Ok(());
    };
    let mut seen: Vec<Option<&PathBuf>> = vec![None; of as usize];
    for (root, s) in &shards {
        let Some(s) = s else {
            bail!(
                "{} is shard {}/{of} of a collection but {} is not a shard; audit the \
                 shards of one `collect --shard` together, or the unsharded folder alone",
                first.display(),
                journal_shard(first).map_or(0, |s| s.index),
                root.display()
            );
        };
        if s.count != of {
            bail!(
                "{} is a shard of {of} but {} is shard {}/{}: shards of different splits",
                first.display(),
                root.display(),
                s.index,
                s.count
            );
        }
        let slot = s
            .index
            .checked_sub(1)
            .and_then(|i| seen.get_mut(i as usize));
        match slot {
            Some(Some(earlier)) => bail!(
                "{} and {} are both shard {}/{of}",
                earlier.display(),
                root.display(),
                s.index
            ),
            Some(slot) => *slot = Some(root),
            None => bail!(
                "{}/{JOURNAL}: shard {}/{} is out of range",
                root.display(),
                s.index,
                s.count
            ),
        }
    }
    let missing: Vec<String> = seen
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_none())
        .map(|(i, _)| format!("{}/{of}", i + 1))
        .collect();
    if !missing.is_empty() {
        bail!(
            "shard{} {} of the collection {} belongs to {} missing; give every shard's folder",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", "),
            first.display(),
            if missing.len() == 1 { "is" } else { "are" }
        );
    }
    Ok(())
}

/// The path of snapshot-relative `file` in whichever of `roots` holds it (the first root
/// when none does, so the error of reading it names a real place).
pub fn locate(roots: &[PathBuf], file: &str) -> PathBuf {
    roots
        .iter()
        .map(|r| r.join(file))
        .find(|p| read::entry_exists(p))
        .unwrap_or_else(|| {
            roots
                .first()
                .map_or_else(|| PathBuf::from(file), |r| r.join(file))
        })
}

/// Which folder each device came from, to refuse a device found in two.
#[derive(Default)]
pub(crate) struct Owners {
    by_name: std::collections::BTreeMap<String, (usize, PathBuf)>,
}

impl Owners {
    /// Record that `name` was found at `place` in folder `root`; an error when an earlier
    /// folder has it.
    pub(crate) fn claim(&mut self, name: &str, root: usize, place: &Path) -> Result<()> {
        match self.by_name.get(name) {
            Some((r, earlier)) if *r != root => bail!(
                "device {name} is in two snapshot folders: {} and {}; each device belongs \
                 to one folder (the shards of one collection never share a device)",
                earlier.display(),
                place.display()
            ),
            Some(_) => Ok(()),
            None => {
                self.by_name
                    .insert(name.to_string(), (root, place.to_path_buf()));
                Ok(())
            }
        }
    }

    /// The folder that holds `name` (0 when none claimed it: a device only `fabric.toml`
    /// names).
    pub(crate) fn root_of(&self, name: &str) -> usize {
        self.by_name.get(name).map_or(0, |(r, _)| *r)
    }
}
