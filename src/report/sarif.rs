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
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
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
    let mut buf = Vec::new();
    match write(r, &mut buf) {
        Ok(()) => String::from_utf8_lossy(&buf).into_owned(),
        Err(e) => format!("{{\"error\": \"{e}\"}}\n"),
    }
}

/// [`render`] written to `w` as it is serialized: each result is made, written and dropped in
/// turn, so neither the results nor the text are held whole (issue 19: a SARIF report of many
/// findings is many times its input, and was the peak of the reports of one audit).
pub fn write(r: &Review, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    use std::io::Write as _;
    let (rules, index) = rules(r);
    let doc = Doc {
        run: Run {
            headline: r.headline(),
            results: Results {
                r,
                index: &index,
                shared: shared_identity(r),
            },
            tool: json!({ "driver": {
                "name": "fabric-audit",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "rules": Value::Array(rules),
            }}),
        },
    };
    let mut w = std::io::BufWriter::with_capacity(super::spill::Out::SPILL, w);
    serde_json::to_writer_pretty(&mut w, &doc)?;
    w.write_all(b"\n")?;
    w.flush()
}

/// `tool.driver.rules`: the catalog, then any rule a finding names that the catalog lacks;
/// with each rule's index in that list.
fn rules(r: &Review) -> (Vec<Value>, BTreeMap<String, usize>) {
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
    let waived = r.waived.iter().map(|w| &w.finding);
    for f in r.new.iter().chain(&r.unchanged).chain(waived) {
        if !index.contains_key(&**f.rule()) {
            index.insert(f.rule().to_string(), rules.len());
            rules.push(json!({
                "id": f.rule(),
                "name": f.title(),
                "shortDescription": { "text": f.title() },
                "defaultConfiguration": { "level": level(f.severity()) },
            }));
        }
    }
    (rules, index)
}

/// The SARIF document. Its keys are written in the order a `serde_json::Value` object keeps
/// them (sorted), so the text is the one the whole document built as a `Value` would give.
struct Doc<'a> {
    run: Run<'a>,
}

impl Serialize for Doc<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("$schema", SCHEMA)?;
        m.serialize_entry("runs", &[&self.run])?;
        m.serialize_entry("version", "2.1.0")?;
        m.end()
    }
}

/// The one run: keys sorted, as in [`Doc`].
struct Run<'a> {
    headline: String,
    results: Results<'a>,
    tool: Value,
}

impl Serialize for Run<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("properties", &json!({ "headline": self.headline }))?;
        m.serialize_entry("results", &self.results)?;
        m.serialize_entry("tool", &self.tool)?;
        m.end()
    }
}

/// The results, each made as it is written: new, then unchanged, then waived findings.
struct Results<'a> {
    r: &'a Review<'a>,
    index: &'a BTreeMap<String, usize>,
    /// Per result: whether its identity is another's too ([`fingerprint`]).
    shared: Vec<bool>,
}

impl Serialize for Results<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = self.r;
        let mut seq = s.serialize_seq(Some(r.new.len() + r.unchanged.len() + r.waived.len()))?;
        let base = |f: &Finding, i: usize| {
            let fp = fingerprint(f, self.shared.get(i).copied().unwrap_or(false));
            result(r, f, self.index.get(&**f.rule()).copied(), &fp)
        };
        let mut i = 0;
        for f in r.new.iter() {
            let mut v = base(f, i);
            if r.is_change() {
                v["baselineState"] = json!("new");
            }
            seq.serialize_element(&v)?;
            i += 1;
        }
        for f in &r.unchanged {
            let mut v = base(f, i);
            v["baselineState"] = json!("unchanged");
            seq.serialize_element(&v)?;
            i += 1;
        }
        for w in r.waived.iter() {
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
            seq.serialize_element(&v)?;
            i += 1;
        }
        seq.end()
    }
}

fn result(r: &Review, f: &Finding, rule_index: Option<usize>, fingerprint: &str) -> Value {
    let what = match &f.interface {
        Some(i) => format!("{} {i}", f.device),
        None => f.device.to_string(),
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
        "ruleId": f.rule(),
        "level": level(f.severity()),
        "message": { "text": format!("{what}: {}", f.message()) },
        "locations": [location],
        "partialFingerprints": { FINGERPRINT: fingerprint },
    });
    if let Some(i) = rule_index {
        v["ruleIndex"] = json!(i);
    }
    v
}

/// What a fingerprint hashes: rule, device, interface and peer.
fn identity(f: &Finding) -> String {
    let peer = f
        .peer
        .as_ref()
        .map(|p| format!("{}:{}", p.device, p.interface))
        .unwrap_or_default();
    format!(
        "{}\u{0}{}\u{0}{}\u{0}{peer}",
        f.rule(),
        f.device,
        f.interface.as_deref().unwrap_or("")
    )
}

/// A finding's fingerprint: a hash of its identity; where several findings share one
/// (`shared`), the message (positions aside) tells them apart, as the diff does.
fn fingerprint(f: &Finding, shared: bool) -> String {
    let mut id = identity(f);
    if shared {
        id.push('\u{0}');
        id.push_str(&crate::finding::message_shape(&f.message().text()));
    }
    data_encoding::HEXLOWER.encode(&sha1::Sha1::digest(id.as_bytes()))
}

/// Per finding (new, unchanged, then waived), whether another has its identity. Counted by a
/// hash of the identity, then in full only for the identities whose hash is met twice:
/// holding every identity (and every fingerprint) until the results were written was the
/// SARIF report's peak, 16 MB on 97,000 findings (issue 19).
///
/// The hashes are 32 bits, held once, sorted (a hash met twice is two neighbours), and each
/// finding's is made again where it is read: a list of references to the findings, one of
/// their 64-bit hashes and a map counting them were 4.9 MB on eos-lossless-stanzas (97,600
/// findings), now 0.5 MB. A hash shared by two identities only sends them to the full count.
fn shared_identity(r: &Review) -> Vec<bool> {
    use std::collections::HashMap;
    use std::hash::BuildHasher;
    let fs = || {
        r.new
            .iter()
            .chain(&r.unchanged)
            .chain(r.waived.iter().map(|w| &w.finding))
    };
    let hasher = std::collections::hash_map::RandomState::new();
    let hash = |f: &Finding| hasher.hash_one(identity(f)) as u32;
    let mut sorted: Vec<u32> = fs().map(hash).collect();
    sorted.sort_unstable();
    let maybe = |f: &Finding| {
        let h = hash(f);
        sorted.get(sorted.partition_point(|&x| x < h) + 1) == Some(&h)
    };
    let mut exact: HashMap<String, u32> = HashMap::new();
    for f in fs().filter(|f| maybe(f)) {
        *exact.entry(identity(f)).or_default() += 1;
    }
    fs().map(|f| maybe(f) && exact.get(&identity(f)).is_some_and(|&n| n > 1))
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
