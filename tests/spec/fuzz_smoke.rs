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

/// Every adversarial input of every target (`src/fuzzing/adversarial.rs`: one long line, `a\n`
/// lines, brace and bracket nesting, short interface stanzas, every command's fixture replicated
/// with new names in each copy, TOML header lines of `[{"a":`, and for `reports` EOS and NX-OS
/// ports that each draw six findings; 194 inputs), with every row checked to be there.
fn whole_run(size: usize) -> (Vec<(String, String, f64)>, String) {
    let (rows, t) = adversarial(size, "", &[]);
    assert!(rows.len() >= 194, "{} rows\n{t}", rows.len());
    (rows, t)
}

/// Ports that each draw six findings in `reports` (1 MiB or 64 KiB of `interface EthernetA/B`
/// stanzas with MTU 1500 and PFC on but no lossless priority, 62 bytes a port): the inputs
/// issue 19's memory bound was last met on. 68.5× (EOS) and 55.3× (NX-OS) at 1 MiB on
/// 2026-12-04; 37×/31× once findings shared their message shapes and evidence; 22.0×/20.1×
/// once a finding was a 64-byte record of a shared kind and its object, "could not decide"
/// findings shared one list of ports and the fix plan kept its steps once; within 20× since
/// 2026-12-05 (18.3×/16.5× at 1 MiB, 19.9×/17.5× at 64 KiB): the HTML, SARIF and JUnit
/// reports no longer list the findings they write, the fix questions' config index holds
/// 32-bit lines and keeps only answers worth keeping, and a port's rule view keeps nothing
/// until a rule reads a field worth keeping. Below 64 KiB they are still over (see
/// [`at_16_kib_every_adversarial_input_but_three_stays_within_20_times`]).
const LOSSLESS_PORTS: [(&str, &str); 2] = [
    ("reports", "eos lossless-stanzas"),
    ("reports", "nxos lossless-stanzas"),
];

/// Issue 19, "peak memory ≤ 20× the input size", on every adversarial input at 1 MiB. Peak
/// heap is counted per input by the example's allocator, measured warm (the parsers and
/// rules loaded, and each command's line memo, are the fixed base, not the input's). Met on
/// all but the [`LOSSLESS_PORTS`] since 2026-12-02 23:40, on those too since 2026-12-05
/// (18.3× at most; 0b3ef1b: 37.4×, f1b5ec5: 22.0×); what each cut did is in SECURITY.md
/// "Fuzzing" and docs/verification/issue-19.md. Some of the way there, at 1 MiB: interface
/// stanzas 187-260× → 10-11× (the port 1,720 bytes inline → 200, its facts held only once
/// known and shared when equal), TOML 54-70× → 17× (read a top-level piece at a time),
/// Ansible YAML 93× → 16.8×, `reports` on stanzas 1,277-2,355× → under 19× (the model
/// streamed, SARIF written as produced, findings' evidence compact).
#[test]
fn every_adversarial_input_stays_within_20_times() {
    within_20_times_but(1 << 20, &[], 20.0);
}

/// The same at 64 KiB, where no port bound applies (1 MiB of stanzas reaches the 16,384-port
/// bound, so 64 KiB builds more ports per byte). Failed before 2026-12-04 on one input:
/// `reports` on OS10's running-config replicated, whose interface range `ethernet1/1/1-1/1/2`
/// grows a digit in each copy (`…-1/1/21`, `…-1/1/213`), so a few bytes name hundreds of
/// ports, each with three findings (22.9×). Under 20× since the fix plan names its findings by
/// index and shares equal reasons, the config's index keeps 32-bit offsets and small memo
/// entries, and the Markdown, JUnit and GitHub reports make a row when they write it. The
/// [`LOSSLESS_PORTS`] within it since 2026-12-05 (EOS 19.9×, NX-OS 17.5×; f1b5ec5: 23.6×,
/// 21.8×).
#[test]
fn at_64_kib_every_adversarial_input_stays_within_20_times() {
    within_20_times_but(1 << 16, &[], 20.0);
}

/// Every adversarial input at `size` bytes, but the `known` (target, input) ones, peaks within
/// 20 times its size; the known ones within `ceiling` times, so that what was won on them
/// stays won (the [`LOSSLESS_PORTS`] at 16 KiB: EOS 81.9× and NX-OS 61.3× before findings
/// shared their message shapes and evidence on 2026-12-04, 57.3× and 43.5× after, 32.6× and
/// 28.5× since findings are 64-byte records, 26.6× and 22.0× since the report writers' buffers
/// are 8 KiB, 2026-12-05: the ceiling 28×, which bee296d fails).
fn within_20_times_but(size: usize, known: &[(&str, &str)], ceiling: f64) {
    let (rows, t) = whole_run(size);
    let over: Vec<_> = rows
        .iter()
        .filter(|r| {
            let limit = if known.contains(&(r.0.as_str(), r.1.as_str())) {
                ceiling
            } else {
                20.0
            };
            r.2 > limit
        })
        .collect();
    assert!(over.is_empty(), "{over:?}\n{t}");
}

/// The same at 16 KiB, where a few bytes that name many ports weigh most. Three inputs are
/// over, within 28×: `reports` on OS10's replicated ranges (216 ports, 661 findings; 61×, 43×
/// since the cuts named at 64 KiB, 24.3× and 22.5× since 2026-12-05), whose findings are over
/// 20× such an input, and the [`LOSSLESS_PORTS`] (~260 ports, where what a run costs whatever
/// its size, the fix step's and the report writers' own, is a good part of the peak: EOS
/// 32.6× and NX-OS 28.5× until the report writers' buffers were 64 KiB, the Markdown comment
/// built in three strings of up to 60 KB; 26.6× and 22.0× with 8 KiB buffers and one string,
/// 2026-12-05). Failed on a073320 with six over: Cumulus
/// `traffic.conf` 41× (each port's profile names in a map whose first node was ~700 bytes, and
/// the config's interfaces held whole beside the device's), NCLU 29× (the same), EOS
/// running-config 21.6× and its `reports` 21.8× (each `comment` … `EOF` block compiled its end
/// regex, ~300 KiB for a moment).
#[test]
fn at_16_kib_every_adversarial_input_but_three_stays_within_20_times() {
    let mut known = vec![("reports", "os10 replicated running-config")];
    known.extend(LOSSLESS_PORTS);
    within_20_times_but(1 << 14, &known, 28.0);
}

/// The peak heap `fuzz_smoke TARGET --input FILE` prints for one input (warm).
fn peak_of(target: &str, name: &str, bytes: &[u8]) -> usize {
    let dir = tempdir(name);
    let file = dir.join(name);
    std::fs::write(&file, bytes).unwrap();
    let o = smoke()
        .args([target, "--input"])
        .arg(&file)
        .output()
        .unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    let _ = std::fs::remove_dir_all(&dir);
    t.split("peak ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no peak in {t}"))
}

/// Issue 19: a port a range names costs what its own settings do, not a copy of the range's.
/// One 124-byte NX-OS stanza naming 1,024 ports (the floor every device keeps) with a
/// `service-policy` line held a copy of the policy reference in a four-place list on every
/// port: 967 KB for the device, 944 bytes a port (the fuzz record of `platform_nxos`, 963 KB
/// over 20× at 2.6 KB). The ports share the line's one copy now: 561 KB.
#[test]
fn the_ports_of_an_nxos_range_share_its_service_policy() {
    // The first byte is the fuzz target's file-kind selector (0: a config).
    let input = b"\0interface Ethernet2/5-1136, Ethernet1/10\n  mtu 9216\n  \
                  priority-flow-control mode on\n  service-policy type qos input QOS-IN\n";
    let peak = peak_of("platform_nxos", "nxos-range-policy", input);
    assert!(peak < 700_000, "{peak} bytes at peak for 1,024 ports");
}

/// Issue 19: the NX-OS reader keeps no more ports than the device does. 15 range lines of
/// 1,100 ports (1,057 bytes) held 15,400 ports in the reader's table, 4.46 MB, for a device
/// of 1,046; 0.83 MB now (its ports, and each name past the bound counted once by its hash).
/// The counts the CLI reports are checked in hostile_cost.rs
/// (`nxos_ranges_past_the_port_bound_are_counted_once_not_held`).
#[test]
fn the_nxos_reader_holds_no_port_past_the_device_bound() {
    let mut input = vec![0u8];
    for k in 1..=15 {
        input.extend(
            format!("interface Ethernet{k}/1-1100\n  mtu 9216\n  priority-flow-control mode on\n")
                .bytes(),
        );
    }
    let peak = peak_of("platform_nxos", "nxos-ranges-past-bound", &input);
    assert!(
        peak < 1_200_000,
        "{peak} bytes at peak for a device of 1,046 ports"
    );
}

/// Issue 19: an inventory whose header line has a key toml refuses (a NUL in it, as the
/// `inventory_toml` fuzz run wrote) was read whole by toml only to name that error, its tree
/// 96 times the text at every size (a 75 KB inventory: 7.3 MB). It fails on that header
/// now, with toml's own error, reading the text before it in pieces: within 20 times.
#[test]
fn an_inventory_with_an_undecodable_header_stays_within_20_times() {
    let mut input = String::new();
    for i in 0..1_000 {
        input.push_str(&format!(
            "[[device]]\nname = \"leaf{i}\"\nplatform = \"sonic\"\n[[link]]\na = \"gpu{i}:eth2\"\nb = \"leaf{i}:Ethernet0\"\ncable_m = 3\n"
        ));
    }
    input.push_str("[[link\0dev]]\nname = \"x\"\n");
    let peak = peak_of(
        "inventory_toml",
        "inventory-undecodable-header",
        input.as_bytes(),
    );
    assert!(
        peak <= 20 * input.len(),
        "{peak} bytes at peak for {} bytes",
        input.len()
    );
}
