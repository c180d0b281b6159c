//! `fabric-audit.toml`: a repository's defaults for `audit`, so a team does not repeat its
//! flags in every CI job. Looked for in the snapshot folder and each folder above it, then
//! in the working directory and each folder above it; the first one found is used. A flag
//! given on the command line wins over the file. Unknown keys and wrong types are errors
//! (exit 2) naming the file and line, with the nearest known key.
//!
//! ```toml
//! format = "concise"          # table | concise | json | markdown | sarif | junit | github | html | model
//! fail-on = "warning"         # error | warning | info | never
//! min-severity = "warning"    # info | warning | error
//! select = ["PFC", "ECN"]     # rules or families
//! ignore = ["TOPO002"]
//! rules = "rules.d"           # folders, relative to this file
//! parsers = "parsers.d"
//! ```

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use std::path::{Path, PathBuf};

pub const FILE: &str = "fabric-audit.toml";

const KEYS: &[&str] = &[
    "format",
    "fail-on",
    "min-severity",
    "select",
    "ignore",
    "rules",
    "parsers",
];

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RepoConfig {
    pub format: Option<String>,
    pub fail_on: Option<String>,
    pub min_severity: Option<String>,
    #[serde(default)]
    pub select: Vec<String>,
    #[serde(default)]
    pub ignore: Vec<String>,
    pub rules: Option<PathBuf>,
    pub parsers: Option<PathBuf>,
    /// The file it was read from (set after reading).
    #[serde(skip)]
    pub path: PathBuf,
}

/// The first `fabric-audit.toml` in `start` or a folder above it.
fn find_from(start: &Path) -> Option<PathBuf> {
    let start = std::fs::canonicalize(start).ok()?;
    start
        .ancestors()
        .map(|d| d.join(FILE))
        .find(|p| p.is_file())
}

/// Find and read the config for a snapshot: upward from the snapshot, then from the working
/// directory. None when there is none.
pub fn find(snapshot: Option<&Path>) -> Result<Option<RepoConfig>> {
    let found = snapshot
        .and_then(find_from)
        .or_else(|| find_from(&std::env::current_dir().ok()?));
    found.map(|p| read(&p)).transpose()
}

/// Read one config file; folders in it are made relative to the file's folder.
pub fn read(path: &Path) -> Result<RepoConfig> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut c: RepoConfig = toml::from_str(&text).map_err(|e| {
        let line = e
            .span()
            .map(|s| text.get(..s.start).unwrap_or(&text).matches('\n').count() + 1)
            .unwrap_or(1);
        let hint = unknown_key(e.message())
            .map(|k| crate::report::select::did_you_mean(k, &known_keys()))
            .unwrap_or_default();
        anyhow::anyhow!(
            "{}:{line}: {}{hint}",
            path.display(),
            e.message().trim_end()
        )
    })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    c.rules = c.rules.map(|r| dir.join(r));
    c.parsers = c.parsers.map(|p| dir.join(p));
    c.path = path.to_path_buf();
    Ok(c)
}

fn known_keys() -> Vec<String> {
    KEYS.iter().map(|k| k.to_string()).collect()
}

/// The key serde names in "unknown field `x`, expected ...".
fn unknown_key(msg: &str) -> Option<&str> {
    let rest = msg.strip_prefix("unknown field `")?;
    rest.split('`').next()
}

/// A value of the file parsed as one of a clap value enum's names, or an error naming the file.
pub fn value<T: clap::ValueEnum>(
    c: &RepoConfig,
    key: &str,
    v: &Option<String>,
) -> Result<Option<T>> {
    let Some(s) = v else { return Ok(None) };
    match T::from_str(s, false) {
        Ok(t) => Ok(Some(t)),
        Err(_) => {
            let names: Vec<String> = T::value_variants()
                .iter()
                .filter_map(|v| v.to_possible_value().map(|p| p.get_name().to_string()))
                .collect();
            bail!(
                "{}: {key} = {s:?} is not one of {}{}",
                c.path.display(),
                names.join(", "),
                crate::report::select::did_you_mean(s, &names)
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_are_errors_with_the_line_and_the_nearest_key() {
        let dir = std::env::temp_dir().join(format!("fa-repocfg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(FILE);
        std::fs::write(&p, "format = \"json\"\nfail_on = \"warning\"\n").unwrap();
        let e = read(&p).unwrap_err().to_string();
        assert!(
            e.contains(":2:") && e.contains("did you mean fail-on?"),
            "{e}"
        );
        std::fs::write(&p, "ignore = \"TOPO002\"\n").unwrap();
        let e = read(&p).unwrap_err().to_string();
        assert!(e.contains(":1:") && e.contains("sequence"), "{e}");
        std::fs::write(&p, "rules = \"r\"\nignore = [\"TOPO\"]\n").unwrap();
        let c = read(&p).unwrap();
        assert_eq!(c.rules, Some(dir.join("r")));
        assert_eq!(c.ignore, vec!["TOPO"]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
