//! The input of every report format: one audit, or the change between two audits.
//!
//! [`Review`] is what every format renders: a plain audit is a review whose findings are all
//! "new" (nothing to compare with), so one renderer serves `audit`, `diff` and `review`. The
//! audit fills an [`Audit`] (`crate::audit`, with the rule catalog as [`RuleEntry`]s and the
//! waived findings as [`Waived`]) and a review of it directly ([`Review::of_audit`]); the change
//! review (`crate::review`) fills the review from two audits. Reports read only these types:
//! nothing of the rule engine or the review.

use crate::finding::{Finding, Passes};
use crate::model::Fabric;
use crate::model::probe::Probe;
use serde::Serialize;
use std::borrow::Cow;

/// Everything a report needs from one audit (filled by `crate::audit`).
pub struct Audit {
    pub fabric: Fabric,
    pub findings: Vec<Finding>,
    pub rules: usize,
    /// Per rule, how many objects it checked and found correct, and on which platforms.
    pub passes: Passes,
    /// Probe results (from the snapshot's `probes.json` or a probe run).
    pub probes: Vec<Probe>,
    /// Findings a waiver accepted: not in `findings`, listed apart in every report.
    pub waived: Vec<Waived>,
    /// The rule catalog the audit ran (for reports that describe rules: SARIF, JUnit, HTML).
    pub catalog: Vec<RuleEntry>,
}

/// One rule of the catalog as reports describe it: SARIF `tool.driver.rules`, JUnit case
/// names, `--rule`/`--family` selection.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleEntry {
    pub id: String,
    pub title: String,
    pub family: String,
    /// The rule's declared severity (`error`, `warning`, `info`).
    pub severity: String,
    /// What the rule checks.
    pub what: String,
    /// Why it matters.
    pub why: String,
    /// How to fix what it finds.
    pub fix: String,
    /// The guidance it follows (title, vendor, URL).
    pub references: Vec<String>,
}

/// A finding a waiver accepted, with the waiver.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Waived {
    pub finding: Finding,
    pub waiver: WaiverEntry,
}

/// A waiver as written in the waiver file, with its place.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WaiverEntry {
    pub rule: String,
    pub device: String,
    pub object: String,
    pub reason: String,
    pub owner: String,
    pub expires: String,
    pub file: String,
    pub line: u32,
}

/// What a report describes.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Scope {
    /// One snapshot, nothing to compare with.
    Audit { snapshot: String },
    /// Two snapshot folders.
    Diff { before: String, after: String },
    /// A snapshot folder kept in git, at two refs.
    Git {
        repo: String,
        /// The snapshot folder inside the repository ("." for its root).
        path: String,
        base: String,
        head: String,
        base_commit: String,
        head_commit: String,
    },
}

/// The input of every report format.
pub struct Review<'a> {
    pub scope: Scope,
    /// The audit of the snapshot as it is now (after the change): its fabric, parse results,
    /// probes and rule catalog.
    pub audit: &'a Audit,
    /// Findings the change introduces; for a plain audit, every finding. Only these fail.
    /// Borrowed from the audit for a plain audit: a copy of every finding was the largest
    /// part of the review (issue 19: about 9 times the input on a config of many ports).
    pub new: Cow<'a, [Finding]>,
    /// Findings the change removed (empty for a plain audit).
    pub fixed: Vec<Finding>,
    /// Findings present before and after.
    pub unchanged: Vec<Finding>,
    /// Findings a waiver accepts, new or not: listed apart, never failing (borrowed from the
    /// audit for a plain audit, as `new`).
    pub waived: Cow<'a, [Waived]>,
    /// The folder the findings' source files are relative to, as named from the working
    /// directory (the snapshot folder the user gave): with it, the paths CI formats write
    /// (SARIF, GitHub annotations, JUnit, Markdown) open from the working directory, not
    /// from inside the snapshot. None: paths stay relative to the snapshot. A git review
    /// ignores it (its paths are relative to the repository root).
    pub root: Option<String>,
    /// More folders audited with `root` as one fabric: a file is found in whichever holds it.
    pub more_roots: Vec<String>,
}

impl<'a> Review<'a> {
    /// A plain audit: every finding counts as new.
    pub fn of_audit(audit: &'a Audit, snapshot: &str) -> Review<'a> {
        Review {
            scope: Scope::Audit {
                snapshot: snapshot.to_string(),
            },
            audit,
            new: Cow::Borrowed(&audit.findings),
            fixed: Vec::new(),
            unchanged: Vec::new(),
            waived: Cow::Borrowed(&audit.waived),
            root: None,
            more_roots: Vec::new(),
        }
    }

    /// The same review, its source paths given relative to the working directory through
    /// `root` (the snapshot folder as the user named it).
    pub fn with_root(mut self, root: &str) -> Review<'a> {
        self.root = Some(root.to_string());
        self
    }

    /// [`Review::with_root`] for several folders audited as one fabric: each file is named
    /// in the folder that holds it.
    pub fn with_roots(mut self, roots: &[String]) -> Review<'a> {
        if let Some((first, more)) = roots.split_first() {
            self.root = Some(first.clone());
            self.more_roots = more.to_vec();
        }
        self
    }

    /// True when two states were compared (diff, review), false for a plain audit.
    pub fn is_change(&self) -> bool {
        !matches!(self.scope, Scope::Audit { .. })
    }

    /// The path of a finding's source file as a CI system wants it: relative to the
    /// repository root for a git review (the snapshot folder, then the file), relative to the
    /// snapshot folder otherwise. None when the finding cites no file.
    pub fn source_path(&self, f: &Finding) -> Option<String> {
        Some(self.path_of(&f.source.as_ref()?.file))
    }

    /// A snapshot-relative file as a CI system wants it (see [`Review::source_path`]).
    pub fn path_of(&self, file: &str) -> String {
        let file = file.trim_start_matches("./");
        match (&self.scope, &self.root) {
            (Scope::Git { path, .. }, _) if path != "." && !path.is_empty() => {
                format!("{}/{file}", path.trim_end_matches('/'))
            }
            (Scope::Git { .. }, _) | (_, None) => file.to_string(),
            (_, Some(root)) => {
                let holder = std::iter::once(root)
                    .chain(&self.more_roots)
                    .map(|r| std::path::Path::new(r).join(file))
                    .find(|p| self.more_roots.is_empty() || p.symlink_metadata().is_ok());
                let path = holder.unwrap_or_else(|| std::path::Path::new(root).join(file));
                relative_to_cwd(&path)
            }
        }
    }

    /// Where a finding is in the files: its source, or else the file that holds its device's
    /// configuration (the first file of the device when it has no config), or for a
    /// fabric-wide finding, the first file of the snapshot. Code scanning (SARIF) rejects a
    /// result without a physical location. The line is None when the finding cites none.
    pub fn location(&self, f: &Finding) -> Option<(String, Option<u32>)> {
        if let Some(p) = self.source_path(f) {
            return Some((p, Self::source_line(f)));
        }
        let fabric = &self.audit.fabric;
        let files = |d: &crate::model::Device| -> Option<String> {
            d.parse
                .iter()
                .find(|p| p.command == "config")
                .or_else(|| d.parse.first())
                .map(|p| p.file.clone())
        };
        let file = match fabric.devices.iter().find(|d| *d.name == *f.device) {
            Some(d) => files(d),
            None => None,
        }
        .or_else(|| fabric.devices.iter().find_map(files))?;
        Some((self.path_of(&file), None))
    }

    /// The finding's source line, when it names one (line numbers start at 1).
    pub fn source_line(f: &Finding) -> Option<u32> {
        f.source.as_ref().map(|s| s.line).filter(|l| *l > 0)
    }

    /// A one-line summary: what was compared and the counts.
    pub fn headline(&self) -> String {
        let what = match &self.scope {
            Scope::Audit { snapshot } => format!("audit of {snapshot}"),
            Scope::Diff { before, after } => format!("{before} → {after}"),
            Scope::Git {
                base,
                head,
                base_commit,
                head_commit,
                path,
                ..
            } => format!(
                "{base} ({}) → {head} ({}){}",
                short(base_commit),
                short(head_commit),
                if path == "." {
                    String::new()
                } else {
                    format!(", {path}")
                }
            ),
        };
        let waived = if self.waived.is_empty() {
            String::new()
        } else {
            format!(", {} waived", self.waived.len())
        };
        if self.is_change() {
            format!(
                "{what}: {} new ({} error), {} fixed, {} unchanged{waived}",
                self.new.len(),
                count(&self.new, crate::finding::Severity::Error),
                self.fixed.len(),
                self.unchanged.len()
            )
        } else {
            format!(
                "{what}: {} findings ({} error, {} warning, {} info){waived}",
                self.new.len(),
                count(&self.new, crate::finding::Severity::Error),
                count(&self.new, crate::finding::Severity::Warning),
                count(&self.new, crate::finding::Severity::Info)
            )
        }
    }
}

/// A path relative to the working directory when it lies under it, without `.` components;
/// `/` separated.
fn relative_to_cwd(p: &std::path::Path) -> String {
    use std::path::Component;
    let stripped = match std::env::current_dir() {
        Ok(cwd) if p.is_absolute() => p.strip_prefix(&cwd).unwrap_or(p),
        _ => p,
    };
    let parts: Vec<String> = stripped
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .map(|c| match c {
            Component::RootDir => String::new(),
            c => c.as_os_str().to_string_lossy().into_owned(),
        })
        .collect();
    match parts.as_slice() {
        [] => ".".to_string(),
        [first, rest @ ..] if first.is_empty() => format!("/{}", rest.join("/")),
        _ => parts.join("/"),
    }
}

fn short(commit: &str) -> &str {
    commit.get(..10).unwrap_or(commit)
}

/// How many findings have this severity.
pub fn count(fs: &[Finding], s: crate::finding::Severity) -> usize {
    fs.iter().filter(|f| f.severity() == s).count()
}
