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
//! Evidence markers in comments: [V] read in the vendor's own text,
//! [S] read in a secondary copy, [R] recalled, not re-read, [I] our inference or design choice.
//! Sources named in comments:
//! - "RoCEv2 guide" (secondary): a third-party "Arista EOS RoCEv2 lossless config" guide for
//!   EOS 4.36 that reproduces tables of Arista's EOS User Manual, Quality of Service,
//!   <https://www.arista.com/en/um-eos/eos-quality-of-service>
//! - Arista AVD `eos_cli_config_gen` templates (CLI syntax), <https://github.com/aristanetworks/avd>
//!
//! Layout: `read` turns running-config records into per-interface / per-profile statements,
//! `apply` resolves them with EOS's defaults into the model, `show` adds operational outputs.

mod apply;
mod read;
mod show;

use super::registry::{Read, reader};
use super::{BuildNotes, Output};
use crate::model::{Device, UndefinedRef};

/// Command id of vendor-parsers/eos.toml → the reader of its output (meta-tested: every
/// command has one, or says why not).
pub(crate) const READS: &[Read] = &[
    reader("running-config", "read::read_config"),
    reader("show-interfaces", "show::show_interfaces"),
    reader("show-lldp-neighbors-detail", "show::lldp_detail"),
    reader("show-lldp-neighbors", "show::lldp_summary"),
    reader("show-qos-interfaces", "show::show_qos_interfaces"),
];

pub fn build(dev: &mut Device, outs: &[Output]) -> BuildNotes {
    let mut notes = BuildNotes::default();
    // Configs first, then the outputs that refine them.
    for (oi, o) in outs.iter().enumerate() {
        if o.cmd.id != "running-config" {
            continue;
        }
        let cfg = read::read_config(o);
        for (line, why) in &cfg.unexpanded {
            notes.not_read(oi, *line, why);
        }
        for (kind, name, line) in read::undefined_refs(&cfg) {
            notes
                .undefined
                .push((oi, UndefinedRef { kind, name, line }));
        }
        apply::apply_config(dev, &cfg);
    }
    super::read_shows(dev, outs, SHOWS);
    notes
}

/// The outputs that refine the config, in the order they are read: detail LLDP before the
/// summary so the richer record wins when both were collected.
const SHOWS: &[super::Show] = &[
    ("show-interfaces", show::show_interfaces),
    ("show-qos-interfaces", show::show_qos_interfaces),
    ("show-lldp-neighbors-detail", show::lldp_detail),
    ("show-lldp-neighbors", show::lldp_summary),
];

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
    super::util::kind_by_prefix(name, FAMILIES)
}

/// EOS interface-name families: (name prefix, model kind).
const FAMILIES: &[(&str, &str)] = &[
    ("Ethernet", "ethernet"),
    ("Port-Channel", "port-channel"),
    ("Vlan", "vlan"),
    ("Loopback", "loopback"),
    ("Management", "mgmt"),
    ("Tunnel", "tunnel"),
    ("Vxlan", "tunnel"),
];

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
