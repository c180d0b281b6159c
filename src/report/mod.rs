//! Report formats: one closed enum, one small renderer each.

pub mod github;
pub mod html;
mod html_svg;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod sarif;
pub mod table;

use crate::audit::Audit;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Json,
    /// The normalized model every rule reads (devices, interfaces, links, policy), each fact
    /// with the file and line it came from: for "why does the tool think that?".
    Model,
    /// One self-contained HTML file: findings with filters and a picture of the fabric.
    Html,
    /// Markdown for a pull-request comment (size-bounded, device strings escaped).
    Markdown,
    /// SARIF 2.1.0 for code scanning.
    Sarif,
    /// JUnit XML for CI test reports.
    Junit,
    /// GitHub Actions annotations (workflow commands).
    Github,
}

/// Render a review (a plain audit, a diff, a git review) in any format.
pub fn render_review(r: &crate::review::Review, format: Format, color: bool) -> String {
    match format {
        Format::Table if r.is_change() => crate::review::diff::text(r),
        Format::Json if r.is_change() => crate::review::diff::json(r),
        Format::Html => html::render(r),
        Format::Markdown => markdown::render(r),
        Format::Sarif => sarif::render(r),
        Format::Junit => junit::render(r),
        Format::Github => github::render(r),
        Format::Table | Format::Json | Format::Model => render(r.audit, format, color),
    }
}

pub fn render(audit: &Audit, format: Format, color: bool) -> String {
    match format {
        Format::Table => table::render(audit, color),
        Format::Json => json::render(audit),
        Format::Model => {
            crate::model::with_sources(|| serde_json::to_string_pretty(&audit.fabric))
                .unwrap_or_else(|e| format!("{{\"error\": {:?}}}", e.to_string()))
                + "\n"
        }
        Format::Html | Format::Markdown | Format::Sarif | Format::Junit | Format::Github => {
            render_review(
                &crate::review::Review::of_audit(audit, "snapshot"),
                format,
                color,
            )
        }
    }
}
