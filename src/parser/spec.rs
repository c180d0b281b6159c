//! The data side of a vendor parser: the TOML files in `vendor-parsers/`, as serde reads them.
//!
//! A spec is validated and compiled into a [`super::Platform`] once; every error names the
//! file and line (see `vendor-parsers/README.md` for the format with annotated examples).

use serde::Deserialize;
use toml::Spanned;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlatformSpec {
    /// Platform id (nxos, eos, linux, ...).
    pub platform: String,
    /// Human name.
    pub name: String,
    #[serde(default)]
    pub session: Option<SessionSpec>,
    #[serde(default)]
    pub detect: Option<DetectSpec>,
    /// Extra secret patterns of this platform, applied line by line after the built-in rules
    /// of `src/redact.rs`: every capture group (or the whole match) becomes `<redacted>`.
    #[serde(default)]
    pub redact: Vec<String>,
    #[serde(default, rename = "command")]
    pub commands: Vec<CommandSpec>,
}

/// How the collector talks to the device (used by `collect`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionSpec {
    /// exec | shell
    pub mode: String,
    #[serde(default)]
    pub prompt: Option<String>,
    #[serde(default)]
    pub paging_off: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DetectSpec {
    /// Minimum total score for the platform to be chosen.
    pub min_score: u32,
    #[serde(rename = "evidence")]
    pub evidence: Vec<EvidenceSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvidenceSpec {
    /// Regex matched against each trimmed line (multi-line mode).
    pub regex: Spanned<String>,
    pub score: u32,
    /// What the match shows, for the report ("NX-OS 'feature' statement").
    pub why: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandSpec {
    /// The command line; `{if}` / `{dev}` are placeholders filled per RDMA netdev / device.
    pub cmd: String,
    /// Stable id the platform module keys on.
    pub id: String,
    /// The output is a form of the device's configuration: a file in `configs/` is read with
    /// this command when it reads it best of the platform's config forms (the first such
    /// command of the file is the primary form, tried first).
    #[serde(default)]
    pub config: bool,
    /// lines (indentation-nested records) | json
    #[serde(default = "default_format")]
    pub format: String,
    /// What the collector does per run: once | per-interface | per-rdma-device.
    #[serde(default = "default_per")]
    pub per: String,
    /// Optional: this output may legitimately be absent on some devices.
    #[serde(default)]
    pub optional: bool,
    /// Whether `collect` runs this command. `false` marks another format of facts a collected
    /// command already gives (hand-assembled snapshots, older tool versions): read, never sent.
    #[serde(default = "yes")]
    pub collect: bool,
    /// Counters that `probe` reads before and after every probe (PFC frames, ECN marks, drops).
    #[serde(default)]
    pub counters: bool,
    /// Metacharacters the read-only allow-list accepts in this command (e.g. `*` for a sysfs
    /// glob); see `crate::parser::allow`.
    #[serde(default)]
    pub allow_chars: String,
    /// The model fields this command's output fills (paths such as `interfaces[].pfc.mode`), as
    /// measured on its golden cases: tests/spec/golden.rs checks the list and rewrites it with
    /// UPDATE_GOLDEN=1. `fabric-audit parsers` prints it.
    #[serde(default)]
    pub fills: Vec<String>,
    /// Reuse the records and ignores of another command of this platform (by id), before this
    /// command's own (e.g. `show running-config interface` reads like `show running-config`).
    #[serde(default)]
    pub records_from: Option<String>,
    #[serde(default, rename = "record")]
    pub records: Vec<RecordSpec>,
    #[serde(default)]
    pub ignore: IgnoreSpec,
}

fn default_format() -> String {
    "lines".into()
}
fn yes() -> bool {
    true
}
fn default_per() -> String {
    "once".into()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordSpec {
    /// Record kind the Rust module matches on.
    pub kind: String,
    /// Regex against the line with leading whitespace and the line ending removed.
    pub regex: Spanned<String>,
    /// Kinds of the enclosing (less indented) record this may appear under; absent = top level
    /// only; "*" = anywhere.
    #[serde(default)]
    pub parent: Option<Parent>,
}

#[derive(Debug, Deserialize, Clone)]
#[serde(untagged)]
pub enum Parent {
    One(String),
    Many(Vec<String>),
}

impl Parent {
    pub fn list(&self) -> Vec<String> {
        match self {
            Parent::One(s) => vec![s.clone()],
            Parent::Many(v) => v.clone(),
        }
    }
}

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct IgnoreSpec {
    /// Lines that are understood and carry nothing the model needs (any depth).
    #[serde(default)]
    pub lines: Vec<Spanned<String>>,
    /// Lines that open a block ignored with everything indented below it.
    #[serde(default)]
    pub blocks: Vec<Spanned<String>>,
    /// Blocks that end at a delimiter line rather than by indentation (banners).
    #[serde(default)]
    pub until: Vec<UntilSpec>,
}

/// `start` opens a block that runs to the first line matching `end` (inclusive). `end` may use
/// `{delim}`, replaced by the text `start` captured in its group named `delim` (NX-OS
/// `banner motd #` ... `#`); when the start line itself holds the end, the block is that line.
#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct UntilSpec {
    pub start: Spanned<String>,
    pub end: String,
}
