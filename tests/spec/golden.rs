//! Golden tests for every vendor parser: `fixtures/<platform>/<command_id>/<case>.txt` is raw
//! output; `<case>.json` beside it is the normalized model it must produce (device with its
//! interfaces and per-file parse status). An optional `<case>.cmd` holds the concrete command
//! (for templated commands such as `ethtool -a {if}`); otherwise `{if}` = eth0, `{dev}` = mlx5_0.
//! A case may also be a folder `<case>/` holding a whole device folder (device.toml and the
//! outputs of several commands), for facts that need several outputs together (a host's RDMA
//! device → netdev map); its expected model is `<case>.json` beside the folder.
//! A folder case holding `configs/` is a snapshot of one device whose configuration is a file in
//! `configs/` (and an optional `fabric.toml`): the same form read in the other documented place,
//! routed and (unless fabric.toml names it) detected as a user's snapshot would be.
//! Set UPDATE_GOLDEN=1 to rewrite the expected files, then review the diff by eye.

use fabric_audit::device::build_device;
use fabric_audit::snapshot::DeviceInput;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn cases() -> Vec<(String, String, PathBuf)> {
    let mut out = Vec::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    for platform in fabric_audit::platform::registry::ids() {
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
    if raw.join("configs").is_dir() {
        let snap = fabric_audit::snapshot::Snapshot::read(raw).expect("case snapshot reads");
        assert!(
            snap.notices.is_empty(),
            "{}: {:?}",
            raw.display(),
            snap.notices
        );
        let [input] = snap.devices.as_slice() else {
            panic!("{}: a configs/ case holds one device", raw.display());
        };
        let (dev, unknown) = build_device(&parsers, input);
        assert!(unknown.is_empty(), "{}: {unknown:?}", raw.display());
        assert_eq!(dev.platform, platform, "{}", raw.display());
        return serde_json::to_value(&dev).expect("serializes");
    }
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

/// The config forms the README documents (its "Config forms" table): platform and the command
/// that prints the form on the device.
fn documented_config_forms() -> Vec<(String, String)> {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md readable");
    let mut rows = Vec::new();
    let mut in_table = false;
    for line in readme.lines() {
        if line.starts_with('#') {
            in_table = line.trim_start_matches('#').trim() == "Config forms";
            continue;
        }
        if !in_table || !line.starts_with("| `") {
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        let unquote = |c: &str| c.trim_matches('`').replace("\\|", "|");
        if let [platform, _form, cmd] = cells.as_slice() {
            rows.push((unquote(platform), unquote(cmd)));
        }
    }
    rows
}

/// Every documented config form is read in both documented places: collected in
/// `devices/NAME/` (a file or device-folder case under the form's command) and as
/// `configs/NAME.*` (a `configs/` snapshot case under the same command, not failed, read by the
/// platform's config reader or by that command). Every config-reading command of every parser is
/// in the README's table, so a new form cannot be added without its row and its cases.
#[test]
fn every_config_form_has_a_case_in_each_place() {
    let parsers = fabric_audit::load_parsers(None).unwrap();
    let forms = documented_config_forms();
    assert!(
        forms.len() >= 8,
        "README 'Config forms' table not found: {forms:?}"
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut missing = Vec::new();
    for p in &parsers.platforms {
        for c in p.config_commands() {
            if !forms.iter().any(|(pl, cmd)| pl == &p.id && cmd == &c.cmd) {
                missing.push(format!("README: no row for {} `{}`", p.id, c.cmd));
            }
        }
    }
    for (platform, cmd) in &forms {
        let Some(p) = parsers.platform(platform) else {
            missing.push(format!("README: unknown platform {platform}"));
            continue;
        };
        let Some((c, _)) = p.command_for(cmd) else {
            missing.push(format!("README: {platform} has no command `{cmd}`"));
            continue;
        };
        let dir = root.join(platform).join(&c.id);
        let entries: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map(|rd| rd.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        let in_devices = entries.iter().any(|e| {
            e.extension().is_some_and(|x| x == "txt") || (e.is_dir() && !e.join("configs").is_dir())
        });
        if !in_devices {
            missing.push(format!(
                "{platform} `{cmd}` in devices/: no case in {}",
                dir.display()
            ));
        }
        let config_cases: Vec<&PathBuf> = entries
            .iter()
            .filter(|e| e.join("configs").is_dir())
            .collect();
        if config_cases.is_empty() {
            missing.push(format!(
                "{platform} `{cmd}` in configs/: no <case>/configs/ snapshot in {}",
                dir.display()
            ));
        }
        for case in config_cases {
            let got = golden_json(platform, &c.id, case);
            let files = got["parse"].as_array().cloned().unwrap_or_default();
            let ok = files.iter().any(|f| {
                f["file"]
                    .as_str()
                    .is_some_and(|n| n.starts_with("configs/"))
                    && f["status"] != "failed"
                    && (f["command"] == "config" || f["command"] == c.cmd.as_str())
            });
            if !ok {
                missing.push(format!(
                    "{}: the configs/ file is not read as {platform} `{cmd}`: {files:?}",
                    case.display()
                ));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
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

/// What each command's files fill on the bundled fabrics (`fixtures/<fabric>/`), read as a user
/// reads them (`audit --format model`): per (platform, command id), the model paths set from a
/// file that command produced. A host's `cma_roce_tos -d mlx5_0` fills its RDMA netdev's ToS
/// only beside the outputs that name the netdev, which a single-file case cannot show.
fn fabric_fills(
    parsers: &fabric_audit::parser::Parsers,
    out: &mut BTreeMap<(String, String), BTreeSet<String>>,
) {
    let mut fabrics: Vec<PathBuf> = std::fs::read_dir(crate::common::fixtures())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("configs").is_dir() || p.join("devices").is_dir())
        .collect();
    fabrics.sort();
    assert!(fabrics.len() >= 7, "{fabrics:?}");
    for snap in fabrics {
        let o = crate::common::fa(&[
            "audit",
            snap.to_str().unwrap(),
            "--format",
            "model",
            "--fail-on",
            "never",
        ]);
        let v: serde_json::Value =
            serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{}: {e}", snap.display()));
        for d in v["devices"].as_array().unwrap() {
            let pid = d["platform"].as_str().unwrap_or_default();
            let Some(platform) = parsers.platform(pid) else {
                continue;
            };
            for f in d["parse"].as_array().into_iter().flatten() {
                let (Some(file), Some(cmd)) = (f["file"].as_str(), f["command"].as_str()) else {
                    continue;
                };
                let c = if cmd == "config" {
                    platform.config_command()
                } else {
                    platform.command_for(cmd).map(|(c, _)| c)
                };
                let Some(c) = c else { continue };
                let set = out.entry((pid.to_string(), c.id.clone())).or_default();
                filled_paths(d, file, "", set);
            }
        }
    }
}

/// Each command's `fills` list (printed by `fabric-audit parsers`, and what "the platform never
/// provides it" of a could-not-decide message trusts) is exactly what its single-file golden
/// cases and its files in the bundled fabrics fill; UPDATE_GOLDEN=1 rewrites the lists in
/// vendor-parsers/.
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
    fabric_fills(&parsers, &mut measured);
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
