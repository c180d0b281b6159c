//! Running rules over the fabric model.
//!
//! Each rule runs once per object of its scope with a context of minijinja values built once
//! per object (`i`, `d`, `peer`, `a`, `b`, `policy`, `param`, ...). Unknown model fields are
//! absent from the context, so under strict undefined any use of one is an error; the engine
//! turns that into an info finding "could not decide: <field> is not known", aggregated per
//! device. A rule therefore never passes or fails on input it does not have.

use super::view;
use super::{Rule, RuleSet, Scope};
use crate::finding::{Evidence, FABRIC, Finding, Location, Parts, Severity};
use crate::model::{Device, Endpoint, Fabric, Interface, Link, with_sources};
use minijinja::value::{Enumerator, Object, Serde, Value, ValueKind};
use minijinja::{Environment, ErrorKind};
use rayon::prelude::*;
use serde::Serialize;
use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// Functions rules may call beside minijinja's builtins.
pub const HELPERS: &[&str] = &[
    "outliers",
    "headroom_required",
    "roce_queue_settings",
    "range",
    "dict",
    "namespace",
];

pub fn register_helpers(env: &mut Environment<'static>) {
    env.add_function("outliers", outliers);
    env.add_function("headroom_required", headroom_required);
    env.add_function("roce_queue_settings", roce_queue_settings);
    env.add_filter("bytes", human_bytes);
    env.add_filter("enabled_indices", enabled_indices);
}

/// Indices of the true entries of a list of booleans (per-priority enables → priorities).
fn enabled_indices(v: Value) -> Result<Value, minijinja::Error> {
    // An unknown table is not "nothing enabled": the rule cannot decide (strict undefined
    // does not reach a filter's argument by itself).
    if v.is_undefined() {
        return Err(minijinja::Error::new(
            ErrorKind::UndefinedError,
            "enabled_indices of a value that is not known",
        ));
    }
    let mut out = Vec::new();
    for (i, x) in v.try_iter()?.enumerate() {
        if x.is_true() {
            out.push(Value::from(i));
        }
    }
    Ok(Value::from(out))
}

/// IEEE 802.1Qbb worst-case PFC headroom in bytes for a port speed (Gb/s), cable length (m)
/// and MTU (bytes), as rule BUF001 explains (component delays of IEEE 802.1Qbb/802.3 quoted by a
/// secondary source, a Cisco Press storage-networking chapter [S]; summing them is our design
/// choice [I]).
fn headroom_required(speed_gbps: f64, cable_m: f64, mtu: f64) -> f64 {
    // Upper-bound interface and response delays in bit times, by speed.
    const INTF: &[(f64, f64)] = &[(10.0, 8192.0), (40.0, 24576.0), (100.0, 122880.0)];
    const RESP: &[(f64, f64)] = &[
        (10.0, 30720.0),
        (25.0, 40960.0),
        (40.0, 60416.0),
        (100.0, 201728.0),
        (400.0, 463360.0),
    ];
    // Use the value of the nearest listed speed at or above this one; above the table, scale
    // the largest entry with the speed (bit times grow with the rate) — conservative.
    let pick = |t: &[(f64, f64)]| -> f64 {
        for &(s, v) in t {
            if speed_gbps <= s {
                return v;
            }
        }
        let (s, v) = t[t.len() - 1];
        v * speed_gbps / s
    };
    let max_frame = mtu * 8.0 + 160.0;
    let pause = 672.0;
    let cable = cable_m * 5e-9 * speed_gbps * 1e9;
    let bits = max_frame + pause + 2.0 * pick(INTF) + 2.0 * cable + pick(RESP) + max_frame;
    (bits / 8.0).ceil()
}

/// Every RoCE switch port's ECN setting on the queue RoCE (DSCP `dscp`) takes on that port,
/// read through its own maps (`dscp_to_tc`, then `tc_to_queue`), grouped by tier (role and
/// speed), for consistency checks across devices (ECN008). A port whose maps are unknown is
/// left out, and so is one where RoCE lands in a class whose PFC priority is not in `lossless`
/// (DSCP002 reports it; its queue is not the RoCE queue the tier is compared on).
fn roce_queue_settings(
    devices: Value,
    dscp: usize,
    lossless: Value,
) -> Result<Value, minijinja::Error> {
    let mut out = Vec::new();
    for d in devices.try_iter()? {
        if !d.get_attr("is_switch")?.is_true() {
            continue;
        }
        let role = d.get_attr("role")?.to_string();
        for i in d.get_attr("interfaces")?.try_iter()? {
            if !i.get_attr("roce")?.is_true() {
                continue;
            }
            let entry = |map: &str, k: usize| {
                view::read_once(&i, map)
                    .and_then(|m| m.get_item_by_index(k))
                    .ok()
                    .filter(|v| !v.is_undefined())
                    .and_then(|v| v.as_usize())
            };
            let tc = entry("dscp_to_tc", dscp);
            if let Some(p) = tc.and_then(|tc| entry("tc_to_pfc_priority", tc))
                && !lossless.try_iter()?.any(|l| l.as_usize() == Some(p))
            {
                continue;
            }
            let q = tc.and_then(|tc| entry("tc_to_queue", tc));
            let Some(q) = q else {
                continue;
            };
            let Ok(ecn) = view::read_once(&i, "queues")
                .and_then(|qs| qs.get_item_by_index(q))
                .and_then(|qv| qv.get_attr("ecn"))
            else {
                continue;
            };
            let get = |k: &str| ecn.get_attr(k).ok().filter(|v| !v.is_undefined());
            let (Some(min), Some(max)) = (get("min_bytes"), get("max_bytes")) else {
                continue;
            };
            // Unknown values are said so in words, never as a placeholder character.
            let p = get("max_probability_pct")
                .map(|v| format!("pmax {v}%"))
                .unwrap_or_else(|| "pmax not stated".into());
            let speed = view::read_once(&i, "speed_gbps")
                .ok()
                .filter(|v| !v.is_undefined());
            let group = match speed {
                Some(v) => format!("{role}/{v}G"),
                None => format!("{role}/unknown-speed"),
            };
            let mut m = BTreeMap::new();
            m.insert("device", d.get_attr("name")?);
            m.insert("interface", i.get_attr("name")?);
            m.insert("group", Value::from(group));
            m.insert(
                "setting",
                Value::from(format!("min {min} B, max {max} B, {p}")),
            );
            out.push(Value::from(m));
        }
    }
    Ok(Value::from(out))
}

/// Items whose `value` attribute differs from the most common value in their `key` group.
fn outliers(items: Value, key: String, value: String) -> Result<Value, minijinja::Error> {
    let mut groups: BTreeMap<String, Vec<(Value, String)>> = BTreeMap::new();
    for it in items.try_iter()? {
        let k = it.get_attr(&key)?.to_string();
        let v = it.get_attr(&value)?;
        if v.is_undefined() || v.is_none() {
            continue;
        }
        groups
            .entry(k)
            .or_default()
            .push((it.clone(), v.to_string()));
    }
    let mut out = Vec::new();
    for (_, members) in groups {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, v) in &members {
            *counts.entry(v.as_str()).or_default() += 1;
        }
        let Some((&common, &n)) = counts.iter().max_by_key(|(_, c)| **c) else {
            continue;
        };
        if n * 2 <= members.len() && counts.len() > 1 && n == 1 {
            // no majority among singletons: nothing to call an outlier
            continue;
        }
        for (it, v) in &members {
            if v != common {
                out.push(it.clone());
            }
        }
    }
    Ok(Value::from(out))
}

fn human_bytes(v: Value) -> String {
    let Some(n) = v
        .as_i64()
        .map(|n| n as f64)
        .or_else(|| f64::try_from(v.clone()).ok())
    else {
        return v.to_string();
    };
    if n >= 1024.0 * 1024.0 && (n / (1024.0 * 1024.0)).fract() == 0.0 {
        format!("{} MiB", n / (1024.0 * 1024.0))
    } else if n >= 1024.0 && (n / 1024.0).fract() == 0.0 {
        format!("{} KiB", n / 1024.0)
    } else {
        format!("{n} B")
    }
}

/// The device as rules see it next to an interface: everything but interfaces and parse data.
#[derive(Serialize)]
pub(super) struct DeviceHead<'a> {
    name: &'a str,
    platform: &'a str,
    role: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    os_version: &'a crate::model::Field<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hostname: &'a crate::model::Field<String>,
    is_switch: bool,
    qos: &'a crate::model::DeviceQos,
    platform_reason: &'a str,
    parse: &'a [crate::model::FileParse],
    #[serde(skip_serializing_if = "Option::is_none")]
    error: &'a Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    host: &'a Option<crate::model::Host>,
    #[serde(skip_serializing_if = "Option::is_none")]
    drift: &'a Option<Vec<crate::model::Drift>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    roce_scope: &'a Option<crate::model::RoceScope>,
}

pub(super) fn head(d: &Device) -> DeviceHead<'_> {
    DeviceHead {
        name: &d.name,
        platform: &d.platform,
        role: &d.role,
        os_version: &d.os_version,
        hostname: &d.hostname,
        is_switch: d.is_switch,
        qos: &d.qos,
        platform_reason: &d.platform_reason,
        parse: &d.parse,
        error: &d.error,
        host: &d.host,
        drift: &d.drift,
        roce_scope: &d.roce_scope,
    }
}

/// Prepared values of one device.
pub(super) struct DevVals {
    pub(super) head: Value,
    pub(super) full: Value,
    pub(super) ifaces: Vec<Value>,
}

/// Model fields removed before evaluation, as dotted paths below an interface (`rdma.np_enable`)
/// or a device (`host.gpus`): what every rule sees when that input was not collected. Used by
/// the meta-test that a rule never turns a missing input into an error or warning.
#[derive(Debug, Default, Clone)]
pub struct Mask {
    pub interface: Vec<String>,
    pub device: Vec<String>,
}

impl Mask {
    fn is_empty(&self) -> bool {
        self.interface.is_empty() && self.device.is_empty()
    }
}

/// `v` without the fields at `paths` (dotted, below `v`).
fn without<T: Serialize>(v: &T, paths: &[String]) -> Value {
    if paths.is_empty() {
        return Value::from(Serde(v));
    }
    let mut j = serde_json::to_value(v).unwrap_or(serde_json::Value::Null);
    for p in paths {
        let segs: Vec<&str> = p.split('.').collect();
        remove_path(&mut j, &segs);
    }
    Value::from(Serde(j))
}

fn remove_path(j: &mut serde_json::Value, segs: &[&str]) {
    match (j, segs) {
        (serde_json::Value::Object(m), [last]) => {
            m.remove(*last);
        }
        (serde_json::Value::Object(m), [first, rest @ ..]) => {
            if let Some(x) = m.get_mut(*first) {
                remove_path(x, rest);
            }
        }
        // `pgs.xoff_bytes`: every element of a list
        (serde_json::Value::Array(a), segs) => {
            for x in a {
                remove_path(x, segs);
            }
        }
        _ => {}
    }
}

pub(super) fn dev_vals(d: &Device, mask: &Mask) -> DevVals {
    let head_v = without(&head(d), &mask.device);
    let ifaces: Vec<Value> = d
        .interfaces
        .iter()
        .map(|i| without(i, &mask.interface))
        .collect();
    let mut full: BTreeMap<String, Value> = BTreeMap::new();
    if let Ok(it) = head_v.try_iter() {
        for k in it {
            if let Some(s) = k.as_str()
                && let Ok(v) = head_v.get_attr(s)
            {
                full.insert(s.to_string(), v);
            }
        }
    }
    full.insert("interfaces".into(), Value::from(ifaces.clone()));
    DevVals {
        head: head_v,
        full: Value::from(full),
        ifaces,
    }
}

/// What a rule said about one object.
enum Outcome {
    NotApplicable,
    Pass,
    Fail(Vec<(Value, BTreeMap<String, Value>)>),
    Undecided(Vec<String>, String),
}

fn undefined_path(err: &minijinja::Error) -> Option<String> {
    if err.kind() != ErrorKind::UndefinedError {
        return None;
    }
    let d = err.detail()?;
    let start = d.find('`')?;
    let end = d[start + 1..].find('`')?;
    Some(d[start + 1..start + 1 + end].to_string())
}

/// Resolve a dotted path (no subscripts) in a context; true when it is undefined.
fn path_undefined(ctx: &Value, path: &str) -> bool {
    let mut cur = ctx.clone();
    for seg in path.split('.') {
        match cur.get_attr(seg) {
            Ok(v) if !v.is_undefined() => cur = v,
            _ => return true,
        }
    }
    false
}

/// The names a rule's expressions see: the object's values (built once per object and shared
/// by every rule on it), the rule's `param`, then the `let`s computed so far (a later one hides
/// an earlier one of the same name). Looked up in place rather than copied into a map per rule
/// and per `let`.
#[derive(Debug)]
struct Names {
    base: Arc<BTreeMap<String, Value>>,
    param: Value,
    lets: Vec<(String, Value)>,
}

impl Names {
    fn value(
        base: &Arc<BTreeMap<String, Value>>,
        param: &Value,
        lets: &[(String, Value)],
    ) -> Value {
        Value::from_object(Names {
            base: base.clone(),
            param: param.clone(),
            lets: lets.to_vec(),
        })
    }

    /// The same names as one map (for the rare paths that add `item` or render a template).
    fn map(
        base: &BTreeMap<String, Value>,
        param: &Value,
        lets: &[(String, Value)],
    ) -> BTreeMap<String, Value> {
        let mut m = base.clone();
        m.insert("param".into(), param.clone());
        m.extend(lets.iter().cloned());
        m
    }
}

impl Object for Names {
    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        self.get_value_by_str(key.as_str()?)
    }

    fn get_value_by_str(self: &Arc<Self>, key: &str) -> Option<Value> {
        if let Some((_, v)) = self.lets.iter().rev().find(|(n, _)| n == key) {
            return Some(v.clone());
        }
        if key == "param" {
            return Some(self.param.clone());
        }
        self.base.get(key).cloned()
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        let mut keys: std::collections::BTreeSet<&str> =
            self.base.keys().map(String::as_str).collect();
        keys.insert("param");
        keys.extend(self.lets.iter().map(|(n, _)| n.as_str()));
        Enumerator::Values(keys.into_iter().map(Value::from).collect())
    }
}

fn run_rule(rule: &Rule, base: &Arc<BTreeMap<String, Value>>, param: &Value) -> Outcome {
    let ctx = Names::value(base, param, &[]);
    match rule.applies.eval(&ctx) {
        Ok(v) if v.is_true() => {}
        Err(e) if e.kind() == ErrorKind::OutOfFuel => return out_of_fuel(),
        _ => return Outcome::NotApplicable,
    }
    let mut vars: Vec<(String, Value)> = Vec::with_capacity(rule.lets.len());
    for (n, (name, e)) in rule.lets.iter().enumerate() {
        let ctx = Names::value(base, param, &vars);
        match e.eval(&ctx) {
            Ok(v) if v.is_undefined() => {
                let mut refs = undefined_refs(e.undeclared_variables(true), &ctx);
                if refs.is_empty() {
                    // A subscripted field (`i.pgs[pg].xoff_bytes`): name it by its expression.
                    let text = rule
                        .spec
                        .lets
                        .get(n)
                        .map(|l| l.get_ref().as_str())
                        .unwrap_or("");
                    let expr = text.split_once('=').map(|(_, x)| x.trim()).unwrap_or(name);
                    refs.push(expr.to_string());
                }
                return Outcome::Undecided(refs, String::new());
            }
            Ok(v) => vars.push((name.clone(), v)),
            Err(err) if err.kind() == ErrorKind::OutOfFuel => return out_of_fuel(),
            Err(err) => return undecided(&err, e.undeclared_variables(true), &ctx),
        }
    }
    let ctx = Names::value(base, param, &vars);
    let lets: BTreeMap<String, Value> = vars.into_iter().collect();
    match rule.check.eval(&ctx) {
        Ok(v) => match v.kind() {
            ValueKind::Undefined => Outcome::Undecided(
                undefined_refs(rule.check.undeclared_variables(true), &ctx),
                String::new(),
            ),
            ValueKind::Bool if v.is_true() => Outcome::Pass,
            ValueKind::Bool => Outcome::Fail(vec![(Value::UNDEFINED, lets)]),
            ValueKind::None => Outcome::Pass,
            ValueKind::Seq | ValueKind::Iterable => {
                let items: Vec<Value> = v.try_iter().map(|it| it.collect()).unwrap_or_default();
                if items.is_empty() {
                    Outcome::Pass
                } else {
                    Outcome::Fail(items.into_iter().map(|it| (it, lets.clone())).collect())
                }
            }
            other => Outcome::Undecided(
                vec![],
                format!("rule check returned a {other:?}, expected a boolean or a list"),
            ),
        },
        Err(err) if err.kind() == ErrorKind::OutOfFuel => out_of_fuel(),
        Err(err) => undecided(&err, rule.check.undeclared_variables(true), &ctx),
    }
}

/// What a rule that used up its fuel ([`super::RULE_FUEL`]) reports: it could not decide, and
/// says why (not a missing field, and not "not applicable": an `applies` that runs out of fuel
/// must not pass silently).
fn out_of_fuel() -> Outcome {
    Outcome::Undecided(
        vec![],
        format!(
            "{OUT_OF_FUEL} of {} steps (minijinja fuel) on this object",
            super::RULE_FUEL
        ),
    )
}

/// How the reason of [`out_of_fuel`] begins; [`with_source_hint`] keeps that reason.
const OUT_OF_FUEL: &str = "it went past its budget";

fn undefined_refs(vars: std::collections::HashSet<String>, ctx: &Value) -> Vec<String> {
    let mut v: Vec<String> = vars
        .into_iter()
        .filter(|p| path_undefined(ctx, p))
        .collect();
    v.sort();
    v
}

/// When an undecided outcome names no field (an undefined value reached through a subscript,
/// `i.pgs[pg].lossless`), name the field the rule cites as its source instead.
fn with_source_hint(
    rule: &Rule,
    env: &Environment,
    base: &dyn Fn() -> BTreeMap<String, Value>,
    outcome: Outcome,
) -> Outcome {
    match outcome {
        Outcome::Undecided(missing, err) if missing.is_empty() && !err.starts_with(OUT_OF_FUEL) => {
            let Some(src) = &rule.spec.source else {
                return Outcome::Undecided(missing, err);
            };
            // The source may use `let` values; render with what the base context has.
            let mut ctx = base();
            for (name, e) in &rule.lets {
                if let Ok(v) = e.eval(Value::from(ctx.clone())) {
                    ctx.insert(name.clone(), v);
                }
            }
            let path = match &rule.source {
                Some(t) => t.render(Value::from(ctx)).unwrap_or_else(|_| src.clone()),
                None => env
                    .render_str(src, Value::from(ctx))
                    .unwrap_or_else(|_| src.clone()),
            };
            Outcome::Undecided(vec![path], String::new())
        }
        other => other,
    }
}

fn undecided(
    err: &minijinja::Error,
    vars: std::collections::HashSet<String>,
    ctx: &Value,
) -> Outcome {
    match undefined_path(err) {
        Some(p) => Outcome::Undecided(vec![p], String::new()),
        None => {
            let refs = undefined_refs(vars, ctx);
            Outcome::Undecided(refs, format!("{err}"))
        }
    }
}

/// Identity of the object a rule ran on.
struct Obj<'a> {
    device: &'a str,
    interface: Option<&'a str>,
    /// The names as the findings hold them, made once and shared by every finding on the
    /// device (the cell lives with the device's evaluation) and on the interface.
    device_shared: &'a OnceCell<Arc<str>>,
    interface_shared: OnceCell<Arc<str>>,
    peer: Option<Endpoint>,
    /// Root variable name → the model object, for source lookup.
    roots: Vec<(&'static str, &'a dyn erased::Ser)>,
    fallback: Option<Location>,
}

impl Obj<'_> {
    fn device_name(&self) -> Arc<str> {
        self.device_shared
            .get_or_init(|| Arc::from(self.device))
            .clone()
    }

    fn interface_name(&self) -> Option<Arc<str>> {
        let i = self.interface?;
        Some(self.interface_shared.get_or_init(|| Arc::from(i)).clone())
    }
}

mod erased {
    /// Object-safe serialization to JSON (for provenance lookup).
    pub trait Ser: Sync {
        fn to_json(&self) -> serde_json::Value;
        /// What `to_json()[name]` is, without serializing the object's other fields.
        fn field_json(&self, name: &str) -> Option<serde_json::Value>;
    }
    impl<T: serde::Serialize + Sync> Ser for T {
        fn to_json(&self) -> serde_json::Value {
            serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
        }
        fn field_json(&self, name: &str) -> Option<serde_json::Value> {
            let (_, v) = crate::rules::fields::named_field(self, name)?;
            serde_json::to_value(&v).ok()
        }
    }
}

/// Look up the provenance of a field path such as `i.pfc.mode` or `i.queues[3].ecn.min_bytes`.
/// Only the root's field the path starts with is serialized (`rules::fields::named_field`): a
/// device-scope rule's source (`d.qos.nodrop_class_mtu`) serialized the whole device, its
/// ports and every unrecognized line of its files, into a JSON tree for each finding (issue 19: 1.4 MB of the audit's
/// 1.8 MB peak on a 36 KB config of short unrecognized lines).
fn source_of(obj: &Obj, path: &str) -> Option<Location> {
    let mut segs = path.split('.');
    let root = segs.next()?;
    let (_, o) = obj.roots.iter().find(|(n, _)| *n == root)?;
    let mut cur: Option<serde_json::Value> = None;
    for seg in segs {
        let (name, idx) = match seg.split_once('[') {
            Some((n, rest)) => (n, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (seg, None),
        };
        let mut next = match cur.as_mut() {
            None => with_sources(|| o.field_json(name))?,
            Some(c) => c.get_mut(name)?.take(),
        };
        if let Some(i) = idx {
            next = next.get_mut(i)?.take();
        }
        let done = next.get("value").is_some() && next.get("default").is_some();
        cur = Some(next);
        if done {
            break;
        }
    }
    let cur = match cur {
        Some(c) => c,
        None => with_sources(|| o.to_json()),
    };
    let file = cur.get("file")?.as_str()?;
    let line = cur.get("line")?.as_u64()? as u32;
    Some(Location::new(file, line))
}

/// What groups "could not decide" outcomes into one finding: (rule, device, missing fields,
/// error).
type UndecidedKey = (String, String, Vec<String>, String);

/// "Could not decide" outcomes, grouped as they are met: each group's interfaces in the order
/// their objects were evaluated. Grouped here rather than listed one outcome at a time: a rule
/// undecided on every port held its id, device, missing fields and error once per port until
/// the end of the evaluation (issue 19: on a 1 MiB config of 16,000 ports, three undecided
/// rules held 14 MB that the three findings they become do not need).
#[derive(Default)]
struct Undecided {
    /// Each group's interfaces: the names its findings share (16 bytes an interface, where a
    /// copy of each name was 40; issue 19).
    groups: Vec<(UndecidedKey, Vec<Arc<str>>)>,
    /// The groups by the hash of their key: usually few groups, but an error text that quotes
    /// a port's own value makes one a port, and a scan per outcome would then be quadratic.
    by_hash: HashMap<u64, Vec<usize>>,
}

impl Undecided {
    fn add(
        &mut self,
        rule: &str,
        device: &str,
        iface: Option<Arc<str>>,
        missing: Vec<String>,
        err: String,
    ) {
        use std::hash::BuildHasher;
        // A fixed hasher: only equal keys must meet, the order is the groups' own.
        let hash =
            std::hash::BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default()
                .hash_one((rule, device, &missing, &err));
        let slot = self.by_hash.entry(hash).or_default();
        let found = slot.iter().copied().find(|&g| {
            let (r, d, m, e) = &self.groups[g].0;
            r == rule && d == device && *m == missing && *e == err
        });
        let at = found.unwrap_or_else(|| {
            let key = (rule.to_string(), device.to_string(), missing, err);
            self.groups.push((key, Vec::new()));
            slot.push(self.groups.len() - 1);
            self.groups.len() - 1
        });
        self.groups[at].1.extend(iface);
    }
}

/// Every object's [`Undecided`], merged in the order the objects were evaluated.
#[derive(Default)]
struct UndecidedAll(BTreeMap<UndecidedKey, Vec<Arc<str>>>);

impl UndecidedAll {
    fn extend(&mut self, u: Undecided) {
        for (key, ifaces) in u.groups {
            self.0.entry(key).or_default().extend(ifaces);
        }
    }
}

/// Indices (device, interface) of both ends of a link.
type LinkEnds = ((usize, usize), (usize, usize));

#[derive(Default)]
struct Pending {
    undecided: Undecided,
    findings: Vec<Finding>,
    /// What this object's findings say (rule, message shape, evidence), shared between its
    /// ports: a finding is its kind and its object (`finding::Kind`).
    kinds: crate::finding::Kinds,
    /// How many times each rule (by its index in the rule set) ran and passed on an object
    /// (for coverage: a clean fixture must exercise a rule, not merely not reach it), added up
    /// by [`Tally`]: a rule passes on most of 52,000 ports, and cloning its id for each pass,
    /// then looking it up in two maps keyed by id, cost several allocations a pass. Counted
    /// here, not listed: a list of the passes was 1 MB on a device of 15,800 ports (issue 19).
    passed: Vec<usize>,
    /// Platforms of the objects (a device, or both ends of a link) for per-platform coverage.
    on: Vec<String>,
}

pub use crate::finding::Passes;

/// Passes counted by rule index, turned into [`Passes`] (keyed by rule id) once at the end:
/// the same counts and platform sets as adding every pass to the maps by id.
struct Tally {
    count: Vec<usize>,
    platforms: Vec<BTreeSet<String>>,
}

impl Tally {
    fn new(rs: &RuleSet) -> Tally {
        Tally {
            count: vec![0; rs.rules.len()],
            platforms: vec![BTreeSet::new(); rs.rules.len()],
        }
    }

    /// The passes of one object (a count per rule index), whose platforms are `on`.
    fn add(&mut self, passed: &[usize], on: &[String]) {
        for (ri, &n) in passed.iter().enumerate().filter(|(_, n)| **n > 0) {
            if let (Some(c), Some(p)) = (self.count.get_mut(ri), self.platforms.get_mut(ri)) {
                *c += n;
                for o in on {
                    if !p.contains(o) {
                        p.insert(o.clone());
                    }
                }
            }
        }
    }

    fn passes(self, rs: &RuleSet) -> Passes {
        let mut out = Passes::default();
        for ((r, n), on) in rs.rules.iter().zip(self.count).zip(self.platforms) {
            if n == 0 {
                continue;
            }
            *out.count.entry(r.spec.id.clone()).or_default() += n;
            out.platforms
                .entry(r.spec.id.clone())
                .or_default()
                .extend(on);
        }
        out
    }
}

fn record(
    (ri, rule): (usize, &Rule),
    env: &Environment,
    obj: &Obj,
    (base, param): (&Arc<BTreeMap<String, Value>>, &Value),
    out: &mut Pending,
) {
    let full = || Names::map(base, param, &[]);
    match with_source_hint(rule, env, &full, run_rule(rule, base, param)) {
        Outcome::NotApplicable => {}
        Outcome::Pass => {
            if out.passed.len() <= ri {
                out.passed.resize(ri + 1, 0);
            }
            out.passed[ri] += 1;
        }
        Outcome::Undecided(missing, err) => out.undecided.add(
            &rule.spec.id,
            obj.device,
            obj.interface_name(),
            missing,
            err,
        ),
        Outcome::Fail(items) => {
            let base = full();
            for (item, lets) in items {
                let mut ctx = base.clone();
                ctx.extend(lets.clone());
                ctx.insert("item".into(), item.clone());
                let ctxv = Value::from(ctx);
                let attr = |k: &str| -> Option<Value> {
                    item.get_attr(k)
                        .ok()
                        .filter(|v| !v.is_undefined() && !v.is_none())
                };
                let mut text = match attr("message") {
                    Some(m) => m.to_string(),
                    None => rule.message.render(&ctxv).unwrap_or_else(|e| {
                        format!("{} (message template failed: {e})", rule.spec.title)
                    }),
                };
                // A rendered template keeps the room its renderer reserved, about four times
                // the text: on a config whose ranges name hundreds of ports (three findings a
                // port) that room was a fifth of the audit's peak (issue 19: memory within 20
                // times the input). It is kept for as long as the finding lives.
                text.shrink_to_fit();
                let severity = attr("severity")
                    .and_then(|s| Severity::parse(&s.to_string()))
                    .unwrap_or(rule.severity);
                let mut evidence = Evidence::new();
                for (k, v) in &lets {
                    evidence.insert_serialized(k, v);
                }
                if let Ok(keys) = item.try_iter()
                    && item.kind() == ValueKind::Map
                {
                    for k in keys {
                        let Some(ks) = k.as_str() else { continue };
                        if matches!(
                            ks,
                            "message"
                                | "severity"
                                | "device"
                                | "interface"
                                | "source"
                                | "file"
                                | "line"
                        ) {
                            continue;
                        }
                        if let Ok(v) = item.get_attr(ks) {
                            evidence.insert_serialized(ks, &v);
                        }
                    }
                }
                let source_path = attr("source").map(|s| s.to_string()).or_else(|| {
                    rule.spec.source.as_ref().map(|s| match &rule.source {
                        Some(t) => t.render(&ctxv).unwrap_or_else(|_| s.clone()),
                        None => env.render_str(s, &ctxv).unwrap_or_else(|_| s.clone()),
                    })
                });
                // Items may name their own source: `file` + `line`, or a parse entry whose first
                // unrecognized line / undefined reference gives the line.
                let first_line = |k: &str| -> Option<i64> {
                    attr(k)?
                        .get_item_by_index(0)
                        .ok()?
                        .get_attr("line")
                        .ok()?
                        .as_i64()
                };
                let direct = attr("file").map(|f| {
                    let line = attr("line")
                        .and_then(|l| l.as_i64())
                        .or_else(|| first_line("unrecognized"))
                        .or_else(|| first_line("undefined"))
                        .unwrap_or(0) as u32;
                    Location::new(&f.to_string(), line)
                });
                let source = direct
                    .or_else(|| source_path.and_then(|p| source_of(obj, &p)))
                    .or(obj.fallback);
                let interface = attr("interface")
                    .map(|v| Arc::from(v.to_string()))
                    .or_else(|| obj.interface_name());
                let finding = out.kinds.finding(Parts {
                    rule: rule.id.clone(),
                    severity,
                    title: rule.title.clone(),
                    message: text,
                    device: attr("device")
                        .map(|v| Arc::from(v.to_string()))
                        .unwrap_or_else(|| obj.device_name()),
                    interface,
                    peer: obj.peer.clone().map(Box::new),
                    source,
                    evidence,
                    remediation: None,
                });
                crate::growth::push_grown(&mut out.findings, finding);
            }
        }
    }
}

/// Run every rule of one scope on one object (`base` gets each rule's `param`).
fn run_scope(
    rs: &RuleSet,
    rules: &[(usize, &Rule)],
    params: &[Value],
    obj: &Obj,
    base: &Arc<BTreeMap<String, Value>>,
    out: &mut Pending,
) {
    for (ri, rule) in rules {
        record((*ri, rule), rs.env, obj, (base, &params[*ri]), out);
    }
}

/// Parameters of a rule after `fabric.toml [policy]` overrides.
fn params_of(rule: &Rule, policy: &serde_json::Map<String, serde_json::Value>) -> Value {
    let mut m = serde_json::Map::new();
    for (k, v) in &rule.spec.params {
        let v = policy
            .get(k)
            .cloned()
            .unwrap_or_else(|| serde_json::to_value(v).unwrap_or(serde_json::Value::Null));
        m.insert(k.clone(), v);
    }
    Value::from(Serde(m))
}

/// Evaluate every rule on the fabric. Output is sorted and deterministic.
pub fn evaluate(rs: &RuleSet, fabric: &Fabric) -> Vec<Finding> {
    evaluate_with_passes(rs, fabric).0
}

/// Evaluate, also counting per rule how many objects it checked and passed.
pub fn evaluate_with_passes(rs: &RuleSet, fabric: &Fabric) -> (Vec<Finding>, Passes) {
    evaluate_only(rs, fabric, &|_| true)
}

/// Evaluate only the rules `keep` accepts (the WAIVER rules run after the waiver pass).
pub fn evaluate_only(
    rs: &RuleSet,
    fabric: &Fabric,
    keep: &(dyn Fn(&Rule) -> bool + Sync),
) -> (Vec<Finding>, Passes) {
    evaluate_masked(rs, fabric, keep, &Mask::default())
}

/// `evaluate_only` on the fabric with the fields of `mask` removed from every device and
/// interface (as if those inputs had not been collected).
pub fn evaluate_masked(
    rs: &RuleSet,
    fabric: &Fabric,
    keep: &(dyn Fn(&Rule) -> bool + Sync),
    mask: &Mask,
) -> (Vec<Finding>, Passes) {
    if mask.is_empty() {
        // Views need devices they can share; a caller holding only a reference pays a copy of
        // the model (still far smaller than converting it). The audit uses `evaluate_in_place`.
        let devices: view::Devices = Arc::new(fabric.devices.clone());
        return evaluate_on(rs, fabric, &devices, &Vals::Views(devices.clone()), keep);
    }
    // serde_json round trips: in this thread, under the caller's source setting
    let vals = fabric.devices.iter().map(|d| dev_vals(d, mask)).collect();
    evaluate_on(rs, fabric, &fabric.devices, &Vals::Eager(vals), keep)
}

/// `evaluate_only` on a fabric the caller owns: its devices are lent to the rules' views for
/// the evaluation and put back after it, so the model is neither copied nor converted.
pub fn evaluate_in_place(
    rs: &RuleSet,
    fabric: &mut Fabric,
    keep: &(dyn Fn(&Rule) -> bool + Sync),
) -> (Vec<Finding>, Passes) {
    let devices: view::Devices = Arc::new(std::mem::take(&mut fabric.devices));
    let vals = Vals::Views(devices.clone());
    let out = evaluate_on(rs, fabric, &devices, &vals, keep);
    drop(vals);
    // Every view died with its evaluation, so this is the only owner left; cloning is only
    // the fallback should a value have outlived it.
    fabric.devices = Arc::try_unwrap(devices).unwrap_or_else(|d| (*d).clone());
    out
}

/// The values rules read of each device and interface: views over the model, or (with a
/// mask) full conversions with the masked fields removed.
enum Vals {
    Views(view::Devices),
    Eager(Vec<DevVals>),
}

impl Vals {
    fn head(&self, di: usize) -> Value {
        match self {
            Vals::Views(d) => view::head(d, di),
            Vals::Eager(v) => v[di].head.clone(),
        }
    }
    fn full(&self, di: usize) -> Value {
        match self {
            Vals::Views(d) => view::full(d, di),
            Vals::Eager(v) => v[di].full.clone(),
        }
    }
    fn iface(&self, di: usize, ii: usize) -> Value {
        match self {
            Vals::Views(d) => view::iface(d, di, ii),
            Vals::Eager(v) => v[di].ifaces[ii].clone(),
        }
    }
    fn all(&self) -> Value {
        match self {
            Vals::Views(d) => view::all(d),
            Vals::Eager(v) => Value::from(v.iter().map(|v| v.full.clone()).collect::<Vec<_>>()),
        }
    }
}

/// Evaluate the rules `keep` accepts on `devices` (the fabric's, read through `vals`) and the
/// links, notices and policy of `fabric` (whose own device list is not read).
fn evaluate_on(
    rs: &RuleSet,
    fabric: &Fabric,
    devices: &[Device],
    vals: &Vals,
    keep: &(dyn Fn(&Rule) -> bool + Sync),
) -> (Vec<Finding>, Passes) {
    let policy = Value::from(Serde(&fabric.policy));
    let params: Vec<Value> = rs
        .rules
        .iter()
        .map(|r| params_of(r, &fabric.policy))
        .collect();
    let dev_idx: HashMap<&str, usize> = devices
        .iter()
        .enumerate()
        .map(|(i, d)| (d.name.as_str(), i))
        .collect();
    let locate = |e: &Endpoint| -> Option<(usize, usize)> {
        let di = *dev_idx.get(e.device.as_str())?;
        let ii = devices[di]
            .interfaces
            .iter()
            .position(|i| i.name == e.interface)?;
        Some((di, ii))
    };
    // Link ends resolved to (device, interface) indices; peer map for interface scope.
    let link_ends: Vec<Option<LinkEnds>> = fabric
        .links
        .iter()
        .map(|l| Some((locate(&l.a)?, locate(&l.b)?)))
        .collect();
    let mut peer_of: HashMap<(usize, usize), (usize, usize, usize)> = HashMap::new();
    for (li, e) in link_ends.iter().enumerate() {
        if let Some((a, b)) = e {
            peer_of.entry(*a).or_insert((b.0, b.1, li));
            peer_of.entry(*b).or_insert((a.0, a.1, li));
        }
    }
    let by_scope = |s: Scope| -> Vec<(usize, &Rule)> {
        rs.rules
            .iter()
            .enumerate()
            .filter(|(_, r)| r.scope == s && keep(r))
            .collect()
    };
    let if_rules = by_scope(Scope::Interface);
    let host_rules = by_scope(Scope::Host);
    let dev_rules = by_scope(Scope::Device);
    let link_rules = by_scope(Scope::Link);
    let fabric_rules = by_scope(Scope::Fabric);

    let per_device: Vec<Pending> = devices
        .par_iter()
        .enumerate()
        .map(|(di, d)| {
            let mut out = Pending {
                on: vec![d.platform.clone()],
                ..Default::default()
            };
            let d_head = vals.head(di);
            let device_shared = OnceCell::new();
            let mut if_here: Vec<(usize, &Rule)> = Vec::with_capacity(if_rules.len());
            let mut host_here: Vec<(usize, &Rule)> = Vec::with_capacity(host_rules.len());
            for (ii, iface) in d.interfaces.iter().enumerate() {
                // Rules whose `applies` a plain fact rules out here are not evaluated (`guard`).
                let applicable = |r: &&(usize, &Rule)| !r.1.guard.rules_out(d, iface);
                if_here.clear();
                if_here.extend(if_rules.iter().filter(applicable));
                host_here.clear();
                if !d.is_switch && (iface.rdma.is_some() || iface.roce) {
                    host_here.extend(host_rules.iter().filter(applicable));
                }
                if if_here.is_empty() && host_here.is_empty() {
                    continue;
                }
                let mut base: BTreeMap<String, Value> = BTreeMap::new();
                base.insert("i".into(), vals.iface(di, ii));
                base.insert("d".into(), d_head.clone());
                base.insert("policy".into(), policy.clone());
                let peer = peer_of.get(&(di, ii));
                let mut roots: Vec<(&'static str, &dyn erased::Ser)> = vec![("i", iface)];
                let mut peer_ep = None;
                if let Some(&(pd, pi, li)) = peer {
                    base.insert("peer".into(), vals.iface(pd, pi));
                    base.insert("peer_d".into(), vals.head(pd));
                    base.insert("link".into(), Value::from(Serde(&fabric.links[li])));
                    roots.push(("peer", &devices[pd].interfaces[pi]));
                    peer_ep = Some(Endpoint {
                        device: devices[pd].name.clone(),
                        interface: devices[pd].interfaces[pi].name.clone(),
                    });
                }
                let obj = Obj {
                    device: &d.name,
                    interface: Some(&iface.name),
                    device_shared: &device_shared,
                    interface_shared: OnceCell::new(),
                    peer: peer_ep,
                    roots,
                    fallback: iface.defined_at.as_ref().map(Location::from),
                };
                let base = Arc::new(base);
                run_scope(rs, &if_here, &params, &obj, &base, &mut out);
                run_scope(rs, &host_here, &params, &obj, &base, &mut out);
            }
            let mut base: BTreeMap<String, Value> = BTreeMap::new();
            base.insert("d".into(), vals.full(di));
            base.insert("policy".into(), policy.clone());
            let obj = Obj {
                device: &d.name,
                interface: None,
                device_shared: &device_shared,
                interface_shared: OnceCell::new(),
                peer: None,
                roots: vec![("d", d)],
                fallback: None,
            };
            let dev_here: Vec<(usize, &Rule)> = dev_rules
                .iter()
                .filter(|r| !r.1.guard.rules_out_device(d))
                .copied()
                .collect();
            run_scope(rs, &dev_here, &params, &obj, &Arc::new(base), &mut out);
            out
        })
        .collect();

    let per_link: Vec<Pending> = fabric
        .links
        .par_iter()
        .enumerate()
        .filter_map(|(li, l)| {
            let ((ad, ai), (bd, bi)) = link_ends[li]?;
            let mut out = Pending {
                on: vec![devices[ad].platform.clone(), devices[bd].platform.clone()],
                ..Default::default()
            };
            let a: &Interface = &devices[ad].interfaces[ai];
            let b: &Interface = &devices[bd].interfaces[bi];
            let mut base: BTreeMap<String, Value> = BTreeMap::new();
            base.insert("a".into(), vals.iface(ad, ai));
            base.insert("b".into(), vals.iface(bd, bi));
            base.insert("ad".into(), vals.head(ad));
            base.insert("bd".into(), vals.head(bd));
            base.insert("link".into(), Value::from(Serde(l)));
            base.insert("policy".into(), policy.clone());
            let obj = Obj {
                device: &l.a.device,
                interface: Some(&l.a.interface),
                device_shared: &OnceCell::new(),
                interface_shared: OnceCell::new(),
                peer: Some(l.b.clone()),
                roots: vec![("a", a), ("b", b), ("link", l as &Link)],
                fallback: l.src.as_ref().map(Location::from),
            };
            run_scope(rs, &link_rules, &params, &obj, &Arc::new(base), &mut out);
            Some(out)
        })
        .collect();

    // A fabric-wide rule looks at every device at once: it covers every platform present.
    let mut fab = Pending {
        on: devices.iter().map(|d| d.platform.clone()).collect(),
        ..Default::default()
    };
    if !fabric_rules.is_empty() {
        let mut base: BTreeMap<String, Value> = BTreeMap::new();
        base.insert("devices".into(), vals.all());
        base.insert(
            "links".into(),
            Value::from(
                fabric
                    .links
                    .iter()
                    .map(|l| Value::from(Serde(l)))
                    .collect::<Vec<_>>(),
            ),
        );
        base.insert("notices".into(), Value::from(Serde(&fabric.notices)));
        base.insert("policy".into(), policy.clone());
        let obj = Obj {
            device: FABRIC,
            interface: None,
            device_shared: &OnceCell::new(),
            interface_shared: OnceCell::new(),
            peer: None,
            roots: vec![],
            fallback: None,
        };
        run_scope(rs, &fabric_rules, &params, &obj, &Arc::new(base), &mut fab);
    }

    // Sized once, then filled: each object's list is freed as it is moved in, where growing
    // the list by doubling held the old and the new buffer and every object's list at once.
    let total: usize = per_device
        .iter()
        .chain(&per_link)
        .chain(std::iter::once(&fab))
        .map(|p| p.findings.len())
        .sum();
    let mut findings = Vec::new();
    let mut undecided = UndecidedAll::default();
    let mut tally = Tally::new(rs);
    for mut p in per_device
        .into_iter()
        .chain(per_link)
        .chain(std::iter::once(fab))
    {
        if findings.capacity() == 0 {
            // The first object's list becomes the whole list (one device has most or all of
            // them): it is not copied, only made room in for the others.
            findings = std::mem::take(&mut p.findings);
            findings.reserve_exact(total - findings.len());
        }
        findings.extend(p.findings);
        undecided.extend(p.undecided);
        tally.add(&p.passed, &p.on);
    }
    let passes = tally.passes(rs);
    let aggregated = aggregate_undecided(rs, undecided);
    findings.reserve_exact(aggregated.len());
    findings.extend(aggregated);
    crate::finding::sort(&mut findings);
    // The first object's list grew by doubling: up to half of it empty (328 bytes a finding)
    // for as long as the audit lives.
    findings.shrink_to_fit();
    (findings, passes)
}

/// How many interfaces a "could not decide" message names before it counts the rest; its
/// evidence (`interfaces`) lists them all. A message naming each of 15,800 ports was 230 KB,
/// once for each rule that could not decide on them, and unreadable (issue 19).
const UNDECIDED_NAMED: usize = 32;

/// One info finding per (rule, device, missing fields), listing the interfaces concerned.
fn aggregate_undecided(rs: &RuleSet, groups: UndecidedAll) -> Vec<Finding> {
    let mut out = Vec::new();
    // The lists made so far for the current device: the rules that could not decide on a
    // device mostly could not on the same ports, and share one list.
    let mut lists: Vec<Arc<[Arc<str>]>> = Vec::new();
    let mut lists_of = String::new();
    for ((rule, dev, missing, err), ifaces) in groups.0 {
        let Some(r) = rs.get(&rule) else { continue };
        let what = if missing.is_empty() {
            format!("the rule could not be evaluated: {err}")
        } else {
            format!(
                "{} not known (not collected, or not understood by the parser)",
                missing.join(", ")
            )
        };
        let named = |names: &[Arc<str>]| {
            let v: Vec<&str> = names.iter().map(|n| &**n).collect();
            v.join(", ")
        };
        let on = match ifaces.len() {
            0 => String::new(),
            1 => format!(" on {}", ifaces[0]),
            n if n <= UNDECIDED_NAMED => format!(" on {n} interfaces ({})", named(&ifaces)),
            n => format!(
                " on {n} interfaces ({} and {} more)",
                named(&ifaces[..UNDECIDED_NAMED]),
                n - UNDECIDED_NAMED
            ),
        };
        let mut evidence = Evidence::new();
        evidence.insert("undecided", serde_json::Value::Bool(true));
        evidence.insert("missing", serde_json::json!(missing));
        let interface = match ifaces.len() {
            1 => ifaces.first().cloned(),
            _ => None,
        };
        if ifaces.len() > 1 {
            if lists_of != dev {
                lists.clear();
                lists_of.clone_from(&dev);
            }
            let same = lists
                .iter()
                .find(|l| l.len() == ifaces.len() && l.iter().zip(&ifaces).all(|(a, b)| a == b));
            let list = match same {
                Some(l) => l.clone(),
                None => {
                    let l: Arc<[Arc<str>]> = ifaces.into();
                    if lists.len() == 8 {
                        lists.remove(0);
                    }
                    lists.push(l.clone());
                    l
                }
            };
            evidence.insert_names("interfaces", list);
        }
        out.push(Finding::from(Parts {
            rule: r.id.clone(),
            severity: Severity::Info,
            title: r.title.clone(),
            message: format!("could not decide{on}: {what}"),
            device: dev.into(),
            interface,
            peer: None,
            source: None,
            evidence,
            remediation: None,
        }));
    }
    out
}

/// Evaluate the probe-scope rules on probe results. Each finding carries the index of the probe
/// it is about; "could not decide" findings are aggregated per host like the others.
pub fn evaluate_probes(
    rs: &RuleSet,
    probes: &[crate::model::probe::Probe],
    policy: &serde_json::Map<String, serde_json::Value>,
) -> (Vec<(Option<usize>, Finding)>, Passes) {
    let policy_v = Value::from(Serde(policy));
    let params: Vec<Value> = rs.rules.iter().map(|r| params_of(r, policy)).collect();
    let rules: Vec<(usize, &Rule)> = rs
        .rules
        .iter()
        .enumerate()
        .filter(|(_, r)| r.scope == Scope::Probe)
        .collect();
    let mut out = Vec::new();
    let mut undecided = UndecidedAll::default();
    let mut tally = Tally::new(rs);
    for (pi, p) in probes.iter().enumerate() {
        let mut pending = Pending {
            on: vec!["linux".into()],
            ..Default::default()
        };
        let mut base: BTreeMap<String, Value> = BTreeMap::new();
        base.insert("p".into(), Value::from(Serde(p)));
        base.insert("policy".into(), policy_v.clone());
        let obj = Obj {
            device: &p.src,
            interface: Some(&p.src_if),
            device_shared: &OnceCell::new(),
            interface_shared: OnceCell::new(),
            peer: Some(Endpoint {
                device: p.dst.clone(),
                interface: p.dst_if.clone(),
            }),
            roots: vec![],
            fallback: None,
        };
        run_scope(rs, &rules, &params, &obj, &Arc::new(base), &mut pending);
        out.extend(pending.findings.into_iter().map(|f| (Some(pi), f)));
        undecided.extend(pending.undecided);
        tally.add(&pending.passed, &pending.on);
    }
    out.extend(
        aggregate_undecided(rs, undecided)
            .into_iter()
            .map(|f| (None, f)),
    );
    (out, tally.passes(rs))
}
