//! Resolving a Junos configuration into the model: interface ranges onto their members,
//! [edit class-of-service interfaces] entries (names and wildcards such as `et-*`, an aggregate's
//! settings onto its members) onto each port, classifier → forwarding class → queue, the
//! congestion-notification profile (PFC, watchdog, cable length), scheduler maps (directly or
//! through forwarding-class sets and traffic-control profiles), and the Junos defaults for
//! absent lines (`default = true`; when an `inactive:` statement would have set the value, the
//! default cites that line so the finding shows why the setting does not apply).
//!
//! Traffic classes: Junos has no traffic-class numbers; a forwarding class is known by the
//! output queue it maps to (`queue-num`), so the model's traffic class is the queue number
//! (`tc_to_queue` is the identity) [I]. The PFC priority of a class is its `pfc-priority`
//! (DSCP-based PFC), else the queue number.
//!
//! Evidence markers in comments: [V] read in the vendor's own text,
//! [S] read in a secondary copy, [R] recalled, not re-read, [I] our inference or design choice.
//! Sources named in comments (Juniper, Junos OS documentation):
//! - "PFC Watchdog",
//!   <https://www.juniper.net/documentation/us/en/software/junos/cos/topics/topic-map/cos-pfc-watchdog-configure.html>
//! - "Default DSCP and DSCP IPv6 Classifiers",
//!   <https://www.juniper.net/documentation/us/en/software/junos/cos/topics/concept/default-dscp-table-cos-config-guide.html>
//! - "Configuring CoS WRED Drop Profiles" (QFX; ECN),
//!   <https://www.juniper.net/documentation/us/en/software/junos/traffic-mgmt-qfx/topics/task/cos-drop-profiles-qfx-series-cli.html>
//! - "Configuring DSCP-based PFC for Layer 3 Untagged Traffic",
//!   <https://www.juniper.net/documentation/us/en/software/junos/cos/topics/task/cos-configuring-l3-dscp-pfc.html>
//!
//! The statements in force on a port (`QosMaps::policies`, shown by `audit --format model`):
//! "You can assign a CoS component to a single interface or to multiple interfaces using
//! wildcards" [V Juniper QFX "Assigning CoS Components to Interfaces",
//! <https://juniper.net/documentation/us/en/software/junos/traffic-mgmt-qfx/topics/task/cos-components-to-interfaces-assigning-qfx-series-cli.html>],
//! so an `et-*` entry binds every port whose name it matches (`wildcard`, `via` the pattern).
//! Where a port also has an entry of its own name, its statements replace the wildcard's of the
//! same kind and the others still come from the wildcard [I: no Juniper text read states the
//! precedence; a named entry is taken as more specific, as [`effective`] does]. An aggregate's
//! entry binds its members (`lag`), their own entries replacing it.

use super::kind_of;
use super::read::{At, CodeMap, Config, Cos, CosIf, IfConf};
use super::shared::ClassTable;
use super::shared::{Shared, first_scheduled};
use crate::model::maps::{Bound, BoundPolicy, MapEntry, QosMap};
use crate::model::{Device, Field, Interface, Src, default_of, derived, known};
use crate::platform::util::identity8;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::rc::Rc;

/// Default media MTU of Ethernet ports: 1514 = IP MTU 1500 + 14 bytes of Ethernet header (the
/// FCS is not counted) [V Juniper "Media MTU and Protocol MTU"; EX/QFX default 1514].
const DEFAULT_IP_MTU: u32 = 1500;
/// Media MTU − IP MTU on Ethernet: the 14-byte header, 18 bytes with one 802.1Q tag
/// (`vlan-tagging`, `flexible-vlan-tagging`): "Default IP MTU = media MTU − encapsulation
/// overhead", with overheads "Ethernet version 2: 14" and "802.1Q/Ethernet version 2: 18"
/// [V Juniper, "Configuring the Media MTU", table "Encapsulation Overhead by Encapsulation
/// Type", https://www.juniper.net/documentation/en_US/junos13.2/topics/usage-guidelines/interfaces-configuring-the-media-mtu.html;
/// the same table in "Network Interfaces for EX4300 Switches", Juniper 2015]. Without a
/// configured media MTU the IP MTU keeps its own default of 1500 on a tagged port too: the
/// corpus `show interfaces` (ntc-templates juniper_junos_show_interfaces.raw) shows a
/// VLAN-tagged unit with media MTU 1514 and `Protocol inet, MTU: 1500`.
const ETH_HEADER: u32 = 14;
const ETH_VLAN_HEADER: u32 = 18;
/// CNP `input cable-length` default: 100 m [V Juniper cable-length (Congestion Notification)].
const DEFAULT_CABLE_M: f64 = 100.0;
/// PFC watchdog defaults: poll every 100 ms, stall after 2 polls (200 ms), queue disabled for a
/// recovery time of 200 ms [V Juniper "PFC Watchdog"].
const WD_POLL_MS: u32 = 100;
const WD_DETECTION: u32 = 2;
const WD_RECOVERY_MS: u32 = 200;
/// The watchdog disables the stalled queue and flushes its packets for the recovery time
/// [V "PFC Watchdog"]: the model's "drop".
const WD_ACTION: &str = "drop";
/// Without an `output` stanza, queues 3 and 4 pause on received PFC priorities 3 and 4
/// [V Juniper "Configure CoS PFC with Congestion Notification Profiles"].
const DEFAULT_OUTPUT_PFC: [u8; 2] = [3, 4];

/// The QFX default forwarding classes: (name, queue, no-loss) [V Juniper "Understanding Default
/// CoS Settings"]; mcast (queue 8) is multidestination and never classified to by unicast BA
/// classifiers.
const DEFAULT_FCS: &[(&str, u8, bool)] = &[
    ("best-effort", 0, false),
    ("fcoe", 3, true),
    ("no-loss", 4, true),
    ("network-control", 7, false),
    ("mcast", 8, false),
];

/// Default DSCP classifier: cs6/cs7 (48, 56) → network-control, everything else → best-effort
/// [V "Default DSCP and DSCP IPv6 Classifiers"; its ef/af entries name classes a QFX does not
/// define by default, so they fall to best-effort here, I]. DSCP 26 (af31) lands in best-effort.
pub(super) fn default_dscp_fc(d: u8) -> &'static str {
    if d == 48 || d == 56 {
        "network-control"
    } else {
        "best-effort"
    }
}

/// One forwarding class as the port sees it.
#[derive(Debug, Clone)]
pub(super) struct FcEff {
    pub(super) queue: u8,
    pub(super) no_loss: bool,
    pub(super) pfc_priority: Option<u8>,
    /// None for a default class.
    pub(super) src: Option<Src>,
}

fn fc_table(cos: &Cos) -> BTreeMap<String, FcEff> {
    let mut t: BTreeMap<String, FcEff> = DEFAULT_FCS
        .iter()
        .map(|(n, q, nl)| {
            (
                n.to_string(),
                FcEff {
                    queue: *q,
                    no_loss: *nl,
                    pfc_priority: None,
                    src: None,
                },
            )
        })
        .collect();
    for (n, f) in &cos.fcs {
        t.insert(
            n.clone(),
            FcEff {
                queue: f.queue,
                no_loss: f.no_loss,
                pfc_priority: f.pfc_priority,
                src: Some(f.src.clone()),
            },
        );
    }
    t
}

/// `*` matches any run of characters (Junos CoS interface wildcards: `et-*`, `xe-0/0/*`), with
/// the shared matcher ([`crate::glob`]).
pub(super) fn glob(pat: &str, name: &str) -> bool {
    crate::glob::matches(pat, name)
}

/// The class-of-service interface settings of a port: wildcard entries first, then its own
/// name (a named entry is more specific), each over those of its aggregate.
#[derive(Default)]
struct Eff<'c> {
    scheduler_map: Option<&'c At<String>>,
    cnp: Option<&'c At<String>>,
    fc_sets: Vec<&'c (String, At<String>)>,
    classifiers: BTreeMap<&'c str, &'c At<String>>,
    rewrites: BTreeMap<&'c str, &'c At<String>>,
    fixed_fc: Option<&'c At<String>>,
}

fn effective<'c>(cos: &'c Cos, names: &[&str]) -> Eff<'c> {
    let mut e = Eff::default();
    let mut apply = |ci: &'c CosIf| {
        if ci.scheduler_map.is_some() {
            e.scheduler_map = ci.scheduler_map.as_ref();
        }
        if ci.cnp.is_some() {
            e.cnp = ci.cnp.as_ref();
        }
        if ci.fixed_fc.is_some() {
            e.fixed_fc = ci.fixed_fc.as_ref();
        }
        if !ci.fc_sets.is_empty() {
            e.fc_sets = ci.fc_sets.iter().collect();
        }
        for (k, v) in &ci.classifiers {
            e.classifiers.insert(k.as_str(), v);
        }
        for (k, v) in &ci.rewrites {
            e.rewrites.insert(k.as_str(), v);
        }
    };
    for name in names {
        for wild in [true, false] {
            for ci in cos.entries_for(name, wild) {
                apply(ci);
            }
        }
    }
    e
}

/// The class-of-service statements in force on a port (`QosMaps::policies`), each with the
/// `[edit class-of-service interfaces]` entry it came from, in [`effective`]'s order (for each
/// of the aggregate and the port: wildcard entries, then the entry of that name), a later
/// statement of a kind replacing an earlier one: a wildcard entry (`et-*`) binds every port it
/// matches unless the port's (or its aggregate's) own entry states the same kind. Without any
/// classifier or fixed class, the default classifier of the port's family (`l2`: IEEE 802.1p).
fn bindings(cos: &Cos, names: &[&str], port: &str, l2: bool, at: &Src) -> Vec<BoundPolicy> {
    let mut by_kind: BTreeMap<String, BoundPolicy> = BTreeMap::new();
    for name in names {
        for wild in [true, false] {
            for ci in cos.entries_for(name, wild) {
                let mk = |kind: &str, a: &At<String>| {
                    let b = BoundPolicy::new(kind, &a.v, Bound::Port, Some(&a.src));
                    if wild {
                        BoundPolicy {
                            bound: Bound::Wildcard,
                            ..b.via(&ci.pattern)
                        }
                    } else if ci.pattern != port {
                        BoundPolicy {
                            bound: Bound::Lag,
                            ..b.via(&ci.pattern)
                        }
                    } else {
                        b
                    }
                };
                let mut put = |kind: String, a: &At<String>| {
                    let b = mk(&kind, a);
                    by_kind.insert(kind, b);
                };
                if let Some(a) = &ci.scheduler_map {
                    put("scheduler-map".into(), a);
                }
                if let Some(a) = &ci.cnp {
                    put("congestion-notification-profile".into(), a);
                }
                if let Some(a) = &ci.fixed_fc {
                    put("forwarding-class".into(), a);
                }
                if !ci.fc_sets.is_empty() {
                    by_kind.retain(|k, _| !k.starts_with("forwarding-class-set "));
                    for (set, tcp) in &ci.fc_sets {
                        let kind =
                            format!("forwarding-class-set {set} output-traffic-control-profile");
                        let b = mk(&kind, tcp);
                        by_kind.insert(kind, b);
                    }
                }
                for (ty, a) in &ci.classifiers {
                    let kind = format!("classifiers {ty}");
                    let b = mk(&kind, a);
                    by_kind.insert(kind, b);
                }
                for (ty, a) in &ci.rewrites {
                    let kind = format!("rewrite-rules {ty}");
                    let b = mk(&kind, a);
                    by_kind.insert(kind, b);
                }
            }
        }
    }
    if !by_kind
        .keys()
        .any(|k| k.starts_with("classifiers ") || k == "forwarding-class")
    {
        let kind = if l2 {
            "classifiers ieee-802.1"
        } else {
            "classifiers dscp"
        };
        by_kind.insert(
            kind.into(),
            BoundPolicy::new(kind, "default", Bound::Default, Some(at)),
        );
    }
    by_kind.into_values().collect()
}

/// Most ports one range statement may expand to (a port number beyond any switch's).
const MAX_RANGE: u32 = 1024;

/// Expand an interface-range member: `et-0/0/[0-3]` (also `[0-3,8]`), a wildcard against the
/// known names, or a plain name. Err: why it cannot be expanded (reported at its line).
fn expand_member(m: &str, known_names: &BTreeMap<String, IfConf>) -> Result<Vec<String>, String> {
    if let (Some(open), Some(close)) = (m.find('['), m.rfind(']'))
        && open < close
    {
        let (pre, post) = (&m[..open], &m[close + 1..]);
        let mut out = Vec::new();
        for part in m[open + 1..close].split(',') {
            let (a, b) = part.split_once('-').unwrap_or((part, part));
            match (a.trim().parse::<u32>(), b.trim().parse::<u32>()) {
                (Ok(a), Ok(b)) if a <= b && b - a < MAX_RANGE => {
                    crate::platform::util::spend_range(a, b)?;
                    out.extend((a..=b).map(|n| format!("{pre}{n}{post}")))
                }
                _ => {
                    return Err(format!(
                        "[{part}] is not a range of port numbers (at most {MAX_RANGE})"
                    ));
                }
            }
        }
        return Ok(out);
    }
    // `*` as the last number: ports 0 to 47, whatever the port count of the device [V Juniper
    // "Interface Ranges for Physical Interfaces": "`*` — all: sequential interfaces from 0 to 47"].
    if let Some(pre) = m.strip_suffix("/*")
        && !pre.contains('*')
    {
        crate::platform::util::spend_range(0, 47)?;
        return Ok((0..=47).map(|n| format!("{pre}/{n}")).collect());
    }
    if m.contains('*') {
        let hit: Vec<String> = known_names
            .keys()
            .filter(|n| !n.contains('*') && glob(m, n))
            .cloned()
            .collect();
        if hit.is_empty() {
            return Err("the wildcard matches no interface the configuration names".into());
        }
        return Ok(hit);
    }
    Ok(vec![m.to_string()])
}

/// `member-range et-0/0/0 to et-0/0/3`: same prefix, last number counts. Err: why not.
fn expand_range(a: &str, b: &str) -> Result<Vec<String>, String> {
    // The prefix ends where the trailing digits start (a byte index on a char boundary even
    // when the prefix ends in a multi-byte character); a name of digits only has no prefix.
    let split = |s: &str| -> Option<(String, u32)> {
        let pos = s.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        if pos == 0 {
            return None;
        }
        Some((s[..pos].to_string(), s[pos..].parse().ok()?))
    };
    match (split(a), split(b)) {
        (Some((pa, x)), Some((pb, y))) if pa == pb && x <= y && y - x < MAX_RANGE => {
            crate::platform::util::spend_range(x, y)?;
            Ok((x..=y).map(|n| format!("{pa}{n}")).collect())
        }
        _ => Err(format!(
            "{a} to {b}: the ends must differ only in a last number that grows (by at most {MAX_RANGE}); the ports between them are not known"
        )),
    }
}

/// Breakout parent: a physical port split into sub-ports (`et-0/0/8` of `et-0/0/8:0`..`:3`),
/// by `number-of-sub-ports`, by [edit chassis ... port N channel-speed], or because a sub-port
/// of it is configured. Returns the line that says so.
fn breakout_parent<'a>(
    name: &str,
    c: &'a IfConf,
    cfg: &'a Config,
    names: &BTreeMap<String, IfConf>,
) -> Option<&'a Src> {
    if kind_of(name) != "ethernet" || name.contains(':') {
        return None;
    }
    if let Some(n) = c.more().sub_ports.as_ref().filter(|n| n.v > 1) {
        return Some(&n.src);
    }
    let fpn = name.split_once('-').map(|(_, f)| f)?;
    if let Some(s) = cfg.chassis_breakout.get(fpn) {
        return Some(s);
    }
    let sub = format!("{name}:");
    let mut subs = names
        .range(sub.clone()..)
        .take_while(|(n, _)| n.starts_with(&sub))
        .peekable();
    subs.peek()?;
    // Pre-provisioned placeholders (`et-0/0/0:0 { disable; }` .. `:7`, as Apstra and the JVD
    // configs write for every port, channelized or not) beside a parent with its own MTU,
    // units or bundle do not channelize it: the parent is the port (issue 46 item 5).
    if carries_own_config(c) && subs.all(|(_, s)| is_placeholder(s)) {
        return None;
    }
    c.src.as_ref()
}

/// An interface whose only statement is `disable;`.
fn is_placeholder(c: &IfConf) -> bool {
    let m = c.more();
    c.mtu.is_none()
        && m.disable.is_some()
        && m.inet_mtu.is_none()
        && m.vlan_tagging.is_none()
        && m.speed.is_none()
        && m.lag.is_none()
        && m.flow_control.is_none()
        && m.rx_buffers.is_none()
        && m.tx_buffers.is_none()
        && m.families.is_empty()
        && m.sub_ports.is_none()
}

/// An interface that says something of its own traffic: an MTU, a unit family, a bundle.
fn carries_own_config(c: &IfConf) -> bool {
    let m = c.more();
    c.mtu.is_some() || m.inet_mtu.is_some() || !m.families.is_empty() || m.lag.is_some()
}

/// Physical and aggregate interfaces with their range statements merged in, without breakout
/// parents (their sub-ports are the ports; a parent's `speed` is each sub-port's [V Juniper
/// "Configure Port Speed": `number-of-sub-ports` is "the number of logical interfaces you want
/// to create on a physical port",
/// https://www.juniper.net/documentation/us/en/software/junos/interfaces-ethernet/topics/topic-map/configure-port.html;
/// `channel-speed` under [edit chassis fpc F pic P port N | port-range A B] channelizes a port,
/// "Port Settings", https://www.juniper.net/documentation/us/en/software/junos/interfaces-ethernet-switches/topics/topic-map/switches-interface-port.html]),
/// and the range members that cannot be expanded (line, why).
fn interfaces(cfg: &Config) -> (BTreeMap<String, IfConf>, Vec<(Src, String)>) {
    let mut notes = Vec::new();
    let mut out: BTreeMap<String, IfConf> = cfg
        .interfaces
        .iter()
        .filter(|(n, _)| !n.contains('*'))
        .map(|(n, c)| (n.clone(), c.clone()))
        .collect();
    for r in cfg.ranges.values() {
        let mut members: Vec<String> = Vec::new();
        for (m, src) in &r.members {
            match expand_member(m, &cfg.interfaces) {
                Ok(v) => members.extend(v),
                Err(why) => notes.push((src.clone(), format!("member {m} ({why})"))),
            }
        }
        for (a, b, src) in &r.member_ranges {
            match expand_range(a, b) {
                Ok(v) => members.extend(v),
                Err(why) => notes.push((src.clone(), format!("member-range {why}"))),
            }
        }
        for m in members {
            out.entry(m).or_default().inherit(&r.conf);
        }
    }
    // Breakout parents leave the port list; their sub-ports inherit the per-sub-port speed.
    let parents: Vec<(String, IfConf)> = out
        .iter()
        .filter(|(n, c)| breakout_parent(n, c, cfg, &out).is_some())
        .map(|(n, c)| (n.clone(), c.clone()))
        .collect();
    for (p, pc) in &parents {
        out.remove(p);
        let sub = format!("{p}:");
        // the names that start with `sub` follow it in order (a scan of every port per
        // parent was quadratic; issue 19)
        for (_, c) in out
            .range_mut(sub.clone()..)
            .take_while(|(n, _)| n.starts_with(&sub))
        {
            if c.more().speed.is_none() && pc.more().speed.is_some() {
                c.more_mut().speed.clone_from(&pc.more().speed);
            }
        }
    }
    // A member link of an aggregate carries the aggregate's frames: its MTU is the ae's.
    let parents: BTreeMap<String, IfConf> = out
        .iter()
        .filter(|(n, _)| kind_of(n) == "port-channel")
        .map(|(n, c)| (n.clone(), c.clone()))
        .collect();
    for c in out.values_mut() {
        if let Some(p) = c.more().lag.as_ref().and_then(|l| parents.get(&l.v))
            && c.mtu.is_none()
            && c.more().inet_mtu.is_none()
        {
            c.mtu.clone_from(&p.mtu);
            let p = p.more();
            // Only a member with its own lines (it names its ae) is here: its part is written.
            let m = c.more_mut();
            m.inet_mtu.clone_from(&p.inet_mtu);
            if m.vlan_tagging.is_none() {
                m.vlan_tagging.clone_from(&p.vlan_tagging);
            }
        }
    }
    (out, notes)
}

fn src_or(a: Option<Src>, b: &Src) -> Src {
    a.unwrap_or_else(|| b.clone())
}

/// Fill the model from the configuration; returns the statements that could not be applied
/// (line, why), which the file reports as unread.
pub(super) fn apply(dev: &mut Device, cfg: &Config) -> Vec<(Src, String)> {
    if let Some(v) = &cfg.version {
        dev.os_version = known(v.v.clone(), &v.src);
    }
    let cos = &cfg.cos;
    let fcs = fc_table(cos);
    let sh = Shared::new(cfg, &fcs);
    let (ifs, notes) = interfaces(cfg);
    let chassis_parent = |n: &str| {
        n.split_once('-')
            .is_some_and(|(_, fpn)| cfg.chassis_breakout.contains_key(fpn))
            && !n.contains(':')
            && kind_of(n) == "ethernet"
    };
    let mut policies: BTreeSet<String> = BTreeSet::new();
    let mut lag_members: BTreeMap<String, Vec<String>> = BTreeMap::new();
    // Ports named only under [edit class-of-service interfaces] (a class-of-service stanza on
    // its own): their QoS is known, nothing else about them.
    let mut all: Vec<(String, IfConf, bool)> =
        ifs.into_iter().map(|(n, c)| (n, c, false)).collect();
    // The names in `all` (a scan per class-of-service stanza was quadratic; issue 19).
    let mut named: HashSet<String> = all.iter().map(|(n, _, _)| n.clone()).collect();
    for ci in &cos.ifs {
        if !ci.pattern.contains('*')
            && !named.contains(&ci.pattern)
            && cfg
                .interfaces
                .get(&ci.pattern)
                .is_none_or(|c| c.more().sub_ports.as_ref().is_none_or(|n| n.v <= 1))
            && !chassis_parent(&ci.pattern)
        {
            let mut c = IfConf::default();
            c.src.clone_from(&ci.src);
            named.insert(ci.pattern.clone());
            all.push((ci.pattern.clone(), c, true));
        }
    }
    for (name, c, cos_only) in &all {
        let Some(src) = c.src.clone() else { continue };
        let kind = kind_of(name);
        let i = dev.iface(name, kind);
        let port = matches!(kind, "ethernet" | "port-channel");
        if *cos_only {
            if port && !name.contains('.') {
                let e = effective(cos, &[name.as_str()]);
                let l2 = c.more().families.iter().any(|f| f == "ethernet-switching");
                crate::model::maps::bind(i, || bindings(cos, &[name.as_str()], name, l2, &src));
                port_qos(i, &sh, &e, c, &src, &mut policies);
            }
            continue;
        }
        i.set_defined_at(src.clone());
        i.admin_up = match &c.more().disable {
            Some(s) => known(false, s),
            // enabled unless `disable;` [V Junos interface default]
            None => default_of(
                true,
                Some(&src_or(
                    sh.inactive_at(&["interfaces", name, "disable"]),
                    &src,
                )),
            ),
        };
        if let Some(s) = &c.more().speed {
            i.speed_gbps = s.v.and_then(|g| known(g, &s.src));
        }
        if let Some(l) = &c.more().lag {
            i.names.lag_parent = Some(l.v.clone());
            lag_members
                .entry(l.v.clone())
                .or_default()
                .push(name.clone());
        }
        if port {
            let dflt = src_or(sh.inactive_at(&["interfaces", name, "mtu"]), &src);
            i.mtu_raw = match &c.mtu {
                Some(m) => known(m.v, &m.src),
                None => default_of(DEFAULT_IP_MTU + ETH_HEADER, Some(&dflt)),
            };
            let header = if c.more().vlan_tagging.is_some() {
                ETH_VLAN_HEADER
            } else {
                ETH_HEADER
            };
            i.mtu = match (&c.more().inet_mtu, &c.mtu) {
                (Some(m), _) => known(m.v, &m.src),
                (None, Some(m)) => known(m.v.saturating_sub(header), &m.src),
                (None, None) => default_of(DEFAULT_IP_MTU, Some(&dflt)),
            };
        }
        if kind == "ethernet" {
            // Symmetric `flow-control` / `no-flow-control`, else the asymmetric buffers
            // (rx-buffers: send PAUSE, tx-buffers: honour it); off by default [V Juniper
            // flow-control (QFX): "By default, flow control is disabled"].
            let (rx, tx) = match (
                &c.more().flow_control,
                &c.more().tx_buffers,
                &c.more().rx_buffers,
            ) {
                (Some(f), _, _) => (known(f.v, &f.src), known(f.v, &f.src)),
                (None, t, r) => (
                    t.as_ref()
                        .and_then(|a| known(a.v, &a.src))
                        .or_else(|| default_of(false, Some(&src))),
                    r.as_ref()
                        .and_then(|a| known(a.v, &a.src))
                        .or_else(|| default_of(false, Some(&src))),
                ),
            };
            i.link_pause.rx = rx;
            i.link_pause.tx = tx;
        }
        if port && !name.contains('.') {
            let mut names: Vec<&str> = Vec::new();
            if let Some(l) = &c.more().lag {
                names.push(l.v.as_str());
            }
            names.push(name.as_str());
            let e = effective(cos, &names);
            let l2 = c.more().families.iter().any(|f| f == "ethernet-switching");
            crate::model::maps::bind(i, || bindings(cos, &names, name, l2, &src));
            port_qos(i, &sh, &e, c, &src, &mut policies);
        }
    }
    for (ae, ms) in lag_members {
        let i = dev.iface(&ae, "port-channel");
        for m in ms {
            if !i.lag_members.contains(&m) {
                i.lag_members.push(m);
            }
        }
    }
    // Shared buffer: only percentages are configured; a 0 % partition is a known empty pool,
    // any other share needs the ASIC's buffer size, which the configuration does not give.
    let pct = |part: &str| {
        cos.buffers
            .percent
            .get(&("ingress".to_string(), part.to_string()))
    };
    if let Some(p) = pct("lossless").filter(|p| p.v == 0.0) {
        dev.qos.lossless_pool_bytes = known(0, &p.src);
    }
    if let Some(p) = pct("lossless-headroom").filter(|p| p.v == 0.0) {
        dev.qos.headroom_pool_bytes = known(0, &p.src);
    }
    for p in policies {
        if !dev.qos.policies.contains(&p) {
            dev.qos.policies.push(p);
        }
    }
    notes
}

/// The forwarding class (and loss priority) a DSCP value is classified to on a port.
struct Classification<'c> {
    fc: Rc<[(&'c str, &'c str)]>,
    /// Per DSCP value, the line that classifies it (None: the default or unlisted).
    at: Rc<[Option<&'c Src>]>,
    src: Option<Src>,
    /// The port's classifier names a classifier the config does not define.
    undefined: bool,
}

impl<'c> Classification<'c> {
    fn of(t: ClassTable<'c>, src: Option<Src>) -> Self {
        Classification {
            fc: t.fc,
            at: t.at,
            src,
            undefined: false,
        }
    }
}

/// The classification of DSCP classifier `cls` (none: the default classifier). Code points
/// a classifier does not list: the default classifier's class with `import default`, else
/// best-effort [R Junos BA classifier behaviour] (its table is made once per device:
/// [`Shared::table`]).
fn classify<'c>(sh: &Shared<'c>, cls: Option<&'c At<String>>) -> Classification<'c> {
    match cls {
        None => Classification::of(sh.default_table(), None),
        Some(a) if a.v == "default" => Classification::of(sh.default_table(), Some(a.src.clone())),
        Some(a) => match sh.cos.classifiers.get(&("dscp".to_string(), a.v.clone())) {
            None => Classification {
                fc: Rc::new([]),
                at: Rc::new([]),
                src: Some(a.src.clone()),
                undefined: true,
            },
            Some(m) => Classification::of(sh.table(&a.v, m), Some(a.src.clone())),
        },
    }
}

/// DSCP → traffic class (the queue of the forwarding class) entry by entry: the classifier line
/// that lists the code point, else the default classifier's class (cited at the classifier
/// binding, or at the port when no classifier is bound).
fn dscp_entries(m: &[u8], cl: &Classification, dflt: Option<&Src>) -> QosMap {
    let entries = m
        .iter()
        .enumerate()
        .map(|(d, &tc)| match cl.at.get(d).copied().flatten() {
            Some(s) => MapEntry::config(d as u8, tc, s),
            None => MapEntry::default(d as u8, tc, cl.src.as_ref().or(dflt)),
        })
        .collect();
    QosMap {
        entries,
        note: Some(
            "the queue of the forwarding class the DSCP classifier gives; code points it does not list: the default classifier (cs6/cs7 network-control, all else best-effort) [V \"Default DSCP and DSCP IPv6 Classifiers\"]".into(),
        ),
    }
}

/// Received PFC priority → the output queue it pauses: the profile's `output ieee-802.1
/// code-point .. flow-control-queue N` lines, else queues 3 and 4 on priorities 3 and 4
/// [V "Configure CoS PFC with Congestion Notification Profiles"]; other priorities pause no
/// queue (unknown entries).
fn pfc_queue_map(cnp: &super::read::Cnp, at: &Src) -> QosMap {
    let entries = (0..8u8)
        .map(|p| match cnp.output.get(&p) {
            Some(a) => match a.v.first() {
                Some(&q) => MapEntry::config(p, q, &a.src),
                None => MapEntry::unknown(p),
            },
            None if cnp.output.is_empty() && DEFAULT_OUTPUT_PFC.contains(&p) => {
                MapEntry::default(p, p, Some(at))
            }
            None => MapEntry::unknown(p),
        })
        .collect();
    QosMap {
        entries,
        note: Some("congestion-notification profile output stanza (flow-control-queue); without one, priorities 3 and 4 pause queues 3 and 4".into()),
    }
}

/// Classification, PFC, buffers, scheduling and watchdog of a physical port or aggregate.
fn port_qos<'c>(
    i: &mut Interface,
    sh: &Shared<'c>,
    e: &Eff<'c>,
    c: &IfConf,
    ifsrc: &Src,
    policies: &mut BTreeSet<String>,
) {
    let cos = sh.cos;
    let fcs = sh.fcs;
    let dflt = Some(ifsrc);
    let dscp_cls = e.classifiers.get("dscp").copied();
    let ieee_cls = e.classifiers.get("ieee-802.1").copied();

    // Trust: the classifiers applied to the logical interface. Without any, Junos applies the
    // default DSCP classifier to Layer 3 interfaces and the default IEEE 802.1p classifier to
    // Layer 2 (ethernet-switching) ones [R Junos "Understanding Default CoS Scheduling and
    // Classification"].
    i.qos.trust = match (dscp_cls, ieee_cls) {
        _ if e.fixed_fc.is_some() => e.fixed_fc.and_then(|f| known("port".to_string(), &f.src)),
        (Some(d), Some(_)) => known("both".to_string(), &d.src),
        (Some(d), None) => known("dscp".to_string(), &d.src),
        (None, Some(p)) => known("pcp".to_string(), &p.src),
        (None, None) => {
            let l2 = c.more().families.iter().any(|f| f == "ethernet-switching");
            default_of(if l2 { "pcp" } else { "dscp" }.to_string(), dflt)
        }
    };
    let cl = match (e.fixed_fc, dscp_cls) {
        // Fixed classification: every packet of the interface to one class, whatever its code
        // point.
        (Some(f), None) => Classification {
            fc: (0..64).map(|_| (f.v.as_str(), "low")).collect(),
            at: vec![Some(&f.src); 64].into(),
            src: Some(f.src.clone()),
            undefined: false,
        },
        // A fixed class and a DSCP classifier on the same port: which one wins is not read
        // here, so the DSCP map stays unknown.
        (Some(_), Some(_)) => Classification {
            fc: Rc::new([]),
            at: Rc::new([]),
            src: None,
            undefined: true,
        },
        (None, _) => classify(sh, dscp_cls),
    };
    if let Some(a) = dscp_cls.filter(|_| !cl.undefined) {
        policies.insert(format!("classifier dscp {}", a.v));
    }
    let queue_of = |fc: &str| fcs.get(fc).map(|f| f.queue);
    if !cl.undefined {
        let map: Option<Vec<u8>> = cl.fc.iter().map(|(f, _)| queue_of(f)).collect();
        if let Some(m) = &map {
            i.maps.dscp_to_tc = dscp_entries(m, &cl, dflt);
        }
        i.qos.dscp_to_tc = map.and_then(|m| match &cl.src {
            Some(s) => known(m, s),
            None => default_of(m, dflt),
        });
    }
    i.qos.tc_to_queue = derived(identity8());
    // Junos has no configurable traffic-class → priority-group map: the lossless buffer follows
    // the no-loss class of each queue [I].
    i.qos.tc_to_pg = derived(identity8());

    // Per queue: the classes on it (explicit classes replace the defaults on their queue;
    // worked out once per device, [`Shared::queue`]).
    let mut pfc_prio = identity8();
    let mut pfc_prio_src: Option<Src> = None;
    let mut prio_entries = Vec::new();
    for q in 0..8u8 {
        let Some(on) = sh.queue(q) else {
            continue;
        };
        let stated = on.stated_pfc;
        prio_entries.push(match stated {
            Some((p, s)) => MapEntry::config(q, p, s),
            None => MapEntry::default(q, q, dflt),
        });
        if let Some((p, s)) = stated {
            pfc_prio[q as usize] = p;
            if pfc_prio_src.is_none() {
                pfc_prio_src = Some(s.clone());
            }
        }
        let pg = &mut i.pgs[q as usize];
        pg.lossless = match on.on.first() {
            Some((_, f)) => match &f.src {
                Some(s) => known(on.no_loss, s),
                None => default_of(on.no_loss, dflt),
            },
            None => default_of(false, dflt),
        };
    }
    i.maps.tc_to_pfc_priority = QosMap {
        entries: prio_entries,
        note: Some(
            "the forwarding class's pfc-priority (DSCP-based PFC), else the queue number".into(),
        ),
    };
    i.qos.tc_to_pfc_priority = match &pfc_prio_src {
        Some(s) => known(pfc_prio.clone(), s),
        None => default_of(pfc_prio.clone(), dflt),
    };

    // DSCP rewrite on egress: a rewrite rule gives each (class, loss priority) a code point.
    i.qos.dscp_rewrites = match e.rewrites.get("dscp") {
        Some(r) => match cos.rewrites.get(&("dscp".to_string(), r.v.clone())) {
            Some(rule) if !cl.undefined => {
                let firsts = sh.rewrite_firsts(&r.v, rule);
                let hit: Vec<u8> = (0..64u8)
                    .filter(|d| {
                        cl.fc
                            .get(*d as usize)
                            .and_then(|k| firsts.get(k))
                            .is_some_and(|(code, _)| code != d)
                    })
                    .collect();
                known(hit, &r.src)
            }
            _ => None,
        },
        // Junos rewrites nothing unless a rule is applied: "After the rewrite rule is created,
        // enable it on an interface" [V Juniper, Traffic Management User Guide for QFX, "Defining
        // CoS Rewrite Rules", https://www.juniper.net/documentation/us/en/software/junos/traffic-mgmt-nfx/traffic-mgmt-qfx/topics/task/cos-rewrite-rules-qfx-series-cli.html;
        // EX switches of Junos 9.x applied rewrite rules to routed packets by default, which this
        // reader does not model].
        None => default_of(Vec::new(), dflt),
    };

    match e.rewrites.get("dscp") {
        Some(r) => {
            if let Some(rule) = cos.rewrites.get(&("dscp".to_string(), r.v.clone())) {
                i.maps.tc_to_dscp = rewrite_map(sh, &r.v, rule, &cl);
            }
        }
        None => {
            i.maps.tc_to_dscp = QosMap {
                entries: (0..8).map(|k| MapEntry::unchanged(k, dflt)).collect(),
                note: Some("no DSCP rewrite rule applied to the interface".into()),
            }
        }
    }

    apply_pfc(i, sh, e, &cl, ifsrc, policies);
    apply_queues(i, sh, e, ifsrc, policies);
}

/// A DSCP rewrite rule as a TC → DSCP map: traffic class N (the queue) leaves with the code
/// point the rule gives, at loss priority low, the forwarding class on queue N that the port's
/// classifier puts traffic in (else the only class on queue N), at the rule's line; unknown
/// where that class is not one, or the rule has no entry for it. Other loss priorities may be
/// rewritten otherwise (`dscp_rewrites` has every DSCP).
fn rewrite_map<'c>(
    sh: &Shared<'c>,
    name: &'c str,
    rule: &'c CodeMap,
    cl: &Classification<'c>,
) -> QosMap {
    let firsts = sh.rewrite_firsts(name, rule);
    let entries = (0..8u8)
        .map(|tc| {
            // the classes on queue tc that the classifier uses, else every class on it
            let used: BTreeSet<&str> = cl
                .fc
                .iter()
                .map(|(fc, _)| *fc)
                .filter(|fc| sh.fcs.get(*fc).is_some_and(|f| f.queue == tc))
                .collect();
            let only = if used.is_empty() {
                sh.queue(tc).and_then(|q| q.only)
            } else {
                (used.len() == 1).then(|| used.first().copied()).flatten()
            };
            only.and_then(|fc| firsts.get(&(fc, "low"))).map_or_else(
                || MapEntry::unknown(tc),
                |(code, src)| MapEntry::config(tc, *code, src),
            )
        })
        .collect();
    QosMap {
        entries,
        note: Some(
            "the rewrite rule's code point for the queue's forwarding class at loss priority low; unknown where no single class is known, or the rule has no entry for it (dscp_rewrites lists every rewritten DSCP)".into(),
        ),
    }
}

fn apply_pfc(
    i: &mut Interface,
    sh: &Shared,
    e: &Eff,
    cl: &Classification,
    ifsrc: &Src,
    policies: &mut BTreeSet<String>,
) {
    let cos = sh.cos;
    let fcs = sh.fcs;
    let name = i.name.clone();
    let cnp = e.cnp.and_then(|r| cos.cnps.get(&r.v).map(|c| (r, c)));
    let Some((r, cnp)) = cnp else {
        if e.cnp.is_some() {
            // names an undefined profile (reported): nothing is known about PFC
            return;
        }
        // No congestion-notification profile: no PFC [V Juniper: a CNP associated with the
        // interface enables PFC]. Cite an inactive profile line when that is the reason.
        let why = sh.inactive_cnp(&name).unwrap_or_else(|| ifsrc.clone());
        let d = Some(&why);
        i.pfc.mode = default_of("off".into(), d);
        i.pfc.priorities = default_of(Vec::new(), d);
        i.pfc.rx = default_of(false, d);
        i.pfc.tx = default_of(false, d);
        i.watchdog.enabled = default_of(false, d);
        return;
    };
    policies.insert(format!("congestion-notification-profile {}", r.v));
    // Priorities paused: DSCP-based PFC pauses the pfc-priority of the class the DSCP is
    // classified to [V "Configuring DSCP-based PFC"]; 802.1p PFC pauses the code point itself.
    let mut prios: BTreeMap<u8, Src> = BTreeMap::new();
    for (d, s) in &cnp.dscp_pfc {
        let Some(&(fc, _)) = cl.fc.get(*d as usize) else {
            continue;
        };
        if let Some(p) = fcs.get(fc).and_then(|f| f.pfc_priority) {
            prios.entry(p).or_insert_with(|| s.clone());
        }
    }
    for (p, s) in &cnp.ieee_pfc {
        prios.entry(*p).or_insert_with(|| s.clone());
    }
    let psrc = prios
        .values()
        .next()
        .cloned()
        .unwrap_or_else(|| r.src.clone());
    let list: Vec<u8> = prios.keys().copied().collect();
    let on = !list.is_empty();
    i.pfc.priorities = known(list.clone(), &psrc);
    i.pfc.tx = known(on, &psrc);
    // Honouring received PFC: the output stanza's code points, else queues 3/4 on 3/4.
    i.pfc.rx = if cnp.output.is_empty() {
        default_of(
            on && list.iter().all(|p| DEFAULT_OUTPUT_PFC.contains(p)),
            Some(&r.src),
        )
    } else {
        let src = cnp
            .output
            .values()
            .next()
            .map(|a| a.src.clone())
            .unwrap_or_else(|| r.src.clone());
        known(
            on && list
                .iter()
                .all(|p| cnp.output.get(p).is_some_and(|a| !a.v.is_empty())),
            &src,
        )
    };
    i.maps.pfc_priority_to_queue = pfc_queue_map(cnp, &r.src);
    // DCBX negotiates PFC with the peer unless disabled or told not to [V Juniper DCBX: PFC
    // autonegotiation is on by default and turns PFC off on a mismatch]: mode auto.
    i.pfc.mode = match (
        sh.cfg.dcbx_disable.clone(),
        sh.dcbx_if_disable(&name),
        sh.dcbx_no_autoneg(&name),
    ) {
        (Some(s), _, _) | (None, Some(s), _) | (None, None, Some(s)) => known("on".into(), &s),
        (None, None, None) => default_of("auto".into(), Some(&r.src)),
    };
    i.cable_m = match &cnp.cable_m {
        Some(c) => known(c.v, &c.src),
        None => default_of(DEFAULT_CABLE_M, Some(&r.src)),
    };
    let w = &mut i.watchdog;
    match &cnp.watchdog {
        Some(ws) => {
            w.enabled = known(true, ws);
            let poll = cnp.wd_poll_ms.as_ref().map(|a| a.v).unwrap_or(WD_POLL_MS);
            let det = cnp
                .wd_detection
                .as_ref()
                .map(|a| a.v)
                .unwrap_or(WD_DETECTION);
            let field = |v: f64, explicit: Option<&Src>| -> Field<f64> {
                match explicit {
                    Some(s) => known(v, s),
                    None => default_of(v, Some(ws)),
                }
            };
            w.poll_ms = field(poll as f64, cnp.wd_poll_ms.as_ref().map(|a| &a.src));
            // detection time = polls × interval; stated only when both are
            let det_src = match (&cnp.wd_detection, &cnp.wd_poll_ms) {
                (Some(d), Some(_)) => Some(&d.src),
                _ => None,
            };
            w.detect_ms = field((poll * det) as f64, det_src);
            w.restore_ms = match &cnp.wd_recovery_ms {
                Some(a) => known(a.v as f64, &a.src),
                None => default_of(WD_RECOVERY_MS as f64, Some(ws)),
            };
            w.action = default_of(WD_ACTION.into(), Some(ws));
        }
        None => {
            let why = sh
                .inactive_at(&[
                    "class-of-service",
                    "congestion-notification-profile",
                    &r.v,
                    "pfc-watchdog",
                ])
                .or_else(|| cnp.src.clone())
                .unwrap_or_else(|| r.src.clone());
            w.enabled = default_of(false, Some(&why));
        }
    }
}

fn apply_queues<'c>(
    i: &mut Interface,
    sh: &Shared<'c>,
    e: &Eff<'c>,
    ifsrc: &Src,
    policies: &mut BTreeSet<String>,
) {
    let cos = sh.cos;
    // forwarding class → scheduler, from the scheduler map, then the ETS traffic-control
    // profiles of the forwarding-class sets (a later one replacing an earlier one's scheduler
    // for the same class); per queue, its first class (name order) with a scheduler
    let mut sources = Vec::new();
    if let Some(r) = e.scheduler_map
        && let Some(sm) = cos.scheduler_maps.get(&r.v)
    {
        policies.insert(format!("scheduler-map {}", r.v));
        sources.push(sh.map_scheds(&r.v, sm));
    }
    for (set, tcp) in &e.fc_sets {
        let Some(sm_name) = cos.tcps.get(&tcp.v).and_then(|t| t.as_ref()) else {
            continue;
        };
        let Some(sm) = cos.scheduler_maps.get(&sm_name.v) else {
            continue;
        };
        policies.insert(format!("scheduler-map {}", sm_name.v));
        sources.push(sh.set_scheds(set, &sm_name.v, sm));
    }
    for q in i.queues.iter_mut() {
        let sched =
            first_scheduled(&sources, q.id).and_then(|a| cos.schedulers.get(&a.v).map(|s| (a, s)));
        let Some((sref, s)) = sched else {
            // ECN is off unless a scheduler enables it [V "Configuring CoS WRED Drop
            // Profiles": "ECN is disabled by default"];
            // no drop profile means tail drop.
            q.ecn.enabled = default_of(false, Some(ifsrc));
            q.wred_drop = default_of(false, Some(ifsrc));
            continue;
        };
        let ssrc = s.src.clone().unwrap_or_else(|| sref.src.clone());
        q.scheduler = match &s.priority {
            // QFX priorities: strict-high is strict priority; the others share by weight.
            // `low-latency` (ACX/MX) is served "before any other priority queue, including
            // strict-high" [V Juniper "Transmission Priority Scheduling",
            // https://juniper.net/documentation/us/en/software/junos/cos/topics/concept/schedulers-priority-overview-cos-config-guide.html].
            Some(p) if matches!(p.v.as_str(), "strict-high" | "high" | "low-latency") => {
                known("strict".into(), &p.src)
            }
            Some(p) => known("dwrr".into(), &p.src),
            // `priority low` by default [R Junos scheduler default].
            None => default_of("dwrr".into(), Some(&ssrc)),
        };
        if let Some(r) = &s.rate_pct {
            q.weight_pct = known(r.v, &r.src);
        }
        // The drop profile for loss priority any/low (RoCE traffic is classified low).
        let dp = s
            .drop_profiles
            .iter()
            .find(|(lp, _)| lp == "any" || lp == "low")
            .or(s.drop_profiles.first());
        match &s.ecn {
            Some(es) => {
                q.ecn.enabled = known(true, es);
                // Thresholds are fill levels in percent of the queue's buffer, not bytes; the
                // bytes stay unknown (ECN002 reports it cannot normalize). The marking
                // probability at the highest fill level is Pmax.
                if let Some((_, d)) = dp
                    && let Some(p) = cos.drop_profiles.get(&d.v)
                {
                    if let Some(pmax) = p.prob.iter().copied().reduce(f64::max) {
                        q.ecn.max_probability_pct = known(pmax, &d.src);
                    }
                    // the fill levels themselves, in percent as configured
                    let at = p.src.as_ref().unwrap_or(&d.src);
                    q.ecn.min_pct = p
                        .fill
                        .iter()
                        .copied()
                        .reduce(f64::min)
                        .and_then(|v| known(v, at));
                    q.ecn.max_pct = p
                        .fill
                        .iter()
                        .copied()
                        .reduce(f64::max)
                        .and_then(|v| known(v, at));
                }
                // On an ECN queue the drop profile only marks; non-ECT packets are tail-dropped
                // [V "Configuring CoS WRED Drop Profiles"], and RoCE is ECT.
                q.wred_drop = known(false, es);
            }
            None => {
                let why = sh
                    .inactive_at(&[
                        "class-of-service",
                        "schedulers",
                        &sref.v,
                        "explicit-congestion-notification",
                    ])
                    .unwrap_or_else(|| ssrc.clone());
                q.ecn.enabled = default_of(false, Some(&why));
                q.wred_drop = match dp {
                    Some((_, d)) => known(true, &d.src),
                    None => default_of(false, Some(&ssrc)),
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_and_ranges() {
        assert!(glob("et-*", "et-0/0/1"));
        assert!(glob("xe-0/0/*", "xe-0/0/12"));
        assert!(!glob("xe-0/0/*", "et-0/0/12"));
        assert!(glob("*", "ae0"));
        assert!(glob("et-0/0/0", "et-0/0/0"));
        assert!(!glob("et-0/0/0", "et-0/0/01"));
        let none = BTreeMap::new();
        assert_eq!(
            expand_member("et-0/0/[0-2]", &none),
            Ok(vec![
                "et-0/0/0".to_string(),
                "et-0/0/1".to_string(),
                "et-0/0/2".to_string()
            ])
        );
        assert_eq!(
            expand_range("et-0/0/2", "et-0/0/4"),
            Ok(vec![
                "et-0/0/2".to_string(),
                "et-0/0/3".to_string(),
                "et-0/0/4".to_string()
            ])
        );
        assert!(expand_range("et-0/0/4", "et-0/1/2").is_err());
        assert!(expand_range("et-0/0/4", "et-0/0/2").is_err());
        assert!(expand_member("et-0/0/[a-c]", &none).is_err());
        assert!(expand_member("xe-*", &none).is_err());
        assert_eq!(expand_member("xe-0/1/*", &none).map(|v| v.len()), Ok(48));
    }

    #[test]
    fn default_classifier() {
        assert_eq!(default_dscp_fc(26), "best-effort");
        assert_eq!(default_dscp_fc(48), "network-control");
    }
}
