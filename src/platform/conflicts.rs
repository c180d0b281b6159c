//! Conflicting definitions inside one file: the same key given two values, one DSCP in two
//! classes, two policies bound to the same direction of a port. A platform module keeps one of
//! the two (the last line, or the first match, as the device would); the file says two things
//! and the audit cannot know which one the operator meant, so each conflict is reported with
//! both lines (PARSE012) instead of being picked silently.
//!
//! The checks read the engine's records, after the platform module, so they stay independent
//! of how each module resolves its objects.

use super::Output;
use crate::model::Conflict;
use crate::parser::{Parsed, Record};
use std::collections::BTreeMap;

/// The conflicts of every output of a device: (index into `outs`, conflict).
pub fn find(platform: &str, outs: &[Output]) -> Vec<(usize, Conflict)> {
    let mut out = Vec::new();
    for (oi, o) in outs.iter().enumerate() {
        let found = match (platform, o.cmd.id.as_str()) {
            ("cumulus", "traffic-conf") => traffic_conf(&o.parsed),
            ("nxos", _) if o.cmd.config || o.cmd.id == "show-running-interface" => {
                let mut v = bound_twice(&o.parsed, &["interface"], |p, r| {
                    (p.get(r, "dir").is_some()).then(|| {
                        format!(
                            "service-policy type {} {}",
                            p.get(r, "type").unwrap_or(""),
                            p.get(r, "dir").unwrap_or("")
                        )
                    })
                });
                v.extend(nxos_dscp_in_two_classes(&o.parsed));
                v
            }
            ("eos", "running-config") => {
                bound_twice(&o.parsed, &["interface", "qos_profile"], |_, _| {
                    Some("service-policy type qos input".to_string())
                })
            }
            _ => Vec::new(),
        };
        out.extend(found.into_iter().map(|c| (oi, c)));
    }
    out
}

fn line_text<'t>(lines: &[&'t str], line: u32) -> &'t str {
    lines
        .get(line.saturating_sub(1) as usize)
        .map(|l| l.trim())
        .unwrap_or("")
}

/// Cumulus traffic.conf: a `key = value` line repeated with another value (switchd reads the
/// file as a flat key table), and a DSCP or 802.1p value listed under two `cos_N`.
fn traffic_conf(p: &Parsed) -> Vec<Conflict> {
    let lines: Vec<&str> = p.text().lines().collect();
    let mut out = Vec::new();
    let mut keys: BTreeMap<&str, (&str, u32)> = BTreeMap::new();
    for r in &p.records {
        let text = line_text(&lines, r.line);
        let Some((k, v)) = text.split_once('=') else {
            continue;
        };
        let (k, v) = (k.trim(), v.trim());
        match keys.get(k) {
            Some((first, at)) if norm(first) != norm(v) => out.push(Conflict {
                what: k.to_string(),
                first: first.to_string(),
                first_line: *at,
                value: v.to_string(),
                line: r.line,
            }),
            Some(_) => {}
            None => {
                keys.insert(k, (v, r.line));
            }
        }
    }
    // One code point, one class.
    let mut seen: BTreeMap<(String, u32), (String, u32)> = BTreeMap::new();
    for r in p.records.iter().filter(|r| p.kind(r) == "cos_source") {
        let (Some(cos), Some(field), Some(list)) =
            (p.get(r, "cos"), p.get(r, "field"), p.get(r, "list"))
        else {
            continue;
        };
        let max = if field == "dscp" { 63 } else { 7 };
        for v in list
            .split(',')
            .filter_map(|x| x.trim().parse::<u32>().ok())
            .filter(|v| *v <= max)
        {
            let key = (field.to_string(), v);
            match seen.get(&key) {
                Some((c, at)) if c != cos => out.push(Conflict {
                    what: format!("{} {v}", if field == "dscp" { "DSCP" } else { "802.1p" }),
                    first: format!("cos_{c}"),
                    first_line: *at,
                    value: format!("cos_{cos}"),
                    line: r.line,
                }),
                Some(_) => {}
                None => {
                    seen.insert(key, (cos.to_string(), r.line));
                }
            }
        }
    }
    out.sort_by_key(|c| (c.line, c.first_line));
    out
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
    slot: impl Fn(&Parsed, &Record) -> Option<String>,
) -> Vec<Conflict> {
    let mut out = Vec::new();
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
            Some((first, at)) if first != name => out.push(Conflict {
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
    out
}

/// NX-OS: a DSCP matched by two classes of one `policy-map type qos` (through their
/// `class-map type qos`): the switch classifies it by the first class, a reader of the file
/// cannot tell which class was meant.
fn nxos_dscp_in_two_classes(p: &Parsed) -> Vec<Conflict> {
    // class-map type qos name → its `match dscp` values with their lines
    let mut cmaps: BTreeMap<&str, Vec<(u8, u32)>> = BTreeMap::new();
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
                let values = p
                    .get(r, "val")
                    .and_then(super::nxos::read::dscp_list)
                    .unwrap_or_default();
                cmaps
                    .entry(p.get(parent, "name").unwrap_or(""))
                    .or_default()
                    .extend(values.into_iter().map(|v| (v, r.line)));
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
    let mut out = Vec::new();
    for (policy, classes) in &policies {
        let mut owner: BTreeMap<u8, (&str, u32)> = BTreeMap::new();
        for class in classes {
            for (d, line) in cmaps.get(class).map(Vec::as_slice).unwrap_or(&[]) {
                match owner.get(d) {
                    Some((c, at)) if c != class => out.push(Conflict {
                        what: format!("DSCP {d} in policy-map type qos {policy}"),
                        first: format!("class {c}"),
                        first_line: *at,
                        value: format!("class {class}"),
                        line: *line,
                    }),
                    Some(_) => {}
                    None => {
                        owner.insert(*d, (class, *line));
                    }
                }
            }
        }
    }
    out
}

/// Whether a `pclass` record's policy-map is the last type-qos policy-map collected.
fn parent_is_last_qos_policy(p: &Parsed, pmap: &Record, policies: &[(&str, Vec<&str>)]) -> bool {
    p.get(pmap, "type").unwrap_or("qos") == "qos"
        && policies
            .last()
            .is_some_and(|(n, _)| *n == p.get(pmap, "name").unwrap_or(""))
}
