//! The offline specification tier: one test binary for everything that needs only files and the
//! built `fabric-audit` binary (parsers, rules, reports, remediation, the CLI). One binary links
//! the crate once instead of once per file. `cargo test --release --test spec [filter]`.

#[path = "../common/mod.rs"]
mod common;

mod cli; // the command line end to end: exit codes, bad input
mod corpus; // real published outputs (../shared/corpus) parse truthfully
mod demo; // the README's first command on the bundled demo fabric
mod diff; // `diff BEFORE AFTER`
mod findings_pinned; // the bundled fabrics' findings, byte for byte (refactors change nothing)
mod fuzz_regressions; // fuzz targets' saved inputs replayed without a fuzzer
mod fuzz_smoke; // every fuzz target, 1 s of mutations each: no panic, hang or memory blow-up
mod golden; // every parser: raw output in, normalized model out
mod hostile_cost; // glob and table cost, strict [policy] (issues 19 and 17)
mod hostile_snapshot; // links, special files, size caps, escapes, line endings (issue 19)
mod issue14_json_lines; // issue 14 "What to build" 1: values of format = "json" outputs cite their lines
mod issue14_reading; // issue 14 "What was seen": each shape through the CLI, as a user meets it
mod issue15_points; // issue 15: each sub-point of "What was seen" through the CLI
mod issue17_ci; // issue 17 items 6 and 8: review and CI formats, remediation
mod issue17_messages;
mod issue46_scope; // issue 46 items 2-4: scope from intent, a left-out port named (TOPO007) // issue 17 item 5: messages from model values, undecided says why
mod jvd_fabric; // a back-end fabric after Juniper's AI data center JVD and its faulted twin
mod layering; // one-way layers between top-level modules; tokio/russh only in collect and probe
mod mixed_fabric; // the mixed-NOS demo fabric and its clean twin
mod nvue_structure; // NVUE YAML and JSON read as structure, any layout
mod output_options; // issue 17: concise, filters, statistics, idle flags, root-cause groups
mod pcp_maps; // 802.1p → TC in the model, per-entry map provenance (issue 15)
mod platform_registry; // every parser command has a reader in the platform registry, or says why not
mod probe_output; // the probe tools' outputs
mod qos_maps; // every port's QoS maps entry by entry, with provenance (issue 15)
mod ranges; // interface ranges in every vendor syntax: expanded or reported (issue 14)
mod redaction_structure; // issue 46 item 1: redaction keeps JSON and YAML structure, every fixture and corpus file
mod remediation; // snippets fix what they claim (round trip)
mod remediation_hosts; // Linux host runtime commands
mod report_formats; // markdown, sarif, junit, github
mod review; // `review --repo --base --head` on a git repo
mod robustness; // nothing panics on garbage
mod rule_engine; // rules on hand-built models
mod rule_fixtures; // every rule on real snapshot files (fixtures/rules)
mod scale; // findings of ~1,000-device replicated fabrics pinned; --timings
mod scale_docs; // issue 16 item 3: docs/scale scheduler examples parse and cover every shard
mod sharded_audit; // issue 16 item 3: shard folders audited as one fabric, byte for byte
mod sonic_layouts; // every SONiC CONFIG_DB layout gives the same model
mod terminal_output; // issue 17: fits the terminal, worst first, one row per cause
mod tooling; // issue 17 item 10: install, CI workflow, help, completions, man, schemas, version
mod vendor_semantics; // issue 15: vendor defaults, "auto", policies in force, platform maxima
