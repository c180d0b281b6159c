//! Reading a snapshot folder (README.md "The snapshot"): `fabric.toml`, `configs/`, `devices/`.
//!
//! Nothing here interprets vendor text; it only finds the inputs of each device, decides which
//! command each file holds, and records every problem (unreadable file, unknown file, bad
//! `device.toml`) so the audit can report it and go on. Every file is read through [`read`],
//! which never follows a link, reads only regular files and caps their size.

pub mod folders;
pub mod merge;
pub mod read;

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::Spanned;

use crate::parser::line_col;

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct FabricToml {
    #[serde(default)]
    pub policy: toml::Table,
    #[serde(default, rename = "device")]
    pub devices: Vec<DeviceEntry>,
    #[serde(default, rename = "link")]
    pub links: Vec<LinkEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceEntry {
    pub name: String,
    #[serde(default)]
    pub platform: Option<String>,
    #[serde(default)]
    pub role: Option<String>,
    /// Interfaces audited as RoCE ports besides those found from the device's own data (a
    /// host netdev that no RDMA device reports, say).
    #[serde(default)]
    pub interfaces: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkEntry {
    pub a: Spanned<String>,
    pub b: Spanned<String>,
    #[serde(default)]
    pub cable_m: Option<f64>,
}

/// `device.toml`. Unknown keys are not fatal: each is reported (PARSE005, with its line) and
/// the rest of the file is used (see `unknown_device_keys`).
#[derive(Debug, Deserialize, Default)]
pub struct DeviceToml {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub platform: Option<String>,
    #[serde(default)]
    pub role: Option<String>,
    #[serde(default)]
    pub address: Option<String>,
    #[serde(default)]
    pub collected_at: Option<String>,
    /// Why collection failed for this device, if it did.
    #[serde(default)]
    pub error: Option<String>,
    /// Collection budgets the device ran into: each is reported (PARSE005).
    #[serde(default)]
    pub limits_hit: Vec<String>,
    #[serde(default, rename = "command")]
    pub commands: Vec<CommandEntry>,
}

#[derive(Debug, Deserialize)]
pub struct CommandEntry {
    pub cmd: String,
    /// Absent when the command printed nothing.
    #[serde(default)]
    pub file: Option<String>,
    /// The exit status (`exit_status` is accepted too: the name the snapshot format's own
    /// description of an entry uses).
    #[serde(default, alias = "exit_status")]
    pub exit: Option<i32>,
    #[serde(default)]
    pub duration_ms: Option<u64>,
    #[serde(default)]
    pub bytes: Option<u64>,
    #[serde(default)]
    pub error: Option<String>,
    /// What the command wrote to stderr (kept short).
    #[serde(default)]
    pub stderr: Option<String>,
    /// The vendor file marks the command optional: its failure is expected on some devices.
    #[serde(default)]
    pub optional: bool,
}

/// One input file of a device.
#[derive(Debug, Clone)]
pub struct InputFile {
    /// Snapshot-relative path with `/` separators.
    pub rel: String,
    /// The command it holds; `None` for a config file in `configs/`.
    pub command: Option<String>,
    /// File content, or why it could not be read.
    pub text: Result<String, String>,
}

#[derive(Debug, Clone, Default)]
pub struct DeviceInput {
    pub name: String,
    /// Platform from fabric.toml or device.toml; `None` = detect from content.
    pub platform: Option<String>,
    pub platform_reason: String,
    pub role: Option<String>,
    pub files: Vec<InputFile>,
    /// Collection error recorded in device.toml.
    pub error: Option<String>,
}

impl DeviceInput {
    /// A device with one input file whose command and platform are known (tests, benches,
    /// and tools that parse a single output).
    pub fn one_file(
        name: &str,
        platform: &str,
        rel: &str,
        command: &str,
        text: Result<String, String>,
    ) -> DeviceInput {
        DeviceInput {
            name: name.into(),
            platform: Some(platform.into()),
            platform_reason: "given".into(),
            role: None,
            files: vec![InputFile {
                rel: rel.into(),
                command: Some(command.into()),
                text,
            }],
            error: None,
        }
    }
}

/// A problem in the snapshot that is not fatal.
#[derive(Debug, Clone)]
pub struct Notice {
    pub device: Option<String>,
    pub file: String,
    pub line: Option<u32>,
    pub message: String,
    /// A file refused by [`read`] (a link, not a regular file, over the size cap): reported
    /// by PARSE010 rather than PARSE005.
    pub refused: bool,
}

impl Notice {
    fn refused(device: Option<String>, file: String, why: &str) -> Notice {
        Notice {
            device,
            message: format!("{file} is {why}"),
            file,
            line: None,
            refused: true,
        }
    }
}

#[derive(Debug, Default)]
pub struct Snapshot {
    /// The (first) snapshot folder.
    pub root: PathBuf,
    /// Every folder read as this one fabric (`root` first).
    pub roots: Vec<PathBuf>,
    /// The folder whose `fabric.toml` is used (`root` when none has one).
    pub fabric_root: PathBuf,
    pub fabric: FabricToml,
    /// `fabric.toml` text, for positions of links.
    pub fabric_text: String,
    /// Every device, by name; after [`Snapshot::open`] without its files (see `load_device`).
    pub devices: Vec<DeviceInput>,
    pub notices: Vec<Notice>,
    /// Where each notice of `notices` sits in the order of a whole read.
    pub(crate) notice_keys: Vec<NoticeKey>,
    /// Per device (same order as `devices`), the files still to read; empty once read.
    pub(crate) pending: Vec<PendingDevice>,
    /// Byte offsets of the newlines of `fabric_text`, found on first use.
    pub(crate) fabric_newlines: std::sync::OnceLock<Vec<usize>>,
}

/// The place of a notice in a snapshot read: (0 fabric.toml, 1 configs/, 2 devices/,
/// 3 journal; index of the folder entry).
pub type NoticeKey = (u8, usize);

/// The inputs of a device not read yet.
#[derive(Debug, Default)]
pub(crate) struct PendingDevice {
    /// configs/ files: (path, snapshot-relative name, entry index).
    configs: Vec<(PathBuf, String, usize)>,
    /// Its devices/ folder and entry index.
    dir: Option<(PathBuf, usize)>,
    /// Its line in the collection journal.
    journal: Option<JournalDevice>,
    /// The index in `Snapshot::roots` of the folder that holds it.
    root: usize,
}

/// The default file name of a command's output.
pub fn command_file_name(cmd: &str) -> String {
    let mut s: String = cmd
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    s.push_str(".txt");
    s
}

fn read_text(path: &Path) -> Result<String, read::ReadError> {
    read::read_text(path)
}

/// Strings of a device.toml and notices may quote device text: redacted too.
fn redact_meta(meta: &mut DeviceToml) {
    let r = |s: &mut String| *s = crate::redact::redact(s).0;
    if let Some(e) = meta.error.as_mut() {
        r(e);
    }
    for c in &mut meta.commands {
        r(&mut c.cmd);
        for s in [c.error.as_mut(), c.stderr.as_mut()].into_iter().flatten() {
            r(s);
        }
    }
}

fn redact_notices(notices: &mut [Notice]) {
    for n in notices {
        n.message = crate::redact::redact(&n.message).0;
    }
}

fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .unwrap_or(p)
        .to_string_lossy()
        .replace('\\', "/")
}

fn toml_error(file: &str, text: &str, e: &crate::toml_pieces::Error) -> String {
    match e.span() {
        Some(s) => {
            let (l, c) = line_col(text, s.start);
            format!("{file}:{l}:{c}: {}", e.message())
        }
        None => format!("{file}: {}", e.message()),
    }
}

/// The entries of a folder, sorted, each with its own type (links not followed).
fn sorted_entries(dir: &Path) -> Result<Vec<(PathBuf, std::fs::FileType)>> {
    let mut v: Vec<(PathBuf, std::fs::FileType)> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(|e| e.ok().and_then(|e| Some((e.path(), e.file_type().ok()?))))
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(v)
}

/// What a top-level folder of the snapshot is: absent, a real folder, or refused (a link to
/// a folder elsewhere, or not a folder).
enum Top {
    Absent,
    Dir,
    Refused(String),
}

fn top_dir(p: &Path) -> Top {
    match std::fs::symlink_metadata(p) {
        Err(_) => Top::Absent,
        Ok(m) if m.file_type().is_symlink() => Top::Refused(read::link_refusal(p)),
        Ok(m) if m.is_dir() => Top::Dir,
        Ok(_) => Top::Absent,
    }
}

/// Refuse a snapshot path that does not exist or is not a folder.
fn check_folder(root: &Path) -> Result<()> {
    if !root.exists() {
        bail!("snapshot {} does not exist", root.display());
    }
    if !root.is_dir() {
        bail!(
            "snapshot {} is not a folder (expected a folder with configs/, devices/ and an optional fabric.toml)",
            root.display()
        );
    }
    Ok(())
}

impl Snapshot {
    /// Read a snapshot folder. Fails (exit 2) only when the folder itself is unusable or
    /// `fabric.toml` is malformed; per-file problems become notices.
    pub fn read(root: &Path) -> Result<Snapshot> {
        let mut snap = Snapshot::open(root)?;
        let loaded: Vec<_> = (0..snap.devices.len())
            .map(|i| {
                let (d, n) = snap.load_device(i);
                (d.into_owned(), n)
            })
            .collect();
        let mut read_notices = Vec::new();
        for (i, (d, n)) in loaded.into_iter().enumerate() {
            snap.devices[i] = d;
            read_notices.extend(n);
        }
        let (keys, notices) = snap.merge_keyed(read_notices).into_iter().unzip();
        (snap.notice_keys, snap.notices) = (keys, notices);
        snap.pending.clear();
        Ok(snap)
    }

    /// List a snapshot folder without reading its device files: `fabric.toml`, the journal and
    /// the folder listings are read, each device's files are left for [`Snapshot::load_device`]
    /// (so an audit reads, parses and drops one device at a time on every core). Notices of
    /// the listing are in `notices`; [`Snapshot::merge_notices`] puts a device's own in the
    /// order [`Snapshot::read`] gives.
    pub fn open(root: &Path) -> Result<Snapshot> {
        Snapshot::open_many(std::slice::from_ref(&root.to_path_buf()))
    }

    /// [`Snapshot::open`] of several folders read as one fabric ([`folders`]): the same
    /// devices, files, names and notices, in the same order, as one folder holding them all.
    pub fn open_many(roots: &[PathBuf]) -> Result<Snapshot> {
        let Some(root) = roots.first() else {
            bail!("no snapshot folder given");
        };
        for r in roots {
            check_folder(r)?;
        }
        folders::check_shards(roots)?;
        let mut snap = Snapshot {
            root: root.clone(),
            roots: roots.to_vec(),
            ..Default::default()
        };
        if let Some(dir) = folders::shared_file(roots, "fabric.toml")? {
            snap.fabric_root = dir.clone();
            match read_text(&dir.join("fabric.toml")) {
                Ok(text) => {
                    snap.fabric = crate::toml_pieces::from_str(&text)
                        .map_err(|e| anyhow::anyhow!(toml_error("fabric.toml", &text, &e)))?;
                    snap.fabric_text = text;
                }
                // A refused fabric.toml is reported and the audit goes on without it (no
                // cabling plan, default policy): never a hang, never a crash.
                Err(read::ReadError::Refused(why)) => {
                    snap.push_notice(Notice::refused(None, "fabric.toml".into(), &why), (0, 0))
                }
                Err(e) => bail!("fabric.toml: {e}"),
            }
        } else {
            snap.fabric_root = root.clone();
        }
        let mut by_name: BTreeMap<String, DeviceInput> = BTreeMap::new();
        let mut pending: BTreeMap<String, PendingDevice> = BTreeMap::new();
        let mut owners = folders::Owners::default();
        for d in &snap.fabric.devices {
            let e = by_name.entry(d.name.clone()).or_default();
            e.name = d.name.clone();
            if let Some(p) = &d.platform {
                e.platform = Some(p.clone());
                e.platform_reason = "fabric.toml".into();
            }
            e.role = d.role.clone();
        }
        let mut config_entries = Vec::new();
        let mut device_entries = Vec::new();
        for (ri, r) in roots.iter().enumerate() {
            let (configs, devices) = (r.join("configs"), r.join("devices"));
            let (configs_top, devices_top) = (top_dir(&configs), top_dir(&devices));
            for (top, name) in [(&configs_top, "configs"), (&devices_top, "devices")] {
                if let Top::Refused(why) = top {
                    snap.push_notice(Notice::refused(None, name.into(), why), (0, 0));
                }
            }
            let any_refused = matches!(configs_top, Top::Refused(_))
                || matches!(devices_top, Top::Refused(_))
                || (ri == 0 && snap.notices.iter().any(|n| n.refused));
            if !matches!(configs_top, Top::Dir) && !matches!(devices_top, Top::Dir) && !any_refused
            {
                bail!(
                    "snapshot {} has neither configs/ nor devices/: nothing to audit",
                    r.display()
                );
            }
            if matches!(configs_top, Top::Dir) {
                config_entries.extend(sorted_entries(&configs)?.into_iter().map(|e| (ri, e)));
            }
            if matches!(devices_top, Top::Dir) {
                device_entries.extend(sorted_entries(&devices)?.into_iter().map(|e| (ri, e)));
            }
        }
        // One folder's entries are sorted by path; several folders' by name, the order the
        // same entries would have in one folder.
        if roots.len() > 1 {
            config_entries.sort_by(|a, b| a.1.0.file_name().cmp(&b.1.0.file_name()));
            device_entries.sort_by(|a, b| a.1.0.file_name().cmp(&b.1.0.file_name()));
        }
        for (idx, (ri, (p, ft))) in config_entries.into_iter().enumerate() {
            let root = &roots[ri];
            let r = rel(root, &p);
            let name = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            if ft.is_dir() {
                snap.push_notice(
                    Notice {
                        device: None,
                        file: r,
                        line: None,
                        message: "not a file; configs/ holds one config file per device".into(),
                        refused: false,
                    },
                    (1, idx),
                );
                continue;
            }
            if name.starts_with('.') || name.is_empty() {
                continue;
            }
            owners.claim(&name, ri, &p)?;
            let e = by_name.entry(name.clone()).or_default();
            e.name = name.clone();
            pending.entry(name).or_default().configs.push((p, r, idx));
        }
        for (idx, (ri, (dir, ft))) in device_entries.into_iter().enumerate() {
            let root = &roots[ri];
            let name = dir
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            if !ft.is_dir() {
                let n = match read::odd_kind(&ft) {
                    Some(_) if ft.is_symlink() => {
                        Notice::refused(Some(name), rel(root, &dir), &read::link_refusal(&dir))
                    }
                    _ => Notice {
                        device: None,
                        file: rel(root, &dir),
                        line: None,
                        message: "not a folder; devices/ holds one folder per device".into(),
                        refused: false,
                    },
                };
                snap.push_notice(n, (2, idx));
                continue;
            }
            if name.starts_with('.') {
                if name.ends_with(".partial") {
                    let n = Notice {
                        device: None,
                        file: rel(root, &dir),
                        line: None,
                        message: "unfinished device folder of an interrupted collection; ignored"
                            .into(),
                        refused: false,
                    };
                    snap.push_notice(n, (2, idx));
                }
                continue;
            }
            owners.claim(&name, ri, &dir)?;
            let e = by_name.entry(name.clone()).or_default();
            e.name = name.clone();
            pending.entry(name).or_default().dir = Some((dir, idx));
        }
        let mut journal_notices = Vec::new();
        for (ri, r) in roots.iter().enumerate() {
            for d in read_journal(r, &mut journal_notices) {
                owners.claim(&d.name, ri, &r.join(JOURNAL))?;
                let e = by_name.entry(d.name.clone()).or_default();
                e.name = d.name.clone();
                let name = d.name.clone();
                pending.entry(name).or_default().journal = Some(d);
            }
        }
        for n in journal_notices {
            snap.push_notice(n, (3, 0));
        }
        redact_notices(&mut snap.notices);
        snap.pending = by_name
            .keys()
            .map(|n| {
                let mut p = pending.remove(n).unwrap_or_default();
                p.root = owners.root_of(n);
                p
            })
            .collect();
        snap.devices = by_name.into_values().collect();
        Ok(snap)
    }

    /// The `fabric.toml` the snapshot uses (in the folder that holds it), as a path to
    /// name in messages.
    pub fn fabric_path(&self) -> PathBuf {
        self.fabric_root.join("fabric.toml")
    }

    fn push_notice(&mut self, n: Notice, key: NoticeKey) {
        self.notices.push(n);
        self.notice_keys.push(key);
    }

    /// Device `i` with its files read and redacted, and the notices reading them gave (each
    /// with its place among the snapshot's notices). A snapshot from [`Snapshot::read`] hands
    /// back the device it holds.
    pub fn load_device(&self, i: usize) -> (Cow<'_, DeviceInput>, Vec<(NoticeKey, Notice)>) {
        let Some(p) = self.pending.get(i) else {
            return (Cow::Borrowed(&self.devices[i]), Vec::new());
        };
        let mut dev = self.devices[i].clone();
        let mut out = Vec::new();
        for (path, r, idx) in &p.configs {
            let text = match read_text(path) {
                Err(read::ReadError::Refused(why)) => {
                    let n = Notice::refused(Some(dev.name.clone()), r.clone(), &why);
                    out.push(((1, *idx), n));
                    continue;
                }
                t => t.map_err(|e| e.to_string()),
            };
            dev.files.push(InputFile {
                rel: r.clone(),
                command: None,
                text: text.map(|t| crate::redact::redact_owned(t).0),
            });
        }
        if let Some((dir, idx)) = &p.dir {
            let mut ns = Vec::new();
            let root = self.roots.get(p.root).unwrap_or(&self.root);
            read_device_dir(root, dir, &mut dev, &mut ns);
            out.extend(ns.into_iter().map(|n| ((2, *idx), n)));
        }
        if let Some(d) = &p.journal {
            apply_journal(&mut dev, d);
        }
        dev.error = dev.error.take().map(|e| crate::redact::redact(&e).0);
        for (_, n) in &mut out {
            n.message = crate::redact::redact(&n.message).0;
        }
        (Cow::Owned(dev), out)
    }

    /// The snapshot's notices with those of loaded devices, in the order of a whole read:
    /// fabric.toml, configs/ entries, devices/ entries, the journal.
    pub fn merge_notices(&self, devices: Vec<(NoticeKey, Notice)>) -> Vec<Notice> {
        self.merge_keyed(devices)
            .into_iter()
            .map(|(_, n)| n)
            .collect()
    }

    fn merge_keyed(&self, devices: Vec<(NoticeKey, Notice)>) -> Vec<(NoticeKey, Notice)> {
        let mut all: Vec<(NoticeKey, Notice)> = self
            .notice_keys
            .iter()
            .copied()
            .zip(self.notices.iter().cloned())
            .chain(devices)
            .collect();
        all.sort_by_key(|(k, _)| *k);
        all
    }

    /// The 1-based line of a byte offset in fabric.toml (as [`line_col`] counts it). A binary
    /// search over the newlines: the plan of a 10,000-device fabric asks this for every link
    /// end, and counting from the start each time was quadratic (4.3 CPU-s of 47).
    pub fn fabric_line(&self, offset: usize) -> u32 {
        let text = self.fabric_text.as_bytes();
        let newlines = self
            .fabric_newlines
            .get_or_init(|| memchr::memchr_iter(b'\n', text).collect());
        let offset = offset.min(text.len());
        (newlines.partition_point(|&p| p < offset) + 1) as u32
    }
}

/// The journal of a collection (`collection.toml`): a device it lists that has no folder was
/// never finished (a crash, or the run is still going): it is recorded as not collected.
fn read_journal(root: &Path, notices: &mut Vec<Notice>) -> Vec<JournalDevice> {
    let path = root.join(JOURNAL);
    if !read::entry_exists(&path) {
        return Vec::new();
    }
    let rel_p = rel(root, &path);
    let text = match read_text(&path) {
        Ok(t) => Ok(t),
        Err(read::ReadError::Refused(why)) => {
            notices.push(Notice::refused(None, rel_p, &why));
            return Vec::new();
        }
        Err(e) => Err(e.to_string()),
    };
    let journal = match text.and_then(|t| {
        crate::toml_pieces::from_str::<Journal>(&t).map_err(|e| toml_error(&rel_p, &t, &e))
    }) {
        Ok(j) => j,
        Err(e) => {
            notices.push(Notice {
                device: None,
                file: rel_p,
                line: None,
                message: format!("collection journal unreadable: {e}"),
                refused: false,
            });
            return Vec::new();
        }
    };
    if journal.state == "running" {
        notices.push(Notice {
            device: None,
            file: rel_p.clone(),
            line: None,
            message: format!(
                "the collection started at {} never finished (still running, or it crashed)",
                journal.started_at
            ),
            refused: false,
        });
    }
    journal.devices
}

/// A device the journal lists but that left nothing usable was not collected: say why.
fn apply_journal(e: &mut DeviceInput, d: &JournalDevice) {
    if e.error.is_none() && e.files.is_empty() && d.status != "collected" {
        e.error = Some(d.error.clone().unwrap_or_else(|| match d.status.as_str() {
            "pending" => "collection did not finish for this device".into(),
            other => format!("collection status {other}"),
        }));
    }
}

/// Read one device folder (device.toml + outputs) on its own, paths relative to `root`.
pub fn read_device_folder(root: &Path, dir: &Path) -> (DeviceInput, Vec<Notice>) {
    let mut dev = DeviceInput {
        name: dir
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        ..Default::default()
    };
    let mut notices = Vec::new();
    read_device_dir(root, dir, &mut dev, &mut notices);
    redact_notices(&mut notices);
    (dev, notices)
}

/// The keys `DeviceToml` and `CommandEntry` read.
const DEVICE_KEYS: &[&str] = &[
    "name",
    "platform",
    "role",
    "address",
    "collected_at",
    "error",
    "limits_hit",
    "command",
];
const COMMAND_KEYS: &[&str] = &[
    "cmd",
    "file",
    "exit",
    "exit_status",
    "duration_ms",
    "bytes",
    "error",
    "stderr",
    "optional",
];

/// The keys of a `device.toml` that it does not know: (key, where, byte offset of the key).
fn unknown_device_keys(doc: &toml::de::DeTable) -> Vec<(String, String, usize)> {
    use toml::de::DeValue;
    let mut out = Vec::new();
    for (k, v) in doc.iter() {
        let key: &str = k.get_ref();
        if !DEVICE_KEYS.contains(&key) {
            out.push((key.to_string(), "at the top".into(), k.span().start));
            continue;
        }
        if key != "command" {
            continue;
        }
        if let DeValue::Array(items) = v.get_ref() {
            for (n, item) in items.iter().enumerate() {
                if let DeValue::Table(t) = item.get_ref() {
                    for (ck, _) in t.iter() {
                        let ckey: &str = ck.get_ref();
                        if !COMMAND_KEYS.contains(&ckey) {
                            out.push((
                                ckey.to_string(),
                                format!("in [[command]] {}", n + 1),
                                ck.span().start,
                            ));
                        }
                    }
                }
            }
        }
    }
    out
}

fn read_device_dir(root: &Path, dir: &Path, dev: &mut DeviceInput, notices: &mut Vec<Notice>) {
    let toml_path = dir.join("device.toml");
    let mut meta = DeviceToml::default();
    let toml_rel = rel(root, &toml_path);
    // The folder is listed once: its entries' types spare each file an `lstat`.
    let entries = sorted_entries(dir).ok();
    let toml_entry = match &entries {
        Some(es) => es
            .iter()
            .find(|(p, _)| *p == toml_path)
            .map(|(_, ft)| Some(*ft)),
        None => read::entry_exists(&toml_path).then_some(None),
    };
    if let Some(ft) = toml_entry {
        let text = match ft {
            Some(ft) => read::read_text_of(&toml_path, ft),
            None => read_text(&toml_path),
        };
        match text {
            // Parsed once: the unknown keys are read from the same document.
            Ok(text) => match toml::de::DeTable::parse(&text).and_then(|doc| {
                let unknown = unknown_device_keys(doc.get_ref());
                serde::Deserialize::deserialize(toml::de::Deserializer::from(doc))
                    .map(|m: DeviceToml| (m, unknown))
            }) {
                Ok((m, unknown)) => {
                    meta = m;
                    redact_meta(&mut meta);
                    for (key, at, offset) in unknown {
                        let (line, col) = line_col(&text, offset);
                        notices.push(Notice {
                            device: Some(dev.name.clone()),
                            file: toml_rel.clone(),
                            line: Some(line as u32),
                            message: format!(
                                "{toml_rel}:{line}:{col}: unknown field {key:?} {at} ignored (known fields: {}); the rest of device.toml is used",
                                if at == "at the top" {
                                    DEVICE_KEYS.join(", ")
                                } else {
                                    COMMAND_KEYS.join(", ")
                                }
                            ),
                            refused: false,
                        });
                    }
                }
                Err(e) => notices.push(Notice {
                    device: Some(dev.name.clone()),
                    file: toml_rel.clone(),
                    line: e.span().map(|s| line_col(&text, s.start).0 as u32),
                    message: format!(
                        "device.toml ignored: {}",
                        toml_error(&toml_rel, &text, &(&e).into())
                    ),
                    refused: false,
                }),
            },
            Err(read::ReadError::Refused(why)) => notices.push(Notice::refused(
                Some(dev.name.clone()),
                toml_rel.clone(),
                &why,
            )),
            Err(e) => notices.push(Notice {
                device: Some(dev.name.clone()),
                file: toml_rel.clone(),
                line: None,
                message: e.to_string(),
                refused: false,
            }),
        }
    }
    if dev.platform.is_none()
        && let Some(p) = &meta.platform
    {
        dev.platform = Some(p.clone());
        dev.platform_reason = "device.toml".into();
    }
    if dev.role.is_none() {
        dev.role = meta.role.clone();
    }
    dev.error = meta.error.clone();
    for limit in &meta.limits_hit {
        notices.push(Notice {
            device: Some(dev.name.clone()),
            file: toml_rel.clone(),
            line: None,
            message: format!("collection cut short by a budget: {limit}"),
            refused: false,
        });
    }
    let mut mapped: BTreeMap<String, String> = BTreeMap::new();
    for c in &meta.commands {
        let stderr = c
            .stderr
            .as_deref()
            .map(|e| format!(" ({})", e.lines().next().unwrap_or("").trim()))
            .unwrap_or_default();
        if c.optional {
            // Expected to fail on some devices (a tunable the driver lacks): not a problem.
        } else if let Some(err) = &c.error {
            notices.push(Notice {
                device: Some(dev.name.clone()),
                file: toml_rel.clone(),
                line: None,
                message: format!(
                    "command {:?} failed during collection: {err}{stderr}",
                    c.cmd
                ),
                refused: false,
            });
        } else if let Some(code) = c.exit.filter(|&e| e != 0) {
            notices.push(Notice {
                device: Some(dev.name.clone()),
                file: toml_rel.clone(),
                line: None,
                message: format!("command {:?} exited with status {code}{stderr}", c.cmd),
                refused: false,
            });
        }
        let Some(file) = &c.file else {
            continue;
        };
        if file.contains('/') || file.contains("..") {
            notices.push(Notice {
                device: Some(dev.name.clone()),
                file: toml_rel.clone(),
                line: None,
                message: format!(
                    "file {:?} of command {:?} is outside the device folder",
                    file, c.cmd
                ),
                refused: false,
            });
            continue;
        }
        mapped.insert(file.clone(), c.cmd.clone());
    }
    let Some(entries) = entries else {
        return;
    };
    for (p, ft) in entries {
        let fname = p
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if fname == "device.toml" || fname.starts_with('.') {
            continue;
        }
        let r = rel(root, &p);
        if ft.is_dir() {
            notices.push(Notice {
                device: Some(dev.name.clone()),
                file: r,
                line: None,
                message: "unexpected folder inside a device folder".into(),
                refused: false,
            });
            continue;
        }
        let text = match read::read_text_of(&p, ft) {
            Err(read::ReadError::Refused(why)) => {
                // Mapped or not, the file is accounted for by the refusal.
                mapped.remove(&fname);
                notices.push(Notice::refused(Some(dev.name.clone()), r, &why));
                continue;
            }
            t => t.map_err(|e| e.to_string()),
        };
        dev.files.push(InputFile {
            rel: r,
            command: mapped.remove(&fname),
            text: text.map(|t| crate::redact::redact_owned(t).0),
        });
    }
    for (file, cmd) in mapped {
        notices.push(Notice {
            device: Some(dev.name.clone()),
            file: toml_rel.clone(),
            line: None,
            message: format!(
                "device.toml lists {file:?} for command {cmd:?} but the file is missing"
            ),
            refused: false,
        });
    }
}

// ---- The snapshot's own files as `collect` writes them (the journal and device.toml entries).

pub const JOURNAL: &str = "collection.toml";

/// One command as recorded in device.toml.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CommandRecord {
    pub cmd: String,
    /// Output file in the device folder; absent when the command printed nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit: Option<i32>,
    pub duration_ms: u64,
    pub bytes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub optional: bool,
}

/// The journal of a collection run.
#[derive(Debug, Clone, serde::Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Journal {
    pub tool: String,
    pub inventory: String,
    pub started_at: String,
    #[serde(default)]
    pub finished_at: Option<String>,
    /// running | finished | interrupted
    pub state: String,
    /// Written by `collect --shard K/N`: this folder holds shard K of N of the collection;
    /// `fabric.toml` plans the whole fabric and the journal lists this shard's devices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<JournalShard>,
    /// The run's command budget and what was sent (written when the run ends).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<JournalLimits>,
    #[serde(default, rename = "device")]
    pub devices: Vec<JournalDevice>,
}

/// Which shard of a split collection a snapshot folder holds (`collect --shard K/N`).
#[derive(Debug, Clone, Copy, serde::Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct JournalShard {
    /// K, from 1.
    pub index: u32,
    /// N.
    pub count: u32,
}

/// The run-wide budget of a collection, as the journal states it.
#[derive(Debug, Clone, serde::Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct JournalLimits {
    /// Commands the run was allowed to send (`--command-budget`).
    pub command_budget: u64,
    /// Commands it sent.
    pub commands_sent: u64,
}

#[derive(Debug, Clone, serde::Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JournalDevice {
    pub name: String,
    /// pending | collected | failed | interrupted
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Budgets the device ran into (the interface cap, its deadline, the run's budget).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub limits_hit: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fabric_line_counts_lines_as_line_col_does() {
        let snap = Snapshot {
            fabric_text: "[policy]\nmtu = 9000\n\n[[link]]\na = \"x:1\"\n".into(),
            ..Default::default()
        };
        for offset in 0..=snap.fabric_text.len() + 3 {
            assert_eq!(
                snap.fabric_line(offset) as usize,
                line_col(&snap.fabric_text, offset).0,
                "offset {offset}"
            );
        }
    }
    #[test]
    fn file_names_follow_the_contract() {
        assert_eq!(
            command_file_name("ip -d -j link show"),
            "ip_-d_-j_link_show.txt"
        );
        assert_eq!(
            command_file_name("grep -H . /sys/class/net/eth2/ecn/roce_np/enable/*"),
            "grep_-H_.__sys_class_net_eth2_ecn_roce_np_enable__.txt"
        );
    }
}
