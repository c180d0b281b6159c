//! CONFIG_DB → model: resolve every port's QoS bindings, with what SONiC does where a field or
//! a binding is absent (recorded with `default = true`).
//!
//! The defaults, and where they come from:
//! - `PORT` without `admin_status` is down, without `mtu` 9100 (portmgrd `DEFAULT_ADMIN_STATUS_STR`
//!   / `DEFAULT_MTU_STR`; the same for `PORTCHANNEL`, teammgrd) [V]. `mtu` is the IP MTU: the
//!   kernel netdev MTU, to which orchagent adds the Ethernet header for the ASIC [R].
//! - A port without `pfc_enable` pauses nothing; SONiC runs no DCBX, so PFC is either on for the
//!   listed priorities or off ("on"/"off", never "auto") [R]. Rx and tx pause are one setting
//!   (`pfc_asym on` widens rx to every priority) [R]. 802.3x link pause has no CONFIG_DB field
//!   and stays at the SAI default, off [R].
//! - Without a DSCP map binding every packet lands in TC 0 (trust "port"); unlisted entries of a
//!   bound map are TC 0 as well [R]. Without a TC → queue map "all packets to queue 0"; a TC →
//!   priority group, PFC priority → priority group or PFC priority → queue map that is not bound
//!   is "no map", with no mapping stated, so the model leaves it (and the PFC priority of each
//!   TC, which needs all of them) unknown rather than assuming the identity or PG 0 [V SAI
//!   inc/saiport.h, `SAI_PORT_ATTR_QOS_TC_TO_QUEUE_MAP`: "Default no map i.e All packets to
//!   queue 0"; `SAI_PORT_ATTR_QOS_TC_TO_PRIORITY_GROUP_MAP`,
//!   `SAI_PORT_ATTR_QOS_PFC_PRIORITY_TO_PRIORITY_GROUP_MAP`,
//!   `SAI_PORT_ATTR_QOS_PFC_PRIORITY_TO_QUEUE_MAP`: "Default no map",
//!   https://github.com/opencomputeproject/SAI/blob/master/inc/saiport.h].
//! - A queue without a `WRED_PROFILE` neither marks nor drops early [R]; a queue without a
//!   `SCHEDULER` keeps the ASIC's default scheduling (unknown).
//! - A port without a `PFC_WD` entry has no watchdog: `pfcwd start_default` writes these entries
//!   into CONFIG_DB when it runs, so the running CONFIG_DB shows it [V sonic-utilities
//!   pfcwd/main.py]; but where `DEVICE_METADATA.default_pfcwd_status` is `enable`, the ports
//!   `start_default` would cover get its watchdog as a default (see `StartDefault`). Absent `action` is drop, the CLI's default [V]; absent POLL_INTERVAL is
//!   left unknown.
//! - In the traditional buffer model, a lossless PG that CONFIG_DB does not list is created by
//!   buffermgrd from the port speed and cable length: the profile `pg_lossless_<speed>_<cable>_profile`,
//!   from `pg_profile_lookup.ini` when the snapshot holds it [V sonic-buildimage
//!   pg_profile_lookup.ini; naming R].

use super::db::{Db, Entry, Val, ref_name, split_key};
use super::show::Ini;
use super::{canonical_ifname, kind_of};
use crate::model::maps::{Bound, BoundPolicy, MapEntry, QosMap};
use crate::model::{
    Device, Field, Interface, PriorityGroup, Sourced, Src, UndefinedRef, Unrecognized,
};
use crate::model::{default_of, known};
use crate::platform::{BuildNotes, util};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// PORT_QOS_MAP fields that name an entry of another table.
const QOS_REFS: &[(&str, &str)] = &[
    ("dscp_to_tc_map", "DSCP_TO_TC_MAP"),
    ("dot1p_to_tc_map", "DOT1P_TO_TC_MAP"),
    ("tc_to_queue_map", "TC_TO_QUEUE_MAP"),
    ("tc_to_pg_map", "TC_TO_PRIORITY_GROUP_MAP"),
    ("pfc_to_queue_map", "MAP_PFC_PRIORITY_TO_QUEUE"),
    ("pfc_to_pg_map", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"),
    ("tc_to_dscp_map", "TC_TO_DSCP_MAP"),
    ("tc_to_dot1p_map", "TC_TO_DOT1P_MAP"),
    ("dscp_to_fc_map", "DSCP_TO_FC_MAP"),
    ("exp_to_fc_map", "EXP_TO_FC_MAP"),
    ("mpls_tc_to_tc_map", "MPLS_TC_TO_TC_MAP"),
    ("scheduler", "SCHEDULER"),
];

/// The value `tc_to_pfc_priority` holds for a traffic class that no PFC priority protects in
/// both directions (see `pfc_priority_of`): not a priority, so no lossless check accepts it.
const NO_PRIORITY: u8 = 255;

/// The pool SONiC's buffer templates and the dynamic buffer manager put lossless PGs in [R].
const LOSSLESS_POOL: &str = "ingress_lossless_pool";

pub(super) fn apply(dev: &mut Device, db: &Db, ini: &Ini, notes: &mut BuildNotes) {
    undefined_refs(db, notes);
    report_port_ranges(db, notes);
    if let Some(e) = db.entry("DEVICE_METADATA", "localhost")
        && let Some(h) = e.get("hostname")
    {
        dev.hostname = known(h.v.clone(), &h.src);
    }
    let port_src = ports(dev, db);
    lags(dev, db);
    let qmap = QosIndex::new(db);
    let mut names: BTreeSet<String> = port_src.keys().cloned().collect();
    names.extend(qmap.ports.keys().cloned());
    let mut policies = BTreeSet::new();
    for name in &names {
        let anchor = qmap
            .ports
            .get(name)
            .map(|e| e.src.clone())
            .or_else(|| port_src.get(name).cloned());
        let i = dev.iface(name, kind_of(name));
        let bx = Binds {
            db,
            qm: qmap.ports.get(name).copied(),
            global: qmap.global,
            anchor: anchor.as_ref(),
        };
        port_qos(i, &bx, &mut policies);
        share_port(dev, name);
    }
    queues(dev, db, &port_src, &mut policies);
    cables(dev, db);
    pgs(dev, db, ini, &port_src);
    watchdog(dev, db, &qmap, &port_src);
    pools(dev, db);
    dev.qos.policies = policies.into_iter().collect();
}

/// Let the port `name` hold the copies already seen of its QoS parts (queues, groups, PFC,
/// watchdog, classification) that equal its own, now that a pass over the ports is done with
/// it. This reader writes those parts table by table over every port, after the ports exist,
/// so the sharing done as a reader moves from port to port ([`Device::iface_slot`]) never saw
/// them: 2,000 ports each held their own copies, about 12 KB a port (issue 19: 1 MiB of
/// replicated `sonic-cli` interface stanzas peaked at 33x). Defaults citing the port's own
/// line are written as `Src::port_line` there, so ports' copies are equal and outputs are not
/// changed.
fn share_port(dev: &mut Device, name: &str) {
    if let Some(p) = dev.iface_position(name)
        && let Some(i) = dev.interfaces.get_mut(p)
    {
        dev.sharing.port(i);
    }
}

/// A fact with the given default flag.
fn field<T>(value: T, src: &Src, default: bool) -> Field<T> {
    Some(Sourced {
        value,
        src: Some(src.clone()),
        default,
    })
}

/// Report every reference to an entry CONFIG_DB does not define.
fn undefined_refs(db: &Db, notes: &mut BuildNotes) {
    let mut seen = BTreeSet::new();
    let mut check = |v: &Val, table: &str, list: bool| {
        let names: Vec<&str> = if list {
            v.v.split(',').map(str::trim).collect()
        } else {
            vec![v.v.trim()]
        };
        for raw in names {
            if raw.is_empty() || raw == "NULL" {
                continue;
            }
            let name = match ref_name(raw, table) {
                Some(n) if db.entry(table, n).is_some() => continue,
                Some(n) => n,
                None => raw,
            };
            if seen.insert((v.out, v.src.line, name.to_string())) {
                notes.undefined.push((
                    v.out,
                    UndefinedRef {
                        kind: table.to_string(),
                        name: name.to_string(),
                        line: v.src.line,
                    },
                ));
            }
        }
    };
    for (_, e) in db.table("PORT_QOS_MAP") {
        for (f, t) in QOS_REFS {
            if let Some(v) = e.get(f) {
                check(v, t, false);
            }
        }
    }
    for (_, e) in db.table("QUEUE") {
        if let Some(v) = e.get("scheduler") {
            check(v, "SCHEDULER", false);
        }
        if let Some(v) = e.get("wred_profile") {
            check(v, "WRED_PROFILE", false);
        }
    }
    for t in ["BUFFER_PG", "BUFFER_QUEUE"] {
        for (_, e) in db.table(t) {
            if let Some(v) = e.get("profile") {
                check(v, "BUFFER_PROFILE", false);
            }
        }
    }
    for t in [
        "BUFFER_PORT_INGRESS_PROFILE_LIST",
        "BUFFER_PORT_EGRESS_PROFILE_LIST",
    ] {
        for (_, e) in db.table(t) {
            if let Some(v) = e.get("profile_list") {
                check(v, "BUFFER_PROFILE", true);
            }
        }
    }
    for (_, e) in db.table("BUFFER_PROFILE") {
        if let Some(v) = e.get("pool") {
            check(v, "BUFFER_POOL", false);
        }
    }
}

/// PORT: one Ethernet interface per entry. Returns each port's entry source.
fn ports(dev: &mut Device, db: &Db) -> BTreeMap<String, Src> {
    let mut out = BTreeMap::new();
    for (key, e) in db.table("PORT") {
        let name = canonical_ifname(key);
        // Backplane/inband/recirculation ports (role Int, Inb, Rec, Dpc) are not front panel.
        let internal = e.get("role").is_some_and(|r| r.v != "Ext");
        let kind = if internal { "other" } else { kind_of(&name) };
        let i = dev.iface(&name, kind);
        i.kind = crate::model::kind_name(kind);
        i.set_defined_at(e.src.clone());
        admin_mtu(i, e);
        // the front-panel name (`etp1`, `fortyGigE0/0`) LLDP advertises as the port id
        if let Some(v) = e.get("alias").filter(|v| !v.v.trim().is_empty()) {
            i.names.alias = known(v.v.trim().to_string(), &v.src);
        }
        if let Some(v) = e.get("speed")
            && let Some(g) = util::speed_gbps(&v.v)
        {
            i.speed_gbps = known(g, &v.src);
        }
        out.insert(name, e.src.clone());
    }
    out
}

/// `admin_status` and `mtu` of a PORT or PORTCHANNEL entry, with portmgrd/teammgrd defaults.
fn admin_mtu(i: &mut Interface, e: &Entry) {
    i.admin_up = match e.get("admin_status") {
        Some(v) => known(v.v == "up", &v.src),
        None => default_of(false, Some(&e.src)),
    };
    match e.num::<u32>("mtu") {
        Some((m, v)) => {
            i.mtu = known(m, &v.src);
            i.mtu_raw = known(m, &v.src);
        }
        None => {
            i.mtu = default_of(9100, Some(&e.src));
            i.mtu_raw = default_of(9100, Some(&e.src));
        }
    }
}

/// PORTCHANNEL and PORTCHANNEL_MEMBER.
fn lags(dev: &mut Device, db: &Db) {
    for (key, e) in db.table("PORTCHANNEL") {
        let name = canonical_ifname(key);
        let i = dev.iface(&name, "port-channel");
        i.set_defined_at(e.src.clone());
        admin_mtu(i, e);
    }
    for (key, _) in db.table("PORTCHANNEL_MEMBER") {
        let Some((lag, member)) = key.split_once('|') else {
            continue;
        };
        let (lag, member) = (canonical_ifname(lag), canonical_ifname(member));
        let l = dev.iface(&lag, "port-channel");
        if !l.lag_members.contains(&member) {
            l.lag_members.push(member.clone());
        }
        dev.iface(&member, kind_of(&member)).names.lag_parent = Some(lag);
    }
}

/// Which PORT_QOS_MAP entry applies to each port (an entry may list several ports; an entry of
/// the port's own name wins), and the switch-wide `global` entry.
struct QosIndex<'a> {
    ports: BTreeMap<String, &'a Entry>,
    global: Option<&'a Entry>,
}

/// A key part that is a range of ports (`Ethernet0-124`), not a port: CONFIG_DB keys name
/// ports one by one (a comma list at most); SONiC does not expand a range, so neither does
/// this reader, and it must not become a port of that name.
pub(super) fn is_port_range(part: &str) -> bool {
    let rest = part
        .trim()
        .trim_start_matches(|c: char| c.is_ascii_alphabetic());
    rest.starts_with(|c: char| c.is_ascii_digit()) && rest.contains('-')
}

/// Report each key of the per-port tables that names a range of ports, with its line.
fn report_port_ranges(db: &Db, notes: &mut BuildNotes) {
    for t in ["PORT_QOS_MAP", "BUFFER_PG", "BUFFER_QUEUE", "QUEUE"] {
        for (key, e) in db.table(t) {
            let ports = key.rsplit_once('|').map_or(key.as_str(), |(p, _)| p);
            let Some(range) = ports.split(',').find(|p| is_port_range(p)) else {
                continue;
            };
            let Some(out) = e.fields.values().next().map(|v| v.out) else {
                continue;
            };
            notes.unrecognized.push((
                out,
                Unrecognized {
                    line: e.src.line,
                    text: format!(
                        "{t}|{key} (not read: {range:?} is a range, not a port; CONFIG_DB names ports one by one)",
                        range = range.trim()
                    ).into(),
                },
            ));
        }
    }
}

impl<'a> QosIndex<'a> {
    fn new(db: &'a Db) -> Self {
        let mut ports = BTreeMap::new();
        let mut global = None;
        for (key, e) in db.table("PORT_QOS_MAP") {
            if key == "global" {
                global = Some(e);
            } else if !key.contains(',') && !is_port_range(key) {
                ports.insert(canonical_ifname(key), e);
            }
        }
        for (key, e) in db.table("PORT_QOS_MAP") {
            if key.contains(',') {
                for p in key.split(',').filter(|p| !is_port_range(p)) {
                    ports.entry(canonical_ifname(p)).or_insert(e);
                }
            }
        }
        QosIndex { ports, global }
    }
}

/// A map binding of the port (else of `global`) and the map it names, when defined.
fn bound<'a>(
    db: &'a Db,
    qm: Option<&'a Entry>,
    global: Option<&'a Entry>,
    field: &str,
    table: &str,
) -> Option<(&'a Val, Option<(&'a str, &'a Entry)>)> {
    let v = qm
        .and_then(|e| e.get(field))
        .or_else(|| global.and_then(|e| e.get(field)))?;
    let map = ref_name(&v.v, table).and_then(|n| db.entry(table, n).map(|e| (n, e)));
    Some((v, map))
}

/// A number → number map over `0..len` from `base`, with the map's entries applied.
/// A bound map entry by entry: each key it lists at its own line, the others `base`'s value (a
/// default) at the binding's line.
fn map_entries(map: &Entry, base: &[u8], bind: &Src) -> QosMap {
    let mut entries: Vec<MapEntry> = base
        .iter()
        .enumerate()
        .map(|(k, &v)| MapEntry::default(k as u8, v, Some(bind)))
        .collect();
    for (k, val) in &map.fields {
        if let (Ok(i), Ok(x)) = (k.trim().parse::<usize>(), val.v.trim().parse::<u8>())
            && let Some(slot) = entries.get_mut(i)
        {
            *slot = MapEntry::config(i as u8, x, &val.src);
        }
    }
    QosMap {
        entries,
        note: None,
    }
}

fn num_map(map: &Entry, base: Vec<u8>) -> Vec<u8> {
    let mut v = base;
    for (k, val) in &map.fields {
        if let (Ok(i), Ok(x)) = (k.trim().parse::<usize>(), val.v.trim().parse::<u8>())
            && i < v.len()
        {
            v[i] = x;
        }
    }
    v
}

/// Where a port's QoS bindings come from: its PORT_QOS_MAP entry, else the `global` one.
struct Binds<'a> {
    db: &'a Db,
    qm: Option<&'a Entry>,
    global: Option<&'a Entry>,
    /// The line defaults are cited at (the port's PORT_QOS_MAP or PORT entry).
    anchor: Option<&'a Src>,
}

impl<'a> Binds<'a> {
    /// The port's `PORT_QOS_MAP` bindings in force (`QosMaps::policies`): each map field of the
    /// port's own entry, else of `PORT_QOS_MAP|global` (what [`bound`] reads), and the port's
    /// `pfc_enable`.
    fn bindings(&self) -> Vec<BoundPolicy> {
        let mut v = Vec::new();
        for (field, table) in [
            ("dscp_to_tc_map", "DSCP_TO_TC_MAP"),
            ("dot1p_to_tc_map", "DOT1P_TO_TC_MAP"),
            ("tc_to_queue_map", "TC_TO_QUEUE_MAP"),
            ("tc_to_pg_map", "TC_TO_PRIORITY_GROUP_MAP"),
            ("pfc_to_pg_map", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"),
            ("pfc_to_queue_map", "MAP_PFC_PRIORITY_TO_QUEUE"),
            ("tc_to_dscp_map", "TC_TO_DSCP_MAP"),
        ] {
            let kind = format!("PORT_QOS_MAP {field}");
            let own = self.qm.and_then(|e| e.get(field));
            let (val, how) = match own {
                Some(x) => (x, Bound::Port),
                None => match self.global.and_then(|e| e.get(field)) {
                    Some(x) => (x, Bound::Global),
                    None => continue,
                },
            };
            let name = ref_name(&val.v, table).unwrap_or(val.v.trim());
            let b = BoundPolicy::new(&kind, name, how, Some(&val.src));
            v.push(match how {
                Bound::Global => b.via("PORT_QOS_MAP|global"),
                _ => b,
            });
        }
        if let Some(p) = self.qm.and_then(|e| e.get("pfc_enable")) {
            let b = BoundPolicy::new(
                "PORT_QOS_MAP pfc_enable",
                p.v.trim(),
                Bound::Port,
                Some(&p.src),
            );
            v.push(b);
        }
        v
    }

    fn bound(&self, field: &str, table: &str) -> Option<(&'a Val, Option<(&'a str, &'a Entry)>)> {
        bound(self.db, self.qm, self.global, field, table)
    }

    /// One 8-entry map of the port: bound (known; entries it does not list are `base`'s), or,
    /// unbound, the SAI default `unbound` (None: SAI states none, so unknown). With the value,
    /// the bound map entry by entry (empty when unbound).
    fn map8(
        &self,
        field: &str,
        table: &str,
        base: Vec<u8>,
        unbound: Option<Vec<u8>>,
        policies: &mut BTreeSet<String>,
    ) -> (Field<Vec<u8>>, QosMap) {
        match self.bound(field, table) {
            Some((b, Some((name, m)))) => {
                policies.insert(format!("{table}|{name}"));
                let entries = map_entries(m, &base, &b.src);
                (known(num_map(m, base), &b.src), entries)
            }
            Some((_, None)) => (None, QosMap::default()),
            None => (
                unbound.and_then(|v| default_of(v, self.anchor)),
                QosMap::default(),
            ),
        }
    }
}

fn port_qos(i: &mut Interface, bx: &Binds, policies: &mut BTreeSet<String>) {
    crate::model::maps::bind(i, || bx.bindings());
    let anchor = bx.anchor;
    let identity = util::identity8();
    // Classification: DSCP and 802.1p maps decide the trust.
    let dscp = bx.bound("dscp_to_tc_map", "DSCP_TO_TC_MAP");
    let dot1p = bx.bound("dot1p_to_tc_map", "DOT1P_TO_TC_MAP");
    let dscp_map = dscp.and_then(|(b, m)| m.map(|m| (b, m)));
    let dot1p_map = dot1p.and_then(|(b, m)| m.map(|m| (b, m)));
    match dscp {
        Some((b, Some((name, m)))) => {
            policies.insert(format!("DSCP_TO_TC_MAP|{name}"));
            i.qos.dscp_to_tc = known(num_map(m, vec![0; 64]), &b.src);
            i.maps.dscp_to_tc = map_entries(m, &[0; 64], &b.src);
        }
        Some((_, None)) => {}
        None => i.qos.dscp_to_tc = default_of(vec![0; 64], anchor),
    }
    if let Some((b, (name, m))) = dot1p_map {
        policies.insert(format!("DOT1P_TO_TC_MAP|{name}"));
        i.qos.pcp_to_tc = known(num_map(m, vec![0; 8]), &b.src);
        i.maps.pcp_to_tc = map_entries(m, &[0; 8], &b.src);
    }
    i.qos.trust = match (dscp_map, dot1p_map) {
        (Some((b, _)), Some(_)) => known("both".to_string(), &b.src),
        (Some((b, _)), None) => known("dscp".to_string(), &b.src),
        (None, Some((b, _))) => known("pcp".to_string(), &b.src),
        (None, None) => match dscp.or(dot1p) {
            // bound to an undefined map: reported as such, trust unknown
            Some(_) => None,
            None => default_of("port".to_string(), anchor),
        },
    };
    let (tc_q, tc_q_map) = bx.map8(
        "tc_to_queue_map",
        "TC_TO_QUEUE_MAP",
        identity.clone(),
        Some(vec![0; 8]),
        policies,
    );
    let (tc_pg, tc_pg_map) = bx.map8(
        "tc_to_pg_map",
        "TC_TO_PRIORITY_GROUP_MAP",
        vec![0; 8],
        None,
        policies,
    );
    let (pfc_pg, _) = bx.map8(
        "pfc_to_pg_map",
        "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP",
        identity.clone(),
        None,
        policies,
    );
    let (pfc_q, pfc_q_map) = bx.map8(
        "pfc_to_queue_map",
        "MAP_PFC_PRIORITY_TO_QUEUE",
        identity,
        None,
        policies,
    );
    if let (Some(q), Some(pg), Some(ppg), Some(pq)) = (&tc_q, &tc_pg, &pfc_pg, &pfc_q) {
        let v = pfc_priority_of(&q.value, &pg.value, &ppg.value, &pq.value);
        // Cited at the TC → PG binding, the map that decides which PG (and so which PFC
        // priority) a TC fills.
        let all_default = q.default && pg.default && ppg.default && pq.default;
        i.qos.tc_to_pfc_priority = Some(Sourced {
            value: v,
            src: pg.src.clone().or_else(|| anchor.cloned()),
            default: all_default,
        });
    }
    i.qos.tc_to_queue = tc_q;
    i.qos.tc_to_pg = tc_pg;
    i.maps.tc_to_queue = tc_q_map;
    i.maps.tc_to_pg = tc_pg_map;
    i.maps.pfc_priority_to_queue = pfc_q_map;
    // PFC.
    match bx.qm.and_then(|e| e.get("pfc_enable")) {
        Some(v) => {
            if let Some(list) = util::num_list(&v.v, 7) {
                let on = !list.is_empty();
                i.pfc.priorities = known(list.into_iter().map(|p| p as u8).collect(), &v.src);
                i.pfc.mode = known(if on { "on" } else { "off" }.to_string(), &v.src);
                i.pfc.rx = known(on, &v.src);
                i.pfc.tx = known(on, &v.src);
            }
        }
        None => {
            i.pfc.priorities = default_of(Vec::new(), anchor);
            i.pfc.mode = default_of("off".to_string(), anchor);
            i.pfc.rx = default_of(false, anchor);
            i.pfc.tx = default_of(false, anchor);
        }
    }
    i.link_pause.rx = default_of(false, anchor);
    i.link_pause.tx = default_of(false, anchor);
    // Egress DSCP remarking: a TC → DSCP map rewrites every DSCP whose TC maps elsewhere.
    match bx.bound("tc_to_dscp_map", "TC_TO_DSCP_MAP") {
        Some((b, Some((name, m)))) => {
            policies.insert(format!("TC_TO_DSCP_MAP|{name}"));
            i.maps.tc_to_dscp = tc_to_dscp_entries(m, &b.src);
            if let Some(d2t) = val_of(&i.qos.dscp_to_tc) {
                let t2d: HashMap<u8, u8> = m
                    .fields
                    .iter()
                    .filter_map(|(k, v)| Some((k.trim().parse().ok()?, v.v.trim().parse().ok()?)))
                    .collect();
                let rewritten: Vec<u8> = (0..64u8)
                    .filter(|&d| t2d.get(&d2t[d as usize]).is_some_and(|&nd| nd != d))
                    .collect();
                i.qos.dscp_rewrites = known(rewritten, &b.src);
            }
        }
        Some((_, None)) => {}
        None => {
            i.qos.dscp_rewrites = default_of(Vec::new(), anchor);
            i.maps.tc_to_dscp = QosMap {
                entries: (0..8).map(|k| MapEntry::unchanged(k, anchor)).collect(),
                note: Some(TC_TO_DSCP_UNBOUND.into()),
            };
        }
    }
}

/// SAI: "Enable TC AND COLOR -> DSCP MAP ... Map id = #SAI_NULL_OBJECT_ID to disable map on
/// port. Default no map" (SAI inc/saiport.h, `SAI_PORT_ATTR_QOS_TC_AND_COLOR_TO_DSCP_MAP`,
/// which SONiC's `tc_to_dscp_map` binds) [V].
const TC_TO_DSCP_UNBOUND: &str = "no TC_TO_DSCP_MAP bound: SAI_PORT_ATTR_QOS_TC_AND_COLOR_TO_DSCP_MAP \"Default no map\", no DSCP rewritten (SAI inc/saiport.h)";

/// A bound TC → DSCP map entry by entry: each TC it lists at its own line; a TC it does not
/// list has no entry, so its packets leave with their DSCP (at the binding).
fn tc_to_dscp_entries(map: &Entry, bind: &Src) -> QosMap {
    let mut entries: Vec<MapEntry> = (0..8).map(|k| MapEntry::unchanged(k, Some(bind))).collect();
    for (k, val) in &map.fields {
        if let (Ok(tc), Ok(d)) = (k.trim().parse::<usize>(), val.v.trim().parse::<u8>())
            && d < 64
            && let Some(slot) = entries.get_mut(tc)
        {
            *slot = MapEntry::config(tc as u8, d, &val.src);
        }
    }
    QosMap {
        entries,
        note: Some("TC_TO_DSCP_MAP: a TC the map does not list keeps its DSCP".into()),
    }
}

fn val_of<T>(f: &Field<T>) -> Option<&T> {
    f.as_ref().map(|s| &s.value)
}

/// The PFC priority that protects each traffic class: the priority whose pause the TC's
/// priority group sends (PFC_PRIORITY_TO_PRIORITY_GROUP_MAP) and whose received pause stops the
/// TC's queue (MAP_PFC_PRIORITY_TO_QUEUE). The TC's own number wins among candidates, else the
/// lowest; `NO_PRIORITY` when no priority closes both directions (the TC is not protected). [I]
fn pfc_priority_of(tc_q: &[u8], tc_pg: &[u8], pfc_pg: &[u8], pfc_q: &[u8]) -> Vec<u8> {
    (0..8usize)
        .map(|tc| {
            let cands: Vec<u8> = (0..8u8)
                .filter(|&p| {
                    pfc_pg.get(p as usize) == tc_pg.get(tc) && pfc_q.get(p as usize) == tc_q.get(tc)
                })
                .collect();
            if cands.contains(&(tc as u8)) {
                tc as u8
            } else {
                cands.first().copied().unwrap_or(NO_PRIORITY)
            }
        })
        .collect()
}

/// QUEUE: scheduler (strict / weighted) and WRED/ECN per egress queue; weights become shares of
/// the port's weighted queues.
fn queues(
    dev: &mut Device,
    db: &Db,
    port_src: &BTreeMap<String, Src>,
    policies: &mut BTreeSet<String>,
) {
    // SONiC default for every queue of a port: no WRED profile, so no ECN and no early drop.
    for (name, src) in port_src {
        if let Some(i) = dev.interface_mut(name) {
            for q in i.queues.iter_mut() {
                q.ecn.enabled = default_of(false, Some(src));
                q.wred_drop = default_of(false, Some(src));
            }
        }
        share_port(dev, name);
    }
    let mut weights: BTreeMap<String, BTreeMap<usize, (f64, Src)>> = BTreeMap::new();
    for (key, e) in db.table("QUEUE") {
        let Some((ports, a, b)) = split_key(key) else {
            continue;
        };
        let sched = e.get("scheduler").and_then(|v| {
            let n = ref_name(&v.v, "SCHEDULER")?;
            Some((n, db.entry("SCHEDULER", n)?))
        });
        let wred = e.get("wred_profile").and_then(|v| {
            let n = ref_name(&v.v, "WRED_PROFILE")?;
            Some((n, db.entry("WRED_PROFILE", n)?))
        });
        if let Some((n, _)) = sched {
            policies.insert(format!("SCHEDULER|{n}"));
        }
        if let Some((n, _)) = wred {
            policies.insert(format!("WRED_PROFILE|{n}"));
        }
        for port in ports {
            let name = canonical_ifname(port);
            let Some(i) = dev.interface_mut(&name) else {
                continue;
            };
            crate::model::maps::bind(i, || {
                let qs = if a == b {
                    format!("{a}")
                } else {
                    format!("{a}-{b}")
                };
                [
                    ("scheduler", sched.map(|x| x.0)),
                    ("wred_profile", wred.map(|x| x.0)),
                ]
                .into_iter()
                .filter_map(|(f, n)| {
                    let at = e.get(f)?;
                    let kind = format!("QUEUE|{qs} {f}");
                    Some(BoundPolicy::new(&kind, n?, Bound::Port, Some(&at.src)))
                })
                .collect()
            });
            for qi in a..=b.min(7) {
                let q = &mut i.queues[qi as usize];
                if let Some((_, s)) = sched
                    && let Some(t) = s.get("type")
                {
                    let strict = t.v.eq_ignore_ascii_case("strict");
                    q.scheduler = known(if strict { "strict" } else { "dwrr" }.to_string(), &t.src);
                    let w = weights.entry(name.clone()).or_default();
                    match s.num::<f64>("weight") {
                        Some((wt, v)) if !strict => {
                            w.insert(qi as usize, (wt, v.src.clone()));
                        }
                        _ => {
                            w.remove(&(qi as usize));
                        }
                    }
                }
                if let Some((_, w)) = wred {
                    wred_queue(q, w);
                } else if e.get("wred_profile").is_none() {
                    q.ecn.enabled = default_of(false, Some(&e.src));
                    q.wred_drop = default_of(false, Some(&e.src));
                }
            }
            share_port(dev, &name);
        }
    }
    // DWRR weights are relative (SAI 1-100); a queue's share is its weight over the sum of the
    // port's weighted queues, rounded down to 0.01 % so shares never sum above 100. [I]
    for (name, w) in weights {
        let total: f64 = w.values().map(|(x, _)| x).sum();
        let Some(i) = dev.interface_mut(&name) else {
            continue;
        };
        if total <= 0.0 {
            continue;
        }
        for (qi, (wt, src)) in w {
            let pct = (wt * 10000.0 / total).floor() / 100.0;
            i.queues[qi].weight_pct = known(pct, &src);
        }
        share_port(dev, &name);
    }
}

/// ECN and early drop of a queue from its WRED profile, for green (conforming) packets: RoCE is
/// not policed, so it stays green.
fn wred_queue(q: &mut crate::model::Queue, w: &Entry) {
    let mode = w.get("ecn");
    let marks = mode.is_some_and(|m| {
        matches!(
            m.v.as_str(),
            "ecn_green" | "ecn_green_yellow" | "ecn_green_red" | "ecn_all"
        )
    });
    q.ecn.enabled = match mode {
        Some(m) => known(marks, &m.src),
        None => default_of(false, Some(&w.src)),
    };
    if marks {
        if let Some((x, v)) = w.num::<u64>("green_min_threshold") {
            q.ecn.min_bytes = known(x, &v.src);
        }
        if let Some((x, v)) = w.num::<u64>("green_max_threshold") {
            q.ecn.max_bytes = known(x, &v.src);
        }
        if let Some((x, v)) = w.num::<f64>("green_drop_probability") {
            q.ecn.max_probability_pct = known(x, &v.src);
        }
    }
    // WRED on green without ECN marking drops RoCE early; with marking, ECN-capable packets are
    // marked instead (the same reading as NX-OS `random-detect ... ecn`).
    q.wred_drop = match w.get("wred_green_enable") {
        Some(v) => known(v.v == "true" && !marks, &v.src),
        None => default_of(false, Some(&w.src)),
    };
}

/// CABLE_LENGTH: the cable length each port's headroom is computed for.
fn cables(dev: &mut Device, db: &Db) {
    for (_, e) in db.table("CABLE_LENGTH") {
        for (port, v) in &e.fields {
            let Ok(m) = v.v.trim().trim_end_matches('m').parse::<f64>() else {
                continue;
            };
            if let Some(i) = dev.interface_mut(&canonical_ifname(port))
                && i.cable_m.is_none()
            {
                i.cable_m = known(m, &v.src);
            }
        }
    }
}

/// A buffer profile's facts on a priority group.
fn profile_pg(pg: &mut PriorityGroup, bind: &Src, prof: &Entry, default: bool) {
    let xoff = prof.num::<u64>("xoff");
    if let Some((x, v)) = xoff {
        pg.headroom_bytes = field(x, &v.src, default);
    }
    if let Some((x, v)) = prof.num::<u64>("xon") {
        pg.xon_bytes = field(x, &v.src, default);
    }
    if let Some((x, v)) = prof.num::<u64>("size") {
        pg.size_bytes = field(x, &v.src, default);
    }
    if let Some(v) = prof.get("pool")
        && let Some(n) = ref_name(&v.v, "BUFFER_POOL")
    {
        pg.pool = field(n.to_string(), &v.src, default);
    }
    // A profile with headroom (xoff) is lossless; the dynamic buffer model's
    // `headroom_type: dynamic` profiles are lossless with headroom computed at run time.
    let dynamic = prof.get("headroom_type").is_some_and(|v| v.v == "dynamic");
    pg.lossless = match (xoff, dynamic) {
        (_, true) => field(true, bind, default),
        (Some((x, v)), false) => field(x > 0, &v.src, default),
        (None, false) => field(false, bind, default),
    };
}

/// BUFFER_PG (explicit), then, in the traditional buffer model, the lossless PGs buffermgrd
/// creates for `pfc_enable` priorities from speed and cable length.
fn pgs(dev: &mut Device, db: &Db, ini: &Ini, port_src: &BTreeMap<String, Src>) {
    let mut explicit: BTreeSet<(String, u32)> = BTreeSet::new();
    for (key, e) in db.table("BUFFER_PG") {
        let (Some((ports, a, b)), Some(bind)) = (split_key(key), e.get("profile")) else {
            continue;
        };
        let null = bind.v.trim() == "NULL";
        let prof = ref_name(&bind.v, "BUFFER_PROFILE").and_then(|n| db.entry("BUFFER_PROFILE", n));
        for port in ports {
            let name = canonical_ifname(port);
            let Some(i) = dev.interface_mut(&name) else {
                continue;
            };
            for p in a..=b.min(7) {
                explicit.insert((name.clone(), p));
                let pg = &mut i.pgs[p as usize];
                if null {
                    // Dynamic buffer model: lossless, headroom computed by buffermgrd.
                    pg.lossless = known(true, &bind.src);
                    pg.pool = default_of(LOSSLESS_POOL.to_string(), Some(&bind.src));
                } else if let Some(prof) = prof {
                    profile_pg(pg, &bind.src, prof, false);
                }
            }
            share_port(dev, &name);
        }
    }
    let dynamic = db
        .entry("DEVICE_METADATA", "localhost")
        .and_then(|e| e.get("buffer_model"))
        .is_some_and(|v| v.v == "dynamic");
    if dynamic {
        return;
    }
    for name in port_src.keys() {
        let Some(port) = db.entry("PORT", name).or_else(|| {
            db.table("PORT")
                .find(|(k, _)| canonical_ifname(k) == *name)
                .map(|(_, e)| e)
        }) else {
            continue;
        };
        let cable = db
            .table("CABLE_LENGTH")
            .find_map(|(_, e)| e.fields.iter().find(|(k, _)| canonical_ifname(k) == *name))
            .map(|(_, v)| v);
        let (Some(speed), Some(cable)) = (port.get("speed"), cable) else {
            continue;
        };
        let Some(i) = dev.interface_mut(name) else {
            continue;
        };
        let prios: Vec<u8> = val_of(&i.pfc.priorities)
            .filter(|_| i.pfc.priorities.as_ref().is_some_and(|s| !s.default))
            .cloned()
            .unwrap_or_default();
        let profile = format!("pg_lossless_{}_{}_profile", speed.v.trim(), cable.v.trim());
        for p in prios {
            if p > 7 || explicit.contains(&(name.clone(), u32::from(p))) {
                continue;
            }
            let pg = &mut i.pgs[p as usize];
            if let Some(prof) = db.entry("BUFFER_PROFILE", &profile) {
                profile_pg(pg, &prof.src, prof, true);
            } else if let Some(row) = ini.lookup(speed.v.trim(), cable.v.trim()) {
                pg.headroom_bytes = default_of(row.xoff, Some(&row.src));
                pg.xon_bytes = default_of(row.xon, Some(&row.src));
                pg.size_bytes = default_of(row.size, Some(&row.src));
                pg.pool = default_of(LOSSLESS_POOL.to_string(), Some(&row.src));
                pg.lossless = default_of(true, Some(&row.src));
            }
        }
        share_port(dev, name);
    }
}

/// PFC_WD per port, PFC_WD|GLOBAL for the poll interval; a watchdog covers the port when every
/// PFC priority is watched (`pfcwd_sw_enable`, when set, lists the watched priorities).
fn watchdog(dev: &mut Device, db: &Db, qmap: &QosIndex, port_src: &BTreeMap<String, Src>) {
    let poll = db
        .entry("PFC_WD", "GLOBAL")
        .and_then(|e| e.num::<f64>("POLL_INTERVAL"));
    let start_default = StartDefault::new(db, qmap);
    // The port the previous turn wrote (see `share_port`); the turns end in several places.
    let mut written: Option<&String> = None;
    for (name, src) in port_src {
        if let Some(prev) = written.replace(name) {
            share_port(dev, prev);
        }
        let Some(i) = dev.interface_mut(name) else {
            continue;
        };
        let entry = db.entry("PFC_WD", name).or_else(|| {
            db.table("PFC_WD")
                .find(|(k, _)| canonical_ifname(k) == *name)
                .map(|(_, e)| e)
        });
        let Some(e) = entry else {
            i.watchdog.enabled = default_of(false, Some(src));
            if let Some(d) = &start_default
                && d.ports.contains(name)
            {
                d.apply(i);
            }
            continue;
        };
        let detect = e.num::<f64>("detection_time");
        let sw = qmap.ports.get(name).and_then(|q| q.get("pfcwd_sw_enable"));
        let uncovered = match (sw, val_of(&i.pfc.priorities)) {
            (Some(sw), Some(prios)) => {
                let watched = util::num_list(&sw.v, 7).unwrap_or_default();
                prios
                    .iter()
                    .any(|p| !watched.contains(&u32::from(*p)))
                    .then_some(sw)
            }
            _ => None,
        };
        i.watchdog.enabled = match (detect, uncovered) {
            (_, Some(sw)) => known(false, &sw.src),
            (Some((_, v)), None) => known(true, &v.src),
            (None, None) => known(false, &e.src),
        };
        if let Some((d, v)) = detect {
            i.watchdog.detect_ms = known(d, &v.src);
        }
        if let Some((r, v)) = e.num::<f64>("restoration_time") {
            i.watchdog.restore_ms = known(r, &v.src);
        }
        i.watchdog.action = match e.get("action") {
            Some(v) => known(v.v.clone(), &v.src),
            None => default_of("drop".to_string(), Some(&e.src)),
        };
        if let Some((p, v)) = poll {
            i.watchdog.poll_ms = known(p, &v.src);
        }
    }
    if let Some(last) = written {
        share_port(dev, last);
    }
}

/// The watchdogs `pfcwd start_default` writes at boot when `DEVICE_METADATA|localhost`
/// `default_pfcwd_status` is `enable` (sonic-utilities `pfcwd/main.py` `start_default`,
/// <https://github.com/sonic-net/sonic-utilities/blob/master/pfcwd/main.py> [V]): on the
/// active ports (keys of `DEVICE_NEIGHBOR`, and ports with `admin_status up` and `role Int`)
/// that have a `PORT_QOS_MAP` `pfc_enable`, detection and restoration `200 × m` ms, action
/// `drop`, poll interval `min(200 × m, 1000)` ms, where `m = max(1, (n − 1) / 32 + 1)` for `n`
/// such ports. A CONFIG_DB read before that ran (or a port it skips) shows no `PFC_WD` entry;
/// these values are recorded as defaults at the `default_pfcwd_status` field.
struct StartDefault {
    ports: BTreeSet<String>,
    src: Src,
    timer_ms: f64,
    poll_ms: f64,
}

impl StartDefault {
    fn new(db: &Db, qmap: &QosIndex) -> Option<Self> {
        let flag = db
            .entry("DEVICE_METADATA", "localhost")?
            .get("default_pfcwd_status")?;
        if !flag.v.eq_ignore_ascii_case("enable") {
            return None;
        }
        let mut active: BTreeSet<String> = db
            .table("DEVICE_NEIGHBOR")
            .map(|(k, _)| canonical_ifname(k))
            .collect();
        active.extend(
            db.table("PORT")
                .filter(|(_, e)| {
                    e.get("admin_status").is_some_and(|v| v.v == "up")
                        && e.get("role").is_some_and(|v| v.v == "Int")
                })
                .map(|(k, _)| canonical_ifname(k)),
        );
        let ports: BTreeSet<String> = active
            .into_iter()
            .filter(|p| {
                qmap.ports
                    .get(p)
                    .is_some_and(|q| q.get("pfc_enable").is_some())
            })
            .collect();
        let m = (ports.len().saturating_sub(1) / 32 + 1) as f64;
        Some(StartDefault {
            ports,
            src: flag.src.clone(),
            timer_ms: 200.0 * m,
            poll_ms: (200.0 * m).min(1000.0),
        })
    }

    fn apply(&self, i: &mut Interface) {
        let at = Some(&self.src);
        let w = &mut i.watchdog;
        w.enabled = default_of(true, at);
        w.detect_ms = default_of(self.timer_ms, at);
        w.restore_ms = default_of(self.timer_ms, at);
        w.poll_ms = default_of(self.poll_ms, at);
        w.action = default_of("drop".to_string(), at);
    }
}

/// The lossless ingress pool (the one lossless PGs use, else `ingress_lossless_pool`): its size
/// and its shared headroom (`xoff`).
fn pools(dev: &mut Device, db: &Db) {
    let used: BTreeSet<String> = dev
        .interfaces
        .iter()
        .flat_map(|i| i.pgs.iter())
        .filter(|pg| val_of(&pg.lossless) == Some(&true))
        .filter_map(|pg| val_of(&pg.pool).cloned())
        .collect();
    let name = used
        .into_iter()
        .find(|n| db.entry("BUFFER_POOL", n).is_some())
        .unwrap_or_else(|| LOSSLESS_POOL.to_string());
    let Some(e) = db.entry("BUFFER_POOL", &name) else {
        return;
    };
    if let Some((s, v)) = e.num::<u64>("size") {
        dev.qos.lossless_pool_bytes = known(s, &v.src);
    }
    if let Some((x, v)) = e.num::<u64>("xoff") {
        dev.qos.headroom_pool_bytes = known(x, &v.src);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ports whose queue, PFC and classification defaults cite each its own PORT line share
    /// one copy as soon as `apply` is done with them (before the build's final sharing), and
    /// each still cites its own line when serialized with sources.
    #[test]
    fn port_defaults_citing_their_own_line_are_shared_during_apply() {
        let file: std::sync::Arc<str> = std::sync::Arc::from("configs/sw1.json");
        let mut db = Db::default();
        let ports = db.tables.entry("PORT".to_string()).or_default();
        for (n, line) in [("Ethernet0", 10), ("Ethernet4", 20), ("Ethernet8", 30)] {
            let e = Entry {
                src: Src::new(&file, line),
                fields: BTreeMap::new(),
            };
            ports.insert(n.to_string(), e);
        }
        let mut dev = Device::default();
        apply(&mut dev, &db, &Ini::default(), &mut BuildNotes::default());
        let p = |n: &str| dev.interface(n).expect(n);
        let (a, b) = (p("Ethernet0"), p("Ethernet8"));
        assert!(a.queues.is_stored());
        assert_eq!(a.queues.stored_ptr(), b.queues.stored_ptr());
        assert_eq!(a.pfc.stored_ptr(), b.pfc.stored_ptr());
        assert_eq!(a.qos.stored_ptr(), b.qos.stored_ptr());
        assert_eq!(a.watchdog.stored_ptr(), b.watchdog.stored_ptr());
        let cited = |i: &Interface| {
            let v = crate::model::with_sources(|| serde_json::to_value(i)).unwrap_or_default();
            [
                v["queues"][3]["ecn"]["enabled"]["line"].clone(),
                v["pfc"]["mode"]["line"].clone(),
                v["trust"]["line"].clone(),
                v["watchdog"]["enabled"]["line"].clone(),
            ]
        };
        assert_eq!(cited(a), [10, 10, 10, 10].map(serde_json::Value::from));
        assert_eq!(
            cited(p("Ethernet4")),
            [20, 20, 20, 20].map(serde_json::Value::from)
        );
    }

    #[test]
    fn pfc_priority_chain() {
        let id: Vec<u8> = (0..8).collect();
        let tc_pg = vec![0, 0, 0, 3, 4, 0, 0, 0];
        let v = pfc_priority_of(&id, &tc_pg, &id, &id);
        assert_eq!(v[3], 3);
        assert_eq!(v[4], 4);
        assert_eq!(v[0], 0);
        // TC 1 fills PG 0, whose pause is priority 0, but priority 0 stops queue 0, not TC 1's
        // queue 1: no priority closes the chain for TC 1.
        assert_eq!(v[1], NO_PRIORITY);
        // A non-identity chain: TC 5 in PG 5 and queue 2, priority 2 ↔ PG 5 / queue 2.
        let tc_q = vec![0, 1, 2, 3, 4, 2, 6, 7];
        let tc_pg = vec![0, 0, 0, 3, 4, 5, 0, 0];
        let pfc_pg = vec![0, 1, 5, 3, 4, 5, 6, 7];
        let v = pfc_priority_of(&tc_q, &tc_pg, &pfc_pg, &id);
        assert_eq!(v[5], 2);
        assert_eq!(v[3], 3);
        let tc_pg = vec![0, 0, 0, 3, 4, 0, 0, 0];
        // PFC priority 3 pauses queue 4: TC 3 (queue 3) is protected by no priority.
        let mut pfc_q = id.clone();
        pfc_q[3] = 4;
        let v = pfc_priority_of(&id, &tc_pg, &id, &pfc_q);
        assert_eq!(v[3], NO_PRIORITY);
    }
}
