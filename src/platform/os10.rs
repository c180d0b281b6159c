//! Platform semantics for Dell SmartFabric OS10, and the older Dell Networking OS9 (FTOS) form
//! of the same configs (patterns in `vendor-parsers/os10.toml`).
//!
//! OS10 spreads a port's lossless setup over global objects tied together by name: trust maps
//! (DSCP or 802.1p → traffic class), a `qos-map traffic-class` (traffic class → queue), a
//! `network-qos` policy whose classes `pause` and name the 802.1p priorities (`pfc-cos`), and a
//! `queuing` policy that shares bandwidth and points at `wred` profiles for ECN. Each is applied
//! in `system qos` or on the port; the port's `priority-flow-control mode on` turns PFC on.
//! `read` turns the config into statements with their lines, `apply` resolves them with OS10's
//! defaults (marked `default = true`) and reports references to objects the config never
//! defines. OS9 configs (`dcb-map`, `priority-pgid`, `pfc on`) are read by the same patterns.
//! `show` reads the LLDP neighbors of `show lldp neighbors` and the port MACs of `show interface`.
//!
//! OS10 has no PFC watchdog command this tool could verify in a public source, so the watchdog
//! stays unknown and the WDG rules report that they could not decide.
//!
//! Evidence markers in comments: [V] read in the vendor's own text,
//! [S] read in a secondary copy, [R] recalled, not re-read, [I] our inference or design choice.

mod apply;
mod read;
mod show;

use super::registry::{Read, reader};
use super::{BuildNotes, Output};
use crate::model::{Device, UndefinedRef};

/// Command ids of vendor-parsers/os10.toml that carry a configuration.
/// Why OS10's map entries are what they are where no line states them.
pub(crate) const MAP_NOTES: crate::model::maps::Notes<'static> = crate::model::maps::Notes {
    tc_to_pg: Some(
        "OS10 gives each lossless network-qos class its own priority group; the model keys priority groups by traffic class [I]",
    ),
    ..super::registry::NO_NOTES
};

const CONFIG_IDS: &[&str] = &["running-config", "ftos-running-config"];

/// Command id of vendor-parsers/os10.toml → the reader of its output (meta-tested: every
/// command has one, or says why not).
pub(crate) const READS: &[Read] = &[
    reader("running-config", "read::read_config"),
    reader("ftos-running-config", "read::read_config"),
    reader("show-lldp-neighbors", "show::lldp_neighbors"),
    reader("show-interface", "show::interface_macs"),
];

pub fn build(dev: &mut Device, outs: &[Output]) -> BuildNotes {
    let mut notes = BuildNotes::default();
    // One configuration: the OS10 command's output if collected, else the OS9 one.
    let pick = CONFIG_IDS
        .iter()
        .find_map(|id| outs.iter().enumerate().find(|(_, o)| o.cmd.id == *id));
    if let Some((oi, o)) = pick {
        let cfg = read::read_config(o);
        for (kind, name, line) in read::undefined_refs(&cfg) {
            notes
                .undefined
                .push((oi, UndefinedRef { kind, name, line }));
        }
        for (src, why) in &cfg.unread {
            notes.not_read(oi, src.line, why);
        }
        apply::apply_config(dev, &cfg);
    }
    super::read_shows(dev, outs, SHOWS);
    notes
}

/// The operational outputs, in the order they are read (after the config).
const SHOWS: &[super::Show] = &[
    ("show-lldp-neighbors", show::lldp_neighbors),
    ("show-interface", show::interface_macs),
];

/// Canonical interface name. OS10 configs say `ethernet1/1/1`, its show commands `Eth 1/1/1` or
/// `Ethernet 1/1/1`: all become `ethernet1/1/1` (`port-channel10`, `vlan10`, `mgmt1/1/1`,
/// `loopback0`). OS9 names keep their long form without the space (`TenGigabitEthernet 0/1`
/// and `Te 0/1` → `TenGigabitEthernet0/1`).
pub fn canonical_ifname(name: &str) -> String {
    let n = name.trim();
    let Some(split) = n.find(|c: char| c.is_ascii_digit()) else {
        return n.to_string();
    };
    let (word, rest) = n.split_at(split);
    let rest = rest.trim();
    let word = word.trim().to_ascii_lowercase();
    let levels = rest.split(':').next().unwrap_or("").matches('/').count();
    let family = match word.as_str() {
        // OS10 Ethernet ports have three levels (unit/slot/port[:sub-port]); OS9 has no
        // `ethernet` keyword of its own.
        "e" | "eth" | "ethernet" if levels == 2 => "ethernet",
        "po" | "port-channel" | "portchannel" => "port-channel",
        "vl" | "vlan" => "vlan",
        "mgmt" | "ma" | "management" if levels == 2 => "mgmt",
        "lo" | "loopback" => "loopback",
        "te" | "tengigabitethernet" => "TenGigabitEthernet",
        "fo" | "fortygige" => "fortyGigE",
        "hu" | "hundredgige" => "hundredGigE",
        "tf" | "twentyfivegige" => "twentyFiveGigE",
        "fi" | "fiftygige" => "fiftyGigE",
        "gi" | "gigabitethernet" => "GigabitEthernet",
        "ma" | "managementethernet" => "ManagementEthernet",
        "nu" | "null" => "null",
        _ => return n.to_string(),
    };
    format!("{family}{rest}")
}

/// Model interface kind from a canonical name.
fn kind_of(name: &str) -> &'static str {
    let word = name
        .split(|c: char| c.is_ascii_digit())
        .next()
        .unwrap_or("");
    match word {
        "ethernet" | "TenGigabitEthernet" | "fortyGigE" | "hundredGigE" | "twentyFiveGigE"
        | "fiftyGigE" | "GigabitEthernet" => {
            if name.contains('.') {
                "other"
            } else {
                "ethernet"
            }
        }
        "port-channel" => "port-channel",
        "vlan" => "vlan",
        "loopback" => "loopback",
        "mgmt" | "ManagementEthernet" => "mgmt",
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_names() {
        assert_eq!(canonical_ifname("ethernet1/1/1"), "ethernet1/1/1");
        assert_eq!(canonical_ifname("Eth 1/1/1"), "ethernet1/1/1");
        assert_eq!(canonical_ifname("Ethernet 1/1/31"), "ethernet1/1/31");
        assert_eq!(canonical_ifname("ethernet1/1/5:2"), "ethernet1/1/5:2");
        assert_eq!(canonical_ifname("Port-channel 10"), "port-channel10");
        assert_eq!(canonical_ifname("port-channel10"), "port-channel10");
        assert_eq!(canonical_ifname("Vlan 1"), "vlan1");
        assert_eq!(canonical_ifname("Management 1/1/1"), "mgmt1/1/1");
        assert_eq!(canonical_ifname("mgmt1/1/1"), "mgmt1/1/1");
        assert_eq!(
            canonical_ifname("TenGigabitEthernet 0/1"),
            "TenGigabitEthernet0/1"
        );
        assert_eq!(canonical_ifname("Te 0/45"), "TenGigabitEthernet0/45");
        assert_eq!(canonical_ifname("fortyGigE 0/48"), "fortyGigE0/48");
        assert_eq!(
            canonical_ifname("ManagementEthernet 0/0"),
            "ManagementEthernet0/0"
        );
        assert_eq!(canonical_ifname("Loopback 0"), "loopback0");
        assert_eq!(canonical_ifname("Ethernet1/1"), "Ethernet1/1");
        assert_eq!(canonical_ifname("swp1"), "swp1");
        assert_eq!(canonical_ifname(""), "");
    }

    #[test]
    fn kinds() {
        assert_eq!(kind_of("ethernet1/1/1"), "ethernet");
        assert_eq!(kind_of("ethernet1/1/1:1"), "ethernet");
        assert_eq!(kind_of("TenGigabitEthernet0/1"), "ethernet");
        assert_eq!(kind_of("port-channel10"), "port-channel");
        assert_eq!(kind_of("vlan10"), "vlan");
        assert_eq!(kind_of("mgmt1/1/1"), "mgmt");
        assert_eq!(kind_of("ManagementEthernet0/0"), "mgmt");
        assert_eq!(kind_of("loopback0"), "loopback");
    }
}
