//! Remediation: for each finding a platform can fix, a minimal snippet in the device's own
//! syntax, rendered from `vendor-parsers/remediation/<platform>.toml`, grouped per device in
//! the order it must be applied, each marked safe or needs-review; `apply` merges the snippets
//! into a copy of the snapshot and re-audits it (`remediate --apply-to-copy`).
//!
//! A value that came from a device enters a snippet only through the platform's identifier
//! syntax (`ident(kind)`); anything else withholds the snippet, with the reason.

pub mod apply;
pub mod config_index;
pub mod merge;
pub mod spec;

use crate::audit::Audit;
use crate::finding::{Finding, Remediation, Severity};
use crate::model::Device;
use crate::model::name_index::NameIndex;
use crate::rules::RuleSet;
use anyhow::Result;
use serde::Serialize;
use spec::{ConfigText, Safety, Templates, WITHHOLD};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub const SCHEMA: &str = "fabric-audit/remediation/v1";

/// The embedded template files, then `dir/remediation/*.toml` (same platform replaces).
pub fn load(parsers_dir: Option<&Path>) -> Result<Templates> {
    load_files(parsers_dir, |_| true)
}

/// [`load`] with only the embedded files of `platforms` (each is named after its platform, a
/// test checks): an audit attaches fixes for the platforms of its devices only, and compiling
/// the templates of all eight was 1.5 % of an audit of a 1,000-switch NX-OS snapshot. Files
/// of `dir/remediation` are all read, so their errors are reported as with [`load`].
pub fn load_for(
    parsers_dir: Option<&Path>,
    platforms: &std::collections::BTreeSet<&str>,
) -> Result<Templates> {
    load_files(parsers_dir, |name| {
        Path::new(name)
            .file_stem()
            .and_then(|s| s.to_str())
            .is_some_and(|s| platforms.contains(s))
    })
}

fn load_files(parsers_dir: Option<&Path>, embedded: impl Fn(&str) -> bool) -> Result<Templates> {
    let mut files: Vec<(String, String)> = crate::embedded::REMEDIATION
        .iter()
        .filter(|(n, _)| embedded(n))
        .map(|(n, t)| (n.to_string(), t.to_string()))
        .collect();
    if let Some(d) = parsers_dir {
        let r = d.join("remediation");
        if r.is_dir() {
            files.extend(crate::embedded::read_toml_dir(&r)?);
        }
    }
    Templates::load(&files).map_err(|errs| {
        anyhow::anyhow!(
            "invalid remediation file(s):\n{}",
            errs.iter()
                .map(|e| format!("  {e}"))
                .collect::<Vec<_>>()
                .join("\n")
        )
    })
}

/// A finding a step addressed, named as `--apply-to-copy` reports it fixed or not.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Target {
    /// Shared with the finding (and its rule), not a copy per finding (issue 19).
    pub rule: std::sync::Arc<str>,
    pub severity: Severity,
    pub device: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interface: Option<String>,
    #[serde(skip)]
    pub index: usize,
}

impl Target {
    pub(crate) fn of(f: &Finding, index: usize) -> Target {
        Target {
            rule: f.rule().clone(),
            severity: f.severity(),
            device: f.device.to_string(),
            interface: f.interface.as_deref().map(String::from),
            index,
        }
    }
    fn label(&self) -> String {
        match &self.interface {
            Some(i) => format!("{} {}:{}", self.rule, self.device, i),
            None => format!("{} {}", self.rule, self.device),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Step {
    pub order: i64,
    pub safety: Safety,
    /// Shared with the findings it fixes (`Finding.remediation`), not copied into each.
    pub snippet: Arc<str>,
    /// The findings this step addresses, by their index in the audit's findings: named (rule,
    /// severity, device, port) when the plan is written ([`Shown`]), not copied into the plan.
    pub fixes: FixList,
    /// Whether the step was first made at the far end of its first finding's link: the port
    /// it is sorted by is then the finding's peer port, else the finding's own. The port was a
    /// copy of its name in each step (issue 19: with `fixes`' own list, 24 of the 80 bytes a
    /// step and a 32-byte list beside them, on a config with a step for each of 16,000 ports).
    at_peer: bool,
}

/// A step's findings (indexes in the audit's findings, in the order they were met), read as a
/// slice. Most steps fix one finding (one port's), held in place: a list of its own was a
/// 32-byte allocation a step (issue 19: 0.5 MB of the plan of 16,000 ports). The list of a
/// step that fixes several is boxed, so the one-finding case is 16 bytes, not 32 (a step
/// 64 → 48 bytes).
#[derive(Debug, Clone)]
pub enum FixList {
    One(usize),
    Many(Box<Vec<usize>>),
}

impl FixList {
    fn push(&mut self, i: usize) {
        match self {
            FixList::One(j) => *self = FixList::Many(Box::new(vec![*j, i])),
            FixList::Many(v) => v.push(i),
        }
    }
}

impl std::ops::Deref for FixList {
    type Target = [usize];
    fn deref(&self) -> &[usize] {
        match self {
            FixList::One(i) => std::slice::from_ref(i),
            FixList::Many(v) => v,
        }
    }
}

impl<'a> IntoIterator for &'a FixList {
    type Item = &'a usize;
    type IntoIter = std::slice::Iter<'a, usize>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[derive(Debug, Clone)]
pub struct DevicePlan {
    pub device: String,
    pub platform: Arc<str>,
    /// Snapshot-relative config file the steps merge into (`--apply-to-copy`).
    pub config: Option<String>,
    pub steps: Vec<Step>,
}

/// A finding no snippet fixes, and why.
///
/// The finding is its index in the audit's findings, and equal reasons are one string: a
/// plan held a copy of each withheld finding's device and port and its own copy of the
/// reason, ~340 bytes each, a fifth of the audit's peak on a config whose interface ranges
/// name hundreds of ports with a withheld finding each (issue 19: memory within 20 times the
/// input). The reason is one [`Why`] for all the findings that share it (2026-12-04: 56 bytes
/// a withheld finding → 16, and 1 MiB of ports drawing findings withholds ~95,000 of them).
/// The plan as written is unchanged ([`Shown`]).
///
/// Both are 32-bit numbers, the reason its place in [`Plan::reasons`]: 16 bytes → 8, and the
/// list grown by doubling to 131,072 entries for 81,338 withheld findings was 2.1 MB of the
/// plan's 9 MB on top of the audit (issue 19, 1 MiB of EOS ports drawing six findings each).
#[derive(Debug, Clone)]
pub struct Withheld {
    index: u32,
    why: u32,
}

impl Withheld {
    /// The finding's index in the audit's findings.
    pub fn index(&self) -> usize {
        self.index as usize
    }
}

/// Why a finding's fix is withheld.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Why {
    /// `no_fix` (the platform states why no snippet exists), `withheld` (a value failed the
    /// identifier syntax, or the template refused), or `no_template`.
    pub kind: &'static str,
    pub platform: Option<String>,
    pub reason: String,
}

#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub schema: &'static str,
    pub devices: Vec<DevicePlan>,
    pub withheld: Vec<Withheld>,
    /// The distinct reasons of `withheld`, each once.
    pub reasons: Vec<Why>,
}

impl Plan {
    /// Why `w`'s fix is withheld (None only for a `w` of another plan).
    pub fn why(&self, w: &Withheld) -> Option<&Why> {
        self.reasons.get(w.why as usize)
    }
}

/// The snapshot-relative config file of a device (`configs/<device>.*`).
pub fn config_file(d: &Device) -> Option<String> {
    d.parse
        .iter()
        .find(|p| p.command == "config")
        .map(|p| p.file.clone())
}

/// A device for a template: the model without its interfaces and its per-file parse results
/// (`parse`: every unrecognized line of every file, as much text as the files; no fix depends
/// on how a file parsed), plus its platform's `max_ip_mtu` when the template file states one.
///
/// Made field by field: serializing the whole device and then dropping its ports built the
/// ports' JSON first, ~100 bytes of `serde_json::Value` per byte of config (a 1 MiB EOS config
/// of replicated ports peaked at 114 MB in the audit's fix step; issue 19). The fields are
/// named without `..`, so a field added to [`Device`] must be decided here; the keys are those
/// `Device`'s `Serialize` writes, a value absent where it skips one.
fn device_json(d: &Device, templates: &Templates) -> serde_json::Value {
    let Device {
        name,
        platform,
        role,
        os_version,
        hostname,
        is_switch,
        interfaces: _,
        qos,
        platform_reason,
        parse: _,
        roce_scope,
        error,
        host,
        drift,
        iface_index: _,
        interfaces_not_read,
        port_cap: _,
        spill: _,
        sharing: _,
    } = d;
    let mut m = serde_json::Map::new();
    let mut put = |k: &str, v: serde_json::Result<serde_json::Value>| {
        if let Ok(v) = v {
            m.insert(k.into(), v);
        }
    };
    use serde_json::to_value as json;
    put("name", json(name));
    put("platform", json(platform));
    put("role", json(role));
    if os_version.is_some() {
        put("os_version", json(os_version));
    }
    if hostname.is_some() {
        put("hostname", json(hostname));
    }
    put("is_switch", json(is_switch));
    put("qos", json(qos));
    put("platform_reason", json(platform_reason));
    if roce_scope.is_some() {
        put("roce_scope", json(roce_scope));
    }
    if error.is_some() {
        put("error", json(error));
    }
    if host.is_some() {
        put("host", json(host));
    }
    if drift.is_some() {
        put("drift", json(drift));
    }
    if *interfaces_not_read != 0 {
        put("interfaces_not_read", json(interfaces_not_read));
    }
    if let Some(x) = templates.platforms.get(platform).and_then(|p| p.max_ip_mtu) {
        put("max_ip_mtu", Ok(x.into()));
    }
    serde_json::Value::Object(m)
}

/// The policy as a fix on one port sees it. A fabric that does not declare `roce_tc` / `cnp_tc`
/// (-1: the rules then follow RoCE and CNPs through each port's own maps) gets, for its fixes,
/// the classes the port's maps give: RoCE's class when its PFC priority is lossless, else the
/// first other lossless class that is neither the CNPs' nor unmarked traffic's, else class 3 (the
/// common design's) unless it is one of those two (then -1, so a fix that needs it is withheld); the CNPs' class when it is one of their own, else 6.
/// Without maps, the classes of the common lossless-RoCE design (RoCE 3, CNP 6).
fn port_policy(
    policy: &serde_json::Map<String, serde_json::Value>,
    port: Option<&crate::model::Interface>,
) -> minijinja::Value {
    let num = |k: &str| policy.get(k).and_then(|v| v.as_i64());
    let lossless: Vec<i64> = policy
        .get("lossless_priorities")
        .and_then(|v| v.as_array())
        .map(|a| a.iter().filter_map(|x| x.as_i64()).collect())
        .unwrap_or_default();
    let map = |f: Option<&crate::model::Sourced<Vec<u8>>>| -> Vec<i64> {
        f.map(|s| s.value.iter().map(|v| i64::from(*v)).collect())
            .unwrap_or_default()
    };
    let (to_tc, to_prio) = match port {
        Some(i) => (
            map(i.qos.dscp_to_tc.as_ref()),
            map(i.qos.tc_to_pfc_priority.as_ref()),
        ),
        None => (Vec::new(), Vec::new()),
    };
    let tc_of = |dscp: Option<i64>| dscp.and_then(|d| to_tc.get(usize::try_from(d).ok()?).copied());
    let is_lossless = |tc: i64| {
        usize::try_from(tc)
            .ok()
            .and_then(|t| to_prio.get(t))
            .is_some_and(|prio| lossless.contains(prio))
    };
    let cnp_class = tc_of(num("cnp_dscp"));
    let unmarked = tc_of(Some(0));
    let roce = match num("roce_tc") {
        Some(t) if t >= 0 => t,
        // No maps known: the common design's class.
        _ if to_prio.is_empty() || to_tc.is_empty() => 3,
        // RoCE's own class when it is lossless, else another lossless class that is neither
        // the CNPs' nor unmarked traffic's, else 3 unless it is one of those (-1: withheld).
        _ => tc_of(num("roce_dscp"))
            .filter(|t| is_lossless(*t))
            .or_else(|| {
                (0..to_prio.len() as i64)
                    .find(|t| is_lossless(*t) && Some(*t) != cnp_class && Some(*t) != unmarked)
            })
            .or(Some(3).filter(|t| Some(*t) != cnp_class && Some(*t) != unmarked))
            .unwrap_or(-1),
    };
    let mut p = policy.clone();
    if num("roce_tc").is_none_or(|t| t < 0) {
        p.insert("roce_tc".into(), roce.into());
    }
    if num("cnp_tc").is_none_or(|t| t < 0) {
        let cnp = cnp_class
            .filter(|t| *t != roce && Some(*t) != unmarked)
            .unwrap_or(6);
        p.insert("cnp_tc".into(), cnp.into());
    }
    minijinja::Value::from(minijinja::value::Serde(p))
}

/// The far end of each linked port, (device, interface) → (device, interface): the first link
/// that names the port, as a scan of the links would find it (one map per plan; a scan per
/// finding made a 10,000-device plan quadratic).
fn link_peers(a: &Audit) -> HashMap<(&str, &str), (&str, &str)> {
    let mut m = HashMap::new();
    for l in &a.fabric.links {
        let (x, y) = (&l.a, &l.b);
        m.entry((x.device.as_str(), x.interface.as_str()))
            .or_insert((y.device.as_str(), y.interface.as_str()));
        m.entry((y.device.as_str(), y.interface.as_str()))
            .or_insert((x.device.as_str(), x.interface.as_str()));
    }
    m
}

/// An end a finding may be fixed at: device, interface, the other end (device, interface).
type End = (String, Option<String>, Option<(String, String)>);

enum Rendered {
    Snippet(String),
    Nothing,
    Withheld(String),
}

fn render(p: &spec::Platform, fix: &spec::Fix, ctx: minijinja::Value) -> Rendered {
    let t = match p.env.get_template(&fix.name) {
        Ok(t) => t,
        Err(e) => return Rendered::Withheld(format!("template {}: {e}", fix.name)),
    };
    match t.render(ctx) {
        Ok(s) => {
            if s.chars().any(|c| c.is_control() && c != '\n') {
                return Rendered::Withheld(format!(
                    "template {}: the snippet holds a control character",
                    fix.name
                ));
            }
            let lines: Vec<&str> = s
                .lines()
                .map(str::trim_end)
                .filter(|l| !l.trim().is_empty())
                .collect();
            if lines.is_empty() {
                Rendered::Nothing
            } else {
                let mut s = lines.join("\n") + "\n";
                if let Some(cmd) = &p.persist {
                    s.push_str(&format!(
                        "# persist once checked: {cmd} (without it a reboot or config reload undoes this)\n"
                    ));
                }
                Rendered::Snippet(s)
            }
        }
        Err(e) if e.kind() == minijinja::ErrorKind::OutOfFuel => Rendered::Withheld(format!(
            "template {}: went past its budget of {} steps (minijinja fuel) on this config",
            fix.name,
            spec::FIX_FUEL
        )),
        Err(e) => {
            let detail = e.detail().unwrap_or_default();
            match detail.strip_prefix(WITHHOLD) {
                Some(r) => Rendered::Withheld(r.to_string()),
                None => Rendered::Withheld(format!("template {}: {e}", fix.name)),
            }
        }
    }
}

/// Build the remediation plan of an audit of `snapshot` (its folders: one, or the several
/// audited as one fabric).
pub fn plan(a: &Audit, rules: &RuleSet, snapshot: &[PathBuf], templates: &Templates) -> Plan {
    plan_with(a, rules, templates, &|d: &Device| {
        let f = config_file(d)?;
        let path = crate::snapshot::folders::locate(snapshot, &f);
        crate::snapshot::read::read_text(&path).ok()
    })
}

/// [`plan`] with a device's config text from `config_text` (None: the device has none, or it
/// cannot be read) instead of the snapshot's folders: the fuzz target's way in, with the
/// text it built the device from. The text is redacted here, whatever its source.
pub fn plan_with(
    a: &Audit,
    rules: &RuleSet,
    templates: &Templates,
    config_text: &dyn Fn(&Device) -> Option<String>,
) -> Plan {
    let devices: BTreeMap<&str, &Device> = a
        .fabric
        .devices
        .iter()
        .map(|d| (d.name.as_str(), d))
        .collect();
    let mut configs: BTreeMap<String, Option<minijinja::Value>> = BTreeMap::new();
    let mut config_of = |d: &Device| -> Option<minijinja::Value> {
        configs
            .entry(d.name.clone())
            .or_insert_with(|| {
                // Redacted in place: a text without a secret is kept as it came, not copied
                // (issue 19: a second copy of a 1 MiB config for a moment).
                let text = crate::redact::redact_owned(config_text(d)?).0;
                Some(minijinja::Value::from_object(ConfigText::new(text)))
            })
            .clone()
    };
    // Each device's JSON made once, and ports found by name without a scan: per finding they
    // were a device serialized whole and a scan of its ports, the square of the ports for a
    // device with a finding on each (issue 19: a review of 2,000 such ports took 138 s).
    let mut device_values: BTreeMap<String, minijinja::Value> = BTreeMap::new();
    let mut device_value = |d: &Device| -> minijinja::Value {
        device_values
            .entry(d.name.clone())
            .or_insert_with(|| {
                minijinja::Value::from(minijinja::value::Serde(device_json(d, templates)))
            })
            .clone()
    };
    // A device's ports by name through a [`NameIndex`] of their positions (made for the
    // devices a finding asks about, 8 bytes a port), where a map of every port of the fabric
    // by (device, name) was 40 bytes a port and its growth (issue 19: 1.3 MB of the plan of a
    // config of 16,000 ports). The first port of a name, as that map kept.
    let port_index: RefCell<HashMap<&str, NameIndex>> = RefCell::new(HashMap::new());
    let port = |dev: &str, name: &str| -> Option<&crate::model::Interface> {
        let d: &Device = devices.get(dev)?;
        let at = port_index
            .borrow_mut()
            .entry(d.name.as_str())
            .or_default()
            .position(&d.interfaces, |i| i.name.as_str(), name)?;
        d.interfaces.get(at)
    };
    let iface_json = |dev: &str, name: Option<&str>| -> minijinja::Value {
        let found = name.and_then(|n| port(dev, n));
        match found {
            Some(i) => minijinja::Value::from(minijinja::value::Serde(i)),
            None => minijinja::Value::from(()),
        }
    };
    let peers = link_peers(a);
    // Each device's steps in the list the plan keeps, found by snippet through a
    // [`NameIndex`] (8 bytes a step): a map of all steps by (device, snippet), then each
    // device's list made of it, held every step twice (issue 19: 4.5 of the 14 MB the plan of
    // a config of 16,000 ports added to the audit's peak). Devices in name order, as that map
    // had them.
    let mut steps: BTreeMap<&str, (Vec<Step>, NameIndex)> = BTreeMap::new();
    let mut withheld = Vec::new();
    // Each distinct reason's number (its place in `reasons`).
    let mut reason_no: HashMap<Why, u32> = HashMap::new();
    let mut reasons: Vec<Why> = Vec::new();
    for (idx, f) in a.findings.iter().enumerate() {
        if f.undecided() {
            continue;
        }
        // Made for the first end with a fix template, not for every finding: a finding without
        // fixes (PARSE001 lists every unrecognized line of a file in its evidence) was
        // converted whole for nothing, 40 times its file for a moment (issue 19).
        let mut fjson: Option<minijinja::Value> = None;
        let mut ends: Vec<End> = vec![(
            f.device.to_string(),
            f.interface.as_deref().map(String::from),
            None,
        )];
        // Link rules may be fixed at either end; other rules on the finding's own device.
        let link = rules.get(f.rule()).is_some_and(|r| r.spec.scope == "link");
        if let Some(p) = f.peer.as_ref().filter(|_| link) {
            ends[0].2 = Some((p.device.clone(), p.interface.clone()));
            ends.push((
                p.device.clone(),
                Some(p.interface.clone()),
                f.interface
                    .as_deref()
                    .map(|i| (f.device.to_string(), i.to_string())),
            ));
        } else if !link && let Some(i) = f.interface.as_deref() {
            // A port's own fix may have to agree with the port at the other end (MTU).
            ends[0].2 = peers
                .get(&(&*f.device, i))
                .map(|(d, i)| (d.to_string(), i.to_string()));
        }
        let mut got = false;
        let mut why: Vec<(String, String)> = Vec::new();
        let mut no_fix: Vec<(String, String)> = Vec::new();
        let mut nothing = false;
        for (end, (dev, ifname, other)) in ends.iter().enumerate() {
            let Some(d) = devices.get(dev.as_str()) else {
                continue;
            };
            let Some(p) = templates.platforms.get(&d.platform) else {
                continue;
            };
            let Some(fixes) = p.fixes.get(&**f.rule()) else {
                if let Some(r) = p.no_fix.get(&**f.rule()) {
                    no_fix.push((p.id.clone(), r.clone()));
                }
                continue;
            };
            let ctx = minijinja::context! {
                f => fjson.get_or_insert_with(|| minijinja::Value::from(minijinja::value::Serde(f))).clone(),
                i => iface_json(dev, ifname.as_deref()),
                other => other.as_ref().map(|(od, oi)| iface_json(od, Some(oi))).unwrap_or(minijinja::Value::from(())),
                od => other
                    .as_ref()
                    .and_then(|(od, _)| devices.get(od.as_str()))
                    .map(|od| device_value(od))
                    .unwrap_or(minijinja::Value::from(())),
                d => device_value(d),
                policy => port_policy(&a.fabric.policy, ifname.as_deref().and_then(|n| port(dev, n))),
                config => config_of(d).unwrap_or(minijinja::Value::from(())),
            };
            for fix in fixes {
                match render(p, fix, ctx.clone()) {
                    Rendered::Snippet(s) => {
                        got = true;
                        let (list, index) = steps.entry(d.name.as_str()).or_default();
                        let at = index.position(list, |t| &t.snippet, &s);
                        match at.and_then(|k| list.get_mut(k)) {
                            Some(step) => {
                                step.order = step.order.min(fix.order);
                                step.safety = step.safety.max(fix.safety);
                                // Findings are met in order: this one is the last if listed.
                                if step.fixes.last() != Some(&idx) {
                                    step.fixes.push(idx);
                                }
                            }
                            None => crate::growth::push_grown(
                                list,
                                Step {
                                    order: fix.order,
                                    safety: fix.safety,
                                    snippet: s.into(),
                                    fixes: FixList::One(idx),
                                    at_peer: end > 0,
                                },
                            ),
                        }
                    }
                    Rendered::Nothing => nothing = true,
                    Rendered::Withheld(r) => why.push((p.id.clone(), r)),
                }
            }
        }
        if got {
            continue;
        }
        let (kind, platform, reason) = if let Some((p, r)) = why.into_iter().next() {
            ("withheld", Some(p), r)
        } else if let Some((p, r)) = no_fix.into_iter().next() {
            ("no_fix", Some(p), r)
        } else if f.severity() < Severity::Warning {
            // Info findings are not faults to fix; errors and warnings are all listed.
            continue;
        } else if nothing {
            (
                "withheld",
                None,
                "the template found nothing to change on either end".to_string(),
            )
        } else {
            let ps: Vec<String> = ends
                .iter()
                .filter_map(|(d, _, _)| devices.get(d.as_str()).map(|d| d.platform.clone()))
                .collect();
            (
                "no_template",
                None,
                format!(
                    "no remediation template for {} on {}",
                    f.rule(),
                    ps.join(", ")
                ),
            )
        };
        // One `Why` per distinct reason (many findings share theirs).
        let why = Why {
            kind,
            platform,
            reason,
        };
        let why = match reason_no.get(&why) {
            Some(&n) => n,
            None => {
                // As many reasons as findings at most, and an audit's findings number below
                // 2^32 (each is over 100 bytes): the numbers fit.
                let Ok(n) = u32::try_from(reasons.len()) else {
                    continue;
                };
                reasons.push(why.clone());
                reason_no.insert(why, n);
                n
            }
        };
        let Ok(index) = u32::try_from(idx) else {
            continue;
        };
        crate::growth::push_grown(&mut withheld, Withheld { index, why });
    }
    drop(reason_no);
    withheld.shrink_to_fit();
    // The port a step is sorted by: its first finding's own, or its peer's for a step made at
    // the far end ([`Step::at_peer`]).
    let sort_if = |s: &Step| -> &str {
        match s.fixes.first().and_then(|&i| a.findings.get(i)) {
            Some(f) if s.at_peer => f.peer.as_ref().map_or("", |p| p.interface.as_str()),
            Some(f) => f.interface.as_deref().unwrap_or(""),
            None => "",
        }
    };
    let mut out = Vec::new();
    for (dev, (mut st, index)) in steps {
        drop(index);
        st.shrink_to_fit();
        // A device's snippets differ, so the order is total: unstable sorts as a stable one
        // would, without a buffer of half the steps.
        st.sort_unstable_by(|a, b| {
            a.order
                .cmp(&b.order)
                .then_with(|| crate::text::natural_cmp(sort_if(a), sort_if(b)))
                .then_with(|| a.snippet.cmp(&b.snippet))
        });
        let d = devices.get(dev);
        out.push(DevicePlan {
            platform: d.map_or_else(|| Arc::from(""), |d| Arc::from(d.platform.as_str())),
            config: d.and_then(|d| config_file(d)),
            device: dev.to_string(),
            steps: st,
        });
    }
    out.sort_by(|a, b| crate::text::natural_cmp(&a.device, &b.device));
    Plan {
        schema: SCHEMA,
        devices: out,
        withheld,
        reasons,
    }
}

/// Fill `Finding.remediation` of the findings a step addresses (the first step for each).
pub fn attach(a: &mut Audit, rules: &RuleSet, snapshot: &[PathBuf], templates: &Templates) {
    let p = plan(a, rules, snapshot, templates);
    attach_plan(a, &p);
}

/// Fill `Finding.remediation` from a plan made of this audit.
pub fn attach_plan(a: &mut Audit, p: &Plan) {
    for d in &p.devices {
        for s in &d.steps {
            for &i in &s.fixes {
                if let Some(f) = a.findings.get_mut(i)
                    && f.remediation.is_none()
                {
                    f.remediation = Some(Box::new(Remediation {
                        platform: d.platform.clone(),
                        snippet: s.snippet.clone(),
                        safety: s.safety.as_str(),
                        device: (*d.device != *f.device).then(|| d.device.clone()),
                    }));
                }
            }
        }
    }
}

/// Keep only one device's steps and withheld findings (`findings`: the audit's the plan was
/// made of).
pub fn only_device(p: &mut Plan, findings: &[Finding], device: &str) {
    p.devices.retain(|d| d.device == device);
    p.withheld.retain(|w| {
        findings
            .get(w.index())
            .is_some_and(|f| &*f.device == device)
    });
}

/// A plan as written, its findings named from the audit the plan was made of.
pub struct Shown<'a> {
    pub plan: &'a Plan,
    pub findings: &'a [Finding],
}

/// A finding as a plan names it.
#[derive(Serialize)]
struct Named<'a> {
    rule: &'a str,
    severity: Severity,
    device: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    interface: Option<&'a str>,
}

impl<'a> Named<'a> {
    fn of(f: &'a Finding) -> Named<'a> {
        Named {
            rule: f.rule(),
            severity: f.severity(),
            device: &f.device,
            interface: f.interface.as_deref(),
        }
    }
}

/// A step's findings, as the plan names them.
struct Fixes<'a>(&'a [usize], &'a [Finding]);

impl Serialize for Fixes<'_> {
    fn serialize<Z: serde::Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
        z.collect_seq(self.0.iter().filter_map(|&i| self.1.get(i)).map(Named::of))
    }
}

#[derive(Serialize)]
struct StepOut<'a> {
    order: i64,
    safety: Safety,
    snippet: &'a str,
    fixes: Fixes<'a>,
}

struct Steps<'a>(&'a [Step], &'a [Finding]);

impl Serialize for Steps<'_> {
    fn serialize<Z: serde::Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
        z.collect_seq(self.0.iter().map(|s| StepOut {
            order: s.order,
            safety: s.safety,
            snippet: &s.snippet,
            fixes: Fixes(&s.fixes, self.1),
        }))
    }
}

#[derive(Serialize)]
struct DeviceOut<'a> {
    device: &'a str,
    platform: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    config: Option<&'a str>,
    steps: Steps<'a>,
}

struct Devices<'a>(&'a [DevicePlan], &'a [Finding]);

impl Serialize for Devices<'_> {
    fn serialize<Z: serde::Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
        z.collect_seq(self.0.iter().map(|d| DeviceOut {
            device: &d.device,
            platform: &d.platform,
            config: d.config.as_deref(),
            steps: Steps(&d.steps, self.1),
        }))
    }
}

#[derive(Serialize)]
struct WithheldOut<'a> {
    #[serde(flatten)]
    finding: Named<'a>,
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    platform: Option<&'a str>,
    reason: &'a str,
}

struct WithheldList<'a>(&'a Plan, &'a [Finding]);

impl Serialize for WithheldList<'_> {
    fn serialize<Z: serde::Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
        z.collect_seq(self.0.withheld.iter().filter_map(|w| {
            let why = self.0.why(w)?;
            Some(WithheldOut {
                finding: Named::of(self.1.get(w.index())?),
                kind: why.kind,
                platform: why.platform.as_deref(),
                reason: &why.reason,
            })
        }))
    }
}

impl Serialize for Shown<'_> {
    /// The fields and order the plan's JSON has always had (`fabric-audit/remediation/v1`).
    fn serialize<Z: serde::Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
        use serde::ser::SerializeStruct;
        let mut o = z.serialize_struct("Plan", 3)?;
        o.serialize_field("schema", self.plan.schema)?;
        o.serialize_field("devices", &Devices(&self.plan.devices, self.findings))?;
        o.serialize_field("withheld", &WithheldList(self.plan, self.findings))?;
        o.end()
    }
}

/// The plan as JSON, written to `w` as it is made (not built in memory first).
pub fn write_json(
    p: &Plan,
    findings: &[Finding],
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    use std::io::Write;
    let mut w = std::io::BufWriter::new(w);
    serde_json::to_writer_pretty(&mut w, &Shown { plan: p, findings })?;
    w.write_all(b"\n")?;
    w.flush()
}

/// The plan as text, written to `w` as it is made.
pub fn write_text(
    p: &Plan,
    findings: &[Finding],
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    use std::io::Write;
    let mut w = std::io::BufWriter::new(w);
    let label = |i: usize| findings.get(i).map(|f| Target::of(f, i).label());
    if p.devices.is_empty() {
        writeln!(w, "No snippet to apply.")?;
    }
    for d in &p.devices {
        writeln!(
            w,
            "{} ({}{}): apply in this order",
            d.device,
            d.platform,
            d.config
                .as_deref()
                .map(|c| format!(", {c}"))
                .unwrap_or_default()
        )?;
        for (k, s) in d.steps.iter().enumerate() {
            let fixes: Vec<String> = s.fixes.iter().filter_map(|&i| label(i)).collect();
            writeln!(
                w,
                "  {}. [{}] fixes {}",
                k + 1,
                s.safety.as_str(),
                fixes.join(", ")
            )?;
            for l in s.snippet.lines() {
                writeln!(w, "       {l}")?;
            }
        }
        writeln!(w)?;
    }
    if !p.withheld.is_empty() {
        writeln!(w, "No snippet for:")?;
        for x in &p.withheld {
            let (Some(f), Some(why)) = (findings.get(x.index()), p.why(x)) else {
                continue;
            };
            writeln!(
                w,
                "  {} ({}) [{}{}]: no automatic fix: {}",
                Target::of(f, x.index()).label(),
                f.severity().as_str(),
                why.kind,
                why.platform
                    .as_deref()
                    .map(|p| format!(", {p}"))
                    .unwrap_or_default(),
                why.reason
            )?;
        }
    }
    w.flush()
}

/// The plan as text.
pub fn text(p: &Plan, findings: &[Finding]) -> String {
    let mut v = Vec::new();
    let _ = write_text(p, findings, &mut v);
    String::from_utf8(v).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    /// `load_for` picks embedded files by name: each is named after the platform it holds.
    #[test]
    fn embedded_template_files_are_named_after_their_platform() {
        let all = match super::load(None) {
            Ok(t) => t,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(all.platforms.len(), crate::embedded::REMEDIATION.len());
        for (name, _) in crate::embedded::REMEDIATION {
            let stem = std::path::Path::new(name)
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            let one = match super::load_for(None, &[stem].into_iter().collect()) {
                Ok(t) => t,
                Err(e) => panic!("{e}"),
            };
            assert_eq!(
                one.platforms.keys().collect::<Vec<_>>(),
                vec![stem],
                "{name}"
            );
        }
    }
}

#[cfg(test)]
mod device_json_tests {
    /// The device a template sees is the device's own JSON without its ports and parse
    /// results (plus
    /// `max_ip_mtu` where the platform's template file states one), on every device of the
    /// fixture fabrics (every platform, hosts with host facts) and one with a drift entry.
    #[test]
    fn device_json_is_the_devices_serialization_without_its_ports() {
        let templates = match super::load(None) {
            Ok(t) => t,
            Err(e) => panic!("{e}"),
        };
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut seen = 0;
        for fabric in [
            "demo-fabric",
            "demo-mixed-fabric",
            "clean-mixed-fabric",
            "demo-jvd-ai-fabric",
        ] {
            let a = match crate::audit::run(&root.join(fabric), &Default::default()) {
                Ok(a) => a,
                Err(e) => panic!("{fabric}: {e:#}"),
            };
            let mut devices = a.fabric.devices.clone();
            // No reader states drift on these fixtures; one device gets an entry.
            if let Some(d) = devices.first_mut() {
                d.drift = Some(vec![crate::model::Drift::default()]);
            }
            for d in &devices {
                let mut want = serde_json::to_value(d).unwrap_or_default();
                let Some(m) = want.as_object_mut() else {
                    panic!("{}: not an object", d.name)
                };
                assert!(m.remove("interfaces").is_some(), "{}", d.name);
                assert!(m.remove("parse").is_some(), "{}", d.name);
                if let Some(x) = templates
                    .platforms
                    .get(&d.platform)
                    .and_then(|p| p.max_ip_mtu)
                {
                    m.insert("max_ip_mtu".into(), x.into());
                }
                assert_eq!(
                    super::device_json(d, &templates),
                    want,
                    "{fabric}/{}",
                    d.name
                );
                seen += 1;
            }
        }
        assert!(seen > 20, "{seen} devices");
    }
}
