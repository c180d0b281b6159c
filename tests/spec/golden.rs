//! Golden tests for every vendor parser: `fixtures/<platform>/<command_id>/<case>.txt` is raw
//! output; `<case>.json` beside it is the normalized model it must produce (device with its
//! interfaces and per-file parse status). An optional `<case>.cmd` holds the concrete command
//! (for templated commands such as `ethtool -a {if}`); otherwise `{if}` = eth0, `{dev}` = mlx5_0.
//! A case may also be a folder `<case>/` holding a whole device folder (device.toml and the
//! outputs of several commands), for facts that need several outputs together (a host's RDMA
//! device → netdev map); its expected model is `<case>.json` beside the folder.
//! Set UPDATE_GOLDEN=1 to rewrite the expected files, then review the diff by eye.

use fabric_audit::device::build_device;
use fabric_audit::snapshot::DeviceInput;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn cases() -> Vec<(String, String, PathBuf)> {
    let mut out = Vec::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    for platform in fabric_audit::model::PLATFORMS {
        let pdir = root.join(platform);
        let Ok(cmds) = std::fs::read_dir(&pdir) else {
            continue;
        };
        for c in cmds.flatten() {
            let cid = c.file_name().to_string_lossy().into_owned();
            let Ok(files) = std::fs::read_dir(c.path()) else {
                continue;
            };
            for f in files.flatten() {
                let p = f.path();
                if p.extension().is_some_and(|e| e == "txt") || p.is_dir() {
                    out.push((platform.to_string(), cid.clone(), p));
                }
            }
        }
    }
    out.sort();
    out
}

/// Parse one raw file as the given command of the platform into a device JSON.
pub fn golden_json(platform: &str, cmd_id: &str, raw: &Path) -> serde_json::Value {
    golden_json_value(platform, cmd_id, raw)
}

/// `golden_json`'s body: serializes under the caller's source setting (see `with_sources`).
fn golden_json_value(platform: &str, cmd_id: &str, raw: &Path) -> serde_json::Value {
    let parsers = fabric_audit::load_parsers(None).expect("embedded parsers load");
    if raw.is_dir() {
        let (mut input, notices) =
            fabric_audit::snapshot::read_device_folder(raw.parent().unwrap(), raw);
        assert!(notices.is_empty(), "{}: {notices:?}", raw.display());
        input.platform = Some(platform.into());
        let (dev, unknown) = build_device(&parsers, &input);
        assert!(unknown.is_empty(), "{}: {unknown:?}", raw.display());
        return serde_json::to_value(&dev).expect("serializes");
    }
    let p = parsers
        .platform(platform)
        .unwrap_or_else(|| panic!("no parser {platform}"));
    let cmd = p
        .command_by_id(cmd_id)
        .unwrap_or_else(|| panic!("{platform} has no command id {cmd_id} ({})", raw.display()));
    let concrete = match std::fs::read_to_string(raw.with_extension("cmd")) {
        Ok(s) => s.trim().to_string(),
        Err(_) => cmd.cmd.replace("{if}", "eth0").replace("{dev}", "mlx5_0"),
    };
    let text = std::fs::read(raw).expect("fixture readable");
    let rel = format!("devices/dut/{}", raw.file_name().unwrap().to_string_lossy());
    let command = if cmd.config {
        cmd.cmd.clone()
    } else {
        concrete
    };
    let input = DeviceInput::one_file(
        "dut",
        platform,
        &rel,
        &command,
        fabric_audit::parser::decode(text),
    );
    let (dev, unknown) = build_device(&parsers, &input);
    assert!(unknown.is_empty(), "{}: {unknown:?}", raw.display());
    serde_json::to_value(&dev).expect("serializes")
}

#[test]
fn golden_parsers() {
    let update = std::env::var("UPDATE_GOLDEN").is_ok();
    let mut failures = Vec::new();
    let all = cases();
    for (platform, cid, raw) in &all {
        let got = golden_json(platform, cid, raw);
        let exp_path = raw.with_extension("json");
        let pretty = serde_json::to_string_pretty(&got).unwrap() + "\n";
        if update {
            std::fs::write(&exp_path, &pretty).unwrap();
            continue;
        }
        match std::fs::read_to_string(&exp_path) {
            Ok(exp) => {
                let exp: serde_json::Value = serde_json::from_str(&exp).unwrap();
                if exp != got {
                    failures.push(format!(
                        "{}: output differs from {}:\n{pretty}",
                        raw.display(),
                        exp_path.display()
                    ));
                }
            }
            Err(_) => failures.push(format!(
                "{}: no expected {}",
                raw.display(),
                exp_path.display()
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Every command of every parser has at least one golden case.
#[test]
fn every_parser_command_has_a_case() {
    let parsers = fabric_audit::load_parsers(None).unwrap();
    let all = cases();
    let mut missing = Vec::new();
    for p in &parsers.platforms {
        if !["nxos", "eos", "linux"].contains(&p.id.as_str()) && p.commands.is_empty() {
            continue;
        }
        for c in &p.commands {
            if !all.iter().any(|(pl, cid, _)| pl == &p.id && cid == &c.id) {
                missing.push(format!("{}/{}", p.id, c.id));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "commands without golden cases: {missing:?}"
    );
}

/// The model paths a single-file golden case fills from its own file (not platform defaults):
/// `interfaces[].pfc.mode`, `host.nvme.controllers[].state`, ...
fn filled_paths(v: &serde_json::Value, file: &str, path: &str, out: &mut BTreeSet<String>) {
    match v {
        serde_json::Value::Object(m) => {
            if m.contains_key("value") && m.contains_key("default") {
                if m.get("file").and_then(|f| f.as_str()) == Some(file)
                    && m.get("default") == Some(&serde_json::Value::Bool(false))
                {
                    out.insert(path.to_string());
                }
                return;
            }
            for (k, x) in m {
                if path.is_empty() && k == "parse" {
                    continue;
                }
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                filled_paths(x, file, &p, out);
            }
        }
        serde_json::Value::Array(a) => {
            for x in a {
                filled_paths(x, file, &format!("{path}[]"), out);
            }
        }
        _ => {}
    }
}

/// Each command's `fills` list (printed by `fabric-audit parsers`) is exactly what its
/// single-file golden cases fill; UPDATE_GOLDEN=1 rewrites the lists in vendor-parsers/.
#[test]
fn declared_fills_match_goldens() {
    let update = std::env::var("UPDATE_GOLDEN").is_ok();
    let parsers = fabric_audit::load_parsers(None).unwrap();
    let mut measured: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for (platform, cid, raw) in cases() {
        if raw.is_dir() {
            continue;
        }
        let rel = format!("devices/dut/{}", raw.file_name().unwrap().to_string_lossy());
        let v = fabric_audit::model::with_sources(|| golden_json_value(&platform, &cid, &raw));
        filled_paths(&v, &rel, "", measured.entry((platform, cid)).or_default());
    }
    let mut wrong = Vec::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("vendor-parsers");
    for p in &parsers.platforms {
        let file = root.join(format!("{}.toml", p.id));
        let mut text = std::fs::read_to_string(&file).unwrap_or_default();
        for c in &p.commands {
            let Some(m) = measured.get(&(p.id.clone(), c.id.clone())) else {
                continue;
            };
            let declared: BTreeSet<String> = c.fills.iter().cloned().collect();
            if &declared == m {
                continue;
            }
            if update {
                text = set_fills(&text, &c.id, m);
            } else {
                wrong.push(format!(
                    "{}/{}: fills declared {:?}, goldens fill {:?}",
                    p.id, c.id, declared, m
                ));
            }
        }
        if update {
            std::fs::write(&file, text).unwrap();
        }
    }
    assert!(
        wrong.is_empty(),
        "{}\n(UPDATE_GOLDEN=1 rewrites the lists)",
        wrong.join("\n")
    );
}

/// Replace (or add after the `id = "<cid>"` line) the command's `fills = [...]` line.
fn set_fills(text: &str, cid: &str, fills: &BTreeSet<String>) -> String {
    let list: Vec<String> = fills.iter().map(|f| format!("{f:?}")).collect();
    let line = format!("fills = [{}]", list.join(", "));
    let lines: Vec<&str> = text.split('\n').collect();
    let id_line = format!("id = \"{cid}\"");
    let mut out: Vec<String> = Vec::new();
    let mut k = 0;
    while k < lines.len() {
        out.push(lines[k].to_string());
        if lines[k].trim() == id_line {
            // Drop an existing fills line of this command (it follows the id line).
            let mut j = k + 1;
            while j < lines.len() && !lines[j].starts_with('[') && !lines[j].trim().is_empty() {
                if lines[j].starts_with("fills = ") {
                    break;
                }
                j += 1;
            }
            if j < lines.len() && lines[j].starts_with("fills = ") {
                for l in &lines[k + 1..j] {
                    out.push(l.to_string());
                }
                k = j;
            }
            if !fills.is_empty() {
                out.push(line.clone());
            }
        }
        k += 1;
    }
    out.join("\n")
}
