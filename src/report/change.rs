//! The report of a change (`diff`, `review`): the `fabric-audit/diff/v1` JSON document and the
//! terminal form.

use super::input::Review;
use crate::finding::{Finding, count_by_severity};
use serde::Serialize;

#[derive(Serialize, Default)]
struct Counts {
    error: usize,
    warning: usize,
    info: usize,
}

fn counts(fs: &[Finding]) -> Counts {
    let [error, warning, info] = count_by_severity(fs);
    Counts {
        error,
        warning,
        info,
    }
}

/// The JSON document (`fabric-audit/diff/v1`) of a review.
pub fn json(r: &Review) -> String {
    let doc = serde_json::json!({
        "schema": "fabric-audit/diff/v1",
        "tool": { "name": "fabric-audit", "version": env!("CARGO_PKG_VERSION") },
        "scope": r.scope,
        "summary": {
            "headline": r.headline(),
            "new": counts(&r.new),
            "fixed": counts(&r.fixed),
            "unchanged": counts(&r.unchanged),
            "waived": r.waived.len(),
        },
        "new": r.new,
        "fixed": r.fixed,
        "unchanged": r.unchanged,
        "waived": r.waived,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}")) + "\n"
}

/// The terminal form: new findings first, then fixed, then waived; unchanged are only counted.
pub fn text(r: &Review) -> String {
    use super::table::cell;
    let mut out = format!("{}\n", super::terminal_safe(&r.headline(), false));
    let table = |header: Vec<&str>| {
        let mut t = super::table::new_table(false);
        t.set_header(header);
        t
    };
    for (title, fs) in [("New", &r.new[..]), ("Fixed", &r.fixed[..])] {
        if fs.is_empty() {
            continue;
        }
        let mut t = table(vec![
            "severity",
            "rule",
            "device",
            "interface",
            "message",
            "source",
        ]);
        for f in fs.iter() {
            let source = match (r.source_path(f), Review::source_line(f)) {
                (Some(p), Some(l)) => format!("{p}:{l}"),
                (Some(p), None) => p,
                _ => String::new(),
            };
            t.add_row(vec![
                cell(f.severity().as_str()),
                cell(f.rule()),
                cell(&f.device),
                cell(f.interface.as_deref().unwrap_or("")),
                cell(&*f.message().text()),
                cell(&source),
            ]);
        }
        out.push_str(&format!("{title}:\n{t}\n"));
    }
    if !r.waived.is_empty() {
        let t = super::table::waived_table(&r.waived, false);
        out.push_str(&format!("Waived (not failing):\n{t}\n"));
    }
    out
}
