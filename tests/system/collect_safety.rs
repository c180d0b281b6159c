//! The two safety properties collection rests on, tested on every platform that has a parser:
//! only read-only commands load (a vendor file asking for anything else is refused), and
//! secrets are redacted before anything is written.

use std::process::Command;

#[test]
fn every_embedded_command_passes_the_allow_list() {
    // Loading succeeds only if every command of every embedded parser is read-only.
    let parsers = fabric_audit::load_parsers(None).unwrap();
    let n: usize = parsers.platforms.iter().map(|p| p.commands.len()).sum();
    assert!(n > 20);
}

#[test]
fn a_parser_file_asking_to_change_state_is_refused_at_load() {
    let dir = std::env::temp_dir().join(format!("fa-allow-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (plat, cmd) in [
        ("nxos", "configure terminal"),
        ("eos", "show running-config | redirect flash:x"),
        ("linux", "mlnx_qos -i {if} --pfc 0,0,0,1,0,0,0,0"),
        ("linux", "ethtool -A {if} rx off tx off"),
    ] {
        let file = dir.join(format!("{plat}.toml"));
        std::fs::write(
            &file,
            format!(
                "platform = \"{plat}\"\nname = \"x\"\n\n[[command]]\ncmd = \"{cmd}\"\nid = \"x\"\n"
            ),
        )
        .unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_fabric-audit"))
            .args(["parsers", "--parsers"])
            .arg(&dir)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {err}");
        assert!(
            err.contains(&format!("{plat}.toml:5")) && err.contains("read-only allow-list"),
            "{err}"
        );
        std::fs::remove_file(&file).unwrap();
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn nxos_secrets_are_redacted() {
    let parsers = fabric_audit::load_parsers(None).unwrap();
    let p = parsers.platform("nxos").unwrap();
    let text = "hostname leaf1\n\
username admin password 5 $5$Hq1Nn0Zx$T2u7Vb9eXwq0Jt3mYk6Lr1pSd8Fz4Gc5Ha7Qb2Ne9Wo  role network-admin\n\
snmp-server community fabric-ro group network-operator\n\
snmp-server user admin network-admin auth md5 0x3f5a9c0e7b21d44a8e0f5c6b7a8d9e01 priv 0x99887766554433221100aabbccddeeff localizedkey\n\
tacacs-server host 192.0.2.9 key 7 \"fewhg123\"\n\
radius-server key 7 \"secretkey\"\n\
interface Ethernet1/1\n  mtu 9216\n";
    let (out, n) = p.redact(text);
    for secret in [
        "$5$Hq1N",
        "fabric-ro",
        "0x3f5a9c",
        "0x998877",
        "fewhg123",
        "secretkey",
    ] {
        assert!(!out.contains(secret), "{secret} left in:\n{out}");
    }
    assert_eq!(n, 6, "{out}");
    assert!(
        out.contains("hostname leaf1") && out.contains("  mtu 9216"),
        "{out}"
    );
    // Redacting twice changes nothing more.
    assert_eq!(p.redact(&out).1, 0);
}

#[test]
fn eos_secrets_are_redacted() {
    let parsers = fabric_audit::load_parsers(None).unwrap();
    let p = parsers.platform("eos").unwrap();
    let text = "hostname leaf3\n\
username admin privilege 15 role network-admin secret sha512 $6$abcdefgh$XyZ0123456789\n\
enable secret sha512 $6$enablehash\n\
snmp-server community public-ro ro\n\
tacacs-server host 192.0.2.9 key 7 070C285F4D06\n\
router bgp 65101\n   neighbor 10.1.1.1 password 7 AQQVZl2nrMc=\n";
    let (out, n) = p.redact(text);
    for secret in [
        "$6$abcdefgh",
        "$6$enablehash",
        "public-ro",
        "070C285F4D06",
        "AQQVZl2nrMc=",
    ] {
        assert!(!out.contains(secret), "{secret} left in:\n{out}");
    }
    assert_eq!(n, 5, "{out}");
    assert!(out.contains("router bgp 65101"));
}

#[test]
fn linux_outputs_have_nothing_to_redact() {
    let parsers = fabric_audit::load_parsers(None).unwrap();
    let p = parsers.platform("linux").unwrap();
    let text = "DCBX mode: OS controlled\nPriority trust state: dscp\n";
    assert_eq!(p.redact(text), (text.to_string(), 0));
}
