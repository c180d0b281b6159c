//! Conflicting definitions inside one file: the same key given two values, one DSCP in two
//! classes, two policies bound to the same direction of a port. A platform module keeps one of
//! the two (the last line, or the first match, as the device would); the file says two things
//! and the audit cannot know which one the operator meant, so each conflict is reported with
//! both lines (PARSE012) instead of being picked silently.
//!
//! The checks read the engine's records, after the platform module, so they stay independent
//! of how each module resolves its objects.
//!
//! A file lists at most [`Found::LISTED`] conflicts and counts the rest (issue 19: one line
//! of `class` or `match dscp 0-63` could add 64 conflicts of ~400 bytes each, a file of
//! 42 KB held 4,800 of them). Values of one line that collide with one earlier line are one
//! conflict (`DSCP 0-7,46`), not one per value.

use super::Output;
use crate::model::Conflict;
use crate::parser::{Parsed, Record};
use std::collections::BTreeMap;

/// The conflicts of one file: the first [`Found::LISTED`] found, in full, and how many more
/// there were.
#[derive(Debug, Default)]
pub struct Found {
    pub listed: Vec<Conflict>,
    pub not_listed: u64,
}

impl Found {
    /// Conflicts listed per file.
    pub const LISTED: usize = crate::model::LISTED_PER_FILE;

    /// Add the conflict `make` builds, or only count it once the list is full.
    fn add(&mut self, make: impl FnOnce() -> Conflict) {
        if self.listed.len() < Self::LISTED {
            self.listed.push(make());
        } else {
            self.not_listed = self.not_listed.saturating_add(1);
        }
    }
}

/// The conflicts of every output of a device that has any: (index into `outs`, its
/// conflicts).
pub fn find(platform: &str, outs: &[Output]) -> Vec<(usize, Found)> {
    let mut out = Vec::new();
    for (oi, o) in outs.iter().enumerate() {
        let mut found = Found::default();
        match (platform, o.cmd.id.as_str()) {
            ("cumulus", "traffic-conf") => traffic_conf(&o.parsed, &mut found),
            ("nxos", _) if o.cmd.config || o.cmd.id == "show-running-interface" => {
                bound_twice(&o.parsed, &["interface"], &mut found, |p, r| {
                    (p.get(r, "dir").is_some()).then(|| {
                        format!(
                            "service-policy type {} {}",
                            p.get(r, "type").unwrap_or(""),
                            p.get(r, "dir").unwrap_or("")
                        )
                    })
                });
                nxos_dscp_in_two_classes(&o.parsed, &mut found);
            }
            ("eos", "running-config") => bound_twice(
                &o.parsed,
                &["interface", "qos_profile"],
                &mut found,
                |_, _| Some("service-policy type qos input".to_string()),
            ),
            _ => {}
        };
        if !found.listed.is_empty() {
            out.push((oi, found));
        }
    }
    out
}

/// `values` (bits of a mask, 0-63) as the shortest list of ranges: `0-7,46`.
fn value_list(values: u64) -> String {
    let mut out = String::new();
    let mut v = 0u32;
    while v < 64 {
        if values & (1u64 << v) == 0 {
            v += 1;
            continue;
        }
        let start = v;
        while v + 1 < 64 && values & (1u64 << (v + 1)) != 0 {
            v += 1;
        }
        if !out.is_empty() {
            out.push(',');
        }
        out.push_str(&start.to_string());
        if v > start {
            out.push_str(if v == start + 1 { "," } else { "-" });
            out.push_str(&v.to_string());
        }
        v += 1;
    }
    out
}

/// The values of one line that an earlier line already gave another owner, grouped by that
/// earlier line: (its owner, its line, the values).
#[derive(Default)]
struct Collisions<'a>(Vec<(&'a str, u32, u64)>);

impl<'a> Collisions<'a> {
    fn add(&mut self, owner: &'a str, line: u32, value: u32) {
        match self
            .0
            .iter_mut()
            .find(|(o, l, _)| *o == owner && *l == line)
        {
            Some(g) => g.2 |= 1u64 << value,
            None => self.0.push((owner, line, 1u64 << value)),
        }
    }
}

fn line_text<'t>(lines: &[&'t str], line: u32) -> &'t str {
    lines
        .get(line.saturating_sub(1) as usize)
        .map(|l| l.trim())
        .unwrap_or("")
}

/// Cumulus traffic.conf: a `key = value` line repeated with another value (switchd reads the
/// file as a flat key table), and a DSCP or 802.1p value listed under two `cos_N`.
fn traffic_conf(p: &Parsed, found: &mut Found) {
    let lines: Vec<&str> = p.text().lines().collect();
    // Each list in the order of its lines, kept to the first `Found::LISTED` (the first of
    // both merged are the first of the file), the rest counted.
    let mut keyed = Pending::default();
    let mut keys: BTreeMap<&str, (&str, u32)> = BTreeMap::new();
    for r in &p.records {
        let text = line_text(&lines, r.line);
        let Some((k, v)) = text.split_once('=') else {
            continue;
        };
        let (k, v) = (k.trim(), v.trim());
        match keys.get(k) {
            Some((first, at)) if norm(first) != norm(v) => {
                keyed.add((r.line, *at, k, ConflictText::Key(first, v)))
            }
            Some(_) => {}
            None => {
                keys.insert(k, (v, r.line));
            }
        }
    }
    // One code point, one class.
    let mut coded = Pending::default();
    let mut seen: BTreeMap<(&str, u32), (&str, u32)> = BTreeMap::new();
    for r in p.records.iter().filter(|r| p.kind(r) == "cos_source") {
        let (Some(cos), Some(field), Some(list)) =
            (p.get(r, "cos"), p.get(r, "field"), p.get(r, "list"))
        else {
            continue;
        };
        let max = if field == "dscp" { 63 } else { 7 };
        let mut hits = Collisions::default();
        for v in list
            .split(',')
            .filter_map(|x| x.trim().parse::<u32>().ok())
            .filter(|v| *v <= max)
        {
            match seen.get(&(field, v)) {
                Some((c, at)) if *c != cos => hits.add(c, *at, v),
                Some(_) => {}
                None => {
                    seen.insert((field, v), (cos, r.line));
                }
            }
        }
        for (c, at, values) in hits.0 {
            coded.add((r.line, at, field, ConflictText::Values(c, cos, values)));
        }
    }
    let mut out = keyed.list;
    out.extend(coded.list);
    // In the order of the lines, then of the earlier lines.
    out.sort_by_key(|(line, at, _, _)| (*line, *at));
    found.not_listed = keyed.more.saturating_add(coded.more);
    for (line, first_line, k, text) in out {
        found.add(|| match text {
            ConflictText::Key(first, v) => Conflict {
                what: k.to_string(),
                first: first.to_string(),
                first_line,
                value: v.to_string(),
                line,
            },
            ConflictText::Values(c, cos, values) => Conflict {
                what: format!(
                    "{} {}",
                    if k == "dscp" { "DSCP" } else { "802.1p" },
                    value_list(values)
                ),
                first: format!("cos_{c}"),
                first_line,
                value: format!("cos_{cos}"),
                line,
            },
        });
    }
}

/// Conflicts of one kind in line order, the first [`Found::LISTED`] kept, the rest counted.
struct Pending<T> {
    list: Vec<T>,
    more: u64,
}

impl<T> Default for Pending<T> {
    fn default() -> Self {
        Pending {
            list: Vec::new(),
            more: 0,
        }
    }
}

impl<T> Pending<T> {
    fn add(&mut self, item: T) {
        if self.list.len() < Found::LISTED {
            self.list.push(item);
        } else {
            self.more = self.more.saturating_add(1);
        }
    }
}

/// A traffic.conf conflict before it is written out (only the listed ones are).
enum ConflictText<'a> {
    /// A key's first value and its later one.
    Key(&'a str, &'a str),
    /// The earlier class, the later one and the values they share.
    Values(&'a str, &'a str, u64),
}

/// `[a, b]` and `[a,b]` are one value.
fn norm(v: &str) -> String {
    v.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Two `service_policy` records of the same slot (what `slot` names; `None` = not a bound
/// policy) directly under one block of a kind in `parents`, naming different policies.
fn bound_twice(
    p: &Parsed,
    parents: &[&str],
    found: &mut Found,
    slot: impl Fn(&Parsed, &Record) -> Option<String>,
) {
    let mut seen: BTreeMap<(u32, String), (String, u32)> = BTreeMap::new();
    // The file's lines, split only once a conflict needs its parent's text (a line list of a
    // file of a million short lines was the peak of its build: issue 19).
    let mut lines: Option<Vec<&str>> = None;
    for r in p.records.iter().filter(|r| p.kind(r) == "service_policy") {
        let Some(parent) = p.parent(r).filter(|x| parents.contains(&p.kind(x))) else {
            continue;
        };
        let (Some(what), Some(name)) = (slot(p, r), p.get(r, "name")) else {
            continue;
        };
        let key = (parent.line, what.clone());
        match seen.get(&key) {
            Some((first, at)) if first != name => found.add(|| Conflict {
                what: format!(
                    "{} {what}",
                    line_text(
                        lines.get_or_insert_with(|| p.text().lines().collect()),
                        parent.line
                    )
                ),
                first: first.clone(),
                first_line: *at,
                value: name.to_string(),
                line: r.line,
            }),
            Some(_) => {}
            None => {
                seen.insert(key, (name.to_string(), r.line));
            }
        }
    }
}

/// NX-OS: a DSCP matched by two classes of one `policy-map type qos` (through their
/// `class-map type qos`): the switch classifies it by the first class, a reader of the file
/// cannot tell which class was meant.
fn nxos_dscp_in_two_classes(p: &Parsed, found: &mut Found) {
    // class-map type qos name → its `match dscp` lines: (the values as a mask, the line)
    let mut cmaps: BTreeMap<&str, Vec<(u64, u32)>> = BTreeMap::new();
    let mut policies: Vec<(&str, Vec<&str>)> = Vec::new();
    for r in &p.records {
        match p.kind(r) {
            "cmap" if p.get(r, "type") == Some("qos") => {
                cmaps.entry(p.get(r, "name").unwrap_or("")).or_default();
            }
            "match" if p.get(r, "what") == Some("dscp") => {
                let Some(parent) = p.parent(r).filter(|x| p.kind(x) == "cmap") else {
                    continue;
                };
                if p.get(parent, "type") != Some("qos") {
                    continue;
                }
                let mask = p
                    .get(r, "val")
                    .and_then(super::nxos::read::dscp_list)
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|v| *v < 64)
                    .fold(0u64, |m, v| m | (1u64 << v));
                if mask != 0 {
                    cmaps
                        .entry(p.get(parent, "name").unwrap_or(""))
                        .or_default()
                        .push((mask, r.line));
                }
            }
            "pmap" if p.get(r, "type").unwrap_or("qos") == "qos" => {
                policies.push((p.get(r, "name").unwrap_or(""), Vec::new()));
            }
            "pclass" => {
                let Some(parent) = p.parent(r).filter(|x| p.kind(x) == "pmap") else {
                    continue;
                };
                if parent_is_last_qos_policy(p, parent, &policies)
                    && let Some(last) = policies.last_mut()
                {
                    last.1.push(p.get(r, "name").unwrap_or(""));
                }
            }
            _ => {}
        }
    }
    for (policy, classes) in &policies {
        let mut owner: [Option<(&str, u32)>; 64] = [None; 64];
        for class in classes {
            for (mask, line) in cmaps.get(class).map(Vec::as_slice).unwrap_or(&[]) {
                let mut hits = Collisions::default();
                for d in (0..64u32).filter(|d| mask & (1u64 << d) != 0) {
                    match owner[d as usize] {
                        Some((c, at)) if c != *class => hits.add(c, at, d),
                        Some(_) => {}
                        None => owner[d as usize] = Some((class, *line)),
                    }
                }
                for (c, at, values) in hits.0 {
                    found.add(|| Conflict {
                        what: format!(
                            "DSCP {} in policy-map type qos {policy}",
                            value_list(values)
                        ),
                        first: format!("class {c}"),
                        first_line: at,
                        value: format!("class {class}"),
                        line: *line,
                    });
                }
            }
        }
    }
}

/// Whether a `pclass` record's policy-map is the last type-qos policy-map collected.
fn parent_is_last_qos_policy(p: &Parsed, pmap: &Record, policies: &[(&str, Vec<&str>)]) -> bool {
    p.get(pmap, "type").unwrap_or("qos") == "qos"
        && policies
            .last()
            .is_some_and(|(n, _)| *n == p.get(pmap, "name").unwrap_or(""))
}
