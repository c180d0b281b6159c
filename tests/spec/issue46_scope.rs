//! Issue 46 "No silent pass", items 2-4: scope from intent, never from silence. Each case is a
//! single switch audited alone (no fabric.toml, no LLDP), through the CLI as a user runs it:
//! - item 2: a Cumulus switch with NVUE `qos roce` (NVIDIA's recommended RoCE configuration,
//!   https://docs.nvidia.com/networking-ethernet-software/cumulus-linux-512/Layer-1-and-Switch-Ports/Quality-of-Service/RDMA-over-Converged-Ethernet-RoCE/)
//!   and one GPU port at `link mtu 1500`: the mode is lossless intent for every port, so the
//!   port's MTU003 is reported (before: "none of the 32 up ports has lossless settings");
//! - item 3: a Junos leaf whose CoS is bound to `et-*` (Juniper's AI/ML JVD shape), GPU ports at
//!   `mtu 9216`, one without `mtu`; and an NX-OS leaf whose GPU ports rely on the default PFC
//!   mode, one without `mtu`: the port left out by the jumbo-frame heuristic is named by
//!   TOPO007 with the checks it fails (before: an info count);
//! - item 4: Onyx `show dcb priority-flow-control` rows "PFC admin Auto / oper Disabled" are
//!   not PFC enabled (before: audited as RoCE by "PFC enabled").

use crate::cli::{Scratch, bin};
use std::path::Path;

fn audit(snap: &Path) -> serde_json::Value {
    let out = bin()
        .arg("audit")
        .arg(snap)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn on<'a>(v: &'a serde_json::Value, rule: &str, port: &str) -> Vec<&'a serde_json::Value> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == rule && f["interface"] == port)
        .collect()
}

fn scope_text(v: &serde_json::Value) -> String {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "TOPO006")
        .map(|f| f["message"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn cumulus_qos_roce_is_lossless_intent_and_the_1500_port_is_reported() {
    let s = Scratch::new("i46-cumulus");
    let mut ports = String::new();
    for n in 1..=32 {
        let mtu = if n == 5 { "          mtu: 1500\n" } else { "" };
        ports.push_str(&format!(
            "      swp{n}:\n        link:\n{mtu}          state:\n            up: {{}}\n        type: swp\n"
        ));
    }
    let yaml = format!(
        "- header:\n    model: MSN3700\n    nvue-api-version: nvue_v1\n    rev-id: 1.0\n    version: Cumulus Linux 5.12.0\n- set:\n    interface:\n{ports}    qos:\n      roce:\n        state: enabled\n    system:\n      hostname: leaf01\n"
    );
    s.write("configs/leaf01.yaml", yaml);
    let v = audit(&s.0);
    let mtu = on(&v, "MTU003", "swp5");
    assert_eq!(mtu.len(), 1, "{}", scope_text(&v));
    assert_eq!(mtu[0]["severity"], "error");
    assert!(
        on(&v, "MTU003", "swp6").is_empty(),
        "swp6 keeps Cumulus's default 9216"
    );
    let t = scope_text(&v);
    assert!(t.contains("qos roce"), "{t}");
}

/// A Junos leaf after Juniper's AI/ML JVD (Juniper/jvd data_center/aidc/aiml_multitenancy_backend
/// spine1_qfx5240-64od.conf, corpus `junos/show-configuration/jvd-aiml-mtb-spine1-qfx5240.txt`):
/// CoS on `et-*` (classifier, scheduler map with ECN, PFC by congestion-notification profile,
/// DCBX left at its default), GPU ports `mtu 9216`, et-0/0/3 without `mtu`.
const JUNOS_LEAF: &str = r#"version 23.4R2-S3-EVO;
system {
    host-name leaf1;
}
interfaces {
    et-0/0/0 {
        mtu 9216;
        unit 0 {
            family inet {
                address 10.0.0.0/31;
            }
        }
    }
    et-0/0/1 {
        mtu 9216;
        unit 0 {
            family inet {
                address 10.0.0.2/31;
            }
        }
    }
    et-0/0/2 {
        mtu 9216;
        unit 0 {
            family inet {
                address 10.0.0.4/31;
            }
        }
    }
    et-0/0/3 {
        unit 0 {
            family inet {
                address 10.0.0.6/31;
            }
        }
    }
}
class-of-service {
    classifiers {
        dscp roce-dscp {
            forwarding-class roce {
                loss-priority low code-points 011010;
            }
            forwarding-class cnp {
                loss-priority low code-points 110000;
            }
        }
    }
    drop-profiles {
        dp-roce {
            interpolate {
                fill-level [ 10 50 ];
                drop-probability [ 0 100 ];
            }
        }
    }
    forwarding-classes {
        class best-effort queue-num 0;
        class roce queue-num 3 no-loss pfc-priority 3;
        class cnp queue-num 6;
    }
    congestion-notification-profile {
        roce-cnp {
            input {
                dscp {
                    code-point 011010 {
                        pfc;
                    }
                }
            }
            output {
                ieee-802.1 {
                    code-point 011 {
                        flow-control-queue 3;
                    }
                }
            }
            pfc-watchdog {
                detection 2;
                recovery-time 200;
            }
        }
    }
    interfaces {
        et-* {
            scheduler-map roce-sm;
            congestion-notification-profile roce-cnp;
            unit * {
                classifiers {
                    dscp roce-dscp;
                }
            }
        }
    }
    scheduler-maps {
        roce-sm {
            forwarding-class best-effort scheduler be-sched;
            forwarding-class roce scheduler roce-sched;
            forwarding-class cnp scheduler cnp-sched;
        }
    }
    schedulers {
        be-sched {
            transmit-rate percent 40;
            priority low;
        }
        roce-sched {
            transmit-rate percent 55;
            priority low;
            drop-profile-map loss-priority any protocol any drop-profile dp-roce;
            explicit-congestion-notification;
        }
        cnp-sched {
            transmit-rate percent 5;
            priority strict-high;
        }
    }
}
"#;

#[test]
fn junos_et_star_leaf_names_the_gpu_port_without_mtu() {
    let s = Scratch::new("i46-junos");
    s.write("configs/leaf1.conf", JUNOS_LEAF);
    let v = audit(&s.0);
    let left = on(&v, "TOPO007", "et-0/0/3");
    assert_eq!(left.len(), 1, "{}", scope_text(&v));
    let m = left[0]["message"].as_str().unwrap();
    assert!(m.contains("MTU003") && m.contains("default MTU"), "{m}");
    assert_eq!(left[0]["severity"], "warning");
    // the GPU ports that carry jumbo frames are the RoCE ports, and pass
    for p in ["et-0/0/0", "et-0/0/1", "et-0/0/2"] {
        assert!(on(&v, "TOPO007", p).is_empty() && on(&v, "MTU003", p).is_empty());
    }
    assert!(scope_text(&v).contains("et-0/0/3"), "{}", scope_text(&v));
    // `--format model` shows the port's scope decision with the rule and the binding's line
    let out = bin()
        .arg("audit")
        .arg(&s.0)
        .args(["--format", "model"])
        .output()
        .unwrap();
    let m: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let port = m["devices"][0]["interfaces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "et-0/0/3")
        .unwrap();
    assert_eq!(port["scope"]["rule"], "lossless+mtu", "{port:#}");
    assert!(
        port["scope"]["at"]
            .as_str()
            .is_some_and(|a| a.starts_with("configs/leaf1.conf:")),
        "{port:#}"
    );
}

#[test]
fn nxos_leaf_on_the_default_pfc_mode_names_the_gpu_port_without_mtu() {
    let s = Scratch::new("i46-nxos");
    let cfg = std::fs::read_to_string(
        crate::common::fixtures().join("scope-single-switch/configs/tor1.cfg"),
    )
    .unwrap();
    // The GPU ports rely on the default PFC mode: no `priority-flow-control mode on` line.
    let cfg = cfg.replace("  priority-flow-control mode on\n", "");
    s.write("configs/tor1.cfg", cfg);
    let v = audit(&s.0);
    let left = on(&v, "TOPO007", "Ethernet1/4");
    assert_eq!(left.len(), 1, "{}", scope_text(&v));
    let m = left[0]["message"].as_str().unwrap();
    assert!(m.contains("MTU003"), "{m}");
    assert!(on(&v, "TOPO007", "Ethernet1/1").is_empty());
}

#[test]
fn onyx_pfc_admin_auto_oper_disabled_is_not_pfc_enabled() {
    let s = Scratch::new("i46-onyx");
    // `show dcb priority-flow-control | json-print` as ansible's onyx_pfc_interface test
    // fixture records it (ansible/ansible test/units/modules/network/onyx/fixtures/
    // onyx_pfc_interface_disabled.cfg).
    s.write(
        "devices/sw1/pfc.txt",
        r#"{
    "Eth1/1": [
        {
            "PFC admin": "Auto",
            "PFC oper": "Disabled"
        }
    ],
    "Eth1/2": [
        {
            "PFC admin": "Auto",
            "PFC oper": "Disabled"
        }
    ]
}
"#,
    );
    s.write(
        "devices/sw1/device.toml",
        "platform = \"onyx\"\nrole = \"leaf\"\n[[command]]\ncmd = \"show dcb priority-flow-control | json-print\"\nfile = \"pfc.txt\"\nexit = 0\n",
    );
    let v = audit(&s.0);
    let t = scope_text(&v);
    assert!(!t.contains("with PFC enabled"), "{t}");
    let errors: Vec<_> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

/// Juniper's published AI/ML multitenancy spine, audited alone, keeps 0 errors (its unused
/// breakout ports at the default MTU are named as left out, not held to the RoCE rules).
#[test]
fn juniper_published_aiml_spine_alone_keeps_zero_errors() {
    let Some(root) = std::env::var_os("FABRIC_AUDIT_CORPUS") else {
        eprintln!("SKIPPED: FABRIC_AUDIT_CORPUS is not set");
        return;
    };
    let src = Path::new(&root).join("junos/show-configuration/jvd-aiml-mtb-spine1-qfx5240.txt");
    let s = Scratch::new("i46-jvd-spine");
    s.write("configs/spine1.conf", std::fs::read(&src).unwrap());
    let v = audit(&s.0);
    let errors: Vec<_> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| f["message"].clone())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}
