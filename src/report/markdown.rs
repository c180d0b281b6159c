//! Markdown for a pull-request comment: a summary line, a counts table, then the new findings,
//! the fixed ones and the waived ones, each class grouped per device in a `<details>` block,
//! remediation snippets in fenced code blocks. Every string that came from a device or a
//! snapshot is escaped (see [`text`]); the whole comment stays under a size bound, cut only
//! between rows, with an honest note of what was left out.

use super::input::{Review, count};
use crate::finding::{Finding, Severity};

/// GitHub comments hold at most 65536 characters; leave room for a wrapper.
pub const MAX_BYTES: usize = 60_000;

/// Room kept for the closing note.
const NOTE_ROOM: usize = 200;

pub fn render(r: &Review) -> String {
    render_bounded(r, MAX_BYTES)
}

/// One finding row of a class table, and what the row's section shows below the table.
struct Row {
    cells: Vec<String>,
    remedy: String,
}

struct Section {
    title: String,
    open: bool,
    header: &'static [&'static str],
    /// (device, rows) in finding order.
    devices: Vec<(String, Vec<Row>)>,
}

/// Render with a size bound in bytes (the note of findings left out included).
pub fn render_bounded(r: &Review, max_bytes: usize) -> String {
    let mut out = format!("### fabric-audit: {}\n\n", text(&r.headline()));
    out.push_str(&counts_table(r));
    out.push_str(&causes_list(r, max_bytes / 5));
    let mut shown_any = false;
    let mut omitted = 0usize;
    for s in sections(r) {
        let total: usize = s.devices.iter().map(|d| d.1.len()).sum();
        if omitted > 0 {
            omitted += total;
            continue;
        }
        let heading = format!("#### {} ({total})\n\n", s.title);
        if out.len() + heading.len() + NOTE_ROOM > max_bytes {
            omitted += total;
            continue;
        }
        out.push_str(&heading);
        for (device, rows) in s.devices {
            if omitted > 0 {
                omitted += rows.len();
                continue;
            }
            let n = rows.len();
            let head = format!(
                "<details{}><summary>{} ({n})</summary>\n\n{}\n{}\n",
                if s.open { " open" } else { "" },
                text(&device),
                table_line(s.header.iter().map(|h| h.to_string())),
                table_line(s.header.iter().map(|_| "---".to_string())),
            );
            let foot = "\n</details>\n\n";
            let mut body = String::new();
            let mut remedies = String::new();
            let mut fitted = 0;
            for row in &rows {
                let line = table_line(row.cells.iter().cloned()) + "\n";
                let size = out.len()
                    + head.len()
                    + body.len()
                    + line.len()
                    + remedies.len()
                    + row.remedy.len()
                    + foot.len()
                    + NOTE_ROOM;
                if size > max_bytes {
                    break;
                }
                body.push_str(&line);
                remedies.push_str(&row.remedy);
                fitted += 1;
            }
            omitted += n - fitted;
            if fitted > 0 {
                out.push_str(&head);
                out.push_str(&body);
                if !remedies.is_empty() {
                    out.push('\n');
                    out.push_str(&remedies);
                }
                out.push_str(foot);
                shown_any = true;
            }
        }
    }
    if omitted > 0 {
        out.push_str(&format!(
            "… {omitted} more finding{} not shown (see the JSON report)\n",
            if omitted == 1 { "" } else { "s" }
        ));
    } else if !shown_any {
        out.push_str("No findings.\n");
    }
    out
}

fn counts_table(r: &Review) -> String {
    let mut rows: Vec<(&str, Vec<&Finding>)> = Vec::new();
    if r.is_change() {
        rows.push(("new", r.new.iter().collect()));
        rows.push(("fixed", r.fixed.iter().collect()));
        rows.push(("unchanged", r.unchanged.iter().collect()));
    } else {
        rows.push(("findings", r.new.iter().collect()));
    }
    rows.push(("waived", r.waived.iter().map(|w| &w.finding).collect()));
    let mut out = table_line(
        ["", "error", "warning", "info"]
            .map(String::from)
            .into_iter(),
    ) + "\n";
    out.push_str("| --- | ---: | ---: | ---: |\n");
    for (name, fs) in rows {
        let owned: Vec<Finding> = fs.into_iter().cloned().collect();
        out.push_str(&format!(
            "| {name} | {} | {} | {} |\n",
            count(&owned, Severity::Error),
            count(&owned, Severity::Warning),
            count(&owned, Severity::Info)
        ));
    }
    out.push('\n');
    out
}

/// The root causes of the new findings ([`super::groups`]): how many, then a list of the
/// groups of more than one finding (largest first, worst severity first), each with its
/// rules and the line of its lead; the list takes at most `budget` bytes, the rest counted.
fn causes_list(r: &Review, budget: usize) -> String {
    let gs = super::groups::group(&r.new);
    let decided = r.new.iter().filter(|f| !f.undecided()).count();
    if decided == 0 {
        return String::new();
    }
    let mut out = format!(
        "{decided} finding{} from {} root cause{}",
        if decided == 1 { "" } else { "s" },
        gs.len(),
        if gs.len() == 1 { "" } else { "s" }
    );
    let mut multi: Vec<&super::groups::Group> = gs.iter().filter(|g| g.members.len() > 1).collect();
    if multi.is_empty() {
        out.push_str(".\n\n");
        return out;
    }
    multi.sort_by_key(|g| {
        (
            std::cmp::Reverse(g.severity),
            std::cmp::Reverse(g.members.len()),
        )
    });
    out.push_str("; the causes shared by several findings:\n\n");
    let mut listed = 0;
    for g in &multi {
        let line = cause_line(r, g);
        if out.len() + line.len() > budget {
            break;
        }
        out.push_str(&line);
        listed += 1;
    }
    if listed < multi.len() {
        out.push_str(&format!(
            "- … {} more (the JSON report's `groups` lists them)\n",
            multi.len() - listed
        ));
    }
    out.push('\n');
    out
}

/// "- **error** spine1: 8 findings, one fix (DSCP002 ×4, PFC008 ×4) at `configs/...:67`"
fn cause_line(r: &Review, g: &super::groups::Group) -> String {
    let lead = g.lead(&r.new);
    let rules: Vec<String> = super::groups::rule_counts(g, &r.new)
        .into_iter()
        .map(|(rule, n)| match n {
            1 => text(&rule),
            n => text(&format!("{rule} ×{n}")),
        })
        .collect();
    let at = match (r.source_path(lead), Review::source_line(lead)) {
        (Some(p), Some(l)) => format!(" at {}", text(&format!("{p}:{l}"))),
        (Some(p), None) => format!(" at {}", text(&p)),
        _ => String::new(),
    };
    format!(
        "- **{}** {}: {} findings, {} ({}){at}\n",
        g.severity.as_str(),
        text(&g.device),
        g.members.len(),
        g.cause.describe(),
        rules.join(", ")
    )
}

const FINDING_HEADER: &[&str] = &[
    "severity",
    "rule",
    "device",
    "interface",
    "message",
    "source",
];
const WAIVED_HEADER: &[&str] = &[
    "severity",
    "rule",
    "device",
    "interface",
    "message",
    "reason",
    "owner",
    "expires",
    "waiver",
];

fn sections(r: &Review) -> Vec<Section> {
    let finding_row = |f: &Finding| Row {
        cells: finding_cells(r, f),
        remedy: remedy(f),
    };
    let by_device = |rows: Vec<(&Finding, Row)>| {
        let mut out: Vec<(String, Vec<Row>)> = Vec::new();
        for (f, row) in rows {
            match out.iter_mut().find(|(d, _)| *d == f.device) {
                Some((_, v)) => v.push(row),
                None => out.push((f.device.clone(), vec![row])),
            }
        }
        out
    };
    let mut out = vec![Section {
        title: if r.is_change() { "New" } else { "Findings" }.into(),
        open: true,
        header: FINDING_HEADER,
        devices: by_device(r.new.iter().map(|f| (f, finding_row(f))).collect()),
    }];
    if !r.fixed.is_empty() {
        out.push(Section {
            title: "Fixed".into(),
            open: false,
            header: FINDING_HEADER,
            devices: by_device(r.fixed.iter().map(|f| (f, finding_row(f))).collect()),
        });
    }
    if !r.waived.is_empty() {
        let rows = r
            .waived
            .iter()
            .map(|w| {
                let f = &w.finding;
                let mut cells = finding_cells(r, f);
                cells.pop();
                cells.extend([
                    text(&w.waiver.reason),
                    text(&w.waiver.owner),
                    text(&w.waiver.expires),
                    text(&format!("{}:{}", w.waiver.file, w.waiver.line)),
                ]);
                (
                    f,
                    Row {
                        cells,
                        remedy: String::new(),
                    },
                )
            })
            .collect();
        out.push(Section {
            title: "Waived (not failing)".into(),
            open: false,
            header: WAIVED_HEADER,
            devices: by_device(rows),
        });
    }
    out.retain(|s| !s.devices.is_empty());
    out
}

fn finding_cells(r: &Review, f: &Finding) -> Vec<String> {
    let source = match (r.source_path(f), Review::source_line(f)) {
        (Some(p), Some(l)) => format!("{p}:{l}"),
        (Some(p), None) => p,
        _ => String::new(),
    };
    vec![
        f.severity.as_str().to_string(),
        text(&f.rule),
        text(&f.device),
        text(f.interface.as_deref().unwrap_or("")),
        text(&f.message),
        text(&source),
    ]
}

fn table_line(cells: impl Iterator<Item = String>) -> String {
    let mut s = String::from("|");
    for c in cells {
        s.push(' ');
        s.push_str(&c);
        s.push_str(" |");
    }
    s
}

/// A remediation snippet as a fenced code block, its fence longer than any backtick run in it
/// and its language hint the platform (letters, digits, `-`, `_` only).
fn remedy(f: &Finding) -> String {
    let Some(rem) = &f.remediation else {
        return String::new();
    };
    let mut longest = 0;
    let mut run = 0;
    for c in rem.snippet.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat((longest + 1).max(3));
    let lang: String = rem
        .platform
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    let body = rem.snippet.trim_end_matches(['\n', '\r']);
    format!(
        "{} {}:\n\n{fence}{lang}\n{body}\n{fence}\n\n",
        text(&f.rule),
        text(&format!(
            "{} {}",
            f.device,
            f.interface.as_deref().unwrap_or("")
        ))
        .trim_end()
    )
}

/// Escape a string that came from a device or a snapshot for a Markdown table cell or a line of
/// text: HTML specials and Markdown syntax as entities, `@mentions` broken with a zero-width
/// space, line breaks as `<br>`, other control characters dropped.
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut line_start = true;
    let mut prev = ' ';
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        let start = line_start;
        line_start = false;
        let after_word = prev.is_alphanumeric();
        prev = c;
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '|' => out.push_str("&#124;"),
            '`' => out.push_str("&#96;"),
            '[' => out.push_str("&#91;"),
            ']' => out.push_str("&#93;"),
            '\\' => out.push_str("&#92;"),
            '*' => out.push_str("&#42;"),
            '_' => out.push_str("&#95;"),
            '~' => out.push_str("&#126;"),
            // A mention starts after a non-word character; `user@example.com` stays.
            '@' if !after_word => out.push_str("@\u{200B}"),
            '#' | '-' | '+' | '=' if start => out.push_str(&format!("&#{};", c as u32)),
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push_str("<br>");
                line_start = true;
            }
            '\n' => {
                out.push_str("<br>");
                line_start = true;
            }
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}
