//! Collection from real Linux hosts: `scripts/testbed` builds network namespaces behind a
//! bridge, each running a real OpenSSH sshd and lldpd (one host has MTU 1500 in a 9000 fabric,
//! one is reachable only through a jump host). fabric-audit collects from them over SSH and the
//! audit must find the odd host's MTU.
//!
//! Needs root (network namespaces) and openssh-server + lldpd (`scripts/test-deps`). Where
//! namespaces cannot be made the test says so and passes, unless FA_REQUIRE_TESTBED=1 (set by
//! `scripts/test`, so CI never skips it silently).

use crate::common;

use serde_json::Value;
use std::path::Path;
use std::process::Command;

const NET: &str = "10.79.0";
const PREFIX: &str = "fat";

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn meta(snap: &Path, dev: &str) -> toml::Table {
    toml::from_str(&read(&snap.join("devices").join(dev).join("device.toml"))).unwrap()
}

fn command<'a>(m: &'a toml::Table, cmd: &str) -> &'a toml::Table {
    m["command"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c.as_table())
        .find(|c| c["cmd"].as_str() == Some(cmd))
        .unwrap_or_else(|| panic!("{cmd} not in {m:?}"))
}

#[test]
fn collect_from_namespace_hosts_then_audit_finds_the_odd_mtu() {
    let Some(bed) = common::up(PREFIX, NET, "testbed-test") else {
        return;
    };
    let st = &bed.state;
    let key = st.join("id_ed25519");
    let kh = st.join("known_hosts");
    let work = st.join("work");
    std::fs::create_dir_all(work.join(".ssh")).unwrap();
    // h2 is named only in ~/.ssh/config (HostName, User, IdentityFile, UserKnownHostsFile).
    std::fs::write(
        work.join(".ssh/config"),
        format!(
            "Host bed-h2\n  HostName {NET}.2\n  User root\n  IdentityFile {k}\n  UserKnownHostsFile {kh}\n\
             Host bed-h4\n  HostName {NET}.4\n  User root\n  ProxyJump root@{NET}.1\n  IdentityFile {k}\n  UserKnownHostsFile {kh}\n",
            k = key.display(),
            kh = kh.display()
        ),
    )
    .unwrap();
    let inv = format!(
        r#"[defaults]
user = "root"
platform = "linux"
role = "host"
interfaces = ["eth1"]
identity_file = "{key}"
known_hosts = "{kh}"
connect_timeout = 10
command_timeout = 20

[policy]
mtu = 9000

[[device]]
name = "h1"
address = "{NET}.1"

[[device]]
name = "bed-h2"
identity_file = []
known_hosts = []
user = "nobody-overridden-by-nothing"

[[device]]
name = "h3"
address = "{NET}.3"

[[device]]
name = "h4"
address = "{NET}.4"
jump = "h1"

[[device]]
name = "bed-h4"
identity_file = []
known_hosts = []
"#,
        key = key.display(),
        kh = kh.display()
    );
    // bed-h2's user must come from ~/.ssh/config: drop the inline one.
    let inv = inv.replace("user = \"nobody-overridden-by-nothing\"\n", "");
    let invf = work.join("inventory.toml");
    std::fs::write(&invf, inv).unwrap();
    let snap = work.join("snap");
    let out = common::run(
        &work,
        &[
            "audit",
            "--inventory",
            invf.to_str().unwrap(),
            snap.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{err}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors: Vec<(String, String, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| {
            (
                f["rule"].as_str().unwrap_or("").to_string(),
                f["device"].as_str().unwrap_or("").to_string(),
                f["interface"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    // The only error: h3's 1500-byte MTU in the 9000 fabric.
    assert_eq!(
        errors,
        vec![("MTU002".to_string(), "h3".to_string(), "eth1".to_string())],
        "{err}"
    );
    // Real outputs from real servers.
    for h in ["h1", "bed-h2", "h3", "h4", "bed-h4"] {
        let m = meta(&snap, h);
        assert!(m.get("error").is_none(), "{h}: {m:?}\n{err}");
        let ip: Value = serde_json::from_str(&read(
            &snap.join("devices").join(h).join("ip_-d_-j_link_show.txt"),
        ))
        .unwrap();
        let eth1 = ip
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["ifname"] == "eth1")
            .unwrap();
        assert_eq!(eth1["mtu"], if h == "h3" { 1500 } else { 9000 }, "{h}");
        let lldp = read(&snap.join("devices").join(h).join("lldpctl_-f_json.txt"));
        assert!(lldp.contains(&format!("\"{PREFIX}-sw\"")), "{h}: {lldp}");
        assert!(
            read(&snap.join("devices").join(h).join("ethtool_eth1.txt")).contains("Link detected")
        );
        // The RDMA tool's own "no device" answer is kept, not a made-up value.
        let rdma = command(&m, "rdma link show -j");
        assert_ne!(rdma["exit"].as_integer(), Some(0), "{h}: {rdma:?}");
        assert!(rdma.get("stderr").is_some(), "{h}: {rdma:?}");
    }
    // h4 refuses the collector's own address: it was reached through h1 (the inventory's jump
    // for h4, ~/.ssh/config's ProxyJump for bed-h4).
    let direct = Command::new("ssh")
        .args([
            "-o",
            "BatchMode=yes",
            "-o",
            "ConnectTimeout=5",
            "-i",
            key.to_str().unwrap(),
            "-o",
            &format!("UserKnownHostsFile={}", kh.display()),
            &format!("root@{NET}.4"),
            "true",
        ])
        .output();
    if let Ok(d) = direct {
        assert_ne!(d.status.code(), Some(0), "h4 should refuse direct logins");
    }

    // The same hosts from an Ansible YAML inventory, limited to two of them.
    let yml = format!(
        "all:\n  vars:\n    ansible_user: root\n    ansible_ssh_private_key_file: {}\n    fabric_audit_known_hosts: {}\n  children:\n    gpus:\n      hosts:\n        h1:\n          ansible_host: {NET}.1\n        h3:\n          ansible_host: {NET}.3\n        h4:\n          ansible_host: {NET}.4\n",
        key.display(),
        kh.display()
    );
    let ymlf = work.join("hosts.yml");
    std::fs::write(&ymlf, yml).unwrap();
    let snap2 = work.join("snap2");
    let out = common::run(
        &work,
        &[
            "collect",
            "--inventory",
            ymlf.to_str().unwrap(),
            "--limit",
            "h1,h3",
            "--out",
            snap2.to_str().unwrap(),
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut names: Vec<String> = std::fs::read_dir(snap2.join("devices"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["h1", "h3"]);
}
