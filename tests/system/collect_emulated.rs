//! Collection over real SSH sessions against emulated switches and hosts (russh servers on
//! 127.0.0.1 playing every platform from fixture outputs): the CLI is run as a user runs
//! it, the snapshot it writes is checked file by file and then audited.

use fabric_audit::collect::emulator::{self, Access, Device};
use russh::keys::ssh_key::LineEnding;
use russh::keys::{PrivateKey, PublicKey};
use serde_json::Value;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_fabric-audit");

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Emulated devices served from a runtime that lives as long as the lab (also used by the
/// secrets test).
pub(crate) struct Lab {
    rt: tokio::runtime::Runtime,
    pub(crate) dir: PathBuf,
    pub(crate) host_key: PrivateKey,
    access: Arc<Access>,
    pub(crate) client_key_file: PathBuf,
}

impl Lab {
    pub(crate) fn new(name: &str) -> Lab {
        let dir = std::env::temp_dir().join(format!("fa-collect-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let client = emulator::random_key().unwrap();
        let client_key_file = dir.join("id_ed25519");
        std::fs::write(
            &client_key_file,
            client.to_openssh(LineEnding::LF).unwrap().as_bytes(),
        )
        .unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&client_key_file, std::fs::Permissions::from_mode(0o600))
                .unwrap();
        }
        let access = Arc::new(Access {
            user: "audit".into(),
            password: Some("s3cret-for-tests".into()),
            keys: vec![client.public_key().clone()],
        });
        Lab {
            rt: tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap(),
            dir,
            host_key: emulator::random_key().unwrap(),
            access,
            client_key_file,
        }
    }

    pub(crate) fn serve(&self, dev: Device) -> SocketAddr {
        self.serve_with_key(dev, self.host_key.clone())
    }

    pub(crate) fn serve_with_key(&self, dev: Device, key: PrivateKey) -> SocketAddr {
        let cfg = emulator::server_config(key);
        let access = self.access.clone();
        self.rt.block_on(async move {
            let l = emulator::bind("127.0.0.1:0".parse().unwrap())
                .await
                .unwrap();
            let addr = l.local_addr().unwrap();
            tokio::spawn(emulator::serve(l, Arc::new(dev), access, cfg));
            addr
        })
    }

    pub(crate) fn known_hosts_line(&self, addr: SocketAddr, key: &PublicKey) -> String {
        format!(
            "[{}]:{} {}\n",
            addr.ip(),
            addr.port(),
            key.to_openssh().unwrap()
        )
    }

    pub(crate) fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    pub(crate) fn run(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut c = Command::new(BIN);
        c.args(args)
            .env("HOME", &self.dir)
            .env_remove("SSH_AUTH_SOCK");
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().unwrap()
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

pub(crate) fn device(path: &Path) -> Device {
    Device::load(path).unwrap()
}

pub(crate) fn device_toml(snap: &Path, name: &str) -> toml::Table {
    let text = std::fs::read_to_string(snap.join("devices").join(name).join("device.toml"))
        .unwrap_or_else(|e| panic!("{name}: device.toml: {e}"));
    toml::from_str(&text).unwrap()
}

pub(crate) fn commands(t: &toml::Table) -> Vec<&toml::Table> {
    t.get("command")
        .and_then(|c| c.as_array())
        .map(|a| a.iter().filter_map(|v| v.as_table()).collect())
        .unwrap_or_default()
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Serve every device of `fixtures/emulator/<emu>/` (after `tweak`, which may also return a
/// session mode for the inventory) and write an inventory for them with the links and policy
/// of `fabric_dir`'s fabric.toml. Returns the inventory file and the device names.
pub(crate) fn serve_fabric(
    lab: &Lab,
    fabric_dir: &Path,
    emu: &str,
    mut tweak: impl FnMut(&str, &mut Device) -> Option<&'static str>,
) -> (PathBuf, Vec<String>) {
    let fabric: toml::Table =
        toml::from_str(&std::fs::read_to_string(fabric_dir.join("fabric.toml")).unwrap()).unwrap();
    let mut inv = toml::Table::new();
    inv.insert("policy".into(), fabric["policy"].clone());
    inv.insert("link".into(), fabric["link"].clone());
    let mut roles = BTreeMap::new();
    for d in fabric["device"].as_array().unwrap() {
        roles.insert(
            d["name"].as_str().unwrap().to_string(),
            d.get("role").and_then(|r| r.as_str()).map(str::to_string),
        );
    }
    let dir = root().join("fixtures/emulator").join(emu);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut kh = String::new();
    let mut devices = Vec::new();
    for name in &names {
        let mut dev = device(&dir.join(format!("{name}.toml")));
        let session = tweak(name, &mut dev);
        let platform = dev.platform.clone();
        let addr = lab.serve(dev);
        kh.push_str(&lab.known_hosts_line(addr, lab.host_key.public_key()));
        let mut d = toml::Table::new();
        d.insert("name".into(), name.clone().into());
        d.insert("address".into(), addr.ip().to_string().into());
        d.insert("port".into(), i64::from(addr.port()).into());
        d.insert("platform".into(), platform.into());
        if let Some(Some(r)) = roles.get(name) {
            d.insert("role".into(), r.clone().into());
        }
        if let Some(mode) = session {
            d.insert("session".into(), mode.into());
        }
        devices.push(toml::Value::Table(d));
    }
    inv.insert("device".into(), toml::Value::Array(devices));
    let khf = lab.write("known_hosts", &kh);
    let mut defaults = toml::Table::new();
    defaults.insert("user".into(), "audit".into());
    defaults.insert(
        "identity_file".into(),
        lab.client_key_file.display().to_string().into(),
    );
    defaults.insert("known_hosts".into(), khf.display().to_string().into());
    inv.insert("defaults".into(), toml::Value::Table(defaults));
    let invf = lab.write("inventory.toml", &toml::to_string(&inv).unwrap());
    (invf, names)
}

/// `audit --inventory INV SNAP --format json` as a user runs it.
fn audit_over_ssh(lab: &Lab, invf: &Path, snap: &Path) -> Output {
    lab.run(
        &[
            "audit",
            "--inventory",
            invf.to_str().unwrap(),
            snap.to_str().unwrap(),
            "--ssh-config",
            "none",
            "--format",
            "json",
        ],
        &[],
    )
}

/// The demo fabric, every device emulated (leaf2 takes no exec requests, spine2 is collected in
/// shell mode), collected and audited in one `audit --inventory` run: every planted fault is
/// found, and the host folders equal the demo's byte for byte.
#[test]
fn demo_fabric_collected_over_ssh_then_audited() {
    let lab = Lab::new("demo");
    let demo = root().join("fixtures/demo-fabric");
    let (invf, names) = serve_fabric(&lab, &demo, "demo", |name, dev| {
        if name == "leaf2" {
            dev.exec = false;
            dev.page_lines = 10;
        }
        (name == "spine2").then_some("shell")
    });
    let snap = lab.dir.join("snap");
    let out = audit_over_ssh(&lab, &invf, &snap);
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = report["findings"].as_array().unwrap();
    // Every planted fault of the demo is found in what was collected over SSH.
    let expected: toml::Table =
        toml::from_str(&std::fs::read_to_string(demo.join("expected-faults.toml")).unwrap())
            .unwrap();
    for f in expected["fault"].as_array().unwrap() {
        let (rule, dev) = (f["rule"].as_str().unwrap(), f["device"].as_str().unwrap());
        assert!(
            findings
                .iter()
                .any(|x| x["rule"] == rule && x["device"] == dev),
            "{rule} on {dev} not found after collection; stderr: {}",
            stderr(&out)
        );
    }
    // Host folders: same commands, same bytes as the demo (discovery found eth2/eth3, mlx5_0/1).
    for n in names.iter().filter(|n| n.starts_with("gpu")) {
        let demo_meta = device_toml(&demo, n);
        let got = device_toml(&snap, n);
        let want_cmds: Vec<&str> = commands(&demo_meta)
            .iter()
            .map(|c| c["cmd"].as_str().unwrap())
            .collect();
        let got_cmds: Vec<&str> = commands(&got)
            .iter()
            .map(|c| c["cmd"].as_str().unwrap())
            .collect();
        let mut a = want_cmds.clone();
        let mut b = got_cmds.clone();
        a.sort();
        b.sort();
        assert_eq!(a, b, "{n}: collected commands differ from the demo's");
        for c in commands(&got) {
            assert_eq!(c["exit"].as_integer(), Some(0), "{n}: {c:?}");
            let f = c["file"].as_str().unwrap();
            let want = std::fs::read(demo.join("devices").join(n).join(f)).unwrap();
            let have = std::fs::read(snap.join("devices").join(n).join(f)).unwrap();
            assert_eq!(want, have, "{n}/{f} differs");
        }
    }
    // Switch configs arrived whole, over exec (leaf1), the shell fallback with paging (leaf2),
    // and the forced shell of EOS (spine2).
    for (n, cfg) in [
        ("leaf1", "leaf1.cfg"),
        ("leaf2", "leaf2.cfg"),
        ("spine2", "spine2.cfg"),
    ] {
        let want = std::fs::read_to_string(demo.join("configs").join(cfg)).unwrap();
        let have =
            std::fs::read_to_string(snap.join("devices").join(n).join("show_running-config.txt"))
                .unwrap_or_else(|e| panic!("{n}: {e}; stderr {}", stderr(&out)));
        // Line for line the same, but for the secrets redacted before writing.
        let (w, h): (Vec<&str>, Vec<&str>) = (
            want.trim_end().lines().collect(),
            have.trim_end().lines().collect(),
        );
        assert_eq!(w.len(), h.len(), "{n}: config length differs");
        let mut redacted = 0;
        for (a, b) in w.iter().zip(&h) {
            if a != b {
                assert!(
                    b.contains("<redacted>"),
                    "{n}: config differs: {a:?} vs {b:?}"
                );
                redacted += 1;
            }
        }
        if want.contains("snmp-server community") {
            assert!(
                redacted >= 1,
                "{n}: the demo config's secrets were not redacted"
            );
        }
        assert!(
            !have.contains("--More--"),
            "{n}: pager prompt left in the output"
        );
        // Commands the emulated switch does not know are recorded with the CLI's error.
        let meta = device_toml(&snap, n);
        let si = commands(&meta)
            .into_iter()
            .find(|c| c["cmd"].as_str() == Some("show lldp neighbors detail"))
            .unwrap();
        assert!(si.get("file").is_none(), "{n}: {si:?}");
        assert!(
            si["stderr"].as_str().unwrap().starts_with("% Invalid"),
            "{n}: {si:?}"
        );
    }
    let journal: toml::Table =
        toml::from_str(&std::fs::read_to_string(snap.join("collection.toml")).unwrap()).unwrap();
    assert_eq!(journal["state"].as_str(), Some("finished"));
    assert!(
        journal["device"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["status"].as_str() == Some("collected"))
    );
}

/// The mixed-NOS demo fabric (Cumulus and Junos spines, SONiC, Onyx and OS10 leaves, Linux
/// hosts), every device emulated with its platform's prompt and pager: spine2 (Junos), leaf3
/// (Onyx) and leaf4 (OS10) are collected through the interactive CLI with paging that cannot be
/// turned off (`---(more)---`, `--More--`, `--more--` answered), leaf2 (SONiC) refuses exec and
/// falls back to the shell. The audit of what SSH brought back reports exactly the
/// errors the audit of the fixture files reports, and every configuration arrived whole.
#[test]
fn mixed_fabric_collected_over_ssh_matches_the_files() {
    let lab = Lab::new("mixed");
    let demo = root().join("fixtures/demo-mixed-fabric");
    let mut configs = Vec::new();
    let (invf, names) = serve_fabric(&lab, &demo, "mixed", |name, dev| {
        // Switches serve their configuration; hosts a whole device folder (checked elsewhere).
        if dev.platform != "linux" {
            for (cmd, text) in &dev.outputs {
                configs.push((
                    name.to_string(),
                    cmd.clone(),
                    String::from_utf8_lossy(text).into_owned(),
                ));
            }
        }
        if name == "leaf2" {
            dev.exec = false;
        }
        let shell = matches!(name, "spine2" | "leaf3");
        if shell || name == "leaf4" {
            // Paging stays on whatever the session asks: every pager prompt must be answered.
            dev.page_lines = 12;
            dev.sticky_paging = true;
        }
        shell.then_some("shell")
    });
    assert_eq!(names.len(), 10);
    let snap = lab.dir.join("snap");
    let out = audit_over_ssh(&lab, &invf, &snap);
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(&out));
    let over_ssh: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Every output the switches serve arrived whole (paged, echoed and prompted sessions
    // included): the six configurations and the LLDP tables of spine1 (Cumulus), leaf3 (Onyx)
    // and leaf4 (OS10).
    let switches: std::collections::BTreeSet<&str> =
        configs.iter().map(|(name, _, _)| name.as_str()).collect();
    assert_eq!(switches.len(), 6);
    assert_eq!(configs.len(), 9);
    assert!(
        configs
            .iter()
            .any(|(name, cmd, _)| name == "spine1" && cmd == "nv show interface lldp"),
        "spine1 serves no LLDP table"
    );
    let mut redacted = 0;
    for (name, cmd, want) in &configs {
        let meta = device_toml(&snap, name);
        let c = commands(&meta)
            .into_iter()
            .find(|c| c["cmd"].as_str() == Some(cmd.as_str()))
            .unwrap_or_else(|| panic!("{name}: {cmd:?} not collected: {meta:?}"));
        assert_eq!(c["exit"].as_integer(), Some(0), "{name}: {c:?}");
        let got = std::fs::read_to_string(
            snap.join("devices")
                .join(name)
                .join(c["file"].as_str().unwrap()),
        )
        .unwrap();
        let norm = |t: &str| -> Vec<String> {
            t.lines()
                .map(|l| l.trim_end().to_string())
                .filter(|l| !l.is_empty())
                .collect()
        };
        let (got, want) = (norm(&got), norm(want));
        assert_eq!(got.len(), want.len(), "{name}: {cmd:?} line count differs");
        for (g, w) in got.iter().zip(&want) {
            // Secrets are redacted before they are written: the rest of the line is kept.
            match g.split_once("<redacted>") {
                Some((head, _)) if g != w => {
                    assert!(w.starts_with(head), "{name}: {g:?} vs {w:?}");
                    redacted += 1;
                }
                _ => assert_eq!(g, w, "{name}: {cmd:?} differs"),
            }
        }
    }
    assert!(redacted > 0, "no secret of the configs was redacted");
    // Same errors as the audit of the files themselves.
    let files = Command::new(BIN)
        .args(["audit", demo.to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap();
    let from_files: Value = serde_json::from_slice(&files.stdout).unwrap();
    let errors = |v: &Value| -> Vec<String> {
        let mut e: Vec<String> = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["severity"] == "error")
            .map(|f| format!("{} {} {}", f["rule"], f["device"], f["interface"]))
            .collect();
        e.sort();
        e
    };
    let want = errors(&from_files);
    assert!(want.len() >= 6, "{want:?}");
    assert_eq!(errors(&over_ssh), want);
}

pub(crate) fn nxos_device(name: &str) -> Device {
    let mut d = device(&root().join("fixtures/emulator/demo/leaf1.toml"));
    d.hostname = name.into();
    d.outputs.insert(
        "show interface".into(),
        Arc::new(
            std::fs::read(root().join("fixtures/nxos/show-interface/leaf-ports.txt")).unwrap(),
        ),
    );
    d
}

pub(crate) fn inventory_entry(name: &str, addr: SocketAddr, extra: &str) -> String {
    format!(
        "\n[[device]]\nname = \"{name}\"\naddress = \"{}\"\nport = {}\n{extra}",
        addr.ip(),
        addr.port()
    )
}

/// Wrong and unknown host keys, a refused port, a failed login, a device that hangs, a device
/// that prints 100 MB, a jump host, a device that reports a hostile interface name: each is
/// recorded with its reason, the others are collected, and the audit reports the failures.
#[test]
fn faults_are_recorded_and_the_run_goes_on() {
    let lab = Lab::new("faults");
    let ok = lab.serve(nxos_device("ok"));
    let unknown = lab.serve(nxos_device("unknown"));
    let changed = lab.serve(nxos_device("changed"));
    let badauth = lab.serve(nxos_device("badauth"));
    let mut hang = nxos_device("hang");
    hang.hang.insert("show interface".into());
    let hang = lab.serve(hang);
    let mut huge = nxos_device("huge");
    huge.endless
        .insert("show interface".into(), 100 * 1024 * 1024);
    let huge = lab.serve(huge);
    let target = lab.serve(nxos_device("behind"));
    let jump = lab.serve(nxos_device("jump"));
    let mut evil = device(&root().join("fixtures/emulator/demo/gpu01.toml"));
    evil.outputs.insert(
        "rdma link show -j".into(),
        Arc::new(
            br#"[{"ifindex":1,"ifname":"mlx5_0/1","port":1,"netdev":"eth0;reboot"}]"#.to_vec(),
        ),
    );
    let evil = lab.serve(evil);
    let refused = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let other_key = emulator::random_key().unwrap();
    let mut kh = String::new();
    for a in [ok, badauth, hang, huge, target, jump, evil, refused] {
        kh.push_str(&lab.known_hosts_line(a, lab.host_key.public_key()));
    }
    kh.push_str(&lab.known_hosts_line(changed, other_key.public_key()));
    let khf = lab.write("known_hosts", &kh);
    let key = lab.client_key_file.display().to_string();
    let mut inv = format!(
        "[defaults]\nuser = \"audit\"\nplatform = \"nxos\"\nidentity_file = \"{key}\"\nknown_hosts = \"{}\"\nconnect_timeout = 5\ncommand_timeout = 10\nretries = 1\nmax_output = 1048576\n",
        khf.display()
    );
    inv += &inventory_entry("ok", ok, "");
    inv += &inventory_entry("unknown", unknown, "");
    inv += &inventory_entry("changed", changed, "");
    inv += &inventory_entry(
        "badauth",
        badauth,
        "identity_file = []\nagent = false\npassword_env = \"FA_WRONG_PW\"\n",
    );
    inv += &inventory_entry("hang", hang, "command_timeout = 1\n");
    inv += &inventory_entry("huge", huge, "");
    inv += &inventory_entry("jump", jump, "");
    inv += &inventory_entry("behind", target, "jump = \"jump\"\n");
    inv += &inventory_entry("evil", evil, "platform = \"linux\"\n");
    inv += &inventory_entry("refused", refused, "");
    let invf = lab.write("inventory.toml", &inv);
    let snap = lab.dir.join("snap");
    let forwards_before = emulator::FORWARDS.load(std::sync::atomic::Ordering::Relaxed);
    let t0 = Instant::now();
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
    let took = t0.elapsed();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(took < Duration::from_secs(40), "collection took {took:?}");
    let error_of = |n: &str| -> String {
        device_toml(&snap, n)
            .get("error")
            .and_then(|e| e.as_str())
            .unwrap_or("")
            .to_string()
    };
    for n in ["ok", "jump", "behind"] {
        assert_eq!(error_of(n), "", "{n} should be collected; {err}");
    }
    assert!(
        emulator::FORWARDS.load(std::sync::atomic::Ordering::Relaxed) > forwards_before,
        "behind was not reached through the jump host"
    );
    for (n, wants) in [
        ("unknown", &["unknown host key"][..]),
        ("changed", &["HOST KEY CHANGED"]),
        ("refused", &["connection refused", "after 2 attempts"]),
        ("badauth", &["authentication", "FA_WRONG_PW"]),
    ] {
        let e = error_of(n);
        assert!(wants.iter().all(|w| e.contains(w)), "{n}: {e}");
    }
    // The hung command is cut by its timeout; what followed was not waited for.
    let hang_cmds = device_toml(&snap, "hang");
    let hc = commands(&hang_cmds);
    let si = hc
        .iter()
        .find(|c| c["cmd"].as_str() == Some("show interface"))
        .unwrap();
    assert!(
        si["error"].as_str().unwrap().contains("timed out"),
        "{si:?}"
    );
    let after: Vec<_> = hc
        .iter()
        .skip_while(|c| c["cmd"].as_str() != Some("show interface"))
        .skip(1)
        .collect();
    assert!(!after.is_empty());
    assert!(after.iter().all(|c| {
        c.get("error")
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .starts_with("not run")
    }));
    // 100 MB is cut at the 1 MiB cap, and the cut is recorded.
    let hm = device_toml(&snap, "huge");
    let big = commands(&hm)
        .into_iter()
        .find(|c| c["cmd"].as_str() == Some("show interface"))
        .unwrap();
    assert_eq!(big["bytes"].as_integer(), Some(1_048_576));
    assert!(big["error"].as_str().unwrap().contains("cap"), "{big:?}");
    let f = snap
        .join("devices/huge")
        .join(big["file"].as_str().unwrap());
    assert_eq!(std::fs::metadata(f).unwrap().len(), 1_048_576);
    // A hostile interface name from a device never reaches a command line.
    let em = device_toml(&snap, "evil");
    let refused_cmds: Vec<_> = commands(&em)
        .into_iter()
        .filter(|c| {
            c.get("error")
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .starts_with("not sent")
        })
        .collect();
    assert!(!refused_cmds.is_empty(), "{em:?}");
    assert!(
        commands(&em)
            .iter()
            .all(|c| !c["cmd"].as_str().unwrap().contains("reboot"))
    );
    // The audit turns every failed device into a finding.
    let out = lab.run(&["audit", snap.to_str().unwrap(), "--format", "json"], &[]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    for n in ["unknown", "changed", "refused", "badauth"] {
        assert!(
            report["findings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["rule"] == "PARSE006" && f["device"] == n),
            "no PARSE006 for {n}"
        );
    }
}

/// Trust on first use only with the flag, and it records the key; nothing collected = exit 2.
#[test]
fn trust_on_first_use_records_the_key_and_nothing_collected_exits_2() {
    let lab = Lab::new("tofu");
    let a = lab.serve(nxos_device("leafx"));
    let khf = lab.dir.join("kh");
    let inv = format!(
        "[defaults]\nuser = \"audit\"\nplatform = \"nxos\"\nidentity_file = \"{}\"\nknown_hosts = \"{}\"\n{}",
        lab.client_key_file.display(),
        khf.display(),
        inventory_entry("leafx", a, "")
    );
    let invf = lab.write("inv.toml", &inv);
    let snap = lab.dir.join("s1");
    let base = [
        "collect",
        "--inventory",
        invf.to_str().unwrap(),
        "--ssh-config",
        "none",
        "--out",
    ];
    let mut args = base.to_vec();
    args.push(snap.to_str().unwrap());
    let out = lab.run(&args, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("unknown host key"),
        "{}",
        stderr(&out)
    );
    assert!(!khf.exists());
    // The snapshot still records why, and audits to a PARSE006 finding.
    let audit = lab.run(&["audit", snap.to_str().unwrap(), "--format", "json"], &[]);
    let report: Value = serde_json::from_slice(&audit.stdout).unwrap();
    assert!(
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "PARSE006")
    );
    let snap2 = lab.dir.join("s2");
    let mut args = base.to_vec();
    args.push(snap2.to_str().unwrap());
    args.push("--trust-new-host-keys");
    let out = lab.run(&args, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let recorded = std::fs::read_to_string(&khf).unwrap();
    assert!(
        recorded.starts_with(&format!("[127.0.0.1]:{} ssh-ed25519 ", a.port())),
        "{recorded}"
    );
    // Now known: collected without the flag. An existing snapshot needs --force.
    let mut args = base.to_vec();
    args.push(snap2.to_str().unwrap());
    let out = lab.run(&args, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--force"), "{}", stderr(&out));
    args.push("--force");
    let out = lab.run(&args, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// Ctrl-C in the middle of a collection leaves a consistent snapshot that says what finished.
#[test]
fn interrupted_collection_leaves_a_consistent_snapshot() {
    let lab = Lab::new("sigint");
    let invf = fast_and_hanging_inventory(&lab);
    let snap = lab.dir.join("snap");
    let mut child = Command::new(BIN)
        .args([
            "collect",
            "--inventory",
            invf.to_str().unwrap(),
            "--out",
            snap.to_str().unwrap(),
            "--ssh-config",
            "none",
        ])
        .env("HOME", &lab.dir)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait (bounded) until the fast device is done, then interrupt.
    let t0 = Instant::now();
    while !snap.join("devices/fast/device.toml").exists() && t0.elapsed() < Duration::from_secs(20)
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let t1 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t1.elapsed() > Duration::from_secs(15) {
            let _ = child.kill();
            panic!("collect did not stop after Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    // Interrupted is not a success: 130, as a shell reports a SIGINT, after writing the snapshot.
    assert_eq!(status.code(), Some(130));
    let journal: toml::Table =
        toml::from_str(&std::fs::read_to_string(snap.join("collection.toml")).unwrap()).unwrap();
    assert_eq!(journal["state"].as_str(), Some("interrupted"));
    let st: BTreeMap<String, String> = journal["device"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["name"].as_str().unwrap().to_string(),
                d["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(st["fast"], "collected");
    assert_eq!(st["slow"], "interrupted");
    let slow_meta = device_toml(&snap, "slow");
    assert!(slow_meta["error"].as_str().unwrap().contains("interrupted"));
    // No unfinished folder is left behind.
    let leftovers: Vec<_> = std::fs::read_dir(snap.join("devices"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// A vendor-parser file given with --parsers that asks for a command outside the read-only
/// allow-list stops the run before any connection is made.
#[test]
fn a_parser_file_outside_the_allow_list_stops_collection_before_connecting() {
    let lab = Lab::new("allow");
    let a = lab.serve(nxos_device("leafz"));
    let kh = lab.write("kh", &lab.known_hosts_line(a, lab.host_key.public_key()));
    let inv = format!(
        "[defaults]\nuser = \"audit\"\nplatform = \"nxos\"\nidentity_file = \"{}\"\nknown_hosts = \"{}\"\n{}",
        lab.client_key_file.display(),
        kh.display(),
        inventory_entry("leafz", a, "")
    );
    let invf = lab.write("inv.toml", &inv);
    let pdir = lab.dir.join("parsers");
    std::fs::create_dir_all(&pdir).unwrap();
    std::fs::write(
        pdir.join("nxos.toml"),
        "platform = \"nxos\"\nname = \"x\"\n\n[[command]]\ncmd = \"configure terminal\"\nid = \"x\"\n",
    )
    .unwrap();
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
            "--parsers",
            pdir.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("nxos.toml:5") && err.contains("read-only allow-list"),
        "{err}"
    );
    assert!(
        !snap.exists(),
        "nothing may be written when the parsers are refused"
    );
}

/// A platform added by data alone (`--parsers DIR` with a new `platform` id) is one an
/// inventory may name: its device is collected over SSH with the file's commands, and the audit
/// with the same folder parses what was collected (issue 18: the inventory used to refuse any
/// platform outside a fixed list).
#[test]
fn a_platform_added_by_parsers_dir_is_collected_and_parsed() {
    let lab = Lab::new("dataplatform");
    let mut dev = nxos_device("acme1");
    dev.platform = "acme".into();
    dev.outputs.insert(
        "show acme qos".into(),
        Arc::new(b"Acme QoS\npfc priority 3 on\n".to_vec()),
    );
    let a = lab.serve(dev);
    let kh = lab.write("kh", &lab.known_hosts_line(a, lab.host_key.public_key()));
    let inv = format!(
        "[defaults]\nuser = \"audit\"\nplatform = \"acme\"\nidentity_file = \"{}\"\nknown_hosts = \"{}\"\n{}",
        lab.client_key_file.display(),
        kh.display(),
        inventory_entry("acme1", a, "")
    );
    let invf = lab.write("inv.toml", &inv);
    let pdir = lab.dir.join("parsers");
    std::fs::create_dir_all(&pdir).unwrap();
    std::fs::write(
        pdir.join("acme.toml"),
        "platform = \"acme\"\nname = \"Acme OS\"\n\n[[command]]\ncmd = \"show acme qos\"\nid = \"acme-qos\"\n\n[[command.record]]\nkind = \"pfc\"\nregex = '^pfc priority (?P<prio>\\d) (?P<state>on|off)$'\n\n[command.ignore]\nlines = ['^Acme QoS$']\n",
    )
    .unwrap();
    let snap = lab.dir.join("snap");
    let (inv_s, snap_s, pdir_s) = (
        invf.to_str().unwrap(),
        snap.to_str().unwrap(),
        pdir.to_str().unwrap(),
    );
    let out = lab.run(
        &[
            "collect",
            "--inventory",
            inv_s,
            "--out",
            snap_s,
            "--ssh-config",
            "none",
            "--parsers",
            pdir_s,
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let d = device_toml(&snap, "acme1");
    assert_eq!(d["platform"].as_str(), Some("acme"), "{d:?}");
    let out = lab.run(
        &["audit", snap_s, "--parsers", pdir_s, "--format", "json"],
        &[],
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let parse = report["parse"]
        .as_array()
        .unwrap_or_else(|| panic!("no parse list: {report:#}"));
    assert!(
        parse.iter().any(|p| p["device"] == "acme1"
            && p["command"] == "show acme qos"
            && p["status"] == "passed"),
        "{parse:#?}"
    );
    // Without --parsers the inventory names a platform nobody knows: refused before connecting.
    let out = lab.run(
        &[
            "collect",
            "--inventory",
            inv_s,
            "--out",
            snap_s,
            "--ssh-config",
            "none",
            "--force",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("platform \"acme\" is not one of nxos, eos"),
        "{}",
        stderr(&out)
    );
}

/// Two emulated NX-OS devices, `fast` and `slow` (which never answers `show interface`), and
/// the inventory that collects both: what an interrupted collection is tested on.
pub(crate) fn fast_and_hanging_inventory(lab: &Lab) -> PathBuf {
    let fast = lab.serve(nxos_device("fast"));
    let mut slow = nxos_device("slow");
    slow.hang.insert("show interface".into());
    let slow = lab.serve(slow);
    let mut kh = String::new();
    for a in [fast, slow] {
        kh.push_str(&lab.known_hosts_line(a, lab.host_key.public_key()));
    }
    let khf = lab.write("kh", &kh);
    let inv = format!(
        "[defaults]\nuser = \"audit\"\nplatform = \"nxos\"\nidentity_file = \"{}\"\nknown_hosts = \"{}\"\ncommand_timeout = 60\n{}{}",
        lab.client_key_file.display(),
        khf.display(),
        inventory_entry("fast", fast, ""),
        inventory_entry("slow", slow, "")
    );
    lab.write("inv.toml", &inv)
}
