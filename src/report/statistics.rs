//! `--statistics`: how many findings each rule gave, most first, instead of the findings
//! (a text table, or JSON with `--format json`). Undecided checks are counted apart.

use crate::finding::Severity;
use crate::report::input::Audit;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Serialize)]
pub struct RuleCount {
    pub rule: String,
    pub severity: Severity,
    pub title: String,
    pub count: usize,
    /// Findings that carry a fix snippet.
    pub fixable: usize,
    pub devices: usize,
    /// "Could not decide" checks of this rule (not in `count`).
    pub undecided: usize,
}

pub fn of(a: &Audit) -> Vec<RuleCount> {
    let mut per: BTreeMap<&str, (RuleCount, Vec<&str>)> = BTreeMap::new();
    for f in &a.findings {
        let (c, devs) = per.entry(f.rule()).or_insert_with(|| {
            let rc = RuleCount {
                rule: f.rule().to_string(),
                severity: f.severity(),
                title: f.title().to_string(),
                count: 0,
                fixable: 0,
                devices: 0,
                undecided: 0,
            };
            (rc, Vec::new())
        });
        if f.undecided() {
            c.undecided += 1;
            continue;
        }
        c.severity = if c.count == 0 {
            f.severity()
        } else {
            c.severity.max(f.severity())
        };
        c.count += 1;
        c.fixable += usize::from(f.remediation.is_some());
        if !devs.contains(&&*f.device) {
            devs.push(&f.device);
        }
    }
    let mut out: Vec<RuleCount> = per
        .into_values()
        .map(|(mut c, d)| {
            c.devices = d.len();
            c
        })
        .collect();
    out.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| b.severity.cmp(&a.severity))
            .then_with(|| a.rule.cmp(&b.rule))
    });
    out
}

pub fn json(a: &Audit) -> String {
    serde_json::to_string_pretty(&of(a)).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
        + "\n"
}

pub fn text(a: &Audit, width: usize) -> String {
    let mut out = format!(
        "{:>5}  {:<9} {:<8} {:>7} {:>7} {:>9}  title\n",
        "count", "rule", "severity", "fixable", "devices", "undecided"
    );
    for c in of(a) {
        let line = format!(
            "{:>5}  {:<9} {:<8} {:>7} {:>7} {:>9}  {}",
            c.count,
            c.rule,
            c.severity.as_str(),
            c.fixable,
            c.devices,
            c.undecided,
            c.title
        );
        out.push_str(&super::width::truncate(&line, width));
        out.push('\n');
    }
    out
}
