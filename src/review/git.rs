//! The snapshot folder of a git repository as it was at a ref: `git archive` of that commit
//! into a temporary folder, which is removed when the [`Tree`] is dropped. The repository and
//! its work tree are never touched (no checkout, no stash), so a review can run in a dirty
//! clone or a CI job's shallow one.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A ref exported to a temporary folder.
pub struct Tree {
    /// The temporary root; the snapshot is `root.join(path)`.
    root: PathBuf,
    pub snapshot: PathBuf,
    /// The full commit id the ref named.
    pub commit: String,
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn git(repo: &Path) -> Command {
    let mut c = Command::new("git");
    c.arg("-C").arg(repo);
    // Never prompt, never read the user's pager or editor.
    c.env("GIT_TERMINAL_PROMPT", "0").env("GIT_PAGER", "cat");
    c
}

/// The commit a ref names, or an error that says what was asked of which repository.
pub fn resolve(repo: &Path, rev: &str) -> Result<String> {
    if rev.is_empty() || rev.starts_with('-') || rev.chars().any(char::is_control) {
        bail!("{rev:?} is not a git ref");
    }
    let out = git(repo)
        .args(["rev-parse", "--verify", "--quiet", "--end-of-options"])
        .arg(format!("{rev}^{{commit}}"))
        .stderr(Stdio::piped())
        .output()
        .with_context(|| format!("cannot run git in {}", repo.display()))?;
    if !out.status.success() {
        let inside = git(repo)
            .args(["rev-parse", "--git-dir"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if !inside {
            bail!("{} is not a git repository", repo.display());
        }
        bail!("{rev:?} names no commit in {}", repo.display());
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Export `path` (a folder of the repository, "." for all of it) as it was at `rev`.
pub fn export(repo: &Path, rev: &str, path: &str) -> Result<Tree> {
    let commit = resolve(repo, rev)?;
    let n = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let root = std::env::temp_dir().join(format!(
        "fabric-audit-review-{}-{}-{n}",
        std::process::id(),
        &commit[..commit.len().min(12)]
    ));
    std::fs::create_dir_all(&root).with_context(|| format!("cannot create {}", root.display()))?;
    let tree = Tree {
        snapshot: root.join(path),
        root: root.clone(),
        commit: commit.clone(),
    };
    let mut archive = git(repo)
        .args(["archive", "--format=tar", &commit, "--"])
        .arg(path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot run git archive in {}", repo.display()))?;
    let Some(stdout) = archive.stdout.take() else {
        bail!("git archive gave no output stream");
    };
    let untar = Command::new("tar")
        .arg("-x")
        .arg("-C")
        .arg(&root)
        .stdin(stdout)
        .stderr(Stdio::piped())
        .output()
        .context("cannot run tar")?;
    let git_out = archive.wait_with_output().context("git archive")?;
    if !git_out.status.success() {
        bail!(
            "{path:?} is not in {rev} ({}) of {}: {}",
            &commit[..commit.len().min(12)],
            repo.display(),
            String::from_utf8_lossy(&git_out.stderr).trim()
        );
    }
    if !untar.status.success() {
        bail!(
            "cannot unpack {rev} of {}: {}",
            repo.display(),
            String::from_utf8_lossy(&untar.stderr).trim()
        );
    }
    // The snapshot folder itself must be a folder of the commit, not a link the commit
    // carries (`fabric -> /home/runner`): no component of `path` is followed. Links inside
    // the snapshot are refused file by file when it is read (rule PARSE010).
    let mut at = root.clone();
    for part in Path::new(path).components() {
        at.push(part);
        if std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
            bail!(
                "{path:?} is a symbolic link in {rev} of {}: not followed (a snapshot folder is read only as itself)",
                repo.display()
            );
        }
    }
    if !tree.snapshot.is_dir() {
        bail!("{path:?} is not a folder in {rev} of {}", repo.display());
    }
    Ok(tree)
}

/// The lines of each file of the snapshot folder `path` that the change `base..head` added or
/// rewrote, numbered as in `head` (a pure deletion counts as the line after it), keyed by the
/// file's path inside the snapshot folder.
pub fn changed_lines(
    repo: &Path,
    base: &str,
    head: &str,
    path: &str,
) -> Result<std::collections::BTreeMap<String, Vec<u32>>> {
    let out = git(repo)
        .args([
            "diff",
            "--no-color",
            "--no-ext-diff",
            "-U0",
            base,
            head,
            "--",
        ])
        .arg(path)
        .stderr(Stdio::piped())
        .output()
        .with_context(|| format!("cannot run git diff in {}", repo.display()))?;
    if !out.status.success() {
        bail!(
            "git diff {base} {head}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let prefix = match path.trim_matches('/') {
        "" | "." => String::new(),
        p => format!("{p}/"),
    };
    let mut files: std::collections::BTreeMap<String, Vec<u32>> = Default::default();
    let mut current: Option<String> = None;
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        if let Some(f) = line.strip_prefix("+++ ") {
            current = f
                .strip_prefix("b/")
                .map(|f| f.strip_prefix(prefix.as_str()).unwrap_or(f).to_string());
            continue;
        }
        let (Some(file), Some(h)) = (&current, line.strip_prefix("@@ ")) else {
            continue;
        };
        // "@@ -a,b +c,d @@": the head side is +c,d (d absent: 1; d = 0: a deletion after c).
        let Some(plus) = h.split_whitespace().find(|w| w.starts_with('+')) else {
            continue;
        };
        let mut it = plus[1..].split(',');
        let start: u32 = it.next().and_then(|s| s.parse().ok()).unwrap_or(0);
        let count: u32 = it.next().and_then(|s| s.parse().ok()).unwrap_or(1);
        let lines = files.entry(file.clone()).or_default();
        if count == 0 {
            lines.push(start.saturating_add(1).max(1));
        } else {
            lines.extend(start..start.saturating_add(count));
        }
    }
    Ok(files)
}
