//! The offline audit: snapshot folder in, model and findings out.

mod probe_tie;
mod scope_what_if;
pub mod undecided;

use crate::fabric::assemble;
use crate::finding::Finding;
use crate::model::probe::Probe;
use crate::model::{Fabric, Notice};
use crate::rules::{RuleSet, table_to_json};
use crate::snapshot::Snapshot;
use crate::timings::{self, Phase};
use anyhow::Result;
use std::path::{Path, PathBuf};

#[derive(Debug, Default, Clone)]
pub struct Options {
    /// Extra or overriding rule files (`--rules DIR`).
    pub rules_dir: Option<PathBuf>,
    /// Extra or overriding vendor parsers (`--parsers DIR`).
    pub parsers_dir: Option<PathBuf>,
    /// The waiver file (`--waivers FILE`); default: `waivers.toml` in the snapshot, if any.
    pub waivers: Option<PathBuf>,
}

/// Everything a report needs: the report's input, which the audit fills.
pub use crate::report::input::Audit;
use crate::report::input::{RuleEntry, Waived, WaiverEntry};

/// The rule catalog as reports read it: one entry per loaded rule.
pub fn catalog(rules: &RuleSet) -> Vec<RuleEntry> {
    rules
        .rules
        .iter()
        .map(|r| {
            let s = &r.spec;
            RuleEntry {
                id: s.id.clone(),
                title: s.title.clone(),
                family: s.family.clone(),
                severity: s.severity.clone(),
                what: s.doc.what.clone(),
                why: s.doc.why.clone(),
                fix: s.doc.fix.clone(),
                references: s.doc.references.clone(),
            }
        })
        .collect()
}

impl From<crate::rules::waivers::Waived> for Waived {
    fn from(w: crate::rules::waivers::Waived) -> Waived {
        let v = w.waiver;
        Waived {
            finding: w.finding,
            waiver: WaiverEntry {
                rule: v.rule,
                device: v.device,
                object: v.object,
                reason: v.reason,
                owner: v.owner,
                expires: v.expires,
                file: v.file,
                line: v.line,
            },
        }
    }
}

/// The file in a snapshot folder that holds probe results (`audit --probe` writes it).
pub const PROBES_FILE: &str = "probes.json";

#[derive(serde::Deserialize)]
struct ProbesDoc {
    probes: Vec<Probe>,
}

/// Read `probes.json` of a snapshot: a JSON report with a `probes` array, or the bare array.
/// A refused file (a link, not a regular file, over the size cap) is an error here; the audit
/// uses [`read_probes_or_refusal`] to report it as a finding instead.
pub fn read_probes(snapshot: &Path) -> Result<Option<Vec<Probe>>> {
    match read_probes_or_refusal(snapshot)? {
        Ok(p) => Ok(p),
        Err(n) => anyhow::bail!("{}", n.message),
    }
}

/// [`read_probes`], a refused file handed back as a notice (kind `refused`).
pub fn read_probes_or_refusal(
    snapshot: &Path,
) -> Result<std::result::Result<Option<Vec<Probe>>, Notice>> {
    use crate::snapshot::read::{self, ReadError};
    let path = snapshot.join(PROBES_FILE);
    if !read::entry_exists(&path) {
        return Ok(Ok(None));
    }
    let text = match read::read_text(&path) {
        Ok(t) => t,
        Err(ReadError::Refused(why)) => return Ok(Err(refused_notice(PROBES_FILE, &why))),
        Err(e) => anyhow::bail!("cannot read {}: {e}", path.display()),
    };
    let r = if text.trim_start().starts_with('[') {
        serde_json::from_str::<Vec<Probe>>(&text)
    } else {
        serde_json::from_str::<ProbesDoc>(&text).map(|d| d.probes)
    };
    r.map(|p| Ok(Some(p))).map_err(|e| {
        anyhow::anyhow!(
            "{}:{}:{}: not a list of probe results: {e}",
            path.display(),
            e.line(),
            e.column()
        )
    })
}

/// The notice of a snapshot file [`crate::snapshot::read`] refused (rule PARSE010).
fn refused_notice(file: &str, why: &str) -> Notice {
    Notice {
        kind: "refused".into(),
        device: crate::finding::FABRIC.into(),
        file: file.into(),
        line: None,
        message: format!("{file} is {why}"),
    }
}

/// Evaluate the probe rules on `probes` and tie each PROBE finding to the config findings on
/// its path; returns the PROBE findings.
pub fn probe_findings(
    rules: &RuleSet,
    probes: &[Probe],
    policy: &serde_json::Map<String, serde_json::Value>,
    config: &[Finding],
) -> (Vec<Finding>, crate::rules::eval::Passes) {
    let (found, passes) = crate::rules::eval::evaluate_probes(rules, probes, policy);
    (probe_tie::tie(found, probes, config), passes)
}

/// Load the embedded rules, then `dir`'s (same id replaces).
pub fn load_rules(dir: Option<&Path>) -> Result<RuleSet> {
    let mut files: Vec<(String, String)> = crate::embedded::RULES
        .iter()
        .map(|(n, t)| (n.to_string(), t.to_string()))
        .collect();
    if let Some(d) = dir {
        files.extend(crate::embedded::read_toml_dir(d)?);
    }
    RuleSet::load(&files).map_err(|errs| {
        anyhow::anyhow!(
            "invalid rule file(s):\n{}",
            errs.iter()
                .map(|e| format!("  {e}"))
                .collect::<Vec<_>>()
                .join("\n")
        )
    })
}

/// Policy defaults overridden by `fabric.toml [policy]`; unknown keys become notices.
pub fn resolve_policy(
    rules: &RuleSet,
    snap: &Snapshot,
) -> (serde_json::Map<String, serde_json::Value>, Vec<Notice>) {
    let mut policy = rules.policy_defaults.clone();
    let params = rules.param_names();
    let mut notices = Vec::new();
    for (k, v) in table_to_json(&snap.fabric.policy) {
        if !policy.contains_key(&k) && !params.contains(&k) {
            let line = snap
                .fabric_text
                .lines()
                .position(|l| l.trim_start().starts_with(&k))
                .map(|p| p as u32 + 1);
            notices.push(Notice {
                kind: "policy".into(),
                device: crate::finding::FABRIC.into(),
                file: "fabric.toml".into(),
                line,
                message: format!(
                    "unknown policy key {k:?} (known: {})",
                    policy
                        .keys()
                        .cloned()
                        .chain(params.iter().cloned())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }
        policy.insert(k, v);
    }
    (policy, notices)
}

/// Refuse a `fabric.toml [policy]` with an unknown key, a value of the wrong type, a number
/// that is not finite or out of range ([`crate::policy`]): every problem, each with file:line.
pub fn check_policy(rules: &RuleSet, snap: &Snapshot) -> Result<()> {
    let file = snap.fabric_path().display().to_string();
    let errs = crate::policy::check(&snap.fabric_text, &file, &rules.policy_keys());
    if errs.is_empty() {
        return Ok(());
    }
    anyhow::bail!(
        "invalid policy:\n{}",
        errs.iter()
            .map(|e| format!("  {e}"))
            .collect::<Vec<_>>()
            .join("\n")
    )
}

/// Run the audit of a snapshot folder.
pub fn run(snapshot: &Path, opts: &Options) -> Result<Audit> {
    run_keeping_rules(snapshot, opts).map(|(a, _)| a)
}

/// `run`, also handing back the rule set it loaded (remediation needs it; loading it again
/// would read and compile every rule file twice).
pub fn run_keeping_rules(snapshot: &Path, opts: &Options) -> Result<(Audit, RuleSet)> {
    run_folders(std::slice::from_ref(&snapshot.to_path_buf()), opts)
}

/// [`run_keeping_rules`] of several snapshot folders audited as one fabric
/// ([`crate::snapshot::folders`]): `fabric.toml`, `probes.json` and `waivers.toml` come from
/// whichever folder holds them (the same in every folder that does).
pub fn run_folders(snapshots: &[PathBuf], opts: &Options) -> Result<(Audit, RuleSet)> {
    use crate::snapshot::folders::shared_file;
    let (parsers, rules) = timings::stage(Phase::Load, || {
        anyhow::Ok((
            crate::parser::load_parsers(opts.parsers_dir.as_deref())?,
            load_rules(opts.rules_dir.as_deref())?,
        ))
    })?;
    let snap = timings::stage(Phase::Read, || Snapshot::open_many(snapshots))?;
    check_policy(&rules, &snap)?;
    let (policy, mut notices) = resolve_policy(&rules, &snap);
    let probes = match shared_file(snapshots, PROBES_FILE)? {
        Some(dir) => match read_probes_or_refusal(&dir)? {
            Ok(p) => p.unwrap_or_default(),
            Err(n) => {
                notices.push(n);
                Vec::new()
            }
        },
        None => Vec::new(),
    };
    // Waivers from --waivers, or the snapshot's own waivers.toml (named relative to the
    // snapshot, as its config files are). Read under the same rules as the snapshot: the file
    // may sit in the checkout of the change under review.
    let waiver_file = match &opts.waivers {
        Some(p) => Some((p.clone(), p.display().to_string())),
        None => shared_file(snapshots, crate::rules::waivers::FILE)?.map(|dir| {
            (
                dir.join(crate::rules::waivers::FILE),
                crate::rules::waivers::FILE.to_string(),
            )
        }),
    };
    let mut waiver_text = None;
    if let Some((path, name)) = waiver_file {
        use crate::snapshot::read::{self, ReadError};
        match read::read_text(&path) {
            Ok(t) => waiver_text = Some((t, name)),
            Err(ReadError::Refused(why)) => notices.push(refused_notice(&name, &why)),
            Err(e) => anyhow::bail!("cannot read {}: {e}", path.display()),
        }
    }
    let fabric = assemble(&parsers, &snap, policy, notices);
    drop(snap);
    timings::stage(Phase::Rules, || {
        finish_rules(&rules, fabric, probes, waiver_text).map(|mut a| {
            undecided::explain(&mut a.findings, &a.fabric.devices, &rules, &parsers);
            a
        })
    })
    .map(|a| (a, rules))
}

/// The rules on an assembled fabric, then probe rules and waivers.
fn finish_rules(
    rules: &RuleSet,
    mut fabric: Fabric,
    probes: Vec<Probe>,
    waiver_text: Option<(String, String)>,
) -> Result<Audit> {
    scope_what_if::fill(rules, &mut fabric);
    let (mut findings, mut passes) =
        crate::rules::eval::evaluate_in_place(rules, &mut fabric, &|_| true);
    if !probes.is_empty() {
        let (pf, pp) = probe_findings(rules, &probes, &fabric.policy, &findings);
        findings.extend(pf);
        crate::finding::sort(&mut findings);
        for (k, v) in pp.count {
            *passes.count.entry(k).or_default() += v;
        }
        for (k, v) in pp.platforms {
            passes.platforms.entry(k).or_default().extend(v);
        }
    }
    let mut waived = Vec::new();
    if let Some((text, name)) = waiver_text {
        let ws = crate::rules::waivers::parse(&text, &name)?;
        let ids: Vec<&str> = rules.rules.iter().map(|r| r.spec.id.as_str()).collect();
        let applied =
            crate::rules::waivers::apply(findings, &ws, &ids, crate::rules::waivers::Day::today());
        findings = applied.kept;
        waived = applied.waived.into_iter().map(Waived::from).collect();
        if !applied.notices.is_empty() {
            fabric.notices.extend(applied.notices);
            let (wf, _) = crate::rules::eval::evaluate_in_place(rules, &mut fabric, &|r| {
                r.spec.family == "WAIVER"
            });
            findings.extend(wf);
            crate::finding::sort(&mut findings);
        }
    }
    Ok(Audit {
        fabric,
        findings,
        rules: rules.rules.len(),
        passes,
        probes,
        waived,
        catalog: catalog(rules),
    })
}
