//! Rule packs: `rules/*.toml` read (serde), validated, and compiled into minijinja expressions
//! once. Field names are checked against the model schema at load, so a typo is an error with
//! its file:line, never a rule that silently does nothing. `rules/policy.toml` holds the fabric
//! policy defaults that `fabric.toml [policy]` overrides.

pub mod eval;
mod fields;
mod guard;
mod view;
pub mod waivers;

use crate::finding::Severity;
use crate::parser::line_col;
use minijinja::{Environment, Expression, UndefinedBehavior};
use serde::Deserialize;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use toml::Spanned;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PackSpec {
    #[serde(rename = "rule", default)]
    rules: Vec<Spanned<RuleSpec>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicySpec {
    policy: toml::Table,
}

#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct RuleSpec {
    pub id: String,
    pub title: String,
    pub family: String,
    pub severity: String,
    pub scope: String,
    #[serde(default = "yes")]
    pub applies: Spanned<String>,
    /// Named expressions evaluated in order before `check`: "name = expression".
    #[serde(default, rename = "let")]
    pub lets: Vec<Spanned<String>>,
    pub check: Spanned<String>,
    pub message: Spanned<String>,
    /// Path of the field whose provenance the finding cites (may use `{{ let }}` values).
    #[serde(default)]
    pub source: Option<String>,
    /// Platforms whose inputs can express this rule (fixtures must exist for each).
    pub platforms: Vec<String>,
    #[serde(default)]
    pub params: toml::Table,
    pub doc: RuleDoc,
}

fn yes() -> Spanned<String> {
    Spanned::new(0..0, "true".to_string())
}

#[derive(Debug, Deserialize, Clone, Default, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct RuleDoc {
    pub what: String,
    pub why: String,
    pub example: String,
    pub fix: String,
    #[serde(default)]
    pub references: Vec<String>,
    /// Numbers not confirmed in a primary source, and what was assumed.
    #[serde(default)]
    pub unverified: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    Interface,
    Host,
    Device,
    Link,
    Fabric,
    /// One probe result (`p`); see src/probe.
    Probe,
}

impl Scope {
    fn parse(s: &str) -> Option<Scope> {
        Some(match s {
            "interface" => Scope::Interface,
            "host" => Scope::Host,
            "device" => Scope::Device,
            "link" => Scope::Link,
            "fabric" => Scope::Fabric,
            "probe" => Scope::Probe,
            _ => return None,
        })
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Interface => "interface",
            Scope::Host => "host",
            Scope::Device => "device",
            Scope::Link => "link",
            Scope::Fabric => "fabric",
            Scope::Probe => "probe",
        }
    }
    /// Root variables of the context and the model type each refers to.
    fn roots(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Scope::Interface | Scope::Host => &[
                ("i", "interface"),
                ("d", "device"),
                ("peer", "interface"),
                ("peer_d", "device"),
                ("link", "link"),
            ],
            Scope::Device => &[("d", "device")],
            Scope::Link => &[
                ("a", "interface"),
                ("b", "interface"),
                ("ad", "device"),
                ("bd", "device"),
                ("link", "link"),
            ],
            Scope::Fabric => &[("devices", "list"), ("links", "list"), ("notices", "list")],
            Scope::Probe => &[("p", "probe")],
        }
    }
}

/// A compiled rule.
pub struct Rule {
    pub spec: RuleSpec,
    pub file: String,
    pub line: usize,
    pub severity: Severity,
    pub scope: Scope,
    pub applies: Expression<'static, 'static>,
    pub lets: Vec<(String, Expression<'static, 'static>)>,
    pub check: Expression<'static, 'static>,
    /// The terms of `applies` the engine checks before evaluating it (interface and host scope).
    pub guard: guard::Guard,
    /// `message`, compiled.
    pub message: minijinja::Template<'static, 'static>,
    /// `source`, compiled (None: no source, or one that is not a template; rendered as written).
    pub source: Option<minijinja::Template<'static, 'static>>,
    /// `spec.id` and `spec.title`, one copy that every finding of the rule shares (a finding
    /// is held per object the rule fails on: issue 19).
    pub id: std::sync::Arc<str>,
    pub title: std::sync::Arc<str>,
}

impl Rule {
    /// The model fields the rule's expressions read, as written (`i.rdma.np_enable`,
    /// `d.host.gpus`, `peer.mtu`), without its own `let` names.
    pub fn reads(&self) -> std::collections::BTreeSet<String> {
        let lets: BTreeSet<&str> = self.lets.iter().map(|(n, _)| n.as_str()).collect();
        let mut out = BTreeSet::new();
        let exprs = std::iter::once(&self.applies)
            .chain(self.lets.iter().map(|(_, e)| e))
            .chain(std::iter::once(&self.check));
        for e in exprs {
            for v in e.undeclared_variables(true) {
                let root = v.split('.').next().unwrap_or("");
                if !lets.contains(root) {
                    out.insert(v);
                }
            }
        }
        out
    }
}

pub struct RuleSet {
    pub env: &'static Environment<'static>,
    pub rules: Vec<Rule>,
    /// Policy defaults from rules/policy.toml.
    pub policy_defaults: serde_json::Map<String, serde_json::Value>,
}

#[derive(Debug, thiserror::Error)]
#[error("{file}:{line}: {msg}")]
pub struct RuleError {
    pub file: String,
    pub line: usize,
    pub msg: String,
}

/// What one evaluation of a rule's expression (`applies`, a `let`, `check`) may spend: minijinja
/// fuel, about one unit per instruction and per 64 bytes of data the expression creates
/// (<https://docs.rs/minijinja/latest/minijinja/struct.Environment.html#method.set_fuel>). The
/// embedded rules need at most about 1,000 on a 1,000-device fabric (the fabric-wide ones grow
/// with it; the work inside the helpers is not counted), so this bounds a rule of `--rules` that
/// builds 100 MB on every port (`"x" * 100000000`, minijinja's own cap for one string) or
/// loops over what the data lets it multiply, and leaves the embedded ones three orders of
/// magnitude. A rule that goes past it could not decide, and says why.
pub const RULE_FUEL: u64 = 1_000_000;

/// The environment rules run in: strict undefined, plus a few helpers.
pub fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    // minijinja's debug mode (on by default in debug builds) changes the detail of undefined
    // errors, which names what a rule could not decide on; keep it off so a debug build says
    // exactly what the release build says.
    env.set_debug(false);
    env.set_fuel(Some(RULE_FUEL));
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    eval::register_helpers(&mut env);
    env
}

fn toml_to_json(v: &toml::Value) -> serde_json::Value {
    serde_json::to_value(v).unwrap_or(serde_json::Value::Null)
}

pub fn table_to_json(t: &toml::Table) -> serde_json::Map<String, serde_json::Value> {
    t.iter()
        .map(|(k, v)| (k.clone(), toml_to_json(v)))
        .collect()
}

impl RuleSet {
    /// Load rule packs: (file name, text). A later rule with the same id replaces an earlier
    /// one (that is how `--rules DIR` overrides embedded rules).
    pub fn load(files: &[(String, String)]) -> Result<RuleSet, Vec<RuleError>> {
        let env: &'static Environment<'static> = Box::leak(Box::new(environment()));
        let mut errors = Vec::new();
        let mut policy_defaults = serde_json::Map::new();
        let mut specs: Vec<(String, String, usize, RuleSpec)> = Vec::new();
        for (file, text) in files {
            let is_policy = file.ends_with("policy.toml");
            if is_policy {
                match toml::from_str::<PolicySpec>(text) {
                    Ok(p) => policy_defaults.extend(table_to_json(&p.policy)),
                    Err(e) => errors.push(toml_err(file, text, &e)),
                }
                continue;
            }
            match toml::from_str::<PackSpec>(text) {
                Ok(pack) => {
                    for r in pack.rules {
                        let line = line_col(text, r.span().start).0;
                        let spec = r.into_inner();
                        specs.retain(|(_, _, _, s)| s.id != spec.id);
                        specs.push((file.clone(), text.clone(), line, spec));
                    }
                }
                Err(e) => errors.push(toml_err(file, text, &e)),
            }
        }
        let mut rules = Vec::new();
        let mut seen = BTreeSet::new();
        for (file, text, line, spec) in specs {
            if !seen.insert(spec.id.clone()) {
                errors.push(RuleError {
                    file: file.clone(),
                    line,
                    msg: format!("duplicate rule id {}", spec.id),
                });
                continue;
            }
            match compile(env, &file, &text, line, spec, &policy_defaults) {
                Ok(r) => rules.push(r),
                Err(mut e) => errors.append(&mut e),
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        rules.sort_by(|a, b| a.spec.id.cmp(&b.spec.id));
        Ok(RuleSet {
            env,
            rules,
            policy_defaults,
        })
    }

    pub fn get(&self, id: &str) -> Option<&Rule> {
        self.rules
            .iter()
            .find(|r| r.spec.id.eq_ignore_ascii_case(id))
    }

    /// Every key `fabric.toml [policy]` may set, with its default: the policy defaults and
    /// every rule parameter (the first rule's default where two rules share a name).
    pub fn policy_keys(&self) -> std::collections::BTreeMap<String, serde_json::Value> {
        let mut keys: std::collections::BTreeMap<String, serde_json::Value> = self
            .policy_defaults
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for r in &self.rules {
            for (k, v) in table_to_json(&r.spec.params) {
                keys.entry(k).or_insert(v);
            }
        }
        keys
    }

    /// Every parameter name of every rule (to spot typos in fabric.toml [policy]).
    pub fn param_names(&self) -> BTreeSet<String> {
        self.rules
            .iter()
            .flat_map(|r| r.spec.params.keys().cloned())
            .collect()
    }
}

fn toml_err(file: &str, text: &str, e: &toml::de::Error) -> RuleError {
    let line = e.span().map(|s| line_col(text, s.start).0).unwrap_or(0);
    RuleError {
        file: file.into(),
        line,
        msg: e.message().to_string(),
    }
}

fn valid_id(id: &str) -> bool {
    let fam: String = id.chars().take_while(|c| c.is_ascii_uppercase()).collect();
    let num = &id[fam.len()..];
    !fam.is_empty() && num.len() == 3 && num.chars().all(|c| c.is_ascii_digit())
}

const FAMILIES: &[&str] = &[
    "PFC", "ECN", "DSCP", "MTU", "BUF", "WDG", "SCHED", "HOST", "NVMEOF", "GDS", "TOPO", "PROBE",
    "PARSE", "WAIVER",
];

fn compile(
    env: &'static Environment<'static>,
    file: &str,
    text: &str,
    line: usize,
    spec: RuleSpec,
    policy: &serde_json::Map<String, serde_json::Value>,
) -> Result<Rule, Vec<RuleError>> {
    let mut errors = Vec::new();
    let err = |errors: &mut Vec<RuleError>, at: Option<&Spanned<String>>, msg: String| {
        let l = at
            .filter(|s| s.span().end > 0)
            .map(|s| line_col(text, s.span().start).0)
            .unwrap_or(line);
        errors.push(RuleError {
            file: file.into(),
            line: l,
            msg: format!("rule {}: {msg}", spec.id),
        });
    };
    if !valid_id(&spec.id) {
        err(
            &mut errors,
            None,
            "id must be FAMILY + 3 digits (e.g. PFC001)".into(),
        );
    }
    if !FAMILIES.contains(&spec.family.as_str()) || !spec.id.starts_with(&spec.family) {
        err(
            &mut errors,
            None,
            format!(
                "family {:?} must be one of {FAMILIES:?} and prefix the id",
                spec.family
            ),
        );
    }
    let severity = Severity::parse(&spec.severity);
    if severity.is_none() {
        err(
            &mut errors,
            None,
            format!(
                "severity {:?}: expected error, warning or info",
                spec.severity
            ),
        );
    }
    let scope = Scope::parse(&spec.scope);
    if scope.is_none() {
        err(
            &mut errors,
            None,
            format!(
                "scope {:?}: expected interface, host, device, link or fabric",
                spec.scope
            ),
        );
    }
    for p in &spec.platforms {
        if !crate::platform::registry::is_known(p) {
            err(
                &mut errors,
                None,
                format!("unknown platform {p:?} in platforms"),
            );
        }
    }
    let (Some(severity), Some(scope)) = (severity, scope) else {
        return Err(errors);
    };
    // Names the expressions may use.
    let mut known: BTreeMap<String, Cow<'static, BTreeSet<String>>> = BTreeMap::new();
    for (root, kind) in scope.roots() {
        known.insert(
            root.to_string(),
            Cow::Borrowed(crate::schema::type_paths(kind)),
        );
    }
    known.insert(
        "policy".into(),
        Cow::Owned(policy.keys().cloned().collect::<BTreeSet<_>>()),
    );
    known.insert(
        "param".into(),
        Cow::Owned(spec.params.keys().cloned().collect::<BTreeSet<_>>()),
    );
    let compile_expr = |errors: &mut Vec<RuleError>,
                        src: &Spanned<String>,
                        what: &str,
                        known: &Known,
                        locals: &BTreeSet<String>|
     -> Option<Expression<'static, 'static>> {
        match env.compile_expression_owned(src.get_ref().clone()) {
            Ok(e) => {
                for var in e.undeclared_variables(true) {
                    if let Some(msg) = check_path(&var, known, locals) {
                        err(errors, Some(src), format!("{what}: {msg}"));
                    }
                }
                Some(e)
            }
            Err(e) => {
                err(errors, Some(src), format!("{what}: {e}"));
                None
            }
        }
    };
    let no_locals = BTreeSet::new();
    let applies = compile_expr(&mut errors, &spec.applies, "applies", &known, &no_locals);
    let mut locals = BTreeSet::new();
    let mut lets = Vec::new();
    for l in &spec.lets {
        let Some((name, expr)) = l.get_ref().split_once('=') else {
            err(
                &mut errors,
                Some(l),
                format!("let {:?}: expected \"name = expression\"", l.get_ref()),
            );
            continue;
        };
        let name = name.trim().to_string();
        if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') || name.is_empty() {
            err(
                &mut errors,
                Some(l),
                format!("let name {name:?} is not an identifier"),
            );
            continue;
        }
        let sp = Spanned::new(l.span(), expr.trim().to_string());
        if let Some(e) = compile_expr(&mut errors, &sp, &format!("let {name}"), &known, &locals) {
            lets.push((name.clone(), e));
        }
        locals.insert(name);
    }
    let check = compile_expr(&mut errors, &spec.check, "check", &known, &locals);
    let mut msg_locals = locals.clone();
    msg_locals.insert("item".into());
    // Compiled once here and kept with the rule (a finding renders it; so does its source).
    // The text lives as long as the environment, which is never freed either.
    let message_src: &'static str = Box::leak(spec.message.get_ref().clone().into_boxed_str());
    let message = match env.template_from_str(message_src) {
        Ok(t) => {
            for var in t.undeclared_variables(true) {
                if let Some(msg) = check_path(&var, &known, &msg_locals) {
                    err(&mut errors, Some(&spec.message), format!("message: {msg}"));
                }
            }
            Some(t)
        }
        Err(e) => {
            err(&mut errors, Some(&spec.message), format!("message: {e}"));
            None
        }
    };
    let source = spec.source.as_ref().and_then(|s| {
        let s: &'static str = Box::leak(s.clone().into_boxed_str());
        env.template_from_str(s).ok()
    });
    for f in spec.source.iter() {
        let plain: String = f
            .split("{{")
            .next()
            .unwrap_or("")
            .split('[')
            .next()
            .unwrap_or("")
            .to_string();
        if let Some(msg) = check_path(plain.trim_end_matches('.'), &known, &locals) {
            err(&mut errors, None, format!("source/optional {f:?}: {msg}"));
        }
    }
    if spec.doc.what.trim().is_empty()
        || spec.doc.why.trim().is_empty()
        || spec.doc.fix.trim().is_empty()
    {
        err(
            &mut errors,
            None,
            "doc.what, doc.why and doc.fix must be written".into(),
        );
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let (Some(applies), Some(check), Some(message)) = (applies, check, message) else {
        return Err(errors);
    };
    Ok(Rule {
        id: spec.id.as_str().into(),
        title: spec.title.as_str().into(),
        file: file.to_string(),
        line,
        severity,
        scope,
        guard: guard::Guard::of(spec.applies.get_ref()),
        message,
        source,
        applies,
        lets,
        check,
        spec,
    })
}

/// Methods minijinja values offer that may follow a field name.
const METHODS: &[&str] = &[
    "startswith",
    "endswith",
    "lower",
    "upper",
    "split",
    "strip",
    "replace",
    "items",
    "keys",
    "values",
    "count",
    "get",
];

/// Why a dotted variable path is not valid in this rule, if it is not.
/// The paths each root variable of a rule may use (the model's from `crate::schema`, shared).
type Known = BTreeMap<String, Cow<'static, BTreeSet<String>>>;

fn check_path(var: &str, known: &Known, locals: &BTreeSet<String>) -> Option<String> {
    let mut parts = var.splitn(2, '.');
    let root = parts.next().unwrap_or("");
    let rest = parts.next();
    if locals.contains(root) || eval::HELPERS.contains(&root) {
        return None;
    }
    // Method calls on a value (`d.platform_reason.startswith('x')`).
    let var = match var.rsplit_once('.') {
        Some((head, m)) if METHODS.contains(&m) => head,
        _ => var,
    };
    let rest = rest.map(|r| {
        r.rsplit_once('.')
            .filter(|(_, m)| METHODS.contains(m))
            .map(|(h, _)| h)
            .unwrap_or(if METHODS.contains(&r) && var == root {
                ""
            } else {
                r
            })
    });
    let rest = rest.filter(|r| !r.is_empty());
    let _ = var;
    let Some(fields) = known.get(root) else {
        let mut roots: Vec<&str> = known.keys().map(|s| s.as_str()).collect();
        roots.extend(locals.iter().map(|s| s.as_str()));
        return Some(format!(
            "unknown variable {root:?} (this scope has {roots:?})"
        ));
    };
    let rest = rest?;
    if root == "devices" || root == "links" || root == "notices" {
        return None;
    }
    if root == "policy" || root == "param" {
        let key = rest.split('.').next().unwrap_or(rest);
        if fields.contains(key) {
            return None;
        }
        return Some(format!(
            "{root}.{key} is not defined (known: {})",
            fields.iter().cloned().collect::<Vec<_>>().join(", ")
        ));
    }
    if fields.contains(rest) {
        return None;
    }
    // Find the longest valid prefix for the message.
    let segs: Vec<&str> = rest.split('.').collect();
    let mut good = String::new();
    for s in &segs {
        let cand = if good.is_empty() {
            s.to_string()
        } else {
            format!("{good}.{s}")
        };
        if fields.contains(&cand) {
            good = cand;
        } else {
            break;
        }
    }
    let prefix = if good.is_empty() {
        String::new()
    } else {
        format!("{good}.")
    };
    let options: Vec<&str> = fields
        .iter()
        .filter_map(|f| f.strip_prefix(&prefix))
        .filter(|f| !f.contains('.'))
        .collect();
    Some(format!(
        "the model has no field {root}.{rest} ({root}.{prefix}* has: {})",
        options.join(", ")
    ))
}
