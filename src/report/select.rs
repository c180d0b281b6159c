//! Which findings a report shows and counts: `--min-severity`, `--select` and `--ignore`
//! (a rule id such as `PFC001`, or a family such as `PFC`), `--device` (names with `*` and
//! `?` globs). The exit status is computed on what is left, so an ignored rule never fails a
//! build. Every code and glob is checked against the rule catalog and the snapshot's devices
//! first: a typo is an error (exit 2) with the nearest valid name, never a silent no-op.

use crate::finding::{Finding, Severity};
use crate::glob::matches as glob_match;
use crate::report::input::Audit;
use anyhow::{Result, bail};

#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub min_severity: Option<Severity>,
    /// Rule ids or families; empty: every rule.
    pub select: Vec<String>,
    /// Rule ids or families left out.
    pub ignore: Vec<String>,
    /// Device name globs; empty: every device.
    pub devices: Vec<String>,
}

/// True when `code` names `rule` (same id) or its family (the id's letters).
fn names(code: &str, rule: &str) -> bool {
    let family = rule.trim_end_matches(|c: char| c.is_ascii_digit());
    code.eq_ignore_ascii_case(rule) || code.eq_ignore_ascii_case(family)
}

impl Selection {
    pub fn is_empty(&self) -> bool {
        self.min_severity.is_none()
            && self.select.is_empty()
            && self.ignore.is_empty()
            && self.devices.is_empty()
    }

    pub fn keeps(&self, f: &Finding) -> bool {
        self.min_severity.is_none_or(|m| f.severity() >= m)
            && (self.select.is_empty() || self.select.iter().any(|c| names(c, f.rule())))
            && !self.ignore.iter().any(|c| names(c, f.rule()))
            && (self.devices.is_empty() || self.devices.iter().any(|g| glob_match(g, &f.device)))
    }

    /// Every code names a rule or a family of `rules`; every glob matches a device of the
    /// audit (or the fabric-wide pseudo-device).
    pub fn validate(&self, a: &Audit) -> Result<()> {
        let ids: Vec<&str> = a.catalog.iter().map(|r| r.id.as_str()).collect();
        for (flag, codes) in [("--select", &self.select), ("--ignore", &self.ignore)] {
            for c in codes {
                if !ids.iter().any(|id| names(c, id)) {
                    let mut known: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
                    known.extend(a.catalog.iter().map(|r| r.family.clone()));
                    bail!(
                        "{flag} {c:?} names no rule or family{}; `fabric-audit rules` lists them",
                        did_you_mean(c, &known)
                    );
                }
            }
        }
        let devices: Vec<String> = a
            .fabric
            .devices
            .iter()
            .map(|d| d.name.clone())
            .chain([crate::finding::FABRIC.to_string()])
            .collect();
        for g in &self.devices {
            if !devices.iter().any(|d| glob_match(g, d)) {
                bail!(
                    "--device {g:?} matches no device of the snapshot{}",
                    did_you_mean(g, &devices)
                );
            }
        }
        Ok(())
    }

    /// Keep only the selected findings (and waived findings) of an audit.
    pub fn apply(&self, a: &mut Audit) {
        a.findings.retain(|f| self.keeps(f));
        a.waived.retain(|w| self.keeps(&w.finding));
    }
}

/// " (did you mean X?)" for the known name nearest to `s`, when one is close.
pub fn did_you_mean(s: &str, known: &[String]) -> String {
    let s_up = s.to_ascii_uppercase();
    known
        .iter()
        .map(|k| (edit_distance(&s_up, &k.to_ascii_uppercase()), k))
        .filter(|(d, k)| *d <= (k.len() / 3).max(1))
        .min()
        .map(|(_, k)| format!(" (did you mean {k}?)"))
        .unwrap_or_default()
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_is_a_rule_id_or_its_family() {
        assert!(names("PFC001", "PFC001"));
        assert!(names("pfc", "PFC001"));
        assert!(!names("PFC00", "PFC001"));
        assert!(!names("PF", "PFC001"));
        assert!(!names("ECN", "PFC001"));
    }

    #[test]
    fn the_nearest_name_is_suggested() {
        let known = vec!["PFC001".to_string(), "PFC003".into(), "ECN001".into()];
        assert_eq!(did_you_mean("PFC01", &known), " (did you mean PFC001?)");
        assert_eq!(did_you_mean("XYZ999", &known), "");
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
