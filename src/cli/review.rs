//! `diff` (two snapshot folders) and `review` (two git refs of a repository of intended
//! configs): what a change introduces, fixes and leaves.

use super::{ExitStatus, FailOn, emit_with, status_for};
use crate::audit::{self, Options};
use crate::report::{self, Format};
use anyhow::{Context, Result};
use std::path::PathBuf;

/// Options shared by `diff` and `review`.
#[derive(clap::Args, Debug, Clone)]
pub struct ReviewArgs {
    /// Report format: table, json (fabric-audit/diff/v1), sarif, github, junit, markdown,
    /// html, concise.
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// Write the report to FILE instead of standard output.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Exit 1 when a NEW finding reaches this severity (fixed, unchanged and waived ones never
    /// fail).
    #[arg(long, value_enum, default_value = "error")]
    pub fail_on: FailOn,
    /// Extra or overriding rule files (a folder of TOML files); the embedded rules otherwise.
    #[arg(long)]
    pub rules: Option<PathBuf>,
    /// Extra or overriding vendor parser files (a folder of TOML files); the embedded ones
    /// otherwise.
    #[arg(long)]
    pub parsers: Option<PathBuf>,
    /// Waiver file (default: waivers.toml in the snapshot folder after the change).
    #[arg(long)]
    pub waivers: Option<PathBuf>,
}

/// Compare two snapshots (before and after a change): the findings the change introduces,
/// fixes and leaves, matched by rule, device and object, never by line number.
#[derive(clap::Args, Debug)]
pub struct DiffArgs {
    /// The snapshot folder before the change.
    pub before: PathBuf,
    /// The snapshot folder after the change.
    pub after: PathBuf,
    #[command(flatten)]
    pub review: ReviewArgs,
}

/// `diff BEFORE AFTER`.
pub fn run_diff(a: DiffArgs) -> Result<ExitStatus> {
    let DiffArgs {
        before,
        after,
        review,
    } = a;
    let opts = review_options(&review);
    let b = audit::run(
        &before,
        &Options {
            waivers: None,
            ..opts.clone()
        },
    )?;
    let a = super::audit::audit_with_fixes(&after, &opts)?;
    let scope = crate::review::Scope::Diff {
        before: before.display().to_string(),
        after: after.display().to_string(),
    };
    let r = crate::review::Review::of_change(&b, &a, scope).with_root(&after.display().to_string());
    emit_with(review.output.as_ref(), |w| {
        report::write_review(&r, review.format, false, w)
    })?;
    Ok(status_for(&r.new, review.fail_on))
}

/// Review a change of intended configs kept in git: audit the snapshot folder as it was at
/// BASE and as it is at HEAD, and report what the change introduces, fixes and leaves.
#[derive(clap::Args, Debug)]
pub struct ReviewCmdArgs {
    /// The git repository.
    #[arg(long)]
    pub repo: PathBuf,
    /// The ref the change starts from (a branch, tag or commit).
    #[arg(long)]
    pub base: String,
    /// The ref of the change.
    #[arg(long, default_value = "HEAD")]
    pub head: String,
    /// The snapshot folder inside the repository.
    #[arg(long, default_value = ".")]
    pub path: String,
    #[command(flatten)]
    pub review: ReviewArgs,
}

/// `review --repo --base --head --path`.
pub fn run_review(a: ReviewCmdArgs) -> Result<ExitStatus> {
    let ReviewCmdArgs {
        repo,
        base,
        head,
        path,
        review,
    } = a;
    use crate::review::git;
    let opts = review_options(&review);
    let bt = git::export(&repo, &base, &path)?;
    let ht = git::export(&repo, &head, &path)?;
    let b = audit::run(
        &bt.snapshot,
        &Options {
            waivers: None,
            ..opts.clone()
        },
    )
    .with_context(|| format!("auditing {path} at {base}"))?;
    let a = super::audit::audit_with_fixes(&ht.snapshot, &opts)
        .with_context(|| format!("auditing {path} at {head}"))?;
    let changed = git::changed_lines(&repo, &bt.commit, &ht.commit, &path)?;
    let scope = crate::review::Scope::Git {
        repo: repo.display().to_string(),
        path,
        base,
        head,
        base_commit: bt.commit.clone(),
        head_commit: ht.commit.clone(),
    };
    let mut r = crate::review::Review::of_change(&b, &a, scope);
    let head_root = ht.snapshot.clone();
    r.anchor_to_change(&changed, &|file: &str| {
        crate::snapshot::read::read_text(&head_root.join(file)).ok()
    });
    emit_with(review.output.as_ref(), |w| {
        report::write_review(&r, review.format, false, w)
    })?;
    Ok(status_for(&r.new, review.fail_on))
}

/// The audit options of `diff` / `review`; `--format model` also turns on the recording of each
/// port's policies in force, which only that format shows (see `audit::run`).
fn review_options(r: &ReviewArgs) -> Options {
    if matches!(r.format, Format::Model) {
        crate::model::maps::set_keep_policies(true);
    }
    Options {
        rules_dir: r.rules.clone(),
        parsers_dir: r.parsers.clone(),
        waivers: r.waivers.clone(),
    }
}
