//! How wide the terminal report may be: `COLUMNS` when set (the POSIX variable a user or a
//! CI job sets), else the size of the terminal standard output is, else 100 columns. Under
//! [`NARROW_BELOW`] columns the report uses its narrow layout (no table borders).
//!
//! Text is measured in characters: device strings are escaped to printable characters
//! before they are laid out, and the report's own symbols (`↔`, `…`, box drawing) are one
//! column each.

/// Width when neither `COLUMNS` nor a terminal says.
pub const DEFAULT: usize = 100;
/// Below this many columns the report drops the table for one block per row.
pub const NARROW_BELOW: usize = 100;
/// Narrowest layout the report attempts (a smaller `COLUMNS` is raised to it).
pub const MIN: usize = 40;

/// The width for a report written to standard output (or to a file: `to_file`).
pub fn detect(to_file: bool) -> usize {
    let env = std::env::var("COLUMNS").ok();
    let tty = if to_file { None } else { tty_columns() };
    choose(env.as_deref(), tty)
}

/// `COLUMNS` if it is a positive number, else the terminal's columns, else [`DEFAULT`].
pub fn choose(columns: Option<&str>, tty: Option<usize>) -> usize {
    columns
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c > 0)
        .or(tty)
        .unwrap_or(DEFAULT)
        .max(MIN)
}

/// Columns of the terminal on standard output, if it is one.
#[cfg(unix)]
fn tty_columns() -> Option<usize> {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return None;
    }
    let mut ws = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ writes one `winsize` into the struct we own; fd 1 is open.
    let rc = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut ws) };
    (rc == 0 && ws.ws_col > 0).then_some(ws.ws_col as usize)
}

#[cfg(not(unix))]
fn tty_columns() -> Option<usize> {
    None
}

/// Display columns of `s` (one per character; see the module note).
pub fn cols(s: &str) -> usize {
    s.chars().count()
}

/// `s` cut to `width` columns, ending in `…` when cut.
pub fn truncate(s: &str, width: usize) -> String {
    if cols(s) <= width {
        return s.to_string();
    }
    let keep = width.saturating_sub(1);
    s.chars().take(keep).collect::<String>() + "…"
}

/// `s` wrapped at word boundaries to lines of at most `width` columns; a word longer than a
/// line is cut across lines.
pub fn wrap(s: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    for para in s.split('\n') {
        let mut line = String::new();
        for word in para.split(' ').filter(|w| !w.is_empty()) {
            let need = cols(&line) + usize::from(!line.is_empty()) + cols(word);
            if need > width && !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
            while cols(&line) > width {
                let head: String = line.chars().take(width).collect();
                let rest: String = line.chars().skip(width).collect();
                lines.push(head);
                line = rest;
            }
        }
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_wins_then_the_terminal_then_100() {
        assert_eq!(choose(Some("80"), Some(200)), 80);
        assert_eq!(choose(Some("junk"), Some(132)), 132);
        assert_eq!(choose(Some("0"), None), DEFAULT);
        assert_eq!(choose(None, None), DEFAULT);
        assert_eq!(choose(Some("10"), None), MIN);
    }

    #[test]
    fn wrap_keeps_every_line_within_the_width() {
        let s = "RoCE DSCP 26 is classified to TC 0 on Ethernet1/1, not the lossless TC 3 \
                 devices/gpu07/a_very_long_file_name_without_any_space_in_it.txt";
        for w in [10, 20, 33, 80] {
            let lines = wrap(s, w);
            assert!(lines.iter().all(|l| cols(l) <= w), "{w}: {lines:?}");
            assert_eq!(lines.concat().replace(' ', ""), s.replace(' ', ""));
        }
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abc", 4), "abc");
    }
}
