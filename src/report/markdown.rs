//! Markdown for a pull-request comment: a summary line, a counts table, then the new findings,
//! the fixed ones and the waived ones, each class grouped per device in a `<details>` block,
//! remediation snippets in fenced code blocks. Every string that came from a device or a
//! snapshot is escaped (see [`text`]); the whole comment stays under a size bound, cut only
//! between rows, with an honest note of what was left out.

use super::input::Review;
use crate::finding::{Finding, Severity};

/// GitHub comments hold at most 65536 characters; leave room for a wrapper.
pub const MAX_BYTES: usize = 60_000;

/// Room kept for the closing note (its per-rule totals included).
const NOTE_ROOM: usize = 600;

pub fn render(r: &Review) -> String {
    render_bounded(r, MAX_BYTES)
}

/// One finding row of a class table.
///
/// Its table line is made when the row is written: every finding gets a row, though only
/// the first 60 KB are shown and the rest are counted in the closing note. Lines made for
/// all rows first were this report's peak on a config of hundreds of ports with a few
/// findings each, 500 KB for 948 findings (issue 19: peak memory within 20 times the input).
struct Row<'a> {
    f: &'a Finding,
    /// A waived finding's waiver (its cells replace the fix column).
    waiver: Option<&'a super::input::WaiverEntry>,
}

impl<'a> Row<'a> {
    fn line(&self, r: &Review) -> String {
        let mut cells = finding_cells(r, self.f);
        if let Some(w) = self.waiver {
            cells.pop();
            cells.extend([
                text(&w.reason),
                text(&w.owner),
                text(&w.expires),
                text(&format!("{}:{}", w.file, w.line)),
            ]);
        }
        table_line(cells.into_iter())
    }

    /// (severity, rule) for the closing note's counts.
    fn counted(&self) -> (Severity, &'a str) {
        (self.f.severity(), self.f.rule())
    }
}

/// A `<details>` block: one device's findings of one severity (the findings sections are spent
/// errors first), and the fixes to apply on that device, each naming the finding it fixes
/// (a link's finding may be fixed at the other end: its fix is under that device).
struct Block<'a> {
    device: String,
    severity: Option<Severity>,
    rows: Vec<Row<'a>>,
    /// (labels of the findings fixed, the fenced snippet, applied at a link's other end).
    fixes: Vec<(Vec<String>, String, bool)>,
    remedies: Vec<String>,
}

struct Section<'a> {
    title: String,
    open: bool,
    header: &'static [&'static str],
    blocks: Vec<Block<'a>>,
}

/// Render with a size bound in bytes (the note of findings left out included). The budget is
/// spent worst first: every device's errors, then warnings, then infos; what does not fit is
/// cut between rows and counted per severity and rule in the closing note.
pub fn render_bounded(r: &Review, max_bytes: usize) -> String {
    let mut out = format!("### fabric-audit: {}\n\n", text(&r.headline()));
    out.push_str(&counts_table(r));
    out.push_str(&causes_list(r, max_bytes / 5));
    let mut shown_any = false;
    let mut cut: Vec<(Severity, &str)> = Vec::new();
    let room = NOTE_ROOM.min(max_bytes / 4);
    for s in sections(r) {
        let total: usize = s.blocks.iter().map(|b| b.rows.len()).sum();
        let heading = format!("#### {} ({total})\n\n", s.title);
        if !cut.is_empty() || out.len() + heading.len() + room > max_bytes {
            cut.extend(
                s.blocks
                    .iter()
                    .flat_map(|b| b.rows.iter().map(Row::counted)),
            );
            continue;
        }
        out.push_str(&heading);
        for b in s.blocks {
            if !cut.is_empty() {
                cut.extend(b.rows.iter().map(Row::counted));
                continue;
            }
            let n = b.rows.len();
            let label = match b.severity {
                Some(sev) if n > 0 => format!("{} ({n} {})", text(&b.device), sev.as_str()),
                _ if n > 0 => format!("{} ({n})", text(&b.device)),
                _ => format!("{} (fixes for findings of other devices)", text(&b.device)),
            };
            let open = s.open && b.severity.is_none_or(|sev| sev == Severity::Error);
            let mut head = format!(
                "<details{}><summary>{label}</summary>\n\n",
                if open { " open" } else { "" },
            );
            if n > 0 {
                head.push_str(&format!(
                    "{}\n{}\n",
                    table_line(s.header.iter().map(|h| h.to_string())),
                    table_line(s.header.iter().map(|_| "---".to_string())),
                ));
            }
            let foot = "\n</details>\n\n";
            let mut body = String::new();
            let mut fitted = 0;
            for row in &b.rows {
                let line = row.line(r) + "\n";
                if out.len() + head.len() + body.len() + line.len() + foot.len() + room > max_bytes
                {
                    break;
                }
                body.push_str(&line);
                fitted += 1;
            }
            cut.extend(b.rows[fitted..].iter().map(Row::counted));
            // The fixes of the block, as many as fit whole.
            let mut remedies = String::new();
            for m in &b.remedies {
                if out.len()
                    + head.len()
                    + body.len()
                    + remedies.len()
                    + m.len()
                    + foot.len()
                    + room
                    > max_bytes
                {
                    break;
                }
                remedies.push_str(m);
            }
            if fitted > 0 || !remedies.is_empty() {
                out.push_str(&head);
                out.push_str(&body);
                if !remedies.is_empty() {
                    if fitted > 0 {
                        out.push('\n');
                    }
                    out.push_str(&remedies);
                }
                out.push_str(foot);
                shown_any |= fitted > 0;
            }
        }
    }
    if !cut.is_empty() {
        out.push_str(&cut_note(&cut, room));
    } else if !shown_any {
        out.push_str("No findings.\n");
    }
    out
}

/// "… 1698 more findings not shown (see the JSON report): 1200 error (PFC003 ×800, ECN001
/// ×400), 498 warning (ECN002 ×498)", within `room` bytes (rules past it are counted as
/// "N more rules").
fn cut_note(cut: &[(Severity, &str)], room: usize) -> String {
    let n = cut.len();
    let mut out = format!(
        "… {n} more finding{} not shown (see the JSON report)",
        if n == 1 { "" } else { "s" }
    );
    let mut per: std::collections::BTreeMap<(std::cmp::Reverse<Severity>, &str), usize> =
        Default::default();
    for &(sev, rule) in cut {
        *per.entry((std::cmp::Reverse(sev), rule)).or_default() += 1;
    }
    let mut parts: Vec<String> = Vec::new();
    for sev in [Severity::Error, Severity::Warning, Severity::Info] {
        let mut rules: Vec<(&str, usize)> = per
            .iter()
            .filter(|((s, _), _)| s.0 == sev)
            .map(|((_, r), k)| (*r, *k))
            .collect();
        if rules.is_empty() {
            continue;
        }
        rules.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        let total: usize = rules.iter().map(|x| x.1).sum();
        let list: Vec<String> = rules
            .iter()
            .map(|(r, k)| format!("{} ×{k}", text(r)))
            .collect();
        parts.push(format!("{total} {} ({})", sev.as_str(), list.join(", ")));
    }
    let full = format!("{out}: {}\n", parts.join(", "));
    if full.len() <= room {
        return full;
    }
    // Too long: the totals per severity only.
    let short: Vec<String> = parts
        .iter()
        .map(|p| p.split(" (").next().unwrap_or(p).to_string())
        .collect();
    out.push_str(&format!(": {}\n", short.join(", ")));
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
        // Counted on the references: a copy of the findings to count them was the peak of a
        // markdown report of many findings (issue 19).
        let count = |s: Severity| fs.iter().filter(|f| f.severity() == s).count();
        out.push_str(&format!(
            "| {name} | {} | {} | {} |\n",
            count(Severity::Error),
            count(Severity::Warning),
            count(Severity::Info)
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

fn sections<'a>(r: &'a Review) -> Vec<Section<'a>> {
    // Worst first: (severity, device) blocks in report order; each finding's fix under the
    // device it is applied on.
    let blocks = |fs: Vec<Row<'a>>, by_severity: bool| -> Vec<Block<'a>> {
        let mut fs = fs;
        fs.sort_by(|a, b| super::groups::worst_first(a.f, b.f));
        let mut out: Vec<Block> = Vec::new();
        let slot = |out: &mut Vec<Block>, device: &str, sev: Option<Severity>| -> usize {
            match out
                .iter()
                .position(|b| b.device == device && b.severity == sev)
            {
                Some(k) => k,
                None => {
                    out.push(Block {
                        device: device.to_string(),
                        severity: sev,
                        rows: Vec::new(),
                        fixes: Vec::new(),
                        remedies: Vec::new(),
                    });
                    out.len() - 1
                }
            }
        };
        for row in fs {
            let f = row.f;
            let sev = by_severity.then_some(f.severity());
            let k = slot(&mut out, &f.device, sev);
            out[k].rows.push(row);
            let Some((label, block)) = remedy(r, f) else {
                continue;
            };
            let on = f
                .remediation
                .as_ref()
                .and_then(|x| x.device.as_deref())
                .unwrap_or(&f.device);
            let other = on != &*f.device;
            let k = slot(&mut out, on, sev);
            match out[k]
                .fixes
                .iter_mut()
                .find(|x| x.1 == block && x.2 == other)
            {
                Some(x) => x.0.push(label),
                None => out[k].fixes.push((vec![label], block, other)),
            }
        }
        for b in &mut out {
            b.remedies = b
                .fixes
                .iter()
                .map(|(labels, block, other)| remedy_text(labels, block, &b.device, *other))
                .collect();
        }
        out
    };
    let plain = |f| Row { f, waiver: None };
    let mut out = vec![Section {
        title: if r.is_change() { "New" } else { "Findings" }.into(),
        open: true,
        header: FINDING_HEADER,
        blocks: blocks(r.new.iter().map(plain).collect(), true),
    }];
    if !r.fixed.is_empty() {
        out.push(Section {
            title: "Fixed".into(),
            open: false,
            header: FINDING_HEADER,
            blocks: blocks(r.fixed.iter().map(plain).collect(), false)
                .into_iter()
                .map(|mut b| {
                    b.remedies.clear();
                    b
                })
                .filter(|b| !b.rows.is_empty())
                .collect(),
        });
    }
    if !r.waived.is_empty() {
        let rows = r
            .waived
            .iter()
            .map(|w| Row {
                f: &w.finding,
                waiver: Some(&w.waiver),
            })
            .collect();
        out.push(Section {
            title: "Waived (not failing)".into(),
            open: false,
            header: WAIVED_HEADER,
            blocks: blocks(rows, false)
                .into_iter()
                .map(|mut b| {
                    b.remedies.clear();
                    b
                })
                .filter(|b| !b.rows.is_empty())
                .collect(),
        });
    }
    out.retain(|s| !s.blocks.is_empty());
    out
}

fn finding_cells(r: &Review, f: &Finding) -> Vec<String> {
    let source = match (r.source_path(f), Review::source_line(f)) {
        (Some(p), Some(l)) => format!("{p}:{l}"),
        (Some(p), None) => p,
        _ => String::new(),
    };
    vec![
        f.severity().as_str().to_string(),
        text(f.rule()),
        text(&f.device),
        text(f.interface.as_deref().unwrap_or("")),
        text(&f.message().text()),
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

/// A finding's fix: the label of the finding it fixes and the snippet as a fenced code block,
/// its fence longer than any backtick run in it and its language hint the platform (letters,
/// digits, `-`, `_` only).
fn remedy(r: &Review, f: &Finding) -> Option<(String, String)> {
    let rem = f.remediation.as_ref()?;
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
    let label = text(&format!(
        "{} {} {}",
        f.rule(),
        f.device,
        f.interface.as_deref().unwrap_or("")
    ))
    .trim_end()
    .to_string();
    let mut block = format!("{fence}{lang}\n{body}\n{fence}\n\n");
    // A fix that is one line of the changed file: the replacement of that line, as a GitHub
    // suggestion (a review comment on the line applies it in one click).
    if let Some(sugg) = f.evidence().get("suggestion").and_then(|v| v.as_str())
        && let (Some(p), Some(l)) = (r.source_path(f), Review::source_line(f))
        && !sugg.contains(['\n', '\r'])
    {
        let fence = "`".repeat(
            sugg.split(|c| c != '`')
                .map(str::len)
                .max()
                .unwrap_or(0)
                .max(2)
                + 1,
        );
        block.push_str(&format!(
            "Suggested change of {}:\n\n{fence}suggestion\n{sugg}\n{fence}\n\n",
            text(&format!("{p}:{l}"))
        ));
    }
    Some((label, block))
}

/// One snippet and the findings it fixes: "Fixes DSCP002 spine1 Ethernet1/1, PFC008 spine1
/// Ethernet1/1:", or for a fix applied at a link's other end, "... — apply on leaf1 (the
/// other end of the link):".
fn remedy_text(labels: &[String], block: &str, device: &str, on_other_end: bool) -> String {
    let on = if on_other_end {
        format!(" — apply on {} (the other end of the link)", text(device))
    } else {
        String::new()
    };
    format!("Fixes {}{on}:\n\n{block}", labels.join(", "))
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
