//! Platform semantics for NVIDIA Onyx (formerly MLNX-OS; patterns in
//! `vendor-parsers/onyx.toml`).
//!
//! Onyx classifies in two steps: the trusted field (DSCP with `qos trust L3`) gives a switch
//! priority, and the switch priority gives a traffic class (an egress queue). PFC pauses switch
//! priorities (`dcb priority-flow-control priority 3 enable` under a global
//! `dcb priority-flow-control enable`, per port `mode on|auto`), ECN/RED and ETS are set per
//! traffic class on each port, and the shared buffer is split into traffic pools by switch
//! priority. The one-line `roce [lossless|semi-lossless|lossy]` applies NVIDIA's RoCE profile to
//! all of that at once; what it sets is applied here as platform defaults (`default = true`,
//! cited at the `roce` line), and explicit statements override it.
//!
//! Layout: `read` turns running-config records into per-interface statements (ranges such as
//! `interface ethernet 1/1-1/4 ...` expanded), `apply` resolves them with Onyx's defaults into
//! the model, `show` adds the operational outputs (`show roce`, `show dcb priority-flow-control`,
//! `show interfaces ethernet` and their `| json-print` forms, and the LLDP neighbors of
//! `show lldp interfaces ethernet remote`).
//!
//! Evidence markers in comments: [V] read in the vendor's own text,
//! [S] read in a secondary copy, [R] recalled, not re-read, [I] our inference or design choice.
//! Sources named in comments:
//! - "RoCE Commands": NVIDIA, Onyx User Manual — RoCE Commands (`roce`, `show roce`),
//!   <https://docs.nvidia.com/networking/display/Onyxv31040100/RoCE+Commands>
//! - "PFC page": NVIDIA, Onyx User Manual 3.10.4302 — Priority Flow Control (PFC),
//!   <https://docs.nvidia.com/networking/display/Onyxv3104302/Priority+Flow+Control+(PFC)>

mod apply;
mod read;
mod show;

use super::registry::{Read, reader};
use super::{BuildNotes, Output};
use crate::model::{Device, Field, UndefinedRef};

/// Command id of vendor-parsers/onyx.toml → the reader of its output (meta-tested: every
/// command has one, or says why not).
pub(crate) const READS: &[Read] = &[
    reader("running-config", "read::read_config"),
    reader("show-roce", "show::show_roce"),
    reader("show-dcb-priority-flow-control", "show::dcb_pfc"),
    reader("show-interfaces-ethernet", "show::interfaces_ethernet"),
    reader("show-lldp-interfaces-ethernet-remote", "show::lldp_remote"),
    reader(
        "show-interfaces-ethernet-json",
        "show::interfaces_ethernet_json",
    ),
    reader("show-dcb-priority-flow-control-json", "show::dcb_pfc_json"),
    reader("show-buffers-pool-json", "show::traffic_pool_json"),
    reader(
        "show-interfaces-ethernet-congestion-control-json",
        "show::congestion_control_json",
    ),
    reader(
        "show-qos-interface-ethernet-json",
        "show::qos_interface_json",
    ),
];

pub fn build(dev: &mut Device, outs: &[Output]) -> BuildNotes {
    // The config first; operational outputs after it. `show roce` only fills what the config
    // left to defaults (it prints the profile, not the ports); the per-port outputs report the
    // device's state and win.
    let mut notes = BuildNotes::default();
    for (oi, o) in outs
        .iter()
        .enumerate()
        .filter(|(_, o)| o.cmd.id == "running-config")
    {
        let cfg = read::read_config(o);
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

/// The operational outputs, in the order they are read (after the config).
const SHOWS: &[super::Show] = &[
    ("show-roce", show::show_roce),
    ("show-buffers-pool-json", show::traffic_pool_json),
    ("show-qos-interface-ethernet-json", show::qos_interface_json),
    ("show-interfaces-ethernet", show::interfaces_ethernet),
    (
        "show-interfaces-ethernet-json",
        show::interfaces_ethernet_json,
    ),
    (
        "show-interfaces-ethernet-congestion-control-json",
        show::congestion_control_json,
    ),
    ("show-dcb-priority-flow-control", show::dcb_pfc),
    ("show-dcb-priority-flow-control-json", show::dcb_pfc_json),
    ("show-lldp-interfaces-ethernet-remote", show::lldp_remote),
];

/// Onyx's own short names, as its show outputs print them: `ethernet 1/1`, `Ethernet1/1`,
/// `eth1/1` → `Eth1/1` (split ports `Eth1/1/2`); `port-channel 1` → `Po1`;
/// `mlag-port-channel 2` → `Mpo2`; `vlan 10` / `Vlan 10` → `Vlan10`; `loopback 0` → `Lo0`.
pub fn canonical_ifname(name: &str) -> String {
    let n = name.trim().trim_matches('"');
    let Some(split) = n.find(|c: char| c.is_ascii_digit()) else {
        return n.to_string();
    };
    let (word, rest) = n.split_at(split);
    let word = word.trim().to_ascii_lowercase();
    let rest = rest.trim();
    let short = match word.as_str() {
        "e" | "et" | "eth" | "ethernet" => "Eth",
        "po" | "port-channel" => "Po",
        "mpo" | "mlag-port-channel" => "Mpo",
        "vl" | "vlan" => "Vlan",
        "lo" | "loopback" => "Lo",
        "mgmt" => "mgmt",
        _ => return n.to_string(),
    };
    format!("{short}{rest}")
}

/// Model interface kind from a canonical Onyx name.
fn kind_of(name: &str) -> &'static str {
    super::util::kind_by_prefix(name, FAMILIES)
}

/// Onyx interface-name families: (name prefix, model kind).
const FAMILIES: &[(&str, &str)] = &[
    ("Eth", "ethernet"),
    ("Po", "port-channel"),
    ("Mpo", "port-channel"),
    ("Vlan", "vlan"),
    ("Lo", "loopback"),
    ("mgmt", "mgmt"),
];

/// The short-name prefix of a config interface type (`interface ethernet 1/1`).
fn type_prefix(ty: &str) -> &'static str {
    match ty {
        "ethernet" => "Eth",
        "port-channel" => "Po",
        "mlag-port-channel" => "Mpo",
        "vlan" => "Vlan",
        _ => "Lo",
    }
}

/// Expand an Onyx interface id list into single ids: `1/1-1/4` → 1/1 … 1/4, `1/1/1-1/1/4`,
/// `1-9` (port-channels, VLANs), and comma-separated lists of those. A range must keep every
/// component but the last; anything else is `None` (the line is then not applied).
fn expand_ids(ids: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for part in ids.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((a, b)) = part.split_once('-') else {
            out.push(part.to_string());
            continue;
        };
        let (a_head, a_last) = match a.rsplit_once('/') {
            Some((h, l)) => (Some(h), l),
            None => (None, a),
        };
        let (b_head, b_last) = match b.rsplit_once('/') {
            Some((h, l)) => (Some(h), l),
            None => (None, b),
        };
        if a_head != b_head {
            return None;
        }
        let (lo, hi): (u32, u32) = (a_last.parse().ok()?, b_last.parse().ok()?);
        if lo > hi || hi - lo > 512 {
            return None;
        }
        for n in lo..=hi {
            out.push(match a_head {
                Some(h) => format!("{h}/{n}"),
                None => n.to_string(),
            });
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Canonical names of `interface <type> <ids>`.
fn if_names(ty: &str, ids: &str) -> Vec<String> {
    let prefix = type_prefix(ty);
    expand_ids(ids)
        .unwrap_or_default()
        .into_iter()
        .map(|id| format!("{prefix}{id}"))
        .collect()
}

/// Set `f` from an output that reports the device's state (it wins over the config).
fn set<T>(f: &mut Field<T>, v: Field<T>) {
    if v.is_some() {
        *f = v;
    }
}

/// Sizes as Onyx prints them (`3.6M`, `47.1K`, `0`, `1550 KB`) in bytes (1024-based [R]).
fn size_bytes(s: &str) -> Option<u64> {
    let t = s.trim();
    let digits: String = t
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let v: f64 = digits.parse().ok()?;
    let unit = t[digits.len()..].trim();
    crate::platform::util::to_bytes(v, unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(canonical_ifname("ethernet 1/1"), "Eth1/1");
        assert_eq!(canonical_ifname("Eth1/1"), "Eth1/1");
        assert_eq!(canonical_ifname("Ethernet1/32"), "Eth1/32");
        assert_eq!(canonical_ifname("eth1/1/2"), "Eth1/1/2");
        assert_eq!(canonical_ifname("port-channel 100"), "Po100");
        assert_eq!(canonical_ifname("Po1"), "Po1");
        assert_eq!(canonical_ifname("mlag-port-channel 2"), "Mpo2");
        assert_eq!(canonical_ifname("Mpo2"), "Mpo2");
        assert_eq!(canonical_ifname("Vlan 101"), "Vlan101");
        assert_eq!(canonical_ifname("mgmt0"), "mgmt0");
        assert_eq!(canonical_ifname("swp1"), "swp1");
        assert_eq!(canonical_ifname(""), "");
        assert_eq!(kind_of("Mpo2"), "port-channel");
    }

    #[test]
    fn ranges() {
        assert_eq!(
            expand_ids("1/1-1/3"),
            Some(vec!["1/1".into(), "1/2".into(), "1/3".into()])
        );
        assert_eq!(
            expand_ids("1/1/1-1/1/2"),
            Some(vec!["1/1/1".into(), "1/1/2".into()])
        );
        assert_eq!(expand_ids("1-3").map(|v| v.len()), Some(3));
        assert_eq!(expand_ids("1/1,1/5").map(|v| v.len()), Some(2));
        assert_eq!(expand_ids("1/1-2/3"), None);
        assert_eq!(expand_ids("1/4-1/2"), None);
        assert_eq!(
            if_names("ethernet", "1/31-1/32"),
            vec!["Eth1/31", "Eth1/32"]
        );
        assert_eq!(if_names("mlag-port-channel", "7"), vec!["Mpo7"]);
    }

    #[test]
    fn sizes() {
        assert_eq!(size_bytes("3.6M"), Some(3774874));
        assert_eq!(size_bytes("47.1K"), Some(48230));
        assert_eq!(size_bytes("0"), Some(0));
        assert_eq!(size_bytes("1550 KB"), Some(1587200));
        assert_eq!(size_bytes("N/A"), None);
    }
}
