//! Collection against hostile devices (issue 19): SSH servers on 127.0.0.1 that send a line
//! without end in small chunks, list 2,000 RDMA netdevs, answer every command just inside the
//! timeout, list path-like interface names, or present a host key of another type. Each test
//! runs `fabric-audit collect` as a user does, bounded in time, and reads what the snapshot
//! and the emulator's log of received commands say.

use super::collect_emulated::{
    Lab, commands, device, device_toml, inventory_entry, nxos_device, stderr,
};
use fabric_audit::collect::emulator::{self, Device};
use russh::keys::{Algorithm, EcdsaCurve, PrivateKey};
use serde_json::Value;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn gpu_host() -> Device {
    device(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/emulator/demo/gpu01.toml"))
}

/// An inventory of `entries` (name, address, extra TOML) with the lab's key and known_hosts.
fn inventory(lab: &Lab, entries: &[(&str, SocketAddr, &str)], defaults: &str) -> PathBuf {
    let mut kh = String::new();
    for (_, a, _) in entries {
        kh.push_str(&lab.known_hosts_line(*a, lab.host_key.public_key()));
    }
    let khf = lab.write("known_hosts", &kh);
    let mut inv = format!(
        "[defaults]\nuser = \"audit\"\nidentity_file = \"{}\"\nknown_hosts = \"{}\"\nconnect_timeout = 5\n{defaults}",
        lab.client_key_file.display(),
        khf.display()
    );
    for (name, a, extra) in entries {
        inv += &inventory_entry(name, *a, extra);
    }
    lab.write("inventory.toml", &inv)
}

/// `collect --inventory INV --out SNAP` plus `extra`, and how long it took.
fn collect(lab: &Lab, invf: &Path, snap: &Path, extra: &[&str]) -> (Output, Duration) {
    let mut args = vec![
        "collect",
        "--inventory",
        invf.to_str().unwrap(),
        "--out",
        snap.to_str().unwrap(),
        "--ssh-config",
        "none",
    ];
    args.extend_from_slice(extra);
    let t0 = Instant::now();
    let out = lab.run(&args, &[]);
    (out, t0.elapsed())
}

/// The audit's JSON findings of a snapshot.
fn findings(lab: &Lab, snap: &Path) -> Vec<Value> {
    let out = lab.run(&["audit", snap.to_str().unwrap(), "--format", "json"], &[]);
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("audit output: {e}; stderr {}", stderr(&out)));
    report["findings"].as_array().unwrap().clone()
}

fn received(log: &Arc<std::sync::Mutex<Vec<String>>>) -> Vec<String> {
    log.lock().unwrap().clone()
}

fn limits_hit(t: &toml::Table) -> Vec<String> {
    t.get("limits_hit")
        .and_then(|v| v.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Issue 19, item 4: in shell mode a device sends one line without a newline, 64 bytes at a
/// time. Scanning it for the prompt is linear, so the command ends at its 512 KiB cap in a few
/// seconds (re-scanning the whole line at every chunk ran into the 60 s timeout), and the run
/// goes on with the other device.
#[test]
fn a_line_without_end_in_small_chunks_is_cut_at_the_cap_in_bounded_time() {
    let lab = Lab::new("drip");
    let mut dev = nxos_device("dripper");
    dev.drip.insert("show running-config".into(), 4 << 20);
    let a = lab.serve(dev);
    let calm = lab.serve(nxos_device("calm"));
    let invf = inventory(
        &lab,
        &[("dripper", a, "session = \"shell\"\n"), ("calm", calm, "")],
        "platform = \"nxos\"\ncommand_timeout = 60\nmax_output = 524288\n",
    );
    let snap = lab.dir.join("snap");
    let (out, took) = collect(&lab, &invf, &snap, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        took < Duration::from_secs(30),
        "the cut took {took:?} (timeout 60 s)"
    );
    let meta = device_toml(&snap, "dripper");
    let cmds = commands(&meta);
    let run = cmds
        .iter()
        .find(|c| c["cmd"].as_str() == Some("show running-config"))
        .unwrap();
    let err = run.get("error").and_then(|e| e.as_str()).unwrap_or("");
    assert!(err.contains("524288-byte cap"), "{run:?}");
    let bytes = run.get("bytes").and_then(|b| b.as_integer()).unwrap_or(0);
    assert!((500_000..=524_288).contains(&bytes), "{run:?}");
    // What followed was not waited for; the other device was collected.
    assert!(cmds.iter().skip(1).all(|c| {
        c.get("error")
            .and_then(|e| e.as_str())
            .is_some_and(|e| e.starts_with("not run"))
    }));
    assert!(device_toml(&snap, "calm").get("error").is_none());
}

/// Issue 19, item 5: a host listing 2,000 RDMA netdevs gets commands for at most
/// `max_interfaces` of them (and as many RDMA devices); the cut is written to device.toml and
/// the journal, and the audit reports it.
#[test]
fn a_host_listing_2000_netdevs_gets_at_most_the_cap_of_commands() {
    let lab = Lab::new("netdevs");
    let mut host = gpu_host();
    let links: Vec<String> = (0..2000)
        .map(|i| format!(r#"{{"ifindex":{i},"ifname":"mlx5_{i}/1","port":1,"netdev":"eth{i}"}}"#))
        .collect();
    host.outputs.insert(
        "rdma link show -j".into(),
        Arc::new(format!("[{}]", links.join(",")).into_bytes()),
    );
    let log = host.received.clone();
    let a = lab.serve(host);
    let invf = inventory(
        &lab,
        &[("gpu01", a, "max_interfaces = 3\n")],
        "platform = \"linux\"\ncommand_timeout = 10\n",
    );
    let snap = lab.dir.join("snap");
    let (out, took) = collect(&lab, &invf, &snap, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let sent = received(&log);
    let parsers = fabric_audit::load_parsers(None).unwrap();
    let linux = parsers.platform("linux").unwrap();
    let per = |kind: &str| {
        linux
            .commands
            .iter()
            .filter(|c| c.collect && c.per == kind)
            .count()
    };
    let once = per("once");
    let bound = once + 3 * per("per-interface") + 3 * per("per-rdma-device");
    assert!(
        sent.len() <= bound,
        "{} commands received, at most {bound} expected (took {took:?})",
        sent.len()
    );
    let named = |prefix: &str| -> std::collections::BTreeSet<String> {
        sent.iter()
            .flat_map(|c| c.split([' ', '/']))
            .filter(|w| {
                w.strip_prefix(prefix)
                    .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty())
            })
            .map(str::to_string)
            .collect()
    };
    assert_eq!(named("eth").len(), 3, "{:?}", named("eth"));
    assert_eq!(named("mlx5_").len(), 3, "{:?}", named("mlx5_"));
    let hit = limits_hit(&device_toml(&snap, "gpu01"));
    assert!(
        hit.iter()
            .any(|l| l.contains("2000 interfaces discovered") && l.contains("max_interfaces = 3")),
        "{hit:?}"
    );
    assert!(
        hit.iter().any(|l| l.contains("2000 RDMA devices")),
        "{hit:?}"
    );
    let journal: toml::Table =
        toml::from_str(&std::fs::read_to_string(snap.join("collection.toml")).unwrap()).unwrap();
    let jd = &journal["device"].as_array().unwrap()[0];
    assert_eq!(limits_hit(jd.as_table().unwrap()).len(), 2, "{jd:?}");
    assert!(
        stderr(&out).contains("gpu01 cut short: 2000 interfaces discovered"),
        "{}",
        stderr(&out)
    );
    let f = findings(&lab, &snap);
    assert!(
        f.iter().any(|x| x["rule"] == "PARSE005"
            && x["device"] == "gpu01"
            && x["message"]
                .as_str()
                .unwrap_or("")
                .contains("max_interfaces = 3")),
        "no finding for the cap"
    );
}

/// Issue 19, item 5: a host answering every command inside `command_timeout` (1 s of 2 s, a
/// margin a loaded machine keeps) is cut at its per-device deadline (4 s) instead of holding
/// the collector for commands × timeout; the cut is recorded and reported.
#[test]
fn a_host_slow_on_every_command_is_cut_at_the_device_deadline() {
    let lab = Lab::new("slow");
    let mut host = gpu_host();
    host.delay = Duration::from_millis(1000);
    let log = host.received.clone();
    let a = lab.serve(host);
    let invf = inventory(
        &lab,
        &[("gpu01", a, "")],
        "platform = \"linux\"\ncommand_timeout = 2\ndevice_timeout = 4\n",
    );
    let snap = lab.dir.join("snap");
    let (out, took) = collect(&lab, &invf, &snap, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let sent = received(&log).len();
    // Without the deadline: every command of the host (dozens) at 1 s each.
    assert!(took < Duration::from_secs(12), "took {took:?}");
    assert!((2..=8).contains(&sent), "{sent} commands received");
    let meta = device_toml(&snap, "gpu01");
    let hit = limits_hit(&meta);
    assert!(
        hit.iter()
            .any(|l| l.contains("per-device deadline") && l.contains("device_timeout = 4 s")),
        "{hit:?}"
    );
    assert!(
        findings(&lab, &snap).iter().any(|x| x["rule"] == "PARSE005"
            && x["device"] == "gpu01"
            && x["message"]
                .as_str()
                .unwrap_or("")
                .contains("per-device deadline")),
        "no finding for the deadline"
    );
}

/// Issue 19, item 5: `--command-budget` bounds the commands of the whole run; the journal
/// states the budget and what was sent, and a device left without budget is reported.
#[test]
fn the_run_command_budget_bounds_every_device_together() {
    let lab = Lab::new("budget");
    let (d1, d2) = (nxos_device("leafa"), nxos_device("leafb"));
    let (l1, l2) = (d1.received.clone(), d2.received.clone());
    let (a1, a2) = (lab.serve(d1), lab.serve(d2));
    let invf = inventory(
        &lab,
        &[("leafa", a1, ""), ("leafb", a2, "")],
        "platform = \"nxos\"\n",
    );
    let snap = lab.dir.join("snap");
    let (out, _) = collect(&lab, &invf, &snap, &["--command-budget", "5"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let sent = received(&l1).len() + received(&l2).len();
    assert_eq!(sent, 5, "{:?} {:?}", received(&l1), received(&l2));
    let journal: toml::Table =
        toml::from_str(&std::fs::read_to_string(snap.join("collection.toml")).unwrap()).unwrap();
    assert_eq!(journal["limits"]["command_budget"].as_integer(), Some(5));
    assert_eq!(journal["limits"]["commands_sent"].as_integer(), Some(5));
    let f = findings(&lab, &snap);
    assert!(
        f.iter().any(|x| x["message"]
            .as_str()
            .unwrap_or("")
            .contains("command budget (5 commands")),
        "no finding for the spent budget: {f:?}"
    );
}

/// Issue 19, item 9: a host lists path-like names (`..`, `/dev/sda`, `-rf`, a slash or a colon
/// in a Linux netdev name); none reaches a command the host receives, each is recorded as not
/// sent, and the plain name beside them is collected.
#[test]
fn path_like_interface_names_never_reach_a_command() {
    let lab = Lab::new("paths");
    let hostile = [
        "..",
        ".",
        "/dev/sda",
        "-rf",
        "eth0/../../etc",
        "eth0:1",
        "dev/sda",
    ];
    let mut links: Vec<String> = hostile
        .iter()
        .enumerate()
        .map(|(i, n)| format!(r#"{{"ifname":"mlx5_{i}/1","netdev":"{n}"}}"#))
        .collect();
    links.push(r#"{"ifname":"../../x/1","netdev":"eth2"}"#.into());
    links.push(r#"{"ifname":"mlx5_9/1","netdev":"eth3"}"#.into());
    let mut host = gpu_host();
    host.outputs.insert(
        "rdma link show -j".into(),
        Arc::new(format!("[{}]", links.join(",")).into_bytes()),
    );
    let log = host.received.clone();
    let a = lab.serve(host);
    let invf = inventory(&lab, &[("gpu01", a, "")], "platform = \"linux\"\n");
    let snap = lab.dir.join("snap");
    let (out, _) = collect(&lab, &invf, &snap, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let sent = received(&log);
    let parsers = fabric_audit::load_parsers(None).unwrap();
    let templates: Vec<&str> = parsers
        .platform("linux")
        .unwrap()
        .commands
        .iter()
        .filter(|c| c.per != "once")
        .map(|c| c.cmd.as_str())
        .collect();
    for name in hostile.iter().chain(&[".."]) {
        for t in &templates {
            let cmd = t.replace("{if}", name).replace("{dev}", name);
            assert!(!sent.contains(&cmd), "{cmd:?} was sent");
        }
    }
    assert!(
        sent.iter()
            .all(|c| !c.contains("..") && !c.contains("/dev/sd"))
    );
    assert!(sent.iter().any(|c| c == "ethtool eth3"), "{sent:?}");
    let meta = device_toml(&snap, "gpu01");
    let not_sent = commands(&meta)
        .into_iter()
        .filter(|c| {
            c.get("error")
                .and_then(|e| e.as_str())
                .is_some_and(|e| e.starts_with("not sent"))
        })
        .count();
    assert_eq!(not_sent, hostile.len() + 1, "{meta:?}");
}

/// Issue 19, item 6: a host known by its ed25519 key that presents an ECDSA or an RSA key is
/// "changed": refused with --trust-new-host-keys too, and known_hosts is left as it was.
#[test]
fn a_host_key_of_another_type_is_changed_whatever_the_flags() {
    let lab = Lab::new("keytype");
    let rng = &mut russh::keys::key::safe_rng();
    let ecdsa = PrivateKey::random(
        rng,
        Algorithm::Ecdsa {
            curve: EcdsaCurve::NistP256,
        },
    )
    .unwrap();
    // ssh-keygen makes the RSA key: generating one in a debug build takes minutes.
    let rsa_file = lab.dir.join("host_rsa");
    let made = std::process::Command::new("ssh-keygen")
        .args(["-q", "-t", "rsa", "-b", "2048", "-N", "", "-f"])
        .arg(&rsa_file)
        .status()
        .expect("ssh-keygen (openssh-client, installed by scripts/test-deps)");
    assert!(made.success());
    let rsa = russh::keys::load_secret_key(&rsa_file, None).unwrap();
    assert!(rsa.algorithm().is_rsa());
    for (kind, key) in [("ecdsa", ecdsa), ("rsa", rsa)] {
        let a = lab.serve_with_key(nxos_device("leafk"), key);
        let known = lab.known_hosts_line(a, emulator::random_key().unwrap().public_key());
        let khf = lab.write(&format!("kh-{kind}"), &known);
        let inv = format!(
            "[defaults]\nuser = \"audit\"\nplatform = \"nxos\"\nidentity_file = \"{}\"\nknown_hosts = \"{}\"\n{}",
            lab.client_key_file.display(),
            khf.display(),
            inventory_entry("leafk", a, "")
        );
        let invf = lab.write(&format!("inv-{kind}.toml"), &inv);
        let snap = lab.dir.join(format!("snap-{kind}"));
        let (out, _) = collect(&lab, &invf, &snap, &["--trust-new-host-keys"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{kind}: {err}");
        assert!(err.contains("HOST KEY CHANGED"), "{kind}: {err}");
        assert_eq!(
            std::fs::read_to_string(&khf).unwrap(),
            known,
            "{kind}: known_hosts was changed"
        );
    }
}
