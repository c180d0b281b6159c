//! Platform semantics for Arista EOS (patterns in `vendor-parsers/eos.toml`).
//!
//! EOS keeps RoCE QoS in a handful of places: global `qos map` statements (DSCP → traffic class,
//! traffic class → tx-queue), per-interface statements (`qos trust`, `priority-flow-control`,
//! `tx-queue N` blocks with ECN/WRED and scheduling), the same statements grouped in a
//! `qos profile` applied with `service-profile`, and global PFC-watchdog timers. This module
//! resolves those layers into the model, applies EOS's defaults where a line is absent (marked
//! `default = true`), and reports references to profiles, policy-maps and class-maps the config
//! never defines. Show outputs (`show interfaces`, `show qos interfaces`, LLDP) add operational
//! facts; they replace defaults and unknowns but never a value the config states.
//!
//! Evidence markers in comments follow RULES-CATALOG.md §0.1 ([V] primary source read,
//! [S] secondary copy, [R] recalled, [I] design choice).
//!
//! Layout: `read` turns running-config records into per-interface / per-profile statements,
//! `apply` resolves them with EOS's defaults into the model, `show` adds operational outputs.

mod apply;
mod read;
mod show;

use super::{BuildNotes, Output};
use crate::model::{Device, Field, UndefinedRef};

pub fn build(dev: &mut Device, outs: &[Output]) -> BuildNotes {
    let mut notes = BuildNotes::default();
    // Configs first, then the outputs that refine them; detail LLDP before the summary so the
    // richer record wins when both were collected.
    let order = [
        "running-config",
        "show-interfaces",
        "show-qos-interfaces",
        "show-lldp-neighbors-detail",
        "show-lldp-neighbors",
    ];
    for id in order {
        for (oi, o) in outs.iter().enumerate() {
            if o.cmd.id != id {
                continue;
            }
            match id {
                "running-config" => {
                    let cfg = read::read_config(o);
                    for (kind, name, line) in read::undefined_refs(&cfg) {
                        notes
                            .undefined
                            .push((oi, UndefinedRef { kind, name, line }));
                    }
                    apply::apply_config(dev, &cfg);
                }
                "show-interfaces" => show::show_interfaces(dev, o),
                "show-qos-interfaces" => show::show_qos_interfaces(dev, o),
                "show-lldp-neighbors-detail" => show::lldp_detail(dev, o),
                _ => show::lldp_summary(dev, o),
            }
        }
    }
    notes
}

/// Full EOS interface name from the abbreviations EOS prints (`Et1`, `Eth1/1`, `Po10`, `Ma1`).
pub fn canonical_ifname(name: &str) -> String {
    let n = name.trim().trim_matches('"');
    let Some(split) = n.find(|c: char| c.is_ascii_digit()) else {
        return n.to_string();
    };
    let (alpha, rest) = n.split_at(split);
    let full = match alpha.to_ascii_lowercase().as_str() {
        "et" | "eth" | "ethernet" => "Ethernet",
        "po" | "port-channel" => "Port-Channel",
        "ma" | "mgmt" | "management" => "Management",
        "vl" | "vlan" => "Vlan",
        "lo" | "loopback" => "Loopback",
        "vx" | "vxlan" => "Vxlan",
        "tu" | "tunnel" => "Tunnel",
        _ => return n.to_string(),
    };
    format!("{full}{rest}")
}

/// Model interface kind from a canonical EOS name.
fn kind_of(name: &str) -> &'static str {
    if name.starts_with("Ethernet") {
        "ethernet"
    } else if name.starts_with("Port-Channel") {
        "port-channel"
    } else if name.starts_with("Vlan") {
        "vlan"
    } else if name.starts_with("Loopback") {
        "loopback"
    } else if name.starts_with("Management") {
        "mgmt"
    } else if name.starts_with("Tunnel") || name.starts_with("Vxlan") {
        "tunnel"
    } else {
        "other"
    }
}

/// Set `f` from an operational output unless the config stated it.
fn fill<T>(f: &mut Field<T>, v: Field<T>) {
    if v.is_some() && f.as_ref().is_none_or(|s| s.default) {
        *f = v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(canonical_ifname("Et1"), "Ethernet1");
        assert_eq!(canonical_ifname("Eth1/1"), "Ethernet1/1");
        assert_eq!(canonical_ifname("Po10"), "Port-Channel10");
        assert_eq!(canonical_ifname("Ma1"), "Management1");
        assert_eq!(canonical_ifname("Ethernet3/1"), "Ethernet3/1");
        assert_eq!(canonical_ifname("Port-Channel33"), "Port-Channel33");
        assert_eq!(canonical_ifname("swp1"), "swp1");
        assert_eq!(canonical_ifname(""), "");
    }
}
