//! A finding: what a rule (or the parser, or the topology builder) says about one object.

pub mod evidence;
pub mod message;

use crate::model::Endpoint;
pub use evidence::Evidence;
pub use message::Message;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Per rule: how many objects it checked and passed, and on which platforms (the rule engine
/// counts them; JUnit shows a passing case per rule).
#[derive(Debug, Default, Clone)]
pub struct Passes {
    pub count: BTreeMap<String, usize>,
    pub platforms: BTreeMap<String, BTreeSet<String>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
    pub fn parse(s: &str) -> Option<Severity> {
        match s {
            "info" => Some(Severity::Info),
            "warning" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
}

/// How many of `findings` are of each severity, `[error, warning, info]`, counted as they are
/// read (a copy of the findings to count them was the peak of a report of many: issue 19).
pub fn count_by_severity<'a>(findings: impl IntoIterator<Item = &'a Finding>) -> [usize; 3] {
    let mut n = [0usize; 3];
    for f in findings {
        n[match f.severity() {
            Severity::Error => 0,
            Severity::Warning => 1,
            Severity::Info => 2,
        }] += 1;
    }
    n
}

/// Where a finding's fact was read: a file of the snapshot and a line of it (0: the file as a
/// whole). The file is the model's interned name (`model::file_name`), four bytes, not a copy
/// of the name per finding (issue 19: a port's findings each held the name of the file it was
/// read from).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Location {
    pub file: crate::model::file_name::FileName,
    pub line: u32,
}

impl Location {
    pub fn new(file: &str, line: u32) -> Location {
        Location {
            file: crate::model::file_name::FileName::intern(file),
            line,
        }
    }
}

impl From<&crate::model::Src> for Location {
    fn from(s: &crate::model::Src) -> Location {
        Location {
            file: s.file,
            line: s.line,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Remediation {
    /// Shared with the plan's device and step (issue 19: each finding a step fixes held its
    /// own copy of the snippet, the platform and the safety word).
    pub platform: Arc<str>,
    pub snippet: Arc<str>,
    /// `safe` or `needs-review`.
    pub safety: &'static str,
    /// The device the snippet is applied on, when it is not the finding's own (a link fixed at
    /// its other end).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
}

/// Name used as `device` for findings about the fabric as a whole.
pub const FABRIC: &str = "(fabric)";

/// What a finding says, apart from the object it says it of: its rule, severity, title,
/// message (as its [`message::Shape`]) and evidence. Shared by every finding that says the same
/// of another port ([`Kinds`]): a rule failing on 16,000 ports in one way is one `Kind`.
///
/// Why: each finding held these itself, 136 bytes a finding, and on 1 MiB of EOS ports that
/// each draw six findings the 97,600 findings were 13.3 MB of a 39 MB peak (issue 19: peak
/// memory within 20 times the input). A finding is now 64 bytes: this kind, shared, and its
/// object (device, interface, peer, source) and fix.
#[derive(Debug, Clone)]
struct Kind {
    rule: Arc<str>,
    severity: Severity,
    title: Arc<str>,
    message: message::Shape,
    evidence: Evidence,
}

/// A finding (see [`Kind`] for how it is held). Made from its [`Parts`]; read with
/// [`Finding::rule`], [`Finding::message`] and the like; written (JSON) with the fields it
/// always had, in the same order.
#[derive(Clone)]
pub struct Finding {
    kind: Arc<Kind>,
    /// Shared by the device's findings (and an interface's), not a copy per finding (issue 19).
    pub device: Arc<str>,
    pub interface: Option<Arc<str>>,
    /// Boxed, as `remediation`: most findings have neither, and a finding is held for every
    /// object a rule fails on (issue 19: 328 bytes inline per finding, 96 of them an absent
    /// remediation).
    pub peer: Option<Box<Endpoint>>,
    pub source: Option<Location>,
    pub remediation: Option<Box<Remediation>>,
}

/// What a finding is made of ([`Finding::from`], or [`Kinds::finding`] to share its kind).
#[derive(Debug, Clone)]
pub struct Parts {
    pub rule: Arc<str>,
    pub severity: Severity,
    pub title: Arc<str>,
    pub message: String,
    pub device: Arc<str>,
    pub interface: Option<Arc<str>>,
    pub peer: Option<Box<Endpoint>>,
    pub source: Option<Location>,
    pub evidence: Evidence,
    pub remediation: Option<Box<Remediation>>,
}

impl From<Parts> for Finding {
    /// A finding with a kind of its own (shared with no other).
    fn from(p: Parts) -> Finding {
        let message = message::Shape::of(p.message, p.interface.as_deref());
        Finding {
            kind: Arc::new(Kind {
                rule: p.rule,
                severity: p.severity,
                title: p.title,
                message,
                evidence: p.evidence,
            }),
            device: p.device,
            interface: p.interface,
            peer: p.peer,
            source: p.source,
            remediation: p.remediation,
        }
    }
}

/// The kinds met so far, to give findings that say the same thing one shared [`Kind`] (one
/// per evaluation of a device): equal message texts are one copy, equal evidence one copy
/// ([`evidence::Shared`], equal to the bit), then equal kinds one.
#[derive(Default)]
pub struct Kinds {
    texts: std::collections::HashSet<Arc<str>>,
    evidence: evidence::Shared,
    kinds: std::collections::HashSet<Interned>,
}

/// A kind as [`Kinds`] holds it: hashed and compared by its parts, its evidence by copy.
struct Interned(Arc<Kind>);

impl std::hash::Hash for Interned {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        let k = &*self.0;
        (&k.rule, k.severity, &k.title, &k.message).hash(h);
        k.evidence.copy_address().hash(h);
    }
}

impl PartialEq for Interned {
    fn eq(&self, o: &Interned) -> bool {
        let (a, b) = (&*self.0, &*o.0);
        a.rule == b.rule
            && a.severity == b.severity
            && a.title == b.title
            && a.message == b.message
            && a.evidence.same_copy(&b.evidence)
    }
}

impl Eq for Interned {}

impl Kinds {
    /// The finding of `p`, its kind shared with the equal ones met before.
    pub fn finding(&mut self, p: Parts) -> Finding {
        let message = message::Shape::of(p.message, p.interface.as_deref());
        let message = message.with_stored(crate::model::sharing::one_copy(
            &mut self.texts,
            &**message.stored(),
        ));
        let kind = Interned(Arc::new(Kind {
            rule: p.rule,
            severity: p.severity,
            title: p.title,
            message,
            evidence: p.evidence.shared(&mut self.evidence),
        }));
        let kind = match self.kinds.get(&kind) {
            Some(k) => k.0.clone(),
            None => {
                let k = kind.0.clone();
                self.kinds.insert(kind);
                k
            }
        };
        Finding {
            kind,
            device: p.device,
            interface: p.interface,
            peer: p.peer,
            source: p.source,
            remediation: p.remediation,
        }
    }
}

impl Finding {
    pub fn rule(&self) -> &Arc<str> {
        &self.kind.rule
    }

    pub fn severity(&self) -> Severity {
        self.kind.severity
    }

    pub fn title(&self) -> &Arc<str> {
        &self.kind.title
    }

    /// The message, its port's name put back (see [`Message`]).
    pub fn message(&self) -> Message<'_> {
        Message::new(&self.kind.message, self.interface.as_deref())
    }

    pub fn evidence(&self) -> &Evidence {
        &self.kind.evidence
    }

    /// The evidence, to change: this finding's own copy of its kind first when it is shared.
    pub fn evidence_mut(&mut self) -> &mut Evidence {
        &mut Arc::make_mut(&mut self.kind).evidence
    }

    /// Say `text` (as written: not shaped on the port's name).
    pub fn set_message(&mut self, text: String) {
        Arc::make_mut(&mut self.kind).message = message::Shape::Whole(text.into());
    }

    pub fn set_severity(&mut self, severity: Severity) {
        Arc::make_mut(&mut self.kind).severity = severity;
    }

    /// True for "could not decide" findings (a rule's input was unknown).
    pub fn undecided(&self) -> bool {
        self.evidence()
            .get("undecided")
            .and_then(|v| v.as_bool())
            .unwrap_or(false)
    }
}

impl PartialEq for Finding {
    /// Equal when every field as written is equal (however the message is held).
    fn eq(&self, o: &Finding) -> bool {
        self.rule() == o.rule()
            && self.severity() == o.severity()
            && self.title() == o.title()
            && self.message() == o.message()
            && self.device == o.device
            && self.interface == o.interface
            && self.peer == o.peer
            && self.source == o.source
            && self.evidence() == o.evidence()
            && self.remediation == o.remediation
    }
}

impl std::fmt::Debug for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Finding")
            .field("rule", self.rule())
            .field("severity", &self.severity())
            .field("title", self.title())
            .field("message", &self.message())
            .field("device", &self.device)
            .field("interface", &self.interface)
            .field("peer", &self.peer)
            .field("source", &self.source)
            .field("evidence", self.evidence())
            .field("remediation", &self.remediation)
            .finish()
    }
}

impl Serialize for Finding {
    /// The fields in the order the finding always wrote them; absent ones left out.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let n = 6
            + usize::from(self.interface.is_some())
            + usize::from(self.peer.is_some())
            + usize::from(self.source.is_some())
            + usize::from(self.remediation.is_some());
        let mut st = s.serialize_struct("Finding", n)?;
        st.serialize_field("rule", &**self.rule())?;
        st.serialize_field("severity", &self.severity())?;
        st.serialize_field("title", &**self.title())?;
        st.serialize_field("message", &self.message())?;
        st.serialize_field("device", &*self.device)?;
        match &self.interface {
            Some(i) => st.serialize_field("interface", &**i)?,
            None => st.skip_field("interface")?,
        }
        match &self.peer {
            Some(p) => st.serialize_field("peer", p)?,
            None => st.skip_field("peer")?,
        }
        match &self.source {
            Some(l) => st.serialize_field("source", l)?,
            None => st.skip_field("source")?,
        }
        st.serialize_field("evidence", self.evidence())?;
        match &self.remediation {
            Some(r) => st.serialize_field("remediation", r)?,
            None => st.skip_field("remediation")?,
        }
        st.end()
    }
}

/// Sort findings by device, interface, rule, then message (deterministic output), stably.
///
/// The positions are sorted, then the findings moved into their places: a stable sort of the
/// findings themselves takes scratch room for all of them (200 bytes each) while it runs, a
/// sixth of the audit's peak on a config whose ranges name hundreds of ports with three
/// findings each (issue 19: memory within 20 times the input). The order is the one sorting
/// the findings stably would give.
pub fn sort(findings: &mut [Finding]) {
    let mut order: Vec<usize> = (0..findings.len()).collect();
    order.sort_by(|&i, &j| report_order(&findings[i], &findings[j]));
    permute(findings, order);
}

/// The order of [`sort`]: device, interface, rule, then message.
fn report_order(a: &Finding, b: &Finding) -> std::cmp::Ordering {
    crate::text::natural_cmp(&a.device, &b.device)
        .then_with(|| {
            crate::text::natural_cmp(
                a.interface.as_deref().unwrap_or(""),
                b.interface.as_deref().unwrap_or(""),
            )
        })
        .then_with(|| a.rule().cmp(b.rule()))
        .then_with(|| a.message().cmp(&b.message()))
}

/// Rearrange `v` so that `v[k]` is what was at `order[k]` (`order` a permutation of the
/// positions), in place: each cycle of the permutation is followed once, by swaps.
fn permute<T>(v: &mut [T], mut order: Vec<usize>) {
    for start in 0..v.len() {
        let mut k = start;
        // A position already in place (or placed by an earlier cycle) points at itself.
        while order[k] != k {
            let from = order[k];
            order[k] = k;
            if from == start {
                break;
            }
            v.swap(k, from);
            k = from;
        }
    }
}

/// The message with `file:line` positions and bare numbers after a colon removed, to tell
/// apart several findings of one rule on one object when the configs moved lines.
pub fn message_shape(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len());
    let mut chars = msg.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ':' && chars.peek().is_some_and(|d| d.is_ascii_digit()) {
            while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                chars.next();
            }
            continue;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(device: &str, iface: Option<&str>, rule: &str, message: &str, line: u32) -> Finding {
        Finding::from(crate::finding::Parts {
            rule: rule.into(),
            severity: Severity::Error,
            title: "".into(),
            message: message.into(),
            device: device.into(),
            interface: iface.map(Arc::from),
            peer: None,
            source: Some(Location::new("configs/x.cfg", line)),
            evidence: Evidence::new(),
            remediation: None,
        })
    }

    #[test]
    fn a_finding_is_its_shared_kind_and_its_object_in_64_bytes() {
        assert!(
            std::mem::size_of::<Finding>() <= 64,
            "{}",
            std::mem::size_of::<Finding>()
        );
        let mut kinds = Kinds::default();
        let parts = |iface: &str, q: i64| Parts {
            rule: "PFC001".into(),
            severity: Severity::Error,
            title: "t".into(),
            message: format!("PFC off on {iface}"),
            device: "leaf1".into(),
            interface: Some(iface.into()),
            peer: None,
            source: None,
            evidence: {
                let mut e = Evidence::new();
                e.insert("q", serde_json::json!(q));
                e
            },
            remediation: None,
        };
        let a = kinds.finding(parts("Ethernet1", 3));
        let b = kinds.finding(parts("Ethernet2", 3));
        let c = kinds.finding(parts("Ethernet3", 4));
        assert!(
            Arc::ptr_eq(&a.kind, &b.kind),
            "the same words on two ports: one kind"
        );
        assert!(
            !Arc::ptr_eq(&a.kind, &c.kind),
            "other evidence: another kind"
        );
        assert_eq!(b.message().text(), "PFC off on Ethernet2");
        assert_eq!(a, Finding::from(parts("Ethernet1", 3)));
        assert_ne!(a, b);
        // A change to one finding of a shared kind leaves the others as they were.
        let mut d = b.clone();
        d.set_severity(Severity::Info);
        d.evidence_mut().insert("q", serde_json::json!(5));
        d.set_message("other".into());
        assert_eq!(
            (b.severity(), b.message().text()),
            (Severity::Error, "PFC off on Ethernet2".into())
        );
        assert_eq!(b.evidence().get("q"), a.evidence().get("q"));
        assert_eq!(
            (d.severity(), d.message().text()),
            (Severity::Info, "other".into())
        );
        let json = serde_json::to_string(&a).unwrap_or_default();
        assert_eq!(
            json,
            r#"{"rule":"PFC001","severity":"error","title":"t","message":"PFC off on Ethernet1","device":"leaf1","interface":"Ethernet1","evidence":{"q":3}}"#
        );
    }

    #[test]
    fn permute_puts_each_item_where_the_order_says() {
        // Every permutation of five positions (cycles of every length, fixed points).
        let mut orders: Vec<Vec<usize>> = vec![vec![]];
        for _ in 0..5 {
            let mut longer = Vec::new();
            for o in &orders {
                for k in (0..5usize).filter(|k| !o.contains(k)) {
                    let mut o = o.clone();
                    o.push(k);
                    longer.push(o);
                }
            }
            orders = longer;
        }
        assert_eq!(orders.len(), 120);
        for order in orders {
            let mut v = vec!['a', 'b', 'c', 'd', 'e'];
            let want: Vec<char> = order.iter().map(|&k| v[k]).collect();
            permute(&mut v, order.clone());
            assert_eq!(v, want, "{order:?}");
        }
    }

    #[test]
    fn sort_orders_as_a_stable_sort_of_the_findings_would() {
        // Ties on every sort key (device, interface, rule, message) keep their input order,
        // told apart here by their line.
        let input = vec![
            f("leaf10", Some("eth2"), "PFC001", "b", 1),
            f("leaf2", None, "TOPO001", "a", 2),
            f("leaf10", Some("eth2"), "PFC001", "b", 3),
            f("leaf2", Some("eth10"), "ECN001", "a", 4),
            f("leaf2", Some("eth9"), "ECN001", "a", 5),
            f("leaf10", Some("eth2"), "PFC001", "a", 6),
            f("leaf2", None, "TOPO001", "a", 7),
            f("leaf10", Some("eth2"), "DSCP001", "z", 8),
        ];
        let mut want = input.clone();
        want.sort_by(report_order);
        let mut got = input;
        sort(&mut got);
        let lines = |v: &[Finding]| -> Vec<u32> {
            v.iter()
                .map(|f| f.source.as_ref().map_or(0, |s| s.line))
                .collect()
        };
        assert_eq!(lines(&got), lines(&want));
        assert_eq!(lines(&got), vec![2, 7, 5, 4, 8, 6, 1, 3]);
    }
}
