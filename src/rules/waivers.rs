//! Waivers: `waivers.toml` entries that accept a known finding for a while, with a reason, an
//! owner and an expiry date. A waived finding leaves the exit code alone but is still listed,
//! apart, in every report. Waivers that match nothing, name a rule that does not exist or have
//! expired become WAIVER findings themselves (rules/waiver.toml), so a waiver file cannot rot
//! silently.
//!
//! ```toml
//! [[waiver]]
//! rule = "MTU002"            # rule id, `*` and `?` globs allowed
//! device = "gpu0*"           # default "*"
//! object = "eth2"            # interface, or peer as device:interface; default "*"
//! reason = "NIC replaced in CHG-1234; MTU set by the re-image on Friday"
//! owner = "netops@example.com"
//! expires = 2026-12-31       # TOML date or "YYYY-MM-DD"; the waiver ends after this day
//! ```

use crate::finding::Finding;
use crate::glob::matches as glob_match;
use crate::model::Notice;
use anyhow::{Result, bail};
use serde::{Deserialize, Serialize};
use std::path::Path;
use toml::Spanned;

/// The default waiver file name, looked for in the snapshot folder.
pub const FILE: &str = "waivers.toml";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpec {
    #[serde(rename = "waiver", default)]
    waivers: Vec<Spanned<Spec>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Spec {
    rule: String,
    #[serde(default = "star")]
    device: String,
    #[serde(default = "star")]
    object: String,
    reason: String,
    owner: String,
    expires: toml::Value,
}

fn star() -> String {
    "*".into()
}

/// A calendar day (proleptic Gregorian), ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Day {
    pub year: i32,
    pub month: u32,
    pub day: u32,
}

impl std::fmt::Display for Day {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl Day {
    /// `YYYY-MM-DD`, a real date.
    pub fn parse(s: &str) -> Option<Day> {
        let mut it = s.trim().splitn(3, '-');
        let year: i32 = it.next()?.parse().ok()?;
        let month: u32 = it.next()?.parse().ok()?;
        let day: u32 = it.next()?.parse().ok()?;
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
        let days = [
            31,
            if leap { 29 } else { 28 },
            31,
            30,
            31,
            30,
            31,
            31,
            30,
            31,
            30,
            31,
        ];
        if !(1..=12).contains(&month) || day == 0 || day > days[month as usize - 1] {
            return None;
        }
        Some(Day { year, month, day })
    }

    /// Today in UTC (from the system clock; days since 1970 to a civil date).
    pub fn today() -> Day {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        Day::from_days((secs / 86_400) as i64)
    }

    fn from_days(z: i64) -> Day {
        // Howard Hinnant's civil_from_days.
        let z = z + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let year = (yoe + era * 400 + i64::from(month <= 2)) as i32;
        Day { year, month, day }
    }
}

/// One waiver, as read, with the place it was written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Waiver {
    pub rule: String,
    pub device: String,
    pub object: String,
    pub reason: String,
    pub owner: String,
    pub expires: String,
    pub file: String,
    pub line: u32,
    #[serde(skip)]
    expires_day: Option<Day>,
}

impl Waiver {
    /// True when the waiver covers the finding (expiry aside).
    pub fn matches(&self, f: &Finding) -> bool {
        if !glob_match(&self.rule, f.rule()) || !glob_match(&self.device, &f.device) {
            return false;
        }
        if self.object == "*" {
            return true;
        }
        f.interface
            .as_deref()
            .is_some_and(|i| glob_match(&self.object, i))
            || f.peer
                .as_ref()
                .is_some_and(|p| glob_match(&self.object, &format!("{}:{}", p.device, p.interface)))
    }

    pub fn expired(&self, today: Day) -> bool {
        self.expires_day.is_some_and(|d| d < today)
    }
}

/// A finding a waiver accepted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Waived {
    pub finding: Finding,
    pub waiver: Waiver,
}

/// Read a waiver file. Every error names the file and line.
pub fn load(path: &Path) -> Result<Vec<Waiver>> {
    let text = crate::snapshot::read::read_text(path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    parse(&text, &path.display().to_string())
}

pub fn parse(text: &str, file: &str) -> Result<Vec<Waiver>> {
    let line_of = |off: usize| crate::parser::line_col(text, off).0 as u32;
    let spec: FileSpec = crate::toml_pieces::from_str(text).map_err(|e| {
        let line = e.span().map(|s| line_of(s.start)).unwrap_or(1);
        anyhow::anyhow!(
            "{file}:{line}: {} (expected [[waiver]] tables with rule, device, object, reason, owner, expires)",
            e.message().trim_end()
        )
    })?;
    let mut out = Vec::new();
    for w in spec.waivers {
        let line = line_of(w.span().start);
        let s = w.into_inner();
        if s.reason.trim().is_empty() {
            bail!(
                "{file}:{line}: waiver for {}: reason is empty; say why the finding is accepted",
                s.rule
            );
        }
        if s.owner.trim().is_empty() {
            bail!(
                "{file}:{line}: waiver for {}: owner is empty; name who answers for it",
                s.rule
            );
        }
        let expires = match &s.expires {
            toml::Value::String(x) => x.clone(),
            toml::Value::Datetime(d) => d.to_string(),
            other => bail!(
                "{file}:{line}: waiver for {}: expires = {other}: expected a date YYYY-MM-DD",
                s.rule
            ),
        };
        let Some(day) = Day::parse(&expires) else {
            bail!(
                "{file}:{line}: waiver for {}: expires = {expires:?}: expected a date YYYY-MM-DD",
                s.rule
            );
        };
        for (what, v) in [
            ("rule", &s.rule),
            ("device", &s.device),
            ("object", &s.object),
        ] {
            if v.is_empty() || v.chars().any(char::is_control) {
                bail!("{file}:{line}: waiver {what} {v:?}: expected a name or a glob");
            }
        }
        out.push(Waiver {
            rule: s.rule,
            device: s.device,
            object: s.object,
            reason: s.reason.trim().to_string(),
            owner: s.owner.trim().to_string(),
            expires: day.to_string(),
            file: file.to_string(),
            line,
            expires_day: Some(day),
        });
    }
    Ok(out)
}

/// What applying the waivers did.
#[derive(Debug, Default)]
pub struct Applied {
    /// Findings no waiver covers (they count for the exit code).
    pub kept: Vec<Finding>,
    pub waived: Vec<Waived>,
    /// Notices for the WAIVER rules: kinds `waiver-unused`, `waiver-unknown-rule`,
    /// `waiver-expired`.
    pub notices: Vec<Notice>,
}

/// Apply `waivers` to `findings`. An expired waiver covers nothing; a waiver whose rule glob
/// matches no rule of `rule_ids` covers nothing. WAIVER findings are never waived.
pub fn apply(findings: Vec<Finding>, waivers: &[Waiver], rule_ids: &[&str], today: Day) -> Applied {
    let mut used = vec![false; waivers.len()];
    let mut out = Applied::default();
    let live: Vec<bool> = waivers
        .iter()
        .map(|w| !w.expired(today) && rule_ids.iter().any(|r| glob_match(&w.rule, r)))
        .collect();
    for f in findings {
        let hit = if f.rule().starts_with("WAIVER") {
            None
        } else {
            waivers
                .iter()
                .enumerate()
                .position(|(k, w)| live[k] && w.matches(&f))
        };
        match hit {
            Some(k) => {
                used[k] = true;
                out.waived.push(Waived {
                    finding: f,
                    waiver: waivers[k].clone(),
                });
            }
            None => out.kept.push(f),
        }
    }
    for (k, w) in waivers.iter().enumerate() {
        let what = format!(
            "waiver {} / {} / {} ({}, owner {})",
            w.rule, w.device, w.object, w.reason, w.owner
        );
        let (kind, message) = if !rule_ids.iter().any(|r| glob_match(&w.rule, r)) {
            (
                "waiver-unknown-rule",
                format!("{what} names no known rule; `fabric-audit rules` lists them"),
            )
        } else if w.expired(today) {
            (
                "waiver-expired",
                format!(
                    "{what} expired on {}; the findings it covered count again",
                    w.expires
                ),
            )
        } else if !used[k] {
            (
                "waiver-unused",
                format!("{what} matches no finding: remove it, or correct its globs"),
            )
        } else {
            continue;
        };
        out.notices.push(Notice {
            kind: kind.into(),
            device: crate::finding::FABRIC.into(),
            file: w.file.clone(),
            line: Some(w.line),
            message,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(rule: &str, device: &str, iface: Option<&str>) -> Finding {
        Finding::from(crate::finding::Parts {
            rule: rule.into(),
            severity: crate::finding::Severity::Error,
            title: "".into(),
            message: String::new(),
            device: device.into(),
            interface: iface.map(Into::into),
            peer: None,
            source: None,
            evidence: Default::default(),
            remediation: None,
        })
    }

    #[test]
    fn dates() {
        assert_eq!(Day::from_days(0).to_string(), "1970-01-01");
        assert_eq!(Day::from_days(20_787).to_string(), "2026-11-30");
        assert_eq!(Day::from_days(11_016).to_string(), "2000-02-29");
        assert!(Day::parse("2026-02-29").is_none());
        assert!(Day::parse("2024-02-29").is_some());
        assert!(Day::parse("2026-13-01").is_none());
        assert!(Day::parse("soon").is_none());
    }

    #[test]
    fn errors_name_file_and_line() {
        let text = "[[waiver]]\nrule = \"PFC001\"\nreason = \"x\"\nowner = \"o\"\nexpires = 2026-12-01\n\n[[waiver]]\nrule = \"MTU002\"\nreason = \"  \"\nowner = \"o\"\nexpires = 2026-12-01\n";
        let e = parse(text, "w.toml").unwrap_err().to_string();
        assert!(e.starts_with("w.toml:7:"), "{e}");
        assert!(e.contains("reason is empty"), "{e}");
        let e = parse(
            "[[waiver]]\nrule = \"A\"\nreason = \"r\"\nowner = \"o\"\nexpires = \"31/12/2026\"\n",
            "w.toml",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("w.toml:1:") && e.contains("YYYY-MM-DD"), "{e}");
        let e = parse(
            "[[waiver]]\nrule = \"A\"\nowner = \"o\"\nexpires = 2026-01-01\n",
            "w.toml",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("w.toml:1:") && e.contains("reason"), "{e}");
        let e = parse("[[waiver]]\nrule = \"A\"\nreason = \"r\"\nowner = \"o\"\nexpires = 2026-01-01\nticket = 5\n", "w.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("w.toml:6:") && e.contains("ticket"), "{e}");
    }

    #[test]
    fn apply_waives_and_reports_problems() {
        let text = r#"
[[waiver]]
rule = "MTU00?"
device = "gpu*"
object = "eth2"
reason = "re-image pending"
owner = "netops"
expires = 2026-12-31

[[waiver]]
rule = "PFC001"
reason = "nothing matches this"
owner = "netops"
expires = 2026-12-31

[[waiver]]
rule = "PCF001"
reason = "typo"
owner = "netops"
expires = 2026-12-31

[[waiver]]
rule = "ECN001"
reason = "old"
owner = "netops"
expires = 2026-11-01
"#;
        let ws = parse(text, "waivers.toml").unwrap();
        let fs = vec![
            finding("MTU002", "gpu01", Some("eth2")),
            finding("MTU002", "gpu01", Some("eth3")),
            finding("ECN001", "leaf1", Some("Ethernet1/1")),
        ];
        let today = Day::parse("2026-11-30").unwrap();
        let a = apply(fs, &ws, &["MTU002", "PFC001", "ECN001"], today);
        assert_eq!(a.waived.len(), 1);
        assert_eq!(a.waived[0].finding.interface.as_deref(), Some("eth2"));
        assert_eq!(a.waived[0].waiver.line, 2);
        assert_eq!(a.kept.len(), 2, "eth3 and the expired ECN001 stay");
        let kinds: Vec<(&str, Option<u32>)> = a
            .notices
            .iter()
            .map(|n| (n.kind.as_str(), n.line))
            .collect();
        assert_eq!(
            kinds,
            vec![
                ("waiver-unused", Some(10)),
                ("waiver-unknown-rule", Some(16)),
                ("waiver-expired", Some(22)),
            ]
        );
    }
}
