//! Remediation template files (`vendor-parsers/remediation/<platform>.toml`): raw spec (serde),
//! validated and compiled into a [`Platform`] with its own minijinja environment.
//!
//! Values are kept out of snippets unless they passed the platform's identifier syntax: the
//! environment's formatter prints only numbers, booleans and strings marked by `ident(kind)`;
//! any other string is an error, which withholds the snippet.

use minijinja::value::{Rest, Value, ValueKind};
use minijinja::{Environment, Error, ErrorKind, State, UndefinedBehavior};
use regex::Regex;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpec {
    platform: String,
    /// Macros shared by the file's templates (`{% from "prelude" import m %}`).
    #[serde(default)]
    prelude: Option<toml::Spanned<String>>,
    #[serde(default)]
    identifiers: BTreeMap<String, toml::Spanned<String>>,
    merge: Option<MergeSpecRaw>,
    #[serde(default)]
    fix: Vec<toml::Spanned<FixSpec>>,
    #[serde(default)]
    no_fix: Vec<toml::Spanned<NoFixSpec>>,
    /// The largest IP MTU the platform can set on a port. Templates read it as `d.max_ip_mtu`
    /// (this device) and `od.max_ip_mtu` (the device at the other end of the port's link), so a
    /// fix on one end can tell whether the other end can follow.
    #[serde(default)]
    max_ip_mtu: Option<u32>,
    /// The command that makes a running change survive a reboot or a config reload (SONiC:
    /// `config save -y`), told at the end of every snippet of the platform.
    #[serde(default)]
    persist: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MergeSpecRaw {
    kind: String,
    #[serde(default)]
    replace: Vec<String>,
    /// junos_set: regexes of the block paths a `set` may create (whole path from the top).
    #[serde(default)]
    blocks: Vec<String>,
    /// junos_set: keywords whose value is a list (`code-points [ a b ]`).
    #[serde(default)]
    lists: Vec<String>,
    #[serde(default)]
    flat: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FixSpec {
    rule: String,
    safety: Safety,
    order: i64,
    template: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoFixSpec {
    rule: String,
    reason: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Safety {
    Safe,
    NeedsReview,
}

impl Safety {
    pub fn as_str(self) -> &'static str {
        match self {
            Safety::Safe => "safe",
            Safety::NeedsReview => "needs-review",
        }
    }
}

/// How snippets are merged into a config file of the platform (`[merge]`).
#[derive(Debug, Clone)]
pub struct MergeSpec {
    /// Merge module: `stanza` (indented IOS-like configs).
    pub kind: String,
    /// Regexes whose capture group 1 is a command's key: a new line replaces an old one with
    /// the same key in the same stanza (`mtu 9216` replaces `mtu 1500`).
    pub replace: Vec<Regex>,
    /// junos_set: a new block is created only where its whole path matches one of these.
    pub blocks: Vec<Regex>,
    /// junos_set: keywords whose value is a list: a `set` adds to it, a `delete` removes.
    pub lists: Vec<String>,
    /// Every line is top-level (Onyx's flat config: indentation is style, not structure).
    pub flat: bool,
}

#[derive(Debug, Clone)]
pub struct Fix {
    pub rule: String,
    pub safety: Safety,
    pub order: i64,
    /// Name of the template in the platform's environment (`<file>:<line>`).
    pub name: String,
}

pub struct Platform {
    pub id: String,
    pub file: String,
    pub identifiers: Arc<BTreeMap<String, Regex>>,
    pub merge: Option<MergeSpec>,
    pub fixes: BTreeMap<String, Vec<Fix>>,
    pub no_fix: BTreeMap<String, String>,
    pub max_ip_mtu: Option<u32>,
    /// See `persist` in the template file.
    pub persist: Option<String>,
    pub env: Environment<'static>,
}

/// All platforms' templates.
#[derive(Default)]
pub struct Templates {
    pub platforms: BTreeMap<String, Platform>,
}

pub use super::config_index::ConfigText;

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// Identifier kinds every platform has.
const BUILTIN_IDENTS: &[(&str, &str)] = &[("number", "[0-9]{1,10}")];

impl Templates {
    /// Load template files (path, text); a later file for the same platform replaces it.
    /// Every error names file:line.
    pub fn load(files: &[(String, String)]) -> Result<Templates, Vec<String>> {
        let mut out = Templates::default();
        let mut errs = Vec::new();
        for (path, text) in files {
            match compile(path, text) {
                Ok(p) => {
                    out.platforms.insert(p.id.clone(), p);
                }
                Err(e) => errs.extend(e),
            }
        }
        if errs.is_empty() { Ok(out) } else { Err(errs) }
    }
}

fn compile(path: &str, text: &str) -> Result<Platform, Vec<String>> {
    let spec: FileSpec = toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| line_of(text, s.start)).unwrap_or(1);
        vec![format!("{path}:{line}: {}", e.message())]
    })?;
    let mut errs = Vec::new();
    let mut identifiers = BTreeMap::new();
    for (k, v) in BUILTIN_IDENTS {
        if let Ok(re) = Regex::new(&format!("^(?:{v})$")) {
            identifiers.insert(k.to_string(), re);
        }
    }
    for (k, v) in &spec.identifiers {
        match Regex::new(&format!("^(?:{})$", v.get_ref())) {
            Ok(re) => {
                identifiers.insert(k.clone(), re);
            }
            Err(e) => errs.push(format!(
                "{path}:{}: identifier {k}: {e}",
                line_of(text, v.span().start)
            )),
        }
    }
    let merge = match spec.merge {
        None => None,
        Some(m) => {
            if !super::merge::KINDS.contains(&m.kind.as_str()) {
                errs.push(format!(
                    "{path}: [merge] kind {:?} unknown (known: {})",
                    m.kind,
                    super::merge::KINDS.join(", ")
                ));
            }
            let mut replace = Vec::new();
            for r in &m.replace {
                match Regex::new(r) {
                    Ok(re) if re.captures_len() >= 2 => replace.push(re),
                    Ok(_) => errs.push(format!(
                        "{path}: [merge] replace {r:?} needs a capture group (the key)"
                    )),
                    Err(e) => errs.push(format!("{path}: [merge] replace {r:?}: {e}")),
                }
            }
            let mut blocks = Vec::new();
            for r in &m.blocks {
                match Regex::new(&format!("^(?:{r})$")) {
                    Ok(re) => blocks.push(re),
                    Err(e) => errs.push(format!("{path}: [merge] blocks {r:?}: {e}")),
                }
            }
            Some(MergeSpec {
                kind: m.kind,
                replace,
                blocks,
                lists: m.lists,
                flat: m.flat,
            })
        }
    };
    let identifiers = Arc::new(identifiers);
    let flat = merge.as_ref().is_some_and(|m| m.flat);
    let mut env = new_env(identifiers.clone(), flat);
    if let Some(p) = &spec.prelude
        && let Err(e) = env.add_template_owned("prelude", p.get_ref().clone())
    {
        errs.push(format!(
            "{path}:{}: prelude: {}",
            line_of(text, p.span().start) + e.line().unwrap_or(0),
            e.detail().unwrap_or("syntax error")
        ));
    }
    let mut fixes: BTreeMap<String, Vec<Fix>> = BTreeMap::new();
    for f in &spec.fix {
        let line = line_of(text, f.span().start);
        let f = f.get_ref();
        let name = format!("{path}:{line} ({})", f.rule);
        if let Err(e) = env.add_template_owned(name.clone(), f.template.clone()) {
            errs.push(format!(
                "{path}:{}: template of {}: {}",
                line + e.line().unwrap_or(0),
                f.rule,
                e.detail().unwrap_or("syntax error")
            ));
            continue;
        }
        fixes.entry(f.rule.clone()).or_default().push(Fix {
            rule: f.rule.clone(),
            safety: f.safety,
            order: f.order,
            name,
        });
    }
    let mut no_fix = BTreeMap::new();
    for n in &spec.no_fix {
        let line = line_of(text, n.span().start);
        let n = n.get_ref();
        if fixes.contains_key(&n.rule) {
            errs.push(format!(
                "{path}:{line}: {} has both a fix and a no_fix",
                n.rule
            ));
        }
        if n.reason.trim().is_empty() {
            errs.push(format!("{path}:{line}: no_fix {} without a reason", n.rule));
        }
        no_fix.insert(n.rule.clone(), n.reason.clone());
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    Ok(Platform {
        id: spec.platform,
        file: path.to_string(),
        identifiers,
        merge,
        fixes,
        no_fix,
        max_ip_mtu: spec.max_ip_mtu,
        persist: spec.persist,
        env,
    })
}

/// What one render of a fix template may spend: minijinja fuel, about one unit per instruction
/// and per 64 bytes of data the template creates
/// (<https://docs.rs/minijinja/latest/minijinja/struct.Environment.html#method.set_fuel>).
/// The bundled templates spend at most about 500 on the demo fabrics and 262 on 4 MiB
/// replicated configurations (what `cfg` and `cfg_port` do inside is counted by the config's
/// own budget, `config_index::BUDGET_PER_LINE`, not here). This bounds a template of
/// `--parsers` that nests loops over what `cfg` returns, or builds a huge string: its fix is
/// withheld, saying so, and the audit goes on.
pub const FIX_FUEL: u64 = 1_000_000;

/// Prefix of the error detail raised by `withhold(reason)`.
pub const WITHHOLD: &str = "withheld: ";

fn new_env(idents: Arc<BTreeMap<String, Regex>>, flat: bool) -> Environment<'static> {
    let mut env = Environment::new();
    // Same output in debug and release builds (minijinja's debug mode follows the build).
    env.set_debug(false);
    env.set_fuel(Some(FIX_FUEL));
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    if let Ok(syntax) = minijinja::syntax::SyntaxConfig::builder()
        .trim_blocks(true)
        .lstrip_blocks(true)
        .build()
    {
        env.set_syntax(syntax);
    }
    // A custom auto-escape mode (our formatter does the checking) makes a macro's output, whose
    // values already passed the formatter, printable as it is.
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::Custom("fabric-audit".into()));
    // Filters that would mark an unchecked string printable.
    for f in ["safe", "escape", "e", "tojson"] {
        env.remove_filter(f);
    }
    env.set_formatter(|out, _state, v| {
        let text = match v.kind() {
            ValueKind::Number | ValueKind::Bool => v.to_string(),
            ValueKind::String if v.is_safe() => v.as_str().unwrap_or_default().to_string(),
            _ => {
                return Err(Error::new(
                    ErrorKind::InvalidOperation,
                    format!("value {v:?} printed without `| ident(kind)`"),
                ));
            }
        };
        // A safe string is an `ident` value (no control character) or a macro's output, whose
        // lines come from template text.
        if text.chars().any(|c| c.is_control() && c != '\n')
            || (!v.is_safe() && text.contains('\n'))
        {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                format!("value {text:?} holds a control character"),
            ));
        }
        out.write_str(&text)
            .map_err(|e| Error::new(ErrorKind::WriteFailure, e.to_string()))
    });
    let ids = idents.clone();
    env.add_filter(
        "ident",
        move |v: Value, kind: String| -> Result<Value, Error> {
            let re = ids.get(&kind).ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidOperation,
                    format!("no identifier kind {kind:?} in [identifiers]"),
                )
            })?;
            let s = match v.kind() {
                ValueKind::String => v.as_str().unwrap_or_default().to_string(),
                ValueKind::Number => v.to_string(),
                _ => {
                    return Err(Error::new(
                        ErrorKind::InvalidOperation,
                        format!("{WITHHOLD}{v:?} is not a {kind}"),
                    ));
                }
            };
            if s.chars().any(|c| c.is_control()) || !re.is_match(&s) {
                return Err(Error::new(
                    ErrorKind::InvalidOperation,
                    format!("{WITHHOLD}{s:?} is not a valid {kind} name on this platform"),
                ));
            }
            Ok(Value::from_safe_string(s))
        },
    );
    env.add_function("withhold", |reason: String| -> Result<Value, Error> {
        Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("{WITHHOLD}{reason}"),
        ))
    });
    env.add_function("cfg", move |state: &State, pats: Rest<String>| {
        cfg(state, None, pats, flat)
    });
    env.add_function(
        "cfg_port",
        move |state: &State, port: String, pats: Rest<String>| cfg(state, Some(&port), pats, flat),
    );
    env.add_filter("regex_escape", |s: String| regex::escape(&s));
    env
}

/// `cfg(re1, re2, ...)`: walk the target device's config stanzas: top-level lines matching
/// `re1` (whole trimmed line), their children matching `re2`, ...; for every match at the last
/// level, the list of all capture groups along the path. Captured values are unchecked: print
/// them only through `ident(kind)`. In a flat config (`[merge] flat`) every line is top-level.
/// With `port` (`cfg_port(port, re1, ...)`): only the rows whose first captured value is the
/// port or a wildcard (`stem*`) covering it, found through an index ([`ConfigText::port_cfg`]).
fn cfg(state: &State, port: Option<&str>, pats: Rest<String>, flat: bool) -> Result<Value, Error> {
    let conf = state.lookup("config").ok_or_else(|| {
        Error::new(
            ErrorKind::InvalidOperation,
            "cfg(): no config file for this device",
        )
    })?;
    let Some(text) = conf.downcast_object_ref::<ConfigText>() else {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            "cfg(): no config file for this device",
        ));
    };
    // What the config holds is read once per device and kept (`config_index`).
    let found = match port {
        Some(p) => text.port_cfg(p, &pats, flat),
        None => text.cfg(&pats, flat),
    };
    let out = found.map_err(|e| {
        // past the budget: the fix is withheld with this as its reason
        let e = if e.starts_with(super::config_index::OVER_BUDGET) {
            format!("{WITHHOLD}{e}")
        } else {
            e
        };
        Error::new(ErrorKind::InvalidOperation, e)
    })?;
    Ok(Value::from(
        out.into_iter()
            .map(|caps| Value::from(minijinja::value::Serde(&caps)))
            .collect::<Vec<Value>>(),
    ))
}
