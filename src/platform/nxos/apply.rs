//! Resolving the NX-OS QoS chain for each interface and applying NX-OS defaults.
//!
//! class-map (DSCP/CoS) → `type qos` policy (`set qos-group N`) gives DSCP → qos-group; the
//! system `network-qos` policy says which qos-groups pause and on which PFC priorities
//! (`pause pfc-cos`, older `pause no-drop`), with the class MTU and pause buffers; the
//! `type queuing output` policy schedules queue N (`c-out-8q-qN`) and marks ECN. qos-group N
//! rides queue N and priority group N on these platforms, so those maps are identities.
//!
//! Defaults are applied only where NX-OS itself decides: an absent line inside an interface
//! block (MTU 1500, PFC mode auto, link pause off), or an absent global line in a complete
//! running config (no system network-qos policy = nothing pauses). When only interface
//! sections were read, the globals are unknown and stay unknown.
//!
//! The system-defined egress policy `default-8q-out-policy` is not in the running config; what
//! it does is what `show policy-map interface` prints for a port that runs it: `c-out-8q-q7`
//! `priority level 1`, `c-out-8q-q1` … `c-out-8q-q6` `bandwidth remaining percent 0` and
//! `c-out-8q-q-default` `bandwidth remaining percent 100` (output of an N9K on 9.2(2) seen in a
//! public TAC-style walk-through found with the index, which then copies it with `qos copy
//! policy-map type queuing default-8q-out-policy prefix …` because a system-defined policy
//! cannot be edited; Cisco Nexus 9000 Series NX-OS Quality of Service Configuration Guide,
//! "Configuring Queuing and Scheduling", system-defined policies and `qos copy`,
//! <https://www.cisco.com/c/en/us/td/docs/switches/datacenter/nexus9000/sw/93x/qos/configuration/guide/b-cisco-nexus-9000-nx-os-quality-of-service-configuration-guide-93x.html>
//! [R: the guide's wording recalled, the printed policy read]). Other `default-*` queuing
//! policies (4-queue platforms) are left as "DWRR, unknown weight".
//!
//! A `class-map` or `policy-map` written without `type` is a `type qos` one: the Cisco Nexus
//! 9000 Series NX-OS Quality of Service Configuration Guide ("Using Modular QoS CLI" and
//! "Configuring Classification", Cisco,
//! <https://www.cisco.com/c/en/us/td/docs/switches/datacenter/nexus9000/sw/7-x/qos/configuration/guide/b_Cisco_Nexus_9000_Series_NX-OS_Quality_of_Service_Configuration_Guide_7x/configuring_classification.html>)
//! gives the command as `class-map [type qos] [match-any | match-all] class-name`, with
//! `type qos` the default type [R: recalled wording of the guide, the syntax line read]. Batfish's
//! NX-OS grammar test config (batfish/batfish, `nxos_policy_map`) has such a class-map referenced
//! from a `type qos` policy.
//!
//! The policies in force on a port (`QosMaps::policies`, shown by `audit --format model`): per
//! type and direction, its port-channel's `service-policy`, else the port's own, else the one
//! under `system qos` (every port that attaches none of its own), else, in a complete running
//! config, the system-defined default. Cisco's Nexus 9000 QoS Configuration Guide, "Attaching
//! and Detaching a QoS Policy Action": "The system-defined type queuing policy maps are attached
//! to each interface unless you specifically attach a different policy map" and "Default queuing
//! policies are active, unless you configure and apply another policy" [S: a copy of the guide,
//! <http://www.manualslib.com/manual/1253596/Cisco-Nexus-9000-Series.html?page=46>]. The same
//! page says "A QoS policy attached to a port channel takes effect even when policies are
//! attached to member ports", so a member of a port-channel that has a policy of a type and
//! direction runs the port-channel's, whatever the member attaches itself.

use super::read::{Config, IfConf, Match, PClass, PolicyMap, ServicePolicy};
use crate::model::maps::{Bound, BoundPolicy, How, QosMap};
use crate::model::{
    Device, Field, Interface, Sourced, Src, UndefinedRef, default_of, derived, known,
};
use crate::platform::BuildNotes;
use crate::platform::util::identity8;
use std::collections::BTreeSet;

/// References to undefined objects, reported once per line (complete configs only).
struct Undef {
    full: bool,
    list: Vec<(usize, UndefinedRef)>,
    /// The references listed, as (output, line, kind, name) hashes: a scan of the list for
    /// each reference was quadratic in a file of `service-policy` lines naming no policy
    /// (issue 19).
    seen: std::collections::HashSet<u64>,
}

impl Undef {
    fn add(&mut self, out: usize, src: &Src, kind: &str, name: &str) {
        use std::hash::{Hash, Hasher};
        if !self.full {
            return;
        }
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (out, src.line, kind, name).hash(&mut h);
        if self.seen.insert(h.finish()) {
            self.list.push((
                out,
                UndefinedRef {
                    kind: kind.to_string(),
                    name: name.to_string(),
                    line: src.line,
                },
            ));
        }
    }
}

/// The policy in force for one purpose.
enum Active<'c> {
    Policy(&'c PolicyMap, &'c ServicePolicy),
    /// NX-OS's built-in default (nothing applied in a complete config, or a `default-*` name).
    Default(Option<&'c ServicePolicy>),
    Unknown,
}

/// System-defined policy names (`default-in-policy`, `default-8q-out-policy`, ...).
fn system_policy_name(name: &str) -> bool {
    name.starts_with("default-")
}

/// Built-in network-qos policies that pause nothing.
fn nopause_nq_default(name: &str) -> bool {
    matches!(
        name,
        "default-nq-policy" | "default-8q-nq-policy" | "default-nq-8e-policy"
    )
}

fn resolve<'c>(cfg: &'c Config, sp: Option<&'c ServicePolicy>, ty: &str) -> Active<'c> {
    match sp {
        Some(sp) => match cfg.policy_map(ty, &sp.name) {
            Some(pm) => Active::Policy(pm, sp),
            None if ty == "network-qos" && nopause_nq_default(&sp.name) => {
                Active::Default(Some(sp))
            }
            None if ty != "network-qos" && system_policy_name(&sp.name) => {
                Active::Default(Some(sp))
            }
            None => Active::Unknown,
        },
        None if cfg.full => Active::Default(None),
        None => Active::Unknown,
    }
}

/// qos-groups of a network-qos class; `Err` when the name is neither system-defined nor a
/// `class-map type network-qos`.
fn nq_class_groups(cfg: &Config, name: &str) -> Result<Vec<u8>, ()> {
    if matches!(name, "class-default" | "c-8q-nq-default" | "c-nq-default") {
        return Ok(vec![0]);
    }
    if let Some(n) = name
        .strip_prefix("c-8q-nq")
        .and_then(|n| n.parse::<u8>().ok())
    {
        return if n < 8 { Ok(vec![n]) } else { Err(()) };
    }
    if let Some(n) = name.strip_prefix("c-nq").and_then(|n| n.parse::<u8>().ok()) {
        return if n < 8 { Ok(vec![n]) } else { Err(()) };
    }
    let cm = cfg.class_map("network-qos", name).ok_or(())?;
    Ok(groups_of(&cm.matches))
}

/// Egress queues of a queuing class: `Ok(None)` for ingress (`c-in-*`) classes.
fn queuing_class_queues(cfg: &Config, name: &str) -> Result<Option<Vec<u8>>, ()> {
    if matches!(
        name,
        "class-default" | "c-out-8q-q-default" | "c-out-q-default"
    ) {
        return Ok(Some(vec![0]));
    }
    if name.starts_with("c-in-") {
        return Ok(None);
    }
    for prefix in ["c-out-8q-q", "c-out-q"] {
        if let Some(n) = name.strip_prefix(prefix).and_then(|n| n.parse::<u8>().ok()) {
            return if n < 8 { Ok(Some(vec![n])) } else { Err(()) };
        }
    }
    let cm = cfg.class_map("queuing", name).ok_or(())?;
    Ok(Some(groups_of(&cm.matches)))
}

/// qos-groups of a user queuing class (for ingress pause buffers).
fn queuing_class_groups(cfg: &Config, name: &str) -> Option<Vec<u8>> {
    match name {
        "class-default" => Some(vec![0]),
        _ => cfg
            .class_map("queuing", name)
            .map(|cm| groups_of(&cm.matches)),
    }
}

fn groups_of(matches: &[Match]) -> Vec<u8> {
    let mut g: Vec<u8> = matches
        .iter()
        .filter_map(|m| match m {
            Match::QosGroup(l) => Some(l.clone()),
            _ => None,
        })
        .flatten()
        .collect();
    g.sort_unstable();
    g.dedup();
    g
}

/// Report every reference to an object the config never defines.
fn check_references(cfg: &Config, u: &mut Undef) {
    let sps = cfg.system.iter().chain(
        cfg.interfaces
            .iter()
            .flat_map(|i| i.qos().policies.iter().map(|p| &**p)),
    );
    for sp in sps {
        if cfg.policy_map(&sp.ty, &sp.name).is_none() && !system_policy_name(&sp.name) {
            u.add(sp.at.out, &sp.at.src, "policy-map", &sp.name);
        }
    }
    for pm in &cfg.policy_maps {
        for c in &pm.classes {
            let defined = match pm.ty.as_str() {
                "qos" => c.name == "class-default" || cfg.class_map("qos", &c.name).is_some(),
                "queuing" => queuing_class_queues(cfg, &c.name).is_ok(),
                "network-qos" => nq_class_groups(cfg, &c.name).is_ok(),
                _ => true,
            };
            if !defined {
                u.add(c.at.out, &c.at.src, "class-map", &c.name);
            }
        }
    }
}

/// What the active network-qos policy says, device-wide.
struct Nq {
    /// PFC priorities paused by the policy.
    pfc: Field<Vec<u8>>,
    tc_to_pfc: Field<Vec<u8>>,
    /// qos-groups that are no-drop.
    lossless: Option<(Vec<u8>, Option<Src>, bool)>,
    nodrop_mtu: Field<u32>,
    /// (priority group = qos-group, buffer line)
    buffers: Vec<(u8, super::read::PauseBuffer)>,
}

/// CoS values the system `type qos input` policy classifies into these qos-groups (how the
/// older `pause no-drop` picks its PFC priorities).
fn cos_for_groups(cfg: &Config, groups: &[u8]) -> Vec<u8> {
    let Some(pm) = cfg
        .system_policy("qos", Some("input"))
        .and_then(|sp| cfg.policy_map("qos", &sp.name))
    else {
        return Vec::new();
    };
    let mut cos = BTreeSet::new();
    for c in &pm.classes {
        let Some((g, _)) = &c.qos_group else { continue };
        if !groups.contains(g) {
            continue;
        }
        if let Some(cm) = cfg.class_map("qos", &c.name) {
            for m in &cm.matches {
                if let Match::Cos(l) = m {
                    cos.extend(l.iter().copied());
                }
            }
        }
    }
    cos.into_iter().collect()
}

fn network_qos(cfg: &Config) -> Nq {
    let sp = cfg.system_policy("network-qos", None);
    match resolve(cfg, sp, "network-qos") {
        Active::Unknown => Nq {
            pfc: None,
            tc_to_pfc: None,
            lossless: None,
            nodrop_mtu: None,
            buffers: Vec::new(),
        },
        Active::Default(sp) => {
            let src = sp.map(|s| &s.at.src);
            Nq {
                pfc: default_of(Vec::new(), src),
                tc_to_pfc: default_of(identity8(), src),
                lossless: Some((Vec::new(), src.cloned(), true)),
                nodrop_mtu: None,
                buffers: Vec::new(),
            }
        }
        Active::Policy(pm, sp) => nq_policy(cfg, pm, sp),
    }
}

fn nq_policy(cfg: &Config, pm: &PolicyMap, sp: &ServicePolicy) -> Nq {
    let mut cos = BTreeSet::new();
    let mut cos_known = true;
    let mut first_pause: Option<Src> = None;
    let mut tc = identity8();
    let mut tc_known = true;
    let mut lossless = BTreeSet::new();
    let mut lossless_known = true;
    let mut mtu: Field<u32> = None;
    let mut buffers = Vec::new();
    for c in &pm.classes {
        let groups = nq_class_groups(cfg, &c.name).ok();
        let pause_src = c
            .pause_cos
            .as_ref()
            .map(|(_, s)| s)
            .or(c.pause_nodrop.as_ref());
        if let Some(ps) = pause_src {
            first_pause.get_or_insert_with(|| ps.clone());
            let list = match &c.pause_cos {
                Some((l, _)) => Some(l.clone()),
                None => groups
                    .as_ref()
                    .map(|g| cos_for_groups(cfg, g))
                    .filter(|l| !l.is_empty()),
            };
            match &list {
                Some(l) => cos.extend(l.iter().copied()),
                None => cos_known = false,
            }
            match (&groups, &list) {
                (Some(g), Some(l)) if !g.is_empty() => {
                    for &grp in g {
                        let prio = if l.contains(&grp) { grp } else { l[0] };
                        if let Some(slot) = tc.get_mut(grp as usize) {
                            *slot = prio;
                        }
                    }
                }
                _ => tc_known = false,
            }
            match &groups {
                Some(g) if !g.is_empty() => lossless.extend(g.iter().copied()),
                _ => lossless_known = false,
            }
            if mtu.is_none() {
                mtu = match &c.mtu {
                    Some((v, s)) => known(*v, s),
                    // network-qos classes run MTU 1500 unless told otherwise
                    None => default_of(1500, Some(&c.at.src)),
                };
            }
        }
        if let (Some(pb), Some(g)) = (&c.pause_buffer, &groups) {
            for &grp in g {
                buffers.push((grp, pb.clone()));
            }
        }
    }
    let pfc_src = first_pause.clone().unwrap_or_else(|| sp.at.src.clone());
    Nq {
        pfc: if cos_known {
            known(cos.into_iter().collect(), &pfc_src)
        } else {
            None
        },
        tc_to_pfc: if tc_known { known(tc, &pfc_src) } else { None },
        lossless: lossless_known.then(|| (lossless.into_iter().collect(), Some(pfc_src), false)),
        nodrop_mtu: mtu,
        buffers,
    }
}

/// DSCP and CoS classification of one interface.
struct Classif {
    dscp_to_tc: Field<Vec<u8>>,
    /// Entry by entry: each DSCP the `match dscp` (or `match precedence`) line that classifies
    /// it, the rest the policy's `class-default`.
    dscp_map: QosMap,
    /// Set only where the policy matches `cos` (a tagged frame's 802.1p priority).
    pcp_to_tc: Field<Vec<u8>>,
    pcp_map: QosMap,
    trust: Field<String>,
    rewrites: Field<Vec<u8>>,
}

fn classification(cfg: &Config, active: Active, iface_src: &Src) -> Classif {
    let unknown = Classif {
        dscp_to_tc: None,
        dscp_map: QosMap::default(),
        pcp_to_tc: None,
        pcp_map: QosMap::default(),
        trust: None,
        rewrites: None,
    };
    let (pm, sp) = match active {
        Active::Unknown => return unknown,
        Active::Default(sp) => {
            // NX-OS does not classify by DSCP out of the box: everything is qos-group 0.
            let src = Some(sp.map(|s| &s.at.src).unwrap_or(iface_src));
            return Classif {
                dscp_to_tc: default_of(vec![0; 64], src),
                dscp_map: QosMap::default(),
                // Nor by CoS: every frame, tagged or not, is qos-group 0.
                pcp_to_tc: default_of(vec![0; 8], src),
                pcp_map: QosMap::default(),
                trust: default_of("port".to_string(), src),
                rewrites: default_of(Vec::new(), src),
            };
        }
        Active::Policy(pm, sp) => (pm, sp),
    };
    let mut map: Vec<Option<(u8, Src)>> = vec![None; 64];
    let mut cos: Vec<Option<(u8, Src)>> = vec![None; 8];
    let mut rewrites = BTreeSet::new();
    let (mut by_dscp, mut by_cos) = (false, false);
    let mut default_class: Option<&PClass> = None;
    for c in &pm.classes {
        if c.name == "class-default" {
            default_class = Some(c);
            continue;
        }
        let Some(cm) = cfg.class_map("qos", &c.name) else {
            return unknown;
        };
        if cm.match_all && cm.matches.len() > 1 {
            // DSCP is only one of several conditions: not a DSCP map any more.
            return unknown;
        }
        let group = c.qos_group.as_ref().map(|(g, _)| *g).unwrap_or(0);
        for (mi, m) in cm.matches.iter().enumerate() {
            let line = cm.match_src.get(mi).unwrap_or(&c.at.src);
            // first matching class wins
            let fill = |slots: &mut [Option<(u8, Src)>], l: &[u8]| -> Vec<u8> {
                let mut newly = Vec::new();
                for &v in l {
                    if let Some(slot) = slots.get_mut(v as usize).filter(|s| s.is_none()) {
                        *slot = Some((group, line.clone()));
                        newly.push(v);
                    }
                }
                newly
            };
            match m {
                Match::Dscp(l) => {
                    by_dscp = true;
                    for d in fill(&mut map, l) {
                        if c.set_dscp.as_ref().is_some_and(|(x, _)| *x != d) {
                            rewrites.insert(d);
                        }
                    }
                }
                Match::Cos(l) => {
                    by_cos = true;
                    fill(&mut cos, l);
                }
                Match::QosGroup(_) | Match::Other => return unknown,
            }
        }
    }
    let default_group = default_class
        .and_then(|c| c.qos_group.as_ref())
        .map(|(g, _)| *g)
        .unwrap_or(0);
    let default_set = default_class
        .and_then(|c| c.set_dscp.as_ref())
        .map(|(x, _)| *x);
    let mut out = Vec::with_capacity(64);
    for (d, slot) in map.iter().enumerate() {
        out.push(slot.as_ref().map(|(g, _)| *g).unwrap_or_else(|| {
            if default_set.is_some_and(|x| x as usize != d) {
                rewrites.insert(d as u8);
            }
            default_group
        }));
    }
    let trust = match (by_dscp, by_cos) {
        (true, true) => "both",
        (true, false) => "dscp",
        (false, true) => "pcp",
        (false, false) => "port",
    };
    let src = &sp.at.src;
    // What no match line classifies goes to class-default: its `set qos-group` line, else
    // qos-group 0 (the policy, bound at `src`, is what sends it there).
    let rest = match default_class.and_then(|c| c.qos_group.as_ref()) {
        Some((g, at)) => (*g, How::Config, Some(at)),
        None => (0, How::Default, Some(src)),
    };
    let (pcp_to_tc, pcp_map) = if by_cos {
        let m = QosMap::assembled(&cos, Some(rest));
        (m.values().and_then(|v| known(v, src)), m)
    } else {
        // The policy reads no CoS: a tagged frame is classified by its DSCP or class-default,
        // not by its 802.1p priority.
        (None, QosMap::default())
    };
    Classif {
        dscp_to_tc: known(out, src),
        dscp_map: QosMap::assembled(&map, Some(rest)),
        pcp_to_tc,
        pcp_map,
        trust: known(trust.to_string(), src),
        rewrites: known(rewrites.into_iter().collect(), src),
    }
}

/// Egress queues from the queuing policy in force.
fn apply_queues(cfg: &Config, active: Active, i: &mut Interface) {
    let (pm, sp) = match active {
        Active::Unknown => return,
        Active::Default(sp) => (None, sp),
        Active::Policy(pm, sp) => (Some(pm), Some(sp)),
    };
    let sp_src = sp.map(|s| &s.at.src);
    if pm.is_none()
        && let Some(sp) = sp
        && sp.name == DEFAULT_8Q_OUT
    {
        default_8q_out_queues(&sp.at.src, i);
        return;
    }
    let mut set: Vec<(u8, &PClass)> = Vec::new();
    if let Some(pm) = pm {
        for c in &pm.classes {
            match queuing_class_queues(cfg, &c.name) {
                Ok(Some(qs)) => set.extend(qs.into_iter().map(|q| (q, c))),
                Ok(None) => {}
                Err(()) => return,
            }
        }
    }
    for q in i.queues.iter_mut() {
        // queues the policy does not mention: DWRR, no WRED, no ECN
        q.scheduler = default_of("dwrr".to_string(), sp_src);
        q.weight_pct = None;
        q.ecn.enabled = default_of(false, sp_src);
        q.ecn.min_bytes = None;
        q.ecn.max_bytes = None;
        q.ecn.max_probability_pct = None;
        q.wred_drop = default_of(false, sp_src);
        let Some(c) = set
            .iter()
            .rev()
            .find(|(id, _)| *id == q.id)
            .map(|(_, c)| *c)
        else {
            continue;
        };
        let at = Some(&c.at.src);
        q.scheduler = match (&c.priority, &c.bandwidth) {
            (Some(s), _) => known("strict".to_string(), s),
            (None, Some((_, s))) => known("dwrr".to_string(), s),
            (None, None) => default_of("dwrr".to_string(), at),
        };
        q.weight_pct = c.bandwidth.as_ref().and_then(|((v, _), s)| known(*v, s));
        q.ecn.enabled = default_of(false, at);
        q.wred_drop = default_of(false, at);
        if let Some(w) = &c.wred {
            q.ecn.enabled = known(w.ecn, &w.src);
            q.wred_drop = known(!w.ecn, &w.src);
            q.ecn.min_bytes = w.min.and_then(|v| known(v, &w.src));
            q.ecn.max_bytes = w.max.and_then(|v| known(v, &w.src));
            q.ecn.max_probability_pct = w.prob.and_then(|v| known(v, &w.src));
        }
    }
}

/// The system-defined 8-queue egress policy.
const DEFAULT_8Q_OUT: &str = "default-8q-out-policy";

/// What `default-8q-out-policy` does, as `show policy-map interface` prints it on a port that
/// runs it: `c-out-8q-q7` `priority level 1`, `c-out-8q-q6` … `c-out-8q-q1` `bandwidth remaining
/// percent 0`, `c-out-8q-q-default` `bandwidth remaining percent 100`, no WRED/ECN (see the
/// module doc for where it was read). Recorded as defaults at the `service-policy` line.
fn default_8q_out_queues(at: &Src, i: &mut Interface) {
    for q in i.queues.iter_mut() {
        let strict = q.id == 7;
        q.scheduler = default_of(if strict { "strict" } else { "dwrr" }.to_string(), Some(at));
        q.weight_pct = match q.id {
            7 => None,
            0 => default_of(100.0, Some(at)),
            _ => default_of(0.0, Some(at)),
        };
        q.ecn.enabled = default_of(false, Some(at));
        q.ecn.min_bytes = None;
        q.ecn.max_bytes = None;
        q.ecn.max_probability_pct = None;
        q.wred_drop = default_of(false, Some(at));
    }
}

/// The interface's setting, else the port-channel's it belongs to.
fn own_or_lag<'c, T>(
    ifc: &'c IfConf,
    lag: Option<&'c IfConf>,
    f: impl Fn(&'c IfConf) -> Option<&'c T>,
) -> Option<&'c T> {
    f(ifc).or_else(|| lag.and_then(f))
}

fn policy_for<'c>(
    cfg: &'c Config,
    ifc: &'c IfConf,
    lag: Option<&'c IfConf>,
    ty: &str,
    dir: &str,
) -> Option<&'c ServicePolicy> {
    lag.and_then(|l| l.policy(ty, Some(dir)))
        .or_else(|| ifc.policy(ty, Some(dir)))
        .or_else(|| cfg.system_policy(ty, Some(dir)))
}

/// The service-policies in force on a port, one per type and direction, as [`policy_for`] picks
/// them: its port-channel's, else the port's own, else the one under `system qos`; with none of
/// these in a complete running config, the system-defined default (see the module doc).
fn bindings(cfg: &Config, ifc: &IfConf, lag: Option<&IfConf>, src: &Src) -> Vec<BoundPolicy> {
    let mut v = Vec::new();
    for (ty, dir) in [
        ("qos", Some("input")),
        ("queuing", Some("input")),
        ("queuing", Some("output")),
        ("network-qos", None),
    ] {
        let kind = match dir {
            Some(d) => format!("service-policy type {ty} {d}"),
            None => format!("service-policy type {ty}"),
        };
        let own = ifc.policy(ty, dir).map(|sp| (sp, Bound::Port, None));
        let of_lag = || {
            lag.and_then(|l| {
                l.policy(ty, dir)
                    .map(|sp| (sp, Bound::Lag, Some(l.name.as_str())))
            })
        };
        let system = || {
            cfg.system_policy(ty, dir)
                .map(|sp| (sp, Bound::Global, Some("system qos")))
        };
        match of_lag().or(own).or_else(system) {
            Some((sp, bound, via)) => {
                let b = BoundPolicy::new(&kind, &sp.name, bound, Some(&sp.at.src));
                v.push(match via {
                    Some(via) => b.via(via),
                    None => b,
                });
            }
            // No ingress queuing policy is listed when none is bound: which system-defined one
            // a platform attaches differs, and no rule reads it.
            None if cfg.full && (ty != "queuing" || dir == Some("output")) => v.push(
                BoundPolicy::new(&kind, "system-defined default", Bound::Default, Some(src)),
            ),
            None => {}
        }
    }
    v
}

fn sourced<T: Clone>(v: &Option<(T, Src)>) -> Field<T> {
    v.as_ref().and_then(|(x, s)| known(x.clone(), s))
}

pub fn apply(dev: &mut Device, cfg: &Config, notes: &mut BuildNotes) {
    if let Some((h, s)) = &cfg.hostname {
        dev.hostname = known(h.clone(), s);
    }
    if let Some((v, s)) = &cfg.version {
        dev.os_version = known(v.clone(), s);
    }
    let mut undef = Undef {
        full: cfg.full,
        list: Vec::new(),
        seen: Default::default(),
    };
    check_references(cfg, &mut undef);
    let nq = network_qos(cfg);
    for (ty, dir) in [
        ("network-qos", None),
        ("queuing", Some("output")),
        ("queuing", Some("input")),
        ("qos", Some("input")),
    ] {
        if let Some(sp) = cfg.system_policy(ty, dir) {
            dev.qos.policies.push(sp.name.clone());
        }
    }
    dev.qos.nodrop_class_mtu = nq.nodrop_mtu.clone();

    // The config's ports past the device's bound were counted, not kept, as it was read.
    let not_kept = u32::try_from(cfg.not_kept.len()).unwrap_or(u32::MAX);
    dev.interfaces_not_read = dev.interfaces_not_read.saturating_add(not_kept);
    // One port per block (at most): the list grown once, not by steps that leave room unused.
    let room = dev.port_limit().saturating_sub(dev.interfaces.len());
    dev.interfaces.reserve_exact(cfg.interfaces.len().min(room));
    for ifc in &cfg.interfaces {
        let kind = ifc.kind();
        let lag = ifc.channel_group.as_ref().and_then(|(n, _)| {
            let po = format!("port-channel{n}");
            cfg.interfaces.iter().find(|i| i.name == po)
        });
        let src = ifc.at.src.clone();
        let i = dev.iface(&ifc.name, kind);
        i.set_defined_at(src.clone());
        apply_basics(cfg, ifc, lag, i, kind);
        if !matches!(kind, "ethernet" | "port-channel") {
            continue;
        }
        apply_port_qos(cfg, ifc, lag, i, &nq, &src);
    }
    // LAG membership (NX-OS creates a port-channel when a member names it).
    for ifc in &cfg.interfaces {
        let Some((n, _)) = &ifc.channel_group else {
            continue;
        };
        let p = dev.iface(&format!("port-channel{n}"), "port-channel");
        if !p.lag_members.contains(&ifc.name) {
            p.lag_members.push(ifc.name.clone());
            p.lag_members.sort_by(|a, b| crate::text::natural_cmp(a, b));
        }
    }
    notes.undefined.extend(undef.list);
}

/// Admin state, switchport, speed, MTU, LAG parent, link pause.
fn apply_basics(cfg: &Config, ifc: &IfConf, lag: Option<&IfConf>, i: &mut Interface, kind: &str) {
    let src = Some(&ifc.at.src);
    let port = matches!(kind, "ethernet" | "port-channel");
    i.switchport = match ifc.switchport.as_ref().or(ifc.mode_hint.as_ref()) {
        Some((v, s)) => known(*v, s),
        None if port => cfg
            .sysdef_switchport
            .as_ref()
            .and_then(|(v, s)| default_of(*v, Some(s))),
        None if matches!(kind, "vlan" | "loopback" | "mgmt") => default_of(false, src),
        None => None,
    };
    let l2 = val_of(&i.switchport);
    i.admin_up = match &ifc.admin_up {
        Some((v, s)) => known(*v, s),
        None => match kind {
            // SVIs are created shut; loopbacks and mgmt0 come up
            "vlan" => default_of(false, src),
            "loopback" | "mgmt" => default_of(true, src),
            // Ethernet defaults differ by model; only `system default switchport shutdown`
            // settles it, and only for Layer 2 ports.
            "ethernet" | "port-channel" => match (&cfg.sysdef_shutdown, l2) {
                (Some((shut, _)), Some(true)) => default_of(!*shut, src),
                _ => None,
            },
            _ => None,
        },
    };
    let speed = match &ifc.speed_gbps {
        Some((Some(g), s)) => known(*g, s),
        _ => None,
    };
    // Written only when it changes: a write makes the port's details box ([`Interface`]).
    if speed.is_some() || i.speed_gbps.is_some() {
        i.speed_gbps = speed;
    }
    let mtu = own_or_lag(ifc, lag, |x| x.mtu.as_ref());
    (i.mtu, i.mtu_raw) = match mtu {
        Some((v, s)) => (known(*v, s), known(*v, s)),
        None => (default_of(1500, src), default_of(1500, src)),
    };
    if let Some((n, _)) = &ifc.channel_group {
        i.names.lag_parent = Some(format!("port-channel{n}"));
    }
    if port {
        i.link_pause.rx = sourced(&ifc.qos().fc_rx).or_else(|| default_of(false, src));
        i.link_pause.tx = sourced(&ifc.qos().fc_tx).or_else(|| default_of(false, src));
    }
}

fn val_of<T: Copy>(f: &Field<T>) -> Option<T> {
    f.as_ref().map(|s| s.value)
}

/// Classification, queues, PFC, buffers and watchdog of a physical port or port-channel.
fn apply_port_qos(
    cfg: &Config,
    ifc: &IfConf,
    lag: Option<&IfConf>,
    i: &mut Interface,
    nq: &Nq,
    src: &Src,
) {
    crate::model::maps::bind(i, || bindings(cfg, ifc, lag, src));
    let qos_sp = policy_for(cfg, ifc, lag, "qos", "input");
    let c = classification(cfg, resolve(cfg, qos_sp, "qos"), src);
    i.qos.dscp_to_tc = c.dscp_to_tc;
    i.qos.pcp_to_tc = c.pcp_to_tc;
    i.maps.dscp_to_tc = c.dscp_map;
    i.maps.pcp_to_tc = c.pcp_map;
    i.qos.trust = c.trust;
    i.qos.dscp_rewrites = c.rewrites;
    i.qos.tc_to_queue = derived(identity8());
    i.qos.tc_to_pg = derived(identity8());
    i.qos.tc_to_pfc_priority = nq.tc_to_pfc.clone();

    let q_sp = policy_for(cfg, ifc, lag, "queuing", "output");
    apply_queues(cfg, resolve(cfg, q_sp, "queuing"), i);

    // PFC: the mode is per port, the priorities come from the system network-qos policy.
    let mode = own_or_lag(ifc, lag, |x| x.qos().pfc_mode.as_ref());
    i.pfc.mode = match mode {
        Some((m, s)) => known(m.clone(), s),
        None => default_of("auto".to_string(), Some(src)),
    };
    if let Some((_, s)) = mode.filter(|(m, _)| m == "off") {
        i.pfc.priorities = known(Vec::new(), s);
        i.pfc.rx = known(false, s);
        i.pfc.tx = known(false, s);
    } else {
        i.pfc.priorities = nq.pfc.clone();
        i.pfc.rx = nq.pfc.as_ref().map(|p| Sourced {
            value: !p.value.is_empty(),
            src: p.src.clone(),
            default: p.default,
        });
        i.pfc.tx = i.pfc.rx.clone();
    }

    // Priority groups: no-drop flags and pause buffers (system network-qos, or an ingress
    // queuing policy on the port as on Nexus 3000).
    if let Some((groups, lsrc, dflt)) = &nq.lossless {
        for pg in i.pgs.iter_mut() {
            pg.lossless = Some(Sourced {
                value: groups.contains(&pg.id),
                src: lsrc.clone(),
                default: *dflt,
            });
        }
    }
    let mut buffers: Vec<(u8, &super::read::PauseBuffer)> =
        nq.buffers.iter().map(|(g, b)| (*g, b)).collect();
    if let Some(pm) = policy_for(cfg, ifc, lag, "queuing", "input")
        .and_then(|sp| cfg.policy_map("queuing", &sp.name))
    {
        for c in &pm.classes {
            let (Some(pb), Some(groups)) = (&c.pause_buffer, queuing_class_groups(cfg, &c.name))
            else {
                continue;
            };
            buffers.extend(groups.into_iter().map(|g| (g, pb)));
        }
    }
    for (g, b) in buffers {
        let Some(pg) = i.pgs.get_mut(g as usize) else {
            continue;
        };
        pg.size_bytes = known(b.size, &b.src);
        pg.xoff_bytes = known(b.xoff, &b.src);
        pg.xon_bytes = known(b.xon, &b.src);
        pg.headroom_bytes = known(b.size.saturating_sub(b.xoff), &b.src);
        pg.lossless = known(true, &b.src);
    }

    apply_watchdog(cfg, ifc, lag, i);
}

/// PFC watchdog: enabled per port or globally; detection and restore are the interval times
/// the shutdown / auto-restore multipliers (left unknown when a multiplier is not configured:
/// their NX-OS defaults are not verified).
fn apply_watchdog(cfg: &Config, ifc: &IfConf, lag: Option<&IfConf>, i: &mut Interface) {
    let w = &mut i.watchdog;
    w.enabled = match own_or_lag(ifc, lag, |x| x.qos().wd_enable.as_ref()) {
        Some((v, s)) => known(*v, s),
        None => match &cfg.wd_enable {
            Some((v, s)) => known(*v, s),
            None if cfg.full => default_of(false, None),
            None => None,
        },
    };
    let interval: Field<f64> = match &cfg.wd_interval {
        Some((v, s)) => known(f64::from(*v), s),
        // NX-OS polls no-drop queues every 100 ms unless configured
        None if cfg.full => default_of(100.0, None),
        None => None,
    };
    let times = |mult: Option<&(u32, Src)>| -> Field<f64> {
        let iv = interval.as_ref()?;
        let (m, s) = mult?;
        known(iv.value * f64::from(*m), s)
    };
    w.detect_ms =
        times(own_or_lag(ifc, lag, |x| x.qos().wd_mult.as_ref()).or(cfg.wd_shutdown_mult.as_ref()));
    w.restore_ms = times(cfg.wd_restore_mult.as_ref());
    w.poll_ms = interval;
    w.action = w.enabled.as_ref().and_then(|_| derived("drop".to_string()));
}
