//! The checks a left-out port would fail (issue 46, "scope from intent, never from silence"):
//! a port that carries the switch's lossless binding but that the scope heuristic left out of
//! the RoCE ports (`fabric::mark_roce_ports_by`, its [`ScopeNote`]) is held to the RoCE rules in
//! a second, what-if evaluation, and the error rules it fails are written on its note, for
//! TOPO007 to name: "et-0/0/3 carries … but keeps the default MTU 1514: if it carries RoCE,
//! MTU003". The what-if evaluation marks only the noted ports as RoCE, runs only the interface
//! rules of severity error, and restores every port's scope after it.
//!
//! [`ScopeNote`]: crate::model::ScopeNote

use crate::model::Fabric;
use crate::rules::RuleSet;
use std::collections::{BTreeMap, BTreeSet};

/// Fill `would_fail` of every port's scope note; a no-op when no port has one.
pub fn fill(rules: &RuleSet, fabric: &mut Fabric) {
    let noted: usize = fabric
        .devices
        .iter()
        .map(|d| d.interfaces.iter().filter(|i| i.scope.is_some()).count())
        .sum();
    if noted == 0 {
        return;
    }
    // Every port's RoCE flag, to restore; then only the noted ports are RoCE ports.
    let saved: Vec<Vec<bool>> = fabric
        .devices
        .iter()
        .map(|d| d.interfaces.iter().map(|i| i.roce).collect())
        .collect();
    for d in fabric.devices.iter_mut() {
        for i in d.interfaces.iter_mut() {
            i.roce = i.scope.is_some();
        }
    }
    let keep = |r: &crate::rules::Rule| {
        r.spec.scope == "interface" && r.spec.severity == "error" && r.spec.family != "TOPO"
    };
    let (findings, _) = crate::rules::eval::evaluate_in_place(rules, fabric, &keep);
    let mut fails: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for f in &findings {
        if let Some(i) = &f.interface {
            fails
                .entry((f.device.to_string(), i.to_string()))
                .or_default()
                .insert(f.rule().to_string());
        }
    }
    for (d, flags) in fabric.devices.iter_mut().zip(saved) {
        for (i, roce) in d.interfaces.iter_mut().zip(flags) {
            i.roce = roce;
            // read first: writing makes the port's details
            if i.scope.is_none() {
                continue;
            }
            if let Some(rules) = fails.get(&(d.name.clone(), i.name.clone()))
                && let Some(note) = i.scope.as_mut()
            {
                note.would_fail = rules.iter().cloned().collect();
            }
        }
    }
}
