//! Resolving the intent into the model: bond → member inheritance, the QoS profile each port
//! uses (its own, else `default-global`), and the Cumulus defaults applied where the config is
//! silent (`default = true`). Turning RoCE on (`qos roce`) brings NVIDIA's documented RoCE
//! profile [V RoCE page, "Default RoCE Configuration"]: trust pcp,dscp; switch priority 3 →
//! traffic class 3 (RoCE) and 6 → 6 (CNP), the others → 0; ETS TC6 strict, TC3 and TC0 DWRR 50 %;
//! ECN on TC0 and TC3 (150000 B / 1500000 B / 100 %); in lossless mode PFC on switch priority 3
//! (rx and tx) with SP3 in the RoCE lossless pool; cable length 100 m.
//!
//! Model mapping: the model's traffic class is Cumulus's switch priority (what DSCP classifies
//! into and what PFC pauses); the model's egress queue is Cumulus's traffic class. One priority
//! group per switch priority stands for Cumulus's single lossless PG [I].

use super::intent::{At, Cfg, FlowProf, IfCfg, MapProf};
use crate::model::maps::{Bound, BoundPolicy, MapEntry, QosMap};
use crate::model::{Device, Field, Interface, PriorityGroup, Src, default_of, known, val};
use crate::platform::util;
use std::collections::{BTreeMap, HashMap};

/// Interface MTU when none is configured: "In Cumulus Linux, ifupdown2 assigns 9216 as the
/// default MTU setting" [V 5.12 Switch Port Attributes]. Not applied to NCLU/traffic.conf-only
/// devices (3.x defaulted to 1500 [R]).
const DEFAULT_MTU: u32 = 9216;
/// `nv set qos roce cable-length`, default 100 m [V NVUE reference, RoCE page `cable-length 100`].
const ROCE_CABLE_M: f64 = 100.0;
/// PFC / link-pause profile cable length default: 10 m [V QoS page "The default is 10 meters"].
const PROFILE_CABLE_M: f64 = 10.0;
/// ECN of the default-global profile and of RoCE: 150000 B / 1500000 B / 100 %
/// [V QoS page, RoCE page].
const ECN_MIN: u64 = 150_000;
const ECN_MAX: u64 = 1_500_000;
const ECN_PROB: f64 = 100.0;
/// PFC watchdog polling interval 100 ms, robustness 3 polls [V QoS page]. The watchdog restores PFC
/// after one polling interval without PAUSE frames: there is no restore timer to report.
const WD_POLL_MS: f64 = 100.0;
const WD_ROBUSTNESS: f64 = 3.0;
/// traffic.conf PFC group defaults: port buffer 25000 B, xoff 10000 B, xon delta 2000 B
/// [V 4.3 Buffer and Queue Management].
const LEGACY_PORT_BUFFER: u64 = 25_000;
const LEGACY_XOFF: u64 = 10_000;
const LEGACY_XON_DELTA: u64 = 2_000;

/// Which QoS ports use a profile other than default-global, per family (an undefined name is
/// kept as named, so it counts as another), for the state outputs that describe default-global.
/// Only those ports are held, each with one bit per family (`FAMILIES`): a port set names
/// hundreds of ports in a few bytes, and a map of every port's six names was ~600 bytes a port
/// (issue 19).
#[derive(Debug, Default)]
pub(super) struct PortProfiles(HashMap<String, u8>);

impl PortProfiles {
    fn bit(family: &str) -> u8 {
        super::intent::FAMILIES
            .iter()
            .position(|f| *f == family)
            .map_or(0, |i| 1 << i)
    }
    /// Whether `port` uses the default-global profile of `family` (unknown ports do).
    pub(super) fn global(&self, port: &str, family: &str) -> bool {
        self.0
            .get(port)
            .is_none_or(|bits| bits & Self::bit(family) == 0)
    }
    fn note(&mut self, port: &str, profs: &BTreeMap<&'static str, String>) {
        let bits = profs
            .iter()
            .filter(|(_, p)| p.as_str() != "default-global")
            .fold(0u8, |b, (f, _)| b | Self::bit(f));
        if bits != 0 {
            self.0.insert(port.to_string(), bits);
        }
    }
}

/// A value on its way to the model: stated by a line, or a default.
#[derive(Debug, Clone)]
struct V<T> {
    v: T,
    src: Src,
    dflt: bool,
}

impl<T> V<T> {
    fn field(self) -> Field<T> {
        if self.dflt {
            default_of(self.v, Some(&self.src))
        } else {
            known(self.v, &self.src)
        }
    }
}

fn k<T: Clone>(a: &At<T>) -> V<T> {
    V {
        v: a.v.clone(),
        src: a.src.clone(),
        dflt: false,
    }
}

fn d<T>(v: T, src: &Src) -> V<T> {
    V {
        v,
        src: src.clone(),
        dflt: true,
    }
}

/// RoCE switch priority → traffic class: 3 → 3, 6 → 6, others → 0 [V RoCE page].
pub(super) fn roce_sp_tc() -> Vec<u8> {
    (0..8u8)
        .map(|sp| if sp == 3 || sp == 6 { sp } else { 0 })
        .collect()
}

/// The config's interfaces become the device's ports, in the config's order. The interfaces
/// are consumed as they are applied and their list shrinks as it empties, so the config's
/// copy and the device's are not both whole at once: an NCLU range or a traffic.conf port set
/// names hundreds of ports in a few bytes, and holding both was most of a build's peak
/// (issue 19: NCLU commands at 29× their size).
pub(super) fn apply(dev: &mut Device, cfg: &mut Cfg) -> PortProfiles {
    if let Some(h) = &cfg.hostname {
        dev.hostname = known(h.v.clone(), &h.src);
    }
    if let Some(v) = &cfg.version {
        dev.os_version = known(v.v.clone(), &v.src);
    }
    // `qos roce` in a lossless mode is the switch's stated lossless intent: NVIDIA applies its
    // RoCE settings to every port [V NVUE RoCE page].
    if let Some(r) = cfg.roce.as_ref().filter(|r| r.enabled.v) {
        let mode = r.mode.as_ref().map_or("lossless", |m| m.v.as_str());
        if mode.starts_with("lossless") {
            dev.qos.lossless_mode = known(format!("qos roce ({mode})"), &r.enabled.src);
        }
    }
    let mut ifaces = std::mem::take(&mut cfg.ifaces);
    dev.interfaces_not_read = dev.interfaces_not_read.saturating_add(cfg.not_kept);
    let cfg: &Cfg = cfg;
    // Each member's bond (the last bond that lists it), by position; then what a member takes
    // from its bond: the bond's name and MTU.
    let mut bond_of: Vec<u32> = vec![u32::MAX; ifaces.len()];
    let mut bonds: HashMap<u32, (String, Option<At<u32>>)> = HashMap::new();
    {
        let mut at: HashMap<&str, usize> = HashMap::new();
        for (pos, f) in ifaces.iter().enumerate() {
            at.entry(f.name.as_str()).or_insert(pos);
        }
        for (bi, b) in ifaces.iter().enumerate() {
            for m in &b.members {
                if let Some(&mi) = at.get(m.as_str()) {
                    bond_of[mi] = bi as u32;
                    bonds
                        .entry(bi as u32)
                        .or_insert_with(|| (b.name.clone(), b.mtu.clone()));
                }
            }
        }
    }
    let qos_known = cfg.nvue.is_some() || cfg.legacy.is_some();
    let mut ports = PortProfiles::default();
    ifaces.reverse();
    let n = ifaces.len();
    while let Some(f) = ifaces.pop() {
        if ifaces.len() <= ifaces.capacity() / 4 * 3 {
            ifaces.shrink_to_fit();
        }
        let pos = n - 1 - ifaces.len();
        let kind = super::kind_of(&f.name, f.typ.as_ref().map(|t| t.v.as_str()));
        let par = bonds.get(&bond_of[pos]);
        let f = &f;
        let i = dev.iface(&f.name, kind);
        i.kind = crate::model::kind_name(kind);
        i.set_defined_at(f.src.clone());
        i.admin_up = match &f.admin_up {
            Some(a) => known(a.v, &a.src),
            // NVUE and NCLU bring the interfaces they configure up [R].
            None if !f.implied => default_of(true, Some(&f.src)),
            None => None,
        };
        // A bond's MTU is inherited by its members [V 5.12 Switch Port Attributes, Bridge MTU].
        let mtu = par.and_then(|p| p.1.as_ref()).or(f.mtu.as_ref());
        i.mtu = match mtu {
            Some(m) => known(m.v, &m.src),
            None if cfg.nvue.is_some()
                && !f.implied
                && matches!(kind, "ethernet" | "port-channel") =>
            {
                default_of(DEFAULT_MTU, Some(&f.src))
            }
            None => None,
        };
        i.mtu_raw = i.mtu.clone();
        if let Some(s) = &f.speed {
            i.speed_gbps = s.v.and_then(|g| known(g, &s.src));
        }
        if let Some(p) = par {
            i.names.lag_parent = Some(p.0.clone());
        }
        if let Some(b) = &f.bridged {
            i.switchport = known(true, b);
        }
        for m in &f.members {
            if !i.lag_members.contains(m) {
                i.lag_members.push(m.clone());
            }
        }
        if kind != "ethernet" || !qos_known {
            continue;
        }
        let mut profs: BTreeMap<&'static str, String> = BTreeMap::new();
        let mut undefined: Vec<&str> = Vec::new();
        for family in super::intent::FAMILIES {
            // A profile the config names but never defines is reported (PARSE) and leaves what
            // it governs unknown: the port does not silently get default-global, whose values
            // would read as the platform's defaults. The name is kept so that no state output
            // describing default-global is applied to the port either.
            let name = match f.profiles.get(family) {
                Some(p) => {
                    if !cfg.has_profile(family, &p.v) {
                        undefined.push(family);
                    }
                    p.v.clone()
                }
                None => "default-global".into(),
            };
            profs.insert(family, name);
        }
        crate::model::maps::bind(i, || bindings(cfg, f));
        port_qos(i, cfg, f, &profs);
        for family in undefined {
            forget(i, family);
        }
        ports.note(&f.name, &profs);
    }
    ports
}

/// Clear what a profile family governs on a port whose profile of that family is undefined.
fn forget(i: &mut Interface, family: &str) {
    match family {
        "mapping" => {
            i.qos.trust = None;
            i.qos.dscp_to_tc = None;
            i.qos.dscp_rewrites = None;
        }
        "pfc" => {
            i.pfc = Default::default();
            i.cable_m = None;
            for pg in i.pgs.iter_mut() {
                *pg = PriorityGroup {
                    id: pg.id,
                    ..Default::default()
                };
            }
        }
        "link-pause" => i.link_pause = Default::default(),
        "congestion-control" => {
            for q in i.queues.iter_mut() {
                q.ecn = Default::default();
                q.wred_drop = None;
            }
        }
        "egress-scheduler" => {
            for q in i.queues.iter_mut() {
                q.scheduler = None;
                q.weight_pct = None;
            }
        }
        "remark" => i.qos.dscp_rewrites = None,
        _ => {}
    }
}

/// Resolved flow control (PFC or link pause) of a port.
struct Flow {
    prios: V<Vec<u8>>,
    rx: V<bool>,
    tx: V<bool>,
    cable: Option<V<f64>>,
    port_buffer: Option<V<u64>>,
    xoff: Option<V<u64>>,
    xon_delta: Option<V<u64>>,
    /// The traffic.conf group (legacy pool naming).
    name: String,
}

/// Lines of `p` replace the values of `f`.
fn overlay_flow(f: &mut Flow, p: &FlowProf) {
    if let Some(first) = p.prios.first() {
        f.prios = V {
            v: p.prios.iter().map(|a| a.v).collect(),
            src: first.src.clone(),
            dflt: false,
        };
    }
    if let Some(a) = &p.rx {
        f.rx = k(a);
    }
    if let Some(a) = &p.tx {
        f.tx = k(a);
    }
    if let Some(a) = &p.cable_m {
        f.cable = Some(k(a));
    }
    if let Some(a) = &p.port_buffer {
        f.port_buffer = Some(k(a));
    }
    if let Some(a) = &p.xoff {
        f.xoff = Some(k(a));
    }
    if let Some(a) = &p.xon_delta {
        f.xon_delta = Some(k(a));
    }
}

/// A profile's own defaults: rx and tx on [V QoS page "The default value is enable"], cable 10 m;
/// traffic.conf groups also default their buffer sizes.
fn profile_flow(p: &FlowProf, name: &str, legacy: bool) -> Flow {
    let s = &p.src;
    let mut f = Flow {
        prios: d(Vec::new(), s),
        rx: d(true, s),
        tx: d(true, s),
        cable: Some(d(PROFILE_CABLE_M, s)),
        port_buffer: legacy.then(|| d(LEGACY_PORT_BUFFER, s)),
        xoff: legacy.then(|| d(LEGACY_XOFF, s)),
        xon_delta: legacy.then(|| d(LEGACY_XON_DELTA, s)),
        name: name.to_string(),
    };
    overlay_flow(&mut f, p);
    f
}

fn dscp_map(base: Option<V<Vec<u8>>>, m: Option<&MapProf>) -> Option<V<Vec<u8>>> {
    let Some(m) = m else { return base };
    if m.dscp.is_empty() && !m.complete {
        return base;
    }
    let mut map = if m.complete {
        // traffic.conf: values no line names take the default priority
        vec![m.port_default.as_ref().map_or(0, |p| p.v); 64]
    } else {
        match &base {
            Some(b) => b.v.clone(),
            None => return None,
        }
    };
    for (list, sp) in &m.dscp {
        for dv in list {
            if let Some(slot) = map.get_mut(*dv as usize) {
                *slot = sp.v;
            }
        }
    }
    let src = m
        .dscp
        .first()
        .map(|(_, a)| a.src.clone())
        .unwrap_or(m.src.clone());
    Some(V {
        v: map,
        src,
        dflt: false,
    })
}

/// A classification map entry by entry (DSCP, or PCP with `pcp`): `base` overlaid by the
/// profile's lines in order (a later line wins); a traffic.conf map that names any value is the
/// whole map, the values it does not name in the default priority (`port_default`).
fn map_entries(base: Option<QosMap>, m: Option<&MapProf>, pcp: bool) -> Option<QosMap> {
    let Some(m) = m else { return base };
    let (lines, complete, size) = if pcp {
        (&m.pcp, m.pcp_complete, 8u8)
    } else {
        (&m.dscp, m.complete, 64u8)
    };
    if lines.is_empty() && !complete {
        return base;
    }
    let mut q = if complete {
        let rest = |k: u8| match &m.port_default {
            Some(p) => MapEntry::config(k, p.v, &p.src),
            None => MapEntry::default(k, 0, Some(&m.src)),
        };
        QosMap {
            entries: (0..size).map(rest).collect(),
            note: None,
        }
    } else {
        base?
    };
    for (list, sp) in lines {
        for v in list {
            if let Some(e) = q.entries.get_mut(*v as usize) {
                *e = MapEntry::config(*v, sp.v, &sp.src);
            }
        }
    }
    Some(q)
}

/// The platform default map `v` at `src`, entry by entry.
fn default_entries(v: &[u8], src: &Src) -> QosMap {
    QosMap {
        entries: v
            .iter()
            .enumerate()
            .map(|(k, &t)| MapEntry::default(k as u8, t, Some(src)))
            .collect(),
        note: None,
    }
}

/// Scheduling of one traffic class: strict?, DWRR share.
type Sched = Option<(V<bool>, Option<V<f64>>)>;

/// Optional ECN settings of one queue before defaults.
#[derive(Clone)]
struct EcnV {
    ecn: Option<V<bool>>,
    red: Option<V<bool>>,
    min: Option<V<u64>>,
    max: Option<V<u64>>,
    prob: Option<V<f64>>,
}

fn ecn_defaults(s: &Src) -> EcnV {
    EcnV {
        ecn: Some(d(true, s)),
        red: Some(d(false, s)),
        min: Some(d(ECN_MIN, s)),
        max: Some(d(ECN_MAX, s)),
        prob: Some(d(ECN_PROB, s)),
    }
}

/// A line of profile `name` of `family` (its first statement), for citing where it is defined.
fn profile_src(cfg: &Cfg, family: &str, name: &str) -> Option<Src> {
    let first = |a: Option<Src>, b: Option<Src>| a.or(b);
    match family {
        "mapping" => cfg.mapping.get(name).and_then(|m| {
            first(
                m.trust.as_ref().map(|t| t.src.clone()),
                m.dscp.first().or(m.pcp.first()).map(|(_, a)| a.src.clone()),
            )
        }),
        "pfc" => cfg.pfc.get(name).map(|p| p.src.clone()),
        "link-pause" => cfg.pause.get(name).map(|p| p.src.clone()),
        "congestion-control" => cfg
            .ecn
            .get(name)
            .and_then(|e| e.tcs.values().next().map(|t| t.src.clone())),
        "egress-scheduler" => cfg.sched.get(name).and_then(|p| {
            p.tcs.values().find_map(|t| {
                first(
                    t.strict.as_ref().map(|a| a.src.clone()),
                    t.bw_pct.as_ref().map(|a| a.src.clone()),
                )
            })
        }),
        "remark" => cfg.remark.get(name).and_then(|r| {
            first(
                r.rewrite_dscp.as_ref().map(|a| a.src.clone()),
                r.sp_dscp.values().next().map(|a| a.src.clone()),
            )
        }),
        _ => None,
    }
}

/// The QoS profiles in force on a port (`QosMaps::policies`): per family, the profile the port
/// names (NVUE `interface X qos <family> <profile>`), else `default-global`, which governs every
/// port that names none: stated by the config (NVUE `qos <family> default-global`, or the
/// device-level traffic.conf) or, with NVUE and no line, NVUE's own default profile. `qos roce`
/// is device-level: NVUE applies it to every port ("bound globally").
fn bindings(cfg: &Cfg, f: &IfCfg) -> Vec<BoundPolicy> {
    let mut v = Vec::new();
    if let Some(r) = cfg.roce.as_ref().filter(|r| r.enabled.v) {
        let mode = r.mode.as_ref().map_or("lossless", |m| m.v.as_str());
        let at = r.mode.as_ref().map_or(&r.enabled.src, |m| &m.src);
        v.push(BoundPolicy::new("qos roce", mode, Bound::Global, Some(at)).via("qos roce"));
    }
    for family in super::intent::FAMILIES {
        let kind = format!("qos {family}");
        match f.profiles.get(family) {
            Some(p) => v.push(BoundPolicy::new(&kind, &p.v, Bound::Port, Some(&p.src))),
            None => match profile_src(cfg, family, "default-global") {
                Some(at) => {
                    let via = if cfg.legacy.is_some() {
                        "traffic.conf"
                    } else {
                        "default-global"
                    };
                    let b = BoundPolicy::new(&kind, "default-global", Bound::Global, Some(&at));
                    v.push(b.via(via));
                }
                None if cfg.nvue.is_some() => v.push(BoundPolicy::new(
                    &kind,
                    "default-global",
                    Bound::Default,
                    Some(&f.src),
                )),
                None => {}
            },
        }
    }
    v
}

fn port_qos(i: &mut Interface, cfg: &Cfg, f: &IfCfg, profs: &BTreeMap<&'static str, String>) {
    let ifsrc = &f.src;
    let nvue = cfg.nvue.is_some();
    let prof = |family: &str| profs.get(family).map_or("default-global", String::as_str);
    let roce = cfg.roce.as_ref().filter(|r| r.enabled.v);
    let rs: Option<&Src> = roce.map(|r| &r.enabled.src);
    let mode = roce.map(|r| r.mode.as_ref().map_or("lossless", |m| m.v.as_str()));
    let roce_lossless = mode.is_some_and(|m| m.starts_with("lossless"));

    // Trust: NVUE trusts 802.1p unless told otherwise [V QoS page 5.0 "By default 802.1p COS
    // markings are trusted"]; RoCE trusts pcp,dscp [V RoCE page].
    let mut trust: Option<V<String>> = nvue.then(|| match rs {
        Some(s) => d("both".to_string(), s),
        None => d("pcp".to_string(), ifsrc),
    });
    let pm = prof("mapping");
    for name in ["default-global", pm] {
        if let Some(t) = cfg.mapping.get(name).and_then(|m| m.trust.as_ref()) {
            trust = Some(k(t));
        }
    }
    i.qos.trust = trust.and_then(V::field);

    // DSCP → switch priority: DSCP/8 by default and under RoCE [V QoS page "Trust DSCP" table,
    // RoCE page].
    let nvue_base = nvue.then(|| d(util::dscp_div8(), rs.unwrap_or(ifsrc)));
    let mut map = dscp_map(nvue_base.clone(), cfg.mapping.get("default-global"));
    if pm != "default-global" {
        // a profile starts from the defaults, not from default-global [V QoS page]
        let base = if cfg.legacy.is_some() {
            map.clone()
        } else {
            nvue_base
        };
        map = dscp_map(base, cfg.mapping.get(pm));
    }
    let map_v = map.as_ref().map(|m| m.v.clone());
    i.qos.dscp_to_tc = map.and_then(V::field);
    // The same entry by entry, and 802.1p → switch priority: the identity by default ("By
    // default 802.1p COS markings are trusted", each PCP to the switch priority of its number [V
    // QoS page "Trust 802.1p"; R the table's identity]).
    let dflt_at = rs.unwrap_or(ifsrc);
    let nvue_dscp = nvue.then(|| default_entries(&util::dscp_div8(), dflt_at));
    let nvue_pcp = nvue.then(|| default_entries(&util::identity8(), dflt_at));
    let legacy = cfg.legacy.is_some();
    for pcp in [false, true] {
        let base = if pcp {
            nvue_pcp.clone()
        } else {
            nvue_dscp.clone()
        };
        let mut q = map_entries(base.clone(), cfg.mapping.get("default-global"), pcp);
        if pm != "default-global" {
            q = map_entries(if legacy { q } else { base }, cfg.mapping.get(pm), pcp);
        }
        let Some(q) = q else { continue };
        if pcp {
            // The vector cites the first 802.1p line of the profile in force, else the default.
            let first = [pm, "default-global"]
                .iter()
                .filter_map(|n| cfg.mapping.get(*n))
                .find_map(|m| m.pcp.first().map(|(_, a)| a.src.clone()));
            i.qos.pcp_to_tc = q.values().and_then(|v| match &first {
                Some(s) => known(v, s),
                None => default_of(v, Some(dflt_at)),
            });
            i.maps.pcp_to_tc = q;
        } else if i.qos.dscp_to_tc.as_ref().is_some_and(|f| !f.default) {
            i.maps.dscp_to_tc = q;
        }
    }

    // Switch priority → traffic class (egress queue): identity [V QoS page "Egress Queues"], RoCE
    // 3 → 3, 6 → 6, others → 0 [V RoCE page].
    let mut sptc = match rs {
        Some(s) if nvue => d(roce_sp_tc(), s),
        _ => d(util::identity8(), ifsrc),
    };
    if let Some((_, first)) = cfg.sp_tc.iter().next() {
        for (sp, tc) in &cfg.sp_tc {
            if let Some(slot) = sptc.v.get_mut(*sp as usize) {
                *slot = tc.v;
            }
        }
        sptc.src = first.src.clone();
        sptc.dflt = false;
    }
    i.qos.tc_to_queue = sptc.field();
    // PFC pauses the switch priority itself; one priority group per switch priority [I].
    i.qos.tc_to_pfc_priority = default_of(util::identity8(), Some(ifsrc));
    i.qos.tc_to_pg = default_of(util::identity8(), Some(ifsrc));

    // PFC.
    let legacy = cfg.legacy.is_some() && !nvue;
    let pp = prof("pfc");
    let flow = if pp != "default-global" {
        cfg.pfc.get(pp).map(|p| profile_flow(p, pp, legacy))
    } else {
        let mut base = match (roce_lossless, rs) {
            (true, Some(s)) => Some(Flow {
                prios: d(vec![3], s),
                rx: d(true, s),
                tx: d(true, s),
                cable: Some(match roce.and_then(|r| r.cable_m.as_ref()) {
                    Some(c) => k(c),
                    None => d(ROCE_CABLE_M, s),
                }),
                port_buffer: None,
                xoff: None,
                xon_delta: None,
                name: "roce".into(),
            }),
            _ => None,
        };
        if let Some(p) = cfg.pfc.get("default-global") {
            match &mut base {
                Some(b) => overlay_flow(b, p),
                None => base = Some(profile_flow(p, "default-global", legacy)),
            }
        }
        base
    };
    let flow = flow.unwrap_or_else(|| Flow {
        prios: d(Vec::new(), ifsrc),
        rx: d(false, ifsrc),
        tx: d(false, ifsrc),
        cable: None,
        port_buffer: None,
        xoff: None,
        xon_delta: None,
        name: String::new(),
    });
    let pfc_on = !flow.prios.v.is_empty();
    let prios = flow.prios.v.clone();
    let psrc = flow.prios.src.clone();
    let pdflt = flow.prios.dflt;
    i.pfc.mode = V {
        v: if pfc_on { "on" } else { "off" }.to_string(),
        src: psrc.clone(),
        dflt: pdflt,
    }
    .field();
    i.pfc.priorities = flow.prios.clone().field();
    if pfc_on {
        i.pfc.rx = flow.rx.clone().field();
        i.pfc.tx = flow.tx.clone().field();
    } else {
        i.pfc.rx = V {
            v: false,
            src: psrc.clone(),
            dflt: pdflt,
        }
        .field();
        i.pfc.tx = V {
            v: false,
            src: psrc.clone(),
            dflt: pdflt,
        }
        .field();
    }

    // Link pause: off unless a link-pause profile applies [V QoS page; rx/tx of a profile default on
    // like PFC's, I].
    let lp_name = prof("link-pause");
    let lp = cfg.pause.get(lp_name);
    match lp {
        Some(p) => {
            let lf = profile_flow(p, lp_name, legacy);
            i.link_pause.rx = lf.rx.field();
            i.link_pause.tx = lf.tx.field();
            if !pfc_on {
                i.cable_m = lf.cable.and_then(V::field);
            }
        }
        None => {
            i.link_pause.rx = default_of(false, Some(ifsrc));
            i.link_pause.tx = default_of(false, Some(ifsrc));
        }
    }
    if pfc_on {
        i.cable_m = flow.cable.clone().and_then(V::field);
    }

    // Priority groups: the PFC priorities get the lossless PG when a lossless pool exists.
    let pool: Option<V<String>> = if !pfc_on {
        None
    } else if legacy {
        // 3.x/4.x traffic.conf PFC groups map their priorities to a lossless ingress buffer [R]
        Some(V {
            v: format!("pfc port group {}", flow.name),
            src: psrc.clone(),
            dflt: pdflt,
        })
    } else if let (true, Some(s)) = (roce_lossless, rs) {
        let name = if mode == Some("lossless-single-ipool") {
            "lossy-default-ingress (lossless-single-ipool)"
        } else {
            "roce-lossless"
        };
        Some(d(name.to_string(), s))
    } else {
        cfg.pools
            .iter()
            .find(|(n, p)| {
                (n.as_str() == "roce-lossless" || n.as_str() == "default-lossless")
                    && p.memory_pct.as_ref().is_none_or(|m| m.v > 0.0)
            })
            .map(|(n, p)| V {
                v: n.clone(),
                src: p
                    .memory_pct
                    .as_ref()
                    .map_or(p.src.clone(), |m| m.src.clone()),
                dflt: false,
            })
    };
    for pg in i.pgs.iter_mut() {
        if pfc_on && prios.contains(&pg.id) {
            match &pool {
                Some(p) => {
                    pg.lossless = V {
                        v: true,
                        src: p.src.clone(),
                        dflt: p.dflt,
                    }
                    .field();
                    pg.pool = p.clone().field();
                }
                None => {
                    // PFC without a lossless pool: all buffer is lossy by default [V QoS page]
                    pg.lossless = default_of(false, Some(&psrc));
                    pg.pool = default_of("default-lossy".to_string(), Some(&psrc));
                }
            }
            let size = flow.port_buffer.clone();
            let xoff = flow.xoff.clone();
            pg.size_bytes = size.clone().and_then(V::field);
            pg.xoff_bytes = xoff.clone().and_then(V::field);
            if let (Some(x), Some(dl)) = (&xoff, &flow.xon_delta) {
                pg.xon_bytes = V {
                    v: x.v.saturating_sub(dl.v),
                    src: dl.src.clone(),
                    dflt: dl.dflt && x.dflt,
                }
                .field();
            }
            if let (Some(sz), Some(x)) = (&size, &xoff) {
                pg.headroom_bytes = V {
                    v: sz.v.saturating_sub(x.v),
                    src: sz.src.clone(),
                    dflt: sz.dflt && x.dflt,
                }
                .field();
            }
        } else {
            pg.lossless = default_of(false, Some(ifsrc));
            if nvue {
                pg.pool = default_of("default-lossy".to_string(), Some(ifsrc));
            }
        }
    }

    // ECN per traffic class (egress queue).
    let cc = prof("congestion-control");
    let mut ecn: BTreeMap<u8, EcnV> = BTreeMap::new();
    if nvue && cc == "default-global" {
        if let Some(s) = rs {
            for tc in [0u8, 3] {
                ecn.insert(tc, ecn_defaults(s));
            }
        } else if cfg
            .ecn
            .get("default-global")
            .is_none_or(|p| p.tcs.is_empty())
        {
            // the factory profile marks on queue 0 [V QoS page]; configured classes replace it (the
            // documented `nv show` output lists only the configured ones)
            ecn.insert(0, ecn_defaults(ifsrc));
        }
    }
    if let Some(p) = cfg.ecn.get(cc) {
        for (tc, e) in &p.tcs {
            let entry = ecn.entry(*tc).or_insert_with(|| {
                if nvue {
                    ecn_defaults(&e.src)
                } else {
                    EcnV {
                        ecn: None,
                        red: Some(d(false, &e.src)),
                        min: None,
                        max: None,
                        prob: None,
                    }
                }
            });
            if let Some(a) = &e.ecn {
                entry.ecn = Some(k(a));
            }
            if let Some(a) = &e.red {
                entry.red = Some(k(a));
            }
            if let Some(a) = &e.min {
                entry.min = Some(k(a));
            }
            if let Some(a) = &e.max {
                entry.max = Some(k(a));
            }
            if let Some(a) = &e.prob {
                entry.prob = Some(k(a));
            }
        }
    }
    for q in i.queues.iter_mut() {
        match ecn.get(&q.id) {
            Some(e) => {
                q.ecn.enabled = e.ecn.clone().and_then(V::field);
                q.ecn.min_bytes = e.min.clone().and_then(V::field);
                q.ecn.max_bytes = e.max.clone().and_then(V::field);
                q.ecn.max_probability_pct = e.prob.clone().and_then(V::field);
                q.wred_drop = e.red.clone().and_then(V::field);
            }
            None => {
                // ECN is off unless configured [V 4.3 "ECN is disabled by default"; QoS page]
                q.ecn.enabled = default_of(false, Some(ifsrc));
                q.wred_drop = default_of(false, Some(ifsrc));
            }
        }
    }

    // Scheduler per traffic class.
    let es = prof("egress-scheduler");
    let mut sched: [Sched; 8] = Default::default();
    if nvue && es == "default-global" {
        match rs {
            Some(s) => {
                sched[0] = Some((d(false, s), Some(d(50.0, s))));
                sched[3] = Some((d(false, s), Some(d(50.0, s))));
                sched[6] = Some((d(true, s), None));
            }
            None => {
                // queues 0,2,4,6 get 12 %, 1,3,5,7 13 % [V QoS page "Egress Scheduler"]
                for (q, slot) in sched.iter_mut().enumerate() {
                    let w = if q % 2 == 0 { 12.0 } else { 13.0 };
                    *slot = Some((d(false, ifsrc), Some(d(w, ifsrc))));
                }
            }
        }
    }
    if let Some(p) = cfg.sched.get(es) {
        for (tc, s) in &p.tcs {
            let Some(slot) = sched.get_mut(*tc as usize) else {
                continue;
            };
            let old_weight = slot
                .as_ref()
                .and_then(|(st, w)| (!st.v).then(|| w.clone()).flatten());
            let strict = match (&s.strict, &s.bw_pct) {
                (Some(a), _) => k(a),
                // a share alone means DWRR [I]
                (None, Some(b)) => V {
                    v: false,
                    src: b.src.clone(),
                    dflt: false,
                },
                (None, None) => continue,
            };
            let weight = if strict.v {
                None
            } else {
                s.bw_pct.as_ref().map(k).or(old_weight)
            };
            *slot = Some((strict, weight));
        }
    }
    for q in i.queues.iter_mut() {
        if let Some(Some((strict, w))) = sched.get(q.id as usize) {
            q.scheduler = V {
                v: if strict.v { "strict" } else { "dwrr" }.to_string(),
                src: strict.src.clone(),
                dflt: strict.dflt,
            }
            .field();
            q.weight_pct = w.clone().and_then(V::field);
        }
    }

    // DSCP rewrite: with `rewrite l3` the egress DSCP of a packet is the remark value of its
    // switch priority; without a value for it, DSCP 8 × priority (the commented defaults of
    // traffic.conf) [I]. Any DSCP that lands elsewhere than itself is rewritten.
    let rm_name = prof("remark");
    let rm = cfg.remark.get(rm_name);
    let rm_global = cfg.remark.get("default-global");
    let rewrite = rm.and_then(|r| r.rewrite_dscp.as_ref());
    i.qos.dscp_rewrites = match (rewrite, &map_v) {
        (Some(a), Some(map)) if a.v => {
            let target = |sp: u8| -> u8 {
                rm.and_then(|r| r.sp_dscp.get(&sp))
                    .or_else(|| rm_global.and_then(|r| r.sp_dscp.get(&sp)))
                    .map_or(sp.saturating_mul(8), |x| x.v)
            };
            let list: Vec<u8> = (0..64u8)
                .filter(|dv| map.get(*dv as usize).is_some_and(|sp| target(*sp) != *dv))
                .collect();
            known(list, &a.src)
        }
        (Some(a), None) if a.v => None,
        (Some(a), _) => known(Vec::new(), &a.src),
        // remarking is opt-in [V QoS page / I]
        (None, _) => default_of(Vec::new(), Some(ifsrc)),
    };

    // PFC watchdog: off unless the port enables it [V QoS page]; timers are global.
    let w = &mut i.watchdog;
    w.enabled = match &f.watchdog {
        Some(a) => known(a.v, &a.src),
        None => default_of(false, Some(ifsrc)),
    };
    let on = val(&w.enabled) == Some(&true);
    if nvue || on {
        let poll = cfg.wd_poll_ms.as_ref().map_or(d(WD_POLL_MS, ifsrc), k);
        let rob = cfg
            .wd_robustness
            .as_ref()
            .map_or(d(WD_ROBUSTNESS, ifsrc), k);
        let detect_src = if rob.dflt {
            poll.src.clone()
        } else {
            rob.src.clone()
        };
        w.detect_ms = V {
            v: poll.v * rob.v,
            src: detect_src,
            dflt: poll.dflt && rob.dflt,
        }
        .field();
        w.poll_ms = poll.field();
        // it discards what is queued to the stuck queue [V QoS page]
        w.action = default_of("drop".to_string(), Some(ifsrc));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roce_map() {
        assert_eq!(roce_sp_tc(), vec![0, 0, 0, 3, 0, 0, 6, 0]);
    }
}
