//! `fabric-audit diff BEFORE AFTER`: the findings a change introduces, fixes and leaves.

use crate::finding::{Finding, message_shape};
use serde::Serialize;
use std::collections::BTreeMap;

/// What identifies a finding across two audits: never its source line.
type Key = (String, String, String, String);

fn key(f: &Finding) -> Key {
    (
        f.rule().to_string(),
        f.device.to_string(),
        f.interface.as_deref().unwrap_or_default().to_string(),
        f.peer
            .as_ref()
            .map(|p| format!("{}:{}", p.device, p.interface))
            .unwrap_or_default(),
    )
}

#[derive(Debug, Default, Serialize)]
pub struct Diff {
    pub new: Vec<Finding>,
    pub fixed: Vec<Finding>,
    pub unchanged: Vec<Finding>,
}

/// Class every finding of `after` as new or unchanged, and every finding of `before` that
/// `after` no longer has as fixed. "Could not decide" findings take part like the others.
pub fn diff(before: &[Finding], after: &[Finding]) -> Diff {
    let mut groups: BTreeMap<Key, (Vec<&Finding>, Vec<&Finding>)> = BTreeMap::new();
    for f in before {
        groups.entry(key(f)).or_default().0.push(f);
    }
    for f in after {
        groups.entry(key(f)).or_default().1.push(f);
    }
    let mut d = Diff::default();
    for (_, (mut b, mut a)) in groups {
        if b.len() == 1 && a.len() == 1 {
            // One finding of the rule on the object before and after: the same finding, even
            // if a figure in its message changed.
            d.unchanged.push(a[0].clone());
            continue;
        }
        // Several: pair those whose messages agree (positions aside).
        a.retain(|f| {
            match b.iter().position(|x| {
                message_shape(&x.message().text()) == message_shape(&f.message().text())
            }) {
                Some(i) => {
                    b.remove(i);
                    d.unchanged.push((*f).clone());
                    false
                }
                None => true,
            }
        });
        d.new.extend(a.into_iter().cloned());
        d.fixed.extend(b.into_iter().cloned());
    }
    for v in [&mut d.new, &mut d.fixed, &mut d.unchanged] {
        crate::finding::sort(v);
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Severity;

    fn f(rule: &str, dev: &str, iface: &str, msg: &str, line: u32) -> Finding {
        Finding::from(crate::finding::Parts {
            rule: rule.into(),
            severity: Severity::Error,
            title: "".into(),
            message: msg.into(),
            device: dev.into(),
            interface: Some(iface.into()),
            peer: None,
            source: Some(crate::finding::Location::new("configs/x.cfg", line)),
            evidence: Default::default(),
            remediation: None,
        })
    }

    #[test]
    fn matched_by_identity_not_line() {
        let before = [
            f("PFC001", "leaf1", "Ethernet1/1", "PFC off", 10),
            f("ECN001", "leaf1", "Ethernet1/2", "no ECN", 20),
            f(
                "DSCP002",
                "leaf1",
                "Ethernet1/3",
                "DSCP 26 to TC 4 (x.cfg:30)",
                30,
            ),
            f(
                "DSCP002",
                "leaf1",
                "Ethernet1/3",
                "DSCP 46 to TC 1 (x.cfg:31)",
                31,
            ),
        ];
        let after = [
            // The same finding, its config line moved.
            f("PFC001", "leaf1", "Ethernet1/1", "PFC off", 14),
            f("MTU002", "gpu1", "eth2", "MTU 1500", 1),
            f(
                "DSCP002",
                "leaf1",
                "Ethernet1/3",
                "DSCP 26 to TC 4 (x.cfg:35)",
                35,
            ),
        ];
        let d = diff(&before, &after);
        let ids = |v: &[Finding]| v.iter().map(|f| f.rule().to_string()).collect::<Vec<_>>();
        assert_eq!(ids(&d.new), ["MTU002"]);
        assert_eq!(ids(&d.fixed), ["ECN001", "DSCP002"]);
        assert_eq!(d.fixed[1].message(), "DSCP 46 to TC 1 (x.cfg:31)");
        assert_eq!(ids(&d.unchanged), ["PFC001", "DSCP002"]);
    }
}
