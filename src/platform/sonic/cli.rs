//! Enterprise SONiC's management-framework CLI (`sonic-cli`, Dell Enterprise SONiC and
//! Broadcom's builds): `show running-configuration` read as the CONFIG_DB tables its lines
//! configure, so that every SONiC semantic (`apply`) holds unchanged, each value at its line.
//!
//! | line | CONFIG_DB |
//! |---|---|
//! | `qos map dscp-tc NAME` / ` dscp 26 traffic-class 3` | `DSCP_TO_TC_MAP\|NAME` `"26": "3"` |
//! | `qos map dot1p-tc NAME` / ` dot1p 3 traffic-class 3` | `DOT1P_TO_TC_MAP` |
//! | `qos map tc-queue NAME` / ` traffic-class 3 queue 3` | `TC_TO_QUEUE_MAP` |
//! | `qos map tc-pg NAME` / ` traffic-class 3 pg 3` | `TC_TO_PRIORITY_GROUP_MAP` |
//! | `qos map pfc-priority-queue NAME` / ` pfc-priority 3 queue 3` | `MAP_PFC_PRIORITY_TO_QUEUE` |
//! | `qos map pfc-priority-pg NAME` / ` pfc-priority 3 pg 3` | `PFC_PRIORITY_TO_PRIORITY_GROUP_MAP` |
//! | `interface Eth1/1` / ` mtu 9100`, ` [no] shutdown`, ` speed N` | `PORT\|Eth1/1` `mtu`, `admin_status`, `speed` |
//! | ` qos-map dscp-tc NAME` (and the other kinds) | `PORT_QOS_MAP\|Eth1/1` `dscp_to_tc_map` … |
//! | ` priority-flow-control priority 3` (one line per priority) | `PORT_QOS_MAP` `pfc_enable` "3,4" |
//! | ` priority-flow-control watchdog on detect-time N`, `… restore-time N`, `… action A` | `PFC_WD\|Eth1/1` |
//! | ` cable-length 40m` | `CABLE_LENGTH\|AZURE` `Eth1/1` |
//! | `qos wred-policy NAME` / `green minimum-threshold A maximum-threshold B drop-probability P`, `ecn green` | `WRED_PROFILE\|NAME` (KBytes → bytes) |
//! | `qos scheduler-policy NAME` / `queue N` / `type strict`, `weight W` | `SCHEDULER\|NAME@N` |
//! | ` queue 3 wred-policy NAME`, ` scheduler-policy NAME` | `QUEUE\|Eth1/1\|3` `wred_profile`, `scheduler` |
//!
//! The block a line belongs to is the last opener above it, until `!` (a scheduler policy's
//! queues are separated by `!`): the AMD ROCm networking guide's Dell Z9664F example
//! (ROCm/gpu-cluster-networking, docs/how-to/roce-network-config.rst) is a flattened copy.
//!
//! Sources: the SONiC QoS management-framework design (sonic-net/SONiC, the klish commands
//! `qos map dscp-tc <name>`, `dscp {<dscp-value>} traffic-class <0..7>`, `qos-map dscp-tc
//! <name>` under `interface`, `pfc priority`), and the `show running-configuration interface
//! Eth 1/5` the dellemc.enterprise_sonic Ansible collection prints for its sonic_qos_interfaces
//! module (`qos-map dscp-tc dscp_map1`, `priority-flow-control priority 0`,
//! `priority-flow-control watchdog action alert`, `cable-length 40m`). Ports keep the name the
//! CLI prints (`Eth1/1` under standard naming, `Ethernet0` under native naming): the CLI names
//! no CONFIG_DB key for a standard name. An `interface range` configures the existing ports
//! of the range (`cli_range`); one the reader cannot expand is reported with its line.

use super::cli_range::{native_number, range_ports};
use super::db::{Db, Entry, Val};
use crate::model::Src;
use crate::platform::Output;
use std::collections::{BTreeMap, BTreeSet};

/// CLI map kind → (CONFIG_DB table, PORT_QOS_MAP field).
fn table_of(kind: &str) -> Option<(&'static str, &'static str)> {
    Some(match kind {
        "dscp-tc" => ("DSCP_TO_TC_MAP", "dscp_to_tc_map"),
        "dot1p-tc" => ("DOT1P_TO_TC_MAP", "dot1p_to_tc_map"),
        "tc-queue" => ("TC_TO_QUEUE_MAP", "tc_to_queue_map"),
        "tc-pg" => ("TC_TO_PRIORITY_GROUP_MAP", "tc_to_pg_map"),
        "pfc-priority-queue" => ("MAP_PFC_PRIORITY_TO_QUEUE", "pfc_to_queue_map"),
        "pfc-priority-pg" => ("PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "pfc_to_pg_map"),
        "tc-dscp" => ("TC_TO_DSCP_MAP", "tc_to_dscp_map"),
        "tc-dot1p" => ("TC_TO_DOT1P_MAP", "tc_to_dot1p_map"),
        _ => return None,
    })
}

/// Lines the reader matched but could not read, with why.
pub(super) type Unread = Vec<(u32, String)>;

/// The block a line belongs to: the last opener above it (indentation is not relied on:
/// flattened copies of this output exist), until `!` or the next opener.
#[derive(Clone)]
enum Ctx {
    None,
    Map(&'static str, String),
    Ports(Vec<String>),
    Wred(String),
    /// A scheduler policy and the queue being configured (`!` separates its queues).
    Sched(String, Option<u8>),
}

/// `qos wred-policy` thresholds are in KBytes ("green-min-threshold : 1 KBytes" in the SONiC QoS
/// management-framework design's `show qos wred-policy`), CONFIG_DB's in bytes [S; 1024 [I]].
const WRED_UNIT: u64 = 1024;

/// Add the tables the running configuration `o` (output `oi`) configures to `db`.
pub(super) fn read(db: &mut Db, oi: usize, o: &Output) -> Unread {
    let p = &o.parsed;
    let mut unread = Vec::new();
    let val = |v: String, src: &Src| Val {
        v,
        src: src.clone(),
        out: oi,
    };
    let put = |db: &mut Db, table: &str, key: &str, at: &Src, field: Option<(&str, Val)>| {
        let e = db
            .tables
            .entry(table.to_string())
            .or_default()
            .entry(key.to_string())
            .or_insert_with(|| Entry {
                src: at.clone(),
                fields: BTreeMap::new(),
            });
        if let Some((f, v)) = field {
            e.fields.insert(f.to_string(), v);
        }
    };
    let mut ctx = Ctx::None;
    // pfc_enable accumulates over lines: (priorities, first line)
    let mut pfc: BTreeMap<String, (Vec<u8>, Src)> = BTreeMap::new();
    // scheduler policy → its queues; port bindings resolved once every policy is read
    let mut sched_queues: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut sched_binds: Vec<(String, String, Src)> = Vec::new();
    let native = native_ports(db, o);
    for r in &p.records {
        let src = o.src(r.line);
        let get = |n: &str| p.get(r, n).unwrap_or("");
        let ports: Vec<String> = match &ctx {
            Ctx::Ports(v) => v.clone(),
            _ => Vec::new(),
        };
        let kind = p.kind(r);
        // a line of a block, outside its block: matched, but its meaning is unknown here
        let stray = |unread: &mut Unread| {
            unread.push((r.line, "a block line outside its block".to_string()));
        };
        match kind {
            "bang" => {
                ctx = match ctx {
                    Ctx::Sched(name, _) => Ctx::Sched(name, None),
                    _ => Ctx::None,
                }
            }
            "hostname" => put(
                db,
                "DEVICE_METADATA",
                "localhost",
                &src,
                Some(("hostname", val(get("name").to_string(), &src))),
            ),
            "other_block" => ctx = Ctx::None,
            "qmap" => {
                ctx = match table_of(get("kind")) {
                    Some((table, _)) => {
                        put(db, table, get("name"), &src, None);
                        Ctx::Map(table, get("name").to_string())
                    }
                    None => Ctx::None,
                }
            }
            "qmap_entry" => {
                let Ctx::Map(table, name) = &ctx else {
                    stray(&mut unread);
                    continue;
                };
                let max = if get("from") == "dscp" { 63 } else { 7 };
                match crate::platform::util::num_list(get("list"), max) {
                    Some(list) => {
                        for k in list {
                            let v = val(get("to").to_string(), &src);
                            put(db, table, name, &src, Some((&k.to_string(), v)));
                        }
                    }
                    None => unread.push((r.line, "a value list this reader cannot read".into())),
                }
            }
            "wred" => {
                let name = get("name").to_string();
                put(db, "WRED_PROFILE", &name, &src, None);
                ctx = Ctx::Wred(name);
            }
            "wred_green" | "wred_ecn" => {
                let Ctx::Wred(name) = &ctx else {
                    stray(&mut unread);
                    continue;
                };
                if kind == "wred_ecn" {
                    // `ecn green` → ecn_green (CONFIG_DB's value names)
                    let v = val(format!("ecn_{}", get("ecn")), &src);
                    put(db, "WRED_PROFILE", name, &src, Some(("ecn", v)));
                    continue;
                }
                let kb = |k: &str| get(k).parse::<u64>().ok().map(|n| n * WRED_UNIT);
                if let (Some(min), Some(max)) = (kb("min"), kb("max")) {
                    for (f, v) in [
                        ("green_min_threshold", min.to_string()),
                        ("green_max_threshold", max.to_string()),
                        ("green_drop_probability", get("p").to_string()),
                        ("wred_green_enable", "true".to_string()),
                    ] {
                        put(db, "WRED_PROFILE", name, &src, Some((f, val(v, &src))));
                    }
                }
            }
            "sched" => {
                let name = get("name").to_string();
                sched_queues.entry(name.clone()).or_default();
                ctx = Ctx::Sched(name, None);
            }
            "sched_queue" => {
                let (Ctx::Sched(name, _), Ok(q)) = (&ctx, get("q").parse::<u8>()) else {
                    stray(&mut unread);
                    continue;
                };
                let name = name.clone();
                let qs = sched_queues.entry(name.clone()).or_default();
                if !qs.contains(&q) {
                    qs.push(q);
                }
                put(db, "SCHEDULER", &format!("{name}@{q}"), &src, None);
                ctx = Ctx::Sched(name, Some(q));
            }
            "sched_type" | "sched_weight" => {
                let Ctx::Sched(name, Some(q)) = &ctx else {
                    stray(&mut unread);
                    continue;
                };
                let (f, v) = if kind == "sched_type" {
                    ("type", get("t").to_ascii_uppercase())
                } else {
                    ("weight", get("w").to_string())
                };
                let key = format!("{name}@{q}");
                put(db, "SCHEDULER", &key, &src, Some((f, val(v, &src))));
            }
            "iface" => {
                let name = super::canonical_ifname(get("name"));
                put(db, "PORT", &name, &src, None);
                ctx = Ctx::Ports(vec![name]);
            }
            "iface_range" => match range_ports(get("list"), &native) {
                Ok(names) => {
                    for n in &names {
                        put(db, "PORT", n, &src, None);
                    }
                    ctx = Ctx::Ports(names);
                }
                Err(why) => {
                    unread.push((r.line, format!("an interface range not expanded: {why}")));
                    // its lines go to no port
                    ctx = Ctx::Ports(Vec::new());
                }
            },
            _ if !matches!(ctx, Ctx::Ports(_)) => stray(&mut unread),
            "if_mtu" | "if_speed" | "if_shutdown" => {
                let (field, v) = match kind {
                    "if_mtu" => ("mtu", get("mtu").to_string()),
                    "if_speed" => ("speed", get("speed").to_string()),
                    _ => (
                        "admin_status",
                        if p.get(r, "no").is_some() {
                            "up"
                        } else {
                            "down"
                        }
                        .to_string(),
                    ),
                };
                for port in &ports {
                    put(db, "PORT", port, &src, Some((field, val(v.clone(), &src))));
                }
            }
            "if_qosmap" => {
                let Some((_, field)) = table_of(get("kind")) else {
                    continue;
                };
                for port in &ports {
                    let v = val(get("name").to_string(), &src);
                    put(db, "PORT_QOS_MAP", port, &src, Some((field, v)));
                }
            }
            "if_queue_wred" => {
                for port in &ports {
                    let v = val(get("name").to_string(), &src);
                    let key = format!("{port}|{}", get("q"));
                    put(db, "QUEUE", &key, &src, Some(("wred_profile", v)));
                }
            }
            "if_sched" => {
                for port in &ports {
                    sched_binds.push((port.clone(), get("name").to_string(), src.clone()));
                }
            }
            "if_pfc_prio" => {
                let Ok(prio) = get("p").parse::<u8>() else {
                    continue;
                };
                for port in &ports {
                    let e = pfc
                        .entry(port.clone())
                        .or_insert_with(|| (Vec::new(), src.clone()));
                    if !e.0.contains(&prio) {
                        e.0.push(prio);
                    }
                }
            }
            "if_pfc_asym" => {
                for port in &ports {
                    let v = val("on".to_string(), &src);
                    put(db, "PORT", port, &src, Some(("pfc_asym", v)));
                }
            }
            "if_wd_action" | "if_wd_on" | "if_wd_restore" => {
                let field = match kind {
                    "if_wd_action" => Some(("action", get("a"))),
                    "if_wd_on" => p.get(r, "d").map(|d| ("detection_time", d)),
                    _ => Some(("restoration_time", get("r"))),
                };
                for port in &ports {
                    let f = field.map(|(k, v)| (k, val(v.to_string(), &src)));
                    put(db, "PFC_WD", port, &src, f);
                }
            }
            "if_cable" => {
                for port in &ports {
                    let v = val(get("len").to_string(), &src);
                    put(db, "CABLE_LENGTH", "AZURE", &src, Some((port.as_str(), v)));
                }
            }
            _ => {}
        }
    }
    for (port, (mut prios, src)) in pfc {
        prios.sort_unstable();
        let list: Vec<String> = prios.iter().map(u8::to_string).collect();
        put(
            db,
            "PORT_QOS_MAP",
            &port,
            &src,
            Some(("pfc_enable", val(list.join(","), &src))),
        );
    }
    // `scheduler-policy NAME` on a port: each queue the policy configures runs its scheduler
    // (QUEUE|port|q scheduler NAME@q); a policy the file does not define is left to the
    // undefined-reference check.
    for (port, name, src) in sched_binds {
        let queues = sched_queues.get(&name).cloned().unwrap_or_default();
        if queues.is_empty() {
            let v = val(format!("{name}@0"), &src);
            put(
                db,
                "QUEUE",
                &format!("{port}|0"),
                &src,
                Some(("scheduler", v)),
            );
        }
        for q in queues {
            let v = val(format!("{name}@{q}"), &src);
            put(
                db,
                "QUEUE",
                &format!("{port}|{q}"),
                &src,
                Some(("scheduler", v)),
            );
        }
    }
    unread
}

/// Numbers of the native-named ports known to exist: those this configuration opens a block
/// for, and those of CONFIG_DB's `PORT` table read before it (see `cli_range`).
fn native_ports(db: &Db, o: &Output) -> BTreeSet<u32> {
    let p = &o.parsed;
    let named = p
        .records
        .iter()
        .filter(|r| p.kind(r) == "iface")
        .filter_map(|r| native_number(&super::canonical_ifname(p.get(r, "name")?)));
    let in_db = db
        .tables
        .get("PORT")
        .into_iter()
        .flat_map(|t| t.keys())
        .filter_map(|k| native_number(k));
    named.chain(in_db).collect()
}
