//! Collection from live devices (issue 3). What is here so far is the part every later piece
//! leans on: the read-only allow-list (`allow`), enforced when vendor-parser files load, and
//! secret redaction (`Platform::redact` in the parser engine) applied before anything is
//! written.

pub mod allow;
