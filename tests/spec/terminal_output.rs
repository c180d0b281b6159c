//! Issue 17, the terminal report a team lives with: it fits the terminal (tmux panes at 80 and
//! 120 columns), shows errors first, one row per cause, a summary first and a footer, the
//! undecided checks counted apart; a clean fabric prints its summary and coverage only.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_fabric-audit"));
    c.env_remove("COLUMNS").env("NO_COLOR", "1");
    c
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

/// Runs `fabric-audit audit SNAP` from the project's root, so a snapshot under it is named by
/// its relative path as a user types it (`fixtures/demo-fabric`): the headline's length, and so
/// the line count, does not depend on where the checkout lives.
fn audit(snap: &Path, extra: &[&str], env: &[(&str, &str)]) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut c = bin();
    c.current_dir(root)
        .arg("audit")
        .arg(snap.strip_prefix(root).unwrap_or(snap))
        .args(extra);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    assert!(
        matches!(out.status.code(), Some(0) | Some(1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The severity of a line that starts a finding's row or block.
fn row_severity(line: &str) -> Option<&str> {
    let first = line.split_whitespace().next()?;
    ["error", "warning", "info"]
        .into_iter()
        .find(|s| *s == first)
}

/// Runs the audit of the demo in a detached tmux pane of `cols` columns (its own server) and
/// returns the pane's lines, wrapped lines joined (`capture-pane -J`), up to the end mark.
fn in_tmux(cols: u16) -> Option<Vec<String>> {
    if Command::new("tmux").arg("-V").output().is_err() {
        assert!(
            std::env::var("FA_REQUIRE_TMUX").is_err(),
            "tmux is required (FA_REQUIRE_TMUX is set) but cannot run"
        );
        eprintln!("SKIPPED: tmux is not installed");
        return None;
    }
    let socket = format!("fa-term-{}-{cols}", std::process::id());
    let tmux = |args: &[&str]| {
        Command::new("tmux")
            .args(["-L", &socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .unwrap()
    };
    let cmd = format!(
        "cd '{}' && env -u COLUMNS NO_COLOR=1 '{}' audit fixtures/demo-fabric; echo __END__; sleep 60",
        env!("CARGO_MANIFEST_DIR"),
        env!("CARGO_BIN_EXE_fabric-audit")
    );
    let (x, y) = (cols.to_string(), "50".to_string());
    let made = tmux(&["new-session", "-d", "-s", "t", "-x", &x, "-y", &y, &cmd]);
    assert!(made.status.success(), "{made:?}");
    let start = Instant::now();
    let text = loop {
        let cap = tmux(&["capture-pane", "-p", "-J", "-S", "-", "-t", "t"]);
        let text = String::from_utf8_lossy(&cap.stdout).into_owned();
        if text.contains("__END__") || start.elapsed() > Duration::from_secs(60) {
            break text;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    tmux(&["kill-server"]);
    let lines: Vec<String> = text
        .lines()
        .take_while(|l| !l.starts_with("__END__"))
        .map(|l| l.trim_end().to_string())
        .collect();
    assert!(text.contains("__END__"), "the audit did not end:\n{text}");
    Some(lines)
}

#[test]
fn tmux_panes_at_80_and_120_columns_fit_and_show_an_error_first() {
    for cols in [80u16, 120] {
        let Some(lines) = in_tmux(cols) else { return };
        let shown = lines.join("\n");
        for l in &lines {
            assert!(
                l.chars().count() <= cols as usize,
                "{cols} columns: a row is {} wide:\n{l}\n\n{shown}",
                l.chars().count()
            );
        }
        let first = lines.iter().find_map(|l| row_severity(l));
        assert_eq!(first, Some("error"), "{cols} columns:\n{shown}");
        assert!(lines.len() <= 40, "{cols} columns: {} lines", lines.len());
        // Narrow layout under 100 columns (no table), the table from 100 on.
        assert_eq!(shown.contains('┆'), cols >= 100, "{cols} columns:\n{shown}");
    }
}

#[test]
fn the_demo_prints_at_most_40_lines_summary_first_and_a_remediate_footer() {
    let demo = fixture("demo-fabric");
    for env in [vec![], vec![("COLUMNS", "80")], vec![("COLUMNS", "132")]] {
        let t = audit(&demo, &[], &env);
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines.len() <= 40, "{env:?}: {} lines:\n{t}", lines.len());
        let width = env.first().map(|(_, v)| v.parse().unwrap()).unwrap_or(100);
        assert!(
            lines.iter().all(|l| l.chars().count() <= width),
            "{env:?}:\n{t}"
        );
        // The summary comes first: what was read, then the counts, before any row.
        let counts = lines.iter().position(|l| l.starts_with("41 findings from"));
        let first_row = lines.iter().position(|l| row_severity(l).is_some());
        assert!(lines[0].contains("14 devices"), "{t}");
        assert!(counts.is_some() && counts < first_row, "{t}");
        assert_eq!(
            *lines.last().unwrap(),
            format!(
                "19 fixable: run `fabric-audit remediate {}`",
                Path::new("fixtures").join("demo-fabric").display()
            )
        );
        // One row per cause: spine1's wrong class-map (8 findings) is one row.
        let dscp002 = lines
            .iter()
            .filter(|l| row_severity(l).is_some() && l.contains("DSCP002"))
            .count();
        assert_eq!(dscp002, 1, "{t}");
        assert!(t.contains("8 findings, one fix"), "{t}");
        // Undecided checks are counted apart, never listed as findings.
        assert!(
            t.contains("Could not decide (not findings): 12 check(s)"),
            "{t}"
        );
        assert!(!t.contains("could not decide on"), "{t}");
        // Info is counted, not listed, at default settings.
        assert!(!t.contains("TOPO002"), "{t}");
    }
}

#[test]
fn verbose_lists_every_finding_worst_first() {
    let demo = fixture("demo-fabric");
    let t = audit(&demo, &["--verbose"], &[("COLUMNS", "200")]);
    for i in 1..=4 {
        assert!(t.contains(&format!("spine1 Ethernet1/{i}")), "{t}");
    }
    for g in 1..=8 {
        assert!(
            t.contains(&format!("gpu0{g} eth0")),
            "TOPO002 gpu0{g}:\n{t}"
        );
    }
    assert!(t.contains("could not decide on 6 interfaces"), "{t}");
    let sev: Vec<&str> = t.lines().filter_map(row_severity).collect();
    let rank = |s: &str| ["error", "warning", "info"].iter().position(|x| *x == s);
    assert!(sev.windows(2).all(|w| rank(w[0]) <= rank(w[1])), "{sev:?}");
    assert!(sev.contains(&"info") && sev[0] == "error", "{sev:?}");
}

#[test]
fn a_clean_fabric_prints_its_summary_and_coverage_only() {
    let t = audit(&fixture("clean-fabric"), &[], &[]);
    let lines: Vec<&str> = t.lines().collect();
    let cov = lines
        .iter()
        .position(|l| l.starts_with("Could not decide (not findings)"))
        .unwrap_or_else(|| panic!("no coverage section:\n{t}"));
    assert!(
        lines[..cov].join(" ").contains("0 errors, 0 warnings"),
        "{t}"
    );
    assert!(cov <= 3, "more than the summary before the coverage:\n{t}");
    assert!(
        lines[cov + 1..].iter().all(|l| l.starts_with("  ")),
        "only coverage lines after the summary:\n{t}"
    );
    assert!(lines.iter().all(|l| row_severity(l).is_none()), "{t}");
}

/// 300 leaves gave 9,905 terminal lines (a row per finding, every info and undecided check):
/// the default report of the demo replicated to over 300 devices is one row per cause, its
/// coverage counted, and every row fits the terminal.
#[test]
fn three_hundred_devices_print_one_row_per_cause() {
    let snap = Path::new(env!("CARGO_TARGET_TMPDIR")).join("terminal-300");
    let devices = crate::scale::replicate::replicate(
        &fixture("demo-fabric"),
        &snap,
        24,
        crate::scale::replicate::Meta::Keep,
    )
    .unwrap();
    assert!(devices >= 300, "{devices}");
    let t = audit(&snap, &["--fail-on", "never"], &[("COLUMNS", "120")]);
    let lines: Vec<&str> = t.lines().collect();
    assert!(lines.iter().all(|l| l.chars().count() <= 120), "{t}");
    let json = audit(&snap, &["--format", "json", "--fail-on", "never"], &[]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let shown_groups = v["groups"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["severity"] != "info")
        .count();
    let rows = lines.iter().filter(|l| row_severity(l).is_some()).count();
    assert_eq!(rows, shown_groups, "{t}");
    assert!(
        lines.len() <= 6 * shown_groups + 40,
        "{} lines for {shown_groups} causes:\n{t}",
        lines.len()
    );
    let _ = std::fs::remove_dir_all(&snap);
}
