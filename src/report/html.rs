//! The HTML report: one self-contained file (inline CSS and script, no external resource, a
//! Content-Security-Policy that allows only those two by hash) that opens from file://. It
//! holds the review headline and counts, a picture of the fabric (`html_svg`), and the
//! findings in tables whose rows carry their severity, device, family and class as data
//! attributes, so the page's script can filter them and count what is shown.
//!
//! Everything that comes from a snapshot is escaped with [`esc`].

use super::html_svg;
use super::input::{Review, Scope};
use super::spill::Out;
use crate::finding::{Finding, Severity, count_by_severity};
use crate::report::input::Waived;
use sha2::{Digest, Sha256};
use std::fmt::Write;

const CSS: &str = include_str!("html.css");
const JS: &str = include_str!("html.js");

/// Escape text for HTML and XML, in element content and in double- or single-quoted
/// attributes. Control characters XML does not allow become U+FFFD.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// The family of a rule: the letters its id starts with (`PFC003` → `PFC`).
pub fn family(rule: &str) -> &str {
    let end = rule
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(rule.len());
    if end == 0 { rule } else { &rule[..end] }
}

/// `'sha256-…'` for a CSP source list.
fn csp_hash(text: &str) -> String {
    format!(
        "'sha256-{}'",
        data_encoding::BASE64.encode(&Sha256::digest(text.as_bytes()))
    )
}

/// The report as one string (what [`write`] writes).
pub fn render(r: &Review) -> String {
    super::spill::to_string(|w| write(r, w))
}

/// The report written to `w` piece by piece (see [`Out`]); the bytes are [`render`]'s.
pub fn write(r: &Review, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut s = Out::new(w);
    let csp = format!(
        "default-src 'none'; style-src {}; script-src {}; img-src data:; base-uri 'none'; form-action 'none'",
        csp_hash(CSS),
        csp_hash(JS)
    );
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>fabric-audit: {}</title>\n<link rel=\"icon\" href=\"data:,\">\n<style>{CSS}</style>\n</head>\n<body>\n",
        esc(&csp),
        esc(&r.headline())
    );
    header(&mut s, r);
    picture(&mut s, r);
    filters(&mut s, r);
    if r.is_change() {
        section(&mut s, "new", "New", &r.new, true);
        section(&mut s, "fixed", "Fixed", &r.fixed, true);
        section(&mut s, "unchanged", "Unchanged", &r.unchanged, false);
    } else {
        section(&mut s, "new", "Findings", &r.new, true);
    }
    if r.is_change() || !r.waived.is_empty() {
        waived(&mut s, &r.waived);
    }
    let _ = write!(
        s,
        "<footer><p class=\"src\">fabric-audit {}</p></footer>\n<script>{JS}</script>\n</body>\n</html>\n",
        env!("CARGO_PKG_VERSION")
    );
    s.finish()
}

fn header(s: &mut String, r: &Review) {
    let _ = writeln!(
        s,
        "<header>\n<h1>fabric-audit report</h1>\n<p class=\"headline\" id=\"headline\">{}</p>",
        esc(&r.headline())
    );
    let scope: Vec<(&str, String)> = match &r.scope {
        Scope::Audit { snapshot } => vec![("snapshot", snapshot.clone())],
        Scope::Diff { before, after } => vec![("before", before.clone()), ("after", after.clone())],
        Scope::Git {
            repo,
            path,
            base,
            head,
            base_commit,
            head_commit,
        } => vec![
            ("repository", repo.clone()),
            ("path", path.clone()),
            ("base", format!("{base} {base_commit}")),
            ("head", format!("{head} {head_commit}")),
        ],
    };
    s.push_str("<dl class=\"scope\">");
    for (k, v) in scope {
        let _ = write!(s, "<dt>{k}</dt><dd>{}</dd>", esc(&v));
    }
    s.push_str("</dl>\n<table class=\"counts\" id=\"counts\"><thead><tr><th></th>");
    for sev in [Severity::Error, Severity::Warning, Severity::Info] {
        let _ = write!(s, "<th class=\"sev sev-{0}\">{0}</th>", sev.as_str());
    }
    s.push_str("<th>total</th></tr></thead><tbody>\n");
    let waived = count_by_severity(r.waived.iter().map(|w| &w.finding));
    let classes: Vec<(&str, &str, [usize; 3])> = if r.is_change() {
        vec![
            ("new", "new", count_by_severity(r.new.iter())),
            ("fixed", "fixed", count_by_severity(r.fixed.iter())),
            (
                "unchanged",
                "unchanged",
                count_by_severity(r.unchanged.iter()),
            ),
            ("waived", "waived", waived),
        ]
    } else {
        vec![
            ("new", "findings", count_by_severity(r.new.iter())),
            ("waived", "waived", waived),
        ]
    };
    for (class, label, n) in classes {
        let _ = write!(s, "<tr data-class=\"{class}\"><th>{label}</th>");
        for (sev, k) in [Severity::Error, Severity::Warning, Severity::Info]
            .into_iter()
            .zip(n)
        {
            let _ = write!(
                s,
                "<td class=\"n\" data-severity=\"{}\">{k}</td>",
                sev.as_str()
            );
        }
        let _ = writeln!(
            s,
            "<td class=\"n total\">{}</td></tr>",
            n.iter().sum::<usize>()
        );
    }
    s.push_str("</tbody></table>\n<p id=\"js-error\" hidden></p>\n</header>\n");
}

fn picture(s: &mut String, r: &Review) {
    // The findings that are there after the change and not waived: what colours the picture.
    let open: [&[Finding]; 2] = [&r.new, &r.unchanged];
    s.push_str("<section id=\"picture\">\n<h2>Fabric</h2>\n<figure>\n");
    s.push_str(&html_svg::render(&r.audit.fabric, &open));
    s.push_str("<figcaption><ul class=\"legend\">");
    for sev in [
        Some(Severity::Error),
        Some(Severity::Warning),
        Some(Severity::Info),
        None,
    ] {
        let _ = write!(
            s,
            "<li><span class=\"swatch sev-{}\"></span>{}</li>",
            html_svg::sev_class(sev),
            match sev {
                Some(v) => v.as_str(),
                None => "no finding",
            }
        );
    }
    let what = if r.is_change() {
        "new and unchanged findings; fixed and waived ones are not drawn"
    } else {
        "waived ones are not drawn"
    };
    let _ = writeln!(
        s,
        "</ul>Links and devices are coloured by their worst finding ({what}). Click a device to filter the findings by it.</figcaption>\n</figure>\n</section>"
    );
}

/// Every finding of the review with its class.
fn all<'a>(r: &'a Review) -> impl Iterator<Item = &'a Finding> {
    r.new
        .iter()
        .chain(&r.fixed)
        .chain(&r.unchanged)
        .chain(r.waived.iter().map(|w| &w.finding))
}

fn options<'v>(s: &mut String, id: &str, label: &str, values: impl Iterator<Item = &'v str>) {
    let _ = write!(
        s,
        "<label>{label} <select id=\"{id}\"><option value=\"\">all</option>"
    );
    for v in values {
        let _ = write!(s, "<option value=\"{0}\">{0}</option>", esc(v));
    }
    s.push_str("</select></label>\n");
}

/// A name in natural order ([`crate::text::natural_cmp`]: `leaf2` before `leaf10`; `a01`
/// and `a1` are equal).
struct Natural<'a>(&'a str);

impl PartialEq for Natural<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Natural<'_> {}

impl PartialOrd for Natural<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Natural<'_> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        crate::text::natural_cmp(self.0, other.0)
    }
}

fn filters(s: &mut String, r: &Review) {
    s.push_str("<form id=\"filters\">\n");
    options(
        s,
        "f-severity",
        "severity",
        ["error", "warning", "info"].into_iter(),
    );
    // The devices, then the findings' devices, in natural order, a name repeated only where
    // a stable sort and a dedup of the whole list would repeat it (names equal in natural
    // order, as `a01` and `a1`, met in turns); the families each once in order. Borrowed and
    // gathered as met: a copy of every finding's device and family, sorted then deduplicated,
    // was the HTML report's 7.4 MB on eos-lossless-stanzas (issue 19: 97,600 findings).
    let mut devices: std::collections::BTreeMap<Natural, Vec<&str>> = Default::default();
    let names = r.audit.fabric.devices.iter().map(|d| d.name.as_str());
    for name in names.chain(all(r).map(|f| &*f.device)) {
        let same = devices.entry(Natural(name)).or_default();
        if same.last() != Some(&name) {
            same.push(name);
        }
    }
    options(s, "f-device", "device", devices.values().flatten().copied());
    drop(devices);
    // Inserted one by one: collecting into the set first lists every finding's family.
    let mut fams: std::collections::BTreeSet<&str> = Default::default();
    for f in all(r) {
        fams.insert(family(f.rule()));
    }
    options(s, "f-family", "family", fams.into_iter());
    if r.is_change() {
        let classes = ["new", "fixed", "unchanged", "waived"];
        options(s, "f-class", "class", classes.into_iter());
    }
    let total = all(r).count();
    let _ = writeln!(
        s,
        "<button type=\"button\" id=\"f-reset\">show all</button>\
         <span id=\"counter\"><span id=\"shown\"></span> shown of <span id=\"total\">{total}</span></span>\n</form>"
    );
}

const HEAD: &str = "<th>severity</th><th>rule</th><th>device</th><th>interface</th><th>message</th><th>source</th>";

fn section(s: &mut Out, class: &str, title: &str, fs: &[Finding], open: bool) {
    let _ = writeln!(
        s,
        "<details class=\"section\" id=\"sec-{class}\"{}>\n<summary><h2>{title}</h2> (<span data-shown-for=\"{class}\"></span> shown of {})</summary>",
        if open { " open" } else { "" },
        fs.len()
    );
    if fs.is_empty() {
        s.push_str("<p class=\"empty\">none</p>\n</details>\n");
        return;
    }
    let _ = writeln!(
        s,
        "<table class=\"findings\"><thead><tr>{HEAD}</tr></thead><tbody>"
    );
    for f in fs {
        row_start(s, f, class);
        s.push_str("</tr>\n");
        s.spill();
    }
    s.push_str("</tbody></table>\n</details>\n");
}

/// A finding's row up to its last common cell (the caller closes it).
fn row_start(s: &mut String, f: &Finding, class: &str) {
    let sev = f.severity().as_str();
    let _ = write!(
        s,
        "<tr class=\"finding sev-{sev}\" data-class=\"{class}\" data-severity=\"{sev}\" data-device=\"{}\" data-family=\"{}\" data-rule=\"{}\">",
        esc(&f.device),
        esc(family(f.rule())),
        esc(f.rule()),
    );
    let _ = write!(
        s,
        "<td class=\"sev sev-{sev}\">{sev}</td><td><abbr title=\"{}\">{}</abbr></td><td>{}</td><td>{}",
        esc(f.title()),
        esc(f.rule()),
        esc(&f.device),
        esc(f.interface.as_deref().unwrap_or(""))
    );
    if let Some(p) = &f.peer {
        let _ = write!(
            s,
            " <span class=\"peer\">↔ {} {}</span>",
            esc(&p.device),
            esc(&p.interface)
        );
    }
    let _ = write!(s, "</td><td>{}", esc(&f.message().text()));
    if let Some(fix) = &f.remediation {
        let _ = write!(
            s,
            "<div class=\"fix\">fix ({}{}):<pre>{}</pre></div>",
            esc(&fix.platform),
            fix.device
                .as_deref()
                .map(|d| format!(", on {}", esc(d)))
                .unwrap_or_default(),
            esc(&fix.snippet)
        );
    }
    let src = f
        .source
        .as_ref()
        .map(|l| format!("{}:{}", l.file, l.line))
        .unwrap_or_default();
    let _ = write!(s, "</td><td class=\"src\">{}</td>", esc(&src));
}

fn waived(s: &mut Out, ws: &[Waived]) {
    let _ = writeln!(
        s,
        "<details class=\"section\" id=\"sec-waived\" open>\n<summary><h2>Waived</h2> (<span data-shown-for=\"waived\"></span> shown of {}; not failing)</summary>",
        ws.len()
    );
    if ws.is_empty() {
        s.push_str("<p class=\"empty\">none</p>\n</details>\n");
        return;
    }
    let _ = writeln!(
        s,
        "<table class=\"findings\"><thead><tr>{HEAD}<th>reason</th><th>owner</th><th>expires</th><th>waiver</th></tr></thead><tbody>"
    );
    for w in ws {
        row_start(s, &w.finding, "waived");
        let _ = writeln!(
            s,
            "<td>{}</td><td>{}</td><td>{}</td><td class=\"src\">{}:{}</td></tr>",
            esc(&w.waiver.reason),
            esc(&w.waiver.owner),
            esc(&w.waiver.expires),
            esc(&w.waiver.file),
            w.waiver.line
        );
        s.spill();
    }
    s.push_str("</tbody></table>\n</details>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_quotes_and_ampersands() {
        assert_eq!(
            esc("<script>alert('x')</script>"),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"
        );
        assert_eq!(esc("a & \"b\""), "a &amp; &quot;b&quot;");
        assert_eq!(esc("&amp;"), "&amp;amp;");
        assert_eq!(esc("tab\tok\u{1}"), "tab\tok\u{fffd}");
    }

    #[test]
    fn family_is_the_letters_of_the_rule_id() {
        assert_eq!(family("PFC003"), "PFC");
        assert_eq!(family("WAIVER001"), "WAIVER");
        assert_eq!(family("007"), "007");
    }
}
