//! Reading Junos statements (full paths, see `tree`) into typed definitions: interfaces and
//! interface ranges, the [edit class-of-service] objects (forwarding classes, classifiers,
//! rewrite rules, drop profiles, schedulers, scheduler maps, congestion-notification profiles,
//! forwarding-class sets, traffic-control profiles, shared buffer) and DCBX. Nothing here
//! applies defaults; `apply` does that. Inactive statements are kept aside so that a default
//! applied in their place can cite them.

use super::tree::{Stmt, one_list, values};
use crate::model::Src;
use std::collections::BTreeMap;

pub(super) use crate::platform::util::{At, at};

/// What `[edit interfaces NAME]` (or an interface range) says. One is alive per interface
/// (twice while `apply` merges the ranges in), so the lines few stanzas write are kept apart
/// ([`IfMore`]): inline they made it 184 bytes, most of what a short stanza (`set interfaces
/// et-1/0/1 mtu 9216`) cost (issue 19).
#[derive(Debug, Clone, Default)]
pub(super) struct IfConf {
    /// First line that names the interface.
    pub(super) src: Option<Src>,
    /// Media MTU (`mtu N;` at the interface).
    pub(super) mtu: Option<At<u32>>,
    /// Written only for the interfaces whose lines set one of them.
    more: Option<Box<IfMore>>,
}

/// The interface's lines other than its MTU.
#[derive(Debug, Clone, Default)]
pub(super) struct IfMore {
    pub(super) disable: Option<Src>,
    /// Protocol MTU of `unit 0 family inet` (the IP MTU itself).
    pub(super) inet_mtu: Option<At<u32>>,
    pub(super) vlan_tagging: Option<Src>,
    pub(super) speed: Option<At<Option<f64>>>,
    pub(super) lag: Option<At<String>>,
    /// Symmetric PAUSE: `flow-control;` (true) / `no-flow-control;` (false).
    pub(super) flow_control: Option<At<bool>>,
    /// Asymmetric PAUSE: rx-buffers = send PAUSE, tx-buffers = honour received PAUSE.
    pub(super) rx_buffers: Option<At<bool>>,
    pub(super) tx_buffers: Option<At<bool>>,
    /// Families configured on unit 0 (or the first unit): inet, ethernet-switching, ...
    pub(super) families: Vec<String>,
    /// `number-of-sub-ports N;`: the port is a breakout parent.
    pub(super) sub_ports: Option<At<u32>>,
}

impl IfConf {
    /// The lines other than the MTU (none written: all unset).
    pub(super) fn more(&self) -> &IfMore {
        static NONE: IfMore = IfMore {
            disable: None,
            inet_mtu: None,
            vlan_tagging: None,
            speed: None,
            lag: None,
            flow_control: None,
            rx_buffers: None,
            tx_buffers: None,
            families: Vec::new(),
            sub_ports: None,
        };
        self.more.as_deref().unwrap_or(&NONE)
    }

    pub(super) fn more_mut(&mut self) -> &mut IfMore {
        self.more.get_or_insert_with(Box::default)
    }

    /// Fill what `self` leaves unset from `base` (an interface range the port is a member of).
    pub(super) fn inherit(&mut self, base: &IfConf) {
        fn keep<T: Clone>(own: &mut Option<T>, b: &Option<T>) {
            if own.is_none() {
                own.clone_from(b);
            }
        }
        keep(&mut self.src, &base.src);
        keep(&mut self.mtu, &base.mtu);
        let Some(base) = base.more.as_deref() else {
            return;
        };
        let m = self.more_mut();
        keep(&mut m.disable, &base.disable);
        keep(&mut m.inet_mtu, &base.inet_mtu);
        keep(&mut m.vlan_tagging, &base.vlan_tagging);
        keep(&mut m.speed, &base.speed);
        keep(&mut m.lag, &base.lag);
        keep(&mut m.flow_control, &base.flow_control);
        keep(&mut m.rx_buffers, &base.rx_buffers);
        keep(&mut m.tx_buffers, &base.tx_buffers);
        if m.families.is_empty() {
            m.families.clone_from(&base.families);
        }
        keep(&mut m.sub_ports, &base.sub_ports);
    }
}

#[derive(Debug, Clone, Default)]
pub(super) struct Range {
    /// Member names as written (`et-0/0/[0-3]`, `et-0/0/*`) and `member-range A to B` pairs,
    /// each with its line (a member that cannot be expanded is reported there).
    pub(super) members: Vec<(String, Src)>,
    pub(super) member_ranges: Vec<(String, String, Src)>,
    pub(super) conf: IfConf,
}

#[derive(Debug, Clone)]
pub(super) struct Fc {
    pub(super) queue: u8,
    pub(super) no_loss: bool,
    pub(super) pfc_priority: Option<u8>,
    pub(super) src: Src,
}

/// A classifier (`dscp NAME`) or rewrite rule: (code point, forwarding class, loss priority).
#[derive(Debug, Clone, Default)]
pub(super) struct CodeMap {
    pub(super) src: Option<Src>,
    pub(super) import_default: bool,
    pub(super) entries: Vec<(u8, String, String, Src)>,
}

#[derive(Debug, Clone, Default)]
pub(super) struct DropProfile {
    pub(super) src: Option<Src>,
    pub(super) fill: Vec<f64>,
    pub(super) prob: Vec<f64>,
}

#[derive(Debug, Clone, Default)]
pub(super) struct Scheduler {
    pub(super) src: Option<Src>,
    pub(super) priority: Option<At<String>>,
    pub(super) rate_pct: Option<At<f64>>,
    /// `transmit-rate 10g` (an absolute rate): not a share.
    pub(super) rate_abs: Option<Src>,
    /// (loss priority, drop profile) of `drop-profile-map` lines.
    pub(super) drop_profiles: Vec<(String, At<String>)>,
    pub(super) ecn: Option<Src>,
}

#[derive(Debug, Clone, Default)]
pub(super) struct SchedMap {
    pub(super) src: Option<Src>,
    pub(super) entries: BTreeMap<String, At<String>>,
}

#[derive(Debug, Clone, Default)]
pub(super) struct Cnp {
    pub(super) src: Option<Src>,
    /// DSCP value → line enabling PFC for it (`input dscp code-point 011010 pfc`).
    pub(super) dscp_pfc: BTreeMap<u8, Src>,
    /// 802.1p priority → line (`input ieee-802.1 code-point 011 pfc`).
    pub(super) ieee_pfc: BTreeMap<u8, Src>,
    pub(super) cable_m: Option<At<f64>>,
    /// Received-PAUSE priority → output queues paused (`output ieee-802.1 code-point 011
    /// flow-control-queue 3`).
    pub(super) output: BTreeMap<u8, At<Vec<u8>>>,
    pub(super) watchdog: Option<Src>,
    pub(super) wd_detection: Option<At<u32>>,
    pub(super) wd_poll_ms: Option<At<u32>>,
    pub(super) wd_recovery_ms: Option<At<u32>>,
}

/// One entry of [edit class-of-service interfaces]: a name or a wildcard (`et-*`).
#[derive(Debug, Clone, Default)]
pub(super) struct CosIf {
    pub(super) pattern: String,
    pub(super) src: Option<Src>,
    pub(super) scheduler_map: Option<At<String>>,
    pub(super) cnp: Option<At<String>>,
    /// forwarding-class-set → output traffic-control profile.
    pub(super) fc_sets: Vec<(String, At<String>)>,
    /// Classifier type (dscp, ieee-802.1, ...) → name, on unit 0 / unit *.
    pub(super) classifiers: BTreeMap<String, At<String>>,
    pub(super) rewrites: BTreeMap<String, At<String>>,
    /// Where each binding of `classifiers`/`rewrites` was made, (is a classifier, type) →
    /// level: 2 unit 0 or `unit *`, 1 another unit, 0 the physical interface. A higher level
    /// replaces a lower one.
    pub(super) bind_levels: BTreeMap<(bool, String), u8>,
    /// Fixed classification (`forwarding-class NAME` on the interface or unit 0 / `unit *`).
    pub(super) fixed_fc: Option<At<String>>,
}

#[derive(Debug, Clone, Default)]
pub(super) struct Buffers {
    /// (direction, partition) → percent; partition "" = the direction's own `percent`.
    pub(super) percent: BTreeMap<(String, String), At<f64>>,
}

#[derive(Debug, Default)]
pub(super) struct Cos {
    pub(super) fcs: BTreeMap<String, Fc>,
    pub(super) classifiers: BTreeMap<(String, String), CodeMap>,
    pub(super) rewrites: BTreeMap<(String, String), CodeMap>,
    /// User code-point aliases by code-point type (`code-point-aliases dscp NAME BITS`):
    /// dscp, dscp-ipv6, ieee-802.1, exp, inet-precedence.
    pub(super) aliases: BTreeMap<String, BTreeMap<String, u8>>,
    pub(super) drop_profiles: BTreeMap<String, DropProfile>,
    pub(super) schedulers: BTreeMap<String, Scheduler>,
    pub(super) scheduler_maps: BTreeMap<String, SchedMap>,
    pub(super) cnps: BTreeMap<String, Cnp>,
    pub(super) fc_sets: BTreeMap<String, Vec<String>>,
    pub(super) tcps: BTreeMap<String, Option<At<String>>>,
    pub(super) ifs: Vec<CosIf>,
    /// Positions in `ifs` by pattern (a scan per statement, and per port, was quadratic;
    /// issue 19). In a cell: ports look entries up through `&Cos` ([`Cos::entries_for`]).
    ifs_index: std::cell::RefCell<crate::model::name_index::NameIndex>,
    /// Positions in `ifs` of the patterns with a `*`, and of those with a `?` but no `*`.
    wild: Vec<u32>,
    qmark: Vec<u32>,
    pub(super) buffers: Buffers,
}

impl Cos {
    /// The entry of `pattern` under `[edit class-of-service interfaces]`, made (citing `src`)
    /// at its first statement.
    fn entry(&mut self, pattern: &str, src: &Src) -> &mut CosIf {
        let found = self
            .ifs_index
            .get_mut()
            .position(&self.ifs, |c| &c.pattern, pattern);
        let pos = match found {
            Some(p) => p,
            None => {
                let at = self.ifs.len() as u32;
                if pattern.contains('*') {
                    self.wild.push(at);
                } else if pattern.contains('?') {
                    self.qmark.push(at);
                }
                self.ifs.push(CosIf {
                    pattern: pattern.to_string(),
                    src: Some(src.clone()),
                    ..Default::default()
                });
                at as usize
            }
        };
        &mut self.ifs[pos]
    }

    /// The `[edit class-of-service interfaces]` entries whose pattern matches the port `name`,
    /// in statement order: those with a `*` (`wild`), else the others (the port's own name, a
    /// pattern of `?`s). Found without a pass over every entry per port.
    pub(super) fn entries_for(&self, name: &str, wild: bool) -> Vec<&CosIf> {
        let matching = |list: &[u32]| -> Vec<usize> {
            list.iter()
                .map(|&i| i as usize)
                .filter(|&i| {
                    self.ifs
                        .get(i)
                        .is_some_and(|c| crate::glob::matches(&c.pattern, name))
                })
                .collect()
        };
        let mut at = if wild {
            matching(&self.wild)
        } else {
            let mut v = matching(&self.qmark);
            let own = self
                .ifs_index
                .borrow_mut()
                .position(&self.ifs, |c| &c.pattern, name);
            if let Some(p) = own
                && !self.ifs[p].pattern.contains(['*', '?'])
            {
                v.push(p);
                v.sort_unstable();
            }
            v
        };
        at.dedup();
        at.into_iter().filter_map(|i| self.ifs.get(i)).collect()
    }
}

#[derive(Debug, Default)]
pub(super) struct Config {
    pub(super) seen: bool,
    pub(super) version: Option<At<String>>,
    pub(super) interfaces: BTreeMap<String, IfConf>,
    pub(super) ranges: BTreeMap<String, Range>,
    pub(super) cos: Cos,
    pub(super) dcbx_disable: Option<Src>,
    /// DCBX `interface NAME|all priority-flow-control no-auto-negotiation` / `interface X
    /// disable`: (interface or "all", src).
    pub(super) dcbx_no_autoneg: Vec<(String, Src)>,
    pub(super) dcbx_if_disable: Vec<(String, Src)>,
    /// Channelized ports of [edit chassis fpc F pic P port N | port-range A B] (`channel-speed`,
    /// `number-of-sub-ports`): "F/P/N" → the line.
    pub(super) chassis_breakout: BTreeMap<String, Src>,
    /// Statements that do not apply (`inactive:` / `deactivate`), for citing.
    pub(super) inactive: Vec<Stmt>,
    /// (kind, name, src) of every reference, checked once everything is read.
    pub(super) refs: Vec<(&'static str, String, Src)>,
}

/// DSCP code point from bits (`011010`) or a standard or user alias (`af31`, `cs6`, `ef`).
pub(super) fn dscp_of(v: &str, aliases: &BTreeMap<String, u8>) -> Option<u8> {
    if v.len() == 6 && v.bytes().all(|b| b == b'0' || b == b'1') {
        return u8::from_str_radix(v, 2).ok();
    }
    if let Some(a) = aliases.get(v) {
        return Some(*a);
    }
    // Standard DSCP aliases (Junos default code-point aliases): be, ef, afXY, csN, nc1/nc2.
    match v {
        "be" => return Some(0),
        "ef" => return Some(46),
        "nc1" => return Some(48),
        "nc2" => return Some(56),
        _ => {}
    }
    if let Some(n) = v.strip_prefix("cs") {
        let n: u8 = n.parse().ok()?;
        return (n < 8).then(|| n * 8);
    }
    if let Some(xy) = v.strip_prefix("af") {
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

/// IEEE 802.1p priority from bits (`011`) or a default alias (be, be1, ef, ef1, af11, af12, nc1,
/// nc2: Junos default IEEE 802.1 code-point aliases).
pub(super) fn ieee_of(v: &str) -> Option<u8> {
    if v.len() == 3 && v.bytes().all(|b| b == b'0' || b == b'1') {
        return u8::from_str_radix(v, 2).ok();
    }
    let n = match v {
        "be" => 0,
        "be1" => 1,
        "ef" => 2,
        "ef1" => 3,
        "af11" => 4,
        "af12" => 5,
        "nc1" => 6,
        "nc2" => 7,
        _ => return None,
    };
    Some(n)
}

/// A code point of type `ty` (dscp, dscp-ipv6: 6 bits; ieee-802.1, exp, inet-precedence: 3
/// bits) from bits, a user alias of that type, or a Junos default alias.
pub(super) fn code_point(
    ty: &str,
    v: &str,
    aliases: &BTreeMap<String, BTreeMap<String, u8>>,
) -> Option<u8> {
    let user = aliases.get(ty);
    if ty == "dscp" || ty == "dscp-ipv6" {
        return dscp_of(v, user.unwrap_or(&BTreeMap::new()));
    }
    if let Some(a) = user.and_then(|u| u.get(v)) {
        return Some(*a);
    }
    ieee_of(v)
}

fn num<T: std::str::FromStr>(s: &str) -> Option<T> {
    s.parse().ok()
}

impl Config {
    /// A `code-point-aliases` statement; every output's aliases are read before its other
    /// statements ([`Config::read`]), since classifiers may name them before they are defined.
    pub(super) fn read_alias(&mut self, s: &Stmt) {
        if s.active
            && let ["class-of-service", "code-point-aliases", ty, name, bits] = s.w()[..]
        {
            let width = if ty == "dscp" || ty == "dscp-ipv6" {
                6
            } else {
                3
            };
            if bits.len() == width
                && let Ok(v) = u8::from_str_radix(bits, 2)
            {
                self.cos
                    .aliases
                    .entry(ty.to_string())
                    .or_default()
                    .insert(name.to_string(), v);
            }
        }
    }

    /// One statement, as `tree::statements` hands it on (after the output's aliases,
    /// [`Config::read_alias`]): an inactive one is kept aside for citing, an active one read.
    pub(super) fn read(&mut self, s: Stmt) {
        if !s.active {
            self.inactive.push(s);
            return;
        }
        self.seen = true;
        self.stmt(&s);
    }

    fn stmt(&mut self, s: &Stmt) {
        let w = s.w();
        let src = &s.src;
        match w.as_slice() {
            ["version", v] => self.version = at(v.to_string(), src),
            ["interfaces", "interface-range", name, rest @ ..] => {
                let r = self.ranges.entry(name.to_string()).or_default();
                match rest {
                    // `et-0/0/[0-7]` comes split at its brackets (see `tree::words`).
                    ["member", m @ ..] if !m.is_empty() => {
                        r.members.push((m.concat(), src.clone()))
                    }
                    ["member-range", a, "to", b] => {
                        r.member_ranges
                            .push((a.to_string(), b.to_string(), src.clone()))
                    }
                    _ => if_stmt(&mut r.conf, rest, src),
                }
            }
            ["interfaces", name, rest @ ..] => {
                let c = self.interfaces.entry(name.to_string()).or_default();
                if_stmt(c, rest, src);
            }
            ["class-of-service", rest @ ..] => self.cos_stmt(rest, src),
            [
                "chassis",
                "fpc",
                f,
                "pic",
                p,
                port @ ("port" | "port-range"),
                rest @ ..,
            ] => {
                // `port N channel-speed S` / `port-range A B channel-speed S` /
                // `port N number-of-sub-ports K`
                let (lo, hi, what) = match (*port, rest) {
                    ("port", [n, what @ ..]) => (num::<u32>(n), num::<u32>(n), what),
                    ("port-range", [a, b, what @ ..]) => (num::<u32>(a), num::<u32>(b), what),
                    _ => return,
                };
                let channelized = match what {
                    ["channel-speed", _] => true,
                    ["number-of-sub-ports", k] => num::<u32>(k).is_some_and(|k| k > 1),
                    _ => false,
                };
                if let (Some(lo), Some(hi), true) = (lo, hi, channelized) {
                    for n in lo..=hi.min(lo + 256) {
                        self.chassis_breakout
                            .entry(format!("{f}/{p}/{n}"))
                            .or_insert_with(|| src.clone());
                    }
                }
            }
            ["protocols", "dcbx", rest @ ..] => match rest {
                ["disable"] => self.dcbx_disable = Some(src.clone()),
                [
                    "interface",
                    name,
                    "priority-flow-control",
                    "no-auto-negotiation",
                ] => self.dcbx_no_autoneg.push((name.to_string(), src.clone())),
                ["interface", name, "disable"] => {
                    self.dcbx_if_disable.push((name.to_string(), src.clone()))
                }
                _ => {}
            },
            _ => {}
        }
    }

    fn cos_stmt(&mut self, w: &[&str], src: &Src) {
        let cos = &mut self.cos;
        match w {
            ["forwarding-classes", "class", fc, "queue-num", q, opts @ ..] => {
                let Some(queue) = num::<u8>(q) else { return };
                let mut f = Fc {
                    queue,
                    no_loss: false,
                    pfc_priority: None,
                    src: src.clone(),
                };
                let mut it = opts.iter();
                while let Some(o) = it.next() {
                    match *o {
                        "no-loss" => f.no_loss = true,
                        "pfc-priority" => f.pfc_priority = it.next().and_then(|p| num(p)),
                        _ => {}
                    }
                }
                cos.fcs.insert(fc.to_string(), f);
            }
            ["forwarding-classes", "queue", q, fc] => {
                if let Some(queue) = num::<u8>(q) {
                    cos.fcs.insert(
                        fc.to_string(),
                        Fc {
                            queue,
                            no_loss: false,
                            pfc_priority: None,
                            src: src.clone(),
                        },
                    );
                }
            }
            [
                kind @ ("classifiers" | "rewrite-rules"),
                ty,
                name,
                rest @ ..,
            ] => {
                let is_classifier = *kind == "classifiers";
                // Borrowed, not copied: a copy per statement cost aliases × statements.
                let aliases = &cos.aliases;
                let map = if is_classifier {
                    &mut cos.classifiers
                } else {
                    &mut cos.rewrites
                };
                let m = map.entry((ty.to_string(), name.to_string())).or_default();
                m.src.get_or_insert_with(|| src.clone());
                match rest {
                    ["import", "default"] => m.import_default = true,
                    [
                        "forwarding-class",
                        fc,
                        "loss-priority",
                        lp,
                        "code-points" | "code-point",
                        vs @ ..,
                    ] => {
                        // One value or one `[ ... ]` list, as Junos writes it; anything else is
                        // a statement nested under a line whose list never closed, whose words
                        // would each be read again for every statement below it (issue 19:
                        // 6,559 undefined aliases from 10 KB, 357 times the file).
                        let Some(vs) = one_list(vs) else { return };
                        for v in vs {
                            match code_point(ty, v, aliases) {
                                Some(c) => {
                                    m.entries
                                        .push((c, fc.to_string(), lp.to_string(), src.clone()))
                                }
                                // Neither bits nor a known alias: Junos refuses to commit it;
                                // reported, never dropped silently.
                                None => self.refs.push((
                                    "code-point-alias",
                                    format!("{ty} {v}"),
                                    src.clone(),
                                )),
                            }
                        }
                        self.refs
                            .push(("forwarding-class", fc.to_string(), src.clone()));
                    }
                    _ => {}
                }
            }
            ["drop-profiles", name, rest @ ..] => {
                let d = cos.drop_profiles.entry(name.to_string()).or_default();
                d.src.get_or_insert_with(|| src.clone());
                let nums = |vs: &[&str]| -> Vec<f64> {
                    values(vs).iter().filter_map(|v| num::<f64>(v)).collect()
                };
                match rest {
                    ["interpolate", "fill-level", vs @ ..] => d.fill.extend(nums(vs)),
                    ["interpolate", "drop-probability", vs @ ..] => d.prob.extend(nums(vs)),
                    ["fill-level", f, "drop-probability", p] => {
                        if let (Some(f), Some(p)) = (num(f), num(p)) {
                            d.fill.push(f);
                            d.prob.push(p);
                        }
                    }
                    _ => {}
                }
            }
            ["shared-buffer" | "dedicated-buffer", dir, rest @ ..] => {
                let key = |part: &str| (dir.to_string(), part.to_string());
                match rest {
                    ["percent", p] => {
                        if let Some(p) = num(p)
                            && w[0] == "shared-buffer"
                        {
                            cos.buffers.percent.insert(
                                key(""),
                                At {
                                    v: p,
                                    src: src.clone(),
                                },
                            );
                        }
                    }
                    ["buffer-partition", part, "percent", p] => {
                        if let Some(p) = num(p) {
                            cos.buffers.percent.insert(
                                key(part),
                                At {
                                    v: p,
                                    src: src.clone(),
                                },
                            );
                        }
                    }
                    _ => {}
                }
            }
            ["congestion-notification-profile", name, rest @ ..] => {
                let c = cos.cnps.entry(name.to_string()).or_default();
                c.src.get_or_insert_with(|| src.clone());
                cnp_stmt(c, rest, src, &cos.aliases, &mut self.refs);
            }
            ["scheduler-maps", name, rest @ ..] => {
                let m = cos.scheduler_maps.entry(name.to_string()).or_default();
                m.src.get_or_insert_with(|| src.clone());
                if let ["forwarding-class", fc, "scheduler", sched] = rest {
                    m.entries.insert(
                        fc.to_string(),
                        At {
                            v: sched.to_string(),
                            src: src.clone(),
                        },
                    );
                    self.refs
                        .push(("scheduler", sched.to_string(), src.clone()));
                    self.refs
                        .push(("forwarding-class", fc.to_string(), src.clone()));
                }
            }
            ["schedulers", name, rest @ ..] => {
                let sc = cos.schedulers.entry(name.to_string()).or_default();
                sc.src.get_or_insert_with(|| src.clone());
                match rest {
                    ["priority", p] => sc.priority = at(p.to_string(), src),
                    ["transmit-rate", "percent", p, ..] => {
                        sc.rate_pct = num(p).and_then(|p| at(p, src));
                    }
                    ["transmit-rate", r, ..] if r.starts_with(|c: char| c.is_ascii_digit()) => {
                        sc.rate_abs = Some(src.clone());
                    }
                    [
                        "drop-profile-map",
                        "loss-priority",
                        lp,
                        "protocol",
                        _,
                        "drop-profile",
                        dp,
                    ] => {
                        sc.drop_profiles.push((
                            lp.to_string(),
                            At {
                                v: dp.to_string(),
                                src: src.clone(),
                            },
                        ));
                        self.refs
                            .push(("drop-profile", dp.to_string(), src.clone()));
                    }
                    ["explicit-congestion-notification"] => sc.ecn = Some(src.clone()),
                    _ => {}
                }
            }
            ["forwarding-class-sets", name, rest @ ..] => {
                let set = cos.fc_sets.entry(name.to_string()).or_default();
                if let ["class", fc] = rest {
                    set.push(fc.to_string());
                    self.refs
                        .push(("forwarding-class", fc.to_string(), src.clone()));
                }
            }
            ["traffic-control-profiles", name, rest @ ..] => {
                let t = cos.tcps.entry(name.to_string()).or_default();
                if let ["scheduler-map", sm] = rest {
                    *t = at(sm.to_string(), src);
                    self.refs
                        .push(("scheduler-map", sm.to_string(), src.clone()));
                }
            }
            ["interfaces", pattern, rest @ ..] => {
                let ci = cos.entry(pattern, src);
                match rest {
                    ["scheduler-map", sm] => {
                        ci.scheduler_map = at(sm.to_string(), src);
                        self.refs
                            .push(("scheduler-map", sm.to_string(), src.clone()));
                    }
                    ["congestion-notification-profile", c] => {
                        ci.cnp = at(c.to_string(), src);
                        self.refs.push((
                            "congestion-notification-profile",
                            c.to_string(),
                            src.clone(),
                        ));
                    }
                    [
                        "forwarding-class-set",
                        set,
                        "output-traffic-control-profile",
                        tcp,
                    ] => {
                        ci.fc_sets.push((
                            set.to_string(),
                            At {
                                v: tcp.to_string(),
                                src: src.clone(),
                            },
                        ));
                        self.refs
                            .push(("forwarding-class-set", set.to_string(), src.clone()));
                        self.refs
                            .push(("traffic-control-profile", tcp.to_string(), src.clone()));
                    }
                    ["forwarding-class", fc] | ["unit", "0" | "*", "forwarding-class", fc] => {
                        ci.fixed_fc = at(fc.to_string(), src);
                        self.refs
                            .push(("forwarding-class", fc.to_string(), src.clone()));
                    }
                    [
                        "unit",
                        unit,
                        kind @ ("classifiers" | "rewrite-rules"),
                        ty,
                        name,
                        ..,
                    ] => {
                        // Logical-interface QoS of unit 0 or `unit *` stands for the port;
                        // a classifier on another unit (the RoCE VLAN unit of a
                        // `vlan-tagging` port, `unit 100 classifiers dscp C1`) classifies the
                        // port's traffic on that unit, and stands for the port where unit 0
                        // binds nothing (issue 46 item 6).
                        let level = if *unit == "0" || *unit == "*" { 2 } else { 1 };
                        bind_code_map(ci, &mut self.refs, kind, ty, name, src, level);
                    }
                    // On the physical interface (QFX): applies to its logical interfaces, as in
                    // Juniper's 5-stage JVD compute leaf (`et-0/0/48 { classifiers { dscp ...; }
                    // rewrite-rules { dscp ...; } }`); a unit's own binding wins.
                    [kind @ ("classifiers" | "rewrite-rules"), ty, name, ..] => {
                        bind_code_map(ci, &mut self.refs, kind, ty, name, src, 0);
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
}

/// A classifier or rewrite rule bound to a class-of-service interface at `level` (2: unit 0 or
/// `*`, 1: another unit, 0: the physical interface): unit 0 replaces what is there; another
/// unit replaces a physical-interface binding and keeps the first other unit's; a
/// physical-interface binding fills only what no unit gave.
fn bind_code_map(
    ci: &mut CosIf,
    refs: &mut Vec<(&'static str, String, Src)>,
    kind: &str,
    ty: &str,
    name: &str,
    src: &Src,
    level: u8,
) {
    let is_classifier = kind == "classifiers";
    let slot = if is_classifier {
        &mut ci.classifiers
    } else {
        &mut ci.rewrites
    };
    let bound = At {
        v: name.to_string(),
        src: src.clone(),
    };
    let key = (is_classifier, ty.to_string());
    let had = ci.bind_levels.get(&key).copied();
    let replace = match had {
        None => true,
        Some(h) => level > h || (level == 2 && h == 2),
    };
    if replace {
        slot.insert(ty.to_string(), bound);
        ci.bind_levels.insert(key, level);
    }
    if name != "default" {
        let what = if kind == "classifiers" {
            "classifier"
        } else {
            "rewrite-rule"
        };
        refs.push((what, format!("{ty} {name}"), src.clone()));
    }
}

fn cnp_stmt(
    c: &mut Cnp,
    w: &[&str],
    src: &Src,
    aliases: &BTreeMap<String, BTreeMap<String, u8>>,
    refs: &mut Vec<(&'static str, String, Src)>,
) {
    match w {
        ["input", "cable-length", m] => c.cable_m = num(m).and_then(|m| at(m, src)),
        [
            "input",
            ty @ ("dscp" | "ieee-802.1"),
            "code-point",
            rest @ ..,
        ] => {
            let cps: Vec<&str> = values(rest)
                .into_iter()
                .take_while(|v| *v != "pfc" && *v != "mru")
                .collect();
            if !rest.contains(&"pfc") {
                return;
            }
            for cp in cps {
                match code_point(ty, cp, aliases) {
                    Some(d) if *ty == "dscp" => {
                        c.dscp_pfc.entry(d).or_insert_with(|| src.clone());
                    }
                    Some(p) => {
                        c.ieee_pfc.entry(p).or_insert_with(|| src.clone());
                    }
                    None => refs.push(("code-point-alias", format!("{ty} {cp}"), src.clone())),
                }
            }
        }
        [
            "output",
            "ieee-802.1",
            "code-point",
            cp,
            "flow-control-queue",
            qs @ ..,
        ] => {
            if let Some(p) = code_point("ieee-802.1", cp, aliases) {
                let e = c.output.entry(p).or_insert_with(|| At {
                    v: Vec::new(),
                    src: src.clone(),
                });
                e.v.extend(values(qs).iter().filter_map(|q| num::<u8>(q)));
            }
        }
        ["pfc-watchdog", rest @ ..] => {
            c.watchdog.get_or_insert_with(|| src.clone());
            match rest {
                ["detection", n] => c.wd_detection = num(n).and_then(|n| at(n, src)),
                ["poll-interval", n] => c.wd_poll_ms = num(n).and_then(|n| at(n, src)),
                ["recovery-time", n] => c.wd_recovery_ms = num(n).and_then(|n| at(n, src)),
                _ => {}
            }
        }
        _ => {}
    }
}

/// One statement under `[edit interfaces NAME]` (or an interface range).
fn if_stmt(c: &mut IfConf, w: &[&str], src: &Src) {
    c.src.get_or_insert_with(|| src.clone());
    match w {
        ["mtu", m] => c.mtu = num(m).and_then(|m| at(m, src)),
        ["disable"] => c.more_mut().disable = Some(src.clone()),
        ["vlan-tagging" | "flexible-vlan-tagging"] => c.more_mut().vlan_tagging = Some(src.clone()),
        ["speed", s] | ["ether-options" | "gigether-options", "speed", s] => {
            c.more_mut().speed = at(crate::platform::util::speed_gbps(s), src)
        }
        ["number-of-sub-ports", n] => c.more_mut().sub_ports = num(n).and_then(|n| at(n, src)),
        ["ether-options" | "gigether-options", rest @ ..] => match rest {
            ["802.3ad", ae] => c.more_mut().lag = at(ae.to_string(), src),
            ["flow-control"] => c.more_mut().flow_control = at(true, src),
            ["no-flow-control"] => c.more_mut().flow_control = at(false, src),
            ["configured-flow-control", dir, state] => {
                let v = at(*state == "on", src);
                if *dir == "rx-buffers" {
                    c.more_mut().rx_buffers = v;
                } else {
                    c.more_mut().tx_buffers = v;
                }
            }
            _ => {}
        },
        ["unit", unit, "family", fam, rest @ ..] => {
            if *unit != "0" && !c.more().families.is_empty() {
                return;
            }
            if !c.more().families.iter().any(|f| f == fam) {
                c.more_mut().families.push(fam.to_string());
            }
            if let ("0", "inet", ["mtu", m]) = (*unit, *fam, rest) {
                c.more_mut().inet_mtu = num(m).and_then(|m| at(m, src));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_gets_its_wildcard_entries_then_its_own_and_question_mark_ones_in_order() {
        let mut cos = Cos::default();
        let src = Src::new(&std::sync::Arc::from("c.txt"), 1);
        // More than NameIndex scans, so that the own name is found through the index.
        for i in 0..100 {
            cos.entry(&format!("et-0/1/{i}"), &src);
        }
        for p in [
            "xe-*",
            "et-*",
            "et-0/0/?",
            "et-0/0/1",
            "*",
            "et-0/0/1?",
            "et-0/0/1",
        ] {
            cos.entry(p, &src);
        }
        assert_eq!(cos.ifs.len(), 106, "a pattern is one entry");
        let pats = |name: &str, wild: bool| -> Vec<String> {
            cos.entries_for(name, wild)
                .iter()
                .map(|c| c.pattern.clone())
                .collect()
        };
        assert_eq!(pats("et-0/0/1", true), ["et-*", "*"]);
        assert_eq!(pats("et-0/0/1", false), ["et-0/0/?", "et-0/0/1"]);
        assert_eq!(pats("et-0/0/12", false), ["et-0/0/1?"]);
        assert_eq!(pats("et-0/1/7", false), ["et-0/1/7"]);
        assert_eq!(pats("ae0", true), ["*"]);
        assert!(pats("ae0", false).is_empty());
        // A port named like a pattern is matched by globbing, not by name.
        assert_eq!(pats("et-*", false), Vec::<String>::new());
        assert_eq!(pats("et-0/0/?", false), ["et-0/0/?"]);
    }

    #[test]
    fn code_points() {
        let none = BTreeMap::new();
        assert_eq!(dscp_of("011010", &none), Some(26));
        assert_eq!(dscp_of("af31", &none), Some(26));
        assert_eq!(dscp_of("cs6", &none), Some(48));
        // `cs32` × 8 overflows a u8: found by fuzzing (issue 19), now refused, not a panic.
        assert_eq!(dscp_of("cs32", &none), None);
        assert_eq!(dscp_of("ef", &none), Some(46));
        assert_eq!(dscp_of("0110", &none), None);
        let mut a = BTreeMap::new();
        a.insert("roce".to_string(), 26u8);
        assert_eq!(dscp_of("roce", &a), Some(26));
        assert_eq!(ieee_of("011"), Some(3));
        assert_eq!(ieee_of("nc2"), Some(7));
        assert_eq!(ieee_of("1111"), None);
    }
}
