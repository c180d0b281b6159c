//! Reading an EOS running-config: records become per-interface and per-profile statements
//! (each with the line that said it), global maps, policy/class-maps and watchdog globals.
//! Nothing here applies defaults; `apply` does that.
//!
//! `show running-config all` writes every setting, those at their default included, as
//! `no X` or `default X` (Arista EOS User Manual, "show running-config", Arista Networks,
//! <https://www.arista.com/en/um-eos/eos-switch-configuration-files> [R: the search tool did not
//! retrieve the manual's text]). `no priority-flow-control` is read as PFC off (the EOS default,
//! stated); `default X` as X left to the platform: the statement is dropped and `apply` applies
//! EOS's default for it. `interface` lines naming a list (`Ethernet1-4`, `Ethernet3/1-3/4`,
//! `Ethernet1/1-4, Ethernet2/1`) configure each port of the list; one that cannot be expanded
//! is reported as not read.

use super::{canonical_ifname, kind_of};
use crate::model::Src;
use crate::parser::{Parsed, Record};
use crate::platform::{Output, util};
use std::collections::{BTreeMap, HashMap};

pub(super) use crate::platform::util::At;
use crate::platform::util::at;

/// ECN thresholds of one queue; bytes are `None` for units that are not sizes.
#[derive(Debug, Clone)]
pub(super) struct EcnStmt {
    pub(super) min_bytes: Option<u64>,
    pub(super) max_bytes: Option<u64>,
    pub(super) prob: Option<f64>,
    pub(super) src: Src,
}

/// What a `tx-queue N` / `uc-tx-queue N` block says.
#[derive(Debug, Clone, Default)]
pub(super) struct QueueStmts {
    /// true = `priority strict`, false = `no priority` (round robin).
    pub(super) strict: Option<At<bool>>,
    pub(super) bw_pct: Option<At<f64>>,
    pub(super) guaranteed_pct: Option<At<f64>>,
    pub(super) ecn: Option<EcnStmt>,
    pub(super) wred: Option<Src>,
}

impl QueueStmts {
    fn overlay(&mut self, top: &QueueStmts) {
        over(&mut self.strict, &top.strict);
        over(&mut self.bw_pct, &top.bw_pct);
        over(&mut self.guaranteed_pct, &top.guaranteed_pct);
        over(&mut self.ecn, &top.ecn);
        over(&mut self.wred, &top.wred);
    }
}

#[derive(Debug, Clone)]
pub(super) struct WdTimer {
    pub(super) timeout_ms: f64,
    pub(super) poll_ms: Option<f64>,
    pub(super) recovery_ms: Option<f64>,
    pub(super) src: Src,
}

/// The QoS statements an interface or a `qos profile` holds.
#[derive(Debug, Clone, Default)]
pub(super) struct QosStmts {
    /// dscp | pcp | port
    pub(super) trust: Option<At<String>>,
    pub(super) service_policy: Option<At<String>>,
    pub(super) pfc_on: Option<At<bool>>,
    /// priority → no-drop?
    pub(super) pfc_prios: BTreeMap<u8, At<bool>>,
    pub(super) wd_enable: Option<At<bool>>,
    pub(super) wd_action: Option<At<String>>,
    pub(super) wd_timer: Option<WdTimer>,
    pub(super) queues: BTreeMap<u8, QueueStmts>,
}

impl QosStmts {
    /// Statements of `top` replace those of `self` (EOS: interface lines beat profile lines).
    pub(super) fn overlay(&mut self, top: &QosStmts) {
        over(&mut self.trust, &top.trust);
        over(&mut self.service_policy, &top.service_policy);
        over(&mut self.pfc_on, &top.pfc_on);
        for (p, v) in &top.pfc_prios {
            self.pfc_prios.insert(*p, v.clone());
        }
        over(&mut self.wd_enable, &top.wd_enable);
        over(&mut self.wd_action, &top.wd_action);
        over(&mut self.wd_timer, &top.wd_timer);
        for (q, s) in &top.queues {
            self.queues.entry(*q).or_default().overlay(s);
        }
    }
}

fn over<T: Clone>(base: &mut Option<T>, top: &Option<T>) {
    if top.is_some() {
        *base = top.clone();
    }
}

/// One `interface` block: its name and header line inline, the lines inside it apart
/// ([`IfLines`], boxed). A file of bare `interface` lines (issue 19: 1 MiB is ~42,000 blocks,
/// all alive while the ports are built) then costs ~56 bytes a block instead of ~416.
#[derive(Debug, Clone)]
pub(super) struct IfCfg {
    pub(super) name: String,
    pub(super) kind: &'static str,
    pub(super) src: Src,
    /// `None` until a line inside the block is read ([`IfCfg::lines`]). Shared: each port of
    /// a range is a copy of its block, and a block's statements (~1.2 KB) copied for each of
    /// thousands of ports were most of what a file of range lines cost (issue 19).
    lines: Option<std::sync::Arc<IfLines>>,
}

/// The statements inside one `interface` block.
#[derive(Debug, Clone, Default)]
pub(super) struct IfLines {
    pub(super) shutdown: Option<At<bool>>,
    pub(super) switchport: Option<At<bool>>,
    /// First `ip address` line: only routed ports accept one.
    pub(super) ip_address: Option<Src>,
    pub(super) mtu: Option<At<u32>>,
    pub(super) l2_mtu: Option<At<u32>>,
    /// Inner `None` = `speed auto` (or a form we cannot read): not a known speed.
    pub(super) speed: Option<At<Option<f64>>>,
    pub(super) channel_group: Option<At<u32>>,
    /// Inner `None` = `desired` (negotiated): not known.
    pub(super) fc_rx: Option<At<Option<bool>>>,
    pub(super) fc_tx: Option<At<Option<bool>>>,
    pub(super) service_profile: Option<At<String>>,
    pub(super) qos: QosStmts,
}

impl IfCfg {
    fn new(name: String, src: &Src) -> IfCfg {
        IfCfg {
            kind: kind_of(&name),
            name,
            src: src.clone(),
            lines: None,
        }
    }

    /// The block's statements (none read: all unset).
    pub(super) fn lines(&self) -> &IfLines {
        static NONE: std::sync::LazyLock<IfLines> = std::sync::LazyLock::new(IfLines::default);
        self.lines.as_deref().unwrap_or(&NONE)
    }

    fn lines_mut(&mut self) -> &mut IfLines {
        std::sync::Arc::make_mut(self.lines.get_or_insert_with(Default::default))
    }
}

#[derive(Debug, Default)]
pub(super) struct PolicyMap {
    /// (class name, `set dscp` value, line of the class)
    pub(super) classes: Vec<(String, Option<u8>, Src)>,
    /// `set traffic-class` of a class, by the class's index in `classes`.
    pub(super) set_tc: BTreeMap<usize, At<u8>>,
}

/// Everything read from one running-config.
#[derive(Debug, Default)]
pub(super) struct Cfg {
    pub(super) hostname: Option<At<String>>,
    pub(super) version: Option<At<String>>,
    pub(super) interfaces: Vec<IfCfg>,
    pub(super) profiles: HashMap<String, QosStmts>,
    pub(super) dscp_maps: Vec<(Vec<u32>, u8, Src)>,
    pub(super) tc_queue_maps: Vec<(Vec<u32>, u8, Src)>,
    /// `qos map cos LIST to traffic-class N`: the CoS (802.1p) map of ports that trust CoS.
    pub(super) cos_maps: Vec<(Vec<u32>, u8, Src)>,
    /// `qos map traffic-class LIST to dscp D`: the DSCP a class leaves with under DSCP rewrite.
    pub(super) tc_dscp_maps: Vec<(Vec<u32>, u8, Src)>,
    /// `qos rewrite dscp` (true) or `no qos rewrite dscp` (false).
    pub(super) rewrite_dscp: Option<At<bool>>,
    pub(super) policy_maps: HashMap<String, PolicyMap>,
    /// class-map → DSCPs it matches (`None`: matches on something else, e.g. an ACL).
    pub(super) class_maps: HashMap<String, Option<Vec<u8>>>,
    pub(super) wd_global_enable: Option<At<bool>>,
    pub(super) wd_action: Option<At<String>>,
    pub(super) wd_timeout_ms: Option<At<f64>>,
    pub(super) wd_recovery_ms: Option<At<f64>>,
    pub(super) wd_poll_ms: Option<At<f64>>,
    pub(super) pfc_all_off: Option<Src>,
    pub(super) default_mtu: Option<At<u32>>,
    pub(super) default_eth_shutdown: Option<At<bool>>,
    /// (kind, name, line) of every reference, checked once the whole file is read.
    pub(super) refs: Vec<(&'static str, String, u32)>,
    /// `interface` lines whose name list could not be expanded: (line, why). Their blocks
    /// configure nothing; the line is reported as unrecognized.
    pub(super) unexpanded: Vec<(u32, String)>,
}

/// Where a record sits, so its children know what they configure.
#[derive(Debug, Clone)]
enum Ctx {
    None,
    Iface(usize),
    Profile(String),
    /// Owner (interface or profile) and queue; `None` queue = multicast queue, skipped.
    Txq(Box<Ctx>, Option<u8>),
    IfDefaults,
    IfDefaultsEth,
    PolicyMap(String),
    PmClass(String, usize),
    ClassMap(String),
}

/// Seconds as EOS writes them ("0.2") to milliseconds, rounded to the microsecond.
fn secs_to_ms(s: &str) -> Option<f64> {
    let v: f64 = s.trim().parse().ok()?;
    if !v.is_finite() || v < 0.0 {
        return None;
    }
    Some((v * 1_000_000.0).round() / 1000.0)
}

/// `speed` arguments: `100g`, `forced 100gfull`, `200g-4`, `forced 10000full`, `auto 25gfull`;
/// `auto` alone (negotiated) is not a known speed.
fn eos_speed(arg: &str) -> Option<f64> {
    let mut t = arg.trim().to_ascii_lowercase();
    for p in ["forced ", "auto "] {
        if let Some(r) = t.strip_prefix(p) {
            t = r.to_string();
        }
    }
    let head = t.split('-').next()?;
    let head = head.trim_end_matches("full").trim_end_matches("half");
    if head.is_empty() || !head.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    util::speed_gbps(head)
}

/// DSCP names EOS accepts besides numbers (`set dscp ef`).
fn dscp_value(s: &str) -> Option<u8> {
    let t = s.trim().to_ascii_lowercase();
    if let Ok(v) = t.parse::<u8>() {
        return (v < 64).then_some(v);
    }
    match t.as_str() {
        "ef" => return Some(46),
        "default" | "be" => return Some(0),
        _ => {}
    }
    if let Some(n) = t.strip_prefix("cs") {
        let n: u8 = n.parse().ok()?;
        return (n < 8).then(|| n * 8);
    }
    if let Some(xy) = t.strip_prefix("af") {
        let b = xy.as_bytes();
        if b.len() == 2 {
            let (x, y) = (b[0].wrapping_sub(b'0'), b[1].wrapping_sub(b'0'));
            if (1..=4).contains(&x) && (1..=3).contains(&y) {
                return Some(8 * x + 2 * y);
            }
        }
    }
    None
}

fn if_of<'c>(cfg: &'c mut Cfg, c: &Ctx) -> Option<&'c mut IfLines> {
    match c {
        Ctx::Iface(i) => cfg.interfaces.get_mut(*i).map(IfCfg::lines_mut),
        _ => None,
    }
}

fn qos_of<'c>(cfg: &'c mut Cfg, owner: &Ctx) -> Option<&'c mut QosStmts> {
    match owner {
        Ctx::Iface(i) => cfg.interfaces.get_mut(*i).map(|f| &mut f.lines_mut().qos),
        Ctx::Profile(p) => cfg.profiles.get_mut(p),
        _ => None,
    }
}

pub(super) fn read_config(o: &Output) -> Cfg {
    let p = &o.parsed;
    let mut cfg = Cfg::default();
    let mut ctx: Vec<Ctx> = Vec::with_capacity(p.records.len());
    // Interface blocks that stand for a list: (index of the block read, the other names).
    let mut ranges: Vec<(usize, Vec<String>)> = Vec::new();
    for r in &p.records {
        let src = o.src(r.line);
        let parent = r
            .parent
            .and_then(|i| ctx.get(i as usize))
            .cloned()
            .unwrap_or(Ctx::None);
        let get = |n: &str| p.get(r, n).unwrap_or("");
        let mut here = Ctx::None;
        match p.kind(r) {
            "device" => {
                cfg.version = at(get("version").to_string(), &src);
                if cfg.hostname.is_none() {
                    cfg.hostname = at(get("host").to_string(), &src);
                }
            }
            "hostname" => cfg.hostname = at(get("name").to_string(), &src),
            "if_defaults" => here = Ctx::IfDefaults,
            "if_defaults_ethernet" => here = Ctx::IfDefaultsEth,
            "interface" => {
                // `interface Ethernet1-4` / `interface Ethernet1/1-4, Ethernet2/1` configure
                // every port of the list: the block is read once, then copied to the rest.
                let mut names = match util::expand_if_list(get("name"), canonical_ifname) {
                    Ok(v) => v.into_iter(),
                    Err(why) => {
                        cfg.unexpanded.push((r.line, why));
                        ctx.push(Ctx::None);
                        continue;
                    }
                };
                let Some(name) = names.next() else {
                    ctx.push(Ctx::None);
                    continue;
                };
                let rest: Vec<String> = names.collect();
                if !rest.is_empty() {
                    ranges.push((cfg.interfaces.len(), rest));
                }
                crate::model::push_slim(&mut cfg.interfaces, IfCfg::new(name, &src));
                here = Ctx::Iface(cfg.interfaces.len() - 1);
            }
            "qos_profile" => {
                let name = get("name").to_string();
                cfg.profiles.entry(name.clone()).or_default();
                here = Ctx::Profile(name);
            }
            "shutdown" => {
                let v = at(p.get(r, "no").is_none(), &src);
                match parent {
                    Ctx::Iface(i) => {
                        if let Some(f) = cfg.interfaces.get_mut(i).map(IfCfg::lines_mut) {
                            f.shutdown = v;
                        }
                    }
                    Ctx::IfDefaultsEth => cfg.default_eth_shutdown = v,
                    _ => {}
                }
            }
            "switchport" => {
                if let Some(f) = if_of(&mut cfg, &parent) {
                    f.switchport = at(p.get(r, "no").is_none(), &src);
                }
            }
            "ip_address" => {
                if let Some(f) = if_of(&mut cfg, &parent) {
                    f.ip_address.get_or_insert(src.clone());
                }
            }
            "mtu" => {
                if let Some(m) = p.num::<u32>(r, "mtu") {
                    match parent {
                        Ctx::Iface(i) => {
                            if let Some(f) = cfg.interfaces.get_mut(i).map(IfCfg::lines_mut) {
                                f.mtu = at(m, &src);
                            }
                        }
                        Ctx::IfDefaults => cfg.default_mtu = at(m, &src),
                        _ => {}
                    }
                }
            }
            "l2_mtu" => {
                if let (Some(m), Some(f)) = (p.num::<u32>(r, "mtu"), if_of(&mut cfg, &parent)) {
                    f.l2_mtu = at(m, &src);
                }
            }
            "speed" => {
                if let Some(f) = if_of(&mut cfg, &parent) {
                    f.speed = at(eos_speed(get("speed")), &src);
                }
            }
            "channel_group" => {
                if let (Some(n), Some(f)) = (p.num::<u32>(r, "id"), if_of(&mut cfg, &parent)) {
                    f.channel_group = at(n, &src);
                }
            }
            "flowcontrol" => {
                if let Ctx::Iface(i) = parent {
                    let v = match get("state") {
                        "on" => Some(true),
                        "off" => Some(false),
                        // `desired`: pause is used only if the peer agrees; not known here.
                        _ => None,
                    };
                    if let Some(f) = cfg.interfaces.get_mut(i).map(IfCfg::lines_mut) {
                        if get("dir") == "receive" {
                            f.fc_rx = at(v, &src);
                        } else {
                            f.fc_tx = at(v, &src);
                        }
                    }
                }
            }
            "service_profile" => {
                if let Ctx::Iface(i) = parent {
                    let name = get("name").to_string();
                    cfg.refs.push(("qos profile", name.clone(), r.line));
                    if let Some(f) = cfg.interfaces.get_mut(i).map(IfCfg::lines_mut) {
                        f.service_profile = at(name, &src);
                    }
                }
            }
            "qos_trust" => {
                let mode = match (p.get(r, "no"), p.get(r, "mode")) {
                    (Some(_), _) | (None, Some("disabled")) => "port",
                    (None, Some("dscp")) => "dscp",
                    (None, Some("cos")) => "pcp",
                    // bare `qos trust` is not an EOS form; leave it unknown
                    _ => "",
                };
                if !mode.is_empty()
                    && let Some(q) = qos_of(&mut cfg, &parent)
                {
                    q.trust = at(mode.to_string(), &src);
                }
            }
            "service_policy" => {
                let name = get("name").to_string();
                cfg.refs.push(("policy-map", name.clone(), r.line));
                if let Some(q) = qos_of(&mut cfg, &parent) {
                    q.service_policy = at(name, &src);
                }
            }
            "pfc_mode" => {
                if let Some(q) = qos_of(&mut cfg, &parent) {
                    q.pfc_on = at(get("state") == "on", &src);
                }
            }
            "default_stmt" => {
                // `default X`: X as the platform has it when no line sets it, i.e. absent here
                // (apply.rs then applies EOS's default, marked `default = true`); PFC's default is
                // off, stated by the line.
                let what = get("what");
                if let Ctx::Iface(i) = parent
                    && let Some(f) = cfg.interfaces.get_mut(i).map(IfCfg::lines_mut)
                {
                    match what {
                        "mtu" => f.mtu = None,
                        "l2 mtu" => f.l2_mtu = None,
                        "speed" => f.speed = None,
                        "flowcontrol send" => f.fc_tx = None,
                        "flowcontrol receive" => f.fc_rx = None,
                        "service-profile" => f.service_profile = None,
                        "switchport" => f.switchport = None,
                        "shutdown" => f.shutdown = None,
                        "channel-group" => f.channel_group = None,
                        _ => {}
                    }
                }
                if let Some(q) = qos_of(&mut cfg, &parent) {
                    match what {
                        "priority-flow-control" => q.pfc_on = at(false, &src),
                        "qos trust" => q.trust = None,
                        w if w.starts_with("service-policy") => q.service_policy = None,
                        _ => {}
                    }
                }
            }
            "pfc_priority" => {
                if let Some(prio) = p.num::<u8>(r, "prio").filter(|v| *v < 8) {
                    let nodrop = get("action") == "no-drop";
                    if let Some(q) = qos_of(&mut cfg, &parent) {
                        q.pfc_prios.insert(
                            prio,
                            At {
                                v: nodrop,
                                src: src.clone(),
                            },
                        );
                    }
                }
            }
            "wd_enable" => {
                let v = at(p.get(r, "no").is_none(), &src);
                match parent {
                    Ctx::None => cfg.wd_global_enable = v,
                    ref owner => {
                        if let Some(q) = qos_of(&mut cfg, owner) {
                            q.wd_enable = v;
                        }
                    }
                }
            }
            "wd_port_action" => {
                if let Some(q) = qos_of(&mut cfg, &parent) {
                    q.wd_action = at(wd_action_name(get("action")), &src);
                }
            }
            "wd_port_timer" => {
                if let Some(t) = secs_to_ms(get("timeout")) {
                    let timer = WdTimer {
                        timeout_ms: t,
                        poll_ms: p.get(r, "poll").and_then(secs_to_ms),
                        recovery_ms: p.get(r, "recovery").and_then(secs_to_ms),
                        src: src.clone(),
                    };
                    if let Some(q) = qos_of(&mut cfg, &parent) {
                        q.wd_timer = Some(timer);
                    }
                }
            }
            "wd_action" => cfg.wd_action = at(wd_action_name(get("action")), &src),
            "wd_default" => {
                if let Some(ms) = secs_to_ms(get("secs")) {
                    let v = at(ms, &src);
                    match get("what") {
                        "timeout" => cfg.wd_timeout_ms = v,
                        "recovery-time" => cfg.wd_recovery_ms = v,
                        _ => cfg.wd_poll_ms = v,
                    }
                }
            }
            "pfc_all_off" => cfg.pfc_all_off = Some(src.clone()),
            "txq" => {
                let q = p.num::<u8>(r, "q").filter(|q| *q < 8);
                let unicast = get("type") != "mc-tx-queue";
                let q = q.filter(|_| unicast);
                if let Some(qn) = q
                    && let Some(stmts) = qos_of(&mut cfg, &parent)
                {
                    stmts.queues.entry(qn).or_default();
                }
                here = Ctx::Txq(Box::new(parent.clone()), q);
            }
            "txq_priority" | "txq_bandwidth" | "txq_guaranteed" | "txq_ecn" | "txq_wred" => {
                if let Ctx::Txq(owner, Some(qn)) = &parent {
                    let kind = p.kind(r);
                    if let Some(stmts) = qos_of(&mut cfg, owner) {
                        queue_stmt(p, r, kind, &src, stmts.queues.entry(*qn).or_default());
                    }
                }
            }
            "map_dscp_tc" | "map_tc_queue" => {
                let tc_name = if p.kind(r) == "map_dscp_tc" {
                    "tc"
                } else {
                    "queue"
                };
                let max = if tc_name == "tc" { 63 } else { 7 };
                if let (Some(list), Some(to)) = (
                    util::num_list(get("list"), max),
                    p.num::<u8>(r, tc_name).filter(|v| *v < 8),
                ) {
                    if tc_name == "tc" {
                        cfg.dscp_maps.push((list, to, src.clone()));
                    } else {
                        cfg.tc_queue_maps.push((list, to, src.clone()));
                    }
                }
            }
            "map_tc_dscp" => {
                if let (Some(list), Some(d)) = (
                    util::num_list(get("list"), 7),
                    p.num::<u8>(r, "dscp").filter(|v| *v < 64),
                ) {
                    cfg.tc_dscp_maps.push((list, d, src.clone()));
                }
            }
            "qos_rewrite_dscp" => cfg.rewrite_dscp = at(get("no").is_empty(), &src),
            "map_cos_tc" => {
                if let (Some(list), Some(to)) = (
                    util::num_list(get("list"), 7),
                    p.num::<u8>(r, "tc").filter(|v| *v < 8),
                ) {
                    cfg.cos_maps.push((list, to, src.clone()));
                }
            }
            "policy_map" => {
                let name = get("name").to_string();
                cfg.policy_maps.entry(name.clone()).or_default();
                here = Ctx::PolicyMap(name);
            }
            "pm_class" => {
                if let Ctx::PolicyMap(pm) = &parent {
                    let class = get("name").to_string();
                    if class != "class-default" {
                        cfg.refs.push(("class-map", class.clone(), r.line));
                    }
                    if let Some(m) = cfg.policy_maps.get_mut(pm) {
                        m.classes.push((class, None, src.clone()));
                        here = Ctx::PmClass(pm.clone(), m.classes.len() - 1);
                    }
                }
            }
            "pm_set_dscp" => {
                if let Ctx::PmClass(pm, ci) = &parent
                    && let Some(c) = cfg
                        .policy_maps
                        .get_mut(pm)
                        .and_then(|m| m.classes.get_mut(*ci))
                {
                    c.1 = dscp_value(get("value"));
                }
            }
            "pm_set_tc" => {
                if let Ctx::PmClass(pm, ci) = &parent
                    && let Some(m) = cfg.policy_maps.get_mut(pm)
                    && let Ok(tc) = get("tc").parse::<u8>()
                {
                    m.set_tc.insert(
                        *ci,
                        At {
                            v: tc,
                            src: src.clone(),
                        },
                    );
                }
            }
            "class_map" => {
                let name = get("name").to_string();
                cfg.class_maps.insert(name.clone(), None);
                here = Ctx::ClassMap(name);
            }
            "cm_match_dscp" => {
                if let Ctx::ClassMap(cm) = &parent {
                    let vals: Vec<u8> = get("list")
                        .split([' ', ','])
                        .filter(|s| !s.is_empty())
                        .filter_map(|s| {
                            util::num_list(s, 63)
                                .map(|v| v.into_iter().map(|d| d as u8).collect::<Vec<_>>())
                                .or_else(|| dscp_value(s).map(|d| vec![d]))
                        })
                        .flatten()
                        .collect();
                    if let Some(slot) = cfg.class_maps.get_mut(cm) {
                        let mut all = slot.take().unwrap_or_default();
                        all.extend(vals);
                        *slot = Some(all);
                    }
                }
            }
            _ => {}
        }
        ctx.push(here);
    }
    for (i, names) in ranges {
        let Some(first) = cfg.interfaces.get(i).cloned() else {
            continue;
        };
        for name in names {
            let mut f = first.clone();
            f.kind = kind_of(&name);
            f.name = name;
            crate::model::push_slim(&mut cfg.interfaces, f);
        }
    }
    cfg
}

/// One line of a `tx-queue N` block.
fn queue_stmt(p: &Parsed, r: &Record, kind: &str, src: &Src, qs: &mut QueueStmts) {
    let get = |n: &str| p.get(r, n).unwrap_or("");
    match kind {
        "txq_priority" => {
            // `priority strict` / `no priority`; a bare `priority` is not EOS.
            if p.get(r, "no").is_some() {
                qs.strict = at(false, src);
            } else if p.get(r, "mode").is_some() {
                qs.strict = at(true, src);
            }
        }
        "txq_bandwidth" => {
            if let Some(v) = p.num::<f64>(r, "pct") {
                qs.bw_pct = at(v, src);
            }
        }
        "txq_guaranteed" => {
            // a bare number is a rate (kbps by default), not a share
            if p.get(r, "percent").is_some()
                && let Some(v) = p.num::<f64>(r, "value")
            {
                qs.guaranteed_pct = at(v, src);
            }
        }
        "txq_ecn" => {
            // Sizes in bytes/kbytes/mbytes convert; `segments` (buffer cells of a
            // platform-dependent size, e.g. 208 B on some ASICs) and latency units
            // (`milliseconds`, `microseconds`) do not, so min/max stay unknown rather than
            // guessed. TODO: convert segments once the ASIC's cell size is modelled; the raw
            // values are on the cited line.
            let conv = |v: &str, u: &str| v.parse::<f64>().ok().and_then(|v| util::to_bytes(v, u));
            qs.ecn = Some(EcnStmt {
                min_bytes: conv(get("min"), get("min_unit")),
                max_bytes: conv(get("max"), get("max_unit")),
                prob: p.num::<f64>(r, "prob"),
                src: src.clone(),
            });
        }
        _ => qs.wred = Some(src.clone()),
    }
}

/// EOS action words → model words (`notify-only` only alerts).
fn wd_action_name(a: &str) -> String {
    match a {
        "notify-only" => "alert".into(),
        other => other.to_string(),
    }
}

pub(super) fn undefined_refs(cfg: &Cfg) -> Vec<(String, String, u32)> {
    let mut out = Vec::new();
    for (kind, name, line) in &cfg.refs {
        let defined = match *kind {
            "qos profile" => cfg.profiles.contains_key(name),
            "policy-map" => cfg.policy_maps.contains_key(name),
            _ => cfg.class_maps.contains_key(name),
        };
        if !defined {
            out.push((kind.to_string(), name.clone(), *line));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds_and_dscp_names() {
        assert_eq!(eos_speed("100g"), Some(100.0));
        assert_eq!(eos_speed("forced 100gfull"), Some(100.0));
        assert_eq!(eos_speed("200g-4"), Some(200.0));
        assert_eq!(eos_speed("forced 10000full"), Some(10.0));
        assert_eq!(eos_speed("auto"), None);
        assert_eq!(eos_speed("auto 25gfull"), Some(25.0));
        assert_eq!(eos_speed("sfp-1000baset auto 100full"), None);
        assert_eq!(dscp_value("ef"), Some(46));
        assert_eq!(dscp_value("cs32"), None);
        assert_eq!(dscp_value("af31"), Some(26));
        assert_eq!(dscp_value("cs6"), Some(48));
        assert_eq!(dscp_value("64"), None);
        assert_eq!(dscp_value("af5"), None);
    }

    #[test]
    fn seconds() {
        assert_eq!(secs_to_ms("0.2"), Some(200.0));
        assert_eq!(secs_to_ms("1.11"), Some(1110.0));
        assert_eq!(secs_to_ms("x"), None);
    }
}
