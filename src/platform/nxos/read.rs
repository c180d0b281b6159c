//! NX-OS configuration records → definitions (class-maps, policy-maps, system qos, watchdog
//! globals) and interface blocks, each remembering the file and line it came from.
//!
//! `show running-config` and `show running-config interface` are read into one `Config`; the
//! former also marks the config as complete (`full`), which is what lets `qos` apply NX-OS
//! defaults for global lines that are absent and report references to undefined objects.

use super::{canonical_ifname, if_kind};
use crate::model::Src;
use crate::parser::Record;
use crate::platform::Output;
use crate::platform::util::num_list;

/// Where a statement is: the output it came from (index into the outputs) and its line.
#[derive(Debug, Clone)]
pub struct At {
    pub out: usize,
    pub src: Src,
}

/// A value with the line that set it.
pub type Val<T> = Option<(T, Src)>;

#[derive(Debug, Clone)]
pub enum Match {
    Dscp(Vec<u8>),
    Cos(Vec<u8>),
    QosGroup(Vec<u8>),
    /// ACL, protocol...: classifies on something this tool does not model.
    Other,
}

#[derive(Debug)]
pub struct ClassMap {
    /// qos | queuing | network-qos
    pub ty: String,
    pub name: String,
    pub match_all: bool,
    pub matches: Vec<Match>,
    /// The line of each entry of `matches`.
    pub match_src: Vec<Src>,
}

#[derive(Debug, Clone)]
pub struct Wred {
    pub min: Option<u64>,
    pub max: Option<u64>,
    pub prob: Option<f64>,
    pub ecn: bool,
    pub src: Src,
}

#[derive(Debug, Clone)]
pub struct PauseBuffer {
    pub size: u64,
    pub xoff: u64,
    pub xon: u64,
    pub src: Src,
}

/// A `class` inside a policy-map with its actions ([`PClassActions`], read and written as
/// fields of the class through `Deref`). A bare `class` line sets none: held apart, they
/// were ~360 of its ~420 bytes, from a 10-byte line (issue 19: a file of `class` lines).
#[derive(Debug)]
pub struct PClass {
    pub name: String,
    pub at: At,
    actions: Option<Box<PClassActions>>,
}

impl PClass {
    pub fn new(name: String, at: At) -> Self {
        PClass {
            name,
            at,
            actions: None,
        }
    }
}

// The class's actions (none written: all unset).
crate::boxed_part!(PClass, actions, PClassActions);

/// What the lines under a policy-map's `class` set.
#[derive(Debug, Default)]
pub struct PClassActions {
    pub qos_group: Val<u8>,
    /// `set dscp` (or `set precedence`, as the DSCP it produces).
    pub set_dscp: Val<u8>,
    pub priority: Option<Src>,
    /// (percent, remaining?)
    pub bandwidth: Val<(f64, bool)>,
    pub wred: Option<Wred>,
    pub mtu: Val<u32>,
    pub pause_cos: Val<Vec<u8>>,
    pub pause_nodrop: Option<Src>,
    pub pause_buffer: Option<PauseBuffer>,
}

#[derive(Debug)]
pub struct PolicyMap {
    pub ty: String,
    pub name: String,
    pub classes: Vec<PClass>,
}

#[derive(Debug, Clone)]
pub struct ServicePolicy {
    /// qos | queuing | network-qos
    pub ty: String,
    /// input | output (none for network-qos)
    pub dir: Option<String>,
    pub name: String,
    pub at: At,
}

/// One interface as the config describes it. A bare `interface` line sets nothing but its
/// name and line: what the stanza's lines set is held apart, only by the stanzas that set one
/// (basics [`IfLines`], read as fields of the block through `Deref`; QoS [`IfConf::qos`]).
/// Inline, the basics were 100 of the block's 150 bytes, every block alive while the ports are
/// built (issue 19: 64 KiB of bare stanzas, about 2,800 blocks).
#[derive(Debug)]
pub struct IfConf {
    pub name: String,
    pub at: At,
    lines: Option<Box<IfLines>>,
    /// Flow control, PFC, watchdog and service policies: written only for the interfaces whose
    /// stanza sets one (a bare `interface` line holds none), so kept apart ([`IfConf::qos`]).
    qos: Option<Box<IfQos>>,
}

/// The basic lines of one interface stanza (admin state, mode, speed, MTU, LAG).
#[derive(Debug, Default)]
pub struct IfLines {
    pub admin_up: Val<bool>,
    pub switchport: Val<bool>,
    /// A line only valid in one mode (`switchport mode ...` = L2, `ip address` = L3), used
    /// when `switchport` / `no switchport` is not written.
    pub mode_hint: Val<bool>,
    /// `speed auto` is `None` inside.
    pub speed_gbps: Val<Option<f64>>,
    pub mtu: Val<u32>,
    pub channel_group: Val<u32>,
}

// The stanza's basic lines (none written: all unset).
crate::boxed_part!(IfConf, lines, IfLines);

/// The QoS lines of one interface stanza.
#[derive(Debug, Default)]
pub struct IfQos {
    pub fc_rx: Val<bool>,
    pub fc_tx: Val<bool>,
    pub pfc_mode: Val<String>,
    pub wd_enable: Val<bool>,
    pub wd_mult: Val<u32>,
    /// One shared copy per `service-policy` line: the ports of a range share it (issue 19:
    /// a copy in a list of four places each was ~400 bytes of each of 1,024 ports that one
    /// 124-byte `interface Ethernet2/5-1136` stanza names).
    pub policies: Vec<std::sync::Arc<ServicePolicy>>,
}

impl IfConf {
    fn new(name: String, at: At) -> Self {
        IfConf {
            name,
            at,
            lines: None,
            qos: None,
        }
    }

    /// The stanza's QoS lines (none written: all unset).
    pub fn qos(&self) -> &IfQos {
        static NONE: std::sync::LazyLock<IfQos> = std::sync::LazyLock::new(IfQos::default);
        self.qos.as_deref().unwrap_or(&NONE)
    }

    fn qos_mut(&mut self) -> &mut IfQos {
        self.qos.get_or_insert_with(Box::default)
    }

    pub fn kind(&self) -> &'static str {
        if_kind(&self.name)
    }

    /// The interface's own service-policy of a type and direction.
    pub fn policy(&self, ty: &str, dir: Option<&str>) -> Option<&ServicePolicy> {
        self.qos()
            .policies
            .iter()
            .rev()
            .find(|p| p.ty == ty && p.dir.as_deref() == dir)
            .map(|p| &**p)
    }
}

/// Everything the config outputs of one device say.
#[derive(Debug, Default)]
pub struct Config {
    /// Some config output was read.
    pub seen: bool,
    /// A whole running config was read (not only interface sections): absent global lines
    /// mean NX-OS defaults, and references to undefined objects are real.
    pub full: bool,
    pub hostname: Val<String>,
    pub version: Val<String>,
    /// `system default switchport` / `no system default switchport`.
    pub sysdef_switchport: Val<bool>,
    /// `system default switchport shutdown` / `no ...`.
    pub sysdef_shutdown: Val<bool>,
    pub class_maps: Vec<ClassMap>,
    pub policy_maps: Vec<PolicyMap>,
    pub system: Vec<ServicePolicy>,
    pub wd_enable: Val<bool>,
    pub wd_interval: Val<u32>,
    pub wd_shutdown_mult: Val<u32>,
    pub wd_restore_mult: Val<u32>,
    pub interfaces: Vec<IfConf>,
    /// Finds an entry of `interfaces` by name (a scan per line was quadratic in ports).
    index: crate::model::name_index::NameIndex,
    /// `interface` lines whose name list could not be expanded: (output index, line, why).
    /// Their blocks configure nothing, and the line is reported as unrecognized.
    pub unexpanded: Vec<(usize, u32, String)>,
    /// The names (by a 64-bit hash) the config gives interfaces once `interfaces` holds as
    /// many as the device keeps ([`crate::platform::util::port_limit`]): counted, each once,
    /// and left out, as the device counts its own (PARSE013). The ranges of a 1 KB config
    /// named 16,500 ports, each held here with its lines (4.5 MB) though the device keeps
    /// 1,046 (issue 19).
    pub not_kept: std::collections::HashSet<u64>,
    /// Where a line about an interface not kept writes: replaced for each new name, never read.
    spill: Option<Box<IfConf>>,
}

/// Expand an `interface` argument (`Ethernet1/1`, `Ethernet1/1-4, Ethernet1/10`,
/// `Ethernet 1/17-1/32`, `ethernet 1/1/1 - 2`) into canonical names, or say why it cannot be.
pub fn expand_ifspec(spec: &str) -> Result<Vec<String>, String> {
    crate::platform::util::expand_if_list(spec, canonical_ifname)
}

/// DSCP values from a `match dscp` / `set dscp` argument: numbers, ranges and names
/// (`26`, `24-31`, `10,12`, `af31`, `ef`, `cs6`, `default`).
pub fn dscp_list(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    for part in s.split([',', ' ']).filter(|p| !p.is_empty()) {
        if part.chars().all(|c| c.is_ascii_digit() || c == '-') {
            out.extend(num_list(part, 63)?.into_iter().map(|v| v as u8));
        } else {
            out.push(dscp_name(part)?);
        }
    }
    out.sort_unstable();
    out.dedup();
    if out.is_empty() { None } else { Some(out) }
}

fn dscp_name(s: &str) -> Option<u8> {
    let s = s.to_ascii_lowercase();
    match s.as_str() {
        "ef" => return Some(46),
        "default" => return Some(0),
        _ => {}
    }
    if let Some(n) = s.strip_prefix("cs") {
        let n: u8 = n.parse().ok()?;
        return (n <= 7).then(|| n * 8);
    }
    if let Some(n) = s.strip_prefix("af") {
        let b = n.as_bytes();
        if b.len() == 2 && (b'1'..=b'4').contains(&b[0]) && (b'1'..=b'3').contains(&b[1]) {
            return Some((b[0] - b'0') * 8 + (b[1] - b'0') * 2);
        }
    }
    None
}

fn small_list(s: &str, max: u32) -> Option<Vec<u8>> {
    let v = num_list(s, max)?;
    if v.is_empty() {
        None
    } else {
        Some(v.into_iter().map(|x| x as u8).collect())
    }
}

impl Config {
    pub fn class_map(&self, ty: &str, name: &str) -> Option<&ClassMap> {
        self.class_maps
            .iter()
            .rev()
            .find(|c| c.ty == ty && c.name == name)
    }

    pub fn policy_map(&self, ty: &str, name: &str) -> Option<&PolicyMap> {
        self.policy_maps
            .iter()
            .rev()
            .find(|p| p.ty == ty && p.name == name)
    }

    /// The system qos service-policy of a type and direction.
    pub fn system_policy(&self, ty: &str, dir: Option<&str>) -> Option<&ServicePolicy> {
        self.system
            .iter()
            .rev()
            .find(|p| p.ty == ty && p.dir.as_deref() == dir)
    }

    /// Every config output is read: the name index is not needed while the ports are built
    /// from the blocks, nor the room the block list kept to grow (issue 19).
    pub fn finish(&mut self) {
        self.index.clear();
        self.interfaces.shrink_to_fit();
    }

    fn iface_mut(&mut self, name: &str, at: &At) -> &mut IfConf {
        match self
            .index
            .position(&self.interfaces, |i| i.name.as_str(), name)
        {
            Some(p) => &mut self.interfaces[p],
            None if self.interfaces.len() >= crate::platform::util::port_limit() => {
                use std::hash::BuildHasher;
                let h = self.not_kept.hasher().hash_one(name);
                self.not_kept.insert(h);
                if self.spill.as_ref().is_none_or(|s| s.name != name) {
                    self.spill = Some(Box::new(IfConf::new(name.to_string(), at.clone())));
                }
                self.spill
                    .get_or_insert_with(|| Box::new(IfConf::new(name.to_string(), at.clone())))
            }
            None => {
                crate::model::push_slim(
                    &mut self.interfaces,
                    IfConf::new(name.to_string(), at.clone()),
                );
                let last = self.interfaces.len() - 1;
                &mut self.interfaces[last]
            }
        }
    }

    /// Read the records of one config output (index `oi` into the outputs).
    pub fn read(&mut self, oi: usize, o: &Output) {
        self.seen = true;
        if o.cmd.config {
            self.full = true;
        }
        let p = &o.parsed;
        // Open blocks: the latest class-map, policy-map, its class, and interface names.
        let mut cmap: Option<usize> = None;
        let mut pmap: Option<usize> = None;
        let mut pclass: Option<(usize, usize)> = None;
        let mut ifs: Vec<String> = Vec::new();
        for r in &p.records {
            let src = o.src(r.line);
            let at = At {
                out: oi,
                src: src.clone(),
            };
            let parent_kind = p.parent(r).map(|pr| p.kind(pr));
            let get = |n: &str| p.get(r, n).unwrap_or("");
            match p.kind(r) {
                "version" => self.version = Some((get("v").to_string(), src)),
                "hostname" => self.hostname = Some((get("name").to_string(), src)),
                "sysdef" | "no_sysdef" => {
                    let on = p.kind(r) == "sysdef";
                    if p.get(r, "shut").is_some() {
                        self.sysdef_shutdown = Some((on, src));
                    } else {
                        self.sysdef_switchport = Some((on, src));
                    }
                }
                "cmap" => {
                    self.class_maps.push(ClassMap {
                        // "The type qos keyword is optional and is the default" (see apply.rs doc).
                        ty: p.get(r, "type").unwrap_or("qos").to_string(),
                        name: get("name").to_string(),
                        match_all: get("mode") == "match-all",
                        matches: Vec::new(),
                        match_src: Vec::new(),
                    });
                    cmap = Some(self.class_maps.len() - 1);
                }
                "match" | "match_other" => {
                    let Some(ci) = cmap else { continue };
                    let val = get("val");
                    let m = match (p.kind(r), get("what")) {
                        ("match", "dscp") => dscp_list(val).map(Match::Dscp),
                        ("match", "precedence") => small_list(val, 7).map(|ps| {
                            Match::Dscp(ps.iter().flat_map(|&pr| (pr * 8)..(pr * 8 + 8)).collect())
                        }),
                        ("match", "cos") => small_list(val, 7).map(Match::Cos),
                        ("match", "qos-group") => small_list(val, 7).map(Match::QosGroup),
                        _ => Some(Match::Other),
                    };
                    // A value we cannot read classifies on something unknown.
                    self.class_maps[ci].matches.push(m.unwrap_or(Match::Other));
                    self.class_maps[ci].match_src.push(src.clone());
                }
                "pmap" => {
                    self.policy_maps.push(PolicyMap {
                        ty: p.get(r, "type").unwrap_or("qos").to_string(),
                        name: get("name").to_string(),
                        classes: Vec::new(),
                    });
                    pmap = Some(self.policy_maps.len() - 1);
                    pclass = None;
                }
                "pclass" => {
                    let Some(pi) = pmap else { continue };
                    self.policy_maps[pi]
                        .classes
                        .push(PClass::new(get("name").to_string(), at));
                    pclass = Some((pi, self.policy_maps[pi].classes.len() - 1));
                }
                "system_qos" => {}
                "service_policy" => {
                    let sp = ServicePolicy {
                        ty: get("type").to_string(),
                        dir: p.get(r, "dir").map(String::from),
                        name: get("name").to_string(),
                        at: at.clone(),
                    };
                    if parent_kind == Some("interface") {
                        let sp = std::sync::Arc::new(sp);
                        for n in &ifs {
                            let list = &mut self.iface_mut(n, &at).qos_mut().policies;
                            // a port has a policy or two: no room kept for more
                            list.reserve_exact(1);
                            list.push(sp.clone());
                        }
                    } else {
                        self.system.push(sp);
                    }
                }
                "wd_enable" => {
                    let v = Some((get("v") == "on", src));
                    if parent_kind == Some("interface") {
                        for n in &ifs {
                            self.iface_mut(n, &at).qos_mut().wd_enable = v.clone();
                        }
                    } else {
                        self.wd_enable = v;
                    }
                }
                "wd_interval" => self.wd_interval = p.num(r, "v").map(|v| (v, src)),
                "wd_shutdown_mult" => self.wd_shutdown_mult = p.num(r, "v").map(|v| (v, src)),
                "wd_restore_mult" => self.wd_restore_mult = p.num(r, "v").map(|v| (v, src)),
                "interface" => {
                    ifs = match expand_ifspec(get("spec")) {
                        Ok(v) => v,
                        Err(why) => {
                            self.unexpanded.push((oi, r.line, why));
                            Vec::new()
                        }
                    };
                    for n in &ifs {
                        self.iface_mut(n, &at);
                    }
                }
                "mtu" if parent_kind == Some("pclass") => {
                    if let (Some((pi, ci)), Some(v)) = (pclass, p.num::<u32>(r, "v")) {
                        self.policy_maps[pi].classes[ci].mtu = Some((v, src));
                    }
                }
                kind @ ("set_qos_group" | "set_dscp" | "set_prec" | "priority" | "bandwidth"
                | "wred" | "wred_profile" | "pause_cos" | "pause_nodrop"
                | "pause_buffer" | "no_pause") => {
                    let Some((pi, ci)) = pclass else { continue };
                    let c = &mut self.policy_maps[pi].classes[ci];
                    read_class_action(c, kind, p, r, src);
                }
                kind => {
                    for n in ifs.clone() {
                        let i = self.iface_mut(&n, &at);
                        read_iface_line(i, kind, p, r, &src);
                    }
                }
            }
        }
    }
}

fn read_class_action(c: &mut PClass, kind: &str, p: &crate::parser::Parsed, r: &Record, src: Src) {
    match kind {
        "set_qos_group" => c.qos_group = p.num::<u8>(r, "v").filter(|v| *v < 8).map(|v| (v, src)),
        "set_dscp" => {
            c.set_dscp = p
                .get(r, "v")
                .and_then(dscp_list)
                .filter(|l| l.len() == 1)
                .map(|l| (l[0], src))
        }
        "set_prec" => c.set_dscp = p.num::<u8>(r, "v").filter(|v| *v < 8).map(|v| (v * 8, src)),
        "priority" => c.priority = Some(src),
        "bandwidth" => {
            c.bandwidth = p
                .num::<f64>(r, "pct")
                .filter(|v| (0.0..=100.0).contains(v))
                .map(|v| ((v, p.get(r, "rem").is_some()), src))
        }
        "wred" => {
            let bytes = |n: &str, u: &str| {
                p.num::<f64>(r, n)
                    .and_then(|v| crate::platform::util::to_bytes(v, p.get(r, u).unwrap_or("")))
            };
            c.wred = Some(Wred {
                min: bytes("min", "minu"),
                max: bytes("max", "maxu"),
                prob: p.num(r, "prob"),
                ecn: p.get(r, "ecn").is_some(),
                src,
            });
        }
        "wred_profile" => {
            c.wred = Some(Wred {
                min: None,
                max: None,
                prob: None,
                ecn: p.get(r, "ecn").is_some(),
                src,
            })
        }
        "pause_cos" => {
            c.pause_cos = p
                .get(r, "v")
                .and_then(|v| small_list(v, 7))
                .map(|v| (v, src))
        }
        "pause_nodrop" => c.pause_nodrop = Some(src),
        "no_pause" => {
            c.pause_cos = None;
            c.pause_nodrop = None;
            c.pause_buffer = None;
        }
        "pause_buffer" => {
            if let (Some(size), Some(xoff), Some(xon)) =
                (p.num(r, "size"), p.num(r, "xoff"), p.num(r, "xon"))
            {
                c.pause_buffer = Some(PauseBuffer {
                    size,
                    xoff,
                    xon,
                    src,
                });
            }
        }
        _ => {}
    }
}

fn read_iface_line(i: &mut IfConf, kind: &str, p: &crate::parser::Parsed, r: &Record, src: &Src) {
    let s = || src.clone();
    match kind {
        "shutdown" => i.admin_up = Some((false, s())),
        "no_shutdown" => i.admin_up = Some((true, s())),
        "switchport" => i.switchport = Some((true, s())),
        "no_switchport" => i.switchport = Some((false, s())),
        "l2_line" if i.mode_hint.is_none() => i.mode_hint = Some((true, s())),
        "l3_line" if i.mode_hint.is_none() => i.mode_hint = Some((false, s())),
        "speed" => {
            let v = p.get(r, "v").unwrap_or("auto");
            let g = if v == "auto" {
                None
            } else {
                crate::platform::util::speed_gbps(v)
            };
            i.speed_gbps = Some((g, s()));
        }
        "mtu" => i.mtu = p.num(r, "v").map(|v| (v, s())),
        "channel_group" => i.channel_group = p.num(r, "n").map(|v| (v, s())),
        "flowcontrol" => {
            let v = Some((p.get(r, "v") == Some("on"), s()));
            if p.get(r, "dir") == Some("receive") {
                i.qos_mut().fc_rx = v;
            } else {
                i.qos_mut().fc_tx = v;
            }
        }
        "pfc_mode" => i.qos_mut().pfc_mode = p.get(r, "v").map(|v| (v.to_string(), s())),
        "wd_if_mult" => i.qos_mut().wd_mult = p.num(r, "v").map(|v| (v, s())),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interface_ranges() {
        assert_eq!(expand_ifspec("Ethernet1/1").unwrap(), vec!["Ethernet1/1"]);
        assert_eq!(
            expand_ifspec("Ethernet 1/17-1/32").unwrap().len(),
            16,
            "the range form NX-OS accepts with a space and the stem repeated"
        );
        assert_eq!(
            expand_ifspec("Ethernet1/1/1 - 2").unwrap(),
            vec!["Ethernet1/1/1", "Ethernet1/1/2"]
        );
        assert_eq!(
            expand_ifspec("ethernet 1/1-3, Ethernet1/10").unwrap(),
            vec!["Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/10"]
        );
        assert_eq!(
            expand_ifspec("port-channel10").unwrap(),
            vec!["port-channel10"]
        );
        assert_eq!(expand_ifspec("Vlan10").unwrap(), vec!["Vlan10"]);
        assert!(expand_ifspec("Ethernet1/9-2").is_err());
        assert!(expand_ifspec("Ethernet1/1-999999999").is_err());
        assert!(expand_ifspec("Ethernet1/1-2/4").is_err());
        assert!(expand_ifspec("").is_err());
    }

    #[test]
    fn dscp_values() {
        assert_eq!(dscp_list("26").unwrap(), vec![26]);
        assert_eq!(dscp_list("24-26,46").unwrap(), vec![24, 25, 26, 46]);
        assert_eq!(dscp_list("af31 ef cs6").unwrap(), vec![26, 46, 48]);
        assert_eq!(dscp_list("af11").unwrap(), vec![10]);
        assert!(dscp_list("64").is_none());
        assert!(dscp_list("af51").is_none());
        assert!(dscp_list("bogus").is_none());
        assert!(dscp_list("cs32").is_none());
    }
}
