//! The terminal report, laid out for the width it is given: a summary first; then one row
//! per root-cause group ([`super::groups`]), errors before warnings before info (info is
//! counted, and listed only with `--verbose` or `--min-severity info`); waived findings and
//! files that were not a clean pass; the checks that could not be decided, counted apart
//! ([`super::coverage`]); and a footer naming the command that fixes what can be fixed.
//! At [`super::width::NARROW_BELOW`] columns and more the findings are a table; under it,
//! one block per row with no borders.

use super::groups::{self, Group};
use super::width::{self, cols, truncate, wrap};
use crate::finding::{Finding, Severity};
use crate::report::input::Audit;
use std::fmt::Write as _;

/// How the terminal report is laid out.
#[derive(Debug, Clone)]
pub struct View {
    pub color: bool,
    /// Columns the report may use ([`super::width::detect`]).
    pub width: usize,
    /// Every member of every group, info findings, and every undecided check.
    pub verbose: bool,
    /// List info findings (the user asked for them with `--min-severity info`).
    pub show_info: bool,
    /// The snapshot folder as the user named it, for the footer's command.
    pub snapshot: Option<String>,
}

impl View {
    /// A plain view: no colour, [`super::width::DEFAULT`] columns, errors and warnings.
    pub fn plain() -> View {
        View {
            color: false,
            width: width::DEFAULT,
            verbose: false,
            show_info: false,
            snapshot: None,
        }
    }
    fn lists(&self, s: Severity) -> bool {
        s > Severity::Info || self.show_info || self.verbose
    }
}

/// One row of the findings: a group (its lead's rule, place and message), or a member.
pub struct Row {
    pub severity: Severity,
    pub rule: String,
    pub device: String,
    pub place: String,
    pub peer: Option<String>,
    pub message: String,
    /// For a group of several findings: how many, what joined them, their rules.
    pub extra: Option<String>,
    pub source: String,
    pub members: Vec<Row>,
}

impl Row {
    /// Device and interfaces, then the peer on a line of its own.
    pub fn place_and_peer(&self) -> String {
        let here = if self.place.is_empty() {
            self.device.clone()
        } else {
            format!("{} {}", self.device, self.place)
        };
        match &self.peer {
            Some(p) => format!("{here}\n↔ {p}"),
            None => here,
        }
    }
    /// The message, then the source and the group's counts on one line.
    pub fn message_lines(&self) -> String {
        let tail: Vec<&str> = [self.source.as_str(), self.extra.as_deref().unwrap_or("")]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect();
        if tail.is_empty() {
            self.message.clone()
        } else {
            format!("{}\n{}", self.message, tail.join(" · "))
        }
    }
    fn of_finding(f: &Finding) -> Row {
        Row {
            severity: f.severity(),
            rule: f.rule().to_string(),
            device: f.device.to_string(),
            place: f.interface.as_deref().unwrap_or_default().to_string(),
            peer: f
                .peer
                .as_ref()
                .map(|p| format!("{}:{}", p.device, p.interface)),
            message: f.message().to_string(),
            extra: None,
            source: source_text(f),
            members: Vec::new(),
        }
    }
}

/// `file:line` of a finding's source (the file alone when the line is not known).
pub fn source_text(f: &Finding) -> String {
    match &f.source {
        Some(l) if l.line == 0 => l.file.to_string(),
        Some(l) => format!("{}:{}", l.file, l.line),
        None => String::new(),
    }
}

fn group_row(g: &Group, fs: &[Finding], verbose: bool) -> Row {
    let mut row = Row::of_finding(g.lead(fs));
    row.severity = g.severity;
    if !verbose {
        // The link's other end is in the verbose listing (and in every other format).
        row.peer = None;
    }
    if g.members.len() == 1 {
        return row;
    }
    let ifaces = groups::interfaces(g, fs);
    if ifaces.len() > 1 {
        row.place = format!("{} +{}", ifaces[0], ifaces.len() - 1);
        row.peer = None;
    }
    let rules: Vec<String> = groups::rule_counts(g, fs)
        .into_iter()
        .map(|(r, n)| if n > 1 { format!("{r} ×{n}") } else { r })
        .collect();
    row.extra = Some(if g.rules.len() == 1 {
        format!("{} findings, {}", g.members.len(), g.cause.describe())
    } else {
        format!(
            "{} findings, {}: {}",
            g.members.len(),
            g.cause.describe(),
            rules.join(", ")
        )
    });
    if verbose {
        row.members = g.members[1..]
            .iter()
            .map(|&m| Row::of_finding(&fs[m]))
            .collect();
    }
    row
}

/// The rows of the listed groups, worst first.
pub fn rows(a: &Audit, gs: &[Group], v: &View) -> Vec<Row> {
    gs.iter()
        .filter(|g| v.lists(g.severity))
        .map(|g| group_row(g, &a.findings, v.verbose))
        .collect()
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The summary: what was read, then the findings by severity and by cause.
fn summary(a: &Audit, gs: &[Group], v: &View) -> Vec<String> {
    let s = super::json::summary_with(a, gs.len());
    let undecided = a.findings.iter().filter(|f| f.undecided()).count();
    let mut n = [0usize; 3];
    for f in a.findings.iter().filter(|f| !f.undecided()) {
        n[f.severity() as usize] += 1;
    }
    let decided: usize = n.iter().sum();
    let mut head = format!(
        "{}, {}, {}, {} rules, {} parsed",
        plural(s.devices, "device", "devices"),
        plural(s.interfaces, "interface", "interfaces"),
        plural(s.links, "link", "links"),
        s.rules,
        plural(
            s.parse.passed + s.parse.partial + s.parse.failed,
            "file",
            "files"
        )
    );
    if s.parse.partial + s.parse.failed > 0 {
        let _ = write!(
            head,
            " ({} partial, {} failed)",
            s.parse.partial, s.parse.failed
        );
    }
    if let Some(snap) = &v.snapshot {
        head = format!("{}: {head}", super::terminal_safe(snap, false));
    }
    let hidden = if n[0] > 0 && !v.lists(Severity::Info) {
        " (listed by --verbose)"
    } else {
        ""
    };
    let mut counts = format!(
        "{} from {}: {}, {}, {} info{hidden}",
        plural(decided, "finding", "findings"),
        plural(gs.len(), "cause", "causes"),
        plural(n[2], "error", "errors"),
        plural(n[1], "warning", "warnings"),
        n[0],
    );
    if undecided > 0 {
        let _ = write!(counts, "; {undecided} undecided");
    }
    if !a.waived.is_empty() {
        let _ = write!(counts, "; {} waived", a.waived.len());
    }
    [head, counts]
        .iter()
        .flat_map(|l| wrap(l, v.width))
        .collect()
}

/// The narrow layout: a head line (severity, rule, device, place, source when it fits), the
/// message, the group's counts, every line within the width.
fn blocks(rows: &[Row], v: &View) -> Vec<String> {
    let indent = "      ";
    let body = v.width.saturating_sub(indent.len()).max(10);
    let mut out = Vec::new();
    for r in rows {
        let sev = format!("{:<5}", r.severity.as_str());
        let sev = if v.color {
            paint(r.severity, &sev)
        } else {
            sev
        };
        let place = [r.device.as_str(), r.place.as_str()]
            .iter()
            .filter(|s| !s.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join(" ");
        let head = super::terminal_safe(&format!("{} {place}", r.rule), false).into_owned();
        let with_src = format!("{head}  {}", r.source);
        let plain_len = 6 + cols(&with_src);
        if !r.source.is_empty() && plain_len <= v.width {
            out.push(format!("{sev} {with_src}"));
        } else {
            out.push(format!("{sev} {}", truncate(&head, v.width - 6)));
            if !r.source.is_empty() {
                out.extend(
                    wrap(&r.source, body)
                        .into_iter()
                        .map(|l| indent.to_string() + &l),
                );
            }
        }
        let msg = super::terminal_safe(&r.message, false);
        out.extend(
            wrap(&msg, body)
                .into_iter()
                .map(|l| indent.to_string() + &l),
        );
        if let Some(p) = &r.peer {
            out.push(indent.to_string() + &truncate(&format!("↔ {p}"), body));
        }
        if let Some(x) = &r.extra {
            out.extend(wrap(x, body).into_iter().map(|l| indent.to_string() + &l));
        }
        for m in &r.members {
            let line = format!("└ {} {} {}: {}", m.rule, m.device, m.place, m.message);
            let line = super::terminal_safe(&line, false);
            out.extend(
                wrap(&line, body)
                    .into_iter()
                    .map(|l| indent.to_string() + &l),
            );
        }
    }
    out
}

/// A severity word in its colour (ANSI SGR).
fn paint(s: Severity, text: &str) -> String {
    let code = match s {
        Severity::Error => "1;31",
        Severity::Warning => "33",
        Severity::Info => "36",
    };
    format!("\x1b[{code}m{text}\x1b[0m")
}

/// "18 fixable: run `fabric-audit remediate SNAPSHOT`", when a finding has a fix.
fn footer(a: &Audit, v: &View) -> Option<String> {
    let fixable = a
        .findings
        .iter()
        .filter(|f| f.remediation.is_some() && !f.undecided())
        .count();
    (fixable > 0).then(|| {
        let snap = v
            .snapshot
            .as_deref()
            .map(|s| format!(" {}", super::terminal_safe(s, false)))
            .unwrap_or_default();
        format!("{fixable} fixable: run `fabric-audit remediate{snap}`")
    })
}

/// The whole terminal report.
pub fn render(a: &Audit, v: &View) -> String {
    let gs = groups::group(&a.findings);
    let mut out: Vec<String> = summary(a, &gs, v);
    if !a.probes.is_empty() {
        out.push("Probes:".into());
        out.push(super::probes::table(&a.probes).trim_end().to_string());
    }
    let rows = rows(a, &gs, v);
    if !rows.is_empty() {
        if v.width < width::NARROW_BELOW {
            out.extend(blocks(&rows, v));
        } else {
            out.push(super::table::findings(&rows, v.color, v.width).trim_fmt());
        }
    }
    if !a.waived.is_empty() {
        let t = super::table::waived_table_width(&a.waived, v.color, v.width);
        out.push(format!("Waived (not counted)\n{t}"));
    }
    if let Some(t) = super::table::parse_status(a, v.color, v.width) {
        out.push(format!("Parse status\n{t}"));
    }
    for l in super::coverage::lines(&a.findings, v.verbose) {
        let l = super::terminal_safe(&l, false);
        out.push(if v.verbose {
            wrap(&l, v.width).join("\n")
        } else {
            truncate(&l, v.width)
        });
    }
    out.extend(footer(a, v).map(|l| wrap(&l, v.width).join("\n")));
    out.join("\n") + "\n"
}
