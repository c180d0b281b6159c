//! Probes on the namespace test-bed (scripts/testbed: four hosts behind a bridge, real sshd,
//! h3 with MTU 1500 in a 9000 fabric, h4 reachable only through h1).
//!
//! - real `qperf tcp_lat` between hosts (real numbers, labelled tcp), real `ping -M do` that
//!   fails toward and from h3 and becomes PROBE009 tied to h3's MTU002, and Debian's real
//!   perftest failing for want of an RDMA device, reported with its own words;
//! - a REPLAY: a stand-in `ib_write_lat` on the probe hosts' tool_dir prints a recorded
//!   perftest output (fixtures/probe/perftest/ib_write_lat-roce-slow-*.txt), so the chain
//!   plan → run → parse → counters → finding runs over SSH with RDMA figures;
//! - a stand-in that hangs, ended by the time limit; and Ctrl-C in the middle of a qperf run.
//!   After each, no probe process is left on any host.
//!
//! Needs root (network namespaces); skipped where the test-bed cannot run unless
//! FA_REQUIRE_TESTBED=1 (set by scripts/test as root).

use crate::common;

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const NET: &str = "10.80.0";
const PREFIX: &str = "fap";

/// Processes in the hosts' namespaces other than the test-bed's own daemons.
fn leftovers() -> Vec<String> {
    let mut out = Vec::new();
    for n in 1..=4 {
        let ns = format!("{PREFIX}-h{n}");
        let o = Command::new("ip")
            .args(["netns", "pids", &ns])
            .output()
            .unwrap();
        for pid in String::from_utf8_lossy(&o.stdout).split_whitespace() {
            let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            let comm = comm.trim();
            if !comm.is_empty() && comm != "sshd" && comm != "lldpd" && comm != "sshd-session" {
                out.push(format!("h{n}: {pid} {comm}"));
            }
        }
    }
    out
}

/// Wait (bounded) until no probe process is left; sshd session children may take a moment.
fn assert_no_leftovers(when: &str) {
    let start = Instant::now();
    let mut left = leftovers();
    while !left.is_empty() && start.elapsed() < Duration::from_secs(8) {
        std::thread::sleep(Duration::from_millis(200));
        left = leftovers();
    }
    assert!(
        left.is_empty(),
        "{when}: processes left on the hosts: {left:?}"
    );
}

fn findings<'a>(report: &'a Value, rule: &str) -> Vec<&'a Value> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == rule)
        .collect()
}

/// Serve one emulated switch on 127.0.0.1:`port`; returns once its known_hosts is written.
fn emulate(device: &Path, port: u16, pubkey: &Path, kh: &Path) -> std::process::Child {
    let _ = std::fs::remove_file(kh);
    let child = Command::new(env!("CARGO_BIN_EXE_fabric-audit"))
        .args([
            "emulate",
            "--device",
            device.to_str().unwrap(),
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--authorized-key",
            pubkey.to_str().unwrap(),
            "--known-hosts-out",
            kh.to_str().unwrap(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !kh.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "emulator did not start"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(300));
    child
}

fn stand_in(dir: &Path, body: &str) {
    stand_in_named(dir, "ib_write_lat", body)
}

fn stand_in_named(dir: &Path, tool: &str, body: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let f = dir.join(tool);
    std::fs::write(&f, format!("#!/bin/sh\n{body}\n")).unwrap();
    let mut perm = std::fs::metadata(&f).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&f, perm).unwrap();
}

#[test]
fn probes_on_the_namespace_testbed() {
    let Some(bed) = common::up(PREFIX, NET, "probe-bed") else {
        return;
    };
    let st = &bed.state;
    let key = st.join("id_ed25519");
    let kh = st.join("known_hosts");
    let work = st.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let inventory = |extra: &str| {
        format!(
            r#"[defaults]
user = "root"
platform = "linux"
role = "host"
interfaces = ["eth1"]
identity_file = "{key}"
known_hosts = "{kh}"
connect_timeout = 10
command_timeout = 20
{extra}
[policy]
mtu = 9000

[[device]]
name = "h1"
address = "{NET}.1"

[[device]]
name = "h2"
address = "{NET}.2"

[[device]]
name = "h3"
address = "{NET}.3"

[[device]]
name = "h4"
address = "{NET}.4"
jump = "h1"
"#,
            key = key.display(),
            kh = kh.display()
        )
    };
    let inv = work.join("inventory.toml");
    std::fs::write(&inv, inventory("")).unwrap();
    let snap = work.join("snap");
    let out = common::run(
        &work,
        &[
            "collect",
            "--inventory",
            inv.to_str().unwrap(),
            "--out",
            snap.to_str().unwrap(),
            "-q",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // 1. Real tools: path MTU, qperf tcp_lat, Debian's perftest without an RDMA device.
    let results = work.join("results.json");
    let out = common::run(
        &work,
        &[
            "probe",
            "--inventory",
            inv.to_str().unwrap(),
            "--snapshot",
            snap.to_str().unwrap(),
            "--out",
            results.to_str().unwrap(),
            "--tools",
            "path-mtu,qperf,ib-write-lat",
            "--duration",
            "1",
            "-q",
        ],
    );
    let table = String::from_utf8_lossy(&out.stdout).into_owned();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{table}\n{err}");
    // The default plan pairs h1–h2 and h3–h4 (one leaf, every host once).
    for row in [
        "h1 → h2",
        "h3 → h4",
        "h4 → h3",
        "tcp_lat tcp",
        "silent-loss",
        "local-mtu",
    ] {
        assert!(table.contains(row), "{row} missing from:\n{table}");
    }
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&results).unwrap()).unwrap();
    let probes = report["probes"].as_array().unwrap();
    let tcp: Vec<&Value> = probes.iter().filter(|p| p["test"] == "tcp_lat").collect();
    assert_eq!(tcp.len(), 2, "{probes:#?}");
    for p in &tcp {
        assert_eq!(
            (p["status"].as_str(), p["transport"].as_str()),
            (Some("ok"), Some("tcp"))
        );
        let us = p["latency"]["median"].as_f64().unwrap();
        assert!(us > 0.0 && us < 10_000.0, "{p}");
        // The same figure is in the table.
        assert!(table.contains(&format!("{us:.2}")), "{us} not in\n{table}");
    }
    let mtu: Vec<(&str, &str, &str)> = probes
        .iter()
        .filter(|p| p["kind"] == "path-mtu")
        .map(|p| {
            (
                p["src"].as_str().unwrap(),
                p["dst"].as_str().unwrap(),
                p["mtu"]["verdict"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        mtu,
        [
            ("h1", "h2", "ok"),
            ("h2", "h1", "ok"),
            ("h3", "h4", "local-mtu"),
            ("h4", "h3", "silent-loss")
        ]
    );
    // PROBE009 from both directions of h3–h4, each tied to h3's MTU002.
    let p9 = findings(&report, "PROBE009");
    assert_eq!(p9.len(), 2, "{p9:#?}");
    for f in &p9 {
        assert_eq!(f["severity"], "error");
        let tied = f["evidence"]["path_findings"].as_array().unwrap();
        assert!(
            tied.iter()
                .any(|t| t["rule"] == "MTU002" && t["device"] == "h3" && t["interface"] == "eth1"),
            "{f}"
        );
        assert!(f["message"].as_str().unwrap().contains("MTU002"), "{f}");
    }
    // Real perftest, no RDMA device: its own words, no number.
    let lat: Vec<&Value> = probes
        .iter()
        .filter(|p| p["tool"] == "ib_write_lat")
        .collect();
    assert_eq!(lat.len(), 2);
    for p in &lat {
        assert_eq!(p["status"], "failed", "{p}");
        assert!(p.get("latency").is_none(), "{p}");
        assert!(
            p["message"]
                .as_str()
                .unwrap()
                .contains("Did not detect devices"),
            "{p}"
        );
    }
    assert_eq!(findings(&report, "PROBE010").len(), 2);
    // A probe that gave no result is not tied to the config findings on its path (h3–h4's
    // path holds h3's MTU002, tied to PROBE009 above).
    assert!(lat.iter().any(|p| p["src"] == "h3" || p["dst"] == "h3"));
    for f in findings(&report, "PROBE010") {
        assert!(f["evidence"].get("path_findings").is_none(), "{f}");
    }
    assert_no_leftovers("after the real-tool probes");

    // 2. REPLAY: stand-in ib_write_lat printing a recorded perftest output, on h3 and h4. The
    // switch between them is an emulated SONiC leaf named as the hosts' LLDP names it, whose
    // `show pfc counters` / `show queue counters` are read again at every request; the
    // stand-in client moves them on (42 PFC frames on priority 3, 7 drops on swp4), as traffic
    // would, so the switch side of the counter chain runs too.
    let sw = work.join("sw");
    std::fs::create_dir_all(&sw).unwrap();
    let pfc = |rx3: u64| {
        format!(
            "  Port Rx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7\n\
-----------  ------  ------  ------  ------  ------  ------  ------  ------\n\
       swp3       0       0       0     {rx3}       0       0       0       0\n\
       swp4       0       0       0     {rx3}       0       0       0       0\n\n\
  Port Tx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7\n\
-----------  ------  ------  ------  ------  ------  ------  ------  ------\n\
       swp3       0       0       0       0       0       0       0       0\n\
       swp4       0       0       0       0       0       0       0       0\n"
        )
    };
    let queue = |drops: u64| {
        format!(
            "     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes\n\
---------  -----  --------------  ---------------  -----------  ------------\n\
     swp3    UC3          120000         12000000            0             0\n\
     swp4    UC3          120000         12000000      {drops}       {b}\n",
            b = drops * 128
        )
    };
    std::fs::write(sw.join("pfc.txt"), pfc(100)).unwrap();
    std::fs::write(sw.join("queue.txt"), queue(0)).unwrap();
    std::fs::write(sw.join("pfc-after.txt"), pfc(142)).unwrap();
    std::fs::write(sw.join("queue-after.txt"), queue(7)).unwrap();
    std::fs::write(
        sw.join("fap-sw.toml"),
        "platform = \"sonic\"\nhostname = \"fap-sw\"\n[live]\n\"show pfc counters\" = \"pfc.txt\"\n\"show queue counters\" = \"queue.txt\"\n",
    )
    .unwrap();
    let emu_port = 23000 + (std::process::id() % 2000) as u16;
    let sw_kh = sw.join("known_hosts");
    let mut emu = emulate(
        &sw.join("fap-sw.toml"),
        emu_port,
        &st.join("id_ed25519.pub"),
        &sw_kh,
    );
    let switch_entry = format!(
        "\n[[device]]\nname = \"fap-sw\"\nplatform = \"sonic\"\nrole = \"leaf\"\naddress = \"127.0.0.1\"\nport = {emu_port}\nuser = \"audit\"\nknown_hosts = \"{}\"\ninterfaces = []\n",
        sw_kh.display()
    );
    let fx = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/probe/perftest");
    let replay = work.join("replay-bin");
    let args_log = work.join("replay-args.txt");
    stand_in(
        &replay,
        &format!(
            "# REPLAY of a recorded perftest run (fixtures/probe/perftest), not a measurement.\n\
             echo \"$@\" >> {log}\n\
             for a in \"$@\"; do last=$a; done\n\
             case \"$last\" in {NET}.*) cp {pa} {pl}; cp {qa} {ql}; cat {client}; exit 0;; esac\n\
             cat {server}\nexec sleep 60",
            log = args_log.display(),
            client = fx.join("ib_write_lat-roce-slow-client.txt").display(),
            pa = sw.join("pfc-after.txt").display(),
            pl = sw.join("pfc.txt").display(),
            qa = sw.join("queue-after.txt").display(),
            ql = sw.join("queue.txt").display(),
            server = fx.join("ib_write_lat-roce-slow-server.txt").display(),
        ),
    );
    let inv2 = work.join("inventory-replay.toml");
    std::fs::write(
        &inv2,
        inventory(&format!(
            "tool_dir = \"{}\"\nrdma_device = \"mlx5_0\"\ngid_index = 3\n",
            replay.display()
        )) + &switch_entry,
    )
    .unwrap();
    let pairs = work.join("pairs.txt");
    std::fs::write(&pairs, "# the odd host and its neighbour\nh3 h4\n").unwrap();
    let results2 = work.join("results-replay.json");
    let out = common::run(
        &work,
        &[
            "probe",
            "--inventory",
            inv2.to_str().unwrap(),
            "--snapshot",
            snap.to_str().unwrap(),
            "--out",
            results2.to_str().unwrap(),
            "--pairs",
            pairs.to_str().unwrap(),
            "--tools",
            "ib-write-lat",
            "--fail-on",
            "warning",
            "-q",
        ],
    );
    let table = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{table}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&results2).unwrap()).unwrap();
    let p = &report["probes"][0];
    assert_eq!(
        (p["status"].as_str(), p["src"].as_str()),
        (Some("ok"), Some("h3")),
        "{p}"
    );
    assert_eq!(p["latency"]["median"], 14.21);
    assert_eq!(p["latency"]["p999"], 61.4);
    assert_eq!(p["gid_source"], "inventory");
    assert!(p["deltas"].is_object());
    let argv = std::fs::read_to_string(&args_log).unwrap();
    // Server first (no address), client second; device, GID and the RoCE class (DSCP 26).
    let lines: Vec<&str> = argv.lines().collect();
    assert_eq!(lines.len(), 2, "{argv}");
    assert!(!lines[0].contains(&format!("{NET}.")), "{argv}");
    for l in &lines {
        for opt in ["-d mlx5_0", "-x 3", "--tclass=104", "-s 2"] {
            assert!(l.contains(opt), "{opt} missing: {l}");
        }
    }
    assert!(lines[1].ends_with(&format!("{NET}.4")), "{argv}");
    let p1 = findings(&report, "PROBE001");
    assert_eq!(p1.len(), 1, "{report:#}");
    assert_eq!(p1[0]["severity"], "warning");
    assert!(
        p1[0]["message"].as_str().unwrap().contains("14.21"),
        "{}",
        p1[0]
    );
    assert!(
        p1[0]["evidence"]["path_findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["rule"] == "MTU002" && t["device"] == "h3"),
        "{}",
        p1[0]
    );
    assert!(table.contains("14.21"), "{table}");
    // The switch ports of the path, read before and after through the collector.
    assert_eq!(p["counters"]["fap-sw:swp4"]["queue_drops"], 7, "{p:#}");
    assert_eq!(p["counters"]["fap-sw:swp3"]["rx_prio3_pause"], 42, "{p:#}");
    assert_eq!(p["deltas"]["pfc_pause"], 84, "{p:#}");
    assert_eq!(p["deltas"]["loss"], 7, "{p:#}");
    let p5 = findings(&report, "PROBE005");
    assert_eq!(p5.len(), 1, "{report:#}");
    assert_eq!(p5[0]["severity"], "error");
    let _ = emu.kill();
    let _ = emu.wait();
    assert_no_leftovers("after the replay (its server sleeps until ended)");

    // 2a. The same replay with the leaf as Cumulus: its counters are per-interface commands
    // (`nv show interface swpN qos roce counters`), run for the leaf's ports on the path. The
    // stand-in moves the same two files on: here they hold swp3's and swp4's tables.
    let roce = |pause: u64, ecn: u64, drop: u64| {
        [
            "                               operational   applied  description".to_string(),
            "-----------------------------  ------------  -------  ----------------------------------".to_string(),
            "rx-stats".to_string(),
            "  rx-pfc-stats".to_string(),
            "    pause-duration             0                      Rx PFC pause duration for RoCE traffic".to_string(),
            format!("    pause-packets              {pause:<22} Rx PFC pause packets for RoCE traffic"),
            "  rx-roce-stats".to_string(),
            format!("    no-buffer-discard          {drop:<22} Rx buffer discards for RoCE traffic"),
            "tx-stats".to_string(),
            "  tx-ecn-stats".to_string(),
            format!("    ecn-marked-packets         {ecn:<22} Tx ECN marked packets"),
            "  tx-pfc-stats".to_string(),
            "    pause-packets              0                      Tx PFC pause packets for RoCE traffic".to_string(),
            String::new(),
        ]
        .join("\n")
    };
    std::fs::write(sw.join("pfc.txt"), roce(500, 1000, 0)).unwrap();
    std::fs::write(sw.join("queue.txt"), roce(500, 1000, 0)).unwrap();
    std::fs::write(sw.join("pfc-after.txt"), roce(530, 1000, 0)).unwrap();
    std::fs::write(sw.join("queue-after.txt"), roce(500, 1250, 3)).unwrap();
    std::fs::write(
        sw.join("fap-sw-cumulus.toml"),
        "platform = \"cumulus\"\nhostname = \"fap-sw\"\n[live]\n\"nv show interface swp3 qos roce counters\" = \"pfc.txt\"\n\"nv show interface swp4 qos roce counters\" = \"queue.txt\"\n",
    )
    .unwrap();
    let mut emu = emulate(
        &sw.join("fap-sw-cumulus.toml"),
        emu_port,
        &st.join("id_ed25519.pub"),
        &sw_kh,
    );
    std::fs::write(
        &inv2,
        inventory(&format!(
            "tool_dir = \"{}\"\nrdma_device = \"mlx5_0\"\ngid_index = 3\n",
            replay.display()
        )) + &switch_entry.replace("platform = \"sonic\"", "platform = \"cumulus\""),
    )
    .unwrap();
    let out = common::run(
        &work,
        &[
            "probe",
            "--inventory",
            inv2.to_str().unwrap(),
            "--snapshot",
            snap.to_str().unwrap(),
            "--pairs",
            pairs.to_str().unwrap(),
            "--tools",
            "ib-write-lat",
            "--format",
            "json",
            "-q",
        ],
    );
    let _ = emu.kill();
    let _ = emu.wait();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let p = &report["probes"][0];
    assert_eq!(
        p["counters"]["fap-sw:swp3"]["pfc_rx_all_priorities"], 30,
        "{p:#}"
    );
    assert_eq!(
        p["counters"]["fap-sw:swp4"]["ecn_marked_packets"], 250,
        "{p:#}"
    );
    assert_eq!(p["counters"]["fap-sw:swp4"]["queue_drops"], 3, "{p:#}");
    assert_eq!(p["deltas"]["ecn_marked"], 250, "{p:#}");
    assert_no_leftovers("after the replay with a Cumulus leaf");

    // 2b. Incast, REPLAYED: a stand-in ib_write_bw prints a recorded run on every sender; the
    // receiver (h1, the first host) runs one server per sender. The hosts' counters do not move
    // (veth), so the lossless class did not engage: PROBE011.
    let incast_bin = work.join("incast-bin");
    stand_in_named(
        &incast_bin,
        "ib_write_bw",
        &format!(
            "# REPLAY of a recorded perftest run (fixtures/probe/perftest), not a measurement.\n\
             for a in \"$@\"; do last=$a; done\n\
             case \"$last\" in {NET}.*) cat {client}; exit 0;; esac\n\
             echo '* Waiting for client to connect... *'\nexec sleep 60",
            client = fx.join("ib_write_bw-duration-gbits-client.txt").display(),
        ),
    );
    let inv_incast = work.join("inventory-incast.toml");
    std::fs::write(
        &inv_incast,
        inventory(&format!(
            "tool_dir = \"{}\"\nrdma_device = \"mlx5_0\"\ngid_index = 3\n",
            incast_bin.display()
        )),
    )
    .unwrap();
    let out = common::run(
        &work,
        &[
            "probe",
            "--inventory",
            inv_incast.to_str().unwrap(),
            "--pairs",
            pairs.to_str().unwrap(),
            "--tools",
            "incast",
            "--format",
            "json",
            "-q",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let inc = &report["probes"][0];
    assert_eq!(
        (inc["kind"].as_str(), inc["status"].as_str()),
        (Some("incast"), Some("ok")),
        "{inc:#}"
    );
    assert_eq!(inc["dst"], "h1");
    assert_eq!(inc["src"], "h2");
    assert_eq!(inc["senders"], serde_json::json!(["h3", "h4"]));
    let total = inc["bw_gbps"].as_f64().unwrap();
    assert!((total - 3.0 * 184.93).abs() < 0.01, "{total}");
    let p11 = findings(&report, "PROBE011");
    assert_eq!(p11.len(), 1, "{report:#}");
    assert_eq!(p11[0]["severity"], "error");
    assert_no_leftovers("after the incast (one server per sender on h1)");

    // 3. A client that hangs is ended by the time limit.
    let hang = work.join("hang-bin");
    stand_in(&hang, "exec sleep 300");
    let inv3 = work.join("inventory-hang.toml");
    std::fs::write(
        &inv3,
        inventory(&format!(
            "tool_dir = \"{}\"\nrdma_device = \"mlx5_0\"\ngid_index = 3\n",
            hang.display()
        )),
    )
    .unwrap();
    let started = Instant::now();
    let out = common::run(
        &work,
        &[
            "probe",
            "--inventory",
            inv3.to_str().unwrap(),
            "--pairs",
            pairs.to_str().unwrap(),
            "--tools",
            "ib-write-lat",
            "--probe-timeout",
            "5",
            "--format",
            "json",
            "-q",
        ],
    );
    let took = started.elapsed();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["probes"][0]["status"], "timeout", "{report:#}");
    assert_eq!(findings(&report, "PROBE010").len(), 1);
    assert!(took < Duration::from_secs(40), "{took:?}");
    assert_no_leftovers("after a probe timed out");

    // 4. Ctrl-C in the middle of a 30-second qperf run.
    let mut child = Command::new(env!("CARGO_BIN_EXE_fabric-audit"))
        .args([
            "probe",
            "--inventory",
            inv.to_str().unwrap(),
            "--pairs",
            pairs.to_str().unwrap(),
            "--tools",
            "qperf",
            "--duration",
            "30",
            "--probe-timeout",
            "60",
            "-q",
        ])
        .env("HOME", &work)
        .env("COLUMNS", "200")
        .env_remove("SSH_AUTH_SOCK")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !leftovers().iter().any(|l| l.ends_with("qperf")) {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "qperf never started"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(500));
    unsafe_sigint(child.id());
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "probe did not stop on Ctrl-C"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("interrupted"));
    assert_no_leftovers("after Ctrl-C");
}

/// SIGINT, as Ctrl-C sends it.
fn unsafe_sigint(pid: u32) {
    let ok = Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}
