//! VOQ chassis keys: on a SONiC VOQ line card the per-queue tables are keyed by *system port*,
//! `<hostname>|<asic>|<port>|<queue>` (`QUEUE|str2-7250-lc1-1|asic0|Ethernet0|3`), not by the
//! local port. sonic-buildimage's `qos_config.j2` renders QUEUE so when
//! `DEVICE_METADATA|localhost` has `switch_type` `voq` (its sample render
//! `src/sonic-config-engine/tests/sample_output/py3/qos-nokia-ixr7250e-36x400g.json`), and
//! sonic-mgmt's buffer test states the shape: "The format of BUFFER_QUEUE entries on VOQ chassis
//! is 'BUFFER_QUEUE|<host name>|<asic-name>|Ethernet32|0-2' where 'host name' could be any host
//! in the chassis, including those from other cards" (sonic-net/sonic-mgmt,
//! `tests/qos/test_buffer.py`). The system port table itself is described in sonic-net/SONiC
//! `doc/voq/voq_hld.md` ("System Port Table": `SYSTEM_PORT|<hostname>|<asic>|<port>`).
//!
//! Before the other readers run, [`localize`] rewrites the keys that name this line card's own
//! system ports to the local form (`Ethernet0|3`), so they are read as any other queue, and
//! reports every key of another card (or of a card it cannot tell) as a line not read, with
//! why: a queue is never dropped without a word.

use super::canonical_ifname;
use super::db::Db;
use crate::platform::BuildNotes;
use std::collections::{BTreeMap, BTreeSet};

/// The tables whose keys are system ports on a VOQ chassis.
const SYSTEM_PORT_TABLES: &[&str] = &["QUEUE", "BUFFER_QUEUE"];

/// A VOQ key's parts: `(host, asic, rest)` where rest is `<port>|<index>`.
fn split_voq(key: &str) -> Option<(&str, &str, &str)> {
    let (host, after) = key.split_once('|')?;
    let (asic, rest) = after.split_once('|')?;
    let digits = asic
        .get(..4)
        .filter(|p| p.eq_ignore_ascii_case("asic"))
        .map(|_| &asic[4..])?;
    if host.is_empty() || digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // `<port>|<index>` remains: a port name, then the queue index or range.
    let (port, idx) = rest.rsplit_once('|')?;
    if port.is_empty() || port.contains('|') || idx.is_empty() {
        return None;
    }
    Some((host, asic, rest))
}

/// Rewrite this card's system-port keys to local keys; report the others. `device_name` is the
/// snapshot's name for the device, used when CONFIG_DB holds no hostname.
pub(super) fn localize(db: &mut Db, device_name: &str, notes: &mut BuildNotes) {
    let hostname = db
        .entry("DEVICE_METADATA", "localhost")
        .and_then(|e| e.get("hostname"))
        .map(|v| v.v.trim().to_string());
    let asic_name = db
        .entry("DEVICE_METADATA", "localhost")
        .and_then(|e| e.get("asic_name"))
        .map(|v| v.v.trim().to_string());
    // Each (card, asic) the keys name, with the ports it names.
    let mut cards: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for t in SYSTEM_PORT_TABLES {
        for (key, _) in db.table(t) {
            if let Some((h, a, rest)) = split_voq(key) {
                let port = rest.rsplit_once('|').map_or(rest, |(p, _)| p);
                cards
                    .entry((h.to_string(), a.to_ascii_lowercase()))
                    .or_default()
                    .insert(canonical_ifname(port));
            }
        }
    }
    if cards.is_empty() {
        return;
    }
    // This card's own ports, as the tables keyed by local port name them.
    let local: BTreeSet<String> = ["PORT", "PORT_QOS_MAP"]
        .iter()
        .flat_map(|t| db.table(t).map(|(k, _)| k))
        .filter(|k| k.as_str() != "global" && !k.contains('|') && !k.contains(','))
        .map(|k| canonical_ifname(k))
        .collect();
    // Which card and asic this is: the hostname (and asic_name) CONFIG_DB states; else the one
    // card every key names; else the one (card, asic) whose system ports are exactly this
    // file's local ports (a render of one card's tables lists the other cards' system ports
    // too); else the snapshot's name for the device.
    let hosts: BTreeSet<&str> = cards.keys().map(|(h, _)| h.as_str()).collect();
    let by_ports: Vec<&(String, String)> = cards
        .iter()
        .filter(|(_, ports)| !local.is_empty() && **ports == local)
        .map(|(k, _)| k)
        .collect();
    let own: Option<(String, Option<String>)> = match (&hostname, by_ports.as_slice()) {
        (Some(h), _) => {
            let asic = asic_name.clone().or_else(|| {
                let mine: Vec<_> = by_ports.iter().filter(|(ch, _)| ch == h).collect();
                match mine.as_slice() {
                    [(_, a)] => Some(a.clone()),
                    _ => None,
                }
            });
            Some((h.clone(), asic))
        }
        (None, _) if hosts.len() == 1 => hosts
            .iter()
            .next()
            .map(|h| (h.to_string(), asic_name.clone())),
        (None, [(h, a)]) => Some((h.clone(), Some(a.clone()))),
        (None, _) if hosts.contains(device_name) => Some((device_name.to_string(), None)),
        _ => None,
    };
    for t in SYSTEM_PORT_TABLES {
        let Some(table) = db.tables.get_mut(*t) else {
            continue;
        };
        let voq_keys: Vec<String> = table
            .keys()
            .filter(|k| split_voq(k).is_some())
            .cloned()
            .collect();
        for key in voq_keys {
            let Some(e) = table.remove(&key) else {
                continue;
            };
            let Some((host, asic, rest)) = split_voq(&key) else {
                continue;
            };
            let mine = own.as_ref().is_some_and(|(h, a)| {
                h == host && a.as_deref().is_none_or(|a| a.eq_ignore_ascii_case(asic))
            });
            if mine {
                // A local key of the same name wins: it is the port's own entry.
                table.entry(rest.to_string()).or_insert(e);
                continue;
            }
            let why = match &own {
                Some((me, a)) if me == host => format!(
                    "a system port of {asic} on this card '{me}', not of its asic '{}'; audited with that asic's CONFIG_DB",
                    a.as_deref().unwrap_or("?")
                ),
                Some((me, _)) => format!(
                    "a system port of line card '{host}', not of this card '{me}'; audited with that card's CONFIG_DB"
                ),
                None => format!(
                    "a VOQ system port of '{host}', and CONFIG_DB names no hostname (DEVICE_METADATA|localhost) to tell whether this card is '{host}'"
                ),
            };
            let out = e.fields.values().next().map_or(0, |v| v.out);
            notes.not_read(out, e.src.line, &why);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn voq_keys_are_split_and_local_keys_are_not() {
        assert_eq!(
            split_voq("str2-7250-lc1-1|asic0|Ethernet64|2"),
            Some(("str2-7250-lc1-1", "asic0", "Ethernet64|2"))
        );
        assert_eq!(
            split_voq("lc2|Asic1|Ethernet0|0-2"),
            Some(("lc2", "Asic1", "Ethernet0|0-2"))
        );
        assert_eq!(split_voq("Ethernet0|3"), None);
        assert_eq!(split_voq("Ethernet0,Ethernet4|3-4"), None);
        assert_eq!(split_voq("lc2|asicX|Ethernet0|3"), None);
        assert_eq!(split_voq("lc2|asic0|Ethernet0"), None);
    }
}
