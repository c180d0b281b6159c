//! Platform semantics for NVIDIA Cumulus Linux (patterns in `vendor-parsers/cumulus.toml`).
//!
//! Cumulus states its QoS intent in one of three forms: the NVUE revision of 5.x
//! (`nv config show`, /etc/nvue.d/startup.yaml, or `nv config show -o json`), the datapath file
//! /etc/cumulus/datapath/traffic.conf of 3.x/4.x, and NCLU `net show configuration commands`
//! (interfaces only; NCLU has no QoS). All three fill one intent (`intent`), which `apply`
//! resolves into the model with Cumulus's defaults (the RoCE profile that `nv set qos roce`
//! brings, the default-global profiles, the 9216 MTU) marked `default = true`. The NVUE `nv show`
//! outputs then add running state (`show`): a value in their operational column replaces the
//! intent, so the audit judges what the switch runs and cites the line that shows it.
//!
//! Layout: `tree` rebuilds the NVUE object tree from YAML records or JSON, `nvue` reads it,
//! `legacy` reads traffic.conf and NCLU, `intent` holds what they state, `apply` resolves it,
//! `show` overlays the state outputs.
//!
//! Evidence markers in comments: [V] read in the vendor's own text,
//! [S] read in a secondary copy, [R] recalled, not re-read, [I] our inference or design choice.
//! Sources named in comments:
//! - "RoCE page": NVIDIA, Cumulus Linux 5.12 — RDMA over Converged Ethernet (RoCE),
//!   <https://docs.nvidia.com/networking-ethernet-software/cumulus-linux-512/Layer-1-and-Switch-Ports/Quality-of-Service/RDMA-over-Converged-Ethernet-RoCE/>
//! - "QoS page": NVIDIA, Cumulus Linux — Quality of Service (classification, buffers, link pause,
//!   PFC, PFC watchdog, ECN, scheduler), <https://docs.nvidia.com/networking-ethernet-software/cumulus-linux/Layer-1-and-Switch-Ports/Quality-of-Service/>
//! - "5.12 Switch Port Attributes": NVIDIA, Cumulus Linux 5.12 — Switch Port Attributes,
//!   <https://docs.nvidia.com/networking-ethernet-software/cumulus-linux-512/Layer-1-and-Switch-Ports/Interface-Configuration-and-Management/Switch-Port-Attributes/>

mod apply;
mod commands;
mod intent;
mod legacy;
mod nvue;
mod show;
mod tree;

use super::registry::{Read, reader};
use super::{BuildNotes, Output};
use crate::model::{Device, UndefinedRef};

/// Command id of vendor-parsers/cumulus.toml → the reader of its output (meta-tested: every
/// command has one, or says why not).
pub(crate) const READS: &[Read] = &[
    reader("nv-config-commands", "commands::tree"),
    reader("nv-config-show", "nvue::read"),
    reader("nv-config-show-json", "nvue::read"),
    reader("nv-show-qos-roce", "show::overlay"),
    reader("nv-show-interface-qos-roce-status", "show::overlay"),
    reader("nv-show-interface-qos-roce-counters", "show::roce_counters"),
    reader("nv-show-qos-pfc", "show::overlay"),
    reader("nv-show-qos-congestion-control", "show::overlay"),
    reader("nv-show-interface-qos-pfc-watchdog", "show::overlay"),
    reader("nv-show-interface-lldp", "show::lldp_table"),
    reader("lldpctl-json", "linux::lldp_json"),
    reader("ip-link-json", "link_macs"),
    reader("traffic-conf", "legacy::traffic_conf"),
    reader("nclu-commands", "legacy::nclu"),
];

pub fn build(dev: &mut Device, outs: &[Output]) -> BuildNotes {
    let mut notes = BuildNotes::default();
    let mut cfg = intent::Cfg::default();
    // Intent first, oldest form first, so a later form of the same device wins.
    for id in [
        "traffic-conf",
        "nclu-commands",
        "nv-config-commands",
        "nv-config-show",
        "nv-config-show-json",
    ] {
        for (oi, o) in outs.iter().enumerate().filter(|(_, o)| o.cmd.id == id) {
            match id {
                "traffic-conf" => legacy::traffic_conf(o, oi, &mut cfg),
                "nclu-commands" => legacy::nclu(o, &mut cfg),
                "nv-config-commands" => {
                    let (t, unread) = commands::tree(o);
                    for (line, why) in unread {
                        notes.not_read(oi, line, &why);
                    }
                    nvue::read(&t, o, &mut cfg)
                }
                // both forms parsed as structure by the engine (format `yaml-lines`)
                _ => nvue::read(&tree::from_records(o), o, &mut cfg),
            }
        }
    }
    // Profiles an interface names that the config never defines (what they govern on the port
    // is then unknown, see `apply::apply`).
    for f in &cfg.ifaces {
        for (family, p) in f.profiles.iter() {
            if cfg.has_profile(family, &p.v) {
                continue;
            }
            if let Some(oi) = outs.iter().position(|o| o.file == p.src.file) {
                notes.undefined.push((
                    oi,
                    UndefinedRef {
                        kind: format!("qos {family} profile"),
                        name: p.v.clone(),
                        line: p.src.line,
                    },
                ));
            }
        }
    }
    // Lines read but not understood (an interface list that cannot be expanded).
    for (src, why) in &cfg.unread {
        if let Some(oi) = outs.iter().position(|o| o.file == src.file) {
            notes.not_read(oi, src.line, why);
        }
    }
    for (oi, kind, name, line) in &cfg.refs {
        notes.undefined.push((
            *oi,
            UndefinedRef {
                kind: kind.to_string(),
                name: name.clone(),
                line: *line,
            },
        ));
    }
    let ports = apply::apply(dev, &mut cfg);
    // Drift is known only when both a configuration and a state output were read.
    let has_config = outs
        .iter()
        .any(|o| o.cmd.config || o.cmd.id.starts_with("nv-config"));
    // (LLDP neighbors are state, but of nothing a configuration states.)
    let has_state = outs
        .iter()
        .any(|o| o.cmd.id.starts_with("nv-show") && o.cmd.id != "nv-show-interface-lldp");
    // What the configuration says, to tell where the running state differs from it.
    let intended = (has_config && has_state).then(|| dev.interfaces.clone());
    show::overlay(dev, outs, &ports);
    if let Some(before) = intended {
        dev.drift = Some(super::drift::between(&before, &dev.interfaces));
    }
    // LLDP neighbors (lldpd runs on every Cumulus release). lldpd's own JSON first: it carries
    // the port description, which names the port of a Linux host that sends its MAC as port
    // id; then the NVUE table, which shows the port id only. The first neighbor of a port is
    // kept.
    for id in ["lldpctl-json", "nv-show-interface-lldp"] {
        for o in outs.iter().filter(|o| o.cmd.id == id) {
            let found = if id == "lldpctl-json" {
                o.parsed
                    .json
                    .as_ref()
                    .map(|v| super::linux::lldp_json(v, o))
                    .unwrap_or_default()
            } else {
                show::lldp_table(o)
            };
            for (name, nb) in found {
                let name = canonical_ifname(&name);
                let i = dev.iface(&name, kind_of(&name, None));
                if i.lldp_neighbor.is_none() {
                    i.lldp_neighbor = Some(Box::new(nb));
                }
            }
        }
    }
    for o in outs.iter().filter(|o| o.cmd.id == "ip-link-json") {
        link_macs(dev, o);
    }
    for o in outs
        .iter()
        .filter(|o| o.cmd.id == "nv-show-interface-qos-roce-counters")
    {
        show::roce_counters(dev, o);
    }
    notes
}

/// Interface names as Cumulus prints them (swp1, swp1s0, bond1, eth0, lo): kept, lowercased.
pub fn canonical_ifname(name: &str) -> String {
    name.trim().trim_matches('"').to_ascii_lowercase()
}

/// Model interface kind from the name, or from the NVUE `type` when the config gives one.
fn kind_of(name: &str, typ: Option<&str>) -> &'static str {
    match typ {
        Some("swp") => return "ethernet",
        Some("bond") | Some("peerlink") => return "port-channel",
        Some("loopback") => return "loopback",
        Some("eth") => return "mgmt",
        Some("svi") => return "vlan",
        Some("vxlan") => return "tunnel",
        Some("sub") | Some("bridge") => return "other",
        _ => {}
    }
    let n = name.to_ascii_lowercase();
    let digits_after = |p: &str| {
        n.strip_prefix(p)
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
    };
    if n.contains('.') {
        "other"
    } else if digits_after("swp") {
        "ethernet"
    } else if n.starts_with("bond") || n == "peerlink" {
        "port-channel"
    } else if n == "lo" {
        "loopback"
    } else if digits_after("eth") {
        "mgmt"
    } else if digits_after("vlan") {
        "vlan"
    } else if n.starts_with("vni") || n.starts_with("vxlan") {
        "tunnel"
    } else {
        "other"
    }
}

/// `ip -d -j link show`: the MAC of each switch port and bond, so that a neighbor whose LLDP
/// port id is a MAC (lldpd's default subtype, NIC firmware agents) finds the port. A bond
/// member's `address` is the bond's; `permaddr`, its own, is what it advertises. Nothing else
/// is read: admin state and MTU come from the configuration.
fn link_macs(dev: &mut Device, o: &Output) {
    use crate::parser::json::Node;
    let Some(links) = o.parsed.json.as_ref().and_then(Node::as_array) else {
        return;
    };
    for l in links {
        let Some(name) = l.get("ifname").and_then(Node::as_str) else {
            continue;
        };
        let name = canonical_ifname(name);
        // the configuration's kind (an NVUE bond may have any name), else iproute2's, else
        // the name's
        let known_kind = dev.interfaces.iter().find(|i| i.name == name);
        let info_kind = l.at(&["linkinfo", "info_kind"]).and_then(Node::as_str);
        let kind = match (known_kind, info_kind) {
            (Some(i), _) => i.kind.clone(),
            (None, Some("bond")) => "port-channel".into(),
            (None, _) => crate::model::kind_name(kind_of(&name, None)),
        };
        if !matches!(&*kind, "ethernet" | "port-channel") {
            continue;
        }
        let perm = l
            .get("permaddr")
            .or_else(|| l.at(&["linkinfo", "info_slave_data", "perm_hwaddr"]));
        // the MAC cites its own line
        if let Some((mac, line)) = [perm, l.get("address")]
            .into_iter()
            .flatten()
            .find_map(|n| Some((n.as_str()?, n.line)))
            .and_then(|(m, line)| Some((crate::text::mac(m)?, line)))
        {
            dev.iface(&name, &kind).mac = crate::model::known(mac, &o.src(line));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_kinds() {
        assert_eq!(canonical_ifname("SWP1"), "swp1");
        assert_eq!(kind_of("swp1", None), "ethernet");
        assert_eq!(kind_of("swp1s0", None), "ethernet");
        assert_eq!(kind_of("swp1.100", None), "other");
        assert_eq!(kind_of("bond1", None), "port-channel");
        assert_eq!(kind_of("peerlink", None), "port-channel");
        assert_eq!(kind_of("eth0", None), "mgmt");
        assert_eq!(kind_of("lo", None), "loopback");
        assert_eq!(kind_of("vlan10", None), "vlan");
        assert_eq!(kind_of("uplink", Some("bond")), "port-channel");
        assert_eq!(kind_of("br_default", None), "other");
    }
}
