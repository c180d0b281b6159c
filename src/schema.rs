//! The field names rules may use, derived from a fully populated model value.
//!
//! A rule that names a field the model does not have (`i.pfc.prio` for `i.pfc.priorities`) is
//! rejected at load time with its file:line, instead of silently never firing.

use crate::model::*;
use std::collections::BTreeSet;
use std::sync::Arc;

fn s<T>(v: T) -> Field<T> {
    let file: Arc<str> = Arc::from("schema");
    known(v, &Src::new(&file, 1))
}

/// An interface with every optional field set.
pub fn full_interface() -> Interface {
    let mut i = Interface::new("Ethernet1/1", "ethernet");
    i.set_defined_at(Src::new(&Arc::from("schema"), 1));
    i.admin_up = s(true);
    i.oper_up = s(true);
    i.speed_gbps = s(100.0);
    i.mtu = s(9216);
    i.mtu_raw = s(9216);
    i.lag_members = vec!["x".into()];
    i.names.lag_parent = Some("x".into());
    i.switchport = s(false);
    i.scope = Some(Box::new(crate::model::ScopeNote {
        decision: "left out".into(),
        rule: "lossless+mtu".into(),
        why: "x".into(),
        binding: "x".into(),
        at: Some(Src::new(&Arc::from("schema"), 1)),
        would_fail: vec!["MTU003".into()],
    }));
    i.qos.trust = s("dscp".into());
    i.qos.dscp_to_tc = s(vec![0; 64]);
    i.qos.pcp_to_tc = s(vec![0; 8]);
    i.qos.tc_to_queue = s(vec![0; 8]);
    i.qos.tc_to_pg = s(vec![0; 8]);
    i.qos.tc_to_pfc_priority = s(vec![0; 8]);
    i.qos.dscp_rewrites = s(vec![]);
    i.pfc = Pfc {
        mode: s("on".into()),
        priorities: s(vec![3]),
        rx: s(true),
        tx: s(true),
    }
    .into();
    i.link_pause = LinkPause {
        rx: s(false),
        tx: s(false),
    }
    .into();
    for q in i.queues.iter_mut() {
        q.scheduler = s("dwrr".into());
        q.weight_pct = s(50.0);
        q.wred_drop = s(false);
        q.ecn = Ecn {
            enabled: s(true),
            min_bytes: s(1),
            max_bytes: s(2),
            max_probability_pct: s(100.0),
            min_pct: s(20.0),
            max_pct: s(60.0),
        };
    }
    for p in i.pgs.iter_mut() {
        p.headroom_bytes = s(1);
        p.xoff_bytes = s(1);
        p.xon_bytes = s(1);
        p.size_bytes = s(1);
        p.pool = s("x".into());
        p.lossless = s(true);
    }
    i.cable_m = s(3.0);
    i.watchdog = Watchdog {
        enabled: s(true),
        detect_ms: s(1.0),
        restore_ms: s(1.0),
        poll_ms: s(1.0),
        action: s("drop".into()),
    }
    .into();
    i.lldp_neighbor = Some(Box::new(LldpNeighbor {
        device: "x".into(),
        port: "x".into(),
        port_id: Some("x".into()),
        port_descr: Some("x".into()),
        src: None,
    }));
    i.mac = s("00:00:00:00:00:01".into());
    i.names.alias = s("x".into());
    i.names.lldp_matched_by = Some("name".into());
    let mut rdma = Rdma::default();
    rdma.device = "mlx5_0".into();
    rdma.port = 1;
    rdma.state = s("ACTIVE".into());
    *rdma.details_mut() = RdmaDetails {
        roce_mode: s("RoCE v2".into()),
        roce_tos: s(106),
        cnp_dscp: s(48),
        cnp_prio: s(6),
        np_enable: s(vec![true; 8]),
        rp_enable: s(vec![true; 8]),
        active_mtu: s(4096),
        link_layer: s("Ethernet".into()),
        dcbx_mode: s("OS controlled".into()),
        prio_to_buffer: s(vec![0; 8]),
        buffer_size: s(vec![0; 8]),
        prio_to_tc: s(vec![0; 8]),
        tc_tsa: s(vec!["ets".into(); 8]),
        tc_bw: s(vec![0; 8]),
        pfc_prevention_ms: s(100),
        prio_pause_counters: s(true),
    };
    i.rdma = Some(Box::new(rdma));
    i.nic = Some(Box::new(Nic {
        pci_address: s("0000:0c:00.0".into()),
        driver: s("mlx5_core".into()),
        firmware: s("28.41.1000".into()),
        numa_node: s(0),
        pcie: Some(full_pcie_link()),
        counters: Some(NicCounters {
            rx_prio_pause: s(vec![Some(0); 8]),
            tx_prio_pause: s(vec![Some(0); 8]),
            rx_prio_pause_duration: s(vec![Some(0); 8]),
            tx_prio_pause_duration: s(vec![Some(0); 8]),
            rx_prio_discards: s(vec![Some(0); 8]),
            tx_pause_storm_warning_events: s(0),
            tx_pause_storm_error_events: s(0),
            rx_discards_phy: s(0),
            tx_discards_phy: s(0),
            rx_out_of_buffer: s(0),
            outbound_pci_stalled_rd: s(0),
            outbound_pci_stalled_wr: s(0),
            out_of_sequence: s(0),
            packet_seq_err: s(0),
            local_ack_timeout_err: s(0),
            roce_adp_retrans: s(0),
            out_of_buffer: s(0),
            np_cnp_sent: s(0),
            np_ecn_marked_roce_packets: s(0),
            rp_cnp_handled: s(0),
            rp_cnp_ignored: s(0),
        }),
    }));
    i.lldp_in_fabric = Some(true);
    i.names.lldp_peer = Some("x:y".into());
    i.names.planned_peer = Some("x:y".into());
    i
}

/// A device with every optional field set (interfaces hold one full interface).
pub fn full_device() -> Device {
    Device {
        name: "x".into(),
        platform: "nxos".into(),
        role: "leaf".into(),
        os_version: s("x".into()),
        hostname: s("x".into()),
        is_switch: true,
        interfaces: vec![full_interface()],
        qos: DeviceQos {
            nodrop_class_mtu: s(9216),
            lossless_pool_bytes: s(1),
            headroom_pool_bytes: s(1),
            policies: vec![],
            lossless_mode: s("x".into()),
        },
        platform_reason: "x".into(),
        parse: vec![],
        error: Some("x".into()),
        host: Some(full_host()),
        drift: Some(vec![Drift::default()]),
        roce_scope: Some(RoceScope::default()),
        iface_index: Default::default(),
        interfaces_not_read: 1,
        port_cap: None,
        spill: None,
        sharing: Default::default(),
    }
}

fn full_pcie_link() -> PcieLink {
    PcieLink {
        cap_gts: s(32.0),
        cap_width: s(16),
        sta_gts: s(32.0),
        sta_width: s(16),
        speed_degraded: s(false),
        width_degraded: s(false),
    }
}

/// Host facts with every optional field set (list items are not path-checked: one of each).
pub fn full_host() -> Host {
    Host {
        cmdline: s("x".into()),
        iommu: s("off".into()),
        iommu_active: s(false),
        arch: s("x86_64".into()),
        lldp: s(true),
        qos_boot_files: s(vec![]),
        modules: s(vec![]),
        gpus: Some(vec![Gpu::default()]),
        pci: Some(vec![PciFunction {
            link: Some(full_pcie_link()),
            ..Default::default()
        }]),
        mounts: Some(vec![Mount::default()]),
        nvme: Some(Nvme {
            multipath: s(true),
            subsystems: Some(vec![NvmeSubsystem::default()]),
            controllers: Some(vec![NvmeController::default()]),
        }),
        gds: Some(Gds {
            release: s("x".into()),
            nvidia_fs: s("x".into()),
            drivers: Some(vec![GdsDriver::default()]),
            supported: Some(vec![]),
            platform_verified: s(true),
        }),
        nccl: Some(Nccl {
            ib_tc: s(-1),
            ib_timeout: s(-1),
            ib_retry_cnt: s(-1),
            ib_gid_index: s(-1),
            ib_hca: s("x".into()),
        }),
    }
}

pub fn full_link() -> Link {
    Link {
        a: Endpoint {
            device: "a".into(),
            interface: "x".into(),
        },
        b: Endpoint {
            device: "b".into(),
            interface: "y".into(),
        },
        source: "both".into(),
        one_sided: false,
        cable_m: Some(3.0),
        src: None,
        matched_by: vec![PortMatch {
            seen_by: "a:x".into(),
            seen_as: "y".into(),
            port: "b:y".into(),
            method: "name".into(),
        }],
    }
}

/// All dotted paths of a JSON value; arrays contribute their own path only, except arrays of
/// objects whose element paths are added as `path[]...` (for documentation).
pub fn paths(v: &serde_json::Value, prefix: &str, out: &mut BTreeSet<String>) {
    if !prefix.is_empty() {
        out.insert(prefix.to_string());
    }
    if let serde_json::Value::Object(m) = v {
        for (k, x) in m {
            let p = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            paths(x, &p, out);
        }
    }
}

/// The valid paths under a root variable for a model type (interface, device, link, probe),
/// built once per process: every rule of a scope asks for the same sets (88 rules made it 282
/// builds of the full example model, a fifth of an audit's start-up).
pub fn type_paths(kind: &str) -> &'static BTreeSet<String> {
    use std::sync::OnceLock;
    static SETS: [OnceLock<BTreeSet<String>>; 5] = [const { OnceLock::new() }; 5];
    let slot = match kind {
        "interface" => 0,
        "device" => 1,
        "link" => 2,
        "probe" => 3,
        _ => 4,
    };
    SETS[slot].get_or_init(|| build_type_paths(kind))
}

fn build_type_paths(kind: &str) -> BTreeSet<String> {
    let v = match kind {
        "interface" => serde_json::to_value(full_interface()),
        "device" => serde_json::to_value(full_device()),
        "link" => serde_json::to_value(full_link()),
        "probe" => serde_json::to_value(crate::model::probe::full_probe()),
        _ => Ok(serde_json::Value::Null),
    }
    .unwrap_or(serde_json::Value::Null);
    let mut out = BTreeSet::new();
    paths(&v, "", &mut out);
    out
}
