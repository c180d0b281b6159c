//! The options that choose what a report shows: filters (`--min-severity`, `--select`,
//! `--ignore`, `--device`), `--verbose` and `--statistics`.

use crate::finding::Severity;
use crate::report::Format;
use crate::report::select::Selection;
use anyhow::{Result, bail};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SeverityArg {
    Info,
    Warning,
    Error,
}

impl From<SeverityArg> for Severity {
    fn from(s: SeverityArg) -> Severity {
        match s {
            SeverityArg::Info => Severity::Info,
            SeverityArg::Warning => Severity::Warning,
            SeverityArg::Error => Severity::Error,
        }
    }
}

#[derive(clap::Args, Debug, Clone, Default)]
pub struct ViewArgs {
    /// Report only findings of this severity or worse; the exit status counts only these
    /// (`--min-severity info` also lists info findings in the terminal report).
    #[arg(long, value_enum, value_name = "SEVERITY")]
    pub min_severity: Option<SeverityArg>,
    /// Report only these rules or families (`PFC001`, `PFC`); comma-separated or repeated.
    #[arg(long, value_delimiter = ',', value_name = "RULE|FAMILY")]
    pub select: Vec<String>,
    /// Leave out these rules or families (`BUF004`, `TOPO`); comma-separated or repeated.
    #[arg(long, value_delimiter = ',', value_name = "RULE|FAMILY")]
    pub ignore: Vec<String>,
    /// Report only findings on these devices (names, `*` and `?` globs; comma-separated or
    /// repeated; `(fabric)` for fabric-wide findings).
    #[arg(long, value_delimiter = ',', value_name = "GLOB")]
    pub device: Vec<String>,
    /// List every finding of every group, info findings, and every check that could not be
    /// decided (the terminal report lists one row per cause, errors and warnings).
    #[arg(long, short)]
    pub verbose: bool,
    /// Count the findings per rule instead of listing them (formats table, concise, json).
    #[arg(long)]
    pub statistics: bool,
}

impl ViewArgs {
    pub fn selection(&self) -> Selection {
        Selection {
            min_severity: self.min_severity.map(Severity::from),
            select: self.select.clone(),
            ignore: self.ignore.clone(),
            devices: self.device.clone(),
        }
    }

    /// An option that would do nothing with `format` is an error.
    pub fn check_format(&self, format: Format) -> Result<()> {
        if self.statistics && !matches!(format, Format::Table | Format::Concise | Format::Json) {
            bail!(
                "--statistics counts findings as a table or JSON; it does nothing with --format {}",
                format_name(format)
            );
        }
        if self.verbose && (self.statistics || !matches!(format, Format::Table | Format::Concise)) {
            bail!(
                "--verbose lists more rows in the table and concise formats; it does nothing with {}",
                if self.statistics {
                    "--statistics".to_string()
                } else {
                    format!("--format {}", format_name(format))
                }
            );
        }
        Ok(())
    }
}

fn format_name(f: Format) -> String {
    use clap::ValueEnum;
    f.to_possible_value()
        .map(|v| v.get_name().to_string())
        .unwrap_or_default()
}
