//! Coverage: the checks a rule could not decide (its input was not collected or not
//! understood). They are not faults, so the terminal report counts them apart from the
//! findings, one line per rule with the devices and interfaces concerned.

use crate::finding::Finding;
use crate::text::natural_cmp;
use std::collections::BTreeMap;

/// The undecided checks of one rule.
pub struct RuleCoverage {
    pub rule: String,
    pub title: String,
    /// (device, interfaces concerned; 0 for a device-wide check), devices in natural order.
    pub devices: Vec<(String, usize)>,
    /// The messages, for the verbose listing.
    pub messages: Vec<String>,
}

impl RuleCoverage {
    pub fn interfaces(&self) -> usize {
        self.devices.iter().map(|(_, n)| n).sum()
    }
}

/// How many interfaces an undecided finding covers.
fn interfaces_of(f: &Finding) -> usize {
    match f.evidence().get("interfaces").and_then(|v| v.list_len()) {
        Some(n) => n,
        None => usize::from(f.interface.is_some()),
    }
}

/// The undecided findings per rule, rules in id order.
pub fn of(findings: &[Finding]) -> Vec<RuleCoverage> {
    let mut per: BTreeMap<&str, RuleCoverage> = BTreeMap::new();
    for f in findings.iter().filter(|f| f.undecided()) {
        let c = per.entry(f.rule()).or_insert_with(|| RuleCoverage {
            rule: f.rule().to_string(),
            title: f.title().to_string(),
            devices: Vec::new(),
            messages: Vec::new(),
        });
        match c.devices.iter_mut().find(|(d, _)| **d == *f.device) {
            Some((_, n)) => *n += interfaces_of(f),
            None => c.devices.push((f.device.to_string(), interfaces_of(f))),
        }
        c.messages.push(format!("{}: {}", f.device, f.message()));
    }
    let mut out: Vec<RuleCoverage> = per.into_values().collect();
    for c in &mut out {
        c.devices.sort_by(|a, b| natural_cmp(&a.0, &b.0));
    }
    out
}

/// The section: a heading with the counts, then one line per rule (every message under it
/// when `verbose`); empty when every check was decided.
pub fn lines(findings: &[Finding], verbose: bool) -> Vec<String> {
    let cov = of(findings);
    if cov.is_empty() {
        return Vec::new();
    }
    let checks = findings.iter().filter(|f| f.undecided()).count();
    let mut devices: Vec<&str> = cov
        .iter()
        .flat_map(|c| c.devices.iter().map(|(d, _)| d.as_str()))
        .collect();
    devices.sort();
    devices.dedup();
    let mut out = vec![format!(
        "Could not decide (not findings): {checks} check(s) of {} rule(s) on {} device(s)",
        cov.len(),
        devices.len()
    )];
    for c in &cov {
        let on: Vec<String> = c
            .devices
            .iter()
            .map(|(d, n)| match n {
                0 => d.clone(),
                n => format!("{d} ({n})"),
            })
            .collect();
        out.push(format!("  {} {}: {}", c.rule, c.title, on.join(", ")));
        if verbose {
            out.extend(c.messages.iter().map(|m| format!("      {m}")));
        }
    }
    out
}
