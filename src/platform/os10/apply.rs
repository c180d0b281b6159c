//! Resolving what `read` collected into the model, with OS10's (and OS9's) defaults.
//!
//! OS10 classifies with trust maps (`trust-map dscp NAME|default` on the port or in `system
//! qos`: DSCP → traffic class), queues with `qos-map traffic-class` (traffic class → queue),
//! pauses with the `network-qos` policy applied on ingress (a class matching traffic classes with
//! `pause` and `pfc-cos`), and schedules with the `queuing` policy applied on egress (`bandwidth
//! percent`, `priority`, `random-detect PROFILE` naming a `wred` profile). A port setting beats
//! the `system qos` one; a port-channel member without its own setting uses its port-channel's
//! [I]. OS9 (FTOS) pauses with a `dcb-map` (priority groups with `pfc on`, `priority-pgid`) and
//! trusts 802.1p with `service-class dynamic dot1p`.
//!
//! The policies and maps in force on a port (`QosMaps::policies`, shown by `audit --format
//! model`) follow the same order: the port's own, else its port-channel's, else `system qos`
//! ("bound globally": OS10 applies a `system qos` trust map, qos-map, policy or `ets mode` to
//! every interface that sets none of its own). The precedence is the OS10 guide's "interface
//! level policy gets precedence over system level policy" [R: recalled wording; the search tool
//! found no copy of the page to cite].

use super::read::{At, Cfg, IfCfg, Match, PolicyMap, QosStmts, SvcPolicy};
use crate::model::maps::{Bound, BoundPolicy, How, MapEntry, QosMap};
use crate::model::{Device, Field, Interface, Src, default_of, derived, known, val};
use crate::platform::util;
use std::collections::{BTreeMap, BTreeSet};

/// OS10 default link MTU (frame size) [S: OS10 guide, `mtu`: "Default 1532 bytes"].
const OS10_DEFAULT_MTU: u32 = 1532;
/// OS10: "the IP MTU must be at least 32 bytes smaller than the L2 MTU" [S: OS10 guide, `mtu`].
const OS10_L2_OVERHEAD: u32 = 32;
/// OS9 default link MTU: `mtu` "Defaults 1554" [V Dell Networking OS Command Line Reference
/// Guide (OS9), Interfaces, `mtu`: "Enter a maximum frame size in bytes ... The default is
/// 1554", https://www.manualshelf.com/manual/dell/os9/7-6-5-4-3-2-1-api-guide-english/page-706.html].
const OS9_DEFAULT_MTU: u32 = 1554;
/// OS9 before 9.2(0.2), where `ip mtu` was configurable: its default, 1500.
const OS9_DEFAULT_IP_MTU: u32 = 1500;
/// OS9 link MTU − IP MTU for untagged Ethernet: 18 bytes [V the same guide's `mtu` usage
/// information, table "Link MTU and IP MTU Delta": "Ethernet (untagged) 18 bytes",
/// https://www.manualshelf.com/manual/dell/os9/14-13-12-11-10-9-8-7-6-5-4-3-2-1-administrator-guide-english/page-682.html].
/// From 9.2(0.2) the IP MTU is no longer configured but "automatically computed by the software
/// when you configure an interface", and `no mtu` "reduces the IP MTU value to 1536 bytes" (the
/// default 1554 − 18) [V the same usage information, S4048-ON/S3048-ON reference guides]: a
/// port without `mtu` has IP MTU 1536 there, not 1500 (corrected; 1500 was the `ip mtu` default
/// of older releases).
const OS9_L2_OVERHEAD: u32 = 18;

/// Whether an OS9 release computes the IP MTU from the link MTU (9.2(0.2) and later; a config
/// without a version line is taken to be such a release: every OS9 release still documented is).
fn os9_computes_ip_mtu(version: Option<&str>) -> bool {
    let Some(v) = version else { return true };
    let nums: Vec<u32> = v
        .split(|c: char| !c.is_ascii_digit())
        .filter(|p| !p.is_empty())
        .filter_map(|p| p.parse().ok())
        .collect();
    nums.get(..4)
        .is_none_or(|n| (n[0], n[1], n[2], n[3]) >= (9, 2, 0, 2))
}

fn src_of<T>(a: &Option<At<T>>) -> Option<&Src> {
    a.as_ref().map(|x| &x.src)
}

/// The interface's statement, else its port-channel's, else the `system qos` one.
fn pick<'c, T>(
    f: &'c IfCfg,
    lag: Option<&'c IfCfg>,
    sys: Option<&'c QosStmts>,
    get: impl Fn(&'c QosStmts) -> Option<&'c T>,
) -> Option<&'c T> {
    get(&f.lines().qos)
        .or_else(|| lag.and_then(|l| get(&l.lines().qos)))
        .or_else(|| sys.and_then(get))
}

fn policy<'c>(
    f: &'c IfCfg,
    lag: Option<&'c IfCfg>,
    sys: Option<&'c QosStmts>,
    ty: &str,
    dir: &str,
) -> Option<&'c SvcPolicy> {
    pick(f, lag, sys, |q| q.policy(ty, dir))
}

/// [`pick`], saying where the statement was found: on the port, on its port-channel (`via`), or
/// in `system qos`.
fn pick_bound<'c, T>(
    f: &'c IfCfg,
    lag: Option<&'c IfCfg>,
    sys: Option<&'c QosStmts>,
    get: impl Fn(&'c QosStmts) -> Option<&'c T>,
) -> Option<(&'c T, Bound, Option<&'c str>)> {
    get(&f.lines().qos)
        .map(|x| (x, Bound::Port, None))
        .or_else(|| {
            lag.and_then(|l| get(&l.lines().qos).map(|x| (x, Bound::Lag, Some(l.name.as_str()))))
        })
        .or_else(|| {
            sys.and_then(&get)
                .map(|x| (x, Bound::Global, Some("system qos")))
        })
}

fn bound(kind: &str, name: &str, how: Bound, via: Option<&str>, src: &Src) -> BoundPolicy {
    let b = BoundPolicy::new(kind, name, how, Some(src));
    match via {
        Some(v) => b.via(v),
        None => b,
    }
}

/// The QoS policies and maps in force on a port (`QosMaps::policies`), as the model applies
/// them: a port setting, else its port-channel's, else the `system qos` one ("interface level
/// policy gets precedence over system level policy", see [`apply_os10_qos`]); the trust maps
/// come together from the first of these that has any. OS9: the port's (or port-channel's)
/// `dcb-map` and `service-class dynamic dot1p`, else the global one.
fn bindings(cfg: &Cfg, f: &IfCfg, lag: Option<&IfCfg>, sys: Option<&QosStmts>) -> Vec<BoundPolicy> {
    let mut v = Vec::new();
    if cfg.ftos {
        fn own(x: &IfCfg) -> Option<&At<String>> {
            x.lines().dcb_map.as_ref()
        }
        match own(f)
            .map(|d| (d, Bound::Port, None))
            .or_else(|| lag.and_then(|l| own(l).map(|d| (d, Bound::Lag, Some(l.name.as_str())))))
        {
            Some((d, how, via)) => v.push(bound("dcb-map", &d.v, how, via, &d.src)),
            None => v.push(BoundPolicy::new(
                "dcb-map",
                "none",
                Bound::Default,
                Some(&f.src),
            )),
        }
        fn cls(x: &IfCfg) -> Option<&Src> {
            x.lines().dot1p_class.as_ref()
        }
        let found = cls(f)
            .map(|s| (s, Bound::Port, None))
            .or_else(|| lag.and_then(|l| cls(l).map(|s| (s, Bound::Lag, Some(l.name.as_str())))))
            .or_else(|| cfg.dot1p_class.as_ref().map(|s| (s, Bound::Global, None)));
        if let Some((s, how, via)) = found {
            v.push(bound("service-class dynamic", "dot1p", how, via, s));
        }
        return v;
    }
    fn has_trust(q: &QosStmts) -> Option<&QosStmts> {
        (q.trust_dscp.is_some() || q.trust_dot1p.is_some()).then_some(q)
    }
    match pick_bound(f, lag, sys, has_trust) {
        Some((q, how, via)) => {
            for (kind, t) in [
                ("trust-map dscp", &q.trust_dscp),
                ("trust-map dot1p", &q.trust_dot1p),
            ] {
                if let Some(t) = t {
                    v.push(bound(kind, &t.v, how, via, &t.src));
                }
            }
        }
        None => v.push(BoundPolicy::new(
            "trust-map",
            "none (every packet traffic class 0)",
            Bound::Default,
            Some(&f.src),
        )),
    }
    if let Some((m, how, via)) = pick_bound(f, lag, sys, |q| q.qos_map.as_ref()) {
        v.push(bound("qos-map traffic-class", &m.v, how, via, &m.src));
    }
    for (ty, dir) in [
        ("qos", "input"),
        ("network-qos", "input"),
        ("queuing", "output"),
    ] {
        if let Some((sp, how, via)) = pick_bound(f, lag, sys, |q| q.policy(ty, dir)) {
            let kind = format!("service-policy {dir} type {ty}");
            v.push(bound(&kind, &sp.name, how, via, &sp.src));
        }
    }
    if let Some((e, how, via)) = pick_bound(f, lag, sys, |q| q.ets.as_ref()) {
        let name = if e.v { "on" } else { "off" };
        v.push(bound("ets mode", name, how, via, &e.src));
    }
    v
}

/// Traffic classes a network-qos / queuing class-map selects (`match qos-group` / `match queue`).
fn class_values(cfg: &Cfg, ty: &str, name: &str) -> Option<Vec<u8>> {
    let cm = cfg.class_map(ty, name)?;
    let mut out = BTreeSet::new();
    for m in &cm.matches {
        match (ty, m) {
            ("network-qos", Match::Group(l)) | ("queuing", Match::Queue(l)) => {
                out.extend(l.iter().copied())
            }
            _ => return None,
        }
    }
    Some(out.into_iter().collect())
}

/// What the network-qos policy in force says.
struct Nq {
    /// PFC priorities (`pfc-cos` of the classes that `pause`); `None` = not known.
    prios: Option<(Vec<u8>, Src)>,
    tc_to_pfc: Vec<u8>,
    /// Lossless traffic classes and the line that made the first of them lossless.
    lossless: Option<(Vec<u8>, Src)>,
    /// (traffic class, size, xoff, xon bytes, line)
    buffers: Vec<(u8, u64, u64, u64, Src)>,
}

fn network_qos(cfg: &Cfg, pm: &PolicyMap, sp: &SvcPolicy) -> Nq {
    let mut prios = BTreeSet::new();
    let mut prios_known = true;
    let mut first: Option<Src> = None;
    let mut tc_to_pfc = util::identity8();
    let mut lossless = BTreeSet::new();
    let mut lossless_known = true;
    let mut buffers = Vec::new();
    for c in &pm.classes {
        let Some(pause) = &c.pause else { continue };
        first.get_or_insert_with(|| pause.src.clone());
        let groups = class_values(cfg, "network-qos", &c.name);
        match &groups {
            Some(g) => lossless.extend(g.iter().copied()),
            None => lossless_known = false,
        }
        match &c.pfc_cos {
            Some(l) => {
                prios.extend(l.v.iter().copied());
                if let (Some(g), Some(&p0)) = (&groups, l.v.first()) {
                    for &tc in g {
                        if let Some(slot) = tc_to_pfc.get_mut(tc as usize) {
                            *slot = if l.v.contains(&tc) { tc } else { p0 };
                        }
                    }
                }
            }
            // `pause` without `pfc-cos`: which 802.1p priorities pause is not stated.
            None => prios_known = false,
        }
        if let (Some((size, xoff, xon)), Some(g)) = (pause.kb, &groups) {
            for &tc in g {
                buffers.push((tc, size * 1024, xoff * 1024, xon * 1024, pause.src.clone()));
            }
        }
    }
    let src = first.unwrap_or_else(|| sp.src.clone());
    Nq {
        prios: prios_known.then(|| (prios.into_iter().collect(), src.clone())),
        tc_to_pfc,
        lossless: lossless_known.then(|| (lossless.into_iter().collect(), src)),
        buffers,
    }
}

/// DSCP → traffic class under a `trust-map dscp` (`default`: DSCP d → d / 8 [S: OS10 guide,
/// default DSCP trust map]); in a user map, DSCPs it does not list go to traffic class 0 [I: as
/// OS10 states for dot1p maps].
fn dscp_map(cfg: &Cfg, name: &str) -> Option<Vec<u8>> {
    if name == "default" {
        return Some(util::dscp_div8());
    }
    let m = cfg
        .trust_maps
        .get(&("dscp".to_string(), name.to_string()))?;
    let mut out = vec![0u8; 64];
    for (tc, list, _) in &m.entries {
        for &d in list {
            if let Some(slot) = out.get_mut(d as usize) {
                *slot = *tc;
            }
        }
    }
    Some(out)
}

/// 802.1p → traffic class under a `trust-map dot1p` (`default`: 0→1, 1→0, n→n for the rest [S:
/// OS10 guide, default 802.1p trust map]; unlisted priorities of a user map → 0 [S]).
fn dot1p_map(cfg: &Cfg, name: &str) -> Option<Vec<u8>> {
    if name == "default" {
        return Some(vec![1, 0, 2, 3, 4, 5, 6, 7]);
    }
    let m = cfg
        .trust_maps
        .get(&("dot1p".to_string(), name.to_string()))?;
    let mut out = vec![0u8; 8];
    for (tc, list, _) in &m.entries {
        for &d in list {
            if let Some(slot) = out.get_mut(d as usize) {
                *slot = *tc;
            }
        }
    }
    Some(out)
}

/// A trust map entry by entry (`kind` dscp or dot1p), bound at `bind`: `default` is OS10's
/// own map (each entry a platform default at the binding line); a user map's entries cite their
/// `qos-group N dscp|dot1p LIST` line, the values it does not list are traffic class 0.
fn trust_entries(cfg: &Cfg, kind: &str, name: &str, bind: &Src) -> Option<QosMap> {
    let size = if kind == "dscp" { 64 } else { 8 };
    if name == "default" {
        let v = if kind == "dscp" {
            dscp_map(cfg, name)?
        } else {
            dot1p_map(cfg, name)?
        };
        return Some(QosMap {
            entries: v
                .iter()
                .enumerate()
                .map(|(k, &t)| MapEntry::default(k as u8, t, Some(bind)))
                .collect(),
            note: None,
        });
    }
    let m = cfg.trust_maps.get(&(kind.to_string(), name.to_string()))?;
    let mut per: Vec<Option<(u8, Src)>> = vec![None; size];
    for (tc, list, src) in &m.entries {
        for &d in list {
            if let Some(slot) = per.get_mut(d as usize) {
                *slot = Some((*tc, src.clone()));
            }
        }
    }
    Some(QosMap::assembled(&per, Some((0, How::Default, Some(bind)))))
}

/// DSCP → traffic class under an ingress `qos` policy whose classes `set qos-group`: classes are
/// tried in order, the first that matches decides, `class-default` takes the rest; DSCPs no
/// such class matches keep `base` (the trust-based map). OS10: "marking takes precedence over
/// trust-based classification" (Dell SmartFabric OS10 User Guide, Quality of Service, "Ingress
/// traffic classification", <https://www.dell.com/support/manuals/en-us/smartfabric-os10-emp-partner/smartfabric-os-user-guide-10-5-2/qos>
/// [R: the sentence as the issue quotes it; page address recalled]). `None` when a class that
/// sets a qos-group matches on something other than DSCP.
fn policy_dscp_to_tc(cfg: &Cfg, pm: &PolicyMap, base: &[u8]) -> Option<Vec<u8>> {
    let mut out = base.to_vec();
    let mut claimed: BTreeSet<u8> = BTreeSet::new();
    for c in &pm.classes {
        let set = c.set_group.as_ref().map(|g| g.v);
        let dscps: Vec<u8> = if c.name == "class-default" {
            (0..64u8).collect()
        } else {
            let Some(cm) = cfg.class_map("qos", &c.name) else {
                continue;
            };
            if set.is_some() && cm.matches.iter().any(|m| !matches!(m, Match::Dscp(_))) {
                return None;
            }
            cm.matches
                .iter()
                .filter_map(|m| match m {
                    Match::Dscp(l) => Some(l.clone()),
                    _ => None,
                })
                .flatten()
                .collect()
        };
        for d in dscps {
            if claimed.insert(d)
                && let Some(g) = set
                && let Some(slot) = out.get_mut(d as usize)
            {
                *slot = g;
            }
        }
    }
    Some(out)
}

/// The `trust` of a class of an ingress `qos` policy (`class class-trust` / `trust dscp`,
/// `trust diffserv` or `trust dot1p`): trust-based classification with the default map.
fn policy_trust(pm: &PolicyMap) -> Option<&At<String>> {
    pm.classes.iter().find_map(|c| c.trust.as_ref())
}

/// DSCPs an ingress `qos` policy rewrites: a class with `set dscp N` changes every DSCP it
/// matches (and that no earlier class claimed) to N; `class-default` matches the rest.
fn rewrites(cfg: &Cfg, pm: &PolicyMap) -> Option<Vec<u8>> {
    let mut claimed: BTreeSet<u8> = BTreeSet::new();
    let mut out: BTreeSet<u8> = BTreeSet::new();
    for c in &pm.classes {
        let set = c.set_dscp.as_ref().map(|s| s.v);
        if c.name == "class-default" {
            if let Some(n) = set {
                out.extend((0..64u8).filter(|d| *d != n && !claimed.contains(d)));
            }
            continue;
        }
        let Some(cm) = cfg.class_map("qos", &c.name) else {
            continue;
        };
        let dscps: Vec<u8> = cm
            .matches
            .iter()
            .filter_map(|m| match m {
                Match::Dscp(l) => Some(l.clone()),
                _ => None,
            })
            .flatten()
            .collect();
        let other = cm.matches.iter().any(|m| !matches!(m, Match::Dscp(_)));
        if other && set.is_some() {
            // the class also (or only) matches on something else: which DSCPs it rewrites is
            // not known from the config
            return None;
        }
        if let Some(n) = set {
            out.extend(
                dscps
                    .iter()
                    .copied()
                    .filter(|d| *d != n && !claimed.contains(d)),
            );
        }
        if !cm.match_all || cm.matches.len() <= 1 {
            claimed.extend(dscps);
        }
    }
    Some(out.into_iter().collect())
}

pub(super) fn apply_config(dev: &mut Device, cfg: &Cfg) {
    if let Some(h) = &cfg.hostname {
        dev.hostname = known(h.v.clone(), &h.src);
    }
    if let Some(v) = &cfg.version {
        dev.os_version = known(v.v.clone(), &v.src);
    }
    let sys = cfg.system_qos();
    let mut policies: BTreeSet<String> = BTreeSet::new();
    if let Some(s) = sys {
        for p in &s.policies {
            policies.insert(format!("{} {}", p.ty, p.name));
        }
    }

    // Port-channel of each member (OS10 `channel-group`, OS9 LACP block or `channel-member`).
    let mut member_of: BTreeMap<String, (String, Src)> = BTreeMap::new();
    for f in &cfg.interfaces {
        if let Some(l) = &f.lines().lag {
            member_of.insert(
                f.name.clone(),
                (format!("port-channel{}", l.v), l.src.clone()),
            );
        }
        for (m, s) in &f.lines().members {
            member_of
                .entry(m.clone())
                .or_insert((f.name.clone(), s.clone()));
        }
    }

    for f in &cfg.interfaces {
        let lag_name = member_of.get(&f.name).map(|(p, _)| p.clone());
        let lag = lag_name
            .as_deref()
            .and_then(|n| cfg.interfaces.iter().find(|x| x.name == n));
        let i = dev.iface(&f.name, f.kind);
        i.set_defined_at(f.src.clone());
        apply_basics(cfg, f, lag, i);
        if let Some(p) = lag_name {
            i.names.lag_parent = Some(p);
        }
        if !matches!(f.kind, "ethernet" | "port-channel") {
            continue;
        }
        for ty in ["network-qos", "queuing", "qos"] {
            for sp in f.lines().qos.policies.iter().filter(|p| p.ty == ty) {
                policies.insert(format!("{} {}", sp.ty, sp.name));
            }
        }
        crate::model::maps::bind(i, || bindings(cfg, f, lag, sys));
        if cfg.ftos {
            apply_ftos_qos(cfg, f, lag, i);
        } else {
            apply_os10_qos(cfg, f, lag, sys, i);
        }
    }

    // Members on their port-channels.
    let mut members: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (m, (po, _)) in &member_of {
        members.entry(po.clone()).or_default().push(m.clone());
    }
    for (po, mut ms) in members {
        ms.sort_by(|a, b| crate::text::natural_cmp(a, b));
        let i = dev.iface(&po, "port-channel");
        for m in ms {
            if !i.lag_members.contains(&m) {
                i.lag_members.push(m);
            }
        }
    }
    for p in policies {
        if !dev.qos.policies.contains(&p) {
            dev.qos.policies.push(p);
        }
    }
}

/// Speed implied by an OS9 port name (`TenGigabitEthernet` is 10 Gb/s, ...).
fn ftos_name_speed(name: &str) -> Option<f64> {
    let word = name.split(|c: char| c.is_ascii_digit()).next()?;
    match word {
        "GigabitEthernet" => Some(1.0),
        "TenGigabitEthernet" => Some(10.0),
        "twentyFiveGigE" => Some(25.0),
        "fortyGigE" => Some(40.0),
        "fiftyGigE" => Some(50.0),
        "hundredGigE" => Some(100.0),
        _ => None,
    }
}

/// Admin state, switchport, speed, MTU, link pause.
fn apply_basics(cfg: &Cfg, f: &IfCfg, lag: Option<&IfCfg>, i: &mut Interface) {
    let hdr = Some(&f.src);
    // A running config states `shutdown` / `no shutdown` for every port; an intended config
    // that leaves it out says nothing this tool can rely on.
    i.admin_up = f
        .lines()
        .shutdown
        .as_ref()
        .and_then(|s| known(!s.v, &s.src));
    i.switchport = match (&f.lines().switchport, &f.lines().ip_address) {
        (Some(s), _) => known(s.v, &s.src),
        // an addressed port is routed
        (None, Some(ip)) => known(false, ip),
        _ => None,
    };
    i.speed_gbps = match &f.lines().speed {
        Some(s) => s.v.and_then(|g| known(g, &s.src)),
        None => breakout_speed(cfg, &f.name)
            .or_else(|| ftos_name_speed(&f.name).and_then(|g| known(g, &f.src))),
    };
    // A port-channel member carries the port-channel's MTU unless it states its own [I].
    let own_mtu = f
        .lines()
        .mtu
        .as_ref()
        .or(lag.and_then(|l| l.lines().mtu.as_ref()));
    let own_ip_mtu = f
        .lines()
        .ip_mtu
        .as_ref()
        .or(lag.and_then(|l| l.lines().ip_mtu.as_ref()));
    let (mtu, raw) = if cfg.ftos {
        let raw = match own_mtu {
            Some(m) => known(m.v, &m.src),
            None => default_of(OS9_DEFAULT_MTU, hdr),
        };
        let ip = match (own_ip_mtu, own_mtu) {
            (Some(m), _) => known(m.v, &m.src),
            // the IP MTU follows a configured link MTU (see OS9_L2_OVERHEAD)
            (None, Some(m)) => known(m.v.saturating_sub(OS9_L2_OVERHEAD), &m.src),
            (None, None) if os9_computes_ip_mtu(cfg.version.as_ref().map(|v| v.v.as_str())) => {
                default_of(OS9_DEFAULT_MTU - OS9_L2_OVERHEAD, hdr)
            }
            (None, None) => default_of(OS9_DEFAULT_IP_MTU, hdr),
        };
        (ip, raw)
    } else {
        match own_mtu {
            Some(m) => (
                known(m.v.saturating_sub(OS10_L2_OVERHEAD), &m.src),
                known(m.v, &m.src),
            ),
            None => (
                default_of(OS10_DEFAULT_MTU - OS10_L2_OVERHEAD, hdr),
                default_of(OS10_DEFAULT_MTU, hdr),
            ),
        }
    };
    if matches!(f.kind, "ethernet" | "port-channel" | "vlan") {
        i.mtu = mtu;
        i.mtu_raw = raw;
    }
    if f.kind == "ethernet" {
        // 802.3x flow control is off unless configured [S: OS10 guide, PFC configuration
        // notes: "PFC and 802.3x link-level flow control are disabled by default"; OS9
        // `flowcontrol` defaults rx off, tx off].
        let lp = |v: &Option<At<bool>>| -> Field<bool> {
            match v {
                Some(a) => known(a.v, &a.src),
                None => default_of(false, hdr),
            }
        };
        i.link_pause.rx = lp(&f.lines().fc_rx);
        i.link_pause.tx = lp(&f.lines().fc_tx);
    }
}

/// Speed from `interface breakout 1/1/N map 100g-1x` (sub-ports `:k` when split).
fn breakout_speed(cfg: &Cfg, name: &str) -> Field<f64> {
    let port = name.strip_prefix("ethernet")?;
    let (base, sub) = match port.split_once(':') {
        Some((b, _)) => (b, true),
        None => (port, false),
    };
    let (g, n, src) = cfg.breakouts.get(base)?;
    if (*n > 1) == sub {
        known(*g, src)
    } else {
        None
    }
}

fn apply_os10_qos(
    cfg: &Cfg,
    f: &IfCfg,
    lag: Option<&IfCfg>,
    sys: Option<&QosStmts>,
    i: &mut Interface,
) {
    let hdr = Some(&f.src);

    // Classification: trust maps. A port (or its port-channel) with a trust map of its own
    // uses its own maps only; otherwise the `system qos` ones apply [I: OS10 guide, "interface
    // level policy gets precedence over system level policy"].
    let has_trust = |q: &QosStmts| q.trust_dscp.is_some() || q.trust_dot1p.is_some();
    let holder = [Some(&f.lines().qos), lag.map(|l| &l.lines().qos), sys]
        .into_iter()
        .flatten()
        .find(|q| has_trust(q));
    let tdscp = holder.and_then(|q| q.trust_dscp.as_ref());
    let tdot1p = holder.and_then(|q| q.trust_dot1p.as_ref());
    i.qos.trust = match (tdscp, tdot1p) {
        (Some(d), Some(_)) => known("both".to_string(), &d.src),
        (Some(d), None) => known("dscp".to_string(), &d.src),
        (None, Some(p)) => known("pcp".to_string(), &p.src),
        // "By default, OS10 does not classify the data traffic and assigns the default traffic
        // class ID 0 to all data traffic" [S: OS10 guide, ingress traffic classification].
        (None, None) => default_of("port".to_string(), hdr),
    };
    i.qos.dscp_to_tc = match (tdscp, tdot1p) {
        (Some(d), _) => dscp_map(cfg, &d.v).and_then(|m| known(m, &d.src)),
        // 802.1p trust only: untagged IP carries priority 0, whatever its DSCP [I].
        (None, Some(p)) => dot1p_map(cfg, &p.v)
            .and_then(|m| known(vec![m.first().copied().unwrap_or(0); 64], &p.src)),
        (None, None) => default_of(vec![0; 64], hdr),
    };
    if let Some(d) = tdscp {
        i.maps.dscp_to_tc = trust_entries(cfg, "dscp", &d.v, &d.src).unwrap_or_default();
    }
    // 802.1p → traffic class: the port's dot1p trust map; with no trust map at all every frame
    // is traffic class 0 (the default above); a port that trusts only DSCP reads no 802.1p.
    (i.qos.pcp_to_tc, i.maps.pcp_to_tc) = match (tdscp, tdot1p) {
        (_, Some(p)) => (
            dot1p_map(cfg, &p.v).and_then(|m| known(m, &p.src)),
            trust_entries(cfg, "dot1p", &p.v, &p.src).unwrap_or_default(),
        ),
        (None, None) => (default_of(vec![0; 8], hdr), QosMap::default()),
        (Some(_), None) => (None, QosMap::default()),
    };
    apply_policy_classification(cfg, f, lag, sys, holder.is_some(), i);
    i.qos.tc_to_queue = match pick(f, lag, sys, |q| q.qos_map.as_ref()) {
        Some(m) => cfg.tcq_maps.get(&m.v).and_then(|entries| {
            // traffic classes a map does not list keep their default queue [I]
            let mut out = util::identity8();
            for (q, tcs, _) in entries {
                for &tc in tcs {
                    if let Some(slot) = out.get_mut(tc as usize) {
                        *slot = *q;
                    }
                }
            }
            known(out, &m.src)
        }),
        // traffic class N rides queue N unless a qos-map says otherwise [R]
        None => default_of(util::identity8(), hdr),
    };
    // OS10 gives each lossless network-qos class its own priority group; the model keys
    // priority groups by traffic class [I].
    i.qos.tc_to_pg = derived(util::identity8());

    // DSCP rewrites by an ingress qos policy.
    i.qos.dscp_rewrites = match policy(f, lag, sys, "qos", "input") {
        Some(sp) => match cfg.policy_map("qos", &sp.name) {
            Some(pm) => rewrites(cfg, pm).and_then(|r| known(r, &sp.src)),
            None => None,
        },
        None => default_of(Vec::new(), hdr),
    };

    // PFC: the port mode and the network-qos policy in force.
    let nq_sp = policy(f, lag, sys, "network-qos", "input");
    let nq = match nq_sp {
        Some(sp) => cfg
            .policy_map("network-qos", &sp.name)
            .map(|pm| network_qos(cfg, pm, sp)),
        None => Some(Nq {
            prios: None,
            tc_to_pfc: util::identity8(),
            lossless: None,
            buffers: Vec::new(),
        }),
    };
    let mode = f
        .lines()
        .pfc_mode
        .as_ref()
        .or(lag.and_then(|l| l.lines().pfc_mode.as_ref()));
    let on = mode.is_some_and(|m| m.v == "on");
    i.pfc.mode = match mode {
        Some(m) => known(m.v.clone(), &m.src),
        // PFC is disabled on an interface by default [S: OS10 guide, PFC configuration notes].
        None => default_of("off".to_string(), hdr),
    };
    let (prios, src): (Option<Vec<u8>>, Option<Src>) = match (&nq, on) {
        (_, false) => (Some(Vec::new()), mode.map(|m| m.src.clone())),
        (None, true) => (None, None),
        (Some(n), true) => match (&n.prios, nq_sp) {
            (Some((p, s)), _) => (Some(p.clone()), Some(s.clone())),
            // mode on and no network-qos policy: nothing is paused
            (None, None) => (Some(Vec::new()), mode.map(|m| m.src.clone())),
            (None, Some(_)) => (None, None),
        },
    };
    let mk = |v: Vec<u8>| -> Field<Vec<u8>> {
        match &src {
            Some(s) => known(v, s),
            None => default_of(v, hdr),
        }
    };
    match prios {
        Some(p) => {
            let active = !p.is_empty();
            i.pfc.priorities = mk(p);
            // OS10 PFC is symmetric: a paused priority is honoured and generated.
            i.pfc.rx = i.pfc.priorities.as_ref().map(|x| crate::model::Sourced {
                value: active,
                src: x.src.clone(),
                default: x.default,
            });
            i.pfc.tx = i.pfc.rx.clone();
        }
        None => {
            i.pfc.priorities = None;
            i.pfc.rx = None;
            i.pfc.tx = None;
        }
    }
    match (&nq, nq_sp) {
        (Some(n), Some(sp)) => {
            i.qos.tc_to_pfc_priority = known(n.tc_to_pfc.clone(), &sp.src);
        }
        (Some(_), None) => i.qos.tc_to_pfc_priority = default_of(util::identity8(), hdr),
        (None, _) => i.qos.tc_to_pfc_priority = None,
    }

    // Priority groups: lossless flags and pause buffers.
    if let Some(n) = &nq {
        match (&n.lossless, nq_sp) {
            (Some((tcs, s)), Some(_)) => {
                for pg in i.pgs.iter_mut() {
                    pg.lossless = known(tcs.contains(&pg.id), s);
                }
            }
            (_, None) => {
                for pg in i.pgs.iter_mut() {
                    pg.lossless = default_of(false, hdr);
                }
            }
            _ => {}
        }
        for (tc, size, xoff, xon, s) in &n.buffers {
            if let Some(pg) = i.pgs.get_mut(*tc as usize) {
                pg.size_bytes = known(*size, s);
                pg.xoff_bytes = known(*xoff, s);
                pg.xon_bytes = known(*xon, s);
                // `buffer-size` is the PG's reservation and `pause-threshold` the fill that
                // sends XOFF: what is above it absorbs the in-flight data [I].
                pg.headroom_bytes = known(size.saturating_sub(*xoff), s);
            }
        }
    }

    apply_queues(cfg, policy(f, lag, sys, "queuing", "output"), hdr, i);
}

/// The ingress `qos` policy in force classifies before (`set qos-group`) or instead of (a
/// `class-trust` class's `trust`, where no trust map is set) the trust maps.
fn apply_policy_classification(
    cfg: &Cfg,
    f: &IfCfg,
    lag: Option<&IfCfg>,
    sys: Option<&QosStmts>,
    has_trust_map: bool,
    i: &mut Interface,
) {
    let Some(sp) = policy(f, lag, sys, "qos", "input") else {
        return;
    };
    let Some(pm) = cfg.policy_map("qos", &sp.name) else {
        return;
    };
    if !has_trust_map && let Some(t) = policy_trust(pm) {
        let dscp = t.v == "dscp";
        i.qos.trust = known(if dscp { "dscp" } else { "pcp" }.to_string(), &t.src);
        i.qos.dscp_to_tc = if dscp {
            known(util::dscp_div8(), &t.src)
        } else {
            dot1p_map(cfg, "default")
                .and_then(|m| known(vec![m.first().copied().unwrap_or(0); 64], &t.src))
        };
        // class-trust: OS10's default map of the trusted field, bound by the `trust` line.
        let kind = if dscp { "dscp" } else { "dot1p" };
        let m = trust_entries(cfg, kind, "default", &t.src).unwrap_or_default();
        if dscp {
            i.maps.dscp_to_tc = m;
            i.qos.pcp_to_tc = None;
            i.maps.pcp_to_tc = QosMap::default();
        } else {
            i.qos.pcp_to_tc = dot1p_map(cfg, "default").and_then(|v| known(v, &t.src));
            i.maps.pcp_to_tc = m;
            i.maps.dscp_to_tc = QosMap::default();
        }
    }
    if pm.classes.iter().any(|c| c.set_group.is_some()) {
        let base = val(&i.qos.dscp_to_tc)
            .cloned()
            .unwrap_or_else(|| vec![0; 64]);
        i.qos.dscp_to_tc = policy_dscp_to_tc(cfg, pm, &base).and_then(|m| known(m, &sp.src));
        // the policy's classes decide: the map is the vector, cited at the service-policy
        i.maps.dscp_to_tc = QosMap::default();
    }
}

/// Egress queues from the queuing policy in force (OS10 schedules queues WDRR unless a class
/// says `priority` [R]).
fn apply_queues(cfg: &Cfg, sp: Option<&SvcPolicy>, hdr: Option<&Src>, i: &mut Interface) {
    let base = sp.map(|s| &s.src).or(hdr);
    for q in i.queues.iter_mut() {
        q.scheduler = default_of("dwrr".to_string(), base);
        q.weight_pct = None;
        q.ecn.enabled = default_of(false, base);
        q.ecn.min_bytes = None;
        q.ecn.max_bytes = None;
        q.ecn.max_probability_pct = None;
        q.wred_drop = default_of(false, base);
    }
    let Some(sp) = sp else { return };
    let Some(pm) = cfg.policy_map("queuing", &sp.name) else {
        // undefined policy (reported): what the port does is not known
        for q in i.queues.iter_mut() {
            *q = crate::model::Queue {
                id: q.id,
                ..Default::default()
            };
        }
        return;
    };
    let mut resolved = Vec::new();
    for c in &pm.classes {
        match c.name.as_str() {
            "class-default" => resolved.push((vec![0], c)),
            n => match class_values(cfg, "queuing", n) {
                Some(qs) => resolved.push((qs, c)),
                None => {
                    // a class this tool cannot place (undefined, or not by queue): which queue
                    // gets what is not known
                    for q in i.queues.iter_mut() {
                        *q = crate::model::Queue {
                            id: q.id,
                            ..Default::default()
                        };
                    }
                    return;
                }
            },
        }
    }
    for (queues, c) in resolved {
        for qid in queues {
            let Some(q) = i.queues.get_mut(qid as usize) else {
                continue;
            };
            q.scheduler = match (&c.priority, &c.bandwidth) {
                (Some(s), _) => known("strict".to_string(), s),
                (None, Some(b)) => known("dwrr".to_string(), &b.src),
                (None, None) => default_of("dwrr".to_string(), Some(&c.src)),
            };
            q.weight_pct = c.bandwidth.as_ref().and_then(|b| known(b.v, &b.src));
            if let Some(w) = &c.wred {
                match cfg.wreds.get(&w.v) {
                    Some(prof) => {
                        let ecn = prof.ecn.is_some();
                        q.ecn.enabled = known(ecn, prof.ecn.as_ref().unwrap_or(&w.src));
                        match &prof.green {
                            Some((min, max, prob, s)) => {
                                q.wred_drop = known(!ecn, s);
                                if ecn {
                                    q.ecn.min_bytes = known(min * 1024, s);
                                    q.ecn.max_bytes = known(max * 1024, s);
                                    q.ecn.max_probability_pct = known(*prob, s);
                                }
                            }
                            // a profile without thresholds marks/drops at defaults not known here
                            None => q.wred_drop = None,
                        }
                    }
                    None => {
                        q.ecn.enabled = None;
                        q.wred_drop = None;
                    }
                }
            }
        }
    }
}

/// OS9: PFC from the port's `dcb-map` (priorities whose priority group has `pfc on`), 802.1p
/// trust from `service-class dynamic dot1p`; queues and DSCP classification are not read.
fn apply_ftos_qos(cfg: &Cfg, f: &IfCfg, lag: Option<&IfCfg>, i: &mut Interface) {
    let hdr = Some(&f.src);
    let dot1p = f
        .lines()
        .dot1p_class
        .as_ref()
        .or(lag.and_then(|l| l.lines().dot1p_class.as_ref()))
        .or(cfg.dot1p_class.as_ref());
    i.qos.trust = dot1p.and_then(|s| known("pcp".to_string(), s));
    let dcb = f
        .lines()
        .dcb_map
        .as_ref()
        .or(lag.and_then(|l| l.lines().dcb_map.as_ref()));
    let enabled = cfg.dcb_enable.as_ref().map(|e| e.v);
    match (dcb, enabled) {
        (None, _) => {
            i.pfc.mode = default_of("off".to_string(), hdr);
            i.pfc.priorities = default_of(Vec::new(), hdr);
            i.pfc.rx = default_of(false, hdr);
            i.pfc.tx = default_of(false, hdr);
        }
        (Some(d), Some(false)) => {
            // `no dcb enable`: the map is not in force
            let s = src_of(&cfg.dcb_enable).unwrap_or(&d.src);
            i.pfc.mode = known("off".to_string(), s);
            i.pfc.priorities = known(Vec::new(), s);
            i.pfc.rx = known(false, s);
            i.pfc.tx = known(false, s);
        }
        // DCB must be enabled globally for a dcb-map to act [R]
        (Some(_), None) => {}
        (Some(d), Some(true)) => {
            let Some(m) = cfg.dcb_maps.get(&d.v) else {
                return;
            };
            let Some(pgid) = &m.pgid else { return };
            let lossless: BTreeSet<u8> = m
                .pgs
                .iter()
                .filter(|(_, (_, pfc, _))| *pfc)
                .map(|(pg, _)| *pg)
                .collect();
            let prios: Vec<u8> = pgid
                .v
                .iter()
                .enumerate()
                .filter(|(_, pg)| lossless.contains(pg))
                .map(|(p, _)| p as u8)
                .collect();
            let active = !prios.is_empty();
            // a dcb-map applies PFC statically on the port [I]
            i.pfc.mode = known("on".to_string(), &d.src);
            i.pfc.priorities = known(prios, &pgid.src);
            i.pfc.rx = known(active, &pgid.src);
            i.pfc.tx = known(active, &pgid.src);
            // PFC pauses the priority itself: traffic class = 802.1p priority [I]
            i.qos.tc_to_pfc_priority = derived(util::identity8());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::os9_computes_ip_mtu;

    #[test]
    fn os9_releases_that_compute_the_ip_mtu() {
        assert!(os9_computes_ip_mtu(Some("9.11(0.0)")));
        assert!(os9_computes_ip_mtu(Some("9.2(0.2)")));
        assert!(!os9_computes_ip_mtu(Some("9.2(0.0)")));
        assert!(!os9_computes_ip_mtu(Some("8.3(19.0)")));
        assert!(os9_computes_ip_mtu(None));
    }
}
