//! GitHub Actions workflow commands: one annotation per new finding (for a plain audit, every
//! finding), `::error` / `::warning` / `::notice` by severity, with the file (relative to the
//! repository root for a git review) and line when the finding cites them; then one `::notice`
//! with the summary, and one listing the waived findings. Values are escaped by GitHub's
//! workflow-command rules, so a device string cannot end the line or start a command, and its
//! control characters are shown escaped, so none reaches the log viewer or a terminal.

use super::input::Review;
use crate::finding::Severity;

/// Escape a command's message (data): control characters other than line breaks shown
/// escaped (`\x1b`: the Actions log renders ANSI sequences), then GitHub's percent-encoding.
pub fn data(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c => {
                let mut b = [0u8; 4];
                out.push_str(&crate::report::terminal_safe(c.encode_utf8(&mut b), false));
            }
        }
    }
    out
}

/// Escape a property value.
pub fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

/// The annotations as one string (what [`write`] writes).
pub fn render(r: &Review) -> String {
    super::spill::to_string(|w| write(r, w))
}

/// The annotations written to `w` a piece at a time ([`super::spill::Out`]).
pub fn write(r: &Review, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut out = super::spill::Out::new(w);
    for f in r.new.iter() {
        let cmd = match f.severity() {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let mut props = Vec::new();
        if let Some(p) = r.source_path(f) {
            props.push(format!("file={}", property(&p)));
            if let Some(l) = Review::source_line(f) {
                props.push(format!("line={l}"));
            }
        }
        let mut title = format!("{} {}", f.rule(), f.device);
        if let Some(i) = &f.interface {
            title.push(' ');
            title.push_str(i);
        }
        props.push(format!("title={}", property(&title)));
        out.push_str(&format!(
            "::{cmd} {}::{}\n",
            props.join(","),
            data(&f.message().text())
        ));
        out.spill();
    }
    out.push_str(&format!(
        "::notice title=fabric-audit::{}\n",
        data(&r.headline())
    ));
    if !r.waived.is_empty() {
        let list: Vec<String> = r
            .waived
            .iter()
            .map(|w| {
                let f = &w.finding;
                format!(
                    "{} {}{}: {} ({}, until {})",
                    f.rule(),
                    f.device,
                    f.interface
                        .as_deref()
                        .map(|i| format!(" {i}"))
                        .unwrap_or_default(),
                    w.waiver.reason,
                    w.waiver.owner,
                    w.waiver.expires
                )
            })
            .collect();
        out.push_str(&format!(
            "::notice title=fabric-audit waived::{} waived (not failing): {}\n",
            r.waived.len(),
            data(&list.join("; "))
        ));
    }
    out.finish()
}
