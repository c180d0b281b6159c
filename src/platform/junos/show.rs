//! Operational Junos outputs: `show interfaces` (and `extensive`) and `show lldp neighbors`.
//! What the device reports replaces defaults and unknowns, never a value the config states
//! (see `fill`).

use super::{canonical_ifname, kind_of};
use crate::model::{Device, LldpNeighbor, known};
use crate::platform::util::fill;
use crate::platform::{Output, util};

/// The value after `key` in a `Key: value, Key: value` line.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let start = line.find(key)? + key.len();
    let rest = line[start..].trim_start();
    Some(rest.split(',').next().unwrap_or(rest).trim())
}

pub(super) fn show_interfaces(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    let mut cur: Option<String> = None;
    // The logical interface whose `Protocol inet` MTU stands for the port: unit 0, else the
    // first one that has inet.
    let mut logical: Option<String> = None;
    let mut inet_seen: Option<String> = None;
    let lines: Vec<&str> = p.text().lines().collect();
    for r in &p.records {
        let src = o.src(r.line);
        let line = lines.get(r.line as usize - 1).copied().unwrap_or("");
        match p.kind(r) {
            "physical" => {
                let name = canonical_ifname(p.get(r, "name").unwrap_or(""));
                let i = dev.iface(&name, kind_of(&name));
                fill(
                    &mut i.admin_up,
                    known(p.get(r, "admin") == Some("Enabled"), &src),
                );
                i.oper_up = known(p.get(r, "link") == Some("Up"), &src);
                cur = Some(name);
                logical = None;
            }
            "link_level" | "link_mode" | "flow_control_state" => {
                let Some(i) = cur.as_deref().and_then(|n| dev.interface_mut(n)) else {
                    continue;
                };
                if let Some(m) = p.num::<u32>(r, "mtu") {
                    fill(&mut i.mtu_raw, known(m, &src));
                    if matches!(&*i.kind, "ethernet" | "port-channel") {
                        fill(&mut i.mtu, known(m.saturating_sub(14), &src));
                    }
                }
                if let Some(g) = field(line, "Speed:").and_then(util::speed_gbps) {
                    fill(&mut i.speed_gbps, known(g, &src));
                }
                // `Flow control` is symmetric Ethernet PAUSE (802.3x).
                if let Some(fc) = field(line, "Flow control:") {
                    let on = match fc {
                        "Enabled" => Some(true),
                        "Disabled" => Some(false),
                        _ => None,
                    };
                    if let Some(v) = on {
                        fill(&mut i.link_pause.rx, known(v, &src));
                        fill(&mut i.link_pause.tx, known(v, &src));
                    }
                }
            }
            "logical" => logical = p.get(r, "name").map(String::from),
            "protocol" => {
                let (Some(name), Some(m)) = (&cur, p.num::<u32>(r, "mtu")) else {
                    continue;
                };
                if p.get(r, "family") != Some("inet") {
                    continue;
                }
                let unit0 = logical.as_deref().is_some_and(|l| l.ends_with(".0"));
                if inet_seen.as_deref() == Some(name.as_str()) && !unit0 {
                    continue;
                }
                inet_seen = Some(name.clone());
                if let Some(i) = dev.interface_mut(name) {
                    // The protocol MTU is the IP MTU itself; it beats the one derived from the
                    // media MTU, not one the config states.
                    if i.mtu.as_ref().is_none_or(|s| {
                        s.default || s.src.as_ref().is_some_and(|x| x.file == src.file)
                    }) {
                        i.mtu = known(m, &src);
                    }
                }
            }
            _ => {}
        }
    }
}

pub(super) fn lldp_neighbors(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    for r in &p.records {
        if p.kind(r) != "row" {
            continue;
        }
        let (Some(local), Some(chassis), Some(port), Some(name)) = (
            p.get(r, "local"),
            p.get(r, "chassis"),
            p.get(r, "port"),
            p.get(r, "name"),
        ) else {
            continue;
        };
        let device = if name == "-" { chassis } else { name };
        let local = canonical_ifname(local);
        let i = dev.iface(&local, kind_of(&local));
        // One neighbor per port in the model: the first one reported is kept.
        if i.lldp_neighbor.is_none() {
            i.lldp_neighbor = Some(Box::new(LldpNeighbor {
                device: device.to_string(),
                port: port.trim().to_string(),
                src: Some(o.src(r.line)),
                ..Default::default()
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::field;

    #[test]
    fn fields() {
        let l = "Link-level type: Ethernet, MTU: 9216, LAN-PHY mode, Speed: 400Gbps, Flow control: Disabled, Media type: Fiber";
        assert_eq!(field(l, "Speed:"), Some("400Gbps"));
        assert_eq!(field(l, "Flow control:"), Some("Disabled"));
        assert_eq!(field(l, "Nothing:"), None);
    }
}
