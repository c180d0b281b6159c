//! Writing the snapshot so that whatever happens it stays consistent.
//!
//! `fabric.toml` (devices with platform and role, the inventory's policy and links) and the
//! journal `collection.toml` (every device `pending`) are written first, each by write-then-
//! rename. A device is collected into `devices/.NAME.partial/` and renamed to `devices/NAME/`
//! only once its `device.toml` is complete, so a device folder is always whole. The journal is
//! rewritten with each device's outcome at the end. After a crash the snapshot reader sees the
//! finished devices, and the journal tells it which were still pending (they become
//! "not collected" findings); Ctrl-C finishes the same way as a normal end, with every device
//! not done recorded as interrupted.

use super::inventory::{Inventory, Target};
use anyhow::{Context, Result, bail};
use serde::Serialize;
use std::path::{Path, PathBuf};

use crate::snapshot::{
    CommandRecord, JOURNAL, Journal, JournalDevice, JournalLimits, JournalShard,
};

#[derive(Debug, Serialize)]
struct DeviceTomlOut<'a> {
    name: &'a str,
    platform: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    role: Option<&'a str>,
    address: String,
    collected_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    /// Collection budgets this device ran into (read back as findings).
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    limits_hit: &'a [String],
    #[serde(rename = "command")]
    commands: &'a [CommandRecord],
}

/// RFC 3339 UTC time of now, without a date crate.
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Write `bytes` to `path` by way of a temporary file and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_file_name(format!(
        ".{}.tmp",
        path.file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    ));
    std::fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path)
        .with_context(|| format!("renaming {} to {}", tmp.display(), path.display()))
}

pub struct SnapshotWriter {
    pub root: PathBuf,
    journal: Journal,
}

/// A device being written.
pub struct DeviceWriter {
    partial: PathBuf,
    fin: PathBuf,
    records: Vec<CommandRecord>,
    used_names: std::collections::HashSet<String>,
}

impl SnapshotWriter {
    /// Start a snapshot in `root`. An existing non-empty folder is refused unless it is an
    /// earlier snapshot of ours and `replace` is set (then its devices/ are replaced).
    /// `fabric.toml` plans every target of `inv`; the journal lists those of `part` (all of
    /// them, or one shard's: then every shard writes the same `fabric.toml`, and the folders
    /// audited together read as the unsharded collection).
    pub fn create(
        root: &Path,
        inv: &Inventory,
        part: &[Target],
        shard: Option<JournalShard>,
        replace: bool,
    ) -> Result<SnapshotWriter> {
        if root.exists() {
            let non_empty = std::fs::read_dir(root)
                .with_context(|| format!("reading {}", root.display()))?
                .next()
                .is_some();
            if non_empty {
                if !root.join(JOURNAL).exists() {
                    bail!(
                        "{} exists and is not a fabric-audit snapshot; choose an empty or new folder",
                        root.display()
                    );
                }
                if !replace {
                    bail!(
                        "{} holds an earlier snapshot; pass --force to replace it, or choose a new folder",
                        root.display()
                    );
                }
                let devices = root.join("devices");
                if devices.exists() {
                    std::fs::remove_dir_all(&devices)
                        .with_context(|| format!("removing {}", devices.display()))?;
                }
            }
        }
        std::fs::create_dir_all(root.join("devices"))
            .with_context(|| format!("creating {}", root.join("devices").display()))?;
        let mut fabric = toml::Table::new();
        if !inv.policy.is_empty() {
            fabric.insert("policy".into(), toml::Value::Table(inv.policy.clone()));
        }
        let devices: Vec<toml::Value> = inv
            .targets
            .iter()
            .map(|t| {
                let mut d = toml::Table::new();
                d.insert("name".into(), t.name.clone().into());
                d.insert("platform".into(), t.platform.clone().into());
                if let Some(r) = &t.role {
                    d.insert("role".into(), r.clone().into());
                }
                if !t.interfaces.is_empty() {
                    d.insert(
                        "interfaces".into(),
                        toml::Value::Array(t.interfaces.iter().cloned().map(Into::into).collect()),
                    );
                }
                toml::Value::Table(d)
            })
            .collect();
        fabric.insert("device".into(), toml::Value::Array(devices));
        if !inv.links.is_empty() {
            fabric.insert(
                "link".into(),
                toml::Value::Array(
                    inv.links
                        .iter()
                        .map(|l| toml::Value::Table(l.to_table()))
                        .collect(),
                ),
            );
        }
        let text = format!(
            "# Written by fabric-audit collect from {}\n{}",
            inv.source.display(),
            toml::to_string(&fabric).context("encoding fabric.toml")?
        );
        write_atomic(&root.join("fabric.toml"), text.as_bytes())?;
        let journal = Journal {
            tool: format!("fabric-audit {}", env!("CARGO_PKG_VERSION")),
            inventory: inv.source.display().to_string(),
            started_at: now_rfc3339(),
            finished_at: None,
            state: "running".into(),
            shard,
            devices: part
                .iter()
                .map(|t| JournalDevice {
                    name: t.name.clone(),
                    status: "pending".into(),
                    error: None,
                    limits_hit: Vec::new(),
                })
                .collect(),
            limits: None,
        };
        let w = SnapshotWriter {
            root: root.to_path_buf(),
            journal,
        };
        w.write_journal()?;
        Ok(w)
    }

    fn write_journal(&self) -> Result<()> {
        let text = toml::to_string(&self.journal).context("encoding the journal")?;
        write_atomic(&self.root.join(JOURNAL), text.as_bytes())
    }

    pub fn device(&self, name: &str) -> Result<DeviceWriter> {
        let partial = self.root.join("devices").join(format!(".{name}.partial"));
        if partial.exists() {
            std::fs::remove_dir_all(&partial)
                .with_context(|| format!("removing {}", partial.display()))?;
        }
        std::fs::create_dir_all(&partial)
            .with_context(|| format!("creating {}", partial.display()))?;
        Ok(DeviceWriter {
            partial,
            fin: self.root.join("devices").join(name),
            records: Vec::new(),
            used_names: Default::default(),
        })
    }

    /// Record the outcome of a device in the journal (written at `finish`).
    pub fn set_status(
        &mut self,
        name: &str,
        status: &str,
        error: Option<String>,
        limits_hit: &[String],
    ) {
        if let Some(d) = self.journal.devices.iter_mut().find(|d| d.name == name) {
            d.status = status.to_string();
            d.error = error.map(|e| crate::redact::redact(&e).0);
            d.limits_hit = limits_hit
                .iter()
                .map(|l| crate::redact::redact(l).0)
                .collect();
        }
    }

    /// Close the journal: state, end time, and the run's command budget with what was used.
    pub fn finish(&mut self, interrupted: bool, command_budget: u64, sent: u64) -> Result<()> {
        self.journal.limits = Some(JournalLimits {
            command_budget,
            commands_sent: sent,
        });
        self.journal.finished_at = Some(now_rfc3339());
        self.journal.state = if interrupted {
            "interrupted"
        } else {
            "finished"
        }
        .into();
        self.write_journal()
    }
}

impl DeviceWriter {
    /// Keep one command's output and its record. Whatever the caller did, nothing reaches the
    /// disk before `crate::redact` has seen it: the output, the command's stderr and error.
    pub fn add(&mut self, mut rec: CommandRecord, stdout: &[u8]) -> Result<()> {
        let redacted;
        let stdout = if stdout.is_empty() {
            stdout
        } else {
            redacted = crate::redact::redact(&String::from_utf8_lossy(stdout)).0;
            redacted.as_bytes()
        };
        rec.stderr = rec.stderr.map(|e| crate::redact::redact(&e).0);
        rec.error = rec.error.map(|e| crate::redact::redact(&e).0);
        rec.cmd = crate::redact::redact(&rec.cmd).0;
        if !stdout.is_empty() {
            let base = crate::snapshot::command_file_name(&rec.cmd);
            let mut name = base.clone();
            let mut n = 2;
            while !self.used_names.insert(name.clone()) {
                name = format!("{}~{n}.txt", base.trim_end_matches(".txt"));
                n += 1;
            }
            let p = self.partial.join(&name);
            std::fs::write(&p, stdout).with_context(|| format!("writing {}", p.display()))?;
            rec.file = Some(name);
        }
        rec.bytes = stdout.len() as u64;
        self.records.push(rec);
        Ok(())
    }

    pub fn records(&self) -> &[CommandRecord] {
        &self.records
    }

    /// Write device.toml (with the budgets the device ran into) and move the folder into place.
    pub fn finish(self, t: &Target, error: Option<&str>, limits_hit: &[String]) -> Result<()> {
        let error = error.map(|e| crate::redact::redact(e).0);
        let error = error.as_deref();
        let limits_hit: Vec<String> = limits_hit
            .iter()
            .map(|l| crate::redact::redact(l).0)
            .collect();
        let meta = DeviceTomlOut {
            name: &t.name,
            platform: &t.platform,
            role: t.role.as_deref(),
            address: format!("{}:{}", t.endpoint.host, t.endpoint.port),
            collected_at: now_rfc3339(),
            error,
            limits_hit: &limits_hit,
            commands: &self.records,
        };
        let text = toml::to_string(&meta).context("encoding device.toml")?;
        write_atomic(&self.partial.join("device.toml"), text.as_bytes())?;
        if self.fin.exists() {
            std::fs::remove_dir_all(&self.fin)
                .with_context(|| format!("removing {}", self.fin.display()))?;
        }
        std::fs::rename(&self.partial, &self.fin).with_context(|| {
            format!(
                "renaming {} to {}",
                self.partial.display(),
                self.fin.display()
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_shape() {
        let s = now_rfc3339();
        assert_eq!(s.len(), 20, "{s}");
        assert!(s.starts_with("20") && s.ends_with('Z'));
    }
}
