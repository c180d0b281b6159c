//! Remediation on platforms without a config file (Linux hosts): there is nothing to merge and
//! no round trip, so each firing case of an error rule that has a Linux fix is checked for the
//! command the engineer would run: a step on the host that fixes the case's finding, whose
//! lines start with the rule's command. A device value that is not an identifier withholds.

use crate::common;

use crate::common::cases;
use std::path::Path;

fn bin() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_fabric-audit"))
}

fn remediate(snap: &Path) -> serde_json::Value {
    let out = bin()
        .arg("remediate")
        .arg(snap)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The commands a rule's Linux snippet may run (each non-comment line starts with one).
fn commands(rule: &str) -> &'static [&'static str] {
    match rule {
        "PFC001" | "PFC004" | "PFC005" => &["mlnx_qos -i "],
        "PFC003" => &["ethtool -A "],
        "DSCP001" | "DSCP008" => &["mlnx_qos -i "],
        "DSCP004" => &["mlnx_qos -i ", "echo "],
        "DSCP005" => &["cma_roce_tos -d "],
        "ECN005" => &["echo 1 > /sys/class/net/"],
        "HOST001" => &["cma_roce_mode -d "],
        "MTU001" | "MTU002" => &["ip link set dev "],
        _ => &[],
    }
}

#[test]
fn every_firing_linux_case_gets_its_host_command() {
    let templates = fabric_audit::remediate::load(None).unwrap();
    let linux = &templates.platforms["linux"];
    assert!(linux.merge.is_none());
    let mut failures = Vec::new();
    let mut checked = 0;
    for (id, path) in cases() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.starts_with("linux-") || !linux.fixes.contains_key(&id) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let case: common::Case = toml::from_str(&text).unwrap();
        let tmp =
            std::env::temp_dir().join(format!("fa-remed-host-{}-{id}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        common::build_case(&path, &tmp).unwrap();
        let v = remediate(&tmp);
        for ex in case
            .expect
            .iter()
            .filter(|e| e.severity.as_deref() != Some("warning"))
        {
            let fixes_it = |t: &serde_json::Value| {
                t["rule"] == id.as_str()
                    && t["device"] == ex.device.as_str()
                    && ex.interface.as_deref().is_none_or(|i| t["interface"] == i)
            };
            let steps: Vec<&serde_json::Value> = v["devices"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["platform"] == "linux")
                .flat_map(|d| d["steps"].as_array().unwrap().iter())
                .filter(|s| s["fixes"].as_array().unwrap().iter().any(fixes_it))
                .collect();
            if steps.is_empty() {
                failures.push(format!(
                    "{name}: no Linux step fixes {id} on {} {:?}: {:#}",
                    ex.device, ex.interface, v
                ));
                continue;
            }
            checked += 1;
            for s in steps {
                let snippet = s["snippet"].as_str().unwrap();
                for l in snippet.lines().filter(|l| !l.starts_with('#')) {
                    if !commands(&id).iter().any(|c| l.starts_with(c)) {
                        failures.push(format!(
                            "{name}: {id}: `{l}` is not a {:?} command",
                            commands(&id)
                        ));
                    }
                }
                if let Some(i) = &ex.interface
                    && !snippet.contains(i.as_str())
                    && !snippet.contains("mlx5_")
                {
                    failures.push(format!("{name}: {id}: the snippet names neither {i} nor its RDMA device:\n{snippet}"));
                }
            }
        }
        let _ = std::fs::remove_dir_all(&tmp);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(checked >= 10, "only {checked} Linux findings checked");
}

/// A netdev or RDMA device name that is not an identifier never reaches a host command.
#[test]
fn a_hostile_host_name_withholds_the_command() {
    let p = fabric_audit::remediate::load(None).unwrap();
    let linux = &p.platforms["linux"];
    for bad in [
        "eth2;reboot",
        "eth2 --pfc 1",
        "$(reboot)",
        "eth2\nreboot",
        "a/../../x",
    ] {
        let t = linux
            .env
            .get_template(&linux.fixes["MTU002"][0].name)
            .unwrap();
        let e = t
            .render(minijinja::context! {
                f => minijinja::context! { interface => bad },
                policy => minijinja::context! { mtu => 9000 },
            })
            .unwrap_err();
        assert!(
            e.detail().unwrap().contains("not a valid interface"),
            "{bad}: {e}"
        );
        let t = linux
            .env
            .get_template(&linux.fixes["HOST001"][0].name)
            .unwrap();
        let e = t
            .render(minijinja::context! {
                i => minijinja::context! { rdma => minijinja::context! { device => bad, port => 1 } },
            })
            .unwrap_err();
        assert!(
            e.detail().unwrap().contains("not a valid rdma"),
            "{bad}: {e}"
        );
    }
    // Junos: a port or a class-of-service name from the config that is not an identifier.
    let junos = &p.platforms["junos"];
    let t = junos
        .env
        .get_template(&junos.fixes["PFC003"][0].name)
        .unwrap();
    let e = t
        .render(minijinja::context! {
            f => minijinja::context! { interface => "et-0/0/0 priority-flow-control; delete protocols", evidence => minijinja::context! { pause_too => false } },
        })
        .unwrap_err();
    assert!(e.detail().unwrap().contains("not a valid interface"), "{e}");
}
