//! Platform semantics for Juniper Junos (QFX; patterns in vendor-parsers/junos.toml).
//!
//! A Junos configuration is a tree. `tree` rebuilds it from either form (curly braces, or
//! `| display set` lines) into full-path statements, following braces rather than indentation
//! and keeping `inactive:` / `deactivate` statements aside (they do not apply); `read` reads
//! the statements into typed definitions; `apply` resolves them into the model with the Junos
//! defaults (classifier → forwarding class → queue, congestion-notification profiles for PFC and
//! the PFC watchdog, scheduler maps with ECN drop profiles, wildcard class-of-service interfaces,
//! media MTU normalized to the IP MTU, − 18 on `vlan-tagging` ports; interface ranges expanded,
//! breakout parents replaced by their sub-ports); `show` reads `show interfaces` and `show lldp
//! neighbors`, whose facts replace defaults but never a value the config states.
//!
//! What the engine recognized but this module cannot read is reported as an unread line of the
//! file (`BuildNotes::unread`), which makes it `partial`: a block never closed (the file was cut),
//! a set-form last line without its line end, blocks nested beyond `tree::MAX_DEPTH`, and range
//! members that cannot be expanded.

mod apply;
mod read;
mod shared;
mod show;
mod tree;

use super::registry::{Read, reader};
use super::{BuildNotes, Output};
use crate::model::maps::Notes;
use crate::model::{Device, UndefinedRef, Unrecognized};

/// Command id of vendor-parsers/junos.toml → the reader of its output (meta-tested: every
/// command has one, or says why not).
pub(crate) const READS: &[Read] = &[
    reader("show-configuration", "tree::statements, read::Config::read"),
    reader(
        "show-configuration-set",
        "tree::statements, read::Config::read",
    ),
    reader(
        "show-configuration-class-of-service",
        "tree::statements, read::Config::read",
    ),
    reader("class-of-service", "tree::statements, read::Config::read"),
    reader("show-interfaces", "show::show_interfaces"),
    reader("show-interfaces-extensive", "show::show_interfaces"),
    reader("show-lldp-neighbors", "show::lldp_neighbors"),
];

/// Command ids of vendor-parsers/junos.toml that hold configuration, whether the output is the
/// [edit class-of-service] hierarchy printed relative to itself, and how it may end.
const CONFIG_IDS: &[(&str, bool, tree::Form)] = &[
    ("show-configuration", false, tree::Form::Whole),
    ("show-configuration-set", false, tree::Form::Whole),
    (
        "show-configuration-class-of-service",
        true,
        tree::Form::Whole,
    ),
    ("class-of-service", true, tree::Form::Configlet),
];

pub fn build(dev: &mut Device, outs: &[Output]) -> BuildNotes {
    let mut notes = BuildNotes::default();
    let mut cfg = read::Config::default();
    let unread = |file: &str, line: u32, text: String, notes: &mut BuildNotes| {
        if let Some(oi) = outs.iter().position(|o| &*o.file == file) {
            notes.unrecognized.push((
                oi,
                Unrecognized {
                    line,
                    text: text.into(),
                },
            ));
        }
    };
    for (id, relative, form) in CONFIG_IDS {
        for o in outs.iter().filter(|o| o.cmd.id == *id) {
            // Two walks, the aliases first (classifiers may name them before they are
            // defined): cheaper than keeping every statement's full path (issue 19).
            tree::statements(o, *relative, *form, &mut |s| cfg.read_alias(&s));
            let cut = tree::statements(o, *relative, *form, &mut |s| cfg.read(s));
            for (line, text) in cut {
                unread(&o.file, line, text, &mut notes);
            }
        }
    }
    if cfg.seen {
        for (src, why) in apply::apply(dev, &cfg) {
            unread(&src.file, src.line, why, &mut notes);
        }
        for (kind, name, src) in undefined_refs(&cfg) {
            if let Some(oi) = outs.iter().position(|o| o.file == src.file) {
                notes.undefined.push((
                    oi,
                    UndefinedRef {
                        kind: kind.to_string(),
                        name,
                        line: src.line,
                    },
                ));
            }
        }
    }
    super::read_shows(dev, outs, SHOWS);
    notes
}

/// The operational outputs, in the order they are read (after the config).
const SHOWS: &[super::Show] = &[
    ("show-interfaces", show::show_interfaces),
    ("show-interfaces-extensive", show::show_interfaces),
    ("show-lldp-neighbors", show::lldp_neighbors),
];

/// References to objects the configuration never defines (Junos refuses to commit them, so an
/// intended config with one is wrong); default classes and `default` classifiers count as
/// defined.
fn undefined_refs(cfg: &read::Config) -> Vec<(&'static str, String, crate::model::Src)> {
    let cos = &cfg.cos;
    let default_fc = ["best-effort", "fcoe", "no-loss", "network-control", "mcast"];
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for (kind, name, src) in &cfg.refs {
        let defined = match *kind {
            "forwarding-class" => cos.fcs.contains_key(name) || default_fc.contains(&name.as_str()),
            "scheduler" => cos.schedulers.contains_key(name),
            "drop-profile" => cos.drop_profiles.contains_key(name),
            "scheduler-map" => cos.scheduler_maps.contains_key(name),
            "congestion-notification-profile" => cos.cnps.contains_key(name),
            "forwarding-class-set" => cos.fc_sets.contains_key(name),
            "traffic-control-profile" => cos.tcps.contains_key(name),
            // Pushed only when the name is neither a user alias nor a Junos default one.
            "code-point-alias" => false,
            "classifier" | "rewrite-rule" => {
                let (ty, n) = name.split_once(' ').unwrap_or(("", name));
                let map = if *kind == "classifier" {
                    &cos.classifiers
                } else {
                    &cos.rewrites
                };
                map.contains_key(&(ty.to_string(), n.to_string()))
            }
            _ => true,
        };
        if !defined && seen.insert((*kind, name.clone(), src.line)) {
            out.push((*kind, name.clone(), src.clone()));
        }
    }
    out
}

/// Why Junos's map entries are what they are where no line states them.
pub(crate) const MAP_NOTES: Notes<'static> = Notes {
    dscp_to_tc: Some(
        "the forwarding class of the DSCP classifier (default classifier: cs6/cs7 network-control, all else best-effort), numbered by its queue-num",
    ),
    tc_to_queue: Some(
        "a Junos forwarding class is known by its output queue (queue-num): the model's traffic class is the queue number [I]",
    ),
    tc_to_pg: Some(
        "no configurable TC → priority group map on QFX: the lossless buffer follows the no-loss class of each queue [I]",
    ),
    tc_to_pfc_priority: Some(
        "the forwarding class's pfc-priority (DSCP-based PFC), else the queue number",
    ),
    ..super::registry::NO_NOTES
};

/// Interface names as Junos prints them (`et-0/0/0`, `ae0`); LLDP and cabling plans may add
/// blanks or a `.0` unit to a physical port.
pub fn canonical_ifname(name: &str) -> String {
    let n = name.trim().trim_matches('"');
    match n.strip_suffix(".0") {
        Some(phys) if kind_of(phys) == "ethernet" => phys.to_string(),
        _ => n.to_string(),
    }
}

/// Model interface kind from a Junos name.
pub(crate) fn kind_of(name: &str) -> &'static str {
    let sub = name.contains('.');
    let family = name.split('-').next().unwrap_or("");
    if name.contains('-')
        && matches!(family, "et" | "xe" | "ge" | "mge" | "fte")
        && name[family.len() + 1..].starts_with(|c: char| c.is_ascii_digit())
    {
        return if sub { "other" } else { "ethernet" };
    }
    if let Some(n) = name.strip_prefix("ae")
        && n.starts_with(|c: char| c.is_ascii_digit())
    {
        return if sub { "other" } else { "port-channel" };
    }
    if name.starts_with("lo") && name[2..].starts_with(|c: char| c.is_ascii_digit()) {
        return "loopback";
    }
    if name == "irb" || name == "vlan" || name.starts_with("irb.") || name.starts_with("vlan.") {
        return "vlan";
    }
    if name.starts_with("em")
        || name.starts_with("fxp")
        || name.starts_with("me")
        || name.starts_with("re0:mgmt")
        || name.starts_with("re1:mgmt")
        || name == "vme"
    {
        return "mgmt";
    }
    if matches!(
        family,
        "gr" | "ip" | "lt" | "mt" | "vt" | "lsq" | "sp" | "pd" | "pe" | "vtep"
    ) {
        return "tunnel";
    }
    "other"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_kinds() {
        assert_eq!(canonical_ifname(" et-0/0/1 "), "et-0/0/1");
        assert_eq!(canonical_ifname("et-0/0/1.0"), "et-0/0/1");
        assert_eq!(canonical_ifname("ae0.0"), "ae0.0");
        assert_eq!(kind_of("et-0/0/0:1"), "ethernet");
        assert_eq!(kind_of("xe-0/0/3"), "ethernet");
        assert_eq!(kind_of("et-0/0/0.0"), "other");
        assert_eq!(kind_of("ae12"), "port-channel");
        assert_eq!(kind_of("lo0"), "loopback");
        assert_eq!(kind_of("em0"), "mgmt");
        assert_eq!(kind_of("re0:mgmt-0"), "mgmt");
        assert_eq!(kind_of("gr-0/0/0"), "tunnel");
        assert_eq!(kind_of("irb"), "vlan");
        assert_eq!(kind_of("et-*"), "other");
    }
}

#[cfg(test)]
mod form_tests {
    //! A configuration gives the same model whichever form it is written in: the golden pairs
    //! fixtures/junos/show-configuration/<case>.txt (curly braces, `inactive:`) and
    //! fixtures/junos/show-configuration-set/<case>.txt (`| display set`, `deactivate`).
    use crate::device::build_device;
    use crate::snapshot::DeviceInput;

    fn model(cmd: &str, text: &str) -> serde_json::Value {
        let parsers = crate::parser::load_parsers(None).expect("embedded parsers load");
        let input = DeviceInput::one_file("dut", "junos", "configs/dut.conf", cmd, Ok(text.into()));
        let (dev, _) = build_device(&parsers, &input);
        let mut v = serde_json::to_value(&dev).expect("serializes");
        // Where a fact was stated differs between the forms (line numbers); what it is must not.
        if let Some(ifs) = v.get_mut("interfaces").and_then(|i| i.as_array_mut()) {
            for i in ifs {
                if let Some(o) = i.as_object_mut() {
                    o.remove("defined_at");
                }
            }
        }
        serde_json::json!({ "interfaces": v["interfaces"], "qos": v["qos"], "os": v["os_version"] })
    }

    #[test]
    fn both_forms_give_the_same_model() {
        let pairs = [
            (
                include_str!("../../fixtures/junos/show-configuration/roce-spine.txt"),
                include_str!("../../fixtures/junos/show-configuration-set/roce-spine.txt"),
            ),
            (
                include_str!("../../fixtures/junos/show-configuration/leaf-lag-inactive.txt"),
                include_str!("../../fixtures/junos/show-configuration-set/leaf-lag-inactive.txt"),
            ),
        ];
        for (braces, set) in pairs {
            let a = model("show configuration", braces);
            let b = model("show configuration | display set", set);
            assert!(a["interfaces"].as_array().is_some_and(|i| !i.is_empty()));
            assert_eq!(a, b);
        }
    }

    #[test]
    fn indentation_is_not_trusted() {
        // The same statements flattened to the left margin nest by their braces.
        let braces = include_str!("../../fixtures/junos/show-configuration/roce-spine.txt");
        let flat: String = braces.lines().map(|l| format!("{}\n", l.trim())).collect();
        let a = model("show configuration", braces);
        let b = model("show configuration", &flat);
        let pick = |v: &serde_json::Value| {
            v["interfaces"]
                .as_array()
                .map(|ifs| {
                    ifs.iter()
                        .map(|i| {
                            (
                                i["name"].clone(),
                                i["pfc"].clone(),
                                i["queues"].clone(),
                                i["mtu"].clone(),
                            )
                        })
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        };
        assert_eq!(pick(&a), pick(&b));
    }
}
