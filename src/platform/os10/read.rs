//! Reading an OS10 `show running-configuration` (or an OS9 `show running-config`): records
//! become interface blocks, definitions (class-maps, policy-maps, WRED profiles, trust maps,
//! traffic-class → queue maps, OS9 dcb-maps) and the `system qos` block, each statement with the
//! line that said it. Nothing here applies defaults; `apply` does that.

use super::{canonical_ifname, kind_of};
use crate::model::Src;
use crate::parser::Parsed;
use crate::platform::{Output, util};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

pub(super) use crate::platform::util::At;
use crate::platform::util::at;

/// `service-policy input|output [type T] NAME`.
#[derive(Debug, Clone)]
pub(super) struct SvcPolicy {
    /// input | output
    pub(super) dir: String,
    /// network-qos | queuing | qos
    pub(super) ty: String,
    pub(super) name: String,
    pub(super) src: Src,
}

/// QoS statements an interface or the `system qos` block holds.
#[derive(Debug, Clone, Default)]
pub(super) struct QosStmts {
    /// The `service-policy` lines in force, oldest first ([`QosStmts::add_policy`]). Shared:
    /// an `interface range` line is one policy for every port of the range (a range of 255
    /// ports repeated 40 times in 64 KiB held 2.3 MB of copies; issue 19).
    pub(super) policies: Vec<Arc<SvcPolicy>>,
    pub(super) ets: Option<At<bool>>,
    pub(super) qos_map: Option<At<String>>,
    pub(super) trust_dot1p: Option<At<String>>,
    pub(super) trust_dscp: Option<At<String>>,
}

impl QosStmts {
    pub(super) fn policy(&self, ty: &str, dir: &str) -> Option<&SvcPolicy> {
        self.policies
            .iter()
            .rev()
            .find(|p| p.ty == ty && p.dir == dir)
            .map(|p| &**p)
    }

    /// Adds a `service-policy` line. Only the last line of a type and direction is applied
    /// ([`QosStmts::policy`]) and the others count only for their type and name (the
    /// device's policy list), so a line that repeats the one in force (same type, direction
    /// and name) takes its place instead of piling up: a port named by many `interface range`
    /// blocks that each bind the same policies keeps one entry per policy, not one per block.
    fn add_policy(&mut self, sp: &Arc<SvcPolicy>) {
        if let Some(i) = self
            .policies
            .iter()
            .rposition(|p| p.ty == sp.ty && p.dir == sp.dir)
            && self.policies[i].name == sp.name
        {
            self.policies.remove(i);
        }
        self.policies.push(Arc::clone(sp));
    }
}

/// One interface (a running config has one block per port; `interface range` blocks of an
/// intended config give each port of the range the same statements): its name and header line
/// inline, the statements inside apart ([`IfLines`], boxed). A file of bare `interface` lines
/// (issue 19: 1 MiB is ~39,000 blocks, all alive while the ports are built) then costs ~56
/// bytes a block instead of ~420.
#[derive(Debug, Clone)]
pub(super) struct IfCfg {
    pub(super) name: String,
    pub(super) kind: &'static str,
    pub(super) src: Src,
    /// `None` until a statement of the interface is read ([`IfCfg::lines`]).
    lines: Option<Box<IfLines>>,
}

/// The statements of one interface.
#[derive(Debug, Clone, Default)]
pub(super) struct IfLines {
    pub(super) shutdown: Option<At<bool>>,
    pub(super) switchport: Option<At<bool>>,
    pub(super) ip_address: Option<Src>,
    pub(super) mtu: Option<At<u32>>,
    pub(super) ip_mtu: Option<At<u32>>,
    /// Inner `None`: `speed auto` or a form not read as a speed.
    pub(super) speed: Option<At<Option<f64>>>,
    /// Port-channel number this port is a member of (OS10 `channel-group`, OS9 LACP block).
    pub(super) lag: Option<At<u32>>,
    pub(super) fc_rx: Option<At<bool>>,
    pub(super) fc_tx: Option<At<bool>>,
    /// on | off
    pub(super) pfc_mode: Option<At<String>>,
    pub(super) qos: QosStmts,
    /// OS9 `dcb-map NAME` on the port.
    pub(super) dcb_map: Option<At<String>>,
    /// OS9 `service-class dynamic dot1p` on the port.
    pub(super) dot1p_class: Option<Src>,
    /// OS9 `channel-member ...` of a static port-channel (canonical member names).
    pub(super) members: Vec<(String, Src)>,
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

    /// The interface's statements (none read: all unset).
    pub(super) fn lines(&self) -> &IfLines {
        static NONE: std::sync::LazyLock<IfLines> = std::sync::LazyLock::new(IfLines::default);
        self.lines.as_deref().unwrap_or(&NONE)
    }

    fn lines_mut(&mut self) -> &mut IfLines {
        self.lines.get_or_insert_with(Box::default)
    }
}

#[derive(Debug, Clone)]
pub(super) enum Match {
    Group(Vec<u8>),
    Queue(Vec<u8>),
    Dscp(Vec<u8>),
    /// `match cos`: classification on 802.1p.
    Cos,
    /// ACL, VLAN, `match not ...`: classifies on something this tool does not model.
    Other,
}

#[derive(Debug)]
pub(super) struct ClassMap {
    pub(super) ty: String,
    pub(super) name: String,
    pub(super) match_all: bool,
    pub(super) matches: Vec<Match>,
}

/// `pause [buffer-size B pause-threshold X resume-threshold R]` (KB).
#[derive(Debug, Clone)]
pub(super) struct Pause {
    /// (size, xoff, xon) in KB.
    pub(super) kb: Option<(u64, u64, u64)>,
    pub(super) src: Src,
}

/// A `class` inside a policy-map with its actions.
#[derive(Debug)]
pub(super) struct PClass {
    pub(super) name: String,
    pub(super) src: Src,
    pub(super) pause: Option<Pause>,
    pub(super) pfc_cos: Option<At<Vec<u8>>>,
    pub(super) bandwidth: Option<At<f64>>,
    pub(super) priority: Option<Src>,
    pub(super) wred: Option<At<String>>,
    pub(super) set_dscp: Option<At<u8>>,
    /// `set qos-group N` (a `type qos` class: the traffic class of what it matches).
    pub(super) set_group: Option<At<u8>>,
    /// `trust dscp|diffserv|dot1p` in a `type qos` class (`class-trust`): "dscp" or "dot1p".
    pub(super) trust: Option<At<String>>,
}

#[derive(Debug)]
pub(super) struct PolicyMap {
    pub(super) ty: String,
    pub(super) name: String,
    pub(super) classes: Vec<PClass>,
}

/// A `wred NAME` profile: green thresholds (KB) and probability, and `random-detect ecn`.
#[derive(Debug, Default)]
pub(super) struct Wred {
    /// (min KB, max KB, drop probability %, line)
    pub(super) green: Option<(u64, u64, f64, Src)>,
    pub(super) ecn: Option<Src>,
}

/// `trust dot1p-map` / `trust dscp-map`: (traffic class, values, line) entries.
#[derive(Debug)]
pub(super) struct TrustMap {
    pub(super) entries: Vec<(u8, Vec<u8>, Src)>,
}

/// OS9 `dcb-map`: priority groups (bandwidth %, pfc on) and the priority → group table.
#[derive(Debug, Default)]
pub(super) struct DcbMap {
    pub(super) pgs: BTreeMap<u8, (u32, bool, Src)>,
    pub(super) pgid: Option<At<Vec<u8>>>,
}

/// Everything read from one running config.
#[derive(Debug, Default)]
pub(super) struct Cfg {
    pub(super) hostname: Option<At<String>>,
    pub(super) version: Option<At<String>>,
    /// The OS9 (FTOS) form: `! Version 9.x`, OS9 port names or `dcb-map` blocks.
    pub(super) ftos: bool,
    pub(super) interfaces: Vec<IfCfg>,
    pub(super) class_maps: Vec<ClassMap>,
    pub(super) policy_maps: Vec<PolicyMap>,
    pub(super) wreds: HashMap<String, Wred>,
    /// (kind, name) → map
    pub(super) trust_maps: HashMap<(String, String), TrustMap>,
    /// Lines read but not understood (an `interface range` that cannot be expanded), with why.
    pub(super) unread: Vec<(Src, String)>,
    /// name → (queue, traffic classes, line)
    pub(super) tcq_maps: HashMap<String, Vec<(u8, Vec<u8>, Src)>>,
    pub(super) system: Option<(Src, QosStmts)>,
    pub(super) dcb_maps: HashMap<String, DcbMap>,
    pub(super) dcb_enable: Option<At<bool>>,
    pub(super) dot1p_class: Option<Src>,
    /// `interface breakout 1/1/13 map 100g-1x`: port → (Gb/s per sub-port, sub-ports, line).
    pub(super) breakouts: HashMap<String, (f64, u32, Src)>,
    /// (kind, name, line) of every reference, checked once the whole file is read.
    pub(super) refs: Vec<(&'static str, String, u32)>,
    /// Finds a port of `interfaces` by name (an `interface range` names many).
    pub(super) iface_index: crate::model::name_index::NameIndex,
}

impl Cfg {
    pub(super) fn class_map(&self, ty: &str, name: &str) -> Option<&ClassMap> {
        self.class_maps
            .iter()
            .rev()
            .find(|c| c.ty == ty && c.name == name)
    }
    pub(super) fn policy_map(&self, ty: &str, name: &str) -> Option<&PolicyMap> {
        self.policy_maps
            .iter()
            .rev()
            .find(|p| p.ty == ty && p.name == name)
    }
    pub(super) fn system_qos(&self) -> Option<&QosStmts> {
        self.system.as_ref().map(|(_, q)| q)
    }
}

/// Where a record sits, so its children know what they configure.
#[derive(Debug, Clone)]
enum Ctx {
    None,
    /// Interface blocks (several for `interface range`).
    Ifaces(Vec<usize>),
    System,
    Wred(String),
    ClassMap(usize),
    PolicyMap(usize),
    PClass(usize, usize),
    TrustMap(String, String),
    TcqMap(String),
    DcbMap(String),
    /// OS9 `port-channel-protocol LACP` block of these interfaces.
    Lacp(Vec<usize>),
}

fn list(s: &str, max: u32) -> Option<Vec<u8>> {
    util::num_list(s, max).map(|v| v.into_iter().map(|x| x as u8).collect())
}

/// DSCP names OS10 accepts besides numbers in `set dscp`.
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
    let xy = t.strip_prefix("af")?.as_bytes();
    if xy.len() == 2 {
        let (x, y) = (xy[0].wrapping_sub(b'0'), xy[1].wrapping_sub(b'0'));
        if (1..=4).contains(&x) && (1..=3).contains(&y) {
            return Some(8 * x + 2 * y);
        }
    }
    None
}

/// Ports of `interface range ethernet1/1/1-1/1/4,1/1/9` or `ethernet 1/1/1-1/1/4` (canonical
/// names); why not, when a part is not understood or the device's range budget is spent.
fn expand_range(spec: &str) -> Result<Vec<String>, String> {
    const CANNOT: &str = "an interface range this reader cannot expand (backwards, over 512 ports, or not unit/slot/port)";
    let cannot = || CANNOT.to_string();
    let spec = spec.trim();
    let split = spec.find(|c: char| c.is_ascii_digit()).ok_or_else(cannot)?;
    let (word, rest) = spec.split_at(split);
    let word = word.trim();
    let mut out = Vec::new();
    for part in rest.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let part = part.trim_start_matches(|c: char| c.is_ascii_alphabetic() || c == ' ');
        match part.split_once('-') {
            Some((a, b)) => {
                let (pa, la) = a.rsplit_once('/').ok_or_else(cannot)?;
                // `1/1/1-1/1/4` or the short `1/1/1-4`
                let lb = b
                    .rsplit_once('/')
                    .map_or(b, |(pb, lb)| if pb == pa { lb } else { "" });
                let (Ok(x), Ok(y)) = (la.parse::<u32>(), lb.parse::<u32>()) else {
                    return Err(cannot());
                };
                if x > y || y - x > 512 {
                    return Err(cannot());
                }
                crate::platform::util::spend_range(x, y)?;
                out.extend((x..=y).map(|n| canonical_ifname(&format!("{word}{pa}/{n}"))));
            }
            None => out.push(canonical_ifname(&format!("{word}{part}"))),
        }
    }
    if out.is_empty() {
        return Err(cannot());
    }
    Ok(out)
}

/// OS9 `channel-member TenGigabitEthernet 0/45-47` / `fortyGigE 0/48,52`: the members, and
/// why a part was not expanded (not numbers, backwards, over 512 ports, or the device's range
/// budget spent) when one was not.
fn expand_members(spec: &str) -> (Vec<String>, Option<String>) {
    let spec = spec.trim();
    let Some(split) = spec.find(|c: char| c.is_ascii_digit()) else {
        return (Vec::new(), None);
    };
    let (word, rest) = spec.split_at(split);
    let mut out = Vec::new();
    let mut refused = None;
    let mut prefix = String::new();
    for part in rest.split(',').map(str::trim) {
        let (pfx, last) = match part.rsplit_once('/') {
            Some((p, l)) => {
                prefix = p.to_string();
                (prefix.clone(), l)
            }
            None => (prefix.clone(), part),
        };
        let Some((a, b)) = last.split_once('-') else {
            out.push(canonical_ifname(&format!("{word}{pfx}/{last}")));
            continue;
        };
        let spent = match (a.parse::<u32>(), b.parse::<u32>()) {
            (Ok(x), Ok(y)) if x <= y && y - x <= 512 => crate::platform::util::spend_range(x, y)
                .map(|()| {
                    out.extend((x..=y).map(|n| canonical_ifname(&format!("{word}{pfx}/{n}"))));
                }),
            _ => Err(format!(
                "a member range this reader cannot expand (not numbers, backwards or over 512 ports): {part}"
            )),
        };
        if let Err(why) = spent {
            refused.get_or_insert(why);
        }
    }
    (out, refused)
}

/// For each line number (1-based index), the last earlier line at column 0 that is neither
/// blank nor a `!` comment: the block an indented line belongs to.
fn block_owners(text: &str) -> Vec<u32> {
    let mut out = vec![0u32];
    let mut owner = 0u32;
    for (i, line) in text.split('\n').enumerate() {
        out.push(owner);
        let l = line.trim_end_matches('\r');
        if !l.is_empty() && !l.starts_with([' ', '\t', '!']) {
            owner = i as u32 + 1;
        }
    }
    out
}

/// Whether each line (1-based: entry 0 is no line) starts with a space or a tab; made once
/// per file, since a look-up from the top of the file per record was quadratic in its lines
/// (1 MiB of short interface stanzas: 15 s; issue 19).
fn indentation(text: &str) -> Vec<bool> {
    std::iter::once(false)
        .chain(text.split('\n').map(|l| l.starts_with([' ', '\t'])))
        .collect()
}

fn indented(lines: &[bool], line: u32) -> bool {
    lines.get(line as usize).copied().unwrap_or(false)
}

/// The statements of the interfaces a context stands for.
fn ifaces<'c>(cfg: &'c mut Cfg, c: &Ctx) -> Vec<&'c mut IfLines> {
    match c {
        Ctx::Ifaces(ix) => {
            // By position, in order, each port once: a scan of every port per statement was
            // quadratic in the ports of a config.
            let mut want = ix.clone();
            want.sort_unstable();
            want.dedup();
            let mut out = Vec::with_capacity(want.len());
            let mut rest: &mut [IfCfg] = &mut cfg.interfaces;
            let mut base = 0;
            for i in want {
                let Some(skip) = i.checked_sub(base) else {
                    continue;
                };
                let Some((f, tail)) = std::mem::take(&mut rest)
                    .get_mut(skip..)
                    .and_then(|t| t.split_first_mut())
                else {
                    break;
                };
                out.push(f.lines_mut());
                rest = tail;
                base = i + 1;
            }
            out
        }
        _ => Vec::new(),
    }
}

/// The QoS statement holders a context stands for (interfaces or `system qos`).
fn qos_holders<'c>(cfg: &'c mut Cfg, c: &Ctx) -> Vec<&'c mut QosStmts> {
    match c {
        Ctx::System => cfg.system.as_mut().map(|(_, q)| q).into_iter().collect(),
        Ctx::Ifaces(_) => ifaces(cfg, c).into_iter().map(|f| &mut f.qos).collect(),
        _ => Vec::new(),
    }
}

pub(super) fn read_config(o: &Output) -> Cfg {
    let p: &Parsed = &o.parsed;
    let text = p.text();
    let owners = block_owners(text);
    let indent = indentation(text);
    let mut cfg = Cfg::default();
    let mut ctx: Vec<Ctx> = Vec::with_capacity(p.records.len());
    // Context of each top-level record, by its line (for OS9 lines cut off by a `!`): the
    // record's index in `ctx`. A copy of the context was ~4 MB of the peak for 1 MiB of bare
    // `interface` lines (issue 19).
    let mut top_at_line: HashMap<u32, u32> = HashMap::new();
    for r in &p.records {
        let src = o.src(r.line);
        let mut parent = r
            .parent
            .and_then(|i| ctx.get(i as usize))
            .cloned()
            .unwrap_or(Ctx::None);
        if r.parent.is_none() && indented(&indent, r.line) {
            // An indented line read at top level: a `!` closed its block for the parser, but
            // it still belongs to the block that owns it.
            let owner = owners.get(r.line as usize).copied().unwrap_or(0);
            if let Some(c) = top_at_line.get(&owner).and_then(|i| ctx.get(*i as usize)) {
                parent = c.clone();
            }
        }
        let get = |n: &str| p.get(r, n).unwrap_or("");
        let mut here = Ctx::None;
        match p.kind(r) {
            "version" => {
                let v = get("version").to_string();
                if v.starts_with("9.") || v.starts_with("8.") {
                    cfg.ftos = true;
                }
                cfg.version = at(v, &src);
            }
            "hostname" => cfg.hostname = at(get("name").to_string(), &src),
            "breakout" => {
                if let (Some(g), Some(n)) = (p.num::<f64>(r, "speed"), p.num::<u32>(r, "count")) {
                    cfg.breakouts
                        .insert(get("port").to_string(), (g, n, src.clone()));
                }
            }
            "interface" => {
                let name = canonical_ifname(get("name"));
                // a name with a space left is not one this module knows
                if !name.contains(' ') {
                    if matches!(
                        name.split(|c: char| c.is_ascii_digit()).next(),
                        Some(
                            "TenGigabitEthernet"
                                | "fortyGigE"
                                | "hundredGigE"
                                | "twentyFiveGigE"
                                | "GigabitEthernet"
                                | "ManagementEthernet"
                        )
                    ) {
                        cfg.ftos = true;
                    }
                    crate::model::push_slim(&mut cfg.interfaces, IfCfg::new(name, &src));
                    here = Ctx::Ifaces(vec![cfg.interfaces.len() - 1]);
                }
            }
            "interface_range" => {
                match expand_range(get("list")) {
                    Ok(names) => {
                        let mut ix = Vec::new();
                        for n in names {
                            let pos = match cfg.iface_index.position(
                                &cfg.interfaces,
                                |f| f.name.as_str(),
                                &n,
                            ) {
                                Some(pos) => pos,
                                None => {
                                    crate::model::push_slim(
                                        &mut cfg.interfaces,
                                        IfCfg::new(n, &src),
                                    );
                                    cfg.interfaces.len() - 1
                                }
                            };
                            ix.push(pos);
                        }
                        here = Ctx::Ifaces(ix);
                    }
                    Err(why) => {
                        // Not expanded: reported with its line, and its statements go to no port
                        // (not to the block above it).
                        cfg.unread.push((src.clone(), why));
                        here = Ctx::Ifaces(Vec::new());
                    }
                }
            }
            "shutdown" => {
                for f in ifaces(&mut cfg, &parent) {
                    f.shutdown = at(p.get(r, "no").is_none(), &src);
                }
            }
            "switchport" => {
                for f in ifaces(&mut cfg, &parent) {
                    f.switchport = at(p.get(r, "no").is_none(), &src);
                }
            }
            "ip_address" => {
                for f in ifaces(&mut cfg, &parent) {
                    f.ip_address.get_or_insert(src.clone());
                }
            }
            "mtu" => {
                if let Some(m) = p.num::<u32>(r, "mtu") {
                    for f in ifaces(&mut cfg, &parent) {
                        f.mtu = at(m, &src);
                    }
                }
            }
            "ip_mtu" => {
                if let Some(m) = p.num::<u32>(r, "mtu") {
                    for f in ifaces(&mut cfg, &parent) {
                        f.ip_mtu = at(m, &src);
                    }
                }
            }
            "speed" => {
                // OS10 `speed 100000` (Mb/s), `speed auto`.
                let v = util::speed_gbps(get("speed"));
                for f in ifaces(&mut cfg, &parent) {
                    f.speed = at(v, &src);
                }
            }
            "channel_group" => {
                if let Some(n) = p.num::<u32>(r, "id") {
                    for f in ifaces(&mut cfg, &parent) {
                        f.lag = at(n, &src);
                    }
                }
            }
            "lacp_block" => {
                if let Ctx::Ifaces(ix) = &parent {
                    here = Ctx::Lacp(ix.clone());
                }
            }
            "lacp_member" => {
                if let (Ctx::Lacp(ix), Some(n)) = (&parent, p.num::<u32>(r, "id")) {
                    for f in ifaces(&mut cfg, &Ctx::Ifaces(ix.clone())) {
                        f.lag = at(n, &src);
                    }
                }
            }
            "channel_member" => {
                let (ms, refused) = expand_members(get("list"));
                if let Some(why) = refused {
                    cfg.unread.push((src.clone(), why));
                }
                for f in ifaces(&mut cfg, &parent) {
                    f.members
                        .extend(ms.iter().map(|m| (m.clone(), src.clone())));
                }
            }
            "flowcontrol" => {
                let on = get("state") == "on";
                let rx = get("dir") == "receive";
                for f in ifaces(&mut cfg, &parent) {
                    if rx {
                        f.fc_rx = at(on, &src);
                    } else {
                        f.fc_tx = at(on, &src);
                    }
                }
            }
            "flowcontrol_rxtx" => {
                let (rx, tx) = (get("rx") == "on", get("tx") == "on");
                for f in ifaces(&mut cfg, &parent) {
                    f.fc_rx = at(rx, &src);
                    f.fc_tx = at(tx, &src);
                }
            }
            "pfc_mode" => {
                let mode = match (p.get(r, "no"), p.get(r, "state")) {
                    (Some(_), _) | (None, Some("off")) => "off",
                    (None, Some("on")) => "on",
                    _ => "",
                };
                if !mode.is_empty() {
                    for f in ifaces(&mut cfg, &parent) {
                        f.pfc_mode = at(mode.to_string(), &src);
                    }
                }
            }
            "service_policy" => {
                let ty = p.get(r, "ty").unwrap_or("qos").to_string();
                let name = get("name").to_string();
                cfg.refs
                    .push(("policy-map", format!("{ty} {name}"), r.line));
                let sp = Arc::new(SvcPolicy {
                    dir: get("dir").to_string(),
                    ty,
                    name,
                    src: src.clone(),
                });
                for q in qos_holders(&mut cfg, &parent) {
                    q.add_policy(&sp);
                }
            }
            "ets_mode" => {
                let on = p.get(r, "no").is_none() && p.get(r, "state") != Some("off");
                for q in qos_holders(&mut cfg, &parent) {
                    q.ets = at(on, &src);
                }
            }
            "qos_map_ref" => {
                let name = get("name").to_string();
                cfg.refs
                    .push(("qos-map traffic-class", name.clone(), r.line));
                for q in qos_holders(&mut cfg, &parent) {
                    q.qos_map = at(name.clone(), &src);
                }
            }
            "trust_map_ref" => {
                let kind = get("kind").to_string();
                let name = get("name").to_string();
                if name != "default" {
                    cfg.refs.push((trust_ref_kind(&kind), name.clone(), r.line));
                }
                for q in qos_holders(&mut cfg, &parent) {
                    let slot = if kind == "dscp" {
                        &mut q.trust_dscp
                    } else {
                        &mut q.trust_dot1p
                    };
                    *slot = at(name.clone(), &src);
                }
            }
            "dcb_map_ref" => {
                let name = get("name").to_string();
                cfg.refs.push(("dcb-map", name.clone(), r.line));
                for f in ifaces(&mut cfg, &parent) {
                    f.dcb_map = at(name.clone(), &src);
                }
            }
            "service_class_dot1p" => match &parent {
                Ctx::Ifaces(_) => {
                    for f in ifaces(&mut cfg, &parent) {
                        f.dot1p_class = Some(src.clone());
                    }
                }
                _ => cfg.dot1p_class = Some(src.clone()),
            },
            "system_qos" => {
                if cfg.system.is_none() {
                    cfg.system = Some((src.clone(), QosStmts::default()));
                }
                here = Ctx::System;
            }
            "wred" => {
                let name = get("name").to_string();
                cfg.wreds.entry(name.clone()).or_default();
                here = Ctx::Wred(name);
            }
            "wred_color" => {
                if let (Ctx::Wred(n), "green") = (&parent, get("color")) {
                    let (Some(min), Some(max), Some(prob)) = (
                        p.num::<u64>(r, "min"),
                        p.num::<u64>(r, "max"),
                        p.num::<f64>(r, "prob"),
                    ) else {
                        continue_record(&mut ctx, here);
                        continue;
                    };
                    if let Some(w) = cfg.wreds.get_mut(n) {
                        w.green = Some((min, max, prob, src.clone()));
                    }
                }
            }
            "wred_ecn" => {
                if let Ctx::Wred(n) = &parent
                    && let Some(w) = cfg.wreds.get_mut(n)
                {
                    w.ecn = Some(src.clone());
                }
            }
            "class_map" => {
                cfg.class_maps.push(ClassMap {
                    ty: get("ty").to_string(),
                    name: get("name").to_string(),
                    match_all: p.get(r, "how") == Some("match-all"),
                    matches: Vec::new(),
                });
                here = Ctx::ClassMap(cfg.class_maps.len() - 1);
            }
            k @ ("cm_match_group" | "cm_match_queue" | "cm_match_dscp" | "cm_match_cos"
            | "cm_match_other") => {
                if let Ctx::ClassMap(ci) = parent {
                    let negated = p.get(r, "not").is_some();
                    let m = match k {
                        "cm_match_group" => list(get("list"), 7).map(Match::Group),
                        "cm_match_queue" => list(get("list"), 7).map(Match::Queue),
                        "cm_match_dscp" if !negated => list(get("list"), 63).map(Match::Dscp),
                        "cm_match_cos" if !negated => list(get("list"), 7).map(|_| Match::Cos),
                        _ => Some(Match::Other),
                    };
                    if let Some(cm) = cfg.class_maps.get_mut(ci) {
                        cm.matches.push(m.unwrap_or(Match::Other));
                    }
                }
            }
            "policy_map" => {
                cfg.policy_maps.push(PolicyMap {
                    ty: p.get(r, "ty").unwrap_or("qos").to_string(),
                    name: get("name").to_string(),
                    classes: Vec::new(),
                });
                here = Ctx::PolicyMap(cfg.policy_maps.len() - 1);
            }
            "pm_class" => {
                if let Ctx::PolicyMap(pi) = parent
                    && let Some(pm) = cfg.policy_maps.get_mut(pi)
                {
                    let name = get("name").to_string();
                    if name != "class-default" && name != "class-trust" {
                        let ty = pm.ty.clone();
                        cfg.refs.push((class_ref_kind(&ty), name.clone(), r.line));
                    }
                    pm.classes.push(PClass {
                        name,
                        src: src.clone(),
                        pause: None,
                        pfc_cos: None,
                        bandwidth: None,
                        priority: None,
                        wred: None,
                        set_dscp: None,
                        set_group: None,
                        trust: None,
                    });
                    here = Ctx::PClass(pi, pm.classes.len() - 1);
                }
            }
            k @ ("pm_pause" | "pm_pfc_cos" | "pm_bandwidth" | "pm_priority" | "pm_wred"
            | "pm_set_group" | "pm_set_dscp" | "pm_trust") => {
                let Ctx::PClass(pi, ci) = parent else {
                    continue_record(&mut ctx, here);
                    continue;
                };
                if k == "pm_wred" {
                    cfg.refs.push(("wred", get("name").to_string(), r.line));
                }
                let Some(c) = cfg
                    .policy_maps
                    .get_mut(pi)
                    .and_then(|pm| pm.classes.get_mut(ci))
                else {
                    continue_record(&mut ctx, here);
                    continue;
                };
                match k {
                    "pm_pause" => {
                        let kb = match (
                            p.num::<u64>(r, "size"),
                            p.num::<u64>(r, "xoff"),
                            p.num::<u64>(r, "xon"),
                        ) {
                            (Some(s), Some(x), Some(n)) => Some((s, x, n)),
                            _ => None,
                        };
                        c.pause = Some(Pause {
                            kb,
                            src: src.clone(),
                        });
                    }
                    "pm_pfc_cos" => {
                        if let Some(l) = list(get("list"), 7) {
                            c.pfc_cos = at(l, &src);
                        }
                    }
                    "pm_bandwidth" => {
                        if let Some(v) = p.num::<f64>(r, "pct") {
                            c.bandwidth = at(v, &src);
                        }
                    }
                    "pm_priority" => c.priority = Some(src.clone()),
                    "pm_wred" => c.wred = at(get("name").to_string(), &src),
                    "pm_set_dscp" => {
                        if let Some(v) = dscp_value(get("value")) {
                            c.set_dscp = at(v, &src);
                        }
                    }
                    "pm_set_group" => {
                        if let Ok(g) = get("group").parse::<u8>()
                            && g < 8
                        {
                            c.set_group = at(g, &src);
                        }
                    }
                    "pm_trust" => {
                        let kind = if get("kind") == "dot1p" {
                            "dot1p"
                        } else {
                            "dscp"
                        };
                        c.trust = at(kind.to_string(), &src);
                    }
                    _ => {}
                }
            }
            "trust_map" => {
                let key = (get("kind").to_string(), get("name").to_string());
                cfg.trust_maps.entry(key.clone()).or_insert(TrustMap {
                    entries: Vec::new(),
                });
                here = Ctx::TrustMap(key.0, key.1);
            }
            "trust_entry" => {
                if let Ctx::TrustMap(kind, name) = &parent {
                    let max = if kind == "dscp" { 63 } else { 7 };
                    if let (Some(tc), Some(l)) = (
                        p.num::<u8>(r, "tc").filter(|t| *t < 8),
                        list(get("list"), max),
                    ) && get("kind") == kind
                        && let Some(m) = cfg.trust_maps.get_mut(&(kind.clone(), name.clone()))
                    {
                        m.entries.push((tc, l, src.clone()));
                    }
                }
            }
            "tcq_map" => {
                let name = get("name").to_string();
                cfg.tcq_maps.entry(name.clone()).or_default();
                here = Ctx::TcqMap(name);
            }
            "tcq_entry" => {
                if let Ctx::TcqMap(name) = &parent
                    && let (Some(q), Some(l)) = (
                        p.num::<u8>(r, "queue").filter(|q| *q < 8),
                        list(get("list"), 7),
                    )
                    && let Some(m) = cfg.tcq_maps.get_mut(name)
                {
                    m.push((q, l, src.clone()));
                }
            }
            "dcb_enable" => {
                cfg.ftos = true;
                cfg.dcb_enable = at(p.get(r, "no").is_none(), &src);
            }
            "dcb_map" => {
                cfg.ftos = true;
                let name = get("name").to_string();
                cfg.dcb_maps.entry(name.clone()).or_default();
                here = Ctx::DcbMap(name);
            }
            "dcb_pg" => {
                if let Ctx::DcbMap(name) = &parent
                    && let (Some(pg), Some(bw)) = (p.num::<u8>(r, "pg"), p.num::<u32>(r, "bw"))
                    && let Some(m) = cfg.dcb_maps.get_mut(name)
                {
                    m.pgs.insert(pg, (bw, get("pfc") == "on", src.clone()));
                }
            }
            "dcb_pgid" => {
                if let Ctx::DcbMap(name) = &parent {
                    let ids: Option<Vec<u8>> = get("list")
                        .split(' ')
                        .map(|x| x.parse::<u8>().ok())
                        .collect();
                    if let (Some(ids), Some(m)) = (ids, cfg.dcb_maps.get_mut(name)) {
                        m.pgid = at(ids, &src);
                    }
                }
            }
            _ => {}
        }
        if r.parent.is_none() && !indented(&indent, r.line) {
            top_at_line.insert(r.line, ctx.len() as u32);
        }
        ctx.push(here);
    }
    cfg
}

/// Keep `ctx` aligned with the records when a record is skipped early.
fn continue_record(ctx: &mut Vec<Ctx>, here: Ctx) {
    ctx.push(here);
}

fn trust_ref_kind(kind: &str) -> &'static str {
    if kind == "dscp" {
        "trust dscp-map"
    } else {
        "trust dot1p-map"
    }
}

fn class_ref_kind(ty: &str) -> &'static str {
    match ty {
        "network-qos" => "class-map type network-qos",
        "queuing" => "class-map type queuing",
        _ => "class-map type qos",
    }
}

/// References to objects the config never defines: (kind, name, line).
pub(super) fn undefined_refs(cfg: &Cfg) -> Vec<(String, String, u32)> {
    let mut out = Vec::new();
    for (kind, name, line) in &cfg.refs {
        let defined = match *kind {
            "policy-map" => match name.split_once(' ') {
                Some((ty, n)) => cfg.policy_map(ty, n).is_some(),
                None => true,
            },
            "qos-map traffic-class" => cfg.tcq_maps.contains_key(name),
            "trust dscp-map" => cfg
                .trust_maps
                .contains_key(&("dscp".to_string(), name.clone())),
            "trust dot1p-map" => cfg
                .trust_maps
                .contains_key(&("dot1p".to_string(), name.clone())),
            "dcb-map" => cfg.dcb_maps.contains_key(name),
            "wred" => cfg.wreds.contains_key(name),
            k => {
                let ty = k.trim_start_matches("class-map type ");
                cfg.class_map(ty, name).is_some()
            }
        };
        if !defined {
            let shown = match *kind {
                "policy-map" => name
                    .split_once(' ')
                    .map(|(t, n)| format!("{n} (type {t})"))
                    .unwrap_or(name.clone()),
                _ => name.clone(),
            };
            out.push((kind.to_string(), shown, *line));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert_eq!(
            expand_range("ethernet1/1/1-1/1/3,1/1/9"),
            Ok(vec![
                "ethernet1/1/1".to_string(),
                "ethernet1/1/2".to_string(),
                "ethernet1/1/3".to_string(),
                "ethernet1/1/9".to_string()
            ])
        );
        assert_eq!(
            expand_range("ethernet 1/1/5-1/1/6"),
            Ok(vec![
                "ethernet1/1/5".to_string(),
                "ethernet1/1/6".to_string()
            ])
        );
        assert!(expand_range("bogus").is_err());
        assert_eq!(
            expand_members("TenGigabitEthernet 0/45-47"),
            (
                vec![
                    "TenGigabitEthernet0/45".to_string(),
                    "TenGigabitEthernet0/46".to_string(),
                    "TenGigabitEthernet0/47".to_string()
                ],
                None
            )
        );
        // A part not expanded is said, the rest kept.
        let (ms, why) = expand_members("fortyGigE 0/48,52-50,56");
        assert_eq!(ms, ["fortyGigE0/48", "fortyGigE0/56"]);
        assert!(why.is_some_and(|w| w.contains("52-50")));
        assert_eq!(dscp_value("af31"), Some(26));
        assert_eq!(dscp_value("cs6"), Some(48));
        assert_eq!(dscp_value("cs32"), None);
        assert_eq!(dscp_value("x"), None);
    }

    #[test]
    fn owners() {
        let o = block_owners("interface a\n x\n!\n y\nfoo\n z\n");
        assert_eq!((o[2], o[4], o[6]), (1, 1, 5));
    }
}
