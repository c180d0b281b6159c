//! The configured intent of a Cumulus switch, whichever form it came in (NVUE YAML or JSON,
//! legacy traffic.conf, NCLU): global QoS settings, named profiles (NVUE profiles and
//! traffic.conf port groups alike), and interfaces with the profiles they use. Every value keeps
//! the line that stated it; nothing here applies a default (`apply` does that).

use crate::model::Src;
use std::collections::BTreeMap;

pub(super) use crate::platform::util::{At, at};

/// `qos roce`: enabled, mode (lossless | lossy | lossless-single-ipool), cable length.
#[derive(Debug, Clone)]
pub(super) struct Roce {
    pub(super) enabled: At<bool>,
    pub(super) mode: Option<At<String>>,
    pub(super) cable_m: Option<At<f64>>,
}

/// `qos mapping <profile>` / traffic.conf classification.
#[derive(Debug, Clone)]
pub(super) struct MapProf {
    /// pcp | dscp | both | port
    pub(super) trust: Option<At<String>>,
    /// (DSCP values, switch priority) in the order written; later lines win.
    pub(super) dscp: Vec<(Vec<u8>, At<u8>)>,
    /// traffic.conf: DSCP values no line names go to the default priority (the file defines
    /// the whole map once it has any DSCP line).
    pub(super) complete: bool,
    /// (802.1p priorities, switch priority) in the order written (NVUE `pcp N switch-priority
    /// M`, traffic.conf `cos_M.priority_source.8021p`).
    pub(super) pcp: Vec<(Vec<u8>, At<u8>)>,
    /// traffic.conf: priorities no 8021p line names go to the default priority.
    pub(super) pcp_complete: bool,
    pub(super) port_default: Option<At<u8>>,
    pub(super) src: Src,
}

/// `qos pfc <profile>` / `qos link-pause <profile>` / traffic.conf pfc and link_pause groups.
#[derive(Debug, Clone)]
pub(super) struct FlowProf {
    /// Switch priorities (PFC only), each with its line.
    pub(super) prios: Vec<At<u8>>,
    pub(super) rx: Option<At<bool>>,
    pub(super) tx: Option<At<bool>>,
    pub(super) cable_m: Option<At<f64>>,
    pub(super) port_buffer: Option<At<u64>>,
    pub(super) xoff: Option<At<u64>>,
    /// Bytes below xoff at which PAUSE stops (NVUE `xon-threshold`, traffic.conf `xon_delta`).
    pub(super) xon_delta: Option<At<u64>>,
    pub(super) src: Src,
}

/// ECN/RED settings of one traffic class (egress queue).
#[derive(Debug, Clone)]
pub(super) struct EcnTc {
    pub(super) ecn: Option<At<bool>>,
    pub(super) red: Option<At<bool>>,
    pub(super) min: Option<At<u64>>,
    pub(super) max: Option<At<u64>>,
    pub(super) prob: Option<At<f64>>,
    pub(super) src: Src,
}

/// `qos congestion-control <profile>` / traffic.conf ecn_red groups.
#[derive(Debug, Clone)]
pub(super) struct EcnProf {
    pub(super) tcs: BTreeMap<u8, EcnTc>,
}

/// Scheduling of one traffic class.
#[derive(Debug, Clone)]
pub(super) struct SchedTc {
    pub(super) strict: Option<At<bool>>,
    pub(super) bw_pct: Option<At<f64>>,
}

/// `qos egress-scheduler <profile>` / traffic.conf egress_sched groups and priority groups.
#[derive(Debug, Clone)]
pub(super) struct SchedProf {
    pub(super) tcs: BTreeMap<u8, SchedTc>,
}

/// `qos remark <profile>` / traffic.conf remark settings.
#[derive(Debug, Clone)]
pub(super) struct RemarkProf {
    /// DSCP rewrite on (rewrite l3 | both; traffic.conf remark set with dscp).
    pub(super) rewrite_dscp: Option<At<bool>>,
    pub(super) sp_dscp: BTreeMap<u8, At<u8>>,
}

/// `qos traffic-pool <name>`.
#[derive(Debug, Clone)]
pub(super) struct Pool {
    pub(super) memory_pct: Option<At<f64>>,
    pub(super) sps: Vec<u8>,
    pub(super) src: Src,
}

/// Profile families an interface can name.
pub(super) const FAMILIES: &[&str] = &[
    "mapping",
    "pfc",
    "link-pause",
    "congestion-control",
    "egress-scheduler",
    "remark",
];

/// The profiles one interface names, per family (at most one each of `FAMILIES`), in the
/// order first named. A short list, not a map: a traffic.conf port set or an NCLU range names
/// hundreds of ports in a few bytes, and a map's first node alone was ~700 bytes a port, most
/// of what a port cost while the config was read (issue 19: Cumulus `traffic.conf` at 41× its
/// size).
#[derive(Debug, Clone, Default)]
pub(super) struct Profiles(Vec<(&'static str, At<String>)>);

impl Profiles {
    pub(super) fn get(&self, family: &str) -> Option<&At<String>> {
        self.0.iter().find(|(f, _)| *f == family).map(|(_, p)| p)
    }
    /// Name `p` for `family`, replacing an earlier name (a later line wins).
    pub(super) fn insert(&mut self, family: &'static str, p: At<String>) {
        match self.0.iter_mut().find(|(f, _)| *f == family) {
            Some(slot) => slot.1 = p,
            None => self.0.push((family, p)),
        }
    }
    /// (family, profile) by family name, as the map they were held in listed them.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&'static str, &At<String>)> {
        let mut v: Vec<_> = self.0.iter().map(|(f, p)| (*f, p)).collect();
        v.sort_by_key(|(f, _)| *f);
        v.into_iter()
    }
}

/// One interface as the config states it.
#[derive(Debug, Clone)]
pub(super) struct IfCfg {
    pub(super) name: String,
    pub(super) src: Src,
    /// NVUE `type` (swp, bond, loopback, eth, svi, sub, peerlink, vxlan).
    pub(super) typ: Option<At<String>>,
    pub(super) mtu: Option<At<u32>>,
    /// Inner `None` = `auto` (negotiated): not a known speed.
    pub(super) speed: Option<At<Option<f64>>>,
    pub(super) admin_up: Option<At<bool>>,
    pub(super) members: Vec<String>,
    pub(super) bridged: Option<Src>,
    /// family → profile name (see `FAMILIES`).
    pub(super) profiles: Profiles,
    pub(super) watchdog: Option<At<bool>>,
    /// Created only because a traffic.conf port set or an NCLU list names it.
    pub(super) implied: bool,
}

/// Everything the config sources of one device state.
#[derive(Debug, Default)]
pub(super) struct Cfg {
    pub(super) hostname: Option<At<String>>,
    pub(super) version: Option<At<String>>,
    /// An NVUE revision was read: NVUE defaults apply to what it leaves out.
    pub(super) nvue: Option<Src>,
    /// A traffic.conf was read: its (3.x/4.x) semantics apply.
    pub(super) legacy: Option<Src>,
    pub(super) roce: Option<Roce>,
    pub(super) mapping: BTreeMap<String, MapProf>,
    pub(super) pfc: BTreeMap<String, FlowProf>,
    pub(super) pause: BTreeMap<String, FlowProf>,
    pub(super) ecn: BTreeMap<String, EcnProf>,
    pub(super) sched: BTreeMap<String, SchedProf>,
    pub(super) remark: BTreeMap<String, RemarkProf>,
    /// `qos egress-queue-mapping default-global`: switch priority → traffic class.
    pub(super) sp_tc: BTreeMap<u8, At<u8>>,
    pub(super) pools: BTreeMap<String, Pool>,
    pub(super) wd_poll_ms: Option<At<f64>>,
    pub(super) wd_robustness: Option<At<f64>>,
    /// Only [`Cfg::iface`] adds to it (it keeps `iface_at` in step).
    pub(super) ifaces: Vec<IfCfg>,
    /// Where each name is in `ifaces`: a lookup per line instead of a scan, which made a file
    /// naming n interfaces cost n² (issue 19: NCLU lines replicated to 256 KiB took 142 s).
    /// Keyed by a hash, not a copy of the name (the device's own port index).
    iface_at: crate::model::name_index::NameIndex,
    /// References to profiles the config never defines: (output index, family, name, line).
    pub(super) refs: Vec<(usize, &'static str, String, u32)>,
    /// Lines read but not understood (an interface range that cannot be expanded): where, why.
    pub(super) unread: Vec<(Src, String)>,
    /// New interfaces named after `ifaces` had as many as the device keeps
    /// ([`crate::platform::util::port_limit`]): counted (a run of uses of one name once) and
    /// left out, as the device counts its own (PARSE013). A 521-byte NCLU file naming 3,132
    /// ports held 2.7 MB here before (issue 19).
    pub(super) not_kept: u32,
    /// Where a line about an interface not kept writes: replaced for each new name, never read.
    spill: Option<Box<IfCfg>>,
}

impl Cfg {
    /// The interface `name`, created at `src` when new.
    pub(super) fn iface(&mut self, name: &str, src: &Src, implied: bool) -> &mut IfCfg {
        if let Some(pos) = self.iface_at.position(&self.ifaces, |i| &i.name, name) {
            let i = &mut self.ifaces[pos];
            if i.implied && !implied {
                i.implied = false;
                i.src = src.clone();
            }
            return i;
        }
        let new = IfCfg {
            name: name.to_string(),
            src: src.clone(),
            typ: None,
            mtu: None,
            speed: None,
            admin_up: None,
            members: Vec::new(),
            bridged: None,
            profiles: Profiles::default(),
            watchdog: None,
            implied,
        };
        if self.ifaces.len() >= crate::platform::util::port_limit() {
            if self.spill.as_ref().is_none_or(|s| s.name != name) {
                self.not_kept = self.not_kept.saturating_add(1);
            }
            return self.spill.insert(Box::new(new));
        }
        // Grown by a sixteenth, not doubled (as the device's own ports): NCLU ranges name
        // hundreds of ports in a few bytes (issue 19).
        crate::model::push_slim(&mut self.ifaces, new);
        let last = self.ifaces.len() - 1;
        &mut self.ifaces[last]
    }

    /// Whether a profile of `family` named `name` is defined (`default-global` always is).
    pub(super) fn has_profile(&self, family: &str, name: &str) -> bool {
        name == "default-global"
            || match family {
                "mapping" => self.mapping.contains_key(name),
                "pfc" => self.pfc.contains_key(name),
                "link-pause" => self.pause.contains_key(name),
                "congestion-control" => self.ecn.contains_key(name),
                "egress-scheduler" => self.sched.contains_key(name),
                "remark" => self.remark.contains_key(name),
                _ => true,
            }
    }
}

/// A new empty flow-control profile.
pub(super) fn flow_prof(src: &Src) -> FlowProf {
    FlowProf {
        prios: Vec::new(),
        rx: None,
        tx: None,
        cable_m: None,
        port_buffer: None,
        xoff: None,
        xon_delta: None,
        src: src.clone(),
    }
}

pub(super) fn ecn_tc(src: &Src) -> EcnTc {
    EcnTc {
        ecn: None,
        red: None,
        min: None,
        max: None,
        prob: None,
        src: src.clone(),
    }
}

pub(super) fn sched_tc() -> SchedTc {
    SchedTc {
        strict: None,
        bw_pct: None,
    }
}

pub(super) fn map_prof(src: &Src) -> MapProf {
    MapProf {
        trust: None,
        dscp: Vec::new(),
        complete: false,
        pcp: Vec::new(),
        pcp_complete: false,
        port_default: None,
        src: src.clone(),
    }
}

pub(super) fn remark_prof() -> RemarkProf {
    RemarkProf {
        rewrite_dscp: None,
        sp_dscp: BTreeMap::new(),
    }
}

/// enable / enabled / on / true / yes → true; disable / disabled / off / false / no → false.
pub(super) fn flag(s: &str) -> Option<bool> {
    match unquote(s).to_ascii_lowercase().as_str() {
        "enable" | "enabled" | "on" | "true" | "yes" => Some(true),
        "disable" | "disabled" | "off" | "false" | "no" => Some(false),
        _ => None,
    }
}

/// A YAML/JSON scalar without its quotes.
pub(super) fn unquote(s: &str) -> &str {
    let t = s.trim();
    for q in ['\'', '"'] {
        if let Some(inner) = t.strip_prefix(q).and_then(|x| x.strip_suffix(q)) {
            return inner;
        }
    }
    t
}

/// NVUE trust keyword or traffic.conf source set → model trust (pcp | dscp | both | port).
pub(super) fn trust_of(s: &str) -> Option<&'static str> {
    let t = unquote(s)
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase()
        .replace(' ', "");
    let has = |w: &str| t.split([',', '+']).any(|p| p == w);
    let pcp = has("l2") || has("pcp") || has("802.1p") || has("8021p") || has("cos");
    let dscp = has("l3") || has("dscp");
    match (pcp, dscp) {
        (true, true) => Some("both"),
        (false, true) => Some("dscp"),
        (true, false) => Some("pcp"),
        _ if t == "both" => Some("both"),
        _ if t == "port" => Some("port"),
        _ => None,
    }
}

/// Expand an interface list as NVUE, NCLU and traffic.conf write it: `swp1-4`, `swp1-swp32`,
/// `swp1-18,swp31-32`, `swp50s0-swp50s3`, `[swp1,swp3]`. A part that is not a range is kept as
/// written (`vlan10-v0`, `peerlink.4094`). `Err` names a part no port name can come from: a
/// range that runs backwards or over 4096 ports, or a part with no interface prefix
/// (`31-32`, a number alone): the caller reports its line as not read.
pub(super) fn expand_ports(spec: &str) -> Result<Vec<String>, String> {
    let s = spec.trim().trim_start_matches('[').trim_end_matches(']');
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        if part.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(format!(
                "interface list part `{part}` has no interface name prefix"
            ));
        }
        match range_of(part) {
            Some((prefix, a, b)) => {
                if b < a || b - a > 4096 {
                    return Err(format!(
                        "interface range `{part}` runs backwards or over 4096 ports"
                    ));
                }
                crate::platform::util::spend_range(a, b)?;
                out.extend((a..=b).map(|n| format!("{prefix}{n}")));
            }
            None => out.push(part.to_string()),
        }
    }
    Ok(out)
}

/// `swp1-4` / `swp1-swp4` / `swp50s0-3` → (prefix, first, last).
fn range_of(part: &str) -> Option<(String, u32, u32)> {
    let (left, right) = part.split_once('-')?;
    let split = left.len() - left.bytes().rev().take_while(u8::is_ascii_digit).count();
    let (prefix, a) = left.split_at(split);
    let a: u32 = a.parse().ok()?;
    if prefix.is_empty() {
        return None;
    }
    let b: u32 = if right.bytes().all(|c| c.is_ascii_digit()) {
        right.parse().ok()?
    } else {
        let rs = right.len() - right.bytes().rev().take_while(u8::is_ascii_digit).count();
        let (rp, rb) = right.split_at(rs);
        if rp != prefix {
            return None;
        }
        rb.parse().ok()?
    };
    Some((prefix.to_string(), a, b))
}

/// A list of small numbers as NVUE keys and traffic.conf lists write them: `3`, `0,3`, `24-31`,
/// `[0, 1, 2]`; values above `max` make the list invalid.
pub(super) fn numbers(s: &str, max: u32) -> Option<Vec<u8>> {
    let t = unquote(s).trim_start_matches('[').trim_end_matches(']');
    if t.trim().is_empty() {
        return Some(Vec::new());
    }
    let mut out = Vec::new();
    for part in t.split(',').map(str::trim) {
        let v = crate::platform::util::num_list(part, max)?;
        out.extend(v.into_iter().map(|n| n as u8));
    }
    Some(out)
}

/// A byte size: `150000`, `25000 B`, `146.48 KB`, `1.43 MB`, `0 Bytes` (NVUE prints KB/MB as
/// multiples of 1024: 150000 B shows as 146.48 KB).
pub(super) fn bytes(s: &str) -> Option<u64> {
    let t = unquote(s).trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let v: f64 = num.parse().ok()?;
    crate::platform::util::to_bytes(v, unit.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_lists() {
        assert_eq!(
            expand_ports("swp1-3,swp6"),
            Ok(vec![
                "swp1".into(),
                "swp2".into(),
                "swp3".into(),
                "swp6".into()
            ])
        );
        assert_eq!(
            expand_ports("swp31-swp32"),
            Ok(vec!["swp31".into(), "swp32".into()])
        );
        assert_eq!(
            expand_ports("swp50s0-swp50s1"),
            Ok(vec!["swp50s0".into(), "swp50s1".into()])
        );
        assert_eq!(
            expand_ports("[swp1,peerlink.4094]"),
            Ok(vec!["swp1".into(), "peerlink.4094".into()])
        );
        assert_eq!(expand_ports("swp1-swp99999").map_err(|_| ()), Err(()));
        assert!(expand_ports("swp9-2").is_err());
        assert!(expand_ports("swp1-18,31-32").is_err());
        assert_eq!(expand_ports("vlan10-v0"), Ok(vec!["vlan10-v0".into()]));
    }

    #[test]
    fn values() {
        assert_eq!(numbers("'0,3'", 7), Some(vec![0, 3]));
        assert_eq!(numbers("[24-26, 48]", 63), Some(vec![24, 25, 26, 48]));
        assert_eq!(numbers("[]", 7), Some(vec![]));
        assert_eq!(numbers("9", 7), None);
        assert_eq!(bytes("146.48 KB"), Some(149996));
        assert_eq!(bytes("25000 B"), Some(25000));
        assert_eq!(bytes("0 Bytes"), Some(0));
        assert_eq!(bytes("150000"), Some(150000));
        assert_eq!(trust_of("pcp,dscp"), Some("both"));
        assert_eq!(trust_of("[802.1p,dscp]"), Some("both"));
        assert_eq!(trust_of("l3"), Some("dscp"));
        assert_eq!(trust_of("port"), Some("port"));
        assert_eq!(flag("'on'"), Some(true));
    }
}
