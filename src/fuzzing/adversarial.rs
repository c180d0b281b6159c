//! Inputs built to cost the most memory per byte, at a chosen size, for the memory bound of
//! issue 19 ("peak memory ≤ 20× the input"): one huge line, many tiny lines, deep nesting,
//! many short interface stanzas, and every command's fixture replicated with its names
//! numbered apart (each copy declares new interfaces), all as a fuzz target receives them.
//! `examples/fuzz_smoke.rs --adversarial BYTES` measures them; the fuzzer's random inputs
//! (at most 64 KiB) seldom reach these shapes at these sizes.

use std::path::Path;

/// One input: a short name saying what it is, and its bytes (selector byte included).
pub struct Case {
    pub name: String,
    pub data: Vec<u8>,
}

/// Lines from `line(i)` until `size` bytes (cut there), after `prefix`.
fn fill(prefix: &[u8], size: usize, line: &dyn Fn(usize) -> String) -> Vec<u8> {
    let mut out = prefix.to_vec();
    let mut i = 0;
    while out.len() < size {
        out.extend_from_slice(line(i).as_bytes());
        i += 1;
    }
    out.truncate(size.max(prefix.len()));
    out
}

/// A short stanza declaring one interface numbered `i`, in the platform's config syntax.
fn stanza(platform: &str, i: usize) -> String {
    let (a, b) = (i / 64 + 1, i % 64 + 1);
    match platform {
        "nxos" => format!("interface Ethernet{a}/{b}\n"),
        "eos" => format!("interface Ethernet{a}/{b}\n"),
        "onyx" => format!("interface ethernet {a}/{b} mtu 9216\n"),
        "os10" => format!("interface ethernet1/{a}/{b}\n"),
        "junos" => format!("set interfaces et-{a}/0/{b} mtu 9216\n"),
        "cumulus" => format!("nv set interface swp{i} link mtu 9216\n"),
        "sonic" => format!("\"Ethernet{i}\": {{\"mtu\": \"9100\"}},\n"),
        _ => format!("{i}: eth{i}: <BROADCAST,UP> mtu 9000 state UP\n"),
    }
}

/// A short stanza of a port that draws a finding from most interface rules: PFC on without
/// a lossless priority, MTU 1500, nothing else (six findings a port: DSCP trust, ECN, PFC on
/// the priority, the no-drop chain, two of scheduling), where the platform's syntax has one.
fn lossless_stanza(platform: &str, i: usize) -> Option<String> {
    let (a, b) = (i / 64 + 1, i % 64 + 1);
    match platform {
        "eos" => Some(format!(
            "interface Ethernet{a}/{b}\n   mtu 1500\n   priority-flow-control on\n"
        )),
        "nxos" => Some(format!(
            "interface Ethernet{a}/{b}\n  mtu 1500\n  priority-flow-control mode on\n"
        )),
        _ => None,
    }
}

/// (the command, a head, the line numbered `i`): see [`conflict_lines`].
type ConflictLines = (&'static str, &'static str, fn(usize) -> String);

/// Lines each of which contradicts an earlier one (PARSE012), for the platforms that check
/// conflicts: (the command whose output they are, a head declaring what they name, the line
/// numbered `i`). Before issue 19's bound, one NX-OS policy of two classes matching
/// `dscp 0-63` was 64 conflicts of ~400 bytes from 45 bytes.
fn conflict_lines(platform: &str) -> Option<ConflictLines> {
    match platform {
        "nxos" => Some((
            "running-config",
            "class-map type qos match-any A\n  match dscp 0-63\n\
             class-map type qos match-any B\n  match dscp 0-63\n",
            |i| format!("policy-map type qos P{i}\n  class A\n  class B\n"),
        )),
        "eos" => Some(("running-config", "", |i| {
            let (a, b) = (i / 64 + 1, i % 64 + 1);
            format!(
                "interface Ethernet{a}/{b}\n   service-policy type qos input A\n   \
                 service-policy type qos input B\n"
            )
        })),
        "cumulus" => Some(("traffic-conf", "", |i| {
            let all: Vec<String> = (0..64).map(|v| v.to_string()).collect();
            format!(
                "traffic.cos_{}.priority_source.dscp = [{}]\n",
                i % 8,
                all.join(",")
            )
        })),
        _ => None,
    }
}

/// `text` repeated to `size` bytes; in copy k every word that starts with a letter and holds
/// a digit gets `k` appended to its last digit run (`Ethernet1/1` → `Ethernet1/17`), so each
/// copy names new interfaces instead of repeating the first copy's.
fn replicated(prefix: &[u8], text: &str, size: usize) -> Vec<u8> {
    let mut out = prefix.to_vec();
    let mut k = 0usize;
    while out.len() < size && !text.is_empty() {
        for line in text.split_inclusive('\n') {
            out.extend_from_slice(numbered(line, k).as_bytes());
        }
        k += 1;
    }
    out.truncate(size.max(prefix.len()));
    out
}

fn numbered(line: &str, k: usize) -> String {
    if k == 0 {
        return line.to_string();
    }
    let mut out = String::with_capacity(line.len() + 8);
    let mut word = String::new();
    let flush = |w: &mut String, out: &mut String| {
        let starts_alpha = w.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
        match w.rfind(|c: char| c.is_ascii_digit()) {
            Some(end) if starts_alpha => {
                out.push_str(&w[..=end]);
                out.push_str(&k.to_string());
                out.push_str(&w[end + 1..]);
            }
            _ => out.push_str(w),
        }
        w.clear();
    };
    for c in line.chars() {
        if c.is_whitespace() || matches!(c, '"' | ',' | ':' | '{' | '}' | '[' | ']' | ';') {
            flush(&mut word, &mut out);
            out.push(c);
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The first fixture case (`fixtures/<platform>/<id>/*.txt`, else any file) of a command.
fn fixture(root: &Path, platform: &str, id: &str) -> Option<String> {
    let dir = root.join("fixtures").join(platform).join(id);
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_none_or(|e| e != "md"))
        .collect();
    files.sort_by_key(|p| (p.extension().is_none_or(|e| e != "txt"), p.clone()));
    files
        .into_iter()
        .find_map(|p| std::fs::read_to_string(p).ok())
}

/// The config fixture folder of each platform (what `configs/` holds).
fn config_id(platform: &str) -> &'static str {
    match platform {
        "junos" => "show-configuration",
        "cumulus" => "nv-config-show",
        "sonic" => "config-db-json",
        "os10" => "running-config",
        _ => "running-config",
    }
}

/// The shapes every text reader gets: one line, tiny lines, deep nesting.
fn shapes(prefix: &[u8], size: usize) -> Vec<Case> {
    let case = |name: &str, data: Vec<u8>| Case {
        name: name.into(),
        data,
    };
    vec![
        case("one-line", fill(prefix, size, &|_| "x".repeat(4096))),
        case("tiny-lines", fill(prefix, size, &|_| "a\n".into())),
        case(
            "deep-nesting",
            fill(prefix, size, &|i| {
                if i % 2 == 0 {
                    "interfaces {\n".into()
                } else {
                    format!("et-0/0/{} {{\n", i % 48)
                }
            }),
        ),
        case("deep-brackets", fill(prefix, size, &|_| "[{\"a\":".into())),
    ]
}

/// The adversarial inputs of `target` at `size` bytes. `root` is the repository (fixtures).
pub fn cases(target: &str, root: &Path, size: usize) -> Vec<Case> {
    let platform_cases = |platform: &str, prefix: &[u8]| {
        let mut v = shapes(prefix, size);
        v.push(Case {
            name: "stanzas".into(),
            data: fill(prefix, size, &|i| stanza(platform, i)),
        });
        if platform == "junos" {
            // `deactivate` lines apply wherever they stand: each statement is tested
            // against every one (issue 19: this was deactivate lines × statements).
            v.push(Case {
                name: "deactivated".into(),
                data: fill(prefix, size, &|i| {
                    let (a, b) = (i / 64 + 1, i % 64 + 1);
                    if i % 2 == 0 {
                        format!("deactivate interfaces et-{a}/1/{b}\n")
                    } else {
                        format!("set interfaces et-{a}/0/{b} mtu 9216\n")
                    }
                }),
            });
        }
        if let Some(t) = fixture(root, platform, config_id(platform)) {
            v.push(Case {
                name: format!("replicated {}", config_id(platform)),
                data: replicated(prefix, &t, size),
            });
        }
        v
    };
    // `prefix` + the command's selector (its place among the platform's commands, after
    // the config's 0) + the conflicting lines.
    let conflicts = |platform: &str, prefix: &[u8]| -> Option<Case> {
        let (id, head, line) = conflict_lines(platform)?;
        let selector = if id == config_id(platform) {
            0
        } else {
            let ids = super::parsers()
                .platforms
                .iter()
                .find(|x| x.id == platform)?
                .commands
                .iter()
                .position(|c| c.id == id)?;
            u8::try_from(ids + 1).ok()?
        };
        let mut start = prefix.to_vec();
        start.push(selector);
        start.extend_from_slice(head.as_bytes());
        Some(Case {
            name: "conflicts".into(),
            data: fill(&start, size, &line),
        })
    };
    if let Some(p) = target.strip_prefix("platform_") {
        let mut v = platform_cases(p, &[0]);
        v.extend(conflicts(p, &[]));
        let ids: Vec<String> = super::parsers()
            .platforms
            .iter()
            .filter(|x| x.id == p)
            .flat_map(|x| x.commands.iter().map(|c| c.id.clone()))
            .collect();
        for (i, id) in ids.iter().enumerate().take(254) {
            if let Some(t) = fixture(root, p, id) {
                v.push(Case {
                    name: format!("replicated {id}"),
                    data: replicated(&[i as u8 + 1], &t, size),
                });
            }
        }
        return v;
    }
    if target == "reports" {
        return crate::platform::registry::ids()
            .enumerate()
            .flat_map(|(i, p)| {
                let prefix = [i as u8, 0];
                let lossless = lossless_stanza(p, 0).map(|_| Case {
                    name: "lossless-stanzas".into(),
                    data: fill(&prefix, size, &|k| {
                        lossless_stanza(p, k).unwrap_or_default()
                    }),
                });
                platform_cases(p, &prefix)
                    .into_iter()
                    .filter(|c| c.name == "stanzas" || c.name.starts_with("replicated"))
                    .chain(lossless)
                    .chain(conflicts(p, &prefix[..1]))
                    .map(move |mut c| {
                        c.name = format!("{p} {}", c.name);
                        c
                    })
            })
            .collect();
    }
    let mut v = shapes(&[], size);
    let stanza: Option<fn(usize) -> String> = match target {
        "json" | "config_db" => {
            Some(|i| format!("{{\"PORT|Ethernet{i}\": {{\"mtu\": \"9100\"}}}},"))
        }
        "inventory_toml" => Some(|i| format!("[[device]]\nname = \"d{i}\"\n")),
        "inventory_yaml" => Some(|i| format!("    d{i}:\n")),
        "fabric_toml" => Some(|i| format!("[[link]]\na = \"s{i}:e1\"\nb = \"t{i}:e2\"\n")),
        "waivers" => Some(|i| format!("[[waiver]]\nrule = \"PFC{i}\"\nreason = \"r\"\n")),
        _ => None,
    };
    if let Some(s) = stanza {
        let head: &[u8] = match target {
            "json" | "config_db" => b"[",
            "inventory_yaml" => b"all:\n  hosts:\n",
            _ => b"",
        };
        v.push(Case {
            name: "stanzas".into(),
            data: fill(head, size, &s),
        });
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_name_new_interfaces_and_sizes_are_exact() {
        assert_eq!(
            numbered("interface Ethernet1/12 mtu 9216\n", 3),
            "interface Ethernet1/123 mtu 9216\n"
        );
        assert_eq!(numbered("\"swp4\": 1", 7), "\"swp47\": 1");
        let c = replicated(&[0], "interface Ethernet1/1\n", 1000);
        assert_eq!(c.len(), 1000);
        assert!(String::from_utf8_lossy(&c).contains("Ethernet1/12\n"));
        for c in shapes(&[0], 4096) {
            assert_eq!(c.data.len(), 4096, "{}", c.name);
        }
    }
}
