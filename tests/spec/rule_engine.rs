//! The rule engine on hand-built models: every rule passes on a correct fabric, fires on the
//! fault it describes, and says "could not decide" (info) when its input is unknown.

use fabric_audit::audit::load_rules;
use fabric_audit::finding::{Finding, Severity};
use fabric_audit::model::*;
use std::sync::Arc;

fn src() -> Src {
    Src::new(&Arc::from("configs/leaf1.cfg"), 10)
}
fn k<T>(v: T) -> Field<T> {
    known(v, &src())
}

/// PFC on priority 3 in both directions, no 802.3x pause: the correct state on both ends.
fn lossless_on_priority_3(i: &mut Interface) {
    i.pfc = Pfc {
        mode: k("on".into()),
        priorities: k(vec![3]),
        rx: k(true),
        tx: k(true),
    }
    .into();
    i.link_pause = LinkPause {
        rx: k(false),
        tx: k(false),
    }
    .into();
}

fn switch_port(name: &str) -> Interface {
    let mut i = Interface::new(name, "ethernet");
    i.defined_at = Some(src());
    i.admin_up = k(true);
    i.speed_gbps = k(100.0);
    i.mtu = k(9216);
    i.mtu_raw = k(9216);
    i.qos.trust = k("dscp".into());
    let mut map = vec![0u8; 64];
    map[26] = 3;
    map[48] = 6;
    i.qos.dscp_to_tc = k(map);
    i.qos.tc_to_queue = k((0..8).collect());
    i.qos.tc_to_pg = k((0..8).collect());
    i.qos.tc_to_pfc_priority = k((0..8).collect());
    i.qos.dscp_rewrites = k(vec![]);
    lossless_on_priority_3(&mut i);
    for q in i.queues.iter_mut() {
        q.scheduler = k("dwrr".into());
        q.ecn.enabled = k(false);
        q.wred_drop = k(false);
    }
    i.queues[0].weight_pct = k(40.0);
    i.queues[3].weight_pct = k(60.0);
    i.queues[3].ecn = Ecn {
        enabled: k(true),
        min_bytes: k(153600),
        max_bytes: k(1536000),
        max_probability_pct: k(100.0),
        ..Default::default()
    };
    i.queues[6].scheduler = k("strict".into());
    i.pgs[3] = PriorityGroup {
        id: 3,
        headroom_bytes: k(90000),
        xoff_bytes: k(2_000_000),
        xon_bytes: k(1_900_000),
        size_bytes: k(2_090_000),
        pool: k("no-drop".into()),
        lossless: k(true),
    };
    i.watchdog = Watchdog {
        enabled: k(true),
        detect_ms: k(200.0),
        restore_ms: k(400.0),
        poll_ms: k(100.0),
        action: k("drop".into()),
    }
    .into();
    i
}

fn host_nic(name: &str) -> Interface {
    let mut i = Interface::new(name, "ethernet");
    i.admin_up = k(true);
    i.oper_up = k(true);
    i.speed_gbps = k(100.0);
    i.mtu = k(9000);
    i.mtu_raw = k(9000);
    i.qos.trust = k("dscp".into());
    i.qos.dscp_to_tc = k((0..64u8).map(|d| d >> 3).collect());
    lossless_on_priority_3(&mut i);
    i.cable_m = k(7.0);
    let mut rdma = Rdma::default();
    rdma.device = "mlx5_0".into();
    rdma.port = 1;
    rdma.state = k("ACTIVE".into());
    *rdma.details_mut() = RdmaDetails {
        roce_mode: k("RoCE v2".into()),
        roce_tos: k(106),
        cnp_dscp: k(48),
        cnp_prio: k(6),
        np_enable: k(vec![false, false, false, true, false, false, false, false]),
        rp_enable: k(vec![false, false, false, true, false, false, false, false]),
        active_mtu: k(4096),
        link_layer: k("Ethernet".into()),
        dcbx_mode: k("OS controlled".into()),
        prio_to_buffer: k(vec![0, 0, 0, 1, 0, 0, 0, 0]),
        buffer_size: k(vec![130944, 130944, 0, 0, 0, 0, 0, 0]),
        prio_to_tc: k((0..8).collect()),
        tc_tsa: k(vec!["ets".into(); 8]),
        tc_bw: k(vec![0, 0, 0, 50, 0, 0, 0, 50]),
        pfc_prevention_ms: k(100),
        prio_pause_counters: k(true),
    };
    i.rdma = Some(Box::new(rdma));
    i.lldp_neighbor = Some(Box::new(LldpNeighbor {
        device: "leaf1".into(),
        port: "Ethernet1/1".into(),
        src: Some(src()),
        ..Default::default()
    }));
    i.lldp_in_fabric = Some(true);
    i.nic = Some(Box::new(Nic {
        counters: Some(NicCounters {
            out_of_sequence: k(0),
            packet_seq_err: k(0),
            local_ack_timeout_err: k(0),
            roce_adp_retrans: k(0),
            out_of_buffer: k(0),
            rx_discards_phy: k(0),
            tx_pause_storm_error_events: k(0),
            np_cnp_sent: k(1200),
            np_ecn_marked_roce_packets: k(1500),
            rp_cnp_ignored: k(0),
            ..Default::default()
        }),
        ..Default::default()
    }));
    i
}

fn fabric() -> Fabric {
    let mut leaf = Device {
        name: "leaf1".into(),
        platform: "nxos".into(),
        role: "leaf".into(),
        is_switch: true,
        platform_reason: "fabric.toml".into(),
        ..Default::default()
    };
    leaf.qos.nodrop_class_mtu = k(9216);
    leaf.interfaces = vec![switch_port("Ethernet1/1"), switch_port("Ethernet1/2")];
    let mut host = Device {
        name: "gpu01".into(),
        platform: "linux".into(),
        role: "host".into(),
        platform_reason: "device.toml".into(),
        ..Default::default()
    };
    host.interfaces = vec![host_nic("eth2")];
    // A host without GPUs or NVMe-oF storage, with everything the host rules read collected.
    let facts = host.host.get_or_insert_with(Default::default);
    facts.lldp = k(true);
    facts.arch = k("x86_64".into());
    facts.iommu = k("pt".into());
    facts.iommu_active = k(false);
    facts.qos_boot_files = k(vec!["/etc/systemd/system/roce-qos.service".into()]);
    facts.gpus = Some(vec![]);
    facts.pci = Some(vec![]);
    facts.nccl = Some(Nccl {
        ib_tc: k(106),
        ib_timeout: k(22),
        ib_retry_cnt: k(7),
        ..Default::default()
    });
    facts.nvme = Some(Nvme {
        multipath: k(true),
        subsystems: Some(vec![]),
        controllers: Some(vec![]),
    });
    let rules = load_rules(None).unwrap();
    let mut f = Fabric {
        devices: vec![leaf, host],
        links: vec![Link {
            a: Endpoint {
                device: "gpu01".into(),
                interface: "eth2".into(),
            },
            b: Endpoint {
                device: "leaf1".into(),
                interface: "Ethernet1/1".into(),
            },
            source: "fabric.toml".into(),
            one_sided: false,
            cable_m: Some(3.0),
            src: None,
            matched_by: vec![],
        }],
        policy: rules.policy_defaults.clone(),
        notices: vec![],
    };
    fabric_audit::fabric::mark_roce_ports(&mut f.devices, &f.links);
    f
}

fn run(f: &Fabric) -> Vec<Finding> {
    let rules = load_rules(None).unwrap();
    fabric_audit::rules::eval::evaluate(&rules, f)
}

fn fired<'a>(fs: &'a [Finding], rule: &str) -> Vec<&'a Finding> {
    fs.iter()
        .filter(|f| **f.rule() == *rule && !f.undecided())
        .collect()
}

#[test]
fn correct_fabric_is_clean() {
    let fs = run(&fabric());
    let bad: Vec<_> = fs
        .iter()
        .filter(|f| f.severity() > Severity::Info || f.undecided())
        .collect();
    assert!(bad.is_empty(), "{bad:#?}");
}

fn expect_fires(rule: &str, mutate: impl FnOnce(&mut Fabric)) -> Vec<Finding> {
    let mut f = fabric();
    mutate(&mut f);
    fabric_audit::fabric::mark_roce_ports(&mut f.devices, &f.links);
    let fs = run(&f);
    let hits: Vec<Finding> = fired(&fs, rule).into_iter().cloned().collect();
    assert!(!hits.is_empty(), "{rule} did not fire; findings: {fs:#?}");
    hits
}

fn sw(f: &mut Fabric) -> &mut Interface {
    &mut f.devices[0].interfaces[0]
}
fn nic(f: &mut Fabric) -> &mut Interface {
    &mut f.devices[1].interfaces[0]
}

#[test]
fn pfc_rules_fire() {
    let h = expect_fires("PFC001", |f| sw(f).pfc.priorities = k(vec![]));
    assert_eq!(h[0].severity(), Severity::Error);
    assert_eq!(h[0].interface.as_deref(), Some("Ethernet1/1"));
    assert_eq!(h[0].source.as_ref().map(|s| s.line), Some(10));
    expect_fires("PFC002", |f| sw(f).pfc.priorities = k(vec![3, 4, 6]));
    let h = expect_fires("PFC003", |f| {
        sw(f).pfc.mode = default_of("auto".into(), None)
    });
    assert!(h[0].message().contains("auto"), "{}", h[0].message());
    expect_fires("PFC003", |f| nic(f).link_pause.rx = k(true));
    expect_fires("PFC004", |f| nic(f).pfc.priorities = k(vec![3, 4]));
    expect_fires("PFC005", |f| {
        let i = sw(f);
        i.names.lag_parent = Some("port-channel10".into());
        i.pfc.priorities = k(vec![]);
    });
    expect_fires("PFC006", |f| sw(f).pfc.rx = k(false));
    expect_fires("PFC007", |f| {
        let n = nic(f);
        n.rdma.as_mut().unwrap().details_mut().dcbx_mode = k("firmware".into());
        n.pfc.priorities = k(vec![4]);
    });
    expect_fires("PFC008", |f| {
        sw(f).qos.tc_to_pfc_priority = k(vec![0, 1, 2, 4, 4, 5, 6, 7])
    });
}

#[test]
fn ecn_rules_fire() {
    expect_fires("ECN001", |f| sw(f).queues[3].ecn.enabled = k(false));
    expect_fires("ECN002", |f| sw(f).queues[3].ecn.min_bytes = k(3_000_000));
    let h = expect_fires("ECN003", |f| {
        sw(f).queues[3].ecn.max_probability_pct = k(0.0)
    });
    assert_eq!(h[0].severity(), Severity::Error);
    let h = expect_fires("ECN003", |f| {
        sw(f).queues[3].ecn.max_probability_pct = k(7.0)
    });
    assert_eq!(h[0].severity(), Severity::Warning);
    let h = expect_fires("ECN004", |f| sw(f).pgs[3].xoff_bytes = k(100_000));
    assert_eq!(h.len(), 2, "{h:#?}");
    expect_fires("ECN005", |f| {
        nic(f).rdma.as_mut().unwrap().details_mut().np_enable = k(vec![false; 8])
    });
    expect_fires("ECN006", |f| {
        nic(f).rdma.as_mut().unwrap().details_mut().roce_tos = k(104)
    });
    expect_fires("ECN007", |f| sw(f).queues[3].wred_drop = k(true));
    expect_fires("ECN008", |f| {
        let mut other = f.devices[0].clone();
        other.name = "leaf2".into();
        let mut third = f.devices[0].clone();
        third.name = "leaf3".into();
        third.interfaces[0].queues[3].ecn.min_bytes = k(300_000);
        f.devices.push(other);
        f.devices.push(third);
    });
}

#[test]
fn dscp_mtu_rules_fire() {
    expect_fires("DSCP001", |f| nic(f).qos.trust = k("pcp".into()));
    expect_fires("DSCP002", |f| sw(f).qos.dscp_to_tc = k(vec![0; 64]));
    expect_fires("DSCP003", |f| {
        let mut m = vec![0u8; 64];
        m[26] = 3;
        sw(f).qos.dscp_to_tc = k(m);
    });
    expect_fires("DSCP004", |f| {
        nic(f).rdma.as_mut().unwrap().details_mut().cnp_dscp = k(4)
    });
    expect_fires("DSCP005", |f| {
        nic(f).rdma.as_mut().unwrap().details_mut().roce_tos = k(0)
    });
    expect_fires("DSCP006", |f| sw(f).qos.dscp_rewrites = k(vec![26]));
    expect_fires("DSCP008", |f| sw(f).qos.trust = k("pcp".into()));
    expect_fires("MTU001", |f| sw(f).mtu = k(1500));
    expect_fires("MTU002", |f| nic(f).mtu = k(1500));
    expect_fires("MTU003", |f| f.devices[0].interfaces[0].mtu = k(1500));
    // Ethernet1/2 is in no link while leaf1 has links: an unused port, not audited as RoCE.
    let mut f = fabric();
    f.devices[0].interfaces[1].mtu = k(1500);
    fabric_audit::fabric::mark_roce_ports(&mut f.devices, &f.links);
    assert!(!f.devices[0].interfaces[1].roce);
    assert!(run(&f).iter().all(|x| &**x.rule() != "MTU003"));
    expect_fires("MTU004", |f| {
        nic(f).rdma.as_mut().unwrap().details_mut().active_mtu = k(1024)
    });
    expect_fires("MTU005", |f| f.devices[0].qos.nodrop_class_mtu = k(2240));
}

#[test]
fn buf_wdg_sched_host_rules_fire() {
    let h = expect_fires("BUF001", |f| sw(f).pgs[3].headroom_bytes = k(20000));
    assert!(
        h[0].message().contains("75117") || h[0].message().contains("needs"),
        "{}",
        h[0].message()
    );
    expect_fires("BUF002", |f| sw(f).pgs[3].lossless = k(false));
    expect_fires("BUF003", |f| f.links[0].cable_m = Some(30.0));
    expect_fires("BUF004", |f| sw(f).pgs[3].xon_bytes = k(2_100_000));
    expect_fires("WDG001", |f| sw(f).watchdog.enabled = k(false));
    expect_fires("WDG002", |f| sw(f).watchdog.detect_ms = k(50.0));
    expect_fires("WDG003", |f| sw(f).watchdog.action = k("alert".into()));
    expect_fires("WDG004", |f| {
        nic(f)
            .rdma
            .as_mut()
            .unwrap()
            .details_mut()
            .pfc_prevention_ms = k(8000)
    });
    expect_fires("SCHED001", |f| sw(f).queues[6].scheduler = k("dwrr".into()));
    expect_fires("SCHED002", |f| sw(f).queues[3].weight_pct = k(20.0));
    expect_fires("SCHED003", |f| sw(f).queues[0].weight_pct = k(80.0));
    expect_fires("SCHED004", |f| {
        let r = nic(f).rdma.as_mut().unwrap().details_mut();
        r.tc_tsa = k(vec![
            "ets".into(),
            "ets".into(),
            "ets".into(),
            "strict".into(),
            "ets".into(),
            "ets".into(),
            "ets".into(),
            "ets".into(),
        ]);
    });
    expect_fires("HOST001", |f| {
        nic(f).rdma.as_mut().unwrap().details_mut().roce_mode = k("IB/RoCE v1".into())
    });
    expect_fires("HOST008", |f| nic(f).link_pause.tx = k(true));
}

/// WDG002 on a port whose platform has no restore (or poll) timer to report: the check fails on
/// the detection time before it reads them, so its message renders without them.
#[test]
fn wdg002_message_renders_without_restore_or_poll_timer() {
    let h = expect_fires("WDG002", |f| {
        let w = &mut sw(f).watchdog;
        w.detect_ms = k(1500.0);
        w.restore_ms = None;
        w.poll_ms = None;
    });
    let m = &h[0].message();
    assert!(!m.contains("template failed"), "{m}");
    assert!(m.contains("detect 1500"), "{m}");
    assert!(m.contains("poll unknown"), "{m}");
    assert!(m.contains("restore unknown"), "{m}");
}

#[test]
fn unknown_input_is_undecided_never_pass_or_fail() {
    let mut f = fabric();
    sw(&mut f).pfc.priorities = None;
    nic(&mut f).rdma.as_mut().unwrap().details_mut().roce_mode = None;
    let fs = run(&f);
    let pfc: Vec<_> = fs.iter().filter(|x| &**x.rule() == "PFC001").collect();
    assert_eq!(pfc.len(), 1, "{pfc:#?}");
    assert_eq!(pfc[0].severity(), Severity::Info);
    assert!(pfc[0].undecided());
    assert!(
        pfc[0].message().contains("i.pfc.priorities"),
        "{}",
        pfc[0].message()
    );
    let host: Vec<_> = fs.iter().filter(|x| &**x.rule() == "HOST001").collect();
    assert_eq!(host.len(), 1);
    assert!(
        host[0].undecided() && host[0].message().contains("roce_mode"),
        "{}",
        host[0].message()
    );
}

#[test]
fn headroom_formula_matches_the_worked_numbers() {
    // BUF001 worked numbers (802.1Qbb delay components, see `headroom_required`):
    // 100G, MTU 9216 → 75,117 B @5 m, 111,992 B @300 m.
    let rules = load_rules(None).unwrap();
    let e = rules
        .env
        .compile_expression("headroom_required(100, 5, 9216)")
        .unwrap();
    assert_eq!(e.eval(()).unwrap().to_string(), "75117.0");
    let e = rules
        .env
        .compile_expression("headroom_required(100, 300, 9216)")
        .unwrap();
    assert_eq!(e.eval(()).unwrap().to_string(), "111992.0");
}

#[test]
fn rule_with_unknown_field_is_a_load_error_with_line() {
    let dir = std::env::temp_dir().join(format!("fa-rules-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = r#"
[[rule]]
id = "PFC901"
title = "typo"
family = "PFC"
severity = "error"
scope = "interface"
platforms = ["nxos"]
check = "i.pfc.prioritys | length > 0"
message = "x"
[rule.doc]
what = "x"
why = "x"
example = "x"
fix = "x"
"#;
    std::fs::write(dir.join("bad.toml"), bad).unwrap();
    let err = load_rules(Some(&dir)).err().expect("typo must be rejected");
    let msg = format!("{err:#}");
    assert!(msg.contains("bad.toml:9"), "{msg}");
    assert!(
        msg.contains("i.pfc.prioritys") && msg.contains("priorities"),
        "{msg}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Every file a user gets (rules, parsers, sources, tests, READMEs) in `dir`, recursively.
fn shipped_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            shipped_files(&p, out);
        } else if matches!(
            p.extension().and_then(|x| x.to_str()),
            Some("rs" | "toml" | "md")
        ) {
            out.push(p);
        }
    }
}

/// Rule and module docs cite public sources (title, vendor, URL), never a file users do not
/// have (the maintainers' design notes and rule catalog) or the catalog's opaque source ids
/// ("S12"), and every rule names at least one public source by URL (issue 18, item 6).
#[test]
fn docs_cite_public_sources_not_private_files() {
    // Spelled in pieces so this test does not find itself.
    let private = [format!("RULES-{}", "CATALOG"), format!("DESIGN{}", ".md")];
    let source_id = regex::Regex::new(r"\bS[0-9]+[a-z]?\b").unwrap();
    // An evidence marker quoting a catalog source id in a comment: an opening bracket, V, S2.
    let marker_id = regex::Regex::new(r"\[[VSIR]?[ ;,]*S[0-9]+[a-z]?\b").unwrap();
    let mut bad = Vec::new();

    for r in &load_rules(None).unwrap().rules {
        let doc = &r.spec.doc;
        for reference in &doc.references {
            if private.iter().any(|p| reference.contains(p.as_str()))
                || source_id.is_match(reference)
            {
                bad.push(format!("{} reference {reference:?}", r.spec.id));
            }
        }
        if !doc.references.iter().any(|x| x.contains("http")) {
            bad.push(format!("{} has no reference with a URL", r.spec.id));
        }
        for text in [&doc.what, &doc.why, &doc.example, &doc.fix]
            .into_iter()
            .chain(doc.unverified.as_ref())
        {
            if private.iter().any(|p| text.contains(p.as_str())) || marker_id.is_match(text) {
                bad.push(format!("{} doc text {text:?}", r.spec.id));
            }
        }
    }

    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    for dir in ["rules", "vendor-parsers", "src", "tests"] {
        shipped_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 50, "found only {} files", files.len());
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            if private.iter().any(|p| line.contains(p.as_str())) || marker_id.is_match(line) {
                bad.push(format!("{}:{}: {}", f.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(bad.is_empty(), "{} places:\n{}", bad.len(), bad.join("\n"));
}

/// Issue 14 item 5, "unknown stays unknown", for every rule: on each clean fabric, each model
/// field a rule reads is removed from every device or interface in turn (as if that input had
/// not been collected), and the rule must not produce an error or warning it did not produce on
/// the full model: a missing input is "could not decide" (info), never a verdict.
#[test]
fn no_rule_turns_a_missing_input_into_an_error_or_warning() {
    use fabric_audit::rules::eval::{Mask, evaluate_masked};
    use std::collections::BTreeSet;
    let rules = load_rules(None).unwrap();
    let parsers = fabric_audit::load_parsers(None).unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    // Set by the engine for every object, not read from an input.
    let identity = [
        "name",
        "kind",
        "roce",
        "platform",
        "is_switch",
        "role",
        "parse",
    ];
    let mut bad = Vec::new();
    let mut masked_count = 0;
    for fabric_dir in ["clean-fabric", "clean-mixed-fabric"] {
        let snap = fabric_audit::snapshot::Snapshot::read(&root.join(fabric_dir)).unwrap();
        let (policy, notices) = fabric_audit::audit::resolve_policy(&rules, &snap);
        let fabric = fabric_audit::fabric::assemble(&parsers, &snap, policy, notices);
        let verdicts = |fs: Vec<Finding>| -> BTreeSet<(String, String, String)> {
            fs.into_iter()
                .filter(|f| f.severity() != Severity::Info)
                .map(|f| {
                    let i = f.interface.as_deref().unwrap_or_default().to_string();
                    (f.device.to_string(), i, f.message().to_string())
                })
                .collect()
        };
        for rule in &rules.rules {
            let id = rule.spec.id.clone();
            let only = |r: &fabric_audit::rules::Rule| r.spec.id == id;
            let full = verdicts(evaluate_masked(&rules, &fabric, &only, &Mask::default()).0);
            for path in rule.reads() {
                let (root_var, rest) = path.split_once('.').unwrap_or((path.as_str(), ""));
                let rest = rest.strip_prefix("interfaces.").unwrap_or(rest);
                if rest.is_empty() || rest == "interfaces" || identity.contains(&rest) {
                    continue;
                }
                let mut mask = Mask::default();
                match root_var {
                    "i" | "peer" | "a" | "b" => mask.interface.push(rest.to_string()),
                    "d" if path.starts_with("d.interfaces.") => {
                        mask.interface.push(rest.to_string())
                    }
                    "d" | "peer_d" | "ad" | "bd" => mask.device.push(rest.to_string()),
                    _ => continue, // policy, param, link, devices, notices
                }
                masked_count += 1;
                let got = verdicts(evaluate_masked(&rules, &fabric, &only, &mask).0);
                for v in got.difference(&full) {
                    bad.push(format!("{fabric_dir}: {id} without {path}: {v:?}"));
                }
            }
        }
    }
    assert!(masked_count > 100, "only {masked_count} fields masked");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The switch port of Juniper's AI/ML back-end JVD as the model holds it: the traffic class is
/// the queue of the forwarding class, so RoCE (DSCP 26) is TC 4 on queue 4 with PFC priority 3,
/// CNPs (DSCP 48) TC 3 on strict queue 3. Traffic class ≠ queue ≠ PFC priority (issue 15).
fn jvd_port(i: &mut Interface) {
    let mut map = vec![0u8; 64];
    map[26] = 4;
    map[48] = 3;
    i.qos.dscp_to_tc = k(map);
    i.qos.tc_to_pfc_priority = k(vec![0, 1, 2, 3, 3, 5, 6, 7]);
    i.queues[4] = i.queues[3].clone();
    i.queues[4].id = 4;
    i.queues[3] = Queue {
        id: 3,
        scheduler: k("strict".into()),
        ecn: Ecn {
            enabled: k(false),
            ..Default::default()
        },
        wred_drop: k(false),
        ..Default::default()
    };
    i.queues[6].scheduler = k("dwrr".into());
    i.pgs[4] = i.pgs[3].clone();
    i.pgs[4].id = 4;
    i.pgs[3] = PriorityGroup {
        id: 3,
        lossless: k(false),
        ..Default::default()
    };
}

#[test]
fn rules_read_class_queue_pg_and_pfc_priority_through_the_maps() {
    // Passing: every rule that used to index queue, PG and priority by the policy's TC 3.
    let mut f = fabric();
    jvd_port(sw(&mut f));
    let fs = run(&f);
    let bad: Vec<_> = fs
        .iter()
        .filter(|x| x.severity() > Severity::Info || x.undecided())
        .collect();
    assert!(bad.is_empty(), "{bad:#?}");
    // Failing, each through its map: the class's PFC priority, the class's queue, the CNP's
    // queue, the class's PG, and a CNP sharing the RoCE class.
    let h = expect_fires("DSCP002", |f| {
        jvd_port(sw(f));
        sw(f).qos.tc_to_pfc_priority = k(vec![0, 1, 2, 3, 4, 5, 6, 7]);
    });
    assert!(
        h[0].message().contains("PFC priority 4"),
        "{}",
        h[0].message()
    );
    let h = expect_fires("ECN001", |f| {
        jvd_port(sw(f));
        sw(f).queues[4].ecn.enabled = k(false);
    });
    assert!(h[0].message().contains("queue 4"), "{}", h[0].message());
    let h = expect_fires("SCHED001", |f| {
        jvd_port(sw(f));
        sw(f).queues[3].scheduler = k("dwrr".into());
    });
    assert!(h[0].message().contains("queue 3"), "{}", h[0].message());
    let h = expect_fires("BUF002", |f| {
        jvd_port(sw(f));
        sw(f).pgs[4].lossless = k(false);
    });
    assert!(h[0].message().contains("group 4"), "{}", h[0].message());
    expect_fires("DSCP003", |f| {
        jvd_port(sw(f));
        let mut m = vec![0u8; 64];
        m[26] = 4;
        m[48] = 4;
        sw(f).qos.dscp_to_tc = k(m);
    });
    // A declared class is still enforced: policy roce_tc 3 on a port that puts RoCE in TC 4.
    let h = expect_fires("DSCP002", |f| {
        jvd_port(sw(f));
        f.policy.insert("roce_tc".into(), 3.into());
    });
    assert!(h[0].message().contains("RoCE TC 3"), "{}", h[0].message());
}
