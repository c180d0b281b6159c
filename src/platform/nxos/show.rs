//! NX-OS operational outputs: `show interface`, `show lldp neighbors [detail]` and
//! `show interface priority-flow-control`. What the device reports here replaces what the
//! config (or a platform default) said, since it is the state the switch actually runs.

use super::{canonical_ifname, if_kind};
use crate::model::{Device, Interface, LldpNeighbor, Src, known};
use crate::platform::Output;
use crate::platform::util::speed_gbps;

pub fn read(dev: &mut Device, o: &Output) {
    match o.cmd.id.as_str() {
        "show-interface" => show_interface(dev, o),
        "show-lldp-neighbors" => lldp_summary(dev, o),
        "show-lldp-neighbors-detail" => lldp_detail(dev, o),
        "show-interface-priority-flow-control" => pfc_status(dev, o),
        _ => {}
    }
}

fn iface<'d>(dev: &'d mut Device, name: &str) -> &'d mut Interface {
    dev.iface(name, if_kind(name))
}

/// The interface a header record names (one capture per interface family), written into
/// `name` (one buffer for every header of the output).
fn header_name<'n>(o: &Output, r: &crate::parser::Record, name: &'n mut String) -> Option<&'n str> {
    let p = &o.parsed;
    for (cap, family) in [
        ("eth", "Ethernet"),
        ("po", "port-channel"),
        ("vlan", "Vlan"),
        ("mgmt", "mgmt"),
        ("lo", "loopback"),
        ("nve", "nve"),
    ] {
        if let Some(v) = p.get(r, cap) {
            name.clear();
            name.push_str(family);
            name.push_str(v);
            return Some(name);
        }
    }
    None
}

fn show_interface(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    // Room for a port per header, and for the port-channel a `Belongs to` line may name
    // before (or without) its own header, at once: a port is a large struct, and growing the
    // vector one doubling at a time copied each of them several times (1.5 % of an audit of
    // the 1,000-switch snapshot). Capacity only; the ports are still added by `iface_slot`.
    let headers = p
        .records
        .iter()
        .filter(|r| matches!(p.kind(r), "header" | "belongs"))
        .count();
    let room = dev.port_limit().saturating_sub(dev.interfaces.len());
    dev.interfaces.reserve(headers.min(room));
    // Index of the interface the current block describes (records follow their header).
    let mut cur: Option<usize> = None;
    let mut name_buf = String::new();
    for r in &p.records {
        let src = o.src(r.line);
        let kind = p.kind(r);
        if kind == "header" {
            cur = None;
            let Some(name) = header_name(o, r, &mut name_buf) else {
                continue;
            };
            let state = p.get(r, "state").unwrap_or("");
            let admin_down = state == "administratively down"
                || p.get(r, "why")
                    .is_some_and(|w| w.eq_ignore_ascii_case("administratively down"));
            let Some(idx) = dev.iface_slot(name, if_kind(name)) else {
                continue;
            };
            let i = &mut dev.interfaces[idx];
            if i.defined_at.is_none() {
                i.set_defined_at(src.clone());
            }
            i.oper_up = known(state == "up", &src);
            if admin_down {
                i.admin_up = known(false, &src);
            } else if state == "up" {
                // a port that is up is administratively up
                i.admin_up = known(true, &src);
            }
            cur = Some(idx);
            continue;
        }
        let Some(ci) = cur else { continue };
        match kind {
            "admin" => dev.interfaces[ci].admin_up = known(p.get(r, "v") == Some("up"), &src),
            "hw_addr" => {
                if let Some(m) = p.get(r, "mac").and_then(crate::text::mac) {
                    dev.interfaces[ci].mac = known(m, &src);
                }
            }
            "mtu" => {
                if let Some(v) = p.num::<u32>(r, "v") {
                    let i = &mut dev.interfaces[ci];
                    i.mtu = known(v, &src);
                    i.mtu_raw = known(v, &src);
                }
            }
            "port_mode" => {
                dev.interfaces[ci].switchport = known(p.get(r, "v") != Some("routed"), &src)
            }
            "speed" => {
                if let Some(g) = p.get(r, "v").and_then(speed_gbps) {
                    dev.interfaces[ci].speed_gbps = known(g, &src);
                }
            }
            "flowcontrol" => {
                let i = &mut dev.interfaces[ci];
                i.link_pause.rx = known(p.get(r, "rx") == Some("on"), &src);
                i.link_pause.tx = known(p.get(r, "tx") == Some("on"), &src);
            }
            "belongs" => {
                if let Some(v) = p.get(r, "v") {
                    let po = canonical_ifname(v);
                    let name = dev.interfaces[ci].name.clone();
                    dev.interfaces[ci].names.lag_parent = Some(po.clone());
                    add_member(dev, &po, &name);
                }
            }
            "members" => {
                let name = dev.interfaces[ci].name.clone();
                let members: Vec<String> = p
                    .get(r, "v")
                    .unwrap_or("")
                    .split(',')
                    .map(str::trim)
                    .filter(|m| !m.is_empty())
                    .map(canonical_ifname)
                    .collect();
                for m in &members {
                    iface(dev, m).names.lag_parent = Some(name.clone());
                    add_member(dev, &name, m);
                }
                // `iface` may have added interfaces; the current one keeps its index.
            }
            _ => {}
        }
    }
}

fn add_member(dev: &mut Device, po: &str, member: &str) {
    let p = iface(dev, po);
    if !p.lag_members.iter().any(|m| m == member) {
        p.lag_members.push(member.to_string());
        p.lag_members.sort_by(|a, b| crate::text::natural_cmp(a, b));
    }
}

fn set_neighbor(dev: &mut Device, local: &str, device: &str, port: &str, src: Src) {
    let name = canonical_ifname(local);
    iface(dev, &name).lldp_neighbor = Some(Box::new(LldpNeighbor {
        device: device.to_string(),
        port: port.to_string(),
        src: Some(src),
        ..Default::default()
    }));
}

/// One neighbor of `show lldp neighbors detail`, between two `Chassis id:` lines.
#[derive(Default)]
struct Entry {
    chassis: String,
    port: String,
    local: Option<(String, Src)>,
    system: String,
}

impl Entry {
    fn flush(self, dev: &mut Device) {
        let Some((local, src)) = self.local else {
            return;
        };
        let named = !self.system.is_empty() && self.system != "not advertised";
        let device = if named { self.system } else { self.chassis };
        set_neighbor(dev, &local, &device, &self.port, src);
    }
}

fn lldp_detail(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    let mut e = Entry::default();
    for r in &p.records {
        let v = p.get(r, "v").unwrap_or("").trim().to_string();
        match p.kind(r) {
            "chassis" => {
                std::mem::take(&mut e).flush(dev);
                e.chassis = v;
            }
            "port_id" => e.port = v,
            "local_port" => e.local = Some((v, o.src(r.line))),
            "system_name" => e.system = v,
            _ => {}
        }
    }
    e.flush(dev);
}

fn lldp_summary(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    let mut pending: Option<String> = None;
    for r in &p.records {
        let get = |n: &str| p.get(r, n).unwrap_or("");
        match p.kind(r) {
            "name" => pending = Some(get("dev").to_string()),
            "row" => set_neighbor(dev, get("local"), get("dev"), get("port"), o.src(r.line)),
            "row_rest" => {
                if let Some(d) = &pending {
                    set_neighbor(dev, get("local"), d, get("port"), o.src(r.line));
                }
            }
            _ => {}
        }
    }
}

/// `Mode` is the configured mode; `Oper(VL bmap)` is what runs: `Off`, or `On (8)` with the
/// paused priorities as a hex bitmap. The operational state replaces the config's priorities.
fn pfc_status(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    for r in &p.records {
        let name = match (p.get(r, "eth"), p.get(r, "po")) {
            (Some(e), _) => format!("Ethernet{e}"),
            (None, Some(n)) => format!("port-channel{n}"),
            _ => continue,
        };
        let src = o.src(r.line);
        let i = iface(dev, &name);
        if let (Some(rx), Some(tx)) = (p.num::<u64>(r, "rx"), p.num::<u64>(r, "tx")) {
            // RxPPP/TxPPP: PFC frames over all priorities.
            let c = i.counters.get_or_insert_with(Default::default);
            c.pfc_rx_total = Some(rx);
            c.pfc_tx_total = Some(tx);
            c.src = Some(src.clone());
        }
        if let Some(m) = p.get(r, "mode") {
            i.pfc.mode = known(m.to_ascii_lowercase(), &src);
        }
        let on = p
            .get(r, "oper")
            .is_some_and(|v| v.eq_ignore_ascii_case("on"));
        if !on {
            i.pfc.priorities = known(Vec::new(), &src);
            i.pfc.rx = known(false, &src);
            i.pfc.tx = known(false, &src);
            continue;
        }
        if let Some(bits) = p
            .get(r, "bmap")
            .and_then(|b| u8::from_str_radix(b, 16).ok())
        {
            let prios: Vec<u8> = (0..8u8).filter(|b| bits & (1 << b) != 0).collect();
            let active = !prios.is_empty();
            i.pfc.priorities = known(prios, &src);
            i.pfc.rx = known(active, &src);
            i.pfc.tx = known(active, &src);
        }
    }
}
