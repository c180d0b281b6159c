//! Operational OS10 outputs: `show lldp neighbors`, and the port MAC addresses of `show
//! interface` (Dell SmartFabric OS10 User Guide, Interfaces, `show interface`:
//! "Hardware is Eth, address is …" / "Current address is …"; the same lines in OS9's output,
//! FTOS Configuration Guide, `show interface gig 1/21`), so that a neighbor whose LLDP names a
//! port by its MAC finds the port.

use super::{canonical_ifname, kind_of};
use crate::model::{Device, LldpNeighbor, known};
use crate::platform::Output;

/// Column names of the `show lldp neighbors` header, in order.
const COLUMNS: [&str; 4] = [
    "Loc PortID",
    "Rem Host Name",
    "Rem Port Id",
    "Rem Chassis Id",
];

/// Where each column starts in a header line (in chars), if all are there in order.
fn column_starts(header: &str) -> Option<[usize; 4]> {
    let mut starts = [0usize; 4];
    for (k, name) in COLUMNS.iter().enumerate() {
        let at = header.find(name)?;
        starts[k] = header[..at].chars().count();
    }
    starts.windows(2).all(|w| w[0] < w[1]).then_some(starts)
}

/// The cells of a row cut at the header's columns; the last cell runs to the end of the line.
fn cells(line: &str, starts: &[usize; 4]) -> [String; 4] {
    let chars: Vec<char> = line.chars().collect();
    let cell = |k: usize| -> String {
        let a = starts[k].min(chars.len());
        let b = starts
            .get(k + 1)
            .copied()
            .unwrap_or(chars.len())
            .min(chars.len());
        chars[a..b.max(a)]
            .iter()
            .collect::<String>()
            .trim()
            .to_string()
    };
    [cell(0), cell(1), cell(2), cell(3)]
}

/// `show lldp neighbors`: the neighbor on each local port. The host name is the device; where
/// the neighbor sends none (`Not Advertised`), its chassis id stands for it. A name OS10 cut to
/// its column (`...`) is kept as printed: it names no device of the snapshot.
pub(super) fn lldp_neighbors(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    let lines: Vec<&str> = p
        .text()
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let line_at = |n: u32| lines.get((n as usize).checked_sub(1)?).copied();
    let mut starts: Option<[usize; 4]> = None;
    for r in &p.records {
        match p.kind(r) {
            "header" => starts = line_at(r.line).and_then(column_starts),
            "row" => {
                let (Some(st), Some(line)) = (&starts, line_at(r.line)) else {
                    continue;
                };
                let [local, host, port, chassis] = cells(line, st);
                let host = Some(host).filter(|h| !h.is_empty() && h != "Not Advertised");
                let chassis = Some(chassis).filter(|c| !c.is_empty());
                let (Some(device), false) = (host.or(chassis), port.is_empty()) else {
                    continue;
                };
                let local = canonical_ifname(&local);
                let i = dev.iface(&local, kind_of(&local));
                // One neighbor per port in the model: the first one listed is kept.
                if i.lldp_neighbor.is_none() {
                    i.lldp_neighbor = Some(Box::new(LldpNeighbor {
                        device,
                        port,
                        src: Some(o.src(r.line)),
                        ..Default::default()
                    }));
                }
            }
            _ => {}
        }
    }
}

/// `show interface`: the MAC address of each port, as a hardware-address port id names it: the
/// current address where the output prints one (it is the address in use), else the burned-in
/// one. Only Ethernet ports and port-channels take it (VLANs share the switch's address).
pub(super) fn interface_macs(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    let mut cur: Option<String> = None;
    for r in &p.records {
        let src = o.src(r.line);
        match p.kind(r) {
            "iface" => cur = p.get(r, "name").map(canonical_ifname),
            "hw_addr" | "cur_addr" | "addr_pair" => {
                let (Some(name), Some(mac)) = (&cur, p.get(r, "mac").and_then(crate::text::mac))
                else {
                    continue;
                };
                let kind = kind_of(name);
                if !matches!(kind, "ethernet" | "port-channel") {
                    continue;
                }
                let i = dev.iface(name, kind);
                // "Current address" follows "Hardware is … address is" and wins over it
                if p.kind(r) != "hw_addr" || i.mac.is_none() {
                    i.mac = known(mac, &src);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_at_the_header_columns() {
        let h = "Loc PortID          Rem Host Name        Rem Port Id                    Rem Chassis Id";
        let st = column_starts(h).expect("header");
        assert_eq!(st, [0, 20, 41, 72]);
        // A cut name abuts the next cell; a port id holds a space.
        let row = "ethernet1/1/31      B-R03-U23-Mellano... fortyGigE 1/3/1                24:8a:07:bb:cc:aa";
        assert_eq!(
            cells(row, &st),
            [
                "ethernet1/1/31".to_string(),
                "B-R03-U23-Mellano...".into(),
                "fortyGigE 1/3/1".into(),
                "24:8a:07:bb:cc:aa".into()
            ]
        );
        assert_eq!(cells("mgmt1/1/1", &st)[1], "");
        assert!(column_starts("Rem Host Name  Loc PortID  Rem Port Id  Rem Chassis Id").is_none());
    }
}
