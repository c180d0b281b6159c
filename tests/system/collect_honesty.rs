//! Collection and probe honesty (issue 17, item 9), run as a user runs the CLI against emulated
//! devices on 127.0.0.1: each device's commands counted by how they ended, one summary line per
//! distinct cause with its device count, a probe run that produced nothing is not a success,
//! and the README's emulator walkthrough shows leaf4's planted uplink faults.

use crate::collect_emulated::{
    Lab, device, fast_and_hanging_inventory, inventory_entry, nxos_device, stderr,
};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_fabric-audit");

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// "collected (4 commands)" hid that half of them were refused by the device; 5 devices with
/// one login problem printed 5 near-identical lines (28 on a real run).
#[test]
fn collect_counts_every_devices_commands_and_groups_failures_by_cause() {
    let lab = Lab::new("honesty");
    let mut kh = String::new();
    let mut inv = String::new();
    let mut addrs = Vec::new();
    for n in ["ok1", "ok2"] {
        let a = lab.serve(nxos_device(n));
        kh.push_str(&lab.known_hosts_line(a, lab.host_key.public_key()));
        addrs.push((n.to_string(), a, ""));
    }
    for i in 1..=5 {
        let n = format!("badauth{i}");
        let a = lab.serve(nxos_device(&n));
        kh.push_str(&lab.known_hosts_line(a, lab.host_key.public_key()));
        addrs.push((
            n,
            a,
            "identity_file = []\nagent = false\npassword_env = \"FA_WRONG_PW\"\n",
        ));
    }
    let khf = lab.write("known_hosts", &kh);
    inv.push_str(&format!(
        "[defaults]\nuser = \"audit\"\nplatform = \"nxos\"\nidentity_file = \"{}\"\nknown_hosts = \"{}\"\nretries = 0\n",
        lab.client_key_file.display(),
        khf.display()
    ));
    for (n, a, extra) in &addrs {
        inv.push_str(&inventory_entry(n, *a, extra));
    }
    let invf = lab.write("inventory.toml", &inv);
    let snap = lab.dir.join("snap");
    let out = lab.run(
        &[
            "collect",
            "--inventory",
            invf.to_str().unwrap(),
            "--out",
            snap.to_str().unwrap(),
            "--ssh-config",
            "none",
        ],
        &[("FA_WRONG_PW", "not-the-password")],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    // The emulated NX-OS switch answers `show running-config` and `show interface`, and
    // rejects the other two NX-OS commands with `% Invalid command`.
    for n in ["ok1", "ok2"] {
        assert!(
            err.lines()
                .any(|l| l.contains(&format!(" {n} collected (4 commands: 2 ok, 2 rejected,"))),
            "{n}: no per-device command status in:\n{err}"
        );
    }
    assert!(
        err.contains("collected 2 of 7 devices") && err.contains("8 commands: 4 ok, 4 rejected"),
        "{err}"
    );
    // Each rejected command once, with the devices it hit.
    let rejected: Vec<&str> = err.lines().filter(|l| l.contains(" rejected: ")).collect();
    assert_eq!(rejected.len(), 2, "{err}");
    assert!(
        rejected
            .iter()
            .all(|l| l.contains("% Invalid command") && l.ends_with("2 devices (ok1, ok2)")),
        "{err}"
    );
    // One authentication problem on five devices is one line, with the count.
    let auth: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("authentication"))
        .collect();
    assert_eq!(auth.len(), 1, "{err}");
    assert!(
        auth[0].contains("5 devices (badauth1, badauth2, badauth3, … +2)"),
        "{err}"
    );
    assert!(auth[0].contains("FA_WRONG_PW"), "{err}");
}

/// A probe run in which every test failed used to exit 0 (its findings are warnings).
#[test]
fn a_probe_run_with_no_result_exits_2() {
    let lab = Lab::new("probe-none");
    let mut kh = String::new();
    let mut inv = String::new();
    let mut entries = String::new();
    for n in ["gpu01", "gpu02"] {
        let a = lab.serve(device(
            &root().join(format!("fixtures/emulator/demo/{n}.toml")),
        ));
        kh.push_str(&lab.known_hosts_line(a, lab.host_key.public_key()));
        entries.push_str(&inventory_entry(n, a, "interfaces = [\"eth2\"]\n"));
    }
    let khf = lab.write("known_hosts", &kh);
    inv.push_str(&format!(
        "[defaults]\nuser = \"audit\"\nplatform = \"linux\"\nidentity_file = \"{}\"\nknown_hosts = \"{}\"\n{entries}",
        lab.client_key_file.display(),
        khf.display()
    ));
    let invf = lab.write("inventory.toml", &inv);
    let out = lab.run(
        &[
            "probe",
            "--inventory",
            invf.to_str().unwrap(),
            "--ssh-config",
            "none",
            "--tools",
            "path-mtu",
            "--format",
            "json",
        ],
        &[],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no probe produced a result (2 probe(s): 2 failed)"),
        "{err}"
    );
    // The results are still reported, in the published report schema.
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["probes"].as_array().unwrap().len(), 2, "{report:#}");
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schemas/report.schema.json")).unwrap(),
    )
    .unwrap();
    let errs = crate::common::schema::errors(&schema, &report);
    assert!(errs.is_empty(), "{errs:#?}");
}

/// Consecutive free ports on 127.0.0.1 for `n` emulated devices.
fn free_base(n: u16) -> u16 {
    let mut base = 20_000 + (std::process::id() % 20_000) as u16;
    loop {
        if (0..n).all(|i| std::net::TcpListener::bind(("127.0.0.1", base + i)).is_ok()) {
            return base;
        }
        base = base.wrapping_add(n + 7).max(20_000);
    }
}

/// `fabric-audit emulate` as the README's walkthrough starts it; returns once it is ready.
fn emulate_demo(dir: &Path, fabric: bool) -> (Child, PathBuf) {
    let key = dir.join("key");
    let st = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(&key)
        .status()
        .unwrap();
    assert!(st.success());
    let mut devices: Vec<PathBuf> = std::fs::read_dir(root().join("fixtures/emulator/demo"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    devices.sort();
    let inv = dir.join("inv.toml");
    let base = free_base(devices.len() as u16);
    let mut c = Command::new(BIN);
    c.arg("emulate")
        .arg("--device")
        .args(&devices)
        .args(["--listen", &format!("127.0.0.1:{base}")]);
    c.arg("--authorized-key")
        .arg(dir.join("key.pub"))
        .arg("--known-hosts-out")
        .arg(dir.join("kh"))
        .arg("--inventory-out")
        .arg(&inv);
    if fabric {
        c.arg("--fabric")
            .arg(root().join("fixtures/demo-fabric/fabric.toml"));
    }
    let mut child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    let t0 = Instant::now();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(
        line.starts_with("ready:") && t0.elapsed() < Duration::from_secs(30),
        "{line}"
    );
    // The README's sed: the key the emulated devices accept.
    let text = std::fs::read_to_string(&inv).unwrap().replace(
        "[defaults]\n",
        &format!(
            "[defaults]\nidentity_file = {:?}\n",
            key.display().to_string()
        ),
    );
    std::fs::write(&inv, text).unwrap();
    (child, inv)
}

struct Kill(Child);
impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn audit_table(dir: &Path, inv: &Path, snap: &Path) -> (Option<i32>, String, String) {
    let out = Command::new(BIN)
        .args(["audit", "--inventory"])
        .arg(inv)
        .arg(snap)
        .args(["--ssh-config", "none", "-q"])
        .env("HOME", dir)
        .env("COLUMNS", "200")
        .env_remove("SSH_AUTH_SOCK")
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr(&out),
    )
}

/// The README walkthrough: with only the hosts' LLDP, leaf4's uplinks are in no link, so its
/// planted uplink faults were not audited and that was an info the default output hides; now
/// it is a warning naming the ports. With the cabling plan (`emulate --fabric`), the uplinks
/// are audited and leaf4's PFC001/ECN001 errors show.
#[test]
fn the_readme_emulator_walkthrough_shows_leaf4s_uplinks() {
    let lab = Lab::new("walkthrough");
    for fabric in [false, true] {
        let dir = lab.dir.join(if fabric { "plan" } else { "lldp" });
        std::fs::create_dir_all(&dir).unwrap();
        let (child, inv) = emulate_demo(&dir, fabric);
        let _emu = Kill(child);
        let snap = dir.join("snap");
        let (code, table, err) = audit_table(&dir, &inv, &snap);
        assert_eq!(code, Some(1), "{err}\n{table}");
        let rows: Vec<&str> = table.lines().collect();
        if fabric {
            // Each leaf4 uplink row is an error, and its rows (with the findings grouped
            // under them) name the planted PFC001 and ECN001.
            let at: Vec<usize> = (0..rows.len())
                .filter(|&i| rows[i].contains("leaf4 Ethernet1/50"))
                .collect();
            assert!(!at.is_empty(), "leaf4 Ethernet1/50 not shown:\n{table}");
            let mut blocks = String::new();
            for &i in &at {
                assert!(rows[i].starts_with(" error"), "{}", rows[i]);
                blocks.push_str(&rows[i..(i + 4).min(rows.len())].join("\n"));
            }
            assert!(
                blocks.contains("ECN001") && blocks.contains("PFC001"),
                "{blocks}"
            );
        } else {
            let topo = rows
                .iter()
                .find(|l| l.contains("TOPO005") && l.contains("leaf4"))
                .unwrap_or_else(|| panic!("no TOPO005 for leaf4 in the default output:\n{table}"));
            assert!(topo.starts_with(" warning"), "{topo}");
            let json = Command::new(BIN)
                .args(["audit", "--format", "json"])
                .arg(&snap)
                .output()
                .unwrap();
            let report: Value = serde_json::from_slice(&json.stdout).unwrap();
            let f = report["findings"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["rule"] == "TOPO005" && f["device"] == "leaf4")
                .unwrap();
            assert_eq!(f["severity"], "warning");
            let msg = f["message"].as_str().unwrap();
            assert!(
                msg.contains("Ethernet1/49, Ethernet1/50") && msg.contains("inter-switch"),
                "{msg}"
            );
        }
    }
}

/// Issue 18, item 3: the command runner returns outputs in memory (nothing written), runs only
/// the `counters` commands when asked, and keeps its login: a second read of an emulated SONiC
/// switch whose counters moved sees the new values over the same session.
#[test]
fn the_command_runner_reads_counters_in_memory_over_one_login() {
    use fabric_audit::collect::run::Runner;
    use std::sync::atomic::Ordering;
    let lab = Lab::new("runner");
    let pfc = lab.write(
        "pfc.txt",
        &std::fs::read_to_string(root().join("fixtures/sonic/show-pfc-counters/roce-leaf.txt"))
            .unwrap(),
    );
    let mut sw = fabric_audit::collect::emulator::Device {
        platform: "sonic".into(),
        hostname: "sw1".into(),
        exec: true,
        page_lines: 24,
        ..Default::default()
    };
    sw.live.insert("show pfc counters".into(), pfc.clone());
    sw.live.insert(
        "show queue counters".into(),
        root().join("fixtures/sonic/show-queue-counters/ethernet0.txt"),
    );
    let logins = sw.logins.clone();
    let received = sw.received.clone();
    let a = lab.serve(sw);
    let khf = lab.write(
        "known_hosts",
        &lab.known_hosts_line(a, lab.host_key.public_key()),
    );
    let invf = lab.write(
        "inventory.toml",
        &format!(
            "[defaults]\nuser = \"audit\"\nplatform = \"sonic\"\nidentity_file = \"{}\"\nknown_hosts = \"{}\"\n{}",
            lab.client_key_file.display(),
            khf.display(),
            inventory_entry("sw1", a, "")
        ),
    );
    let inv = fabric_audit::collect::inventory::Inventory::load(&invf, None).unwrap();
    let parsers = fabric_audit::load_parsers(None).unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (_tx, rx) = tokio::sync::watch::channel(false);
    let before_files: Vec<_> = std::fs::read_dir(&lab.dir).unwrap().collect();
    rt.block_on(async {
        let runner = Runner::new(&inv.targets, parsers, false, 4, rx).unwrap();
        let first = runner.run(&inv.targets, true).await;
        assert_eq!(first.len(), 1);
        let o = &first[0];
        assert_eq!(o.outcome.status, "collected", "{:?}", o.outcome);
        let texts: Vec<(String, String)> = o.texts().map(|(c, t)| (c.to_string(), t)).collect();
        let cmds: Vec<&str> = texts.iter().map(|(c, _)| c.as_str()).collect();
        assert!(cmds.contains(&"show pfc counters"), "{cmds:?}");
        assert!(cmds.contains(&"show queue counters"), "{cmds:?}");
        assert!(texts.iter().any(|(_, t)| t.contains("1,204,551")));
        assert_eq!(runner.logged_in().await, 1);
        // The counters move; the second read sees them, without a second login.
        let moved = std::fs::read_to_string(&pfc)
            .unwrap()
            .replace("1,204,551", "1,204,999");
        std::fs::write(&pfc, moved).unwrap();
        let second = runner.run(&inv.targets, true).await;
        assert!(
            second[0]
                .texts()
                .any(|(c, t)| c == "show pfc counters" && t.contains("1,204,999"))
        );
        assert_eq!(logins.load(Ordering::Relaxed), 1, "a second login");
        runner.close().await;
        assert_eq!(runner.logged_in().await, 0);
    });
    // Only counter commands were sent (no configuration read), and nothing was written.
    let sent = received.lock().unwrap().clone();
    assert!(
        sent.iter()
            .all(|c| c == "show pfc counters" || c == "show queue counters"),
        "{sent:?}"
    );
    assert_eq!(sent.len(), 4, "{sent:?}");
    let after_files: Vec<_> = std::fs::read_dir(&lab.dir).unwrap().collect();
    assert_eq!(before_files.len(), after_files.len());
}

/// Ctrl-C during `audit --inventory`: the snapshot is finished with what was collected, the
/// audit is not run on a half collection, and the exit status is 130 (it was 0 or 1).
#[test]
fn ctrl_c_during_audit_inventory_exits_130_after_writing_the_snapshot() {
    let lab = Lab::new("sigint-audit");
    let invf = fast_and_hanging_inventory(&lab);
    let snap = lab.dir.join("snap");
    let child = Command::new(BIN)
        .args(["audit", "--inventory"])
        .arg(&invf)
        .arg(&snap)
        .args(["--ssh-config", "none", "--format", "json"])
        .env("HOME", &lab.dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = ctrl_c_once_fast_is_written(child, &snap, 300, 15, "audit --inventory");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("collection interrupted"), "{err}");
    assert!(out.stdout.is_empty(), "no report of a half collection");
    let journal = std::fs::read_to_string(snap.join("collection.toml")).unwrap();
    assert!(journal.contains("state = \"interrupted\""), "{journal}");
}

/// Ctrl-C on a collection of many devices printed a line or two per device (584 lines on 300
/// devices): the devices cut short are one line per distinct cause, with the device count.
#[test]
fn ctrl_c_on_many_devices_prints_one_line_per_cause() {
    const HANGING: usize = 12;
    let lab = Lab::new("sigint-many");
    let mut kh = String::new();
    let mut entries = String::new();
    let mut names = vec!["fast".to_string()];
    names.extend((1..=HANGING).map(|i| format!("slow{i:02}")));
    for n in &names {
        let mut d = nxos_device(n);
        if n != "fast" {
            d.hang.insert("show interface".into());
        }
        let a = lab.serve(d);
        kh.push_str(&lab.known_hosts_line(a, lab.host_key.public_key()));
        entries.push_str(&inventory_entry(n, a, ""));
    }
    let khf = lab.write("kh", &kh);
    let inv = lab.write(
        "inv.toml",
        &format!(
            "[defaults]\nuser = \"audit\"\nplatform = \"nxos\"\nidentity_file = \"{}\"\nknown_hosts = \"{}\"\ncommand_timeout = 60\n{entries}",
            lab.client_key_file.display(),
            khf.display(),
        ),
    );
    let snap = lab.dir.join("snap");
    let child = Command::new(BIN)
        .args(["collect", "--inventory"])
        .arg(&inv)
        .arg("--out")
        .arg(&snap)
        .args(["--ssh-config", "none", "--concurrency", "8"])
        .env("HOME", &lab.dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = ctrl_c_once_fast_is_written(child, &snap, 500, 20, "collect");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(130), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    // No line names one slow device alone; the interrupted ones are counted on a few lines.
    let alone: Vec<&&str> = lines
        .iter()
        .filter(|l| names[1..].iter().any(|n| l.contains(&format!(" {n} "))))
        .collect();
    assert!(alone.is_empty(), "a line per device:\n{err}");
    assert!(
        lines.len() <= 8,
        "{} lines for {} devices:\n{err}",
        lines.len(),
        names.len()
    );
    let counted: usize = lines
        .iter()
        .filter(|l| l.contains("interrupted"))
        .filter_map(|l| {
            let (_, rest) = l.rsplit_once(": ")?;
            rest.split(" device").next()?.trim().parse::<usize>().ok()
        })
        .sum();
    assert_eq!(counted, HANGING, "every slow device counted once:\n{err}");
}

/// Waits (at most 20 s) until the device `fast` is in the snapshot, lets `settle_ms` pass,
/// sends SIGINT and waits at most `limit_s` for the process to end.
fn ctrl_c_once_fast_is_written(
    mut child: std::process::Child,
    snap: &std::path::Path,
    settle_ms: u64,
    limit_s: u64,
    what: &str,
) -> std::process::Output {
    let t0 = Instant::now();
    while !snap.join("devices/fast/device.toml").exists() && t0.elapsed() < Duration::from_secs(20)
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(settle_ms));
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let t1 = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t1.elapsed() > Duration::from_secs(limit_s) {
            let _ = child.kill();
            panic!("{what} did not stop after Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}
