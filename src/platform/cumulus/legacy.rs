//! Cumulus Linux 3.x/4.x configuration: /etc/cumulus/datapath/traffic.conf (classification,
//! remarking, priority-group scheduling, and per-feature port groups for PFC, link pause,
//! ECN/RED, egress scheduling and the PFC watchdog) and NCLU `net show configuration commands`
//! (interfaces, MTU, speed, bonds, bridge ports). Both fill the same intent as NVUE; a port
//! group becomes a profile named after the group, assigned to the ports of its `port_set`
//! (`allports` makes it the default-global profile).

use super::intent::{
    At, Cfg, EcnProf, SchedProf, at, bytes, ecn_tc, expand_ports, flag, flow_prof, map_prof,
    numbers, remark_prof, sched_tc, trust_of, unquote,
};
use crate::model::Src;
use crate::platform::Output;
use std::collections::BTreeMap;

/// A Cumulus 2.x/early 3.x `traffic.cos_N.packet_priorities[.field] = [..]` line: internal cos,
/// the field it names if any, the value list, where.
type Cos2x = (u8, Option<&'static str>, String, Src);

/// `<feature>.<group>.<field> = value` lines of one group, in file order.
type GroupLines = Vec<(String, String, Src)>;

pub(super) fn traffic_conf(o: &Output, oi: usize, cfg: &mut Cfg) {
    let p = &o.parsed;
    cfg.legacy.get_or_insert_with(|| o.src(1));
    let mut lists: BTreeMap<String, (Vec<String>, Src)> = BTreeMap::new();
    let mut groups: BTreeMap<(String, String), GroupLines> = BTreeMap::new();
    let mut pg_cos: BTreeMap<String, (Vec<u8>, Src)> = BTreeMap::new();
    let mut pg_weight: BTreeMap<String, (f64, Src)> = BTreeMap::new();
    let mut ecn_default: GroupLines = Vec::new();
    // Cumulus Linux 2.x: `traffic.packet_priority_source` names the field the
    // `traffic.cos_N.packet_priorities` lists hold (resolved once the file is read).
    let mut source_2x: Option<&'static str> = None;
    let mut cos_2x: Vec<Cos2x> = Vec::new();
    for r in &p.records {
        let src = o.src(r.line);
        let get = |n: &str| p.get(r, n).unwrap_or("").trim();
        match p.kind(r) {
            "source_set" => {
                let m = cfg
                    .mapping
                    .entry("default-global".into())
                    .or_insert_with(|| map_prof(&src));
                m.trust = trust_of(get("list")).and_then(|t| at(t.to_string(), &src));
            }
            "source_single" => {
                let m = cfg
                    .mapping
                    .entry("default-global".into())
                    .or_insert_with(|| map_prof(&src));
                source_2x = trust_of(get("v"));
                m.trust = source_2x.and_then(|t| at(t.to_string(), &src));
            }
            "cos_prio" => {
                if let Ok(cos) = get("cos").parse::<u8>() {
                    let field = match get("field") {
                        "8021p" => Some("pcp"),
                        "dscp" => Some("dscp"),
                        _ => None,
                    };
                    cos_2x.push((cos, field, get("list").to_string(), src));
                }
            }
            "port_default" => {
                let m = cfg
                    .mapping
                    .entry("default-global".into())
                    .or_insert_with(|| map_prof(&src));
                if let Ok(v) = get("v").parse::<u8>()
                    && v < 8
                {
                    m.port_default = at(v, &src);
                }
            }
            "cos_source" => {
                let pcp = get("field") == "8021p";
                let max = if pcp { 7 } else { 63 };
                let (Ok(cos), Some(list)) = (get("cos").parse::<u8>(), numbers(get("list"), max))
                else {
                    continue;
                };
                let m = cfg
                    .mapping
                    .entry("default-global".into())
                    .or_insert_with(|| map_prof(&src));
                if pcp {
                    m.pcp_complete = true;
                    m.pcp.push((list, At { v: cos, src }));
                } else {
                    m.complete = true;
                    m.dscp.push((list, At { v: cos, src }));
                }
            }
            "remark_set" => {
                let on = get("list").to_ascii_lowercase().contains("dscp");
                let rp = cfg
                    .remark
                    .entry("default-global".into())
                    .or_insert_with(remark_prof);
                rp.rewrite_dscp = at(on, &src);
            }
            "cos_remark" if get("field") == "dscp" => {
                let (Ok(cos), Some(list)) = (get("cos").parse::<u8>(), numbers(get("list"), 63))
                else {
                    continue;
                };
                let rp = cfg
                    .remark
                    .entry("default-global".into())
                    .or_insert_with(remark_prof);
                if let Some(d) = list.first() {
                    rp.sp_dscp.insert(cos, At { v: *d, src });
                }
            }
            "pg" => {
                let g = get("g").to_string();
                match get("field") {
                    "cos_list" => {
                        if let Some(l) = numbers(get("v"), 7) {
                            pg_cos.insert(g, (l, src));
                        }
                    }
                    "weight" => {
                        if let Ok(w) = get("v").parse::<f64>() {
                            pg_weight.insert(g, (w, src));
                        }
                    }
                    _ => {}
                }
            }
            "group_list" => {
                let names: Vec<String> = get("list")
                    .split(',')
                    .map(|s| unquote(s).to_string())
                    .filter(|s| !s.is_empty())
                    .collect();
                lists.insert(get("feat").to_string(), (names, src));
            }
            "group_kv" => {
                groups
                    .entry((get("feat").to_string(), get("g").to_string()))
                    .or_default()
                    .push((get("field").to_string(), get("v").to_string(), src));
            }
            "ecn_default" => {
                ecn_default.push((get("field").to_string(), get("v").to_string(), src));
            }
            "sched_default" => {
                let (Ok(q), Ok(bw)) = (get("q").parse::<u8>(), get("v").parse::<f64>()) else {
                    continue;
                };
                let prof = cfg
                    .sched
                    .entry("default-global".into())
                    .or_insert_with(|| SchedProf {
                        tcs: BTreeMap::new(),
                    });
                sched_weight(prof, q, bw, &src);
            }
            _ => {}
        }
    }
    cos_2x_maps(cfg, source_2x, cos_2x);

    if !ecn_default.is_empty() {
        let prof = cfg
            .ecn
            .entry("default-global".into())
            .or_insert_with(|| EcnProf {
                tcs: BTreeMap::new(),
            });
        ecn_group(prof, &ecn_default, false);
    }

    // 3.x priority-group scheduling: weight 0 is strict priority, the others share by weight.
    // The share of a queue is its group's weight over the weights of all weighted queues [I].
    if !pg_weight.is_empty() {
        let total: f64 = pg_cos
            .iter()
            .filter_map(|(g, (cos, _))| {
                pg_weight
                    .get(g)
                    .filter(|(w, _)| *w > 0.0)
                    .map(|(w, _)| w * cos.len() as f64)
            })
            .sum();
        {
            let prof = cfg
                .sched
                .entry("default-global".into())
                .or_insert_with(|| SchedProf {
                    tcs: BTreeMap::new(),
                });
            for (g, (cos, _)) in &pg_cos {
                let Some((w, wsrc)) = pg_weight.get(g) else {
                    continue;
                };
                for c in cos {
                    let t = prof.tcs.entry(*c).or_insert_with(sched_tc);
                    if *w == 0.0 {
                        t.strict = at(true, wsrc);
                        t.bw_pct = None;
                    } else if total > 0.0 {
                        t.strict = at(false, wsrc);
                        t.bw_pct = at((w / total * 10000.0).round() / 100.0, wsrc);
                    }
                }
            }
        }
    }

    // Port groups: only the groups a feature lists are in force. They are applied in the
    // order of their lines (not of the feature names), so a port created by a group's
    // `port_set` is defined at the first line of the file that names it.
    let mut in_force: Vec<(u32, &String, &String, &GroupLines, &Src)> = Vec::new();
    for (feat, (names, lsrc)) in &lists {
        for g in names {
            let Some(lines) = groups.get(&(feat.clone(), g.clone())) else {
                cfg.refs
                    .push((oi, feature_label(feat), g.clone(), lsrc.line));
                continue;
            };
            let at = lines
                .iter()
                .find(|(f, _, _)| f == "port_set")
                .or(lines.first())
                .map_or(lsrc.line, |(_, _, s)| s.line);
            in_force.push((at, feat, g, lines, lsrc));
        }
    }
    in_force.sort_by_key(|(at, ..)| *at);
    for (_, feat, g, lines, lsrc) in in_force {
        port_group(cfg, feat, g, lines, lsrc);
    }
}

fn feature_label(feat: &str) -> &'static str {
    match feat {
        "pfc" => "pfc port group",
        "link_pause" => "link_pause port group",
        "ecn_red" | "ecn" => "ecn_red port group",
        "source" => "source port group",
        "remark" => "remark port group",
        "egress_sched" => "egress_sched port group",
        "pfc_watchdog" => "pfc_watchdog port group",
        _ => "port group",
    }
}

/// One port group of a feature: its settings become a profile named `g` (or the default-global
/// profile for `allports`), and its ports name that profile.
fn port_group(cfg: &mut Cfg, feat: &str, g: &str, lines: &GroupLines, lsrc: &Src) {
    let port_set = lines.iter().find(|(f, _, _)| f == "port_set");
    let all = port_set.is_some_and(|(_, v, _)| v.trim() == "allports");
    let key = if all {
        "default-global".to_string()
    } else {
        g.to_string()
    };
    let first = lines.first().map(|l| l.2.clone()).unwrap_or(lsrc.clone());
    let family: Option<&'static str> = match feat {
        "pfc" | "link_pause" => {
            let mut f = flow_prof(&first);
            for (field, v, s) in lines {
                match field.as_str() {
                    "cos_list" => {
                        f.prios = numbers(v, 7)
                            .unwrap_or_default()
                            .into_iter()
                            .map(|c| At {
                                v: c,
                                src: s.clone(),
                            })
                            .collect();
                    }
                    "port_buffer_bytes" => f.port_buffer = bytes(v).and_then(|b| at(b, s)),
                    "xoff_size" => f.xoff = bytes(v).and_then(|b| at(b, s)),
                    "xon_delta" => f.xon_delta = bytes(v).and_then(|b| at(b, s)),
                    "tx_enable" => f.tx = flag(v).and_then(|b| at(b, s)),
                    "rx_enable" => f.rx = flag(v).and_then(|b| at(b, s)),
                    "cable_length" => {
                        f.cable_m = v.trim().parse::<f64>().ok().and_then(|c| at(c, s))
                    }
                    _ => {}
                }
            }
            if feat == "pfc" {
                cfg.pfc.insert(key.clone(), f);
                Some("pfc")
            } else {
                cfg.pause.insert(key.clone(), f);
                Some("link-pause")
            }
        }
        "ecn_red" | "ecn" => {
            let prof = cfg.ecn.entry(key.clone()).or_insert_with(|| EcnProf {
                tcs: BTreeMap::new(),
            });
            ecn_group(prof, lines, feat == "ecn");
            Some("congestion-control")
        }
        "source" => {
            let m = cfg
                .mapping
                .entry(key.clone())
                .or_insert_with(|| map_prof(&first));
            for (field, v, s) in lines {
                if field == "packet_priority_source_set" {
                    m.trust = trust_of(v).and_then(|t| at(t.to_string(), s));
                } else if field == "port_default_priority" {
                    if let Ok(d) = v.trim().parse::<u8>()
                        && d < 8
                    {
                        m.port_default = at(d, s);
                    }
                } else if let Some(rest) = field.strip_prefix("cos_")
                    && let Some((cos, "8021p")) = rest.split_once(".priority_source.")
                    && let (Ok(cos), Some(list)) = (cos.parse::<u8>(), numbers(v, 7))
                {
                    m.pcp_complete = true;
                    m.pcp.push((
                        list,
                        At {
                            v: cos,
                            src: s.clone(),
                        },
                    ));
                } else if let Some(rest) = field.strip_prefix("cos_")
                    && let Some((cos, kind)) = rest.split_once(".priority_source.")
                    && kind == "dscp"
                    && let (Ok(cos), Some(list)) = (cos.parse::<u8>(), numbers(v, 63))
                {
                    m.complete = true;
                    m.dscp.push((
                        list,
                        At {
                            v: cos,
                            src: s.clone(),
                        },
                    ));
                }
            }
            Some("mapping")
        }
        "remark" => {
            let rp = cfg.remark.entry(key.clone()).or_insert_with(remark_prof);
            for (field, v, s) in lines {
                if field == "packet_priority_remark_set" {
                    rp.rewrite_dscp = at(v.to_ascii_lowercase().contains("dscp"), s);
                } else if let Some(rest) = field.strip_prefix("cos_")
                    && let Some((cos, kind)) = rest.split_once(".priority_remark.")
                    && kind == "dscp"
                    && let (Ok(cos), Some(list)) = (cos.parse::<u8>(), numbers(v, 63))
                    && let Some(d) = list.first()
                {
                    rp.sp_dscp.insert(
                        cos,
                        At {
                            v: *d,
                            src: s.clone(),
                        },
                    );
                }
            }
            Some("remark")
        }
        "egress_sched" => {
            let prof = cfg.sched.entry(key.clone()).or_insert_with(|| SchedProf {
                tcs: BTreeMap::new(),
            });
            for (field, v, s) in lines {
                if let Some(q) = field
                    .strip_prefix("egr_queue_")
                    .and_then(|r| r.strip_suffix(".bw_percent"))
                    && let (Ok(q), Ok(bw)) = (q.parse::<u8>(), v.trim().parse::<f64>())
                {
                    sched_weight(prof, q, bw, s);
                }
            }
            Some("egress-scheduler")
        }
        "pfc_watchdog" => {
            if let Some((_, v, s)) = port_set {
                for port in ports_of(v, s, &mut cfg.unread) {
                    cfg.iface(&port, s, true).watchdog = at(true, s);
                }
            }
            None
        }
        _ => None,
    };
    // The group's ports use its profile.
    if let (Some(family), Some((_, v, s)), false) = (family, port_set, all) {
        for port in ports_of(v, s, &mut cfg.unread) {
            cfg.iface(&port, s, true).profiles.insert(
                family,
                At {
                    v: key.clone(),
                    src: s.clone(),
                },
            );
        }
    }
}

/// The ports of a list; a list that cannot be expanded is recorded as not read at `src`.
fn ports_of(v: &str, src: &Src, unread: &mut Vec<(Src, String)>) -> Vec<String> {
    match expand_ports(v) {
        Ok(ps) => ps.iter().map(|p| super::canonical_ifname(p)).collect(),
        Err(why) => {
            unread.push((src.clone(), why));
            Vec::new()
        }
    }
}

/// ECN/RED group lines: the queues (cos_list / egress_queue_list) take the group's settings.
/// The 3.x `ecn` feature has no `ecn_enable`: listing a queue enables ECN on it.
fn ecn_group(prof: &mut EcnProf, lines: &GroupLines, implied_on: bool) {
    let mut queues: Vec<(u8, Src)> = Vec::new();
    for (field, v, s) in lines {
        if field == "cos_list" || field == "egress_queue_list" {
            queues = numbers(v, 7)
                .unwrap_or_default()
                .into_iter()
                .map(|q| (q, s.clone()))
                .collect();
        }
    }
    // settings apply to every listed queue (and to queues listed by an earlier line)
    let targets: Vec<(u8, Src)> = if queues.is_empty() {
        prof.tcs.iter().map(|(q, e)| (*q, e.src.clone())).collect()
    } else {
        queues
    };
    for (q, qsrc) in targets {
        let e = prof.tcs.entry(q).or_insert_with(|| ecn_tc(&qsrc));
        if implied_on && e.ecn.is_none() {
            e.ecn = at(true, &qsrc);
        }
        for (field, v, s) in lines {
            match field.as_str() {
                "ecn_enable" => e.ecn = flag(v).and_then(|b| at(b, s)),
                "red_enable" => e.red = flag(v).and_then(|b| at(b, s)),
                "min_threshold_bytes" => e.min = bytes(v).and_then(|b| at(b, s)),
                "max_threshold_bytes" => e.max = bytes(v).and_then(|b| at(b, s)),
                "probability" => e.prob = v.trim().parse::<f64>().ok().and_then(|p| at(p, s)),
                _ => {}
            }
        }
    }
}

/// `bw_percent`: 0 is strict priority, anything else a DWRR share.
fn sched_weight(prof: &mut SchedProf, q: u8, bw: f64, src: &Src) {
    if q > 7 {
        return;
    }
    let t = prof.tcs.entry(q).or_insert_with(sched_tc);
    if bw == 0.0 {
        t.strict = at(true, src);
        t.bw_pct = None;
    } else {
        t.strict = at(false, src);
        t.bw_pct = at(bw, src);
    }
}

/// NCLU `net show configuration commands`.
pub(super) fn nclu(o: &Output, cfg: &mut Cfg) {
    let p = &o.parsed;
    for r in &p.records {
        let src = o.src(r.line);
        let get = |n: &str| p.get(r, n).unwrap_or("").trim();
        let ports = ports_of(get("ifs"), &src, &mut cfg.unread);
        let names = || ports.clone();
        match p.kind(r) {
            "hostname" => cfg.hostname = at(get("name").to_string(), &src),
            "mtu" => {
                if let Ok(m) = get("mtu").parse::<u32>() {
                    for n in names() {
                        cfg.iface(&n, &src, false).mtu = at(m, &src);
                    }
                }
            }
            "speed" => {
                let g = crate::platform::util::speed_gbps(get("speed"));
                for n in names() {
                    cfg.iface(&n, &src, false).speed = at(g, &src);
                }
            }
            "link_state" => {
                let up = get("state") == "up";
                for n in names() {
                    cfg.iface(&n, &src, false).admin_up = at(up, &src);
                }
            }
            "ip_address" => {
                for n in names() {
                    cfg.iface(&n, &src, false);
                }
            }
            "bond_slaves" => {
                let bond = super::canonical_ifname(get("bond"));
                let members = names();
                let b = cfg.iface(&bond, &src, false);
                b.typ.get_or_insert(At {
                    v: "bond".into(),
                    src: src.clone(),
                });
                for m in &members {
                    if !b.members.contains(m) {
                        b.members.push(m.clone());
                    }
                }
                for m in members {
                    cfg.iface(&m, &src, false);
                }
            }
            "bridge_ports" => {
                for n in names() {
                    cfg.iface(&n, &src, false).bridged = Some(src.clone());
                }
            }
            _ => {}
        }
    }
}

/// Cumulus Linux 2.x `traffic.cos_N.packet_priorities = [..]`: the values of the field
/// `traffic.packet_priority_source` names ("802.1p values = {0..7}, dscp values = {0..63}" in
/// the sample traffic.conf of the Cumulus Linux 2.5 buffer and queue management chapter,
/// CumulusNetworks/docs); early 3.x files name the field on the line
/// (`traffic.cos_0.packet_priorities.8021p = [0]`). Without either the field is unknown: the
/// lists are reported, not guessed.
fn cos_2x_maps(cfg: &mut Cfg, source: Option<&'static str>, lists: Vec<Cos2x>) {
    for (cos, field, list, src) in lists {
        let pcp = match field.or(source) {
            Some("dscp") => false,
            Some("pcp") => true,
            _ => {
                let why = "traffic.cos_N.packet_priorities without traffic.packet_priority_source: \
                           whether the values are 802.1p or DSCP is not stated";
                cfg.unread.push((src, why.into()));
                continue;
            }
        };
        let Some(values) = numbers(&list, if pcp { 7 } else { 63 }) else {
            cfg.unread
                .push((src, "not a list of priority values".into()));
            continue;
        };
        let m = cfg
            .mapping
            .entry("default-global".into())
            .or_insert_with(|| map_prof(&src));
        if pcp {
            m.pcp_complete = true;
            m.pcp.push((values, At { v: cos, src }));
        } else {
            m.complete = true;
            m.dscp.push((values, At { v: cos, src }));
        }
    }
}
