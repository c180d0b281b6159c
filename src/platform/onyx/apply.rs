//! Resolving Onyx statements into the model: port-channel → member inheritance, the `roce`
//! profile, and the Onyx defaults applied where a line is absent (`default = true`).
//!
//! Onyx classifies DSCP → switch priority → traffic class. The model has no switch-priority
//! layer: `dscp_to_tc` is the composition, and `tc_to_pfc_priority[t]` is the switch priority
//! traffic class `t` carries (the lowest one when several share it [I]).

use super::read::{At, Cfg, Ets, IfCfg, QosStmts};
use crate::model::maps::{Bound, BoundPolicy, MapEntry, QosMap};
use crate::model::{Device, Field, Interface, Src, default_of, known};
use crate::platform::util;
use std::collections::{BTreeMap, BTreeSet};

/// MTU of a port without `mtu`: 1500 [V: `show interfaces ethernet` of unconfigured ports prints
/// `MTU: 1500 bytes (Maximum packet size 1522 bytes)`, Ansible onyx fixture and a device dump].
/// The Onyx MTU is the IP MTU (1522 = 1500 + 14 header + 4 tag + 4 FCS).
const DEFAULT_MTU: u32 = 1500;
/// ETS of a traffic class without `dcb ets`: WRR with relative weights 12/13 alternating
/// (summing to 100). [S] `show dcb ets interface` of a real switch in the Ansible onyx test
/// fixtures (unconfigured TCs show W 12 or 13).
const DEFAULT_ETS_WEIGHTS: [u32; 8] = [12, 13, 12, 13, 12, 13, 12, 13];
/// What `roce` sets, from the Onyx manual's `show roce` example [V RoCE Commands] and a device's
/// output
/// [V blog copy of `show roce`, Onyx ≥ 3.8.2008]: trust L3; ECN absolute 150/1500 KB on the RoCE
/// TC; PFC on switch priority 3 (lossless only); SP 3 → TC 3 WRR 50 %, SP 6 → TC 6 strict;
/// SP 3 in the lossless pool `roce-reserved`, the others in `lossy-default`. The other switch
/// priorities go to TC 0 with the remaining WRR 50 % [S: the same NVIDIA RoCE profile as
/// documented for Cumulus (the table of Cumulus Linux 5.12's RoCE page); Onyx's output lists only
/// the TCs RoCE uses].
const ROCE_SP: u8 = 3;
const ROCE_TC: u8 = 3;
const CNP_SP: u8 = 6;
const CNP_TC: u8 = 6;
const ROCE_ECN_KB: (f64, f64) = (150.0, 1500.0);
const ROCE_POOL: &str = "roce-reserved";
const DEFAULT_POOL: &str = "lossy-default";
/// The watchdog flushes the stuck queue and drops what is sent to it until the storm ends
/// [V Onyx manual 3.10.4408, PFC chapter, "PFC watchdog"]; there is no other action.
const WD_ACTION: &str = "drop";

#[derive(Debug, Clone, Copy, PartialEq)]
enum RoceMode {
    Lossless,
    SemiLossless,
    Lossy,
}

/// A value that is stated (known) or a platform default, with its line.
struct Val<T> {
    v: T,
    src: Src,
    default: bool,
}

impl<T: Clone> Val<T> {
    fn field(&self) -> Field<T> {
        if self.default {
            default_of(self.v.clone(), Some(&self.src))
        } else {
            known(self.v.clone(), &self.src)
        }
    }
}

fn stated<T: Clone>(a: &At<T>) -> Val<T> {
    Val {
        v: a.v.clone(),
        src: a.src.clone(),
        default: false,
    }
}

fn dflt<T>(v: T, src: &Src) -> Val<T> {
    Val {
        v,
        src: src.clone(),
        default: true,
    }
}

/// Device-wide resolution shared by every port.
struct Global {
    roce: Option<(RoceMode, Src)>,
    /// PFC globally enabled (`dcb priority-flow-control enable`); `None` src = factory default.
    pfc_on: (bool, Option<Src>, bool),
    /// Switch priorities with PFC enabled.
    prios: (Vec<u8>, Option<Src>, bool),
}

impl Global {
    fn lossless_roce(&self) -> Option<&Src> {
        match &self.roce {
            Some((RoceMode::Lossless | RoceMode::SemiLossless, s)) => Some(s),
            _ => None,
        }
    }
}

fn global(cfg: &Cfg) -> Global {
    let roce = cfg.roce.as_ref().and_then(|r| {
        let mode = match r.v.as_deref()? {
            "lossy" => RoceMode::Lossy,
            "semi-lossless" => RoceMode::SemiLossless,
            _ => RoceMode::Lossless,
        };
        Some((mode, r.src.clone()))
    });
    let mut g = Global {
        roce,
        pfc_on: (false, None, true),
        prios: (Vec::new(), None, true),
    };
    // PFC is off on every port and priority unless configured [V PFC page].
    g.pfc_on = match (&cfg.pfc_global, g.lossless_roce()) {
        (Some(a), _) => (a.v, Some(a.src.clone()), false),
        (None, Some(s)) => (true, Some(s.clone()), true),
        (None, None) => (false, None, true),
    };
    let enabled: Vec<(u8, &Src)> = cfg
        .pfc_prios
        .iter()
        .filter(|(_, a)| a.v)
        .map(|(p, a)| (*p, &a.src))
        .collect();
    g.prios = if !cfg.pfc_prios.is_empty() {
        let src = enabled
            .first()
            .map(|(_, s)| (*s).clone())
            .or_else(|| cfg.pfc_prios.values().next().map(|a| a.src.clone()));
        (enabled.iter().map(|(p, _)| *p).collect(), src, false)
    } else if let Some(s) = g.lossless_roce() {
        (vec![ROCE_SP], Some(s.clone()), true)
    } else {
        (Vec::new(), None, true)
    };
    g
}

pub(super) fn apply_config(dev: &mut Device, cfg: &Cfg) {
    if let Some(h) = &cfg.hostname {
        dev.hostname = known(h.v.clone(), &h.src);
    }
    if let Some(v) = &cfg.version {
        dev.os_version = known(v.v.clone(), &v.src);
    }
    let g = global(cfg);
    // `roce lossless` (or semi-lossless) is the switch's stated lossless intent [V RoCE Commands].
    if let Some((mode, s)) = &g.roce
        && g.lossless_roce().is_some()
    {
        let name = match mode {
            RoceMode::SemiLossless => "roce semi-lossless",
            _ => "roce lossless",
        };
        dev.qos.lossless_mode = known(name.to_string(), s);
    }

    for f in &cfg.interfaces {
        let parent = f.port().lag.as_ref().and_then(|l| cfg.get(&l.v));
        let mut stmts = QosStmts::default();
        if let Some(p) = parent {
            stmts.overlay(&p.qos);
        }
        stmts.overlay(&f.qos);

        let i = dev.iface(&f.name, f.kind());
        i.set_defined_at(f.src.clone());
        i.admin_up = match &f.port().shutdown {
            Some(s) => known(!s.v, &s.src),
            // MLAG port-channels are created down (configs carry an explicit `no shutdown`) [I];
            // Ethernet ports and port-channels are up by default [V: `Admin state: Enabled` on
            // unconfigured ports].
            None => default_of(!f.name.starts_with("Mpo"), Some(&f.src)),
        };
        let l2_capable = matches!(f.kind(), "ethernet" | "port-channel");
        i.switchport = match (&f.port().switchport, &f.port().ip_address) {
            (Some(s), _) => known(s.v, &s.src),
            (None, Some(ip)) => known(false, ip),
            (None, None) => match parent.and_then(|p| p.port().switchport.as_ref()) {
                Some(ps) => default_of(ps.v, Some(&ps.src)),
                // Ethernet ports are access switchports by default [V: `Switchport mode: access`].
                None if l2_capable => default_of(true, Some(&f.src)),
                None => None,
            },
        };
        if let Some(s) = &f.port().speed {
            i.speed_gbps = s.v.and_then(|v| known(v, &s.src));
        }
        if f.kind() != "loopback" {
            let mtu = match &stmts.mtu {
                Some(m) => known(m.v, &m.src),
                None => default_of(DEFAULT_MTU, Some(&f.src)),
            };
            i.mtu_raw = mtu.clone();
            i.mtu = mtu;
        }
        if let Some(l) = &f.port().lag {
            i.names.lag_parent = Some(l.v.clone());
        }
        if !l2_capable {
            continue;
        }
        crate::model::maps::bind(i, || bindings(f, parent, &stmts, &g));
        apply_port(i, f, &stmts, &g, cfg);
    }

    // Members on their port-channels.
    let mut members: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for f in &cfg.interfaces {
        if let Some(l) = &f.port().lag {
            members.entry(l.v.clone()).or_default().push(f.name.clone());
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

    // Lossless buffer: only the percent is configured; a lossless pool given 0 % is empty.
    let lossless: Vec<&super::read::Pool> = cfg
        .pools
        .values()
        .filter(|p| p.ty.as_ref().is_some_and(|t| t.v == "lossless"))
        .collect();
    if !lossless.is_empty()
        && lossless
            .iter()
            .all(|p| p.memory_pct.as_ref().is_some_and(|m| m.v == 0.0))
        && let Some(m) = lossless[0].memory_pct.as_ref()
    {
        dev.qos.lossless_pool_bytes = known(0, &m.src);
    }

    let mut policies: BTreeSet<String> = BTreeSet::new();
    if let Some((mode, _)) = &g.roce {
        policies.insert(format!(
            "roce {}",
            match mode {
                RoceMode::Lossless => "lossless",
                RoceMode::SemiLossless => "semi-lossless",
                RoceMode::Lossy => "lossy",
            }
        ));
    }
    for (name, p) in &cfg.pools {
        let ty = p.ty.as_ref().map(|t| t.v.as_str()).unwrap_or("lossy");
        policies.insert(format!("traffic pool {name} ({ty})"));
    }
    for p in policies {
        if !dev.qos.policies.contains(&p) {
            dev.qos.policies.push(p);
        }
    }
}

/// The QoS statements in force on a port (`QosMaps::policies`): Onyx names no policies, so each
/// statement is listed by its command, from the port's own lines or, where it has none of that
/// kind, its port-channel's (the overlay above), and the global `roce` profile and
/// `dcb priority-flow-control` lines, which govern every port. Without `qos trust`, the default
/// trust (L3 under a `roce` profile, else L2) at the profile line or the interface header.
fn bindings(f: &IfCfg, parent: Option<&IfCfg>, stmts: &QosStmts, g: &Global) -> Vec<BoundPolicy> {
    let placed = |kind: &str, name: &str, src: &Src| {
        let b = BoundPolicy::new(kind, name, Bound::Port, Some(src));
        match parent {
            Some(p) if !f.qos.has_line(src) && p.qos.has_line(src) => BoundPolicy {
                bound: Bound::Lag,
                ..b.via(&p.name)
            },
            _ => b,
        }
    };
    let mut v = Vec::new();
    if let Some((mode, s)) = &g.roce {
        let name = match mode {
            RoceMode::Lossless => "lossless",
            RoceMode::SemiLossless => "semi-lossless",
            RoceMode::Lossy => "lossy",
        };
        v.push(BoundPolicy::new("roce", name, Bound::Global, Some(s)));
    }
    if let (true, Some(s)) = (g.pfc_on.0, &g.pfc_on.1) {
        v.push(BoundPolicy::new(
            "dcb priority-flow-control",
            "enable",
            Bound::Global,
            Some(s),
        ));
    }
    match &stmts.more().trust {
        Some(t) => {
            let name = match t.v.as_str() {
                "pcp" => "L2",
                "dscp" => "L3",
                other => other,
            };
            v.push(placed("qos trust", name, &t.src));
        }
        None => {
            let (name, at) = match &g.roce {
                Some((_, s)) => ("L3", s),
                None => ("L2", &f.src),
            };
            v.push(BoundPolicy::new(
                "qos trust",
                name,
                Bound::Default,
                Some(at),
            ));
        }
    }
    if let Some(r) = &stmts.more().rewrite_dscp {
        let name = if r.v { "enabled" } else { "disabled" };
        v.push(placed("qos rewrite dscp", name, &r.src));
    }
    for (sp, tc) in &stmts.more().bind {
        let kind = format!("traffic-class {} bind switch-priority", tc.v);
        v.push(placed(&kind, &sp.to_string(), &tc.src));
    }
    for (tc, c) in &stmts.more().cc {
        let kind = format!("traffic-class {tc} congestion-control");
        v.push(placed(&kind, c.mode.as_deref().unwrap_or("none"), &c.src));
    }
    for (tc, e) in &stmts.more().ets {
        let kind = format!("traffic-class {tc} dcb ets");
        let name = match e.v {
            Ets::Strict => "strict".to_string(),
            Ets::Wrr(w) => format!("wrr {w}"),
        };
        v.push(placed(&kind, &name, &e.src));
    }
    v
}

/// Classification, PFC, link pause, queues, buffers and watchdog of a port or port-channel.
fn apply_port(i: &mut Interface, f: &IfCfg, stmts: &QosStmts, g: &Global, cfg: &Cfg) {
    let fsrc = &f.src;
    let roce_src = g.roce.as_ref().map(|(_, s)| s);

    // Trust: L2 (PCP) unless configured [S: Ansible onyx_qos default `L2`; NVIDIA's RoCE
    // recipes always set `qos trust L3`]; the RoCE profile trusts L3 [V RoCE Commands].
    let trust = match (&stmts.more().trust, roce_src) {
        (Some(t), _) => stated(t),
        (None, Some(s)) => dflt("dscp".to_string(), s),
        (None, None) => dflt("pcp".to_string(), fsrc),
    };
    i.qos.trust = trust.field();

    // Switch priority → traffic class: identity by default [V: `show qos interface` rewrite
    // table, SP n → TC n]; the RoCE profile's map; then `bind switch-priority` lines.
    let mut sp_to_tc: [u8; 8] = [0, 1, 2, 3, 4, 5, 6, 7];
    let mut map_src = dflt((), fsrc);
    if let Some(s) = roce_src {
        sp_to_tc = [0; 8];
        sp_to_tc[ROCE_SP as usize] = ROCE_TC;
        sp_to_tc[CNP_SP as usize] = CNP_TC;
        map_src = dflt((), s);
    }
    for (sp, tc) in &stmts.more().bind {
        if let Some(slot) = sp_to_tc.get_mut(*sp as usize) {
            *slot = tc.v;
        }
    }
    if let Some(first) = stmts.more().bind.values().next() {
        map_src = stated(&At {
            v: (),
            src: first.src.clone(),
        });
    }
    let field_of = |v: Vec<u8>, s: &Val<()>| -> Field<Vec<u8>> {
        Val {
            v,
            src: s.src.clone(),
            default: s.default,
        }
        .field()
    };
    // DSCP → switch priority is DSCP / 8 [V: `show qos interface` DSCP mapping, e.g. 24-31 → 3].
    let dscp_to_tc: Vec<u8> = (0..64u8).map(|d| sp_to_tc[(d >> 3) as usize]).collect();
    i.qos.dscp_to_tc = field_of(dscp_to_tc, &map_src);
    let tc_to_sp: Vec<u8> = (0..8u8)
        .map(|t| (0..8u8).find(|sp| sp_to_tc[*sp as usize] == t).unwrap_or(t))
        .collect();
    i.qos.tc_to_pfc_priority = field_of(tc_to_sp.clone(), &map_src);
    // 802.1p → switch priority is the identity [V: `show qos interface` PCP mapping, PCP n →
    // SP n; R], so PCP → TC is SP → TC. Entry by entry, DSCP and PCP cite the `bind
    // switch-priority` line of their switch priority, else the default (the RoCE profile or the
    // port).
    let sp_entry = |from: u8, sp: u8| -> MapEntry {
        let tc = sp_to_tc[sp as usize & 7];
        match stmts.more().bind.get(&sp) {
            Some(b) => MapEntry::config(from, tc, &b.src),
            None => MapEntry::default(from, tc, Some(roce_src.unwrap_or(fsrc))),
        }
    };
    i.qos.pcp_to_tc = field_of(sp_to_tc.to_vec(), &map_src);
    i.maps.pcp_to_tc = QosMap {
        entries: (0..8u8).map(|p| sp_entry(p, p)).collect(),
        note: None,
    };
    i.maps.dscp_to_tc = QosMap {
        entries: (0..64u8).map(|d| sp_entry(d, d >> 3)).collect(),
        note: None,
    };
    // Traffic class n is egress queue n; ingress buffers follow the switch priority [I].
    i.qos.tc_to_queue = default_of(util::identity8(), Some(fsrc));
    i.qos.tc_to_pg = default_of(util::identity8(), Some(fsrc));

    // DSCP rewrite (off unless configured: `qos rewrite dscp`, NVIDIA Onyx User Manual, QoS
    // Commands, https://docs.nvidia.com/networking/display/onyxv3102202/qos+commands; Mellanox's
    // own mellanox.onyx Ansible collection, onyx_qos: rewrite_dscp "disabled (default)",
    // https://docs.ansible.com/ansible/5/collections/mellanox/onyx/onyx_qos_module.html) rewrites a packet's
    // DSCP from its switch priority, SP n → DSCP 8n [V: `show qos interface` rewrite table].
    i.qos.dscp_rewrites = match &stmts.more().rewrite_dscp {
        Some(r) if r.v => known((0..64u8).filter(|d| d % 8 != 0).collect(), &r.src),
        Some(r) => known(Vec::new(), &r.src),
        None => default_of(Vec::new(), Some(fsrc)),
    };

    apply_pfc(i, f, stmts, g);
    apply_queues(i, stmts, g, fsrc, &sp_to_tc);
    apply_buffers(i, cfg, g, fsrc, &tc_to_sp);

    // PFC watchdog: off unless configured [I: Onyx describes it as a feature to enable]; a
    // port line decides, else the global one on PFC ports.
    let pfc_active = i
        .pfc
        .priorities
        .as_ref()
        .is_some_and(|p| !p.value.is_empty());
    let w = &mut i.watchdog;
    w.enabled = match (&stmts.more().wd, &cfg.wd_global) {
        (Some(e), _) => known(e.v, &e.src),
        (None, Some(gl)) => known(gl.v && pfc_active, &gl.src),
        (None, None) => default_of(false, Some(fsrc)),
    };
    let wd_src = match (&stmts.more().wd, &cfg.wd_global) {
        (Some(e), _) => e.src.clone(),
        (None, Some(gl)) => gl.src.clone(),
        (None, None) => fsrc.clone(),
    };
    w.action = default_of(WD_ACTION.to_string(), Some(&wd_src));
}

fn apply_pfc(i: &mut Interface, f: &IfCfg, stmts: &QosStmts, g: &Global) {
    let fsrc = &f.src;
    let (on, on_src, on_default) = &g.pfc_on;
    let (prios, prio_src, prio_default) = &g.prios;
    // Port mode: auto (DCBX decides) unless configured [V: unconfigured ports show `PFC admin
    // Auto`]; the RoCE profile enables PFC on every port whatever the peer says [I].
    let mode = match (&stmts.more().pfc_mode, g.lossless_roce()) {
        (Some(m), _) => stated(m),
        (None, Some(s)) => dflt("on".to_string(), s),
        (None, None) => dflt("auto".to_string(), fsrc),
    };
    i.pfc.mode = mode.field();
    let active: Val<Vec<u8>> = if !*on {
        Val {
            v: Vec::new(),
            src: on_src.clone().unwrap_or_else(|| fsrc.clone()),
            default: *on_default,
        }
    } else {
        Val {
            v: prios.clone(),
            src: prio_src.clone().unwrap_or_else(|| fsrc.clone()),
            default: *prio_default,
        }
    };
    let any = !active.v.is_empty();
    // Semi-lossless: the switch honours received pause frames but sends none ("pause rx
    // compliant, no pause propagation") [V RoCE Commands `roce` syntax].
    let semi = matches!(g.roce, Some((RoceMode::SemiLossless, _))) && active.default;
    let mk = |v: bool| -> Field<bool> {
        Val {
            v,
            src: active.src.clone(),
            default: active.default,
        }
        .field()
    };
    i.pfc.rx = mk(any);
    i.pfc.tx = mk(any && !semi);
    i.pfc.priorities = active.field();

    // 802.3x link pause: off unless configured [V: `Flow-control: receive off send off` on
    // unconfigured ports].
    if f.kind() == "ethernet" {
        let lp = |a: &Option<At<bool>>| match a {
            Some(x) => known(x.v, &x.src),
            None => default_of(false, Some(fsrc)),
        };
        i.link_pause.rx = lp(&f.port().fc_rx);
        i.link_pause.tx = lp(&f.port().fc_tx);
    }
}

/// ETS and ECN/RED of the eight traffic classes (= egress queues).
fn apply_queues(i: &mut Interface, stmts: &QosStmts, g: &Global, fsrc: &Src, sp_to_tc: &[u8; 8]) {
    let roce_src = g.roce.as_ref().map(|(_, s)| s);
    let ets: Vec<Val<Ets>> = (0..8u8)
        .map(|t| match (stmts.more().ets.get(&t), roce_src) {
            (Some(e), _) => stated(e),
            (None, Some(s)) if t == ROCE_TC => dflt(Ets::Wrr(50), s),
            (None, Some(s)) if t == CNP_TC => dflt(Ets::Strict, s),
            (None, Some(s)) if t == 0 => dflt(Ets::Wrr(50), s),
            _ => dflt(Ets::Wrr(DEFAULT_ETS_WEIGHTS[t as usize]), fsrc),
        })
        .collect();
    // A traffic class no switch priority maps to carries nothing and takes no bandwidth, so a
    // WRR share is the weight over the weights of the classes that carry traffic [I].
    let carried = |t: u8| sp_to_tc.contains(&t);
    let total: u32 = (0..8u8)
        .filter(|t| carried(*t))
        .filter_map(|t| match ets[t as usize].v {
            Ets::Wrr(w) => Some(w),
            Ets::Strict => None,
        })
        .sum();
    for q in i.queues.iter_mut() {
        let t = q.id;
        let e = &ets[t as usize];
        let mk = |v: String| {
            Val {
                v,
                src: e.src.clone(),
                default: e.default,
            }
            .field()
        };
        match e.v {
            Ets::Strict => q.scheduler = mk("strict".to_string()),
            Ets::Wrr(w) => {
                q.scheduler = mk("dwrr".to_string());
                q.weight_pct = if carried(t) && total > 0 {
                    let pct = (f64::from(w) * 10000.0 / f64::from(total)).round() / 100.0;
                    Val {
                        v: pct,
                        src: e.src.clone(),
                        default: e.default,
                    }
                    .field()
                } else {
                    None
                };
            }
        }
        match (stmts.more().cc.get(&t), roce_src) {
            (Some(c), _) => {
                let mode = c.mode.as_deref();
                let ecn = matches!(mode, Some("ecn" | "both"));
                q.ecn.enabled = known(ecn, &c.src);
                if ecn {
                    q.ecn.min_bytes = c.min_bytes.and_then(|b| known(b, &c.src));
                    q.ecn.max_bytes = c.max_bytes.and_then(|b| known(b, &c.src));
                    q.ecn.min_pct = c.min_pct.and_then(|v| known(v, &c.src));
                    q.ecn.max_pct = c.max_pct.and_then(|v| known(v, &c.src));
                }
                q.wred_drop = known(matches!(mode, Some("red" | "both")), &c.src);
            }
            (None, Some(s)) if t == ROCE_TC => {
                q.ecn.enabled = default_of(true, Some(s));
                q.ecn.min_bytes =
                    util::to_bytes(ROCE_ECN_KB.0, "KB").and_then(|b| default_of(b, Some(s)));
                q.ecn.max_bytes =
                    util::to_bytes(ROCE_ECN_KB.1, "KB").and_then(|b| default_of(b, Some(s)));
                q.wred_drop = default_of(false, Some(s));
            }
            // No congestion control on a traffic class unless configured [V: `show interfaces
            // ethernet 1/1 congestion-control` prints `Mode: none` for unconfigured TCs].
            _ => {
                q.ecn.enabled = default_of(false, Some(fsrc));
                q.wred_drop = default_of(false, Some(fsrc));
            }
        }
        // Onyx has no marking-probability setting; the probability at the maximum threshold
        // is not shown, so it stays unknown.
    }
}

/// Ingress buffers: the traffic pool of the switch priority each traffic class carries.
fn apply_buffers(i: &mut Interface, cfg: &Cfg, g: &Global, fsrc: &Src, tc_to_sp: &[u8]) {
    let roce_lossless = match &g.roce {
        Some((RoceMode::Lossless, s)) => Some(s),
        _ => None,
    };
    for pg in i.pgs.iter_mut() {
        let sp = tc_to_sp.get(pg.id as usize).copied().unwrap_or(pg.id);
        // A switch priority no pool maps is in the default lossy pool [V Onyx manual, shared
        // buffer commands: pool type default lossy; `show roce` pool `lossy-default`].
        let (name, lossless): (Val<String>, Val<bool>) = match cfg.sp_pool.get(&sp) {
            Some(p) => {
                let ty = cfg
                    .pools
                    .get(&p.v)
                    .and_then(|pool| pool.ty.as_ref())
                    .map(|t| t.v == "lossless")
                    .unwrap_or(false);
                (
                    stated(p),
                    Val {
                        v: ty,
                        src: p.src.clone(),
                        default: false,
                    },
                )
            }
            None => match roce_lossless {
                Some(s) if sp == ROCE_SP => (dflt(ROCE_POOL.to_string(), s), dflt(true, s)),
                Some(s) => (dflt(DEFAULT_POOL.to_string(), s), dflt(false, s)),
                None => (dflt(DEFAULT_POOL.to_string(), fsrc), dflt(false, fsrc)),
            },
        };
        pg.pool = name.field();
        pg.lossless = lossless.field();
    }
}
