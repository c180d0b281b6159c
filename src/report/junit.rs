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

use super::input::Review;
use crate::finding::{Finding, Severity};
use std::collections::BTreeMap;

#[derive(Default)]
struct Case {
    title: String,
    failures: Vec<String>,
    notes: Vec<String>,
    waived: Vec<String>,
    /// Checks that could not decide (their input was not collected, or the platform never
    /// provides it).
    undecided: Vec<String>,
    /// True when the case holds anything besides waived and undecided findings.
    other: bool,
}

fn describe(r: &Review, f: &Finding) -> String {
    let mut s = f.device.clone();
    if let Some(i) = &f.interface {
        s.push(' ');
        s.push_str(i);
    }
    s.push_str(": ");
    s.push_str(&f.message);
    if let Some(p) = r.source_path(f) {
        match Review::source_line(f) {
            Some(l) => s.push_str(&format!(" ({p}:{l})")),
            None => s.push_str(&format!(" ({p})")),
        }
    }
    s
}

pub fn render(r: &Review) -> String {
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
            .find(|s| *s.id == *f.rule)
            .map_or_else(|| f.title.to_string(), |s| s.title.clone())
    };
    // (family, rule, device) → case
    let mut cases: BTreeMap<Key, Case> = BTreeMap::new();
    let key = |f: &Finding| (family(&f.rule), f.rule.to_string(), f.device.clone());
    let change = r.is_change();
    for f in r.new.iter() {
        let line = describe(r, f);
        let c = entry(&mut cases, key(f), || title(f));
        if f.undecided() {
            // A check that could not decide neither passed nor failed: skipped, saying why.
            c.undecided.push(line);
            continue;
        }
        c.other = true;
        if f.severity == Severity::Error {
            c.failures.push(line);
        } else {
            let label = if change { "new " } else { "" };
            c.notes
                .push(format!("{label}{}: {line}", f.severity.as_str()));
        }
    }
    for (label, fs) in [("unchanged", &r.unchanged), ("fixed", &r.fixed)] {
        for f in fs {
            let line = format!("{label} {}: {}", f.severity.as_str(), describe(r, f));
            let c = entry(&mut cases, key(f), || title(f));
            c.other = true;
            c.notes.push(line);
        }
    }
    for w in r.waived.iter() {
        let note = format!(
            "waived: {} ({}, until {})",
            w.waiver.reason, w.waiver.owner, w.waiver.expires
        );
        let line = format!(
            "waived {}: {} [{}:{}]",
            w.finding.severity.as_str(),
            describe(r, &w.finding),
            w.waiver.file,
            w.waiver.line
        );
        let c = entry(&mut cases, key(&w.finding), || title(&w.finding));
        c.waived.push(note);
        c.notes.push(line);
    }
    let with_case: std::collections::BTreeSet<String> =
        cases.keys().map(|(_, rule, _)| rule.clone()).collect();
    let mut passing: Vec<(String, String, String, usize)> = Vec::new();
    for (rule, n) in &r.audit.passes.count {
        if *n > 0 && !with_case.contains(rule) {
            let t = r
                .audit
                .catalog
                .iter()
                .find(|s| &s.id == rule)
                .map_or_else(String::new, |s| s.title.clone());
            passing.push((family(rule), rule.clone(), t, *n));
        }
    }

    // family → testcase elements, with (tests, failures, skipped). Each case's lines are
    // escaped straight into its suite and freed with the case: a case can hold every finding
    // of a rule on a device (thousands on a large switch), and joining, escaping and
    // formatting them made three more copies of them at once (issue 19).
    let mut suites: BTreeMap<String, (String, usize, usize, usize)> = BTreeMap::new();
    for ((fam, rule, device), c) in cases {
        let s = suites.entry(fam).or_default();
        s.1 += 1;
        let name = format!("{rule} {}", c.title);
        s.0.push_str(&format!(
            "    <testcase classname=\"{}\" name=\"{}\">\n",
            attr(&device),
            attr(name.trim_end())
        ));
        if !c.failures.is_empty() {
            s.2 += 1;
            let n = c.failures.len();
            s.0.push_str(&format!(
                "      <failure message=\"{}\" type=\"error\">",
                attr(&format!(
                    "{n} error finding{}: {}",
                    if n == 1 { "" } else { "s" },
                    c.failures.first().map_or("", String::as_str)
                ))
            ));
            text_lines(&mut s.0, "", &c.failures);
            s.0.push_str("</failure>\n");
        } else if !c.other && (!c.waived.is_empty() || !c.undecided.is_empty()) {
            s.3 += 1;
            let why: Vec<String> = c
                .undecided
                .iter()
                .map(|u| format!("could not decide: {u}"))
                .chain(c.waived.iter().cloned())
                .collect();
            s.0.push_str(&format!(
                "      <skipped message=\"{}\"/>\n",
                attr(&why.join("; "))
            ));
        } else if !c.undecided.is_empty() {
            // Decided findings besides: the case stands on them, the undecided ones are told.
            s.0.push_str("      <system-err>");
            text_lines(&mut s.0, "could not decide: ", &c.undecided);
            s.0.push_str("</system-err>\n");
        }
        if !c.notes.is_empty() {
            s.0.push_str("      <system-out>");
            text_lines(&mut s.0, "", &c.notes);
            s.0.push_str("</system-out>\n");
        }
        s.0.push_str("    </testcase>\n");
    }
    for (fam, rule, t, n) in &passing {
        let s = suites.entry(fam.clone()).or_default();
        s.1 += 1;
        s.0.push_str(&format!(
            "    <testcase classname=\"all devices\" name=\"{}\">\n      <system-out>{n} object{} checked, none failing</system-out>\n    </testcase>\n",
            attr(format!("{rule} {t}").trim_end()),
            if *n == 1 { "" } else { "s" }
        ));
    }
    if suites.is_empty() {
        suites.insert(
            "fabric-audit".into(),
            (
                "    <testcase classname=\"fabric-audit\" name=\"audit\">\n      <system-out>no finding</system-out>\n    </testcase>\n".into(),
                1,
                0,
                0,
            ),
        );
    }
    let (tests, failures, skipped) = suites
        .values()
        .fold((0, 0, 0), |a, s| (a.0 + s.1, a.1 + s.2, a.2 + s.3));
    // Sized once, and each suite's body freed as it is copied in: the document is the size of
    // the bodies, so growing it by doubling, or formatting each body into a copy first, held
    // up to twice the report beside the bodies.
    let heads: Vec<String> = suites
        .iter()
        .map(|(fam, (_, t, f, s))| {
            format!(
                "  <testsuite name=\"{}\" tests=\"{t}\" failures=\"{f}\" errors=\"0\" skipped=\"{s}\">\n",
                attr(fam)
            )
        })
        .collect();
    let top = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"fabric-audit\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\">\n"
    );
    const SUITE_END: &str = "  </testsuite>\n";
    const END: &str = "</testsuites>\n";
    let size = top.len()
        + heads.iter().map(String::len).sum::<usize>()
        + suites
            .values()
            .map(|s| s.0.len() + SUITE_END.len())
            .sum::<usize>()
        + END.len();
    let mut out = String::with_capacity(size);
    out.push_str(&top);
    for (head, (_, (body, ..))) in heads.iter().zip(suites) {
        out.push_str(head);
        out.push_str(&body);
        out.push_str(SUITE_END);
    }
    out.push_str(END);
    out
}

type Key = (String, String, String);

/// `lines` joined by line breaks, each after `prefix`, escaped as element content onto `out`:
/// the same text as [`text`] of the joined lines, without making the joined copy.
fn text_lines(out: &mut String, prefix: &str, lines: &[String]) {
    for (n, l) in lines.iter().enumerate() {
        if n > 0 {
            out.push('\n');
        }
        text_onto(out, prefix);
        text_onto(out, l);
    }
}

fn entry(cases: &mut BTreeMap<Key, Case>, key: Key, title: impl FnOnce() -> String) -> &mut Case {
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
