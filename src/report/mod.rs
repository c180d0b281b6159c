//! Report formats: one closed enum, one small renderer each.

pub mod change;
pub mod concise;
pub mod coverage;
pub mod github;
pub mod groups;
pub mod html;
mod html_svg;
pub mod input;
pub mod json;
pub mod junit;
pub mod markdown;
mod model_out;
pub mod probes;
pub mod sarif;
pub mod select;
pub mod spill;
pub mod statistics;
pub mod table;
pub mod terminal;
pub mod width;

use crate::report::input::Audit;
use std::borrow::Cow;

/// Report text is data: a string from a device or a file, made harmless for a terminal (or a
/// log viewer that interprets ANSI sequences, as GitHub Actions' does). Every control
/// character is shown escaped instead of sent: C0 (`\x1b` for ESC, so no OSC 52 clipboard
/// write, OSC 0 title, CSI screen clear or OSC 8 hyperlink reaches the terminal), DEL, the C1
/// controls (U+0080..U+009F, `\u{9b}` is a one-character CSI) and the bidirectional overrides
/// that reorder what is displayed (U+202A..U+202E, U+2066..U+2069). A newline is kept when
/// `keep_newline` (a table cell may span lines), every other is escaped; a tab is always
/// escaped (it breaks column alignment).
pub fn terminal_safe(s: &str, keep_newline: bool) -> Cow<'_, str> {
    let bad = |c: char| -> bool {
        (c.is_control() && !(keep_newline && c == '\n'))
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !s.chars().any(bad) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if !bad(c) {
            out.push(c);
        } else if (c as u32) < 0x80 {
            match c {
                '\t' => out.push_str("\\t"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                _ => out.push_str(&format!("\\x{:02x}", c as u32)),
            }
        } else {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
    }
    Cow::Owned(out)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    /// One line per finding, worst first: `path:line: severity RULE device[/iface] message`.
    Concise,
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
pub fn render_review(r: &input::Review, format: Format, color: bool) -> String {
    let view = terminal::View {
        color,
        width: width::detect(false),
        ..terminal::View::plain()
    };
    render_review_view(r, format, &view)
}

/// [`render_review`] written to `w`. SARIF is written as it is serialized and HTML a piece at a
/// time (their text is many times the findings it describes: issue 19); the other formats are
/// rendered, then written.
pub fn write_review(
    r: &input::Review,
    format: Format,
    color: bool,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let view = terminal::View {
        color,
        width: width::detect(false),
        ..terminal::View::plain()
    };
    write_review_view(r, format, &view, w)
}

/// [`write_review`] with the terminal layout given.
pub fn write_review_view(
    r: &input::Review,
    format: Format,
    view: &terminal::View,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    match format {
        Format::Sarif => sarif::write(r, w),
        Format::Html => html::write(r, w),
        Format::Junit => junit::write(r, w),
        Format::Github => github::write(r, w),
        Format::Concise => concise::write(r, view.verbose, w),
        _ => w.write_all(render_review_view(r, format, view).as_bytes()),
    }
}

/// [`render_review`] with the terminal layout given.
pub fn render_review_view(r: &input::Review, format: Format, view: &terminal::View) -> String {
    match format {
        Format::Table if r.is_change() => change::text(r),
        Format::Concise => concise::render(r, view.verbose),
        Format::Json if r.is_change() => change::json(r),
        Format::Html => html::render(r),
        Format::Markdown => markdown::render(r),
        Format::Sarif => sarif::render(r),
        Format::Junit => junit::render(r),
        Format::Github => github::render(r),
        Format::Table | Format::Json | Format::Model => render_view(r.audit, format, view),
    }
}

/// The model with sources and every port's entry-by-entry maps (`--format model`), written as
/// it is serialized: the text is ~35 KiB a port with its maps, so a fabric of 10,000 devices
/// (or one hostile device of 16,384 ports: 1 GiB, issue 19) is not held in memory first.
pub fn write_model(audit: &Audit, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut w = std::io::BufWriter::with_capacity(spill::Out::SPILL, w);
    crate::model::with_maps(|| {
        crate::model::with_sources(|| {
            serde_json::to_writer_pretty(&mut w, &model_out::WithMaps(&audit.fabric))
        })
    })?;
    w.write_all(b"\n")?;
    w.flush()
}

pub fn render(audit: &Audit, format: Format, color: bool) -> String {
    let view = terminal::View {
        color,
        width: width::detect(false),
        ..terminal::View::plain()
    };
    render_view(audit, format, &view)
}

/// [`render`] with the terminal layout given (width, verbosity, the snapshot's name).
pub fn render_view(audit: &Audit, format: Format, view: &terminal::View) -> String {
    match format {
        Format::Table => terminal::render(audit, view),
        Format::Json => json::render(audit),
        Format::Model => {
            let mut buf = Vec::new();
            match write_model(audit, &mut buf) {
                Ok(()) => String::from_utf8_lossy(&buf).into_owned(),
                Err(e) => format!("{{\"error\": {:?}}}\n", e.to_string()),
            }
        }
        Format::Concise
        | Format::Html
        | Format::Markdown
        | Format::Sarif
        | Format::Junit
        | Format::Github => {
            render_review_view(&input::Review::of_audit(audit, "snapshot"), format, view)
        }
    }
}
