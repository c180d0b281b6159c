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
    /// Steps that are commands to run on a device, not lines of a config file (a host's
    /// runtime settings): listed, not applied to the copy, and not counted as failures.
    pub run_on_device: Vec<(String, usize)>,
    /// Ports whose DSCP classification the fix changed and that, after it, still put a DSCP
    /// other than RoCE's in a lossless class (`match dscp 24` left beside the added 26).
    pub lossless_besides_roce: Vec<LosslessExtra>,
}

/// A port that keeps DSCPs other than RoCE's lossless after a fix changed its classification.
#[derive(Debug, Serialize)]
pub struct LosslessExtra {
    pub device: String,
    pub interface: String,
    pub dscp: Vec<u8>,
}

impl Outcome {
    /// True when every snippet that could be merged was, each finding it targeted is gone, no
    /// new error appeared and no port keeps a DSCP other than RoCE's lossless after its
    /// classification was changed. Commands to run on a device (hosts) are not applied to a
    /// copy: they are listed and do not make the outcome fail.
    pub fn ok(&self) -> bool {
        self.not_fixed.is_empty()
            && self.new_errors.is_empty()
            && self.not_merged.is_empty()
            && self.lossless_besides_roce.is_empty()
    }
}

/// Per RoCE switch port: the DSCPs that land in a class whose PFC priority is lossless.
fn lossless_dscps(a: &Audit) -> std::collections::BTreeMap<(String, String), Vec<u8>> {
    let lossless: Vec<u8> = a
        .fabric
        .policy
        .get("lossless_priorities")
        .and_then(|v| v.as_array())
        .map(|v| {
            v.iter()
                .filter_map(|x| x.as_u64().and_then(|x| u8::try_from(x).ok()))
                .collect()
        })
        .unwrap_or_default();
    let mut out = std::collections::BTreeMap::new();
    for d in a.fabric.devices.iter().filter(|d| d.is_switch) {
        for i in d.interfaces.iter().filter(|i| i.roce) {
            let (Some(to_tc), Some(to_prio)) = (&i.qos.dscp_to_tc, &i.qos.tc_to_pfc_priority)
            else {
                continue;
            };
            let set: Vec<u8> = (0u8..64)
                .filter(|dscp| {
                    to_tc
                        .value
                        .get(*dscp as usize)
                        .and_then(|tc| to_prio.value.get(*tc as usize))
                        .is_some_and(|p| lossless.contains(p))
                })
                .collect();
            out.insert((d.name.clone(), i.name.clone()), set);
        }
    }
    out
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
    let mut run_on_device = Vec::new();
    let mut targeted: Vec<usize> = Vec::new();
    for d in &plan.devices {
        let Some(cfg) = &d.config else {
            if &*d.platform == "linux" {
                // A host has no config file: its steps are commands to run on it.
                run_on_device.push((d.device.clone(), d.steps.len()));
            } else {
                not_merged.push((d.device.clone(), "no config file in configs/".into()));
            }
            continue;
        };
        let Some(merge) = templates
            .platforms
            .get(&*d.platform)
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
            for &i in &s.fixes {
                if !targeted.contains(&i) {
                    targeted.push(i);
                }
            }
        }
    }
    let after = audit::run(out, opts)?;
    let d = crate::review::diff::diff(&before.findings, &after.findings);
    let (mut fixed, mut not_fixed) = (Vec::new(), Vec::new());
    for i in targeted {
        let Some(f) = before.findings.get(i) else {
            continue;
        };
        let gone = d.fixed.iter().any(|x| x == f);
        let t = Target::of(f, i);
        if gone {
            fixed.push(t);
        } else {
            not_fixed.push(t);
        }
    }
    let new_errors = d
        .new
        .into_iter()
        .filter(|f| f.severity() == Severity::Error)
        .collect();
    let roce_dscp = after
        .fabric
        .policy
        .get("roce_dscp")
        .and_then(|v| v.as_u64())
        .and_then(|v| u8::try_from(v).ok());
    let was = lossless_dscps(before);
    let mut lossless_besides_roce = Vec::new();
    for ((device, interface), now) in lossless_dscps(&after) {
        let changed = was
            .get(&(device.clone(), interface.clone()))
            .is_some_and(|w| *w != now);
        let extra: Vec<u8> = now.into_iter().filter(|x| Some(*x) != roce_dscp).collect();
        if changed && !extra.is_empty() {
            lossless_besides_roce.push(LosslessExtra {
                device,
                interface,
                dscp: extra,
            });
        }
    }
    Ok(Outcome {
        schema: "fabric-audit/remediation-apply/v1",
        out: out.display().to_string(),
        fixed,
        not_fixed,
        new_errors,
        not_merged,
        run_on_device,
        lossless_besides_roce,
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
            f.rule(),
            f.device,
            f.interface
                .as_deref()
                .map(|i| format!(":{i}"))
                .unwrap_or_default(),
            f.message()
        ));
    }
    for (d, e) in &o.not_merged {
        s.push_str(&format!("  NOT MERGED {d}: {e}\n"));
    }
    for x in &o.lossless_besides_roce {
        let list: Vec<String> = x.dscp.iter().map(u8::to_string).collect();
        s.push_str(&format!(
            "  STILL LOSSLESS {}:{}: DSCP {} besides RoCE's, after the fix changed its classification\n",
            x.device,
            x.interface,
            list.join(", ")
        ));
    }
    for (d, n) in &o.run_on_device {
        s.push_str(&format!(
            "  RUN ON HOST {d}: {n} step(s) are commands to run on the host (not a config file): not applied to the copy\n"
        ));
    }
    s.push_str(if o.ok() {
        "Result: every fix merged into the copy cleared its findings, and no new error appeared.\n"
    } else {
        "Result: the copy is not clean (see above).\n"
    });
    s
}
