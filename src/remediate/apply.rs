//! `remediate --apply-to-copy OUTDIR`: copy the snapshot, merge each device's snippets into
//! its config file, re-audit the copy and compare: every targeted finding must be gone and no
//! new error may appear.

use super::{Plan, Target};
use crate::audit::{self, Audit, Options};
use crate::finding::{Finding, Severity};
use anyhow::{Context, Result};
use serde::Serialize;
use std::path::Path;

#[derive(Debug, Serialize)]
pub struct Outcome {
    pub schema: &'static str,
    pub out: String,
    /// Targeted findings the copy no longer has.
    pub fixed: Vec<Target>,
    /// Targeted findings still there.
    pub not_fixed: Vec<Target>,
    /// Error findings of the copy that the snapshot did not have.
    pub new_errors: Vec<Finding>,
    /// Devices whose snippets could not be merged, and why.
    pub not_merged: Vec<(String, String)>,
}

impl Outcome {
    pub fn ok(&self) -> bool {
        self.not_fixed.is_empty() && self.new_errors.is_empty() && self.not_merged.is_empty()
    }
}

fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("cannot create {}", to.display()))?;
    for e in std::fs::read_dir(from).with_context(|| format!("cannot read {}", from.display()))? {
        let e = e?;
        let p = e.path();
        let t = to.join(e.file_name());
        let ft = e.file_type()?;
        if ft.is_dir() {
            copy_tree(&p, &t)?;
        } else if !ft.is_file() {
            // A link or special file was never read by the audit (PARSE010); it is not copied
            // either, so a link cannot bring a file from outside the snapshot into the copy.
            continue;
        } else {
            std::fs::copy(&p, &t)
                .with_context(|| format!("cannot copy {} to {}", p.display(), t.display()))?;
        }
    }
    Ok(())
}

/// Apply `plan` (made from `before`, the audit of `snapshot`) to a copy in `out`.
pub fn apply_to_copy(
    snapshot: &Path,
    out: &Path,
    before: &Audit,
    plan: &Plan,
    templates: &super::spec::Templates,
    opts: &Options,
) -> Result<Outcome> {
    if out.exists() {
        let empty = std::fs::read_dir(out)
            .with_context(|| format!("cannot read {}", out.display()))?
            .next()
            .is_none();
        if !empty {
            anyhow::bail!("{} exists and is not empty", out.display());
        }
    }
    copy_tree(snapshot, out)?;
    let mut not_merged = Vec::new();
    let mut targeted: Vec<Target> = Vec::new();
    for d in &plan.devices {
        let Some(cfg) = &d.config else {
            not_merged.push((d.device.clone(), "no config file in configs/".into()));
            continue;
        };
        let Some(merge) = templates
            .platforms
            .get(&d.platform)
            .and_then(|p| p.merge.as_ref())
        else {
            not_merged.push((
                d.device.clone(),
                format!("no merge for platform {}", d.platform),
            ));
            continue;
        };
        let path = out.join(cfg);
        let mut text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let mut failed = None;
        for (k, s) in d.steps.iter().enumerate() {
            match super::merge::merge(merge, &text, &s.snippet) {
                Ok(t) => text = t,
                Err(e) => {
                    failed = Some(format!("{cfg}: step {}: {e}", k + 1));
                    break;
                }
            }
        }
        if let Some(e) = failed {
            not_merged.push((d.device.clone(), e));
            continue;
        }
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        for s in &d.steps {
            for t in &s.fixes {
                if !targeted.contains(t) {
                    targeted.push(t.clone());
                }
            }
        }
    }
    let after = audit::run(out, opts)?;
    let d = crate::review::diff::diff(&before.findings, &after.findings);
    let (mut fixed, mut not_fixed) = (Vec::new(), Vec::new());
    for t in targeted {
        let gone = before
            .findings
            .get(t.index)
            .is_some_and(|f| d.fixed.iter().any(|x| x == f));
        if gone {
            fixed.push(t);
        } else {
            not_fixed.push(t);
        }
    }
    let new_errors = d
        .new
        .into_iter()
        .filter(|f| f.severity == Severity::Error)
        .collect();
    Ok(Outcome {
        schema: "fabric-audit/remediation-apply/v1",
        out: out.display().to_string(),
        fixed,
        not_fixed,
        new_errors,
        not_merged,
    })
}

pub fn text(o: &Outcome) -> String {
    let mut s = format!(
        "Applied to {}: {} finding(s) fixed, {} not fixed, {} new error(s)\n",
        o.out,
        o.fixed.len(),
        o.not_fixed.len(),
        o.new_errors.len()
    );
    for t in &o.fixed {
        s.push_str(&format!("  fixed      {}\n", t.label()));
    }
    for t in &o.not_fixed {
        s.push_str(&format!("  NOT FIXED  {}\n", t.label()));
    }
    for f in &o.new_errors {
        s.push_str(&format!(
            "  NEW ERROR  {} {}{}: {}\n",
            f.rule,
            f.device,
            f.interface
                .as_deref()
                .map(|i| format!(":{i}"))
                .unwrap_or_default(),
            f.message
        ));
    }
    for (d, e) in &o.not_merged {
        s.push_str(&format!("  NOT MERGED {d}: {e}\n"));
    }
    s
}
