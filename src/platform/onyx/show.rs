//! Operational Onyx outputs. `show roce` prints the RoCE profile (not the ports): its facts only
//! fill what the config left to defaults. The per-port outputs (`show dcb priority-flow-control`,
//! `show interfaces ethernet`, the `| json-print` forms) report the device's state and win.
//! `show lldp interfaces ethernet remote` names each port's LLDP neighbor.

use super::{canonical_ifname, kind_of, set, size_bytes};
use crate::model::{Device, Field, Interface, LldpNeighbor, Src, known};
use crate::parser::json::{Member, Node};
use crate::platform::util::fill;
use crate::platform::{Output, util};

/// The interfaces QoS facts apply to (physical ports and port-channels).
fn qos_ports(dev: &mut Device) -> impl Iterator<Item = &mut Interface> {
    dev.interfaces
        .iter_mut()
        .filter(|i| matches!(&*i.kind, "ethernet" | "port-channel"))
}

fn iface<'d>(dev: &'d mut Device, raw: &str) -> &'d mut Interface {
    let name = canonical_ifname(raw);
    let kind = kind_of(&name);
    dev.iface(&name, kind)
}

fn trust_word(t: &str) -> Option<&'static str> {
    match t.trim().to_ascii_uppercase().as_str() {
        "L3" | "DSCP" => Some("dscp"),
        "L2" | "PCP" => Some("pcp"),
        "BOTH" => Some("both"),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// show roce
// ---------------------------------------------------------------------------------------------

struct RoceTc {
    sp: u8,
    tc: u8,
    app: String,
    /// `None` = strict, `Some(pct)` = WRR share
    wrr: Option<f64>,
    src: Src,
}

struct RocePool {
    lossless: bool,
    name: String,
    sps: Vec<u8>,
    mem: Option<u64>,
    src: Src,
}

fn sp_list(s: &str) -> Vec<u8> {
    s.split([',', ' '])
        .filter_map(|x| x.trim().parse::<u8>().ok())
        .filter(|v| *v < 8)
        .collect()
}

pub(super) fn show_roce(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    let mut mode: Option<String> = None;
    let mut trust: Option<(&'static str, Src)> = None;
    let mut cc_ecn: Option<(bool, Src)> = None;
    let mut cc_absolute = true;
    let mut cc_min: Option<(u64, Src)> = None;
    let mut cc_max: Option<(u64, Src)> = None;
    let mut pfc: Option<(bool, Src)> = None;
    let mut prios: Vec<(u8, bool, Src)> = Vec::new();
    let mut tcs: Vec<RoceTc> = Vec::new();
    let mut pools: Vec<RocePool> = Vec::new();
    for r in &p.records {
        let src = o.src(r.line);
        let get = |n: &str| p.get(r, n).unwrap_or("");
        match p.kind(r) {
            "mode" => mode = Some(get("mode").to_ascii_lowercase()),
            "trust" => trust = trust_word(get("trust")).map(|t| (t, src)),
            "cc_mode" => {
                cc_ecn = Some((get("mode").contains("ecn"), src));
                cc_absolute = p.get(r, "kind") != Some("relative");
            }
            "cc_min" | "cc_max" => {
                // `Min (KB): 150`; the 3.8 manual prints `Min : 150`, also KB [V RoCE Commands].
                let unit = p.get(r, "unit").unwrap_or("KB");
                let bytes = p
                    .num::<f64>(r, "v")
                    .filter(|_| cc_absolute)
                    .and_then(|v| util::to_bytes(v, unit));
                if let Some(b) = bytes {
                    if p.kind(r) == "cc_min" {
                        cc_min = Some((b, src));
                    } else {
                        cc_max = Some((b, src));
                    }
                }
            }
            "pfc" => pfc = Some((get("state") == "enabled", src)),
            "pfc_prio" => {
                if let Some(v) = p.num::<u8>(r, "prio") {
                    prios.push((v, get("state") == "enabled", src));
                }
            }
            "tc" => {
                if let (Some(sp), Some(tc)) = (p.num::<u8>(r, "sp"), p.num::<u8>(r, "tc")) {
                    tcs.push(RoceTc {
                        sp,
                        tc,
                        app: get("app").to_string(),
                        wrr: p.num::<f64>(r, "pct"),
                        src,
                    });
                }
            }
            "pool" => pools.push(RocePool {
                lossless: get("type") == "lossless",
                name: get("name").to_string(),
                sps: sp_list(get("sps")),
                mem: size_bytes(get("mem")),
                src,
            }),
            "pool_more" => {
                if let Some(last) = pools.last_mut() {
                    last.sps.extend(sp_list(get("sps")));
                }
            }
            _ => {}
        }
    }

    // Buffer: the lossless pools' actual memory.
    let lossless: Vec<&RocePool> = pools.iter().filter(|p| p.lossless).collect();
    if let Some(first) = lossless.first()
        && lossless.iter().all(|p| p.mem.is_some())
    {
        let total: u64 = lossless.iter().filter_map(|p| p.mem).sum();
        set(&mut dev.qos.lossless_pool_bytes, known(total, &first.src));
    }

    // The profile only applies when RoCE mode is on (`RoCE mode: N/A` otherwise).
    let Some(mode) = mode.filter(|m| matches!(m.as_str(), "lossless" | "lossy" | "semi-lossless"))
    else {
        return;
    };
    let roce_tc = tcs
        .iter()
        .find(|t| t.app.eq_ignore_ascii_case("roce"))
        .map(|t| t.tc)
        .unwrap_or(3);
    let enabled: Vec<u8> = prios.iter().filter(|p| p.1).map(|p| p.0).collect();
    for i in qos_ports(dev) {
        if let Some((t, s)) = &trust {
            fill(&mut i.qos.trust, known(t.to_string(), s));
        }
        if let Some((ecn, s)) = &cc_ecn
            && let Some(q) = i.queues.get_mut(roce_tc as usize)
        {
            fill(&mut q.ecn.enabled, known(*ecn, s));
            if *ecn {
                if let Some((b, s)) = &cc_min {
                    fill(&mut q.ecn.min_bytes, known(*b, s));
                }
                if let Some((b, s)) = &cc_max {
                    fill(&mut q.ecn.max_bytes, known(*b, s));
                }
            }
        }
        if let Some((on, s)) = &pfc {
            let active: Vec<u8> = if *on { enabled.clone() } else { Vec::new() };
            let src = prios.first().map(|p| &p.2).unwrap_or(s);
            let any = !active.is_empty();
            fill(&mut i.pfc.priorities, known(active, src));
            fill(&mut i.pfc.rx, known(any, src));
            fill(&mut i.pfc.tx, known(any && mode != "semi-lossless", src));
        }
        for t in &tcs {
            let Some(q) = i.queues.get_mut(t.tc as usize) else {
                continue;
            };
            match t.wrr {
                Some(pct) => {
                    fill(&mut q.scheduler, known("dwrr".to_string(), &t.src));
                    fill(&mut q.weight_pct, known(pct, &t.src));
                }
                None => fill(&mut q.scheduler, known("strict".to_string(), &t.src)),
            }
        }
        for pool in &pools {
            for sp in &pool.sps {
                let t = tcs
                    .iter()
                    .find(|x| x.sp == *sp)
                    .map(|x| x.tc)
                    .unwrap_or(*sp);
                if let Some(pg) = i.pgs.get_mut(t as usize)
                    && tcs.iter().any(|x| x.sp == *sp)
                {
                    fill(&mut pg.lossless, known(pool.lossless, &pool.src));
                    fill(&mut pg.pool, known(pool.name.clone(), &pool.src));
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// show dcb priority-flow-control (text and JSON)
// ---------------------------------------------------------------------------------------------

/// One port row: admin mode and whether PFC is operational.
fn pfc_row(i: &mut Interface, admin: &str, oper_enabled: bool, enabled: Option<&[u8]>, src: &Src) {
    let mode = admin.trim().to_ascii_lowercase();
    if matches!(mode.as_str(), "on" | "auto" | "off") {
        set(&mut i.pfc.mode, known(mode, src));
    }
    if !oper_enabled {
        set(&mut i.pfc.priorities, known(Vec::new(), src));
        set(&mut i.pfc.rx, known(false, src));
        set(&mut i.pfc.tx, known(false, src));
        return;
    }
    // Operational: the globally enabled priorities, when the output lists them; otherwise
    // what the config said stays.
    if let Some(list) = enabled {
        set(&mut i.pfc.priorities, known(list.to_vec(), src));
    }
    let any = i.pfc.priorities.as_ref().map(|p| !p.value.is_empty());
    if let Some(any) = any {
        fill(&mut i.pfc.rx, known(any, src));
        fill(&mut i.pfc.tx, known(any, src));
    }
}

pub(super) fn dcb_pfc(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    let mut global = true;
    let mut enabled: Option<Vec<u8>> = None;
    for r in &p.records {
        let src = o.src(r.line);
        let get = |n: &str| p.get(r, n).unwrap_or("");
        match p.kind(r) {
            "global" => global = get("state") == "enabled",
            "enabled" => enabled = Some(sp_list(get("list"))),
            "port" => {
                let oper = get("oper").eq_ignore_ascii_case("enabled") && global;
                let list = if global {
                    enabled.clone()
                } else {
                    Some(Vec::new())
                };
                let i = iface(dev, get("name"));
                pfc_row(i, get("admin"), oper, list.as_deref(), &src);
            }
            _ => {}
        }
    }
}

/// The members of a `| json-print` document that is one object, or a list of objects.
fn tables(v: &Node) -> Vec<&[Member]> {
    match v.as_array() {
        Some(a) => a.iter().filter_map(Node::as_object).collect(),
        None => v.as_object().into_iter().collect(),
    }
}

pub(super) fn dcb_pfc_json(dev: &mut Device, o: &Output) {
    let Some(v) = &o.parsed.json else {
        return;
    };
    // Older releases: {"Eth1/1": [{"PFC admin": .., "PFC oper": ..}], ...}; newer ones wrap the
    // global part and the port table in a list.
    let tables = tables(v);
    let mut enabled: Option<Vec<u8>> = None;
    for m in tables.iter().copied().flatten() {
        if m.key.contains("Enabled List") {
            enabled = m.value.as_str().map(sp_list);
        }
    }
    for m in tables.iter().copied().flatten() {
        let name = canonical_ifname(&m.key);
        if !matches!(kind_of(&name), "ethernet" | "port-channel") {
            continue;
        }
        let val = &m.value;
        let row = val.as_array().and_then(<[Node]>::first).unwrap_or(val);
        let admin = row.get("PFC admin").and_then(Node::as_str).unwrap_or("");
        let oper = row.get("PFC oper").and_then(Node::as_str).unwrap_or("");
        let i = dev.iface(&name, kind_of(&name));
        // the port's row, cited at the port's name
        pfc_row(
            i,
            admin,
            oper.eq_ignore_ascii_case("enabled"),
            enabled.as_deref(),
            &o.src(m.line),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// show interfaces ethernet (text and JSON)
// ---------------------------------------------------------------------------------------------

fn speed_of(s: &str) -> Option<f64> {
    let t = s.trim();
    if t.is_empty() || t.starts_with(|c: char| !c.is_ascii_digit()) {
        return None;
    }
    util::speed_gbps(t)
}

/// `receive on send off` → (rx, tx).
fn flow_control(s: &str) -> Option<(bool, bool)> {
    let w: Vec<&str> = s.split_whitespace().collect();
    match w.as_slice() {
        ["receive", rx, "send", tx] => Some((*rx == "on", *tx == "on")),
        _ => None,
    }
}

pub(super) fn interfaces_ethernet(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    let mut cur: Option<String> = None;
    for r in &p.records {
        let src = o.src(r.line);
        let get = |n: &str| p.get(r, n).unwrap_or("");
        if p.kind(r) == "iface" {
            let name = canonical_ifname(get("name"));
            dev.iface(&name, kind_of(&name));
            cur = Some(name);
            continue;
        }
        let Some(i) = cur.as_deref().and_then(|n| dev.interface_mut(n)) else {
            continue;
        };
        match p.kind(r) {
            "admin" => set(&mut i.admin_up, known(get("v") == "Enabled", &src)),
            "oper" => set(&mut i.oper_up, known(get("v") == "Up", &src)),
            "mtu" => {
                if let Some(m) = p.num::<u32>(r, "mtu") {
                    set(&mut i.mtu, known(m, &src));
                    set(&mut i.mtu_raw, known(m, &src));
                }
            }
            "speed" => {
                if let Some(g) = speed_of(get("speed")) {
                    set(&mut i.speed_gbps, known(g, &src));
                }
            }
            "flowcontrol" if i.kind == "ethernet" => {
                set(&mut i.link_pause.rx, known(get("rx") == "on", &src));
                set(&mut i.link_pause.tx, known(get("tx") == "on", &src));
            }
            "switchport" => {
                if matches!(get("mode"), "access" | "trunk" | "hybrid") {
                    set(&mut i.switchport, known(true, &src));
                }
            }
            "hw_addr" => {
                if let Some(m) = crate::text::mac(get("mac")) {
                    i.mac = known(m, &src);
                }
            }
            _ => {}
        }
    }
}

/// `show interfaces ethernet | json-print`: each value cites its own line.
pub(super) fn interfaces_ethernet_json(dev: &mut Device, o: &Output) {
    let Some(items) = o.parsed.json.as_ref().and_then(Node::as_array) else {
        return;
    };
    for it in items {
        let Some(name) = it.get("header").and_then(Node::as_str) else {
            continue;
        };
        let field = |k: &str| it.get(k).and_then(|n| Some((n.as_str()?, o.src(n.line))));
        let i = iface(dev, name);
        if let Some((a, src)) = field("Admin state") {
            set(&mut i.admin_up, known(a == "Enabled", &src));
        }
        if let Some((s, src)) = field("Operational state") {
            set(&mut i.oper_up, known(s.starts_with("Up"), &src));
        }
        // "1500 bytes(Maximum packet size 1522 bytes)"
        if let Some((m, src)) = field("MTU")
            && let Some(m) = m.split_whitespace().next().and_then(|m| m.parse().ok())
        {
            set(&mut i.mtu, known(m, &src));
            set(&mut i.mtu_raw, known(m, &src));
        }
        if let Some((s, src)) = field("Actual speed")
            && let Some(g) = speed_of(s)
        {
            set(&mut i.speed_gbps, known(g, &src));
        }
        if let Some((f, src)) = field("Flow-control")
            && let Some((rx, tx)) = flow_control(f)
            && i.kind == "ethernet"
        {
            set(&mut i.link_pause.rx, known(rx, &src));
            set(&mut i.link_pause.tx, known(tx, &src));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// show interfaces ethernet X congestion-control | json-print

/// One traffic class of it: (tc, ECN marking on, RED drop on, minimum and maximum threshold).
type CcRow = (usize, Field<bool>, Field<bool>, Field<u64>, Field<u64>);
// ---------------------------------------------------------------------------------------------

pub(super) fn congestion_control_json(dev: &mut Device, o: &Output) {
    let Some(items) = o.parsed.json.as_ref().and_then(Node::as_array) else {
        return;
    };
    // The port: {"Interface ethernet": "1/1", ...}; else the command's argument.
    let port = items
        .iter()
        .find_map(|it| it.get("Interface ethernet").and_then(Node::as_str))
        .map(|id| format!("Eth{id}"))
        .or_else(|| {
            o.args
                .get("if")
                .map(|a| canonical_ifname(&format!("ethernet {a}")))
        });
    let Some(port) = port else {
        return;
    };
    let mut rows: Vec<CcRow> = Vec::new();
    for it in items {
        let Some(header) = it.get("header") else {
            continue;
        };
        let Some(tc) = header
            .as_str()
            .and_then(|h| h.strip_prefix("TC-"))
            .and_then(|t| t.parse::<usize>().ok())
            .filter(|t| *t < 8)
        else {
            continue;
        };
        // ECN and RED cite the `Mode` line, each threshold its own (the TC's line without them)
        let mode_node = it.get("Mode");
        let mode_src = o.src(mode_node.map_or(header.line, |m| m.line));
        let mode = mode_node
            .and_then(Node::as_str)
            .unwrap_or("")
            .to_ascii_lowercase();
        let ecn = mode.contains("ecn");
        let red = mode.contains("red");
        let absolute = it.get("Threshold mode").and_then(Node::as_str) == Some("absolute");
        let th = |k: &str| -> Field<u64> {
            let n = it.get(k)?;
            let b = size_bytes(n.as_str()?).filter(|_| absolute && ecn)?;
            known(b, &o.src(n.line))
        };
        rows.push((
            tc,
            known(ecn, &mode_src),
            known(red, &mode_src),
            th("Minimum threshold"),
            th("Maximum threshold"),
        ));
    }
    let i = dev.iface(&port, kind_of(&port));
    for (tc, ecn, red, min, max) in rows {
        let Some(q) = i.queues.get_mut(tc) else {
            continue;
        };
        set(&mut q.ecn.enabled, ecn);
        set(&mut q.wred_drop, red);
        set(&mut q.ecn.min_bytes, min);
        set(&mut q.ecn.max_bytes, max);
    }
}

// ---------------------------------------------------------------------------------------------
// show qos interface ethernet X | json-print
// ---------------------------------------------------------------------------------------------

pub(super) fn qos_interface_json(dev: &mut Device, o: &Output) {
    let Some(v) = &o.parsed.json else {
        return;
    };
    for port in tables(v).into_iter().flatten() {
        let cname = canonical_ifname(&port.key);
        if !matches!(kind_of(&cname), "ethernet" | "port-channel") {
            continue;
        }
        let Some(parts) = port.value.as_array() else {
            continue;
        };
        // the maps come from two tables: cited at the port's name; trust and the rewrite
        // switch at their own lines
        let src = o.src(port.line);
        let mut trust: Option<(&'static str, Src)> = None;
        let mut rewrite_dscp: Option<(bool, Src)> = None;
        let mut dscp_sp: [Option<u8>; 64] = [None; 64];
        let mut sp_tc: [Option<u8>; 8] = [None; 8];
        let mut sp_dscp: [Option<u8>; 8] = [None; 8];
        for part in parts.iter().filter_map(Node::as_object) {
            for Member {
                key: k,
                line,
                value: val,
            } in part
            {
                if k == "Trust mode" {
                    trust = val.as_str().and_then(trust_word).map(|t| (t, o.src(*line)));
                } else if k == "DSCP rewrite" {
                    rewrite_dscp = val
                        .as_str()
                        .map(|s| (s.starts_with("enable"), o.src(*line)));
                } else if k.contains("to switch-priority mapping") {
                    // [{"2(0) 2(1)": [{"switch-priority": "2", "DSCP": "16 17 ..."}], ...}]
                    for group in val.as_array().into_iter().flatten() {
                        for entries in group.as_object().into_iter().flatten() {
                            for e in entries.value.as_array().into_iter().flatten() {
                                let sp = e
                                    .get("switch-priority")
                                    .and_then(Node::as_str)
                                    .and_then(|s| s.trim().parse::<u8>().ok())
                                    .filter(|s| *s < 8);
                                let dscps = e.get("DSCP").and_then(Node::as_str).unwrap_or("");
                                for d in dscps
                                    .split_whitespace()
                                    .filter_map(|d| d.parse::<usize>().ok())
                                {
                                    if let (Some(sp), Some(slot)) = (sp, dscp_sp.get_mut(d)) {
                                        *slot = Some(sp);
                                    }
                                }
                            }
                        }
                    }
                } else if k.contains("rewrite mapping") {
                    // [{"Egress Interface": ..}, {"3": [{"PCP(DEI)": "3(0)", "TC": "3", "DSCP": "24"}], ...}]
                    for group in val.as_array().into_iter().flatten() {
                        for entries in group.as_object().into_iter().flatten() {
                            let Some(sp) =
                                entries.key.trim().parse::<usize>().ok().filter(|s| *s < 8)
                            else {
                                continue;
                            };
                            let e = entries.value.as_array().and_then(<[Node]>::first);
                            let num = |f: &str| {
                                e.and_then(|e| e.get(f))
                                    .and_then(Node::as_str)
                                    .and_then(|s| s.trim().parse::<u8>().ok())
                            };
                            sp_tc[sp] = num("TC").filter(|t| *t < 8);
                            sp_dscp[sp] = num("DSCP").filter(|d| *d < 64);
                        }
                    }
                }
            }
        }
        let i = dev.iface(&cname, kind_of(&cname));
        if let Some((t, tsrc)) = trust {
            set(&mut i.qos.trust, known(t.to_string(), &tsrc));
        }
        let full_sp: Option<Vec<u8>> = dscp_sp.iter().copied().collect();
        let full_tc: Option<Vec<u8>> = sp_tc.iter().copied().collect();
        if let (Some(dsp), Some(stc)) = (&full_sp, &full_tc) {
            let map: Vec<u8> = dsp.iter().map(|sp| stc[*sp as usize]).collect();
            set(&mut i.qos.dscp_to_tc, known(map, &src));
            let tc_sp: Vec<u8> = (0..8u8)
                .map(|t| (0..8u8).find(|sp| stc[*sp as usize] == t).unwrap_or(t))
                .collect();
            set(&mut i.qos.tc_to_pfc_priority, known(tc_sp, &src));
            // PCP n is switch priority n (see apply), so PCP → TC is this output's SP → TC.
            set(&mut i.qos.pcp_to_tc, known(stc.clone(), &src));
            // The output's table decides: the maps follow the vectors, cited at this output.
            i.maps.dscp_to_tc = Default::default();
            i.maps.pcp_to_tc = Default::default();
        }
        match rewrite_dscp {
            Some((false, rsrc)) => set(&mut i.qos.dscp_rewrites, known(Vec::new(), &rsrc)),
            Some((true, _)) => {
                // A packet leaves with the DSCP of its switch priority's rewrite entry.
                if let (Some(dsp), Some(rw)) = (
                    &full_sp,
                    sp_dscp.iter().copied().collect::<Option<Vec<u8>>>(),
                ) {
                    let changed: Vec<u8> = (0..64u8)
                        .filter(|d| rw[dsp[*d as usize] as usize] != *d)
                        .collect();
                    set(&mut i.qos.dscp_rewrites, known(changed, &src));
                }
            }
            None => {}
        }
    }
}

// ---------------------------------------------------------------------------------------------
// show traffic pool | json-print
// ---------------------------------------------------------------------------------------------

pub(super) fn traffic_pool_json(dev: &mut Device, o: &Output) {
    let Some(m) = o.parsed.json.as_ref().and_then(Node::as_object) else {
        return;
    };
    let mut total: Option<u64> = None;
    let mut first_src: Option<Src> = None;
    let mut lossless_sps: Vec<(u8, String, Src)> = Vec::new();
    for Member {
        key: name,
        line,
        value: v,
    } in m
    {
        let Some(pool) = v.as_array().and_then(<[Node]>::first) else {
            continue;
        };
        let Some(ty) = pool.get("Type").and_then(Node::as_str) else {
            continue;
        };
        if ty != "lossless" {
            continue;
        }
        // a pool cites the line of its name
        let src = o.src(*line);
        let mem = pool
            .get("Memory actual")
            .and_then(Node::as_str)
            .and_then(size_bytes);
        total = match (total, mem) {
            (t, Some(b)) => Some(t.unwrap_or(0) + b),
            (t, None) => t,
        };
        first_src.get_or_insert(src.clone());
        let sps = pool
            .get("Switch Priorities")
            .and_then(Node::as_str)
            .map(sp_list)
            .unwrap_or_default();
        lossless_sps.extend(sps.into_iter().map(|s| (s, name.clone(), src.clone())));
    }
    if let (Some(t), Some(s)) = (total, &first_src) {
        set(&mut dev.qos.lossless_pool_bytes, known(t, s));
    }
    for i in qos_ports(dev) {
        let tc_sp: Vec<u8> = i
            .qos
            .tc_to_pfc_priority
            .as_ref()
            .map(|f| f.value.clone())
            .unwrap_or_else(util::identity8);
        for pg in i.pgs.iter_mut() {
            let sp = tc_sp.get(pg.id as usize).copied().unwrap_or(pg.id);
            if let Some((_, name, src)) = lossless_sps.iter().find(|(s, _, _)| *s == sp) {
                set(&mut pg.lossless, known(true, src));
                set(&mut pg.pool, known(name.clone(), src));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_readers() {
        assert_eq!(sp_list("0, 1, 2, 4,"), vec![0, 1, 2, 4]);
        assert_eq!(sp_list("3"), vec![3]);
        assert_eq!(flow_control("receive on send off"), Some((true, false)));
        assert_eq!(speed_of("100 Gbps"), Some(100.0));
        assert_eq!(speed_of("100G"), Some(100.0));
        assert_eq!(speed_of("Unknown"), None);
        assert_eq!(trust_word("L3"), Some("dscp"));
    }
}

/// An LLDP value that says nothing: Onyx prints `Not Advertised` for an absent TLV.
fn advertised(v: &str) -> Option<&str> {
    let v = v.trim().trim_matches('"').trim();
    let none = v.is_empty()
        || v.eq_ignore_ascii_case("not advertised")
        || matches!(v, "N/A" | "N\\A" | "-");
    (!none).then_some(v)
}

/// One remote of a port block of `show lldp interfaces ethernet remote`, as it is read.
#[derive(Default)]
struct Remote {
    local: Option<String>,
    chassis: Option<String>,
    port: Option<String>,
    name: Option<String>,
    line: u32,
}

impl Remote {
    /// Record the remote on its port: the system name, else the chassis id, is the device;
    /// the first remote of a port is kept (one neighbor per port in the model).
    fn flush(&mut self, dev: &mut Device, o: &Output) {
        let r = std::mem::take(self);
        let (Some(local), Some(port)) = (r.local.clone(), r.port) else {
            self.local = r.local;
            return;
        };
        self.local = Some(local.clone());
        let Some(device) = r.name.or(r.chassis) else {
            return;
        };
        let i = iface(dev, &local);
        if i.lldp_neighbor.is_none() {
            i.lldp_neighbor = Some(Box::new(LldpNeighbor {
                device,
                port,
                src: Some(o.src(r.line)),
                ..Default::default()
            }));
        }
    }
}

/// `show lldp interfaces ethernet remote`: port blocks (`Eth1/1:`), each with one or more
/// remotes (`Remote Index : n`) giving the chassis id, port id and system name.
pub(super) fn lldp_remote(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    let mut cur = Remote::default();
    for r in &p.records {
        match p.kind(r) {
            "port" => {
                cur.flush(dev, o);
                cur.local = p.get(r, "name").map(canonical_ifname);
            }
            "index" => cur.flush(dev, o),
            "chassis" => cur.chassis = p.get(r, "id").and_then(advertised).map(String::from),
            "port_id" => {
                cur.port = p.get(r, "port").and_then(advertised).map(String::from);
                cur.line = r.line;
            }
            "sys_name" => cur.name = p.get(r, "name").and_then(advertised).map(String::from),
            _ => {}
        }
    }
    cur.flush(dev, o);
}
