//! Assembling the fabric: every device parsed (in parallel), the cabling plan merged with LLDP
//! from both ends, and the policy resolved from defaults and `fabric.toml [policy]`.

use crate::device::{UnknownFile, build_device_in_run};
use crate::model::{
    Device, Endpoint, Fabric, Interface, Link, LldpNeighbor, Notice, PortMatch, RoceScope, Src,
};
use crate::parser::Parsers;
use crate::platform::canonical_ifname;
use crate::snapshot::Snapshot;
use crate::timings::{self, Phase};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// A cabling-plan entry that could not be used.
#[derive(Debug, Clone)]
pub struct TopoNote {
    pub line: u32,
    pub message: String,
}

impl TopoNote {
    /// The message kept at its length: `format!` leaves room for about twice its fixed text,
    /// a fifth of each message on a plan of thousands of entries that name no device.
    fn new(line: u32, mut message: String) -> TopoNote {
        message.shrink_to_fit();
        TopoNote { line, message }
    }
}

/// Parse all devices of the snapshot, build links, and gather every snapshot problem as a
/// notice on the fabric.
pub fn assemble(
    parsers: &Parsers,
    snap: &Snapshot,
    policy: serde_json::Map<String, serde_json::Value>,
    mut notices: Vec<Notice>,
) -> Fabric {
    // Each device is read, parsed, modelled and its text dropped on a worker thread, so the
    // snapshot's text is never all in memory at once.
    let built: Vec<Built> = timings::devices_stage(|| {
        (0..snap.devices.len())
            .into_par_iter()
            .map(|i| load_and_build(parsers, snap, i))
            .collect()
    });
    let mut devices = Vec::with_capacity(built.len());
    let mut read_notices = Vec::new();
    for (d, u, r) in built {
        for f in u {
            notices.push(Notice {
                kind: "unknown-file".into(),
                device: d.name.clone(),
                file: f.file,
                line: None,
                message: f.reason,
            });
        }
        read_notices.extend(r);
        devices.push(d);
    }
    for n in snap.merge_notices(read_notices) {
        notices.push(Notice {
            kind: if n.refused { "refused" } else { "snapshot" }.into(),
            device: n.device.unwrap_or_else(|| crate::finding::FABRIC.into()),
            file: n.file,
            line: n.line,
            message: n.message,
        });
    }
    let (links, notes) = timings::stage(Phase::Links, || build_links(snap, &mut devices));
    // Room for the plan's notices at once: a plan of thousands of `[[link]]` entries naming no
    // device gives two each, and growing the list by doubling left up to half of it empty.
    notices.reserve_exact(notes.len());
    for n in notes {
        notices.push(Notice {
            kind: "plan".into(),
            device: crate::finding::FABRIC.into(),
            file: "fabric.toml".into(),
            line: Some(n.line),
            message: n.message,
        });
    }
    let roce_ports: Vec<String> = policy
        .get("roce_ports")
        .and_then(serde_json::Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(serde_json::Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    timings::stage(Phase::Links, || {
        mark_roce_ports_by(&mut devices, &links, &roce_ports)
    });
    for e in snap
        .fabric
        .devices
        .iter()
        .filter(|e| !e.interfaces.is_empty())
    {
        if let Some(d) = devices.iter_mut().find(|d| d.name == e.name) {
            let mut n = 0;
            for i in d.interfaces.iter_mut() {
                if e.interfaces.contains(&i.name) {
                    n += usize::from(!i.roce);
                    i.roce = true;
                    i.idle = false;
                }
            }
            if let Some(s) = d.roce_scope.as_mut().filter(|_| n > 0) {
                s.audited += n;
                s.left_out = s.left_out.saturating_sub(n);
                s.text.push_str(&format!(
                    "; {n} more port(s) listed in fabric.toml [[device]] interfaces"
                ));
            }
        }
    }
    Fabric {
        devices,
        links,
        policy,
        notices,
    }
}

/// A modelled device, its unexplained files and the notices reading it gave.
type Built = (
    Device,
    Vec<UnknownFile>,
    Vec<(crate::snapshot::NoticeKey, crate::snapshot::Notice)>,
);

/// Read device `i` of the snapshot (its time goes to [`Phase::Read`]) and model it.
fn load_and_build(parsers: &Parsers, snap: &Snapshot, i: usize) -> Built {
    let start = timings::thread_cpu();
    let (input, read_notices) = snap.load_device(i);
    timings::add_cpu(Phase::Read, timings::thread_cpu().saturating_sub(start));
    let (mut d, u) = build_device_in_run(parsers, &input, snap.devices.len());
    // Kept until the report: no room for ports that never came (a port is 1,176 bytes inline).
    d.interfaces.shrink_to_fit();
    (d, u, read_notices)
}

/// Resolve a neighbor's advertised system name to a device of the fabric.
fn resolve_device(names: &HashMap<String, usize>, sys: &str) -> Option<usize> {
    let s = sys.trim().to_ascii_lowercase();
    if let Some(&i) = names.get(&s) {
        return Some(i);
    }
    let short = s.split('.').next().unwrap_or(&s);
    names.get(short).copied()
}

fn parse_endpoint(s: &str) -> Option<(&str, &str)> {
    let (d, i) = s.split_once(':')?;
    if d.is_empty() || i.is_empty() {
        return None;
    }
    Some((d.trim(), i.trim()))
}

fn key(a: &Endpoint, b: &Endpoint) -> (Endpoint, Endpoint) {
    if a <= b {
        (a.clone(), b.clone())
    } else {
        (b.clone(), a.clone())
    }
}

struct Seen {
    link: Link,
    a_saw: bool,
    b_saw: bool,
}

pub fn build_links(snap: &Snapshot, devices: &mut [Device]) -> (Vec<Link>, Vec<TopoNote>) {
    let names: HashMap<String, usize> = devices
        .iter()
        .enumerate()
        .map(|(i, d)| (d.name.to_ascii_lowercase(), i))
        .collect();
    let mut notes = Vec::new();
    let mut links: BTreeMap<(Endpoint, Endpoint), Seen> = BTreeMap::new();
    let plan_file: Arc<str> = Arc::from("fabric.toml");
    for l in &snap.fabric.links {
        let line = snap.fabric_line(l.a.span().start);
        let mut ends = Vec::new();
        for side in [&l.a, &l.b] {
            match parse_endpoint(side.get_ref()) {
                None => notes.push(TopoNote::new(
                    snap.fabric_line(side.span().start),
                    format!(
                        "link end {:?} is not of the form \"device:interface\"",
                        side.get_ref()
                    ),
                )),
                Some((d, i)) => match resolve_device(&names, d) {
                    None => notes.push(TopoNote::new(
                        snap.fabric_line(side.span().start),
                        format!(
                            "link end {:?}: no device {d:?} in the snapshot",
                            side.get_ref()
                        ),
                    )),
                    Some(di) => {
                        let dev = &devices[di];
                        let name = canonical_ifname(&dev.platform, i);
                        if dev.error.is_none()
                            && !dev.interfaces.is_empty()
                            && dev.interface(&name).is_none()
                        {
                            notes.push(TopoNote::new(
                                snap.fabric_line(side.span().start),
                                format!(
                                    "link end {:?}: device {} has no interface {name:?}",
                                    side.get_ref(),
                                    dev.name
                                ),
                            ));
                        }
                        ends.push(Endpoint {
                            device: dev.name.clone(),
                            interface: name,
                        });
                    }
                },
            }
        }
        if let [a, b] = ends.as_slice() {
            let (a, b) = key(a, b);
            links.insert(
                (a.clone(), b.clone()),
                Seen {
                    link: Link {
                        a,
                        b,
                        source: "fabric.toml".into(),
                        one_sided: false,
                        cable_m: l.cable_m,
                        src: Some(Src::new(&plan_file, line)),
                        matched_by: Vec::new(),
                    },
                    a_saw: false,
                    b_saw: false,
                },
            );
        }
    }
    // LLDP: each device's view of its neighbors, the advertised port matched against the
    // peer's own tables.
    let mut lldp_views: Vec<(Endpoint, Endpoint, Option<Src>, Option<PortMatch>)> = Vec::new();
    // device -> interface -> the other end (looked up by borrowed names, port by port)
    let mut plan_peer: HashMap<String, HashMap<String, Endpoint>> = HashMap::new();
    for s in links.values() {
        for (me, other) in [(&s.link.a, &s.link.b), (&s.link.b, &s.link.a)] {
            plan_peer
                .entry(me.device.clone())
                .or_default()
                .insert(me.interface.clone(), other.clone());
        }
    }
    let lldp_runs: Vec<bool> = devices
        .iter()
        .map(|d| d.interfaces.iter().any(|i| i.lldp_neighbor.is_some()))
        .collect();
    // (device index, interface index) -> (peer "device:interface", how it was matched)
    let mut resolved: HashMap<(usize, usize), (String, Option<&'static str>)> = HashMap::new();
    for di in 0..devices.len() {
        for ii in 0..devices[di].interfaces.len() {
            let Some(n) = devices[di].interfaces[ii].lldp_neighbor.as_ref() else {
                continue;
            };
            let Some(pi) = resolve_device(&names, &n.device) else {
                continue;
            };
            let peer = &devices[pi];
            let (port, method) = match match_port(peer, n) {
                Some((p, m)) => (p, Some(m)),
                None => (canonical_ifname(&peer.platform, &n.port), None),
            };
            let here = Endpoint {
                device: devices[di].name.clone(),
                interface: devices[di].interfaces[ii].name.clone(),
            };
            let there = Endpoint {
                device: peer.name.clone(),
                interface: port,
            };
            let m = method.map(|m| PortMatch {
                seen_by: format!("{}:{}", here.device, here.interface),
                seen_as: n.port_id.clone().unwrap_or_else(|| n.port.clone()),
                port: format!("{}:{}", there.device, there.interface),
                method: m.to_string(),
            });
            resolved.insert(
                (di, ii),
                (format!("{}:{}", there.device, there.interface), method),
            );
            lldp_views.push((here, there, n.src.clone(), m));
        }
    }
    for (here, there, src, m) in lldp_views {
        let (a, b) = key(&here, &there);
        let here_is_a = a == here;
        let entry = links.entry((a.clone(), b.clone())).or_insert_with(|| Seen {
            link: Link {
                a: a.clone(),
                b: b.clone(),
                source: "lldp".into(),
                one_sided: false,
                cable_m: None,
                src: src.clone(),
                matched_by: Vec::new(),
            },
            a_saw: false,
            b_saw: false,
        });
        if entry.link.source == "fabric.toml" {
            entry.link.source = "both".into();
        }
        if here_is_a {
            entry.a_saw = true;
        } else {
            entry.b_saw = true;
        }
        if let Some(m) = m {
            entry.link.matched_by.push(m);
        }
    }
    let mut out = Vec::new();
    for (_, mut s) in links {
        if s.link.source != "fabric.toml" {
            let a_runs = names
                .get(&s.link.a.device.to_ascii_lowercase())
                .is_some_and(|&i| lldp_runs[i]);
            let b_runs = names
                .get(&s.link.b.device.to_ascii_lowercase())
                .is_some_and(|&i| lldp_runs[i]);
            s.link.one_sided = (s.a_saw && !s.b_saw && b_runs) || (s.b_saw && !s.a_saw && a_runs);
        }
        out.push(s.link);
    }
    // Neighbor bookkeeping on interfaces: is the LLDP neighbor part of the fabric, and does it
    // agree with the cabling plan?
    for (di, d) in devices.iter_mut().enumerate() {
        let planned = plan_peer.get(d.name.as_str());
        for (ii, i) in d.interfaces.iter_mut().enumerate() {
            if let Some(p) = planned.and_then(|m| m.get(i.name.as_str())) {
                i.names.planned_peer = Some(format!("{}:{}", p.device, p.interface));
            }
            if i.lldp_neighbor.is_some() {
                let found = resolved.remove(&(di, ii));
                i.lldp_in_fabric = Some(found.is_some());
                if let Some((peer, method)) = found {
                    i.names.lldp_peer = Some(peer);
                    i.names.lldp_matched_by = method.map(str::to_string);
                }
            }
        }
    }
    (out, notes)
}

/// The port of `peer` that an LLDP neighbor entry names, and how it was matched, from the
/// peer's own tables: the advertised port id as a name of the peer (`name`), in the peer's
/// long or short form (`short-name`: `Eth1/1`, `Et1`, `Te1/0/1` for `Ethernet1/1`...), as a
/// port alias (`alias`: SONiC `PORT.<name>.alias`), as the MAC address of exactly one port
/// (`mac`: a port id of subtype MAC, as NIC firmware agents and lldpd send for a host), and
/// finally the advertised port description when it names a port of the peer (`description`).
/// None when nothing matches: the caller keeps the advertised name, and TOPO001/TOPO003 judge it.
pub fn match_port(peer: &Device, nb: &LldpNeighbor) -> Option<(String, &'static str)> {
    let ports = &peer.interfaces;
    let named = |n: &str| -> Option<(String, &'static str)> {
        let n = n.trim();
        if n.is_empty() {
            return None;
        }
        if let Some(i) = ports.iter().find(|i| i.name == n) {
            return Some((i.name.clone(), "name"));
        }
        let c = canonical_ifname(&peer.platform, n);
        ports
            .iter()
            .find(|i| i.name == c)
            .map(|i| (i.name.clone(), "short-name"))
    };
    // The advertised id; where a reader put the description in `port`, `port_id` holds the id.
    let id = nb.port_id.as_deref().unwrap_or(&nb.port).trim();
    if let Some(m) = named(id) {
        return Some(m);
    }
    let one = |hits: Vec<&Interface>| -> Option<String> {
        let eth: Vec<&&Interface> = hits.iter().filter(|i| i.kind == "ethernet").collect();
        match (eth.as_slice(), hits.as_slice()) {
            ([i], _) => Some(i.name.clone()),
            ([], [i]) => Some(i.name.clone()),
            _ => None,
        }
    };
    let alias = one(ports
        .iter()
        .filter(|i| {
            crate::model::val(&i.names.alias)
                .is_some_and(|a| !id.is_empty() && a.eq_ignore_ascii_case(id))
        })
        .collect());
    if let Some(p) = alias {
        return Some((p, "alias"));
    }
    if let Some(mac) = crate::text::mac(id) {
        let hits = ports
            .iter()
            .filter(|i| crate::model::val(&i.mac).is_some_and(|m| *m == mac))
            .collect();
        if let Some(p) = one(hits) {
            return Some((p, "mac"));
        }
    }
    let descr = nb
        .port_descr
        .as_deref()
        .or(nb.port_id.as_ref().map(|_| nb.port.as_str()));
    descr.and_then(named).map(|(p, _)| (p, "description"))
}

/// The port's configuration sets its MTU (not the platform's default).
/// A port at the platform's default MTU (no line states one) where that default is below
/// [`JUMBO_MTU`] (NX-OS, Junos, Onyx, EOS: 1500; not Cumulus 9216 nor SONiC 9100).
fn at_small_default_mtu(i: &Interface) -> bool {
    let stated = [&i.mtu_raw, &i.mtu]
        .iter()
        .any(|m| m.as_ref().is_some_and(|m| !m.default));
    !stated && i.mtu.as_ref().is_none_or(|m| m.value < JUMBO_MTU)
}

/// Names, the first few, then how many more.
fn name_list(names: &[&str]) -> String {
    const SHOWN: usize = 8;
    let mut s = names
        .iter()
        .take(SHOWN)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        s.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    s
}

/// Decide which ports are expected to carry RoCE with no `[policy] roce_ports` (see
/// [`mark_roce_ports_by`]).
pub fn mark_roce_ports(devices: &mut [Device], links: &[Link]) {
    mark_roce_ports_by(devices, links, &[]);
}

/// A port's own lossless settings, stated in its configuration (not a platform default): PFC
/// enabled, else a lossless priority group or ECN marking on the RoCE queue. PFC `auto` is the
/// platform default that NX-OS `show running-config all` prints on every port and that Onyx
/// shows as `PFC admin Auto`: it states no intent unless DCBX negotiated PFC on (the port
/// reports PFC operationally on), so a port in `auto` with PFC off is not a RoCE port by it.
fn pfc_stated_on(i: &Interface) -> bool {
    let Some(m) = i.pfc.mode.as_ref().filter(|m| !m.default) else {
        return false;
    };
    match m.value.as_str() {
        "on" => true,
        "auto" => [&i.pfc.rx, &i.pfc.tx]
            .iter()
            .any(|v| v.as_ref().is_some_and(|v| v.value && !v.default)),
        _ => false,
    }
}

/// The IP MTU from which a port carries jumbo frames: a RoCE port of a 4096-byte RDMA MTU
/// fabric needs more than 4096 + headers, and every lossless design guide this project cites
/// runs 9000 or more.
const JUMBO_MTU: u32 = 9000;

/// How many left-out ports a device names (in TOPO006's text and with a TOPO007 note each);
/// the others are counted.
const LEFT_OUT_NAMED: usize = 64;

/// The lossless binding a port carries and its line: a lossless priority group, ECN marking,
/// or the device's lossless mode.
fn lossless_binding(
    i: &Interface,
    mode: Option<&crate::model::Sourced<String>>,
) -> (String, Option<Src>) {
    if let Some(p) = i
        .pgs
        .iter()
        .find(|p| p.lossless.as_ref().is_some_and(|l| !l.default && l.value))
    {
        let src = p.lossless.as_ref().and_then(|l| l.src.clone());
        return (format!("lossless priority group {}", p.id), src);
    }
    if let Some(q) = i.queues.iter().find(|q| {
        q.ecn
            .enabled
            .as_ref()
            .is_some_and(|e| !e.default && e.value)
    }) {
        let src = q.ecn.enabled.as_ref().and_then(|e| e.src.clone());
        return (format!("ECN marking on queue {}", q.id), src);
    }
    match mode {
        Some(m) => (format!("the switch's `{}`", m.value), m.src.clone()),
        None => ("lossless settings".into(), None),
    }
}

fn lossless_stated(i: &Interface) -> bool {
    i.pgs
        .iter()
        .any(|p| p.lossless.as_ref().is_some_and(|l| !l.default && l.value))
        || i.queues.iter().any(|q| {
            q.ecn
                .enabled
                .as_ref()
                .is_some_and(|e| !e.default && e.value)
        })
}

/// Decide which ports are expected to carry RoCE (`i.roce`) and say how (`d.roce_scope`).
///
/// Hosts: netdevs backed by an RDMA device that are up. Switches: of the up Ethernet ports,
/// 1. those matching a `[policy] roce_ports` glob (`Ethernet1/1*`, or `leaf1:Ethernet1/*` for one
///    device), when the list is not empty;
/// 2. else, where the device has links (cabling plan or LLDP), its linked ports and their LAG
///    members, so the unused ports of a 64-port leaf are not audited as if they carried RoCE
///    (the others are `idle`, listed by TOPO005);
/// 3. else the ports whose configuration enables PFC; if none does, the ports with a lossless
///    priority group or ECN marking of their own; if none has any lossless setting, no port.
///    When those settings do not tell ports apart (every up port has them: a device-wide or
///    wildcard binding such as Junos `class-of-service interfaces et-*`) and some ports set
///    their MTU while others keep the platform's default, the ports with an MTU of their own
///    are the RoCE ports (a RoCE port carries jumbo frames; Juniper's AI/ML back-end spine
///    binds its CoS to `et-*` and leaves its unused breakout ports at the default MTU).
pub fn mark_roce_ports_by(devices: &mut [Device], links: &[Link], roce_ports: &[String]) {
    use crate::glob::matches as glob_match;
    let switches: std::collections::HashSet<String> = devices
        .iter()
        .filter(|d| d.is_switch)
        .map(|d| d.name.clone())
        .collect();
    let mut switch_links: HashMap<&str, usize> = HashMap::new();
    for l in links {
        if l.a.device != l.b.device
            && switches.contains(&l.a.device)
            && switches.contains(&l.b.device)
        {
            *switch_links.entry(l.a.device.as_str()).or_default() += 1;
            *switch_links.entry(l.b.device.as_str()).or_default() += 1;
        }
    }
    let mut linked: HashMap<&str, Vec<&str>> = HashMap::new();
    for l in links {
        for e in [&l.a, &l.b] {
            linked
                .entry(e.device.as_str())
                .or_default()
                .push(e.interface.as_str());
        }
    }
    for d in devices.iter_mut() {
        for i in d.interfaces.iter_mut() {
            // read first: writing makes the port's details
            if i.scope.is_some() {
                i.scope = None;
            }
        }
        let ports = linked.get(d.name.as_str());
        let up: Vec<bool> = d
            .interfaces
            .iter()
            .map(|i| {
                i.admin_up.as_ref().is_none_or(|v| v.value)
                    && i.oper_up.as_ref().is_none_or(|v| v.value)
            })
            .collect();
        if !d.is_switch {
            for (i, up) in d.interfaces.iter_mut().zip(up) {
                i.roce = i.rdma.is_some() && up;
                i.idle = false;
            }
            d.roce_scope = None;
            continue;
        }
        let candidate: Vec<bool> = d
            .interfaces
            .iter()
            .zip(&up)
            .map(|(i, up)| i.kind == "ethernet" && *up)
            .collect();
        let n_cand = candidate.iter().filter(|c| **c).count();
        let dname = d.name.clone();
        let (chosen, idle_too, rule, scope): (Vec<bool>, bool, &str, String) = if !roce_ports
            .is_empty()
        {
            let chosen: Vec<bool> = d
                .interfaces
                .iter()
                .zip(&candidate)
                .map(|(i, c)| {
                    *c && roce_ports.iter().any(|g| match g.split_once(':') {
                        Some((dg, ig)) => glob_match(dg, &dname) && glob_match(ig, &i.name),
                        None => glob_match(g, &i.name),
                    })
                })
                .collect();
            let n = chosen.iter().filter(|c| **c).count();
            let globs = roce_ports.join(", ");
            (
                chosen,
                false,
                "roce_ports",
                format!(
                    "scope: {n} up port(s) match the [policy] roce_ports globs ({globs}); {} up port(s) not audited as RoCE",
                    n_cand - n
                ),
            )
        } else if let Some(ps) = ports {
            let chosen: Vec<bool> = d
                .interfaces
                .iter()
                .zip(&candidate)
                .map(|(i, c)| {
                    *c && (ps.contains(&i.name.as_str())
                        || i.names
                            .lag_parent
                            .as_deref()
                            .is_some_and(|p| ps.contains(&p)))
                })
                .collect();
            let n = chosen.iter().filter(|c| **c).count();
            (
                chosen,
                true,
                "links",
                format!(
                    "scope: {n} up port(s) in links from fabric.toml or LLDP (with their LAG members); {} up port(s) in no link not audited as RoCE",
                    n_cand - n
                ),
            )
        } else {
            let pfc: Vec<bool> = d
                .interfaces
                .iter()
                .zip(&candidate)
                .map(|(i, c)| *c && pfc_stated_on(i))
                .collect();
            let n_pfc = pfc.iter().filter(|c| **c).count();
            if n_pfc > 0 {
                let mut prios: Vec<u8> = d
                    .interfaces
                    .iter()
                    .zip(&pfc)
                    .filter(|(_, c)| **c)
                    .filter_map(|(i, _)| crate::model::val(&i.pfc.priorities))
                    .flatten()
                    .copied()
                    .collect();
                prios.sort_unstable();
                prios.dedup();
                let on = if prios.is_empty() {
                    String::new()
                } else {
                    let p: Vec<String> = prios.iter().map(u8::to_string).collect();
                    format!(" on priority {}", p.join(", "))
                };
                (
                    pfc,
                    false,
                    "pfc",
                    format!(
                        "scope: no link in fabric.toml or LLDP and no [policy] roce_ports; {n_pfc} up port(s) with PFC enabled{on}; {} up port(s) without PFC not audited as RoCE",
                        n_cand - n_pfc
                    ),
                )
            } else {
                // A vendor mode that brings lossless settings to every port is stated intent.
                let mode = d.qos.lossless_mode.clone();
                let other: Vec<bool> = d
                    .interfaces
                    .iter()
                    .zip(&candidate)
                    .map(|(i, c)| *c && (mode.is_some() || lossless_stated(i)))
                    .collect();
                let n = other.iter().filter(|c| **c).count();
                let rule = if n > 0 { "lossless" } else { "none" };
                // When every up port carries the binding, the RoCE ports are those that carry
                // jumbo frames: a port at the platform's default MTU, when that default is not
                // jumbo, is left out (and named, with the checks it would fail).
                let own_mtu: Vec<bool> = d
                    .interfaces
                    .iter()
                    .zip(&other)
                    .map(|(i, c)| *c && !(at_small_default_mtu(i)))
                    .collect();
                let n_mtu = own_mtu.iter().filter(|c| **c).count();
                let narrow = n == n_cand && n_mtu > 0 && n_mtu < n;
                let how = match &mode {
                    Some(m) => format!("the switch's `{}` brings them to every port", m.value),
                    None => "bound device-wide or by a wildcard".to_string(),
                };
                let msg = if narrow {
                    let left: Vec<&str> = d
                        .interfaces
                        .iter()
                        .zip(other.iter().zip(&own_mtu))
                        .filter(|(_, (o, m))| **o && !**m)
                        .map(|(i, _)| i.name.as_str())
                        .collect();
                    format!(
                        "scope: no link in fabric.toml or LLDP, no [policy] roce_ports and no port with PFC enabled; all {n} up port(s) have lossless settings ({how}), so the {n_mtu} that carry jumbo frames are audited as RoCE; {} up port(s) at the platform's default MTU not audited as RoCE ({}; each is named by TOPO007 with the checks it fails if it carries RoCE)",
                        n - n_mtu,
                        name_list(&left)
                    )
                } else if n > 0 && mode.is_some() {
                    format!(
                        "scope: no link in fabric.toml or LLDP, no [policy] roce_ports and no port with PFC enabled; {how}: {n} up port(s) audited as RoCE; {} up port(s) not audited as RoCE",
                        n_cand - n
                    )
                } else if n > 0 {
                    format!(
                        "scope: no link in fabric.toml or LLDP, no [policy] roce_ports and no port with PFC enabled; {n} up port(s) with a lossless priority group or ECN marking; {} up port(s) without lossless settings not audited as RoCE",
                        n_cand - n
                    )
                } else {
                    format!(
                        "scope: no link in fabric.toml or LLDP, no [policy] roce_ports, and none of the {n_cand} up port(s) has lossless settings (PFC, a lossless priority group, ECN marking): no port audited as RoCE"
                    )
                };
                if narrow {
                    // The ports left out carry the binding: each gets a note (the first
                    // LEFT_OUT_NAMED of them), read by TOPO007 once the checks it would fail
                    // are known (`audit::scope_what_if`).
                    let mut named = 0;
                    for ((i, o), m) in d.interfaces.iter_mut().zip(&other).zip(&own_mtu) {
                        if !*o || *m || named >= LEFT_OUT_NAMED {
                            continue;
                        }
                        named += 1;
                        let (binding, at) = lossless_binding(i, mode.as_ref());
                        let mtu = i.mtu_raw.as_ref().or(i.mtu.as_ref()).map(|m| m.value);
                        let why = match mtu {
                            Some(m) => format!("keeps the platform's default MTU {m}"),
                            None => "states no MTU".to_string(),
                        };
                        i.scope = Some(Box::new(crate::model::ScopeNote {
                            decision: "left out".into(),
                            rule: "lossless+mtu".into(),
                            why,
                            binding,
                            at,
                            would_fail: Vec::new(),
                        }));
                    }
                    (own_mtu, false, "lossless+mtu", msg)
                } else {
                    (other, false, rule, msg)
                }
            }
        };
        let audited = chosen.iter().filter(|c| **c).count();
        // The ports left out, named (the first few; links: TOPO005 lists them; the MTU
        // narrowing: its text does).
        let scope = if rule != "links" && rule != "lossless+mtu" && audited < n_cand {
            let left: Vec<&str> = d
                .interfaces
                .iter()
                .zip(candidate.iter().zip(&chosen))
                .filter(|(_, (c, ch))| **c && !**ch)
                .map(|(i, _)| i.name.as_str())
                .collect();
            format!("{scope} (left out: {})", name_list(&left))
        } else {
            scope
        };
        for ((i, c), roce) in d.interfaces.iter_mut().zip(&candidate).zip(chosen) {
            i.roce = roce;
            i.idle = idle_too && *c && !roce;
        }
        d.roce_scope = Some(RoceScope {
            rule: rule.to_string(),
            audited,
            left_out: n_cand - audited,
            switch_links: switch_links.get(dname.as_str()).copied().unwrap_or(0),
            other_switches: switches.len().saturating_sub(1),
            text: scope,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::known;

    fn src() -> Src {
        Src::new(&Arc::from("t"), 1)
    }

    fn dev(platform: &str, ports: &[(&str, Option<&str>, Option<&str>)]) -> Device {
        let mut d = Device {
            name: "peer".into(),
            platform: platform.into(),
            is_switch: platform != "linux",
            ..Default::default()
        };
        for (name, alias, mac) in ports {
            let i = d.iface(name, "ethernet");
            i.names.alias = alias.and_then(|a| known(a.to_string(), &src()));
            i.mac = mac.and_then(|m| known(m.to_string(), &src()));
        }
        d
    }

    fn nb(port: &str, port_id: Option<&str>, descr: Option<&str>) -> LldpNeighbor {
        LldpNeighbor {
            device: "peer".into(),
            port: port.into(),
            port_id: port_id.map(str::to_string),
            port_descr: descr.map(str::to_string),
            src: None,
        }
    }

    fn m(d: &Device, n: &LldpNeighbor) -> Option<(String, &'static str)> {
        match_port(d, n)
    }

    #[test]
    fn port_matched_by_each_method() {
        let nx = dev(
            "nxos",
            &[("Ethernet1/1", None, None), ("Ethernet1/1/2", None, None)],
        );
        assert_eq!(
            m(&nx, &nb("Ethernet1/1", None, None)),
            Some(("Ethernet1/1".into(), "name"))
        );
        assert_eq!(
            m(&nx, &nb("Eth1/1", None, None)),
            Some(("Ethernet1/1".into(), "short-name"))
        );
        // a breakout port in its short form
        assert_eq!(
            m(&nx, &nb("Eth1/1/2", None, None)),
            Some(("Ethernet1/1/2".into(), "short-name"))
        );
        let eos = dev("eos", &[("Ethernet1", None, None)]);
        assert_eq!(
            m(&eos, &nb("Et1", None, None)),
            Some(("Ethernet1".into(), "short-name"))
        );
        let sonic = dev(
            "sonic",
            &[
                ("Ethernet0", Some("etp1"), None),
                ("Ethernet4", Some("fortyGigE0/4"), None),
            ],
        );
        assert_eq!(
            m(&sonic, &nb("etp1", None, None)),
            Some(("Ethernet0".into(), "alias"))
        );
        assert_eq!(
            m(&sonic, &nb("fortyGigE0/4", None, None)),
            Some(("Ethernet4".into(), "alias"))
        );
        let host = dev(
            "linux",
            &[
                ("eth2", None, Some("0c:42:a1:b2:c3:d4")),
                ("eth3", None, Some("0c:42:a1:b2:c3:d5")),
            ],
        );
        // NX-OS prints a MAC port id dotted; lldpd's reader keeps the id beside the description
        assert_eq!(
            m(&host, &nb("0c42.a1b2.c3d5", None, None)),
            Some(("eth3".into(), "mac"))
        );
        assert_eq!(
            m(
                &host,
                &nb(
                    "ConnectX-7 port",
                    Some("0c:42:a1:b2:c3:d4"),
                    Some("ConnectX-7 port")
                )
            ),
            Some(("eth2".into(), "mac"))
        );
        // the MAC is unknown to the peer's tables; the description names the netdev
        let bare = dev("linux", &[("eth2", None, None)]);
        assert_eq!(
            m(&bare, &nb("eth2", Some("0c:42:a1:b2:c3:d4"), Some("eth2"))),
            Some(("eth2".into(), "description"))
        );
        // nothing names a port of the peer: no match (the caller keeps the name; TOPO judges)
        assert_eq!(m(&host, &nb("0c42.a1b2.ffff", None, Some("uplink"))), None);
        assert_eq!(m(&nx, &nb("Ethernet1/9", None, None)), None);
        // a MAC shared by two ethernet ports decides nothing
        let twin = dev(
            "linux",
            &[
                ("eth2", None, Some("0c:42:a1:b2:c3:d4")),
                ("eth3", None, Some("0c:42:a1:b2:c3:d4")),
            ],
        );
        assert_eq!(m(&twin, &nb("0c:42:a1:b2:c3:d4", None, None)), None);
    }

    fn switch48(pfc_on: &[usize]) -> Device {
        let mut d = dev("nxos", &[]);
        d.name = "tor1".into();
        for n in 1..=48 {
            let i = d.iface(&format!("Ethernet1/{n}"), "ethernet");
            i.admin_up = known(true, &src());
            i.pfc.mode = if pfc_on.contains(&n) {
                known("on".into(), &src())
            } else {
                crate::model::default_of("auto".into(), Some(&src()))
            };
            i.pfc.priorities = known(vec![3], &src());
        }
        d
    }

    fn roce(d: &Device) -> Vec<String> {
        d.interfaces
            .iter()
            .filter(|i| i.roce)
            .map(|i| i.name.clone())
            .collect()
    }

    #[test]
    fn scope_without_links_follows_pfc_then_globs() {
        let mut ds = vec![switch48(&[1, 2, 3, 4])];
        mark_roce_ports_by(&mut ds, &[], &[]);
        assert_eq!(
            roce(&ds[0]),
            ["Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/4"]
        );
        let s = ds[0].roce_scope.clone().unwrap_or_default().text;
        assert!(
            s.contains("4 up port(s) with PFC enabled on priority 3"),
            "{s}"
        );
        assert!(ds[0].interfaces.iter().all(|i| !i.idle));

        mark_roce_ports_by(&mut ds, &[], &["Ethernet1/4*".to_string()]);
        assert_eq!(
            roce(&ds[0]),
            [
                "Ethernet1/4",
                "Ethernet1/40",
                "Ethernet1/41",
                "Ethernet1/42",
                "Ethernet1/43",
                "Ethernet1/44",
                "Ethernet1/45",
                "Ethernet1/46",
                "Ethernet1/47",
                "Ethernet1/48"
            ]
        );
        mark_roce_ports_by(
            &mut ds,
            &[],
            &["other:*".to_string(), "tor1:Ethernet1/2".to_string()],
        );
        assert_eq!(roce(&ds[0]), ["Ethernet1/2"]);

        // no lossless setting of its own anywhere: nothing is audited, and it says so
        let mut ds = vec![switch48(&[])];
        mark_roce_ports_by(&mut ds, &[], &[]);
        assert!(roce(&ds[0]).is_empty());
        let s = ds[0].roce_scope.clone().unwrap_or_default().text;
        assert!(s.contains("no port audited as RoCE"), "{s}");
    }

    #[test]
    fn scope_with_links_keeps_linked_ports() {
        let mut ds = vec![switch48(&[])];
        let link = Link {
            a: Endpoint {
                device: "tor1".into(),
                interface: "Ethernet1/7".into(),
            },
            b: Endpoint {
                device: "gpu1".into(),
                interface: "eth2".into(),
            },
            source: "fabric.toml".into(),
            one_sided: false,
            cable_m: None,
            src: None,
            matched_by: vec![],
        };
        mark_roce_ports(&mut ds, &[link]);
        assert_eq!(roce(&ds[0]), ["Ethernet1/7"]);
        assert_eq!(ds[0].interfaces.iter().filter(|i| i.idle).count(), 47);
        let s = ds[0].roce_scope.clone().unwrap_or_default().text;
        assert!(s.contains("1 up port(s) in links"), "{s}");
    }
}
