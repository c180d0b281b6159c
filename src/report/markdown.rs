//! Markdown for a pull-request comment: a summary line, a counts table, then the new findings,
//! the fixed ones and the waived ones, each class grouped per device in a `<details>` block,
//! remediation snippets in fenced code blocks. Every string that came from a device or a
//! snapshot is escaped (see [`text`]); the whole comment stays under a size bound, cut only
//! between rows, with an honest note of what was left out.

use super::input::Review;
use crate::finding::{Finding, Severity, count_by_severity};

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
}

/// The findings of one section, each named by its place in the list (a `u32`): a section's
/// blocks hold these places, not a [`Row`] (16 bytes) per finding, and a row is made when it
/// is read (issue 19: see [`Block`]).
#[derive(Clone, Copy)]
enum Items<'a> {
    Plain(&'a [Finding]),
    Waived(&'a [super::input::Waived]),
}

impl<'a> Items<'a> {
    fn len(self) -> usize {
        match self {
            Items::Plain(fs) => fs.len(),
            Items::Waived(ws) => ws.len(),
        }
    }

    fn row(self, i: u32) -> Row<'a> {
        let i = i as usize;
        match self {
            Items::Plain(fs) => Row {
                f: &fs[i],
                waiver: None,
            },
            Items::Waived(ws) => Row {
                f: &ws[i].finding,
                waiver: Some(&ws[i].waiver),
            },
        }
    }

    fn finding(self, i: u32) -> &'a Finding {
        self.row(i).f
    }

    /// (severity, rule) of a finding, for the closing note's counts.
    fn counted(self, i: u32) -> (Severity, &'a str) {
        let f = self.finding(i);
        (f.severity(), &**f.rule())
    }
}

/// A `<details>` block: one device's findings of one severity (the findings sections are spent
/// errors first), and the fixes to apply on that device, each naming the finding it fixes
/// (a link's finding may be fixed at the other end: its fix is under that device).
///
/// The block holds the places of its findings and of the findings whose fix is applied on
/// its device, each a `u32` in its section's [`Items`], in report order; a fix's snippet and
/// the labels of the findings it fixes are made when the block is written ([`fix_groups`]).
/// Every block's rows as [`Row`]s, each fix's labels and fenced snippet, and its text made
/// for every block first were the run's peak (issue 19): on eos-lossless-stanzas (1 MiB,
/// 15,800 ports drawing six findings each) the markdown report added 8.5 MB to the 33.0 MB
/// live, the run's peak 41.4 MB (23.8×). With places, 4 bytes a finding in order, in its
/// rows and in its fixes, the report took 5.7 MB, all of it the root causes' grouping
/// ([`super::groups::group`]) it makes first: the run's peak 40.4 MB (22.8×).
struct Block<'a> {
    device: &'a str,
    severity: Option<Severity>,
    rows: Vec<u32>,
    /// The findings whose fix is applied on this device (the findings section only).
    fixes: Vec<u32>,
}

/// A class of findings: its blocks are made when it is written (a section cut whole is only
/// counted).
struct Section<'a> {
    title: &'static str,
    open: bool,
    header: &'static [&'static str],
    items: Items<'a>,
    /// The findings section: blocks per severity, with the fixes; else per device, no fixes.
    findings: bool,
}

/// Render with a size bound in bytes (the note of findings left out included). The budget is
/// spent worst first: every device's errors, then warnings, then infos; what does not fit is
/// cut between rows and counted per severity and rule in the closing note.
pub fn render_bounded(r: &Review, max_bytes: usize) -> String {
    let mut out = format!("### fabric-audit: {}\n\n", text(&r.headline()));
    out.push_str(&counts_table(r));
    out.push_str(&causes_list(r, max_bytes / 5));
    let mut shown_any = false;
    // The findings left out, counted per severity and rule as they are cut (not a list of
    // every one: issue 19, 24 bytes a finding).
    let mut cut = Cut::default();
    let room = NOTE_ROOM.min(max_bytes / 4);
    for s in sections(r) {
        let total = s.items.len();
        let heading = format!("#### {} ({total})\n\n", s.title);
        if cut.n > 0 || out.len() + heading.len() + room > max_bytes {
            cut.extend((0..total as u32).map(|i| s.items.counted(i)));
            continue;
        }
        out.push_str(&heading);
        for b in blocks(s.items, s.findings) {
            if cut.n > 0 {
                cut.extend(b.rows.iter().map(|&i| s.items.counted(i)));
                continue;
            }
            let n = b.rows.len();
            let label = match b.severity {
                Some(sev) if n > 0 => format!("{} ({n} {})", text(b.device), sev.as_str()),
                _ if n > 0 => format!("{} ({n})", text(b.device)),
                _ => format!("{} (fixes for findings of other devices)", text(b.device)),
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
            // The block is written into `out` as it fits, and taken back if nothing did (a
            // body and a list of fixes of their own were two more copies of up to the whole
            // comment, 60 KB each: issue 19).
            let start = out.len();
            out.push_str(&head);
            let mut fitted = 0;
            for &i in &b.rows {
                let line = s.items.row(i).line(r) + "\n";
                if out.len() + line.len() + foot.len() + room > max_bytes {
                    break;
                }
                out.push_str(&line);
                fitted += 1;
            }
            cut.extend(b.rows[fitted..].iter().map(|&i| s.items.counted(i)));
            // The fixes of the block, as many as fit whole (the line between them and the
            // rows is not counted, as it never was).
            let body_end = out.len();
            let mut remedies = 0;
            let groups = fix_groups(r, s.items, &b.fixes);
            for g in groups.chunk_by(|x, y| x.0 == y.0) {
                let m = remedy_text(r, s.items, &b, g);
                if body_end + remedies + m.len() + foot.len() + room > max_bytes {
                    break;
                }
                if m.is_empty() {
                    continue;
                }
                if remedies == 0 && fitted > 0 {
                    out.push('\n');
                }
                out.push_str(&m);
                remedies += m.len();
            }
            if fitted > 0 || remedies > 0 {
                out.push_str(foot);
                shown_any |= fitted > 0;
            } else {
                out.truncate(start);
            }
        }
    }
    if cut.n > 0 {
        out.push_str(&cut_note(&cut, room));
    } else if !shown_any {
        out.push_str("No findings.\n");
    }
    out
}

/// The findings left out of a bounded comment: how many, and how many per severity (worst
/// first) and rule.
#[derive(Default)]
struct Cut<'a> {
    n: usize,
    per: std::collections::BTreeMap<(std::cmp::Reverse<Severity>, &'a str), usize>,
}

impl<'a> Cut<'a> {
    fn extend(&mut self, found: impl Iterator<Item = (Severity, &'a str)>) {
        for (sev, rule) in found {
            self.n += 1;
            *self.per.entry((std::cmp::Reverse(sev), rule)).or_default() += 1;
        }
    }
}

/// "… 1698 more findings not shown (see the JSON report): 1200 error (PFC003 ×800, ECN001
/// ×400), 498 warning (ECN002 ×498)", within `room` bytes (rules past it are counted as
/// "N more rules").
fn cut_note(cut: &Cut, room: usize) -> String {
    let n = cut.n;
    let mut out = format!(
        "… {n} more finding{} not shown (see the JSON report)",
        if n == 1 { "" } else { "s" }
    );
    let per = &cut.per;
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
    let mut rows: Vec<(&str, [usize; 3])> = Vec::new();
    if r.is_change() {
        rows.push(("new", count_by_severity(r.new.iter())));
        rows.push(("fixed", count_by_severity(r.fixed.iter())));
        rows.push(("unchanged", count_by_severity(r.unchanged.iter())));
    } else {
        rows.push(("findings", count_by_severity(r.new.iter())));
    }
    rows.push((
        "waived",
        count_by_severity(r.waived.iter().map(|w| &w.finding)),
    ));
    let mut out = table_line(
        ["", "error", "warning", "info"]
            .map(String::from)
            .into_iter(),
    ) + "\n";
    out.push_str("| --- | ---: | ---: | ---: |\n");
    for (name, [e, w, i]) in rows {
        out.push_str(&format!("| {name} | {e} | {w} | {i} |\n"));
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
    let mut out = Vec::new();
    if !r.new.is_empty() {
        out.push(Section {
            title: if r.is_change() { "New" } else { "Findings" },
            open: true,
            header: FINDING_HEADER,
            items: Items::Plain(&r.new),
            findings: true,
        });
    }
    if !r.fixed.is_empty() {
        out.push(Section {
            title: "Fixed",
            open: false,
            header: FINDING_HEADER,
            items: Items::Plain(&r.fixed),
            findings: false,
        });
    }
    if !r.waived.is_empty() {
        out.push(Section {
            title: "Waived (not failing)",
            open: false,
            header: WAIVED_HEADER,
            items: Items::Waived(&r.waived),
            findings: false,
        });
    }
    out
}

/// The blocks of a section, worst first: (severity, device) blocks in report order for the
/// findings section, each with the findings whose fix is applied on its device; device blocks
/// for the others, without fixes (but placed as the findings section's would be: a block
/// first named by a fix comes where that fix is met).
///
/// Each block's lists are made to their length, counted first (issue 19: see [`Block`]).
fn blocks<'a>(items: Items<'a>, findings: bool) -> Vec<Block<'a>> {
    // The order of a stable sort, without its buffer: the place is the last key.
    let mut order: Vec<u32> = (0..items.len() as u32).collect();
    order.sort_unstable_by(|&a, &b| {
        super::groups::worst_first(items.finding(a), items.finding(b)).then(a.cmp(&b))
    });
    // The block of a finding, and the block its fix is applied on.
    let keys = |i: u32| {
        let f = items.finding(i);
        let sev = findings.then_some(f.severity());
        let fix = f.remediation.as_ref().map(|x| {
            let on = x.device.as_deref().unwrap_or(&f.device);
            (on, sev)
        });
        ((&*f.device, sev), fix)
    };
    let mut out: Vec<Block<'a>> = Vec::new();
    let mut at: std::collections::HashMap<(&'a str, Option<Severity>), usize> = Default::default();
    let mut counts: Vec<(usize, usize)> = Vec::new();
    for &i in &order {
        let (own, fix) = keys(i);
        for (key, is_fix) in std::iter::once((own, false)).chain(fix.map(|k| (k, true))) {
            let k = *at.entry(key).or_insert_with(|| {
                out.push(Block {
                    device: key.0,
                    severity: key.1,
                    rows: Vec::new(),
                    fixes: Vec::new(),
                });
                counts.push((0, 0));
                out.len() - 1
            });
            if is_fix {
                counts[k].1 += 1;
            } else {
                counts[k].0 += 1;
            }
        }
    }
    for (b, &(rows, fixes)) in out.iter_mut().zip(&counts) {
        b.rows.reserve_exact(rows);
        if findings {
            b.fixes.reserve_exact(fixes);
        }
    }
    drop(counts);
    for &i in &order {
        let (own, fix) = keys(i);
        if let Some(&k) = at.get(&own) {
            out[k].rows.push(i);
        }
        if let Some(&k) = fix.as_ref().and_then(|key| at.get(key))
            && findings
        {
            out[k].fixes.push(i);
        }
    }
    if !findings {
        out.retain(|b| !b.rows.is_empty());
    }
    out
}

/// The fixes of a block, each with the findings it fixes: the places in `fixes` as
/// (first place, place) pairs sorted, so one fix's findings are one run, the fixes in the
/// order first met. Two findings share a fix when its text is the same and so is the end
/// it is applied on; the texts are found equal through a hash and compared when the hashes
/// agree, and made again when written (a label and a snippet kept per finding were a third
/// of the markdown report's 8.5 MB on eos-lossless-stanzas: issue 19).
fn fix_groups(r: &Review, items: Items, fixes: &[u32]) -> Vec<(u32, u32)> {
    use std::hash::{Hash, Hasher};
    let key = |j: u32| {
        let f = items.finding(fixes[j as usize]);
        (remedy_block(r, f).unwrap_or_default(), fix_elsewhere(f))
    };
    let mut keyed: Vec<(u32, u32)> = (0..fixes.len() as u32)
        .map(|j| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            key(j).hash(&mut h);
            (h.finish() as u32, j)
        })
        .collect();
    keyed.sort_unstable();
    for run in keyed.chunk_by_mut(|x, y| x.0 == y.0) {
        // Usually one fix; more only when two texts' hashes agree.
        let mut firsts: Vec<(u32, (String, bool))> = Vec::new();
        for e in run.iter_mut() {
            let k = key(e.1);
            e.0 = match firsts.iter().find(|x| x.1 == k) {
                Some(x) => x.0,
                None => {
                    firsts.push((e.1, k));
                    e.1
                }
            };
        }
    }
    keyed.sort_unstable();
    keyed
}

/// Whether a finding's fix is applied at the other end of its link.
fn fix_elsewhere(f: &Finding) -> bool {
    let on = f
        .remediation
        .as_ref()
        .and_then(|x| x.device.as_deref())
        .unwrap_or(&f.device);
    on != &*f.device
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

/// The label of a finding a fix fixes: "DSCP002 spine1 Ethernet1/1".
fn fix_label(f: &Finding) -> String {
    text(&format!(
        "{} {} {}",
        f.rule(),
        f.device,
        f.interface.as_deref().unwrap_or("")
    ))
    .trim_end()
    .to_string()
}

/// A finding's fix: the snippet as a fenced code block, its fence longer than any backtick
/// run in it and its language hint the platform (letters, digits, `-`, `_` only).
fn remedy_block(r: &Review, f: &Finding) -> Option<String> {
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
    Some(block)
}

/// One snippet and the findings it fixes (a run of [`fix_groups`]): "Fixes DSCP002 spine1
/// Ethernet1/1, PFC008 spine1 Ethernet1/1:", or for a fix applied at a link's other end,
/// "... — apply on leaf1 (the other end of the link):".
fn remedy_text(r: &Review, items: Items, b: &Block, group: &[(u32, u32)]) -> String {
    let fixed = |j: u32| items.finding(b.fixes[j as usize]);
    let Some(&(first, _)) = group.first() else {
        return String::new();
    };
    let lead = fixed(first);
    let on = if fix_elsewhere(lead) {
        format!(" — apply on {} (the other end of the link)", text(b.device))
    } else {
        String::new()
    };
    let labels: Vec<String> = group.iter().map(|&(_, j)| fix_label(fixed(j))).collect();
    format!(
        "Fixes {}{on}:\n\n{}",
        labels.join(", "),
        remedy_block(r, lead).unwrap_or_default()
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
