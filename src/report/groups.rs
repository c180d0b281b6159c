//! Root-cause groups: findings that one change fixes are one group with its members, so a
//! missing `service-profile` on one port is one row, not seven, and a wrong `match dscp` on a
//! spine is one row, not eight. Three relations join findings of one device (and only of one
//! device: two switches never share a line of config):
//!
//! - `fix`: the same remediation snippet ([`crate::remediate`] already merges the findings one
//!   snippet fixes into one step);
//! - `line`: the same source line past the first (the line that defines the faulty value; the
//!   first line of a file is skipped, as a file read whole, a JSON document, points there);
//! - `same`: the same rule saying the same thing, but for the interface name, on several
//!   interfaces (one shared profile or map entry, or one setting repeated).
//!
//! "Could not decide" findings are coverage, not faults: they are left out of the groups.
//! Groups come worst first: severity, fabric-wide before per device, then rule, device and
//! interface of the group's lead (its worst member).

use crate::finding::{FABRIC, Finding, Severity};
use crate::text::natural_cmp;
use serde::Serialize;
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// What joined a group's members.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CauseKind {
    /// One remediation snippet fixes every member.
    Fix,
    /// Every member is traced to one config line.
    Line,
    /// One rule finds the same thing on several interfaces of one device.
    Same,
    /// A finding of its own.
    Single,
}

impl CauseKind {
    pub fn describe(self) -> &'static str {
        match self {
            CauseKind::Fix => "one fix",
            CauseKind::Line => "one config line",
            CauseKind::Same => "same setting",
            CauseKind::Single => "",
        }
    }
}

/// Findings that share a cause.
#[derive(Debug, Clone, Serialize)]
pub struct Group {
    /// 1-based, in report order.
    pub id: usize,
    pub severity: Severity,
    pub cause: CauseKind,
    /// Shared with the findings (issue 19: a group per port held copies).
    pub device: std::sync::Arc<str>,
    /// The members' rules, each once, in rule order.
    pub rules: Vec<std::sync::Arc<str>>,
    /// Indexes into the report's `findings` array, the lead first.
    pub members: Vec<usize>,
}

impl Group {
    pub fn lead<'a>(&self, findings: &'a [Finding]) -> &'a Finding {
        &findings[self.members[0]]
    }
}

/// Disjoint sets over finding indexes, each parent a `u32` (issue 19: see [`group`]).
struct Sets(Vec<u32>);

impl Sets {
    fn find(&mut self, x: usize) -> usize {
        let mut r = x;
        while self.0[r] as usize != r {
            r = self.0[r] as usize;
        }
        self.0[x] = r as u32;
        r
    }
    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.0[ra.max(rb)] = ra.min(rb) as u32;
        }
    }
}

/// The message with the finding's interface name taken out, so the same fault on two
/// interfaces reads the same.
fn shape(f: &Finding) -> Option<std::borrow::Cow<'_, str>> {
    let i = f.interface.as_deref().filter(|i| !i.is_empty())?;
    Some(f.message().without(i))
}

/// The relations a finding can be joined by: the ones of [`CauseKind`] it has a key for.
fn relations(f: &Finding) -> impl Iterator<Item = CauseKind> + '_ {
    [CauseKind::Fix, CauseKind::Line, CauseKind::Same]
        .into_iter()
        .filter(move |k| match k {
            CauseKind::Fix => f.remediation.is_some(),
            CauseKind::Line => line_of(f).is_some(),
            _ => f.interface.as_deref().is_some_and(|i| !i.is_empty()),
        })
}

/// The source line that joins findings: past the first line of its file.
fn line_of(f: &Finding) -> Option<&crate::finding::Location> {
    f.source.as_ref().filter(|s| s.line > 1)
}

/// A hash of `f`'s key under relation `kind` (its device, and the snippet, the line or the
/// rule and message shape), to find the first finding with the same key without holding a
/// copy of every key (issue 19: the copies were a sixth of the report's peak, 15 of 88 MB,
/// on a config whose every port draws six findings).
fn key_hash(kind: CauseKind, f: &Finding) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    kind.hash(&mut h);
    f.device.hash(&mut h);
    match kind {
        CauseKind::Fix => {
            if let Some(r) = &f.remediation {
                r.platform.hash(&mut h);
                r.snippet.hash(&mut h);
            }
        }
        CauseKind::Line => {
            if let Some(s) = line_of(f) {
                s.file.hash(&mut h);
                s.line.hash(&mut h);
            }
        }
        _ => {
            f.rule().hash(&mut h);
            shape(f).hash(&mut h);
        }
    }
    h.finish()
}

/// Whether `a` and `b` have the same key under relation `kind`.
fn same_key(kind: CauseKind, a: &Finding, b: &Finding) -> bool {
    a.device == b.device
        && match kind {
            CauseKind::Fix => match (&a.remediation, &b.remediation) {
                (Some(x), Some(y)) => x.platform == y.platform && x.snippet == y.snippet,
                _ => false,
            },
            CauseKind::Line => match (line_of(a), line_of(b)) {
                (Some(x), Some(y)) => x.file == y.file && x.line == y.line,
                _ => false,
            },
            _ => {
                a.rule() == b.rule() && matches!((shape(a), shape(b)), (Some(x), Some(y)) if x == y)
            }
        }
}

/// The first finding met under each key, found by the key's hash; a key whose hash another
/// key already holds is kept apart in full (a hash collision joins nothing).
///
/// The map is keyed by the hash alone (it hashes the relation too) and holds the finding as a
/// `u32` with its relation: 16 bytes an entry, not 24 (issue 19: see [`group`]).
#[derive(Default)]
struct Firsts {
    by_hash: std::collections::HashMap<u64, (u32, CauseKind)>,
    collided: Vec<(CauseKind, usize)>,
}

impl Firsts {
    /// The first finding with `findings[i]`'s key under `kind`, or `None` when `i` is the
    /// first (and now recorded as such).
    fn first(&mut self, findings: &[Finding], kind: CauseKind, i: usize) -> Option<usize> {
        let f = &findings[i];
        let (j, k) = *self
            .by_hash
            .entry(key_hash(kind, f))
            .or_insert((i as u32, kind));
        let j = j as usize;
        if j == i {
            return None;
        }
        if k == kind && same_key(kind, &findings[j], f) {
            return Some(j);
        }
        let found = self
            .collided
            .iter()
            .find(|&&(k, c)| k == kind && same_key(kind, &findings[c], f))
            .map(|&(_, c)| c);
        if found.is_none() {
            self.collided.push((kind, i));
        }
        found
    }
}

/// Order of two findings in a report read worst first.
pub fn worst_first(a: &Finding, b: &Finding) -> Ordering {
    b.severity()
        .cmp(&a.severity())
        .then_with(|| (&*b.device == FABRIC).cmp(&(&*a.device == FABRIC)))
        .then_with(|| a.rule().cmp(b.rule()))
        .then_with(|| natural_cmp(&a.device, &b.device))
        .then_with(|| {
            natural_cmp(
                a.interface.as_deref().unwrap_or(""),
                b.interface.as_deref().unwrap_or(""),
            )
        })
        .then_with(|| a.message().cmp(&b.message()))
}

/// Indexes of `findings`, worst first (findings that compare equal in the order they come).
///
/// As `u32`s, sorted in place with the index as the last key (the order a stable sort gives,
/// without its buffer of half the list): the indexes as `usize`s and the stable sort's
/// buffer were the concise report's 1.6 MB on eos-lossless-stanzas (97,600 findings, issue
/// 19), now 0.46 MB (and 0.4 MB less in [`group`], 2.6 → 2.45 MB).
pub fn order(findings: &[Finding]) -> Vec<u32> {
    let mut idx: Vec<u32> = (0..findings.len() as u32).collect();
    idx.sort_unstable_by(|&a, &b| {
        worst_first(&findings[a as usize], &findings[b as usize]).then(a.cmp(&b))
    });
    idx
}

/// Group the decided findings by shared cause; groups worst first, members worst first.
///
/// Lean on a report of many findings, as every report but the model calls it (the table,
/// JSON and Markdown once each): the findings' order, the sets and the first finding of each
/// key held as `u32`s, each group's members counted before they are listed (a list made to
/// its length), and a group's rules gathered each once (not one per member, then deduplicated
/// in place, its length left reserved). Issue 19: on eos-lossless-stanzas (1 MiB, 97,600
/// findings in two groups) grouping took 5.7 MB at its peak and its groups kept 2.6 MB,
/// the whole of the table, JSON and Markdown reports' peaks; now 2.6 MB at its peak, the
/// groups 0.8 MB (their members).
pub fn group(findings: &[Finding]) -> Vec<Group> {
    let mut decided = order(findings);
    decided.retain(|&i| !findings[i as usize].undecided());
    let mut sets = Sets((0..findings.len() as u32).collect());
    let mut firsts = Firsts::default();
    let mut joined_by: BTreeMap<usize, CauseKind> = BTreeMap::new();
    for &i in &decided {
        let i = i as usize;
        for kind in relations(&findings[i]) {
            if let Some(j) = firsts.first(findings, kind, i)
                && sets.find(i) != sets.find(j)
            {
                sets.union(i, j);
                let root = sets.find(i);
                let k = joined_by.get(&root).copied().unwrap_or(kind);
                joined_by.insert(root, strongest(k, kind));
            }
        }
    }
    drop(firsts);
    // Each root's members, counted, then listed in order (worst first).
    let mut sizes: BTreeMap<usize, usize> = BTreeMap::new();
    for &i in &decided {
        *sizes.entry(sets.find(i as usize)).or_default() += 1;
    }
    let mut by_root: BTreeMap<usize, Vec<usize>> = sizes
        .into_iter()
        .map(|(root, n)| (root, Vec::with_capacity(n)))
        .collect();
    for &i in &decided {
        if let Some(m) = by_root.get_mut(&sets.find(i as usize)) {
            m.push(i as usize);
        }
    }
    drop(decided);
    drop(sets);
    let mut groups: Vec<Group> = by_root
        .into_iter()
        .map(|(root, members)| {
            let cause = if members.len() == 1 {
                CauseKind::Single
            } else {
                cause_of(findings, &members, joined_by.get(&root).copied())
            };
            let mut rules: Vec<std::sync::Arc<str>> = Vec::new();
            for &m in &members {
                let rule = findings[m].rule();
                if !rules.contains(rule) {
                    rules.push(rule.clone());
                }
            }
            rules.sort();
            Group {
                id: 0,
                severity: findings[members[0]].severity(),
                cause,
                device: findings[members[0]].device.clone(),
                rules,
                members,
            }
        })
        .collect();
    groups.sort_by(|a, b| worst_first(a.lead(findings), b.lead(findings)));
    for (k, g) in groups.iter_mut().enumerate() {
        g.id = k + 1;
    }
    groups
}

/// The relation that best names a group: a shared fix, else a shared line, else the same
/// finding repeated (the order of [`CauseKind`]).
fn strongest(a: CauseKind, b: CauseKind) -> CauseKind {
    a.min(b)
}

/// A group's cause: the fix when every member carries the same snippet, else the line when
/// every member has it, else what joined them.
fn cause_of(findings: &[Finding], members: &[usize], joined: Option<CauseKind>) -> CauseKind {
    let lead = &findings[members[0]];
    let snippet = |f: &Finding| f.remediation.as_ref().map(|r| r.snippet.clone());
    let line = |f: &Finding| line_of(f).map(|s| (s.file, s.line));
    let all_same = |same: &dyn Fn(&Finding) -> bool| members.iter().all(|&m| same(&findings[m]));
    if snippet(lead).is_some() && all_same(&|f| snippet(f) == snippet(lead)) {
        CauseKind::Fix
    } else if line(lead).is_some() && all_same(&|f| line(f) == line(lead)) {
        CauseKind::Line
    } else {
        joined.unwrap_or(CauseKind::Same)
    }
}

/// "DSCP002 ×4, PFC008 ×4": the rules of a group with their counts.
pub fn rule_counts(g: &Group, findings: &[Finding]) -> Vec<(String, usize)> {
    let mut n: BTreeMap<&str, usize> = BTreeMap::new();
    for &m in &g.members {
        *n.entry(findings[m].rule()).or_default() += 1;
    }
    n.into_iter().map(|(r, c)| (r.to_string(), c)).collect()
}

/// The interfaces of a group's members, each once, in member order.
pub fn interfaces(g: &Group, findings: &[Finding]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for &m in &g.members {
        if let Some(i) = findings[m].interface.as_deref()
            && !out.iter().any(|o| o == i)
        {
            out.push(i.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::{Location, Remediation};

    fn f(rule: &str, sev: Severity, dev: &str, iface: &str, line: u32, fix: &str) -> Finding {
        Finding::from(crate::finding::Parts {
            rule: rule.into(),
            severity: sev,
            title: "".into(),
            message: format!("{rule} is wrong on {iface}"),
            device: dev.into(),
            interface: Some(iface.into()).filter(|i: &std::sync::Arc<str>| !i.is_empty()),
            peer: None,
            source: Some(Location::new(&format!("configs/{dev}.cfg"), line)),
            evidence: Default::default(),
            remediation: (!fix.is_empty()).then(|| {
                Box::new(Remediation {
                    platform: "nxos".into(),
                    snippet: fix.into(),
                    safety: "safe",
                    device: None,
                })
            }),
        })
    }

    #[test]
    fn one_fix_joins_rules_and_interfaces_of_one_device_only() {
        let fs = vec![
            f(
                "DSCP002",
                Severity::Error,
                "spine1",
                "Ethernet1/1",
                67,
                "match dscp 26",
            ),
            f(
                "PFC008",
                Severity::Error,
                "spine1",
                "Ethernet1/2",
                67,
                "match dscp 26",
            ),
            f(
                "PFC008",
                Severity::Error,
                "spine2",
                "Ethernet1/2",
                67,
                "match dscp 26",
            ),
        ];
        let g = group(&fs);
        assert_eq!(g.len(), 2, "{g:?}");
        assert_eq!(g[0].members, vec![0, 1]);
        assert_eq!(g[0].cause, CauseKind::Fix);
        assert_eq!(
            g[0].rules,
            vec!["DSCP002".into(), "PFC008".into()] as Vec<std::sync::Arc<str>>
        );
        assert_eq!(g[1].cause, CauseKind::Single);
    }

    #[test]
    fn one_line_joins_findings_without_a_fix_but_not_on_the_first_line() {
        let fs = vec![
            f(
                "SCHED002",
                Severity::Warning,
                "leaf4",
                "Ethernet1/50",
                91,
                "",
            ),
            f(
                "PFC001",
                Severity::Error,
                "leaf4",
                "Ethernet1/50",
                91,
                "service-profile",
            ),
            f("MTU002", Severity::Error, "gpu1", "eth2", 1, ""),
            f("PFC001", Severity::Error, "gpu1", "eth3", 1, ""),
        ];
        let g = group(&fs);
        // gpu1's two findings on line 1 stay apart; leaf4's share line 91, led by the error.
        assert_eq!(g.len(), 3, "{g:?}");
        assert_eq!(g[0].members, vec![2]);
        assert_eq!(g[1].members, vec![3]);
        assert_eq!(g[2].members, vec![1, 0]);
        assert_eq!(g[2].cause, CauseKind::Line);
        assert_eq!(g[2].severity, Severity::Error);
    }

    #[test]
    fn the_same_message_on_several_interfaces_is_one_group() {
        let mut a = f("ECN008", Severity::Info, "leaf3", "Ethernet1/1", 0, "");
        let mut b = f("ECN008", Severity::Info, "leaf3", "Ethernet1/2", 0, "");
        a.source = None;
        b.source = None;
        let mut c = b.clone();
        c.set_message("ECN008 is other on Ethernet1/3".into());
        c.interface = Some("Ethernet1/3".into());
        let g = group(&[a, b, c]);
        assert_eq!(g.len(), 2, "{g:?}");
        assert_eq!(g[0].cause, CauseKind::Same);
        assert_eq!(g[0].members, vec![0, 1]);
    }

    #[test]
    fn order_is_errors_then_warnings_then_info_fabric_wide_first() {
        let mut fab = f("TOPO001", Severity::Error, FABRIC, "", 0, "");
        fab.source = None;
        let fs = vec![
            f("TOPO002", Severity::Info, "a", "eth0", 1, ""),
            f("ECN002", Severity::Warning, "a", "eth1", 1, ""),
            f("PFC001", Severity::Error, "b", "eth1", 1, ""),
            fab,
        ];
        assert_eq!(order(&fs), vec![3, 2, 1, 0]);
    }
}
