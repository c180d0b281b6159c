//! Library entry points for the fuzz targets (`fuzz/fuzz_targets/*.rs`, run with `cargo fuzz`;
//! see SECURITY.md "How it is tested"). Each takes the fuzzer's bytes, feeds them to one
//! reader exactly as the audit does, and returns; a panic, a hang or runaway memory is the
//! finding. The targets stay one line each so that what is fuzzed is the product's own code.
//!
//! The crashes the fuzzers found are kept as files in `fuzz/regressions/<target>/` and replayed
//! by a test (tests/spec/fuzz_regressions.rs) on every run, without a fuzzer.

pub mod adversarial;
pub mod alloc;
pub mod mutate;
pub mod smoke;

use crate::audit::Audit;
use crate::parser::Parsers;
use crate::rules::RuleSet;
use crate::snapshot::{DeviceInput, InputFile, Snapshot};
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// The platform a fuzzer's byte picks: the registry's entries in order (saved inputs depend on
/// that order, which the registry keeps).
fn platform_of_byte(b: u8) -> &'static str {
    let all = crate::platform::registry::PLATFORMS;
    all[b as usize % all.len()].id
}

fn parsers() -> &'static Arc<Parsers> {
    static P: OnceLock<Arc<Parsers>> = OnceLock::new();
    P.get_or_init(|| match crate::load_parsers(None) {
        Ok(p) => p,
        Err(e) => panic!("the embedded parsers do not load: {e:#}"),
    })
}

fn rules() -> &'static RuleSet {
    static R: OnceLock<RuleSet> = OnceLock::new();
    R.get_or_init(|| match crate::audit::load_rules(None) {
        Ok(r) => r,
        Err(e) => panic!("the embedded rules do not load: {e:#}"),
    })
}

/// Bytes as the snapshot reader hands them on: decoded (BOM, line endings, UTF-8) or the
/// reason they cannot be.
fn text(data: &[u8]) -> Result<String, String> {
    crate::parser::decode(data.to_vec())
}

/// One device of `platform` with one input: `data[0]` chooses which (0: a config file in
/// `configs/`, n: the platform's n-th command, wrapping), the rest is the file.
pub fn device_input(platform: &str, data: &[u8]) -> DeviceInput {
    let (sel, body) = data.split_first().map_or((0, &[][..]), |(s, b)| (*s, b));
    let commands: Vec<&crate::parser::Command> = parsers()
        .platforms
        .iter()
        .filter(|p| p.id == platform)
        .flat_map(|p| &p.commands)
        .collect();
    let command = match (sel as usize).checked_sub(1) {
        Some(i) if !commands.is_empty() => Some(
            commands[i % commands.len()]
                .cmd
                .replace("{if}", "eth2")
                .replace("{dev}", "mlx5_0"),
        ),
        _ => None,
    };
    let rel = match &command {
        None => "configs/dut.cfg".to_string(),
        Some(c) => format!("devices/dut/{}", crate::snapshot::command_file_name(c)),
    };
    DeviceInput {
        name: "dut".into(),
        platform: Some(platform.into()),
        platform_reason: "fuzz".into(),
        role: None,
        files: vec![InputFile {
            rel,
            command,
            text: text(body),
        }],
        error: None,
    }
}

/// A platform's readers: its config reader and every command parser.
pub fn platform(platform: &str, data: &[u8]) {
    let _ = crate::device::build_device(parsers(), &device_input(platform, data));
}

/// The JSON reader (`parser::json`) and its canonical-lines rendering.
pub fn json(data: &[u8]) {
    if let Ok(t) = text(data) {
        let doc = crate::parser::json::parse(&t);
        if let Some(root) = &doc.root {
            let _ = crate::parser::json::render(root, false);
        }
    }
}

/// A SONiC CONFIG_DB document in any layout, normalized (`parser::configdb`).
pub fn config_db(data: &[u8]) {
    if let Ok(t) = text(data)
        && let Some(root) = crate::parser::json::parse(&t).root
    {
        let n = crate::parser::configdb::normalize(root);
        let _ = crate::parser::json::render(&n, true);
    }
}

/// A collection inventory: TOML, or Ansible YAML when `yaml`.
pub fn inventory(data: &[u8], yaml: bool) {
    if let Ok(t) = text(data) {
        let name = if yaml {
            "fuzz/inventory.yml"
        } else {
            "fuzz/inventory.toml"
        };
        let _ = crate::collect::inventory::Inventory::from_text(&t, Path::new(name), None);
    }
}

/// `fabric.toml`: the cabling plan, device entries and `[policy]` (validated, then resolved
/// into a fabric with no device files).
pub fn fabric_toml(data: &[u8]) {
    let Ok(t) = text(data) else { return };
    let Ok(fabric) = crate::toml_pieces::from_str(&t) else {
        return;
    };
    let snap = Snapshot {
        fabric,
        fabric_text: t,
        ..Default::default()
    };
    if crate::audit::check_policy(rules(), &snap).is_err() {
        return;
    }
    let (policy, notices) = crate::audit::resolve_policy(rules(), &snap);
    let _ = crate::fabric::assemble(parsers(), &snap, policy, notices);
}

/// `waivers.toml`.
pub fn waivers(data: &[u8]) {
    if let Ok(t) = text(data) {
        let _ = crate::rules::waivers::parse(&t, "waivers.toml");
    }
}

fn templates() -> &'static crate::remediate::spec::Templates {
    static T: OnceLock<crate::remediate::spec::Templates> = OnceLock::new();
    T.get_or_init(|| match crate::remediate::load(None) {
        Ok(t) => t,
        Err(e) => panic!("the embedded fix templates do not load: {e:#}"),
    })
}

/// Load the embedded parsers, rules and fix templates (once per process, not an input's
/// cost: see [`smoke::warm_up`]). A target that stops early on most inputs (`fabric_toml` on
/// anything but valid TOML) would otherwise load them inside the first input it measures.
pub fn load() {
    let _ = (parsers(), rules(), templates());
}

/// The rule catalog, made once: it is the rules' own text, the same for every input.
fn full_catalog() -> &'static [crate::report::input::RuleEntry] {
    static C: OnceLock<Vec<crate::report::input::RuleEntry>> = OnceLock::new();
    C.get_or_init(|| crate::audit::catalog(rules()))
}

/// The catalog entries an audit's reports can show differently because of its input: the
/// rules its findings name, and the first rule (so a catalog entry without a finding is
/// rendered too). The other entries are the rules' own text, rendered the same for every
/// input (SARIF's `tool.driver.rules` is 137 KB of it, most of a report's work per input).
fn catalog_for(findings: &[crate::finding::Finding]) -> Vec<crate::report::input::RuleEntry> {
    let named: std::collections::BTreeSet<&str> = findings.iter().map(|f| &**f.rule()).collect();
    full_catalog()
        .iter()
        .enumerate()
        .filter(|(i, e)| *i == 0 || named.contains(e.id.as_str()))
        .map(|(_, e)| e.clone())
        .collect()
}

/// Every report format on a model built from fuzzed input: `data[0]` picks the platform, the
/// rest is [`device_input`]'s. As `audit` does, every finding's fix is rendered from its
/// platform's templates (which read the device's config text through `cfg()`) and attached
/// before the reports. The formats a review renders (concise, HTML, markdown, SARIF, JUnit,
/// GitHub) share one [`crate::report::input::Review`], as the CLI's one render does.
pub fn reports(data: &[u8]) {
    // `FABRIC_AUDIT_STAGE_MEMORY=1 fuzz_smoke --input FILE reports` prints the counting
    // allocator's live and peak bytes after each stage (where the peak of issue 19 is reached);
    // `=STAGE` stops after that stage, so that heaptrack's peak is that stage's.
    let stages = std::env::var("FABRIC_AUDIT_STAGE_MEMORY").ok();
    let probe = |stage: &str| -> bool {
        if stages.is_some() {
            eprintln!(
                "stage {stage:<10} live {:>12} B  peak {:>12} B",
                alloc::live(),
                alloc::peak()
            );
        }
        stages.as_deref() == Some(stage)
    };
    if probe("start") {
        return;
    }
    let Some((p, rest)) = data.split_first() else {
        return;
    };
    let snap = Snapshot {
        devices: vec![device_input(platform_of_byte(*p), rest)],
        ..Default::default()
    };
    let (policy, notices) = crate::audit::resolve_policy(rules(), &snap);
    if probe("snap") {
        return;
    }
    let mut fabric = crate::fabric::assemble(parsers(), &snap, policy, notices);
    // The CLI drops the snapshot once the model is built and reads a device's config file
    // again when it makes the fix plan; the same here: only that file's text is kept (one
    // copy, as the CLI's read, not the whole snapshot and then a copy of the text).
    let mut snap = snap;
    let config_texts: Vec<(String, String, String)> = snap
        .devices
        .iter_mut()
        .flat_map(|d| {
            let name = d.name.clone();
            d.files
                .iter_mut()
                .filter(|f| f.command.is_none())
                .filter_map(move |f| {
                    let text = std::mem::replace(&mut f.text, Ok(String::new())).ok()?;
                    Some((name.clone(), f.rel.clone(), text))
                })
        })
        .collect();
    drop(snap);
    if probe("assembled") {
        return;
    }
    // In place, as the audit evaluates: the rules read the model without a copy of it.
    let (findings, passes) = crate::rules::eval::evaluate_in_place(rules(), &mut fabric, &|_| true);
    if probe("evaluated") {
        return;
    }
    let catalog = catalog_for(&findings);
    let mut audit = Audit {
        fabric,
        findings,
        rules: rules().rules.len(),
        passes,
        probes: Vec::new(),
        waived: Vec::new(),
        catalog,
    };
    // The config text the device was built from, as the CLI reads it back from the snapshot
    // (the plan asks once a device; the text is handed over, not copied).
    let config_texts = std::cell::RefCell::new(config_texts);
    let config = |d: &crate::model::Device| {
        let rel = crate::remediate::config_file(d)?;
        let mut texts = config_texts.borrow_mut();
        let at = texts
            .iter()
            .position(|(n, r, _)| *n == d.name && *r == rel)?;
        Some(texts.swap_remove(at).2)
    };
    let plan = crate::remediate::plan_with(&audit, rules(), templates(), &config);
    // As the CLI writes them: streamed (here to nowhere), not built in memory.
    if probe("planned") {
        return;
    }
    let _ = crate::remediate::write_json(&plan, &audit.findings, &mut std::io::sink());
    let _ = crate::remediate::write_text(&plan, &audit.findings, &mut std::io::sink());
    crate::remediate::attach_plan(&mut audit, &plan);
    drop(plan);
    if probe("attached") {
        return;
    }
    use crate::report::Format::*;
    let _ = crate::report::render(&audit, Table, false);
    // As the CLI writes the JSON report and the model: streamed (here to nowhere), not built
    // in memory.
    let _ = crate::report::json::write(&audit, &mut std::io::sink());
    let _ = crate::report::write_model(&audit, &mut std::io::sink());
    let review = crate::report::input::Review::of_audit(&audit, "snapshot");
    // As the CLI writes them: SARIF streamed, the others rendered, here to nowhere.
    for f in [Concise, Html, Markdown, Sarif, Junit, Github] {
        let _ = crate::report::write_review(&review, f, false, &mut std::io::sink());
    }
    probe("end");
}

/// Replay one saved input of `target` (a `fuzz/regressions/<target>/` file) through its entry
/// point; the names are the fuzz targets'.
pub fn replay(target: &str, data: &[u8]) -> bool {
    if let Some(p) = target.strip_prefix("platform_") {
        platform(p, data);
        return true;
    }
    match target {
        "json" => json(data),
        "config_db" => config_db(data),
        "inventory_toml" => inventory(data, false),
        "inventory_yaml" => inventory(data, true),
        "fabric_toml" => fabric_toml(data),
        "waivers" => waivers(data),
        "reports" => reports(data),
        _ => return false,
    }
    true
}
