//! A finding: what a rule (or the parser, or the topology builder) says about one object.

pub mod evidence;
pub mod message;

use crate::model::Endpoint;
pub use evidence::Evidence;
pub use message::Message;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Per rule: how many objects it checked and passed, and on which platforms (the rule engine
/// counts them; JUnit shows a passing case per rule).
#[derive(Debug, Default, Clone)]
pub struct Passes {
    pub count: BTreeMap<String, usize>,
    pub platforms: BTreeMap<String, BTreeSet<String>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
    pub fn parse(s: &str) -> Option<Severity> {
        match s {
            "info" => Some(Severity::Info),
            "warning" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
}

/// Where a finding's fact was read: a file of the snapshot and a line of it (0: the file as a
/// whole). The file is the model's interned name (`model::file_name`), four bytes, not a copy
/// of the name per finding (issue 19: a port's findings each held the name of the file it was
/// read from).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Location {
    pub file: crate::model::file_name::FileName,
    pub line: u32,
}

impl Location {
    pub fn new(file: &str, line: u32) -> Location {
        Location {
            file: crate::model::file_name::FileName::intern(file),
            line,
        }
    }
}

impl From<&crate::model::Src> for Location {
    fn from(s: &crate::model::Src) -> Location {
        Location {
            file: s.file,
            line: s.line,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Remediation {
    /// Shared with the plan's device and step (issue 19: each finding a step fixes held its
    /// own copy of the snippet, the platform and the safety word).
    pub platform: Arc<str>,
    pub snippet: Arc<str>,
    /// `safe` or `needs-review`.
    pub safety: &'static str,
    /// The device the snippet is applied on, when it is not the finding's own (a link fixed at
    /// its other end).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
}

/// Name used as `device` for findings about the fabric as a whole.
pub const FABRIC: &str = "(fabric)";

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// The rule's id and title: shared with the rule, not a copy per finding (issue 19).
    pub rule: Arc<str>,
    pub severity: Severity,
    pub title: Arc<str>,
    /// Shared with the findings that say the same of another port (see [`Message`]).
    pub message: Message,
    /// Shared by the device's findings (and an interface's), not a copy per finding (issue 19).
    pub device: Arc<str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interface: Option<Arc<str>>,
    /// Boxed, as `remediation`: most findings have neither, and a finding is held for every
    /// object a rule fails on (issue 19: 328 bytes inline per finding, 96 of them an absent
    /// remediation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peer: Option<Box<Endpoint>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<Location>,
    pub evidence: Evidence,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remediation: Option<Box<Remediation>>,
}

impl Finding {
    /// True for "could not decide" findings (a rule's input was unknown).
    pub fn undecided(&self) -> bool {
        self.evidence
            .get("undecided")
            .and_then(|v| v.as_bool())
            .unwrap_or(false)
    }
}

/// Sort findings by device, interface, rule, then message (deterministic output), stably.
///
/// The positions are sorted, then the findings moved into their places: a stable sort of the
/// findings themselves takes scratch room for all of them (200 bytes each) while it runs, a
/// sixth of the audit's peak on a config whose ranges name hundreds of ports with three
/// findings each (issue 19: memory within 20 times the input). The order is the one sorting
/// the findings stably would give.
pub fn sort(findings: &mut [Finding]) {
    let mut order: Vec<usize> = (0..findings.len()).collect();
    order.sort_by(|&i, &j| report_order(&findings[i], &findings[j]));
    permute(findings, order);
}

/// The order of [`sort`]: device, interface, rule, then message.
fn report_order(a: &Finding, b: &Finding) -> std::cmp::Ordering {
    crate::text::natural_cmp(&a.device, &b.device)
        .then_with(|| {
            crate::text::natural_cmp(
                a.interface.as_deref().unwrap_or(""),
                b.interface.as_deref().unwrap_or(""),
            )
        })
        .then_with(|| a.rule.cmp(&b.rule))
        .then_with(|| a.message.cmp(&b.message))
}

/// Rearrange `v` so that `v[k]` is what was at `order[k]` (`order` a permutation of the
/// positions), in place: each cycle of the permutation is followed once, by swaps.
fn permute<T>(v: &mut [T], mut order: Vec<usize>) {
    for start in 0..v.len() {
        let mut k = start;
        // A position already in place (or placed by an earlier cycle) points at itself.
        while order[k] != k {
            let from = order[k];
            order[k] = k;
            if from == start {
                break;
            }
            v.swap(k, from);
            k = from;
        }
    }
}

/// The message with `file:line` positions and bare numbers after a colon removed, to tell
/// apart several findings of one rule on one object when the configs moved lines.
pub fn message_shape(msg: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn f(device: &str, iface: Option<&str>, rule: &str, message: &str, line: u32) -> Finding {
        Finding {
            rule: rule.into(),
            severity: Severity::Error,
            title: "".into(),
            message: message.into(),
            device: device.into(),
            interface: iface.map(Arc::from),
            peer: None,
            source: Some(Location::new("configs/x.cfg", line)),
            evidence: Evidence::new(),
            remediation: None,
        }
    }

    #[test]
    fn permute_puts_each_item_where_the_order_says() {
        // Every permutation of five positions (cycles of every length, fixed points).
        let mut orders: Vec<Vec<usize>> = vec![vec![]];
        for _ in 0..5 {
            let mut longer = Vec::new();
            for o in &orders {
                for k in (0..5usize).filter(|k| !o.contains(k)) {
                    let mut o = o.clone();
                    o.push(k);
                    longer.push(o);
                }
            }
            orders = longer;
        }
        assert_eq!(orders.len(), 120);
        for order in orders {
            let mut v = vec!['a', 'b', 'c', 'd', 'e'];
            let want: Vec<char> = order.iter().map(|&k| v[k]).collect();
            permute(&mut v, order.clone());
            assert_eq!(v, want, "{order:?}");
        }
    }

    #[test]
    fn sort_orders_as_a_stable_sort_of_the_findings_would() {
        // Ties on every sort key (device, interface, rule, message) keep their input order,
        // told apart here by their line.
        let input = vec![
            f("leaf10", Some("eth2"), "PFC001", "b", 1),
            f("leaf2", None, "TOPO001", "a", 2),
            f("leaf10", Some("eth2"), "PFC001", "b", 3),
            f("leaf2", Some("eth10"), "ECN001", "a", 4),
            f("leaf2", Some("eth9"), "ECN001", "a", 5),
            f("leaf10", Some("eth2"), "PFC001", "a", 6),
            f("leaf2", None, "TOPO001", "a", 7),
            f("leaf10", Some("eth2"), "DSCP001", "z", 8),
        ];
        let mut want = input.clone();
        want.sort_by(report_order);
        let mut got = input;
        sort(&mut got);
        let lines = |v: &[Finding]| -> Vec<u32> {
            v.iter()
                .map(|f| f.source.as_ref().map_or(0, |s| s.line))
                .collect()
        };
        assert_eq!(lines(&got), lines(&want));
        assert_eq!(lines(&got), vec![2, 7, 5, 4, 8, 6, 1, 3]);
    }
}
