//! Host hardware: the NIC's PCI function (`ethtool -i`, sysfs), its counters (`ethtool -S`,
//! RDMA `hw_counters`), the PCIe tree (`lspci -vvv`) and the GPUs (`nvidia-smi topo -m`).
//!
//! The PCIe tree is rebuilt from the bridges' bus ranges so that the switch ports between a
//! GPU and its nearest NIC (or an NVMe drive) are known: GPUDirect traffic between two
//! functions under one switch crosses the switch's downstream ports, and ACS redirection on
//! those ports sends it up to the root complex instead.

use super::{RdmaMap, target_if, undefined_dev};
use crate::model::{
    Device, Gpu, GpuNic, Host, Interface, Nic, NicCounters, PciFunction, PcieLink, Src, known,
};
use crate::platform::{BuildNotes, Output};

fn nic_of(i: &mut Interface) -> &mut Nic {
    i.nic.get_or_insert_with(Box::default)
}

fn counters_of(n: &mut Nic) -> &mut NicCounters {
    n.counters.get_or_insert_with(NicCounters::default)
}

/// Canonical PCI address: lower case with a domain (`0c:00.0` → `0000:0c:00.0`).
pub fn pci_addr(a: &str) -> String {
    let a = a.trim().to_ascii_lowercase();
    if a.matches(':').count() == 1 {
        format!("0000:{a}")
    } else {
        a
    }
}

/// Fill the derived `*_degraded` flags once capability and status are both known.
fn finish_link(l: &mut PcieLink) {
    if let (Some(c), Some(s)) = (&l.cap_gts, &l.sta_gts) {
        let src = s.src.clone().or_else(|| c.src.clone());
        l.speed_degraded = Some(crate::model::Sourced {
            value: s.value + 1e-9 < c.value,
            src,
            default: false,
        });
    }
    if let (Some(c), Some(s)) = (&l.cap_width, &l.sta_width) {
        let src = s.src.clone().or_else(|| c.src.clone());
        l.width_degraded = Some(crate::model::Sourced {
            value: s.value < c.value,
            src,
            default: false,
        });
    }
}

// ---------------------------------------------------------------------------------------------
// per-interface outputs
// ---------------------------------------------------------------------------------------------

/// `ethtool -i IF`: driver, firmware and the PCI address (bus-info).
pub fn ethtool_driver(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    let Some(name) = target_if(o, None) else {
        return;
    };
    if p.records.iter().all(|r| p.kind(r) == "error") {
        return;
    }
    let driver = p
        .records
        .iter()
        .find(|r| p.kind(r) == "driver")
        .and_then(|r| p.get(r, "v"));
    // Virtual netdevs: the bonding and team drivers make a LAG (named like the switch
    // platforms' LAGs); 8021q a VLAN. Their kind wins over the "ethernet" an output that
    // names the netdev without saying what it is gave it.
    let kind = match driver {
        Some("bonding" | "team") => "port-channel",
        Some("8021q") => "vlan",
        _ => "ethernet",
    };
    let i = dev.iface(&name, kind);
    if kind != "ethernet" && i.kind == "ethernet" {
        i.kind = crate::model::kind_name(kind);
    }
    let n = nic_of(i);
    for r in &p.records {
        let src = o.src(r.line);
        let Some(v) = p.get(r, "v") else {
            continue;
        };
        match p.kind(r) {
            "driver" => n.driver = known(v.to_string(), &src),
            // bonding prints its ABI version as firmware-version: no firmware at all
            "firmware" if driver == Some("bonding") => {}
            "firmware" => n.firmware = known(v.trim().to_string(), &src),
            // virtual devices print "N/A" or nothing
            "bus" if v.contains(':') => n.pci_address = known(pci_addr(v), &src),
            _ => {}
        }
    }
}

/// Priority of a per-priority mlx5 counter name: `rx_prio3_pause` with prefix `rx_prio` and
/// suffix `_pause` → 3.
fn prio_counter(name: &str, prefix: &str, suffix: &str) -> Option<usize> {
    let rest = name.strip_prefix(prefix)?.strip_suffix(suffix)?;
    let p: usize = rest.parse().ok()?;
    (p < 8).then_some(p)
}

/// `ethtool -S IF`: the counters the rules read. Per-priority arrays are filled only when the
/// driver prints per-priority counters at all (mlx5 prints `rx_prioN_bytes` for every
/// priority), so that "no pause counter for priority 3" means PFC is off there, not "another
/// driver".
pub fn ethtool_stats(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    let Some(name) = target_if(o, None) else {
        return;
    };
    let counters: Vec<(&str, u64, u32)> = p
        .records
        .iter()
        .filter(|r| p.kind(r) == "counter")
        .filter_map(|r| Some((p.get(r, "name")?, p.num::<u64>(r, "v")?, r.line)))
        .collect();
    if counters.is_empty() {
        return;
    }
    // mlx5 names per-priority counters rx_prioN_* / tx_prioN_*; bnxt_en prints the PFC frames
    // received / sent with priority N's enable bit set as rx_/tx_pfc_ena_frames_priN (all
    // eight, whether PFC is on or not) and has no per-priority pause duration or discards.
    let mlx5_prio = counters
        .iter()
        .any(|(n, _, _)| n.starts_with("rx_prio") || n.starts_with("tx_prio"));
    let bnxt_prio = counters.iter().any(|(n, _, _)| {
        n.starts_with("rx_pfc_ena_frames_pri") || n.starts_with("tx_pfc_ena_frames_pri")
    });
    let mut rx_pause = [None; 8];
    let mut tx_pause = [None; 8];
    let mut rx_dur = [None; 8];
    let mut tx_dur = [None; 8];
    let mut rx_disc = [None; 8];
    let first = o.src(counters[0].2);
    let i = dev.iface(&name, "ethernet");
    let c = counters_of(nic_of(i));
    for (n, v, line) in &counters {
        let src = o.src(*line);
        if let Some(pr) = prio_counter(n, "rx_prio", "_pause") {
            rx_pause[pr] = Some(*v);
        } else if let Some(pr) = prio_counter(n, "tx_prio", "_pause") {
            tx_pause[pr] = Some(*v);
        } else if let Some(pr) = prio_counter(n, "rx_prio", "_pause_duration") {
            rx_dur[pr] = Some(*v);
        } else if let Some(pr) = prio_counter(n, "tx_prio", "_pause_duration") {
            tx_dur[pr] = Some(*v);
        } else if let Some(pr) = prio_counter(n, "rx_prio", "_discards") {
            rx_disc[pr] = Some(*v);
        } else if let Some(pr) = prio_counter(n, "rx_pfc_ena_frames_pri", "") {
            rx_pause[pr] = Some(*v);
        } else if let Some(pr) = prio_counter(n, "tx_pfc_ena_frames_pri", "") {
            tx_pause[pr] = Some(*v);
        } else {
            let slot = match *n {
                "tx_pause_storm_warning_events" => &mut c.tx_pause_storm_warning_events,
                "tx_pause_storm_error_events" => &mut c.tx_pause_storm_error_events,
                "rx_discards_phy" => &mut c.rx_discards_phy,
                "tx_discards_phy" => &mut c.tx_discards_phy,
                "rx_out_of_buffer" => &mut c.rx_out_of_buffer,
                "outbound_pci_stalled_rd" => &mut c.outbound_pci_stalled_rd,
                "outbound_pci_stalled_wr" => &mut c.outbound_pci_stalled_wr,
                _ => continue,
            };
            *slot = known(*v, &src);
        }
    }
    if mlx5_prio || bnxt_prio {
        c.rx_prio_pause = known(rx_pause.to_vec(), &first);
        c.tx_prio_pause = known(tx_pause.to_vec(), &first);
    }
    if mlx5_prio {
        c.rx_prio_pause_duration = known(rx_dur.to_vec(), &first);
        c.tx_prio_pause_duration = known(tx_dur.to_vec(), &first);
        c.rx_prio_discards = known(rx_disc.to_vec(), &first);
    }
    // The RDMA summary of the port repeats whether pause counters exist; only on a netdev an
    // output has already tied to an RDMA device (no RDMA object is invented for it).
    if (mlx5_prio || bnxt_prio)
        && let Some(r) = i.rdma.as_mut()
    {
        let any = rx_pause.iter().chain(tx_pause.iter()).any(Option::is_some);
        r.details_mut().prio_pause_counters = known(any, &first);
    }
}

/// `grep -H . /sys/class/net/IF/device/{numa_node,*_link_speed,*_link_width}`.
pub fn sysfs_pci(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    for r in &p.records {
        let Some(name) = target_if(o, p.get(r, "if")) else {
            continue;
        };
        let src = o.src(r.line);
        let cur = p.get(r, "which") == Some("current");
        match p.kind(r) {
            "numa" => {
                if let Some(v) = p.num::<i64>(r, "v") {
                    nic_of(dev.iface(&name, "ethernet")).numa_node = known(v, &src);
                }
            }
            "speed" => {
                let Some(g) = p.num::<f64>(r, "gts") else {
                    continue;
                };
                let l = nic_of(dev.iface(&name, "ethernet"))
                    .pcie
                    .get_or_insert_with(PcieLink::default);
                if cur {
                    l.sta_gts = known(g, &src);
                } else {
                    l.cap_gts = known(g, &src);
                }
                finish_link(l);
            }
            "width" => {
                // a link that is down reports width 0: no negotiated width
                let Some(w) = p.num::<u32>(r, "v").filter(|w| *w > 0 || cur) else {
                    continue;
                };
                let l = nic_of(dev.iface(&name, "ethernet"))
                    .pcie
                    .get_or_insert_with(PcieLink::default);
                if cur {
                    l.sta_width = known(w, &src);
                } else {
                    l.cap_width = known(w, &src);
                }
                finish_link(l);
            }
            _ => {}
        }
    }
}

// ---------------------------------------------------------------------------------------------
// per-RDMA-device outputs
// ---------------------------------------------------------------------------------------------

/// `grep -H . /sys/class/infiniband/DEV/ports/*/hw_counters/*`.
pub fn hw_counters(
    dev: &mut Device,
    map: &RdmaMap,
    idx: usize,
    o: &Output,
    notes: &mut BuildNotes,
) {
    let p = &o.parsed;
    for r in &p.records {
        if p.kind(r) != "counter" {
            continue;
        }
        let (Some(d), Some(port), Some(name), Some(v)) = (
            p.get(r, "dev"),
            p.num::<u8>(r, "port"),
            p.get(r, "name"),
            p.num::<u64>(r, "v"),
        ) else {
            continue;
        };
        let Some(netdev) = map.netdev(d, port) else {
            undefined_dev(notes, map, idx, d, r.line);
            continue;
        };
        let c = counters_of(nic_of(dev.iface(netdev, "ethernet")));
        let slot = match name {
            "out_of_sequence" => &mut c.out_of_sequence,
            "packet_seq_err" => &mut c.packet_seq_err,
            "local_ack_timeout_err" => &mut c.local_ack_timeout_err,
            "roce_adp_retrans" => &mut c.roce_adp_retrans,
            "out_of_buffer" => &mut c.out_of_buffer,
            "np_cnp_sent" => &mut c.np_cnp_sent,
            "np_ecn_marked_roce_packets" => &mut c.np_ecn_marked_roce_packets,
            "rp_cnp_handled" => &mut c.rp_cnp_handled,
            "rp_cnp_ignored" => &mut c.rp_cnp_ignored,
            _ => continue,
        };
        *slot = known(v, &o.src(r.line));
    }
}

// ---------------------------------------------------------------------------------------------
// lspci -vvv: the PCIe tree
// ---------------------------------------------------------------------------------------------

/// A PCI function with what the tree needs besides the model's view of it.
struct Func {
    pf: PciFunction,
    domain: String,
    bus: u8,
    /// Bridges: (secondary, subordinate) bus numbers.
    range: Option<(u8, u8)>,
}

fn kind_of(class: &str, desc: &str) -> &'static str {
    match class {
        "Ethernet controller" | "Infiniband controller" | "Network controller" => "nic",
        "3D controller" | "VGA compatible controller" | "Display controller"
            if desc.contains("NVIDIA") =>
        {
            "gpu"
        }
        "Non-Volatile memory controller" => "nvme",
        "PCI bridge" => "bridge",
        _ => "other",
    }
}

fn hex_u8(s: Option<&str>) -> Option<u8> {
    u8::from_str_radix(s?, 16).ok()
}

/// The functions of one lspci output, in output order.
fn lspci_funcs(o: &Output) -> Vec<Func> {
    let p = &o.parsed;
    let mut out: Vec<Func> = Vec::new();
    for r in &p.records {
        let src = o.src(r.line);
        if p.kind(r) == "dev" {
            let (Some(addr), Some(class), Some(desc)) =
                (p.get(r, "addr"), p.get(r, "class"), p.get(r, "desc"))
            else {
                continue;
            };
            let address = pci_addr(addr);
            let (domain, rest) = address.split_once(':').unwrap_or(("0000", &address));
            let bus = hex_u8(rest.split(':').next()).unwrap_or(0);
            out.push(Func {
                pf: PciFunction {
                    kind: kind_of(class, desc).to_string(),
                    description: format!("{class}: {desc}"),
                    file: src.file.to_string(),
                    line: src.line,
                    address: address.clone(),
                    ..Default::default()
                },
                domain: domain.to_string(),
                bus,
                range: None,
            });
            continue;
        }
        let Some(f) = out.last_mut() else {
            continue;
        };
        match p.kind(r) {
            "numa" => f.pf.numa_node = p.num(r, "n"),
            "bus" => {
                if let (Some(sec), Some(sub)) = (hex_u8(p.get(r, "sec")), hex_u8(p.get(r, "sub"))) {
                    f.range = Some((sec, sub));
                }
            }
            "driver" => f.pf.driver = p.get(r, "drv").map(str::to_string),
            "express" => f.pf.port_type = p.get(r, "type").map(str::to_string),
            "lnkcap" | "lnksta" => {
                let cap = p.kind(r) == "lnkcap";
                let l = f.pf.link.get_or_insert_with(PcieLink::default);
                if let Some(g) = p.num::<f64>(r, "gts") {
                    if cap {
                        l.cap_gts = known(g, &src);
                    } else {
                        l.sta_gts = known(g, &src);
                    }
                }
                if let Some(w) = p.num::<u32>(r, "w") {
                    if cap {
                        l.cap_width = known(w, &src);
                    } else {
                        l.sta_width = known(w, &src);
                    }
                }
                finish_link(l);
            }
            "acsctl" => {
                let bits = p.get(r, "bits").unwrap_or("");
                f.pf.acs_ctl = Some(
                    bits.split_whitespace()
                        .filter_map(|b| b.strip_suffix('+'))
                        .map(str::to_string)
                        .collect(),
                );
            }
            _ => {}
        }
    }
    // the tree: a function's parent is the innermost bridge whose bus range holds its bus
    let bridges: Vec<(usize, String, u8, u8)> = out
        .iter()
        .enumerate()
        .filter_map(|(i, f)| f.range.map(|(s, e)| (i, f.domain.clone(), s, e)))
        .collect();
    let parents: Vec<Option<String>> = out
        .iter()
        .enumerate()
        .map(|(i, f)| {
            bridges
                .iter()
                .filter(|(j, d, s, e)| *j != i && *d == f.domain && *s <= f.bus && f.bus <= *e)
                .max_by_key(|(_, _, s, _)| *s)
                .map(|(j, _, _, _)| out[*j].pf.address.clone())
        })
        .collect();
    for (f, parent) in out.iter_mut().zip(parents) {
        f.pf.parent = parent;
    }
    out
}

/// ACS control bits that send peer-to-peer requests up to the root complex (or block them).
const ACS_REDIRECT: &[&str] = &["ReqRedir", "CmpltRedir", "UpstreamFwd", "EgressCtrl"];

fn ancestors<'a>(pci: &'a [PciFunction], addr: &str) -> Vec<&'a PciFunction> {
    let mut out = Vec::new();
    let mut cur = pci
        .iter()
        .find(|f| f.address == addr)
        .and_then(|f| f.parent.clone());
    while let Some(a) = cur {
        let Some(f) = pci.iter().find(|f| f.address == a) else {
            break;
        };
        if out.iter().any(|x: &&PciFunction| x.address == f.address) {
            break;
        }
        out.push(f);
        cur = f.parent.clone();
    }
    out
}

fn is_switch_port(f: &PciFunction) -> bool {
    f.port_type
        .as_deref()
        .is_some_and(|t| t.starts_with("Upstream Port") || t.starts_with("Downstream Port"))
}

/// Switch ports with ACS redirection between two functions that share a PCIe switch (none
/// when they meet only at the root complex, where the traffic goes through the CPU anyway).
fn acs_on_path(pci: &[PciFunction], a: &str, b: &str) -> Vec<String> {
    let ca = ancestors(pci, a);
    let cb = ancestors(pci, b);
    let common: Vec<&&PciFunction> = ca
        .iter()
        .filter(|x| cb.iter().any(|y| y.address == x.address))
        .collect();
    if !common.iter().any(|f| is_switch_port(f)) {
        return Vec::new();
    }
    ca.iter()
        .chain(cb.iter())
        .filter(|f| !common.iter().any(|c| c.address == f.address))
        .filter(|f| is_switch_port(f))
        .filter(|f| {
            f.acs_ctl
                .as_ref()
                .is_some_and(|bits| bits.iter().any(|b| ACS_REDIRECT.contains(&b.as_str())))
        })
        .map(|f| f.address.clone())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// nvidia-smi topo -m
// ---------------------------------------------------------------------------------------------

/// Rank of a topo -m relationship between a GPU and a NIC: lower is closer.
fn rank(path: &str) -> u8 {
    match path {
        "PIX" => 0,
        "PXB" => 1,
        "PHB" => 2,
        "NODE" => 3,
        "SYS" | "SOC" => 4,
        _ => 5,
    }
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

struct TopoGpu {
    index: u32,
    numa: Option<i64>,
    cpus: Option<String>,
    nics: Vec<(String, String)>,
    src: Src,
}

/// GPU rows of topo -m with their relationship to each NIC column.
fn topo_gpus(o: &Output) -> Vec<TopoGpu> {
    let p = &o.parsed;
    let mut labels: Vec<String> = Vec::new();
    let mut legend: Vec<(String, String)> = Vec::new();
    for r in &p.records {
        match p.kind(r) {
            "header" => {
                labels = strip_ansi(p.get(r, "cols").unwrap_or(""))
                    .split('\t')
                    .map(|c| c.trim().to_string())
                    .collect();
            }
            "nic" => {
                if let (Some(n), Some(d)) = (p.get(r, "n"), p.get(r, "dev")) {
                    legend.push((format!("NIC{n}"), d.to_string()));
                }
            }
            _ => {}
        }
    }
    let rdma_name = |label: &str| -> String {
        legend
            .iter()
            .find(|(l, _)| l == label)
            .map(|(_, d)| d.clone())
            .unwrap_or_else(|| label.to_string())
    };
    let mut out = Vec::new();
    for r in &p.records {
        if p.kind(r) != "row" {
            continue;
        }
        let (Some(label), Some(cells)) = (p.get(r, "label"), p.get(r, "cells")) else {
            continue;
        };
        let Some(index) = label.strip_prefix("GPU").and_then(|n| n.parse().ok()) else {
            continue;
        };
        let mut g = TopoGpu {
            index,
            numa: None,
            cpus: None,
            nics: Vec::new(),
            src: o.src(r.line),
        };
        for (col, cell) in labels.iter().zip(cells.split('\t')) {
            let cell = cell.trim();
            match col.as_str() {
                "NUMA Affinity" => g.numa = cell.parse().ok(),
                "CPU Affinity" if !cell.is_empty() && cell != "N/A" => {
                    g.cpus = Some(cell.to_string());
                }
                "CPU Affinity" | "GPU NUMA ID" => {}
                c if c.starts_with("GPU") => {}
                c if !c.is_empty() && !cell.is_empty() => {
                    g.nics.push((rdma_name(c), cell.to_string()));
                }
                _ => {}
            }
        }
        out.push(g);
    }
    out
}

// ---------------------------------------------------------------------------------------------
// host-wide assembly
// ---------------------------------------------------------------------------------------------

/// Build `host.pci` and `host.gpus` from lspci and topo -m, and complete the NICs' PCIe facts
/// from lspci. Returns whether anything was found.
pub fn pcie_and_gpus(dev: &mut Device, map: &RdmaMap, host: &mut Host, outs: &[&Output]) -> bool {
    let mut funcs: Vec<Func> = Vec::new();
    let mut topo: Vec<TopoGpu> = Vec::new();
    let mut lspci_seen = false;
    for o in outs {
        match o.cmd.id.as_str() {
            "lspci" | "lspci-s" | "lspci-vvv" => {
                lspci_seen = true;
                for f in lspci_funcs(o) {
                    if !funcs.iter().any(|g| g.pf.address == f.pf.address) {
                        funcs.push(f);
                    }
                }
            }
            "nvidia-smi-topo" => topo.extend(topo_gpus(o)),
            _ => {}
        }
    }
    let mut pci: Vec<PciFunction> = funcs.into_iter().map(|f| f.pf).collect();
    // NICs: tie lspci functions to netdevs, and fill each side from the other
    for i in dev.interfaces.iter_mut() {
        if i.nic.is_none() {
            continue;
        }
        // The NIC facts are borrowed through the port (`Deref`), so the name is read first.
        let name = i.name.clone();
        let Some(n) = i.nic.as_mut() else {
            continue;
        };
        let addr = n.pci_address.as_ref().map(|a| a.value.clone());
        let f = addr
            .as_deref()
            .and_then(|a| pci.iter_mut().find(|f| f.address == a));
        match f {
            Some(f) => {
                f.netdev = Some(name.clone());
                if f.kind == "other" {
                    f.kind = "nic".into();
                }
                if n.pcie.is_none() {
                    n.pcie = f.link.clone();
                }
                if n.numa_node.is_none()
                    && let Some(v) = f.numa_node
                {
                    n.numa_node =
                        known(v, &Src::new(&std::sync::Arc::from(f.file.as_str()), f.line));
                }
                if f.numa_node.is_none() {
                    f.numa_node = n.numa_node.as_ref().map(|v| v.value);
                }
                f.stalled_pct = stalled(n);
            }
            None => {
                // known only from sysfs (lspci not collected, or run without root)
                let Some(link) = n.pcie.clone() else {
                    continue;
                };
                let src = [&link.sta_gts, &link.cap_gts]
                    .iter()
                    .find_map(|f| f.as_ref().and_then(|v| v.src.clone()));
                pci.push(PciFunction {
                    address: addr.unwrap_or_else(|| name.clone()),
                    kind: "nic".into(),
                    netdev: Some(name.clone()),
                    numa_node: n.numa_node.as_ref().map(|v| v.value),
                    link: Some(link),
                    stalled_pct: stalled(n),
                    file: src.as_ref().map(|s| s.file.to_string()).unwrap_or_default(),
                    line: src.as_ref().map_or(0, |s| s.line),
                    ..Default::default()
                });
            }
        }
    }
    let found_pci = lspci_seen || !pci.is_empty();
    if found_pci {
        pci.sort_by(|a, b| a.address.cmp(&b.address));
        host.pci = Some(pci);
    }
    if topo.is_empty() {
        return found_pci;
    }
    // GPUs: nvidia-smi numbers them in PCI bus order
    let gpu_addrs: Vec<String> = host
        .pci
        .iter()
        .flatten()
        .filter(|f| f.kind == "gpu")
        .map(|f| f.address.clone())
        .collect();
    let numbered = gpu_addrs.len() == topo.len();
    let mut gpus = Vec::new();
    for t in topo {
        let pci_address = if numbered {
            gpu_addrs.get(t.index as usize).cloned()
        } else {
            None
        };
        let pf = pci_address
            .as_deref()
            .and_then(|a| host.pci.iter().flatten().find(|f| f.address == a));
        let nics: Vec<GpuNic> = t
            .nics
            .iter()
            .map(|(rdma, path)| GpuNic {
                rdma: rdma.clone(),
                netdev: map.netdev(rdma, 1).map(str::to_string),
                path: path.clone(),
            })
            .collect();
        let nearest = nics
            .iter()
            .filter(|n| n.netdev.is_some())
            .min_by_key(|n| rank(&n.path));
        let nearest_if = nearest
            .and_then(|n| n.netdev.as_deref())
            .and_then(|nd| dev.interface(nd));
        let nearest_nic_numa = nearest_if
            .and_then(|i| i.nic.as_ref())
            .and_then(|n| n.numa_node.as_ref())
            .map(|v| v.value);
        let nic_addr = nearest_if
            .and_then(|i| i.nic.as_ref())
            .and_then(|n| n.pci_address.as_ref())
            .map(|a| a.value.clone());
        let acs_bridges = match (&host.pci, &pci_address, lspci_seen) {
            (Some(pci), Some(ga), true) => {
                let mut v: Vec<String> = Vec::new();
                let nvme = pci.iter().filter(|f| f.kind == "nvme").map(|f| &f.address);
                for other in nic_addr.iter().chain(nvme) {
                    v.extend(acs_on_path(pci, ga, other));
                }
                v.sort();
                v.dedup();
                Some(v)
            }
            _ => None,
        };
        let numa_node = t.numa.or_else(|| pf.and_then(|f| f.numa_node));
        gpus.push(Gpu {
            name: format!("GPU{}", t.index),
            index: t.index,
            numa_aligned: numa_node.zip(nearest_nic_numa).map(|(g, n)| g == n),
            numa_node,
            pci_address,
            cpu_affinity: t.cpus,
            nearest_nic: nearest.and_then(|n| n.netdev.clone()),
            nearest_path: nearest.map(|n| n.path.clone()),
            nearest_nic_numa,
            nics,
            acs_bridges,
            file: t.src.file.to_string(),
            line: t.src.line,
        });
    }
    gpus.sort_by_key(|g| g.index);
    host.gpus = Some(gpus);
    true
}

/// The larger of the NIC's outbound PCIe stall percentages.
fn stalled(n: &Nic) -> Option<u64> {
    let c = n.counters.as_ref()?;
    let rd = c.outbound_pci_stalled_rd.as_ref().map(|v| v.value);
    let wr = c.outbound_pci_stalled_wr.as_ref().map(|v| v.value);
    rd.max(wr)
}
