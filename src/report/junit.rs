//! JUnit XML for CI test dashboards: one `<testsuite>` per rule family (PFC, ECN, MTU, ...:
//! the families are stable across fabrics, so a dashboard's suites keep their names from run to
//! run, while devices come and go), one `<testcase>` per rule × device with a finding
//! (classname = device, name = rule id and title).
//!
//! What fails: a new *error* finding (for a plain audit, any error finding) is a `<failure>`
//! whose body lists every such message of that rule on that device. New warnings and infos,
//! unchanged and fixed findings make passing cases that carry their messages in
//! `<system-out>`. A case whose findings are all waived or undecided (the rule could not
//! decide: its input was not collected, or the platform never provides it) is `<skipped>`,
//! saying why; an undecided check never shows as passed. Rules
//! that checked objects and found nothing get one passing case each, so a clean fabric shows a
//! green suite rather than an empty file.

use super::input::{Review, Waived, WaiverEntry};
use crate::finding::{Finding, Severity};
use std::collections::BTreeMap;

/// One line of a case's `<system-out>`, made when the case is written: a line held per
/// finding (its device, port, message and source joined) was the document's size again beside
/// the findings before any of it was written (issue 19: memory within 20 times the input).
///
/// Held as a `u32`, the finding's place in the review's new, unchanged, fixed then waived
/// findings ([`Note::of`]): as an enum of references (24 bytes), with the failing findings'
/// references, a case's lists were most of the JUnit report's 1.7 MB on eos-lossless-stanzas
/// (97,600 findings), now 0.5 MB in all.
#[derive(Clone, Copy)]
struct Note(u32);

/// What a [`Note`] names.
enum Noted<'a> {
    /// A new finding that is not an error.
    New(&'a Finding),
    /// An unchanged or fixed finding, with that label.
    Was(&'static str, &'a Finding),
    Waived(&'a Waived),
}

impl Note {
    fn of<'a>(self, r: &'a Review) -> Noted<'a> {
        let mut i = self.0 as usize;
        if i < r.new.len() {
            return Noted::New(&r.new[i]);
        }
        i -= r.new.len();
        if i < r.unchanged.len() {
            return Noted::Was("unchanged", &r.unchanged[i]);
        }
        i -= r.unchanged.len();
        if i < r.fixed.len() {
            return Noted::Was("fixed", &r.fixed[i]);
        }
        Noted::Waived(&r.waived[i - r.fixed.len()])
    }

    fn line(self, r: &Review) -> String {
        match self.of(r) {
            Noted::New(f) => {
                let label = if r.is_change() { "new " } else { "" };
                format!("{label}{}: {}", f.severity().as_str(), describe(r, f))
            }
            Noted::Was(label, f) => {
                format!("{label} {}: {}", f.severity().as_str(), describe(r, f))
            }
            Noted::Waived(w) => format!(
                "waived {}: {} [{}:{}]",
                w.finding.severity().as_str(),
                describe(r, &w.finding),
                w.waiver.file,
                w.waiver.line
            ),
        }
    }
}

#[derive(Default)]
struct Case<'a> {
    title: String,
    /// The error findings, as places in the review's new findings (see [`Note`]).
    failures: Vec<u32>,
    notes: Vec<Note>,
    waived: Vec<&'a WaiverEntry>,
    /// Checks that could not decide (their input was not collected, or the platform never
    /// provides it), as places in the review's new findings.
    undecided: Vec<u32>,
    /// True when the case holds anything besides waived and undecided findings.
    other: bool,
}

impl Case<'_> {
    /// Counted as a failure (an error finding), or as skipped (only waived and undecided).
    fn fails(&self) -> bool {
        !self.failures.is_empty()
    }
    fn skipped(&self) -> bool {
        !self.fails() && !self.other && (!self.waived.is_empty() || !self.undecided.is_empty())
    }
}

fn describe(r: &Review, f: &Finding) -> String {
    let mut s = f.device.to_string();
    if let Some(i) = &f.interface {
        s.push(' ');
        s.push_str(i);
    }
    s.push_str(": ");
    s.push_str(&f.message().text());
    if let Some(p) = r.source_path(f) {
        match Review::source_line(f) {
            Some(l) => s.push_str(&format!(" ({p}:{l})")),
            None => s.push_str(&format!(" ({p})")),
        }
    }
    s
}

/// The document as one string (what [`write`] writes).
pub fn render(r: &Review) -> String {
    super::spill::to_string(|w| write(r, w))
}

/// The document written to `w` a case at a time ([`super::spill::Out`]): the suites' counts
/// are taken first, then each case's lines are made, escaped and written.
pub fn write(r: &Review, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let family = |rule: &str| -> String {
        r.audit
            .catalog
            .iter()
            .find(|s| s.id == rule)
            .map(|s| s.family.to_lowercase())
            .unwrap_or_else(|| {
                rule.trim_end_matches(|c: char| c.is_ascii_digit())
                    .to_lowercase()
            })
    };
    let title = |f: &Finding| -> String {
        r.audit
            .catalog
            .iter()
            .find(|s| *s.id == **f.rule())
            .map_or_else(|| f.title().to_string(), |s| s.title.clone())
    };
    // (family, rule, device) → case
    let mut cases: BTreeMap<Key, Case> = BTreeMap::new();
    let key = |f: &Finding| (family(f.rule()), f.rule().to_string(), f.device.to_string());
    // Each finding's place in the new, unchanged, fixed then waived findings (see [`Note`]).
    let mut at = 0u32;
    let mut next = || {
        at += 1;
        at - 1
    };
    for f in r.new.iter() {
        let i = next();
        let c = entry(&mut cases, key(f), || title(f));
        if f.undecided() {
            // A check that could not decide neither passed nor failed: skipped, saying why.
            c.undecided.push(i);
            continue;
        }
        c.other = true;
        if f.severity() == Severity::Error {
            c.failures.push(i);
        } else {
            c.notes.push(Note(i));
        }
    }
    for f in r.unchanged.iter().chain(&r.fixed) {
        let i = next();
        let c = entry(&mut cases, key(f), || title(f));
        c.other = true;
        c.notes.push(Note(i));
    }
    for w in r.waived.iter() {
        let i = next();
        let c = entry(&mut cases, key(&w.finding), || title(&w.finding));
        c.waived.push(&w.waiver);
        c.notes.push(Note(i));
    }
    let with_case: std::collections::BTreeSet<&str> =
        cases.keys().map(|(_, rule, _)| rule.as_str()).collect();
    let mut passing: Vec<(String, &str, String, usize)> = Vec::new();
    for (rule, n) in &r.audit.passes.count {
        if *n > 0 && !with_case.contains(rule.as_str()) {
            let t = r
                .audit
                .catalog
                .iter()
                .find(|s| &s.id == rule)
                .map_or_else(String::new, |s| s.title.clone());
            passing.push((family(rule), rule, t, *n));
        }
    }
    drop(with_case);

    // family → (tests, failures, skipped)
    let mut suites: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    for ((fam, ..), c) in &cases {
        let s = suites.entry(fam).or_default();
        s.0 += 1;
        s.1 += usize::from(c.fails());
        s.2 += usize::from(c.skipped());
    }
    for (fam, ..) in &passing {
        suites.entry(fam).or_default().0 += 1;
    }
    let (tests, failures, skipped) = suites
        .values()
        .fold((0, 0, 0), |a, s| (a.0 + s.0, a.1 + s.1, a.2 + s.2));
    let mut out = super::spill::Out::new(w);
    if suites.is_empty() {
        out.push_str(concat!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",
            "<testsuites name=\"fabric-audit\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"0\">\n",
            "  <testsuite name=\"fabric-audit\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"0\">\n",
            "    <testcase classname=\"fabric-audit\" name=\"audit\">\n      <system-out>no finding</system-out>\n    </testcase>\n",
            "  </testsuite>\n</testsuites>\n"
        ));
        return out.finish();
    }
    out.push_str(&format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"fabric-audit\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\">\n"
    ));
    // The cases are in (family, rule, device) order: each family's are one run of them.
    let mut cases = cases.iter().peekable();
    for (fam, (t, f, s)) in &suites {
        out.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{t}\" failures=\"{f}\" errors=\"0\" skipped=\"{s}\">\n",
            attr(fam)
        ));
        while let Some(((_, rule, device), c)) = cases.next_if(|((f, ..), _)| f == fam) {
            case(&mut out, r, rule, device, c);
            out.spill();
        }
        for (_, rule, t, n) in passing.iter().filter(|p| p.0 == *fam) {
            out.push_str(&format!(
                "    <testcase classname=\"all devices\" name=\"{}\">\n      <system-out>{n} object{} checked, none failing</system-out>\n    </testcase>\n",
                attr(format!("{rule} {t}").trim_end()),
                if *n == 1 { "" } else { "s" }
            ));
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out.finish()
}

/// One `<testcase>`: a failure (the case's error findings), skipped (only waived and
/// undecided ones, saying why), the undecided told beside decided findings, and the other
/// findings' lines.
///
/// Written into `s` and sent on as it grows ([`super::spill::Out::spill`] after each line):
/// a case is one rule on one device, so on a device of many ports it holds thousands of
/// findings, and a case made whole before it was sent was the JUnit report's peak (issue 19:
/// on eos-lossless-stanzas, 15,800 ports, one case's text was 2.4 MB).
fn case(s: &mut super::spill::Out, r: &Review, rule: &str, device: &str, c: &Case) {
    let name = format!("{rule} {}", c.title);
    s.push_str(&format!(
        "    <testcase classname=\"{}\" name=\"{}\">\n",
        attr(device),
        attr(name.trim_end())
    ));
    if c.fails() {
        let n = c.failures.len();
        s.push_str(&format!(
            "      <failure message=\"{}\" type=\"error\">",
            attr(&format!(
                "{n} error finding{}: {}",
                if n == 1 { "" } else { "s" },
                c.failures
                    .first()
                    .map(|&i| describe(r, &r.new[i as usize]))
                    .unwrap_or_default()
            ))
        ));
        text_lines(
            s,
            "",
            c.failures.iter().map(|&i| describe(r, &r.new[i as usize])),
        );
        s.push_str("</failure>\n");
    } else if c.skipped() {
        // The reasons joined by "; " and escaped, a reason at a time (escaping is made a
        // character at a time: the same text as the joined reasons' escape).
        let why = c
            .undecided
            .iter()
            .map(|&u| format!("could not decide: {}", describe(r, &r.new[u as usize])))
            .chain(
                c.waived
                    .iter()
                    .map(|w| format!("waived: {} ({}, until {})", w.reason, w.owner, w.expires)),
            );
        s.push_str("      <skipped message=\"");
        for (n, y) in why.enumerate() {
            if n > 0 {
                s.push_str("; ");
            }
            s.push_str(&attr(&y));
            s.spill();
        }
        s.push_str("\"/>\n");
    } else if !c.undecided.is_empty() {
        // Decided findings besides: the case stands on them, the undecided ones are told.
        s.push_str("      <system-err>");
        text_lines(
            s,
            "could not decide: ",
            c.undecided.iter().map(|&i| describe(r, &r.new[i as usize])),
        );
        s.push_str("</system-err>\n");
    }
    if !c.notes.is_empty() {
        s.push_str("      <system-out>");
        text_lines(s, "", c.notes.iter().map(|n| n.line(r)));
        s.push_str("</system-out>\n");
    }
    s.push_str("    </testcase>\n");
}

type Key = (String, String, String);

/// `lines` joined by line breaks, each after `prefix`, escaped as element content onto `out`:
/// the same text as [`text`] of the joined lines, without making the joined copy.
/// Sent on as it grows (see [`case`]).
fn text_lines(out: &mut super::spill::Out, prefix: &str, lines: impl Iterator<Item = String>) {
    for (n, l) in lines.enumerate() {
        if n > 0 {
            out.push('\n');
        }
        text_onto(out, prefix);
        text_onto(out, &l);
        out.spill();
    }
}

fn entry<'c, 'a>(
    cases: &'c mut BTreeMap<Key, Case<'a>>,
    key: Key,
    title: impl FnOnce() -> String,
) -> &'c mut Case<'a> {
    let c = cases.entry(key).or_default();
    if c.title.is_empty() {
        c.title = title();
    }
    c
}

/// Characters XML 1.0 allows (control characters other than tab, LF and CR are not).
fn allowed(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || (!c.is_control() && c != '\u{FFFE}' && c != '\u{FFFF}')
}

/// Escape for element content.
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    text_onto(&mut out, s);
    out
}

/// [`text`] of `s` added to `out`.
fn text_onto(out: &mut String, s: &str) {
    for c in s.chars().filter(|c| allowed(*c)) {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\r' => out.push_str("&#13;"),
            c => out.push(c),
        }
    }
}

/// Escape for an attribute value in double quotes (line breaks and tabs kept as references,
/// which attribute normalization would otherwise turn into spaces).
pub fn attr(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars().filter(|c| allowed(*c)) {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c => out.push(c),
        }
    }
    out
}
