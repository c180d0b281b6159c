//! The fuzzing smoke run of every CI run (issue 19, SECURITY.md "Fuzzing"): the
//! `examples/fuzz_smoke` program runs every fuzz target's entry point on its seeds (the
//! fixtures and, with FABRIC_AUDIT_CORPUS, the real corpus) and on mutations of them for one
//! second each, and fails on a panic, an input over 10 s, or an input whose peak memory (its
//! own allocator counts it) exceeds 1,000 × its size + 32 MiB. The harness's own checks show
//! it does catch a panic and a memory blow-up.

use std::path::PathBuf;
use std::process::{Command, Output};

/// `target/<profile>/examples/fuzz_smoke`, which `cargo test` builds with the tests.
fn smoke() -> Command {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().and_then(|d| d.parent()).unwrap();
    let bin: PathBuf = dir.join("examples").join("fuzz_smoke");
    assert!(
        bin.exists(),
        "{} is missing: `cargo test` builds the examples",
        bin.display()
    );
    let mut c = Command::new(bin);
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn every_fuzz_target_survives_a_second_of_mutations() {
    let out_dir = tempdir("fuzz-smoke");
    let o = smoke()
        .args(["--seconds", "1", "--out"])
        .arg(&out_dir)
        .output()
        .unwrap();
    let t = text(&o);
    // The figures go to the test log.
    println!("{t}");
    assert!(o.status.success(), "{t}");
    let rows: Vec<Vec<&str>> = t
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .filter(|r: &Vec<&str>| r.len() == 6)
        .collect();
    for target in fabric_audit::fuzzing::smoke::TARGETS {
        let r = rows
            .iter()
            .find(|r| r[0] == target)
            .unwrap_or_else(|| panic!("{target} did not run:\n{t}"));
        let (inputs, seeds): (u64, u64) = (r[1].parse().unwrap(), r[2].parse().unwrap());
        assert!(seeds >= 1, "{target} has no seed input:\n{t}");
        assert!(inputs > seeds + 10, "{target}: mutations did not run:\n{t}");
        assert_eq!(r[5], "0", "{target} failed:\n{t}");
    }
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn the_harness_catches_a_panic_and_a_memory_blow_up() {
    let out_dir = tempdir("fuzz-selfcheck");
    let o = smoke()
        .args(["--seconds", "0.2", "--out"])
        .arg(&out_dir)
        .arg("selfcheck_panic")
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("FAIL selfcheck_panic crash: panicked"), "{t}");
    let saved: Vec<_> = std::fs::read_dir(out_dir.join("selfcheck_panic"))
        .unwrap()
        .flatten()
        .collect();
    assert!(!saved.is_empty(), "the crashing input is saved");
    // 1,000 bytes held per input byte, against 20 × + 0.
    let o = smoke()
        .args([
            "--seconds",
            "0.2",
            "--ratio",
            "20",
            "--allowance",
            "0",
            "--out",
        ])
        .arg(&out_dir)
        .arg("selfcheck_memory")
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("FAIL selfcheck_memory oom"), "{t}");
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn every_fuzz_target_is_a_smoke_target() {
    let mut names: Vec<String> =
        std::fs::read_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz/fuzz_targets"))
            .unwrap()
            .flatten()
            .map(|e| e.path().file_stem().unwrap().to_string_lossy().to_string())
            .collect();
    names.sort();
    let mut known: Vec<String> = fabric_audit::fuzzing::smoke::TARGETS
        .iter()
        .map(|s| s.to_string())
        .collect();
    known.sort();
    assert_eq!(names, known);
}

fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fa-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The adversarial inputs' table (`fuzz_smoke --adversarial`): (target, input, ratio) rows.
fn adversarial(size: usize, cases: &str, targets: &[&str]) -> (Vec<(String, String, f64)>, String) {
    let o = smoke()
        .args(["--adversarial", &size.to_string(), "--cases", cases])
        .args(targets)
        .output()
        .unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    let rows = t
        .lines()
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|r| r.len() == 6 && r[1] != "input")
        .map(|r| {
            (
                r[0].to_string(),
                r[1].to_string(),
                r[4].parse().unwrap_or(f64::MAX),
            )
        })
        .collect();
    (rows, t)
}

/// Issue 19, "peak memory ≤ 20× the input size", on what holds today at 1 MiB: a single
/// 1 MiB line, 1 MiB of nesting (braces, brackets) and 1 MiB of `a\n` lines on every platform
/// reader (`a\n` lines: 21.5× on NX-OS and EOS while their conflict check split every file
/// into a line list up front; 13.8× since), Cumulus NVUE stanzas, Cumulus `traffic.conf`
/// replicated (244× while its build serialized the whole device for drift; 13× since) and
/// Cumulus NCLU replicated (30× before a port's PFC and watchdog were shared; 15.7× since),
/// and the shapes of `within` below.
/// Peak heap is counted per input by the example's allocator, measured warm (the parsers and
/// rules loaded are the fixed base, not the input's).
#[test]
fn one_mebibyte_adversarial_inputs_stay_within_20_times_where_shown() {
    let platforms: Vec<String> = fabric_audit::fuzzing::smoke::TARGETS
        .iter()
        .filter(|t| t.starts_with("platform_"))
        .map(|t| t.to_string())
        .collect();
    let p: Vec<&str> = platforms.iter().map(String::as_str).collect();
    let (rows, t) = adversarial(
        1 << 20,
        "one-line,deep-nesting,deep-brackets,tiny-lines",
        &p,
    );
    assert_eq!(rows.len(), 4 * p.len(), "{t}");
    let (more, t2) = adversarial(
        1 << 20,
        "stanzas,replicated traffic-conf,replicated nclu-commands",
        &["platform_cumulus"],
    );
    assert_eq!(more.len(), 3, "{t2}");
    // Shapes within 20× since this cuts, each with its figure on 2026-12-02 and what
    // it was before.
    let within: &[(&str, &[&str])] = &[
        // Interface stanzas: the port and each reader's per-interface block shrank. NX-OS
        // 10.1× (31×), EOS 10.2× (38.5×), OS10 10.0× (34×), Onyx 10.4× (30.6×), Junos 11.2×
        // (32.6×).
        (
            "stanzas",
            &[
                "platform_nxos",
                "platform_eos",
                "platform_os10",
                "platform_onyx",
                "platform_junos",
            ],
        ),
        // Linux `ibdev2netdev` replicated: a port's RDMA facts beyond device, port and state
        // are held only once written, the reader's records boxed texts (10.4×; 21.9×).
        ("replicated ibdev2netdev", &["platform_linux"]),
        // JSON and CONFIG_DB one-member objects: no growth slack (12.7×; 23.8×). An Ansible
        // inventory of `name:` hosts: targets share their settings, the YAML tree shrank
        // (16.8×; 92.8×). Waivers' short stanzas: TOML read a piece at a time (2.5×; 54×). A
        // TOML inventory's `[[device]]` entries of a name: read a piece at a time, a device's
        // other settings boxed only when set (6.2×; 70×).
        (
            "stanzas",
            &[
                "json",
                "config_db",
                "inventory_yaml",
                "waivers",
                "inventory_toml",
            ],
        ),
        // Every report format of one audit: interface stanzas of every platform and three
        // replicated configurations (SARIF written as it is produced, the review borrowing the
        // audit's findings: NX-OS stanzas 18.6× → 18.9× with the reports, the rest 3-15×).
        (
            "nxos stanzas,eos stanzas,cumulus stanzas,sonic stanzas,onyx stanzas,junos stanzas,\
             os10 stanzas,linux stanzas,cumulus replicated nv-config-show,\
             sonic replicated config-db-json,onyx replicated running-config",
            &["reports"],
        ),
        // The TOML readers on one line, `a\n` lines and nesting (1.2-8.9×; 53× and 23.5×
        // while toml parsed the document whole). A header line of `[{"a":`: its undecodable
        // key found without parsing the line whole (17×; 45×).
        (
            "one-line,tiny-lines,deep-nesting,deep-brackets",
            &["inventory_toml", "fabric_toml", "waivers"],
        ),
        // Every report format on replicated configurations, whose audit holds a few findings
        // per port: a finding's evidence as sorted slices rather than JSON maps (a parse
        // entry's evidence held a B-tree node per unrecognized line), one findings list, ECN008
        // reading each port once, JUnit escaping its cases in place. NX-OS 12.7× (22.1×), EOS
        // 14.0× (25.1×), Junos 15.6× (24.0×), OS10 15.6× (26.0×).
        (
            "nxos replicated running-config,eos replicated running-config,\
             junos replicated show-configuration,os10 replicated running-config",
            &["reports"],
        ),
        // fabric.toml's `[[link]]` stanzas naming no device, two plan notices each: the policy
        // check reads the file in pieces as the snapshot reader does (17.5×; 63.6× while it
        // parsed the document whole).
        ("stanzas", &["fabric_toml"]),
        // SONiC's CLI running-config replicated: each port's QoS parts shared after each pass
        // over the ports, its defaults citing the port's line as the port-line marker (13.1×;
        // 33.2×).
        ("replicated sonic-cli-running-config", &["platform_sonic"]),
    ];
    let mut more = more;
    let mut t2 = t2;
    for (cases, targets) in within {
        let (rows, tx) = adversarial(1 << 20, cases, targets);
        let n = cases.split(',').count() * targets.len();
        assert_eq!(rows.len(), n, "{tx}");
        more.extend(rows);
        t2.push_str(&tx);
    }
    // OS10's running-config replicated (each copy's `interface range` binds its policies to
    // the same ports again): a policy line shared by the ports of its range, a repeat taking
    // the place of the one in force (8.2× and 7.9×; 13.6× and 13.3×). Two rows: the case is
    // the config file's and the command's. Junos's class-of-service configlet replicated (each
    // copy opens inside the last): statements handed on one at a time, not all full paths at
    // once (3.1×; 7.0×).
    for (cases, target, n) in [
        ("replicated running-config", "platform_os10", 2),
        ("replicated class-of-service", "platform_junos", 1),
    ] {
        let (rows, tx) = adversarial(1 << 20, cases, &[target]);
        assert_eq!(rows.len(), n, "{tx}");
        more.extend(rows);
        t2.push_str(&tx);
    }
    // At 64 KiB, where no port bound applies, the shapes brought within 20× there (figures of
    // 2026-12-02, before in brackets): OS10 running-config replicated 12.2× (59.7×), Junos
    // class-of-service replicated 8.2× (42.3×), and a Cumulus one-line file 8.2× (22×: four
    // config commands each made a 311 KB line memo, now sized to the text).
    for (cases, target, n) in [
        ("replicated running-config", "platform_os10", 2),
        ("replicated class-of-service", "platform_junos", 1),
        ("one-line", "platform_cumulus", 1),
    ] {
        let (rows, tx) = adversarial(64 << 10, cases, &[target]);
        assert_eq!(rows.len(), n, "{tx}");
        more.extend(rows);
        t2.push_str(&tx);
    }
    for (target, input, ratio) in rows.iter().chain(&more) {
        assert!(
            *ratio <= 20.0,
            "{target} {input}: {ratio}× its size at peak\n{t}{t2}"
        );
    }
}

/// Issue 19's bound at 64 KiB, where no port bound applies (1 MiB of stanzas reaches the
/// 16,384-port bound, so 64 KiB builds more ports per byte: about 2,800 NX-OS ports), on the
/// shapes brought within 20× there by the port's details boxed (`model::PortDetails`), the
/// name index keyed by hash and the readers' records shrunk. Figures of 2026-12-02, before
/// those cuts in brackets: NX-OS stanzas 15.9× (30.3×), EOS 16.3× (24.7×), OS10 15.7×
/// (22.7×), Junos 14.4× (21.6×), Linux `ibdev2netdev` replicated 14.7× (26.2×), SONiC
/// `pfc-show-priority` replicated 14.1× (24.6×).
/// (The harness warms each case with its first 2 × `parser::MEMO_MIN_TEXT` bytes, so a command's
/// line memo, a fixed 311 KB table made once per command and thread, is not counted as the
/// input's: 4.7× of 64 KiB.)
#[test]
fn sixty_four_kib_port_shapes_stay_within_20_times() {
    let shapes: &[(&str, &[&str])] = &[
        (
            "stanzas",
            &[
                "platform_nxos",
                "platform_eos",
                "platform_os10",
                "platform_junos",
            ],
        ),
        ("replicated ibdev2netdev", &["platform_linux"]),
        ("replicated pfc-show-priority", &["platform_sonic"]),
    ];
    for (cases, targets) in shapes {
        let (rows, t) = adversarial(1 << 16, cases, targets);
        assert_eq!(rows.len(), cases.split(',').count() * targets.len(), "{t}");
        for (target, input, ratio) in &rows {
            assert!(
                *ratio <= 20.0,
                "{target} {input}: {ratio}× its size at peak\n{t}"
            );
        }
    }
}

/// Issue 19's bound on every adversarial input of every target at 1 MiB. Not met yet (figures
/// of 2026-12-02): see SECURITY.md "Fuzzing". Run it with `--ignored` once they are met.
#[test]
#[ignore = "issue 19: per-port model and per-line records exceed 20x (SECURITY.md Fuzzing)"]
fn every_adversarial_input_stays_within_20_times() {
    let (rows, t) = adversarial(1 << 20, "", &[]);
    let over: Vec<_> = rows.iter().filter(|r| r.2 > 20.0).collect();
    assert!(over.is_empty(), "{over:?}\n{t}");
}
