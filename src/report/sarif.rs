//! SARIF 2.1.0 for code scanning (GitHub's upload-sarif and others).
//!
//! `tool.driver.rules` is the rule catalog (plus any rule id a finding carries that the catalog
//! lacks, described from the finding). Results are the findings present in the snapshot: for a
//! change review the new ones (`baselineState: "new"`) and the unchanged ones (`"unchanged"`);
//! fixed findings are left out, since a code-scanning service reads every result as present in
//! the commit it is uploaded for. Waived findings are results with an external, accepted
//! suppression. `partialFingerprints` hash the finding's identity (rule, device, interface,
//! peer; never its line) so an alert follows a finding when the config lines move.

use super::input::Review;
use crate::finding::{Finding, Severity};
use serde_json::{Value, json};
use sha1::Digest;
use std::collections::BTreeMap;

pub const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The key under `partialFingerprints`.
pub const FINGERPRINT: &str = "fabricAuditIdentity/v1";

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// The first `http(s)://` address in a rule reference ("Vendor, title: URL"), for `helpUri`.
fn first_url(reference: &str) -> Option<&str> {
    let start = reference
        .find("https://")
        .or_else(|| reference.find("http://"))?;
    let url = reference[start..].split_whitespace().next()?;
    Some(url.trim_end_matches([',', ';', ')', '.']))
}

pub fn render(r: &Review) -> String {
    let mut rules: Vec<Value> = Vec::new();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    for spec in &r.audit.catalog {
        if index.contains_key(&spec.id) {
            continue;
        }
        let lvl = Severity::parse(&spec.severity).map_or("warning", level);
        let help = format!("{}\n\nFix: {}", spec.why.trim(), spec.fix.trim());
        index.insert(spec.id.clone(), rules.len());
        let mut rule = json!({
            "id": spec.id,
            "name": spec.title,
            "shortDescription": { "text": spec.title },
            "fullDescription": { "text": spec.what.trim() },
            "help": {
                "text": help,
                "markdown": format!("{}\n\n**Fix.** {}", spec.why.trim(), spec.fix.trim()),
            },
            "defaultConfiguration": { "level": lvl },
            "properties": { "tags": [spec.family] },
        });
        if let Some(uri) = spec.references.iter().find_map(|r| first_url(r)) {
            rule["helpUri"] = json!(uri);
        }
        rules.push(rule);
    }
    let waived: Vec<&Finding> = r.waived.iter().map(|w| &w.finding).collect();
    for f in r
        .new
        .iter()
        .chain(&r.unchanged)
        .chain(waived.iter().copied())
    {
        if !index.contains_key(&f.rule) {
            index.insert(f.rule.clone(), rules.len());
            rules.push(json!({
                "id": f.rule,
                "name": f.title,
                "shortDescription": { "text": f.title },
                "defaultConfiguration": { "level": level(f.severity) },
            }));
        }
    }

    let all: Vec<&Finding> = r.new.iter().chain(&r.unchanged).chain(waived).collect();
    let fingerprints = fingerprints(&all);
    let mut results = Vec::new();
    let base = |f: &Finding, i: usize| {
        let fp = fingerprints.get(i).map_or("", String::as_str);
        result(r, f, index.get(&f.rule).copied(), fp)
    };
    let mut i = 0;
    for f in &r.new {
        let mut v = base(f, i);
        if r.is_change() {
            v["baselineState"] = json!("new");
        }
        results.push(v);
        i += 1;
    }
    for f in &r.unchanged {
        let mut v = base(f, i);
        v["baselineState"] = json!("unchanged");
        results.push(v);
        i += 1;
    }
    for w in &r.waived {
        let mut v = base(&w.finding, i);
        v["suppressions"] = json!([{
            "kind": "external",
            "status": "accepted",
            "justification": w.waiver.reason,
            "properties": {
                "owner": w.waiver.owner,
                "expires": w.waiver.expires,
                "waiver": format!("{}:{}", w.waiver.file, w.waiver.line),
            },
        }]);
        results.push(v);
        i += 1;
    }

    let mut doc = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "fabric-audit",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "rules": null,
            }},
            "results": null,
            "properties": { "headline": r.headline() },
        }],
    });
    // Moved in, not interpolated: `json!` would copy them (issue 19: the copy of the results
    // was the peak of a report of many findings).
    doc["runs"][0]["tool"]["driver"]["rules"] = Value::Array(rules);
    doc["runs"][0]["results"] = Value::Array(results);
    serde_json::to_string_pretty(&doc).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}")) + "\n"
}

fn result(r: &Review, f: &Finding, rule_index: Option<usize>, fingerprint: &str) -> Value {
    let what = match &f.interface {
        Some(i) => format!("{} {i}", f.device),
        None => f.device.clone(),
    };
    let mut logical = vec![json!({ "name": f.device, "kind": "device" })];
    if let Some(i) = &f.interface {
        logical.push(json!({
            "name": i,
            "fullyQualifiedName": format!("{}:{i}", f.device),
            "kind": "interface",
        }));
    }
    let mut location = json!({ "logicalLocations": logical });
    // Every result has a physical location (code scanning rejects one without): the line the
    // finding cites, else its device's configuration file.
    if let Some((path, line)) = r.location(f) {
        let mut physical = json!({ "artifactLocation": { "uri": uri(&path) } });
        if let Some(line) = line {
            physical["region"] = json!({ "startLine": line });
        }
        location["physicalLocation"] = physical;
    }
    let mut v = json!({
        "ruleId": f.rule,
        "level": level(f.severity),
        "message": { "text": format!("{what}: {}", f.message) },
        "locations": [location],
        "partialFingerprints": { FINGERPRINT: fingerprint },
    });
    if let Some(i) = rule_index {
        v["ruleIndex"] = json!(i);
    }
    v
}

/// One fingerprint per finding: a hash of its identity; where several findings share one, the
/// message (positions aside) tells them apart, as the diff does.
fn fingerprints(fs: &[&Finding]) -> Vec<String> {
    let ident = |f: &Finding| {
        let peer = f
            .peer
            .as_ref()
            .map(|p| format!("{}:{}", p.device, p.interface))
            .unwrap_or_default();
        format!(
            "{}\u{0}{}\u{0}{}\u{0}{peer}",
            f.rule,
            f.device,
            f.interface.as_deref().unwrap_or("")
        )
    };
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for f in fs {
        *seen.entry(ident(f)).or_default() += 1;
    }
    fs.iter()
        .map(|f| {
            let mut id = ident(f);
            if seen.get(&id).copied().unwrap_or(0) > 1 {
                id.push('\u{0}');
                id.push_str(&crate::finding::message_shape(&f.message));
            }
            data_encoding::HEXLOWER.encode(&sha1::Sha1::digest(id.as_bytes()))
        })
        .collect()
}

/// A relative path as a URI reference: everything but unreserved characters and `/`
/// percent-encoded; an absolute path (a snapshot outside the working directory) as a `file:`
/// URI.
fn uri(path: &str) -> String {
    let mut out = String::new();
    if path.starts_with('/') {
        out.push_str("file://");
    }
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
