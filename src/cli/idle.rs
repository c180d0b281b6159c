//! Options that would do nothing in the mode they are given in are errors (exit 2), not
//! silently accepted: a probe setting (`--pairs`, `--tools`, ...) on `audit` without `--probe`.
//! (Options that need `--inventory` say so to clap with `requires`; `--statistics` and
//! `--verbose` against the report format are checked by `view::ViewArgs::check_format`.)

use super::Cli;
use anyhow::{Result, bail};
use clap::parser::ValueSource;
use clap::{ArgMatches, Args, CommandFactory, FromArgMatches};

/// Parse the command line (clap prints its own errors and exits 2), then refuse the options
/// that would do nothing.
pub fn parse() -> Result<Cli> {
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    check(&matches)?;
    Ok(cli)
}

/// The options given on the command line that do nothing in their mode, as an error.
pub fn check(matches: &ArgMatches) -> Result<()> {
    let Some(("audit", audit)) = matches.subcommand() else {
        return Ok(());
    };
    if audit.get_flag("probe") {
        return Ok(());
    }
    let probe_only = super::probe_run::ProbeArgs::augment_args(clap::Command::new("probe"));
    let given: Vec<String> = probe_only
        .get_arguments()
        .filter(|a| audit.value_source(a.get_id().as_str()) == Some(ValueSource::CommandLine))
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .collect();
    if !given.is_empty() {
        bail!(
            "{} set{} how `audit --inventory FILE --probe` probes; without --probe {} nothing (or run `fabric-audit probe`)",
            given.join(", "),
            if given.len() == 1 { "s" } else { "" },
            if given.len() == 1 {
                "it does"
            } else {
                "they do"
            },
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_of(args: &[&str]) -> Result<()> {
        let m = Cli::command()
            .try_get_matches_from(args)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        check(&m)
    }

    #[test]
    fn probe_settings_need_probe() {
        let e = check_of(&[
            "fa",
            "audit",
            "snap",
            "--tools",
            "path-mtu",
            "--duration",
            "3",
        ])
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("--tools, --duration set how"), "{e}");
        assert!(check_of(&["fa", "audit", "snap"]).is_ok());
        assert!(check_of(&["fa", "probe", "--inventory", "i", "--tools", "path-mtu"]).is_ok());
        assert!(
            check_of(&[
                "fa",
                "audit",
                "--inventory",
                "i",
                "--probe",
                "--tools",
                "path-mtu"
            ])
            .is_ok()
        );
    }
}
