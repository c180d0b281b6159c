//! Operational NVUE outputs: `nv show qos roce`, `nv show interface <if> qos roce status`,
//! `nv show qos pfc default-global`, `nv show qos congestion-control default-global` and
//! `nv show interface <if> qos pfc-watchdog`.
//!
//! NVUE prints two columns, `operational` (what runs) and `applied` (the applied revision). A
//! value in the operational column replaces what the config said, so rules judge the running
//! switch and findings cite the show output; a value only in the applied column fills what is
//! still unknown or a default. The column is told by position, from the header line. Tables
//! (DSCP → SP, SP → TC and ETS, pools, ECN) are state and replace as well.

use super::apply::PortProfiles;
use super::intent::{bytes, flag, numbers, trust_of};
use crate::model::{Device, Field, LldpNeighbor, Src, default_of, known};
use crate::parser::Record;
use crate::platform::{Output, util};
use std::collections::BTreeMap;

/// Set `f` from an output: always from the operational column, else only over a default or
/// an unknown.
fn put<T>(f: &mut Field<T>, v: T, src: &Src, op: bool) {
    if op || f.as_ref().is_none_or(|s| s.default) {
        *f = known(v, src);
    }
}

/// Column start offsets of a `operational  applied  description` header line.
#[derive(Debug, Default, Clone, Copy)]
struct Cols {
    op: Option<usize>,
    applied: Option<usize>,
    desc: Option<usize>,
}

fn cols_of(raw: &str) -> Cols {
    let at = |w: &str| {
        raw.match_indices(w)
            .find(|(i, _)| *i == 0 || raw.as_bytes()[i - 1] == b' ')
            .map(|(i, _)| i)
    };
    Cols {
        op: at("operational"),
        applied: at("applied"),
        desc: at("description"),
    }
}

/// A key/value row: its value, and whether it came from the operational column.
#[derive(Debug, Clone)]
struct Val {
    v: String,
    op: bool,
    src: Src,
}

struct Lines<'t>(Vec<&'t str>);

impl<'t> Lines<'t> {
    fn new(text: &'t str) -> Self {
        Lines(
            text.split('\n')
                .map(|l| l.strip_suffix('\r').unwrap_or(l))
                .collect(),
        )
    }
    fn get(&self, line: u32) -> &'t str {
        self.0
            .get(line.saturating_sub(1) as usize)
            .copied()
            .unwrap_or("")
    }
}

fn cell(raw: &str, from: usize, to: Option<usize>) -> Option<String> {
    let end = to.unwrap_or(raw.len()).min(raw.len());
    let start = from.min(end);
    raw.get(start..end)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// The value of a `field` record: by column position under the header, else the first cell.
fn value_of(o: &Output, lines: &Lines, r: &Record, cols: Option<Cols>) -> Option<Val> {
    let src = o.src(r.line);
    let raw = lines.get(r.line);
    if let Some(c) = cols.filter(|c| c.op.is_some() || c.applied.is_some()) {
        let op = c.op.and_then(|s| cell(raw, s, c.applied.or(c.desc)));
        if let Some(v) = op {
            return Some(Val { v, op: true, src });
        }
        let ap = c.applied.and_then(|s| cell(raw, s, c.desc));
        return ap.map(|v| Val { v, op: false, src });
    }
    let rest = o.parsed.get(r, "rest")?;
    let first = rest.split("  ").next()?.trim();
    (!first.is_empty()).then(|| Val {
        v: first.to_string(),
        op: false,
        src,
    })
}

/// Field rows of an output: ((group, key), values in order).
type Fields = BTreeMap<(String, String), Vec<Val>>;

fn fields(o: &Output) -> Fields {
    let p = &o.parsed;
    let lines = Lines::new(p.text());
    let mut cols: Option<Cols> = None;
    let mut out: Fields = BTreeMap::new();
    for r in &p.records {
        match p.kind(r) {
            "cols" => cols = Some(cols_of(lines.get(r.line))),
            "field" => {
                let key = p.get(r, "key").unwrap_or("").to_string();
                let group = p
                    .parent(r)
                    .and_then(|g| p.get(g, "key"))
                    .unwrap_or("")
                    .to_string();
                if let Some(v) = value_of(o, &lines, r, cols) {
                    out.entry((group, key)).or_default().push(v);
                }
            }
            _ => {}
        }
    }
    out
}

fn one<'f>(f: &'f Fields, group: &str, key: &str) -> Option<&'f Val> {
    f.get(&(group.to_string(), key.to_string()))
        .and_then(|v| v.first())
}

/// `nv show interface <if> qos roce counters`: the RoCE class's PFC pause packets (rx/tx), ECN
/// marks, and buffer discards of RoCE and CNP traffic, from the operational column.
pub(super) fn roce_counters(dev: &mut Device, o: &Output) {
    let Some(name) = o.args.get("if") else {
        return;
    };
    let p = &o.parsed;
    let name = super::canonical_ifname(name);
    let mut c = crate::model::PortCounters::default();
    let mut drops: Option<u64> = None;
    let mut seen = false;
    for r in p.records.iter().filter(|r| p.kind(r) == "ctr") {
        let group = p.parent(r).and_then(|g| p.get(g, "key")).unwrap_or("");
        let (Some(key), Some(rest)) = (p.get(r, "key"), p.get(r, "rest")) else {
            continue;
        };
        // Counts are plain integers; byte figures ("2.48 GB") are not counted here.
        let Some(v) = rest
            .split_whitespace()
            .next()
            .and_then(|x| x.parse::<u64>().ok())
        else {
            continue;
        };
        match (group, key) {
            ("rx-pfc-stats", "pause-packets") => c.pfc_rx_total = Some(v),
            ("tx-pfc-stats", "pause-packets") => c.pfc_tx_total = Some(v),
            ("tx-ecn-stats", "ecn-marked-packets") => c.ecn_marked = Some(v),
            ("rx-roce-stats", "no-buffer-discard")
            | ("tx-roce-stats" | "tx-cnp-stats", "unicast-no-buffer-discard") => {
                drops = Some(drops.unwrap_or(0) + v)
            }
            _ => continue,
        }
        if !seen {
            c.src = Some(o.src(r.line));
            seen = true;
        }
    }
    if seen {
        c.drops = drops;
        let kind = super::kind_of(&name, None);
        dev.iface(&name, kind).counters = Some(Box::new(c));
    }
}

pub(super) fn overlay(dev: &mut Device, outs: &[Output], ports: &PortProfiles) {
    // Interfaces the per-interface outputs name exist even without a config.
    for o in outs {
        if o.cmd.per == "per-interface"
            && let Some(name) = o.args.get("if")
        {
            let n = super::canonical_ifname(name);
            let kind = super::kind_of(&n, None);
            dev.iface(&n, kind);
        }
    }
    let eth: Vec<String> = dev
        .interfaces
        .iter()
        .filter(|i| i.kind == "ethernet")
        .map(|i| i.name.clone())
        .collect();
    for id in [
        "nv-show-qos-roce",
        "nv-show-qos-pfc",
        "nv-show-qos-congestion-control",
        "nv-show-interface-qos-roce-status",
        "nv-show-interface-qos-pfc-watchdog",
    ] {
        for o in outs.iter().filter(|o| o.cmd.id == id) {
            let own: Vec<String> = o
                .args
                .get("if")
                .map(|n| vec![super::canonical_ifname(n)])
                .unwrap_or_default();
            match id {
                "nv-show-qos-roce" => roce(dev, o, &eth, Some(ports)),
                "nv-show-interface-qos-roce-status" => roce(dev, o, &own, None),
                "nv-show-qos-pfc" => {
                    let t: Vec<String> = eth
                        .iter()
                        .filter(|p| ports.global(p, "pfc"))
                        .cloned()
                        .collect();
                    pfc(dev, o, &t);
                }
                "nv-show-qos-congestion-control" => {
                    let t: Vec<String> = eth
                        .iter()
                        .filter(|p| ports.global(p, "congestion-control"))
                        .cloned()
                        .collect();
                    congestion(dev, o, &t);
                }
                _ => watchdog(dev, o, &own),
            }
        }
    }
}

/// Targets of a device-wide output for one profile family (all named ports for a
/// per-interface output).
fn targets<'a>(all: &'a [String], ports: Option<&PortProfiles>, family: &str) -> Vec<&'a String> {
    all.iter()
        .filter(|p| ports.is_none_or(|pp| pp.global(p, family)))
        .collect()
}

fn roce(dev: &mut Device, o: &Output, all: &[String], ports: Option<&PortProfiles>) {
    let f = fields(o);
    let p = &o.parsed;
    let roce_on = one(&f, "", "mode").is_some_and(|m| m.v.starts_with("loss"));

    // PFC: priority, rx/tx, cable length.
    let pfc_t = targets(all, ports, "pfc");
    if let Some(v) = one(&f, "pfc", "pfc-priority")
        && let Some(prios) = numbers(&v.v, 7)
    {
        for name in &pfc_t {
            let Some(i) = dev.interface_mut(name) else {
                continue;
            };
            put(
                &mut i.pfc.mode,
                if prios.is_empty() { "off" } else { "on" }.to_string(),
                &v.src,
                v.op,
            );
            put(&mut i.pfc.priorities, prios.clone(), &v.src, v.op);
            for pg in i.pgs.iter_mut() {
                put(&mut pg.lossless, prios.contains(&pg.id), &v.src, v.op);
            }
        }
    }
    for (key, which) in [("rx-enabled", 0), ("tx-enabled", 1)] {
        if let Some(v) = one(&f, "pfc", key)
            && let Some(b) = flag(&v.v)
        {
            for name in &pfc_t {
                if let Some(i) = dev.interface_mut(name) {
                    let fld = if which == 0 {
                        &mut i.pfc.rx
                    } else {
                        &mut i.pfc.tx
                    };
                    put(fld, b, &v.src, v.op);
                }
            }
        }
    }
    if let Some(v) = one(&f, "pfc", "cable-length")
        && let Ok(c) = v.v.parse::<f64>()
    {
        for name in &pfc_t {
            if let Some(i) = dev.interface_mut(name) {
                put(&mut i.cable_m, c, &v.src, v.op);
            }
        }
    }

    // ECN on the enabled traffic classes.
    let ecn_t = targets(all, ports, "congestion-control");
    if let Some(v) = one(&f, "congestion-control", "enabled-tc")
        && let Some(tcs) = numbers(&v.v, 7)
    {
        let min = one(&f, "congestion-control", "min-threshold");
        let max = one(&f, "congestion-control", "max-threshold");
        let prob = one(&f, "congestion-control", "probability");
        for name in &ecn_t {
            let Some(i) = dev.interface_mut(name) else {
                continue;
            };
            for q in i.queues.iter_mut() {
                if !tcs.contains(&q.id) {
                    // the RoCE congestion config lists every class it marks on
                    put(&mut q.ecn.enabled, false, &v.src, false);
                    continue;
                }
                put(&mut q.ecn.enabled, true, &v.src, v.op);
                if let Some(m) = min
                    && let Some(b) = bytes(&m.v)
                {
                    put(&mut q.ecn.min_bytes, b, &m.src, m.op);
                }
                if let Some(m) = max
                    && let Some(b) = bytes(&m.v)
                {
                    put(&mut q.ecn.max_bytes, b, &m.src, m.op);
                }
                if let Some(m) = prob
                    && let Ok(pr) = m.v.parse::<f64>()
                {
                    put(&mut q.ecn.max_probability_pct, pr, &m.src, m.op);
                }
            }
        }
    }

    // Trust.
    let map_t = targets(all, ports, "mapping");
    if let Some(v) = one(&f, "trust", "trust-mode")
        && let Some(t) = trust_of(&v.v)
    {
        for name in &map_t {
            if let Some(i) = dev.interface_mut(name) {
                put(&mut i.qos.trust, t.to_string(), &v.src, v.op);
            }
        }
    }

    // Tables.
    let mut dscp_rows: Vec<(Vec<u8>, u8, Src)> = Vec::new();
    let mut ets_rows: Vec<(u8, u8, String, Src)> = Vec::new();
    let mut pool_rows: Vec<(String, Vec<u8>, Src)> = Vec::new();
    for r in &p.records {
        let src = o.src(r.line);
        let get = |n: &str| p.get(r, n).unwrap_or("");
        match p.kind(r) {
            "sp_map" => {
                if let (Some(list), Ok(sp)) = (numbers(get("dscp"), 63), get("sp").parse::<u8>())
                    && sp < 8
                {
                    dscp_rows.push((list, sp, src));
                }
            }
            "ets" => {
                if let (Ok(sp), Ok(tc)) = (get("sp").parse::<u8>(), get("tc").parse::<u8>())
                    && sp < 8
                    && tc < 8
                {
                    ets_rows.push((sp, tc, get("sched").to_ascii_lowercase(), src));
                }
            }
            "pool" if get("name").contains("ingress") => {
                let sps = numbers(get("sps"), 7).unwrap_or_default();
                pool_rows.push((get("name").to_string(), sps, src));
            }
            _ => {}
        }
    }
    if let Some((_, _, first)) = dscp_rows.first() {
        let covered: usize = dscp_rows.iter().map(|(l, _, _)| l.len()).sum();
        for name in &map_t {
            let Some(i) = dev.interface_mut(name) else {
                continue;
            };
            // A full table replaces the map; the per-port rows (RoCE and CNP) patch it, over
            // the documented default DSCP/8 when nothing else is known [V QoS page; I].
            //
            // The model holds one Field per map, so the whole map carries one provenance. The
            // rows of this output usually state only the RoCE and CNP DSCPs; the other 62
            // entries are then the base we patch. When that base is itself assumed (the
            // platform default, or an assumed map from another output), the map as a whole is
            // an assumption: it is marked `default` with the first row as its source, so a rule
            // that cites it does not present DSCP 0..63 as read from this text. It is a fact
            // only when the rows cover all 64 DSCPs or patch a map read from a line.
            let (mut map, assumed) = match (&i.qos.dscp_to_tc, covered >= 64) {
                (_, true) => (vec![0u8; 64], false),
                (Some(m), false) if m.value.len() == 64 => (m.value.clone(), m.default),
                _ => (util::dscp_div8(), true),
            };
            for (list, sp, _) in &dscp_rows {
                for dv in list {
                    if let Some(s) = map.get_mut(*dv as usize) {
                        *s = *sp;
                    }
                }
            }
            i.qos.dscp_to_tc = if assumed {
                default_of(map, Some(first))
            } else {
                known(map, first)
            };
        }
    }
    if let Some((_, _, _, first)) = ets_rows.first() {
        let sched_t = targets(all, ports, "egress-scheduler");
        for name in &sched_t {
            let Some(i) = dev.interface_mut(name) else {
                continue;
            };
            // the rows patch what is known; RoCE's own map is the base otherwise [V RoCE page]
            // As for the DSCP map: entries no row states come from the base; the map is a
            // fact only when the rows state all 8 switch priorities or the base was read.
            let (mut map, base_assumed) = match &i.qos.tc_to_queue {
                Some(m) if m.value.len() == 8 => (m.value.clone(), m.default),
                _ if roce_on => (super::apply::roce_sp_tc(), true),
                _ => (util::identity8(), true),
            };
            let mut stated = [false; 8];
            for (sp, tc, sched, src) in &ets_rows {
                stated[*sp as usize] = true;
                map[*sp as usize] = *tc;
                let Some(q) = i.queues.get_mut(*tc as usize) else {
                    continue;
                };
                if sched.starts_with("strict") {
                    q.scheduler = known("strict".to_string(), src);
                    q.weight_pct = None;
                } else if let Some(w) = sched
                    .strip_prefix("dwrr-")
                    .and_then(|x| x.strip_suffix('%'))
                    .and_then(|x| x.parse::<f64>().ok())
                {
                    q.scheduler = known("dwrr".to_string(), src);
                    q.weight_pct = known(w, src);
                }
            }
            i.qos.tc_to_queue = if base_assumed && !stated.iter().all(|b| *b) {
                default_of(map, Some(first))
            } else {
                known(map, first)
            };
        }
    }
    for name in &pfc_t {
        let Some(i) = dev.interface_mut(name) else {
            continue;
        };
        for (pool, sps, src) in &pool_rows {
            for sp in sps {
                if let Some(pg) = i.pgs.get_mut(*sp as usize) {
                    pg.pool = known(pool.clone(), src);
                }
            }
        }
    }
}

fn pfc(dev: &mut Device, o: &Output, t: &[String]) {
    let f = fields(o);
    let prio_rows = f
        .get(&(String::new(), "switch-priority".into()))
        .cloned()
        .unwrap_or_default();
    // operational rows when there are any, else the applied ones
    let op = prio_rows.iter().any(|v| v.op);
    let rows: Vec<&Val> = prio_rows.iter().filter(|v| v.op == op).collect();
    let prios: Vec<u8> = rows
        .iter()
        .filter_map(|v| numbers(&v.v, 7))
        .flatten()
        .collect();
    let g = |k: &str| one(&f, "", k);
    for name in t {
        let Some(i) = dev.interface_mut(name) else {
            continue;
        };
        if let Some(first) = rows.first() {
            put(&mut i.pfc.priorities, prios.clone(), &first.src, op);
            put(
                &mut i.pfc.mode,
                if prios.is_empty() { "off" } else { "on" }.to_string(),
                &first.src,
                op,
            );
        }
        for (key, which) in [("rx", 0), ("tx", 1)] {
            if let Some(v) = g(key)
                && let Some(b) = flag(&v.v)
            {
                let fld = if which == 0 {
                    &mut i.pfc.rx
                } else {
                    &mut i.pfc.tx
                };
                put(fld, b, &v.src, v.op);
            }
        }
        if let Some(v) = g("cable-length")
            && let Ok(c) = v.v.parse::<f64>()
        {
            put(&mut i.cable_m, c, &v.src, v.op);
        }
        let active: Vec<u8> = i
            .pfc
            .priorities
            .as_ref()
            .map(|p| p.value.clone())
            .unwrap_or_default();
        let size = g("port-buffer").and_then(|v| bytes(&v.v).map(|b| (b, v)));
        let xoff = g("xoff-threshold").and_then(|v| bytes(&v.v).map(|b| (b, v)));
        let xon = g("xon-threshold").and_then(|v| bytes(&v.v).map(|b| (b, v)));
        for pg in i.pgs.iter_mut().filter(|pg| active.contains(&pg.id)) {
            if let Some((b, v)) = &size {
                put(&mut pg.size_bytes, *b, &v.src, v.op);
            }
            if let Some((b, v)) = &xoff {
                put(&mut pg.xoff_bytes, *b, &v.src, v.op);
            }
            // xon-threshold is the distance below xoff [V QoS page]
            if let (Some((x, _)), Some((dl, v))) = (&xoff, &xon) {
                put(&mut pg.xon_bytes, x.saturating_sub(*dl), &v.src, v.op);
            }
            if let (Some((s, v)), Some((x, _))) = (&size, &xoff) {
                put(&mut pg.headroom_bytes, s.saturating_sub(*x), &v.src, v.op);
            }
        }
    }
}

fn congestion(dev: &mut Device, o: &Output, t: &[String]) {
    let p = &o.parsed;
    for r in &p.records {
        if p.kind(r) != "ecn_row" {
            continue;
        }
        let src = o.src(r.line);
        let get = |n: &str| p.get(r, n).unwrap_or("");
        let Ok(tc) = get("tc").parse::<usize>() else {
            continue;
        };
        let ecn = flag(get("ecn"));
        let red = flag(get("red"));
        let min = bytes(get("min"));
        let max = bytes(get("max"));
        let prob = get("prob").parse::<f64>().ok();
        for name in t {
            let Some(q) = dev.interface_mut(name).and_then(|i| i.queues.get_mut(tc)) else {
                continue;
            };
            if let Some(b) = ecn {
                put(&mut q.ecn.enabled, b, &src, true);
            }
            if let Some(b) = red {
                put(&mut q.wred_drop, b, &src, true);
            }
            if let Some(b) = min {
                put(&mut q.ecn.min_bytes, b, &src, true);
            }
            if let Some(b) = max {
                put(&mut q.ecn.max_bytes, b, &src, true);
            }
            if let Some(pr) = prob {
                put(&mut q.ecn.max_probability_pct, pr, &src, true);
            }
        }
    }
}

fn watchdog(dev: &mut Device, o: &Output, t: &[String]) {
    let f = fields(o);
    let Some(v) = one(&f, "", "state") else {
        return;
    };
    let Some(on) = flag(&v.v) else {
        return;
    };
    for name in t {
        if let Some(i) = dev.interface_mut(name) {
            put(&mut i.watchdog.enabled, on, &v.src, v.op);
        }
    }
}

/// The (interface, neighbor) pairs of `nv show interface lldp`: one row per interface that has a
/// neighbor, `Interface  Speed  Type  Remote Host  Remote Port`. NVUE pads every column to its
/// widest cell and leaves Speed blank when the port reports none, so cells are cut at the
/// header's column starts.
pub(super) fn lldp_table(o: &Output) -> Vec<(String, LldpNeighbor)> {
    let p = &o.parsed;
    let lines = Lines::new(p.text());
    let mut cols: Option<(usize, usize)> = None;
    let mut out = Vec::new();
    for r in &p.records {
        let raw = lines.get(r.line);
        match p.kind(r) {
            "lldp_cols" => cols = raw.find("Remote Host").zip(raw.find("Remote Port")),
            "lldp_row" => {
                let (Some((host_at, port_at)), Some(name)) = (cols, p.get(r, "if")) else {
                    continue;
                };
                let (Some(device), Some(port)) =
                    (cell(raw, host_at, Some(port_at)), cell(raw, port_at, None))
                else {
                    continue;
                };
                out.push((
                    super::canonical_ifname(name),
                    LldpNeighbor {
                        device,
                        port,
                        src: Some(o.src(r.line)),
                        ..Default::default()
                    },
                ));
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_by_position() {
        let c = cols_of("                    operational    applied  description");
        assert_eq!((c.op, c.applied, c.desc), (Some(20), Some(35), Some(44)));
        let raw = "  congestion-mode   ecn, absolute           Congestion config mode";
        assert_eq!(cell(raw, 20, Some(35)).as_deref(), Some("ecn, absolute"));
        assert_eq!(cell(raw, 35, Some(44)), None);
        let c = cols_of("                    operational            applied");
        let raw = "enable                                     on";
        assert_eq!(cell(raw, c.op.unwrap(), c.applied), None);
        assert_eq!(cell(raw, c.applied.unwrap(), c.desc).as_deref(), Some("on"));
    }

    /// The RoCE status states two DSCPs and two switch priorities: the rest of each map is the
    /// platform's, so the maps are assumptions (default), sourced at their first row.
    #[test]
    fn partial_maps_are_defaults() {
        let parsers = crate::parser::load_parsers(None).expect("embedded parsers load");
        let text =
            include_str!("../../../fixtures/cumulus/nv-show-interface-qos-roce-status/swp3.txt");
        let input = crate::snapshot::DeviceInput::one_file(
            "dut",
            "cumulus",
            "devices/dut/swp3.txt",
            "nv show interface swp3 qos roce status",
            Ok(text.into()),
        );
        let (dev, _) = crate::device::build_device(&parsers, &input);
        let i = dev.interface("swp3").expect("swp3");
        let d = i.qos.dscp_to_tc.as_ref().expect("dscp map");
        assert!(d.default);
        assert_eq!((d.value[26], d.value[48], d.value[10]), (3, 6, 1));
        assert_eq!(d.src.as_ref().map(|s| s.line), Some(26));
        let q = i.qos.tc_to_queue.as_ref().expect("tc map");
        assert!(q.default);
        assert_eq!((q.value[3], q.value[6]), (3, 6));
        assert_eq!(q.src.as_ref().map(|s| s.line), Some(34));
    }
}
