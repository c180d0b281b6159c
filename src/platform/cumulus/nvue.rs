//! Reading an NVUE revision (the `- set:` tree of `nv config show` / startup.yaml, or its JSON)
//! into the intent: `qos` (roce, pfc, congestion-control, egress-scheduler, egress-queue-mapping,
//! mapping, remark, traffic-pool, link-pause, pfc-watchdog), interfaces (type, link mtu /
//! speed / state, bond members, bridge membership, QoS profiles, PFC watchdog) and the hostname.
//! Keys NVUE accepts as lists or ranges (`swp1-4`, traffic-class `0,3`) are expanded.

use super::intent::{
    At, Cfg, EcnTc, FlowProf, MapProf, Pool, RemarkProf, Roce, SchedTc, at, bytes, ecn_tc,
    expand_ports, flag, flow_prof, map_prof, numbers, remark_prof, sched_tc, trust_of, unquote,
};
use super::tree::Tree;
use crate::model::Src;
use crate::platform::Output;

pub(super) fn read(t: &Tree, o: &Output, cfg: &mut Cfg) {
    let src = |line: u32| o.src(line);
    // The revision's items; an unwrapped object (REST `?rev=applied`) is the `set` itself.
    let mut sets: Vec<usize> = Vec::new();
    for &r in &t.roots {
        match t.node(r).key.as_ref() {
            "header" => {
                if let Some((v, line)) = t.val(r, "version") {
                    let v = v.strip_prefix("Cumulus Linux ").unwrap_or(v).to_string();
                    cfg.version = at(v, &src(line));
                }
            }
            "set" => sets.push(r),
            _ => {}
        }
    }
    let top_level: Vec<usize> = if sets.is_empty() {
        t.roots.clone()
    } else {
        sets.iter().flat_map(|&s| t.node(s).kids.clone()).collect()
    };
    if cfg.nvue.is_none() {
        cfg.nvue = Some(src(1));
    }
    for id in top_level {
        let n = t.node(id);
        match n.key.as_ref() {
            "system" => {
                if let Some((h, line)) = t.val(id, "hostname") {
                    cfg.hostname = at(h.to_string(), &src(line));
                }
            }
            "interface" => {
                for (iid, _) in t.kids(id) {
                    interface(t, iid, o, cfg);
                }
            }
            "qos" => qos(t, id, o, cfg),
            _ => {}
        }
    }
}

fn interface(t: &Tree, id: usize, o: &Output, cfg: &mut Cfg) {
    let n = t.node(id);
    let isrc = o.src(n.line);
    let names = match expand_ports(&n.key) {
        Ok(names) => names,
        Err(why) => {
            cfg.unread.push((isrc, why));
            return;
        }
    };
    let mut unread: Vec<(crate::model::Src, String)> = Vec::new();
    for name in names {
        let name = super::canonical_ifname(&name);
        let ic = cfg.iface(&name, &isrc, false);
        for (kid, k) in t.kids(id) {
            let ks = o.src(k.line);
            match k.key.as_ref() {
                "type" => {
                    if let Some(v) = &k.val {
                        ic.typ = at(v.to_ascii_lowercase(), &ks);
                    }
                }
                "link" => {
                    for (lid, l) in t.kids(kid) {
                        let ls = o.src(l.line);
                        match (l.key.as_ref(), l.val.as_deref()) {
                            ("mtu", Some(v)) => {
                                if let Ok(m) = v.trim().parse::<u32>() {
                                    ic.mtu = at(m, &ls);
                                }
                            }
                            ("speed", Some(v)) => {
                                ic.speed = at(crate::platform::util::speed_gbps(v), &ls);
                            }
                            ("state", _) => {
                                for (_, s) in t.kids(lid) {
                                    match s.key.as_ref() {
                                        "up" => ic.admin_up = at(true, &o.src(s.line)),
                                        "down" => ic.admin_up = at(false, &o.src(s.line)),
                                        _ => {}
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                }
                "bond" => {
                    if let Some(m) = t.child(kid, "member") {
                        for (_, mem) in t.kids(m) {
                            let xs = expand_ports(&mem.key).unwrap_or_else(|why| {
                                unread.push((o.src(mem.line), why));
                                Vec::new()
                            });
                            for x in xs {
                                let x = super::canonical_ifname(&x);
                                if !ic.members.contains(&x) {
                                    ic.members.push(x);
                                }
                            }
                        }
                    }
                }
                "bridge" => ic.bridged = Some(ks.clone()),
                "qos" => {
                    for (qid, q) in t.kids(kid) {
                        let qs = o.src(q.line);
                        match q.key.as_ref() {
                            "pfc-watchdog" => {
                                // `nv set interface X qos pfc-watchdog` turns it on; `state`
                                // may say otherwise.
                                let on = match t.val(qid, "state") {
                                    Some((v, line)) => flag(v).map(|b| (b, o.src(line))),
                                    None => Some((true, qs.clone())),
                                };
                                if let Some((b, s)) = on {
                                    ic.watchdog = at(b, &s);
                                }
                            }
                            fam => {
                                let Some(family) =
                                    super::intent::FAMILIES.iter().find(|f| **f == fam).copied()
                                else {
                                    continue;
                                };
                                if let Some((p, line)) = t.val(qid, "profile") {
                                    ic.profiles.insert(
                                        family,
                                        At {
                                            v: p.to_string(),
                                            src: o.src(line),
                                        },
                                    );
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }
    for u in unread {
        if !cfg.unread.contains(&u) {
            cfg.unread.push(u);
        }
    }
}

fn qos(t: &Tree, id: usize, o: &Output, cfg: &mut Cfg) {
    for (fid, f) in t.kids(id) {
        let fs = o.src(f.line);
        match f.key.as_ref() {
            "roce" => {
                let enabled = match (t.val(fid, "enable"), t.val(fid, "state")) {
                    (Some((v, line)), _) | (None, Some((v, line))) => flag(v).map(|b| At {
                        v: b,
                        src: o.src(line),
                    }),
                    // `nv set qos roce` alone enables RoCE (lossless) [V RoCE page].
                    (None, None) => Some(At {
                        v: true,
                        src: fs.clone(),
                    }),
                };
                let Some(enabled) = enabled else { continue };
                cfg.roce = Some(Roce {
                    enabled,
                    mode: t
                        .val(fid, "mode")
                        .and_then(|(v, line)| at(v.to_ascii_lowercase(), &o.src(line))),
                    cable_m: t.val(fid, "cable-length").and_then(|(v, line)| {
                        v.parse::<f64>().ok().and_then(|c| at(c, &o.src(line)))
                    }),
                });
            }
            "pfc-watchdog" => {
                if let Some((v, line)) = t.val(fid, "polling-interval")
                    && let Ok(ms) = v.parse::<f64>()
                {
                    cfg.wd_poll_ms = at(ms, &o.src(line));
                }
                if let Some((v, line)) = t.val(fid, "robustness")
                    && let Ok(n) = v.parse::<f64>()
                {
                    cfg.wd_robustness = at(n, &o.src(line));
                }
            }
            "egress-queue-mapping" => {
                // NVUE supports only default-global here.
                for (pid, _) in t.kids(fid) {
                    for (sp, tc, s) in indexed(t, pid, o, "switch-priority", "traffic-class", 7) {
                        if let Ok(tc) = tc.parse::<u8>()
                            && tc < 8
                        {
                            cfg.sp_tc.insert(sp, At { v: tc, src: s });
                        }
                    }
                }
            }
            "pfc" | "link-pause" => {
                for (pid, p) in t.kids(fid) {
                    let prof = flow(t, pid, o, &o.src(p.line));
                    let map = if &*f.key == "pfc" {
                        &mut cfg.pfc
                    } else {
                        &mut cfg.pause
                    };
                    merge_flow(
                        map.entry(p.key.to_string())
                            .or_insert_with(|| flow_prof(&o.src(p.line))),
                        prof,
                    );
                }
            }
            "congestion-control" => {
                for (pid, p) in t.kids(fid) {
                    let prof = cfg.ecn.entry(p.key.to_string()).or_insert_with(|| {
                        super::intent::EcnProf {
                            tcs: Default::default(),
                        }
                    });
                    let Some(tcs) = t.child(pid, "traffic-class") else {
                        continue;
                    };
                    for (xid, x) in t.kids(tcs) {
                        let Some(list) = numbers(&x.key, 7) else {
                            continue;
                        };
                        for tc in list {
                            let e = prof.tcs.entry(tc).or_insert_with(|| ecn_tc(&o.src(x.line)));
                            ecn_fields(t, xid, o, e);
                        }
                    }
                }
            }
            "egress-scheduler" => {
                for (pid, p) in t.kids(fid) {
                    let prof = cfg.sched.entry(p.key.to_string()).or_insert_with(|| {
                        super::intent::SchedProf {
                            tcs: Default::default(),
                        }
                    });
                    let Some(tcs) = t.child(pid, "traffic-class") else {
                        continue;
                    };
                    for (xid, x) in t.kids(tcs) {
                        let Some(list) = numbers(&x.key, 7) else {
                            continue;
                        };
                        for tc in list {
                            let s = prof.tcs.entry(tc).or_insert_with(sched_tc);
                            sched_fields(t, xid, o, s);
                        }
                    }
                }
            }
            "mapping" => {
                for (pid, p) in t.kids(fid) {
                    let prof = cfg
                        .mapping
                        .entry(p.key.to_string())
                        .or_insert_with(|| map_prof(&o.src(p.line)));
                    mapping(t, pid, o, prof);
                }
            }
            "remark" => {
                for (pid, p) in t.kids(fid) {
                    let prof = cfg
                        .remark
                        .entry(p.key.to_string())
                        .or_insert_with(remark_prof);
                    remark(t, pid, o, prof);
                }
            }
            "traffic-pool" => {
                for (pid, p) in t.kids(fid) {
                    let ps = o.src(p.line);
                    let pool = cfg.pools.entry(p.key.to_string()).or_insert_with(|| Pool {
                        memory_pct: None,
                        sps: Vec::new(),
                        src: ps.clone(),
                    });
                    if let Some((v, line)) = t.val(pid, "memory-percent")
                        && let Ok(pct) = v.parse::<f64>()
                    {
                        pool.memory_pct = at(pct, &o.src(line));
                    }
                    if let Some(sps) = t.child(pid, "switch-priority") {
                        for (_, k) in t.kids(sps) {
                            pool.sps.extend(numbers(&k.key, 7).unwrap_or_default());
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// `<index>: {<key>: <value>}` entries of child `index` of profile `pid` (e.g. switch-priority
/// → traffic-class), expanded over list keys: (index, value, line).
fn indexed(
    t: &Tree,
    pid: usize,
    o: &Output,
    index: &str,
    key: &str,
    max: u32,
) -> Vec<(u8, String, Src)> {
    let mut out = Vec::new();
    let Some(ix) = t.child(pid, index) else {
        return out;
    };
    for (xid, x) in t.kids(ix) {
        let Some((v, line)) = t.val(xid, key) else {
            continue;
        };
        for n in numbers(&x.key, max).unwrap_or_default() {
            out.push((n, unquote(v).to_string(), o.src(line)));
        }
    }
    out
}

fn flow(t: &Tree, pid: usize, o: &Output, psrc: &Src) -> FlowProf {
    let mut f = flow_prof(psrc);
    for (kid, k) in t.kids(pid) {
        let s = o.src(k.line);
        let v = k.val.as_deref().unwrap_or("");
        match k.key.as_ref() {
            "rx" => f.rx = flag(v).and_then(|b| at(b, &s)),
            "tx" => f.tx = flag(v).and_then(|b| at(b, &s)),
            "cable-length" => f.cable_m = v.parse::<f64>().ok().and_then(|c| at(c, &s)),
            "port-buffer" => f.port_buffer = bytes(v).and_then(|b| at(b, &s)),
            "xoff-threshold" => f.xoff = bytes(v).and_then(|b| at(b, &s)),
            "xon-threshold" => f.xon_delta = bytes(v).and_then(|b| at(b, &s)),
            "switch-priority" => {
                for (_, p) in t.kids(kid) {
                    for n in numbers(&p.key, 7).unwrap_or_default() {
                        f.prios.push(At {
                            v: n,
                            src: o.src(p.line),
                        });
                    }
                }
            }
            _ => {}
        }
    }
    f
}

/// Fields of `new` replace those of `base` (a profile written in two places).
fn merge_flow(base: &mut FlowProf, new: FlowProf) {
    if !new.prios.is_empty() {
        base.prios = new.prios;
    }
    for (b, n) in [(&mut base.rx, new.rx), (&mut base.tx, new.tx)] {
        if n.is_some() {
            *b = n;
        }
    }
    if new.cable_m.is_some() {
        base.cable_m = new.cable_m;
    }
    for (b, n) in [
        (&mut base.port_buffer, new.port_buffer),
        (&mut base.xoff, new.xoff),
        (&mut base.xon_delta, new.xon_delta),
    ] {
        if n.is_some() {
            *b = n;
        }
    }
}

fn ecn_fields(t: &Tree, xid: usize, o: &Output, e: &mut EcnTc) {
    for (_, k) in t.kids(xid) {
        let s = o.src(k.line);
        let v = k.val.as_deref().unwrap_or("");
        match k.key.as_ref() {
            "ecn" => e.ecn = flag(v).and_then(|b| at(b, &s)),
            "red" => e.red = flag(v).and_then(|b| at(b, &s)),
            "min-threshold" | "min-threshold-bytes" => e.min = bytes(v).and_then(|b| at(b, &s)),
            "max-threshold" | "max-threshold-bytes" => e.max = bytes(v).and_then(|b| at(b, &s)),
            "probability" => e.prob = v.parse::<f64>().ok().and_then(|p| at(p, &s)),
            _ => {}
        }
    }
}

fn sched_fields(t: &Tree, xid: usize, o: &Output, s: &mut SchedTc) {
    for (_, k) in t.kids(xid) {
        let ks = o.src(k.line);
        let v = k.val.as_deref().unwrap_or("");
        match k.key.as_ref() {
            "mode" => match v.to_ascii_lowercase().as_str() {
                "strict" => s.strict = at(true, &ks),
                "dwrr" => s.strict = at(false, &ks),
                _ => {}
            },
            "bw-percent" => s.bw_pct = v.parse::<f64>().ok().and_then(|b| at(b, &ks)),
            _ => {}
        }
    }
}

fn mapping(t: &Tree, pid: usize, o: &Output, m: &mut MapProf) {
    if let Some((v, line)) = t.val(pid, "trust")
        && let Some(tr) = trust_of(v)
    {
        m.trust = at(tr.to_string(), &o.src(line));
    }
    if let Some((v, line)) = t.val(pid, "port-default-sp")
        && let Ok(sp) = v.parse::<u8>()
        && sp < 8
    {
        m.port_default = at(sp, &o.src(line));
    }
    for (key, max) in [("dscp", 63), ("pcp", 7)] {
        let Some(ds) = t.child(pid, key) else {
            continue;
        };
        for (xid, x) in t.kids(ds) {
            let (Some(list), Some((v, line))) =
                (numbers(&x.key, max), t.val(xid, "switch-priority"))
            else {
                continue;
            };
            if let Ok(sp) = v.parse::<u8>()
                && sp < 8
            {
                let e = (
                    list,
                    At {
                        v: sp,
                        src: o.src(line),
                    },
                );
                if key == "dscp" {
                    m.dscp.push(e);
                } else {
                    m.pcp.push(e);
                }
            }
        }
    }
}

fn remark(t: &Tree, pid: usize, o: &Output, r: &mut RemarkProf) {
    if let Some((v, line)) = t.val(pid, "rewrite") {
        let on = matches!(v.to_ascii_lowercase().as_str(), "l3" | "both" | "dscp");
        r.rewrite_dscp = at(on, &o.src(line));
    }
    for (sp, dscp, s) in indexed(t, pid, o, "switch-priority", "dscp", 7) {
        if let Ok(d) = dscp.parse::<u8>()
            && d < 64
        {
            r.sp_dscp.insert(sp, At { v: d, src: s });
        }
    }
}
