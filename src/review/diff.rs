//! `fabric-audit diff BEFORE AFTER`: the findings a change introduces, fixes and leaves.

use crate::finding::{Finding, Severity};
use serde::Serialize;
use std::collections::BTreeMap;

/// What identifies a finding across two audits: never its source line.
type Key = (String, String, String, String);

fn key(f: &Finding) -> Key {
    (
        f.rule.clone(),
        f.device.clone(),
        f.interface.clone().unwrap_or_default(),
        f.peer
            .as_ref()
            .map(|p| format!("{}:{}", p.device, p.interface))
            .unwrap_or_default(),
    )
}

/// The message with `file:line` positions and bare numbers after a colon removed, to tell
/// apart several findings of one rule on one object when the configs moved lines.
pub(crate) fn shape(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len());
    let mut chars = msg.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ':' && chars.peek().is_some_and(|d| d.is_ascii_digit()) {
            while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                chars.next();
            }
            continue;
        }
        out.push(c);
    }
    out
}

#[derive(Debug, Default, Serialize)]
pub struct Diff {
    pub new: Vec<Finding>,
    pub fixed: Vec<Finding>,
    pub unchanged: Vec<Finding>,
}

/// Class every finding of `after` as new or unchanged, and every finding of `before` that
/// `after` no longer has as fixed. "Could not decide" findings take part like the others.
pub fn diff(before: &[Finding], after: &[Finding]) -> Diff {
    let mut groups: BTreeMap<Key, (Vec<&Finding>, Vec<&Finding>)> = BTreeMap::new();
    for f in before {
        groups.entry(key(f)).or_default().0.push(f);
    }
    for f in after {
        groups.entry(key(f)).or_default().1.push(f);
    }
    let mut d = Diff::default();
    for (_, (mut b, mut a)) in groups {
        if b.len() == 1 && a.len() == 1 {
            // One finding of the rule on the object before and after: the same finding, even
            // if a figure in its message changed.
            d.unchanged.push(a[0].clone());
            continue;
        }
        // Several: pair those whose messages agree (positions aside).
        a.retain(|f| {
            match b
                .iter()
                .position(|x| shape(&x.message) == shape(&f.message))
            {
                Some(i) => {
                    b.remove(i);
                    d.unchanged.push((*f).clone());
                    false
                }
                None => true,
            }
        });
        d.new.extend(a.into_iter().cloned());
        d.fixed.extend(b.into_iter().cloned());
    }
    for v in [&mut d.new, &mut d.fixed, &mut d.unchanged] {
        crate::finding::sort(v);
    }
    d
}

#[derive(Serialize, Default)]
struct Counts {
    error: usize,
    warning: usize,
    info: usize,
}

fn counts(fs: &[Finding]) -> Counts {
    let mut c = Counts::default();
    for f in fs {
        match f.severity {
            Severity::Error => c.error += 1,
            Severity::Warning => c.warning += 1,
            Severity::Info => c.info += 1,
        }
    }
    c
}

/// The JSON document (`fabric-audit/diff/v1`) of a review.
pub fn json(r: &super::Review) -> String {
    let doc = serde_json::json!({
        "schema": "fabric-audit/diff/v1",
        "tool": { "name": "fabric-audit", "version": env!("CARGO_PKG_VERSION") },
        "scope": r.scope,
        "summary": {
            "headline": r.headline(),
            "new": counts(&r.new),
            "fixed": counts(&r.fixed),
            "unchanged": counts(&r.unchanged),
            "waived": r.waived.len(),
        },
        "new": r.new,
        "fixed": r.fixed,
        "unchanged": r.unchanged,
        "waived": r.waived,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}")) + "\n"
}

/// The terminal form: new findings first, then fixed, then waived; unchanged are only counted.
pub fn text(r: &super::Review) -> String {
    use crate::report::table::cell;
    let mut out = format!("{}\n", crate::report::terminal_safe(&r.headline(), false));
    let table = |header: Vec<&str>| {
        let mut t = crate::report::table::new_table(false);
        t.set_header(header);
        t
    };
    for (title, fs) in [("New", &r.new), ("Fixed", &r.fixed)] {
        if fs.is_empty() {
            continue;
        }
        let mut t = table(vec!["severity", "rule", "device", "interface", "message"]);
        for f in fs.iter() {
            t.add_row(vec![
                cell(f.severity.as_str()),
                cell(&f.rule),
                cell(&f.device),
                cell(f.interface.as_deref().unwrap_or("")),
                cell(&f.message),
            ]);
        }
        out.push_str(&format!("{title}:\n{t}\n"));
    }
    if !r.waived.is_empty() {
        let t = crate::report::table::waived_table(&r.waived, false);
        out.push_str(&format!("Waived (not failing):\n{t}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(rule: &str, dev: &str, iface: &str, msg: &str, line: u32) -> Finding {
        Finding {
            rule: rule.into(),
            severity: Severity::Error,
            title: String::new(),
            message: msg.into(),
            device: dev.into(),
            interface: Some(iface.into()),
            peer: None,
            source: Some(crate::finding::Location {
                file: "configs/x.cfg".into(),
                line,
            }),
            evidence: Default::default(),
            remediation: None,
        }
    }

    #[test]
    fn matched_by_identity_not_line() {
        let before = [
            f("PFC001", "leaf1", "Ethernet1/1", "PFC off", 10),
            f("ECN001", "leaf1", "Ethernet1/2", "no ECN", 20),
            f(
                "DSCP002",
                "leaf1",
                "Ethernet1/3",
                "DSCP 26 to TC 4 (x.cfg:30)",
                30,
            ),
            f(
                "DSCP002",
                "leaf1",
                "Ethernet1/3",
                "DSCP 46 to TC 1 (x.cfg:31)",
                31,
            ),
        ];
        let after = [
            // The same finding, its config line moved.
            f("PFC001", "leaf1", "Ethernet1/1", "PFC off", 14),
            f("MTU002", "gpu1", "eth2", "MTU 1500", 1),
            f(
                "DSCP002",
                "leaf1",
                "Ethernet1/3",
                "DSCP 26 to TC 4 (x.cfg:35)",
                35,
            ),
        ];
        let d = diff(&before, &after);
        let ids = |v: &[Finding]| v.iter().map(|f| f.rule.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&d.new), ["MTU002"]);
        assert_eq!(ids(&d.fixed), ["ECN001", "DSCP002"]);
        assert_eq!(d.fixed[1].message, "DSCP 46 to TC 1 (x.cfg:31)");
        assert_eq!(ids(&d.unchanged), ["PFC001", "DSCP002"]);
    }
}
