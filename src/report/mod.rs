//! Report formats: one closed enum, one small renderer each.

pub mod json;
pub mod table;

use crate::audit::Audit;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Json,
}

pub fn render(audit: &Audit, format: Format, color: bool) -> String {
    match format {
        Format::Table => table::render(audit, color),
        Format::Json => json::render(audit),
    }
}
