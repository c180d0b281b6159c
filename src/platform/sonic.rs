//! Platform semantics for SONiC (patterns in `vendor-parsers/sonic.toml`).
//!
//! SONiC keeps a port's RoCE QoS in CONFIG_DB tables that reference each other by name:
//! `PORT_QOS_MAP|<port>` binds the DSCP → TC, TC → queue, TC → priority-group and PFC-priority
//! maps and lists the PFC priorities (`pfc_enable`); `QUEUE|<port>|<q>` binds a `SCHEDULER` and a
//! `WRED_PROFILE` (ECN); `BUFFER_PG|<port>|<pg>` binds a `BUFFER_PROFILE` (XON/XOFF headroom) in a
//! `BUFFER_POOL`; `CABLE_LENGTH` and `PFC_WD` are per port. `db` reads the JSON records of any of
//! the three serializations into one table store, `apply` resolves the references for every
//! port with SONiC's behaviour where a field or binding is absent (marked `default = true`), and
//! `show` reads the operational outputs, which fill what the config leaves unknown or defaulted
//! and never override what it states.
//!
//! Evidence markers in comments: [V] read in the vendor's own text,
//! [S] read in a secondary copy, [R] recalled, not re-read, [I] our inference or design choice.
//! Sources named in comments:
//! - sonic-utilities `pfcwd/main.py`, <https://github.com/sonic-net/sonic-utilities/blob/master/pfcwd/main.py>
//! - sonic-buildimage `pg_profile_lookup.ini` (e.g. `device/mellanox/x86_64-mlnx_msn2700-r0/ACS-MSN2700/`),
//!   <https://github.com/sonic-net/sonic-buildimage/tree/master/device/mellanox/x86_64-mlnx_msn2700-r0/ACS-MSN2700>
//! - sonic-buildimage `files/build_templates/qos_config.j2`,
//!   <https://github.com/sonic-net/sonic-buildimage/blob/master/files/build_templates/qos_config.j2>

mod apply;
mod cli;
mod cli_range;
mod db;
mod show;
mod voq;

use super::registry::{Read, reader, unread};
use super::{BuildNotes, Output};
use crate::model::Device;
use crate::model::maps::Notes;

/// Command id of vendor-parsers/sonic.toml → the reader of its output (meta-tested: every
/// command has one, or says why not).
pub(crate) const READS: &[Read] = &[
    reader("config-db-json", "db::Db::read"),
    reader("config-db-redis-dump", "db::Db::read"),
    reader("config-db-flat", "db::Db::read"),
    reader("sonic-cli-running-config", "cli::read"),
    reader("pfcwd-show-config", "show::pfcwd_config"),
    unread(
        "pfcwd-show-stats",
        "storm counts per queue; the model holds no watchdog storm counters and no rule judges them: the rows are parsed so the file's status says whether the output was understood",
    ),
    reader("show-pfc-counters", "show::pfc_counters"),
    reader("show-queue-counters", "show::queue_counters"),
    reader("ecnconfig-l", "show::ecnconfig"),
    reader("mmuconfig-l", "show::mmuconfig"),
    reader("show-buffer-information", "show::mmuconfig"),
    reader("pfc-show-priority", "show::pfc_priority"),
    reader("show-interfaces-status", "show::interfaces_status"),
    reader("show-lldp-neighbors", "show::lldp_table"),
    reader("pg-profile-lookup", "show::Ini::read"),
];

/// Command ids of vendor-parsers/sonic.toml that hold CONFIG_DB.
const CONFIG_IDS: &[&str] = &["config-db-json", "config-db-redis-dump", "config-db-flat"];

pub fn build(dev: &mut Device, outs: &[Output]) -> BuildNotes {
    let mut notes = BuildNotes::default();
    let mut cfg = db::Db::default();
    for (i, o) in outs.iter().enumerate() {
        if CONFIG_IDS.contains(&o.cmd.id.as_str()) {
            cfg.read(i, o);
        } else if o.cmd.id == "sonic-cli-running-config" {
            for (line, why) in cli::read(&mut cfg, i, o) {
                notes.not_read(i, line, &why);
            }
        }
    }
    // Profiles and pools the CLI lists (from the same CONFIG_DB) complete a partial config; a
    // definition the config carries wins.
    let mut shown = db::Db::default();
    for (i, o) in outs.iter().enumerate() {
        match o.cmd.id.as_str() {
            "ecnconfig-l" => show::ecnconfig(&mut shown, i, o),
            "mmuconfig-l" | "show-buffer-information" => show::mmuconfig(&mut shown, i, o),
            _ => {}
        }
    }
    cfg.merge_missing(shown);
    let mut ini = show::Ini::default();
    for o in outs.iter().filter(|o| o.cmd.id == "pg-profile-lookup") {
        ini.read(o);
    }
    voq::localize(&mut cfg, &dev.name, &mut notes);
    apply::apply(dev, &cfg, &ini, &mut notes);
    // Operational outputs after the config.
    super::read_shows(dev, outs, SHOWS);
    notes
}

/// The operational outputs, in the order they are read (after the config).
const SHOWS: &[super::Show] = &[
    ("show-interfaces-status", show::interfaces_status),
    ("pfc-show-priority", show::pfc_priority),
    ("pfcwd-show-config", show::pfcwd_config),
    ("show-lldp-neighbors", show::lldp_table),
    ("show-pfc-counters", show::pfc_counters),
    ("show-queue-counters", show::queue_counters),
];

/// Why SONiC's map entries are what they are where no line states them: SONiC programs its
/// maps through the SAI port attributes (SAI, inc/saiport.h,
/// <https://github.com/opencomputeproject/SAI/blob/master/inc/saiport.h>). [V SAI saiport.h]
pub(crate) const MAP_NOTES: Notes<'static> = Notes {
    dscp_to_tc: Some(
        "no DSCP_TO_TC_MAP bound: SAI_PORT_ATTR_QOS_DSCP_TO_TC_MAP \"Default no map\", and SAI_PORT_ATTR_QOS_DEFAULT_TC \"Port default Traffic class Mapping\" @default 0: every packet in TC 0 (SAI inc/saiport.h) [V]",
    ),
    pcp_to_tc: Some("no DOT1P_TO_TC_MAP bound (SAI: \"Default no map\")"),
    tc_to_queue: Some(
        "no TC_TO_QUEUE_MAP bound: SAI_PORT_ATTR_QOS_TC_TO_QUEUE_MAP \"Default no map i.e All packets to queue 0\" (SAI inc/saiport.h) [V]",
    ),
    tc_to_pg: Some(
        "no TC_TO_PRIORITY_GROUP_MAP bound: SAI_PORT_ATTR_QOS_TC_TO_PRIORITY_GROUP_MAP \"Default no map\", no mapping stated (SAI inc/saiport.h) [V]",
    ),
    tc_to_pfc_priority: Some(
        "the priority whose pause the TC's PG sends (PFC_PRIORITY_TO_PRIORITY_GROUP_MAP) and whose received pause stops the TC's queue (MAP_PFC_PRIORITY_TO_QUEUE); unknown when one of the four maps is not bound (SAI: \"Default no map\") [I]",
    ),
    pfc_priority_to_queue: Some(
        "no MAP_PFC_PRIORITY_TO_QUEUE bound: SAI_PORT_ATTR_QOS_PFC_PRIORITY_TO_QUEUE_MAP \"Default no map\" (SAI inc/saiport.h) [V]",
    ),
    tc_to_dscp: None,
};

/// SONiC interface names as SONiC prints them (`Ethernet0`, `PortChannel0001`, `Vlan100`,
/// `Loopback0`, `eth0`); other spellings of the same families are normalized.
pub fn canonical_ifname(name: &str) -> String {
    let n = name.trim().trim_matches('"');
    let Some(split) = n.find(|c: char| c.is_ascii_digit()) else {
        return n.to_string();
    };
    let (word, rest) = n.split_at(split);
    let family = match word.trim().to_ascii_lowercase().as_str() {
        "ethernet" => "Ethernet",
        "portchannel" => "PortChannel",
        "vlan" => "Vlan",
        "loopback" => "Loopback",
        // Enterprise SONiC's standard names (`Eth1/1`); `eth0` is the management port
        "eth" if rest.contains('/') => "Eth",
        "eth" => "eth",
        _ => return n.to_string(),
    };
    format!("{family}{rest}")
}

/// Model interface kind from a canonical SONiC name. Backplane, inband and recirculation ports
/// (`Ethernet-BP0`, `Ethernet-IB0`, `Ethernet-Rec0`) are `other`.
fn kind_of(name: &str) -> &'static str {
    if name.starts_with("Eth") && !name.starts_with("Ethernet") && name.contains('/') {
        return "ethernet";
    }
    if let Some(rest) = name.strip_prefix("Ethernet") {
        if rest.starts_with(|c: char| c.is_ascii_digit()) && !rest.contains('.') {
            "ethernet"
        } else {
            "other"
        }
    } else if name.starts_with("PortChannel") {
        "port-channel"
    } else if name.starts_with("Vlan") {
        "vlan"
    } else if name.starts_with("Loopback") {
        "loopback"
    } else if name.starts_with("eth") {
        "mgmt"
    } else {
        "other"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(canonical_ifname("Ethernet0"), "Ethernet0");
        assert_eq!(canonical_ifname("ethernet8"), "Ethernet8");
        assert_eq!(canonical_ifname("PortChannel0001"), "PortChannel0001");
        assert_eq!(canonical_ifname("portchannel10"), "PortChannel10");
        assert_eq!(canonical_ifname("eth0"), "eth0");
        assert_eq!(canonical_ifname("etp1"), "etp1");
        assert_eq!(canonical_ifname("Ethernet-BP0"), "Ethernet-BP0");
        assert_eq!(canonical_ifname(""), "");
        assert_eq!(kind_of("Ethernet248"), "ethernet");
        assert_eq!(kind_of("Ethernet-BP4"), "other");
        assert_eq!(kind_of("Ethernet0.10"), "other");
        assert_eq!(kind_of("PortChannel0001"), "port-channel");
        assert_eq!(kind_of("eth0"), "mgmt");
    }
}
