//! Turning one device's input files into a model `Device`: decide the platform, pick the
//! command parser for each file, run the engine, hand the records to the platform module, and
//! keep a truthful parse status per file.

use crate::model::{Device, FileParse, ParseStatus};
use crate::parser::{Parsers, Platform};
use crate::platform::{self, Output};
use crate::snapshot::{DeviceInput, command_file_name};
use crate::text::natural_cmp;
use crate::timings::{self, Phase};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

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
        let Some((r, names)) = c.file_matcher.get_or_init(|| file_matcher(&c.cmd)) else {
            continue;
        };
        if let Some(caps) = r.captures(fname) {
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

/// A regex over the default file name of a templated command (`ethtool -a {if}` →
/// `^ethtool_-a_([A-Za-z0-9._-]+?)\.txt$`) and its placeholder names, in order. Built once per
/// command (kept in `Command::file_matcher`), not once per file.
fn file_matcher(cmd: &str) -> Option<(regex::Regex, Vec<String>)> {
    let mut re = String::from("^");
    let mut rest = cmd;
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
    regex::Regex::new(&re).ok().map(|r| (r, names))
}

/// Whether `cmd` is the platform's primary config form (its configs/ file is "config").
fn is_primary(platform: &Platform, cmd: &crate::parser::Command) -> bool {
    platform
        .config_command()
        .is_some_and(|c| std::ptr::eq(c, cmd))
}

/// Read a file of `configs/` with the platform's config forms (Cumulus: NVUE YAML, NVUE JSON,
/// traffic.conf, NCLU) and keep the form that reads it best: passed before partial before
/// failed, then the fewest unrecognized lines; the primary form first, so a file it reads
/// completely is parsed once.
fn read_config<'p>(
    platform: &'p Platform,
    primary: &'p crate::parser::Command,
    text: &'p str,
) -> (&'p crate::parser::Command, crate::parser::Parsed<'p>) {
    let rank = |p: &crate::parser::Parsed| {
        let status = match p.status {
            ParseStatus::Passed => 2,
            ParseStatus::Partial => 1,
            ParseStatus::Failed => 0,
        };
        (status, std::cmp::Reverse(p.unrecognized.len()))
    };
    let mut best = (primary, primary.parse(text));
    for c in platform.config_commands() {
        if best.1.status == ParseStatus::Passed {
            break;
        }
        if std::ptr::eq(c, primary) || !holds_form_mark(c, text) {
            continue;
        }
        let parsed = c.parse(text);
        if rank(&parsed) > rank(&best.1) {
            best = (c, parsed);
        }
    }
    best
}

/// Config forms tried on a file only when a line of it starts with their mark: a form of
/// command lines reads a YAML or JSON file as nothing but unrecognized lines, a second whole
/// parse held beside the best one (issue 19's bound: Cumulus stanzas went from under 20 to
/// 20.9 times their size when NVUE's `nv set` form was added as a fifth Cumulus form).
const FORM_MARKS: &[(&str, &str)] = &[("nv-config-commands", "nv set ")];

fn holds_form_mark(c: &crate::parser::Command, text: &str) -> bool {
    match FORM_MARKS.iter().find(|(id, _)| *id == c.id) {
        Some((_, mark)) => {
            text.starts_with(mark)
                || memchr::memmem::find(text.as_bytes(), format!("\n{mark}").as_bytes()).is_some()
        }
        None => true,
    }
}

/// A file the device has that no command of its platform explains.
#[derive(Debug, Clone)]
pub struct UnknownFile {
    pub file: String,
    pub reason: String,
}

/// Build the device model, the only device of its run. Never fails: every problem is
/// recorded on the device.
pub fn build_device(parsers: &Parsers, input: &DeviceInput) -> (Device, Vec<UnknownFile>) {
    build_device_in_run(parsers, input, 1)
}

/// Build the device model as one of `run_devices` devices (its share of the run's port floor,
/// [`crate::model::port_bound`]). Never fails: every problem is recorded on the device.
/// Its time goes to [`Phase::Parse`] (the engine over each file) and [`Phase::Model`] (the rest).
pub fn build_device_in_run(
    parsers: &Parsers,
    input: &DeviceInput,
    run_devices: usize,
) -> (Device, Vec<UnknownFile>) {
    let start = timings::thread_cpu();
    let mut parse_time = Duration::ZERO;
    let built = build_device_timed(parsers, input, run_devices, &mut parse_time);
    timings::add_cpu(Phase::Parse, parse_time);
    timings::add_cpu(
        Phase::Model,
        timings::thread_cpu()
            .saturating_sub(start)
            .saturating_sub(parse_time),
    );
    built
}

fn build_device_timed(
    parsers: &Parsers,
    input: &DeviceInput,
    run_devices: usize,
    parse_time: &mut Duration,
) -> (Device, Vec<UnknownFile>) {
    let input_bytes = input
        .files
        .iter()
        .filter_map(|f| f.text.as_ref().ok())
        .map(String::len)
        .sum();
    let mut dev = Device {
        name: input.name.clone(),
        error: input.error.clone(),
        port_cap: Some(crate::model::port_bound(input_bytes, run_devices)),
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
                undefined_not_listed: 0,
                gaps: vec![],
                conflicts: vec![],
                conflicts_not_listed: 0,
                error: Some(format!("unknown platform ({reason})")),
            });
        }
        return (dev, unknown);
    };
    dev.platform = pid.clone();
    dev.is_switch = !crate::platform::registry::is_host(&pid);
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
                undefined_not_listed: 0,
                gaps: vec![],
                conflicts: vec![],
                conflicts_not_listed: 0,
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
        let in_configs = f.command.is_none() && f.rel.starts_with("configs/");
        let (cmd, args) = if in_configs {
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
                    undefined_not_listed: 0,
                    gaps: vec![],
                    conflicts: vec![],
                    conflicts_not_listed: 0,
                    error: Some(e.clone()),
                });
                continue;
            }
        };
        let parse_start = timings::thread_cpu();
        let (cmd, parsed) = if in_configs {
            read_config(platform, cmd, text)
        } else {
            (cmd, cmd.parse(text))
        };
        *parse_time += timings::thread_cpu().saturating_sub(parse_start);
        concrete.push(f.command.clone().unwrap_or_else(|| cmd.cmd.clone()));
        outputs.push(Output {
            file: Arc::from(f.rel.as_str()),
            cmd,
            args,
            parsed,
        });
    }
    let mut notes = platform::build(&pid, &mut dev, &outputs);
    for (i, o) in outputs.iter_mut().enumerate() {
        // The first LISTED_PER_FILE, the rest counted (issue 19: a reference of ~90 bytes,
        // ~500 once a rule reads it, from each 33-byte `service-policy` line naming a policy
        // that does not exist).
        let mine = notes.undefined.iter().filter(|(k, _)| *k == i);
        let total = mine.clone().count();
        let undefined: Vec<_> = mine
            .take(crate::model::LISTED_PER_FILE)
            .map(|(_, u)| u.clone())
            .collect();
        let undefined_not_listed = (total - undefined.len()) as u64;
        // Moved, not copied: a file of short unrecognized lines held them twice.
        let mut unrecognized = std::mem::take(&mut o.parsed.unrecognized);
        // Exactly: growing a full list of a million short lines doubles it.
        unrecognized.reserve_exact(notes.unrecognized.iter().filter(|(k, _)| *k == i).count());
        unrecognized.extend(
            notes
                .unrecognized
                .iter()
                .filter(|(k, _)| *k == i)
                .map(|(_, u)| u.clone()),
        );
        // Usually in order already (the parser's, then none): a stable sort's scratch of up
        // to the whole list was the peak of a file of short unrecognized lines (issue 19).
        if !unrecognized.is_sorted_by_key(|u| u.line) {
            sort_in_place(&mut unrecognized, |a, b| a.line.cmp(&b.line));
        }
        let mut status = o.parsed.status;
        if status == ParseStatus::Passed && (!undefined.is_empty() || !unrecognized.is_empty()) {
            status = ParseStatus::Partial;
        }
        // Names only a missing companion output would resolve: a collection gap (PARSE011),
        // not an undefined reference.
        let gaps: Vec<_> = notes
            .unresolved
            .iter()
            .filter(|(k, _)| *k == i)
            .map(|(_, u)| u.clone())
            .collect();
        // Moved, not copied (each output has at most one entry).
        let conflicts = notes
            .conflicts
            .iter_mut()
            .find(|(k, _)| *k == i)
            .map(|(_, f)| std::mem::take(f))
            .unwrap_or_default();
        dev.parse.push(FileParse {
            device: dev.name.clone(),
            file: o.file.to_string(),
            platform: pid.clone(),
            command: if is_primary(platform, o.cmd) && o.file.starts_with("configs/") {
                "config".into()
            } else {
                concrete[i].clone()
            },
            status,
            unrecognized,
            undefined,
            undefined_not_listed,
            gaps,
            conflicts: conflicts.listed,
            conflicts_not_listed: conflicts.not_listed,
            error: o.parsed.error.clone(),
        });
    }
    dev.parse.extend(failed);
    dev.parse.sort_by(|a, b| a.file.cmp(&b.file));
    sort_in_place(&mut dev.interfaces, |a, b| natural_cmp(&a.name, &b.name));
    // Built: the readers' name index goes, and so does the list's growth slack (up to half
    // of a device's ports' memory, kept for the whole audit otherwise).
    dev.iface_index.clear();
    dev.interfaces.shrink_to_fit();
    dev.parse.shrink_to_fit();
    (dev, unknown)
}

/// A stable sort of `v` that moves its elements in place. `sort_by` borrows scratch space of
/// up to the whole slice: for a device's ports (over a kilobyte each) that was the peak of a
/// build (issue 19: 3.3 MB of 8.8 MB for 64 KiB of `interface` lines). This sorts the indices
/// (4 bytes each) stably and then applies the order by swapping along its cycles.
fn sort_in_place<T>(v: &mut [T], cmp: impl Fn(&T, &T) -> std::cmp::Ordering) {
    if v.len() < 2 || v.len() >= u32::MAX as usize {
        v.sort_by(cmp);
        return;
    }
    let mut order: Vec<u32> = (0..v.len() as u32).collect();
    order.sort_by(|&a, &b| cmp(&v[a as usize], &v[b as usize]));
    // order[i]: the index of the element that goes to position i. Follow each cycle once,
    // marking positions done.
    const DONE: u32 = u32::MAX;
    for i in 0..order.len() {
        if order[i] == DONE {
            continue;
        }
        let mut j = i;
        loop {
            let k = order[j] as usize;
            order[j] = DONE;
            if k == i {
                break;
            }
            v.swap(j, k);
            j = k;
        }
    }
}

/// Role from the name when nothing says: hosts are hosts; "spine"/"leaf" in a switch name.
pub fn default_role(platform: &str, name: &str) -> String {
    let n = name.to_ascii_lowercase();
    if crate::platform::registry::is_host(platform) {
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

#[cfg(test)]
mod tests {
    use super::sort_in_place;

    #[test]
    fn sort_in_place_is_the_stable_sort() {
        // Keys with ties (stability shows) in orders that make long and short cycles.
        let mut seed = 7u64;
        for n in [0usize, 1, 2, 3, 10, 97, 1000] {
            let v: Vec<(u8, usize)> = (0..n)
                .map(|i| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ((seed >> 59) as u8, i)
                })
                .collect();
            let mut want = v.clone();
            want.sort_by_key(|a| a.0);
            let mut got = v;
            sort_in_place(&mut got, |a, b| a.0.cmp(&b.0));
            assert_eq!(got, want, "n = {n}");
        }
    }
}
