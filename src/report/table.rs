//! The terminal report: findings grouped by device, severity coloured (unless NO_COLOR or not
//! a terminal), then the parse status of every file that was not a clean pass.

use crate::audit::Audit;
use crate::finding::Severity;
use crate::model::ParseStatus;
use comfy_table::{
    Attribute, Cell, Color, ContentArrangement, Table, presets::UTF8_FULL_CONDENSED,
};
use std::fmt::Write as _;

/// The most characters of one cell the table lays out. Wrapping a long word costs the layout
/// work quadratic in its length (issue 19: one 1 MB line without spaces took 21 s, 4 MB six
/// minutes); a cell is cut here first, saying how long the text was. The JSON report keeps it
/// whole.
pub const CELL_MAX_CHARS: usize = 1000;

/// A table cell of text that may come from a device or a file: cut to [`CELL_MAX_CHARS`]
/// (see [`bounded`]), control characters escaped ([`super::terminal_safe`]), newlines kept as
/// line breaks of the cell.
pub fn cell<S: AsRef<str>>(s: S) -> Cell {
    Cell::new(super::terminal_safe(&bounded(s.as_ref()), true))
}

/// `s` itself when it has at most [`CELL_MAX_CHARS`] characters; else its first ones and
/// "… (cut: N characters in all)".
pub fn bounded(s: &str) -> std::borrow::Cow<'_, str> {
    match s.char_indices().nth(CELL_MAX_CHARS) {
        None => std::borrow::Cow::Borrowed(s),
        Some((end, _)) => std::borrow::Cow::Owned(format!(
            "{}… (cut: {} characters in all)",
            &s[..end],
            s.chars().count()
        )),
    }
}

fn sev_cell(s: Severity, color: bool) -> Cell {
    let c = Cell::new(s.as_str());
    if !color {
        return c;
    }
    match s {
        Severity::Error => c.fg(Color::Red).add_attribute(Attribute::Bold),
        Severity::Warning => c.fg(Color::Yellow),
        Severity::Info => c.fg(Color::Cyan),
    }
}

/// A table in the report's style, 160 columns wide; styled (colours) only when `color`.
pub fn new_table(color: bool) -> Table {
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED);
    t.set_content_arrangement(ContentArrangement::Dynamic);
    t.set_width(160);
    if color {
        t.enforce_styling();
    } else {
        t.force_no_tty();
    }
    t
}

/// The waived findings with the waiver that set each apart (reason, owner, expiry, file:line).
/// Shared by the audit table and the review's terminal form.
pub fn waived_table(waived: &[crate::rules::waivers::Waived], color: bool) -> Table {
    let mut t = new_table(color);
    t.set_header(vec![
        "severity",
        "rule",
        "device",
        "interface",
        "reason",
        "owner",
        "expires",
        "waiver",
    ]);
    for w in waived {
        let f = &w.finding;
        t.add_row(vec![
            sev_cell(f.severity, color),
            cell(&f.rule),
            cell(&f.device),
            cell(f.interface.as_deref().unwrap_or("")),
            cell(&w.waiver.reason),
            cell(&w.waiver.owner),
            cell(&w.waiver.expires),
            cell(format!("{}:{}", w.waiver.file, w.waiver.line)),
        ]);
    }
    t
}

pub fn render(a: &Audit, color: bool) -> String {
    let mut out = String::new();
    let s = super::json::summary(a);
    let mut table = new_table(color);
    table.set_header(vec!["severity", "rule", "interface", "message", "source"]);
    let mut last_dev: Option<&str> = None;
    for f in &a.findings {
        if last_dev != Some(f.device.as_str()) {
            let mut c = cell(format!("▸ {}", f.device));
            if color {
                c = c.add_attribute(Attribute::Bold);
            }
            table.add_row(vec![c, cell(""), cell(""), cell(""), cell("")]);
            last_dev = Some(&f.device);
        }
        let iface = match (&f.interface, &f.peer) {
            (Some(i), Some(p)) => format!("{i}\n↔ {}:{}", p.device, p.interface),
            (Some(i), None) => i.clone(),
            _ => String::new(),
        };
        let src = f
            .source
            .as_ref()
            .map(|l| {
                if l.line == 0 {
                    l.file.clone()
                } else {
                    format!("{}:{}", l.file, l.line)
                }
            })
            .unwrap_or_default();
        table.add_row(vec![
            sev_cell(f.severity, color),
            cell(&f.rule),
            cell(iface),
            cell(&f.message),
            cell(src),
        ]);
    }
    if !a.probes.is_empty() {
        out.push_str("Probes:\n");
        out.push_str(&crate::probe::report::table(&a.probes));
    }
    if a.findings.is_empty() {
        out.push_str("No findings.\n");
    } else {
        let _ = writeln!(out, "{table}");
    }
    if !a.waived.is_empty() {
        let t = waived_table(&a.waived, color);
        let _ = writeln!(out, "Waived (not counted)\n{t}");
    }
    let not_passed: Vec<_> = a
        .fabric
        .devices
        .iter()
        .flat_map(|d| &d.parse)
        .filter(|p| p.status != ParseStatus::Passed)
        .collect();
    if !not_passed.is_empty() {
        let mut t = new_table(color);
        t.set_header(vec!["device", "file", "status", "detail"]);
        for p in not_passed {
            let detail = match &p.error {
                Some(e) => e.clone(),
                None => {
                    let mut d = format!("{} unrecognized line(s)", p.unrecognized.len());
                    if let Some(u) = p.unrecognized.first() {
                        let _ = write!(d, ", first at line {}: {}", u.line, u.text);
                    }
                    if !p.undefined.is_empty() {
                        let _ = write!(d, "; {} undefined reference(s)", p.undefined.len());
                    }
                    d
                }
            };
            t.add_row(vec![
                cell(&p.device),
                cell(&p.file),
                cell(p.status.as_str()),
                cell(detail),
            ]);
        }
        let _ = writeln!(out, "Parse status\n{t}");
    }
    let _ = writeln!(
        out,
        "{} devices, {} interfaces, {} links, {} rules: {} error(s), {} warning(s), {} info{}; files parsed: {} passed, {} partial, {} failed",
        s.devices,
        s.interfaces,
        s.links,
        s.rules,
        s.findings.error,
        s.findings.warning,
        s.findings.info,
        if a.waived.is_empty() {
            String::new()
        } else {
            format!(", {} waived", a.waived.len())
        },
        s.parse.passed,
        s.parse.partial,
        s.parse.failed
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_cells_are_cut_with_their_length() {
        assert_eq!(bounded("short"), "short");
        let exact = "x".repeat(CELL_MAX_CHARS);
        assert_eq!(bounded(&exact), exact.as_str());
        let long = "é".repeat(CELL_MAX_CHARS + 5);
        let b = bounded(&long);
        assert!(
            b.starts_with(&"é".repeat(CELL_MAX_CHARS)),
            "cut on characters"
        );
        assert!(b.ends_with(&format!(
            "… (cut: {} characters in all)",
            CELL_MAX_CHARS + 5
        )));
    }
}
