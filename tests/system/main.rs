//! The system tier: tests that need services — SSH servers on 127.0.0.1 (emulated devices),
//! network namespaces with sshd and lldpd (`scripts/testbed`, as root), and headless Chromium.
//! Their packages are installed once by `scripts/test-deps`. `cargo test --release --test system`.

#[path = "../common/mod.rs"]
mod common;

mod collect_emulated; // collection over real SSH against emulated switches and hosts
mod collect_honesty; // command status, grouped failures, probe exit status, the walkthrough
mod collect_hostile; // collection against hostile devices: budgets, endless lines, host keys
mod collect_safety; // read-only allow-list and redaction
mod collect_sharded; // collect --shard K/N end to end, shards audited as one fabric
mod probe_testbed; // probes between namespace hosts
mod report_html; // the HTML report, in Rust and in headless Chromium
mod secrets; // no secret on disk or in a report (exec and shell collection, every format)
mod testbed; // collection from real Linux hosts in namespaces
