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
use std::collections::{BTreeMap, HashMap, HashSet};

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
        // Each cited file is read, and its changed lines indexed, once for all the findings
        // that cite it (issue 19: per finding and changed line the file was read again and its
        // lines gathered, so a large change to a large file cost the cube of its size).
        let mut texts: BTreeMap<String, String> = BTreeMap::new();
        for f in self.new.iter() {
            if let Some(src) = f.source.as_ref()
                && changed.contains_key(src.file.trim_start_matches("./"))
                && !texts.contains_key(&*src.file)
            {
                let text = head_text(&src.file).unwrap_or_default();
                texts.insert(src.file.to_string(), text);
            }
        }
        let files: BTreeMap<&str, HeadFile> = texts
            .iter()
            .filter_map(|(file, text)| {
                let lines = changed.get(file.trim_start_matches("./"))?;
                Some((file.as_str(), HeadFile::new(text, lines)))
            })
            .collect();
        for f in self.new.to_mut().iter_mut() {
            let fix = f_fix(&f.remediation);
            let Some(mut src) = f.source else {
                continue;
            };
            let Some(hf) = files.get(src.file.as_str()) else {
                continue;
            };
            if src.line > 0 && hf.changed.binary_search(&src.line).is_err() {
                // The changed lines the finding's fix rewrites come first (the `match dscp 24`
                // a fix replaces, not an unrelated edit that happens to be nearer).
                let Some(near) = hf.nearest_rewritten(fix, src.line) else {
                    continue;
                };
                f.evidence_mut()
                    .insert("cited_line", serde_json::json!(src.line));
                src.line = near;
                f.source = Some(src);
            }
            if let Some(s) = suggest_in(f, hf) {
                f.evidence_mut().insert("suggestion", serde_json::json!(s));
            }
        }
    }
}

fn f_fix(r: &Option<Box<crate::finding::Remediation>>) -> Option<&str> {
    r.as_ref()
        .filter(|r| r.device.is_none())
        .map(|r| &*r.snippet)
}

/// All words of a line but the last: what a line that sets a new value keeps.
fn head(s: &str) -> Vec<&str> {
    let mut w: Vec<&str> = s.split_whitespace().collect();
    w.pop();
    w
}

/// A file of the head tree, for the findings that cite it: its lines, and its changed lines
/// indexed by what a fix's snippet can rewrite.
struct HeadFile<'t> {
    lines: Vec<&'t str>,
    /// Every line, trimmed.
    present: HashSet<&'t str>,
    /// The changed lines, ascending, once each.
    changed: Vec<u32>,
    /// Positions in `changed` by the line's trimmed text (a snippet's `no X` says no to it)
    /// and by its words but the last (a snippet's line with the same words sets it anew).
    by_text: HashMap<&'t str, Vec<usize>>,
    by_head: HashMap<Vec<&'t str>, Vec<usize>>,
}

impl<'t> HeadFile<'t> {
    fn new(text: &'t str, changed: &[u32]) -> HeadFile<'t> {
        let lines: Vec<&str> = text.lines().collect();
        let present = lines.iter().map(|l| l.trim()).collect();
        let mut sorted = changed.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        let mut by_text: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut by_head: HashMap<Vec<&str>, Vec<usize>> = HashMap::new();
        for (i, &n) in sorted.iter().enumerate() {
            let Some(cur) = lines
                .get((n as usize).saturating_sub(1))
                .map(|l| l.trim())
                .filter(|c| !c.is_empty())
            else {
                continue;
            };
            by_text.entry(cur).or_default().push(i);
            let h = head(cur);
            if !h.is_empty() {
                by_head.entry(h).or_default().push(i);
            }
        }
        HeadFile {
            lines,
            present,
            changed: sorted,
            by_text,
            by_head,
        }
    }

    /// The changed line nearest to `line` among those the fix's snippet rewrites, or among all
    /// changed lines when it rewrites none (the lower of two as near). A snippet rewrites a
    /// line when it says `no` to it, or when one of its lines the file does not have yet
    /// differs from it only in the last word (`match dscp 26` for `match dscp 24`, `mtu 9216`
    /// for `mtu 9100`).
    fn nearest_rewritten(&self, snippet: Option<&str>, line: u32) -> Option<u32> {
        let mut hits: Vec<usize> = Vec::new();
        for l in snippet.into_iter().flat_map(str::lines).map(str::trim) {
            if let Some(v) = l.strip_prefix("no ").and_then(|x| self.by_text.get(x)) {
                hits.extend(v);
            }
            if !self.present.contains(l)
                && let Some(v) = self.by_head.get(&head(l))
            {
                hits.extend(v);
            }
        }
        let pick = |i: usize| self.changed[i];
        if hits.is_empty() {
            let p = self.changed.partition_point(|&c| c < line);
            let below = p.checked_sub(1).map(pick);
            let above = self.changed.get(p).copied();
            return match (below, above) {
                (Some(b), Some(a)) if a.abs_diff(line) < b.abs_diff(line) => Some(a),
                (Some(b), _) => Some(b),
                (None, a) => a,
            };
        }
        hits.into_iter()
            .min_by_key(|&i| (pick(i).abs_diff(line), i))
            .map(pick)
    }
}

/// The one line a finding's fix changes in its file, as a replacement of the finding's (changed)
/// line: a GitHub suggestion. There is one when the fix's snippet, less the lines the file
/// already has, is one new line `L` (plus at most a `no X` of the finding's own line), and `L`
/// replaces the finding's line: the snippet says `no` to it, or both start with the same word
/// and differ in the value (`mtu 9100` → `mtu 9216`). The suggestion keeps the line's indent.
pub fn suggest(f: &Finding, file_text: &str) -> Option<String> {
    suggest_in(f, &HeadFile::new(file_text, &[]))
}

/// [`suggest`] in a file already read.
fn suggest_in(f: &Finding, file: &HeadFile) -> Option<String> {
    let rem = f.remediation.as_ref()?;
    if rem.device.is_some() {
        return None;
    }
    let line_no = f.source.as_ref()?.line as usize;
    let current = *file.lines.get(line_no.checked_sub(1)?)?;
    let cur = current.trim();
    if cur.is_empty() {
        return None;
    }
    let present = &file.present;
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

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "class-map type qos match-all ROCE\n  match dscp 24\n\
policy-map type qos P\n  class ROCE\n    set qos-group 3\ninterface Ethernet1/1\n  mtu 9100\n";

    #[test]
    fn the_nearest_changed_line_the_fix_rewrites_comes_first_then_the_nearest() {
        // Lines 2 (`match dscp 24`), 5 and 7 (`mtu 9100`) changed.
        let hf = HeadFile::new(FILE, &[7, 2, 5, 5]);
        assert_eq!(hf.changed, vec![2, 5, 7]);
        // A new value for `match dscp`: line 2, though 5 and 7 are nearer to line 6.
        assert_eq!(hf.nearest_rewritten(Some("match dscp 26"), 6), Some(2));
        // `no` to a line: that line.
        assert_eq!(
            hf.nearest_rewritten(Some("interface Ethernet1/1\n  no mtu 9100"), 1),
            Some(7)
        );
        // A line the file already has rewrites nothing: the nearest (4 is as near to 5 as
        // to 3, but 3 is not changed; 6 is between 5 and 7: the lower).
        assert_eq!(hf.nearest_rewritten(Some("set qos-group 3"), 4), Some(5));
        assert_eq!(hf.nearest_rewritten(None, 6), Some(5));
        assert_eq!(hf.nearest_rewritten(None, 1), Some(2));
        assert_eq!(hf.nearest_rewritten(None, 99), Some(7));
        // Both `mtu` lines of a file with two: the nearer one.
        let two = format!("{FILE}interface Ethernet1/2\n  mtu 9100\n");
        let hf = HeadFile::new(&two, &[2, 7, 9]);
        assert_eq!(hf.nearest_rewritten(Some("mtu 9216"), 8), Some(7));
        assert_eq!(hf.nearest_rewritten(Some("mtu 9216"), 9), Some(9));
        assert_eq!(HeadFile::new(FILE, &[]).nearest_rewritten(None, 3), None);
    }
}
