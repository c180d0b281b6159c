//! The input of every report format: one audit, or the change between two audits.
//!
//! [`Review`] is what every format renders: a plain audit is a review whose findings are all
//! "new" (nothing to compare with), so one renderer serves `audit`, `diff` and `review`. The
//! audit fills it directly ([`Review::of_audit`]); the change review (`crate::review`) fills it
//! from two audits.

use crate::audit::Audit;
use crate::finding::Finding;
use crate::rules::waivers::Waived;
use serde::Serialize;

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
    pub new: Vec<Finding>,
    /// Findings the change removed (empty for a plain audit).
    pub fixed: Vec<Finding>,
    /// Findings present before and after.
    pub unchanged: Vec<Finding>,
    /// Findings a waiver accepts, new or not: listed apart, never failing.
    pub waived: Vec<Waived>,
}

impl<'a> Review<'a> {
    /// A plain audit: every finding counts as new.
    pub fn of_audit(audit: &'a Audit, snapshot: &str) -> Review<'a> {
        Review {
            scope: Scope::Audit {
                snapshot: snapshot.to_string(),
            },
            audit,
            new: audit.findings.clone(),
            fixed: Vec::new(),
            unchanged: Vec::new(),
            waived: audit.waived.clone(),
        }
    }

    /// True when two states were compared (diff, review), false for a plain audit.
    pub fn is_change(&self) -> bool {
        !matches!(self.scope, Scope::Audit { .. })
    }

    /// The path of a finding's source file as a CI system wants it: relative to the
    /// repository root for a git review (the snapshot folder, then the file), relative to the
    /// snapshot folder otherwise. None when the finding cites no file.
    pub fn source_path(&self, f: &Finding) -> Option<String> {
        let file = f.source.as_ref()?.file.trim_start_matches("./");
        Some(match &self.scope {
            Scope::Git { path, .. } if path != "." && !path.is_empty() => {
                format!("{}/{file}", path.trim_end_matches('/'))
            }
            _ => file.to_string(),
        })
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

fn short(commit: &str) -> &str {
    commit.get(..10).unwrap_or(commit)
}

/// How many findings have this severity.
pub fn count(fs: &[Finding], s: crate::finding::Severity) -> usize {
    fs.iter().filter(|f| f.severity == s).count()
}
