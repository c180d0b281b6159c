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
