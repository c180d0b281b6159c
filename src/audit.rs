//! The offline audit: snapshot folder in, model and findings out.

use crate::fabric::assemble;
use crate::finding::Finding;
use crate::model::{Fabric, Notice};
use crate::rules::{RuleSet, table_to_json};
use crate::snapshot::Snapshot;
use anyhow::Result;
use std::path::{Path, PathBuf};

#[derive(Debug, Default, Clone)]
pub struct Options {
    /// Extra or overriding rule files (`--rules DIR`).
    pub rules_dir: Option<PathBuf>,
    /// Extra or overriding vendor parsers (`--parsers DIR`).
    pub parsers_dir: Option<PathBuf>,
}

/// Everything a report needs.
pub struct Audit {
    pub fabric: Fabric,
    pub findings: Vec<Finding>,
    pub rules: usize,
    /// Per rule, how many objects it checked and found correct, and on which platforms.
    pub passes: crate::rules::eval::Passes,
}

/// Load the embedded rules, then `dir`'s (same id replaces).
pub fn load_rules(dir: Option<&Path>) -> Result<RuleSet> {
    let mut files: Vec<(String, String)> = crate::embedded::RULES
        .iter()
        .map(|(n, t)| (n.to_string(), t.to_string()))
        .collect();
    if let Some(d) = dir {
        files.extend(crate::read_toml_dir(d)?);
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

/// Run the audit of a snapshot folder.
pub fn run(snapshot: &Path, opts: &Options) -> Result<Audit> {
    let parsers = crate::load_parsers(opts.parsers_dir.as_deref())?;
    let rules = load_rules(opts.rules_dir.as_deref())?;
    let snap = Snapshot::read(snapshot)?;
    let (policy, notices) = resolve_policy(&rules, &snap);
    let fabric = assemble(&parsers, &snap, policy, notices);
    let (findings, passes) = crate::rules::eval::evaluate_with_passes(&rules, &fabric);
    Ok(Audit {
        fabric,
        findings,
        rules: rules.rules.len(),
        passes,
    })
}
