//! Operational EOS outputs: `show interfaces`, `show qos interfaces` and LLDP. Their facts
//! replace defaults and unknowns, never a value the config states (see `crate::platform::util::fill`).

use super::{canonical_ifname, kind_of};
use crate::model::{Device, LldpNeighbor, Src, known};
use crate::platform::util::fill;
use crate::platform::{Output, util};

pub(super) fn show_interfaces(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    let mut cur: Option<String> = None;
    let mut ip_mtu_seen: Option<String> = None;
    for r in &p.records {
        let src = o.src(r.line);
        match p.kind(r) {
            "iface" => {
                let name = canonical_ifname(p.get(r, "name").unwrap_or(""));
                let kind = kind_of(&name);
                let i = dev.iface(&name, kind);
                let admin = p.get(r, "admin").unwrap_or("");
                fill(
                    &mut i.admin_up,
                    known(admin != "administratively down", &src),
                );
                i.oper_up = known(p.get(r, "proto") == Some("up"), &src);
                cur = Some(name);
            }
            "mtu" => {
                let (Some(name), Some(m)) = (&cur, p.num::<u32>(r, "mtu")) else {
                    continue;
                };
                let is_ip = p.get(r, "which") == Some("IP");
                // The IP MTU is the model's MTU; the Ethernet MTU only when no IP MTU is shown.
                if !is_ip && ip_mtu_seen.as_deref() == Some(name.as_str()) {
                    continue;
                }
                if is_ip {
                    ip_mtu_seen = Some(name.clone());
                }
                if let Some(i) = dev.interface_mut(name) {
                    fill(&mut i.mtu, known(m, &src));
                    fill(&mut i.mtu_raw, known(m, &src));
                }
            }
            "hw_addr" => {
                let Some(name) = &cur else { continue };
                let mac = p.get(r, "mac").and_then(crate::text::mac);
                if let (Some(i), Some(m)) = (dev.interface_mut(name), mac) {
                    i.mac = known(m, &src);
                }
            }
            "member_of" => {
                let (Some(name), Some(po)) = (&cur, p.get(r, "po")) else {
                    continue;
                };
                if let Some(i) = dev.interface_mut(name) {
                    i.names.lag_parent.get_or_insert_with(|| po.to_string());
                }
                let lag = dev.iface(po, "port-channel");
                if !lag.lag_members.contains(name) {
                    lag.lag_members.push(name.clone());
                }
            }
            "duplex" => {
                let Some(name) = &cur else { continue };
                let speed = p.get(r, "speed").and_then(util::speed_gbps);
                if let (Some(i), Some(g)) = (dev.interface_mut(name), speed) {
                    fill(&mut i.speed_gbps, known(g, &src));
                }
            }
            _ => {}
        }
    }
}

pub(super) fn show_qos_interfaces(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    let mut cur: Option<String> = None;
    for r in &p.records {
        let src = o.src(r.line);
        match p.kind(r) {
            "qif" => {
                let name = canonical_ifname(p.get(r, "name").unwrap_or(""));
                dev.iface(&name, kind_of(&name));
                cur = Some(name);
            }
            "trust" => {
                let Some(i) = cur.as_deref().and_then(|n| dev.interface_mut(n)) else {
                    continue;
                };
                let mode = match p.get(r, "mode").map(|m| m.to_ascii_uppercase()).as_deref() {
                    Some("DSCP") => Some("dscp"),
                    Some("COS") => Some("pcp"),
                    Some("DISABLED") | Some("UNTRUSTED") => Some("port"),
                    _ => None,
                };
                if let Some(m) = mode {
                    fill(&mut i.qos.trust, known(m.to_string(), &src));
                }
            }
            "queue" => {
                let Some(i) = cur.as_deref().and_then(|n| dev.interface_mut(n)) else {
                    continue;
                };
                let Some(q) = p.num::<usize>(r, "q").and_then(|q| i.queues.get_mut(q)) else {
                    continue;
                };
                let rr = p.get(r, "prio") == Some("RR");
                fill(
                    &mut q.scheduler,
                    known(if rr { "dwrr" } else { "strict" }.to_string(), &src),
                );
                if rr {
                    fill(
                        &mut q.weight_pct,
                        p.num::<f64>(r, "bw").and_then(|b| known(b, &src)),
                    );
                }
                let flags = p.get(r, "ecn").unwrap_or("");
                fill(&mut q.ecn.enabled, known(flags.contains('L'), &src));
                fill(&mut q.wred_drop, known(flags.contains('W'), &src));
            }
            _ => {}
        }
    }
}

/// Strip the quotes EOS puts around LLDP strings.
fn unquote(s: &str) -> String {
    let t = s.trim();
    t.strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .unwrap_or(t)
        .to_string()
}

fn set_neighbor(dev: &mut Device, local: &str, device: String, port: String, src: Src) {
    if device.is_empty() && port.is_empty() {
        return;
    }
    let name = canonical_ifname(local);
    let i = dev.iface(&name, kind_of(&name));
    // One neighbor per port in the model: the first one reported is kept.
    if i.lldp_neighbor.is_none() {
        i.lldp_neighbor = Some(Box::new(LldpNeighbor {
            device,
            port,
            src: Some(src),
            ..Default::default()
        }));
    }
}

pub(super) fn lldp_detail(dev: &mut Device, o: &Output) {
    struct Nbr {
        local: String,
        chassis: String,
        port: String,
        name: Option<String>,
        src: Src,
    }
    let flush = |dev: &mut Device, n: Option<Nbr>| {
        if let Some(n) = n {
            let device = n.name.filter(|s| !s.is_empty()).unwrap_or(n.chassis);
            set_neighbor(dev, &n.local, device, n.port, n.src);
        }
    };
    let p = &o.parsed;
    let mut local: Option<String> = None;
    let mut cur: Option<Nbr> = None;
    for r in &p.records {
        match p.kind(r) {
            "lldp_if" => {
                flush(dev, cur.take());
                local = p.get(r, "name").map(String::from);
            }
            "neighbor" => {
                flush(dev, cur.take());
                if let Some(l) = &local {
                    cur = Some(Nbr {
                        local: l.clone(),
                        chassis: p.get(r, "chassis").unwrap_or("").trim().to_string(),
                        port: unquote(p.get(r, "port").unwrap_or("")),
                        name: None,
                        src: o.src(r.line),
                    });
                }
            }
            "port_id" => {
                if let Some(n) = cur.as_mut() {
                    n.port = unquote(p.get(r, "port").unwrap_or(""));
                }
            }
            "system_name" => {
                if let Some(n) = cur.as_mut() {
                    n.name = Some(unquote(p.get(r, "name").unwrap_or("")));
                }
            }
            _ => {}
        }
    }
    flush(dev, cur.take());
}

pub(super) fn lldp_summary(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    for r in &p.records {
        if p.kind(r) != "row" {
            continue;
        }
        let (Some(local), Some(d), Some(port)) =
            (p.get(r, "port"), p.get(r, "device"), p.get(r, "port_id"))
        else {
            continue;
        };
        set_neighbor(
            dev,
            local,
            d.to_string(),
            port.trim().to_string(),
            o.src(r.line),
        );
    }
}
