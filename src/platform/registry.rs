//! The platforms fabric-audit knows in code: one entry per platform, and every list of
//! platforms in the crate derives from it (the ids a rule's `platforms` or an inventory may
//! name, the fuzz targets' platforms, the Ansible `ansible_network_os` names, the emulator's
//! prompts, the build and interface-name functions).
//!
//! What a platform knows as data (its commands, detection evidence, extraction patterns,
//! session prompt and paging) is in `vendor-parsers/<id>.toml`; `--parsers DIR` can add a
//! platform there, which is then collected and parsed (every line accounted for) but fills the
//! model only once it has an entry here.

use super::{BuildNotes, Output};
use crate::model::Device;
use crate::model::maps::Notes;

/// One platform.
pub struct Entry {
    /// The id `fabric.toml`, `device.toml`, inventories and `vendor-parsers/<id>.toml` use.
    pub id: &'static str,
    /// Ansible `ansible_network_os` values (short name or FQCN, lower case) that mean it.
    pub ansible: &'static [&'static str],
    /// An FQCN prefix whose every collection member means it (`nvidia.cumulus.`).
    pub ansible_prefix: Option<&'static str>,
    /// A host (Linux), not a switch.
    pub host: bool,
    /// Vendor structures → model: fills a device from its parsed outputs.
    pub build: fn(&mut Device, &[Output]) -> BuildNotes,
    /// The canonical form of an interface name (LLDP port ids, `fabric.toml` links).
    pub canonical_ifname: fn(&str) -> String,
    /// Which reader reads each command of `vendor-parsers/<id>.toml`.
    pub reads: &'static [Read],
    /// Why a port's QoS map entries are what they are where no line states them.
    pub map_notes: Notes<'static>,
    /// How the device emulator (`fabric-audit emulate`) behaves as this platform.
    pub emulation: Emulation,
}

/// No note for any map.
pub const NO_NOTES: Notes<'static> = Notes {
    dscp_to_tc: None,
    pcp_to_tc: None,
    tc_to_queue: None,
    tc_to_pg: None,
    tc_to_pfc_priority: None,
    pfc_priority_to_queue: None,
    tc_to_dscp: None,
};

/// Who reads one command's output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    /// The function of the platform module that reads it.
    Reader(&'static str),
    /// Collected and parsed (each line understood, ignored or reported; the file's status is
    /// in every report) but read by nothing, and why.
    Unread(&'static str),
}

/// A command id of the platform's parser file and its reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Read {
    pub id: &'static str,
    pub by: By,
}

/// `Read { id, by: By::Reader(f) }`.
pub const fn reader(id: &'static str, f: &'static str) -> Read {
    Read {
        id,
        by: By::Reader(f),
    }
}

/// `Read { id, by: By::Unread(why) }`.
pub const fn unread(id: &'static str, why: &'static str) -> Read {
    Read {
        id,
        by: By::Unread(why),
    }
}

/// What the emulator prints as this platform.
#[derive(Debug, Clone, Copy)]
pub struct Emulation {
    /// The shell prompt; `{h}` is the hostname.
    pub prompt: &'static str,
    /// What the pager prints at the end of a page.
    pub pager: &'static str,
    /// The answer to a command the device does not know; `{cmd}` is its first word.
    pub invalid: &'static str,
}

/// A switch CLI: `host# `, ` --More-- `, `% Invalid command`.
pub const GENERIC_CLI: Emulation = Emulation {
    prompt: "{h}# ",
    pager: " --More-- ",
    invalid: "% Invalid command at '^' marker.\n",
};

/// Every platform, in the order the fuzz targets number them (a saved fuzz input picks its
/// platform by index: append, never reorder).
pub static PLATFORMS: &[Entry] = &[
    Entry {
        id: "nxos",
        ansible: &["nxos", "cisco.nxos.nxos"],
        ansible_prefix: None,
        host: false,
        build: super::nxos::build,
        canonical_ifname: super::nxos::canonical_ifname,
        reads: super::nxos::READS,
        map_notes: super::nxos::MAP_NOTES,
        emulation: GENERIC_CLI,
    },
    Entry {
        id: "eos",
        ansible: &["eos", "arista.eos.eos"],
        ansible_prefix: None,
        host: false,
        build: super::eos::build,
        canonical_ifname: super::eos::canonical_ifname,
        reads: super::eos::READS,
        map_notes: NO_NOTES,
        emulation: Emulation {
            prompt: "{h}#",
            invalid: "% Invalid input\n",
            ..GENERIC_CLI
        },
    },
    Entry {
        id: "cumulus",
        ansible: &["cumulus", "nvue"],
        ansible_prefix: Some("nvidia.cumulus."),
        host: false,
        build: super::cumulus::build,
        canonical_ifname: super::cumulus::canonical_ifname,
        reads: super::cumulus::READS,
        map_notes: NO_NOTES,
        emulation: Emulation {
            prompt: "cumulus@{h}:mgmt:~$ ",
            ..GENERIC_CLI
        },
    },
    Entry {
        id: "sonic",
        ansible: &["sonic", "dellemc.enterprise_sonic.sonic"],
        ansible_prefix: None,
        host: false,
        build: super::sonic::build,
        canonical_ifname: super::sonic::canonical_ifname,
        reads: super::sonic::READS,
        map_notes: super::sonic::MAP_NOTES,
        emulation: Emulation {
            prompt: "admin@{h}:~$ ",
            ..GENERIC_CLI
        },
    },
    Entry {
        id: "onyx",
        ansible: &["onyx", "mellanox.onyx.onyx"],
        ansible_prefix: None,
        host: false,
        build: super::onyx::build,
        canonical_ifname: super::onyx::canonical_ifname,
        reads: super::onyx::READS,
        map_notes: NO_NOTES,
        emulation: Emulation {
            prompt: "{h} [standalone: master] # ",
            ..GENERIC_CLI
        },
    },
    Entry {
        id: "junos",
        ansible: &["junos", "junipernetworks.junos.junos"],
        ansible_prefix: None,
        host: false,
        build: super::junos::build,
        canonical_ifname: super::junos::canonical_ifname,
        reads: super::junos::READS,
        map_notes: super::junos::MAP_NOTES,
        emulation: Emulation {
            prompt: "audit@{h}> ",
            pager: "---(more)---",
            ..GENERIC_CLI
        },
    },
    Entry {
        id: "os10",
        ansible: &["os10", "dellemc.os10.os10"],
        ansible_prefix: None,
        host: false,
        build: super::os10::build,
        canonical_ifname: super::os10::canonical_ifname,
        reads: super::os10::READS,
        map_notes: super::os10::MAP_NOTES,
        emulation: Emulation {
            pager: "--more--",
            ..GENERIC_CLI
        },
    },
    Entry {
        id: "linux",
        ansible: &["linux"],
        ansible_prefix: None,
        host: true,
        build: super::linux::build,
        canonical_ifname: str::to_string,
        reads: super::linux::READS,
        map_notes: NO_NOTES,
        emulation: Emulation {
            prompt: "root@{h}:~# ",
            invalid: "bash: {cmd}: command not found\n",
            ..GENERIC_CLI
        },
    },
];

/// The entry of a platform id.
pub fn get(id: &str) -> Option<&'static Entry> {
    PLATFORMS.iter().find(|e| e.id == id)
}

/// Every platform id, in registry order.
pub fn ids() -> impl Iterator<Item = &'static str> {
    PLATFORMS.iter().map(|e| e.id)
}

/// True when `id` is a platform of the registry.
pub fn is_known(id: &str) -> bool {
    get(id).is_some()
}

/// True for a host platform (Linux); a switch, or a platform without an entry, is not one.
pub fn is_host(id: &str) -> bool {
    get(id).is_some_and(|e| e.host)
}

/// The platform an Ansible `ansible_network_os` names (short name or FQCN, any case).
pub fn of_ansible(network_os: &str) -> Option<&'static str> {
    let os = network_os.trim().to_ascii_lowercase();
    PLATFORMS
        .iter()
        .find(|e| {
            e.ansible.contains(&os.as_str())
                || e.ansible_prefix
                    .and_then(|p| os.strip_prefix(p))
                    .is_some_and(|rest| !rest.is_empty())
        })
        .map(|e| e.id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_every_alias_names_one_platform() {
        let mut seen = std::collections::BTreeSet::new();
        for e in PLATFORMS {
            assert!(seen.insert(e.id), "{} twice", e.id);
            assert_eq!(of_ansible(e.id), Some(e.id), "{}: its own id", e.id);
            for a in e.ansible {
                assert_eq!(of_ansible(a), Some(e.id), "{a}");
            }
        }
    }

    #[test]
    fn the_emulator_prompt_names_the_host() {
        for e in PLATFORMS {
            assert!(e.emulation.prompt.contains("{h}"), "{}", e.id);
        }
    }
}
