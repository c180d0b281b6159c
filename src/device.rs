//! Turning one device's input files into a model `Device`: decide the platform, pick the
//! command parser for each file, run the engine, hand the records to the platform module, and
//! keep a truthful parse status per file.

use crate::model::{Device, FileParse, ParseStatus};
use crate::parser::{Parsers, Platform};
use crate::platform::{self, Output};
use crate::snapshot::{DeviceInput, command_file_name};
use crate::text::natural_cmp;
use std::collections::HashMap;
use std::sync::Arc;

/// Find the command a device file holds: the command named in device.toml, else the command
/// whose default file name matches (templated commands match with any interface/device).
fn command_of<'p>(
    platform: &'p Platform,
    rel: &str,
    cmd: Option<&str>,
) -> Option<(&'p crate::parser::Command, HashMap<String, String>)> {
    if let Some(c) = cmd {
        return platform.command_for(c);
    }
    let fname = rel.rsplit('/').next().unwrap_or(rel);
    for c in &platform.commands {
        if !c.cmd.contains('{') {
            if command_file_name(&c.cmd) == fname {
                return Some((c, HashMap::new()));
            }
            continue;
        }
        // Build a regex over the file-name form of the template.
        let mut re = String::from("^");
        let mut rest = c.cmd.as_str();
        let mut names = Vec::new();
        while let Some(start) = rest.find('{') {
            let lit = command_file_name(&rest[..start]);
            re.push_str(&regex::escape(lit.trim_end_matches(".txt")));
            let Some(end) = rest[start..].find('}') else {
                break;
            };
            names.push(rest[start + 1..start + end].to_string());
            re.push_str("([A-Za-z0-9._-]+?)");
            rest = &rest[start + end + 1..];
        }
        re.push_str(&regex::escape(&command_file_name(rest)));
        re.push('$');
        if let Ok(r) = regex::Regex::new(&re)
            && let Some(caps) = r.captures(fname)
        {
            let args = names
                .iter()
                .enumerate()
                .filter_map(|(i, n)| caps.get(i + 1).map(|m| (n.clone(), m.as_str().to_string())))
                .collect();
            return Some((c, args));
        }
    }
    None
}

/// A file the device has that no command of its platform explains.
#[derive(Debug, Clone)]
pub struct UnknownFile {
    pub file: String,
    pub reason: String,
}

/// Build the device model. Never fails: every problem is recorded on the device.
pub fn build_device(parsers: &Parsers, input: &DeviceInput) -> (Device, Vec<UnknownFile>) {
    let mut dev = Device {
        name: input.name.clone(),
        error: input.error.clone(),
        ..Default::default()
    };
    let mut unknown = Vec::new();
    let (platform, reason) = match &input.platform {
        Some(p) => (Some(p.clone()), input.platform_reason.clone()),
        None => {
            let mut found = None;
            let mut why = String::from("no readable input to detect the platform from");
            for f in &input.files {
                if let Ok(text) = &f.text {
                    match parsers.detect(text) {
                        Ok((p, ev)) => {
                            found = Some(p);
                            why = format!("detected from {}: {ev}", f.rel);
                            break;
                        }
                        Err(e) => why = format!("not detected from {}: {e}", f.rel),
                    }
                }
            }
            (found, why)
        }
    };
    dev.platform_reason = reason.clone();
    let Some(pid) = platform else {
        dev.platform = "unknown".into();
        for f in &input.files {
            dev.parse.push(FileParse {
                device: dev.name.clone(),
                file: f.rel.clone(),
                platform: "unknown".into(),
                command: f.command.clone().unwrap_or_else(|| "config".into()),
                status: ParseStatus::Failed,
                unrecognized: vec![],
                undefined: vec![],
                error: Some(format!("unknown platform ({reason})")),
            });
        }
        return (dev, unknown);
    };
    dev.platform = pid.clone();
    dev.is_switch = pid != "linux";
    dev.role = input
        .role
        .clone()
        .unwrap_or_else(|| default_role(&pid, &input.name));
    let Some(platform) = parsers.platform(&pid) else {
        for f in &input.files {
            dev.parse.push(FileParse {
                device: dev.name.clone(),
                file: f.rel.clone(),
                platform: pid.clone(),
                command: f.command.clone().unwrap_or_else(|| "config".into()),
                status: ParseStatus::Failed,
                unrecognized: vec![],
                undefined: vec![],
                error: Some(format!(
                    "no vendor parser for platform {pid:?} (known: {})",
                    parsers
                        .platforms
                        .iter()
                        .map(|p| p.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            });
        }
        return (dev, unknown);
    };
    let mut outputs: Vec<Output> = Vec::new();
    // The concrete command of each output (`ethtool -a eth2`, not the template).
    let mut concrete: Vec<String> = Vec::new();
    let mut failed: Vec<FileParse> = Vec::new();
    for f in &input.files {
        let (cmd, args) = if f.command.is_none() && f.rel.starts_with("configs/") {
            match platform.config_command() {
                Some(c) => (c, HashMap::new()),
                None => {
                    unknown.push(UnknownFile {
                        file: f.rel.clone(),
                        reason: format!("platform {pid} reads no config files"),
                    });
                    continue;
                }
            }
        } else {
            match command_of(platform, &f.rel, f.command.as_deref()) {
                Some(x) => x,
                None => {
                    unknown.push(UnknownFile {
                        file: f.rel.clone(),
                        reason: match &f.command {
                            Some(c) => format!("no {pid} parser for command {c:?}"),
                            None => format!(
                                "file name matches no {pid} command and device.toml does not map it"
                            ),
                        },
                    });
                    continue;
                }
            }
        };
        let text = match &f.text {
            Ok(t) => t,
            Err(e) => {
                failed.push(FileParse {
                    device: dev.name.clone(),
                    file: f.rel.clone(),
                    platform: pid.clone(),
                    command: cmd.cmd.clone(),
                    status: ParseStatus::Failed,
                    unrecognized: vec![],
                    undefined: vec![],
                    error: Some(e.clone()),
                });
                continue;
            }
        };
        let parsed = cmd.parse(text);
        concrete.push(f.command.clone().unwrap_or_else(|| cmd.cmd.clone()));
        outputs.push(Output {
            file: Arc::from(f.rel.as_str()),
            cmd,
            args,
            parsed,
        });
    }
    let notes = platform::build(&pid, &mut dev, &outputs);
    for (i, o) in outputs.iter().enumerate() {
        let mut undefined: Vec<_> = notes
            .undefined
            .iter()
            .filter(|(k, _)| *k == i)
            .map(|(_, u)| u.clone())
            .collect();
        let mut unrecognized = o.parsed.unrecognized.clone();
        unrecognized.extend(
            notes
                .unrecognized
                .iter()
                .filter(|(k, _)| *k == i)
                .map(|(_, u)| u.clone()),
        );
        unrecognized.sort_by_key(|u| u.line);
        let mut status = o.parsed.status;
        if status == ParseStatus::Passed && (!undefined.is_empty() || !unrecognized.is_empty()) {
            status = ParseStatus::Partial;
        }
        undefined.extend(
            notes
                .unresolved
                .iter()
                .filter(|(k, _)| *k == i)
                .map(|(_, u)| u.clone()),
        );
        dev.parse.push(FileParse {
            device: dev.name.clone(),
            file: o.file.to_string(),
            platform: pid.clone(),
            command: if o.cmd.config && o.file.starts_with("configs/") {
                "config".into()
            } else {
                concrete[i].clone()
            },
            status,
            unrecognized,
            undefined,
            error: o.parsed.error.clone(),
        });
    }
    dev.parse.extend(failed);
    dev.parse.sort_by(|a, b| a.file.cmp(&b.file));
    dev.interfaces.sort_by(|a, b| natural_cmp(&a.name, &b.name));
    (dev, unknown)
}

/// Role from the name when nothing says: hosts are hosts; "spine"/"leaf" in a switch name.
pub fn default_role(platform: &str, name: &str) -> String {
    let n = name.to_ascii_lowercase();
    if platform == "linux" {
        if n.contains("stor") || n.contains("nvme") {
            "storage".into()
        } else {
            "host".into()
        }
    } else if n.contains("super") {
        "super-spine".into()
    } else if n.contains("spine") {
        "spine".into()
    } else if n.contains("leaf") || n.contains("tor") {
        "leaf".into()
    } else {
        "unknown".into()
    }
}
