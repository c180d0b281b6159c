//! Change review: what a change introduces. Findings of two audits are matched by identity
//! (rule, device, interface, peer; the message only to tell apart several findings of one
//! rule on one object), never by line number, and classed new / fixed / unchanged.
//!
//! The result is a [`Review`] (defined with the report input, `crate::report::input`), which
//! every report format renders.

pub mod diff;
pub mod git;

pub use crate::report::input::{Review, Scope, count};

use crate::audit::Audit;
use crate::finding::Finding;
use std::collections::BTreeMap;

impl<'a> Review<'a> {
    /// Compare two audits. Waived findings take part in the matching (so waiving a finding
    /// never makes it look fixed) and are then set apart.
    pub fn of_change(before: &Audit, after: &'a Audit, scope: Scope) -> Review<'a> {
        let all = |a: &Audit| -> Vec<Finding> {
            a.findings
                .iter()
                .cloned()
                .chain(a.waived.iter().map(|w| w.finding.clone()))
                .collect()
        };
        let d = diff::diff(&all(before), &all(after));
        let waived = |f: &Finding| after.waived.iter().any(|w| &w.finding == f);
        Review {
            scope,
            audit: after,
            new: std::borrow::Cow::Owned(d.new.into_iter().filter(|f| !waived(f)).collect()),
            fixed: d.fixed,
            unchanged: d.unchanged.into_iter().filter(|f| !waived(f)).collect(),
            waived: std::borrow::Cow::Borrowed(&after.waived),
            root: None,
            more_roots: Vec::new(),
        }
    }
}

impl Review<'_> {
    /// Point each new finding at the line of the change that made it: a new finding whose cited
    /// line the change did not touch, in a file the change did touch, is moved to the nearest
    /// changed line of that file (a CI system shows an annotation only on the lines of the
    /// diff; the line that defines the faulty value is the changed one, not the
    /// `service-policy` that binds it). The line first cited is kept as evidence `cited_line`.
    /// `changed`: per snapshot-relative file, the head lines the change added or rewrote;
    /// `head_text` reads a file of the head tree, for [`suggest`].
    pub fn anchor_to_change(
        &mut self,
        changed: &BTreeMap<String, Vec<u32>>,
        head_text: &dyn Fn(&str) -> Option<String>,
    ) {
        for f in self.new.to_mut().iter_mut() {
            let Some(src) = f.source.as_mut() else {
                continue;
            };
            let Some(lines) = changed.get(src.file.trim_start_matches("./")) else {
                continue;
            };
            if src.line > 0 && !lines.contains(&src.line) {
                // The changed lines the finding's fix rewrites come first (the `match dscp 24`
                // a fix replaces, not an unrelated edit that happens to be nearer).
                let text = head_text(&src.file).unwrap_or_default();
                let fixed: Vec<u32> = lines
                    .iter()
                    .copied()
                    .filter(|&l| fix_rewrites(f_fix(&f.remediation), &text, l))
                    .collect();
                let pool = if fixed.is_empty() { lines } else { &fixed };
                let Some(&near) = pool.iter().min_by_key(|l| l.abs_diff(src.line)) else {
                    continue;
                };
                f.evidence.insert("cited_line", serde_json::json!(src.line));
                src.line = near;
            }
            if let Some(text) = head_text(&src.file)
                && let Some(s) = suggest(f, &text)
            {
                f.evidence.insert("suggestion", serde_json::json!(s));
            }
        }
    }
}

fn f_fix(r: &Option<crate::finding::Remediation>) -> Option<&str> {
    r.as_ref()
        .filter(|r| r.device.is_none())
        .map(|r| r.snippet.as_str())
}

/// Whether a fix's snippet rewrites line `line_no` of `file_text`: it says `no` to it, or one of
/// its lines the file does not have yet differs from it only in the last word (`match dscp 26`
/// for `match dscp 24`, `mtu 9216` for `mtu 9100`).
fn fix_rewrites(snippet: Option<&str>, file_text: &str, line_no: u32) -> bool {
    let Some(snippet) = snippet else {
        return false;
    };
    let Some(cur) = file_text
        .lines()
        .nth((line_no as usize).saturating_sub(1))
        .map(str::trim)
        .filter(|c| !c.is_empty())
    else {
        return false;
    };
    let present: std::collections::BTreeSet<&str> = file_text.lines().map(str::trim).collect();
    let head = |s: &str| -> Vec<String> {
        let w: Vec<&str> = s.split_whitespace().collect();
        w[..w.len().saturating_sub(1)]
            .iter()
            .map(|x| x.to_string())
            .collect()
    };
    snippet.lines().map(str::trim).any(|l| {
        l.strip_prefix("no ") == Some(cur)
            || (!present.contains(l)
                && l.split_whitespace().count() == cur.split_whitespace().count()
                && !head(l).is_empty()
                && head(l) == head(cur))
    })
}

/// The one line a finding's fix changes in its file, as a replacement of the finding's (changed)
/// line: a GitHub suggestion. There is one when the fix's snippet, less the lines the file
/// already has, is one new line `L` (plus at most a `no X` of the finding's own line), and `L`
/// replaces the finding's line: the snippet says `no` to it, or both start with the same word
/// and differ in the value (`mtu 9100` → `mtu 9216`). The suggestion keeps the line's indent.
pub fn suggest(f: &Finding, file_text: &str) -> Option<String> {
    let rem = f.remediation.as_ref()?;
    if rem.device.is_some() {
        return None;
    }
    let line_no = f.source.as_ref()?.line as usize;
    let current = file_text.lines().nth(line_no.checked_sub(1)?)?;
    let cur = current.trim();
    if cur.is_empty() {
        return None;
    }
    let present: std::collections::BTreeSet<&str> = file_text.lines().map(str::trim).collect();
    let mut new_lines = Vec::new();
    let mut says_no = false;
    for l in rem.snippet.lines().map(str::trim) {
        if l.is_empty() || l.starts_with('#') || l.starts_with('!') || present.contains(l) {
            continue;
        }
        if l.strip_prefix("no ") == Some(cur) {
            says_no = true;
            continue;
        }
        new_lines.push(l);
    }
    let [new] = new_lines.as_slice() else {
        return None;
    };
    let first = |s: &str| s.split_whitespace().next().map(str::to_string);
    let same_key = first(new) == first(cur)
        && new.split_whitespace().count() == cur.split_whitespace().count();
    if !(says_no || same_key) {
        return None;
    }
    let indent = &current[..current.len() - current.trim_start().len()];
    Some(format!("{indent}{new}"))
}
