//! Change review: what a change introduces. Findings of two audits are matched by identity
//! (rule, device, interface, peer; the message only to tell apart several findings of one
//! rule on one object), never by line number, and classed new / fixed / unchanged.
//!
//! The result is a [`Review`] (defined with the report input, `crate::report::input`), which
//! every report format renders.

pub mod diff;
pub mod git;

pub use crate::report::input::{Review, Scope, count};

use crate::audit::Audit;
use crate::finding::Finding;

impl<'a> Review<'a> {
    /// Compare two audits. Waived findings take part in the matching (so waiving a finding
    /// never makes it look fixed) and are then set apart.
    pub fn of_change(before: &Audit, after: &'a Audit, scope: Scope) -> Review<'a> {
        let all = |a: &Audit| -> Vec<Finding> {
            a.findings
                .iter()
                .cloned()
                .chain(a.waived.iter().map(|w| w.finding.clone()))
                .collect()
        };
        let d = diff::diff(&all(before), &all(after));
        let waived = |f: &Finding| after.waived.iter().any(|w| &w.finding == f);
        Review {
            scope,
            audit: after,
            new: d.new.into_iter().filter(|f| !waived(f)).collect(),
            fixed: d.fixed,
            unchanged: d.unchanged.into_iter().filter(|f| !waived(f)).collect(),
            waived: after.waived.clone(),
        }
    }
}
