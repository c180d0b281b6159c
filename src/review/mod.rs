//! Change review: what a change introduces. Findings of two audits are matched by identity
//! (rule, device, interface, peer; the message only to tell apart several findings of one
//! rule on one object), never by line number, and classed new / fixed / unchanged.

pub mod diff;
