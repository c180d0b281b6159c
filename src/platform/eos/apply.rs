//! Resolving EOS statements into the model: port-channel → member inheritance, `qos profile`
//! → interface overlay, and the EOS defaults applied where a line is absent (`default = true`).

use super::read::{At, Cfg, IfCfg, PolicyMap, QosStmts, QueueStmts};
use crate::model::maps::{Bound, BoundPolicy, MapEntry, QosMap};
use crate::model::{Device, Field, Interface, Src, default_of, known, val};
use crate::platform::util;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// EOS default DSCP → traffic-class map: DSCP 0-7 → TC1, 8-15 → TC0, then DSCP/8 (16-23 → TC2 …
/// 56-63 → TC7) [S RoCEv2 guide: a third-party "Arista EOS RoCEv2 lossless config" guide,
/// which reproduces the table of the EOS QoS manual for Arad/Jericho/Trident/Tomahawk and notes
/// the 0↔1 inversion; see the module doc of `platform::eos`].
fn default_dscp_to_tc() -> Vec<u8> {
    (0..64u8)
        .map(|d| match d >> 3 {
            0 => 1,
            1 => 0,
            n => n,
        })
        .collect()
}

/// EOS default CoS → traffic-class map: the same 0↔1 inversion, CoS 0 → TC1, CoS 1 → TC0, the
/// others to their own number [S RoCEv2 guide, as `default_dscp_to_tc`].
fn default_cos_to_tc() -> Vec<u8> {
    (0..8u8)
        .map(|c| match c {
            0 => 1,
            1 => 0,
            n => n,
        })
        .collect()
}

/// A global map entry by entry: the EOS default overlaid by the `qos map` lines, each entry
/// citing the line that sets it (a later line wins, as on the device), the others the EOS
/// default at `dflt`.
fn global_map(base: &[u8], lines: &[(Vec<u32>, u8, Src)], dflt: Option<&Src>) -> QosMap {
    let mut per: Vec<Option<(u8, Src)>> = vec![None; base.len()];
    for (list, tc, src) in lines {
        for d in list {
            if let Some(slot) = per.get_mut(*d as usize) {
                *slot = Some((*tc, src.clone()));
            }
        }
    }
    let mut m = QosMap::assembled(&per, None);
    for e in m.entries.iter_mut().filter(|e| e.to.is_none()) {
        if let Some(&v) = base.get(e.from as usize) {
            *e = MapEntry::default(e.from, v, dflt);
        }
    }
    m
}

/// The QoS statements in force on a port (`QosMaps::policies`), each with where it comes from:
/// the port's own block, a `qos profile` it names (`service-profile`), or the same on its
/// port-channel (what [`apply`] overlays: the port-channel's, then the port's profile, then the
/// port's own lines), and the global `qos map` / `qos rewrite dscp` lines, which govern every
/// port. Without a `qos trust` line, EOS's default trust (DSCP on a routed port, CoS on a
/// switched one) at the interface header.
fn bindings(
    cfg: &Cfg,
    f: &IfCfg,
    parent: Option<&IfCfg>,
    stmts: &QosStmts,
    switched: bool,
) -> Vec<BoundPolicy> {
    // Where the statement at `src` was written.
    let origin = |src: &Src| -> (Bound, Option<String>) {
        let here = |q: &QosStmts| {
            q.trust.as_ref().is_some_and(|t| t.src == *src)
                || q.service_policy.as_ref().is_some_and(|t| t.src == *src)
        };
        for (x, bound) in [(Some(f), Bound::Port), (parent, Bound::Lag)] {
            let Some(x) = x else { continue };
            let lag = (bound == Bound::Lag).then(|| x.name.clone());
            if here(&x.lines().qos) {
                return (bound, lag);
            }
            if let Some(p) = &x.lines().service_profile
                && cfg.profiles.get(&p.v).is_some_and(here)
            {
                let via = format!("qos profile {}", p.v);
                return (
                    bound,
                    Some(lag.map_or(via.clone(), |l| format!("{l}, {via}"))),
                );
            }
        }
        (Bound::Port, None)
    };
    let placed = |kind: &str, name: &str, src: &Src| {
        let (bound, via) = origin(src);
        let b = BoundPolicy::new(kind, name, bound, Some(src));
        match via {
            Some(v) => b.via(&v),
            None => b,
        }
    };
    let mut v = Vec::new();
    for (x, bound) in [(parent, Bound::Lag), (Some(f), Bound::Port)] {
        if let Some(p) = x.and_then(|x| x.lines().service_profile.as_ref()) {
            let b = BoundPolicy::new("service-profile", &p.v, bound, Some(&p.src));
            v.push(match (bound, x) {
                (Bound::Lag, Some(x)) => b.via(&x.name),
                _ => b,
            });
        }
    }
    match &stmts.trust {
        Some(t) => {
            let name = match t.v.as_str() {
                "pcp" => "cos",
                "port" => "disabled",
                m => m,
            };
            v.push(placed("qos trust", name, &t.src));
        }
        None => v.push(BoundPolicy::new(
            "qos trust",
            if switched { "cos" } else { "dscp" },
            Bound::Default,
            Some(&f.src),
        )),
    }
    if let Some(sp) = &stmts.service_policy {
        v.push(placed("service-policy type qos input", &sp.v, &sp.src));
    }
    let global = |kind: &str, lines: &[(Vec<u32>, u8, Src)], to: &str| {
        lines
            .iter()
            .map(|(_, n, src)| {
                BoundPolicy::new(kind, &format!("{to} {n}"), Bound::Global, Some(src))
            })
            .collect::<Vec<_>>()
    };
    v.extend(global("qos map dscp", &cfg.dscp_maps, "to traffic-class"));
    v.extend(global("qos map cos", &cfg.cos_maps, "to traffic-class"));
    v.extend(global(
        "qos map traffic-class",
        &cfg.tc_queue_maps,
        "to tx-queue",
    ));
    if let Some(r) = &cfg.rewrite_dscp {
        let name = if r.v { "on" } else { "off" };
        v.push(BoundPolicy::new(
            "qos rewrite dscp",
            name,
            Bound::Global,
            Some(&r.src),
        ));
        if r.v {
            v.extend(global(
                "qos map traffic-class",
                &cfg.tc_dscp_maps,
                "to dscp",
            ));
        }
    }
    v
}

/// Egress DSCP rewrite by traffic class: `qos rewrite dscp` rewrites every packet's DSCP to
/// its traffic class's entry of the TC → DSCP map, which `qos map traffic-class LIST to dscp D`
/// sets. A class no line maps takes EOS's default TC → DSCP map, which no Arista text read for
/// this tool states: its entries are unknown, and so is the set of DSCPs rewritten unless every
/// class is mapped (DSCP006 then says it could not decide instead of passing). Without the
/// statement (or with `no qos rewrite dscp`) the DSCP leaves as it came [R: EOS rewrites DSCP
/// only where `qos rewrite dscp` or a policy's `set dscp` says so].
fn egress_rewrite(cfg: &Cfg, i: &mut Interface, dflt: Option<&Src>) {
    let on = match &cfg.rewrite_dscp {
        Some(r) if r.v => &r.src,
        off => {
            let at = off.as_ref().map(|r| &r.src).or(dflt);
            i.maps.tc_to_dscp = QosMap {
                entries: (0..8).map(|k| MapEntry::unchanged(k, at)).collect(),
                note: Some("DSCP rewrite off: no `qos rewrite dscp`".into()),
            };
            return;
        }
    };
    let mut per: Vec<Option<(u8, Src)>> = vec![None; 8];
    for (list, d, src) in &cfg.tc_dscp_maps {
        for tc in list {
            if let Some(slot) = per.get_mut(*tc as usize) {
                *slot = Some((*d, src.clone()));
            }
        }
    }
    let mut map = QosMap::assembled(&per, None);
    map.note = Some(
        "`qos rewrite dscp`: a traffic class without a `qos map traffic-class N to dscp D` line takes EOS's default TC → DSCP map, not stated in any source read here".into(),
    );
    let t2d = map.values();
    i.maps.tc_to_dscp = map;
    let by_policy = val(&i.qos.dscp_rewrites).cloned();
    i.qos.dscp_rewrites = match (t2d, val(&i.qos.dscp_to_tc), by_policy) {
        (Some(t2d), Some(d2t), Some(mut hit)) => {
            for d in 0..64u8 {
                let out = d2t.get(d as usize).and_then(|&tc| t2d.get(tc as usize));
                if out.is_some_and(|&o| o != d) && !hit.contains(&d) {
                    hit.push(d);
                }
            }
            hit.sort_unstable();
            known(hit, on)
        }
        _ => None,
    };
}

/// Default IP MTU of routed interfaces without `mtu`: 1500. [V] the corpus `show interfaces`
/// (ntc-templates arista_eos_show_interfaces2) prints `IP MTU 1500 bytes (default)`; [S] EOS MTU
/// blog series: "default value is 1500", enforced on routed packets only.
const DEFAULT_IP_MTU: u32 = 1500;
/// Loopbacks print `IP MTU 65535 bytes` without an `mtu` line [V corpus show interfaces].
const DEFAULT_LOOPBACK_MTU: u32 = 65535;
/// Switched (L2) ports forward frames whose payload is up to the Ethernet MTU, 9214 by default
/// (`Ethernet MTU 9214 bytes` on switched ports in both corpus `show interfaces` files; LLDP
/// "Maximum Frame Size: 9236" = 9214 + 14 header + 4 tag + 4 FCS). The `mtu` command is the IP
/// MTU and applies to routed traffic only [S EOS MTU blog]; `l2 mtu N` changes the L2 limit.
const DEFAULT_L2_MTU: u32 = 9214;
/// `random-detect ecn ...` without `max-mark-probability`: 100 %. [R] EOS command reference
/// (range 1-100, default 100); not checked against a primary text here, hence `default = true`.
const DEFAULT_ECN_MAX_PROB: f64 = 100.0;
/// PFC watchdog action when `priority-flow-control pause watchdog action` is absent: errdisable.
/// [S] AVD eos_cli_config_gen documents an unset action as "errdisable" (molecule qos docs).
const DEFAULT_WD_ACTION: &str = "errdisable";

/// DSCP values a policy-map rewrites: a class with `set dscp N` rewrites what it matches to N.
/// A class matching on DSCP values rewrites those; `class-default` or a class matching on
/// something else (an ACL) may see any DSCP not claimed by an earlier DSCP class, so all of
/// those count as rewritten [I: conservative]. Undefined class-maps match nothing.
fn policy_rewrites(cfg: &Cfg, pm: &PolicyMap) -> Vec<u8> {
    let mut claimed: BTreeSet<u8> = BTreeSet::new();
    let mut out: BTreeSet<u8> = BTreeSet::new();
    for (class, set, _) in &pm.classes {
        let matches: Option<Vec<u8>> = if class == "class-default" {
            None
        } else {
            match cfg.class_maps.get(class) {
                Some(m) => m.clone(),
                None => Some(Vec::new()),
            }
        };
        let set_to = *set;
        match matches {
            Some(list) => {
                if let Some(n) = set_to {
                    out.extend(
                        list.iter()
                            .copied()
                            .filter(|d| *d != n && !claimed.contains(d)),
                    );
                }
                claimed.extend(list);
            }
            None => {
                if let Some(n) = set_to {
                    out.extend((0..64u8).filter(|d| *d != n && !claimed.contains(d)));
                }
            }
        }
    }
    out.into_iter().collect()
}

/// The DSCP → traffic-class map of a port that applies `pm`: classes are tried in order and
/// the first that matches a packet decides; a class with `set traffic-class N` puts the DSCPs
/// it matches (and no earlier class claimed) in N, `class-default` takes the rest, and DSCPs
/// no such class matches keep the trust-based map (Arista EOS User Manual, Quality of Service,
/// "Policy-Maps": a `policy-map type quality-of-service` class sets the traffic class of the
/// packets it matches, applied with `service-policy type qos input`,
/// <https://www.arista.com/en/um-eos/eos-quality-of-service> [R: wording recalled]).
/// `None` when a class that sets a traffic class matches on something other than DSCP (an
/// ACL): which DSCPs it takes is not in the config.
fn policy_dscp_to_tc(cfg: &Cfg, pm: &PolicyMap, base: &[u8]) -> Option<Vec<u8>> {
    let mut out = base.to_vec();
    let mut claimed: BTreeSet<u8> = BTreeSet::new();
    for (ci, (class, _, _)) in pm.classes.iter().enumerate() {
        let set = pm.set_tc.get(&ci).map(|a| a.v);
        let matches: Vec<u8> = if class == "class-default" {
            (0..64u8).collect()
        } else {
            match cfg.class_maps.get(class) {
                Some(Some(list)) => list.clone(),
                // an ACL class: harmless unless it sets a traffic class
                Some(None) if set.is_some() => return None,
                // undefined class-maps (reported) match nothing
                Some(None) | None => Vec::new(),
            }
        };
        for d in matches {
            if claimed.insert(d)
                && let Some(tc) = set
                && let Some(slot) = out.get_mut(d as usize)
            {
                *slot = tc;
            }
        }
    }
    Some(out)
}

fn is_qos_port(kind: &str) -> bool {
    kind == "ethernet" || kind == "port-channel"
}

pub(super) fn apply_config(dev: &mut Device, cfg: &Cfg) {
    if let Some(h) = &cfg.hostname {
        dev.hostname = known(h.v.clone(), &h.src);
    }
    if let Some(v) = &cfg.version {
        dev.os_version = known(v.v.clone(), &v.src);
    }

    // Global maps: EOS defaults overlaid by `qos map` lines (cited by the first such line).
    let mut dscp_map = default_dscp_to_tc();
    for (list, tc, _) in &cfg.dscp_maps {
        for d in list {
            if let Some(slot) = dscp_map.get_mut(*d as usize) {
                *slot = *tc;
            }
        }
    }
    let dscp_src = cfg.dscp_maps.first().map(|m| m.2.clone());
    let mut cos_map = default_cos_to_tc();
    for (list, tc, _) in &cfg.cos_maps {
        for c in list {
            if let Some(slot) = cos_map.get_mut(*c as usize) {
                *slot = *tc;
            }
        }
    }
    let cos_src = cfg.cos_maps.first().map(|m| m.2.clone());
    let mut tc_queue = util::identity8();
    for (list, q, _) in &cfg.tc_queue_maps {
        for tc in list {
            // TC7 → queue 7 is fixed on EOS (control traffic); the CLI refuses to move it.
            if let Some(slot) = tc_queue.get_mut(*tc as usize) {
                *slot = *q;
            }
        }
    }
    let tcq_src = cfg.tc_queue_maps.first().map(|m| m.2.clone());

    // Port-channel → members, and each member's parent block. Only port-channels are indexed,
    // the one name looked up: an index of every interface was ~1.6 MB of the peak for 1 MiB
    // of bare `interface` lines (issue 19).
    let by_name: HashMap<&str, usize> = cfg
        .interfaces
        .iter()
        .enumerate()
        .filter(|(_, f)| f.name.starts_with("Port-Channel"))
        .map(|(i, f)| (f.name.as_str(), i))
        .collect();
    let parent_of = |f: &IfCfg| -> Option<String> {
        f.lines()
            .channel_group
            .as_ref()
            .map(|c| format!("Port-Channel{}", c.v))
    };

    // Effective QoS statements: parent port-channel (its profile, then its own lines), then
    // the port's profile, then the port's own lines [I: EOS applies port-channel QoS to members;
    // interface lines beat profile lines, per the EOS "policy maps under QoS profiles" note].
    let own_stmts = |f: &IfCfg| -> QosStmts {
        let mut s = QosStmts::default();
        if let Some(p) = f
            .lines()
            .service_profile
            .as_ref()
            .and_then(|p| cfg.profiles.get(&p.v))
        {
            s.overlay(p);
        }
        s.overlay(&f.lines().qos);
        s
    };

    let mut policies: BTreeSet<String> = BTreeSet::new();
    for f in &cfg.interfaces {
        let parent =
            parent_of(f).and_then(|p| by_name.get(p.as_str()).map(|i| &cfg.interfaces[*i]));
        let mut stmts = QosStmts::default();
        if let Some(pf) = parent {
            stmts.overlay(&own_stmts(pf));
        }
        stmts.overlay(&own_stmts(f));
        let fl = f.lines();
        if let Some(p) = &fl.service_profile
            && cfg.profiles.contains_key(&p.v)
        {
            policies.insert(format!("qos profile {}", p.v));
        }

        let parent_sw = parent.and_then(|p| p.lines().switchport.as_ref());
        let switched: Field<bool> = match (&fl.switchport, &fl.ip_address, parent_sw) {
            (Some(s), _, _) => known(s.v, &s.src),
            // an addressed port is routed even when the `no switchport` line was left out
            (None, Some(ip), _) if is_qos_port(f.kind) => known(false, ip),
            (None, _, Some(ps)) => default_of(ps.v, Some(&ps.src)),
            (None, _, None) => default_of(is_qos_port(f.kind), Some(&f.src)),
        };
        let is_switched = val(&switched).copied().unwrap_or(false);

        let i = dev.iface(&f.name, f.kind);
        i.set_defined_at(f.src.clone());
        i.admin_up = match (&fl.shutdown, &cfg.default_eth_shutdown) {
            (Some(s), _) => known(!s.v, &s.src),
            (None, Some(d)) if f.kind == "ethernet" => default_of(!d.v, Some(&d.src)),
            _ => default_of(true, Some(&f.src)),
        };
        i.switchport = switched;
        if let Some(s) = &fl.speed {
            i.speed_gbps = s.v.and_then(|g| known(g, &s.src));
        }

        // MTU normalized to what a RoCE packet (IP) may carry through the port.
        let mtu: Field<u32> = if is_switched && is_qos_port(f.kind) {
            let l2 = (fl.l2_mtu.as_ref()).or(parent.and_then(|p| p.lines().l2_mtu.as_ref()));
            match l2 {
                Some(m) => known(m.v, &m.src),
                None => default_of(DEFAULT_L2_MTU, Some(&f.src)),
            }
        } else {
            let ip = (fl.mtu.as_ref()).or(parent.and_then(|p| p.lines().mtu.as_ref()));
            match (ip, &cfg.default_mtu) {
                (Some(m), _) => known(m.v, &m.src),
                // `interface defaults` > `mtu` sets the default of routed data-plane
                // interfaces; management and loopback keep theirs [R EOS manual; I].
                (None, Some(d)) if matches!(f.kind, "ethernet" | "port-channel" | "vlan") => {
                    default_of(d.v, Some(&d.src))
                }
                (None, _) if f.kind == "loopback" => default_of(DEFAULT_LOOPBACK_MTU, Some(&f.src)),
                (None, _) => default_of(DEFAULT_IP_MTU, Some(&f.src)),
            }
        };
        i.mtu_raw = mtu.clone();
        i.mtu = mtu;

        if let Some(p) = parent_of(f) {
            i.names.lag_parent = Some(p);
        }

        if !is_qos_port(f.kind) {
            continue;
        }
        let dflt = Some(&f.src);
        crate::model::maps::bind(i, || bindings(cfg, f, parent, &stmts, is_switched));
        i.qos.trust = match &stmts.trust {
            Some(t) => known(t.v.clone(), &t.src),
            // EOS: routed ports trust DSCP, switched ports CoS [S RoCEv2 guide].
            None => default_of(if is_switched { "pcp" } else { "dscp" }.to_string(), dflt),
        };
        i.qos.dscp_to_tc = match &dscp_src {
            Some(s) => known(dscp_map.clone(), s),
            None => default_of(dscp_map.clone(), dflt),
        };
        // The entry-by-entry maps (each entry's `qos map` line) are shown only by the model
        // (`keep_policies`); built for every port, they were most of an EOS port's memory.
        let entries = crate::model::maps::keep_policies();
        if entries {
            i.maps.dscp_to_tc = global_map(&default_dscp_to_tc(), &cfg.dscp_maps, dflt);
        }
        i.qos.pcp_to_tc = match &cos_src {
            Some(s) => known(cos_map.clone(), s),
            None => default_of(cos_map.clone(), dflt),
        };
        if entries {
            i.maps.pcp_to_tc = global_map(&default_cos_to_tc(), &cfg.cos_maps, dflt);
        }
        // A qos policy that sets traffic classes classifies before the trust map does.
        if let Some(sp) = &stmts.service_policy
            && let Some(pm) = cfg.policy_maps.get(&sp.v)
            && !pm.set_tc.is_empty()
        {
            i.qos.dscp_to_tc =
                policy_dscp_to_tc(cfg, pm, &dscp_map).and_then(|m| known(m, &sp.src));
            // The policy's classes decide, entry by entry from the vector (one line: the
            // service-policy).
            if entries {
                i.maps.dscp_to_tc = QosMap::default();
            }
        }
        i.qos.tc_to_queue = match &tcq_src {
            Some(s) => known(tc_queue.clone(), s),
            None => default_of(tc_queue.clone(), dflt),
        };
        // No EOS statement remaps TC → PG or TC → PFC priority: traffic class N is paused as
        // priority N when `priority-flow-control priority N no-drop` [I, consistent with the RoCEv2
        // guide].
        i.qos.tc_to_pg = default_of(util::identity8(), dflt);
        i.qos.tc_to_pfc_priority = default_of(util::identity8(), dflt);
        i.qos.dscp_rewrites = match &stmts.service_policy {
            Some(sp) => match cfg.policy_maps.get(&sp.v) {
                Some(pm) => {
                    policies.insert(format!("policy-map {}", sp.v));
                    known(policy_rewrites(cfg, pm), &sp.src)
                }
                // undefined (reported): nothing is applied
                None => default_of(Vec::new(), Some(&sp.src)),
            },
            None => default_of(Vec::new(), dflt),
        };
        egress_rewrite(cfg, i, dflt);

        // PFC. `priority-flow-control all off` wins over every port [V EOS DCBX manual: PFC is
        // disabled by default; the global switch turns it off everywhere].
        let (pfc_on, pfc_src, pfc_default) = match (&cfg.pfc_all_off, &stmts.pfc_on) {
            (Some(s), _) => (false, s.clone(), false),
            (None, Some(m)) => (m.v, m.src.clone(), false),
            (None, None) => (false, f.src.clone(), true),
        };
        let mk = |v: bool| -> Field<bool> {
            if pfc_default {
                default_of(v, Some(&pfc_src))
            } else {
                known(v, &pfc_src)
            }
        };
        i.pfc.mode = if pfc_default {
            default_of("off".to_string(), Some(&pfc_src))
        } else {
            known(if pfc_on { "on" } else { "off" }.to_string(), &pfc_src)
        };
        let nodrop: Vec<(u8, Src)> = stmts
            .pfc_prios
            .iter()
            .filter(|(_, a)| a.v)
            .map(|(p, a)| (*p, a.src.clone()))
            .collect();
        if pfc_on {
            let prios: Vec<u8> = nodrop.iter().map(|(p, _)| *p).collect();
            let src = nodrop
                .first()
                .map(|n| n.1.clone())
                .unwrap_or(pfc_src.clone());
            let active = !prios.is_empty();
            i.pfc.priorities = known(prios, &src);
            // EOS PFC is symmetric: a no-drop priority is both honoured and generated.
            i.pfc.rx = known(active, &src);
            i.pfc.tx = known(active, &src);
        } else {
            i.pfc.priorities = if pfc_default {
                default_of(Vec::new(), Some(&pfc_src))
            } else {
                known(Vec::new(), &pfc_src)
            };
            i.pfc.rx = mk(false);
            i.pfc.tx = mk(false);
        }

        // Link pause (802.3x): off by default [R]; EOS disables it on a port with PFC on
        // [V EOS DCBX manual: "An interface that is configured for PFC will be disabled for FC"].
        if f.kind == "ethernet" {
            let lp = |fc: &Option<At<Option<bool>>>| -> Field<bool> {
                if pfc_on {
                    return known(false, &pfc_src);
                }
                match fc {
                    Some(a) => a.v.and_then(|v| known(v, &a.src)),
                    None => default_of(false, Some(&f.src)),
                }
            };
            i.link_pause.rx = lp(&fl.fc_rx);
            i.link_pause.tx = lp(&fl.fc_tx);
        }

        apply_queues(i, &stmts, &f.src);
        apply_watchdog(i, cfg, &stmts, &f.src, pfc_on);
    }

    // Members on their port-channels (EOS creates the port-channel with the first member).
    let mut members: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for f in &cfg.interfaces {
        if let Some(p) = parent_of(f) {
            members.entry(p).or_default().push(f.name.clone());
        }
    }
    for (po, ms) in members {
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

/// Queues 0..7: scheduler, weight, ECN, WRED.
fn apply_queues(i: &mut Interface, stmts: &QosStmts, ifsrc: &Src) {
    // EOS queues are strict priority by default; `no priority` on queue N makes N and every
    // lower queue round robin [R EOS QoS manual; the corpus `show qos interfaces` shows SP
    // above and RR below the configured queues].
    let rr_from: Option<(u8, Src)> = stmts
        .queues
        .iter()
        .rev()
        .find(|(_, q)| q.strict.as_ref().is_some_and(|s| !s.v))
        .and_then(|(n, q)| q.strict.as_ref().map(|s| (*n, s.src.clone())));
    let empty = QueueStmts::default();
    for q in i.queues.iter_mut() {
        let s = stmts.queues.get(&q.id).unwrap_or(&empty);
        q.scheduler = match (&s.strict, &rr_from) {
            (Some(a), _) => known(if a.v { "strict" } else { "dwrr" }.to_string(), &a.src),
            (None, Some((n, src))) if q.id <= *n => default_of("dwrr".to_string(), Some(src)),
            _ => default_of("strict".to_string(), Some(ifsrc)),
        };
        q.weight_pct = match (&s.bw_pct, &s.guaranteed_pct) {
            (Some(b), _) => known(b.v, &b.src),
            (None, Some(g)) => known(g.v, &g.src),
            _ => None,
        };
        match &s.ecn {
            Some(e) => {
                q.ecn.enabled = known(true, &e.src);
                q.ecn.min_bytes = e.min_bytes.and_then(|b| known(b, &e.src));
                q.ecn.max_bytes = e.max_bytes.and_then(|b| known(b, &e.src));
                q.ecn.max_probability_pct = match e.prob {
                    Some(p) => known(p, &e.src),
                    None => default_of(DEFAULT_ECN_MAX_PROB, Some(&e.src)),
                };
            }
            None => q.ecn.enabled = default_of(false, Some(ifsrc)),
        }
        q.wred_drop = match &s.wred {
            Some(src) => known(true, src),
            None => default_of(false, Some(ifsrc)),
        };
    }
}

/// PFC watchdog of one port. The watchdog only watches PFC no-drop queues; it is off unless
/// configured: a port line (`[no] priority-flow-control pause watchdog`) decides, else a global
/// `priority-flow-control pause watchdog`, else a configured timeout (global default or port
/// timer) turns it on for PFC ports [R EOS DCBX manual, PFC watchdog section; I].
fn apply_watchdog(i: &mut Interface, cfg: &Cfg, stmts: &QosStmts, ifsrc: &Src, pfc_on: bool) {
    let w = &mut i.watchdog;
    let timer_src = stmts
        .wd_timer
        .as_ref()
        .map(|t| t.src.clone())
        .or(cfg.wd_timeout_ms.as_ref().map(|t| t.src.clone()));
    w.enabled = match (&stmts.wd_enable, &cfg.wd_global_enable, &timer_src) {
        (Some(e), _, _) => known(e.v, &e.src),
        (None, Some(g), _) => known(g.v && pfc_on, &g.src),
        // No line says "on": the watchdog is inferred from a configured timeout, so it is
        // recorded as a default at that line, not as a stated fact.
        (None, None, Some(src)) => default_of(pfc_on, Some(src)),
        (None, None, None) => default_of(false, Some(ifsrc)),
    };
    // A port `timer` line replaces the global defaults as a whole; a value it leaves out
    // (`polling-interval auto`) is derived by EOS and unknown here.
    let g = |f: &Option<At<f64>>| f.as_ref().and_then(|a| known(a.v, &a.src));
    match &stmts.wd_timer {
        Some(t) => {
            w.detect_ms = known(t.timeout_ms, &t.src);
            w.restore_ms = t.recovery_ms.and_then(|v| known(v, &t.src));
            w.poll_ms = t.poll_ms.and_then(|v| known(v, &t.src));
        }
        None => {
            w.detect_ms = g(&cfg.wd_timeout_ms);
            w.restore_ms = g(&cfg.wd_recovery_ms);
            w.poll_ms = g(&cfg.wd_poll_ms);
        }
    }
    w.action = match (&stmts.wd_action, &cfg.wd_action) {
        (Some(a), _) => known(a.v.clone(), &a.src),
        (None, Some(g)) => known(g.v.clone(), &g.src),
        (None, None) => default_of(DEFAULT_WD_ACTION.to_string(), Some(ifsrc)),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_dscp_map() {
        let m = default_dscp_to_tc();
        assert_eq!((m[0], m[8], m[26], m[48], m[63]), (1, 0, 3, 6, 7));
    }
}
