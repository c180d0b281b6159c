//! Applicability the engine can decide without evaluating: the top-level `and` terms of a rule's
//! `applies` that name a plain fact of the model (`d.is_switch`, `i.roce`,
//! `i.lldp_neighbor is defined`, `i.planned_peer is defined`).
//!
//! `applies` false, undefined or failing all mean "not applicable", so when one such term is
//! false for an interface the rule cannot apply there, whatever the other terms say. Most
//! interface rules start with `d.is_switch and i.roce`: on a fabric where most ports carry no
//! RoCE (every port of a switch known only from `show interface`), checking those two facts
//! in Rust spares building a template context and evaluating the expression per port and rule.
//! The expression is still evaluated whenever no term rules the rule out, so the outcome is the
//! same as evaluating it; `tests` check that on every rule that has a guard.
//!
//! A device rule's term `d.interfaces | selectattr('roce') | list | length > 0` (some port of
//! the device carries RoCE) is checked the same way, once per device ([`Guard::rules_out_device`]):
//! on a device with no RoCE port the rule is not evaluated, instead of walking every port in
//! the template engine to find none.

use crate::model::{Device, Interface};

/// A fact of the model that a term of `applies` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Term {
    Switch,
    Roce,
    LldpNeighbor,
    PlannedPeer,
    /// Some port of the device carries RoCE (a device-level term).
    AnyRoce,
}

/// `d.interfaces | selectattr('roce') | list | length > 0` without spaces, quotes as `'`, and
/// with or without brackets around the count.
const ANY_ROCE: [&str; 2] = [
    "d.interfaces|selectattr('roce')|list|length>0",
    "(d.interfaces|selectattr('roce')|list|length)>0",
];

impl Term {
    fn parse(text: &str) -> Option<Term> {
        let squeezed: String = text
            .chars()
            .filter(|c| !c.is_whitespace())
            .map(|c| if c == '"' { '\'' } else { c })
            .collect();
        if ANY_ROCE.contains(&squeezed.as_str()) {
            return Some(Term::AnyRoce);
        }
        let words: Vec<&str> = text.split_whitespace().collect();
        match words.as_slice() {
            ["d.is_switch"] => Some(Term::Switch),
            ["i.roce"] => Some(Term::Roce),
            ["i.lldp_neighbor", "is", "defined"] => Some(Term::LldpNeighbor),
            ["i.planned_peer", "is", "defined"] => Some(Term::PlannedPeer),
            _ => None,
        }
    }

    fn holds(self, d: &Device, i: &Interface) -> bool {
        match self {
            Term::Switch => d.is_switch,
            Term::Roce => i.roce,
            Term::LldpNeighbor => i.lldp_neighbor.is_some(),
            Term::PlannedPeer => i.names.planned_peer.is_some(),
            // Per port this would walk the device's ports again: left to the expression.
            Term::AnyRoce => true,
        }
    }

    /// For a device rule: whether the term is known to hold for device `d` (None: the term
    /// reads a port, which a device rule does not have).
    fn holds_for_device(self, d: &Device) -> Option<bool> {
        match self {
            Term::Switch => Some(d.is_switch),
            Term::AnyRoce => Some(d.interfaces.iter().any(|i| i.roce)),
            Term::Roce | Term::LldpNeighbor | Term::PlannedPeer => None,
        }
    }
}

/// The terms of one rule's `applies` that the engine checks first (empty: none).
#[derive(Debug, Clone, Default)]
pub struct Guard(Vec<Term>);

impl Guard {
    /// The guard of an `applies` expression: its top-level `and` terms that are plain facts.
    /// An expression with a top-level `or` or inline `if` has no guard (a false term would not
    /// decide it).
    pub fn of(applies: &str) -> Guard {
        match top_level_and_terms(applies) {
            Some(terms) => Guard(terms.iter().filter_map(|t| Term::parse(t)).collect()),
            None => Guard::default(),
        }
    }

    /// True when a term is false for interface `i` of device `d`: the rule does not apply.
    pub fn rules_out(&self, d: &Device, i: &Interface) -> bool {
        self.0.iter().any(|t| !t.holds(d, i))
    }

    /// True when a device-level term is false for device `d`: the device rule does not apply.
    pub fn rules_out_device(&self, d: &Device) -> bool {
        self.0.iter().any(|t| t.holds_for_device(d) == Some(false))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The terms of `e` joined by `and` outside brackets and string literals, or None when `e` has
/// a top-level `or`, `if` or `else` (or unbalanced brackets or quotes).
fn top_level_and_terms(e: &str) -> Option<Vec<String>> {
    let mut terms = Vec::new();
    let mut cur = String::new();
    let mut word = String::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    // Words are checked when they end; a trailing sentinel space ends the last one.
    for c in e.chars().chain(std::iter::once(' ')) {
        if let Some(q) = quote {
            cur.push(c);
            if c == q {
                quote = None;
            }
            continue;
        }
        let in_word = c.is_alphanumeric() || c == '_' || c == '.';
        if in_word {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            let w = std::mem::take(&mut word);
            if depth == 0 {
                match w.as_str() {
                    "or" | "if" | "else" => return None,
                    "and" => {
                        terms.push(std::mem::take(&mut cur));
                        cur.push(c);
                        continue;
                    }
                    _ => {}
                }
            }
            cur.push_str(&w);
        }
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            '"' | '\'' => quote = Some(c),
            _ => {}
        }
        if depth < 0 {
            return None;
        }
        cur.push(c);
    }
    if depth != 0 || quote.is_some() {
        return None;
    }
    terms.push(cur);
    Some(terms)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(e: &str) -> Option<Vec<String>> {
        top_level_and_terms(e).map(|v| v.iter().map(|t| t.trim().to_string()).collect())
    }

    #[test]
    fn splits_on_top_level_and_only() {
        assert_eq!(
            terms("d.is_switch and i.roce and (a and b or c)"),
            Some(vec![
                "d.is_switch".into(),
                "i.roce".into(),
                "(a and b or c)".into()
            ])
        );
        assert_eq!(terms("i.roce or d.is_switch"), None);
        assert_eq!(terms("i.roce and 'x or y' in z").map(|v| v.len()), Some(2));
        assert_eq!(terms("1 if i.roce else 0"), None);
        assert_eq!(terms("(i.roce"), None);
        assert_eq!(
            terms("i.brand and_not"),
            Some(vec!["i.brand and_not".into()])
        );
    }

    #[test]
    fn guard_reads_only_plain_fact_terms() {
        let g = Guard::of("d.is_switch and i.roce and i.pfc.priorities | length > 0");
        assert_eq!(g.0, vec![Term::Switch, Term::Roce]);
        assert!(Guard::of("not i.roce and d.is_switch").0 == vec![Term::Switch]);
        assert!(Guard::of("i.roce or d.is_switch").is_empty());
        assert!(Guard::of("i.rocex").is_empty());
        let g = Guard::of("i.lldp_neighbor is defined");
        assert_eq!(g.0, vec![Term::LldpNeighbor]);
        let mut d = Device {
            is_switch: true,
            ..Default::default()
        };
        let mut i = Interface::new("Ethernet1/1", "ethernet");
        assert!(g.rules_out(&d, &i));
        i.lldp_neighbor = Some(Default::default());
        assert!(!g.rules_out(&d, &i));
        let g = Guard::of("d.is_switch and i.roce");
        assert!(g.rules_out(&d, &i));
        i.roce = true;
        assert!(!g.rules_out(&d, &i));
        d.is_switch = false;
        assert!(g.rules_out(&d, &i));
    }

    #[test]
    fn a_device_rule_on_a_device_without_roce_ports_is_ruled_out() {
        for applies in [
            "d.platform == 'nxos' and d.interfaces | selectattr('roce') | list | length > 0",
            "d.platform == 'linux' and (d.interfaces | selectattr(\"roce\") | list | length) > 0 and param.x == 'files'",
        ] {
            let g = Guard::of(applies);
            assert_eq!(g.0, vec![Term::AnyRoce], "{applies}");
            let mut d = Device {
                interfaces: vec![Interface::new("Ethernet1/1", "ethernet")],
                ..Default::default()
            };
            assert!(g.rules_out_device(&d));
            // A port-level check never walks the ports: it leaves the term to the expression.
            assert!(!g.rules_out(&d, &d.interfaces[0]));
            d.interfaces[0].roce = true;
            assert!(!g.rules_out_device(&d));
        }
        // Terms about a port say nothing about a device rule.
        assert!(!Guard::of("i.roce").rules_out_device(&Device::default()));
        assert!(Guard::of("d.is_switch").rules_out_device(&Device::default()));
        assert!(Guard::of("d.interfaces | selectattr('roce') | list | length > 1").is_empty());
    }
}
