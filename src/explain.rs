//! Rule documentation for `fabric-audit explain ID` and the `rules` listing.

use crate::rules::{Rule, RuleSet};
use std::fmt::Write as _;

pub fn render(r: &Rule) -> String {
    let s = &r.spec;
    let mut out = String::new();
    let _ = writeln!(out, "{} — {}", s.id, s.title);
    let _ = writeln!(
        out,
        "family {} · severity {} · scope {} · platforms {} · defined in {}:{}\n",
        s.family,
        s.severity,
        s.scope,
        s.platforms.join(", "),
        r.file,
        r.line
    );
    for (heading, body) in [
        ("What it checks", &s.doc.what),
        ("Why it matters", &s.doc.why),
        ("Example of a bad config", &s.doc.example),
        ("The fix", &s.doc.fix),
    ] {
        let _ = writeln!(out, "{heading}\n  {}\n", body.trim().replace('\n', "\n  "));
    }
    if !s.params.is_empty() {
        let _ = writeln!(out, "Parameters (override in fabric.toml [policy])");
        for (k, v) in &s.params {
            let _ = writeln!(out, "  {k} = {v}");
        }
        out.push('\n');
    }
    if let Some(u) = &s.doc.unverified {
        let _ = writeln!(
            out,
            "Unverified numbers\n  {}\n",
            u.trim().replace('\n', "\n  ")
        );
    }
    if !s.doc.references.is_empty() {
        let _ = writeln!(out, "References");
        for r in &s.doc.references {
            let _ = writeln!(out, "  - {r}");
        }
    }
    out
}

/// The formats `rules` writes (a rule catalog is not a set of findings: SARIF, JUnit, GitHub
/// annotations and the other report formats have nothing to say about it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ListFormat {
    Table,
    Json,
    /// A Markdown table (id, severity, family, scope, title).
    Markdown,
}

pub fn list(rs: &RuleSet, format: ListFormat) -> String {
    match format {
        ListFormat::Json => {
            let v: Vec<serde_json::Value> = rs
                .rules
                .iter()
                .map(|r| {
                    serde_json::json!({
                        "id": r.spec.id, "title": r.spec.title, "family": r.spec.family,
                        "severity": r.spec.severity, "scope": r.spec.scope,
                        "platforms": r.spec.platforms, "doc": r.spec.doc,
                    })
                })
                .collect();
            serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
        }
        ListFormat::Markdown => {
            let mut out = String::from(
                "| id | severity | family | scope | title |\n| --- | --- | --- | --- | --- |\n",
            );
            for r in &rs.rules {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} |",
                    crate::report::markdown::text(&r.spec.id),
                    crate::report::markdown::text(&r.spec.severity),
                    crate::report::markdown::text(&r.spec.family),
                    crate::report::markdown::text(&r.spec.scope),
                    crate::report::markdown::text(&r.spec.title),
                );
            }
            let _ = writeln!(out, "\n{} rules", rs.rules.len());
            out
        }
        ListFormat::Table => {
            let mut t = comfy_table::Table::new();
            t.load_style(comfy_table::presets::UTF8_FULL_CONDENSED);
            t.force_no_tty();
            t.set_header(vec!["id", "severity", "scope", "title"]);
            for r in &rs.rules {
                t.add_row(vec![
                    r.spec.id.as_str(),
                    r.spec.severity.as_str(),
                    r.spec.scope.as_str(),
                    r.spec.title.as_str(),
                ]);
            }
            format!("{t}\n{} rules\n", rs.rules.len())
        }
    }
}
