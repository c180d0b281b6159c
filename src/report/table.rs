//! Tables for the terminal: the wide layout of the findings (one row per root-cause group,
//! its members under it with `--verbose`), the waived findings, the parse status of files
//! that were not a clean pass. Severity coloured unless NO_COLOR or not a terminal; every
//! table is laid out for the width it is given.

use crate::finding::Severity;
use crate::model::ParseStatus;
use crate::report::input::Audit;
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

pub fn sev_cell(s: Severity, color: bool) -> Cell {
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

/// A table in the report's style, as wide as the terminal ([`super::width::detect`]);
/// styled (colours) only when `color`.
pub fn new_table(color: bool) -> Table {
    new_table_width(color, super::width::detect(false))
}

/// A table in the report's style, at most `width` columns wide.
pub fn new_table_width(color: bool, width: usize) -> Table {
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED);
    t.set_content_arrangement(ContentArrangement::Dynamic);
    t.set_width(width.min(u16::MAX as usize) as u16);
    if color {
        t.enforce_styling();
    } else {
        t.force_no_tty();
    }
    t
}

/// The waived findings with the waiver that set each apart (reason, owner, expiry, file:line).
/// Shared by the audit table and the review's terminal form.
pub fn waived_table(waived: &[crate::report::input::Waived], color: bool) -> Table {
    waived_table_width(waived, color, super::width::detect(false))
}

/// [`waived_table`] at most `width` columns wide.
pub fn waived_table_width(
    waived: &[crate::report::input::Waived],
    color: bool,
    width: usize,
) -> Table {
    let mut t = new_table_width(color, width);
    t.set_header(vec!["severity", "rule", "where", "reason", "waiver"]);
    for w in waived {
        let f = &w.finding;
        let place = match &f.interface {
            Some(i) => format!("{} {i}", f.device),
            None => f.device.to_string(),
        };
        t.add_row(vec![
            sev_cell(f.severity(), color),
            cell(f.rule()),
            cell(place),
            cell(&w.waiver.reason),
            cell(format!(
                "{}\nexpires {}\n{}:{}",
                w.waiver.owner, w.waiver.expires, w.waiver.file, w.waiver.line
            )),
        ]);
    }
    t
}

/// The wide layout of the findings: one row per root-cause group (the source and the
/// group's counts under its message), its members indented under it when the view is verbose.
pub fn findings(rows: &[super::terminal::Row], color: bool, width: usize) -> Table {
    let mut t = new_table_width(color, width);
    // No outer frame: two lines and four columns more for the findings.
    t.load_style(
        comfy_table::TableStyle::new()
            .header_lines(comfy_table::ContentLineStyle::none().junction('┆'))
            .header_separator(comfy_table::LineStyle::none().fill('═').junction('╪'))
            .content_lines(comfy_table::ContentLineStyle::none().junction('┆')),
    );
    t.set_header(vec!["severity", "rule", "where", "message"]);
    for r in rows {
        t.add_row(vec![
            sev_cell(r.severity, color),
            cell(&r.rule),
            cell(r.place_and_peer()),
            cell(r.message_lines()),
        ]);
        for m in &r.members {
            t.add_row(vec![
                cell(""),
                cell(format!("└ {}", m.rule)),
                cell(m.place_and_peer()),
                cell(m.message_lines()),
            ]);
        }
    }
    t
}

/// The files that were not a clean pass, with why; None when every file passed.
pub fn parse_status(a: &Audit, color: bool, width: usize) -> Option<Table> {
    let not_passed: Vec<_> = a
        .fabric
        .devices
        .iter()
        .flat_map(|d| &d.parse)
        .filter(|p| p.status != ParseStatus::Passed)
        .collect();
    if not_passed.is_empty() {
        return None;
    }
    let mut t = new_table_width(color, width);
    t.set_header(vec!["device", "file", "status", "detail"]);
    for p in not_passed {
        let detail = match &p.error {
            Some(e) => e.clone(),
            None => {
                let mut d = format!("{} unrecognized line(s)", p.unrecognized.len());
                if let Some(u) = p.unrecognized.first() {
                    let _ = write!(d, ", first at line {}: {}", u.line, u.text);
                }
                let undefined = p.undefined.len() as u64 + p.undefined_not_listed;
                if undefined > 0 {
                    let _ = write!(d, "; {undefined} undefined reference(s)");
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
    Some(t)
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
