//! Operational SONiC outputs. The CLI prints tables with python-tabulate ("simple" format: a
//! header, a dashed line whose runs give each column's extent, rows); rows are cut at those
//! extents, so a release that adds a column, or a cell that holds spaces ("QSFP28 or later") or
//! is empty, reads right. Per-port facts fill what the config left unknown or defaulted (see
//! `crate::platform::util::fill`); profile listings (`ecnconfig -l`, `mmuconfig -l`) become CONFIG_DB entries.

use super::db::Db;
use super::{canonical_ifname, kind_of};
use crate::model::{Device, LldpNeighbor, Src, known};
use crate::parser::Record;
use crate::platform::util::fill;
use crate::platform::{Output, util};

/// The lines of an output's text, for cutting rows at column extents.
fn raw_lines<'t>(o: &Output<'t>) -> Vec<&'t str> {
    o.parsed
        .text()
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect()
}

/// Line `n` (1-based) of `lines`.
fn line_at<'a>(lines: &[&'a str], n: u32) -> Option<&'a str> {
    lines.get((n as usize).checked_sub(1)?).copied()
}

/// Column extents (byte ranges) of a tabulate dashed line.
fn spans(dashes: &str) -> Vec<(usize, usize)> {
    let b = dashes.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'-' {
            let s = i;
            while i < b.len() && b[i] == b'-' {
                i += 1;
            }
            out.push((s, i));
        } else {
            i += 1;
        }
    }
    out
}

/// The cells of a row at the given extents (the last column runs to the end of the line).
fn cells(line: &str, sp: &[(usize, usize)]) -> Vec<String> {
    sp.iter()
        .enumerate()
        .map(|(k, &(s, e))| {
            let e = if k + 1 == sp.len() { line.len() } else { e };
            let s = s.min(line.len());
            let e = e.min(line.len()).max(s);
            line.get(s..e).unwrap_or("").trim().to_string()
        })
        .collect()
}

/// A tabulate table of an output: column names (from the header record) and rows (row records
/// after the dashed line), each row as column name → cell.
struct Table {
    names: Vec<String>,
    sp: Vec<(usize, usize)>,
}

impl Table {
    /// Start a table at a dashed-line record, named by the header record just before it.
    fn at(lines: &[&str], header: Option<&Record>, dashes: &Record) -> Option<Table> {
        let d = line_at(lines, dashes.line)?;
        let h = line_at(lines, header?.line)?;
        let sp = spans(d);
        let names = cells(h, &sp);
        Some(Table { names, sp })
    }

    fn row(&self, line: &str) -> Vec<(String, String)> {
        self.names
            .iter()
            .cloned()
            .zip(cells(line, &self.sp))
            .collect()
    }
}

fn get<'a>(row: &'a [(String, String)], name: &str) -> Option<&'a str> {
    row.iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
        .filter(|v| !v.is_empty() && *v != "N/A")
}

/// `show interfaces status`: oper state always (only this output has it); admin state, speed,
/// MTU, LAG membership and routed/switched mode where the config said nothing.
pub(super) fn interfaces_status(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    let lines = raw_lines(o);
    let mut header: Option<&Record> = None;
    let mut table: Option<Table> = None;
    for r in &p.records {
        match p.kind(r) {
            "header" => header = Some(r),
            "dashes" => table = Table::at(&lines, header, r),
            "row" => {
                let (Some(t), Some(line)) = (&table, line_at(&lines, r.line)) else {
                    continue;
                };
                let row = t.row(line);
                let Some(name) = get(&row, "Interface").map(canonical_ifname) else {
                    continue;
                };
                let src = o.src(r.line);
                let i = dev.iface(&name, kind_of(&name));
                if let Some(s) = get(&row, "Oper") {
                    i.oper_up = known(s == "up", &src);
                }
                if let Some(s) = get(&row, "Admin") {
                    fill(&mut i.admin_up, known(s == "up", &src));
                }
                if let Some(g) = get(&row, "Speed").and_then(util::speed_gbps) {
                    fill(&mut i.speed_gbps, known(g, &src));
                }
                if let Some(m) = get(&row, "MTU").and_then(|m| m.parse::<u32>().ok()) {
                    fill(&mut i.mtu, known(m, &src));
                    fill(&mut i.mtu_raw, known(m, &src));
                }
                match get(&row, "Vlan") {
                    Some("routed") => fill(&mut i.switchport, known(false, &src)),
                    Some("trunk" | "access") => fill(&mut i.switchport, known(true, &src)),
                    Some(v) if v.starts_with("PortChannel") => {
                        let lag = canonical_ifname(v);
                        i.names.lag_parent.get_or_insert_with(|| lag.clone());
                        let l = dev.iface(&lag, "port-channel");
                        if !l.lag_members.contains(&name) {
                            l.lag_members.push(name);
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
}

/// `show pfc priority`: the PFC priorities of each port ("N/A": none).
pub(super) fn pfc_priority(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    for r in &p.records {
        let (Some(port), Some(prios)) = (p.get(r, "port"), p.get(r, "prios")) else {
            continue;
        };
        let list: Vec<u8> = if prios == "N/A" {
            Vec::new()
        } else {
            match util::num_list(prios, 7) {
                Some(l) => l.into_iter().map(|x| x as u8).collect(),
                None => continue,
            }
        };
        let src = o.src(r.line);
        let name = canonical_ifname(port);
        let i = dev.iface(&name, kind_of(&name));
        let on = !list.is_empty();
        fill(&mut i.pfc.priorities, known(list, &src));
        fill(
            &mut i.pfc.mode,
            known(if on { "on" } else { "off" }.to_string(), &src),
        );
        fill(&mut i.pfc.rx, known(on, &src));
        fill(&mut i.pfc.tx, known(on, &src));
    }
}

/// `pfcwd show config`: the watchdog of each listed port; the poll interval line, when printed.
pub(super) fn pfcwd_config(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    let poll = p
        .records
        .iter()
        .find(|r| p.kind(r) == "poll")
        .and_then(|r| Some((p.num::<f64>(r, "ms")?, o.src(r.line))));
    for r in p.records.iter().filter(|r| p.kind(r) == "port") {
        let Some(port) = p.get(r, "port") else {
            continue;
        };
        let src = o.src(r.line);
        let name = canonical_ifname(port);
        let i = dev.iface(&name, kind_of(&name));
        let detect = p.num::<f64>(r, "detect");
        let w = &mut i.watchdog;
        fill(&mut w.enabled, known(detect.is_some(), &src));
        if let Some(d) = detect {
            fill(&mut w.detect_ms, known(d, &src));
        }
        if let Some(x) = p.num::<f64>(r, "restore") {
            fill(&mut w.restore_ms, known(x, &src));
        }
        if let Some(a) = p.get(r, "action") {
            fill(&mut w.action, known(a.to_string(), &src));
        }
        if let Some((ms, s)) = &poll {
            fill(&mut w.poll_ms, known(*ms, s));
        }
    }
}

/// A counter cell: `1,234` or `N/A` (unknown).
fn counter(cell: &str) -> Option<u64> {
    cell.replace(',', "").parse().ok()
}

/// `show pfc counters`: PFC frames per priority, an Rx table then a Tx table.
pub(super) fn pfc_counters(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    let lines = raw_lines(o);
    let mut rx = true;
    for r in &p.records {
        match p.kind(r) {
            "header" => rx = p.get(r, "dir") == Some("Rx"),
            "row" => {
                let Some(line) = line_at(&lines, r.line) else {
                    continue;
                };
                let cells: Vec<&str> = line.split_whitespace().collect();
                let Some((port, vals)) = cells.split_first() else {
                    continue;
                };
                let name = canonical_ifname(port);
                let c = dev
                    .iface(&name, kind_of(&name))
                    .counters
                    .get_or_insert_with(Default::default);
                let map = if rx { &mut c.pfc_rx } else { &mut c.pfc_tx };
                for (prio, v) in vals.iter().enumerate().take(8) {
                    if let Some(n) = counter(v) {
                        map.insert(prio as u8, n);
                    }
                }
                c.src.get_or_insert_with(|| o.src(r.line));
            }
            _ => {}
        }
    }
}

/// `show queue counters`: drops summed over a port's queues (Drop/pkts, the fifth column).
pub(super) fn queue_counters(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    let lines = raw_lines(o);
    for r in p.records.iter().filter(|r| p.kind(r) == "row") {
        let Some(line) = line_at(&lines, r.line) else {
            continue;
        };
        let cells: Vec<&str> = line.split_whitespace().collect();
        let (Some(port), Some(drop)) = (cells.first(), cells.get(4).and_then(|c| counter(c)))
        else {
            continue;
        };
        let name = canonical_ifname(port);
        let c = dev
            .iface(&name, kind_of(&name))
            .counters
            .get_or_insert_with(Default::default);
        c.drops = Some(c.drops.unwrap_or(0) + drop);
        c.src.get_or_insert_with(|| o.src(r.line));
    }
}

/// `show lldp table`: the first neighbor listed on each port.
pub(super) fn lldp_table(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    let lines = raw_lines(o);
    let mut header: Option<&Record> = None;
    let mut table: Option<Table> = None;
    for r in &p.records {
        match p.kind(r) {
            "header" => header = Some(r),
            "dashes" => table = Table::at(&lines, header, r),
            "row" => {
                let (Some(t), Some(line)) = (&table, line_at(&lines, r.line)) else {
                    continue;
                };
                let row = t.row(line);
                let Some(local) = get(&row, "LocalPort").map(canonical_ifname) else {
                    continue;
                };
                let device = get(&row, "RemoteDevice").unwrap_or("").to_string();
                let port = get(&row, "RemotePortID").unwrap_or("").to_string();
                if device.is_empty() && port.is_empty() {
                    continue;
                }
                let i = dev.iface(&local, kind_of(&local));
                if i.lldp_neighbor.is_none() {
                    i.lldp_neighbor = Some(Box::new(LldpNeighbor {
                        device,
                        port,
                        port_descr: get(&row, "RemotePortDescr")
                            .filter(|d| !d.is_empty())
                            .map(str::to_string),
                        src: Some(o.src(r.line)),
                        ..Default::default()
                    }));
                }
            }
            _ => {}
        }
    }
}

/// `ecnconfig -l`: WRED profiles, as WRED_PROFILE entries.
pub(super) fn ecnconfig(db: &mut Db, oi: usize, o: &Output) {
    sections(db, oi, o, |kind| {
        (kind == "profile").then_some("WRED_PROFILE")
    });
}

/// `mmuconfig -l` / `show buffer information`: pools and profiles, as BUFFER_POOL and
/// BUFFER_PROFILE entries (the lossless traffic pattern is not used).
pub(super) fn mmuconfig(db: &mut Db, oi: usize, o: &Output) {
    sections(db, oi, o, |kind| match kind {
        "pool" => Some("BUFFER_POOL"),
        "profile" => Some("BUFFER_PROFILE"),
        _ => None,
    });
}

/// Two-column key/value tables under "Heading: NAME" lines, into `db` entries of the table the
/// heading's record kind names. On a multi-ASIC switch a heading names its namespace
/// ("Pool for namespace asic0: NAME"); the device model has one set of pools and profiles, so
/// the first namespace that lists a name gives its fields and later namespaces' copies of the
/// same name are read but not merged into it.
fn sections(db: &mut Db, oi: usize, o: &Output, table_of: impl Fn(&str) -> Option<&'static str>) {
    let p = &o.parsed;
    let mut cur: Option<(&'static str, String)> = None;
    let mut first_ns: std::collections::HashMap<(&'static str, String), Option<String>> =
        std::collections::HashMap::new();
    for r in &p.records {
        let kind = p.kind(r);
        if kind == "kv" {
            let (Some((t, name)), Some(k), Some(v)) = (&cur, p.get(r, "k"), p.get(r, "v")) else {
                continue;
            };
            let src = o.src(r.line);
            let e = db.entry_mut(t, name, src.clone());
            e.fields.insert(
                k.to_string(),
                super::db::Val {
                    v: v.to_string(),
                    src,
                    out: oi,
                },
            );
        } else {
            let ns = p.get(r, "ns").map(String::from);
            cur = table_of(kind).and_then(|t| {
                let name = p.get(r, "name")?.to_string();
                let first = first_ns.entry((t, name.clone())).or_insert(ns.clone());
                if *first != ns {
                    return None;
                }
                db.entry_mut(t, &name, o.src(r.line));
                Some((t, name))
            });
        }
    }
}

/// One row of pg_profile_lookup.ini.
#[derive(Debug, Clone)]
pub(super) struct IniRow {
    pub size: u64,
    pub xon: u64,
    pub xoff: u64,
    pub src: Src,
}

/// The headroom lookup table (speed in Mb/s and cable length as written, e.g. "100000", "5m").
#[derive(Debug, Default)]
pub(super) struct Ini {
    rows: Vec<(String, String, IniRow)>,
}

impl Ini {
    pub fn read(&mut self, o: &Output) {
        let p = &o.parsed;
        for r in &p.records {
            let (Some(speed), Some(cable), Some(size), Some(xon), Some(xoff)) = (
                p.get(r, "speed"),
                p.get(r, "cable"),
                p.num::<u64>(r, "size"),
                p.num::<u64>(r, "xon"),
                p.num::<u64>(r, "xoff"),
            ) else {
                continue;
            };
            self.rows.push((
                speed.to_string(),
                cable.to_string(),
                IniRow {
                    size,
                    xon,
                    xoff,
                    src: o.src(r.line),
                },
            ));
        }
    }

    /// The entry buffermgrd uses for a port: exact speed and cable length (it has no fallback).
    pub fn lookup(&self, speed: &str, cable: &str) -> Option<&IniRow> {
        self.rows
            .iter()
            .find(|(s, c, _)| s == speed && c == cable)
            .map(|(_, _, r)| r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabulate_columns() {
        let d = "---------------  -------  -----  ----------------  ----------";
        let h = "      Interface    Speed    MTU              Type    Asym PFC";
        let r = "      Ethernet0      25G   9100   QSFP28 or later         off";
        let sp = spans(d);
        assert_eq!(sp.len(), 5);
        assert_eq!(cells(h, &sp)[4], "Asym PFC");
        assert_eq!(
            cells(r, &sp),
            vec!["Ethernet0", "25G", "9100", "QSFP28 or later", "off"]
        );
        // short row: the missing cells are empty
        assert_eq!(cells("Ethernet4", &sp)[1], "");
    }
}
