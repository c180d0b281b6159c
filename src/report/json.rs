//! The JSON report (README.md "The report", schema `fabric-audit/report/v1`).

use crate::finding::{Finding, count_by_severity};
use crate::model::{FileParse, ParseStatus};
use crate::report::input::Audit;
use serde::Serialize;

pub const SCHEMA: &str = "fabric-audit/report/v1";

#[derive(Serialize)]
pub struct Report<'a> {
    pub schema: &'static str,
    pub tool: Tool,
    pub summary: Summary,
    pub findings: &'a [Finding],
    /// Root-cause groups of the decided findings, worst first; `members` index `findings`.
    pub groups: Vec<super::groups::Group>,
    pub parse: Vec<&'a FileParse>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub probes: &'a [crate::model::probe::Probe],
    /// Findings a waiver accepted, each with its waiver (not counted in `summary.findings`).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub waived: &'a [crate::report::input::Waived],
}

#[derive(Serialize)]
pub struct Tool {
    pub name: &'static str,
    pub version: &'static str,
}

#[derive(Serialize)]
pub struct Summary {
    pub devices: usize,
    pub interfaces: usize,
    pub links: usize,
    pub rules: usize,
    pub findings: Counts,
    /// Root causes the decided findings come from (`groups`).
    pub causes: usize,
    /// "Could not decide" findings (counted as info in `findings` too).
    pub undecided: usize,
    pub parse: ParseCounts,
}

#[derive(Serialize, Default)]
pub struct Counts {
    pub error: usize,
    pub warning: usize,
    pub info: usize,
}

#[derive(Serialize, Default)]
pub struct ParseCounts {
    pub passed: usize,
    pub partial: usize,
    pub failed: usize,
}

pub fn summary(a: &Audit) -> Summary {
    summary_with(a, super::groups::group(&a.findings).len())
}

/// [`summary`] with the number of root-cause groups already counted (grouping again would
/// hold a second grouping of every finding while the caller's is live).
pub fn summary_with(a: &Audit, causes: usize) -> Summary {
    let [error, warning, info] = count_by_severity(&a.findings);
    let findings = Counts {
        error,
        warning,
        info,
    };
    let mut parse = ParseCounts::default();
    for p in a.fabric.devices.iter().flat_map(|d| &d.parse) {
        match p.status {
            ParseStatus::Passed => parse.passed += 1,
            ParseStatus::Partial => parse.partial += 1,
            ParseStatus::Failed => parse.failed += 1,
        }
    }
    Summary {
        devices: a.fabric.devices.len(),
        interfaces: a.fabric.devices.iter().map(|d| d.interfaces.len()).sum(),
        links: a.fabric.links.len(),
        rules: a.rules,
        findings,
        causes,
        undecided: a.findings.iter().filter(|f| f.undecided()).count(),
        parse,
    }
}

fn report(a: &Audit) -> Report<'_> {
    let groups = super::groups::group(&a.findings);
    Report {
        schema: SCHEMA,
        tool: Tool {
            name: "fabric-audit",
            version: env!("CARGO_PKG_VERSION"),
        },
        summary: summary_with(a, groups.len()),
        findings: &a.findings,
        groups,
        parse: a.fabric.devices.iter().flat_map(|d| &d.parse).collect(),
        probes: &a.probes,
        waived: &a.waived,
    }
}

pub fn render(a: &Audit) -> String {
    serde_json::to_string_pretty(&report(a)).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
        + "\n"
}

/// [`render`] written to `w` as it is serialized: the same bytes without the whole report
/// held in memory (a 5,000-device fabric's report is tens of megabytes).
pub fn write(a: &Audit, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut w = std::io::BufWriter::with_capacity(super::spill::Out::SPILL, w);
    serde_json::to_writer_pretty(&mut w, &report(a))?;
    w.write_all(b"\n")?;
    w.flush()
}
