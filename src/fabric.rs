//! Assembling the fabric: every device parsed (in parallel), the cabling plan merged with LLDP
//! from both ends, and the policy resolved from defaults and `fabric.toml [policy]`.

use crate::device::{UnknownFile, build_device};
use crate::model::{Device, Endpoint, Fabric, Link, Notice, Src};
use crate::parser::Parsers;
use crate::platform::canonical_ifname;
use crate::snapshot::Snapshot;
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// A cabling-plan entry that could not be used.
#[derive(Debug, Clone)]
pub struct TopoNote {
    pub line: u32,
    pub message: String,
}

/// Parse all devices of the snapshot, build links, and gather every snapshot problem as a
/// notice on the fabric.
pub fn assemble(
    parsers: &Parsers,
    snap: &Snapshot,
    policy: serde_json::Map<String, serde_json::Value>,
    mut notices: Vec<Notice>,
) -> Fabric {
    let built: Vec<(Device, Vec<UnknownFile>)> = snap
        .devices
        .par_iter()
        .map(|d| build_device(parsers, d))
        .collect();
    let mut devices = Vec::with_capacity(built.len());
    for (d, u) in built {
        for f in u {
            notices.push(Notice {
                kind: "unknown-file".into(),
                device: d.name.clone(),
                file: f.file,
                line: None,
                message: f.reason,
            });
        }
        devices.push(d);
    }
    for n in &snap.notices {
        notices.push(Notice {
            kind: "snapshot".into(),
            device: n
                .device
                .clone()
                .unwrap_or_else(|| crate::finding::FABRIC.into()),
            file: n.file.clone(),
            line: n.line,
            message: n.message.clone(),
        });
    }
    let (links, notes) = build_links(snap, &mut devices);
    for n in notes {
        notices.push(Notice {
            kind: "plan".into(),
            device: crate::finding::FABRIC.into(),
            file: "fabric.toml".into(),
            line: Some(n.line),
            message: n.message,
        });
    }
    mark_roce_ports(&mut devices, &links);
    for e in snap
        .fabric
        .devices
        .iter()
        .filter(|e| !e.interfaces.is_empty())
    {
        if let Some(d) = devices.iter_mut().find(|d| d.name == e.name) {
            for i in d.interfaces.iter_mut() {
                if e.interfaces.contains(&i.name) {
                    i.roce = true;
                    i.idle = false;
                }
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
                None => notes.push(TopoNote {
                    line: snap.fabric_line(side.span().start),
                    message: format!(
                        "link end {:?} is not of the form \"device:interface\"",
                        side.get_ref()
                    ),
                }),
                Some((d, i)) => match resolve_device(&names, d) {
                    None => notes.push(TopoNote {
                        line: snap.fabric_line(side.span().start),
                        message: format!(
                            "link end {:?}: no device {d:?} in the snapshot",
                            side.get_ref()
                        ),
                    }),
                    Some(di) => {
                        let dev = &devices[di];
                        let name = canonical_ifname(&dev.platform, i);
                        if dev.error.is_none()
                            && !dev.interfaces.is_empty()
                            && dev.interface(&name).is_none()
                        {
                            notes.push(TopoNote {
                                line: snap.fabric_line(side.span().start),
                                message: format!(
                                    "link end {:?}: device {} has no interface {name:?}",
                                    side.get_ref(),
                                    dev.name
                                ),
                            });
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
                    },
                    a_saw: false,
                    b_saw: false,
                },
            );
        }
    }
    // LLDP: each device's view of its neighbors.
    let mut lldp_views: Vec<(Endpoint, Endpoint, Option<Src>)> = Vec::new();
    let mut plan_peer: HashMap<Endpoint, Endpoint> = HashMap::new();
    for s in links.values() {
        plan_peer.insert(s.link.a.clone(), s.link.b.clone());
        plan_peer.insert(s.link.b.clone(), s.link.a.clone());
    }
    let lldp_runs: Vec<bool> = devices
        .iter()
        .map(|d| d.interfaces.iter().any(|i| i.lldp_neighbor.is_some()))
        .collect();
    for di in 0..devices.len() {
        for ii in 0..devices[di].interfaces.len() {
            let Some(n) = devices[di].interfaces[ii].lldp_neighbor.clone() else {
                continue;
            };
            let Some(pi) = resolve_device(&names, &n.device) else {
                continue;
            };
            let peer = &devices[pi];
            let here = Endpoint {
                device: devices[di].name.clone(),
                interface: devices[di].interfaces[ii].name.clone(),
            };
            let there = Endpoint {
                device: peer.name.clone(),
                interface: canonical_ifname(&peer.platform, &n.port),
            };
            lldp_views.push((here, there, n.src.clone()));
        }
    }
    for (here, there, src) in lldp_views {
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
    let meta: Vec<(String, String)> = devices
        .iter()
        .map(|d| (d.name.clone(), d.platform.clone()))
        .collect();
    for d in devices.iter_mut() {
        let dname = d.name.clone();
        for i in d.interfaces.iter_mut() {
            let me = Endpoint {
                device: dname.clone(),
                interface: i.name.clone(),
            };
            if let Some(p) = plan_peer.get(&me) {
                i.planned_peer = Some(format!("{}:{}", p.device, p.interface));
            }
            if let Some(n) = &i.lldp_neighbor {
                let peer = resolve_device(&names, &n.device);
                i.lldp_in_fabric = Some(peer.is_some());
                i.lldp_peer = peer
                    .map(|pi| format!("{}:{}", meta[pi].0, canonical_ifname(&meta[pi].1, &n.port)));
            }
        }
    }
    (out, notes)
}

/// Decide which ports are expected to carry RoCE: host netdevs backed by an RDMA device, and
/// switch Ethernet ports that are not shut down (nor known to be down). Where the device has
/// links (cabling plan or LLDP), only its linked ports count — with their LAG members — so the
/// unused ports of a 64-port leaf are not audited as if they carried RoCE.
pub fn mark_roce_ports(devices: &mut [Device], links: &[Link]) {
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
        let switch = d.is_switch;
        let ports = linked.get(d.name.as_str());
        let in_plan = |i: &crate::model::Interface| -> bool {
            match ports {
                None => true,
                Some(ps) => {
                    ps.contains(&i.name.as_str())
                        || i.lag_parent.as_deref().is_some_and(|p| ps.contains(&p))
                }
            }
        };
        let marks: Vec<(bool, bool)> = d
            .interfaces
            .iter()
            .map(|i| {
                let up = i.admin_up.as_ref().is_none_or(|v| v.value)
                    && i.oper_up.as_ref().is_none_or(|v| v.value);
                if switch {
                    let candidate = i.kind == "ethernet" && up;
                    (candidate && in_plan(i), candidate && !in_plan(i))
                } else {
                    (i.rdma.is_some() && up, false)
                }
            })
            .collect();
        for (i, (roce, idle)) in d.interfaces.iter_mut().zip(marks) {
            i.roce = roce;
            i.idle = idle;
        }
    }
}
