//! Platform semantics for `nxos` (Cisco NX-OS, Nexus 9000 class; patterns in
//! vendor-parsers/nxos.toml).
//!
//! NX-OS spreads one port's QoS over four places: class-maps classify (DSCP/CoS → qos-group),
//! a `type qos` policy applies them, the system `network-qos` policy decides which qos-groups
//! pause (PFC) and their MTU, and a `type queuing` policy schedules the egress queues and marks
//! ECN. The config side (`read`) collects definitions and interface blocks from
//! `show running-config` and `show running-config interface`; `apply` resolves the chain for
//! each interface and applies NX-OS defaults for absent lines; `show` reads the operational
//! outputs (`show interface`, LLDP, `show interface priority-flow-control`), which win over
//! the config where both speak.

mod apply;
pub(crate) mod read;
mod show;

use super::registry::{Read, reader};
use super::{BuildNotes, Output};
use crate::model::Device;
use crate::model::maps::Notes;

/// Command ids of vendor-parsers/nxos.toml.
const CONFIG_IDS: &[&str] = &["running-config", "show-running-interface"];

/// Command id of vendor-parsers/nxos.toml → the reader of its output (meta-tested: every
/// command has one, or says why not).
pub(crate) const READS: &[Read] = &[
    reader("running-config", "read::Config::read"),
    reader("show-running-interface", "read::Config::read"),
    reader("show-interface", "show::read"),
    reader("show-lldp-neighbors-detail", "show::read"),
    reader("show-lldp-neighbors", "show::read"),
    reader("show-interface-priority-flow-control", "show::read"),
];

pub fn build(dev: &mut Device, outs: &[Output]) -> BuildNotes {
    let mut notes = BuildNotes::default();
    let mut cfg = read::Config::default();
    for (i, o) in outs.iter().enumerate() {
        if CONFIG_IDS.contains(&o.cmd.id.as_str()) {
            cfg.read(i, o);
        }
    }
    cfg.finish();
    for (oi, line, why) in &cfg.unexpanded {
        notes.not_read(*oi, *line, why);
    }
    if cfg.seen {
        apply::apply(dev, &cfg, &mut notes);
    }
    // Operational outputs after the config: what the device reports wins.
    super::read_shows(dev, outs, SHOWS);
    notes
}

/// The operational outputs, in the order they are read (after the config).
const SHOWS: &[super::Show] = &[
    ("show-interface", show::read),
    ("show-lldp-neighbors", show::read),
    ("show-lldp-neighbors-detail", show::read),
    ("show-interface-priority-flow-control", show::read),
];

/// Why NX-OS's map entries are what they are where no line states them.
pub(crate) const MAP_NOTES: Notes<'static> = Notes {
    dscp_to_tc: Some("qos-group set by the `type qos` input policy; without a match, qos-group 0"),
    tc_to_queue: Some(
        "qos-group N is queued in the system-defined queuing class c-out-8q-qN (queue N): Cisco Nexus 9000 Series NX-OS Quality of Service Configuration Guide, \"Configuring Queuing and Scheduling\", https://www.cisco.com/c/en/us/td/docs/switches/datacenter/nexus9000/sw/7-x/qos/configuration/guide/b_Cisco_Nexus_9000_Series_NX-OS_Quality_of_Service_Configuration_Guide_7x.html [R]",
    ),
    tc_to_pg: Some(
        "qos-group N fills the ingress priority group of network-qos class c-8q-nqN [I]",
    ),
    tc_to_pfc_priority: Some(
        "the `pause pfc-cos` of the network-qos class that matches the qos-group",
    ),
    ..super::registry::NO_NOTES
};

/// Canonical NX-OS interface name: `Eth1/1`, `eth1/1`, `ethernet 1/1` → `Ethernet1/1`;
/// `Po10`, `port-channel 10` → `port-channel10`; `Vlan10`, `Lo0`, `mgmt0`, `nve1`.
pub fn canonical_ifname(name: &str) -> String {
    let n = name.trim();
    let split = n.find(|c: char| c.is_ascii_digit()).unwrap_or(n.len());
    let (word, rest) = n.split_at(split);
    let word = word.trim().to_ascii_lowercase();
    let rest = rest.trim();
    if rest.is_empty() {
        return n.to_string();
    }
    let family = match word.as_str() {
        "e" | "et" | "eth" | "ethe" | "ether" | "ethernet" => "Ethernet",
        "po" | "port-channel" | "port-ch" | "portchannel" => "port-channel",
        "vl" | "vlan" => "Vlan",
        "lo" | "loopback" => "loopback",
        "mgmt" => "mgmt",
        "nve" => "nve",
        "tunnel" | "tu" => "Tunnel",
        _ => return n.to_string(),
    };
    format!("{family}{rest}")
}

/// Interface kind from a canonical name (sub-interfaces are `other`).
pub(crate) fn if_kind(name: &str) -> &'static str {
    let sub = name.contains('.');
    if name.starts_with("Ethernet") {
        if sub { "other" } else { "ethernet" }
    } else if name.starts_with("port-channel") {
        if sub { "other" } else { "port-channel" }
    } else if name.starts_with("Vlan") {
        "vlan"
    } else if name.starts_with("loopback") {
        "loopback"
    } else if name.starts_with("mgmt") {
        "mgmt"
    } else if name.starts_with("nve") || name.starts_with("Tunnel") {
        "tunnel"
    } else {
        "other"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_names() {
        assert_eq!(canonical_ifname("Eth1/1"), "Ethernet1/1");
        assert_eq!(canonical_ifname("eth1/49"), "Ethernet1/49");
        assert_eq!(canonical_ifname("ethernet 1/2"), "Ethernet1/2");
        assert_eq!(canonical_ifname("Ethernet1/1/3"), "Ethernet1/1/3");
        assert_eq!(canonical_ifname("Eth101/1/10"), "Ethernet101/1/10");
        assert_eq!(canonical_ifname("Po10"), "port-channel10");
        assert_eq!(canonical_ifname("port-channel 10"), "port-channel10");
        assert_eq!(canonical_ifname("vlan10"), "Vlan10");
        assert_eq!(canonical_ifname("Lo0"), "loopback0");
        assert_eq!(canonical_ifname("mgmt0"), "mgmt0");
        assert_eq!(canonical_ifname("Fa1/0/9"), "Fa1/0/9");
        assert_eq!(canonical_ifname("1a51.4800.0001"), "1a51.4800.0001");
        assert_eq!(canonical_ifname(""), "");
    }

    #[test]
    fn kinds() {
        assert_eq!(if_kind("Ethernet1/1"), "ethernet");
        assert_eq!(if_kind("Ethernet1/1.100"), "other");
        assert_eq!(if_kind("port-channel10"), "port-channel");
        assert_eq!(if_kind("Vlan10"), "vlan");
        assert_eq!(if_kind("mgmt0"), "mgmt");
        assert_eq!(if_kind("loopback0"), "loopback");
    }
}
