//! A finding: what a rule (or the parser, or the topology builder) says about one object.

pub mod evidence;

use crate::model::Endpoint;
pub use evidence::Evidence;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Per rule: how many objects it checked and passed, and on which platforms (the rule engine
/// counts them; JUnit shows a passing case per rule).
#[derive(Debug, Default, Clone)]
pub struct Passes {
    pub count: BTreeMap<String, usize>,
    pub platforms: BTreeMap<String, BTreeSet<String>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
    pub fn parse(s: &str) -> Option<Severity> {
        match s {
            "info" => Some(Severity::Info),
            "warning" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Location {
    pub file: String,
    pub line: u32,
}

impl From<&crate::model::Src> for Location {
    fn from(s: &crate::model::Src) -> Location {
        Location {
            file: s.file.to_string(),
            line: s.line,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Remediation {
    pub platform: String,
    pub snippet: String,
    /// `safe` or `needs-review`.
    pub safety: String,
    /// The device the snippet is applied on, when it is not the finding's own (a link fixed at
    /// its other end).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
}

/// Name used as `device` for findings about the fabric as a whole.
pub const FABRIC: &str = "(fabric)";

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub rule: String,
    pub severity: Severity,
    pub title: String,
    pub message: String,
    pub device: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interface: Option<String>,
    /// Boxed, as `remediation`: most findings have neither, and a finding is held for every
    /// object a rule fails on (issue 19: 328 bytes inline per finding, 96 of them an absent
    /// remediation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peer: Option<Box<Endpoint>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<Location>,
    pub evidence: Evidence,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remediation: Option<Box<Remediation>>,
}

impl Finding {
    /// True for "could not decide" findings (a rule's input was unknown).
    pub fn undecided(&self) -> bool {
        self.evidence
            .get("undecided")
            .and_then(|v| v.as_bool())
            .unwrap_or(false)
    }
}

/// Sort findings by device, interface, rule, then message (deterministic output).
pub fn sort(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        crate::text::natural_cmp(&a.device, &b.device)
            .then_with(|| {
                crate::text::natural_cmp(
                    a.interface.as_deref().unwrap_or(""),
                    b.interface.as_deref().unwrap_or(""),
                )
            })
            .then_with(|| a.rule.cmp(&b.rule))
            .then_with(|| a.message.cmp(&b.message))
    });
}

/// The message with `file:line` positions and bare numbers after a colon removed, to tell
/// apart several findings of one rule on one object when the configs moved lines.
pub fn message_shape(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len());
    let mut chars = msg.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ':' && chars.peek().is_some_and(|d| d.is_ascii_digit()) {
            while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                chars.next();
            }
            continue;
        }
        out.push(c);
    }
    out
}
