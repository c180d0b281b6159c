//! Platform semantics for `linux` hosts with ConnectX NICs (patterns in
//! vendor-parsers/linux.toml).
//!
//! A host is not one config but a set of command outputs: `ip -d -j link show` lists the
//! netdevs, `rdma link show -j` (or `ibdev2netdev`, `show_gids`) says which netdev each RDMA
//! device backs, and per-interface (`ethtool`, `mlnx_qos`, DCQCN sysfs) and per-RDMA-device
//! (`cma_roce_*`, `ibv_devinfo`) outputs add the QoS and RoCE facts. `build` therefore works in
//! passes — netdevs, the RDMA map, per-interface facts, per-device facts, LLDP — and accepts any
//! subset of outputs: whatever no output states stays unknown (link pause is never assumed).
//! A per-device output whose RDMA device no output maps to a netdev is reported as an
//! undefined `rdma-device` reference, because its values cannot be attached to any port.
//! Host-wide outputs (PCIe tree and GPUs, boot settings, NVMe-oF, GPUDirect Storage) fill
//! `Device.host` in the submodules `hw`, `boot` and `storage`.

mod boot;
mod hw;
mod storage;

use super::registry::{Read, reader};
use super::{BuildNotes, Output};
use crate::model::name_index::NameIndex;
use crate::model::{
    Device, Host, Interface, LldpNeighbor, ParseStatus, Rdma, Src, UndefinedRef, default_of, known,
};
use crate::parser::json::Node;

/// Command id of vendor-parsers/linux.toml → the reader of its output (meta-tested: every
/// command has one, or says why not).
pub(crate) const READS: &[Read] = &[
    reader("ip-link-json", "netdevs_json"),
    reader("rdma-link-json", "rdma_link_json"),
    reader("ethtool-pfc-prevention", "pfc_prevention"),
    reader("ethtool-stats", "hw::ethtool_stats"),
    reader("ethtool-driver", "hw::ethtool_driver"),
    reader("sysfs-pci", "hw::sysfs_pci"),
    reader("ethtool-pause", "ethtool_pause"),
    reader("ethtool", "ethtool"),
    reader("mlnx-qos", "mlnx_qos"),
    reader("sysfs-ecn", "sysfs_ecn"),
    reader("sysfs-hw-counters", "hw::hw_counters"),
    reader("cma-roce-tos", "cma_roce"),
    reader("cma-roce-mode", "cma_roce"),
    reader("ibv-devinfo-v", "ibv_devinfo"),
    reader("lldpctl-json", "lldp_json"),
    reader("lspci", "hw::pcie_and_gpus"),
    reader("lspci-s", "hw::pcie_and_gpus"),
    reader("lspci-vvv", "hw::pcie_and_gpus"),
    reader("nvidia-smi-topo", "hw::pcie_and_gpus"),
    reader("proc-cmdline", "boot::boot"),
    reader("uname-m", "boot::boot"),
    reader("proc-modules", "boot::boot"),
    reader("proc-mounts", "storage::storage"),
    reader("qos-boot", "boot::boot"),
    reader("nccl-conf", "boot::boot"),
    reader("nvme-list-subsys", "storage::storage"),
    reader("nvme-show-topology", "storage::storage"),
    reader("nvme-list-subsys-text", "storage::storage"),
    reader("sysfs-nvmf", "storage::storage"),
    reader("nvme-discovery-conf", "storage::storage"),
    reader("gdscheck", "storage::storage"),
    reader("gdscheck-path", "storage::storage"),
    reader("ibv_devinfo", "ibv_devinfo"),
    reader("rdma-link", "rdma_link_text"),
    reader("ibdev2netdev", "ibdev2netdev"),
    reader("show-gids", "show_gids"),
    reader("ip-link-show", "netdevs_text"),
    reader("ip-address-show", "netdevs_text"),
    reader("lldpctl-json0", "lldp_json"),
    reader("lldpctl-keyvalue", "lldp_keyvalue"),
];

pub fn build(dev: &mut Device, outs: &[Output]) -> BuildNotes {
    let mut notes = BuildNotes::default();

    // 1. netdevs (text first, so the richer JSON wins where both exist)
    for (_, o) in with_ids(outs, &["ip-link-show", "ip-address-show"]) {
        netdevs_text(dev, o);
    }
    for (_, o) in with_ids(outs, &["ip-link-json"]) {
        netdevs_json(dev, o);
    }
    link_lags(dev);

    // 2. RDMA device/port -> netdev (first source wins)
    let mut map = RdmaMap::default();
    for (_, o) in with_ids(outs, &["rdma-link-json"]) {
        rdma_link_json(&mut map, o);
    }
    for (_, o) in with_ids(outs, &["rdma-link"]) {
        rdma_link_text(&mut map, o);
    }
    for (_, o) in with_ids(outs, &["ibdev2netdev"]) {
        ibdev2netdev(&mut map, o);
    }
    for (_, o) in with_ids(outs, &["show-gids"]) {
        show_gids(&mut map, o);
    }
    map.read = with_ids(
        outs,
        &["rdma-link-json", "rdma-link", "ibdev2netdev", "show-gids"],
    )
    .any(|(_, o)| o.parsed.status != ParseStatus::Failed);
    map.attach(dev);

    // 3. per-interface outputs
    for (_, o) in with_ids(outs, &["ethtool"]) {
        ethtool(dev, o);
    }
    for (_, o) in with_ids(outs, &["ethtool-pause"]) {
        ethtool_pause(dev, o);
    }
    for (_, o) in with_ids(outs, &["ethtool-pfc-prevention"]) {
        pfc_prevention(dev, o);
    }
    for (_, o) in with_ids(outs, &["mlnx-qos"]) {
        mlnx_qos(dev, o);
    }
    for (_, o) in with_ids(outs, &["sysfs-ecn"]) {
        sysfs_ecn(dev, o);
    }
    for (_, o) in with_ids(outs, &["ethtool-driver"]) {
        hw::ethtool_driver(dev, o);
    }
    for (_, o) in with_ids(outs, &["ethtool-stats"]) {
        hw::ethtool_stats(dev, o);
    }
    for (_, o) in with_ids(outs, &["sysfs-pci"]) {
        hw::sysfs_pci(dev, o);
    }

    // 4. per-RDMA-device outputs
    for (i, o) in with_ids(outs, &["cma-roce-tos", "cma-roce-mode"]) {
        cma_roce(dev, &map, i, o, &mut notes);
    }
    for (i, o) in with_ids(outs, &["ibv-devinfo-v"]) {
        ibv_devinfo(dev, &map, Some(i), o, &mut notes);
    }
    for (_, o) in with_ids(outs, &["ibv_devinfo"]) {
        ibv_devinfo(dev, &map, None, o, &mut notes);
    }
    for (i, o) in with_ids(outs, &["sysfs-hw-counters"]) {
        hw::hw_counters(dev, &map, i, o, &mut notes);
    }

    // 5. LLDP
    for (_, o) in with_ids(outs, &["lldpctl-json", "lldpctl-json0"]) {
        if let Some(v) = &o.parsed.json {
            for (ifname, nb) in lldp_json(v, o) {
                set_neighbor(dev, &ifname, nb);
            }
        }
    }
    let mut lldp: Option<Src> = None;
    for (_, o) in with_ids(outs, &["lldpctl-json", "lldpctl-json0"]) {
        if let Some(v) = &o.parsed.json {
            // the document's `lldp` member (LLDP ran), else its start
            lldp.get_or_insert(o.src(v.member("lldp").map_or(v.line, |m| m.line)));
        }
    }
    for (_, o) in with_ids(outs, &["lldpctl-keyvalue"]) {
        if o.parsed.status != ParseStatus::Failed {
            lldp.get_or_insert(o.src(1));
        }
        for (ifname, nb) in lldp_keyvalue(o) {
            set_neighbor(dev, &ifname, nb);
        }
    }

    // 6. host-wide facts (PCIe tree and GPUs, boot settings, storage)
    let host_outs: Vec<&Output> = outs
        .iter()
        .filter(|o| o.parsed.status != ParseStatus::Failed)
        .collect();
    let mut host = Host::default();
    let mut found = hw::pcie_and_gpus(dev, &map, &mut host, &host_outs);
    found |= boot::boot(&mut host, &host_outs);
    found |= storage::storage(&mut host, &host_outs);
    if let Some(src) = lldp {
        host.lldp = known(true, &src);
        found = true;
    }
    if found {
        dev.host = Some(host);
    }
    notes
}

/// Linux names interfaces itself; LLDP and cabling plans use the same names.
pub fn canonical_ifname(name: &str) -> String {
    name.to_string()
}

/// The outputs of the given command ids, with their index in `outs`, in input order.
fn with_ids<'a, 'b>(
    outs: &'a [Output<'b>],
    ids: &'a [&str],
) -> impl Iterator<Item = (usize, &'a Output<'b>)> {
    outs.iter()
        .enumerate()
        .filter(move |(_, o)| ids.contains(&o.cmd.id.as_str()))
}

/// The RDMA facts of an interface, created empty (device unknown) when no output mapped it.
fn rdma_of(i: &mut Interface) -> &mut Rdma {
    i.rdma.get_or_insert_with(Box::default)
}

// ---------------------------------------------------------------------------------------------
// netdevs
// ---------------------------------------------------------------------------------------------

/// Netdev kind from `ip -d` link info.
fn json_kind(info_kind: Option<&str>, link_type: Option<&str>) -> &'static str {
    match info_kind {
        Some("bond" | "team") => "port-channel",
        Some("vlan") => "vlan",
        Some(
            "vxlan" | "geneve" | "gre" | "gretap" | "ip6gre" | "ip6gretap" | "ipip" | "sit"
            | "ip6tnl" | "tun" | "wireguard" | "bareudp",
        ) => "tunnel",
        Some(_) => "other",
        None => match link_type {
            Some("loopback") => "loopback",
            Some("ether") => "ethernet",
            _ => "other",
        },
    }
}

/// `operstate` as a carrier fact; UNKNOWN (loopback, some virtual devices) falls back to the
/// LOWER_UP flag.
fn oper_from(state: Option<&str>, flags: &[&str]) -> Option<bool> {
    match state? {
        "UP" => Some(true),
        "DOWN" | "LOWERLAYERDOWN" | "NOTPRESENT" | "DORMANT" | "TESTING" => Some(false),
        "UNKNOWN" => Some(flags.contains(&"LOWER_UP")),
        _ => None,
    }
}

/// `ip -d -j link show`: every value cites its own line (a pretty-printed `-p` file puts
/// each key on a line; compact output has one netdev per line).
fn netdevs_json(dev: &mut Device, o: &Output) {
    let Some(links) = o.parsed.json.as_ref().and_then(Node::as_array) else {
        return;
    };
    for l in links {
        let Some((name, name_line)) = l.get("ifname").and_then(|n| Some((n.as_str()?, n.line)))
        else {
            continue;
        };
        let info_kind = l.at(&["linkinfo", "info_kind"]).and_then(Node::as_str);
        let link_type = l.get("link_type").and_then(Node::as_str);
        let kind = json_kind(info_kind, link_type);
        let flags_node = l.get("flags");
        let flags: Vec<&str> = flags_node
            .and_then(Node::as_array)
            .map(|a| a.iter().filter_map(Node::as_str).collect())
            .unwrap_or_default();
        let i = dev.iface(name, kind);
        i.kind = crate::model::kind_name(kind);
        i.set_defined_at(o.src(name_line));
        if let Some(f) = flags_node {
            i.admin_up = known(flags.contains(&"UP"), &o.src(f.line));
        }
        if let Some(state) = l.get("operstate")
            && let Some(up) = oper_from(state.as_str(), &flags)
        {
            i.oper_up = known(up, &o.src(state.line));
        }
        if let Some(m) = l.get("mtu")
            && let Some(mtu) = m.as_u64().and_then(|v| u32::try_from(v).ok())
        {
            let src = o.src(m.line);
            i.mtu = known(mtu, &src);
            i.mtu_raw = known(mtu, &src);
        }
        // a bond member's `address` is the bond's; lldpd advertises its permanent one
        if let Some((mac, line)) = ["permaddr", "address"]
            .iter()
            .find_map(|k| l.get(k).and_then(|n| Some((n.as_str()?, n.line))))
            .and_then(|(m, line)| Some((crate::text::mac(m)?, line)))
        {
            i.mac = known(mac, &o.src(line));
        }
        // bridge and VRF ports have a master too; `link_lags` keeps only LAG masters
        if let Some(master) = l.get("master").and_then(Node::as_str) {
            i.names.lag_parent = Some(master.to_string());
        }
    }
}

fn text_kind(
    name: &str,
    lower: Option<&str>,
    flags: &[&str],
    link_type: Option<&str>,
) -> &'static str {
    const VIRTUAL: &[&str] = &[
        "br", "virbr", "docker", "veth", "vnet", "tap", "tun", "vrf", "cali", "flannel", "cni",
        "kube", "lxc", "dummy", "vxlan", "gre", "wg", "ovs", "genev", "tunl", "sit", "ip6",
    ];
    let is_master = flags.contains(&"MASTER");
    if link_type == Some("loopback") {
        "loopback"
    } else if is_master && (name.starts_with("bond") || name.starts_with("team")) {
        "port-channel"
    } else if lower.is_some()
        && name
            .rsplit_once('.')
            .is_some_and(|(_, id)| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()))
    {
        "vlan"
    } else if link_type == Some("ether")
        && lower.is_none()
        && !is_master
        && !VIRTUAL.iter().any(|p| name.starts_with(p))
    {
        "ethernet"
    } else {
        "other"
    }
}

/// `ip link show` / `ip address show` text. Without `-d` the kind is inferred from the name,
/// flags and link type (loopback, bondN with MASTER, name.VID@lower, plain ether ports).
fn netdevs_text(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    for (idx, r) in p.records.iter().enumerate() {
        if p.kind(r) != "link" {
            continue;
        }
        let Some(name) = p.get(r, "name") else {
            continue;
        };
        let src = o.src(r.line);
        let lower = p.get(r, "lower");
        let flags: Vec<&str> = p.get(r, "flags").unwrap_or("").split(',').collect();
        let link_rec = p.children(idx).find(|c| p.kind(c) == "linktype");
        let link_type = link_rec.and_then(|c| p.get(c, "type"));
        let mac = link_rec
            .and_then(|c| p.get(c, "permaddr").or_else(|| p.get(c, "addr")))
            .and_then(crate::text::mac);
        let kind = text_kind(name, lower, &flags, link_type);
        let i = dev.iface(name, kind);
        i.kind = crate::model::kind_name(kind);
        i.set_defined_at(src.clone());
        i.admin_up = known(flags.contains(&"UP"), &src);
        if let Some(up) = oper_from(p.get(r, "state"), &flags) {
            i.oper_up = known(up, &src);
        }
        if let Some(mtu) = p.num::<u32>(r, "mtu") {
            i.mtu = known(mtu, &src);
            i.mtu_raw = known(mtu, &src);
        }
        if let Some(m) = p.get(r, "master") {
            i.names.lag_parent = Some(m.to_string());
        }
        if let Some(mac) = mac {
            i.mac = known(mac, &src);
        }
    }
}

/// Keep `lag_parent` only where the master is a LAG, and fill the LAG's member list.
fn link_lags(dev: &mut Device) {
    let lags: Vec<String> = dev
        .interfaces
        .iter()
        .filter(|i| i.kind == "port-channel")
        .map(|i| i.name.clone())
        .collect();
    let mut members: Vec<(String, String)> = Vec::new();
    for i in &mut dev.interfaces {
        if let Some(m) = &i.names.lag_parent {
            if lags.contains(m) {
                members.push((m.clone(), i.name.clone()));
            } else {
                i.names.lag_parent = None;
            }
        }
    }
    for (lag, member) in members {
        if let Some(l) = dev.interface_mut(&lag)
            && !l.lag_members.contains(&member)
        {
            l.lag_members.push(member);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// RDMA device -> netdev
// ---------------------------------------------------------------------------------------------

/// One RDMA port and its netdev. Alive while the ports are built, one per port: its texts
/// are boxed, without a `String`'s unused room and length word (issue 19).
struct RdmaPort {
    dev: Box<str>,
    port: u8,
    netdev: Box<str>,
    state: Option<Box<str>>,
    src: Src,
}

#[derive(Default)]
struct RdmaMap {
    ports: Vec<RdmaPort>,
    /// Positions in `ports` by device and port (a scan per line made a long listing
    /// quadratic: 4 MiB of `ibdev2netdev` took 27 s; issue 19). In a cell: lookups after
    /// the map is built read it through `&self`.
    index: std::cell::RefCell<NameIndex>,
    /// An output that maps RDMA devices to netdevs was read (even one listing none).
    read: bool,
}

impl RdmaMap {
    fn find(&self, dev: &str, port: u8) -> Option<&RdmaPort> {
        let i =
            self.index
                .borrow_mut()
                .position_by(&self.ports, |p| (&*p.dev, p.port), (dev, port))?;
        self.ports.get(i)
    }

    fn add(&mut self, dev: &str, port: u8, netdev: &str, state: Option<&str>, src: Src) {
        if dev.is_empty() || netdev.is_empty() {
            return;
        }
        if self.find(dev, port).is_some() {
            return;
        }
        // One record per RDMA port, alive while the ports are built: grown by steps that
        // leave little room unused, not doubled (issue 19).
        crate::model::push_slim(
            &mut self.ports,
            RdmaPort {
                dev: dev.into(),
                port,
                netdev: netdev.into(),
                state: state.map(Box::from),
                src,
            },
        );
    }

    fn netdev(&self, dev: &str, port: u8) -> Option<&str> {
        self.find(dev, port).map(|p| &*p.netdev)
    }

    fn attach(&self, dev: &mut Device) {
        for p in &self.ports {
            let i = dev.iface(&p.netdev, "ethernet");
            let r = rdma_of(i);
            if r.device.is_empty() {
                r.device = p.dev.to_string();
                r.port = p.port;
            }
            if let Some(s) = &p.state
                && r.state.is_none()
            {
                r.state = known(s.to_string(), &p.src);
            }
        }
    }
}

fn rdma_link_json(map: &mut RdmaMap, o: &Output) {
    let Some(links) = o.parsed.json.as_ref().and_then(Node::as_array) else {
        return;
    };
    for l in links {
        // iproute2 before 5.x printed "mlx5_0/1" as ifname, later the bare device name
        let Some(name) = l.get("ifname").and_then(Node::as_str) else {
            continue;
        };
        let devname = name.split('/').next().unwrap_or(name);
        let port = l
            .get("port")
            .and_then(Node::as_u64)
            .and_then(|p| u8::try_from(p).ok())
            .or_else(|| name.split('/').nth(1).and_then(|p| p.parse().ok()));
        let (Some(port), Some(netdev)) = (port, l.get("netdev").and_then(Node::as_str)) else {
            continue;
        };
        // the state is the one value kept: cited at its line (else the link's)
        let state = l.get("state");
        let line = state.map_or(l.line, |s| s.line);
        map.add(
            devname,
            port,
            netdev,
            state.and_then(Node::as_str),
            o.src(line),
        );
    }
}

fn rdma_link_text(map: &mut RdmaMap, o: &Output) {
    let p = &o.parsed;
    for r in &p.records {
        if let (Some(d), Some(port), Some(nd)) =
            (p.get(r, "dev"), p.num(r, "port"), p.get(r, "netdev"))
        {
            map.add(d, port, nd, p.get(r, "state"), o.src(r.line));
        }
    }
}

fn ibdev2netdev(map: &mut RdmaMap, o: &Output) {
    let p = &o.parsed;
    for r in &p.records {
        if let (Some(d), Some(port), Some(nd)) =
            (p.get(r, "dev"), p.num(r, "port"), p.get(r, "netdev"))
        {
            // "(Up)" is the netdev carrier, not the RDMA port state
            map.add(d, port, nd, None, o.src(r.line));
        }
    }
}

fn show_gids(map: &mut RdmaMap, o: &Output) {
    let p = &o.parsed;
    // the lowest GID index of a port belongs to the port's own netdev (VLANs come later)
    let mut best: Vec<(&str, u8, u32, &str, u32)> = Vec::new();
    for r in &p.records {
        let (Some(d), Some(port), Some(index), Some(nd)) = (
            p.get(r, "dev"),
            p.num::<u8>(r, "port"),
            p.num::<u32>(r, "index"),
            p.get(r, "netdev"),
        ) else {
            continue;
        };
        match best.iter_mut().find(|b| b.0 == d && b.1 == port) {
            Some(b) if index < b.2 => *b = (d, port, index, nd, r.line),
            Some(_) => {}
            None => best.push((d, port, index, nd, r.line)),
        }
    }
    for (d, port, _, nd, line) in best {
        map.add(d, port, nd, None, o.src(line));
    }
}

// ---------------------------------------------------------------------------------------------
// per-interface outputs
// ---------------------------------------------------------------------------------------------

/// The interface an output is about: the name the output prints, else the command's `{if}`.
fn target_if(o: &Output, printed: Option<&str>) -> Option<String> {
    printed
        .map(str::to_string)
        .or_else(|| o.args.get("if").cloned())
}

/// Speed and carrier. "Link detected" is the physical carrier, so it replaces the operstate
/// that `ip link` gave (they differ only for stacked or administratively odd netdevs).
fn ethtool(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    let header = p.records.iter().find(|r| p.kind(r) == "header");
    let Some(name) = target_if(o, header.and_then(|h| p.get(h, "if"))) else {
        return;
    };
    let i = dev.iface(&name, "ethernet");
    for r in &p.records {
        let src = o.src(r.line);
        match p.kind(r) {
            "speed" => {
                // `Speed: Unknown!` is the NIC saying it has no negotiated speed (no link):
                // a known 0, not an unknown.
                let gbps = p
                    .num::<u64>(r, "mbps")
                    .map_or(0.0, |mbps| mbps as f64 / 1000.0);
                i.speed_gbps = known(gbps, &src);
            }
            "link" => i.oper_up = known(p.get(r, "v") == Some("yes"), &src),
            _ => {}
        }
    }
}

fn ethtool_pause(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    let header = p.records.iter().find(|r| p.kind(r) == "header");
    let Some(name) = target_if(o, header.and_then(|h| p.get(h, "if"))) else {
        return;
    };
    let i = dev.iface(&name, "ethernet");
    for r in &p.records {
        let on = p.get(r, "v") == Some("on");
        match p.kind(r) {
            "rx" => i.link_pause.rx = known(on, &o.src(r.line)),
            "tx" => i.link_pause.tx = known(on, &o.src(r.line)),
            _ => {}
        }
    }
}

/// `ethtool --get-tunable IF pfc-prevention-tout`: the NIC's pause-storm timeout. The value
/// lands on the RDMA block, so it is kept only for netdevs backed by an RDMA device.
fn pfc_prevention(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    let Some(name) = target_if(o, None) else {
        return;
    };
    let Some(i) = dev.interface_mut(&name) else {
        return;
    };
    let Some(rdma) = i.rdma.as_mut() else {
        return;
    };
    for r in &p.records {
        if p.kind(r) == "tout"
            && let Some(ms) = p.num::<u32>(r, "ms")
        {
            rdma.details_mut().pfc_prevention_ms = known(ms, &o.src(r.line));
        }
    }
}

/// Numbers separated by commas and/or whitespace.
fn numbers<T: std::str::FromStr>(s: &str) -> Option<Vec<T>> {
    s.split([',', ' ', '\t'])
        .filter(|t| !t.is_empty())
        .map(|t| t.parse().ok())
        .collect()
}

fn mlnx_qos(dev: &mut Device, o: &Output) {
    let Some(name) = o.args.get("if").cloned() else {
        return;
    };
    let p = &o.parsed;
    let i = dev.iface(&name, "ethernet");
    let mut dscp_src: Option<Src> = None;
    let mut dscp = vec![0u8; 64];
    let mut prio_tc: [Option<u8>; 8] = [None; 8];
    let mut tsa: Vec<String> = vec![String::new(); 8];
    let mut bw: Vec<u8> = vec![0; 8];
    let mut tc_src: Option<Src> = None;
    let mut cur_tc: Option<u8> = None;
    for r in &p.records {
        let src = o.src(r.line);
        match p.kind(r) {
            "dcbx" => {
                if let Some(m) = p.get(r, "mode") {
                    rdma_of(i).details_mut().dcbx_mode = known(m.to_string(), &src);
                }
            }
            "trust" => {
                if let Some(t @ ("dscp" | "pcp")) = p.get(r, "trust") {
                    i.qos.trust = known(t.to_string(), &src);
                    // Trusting PCP, a ConnectX port takes a tagged frame's 802.1p priority as
                    // its priority: mlnx_qos has no PCP map to set, only `--trust pcp` [I].
                    i.qos.pcp_to_tc = if t == "pcp" {
                        default_of(crate::platform::util::identity8(), Some(&src))
                    } else {
                        None
                    };
                }
            }
            "dscp2prio" => dscp_src = Some(src),
            "dscp_line" => {
                let (Some(prio), Some(list)) = (p.num::<u8>(r, "prio"), p.get(r, "dscps")) else {
                    continue;
                };
                for d in list.split(',').filter_map(|d| d.parse::<usize>().ok()) {
                    if let Some(slot) = dscp.get_mut(d) {
                        *slot = prio;
                    }
                }
                dscp_src.get_or_insert(src);
            }
            "buffer_size" => {
                if let Some(sizes) = p.get(r, "sizes").and_then(numbers::<u64>) {
                    rdma_of(i).details_mut().buffer_size = known(sizes, &src);
                }
            }
            "cable" => {
                if let Some(m) = p.num::<f64>(r, "m") {
                    i.cable_m = known(m, &src);
                }
            }
            "pfc_enabled" => {
                if let Some(bits) = p.get(r, "en").and_then(numbers::<u8>) {
                    let prios: Vec<u8> = (0u8..)
                        .zip(&bits)
                        .filter(|(_, b)| **b == 1)
                        .map(|(n, _)| n)
                        .collect();
                    // PFC on a ConnectX port is symmetric: it honours and sends PAUSE for
                    // every enabled priority
                    let on = !prios.is_empty();
                    i.pfc.mode = known(if on { "on" } else { "off" }.to_string(), &src);
                    i.pfc.rx = known(on, &src);
                    i.pfc.tx = known(on, &src);
                    i.pfc.priorities = known(prios, &src);
                }
            }
            "pfc_buffer" => {
                if let Some(bufs) = p.get(r, "buf").and_then(numbers::<u8>) {
                    rdma_of(i).details_mut().prio_to_buffer = known(bufs, &src);
                }
            }
            "tc" => {
                let Some(tc) = p.num::<u8>(r, "tc") else {
                    continue;
                };
                cur_tc = Some(tc);
                let t = usize::from(tc);
                if let (Some(slot), Some(alg)) = (tsa.get_mut(t), p.get(r, "tsa")) {
                    *slot = alg.to_string();
                }
                if let (Some(slot), Some(b)) = (bw.get_mut(t), p.num::<u8>(r, "bw")) {
                    *slot = b;
                }
                tc_src.get_or_insert(src);
            }
            "tc_prio" => {
                if let (Some(tc), Some(prio)) = (cur_tc, p.num::<usize>(r, "prio"))
                    && let Some(slot) = prio_tc.get_mut(prio)
                {
                    *slot = Some(tc);
                }
            }
            _ => {}
        }
    }
    if let Some(src) = dscp_src {
        // DSCPs missing from the listing are back at the default, priority 0
        i.qos.dscp_to_tc = known(dscp, &src);
    }
    if let Some(src) = tc_src {
        let r = rdma_of(i).details_mut();
        // TCs mlnx_qos does not list carry no priority: tsa "" and bw 0. A strict TC is
        // printed without a share: it takes no part in ETS, its ETS share is 0 (the shares of
        // the ETS TCs sum to 100); `tc_tsa` says which entries are shares at all.
        r.tc_tsa = known(tsa, &src);
        r.tc_bw = known(bw, &src);
        if prio_tc.iter().all(Option::is_some) {
            r.prio_to_tc = known(prio_tc.iter().map(|t| t.unwrap_or(0)).collect(), &src);
        }
    }
}

fn sysfs_ecn(dev: &mut Device, o: &Output) {
    let p = &o.parsed;
    // per interface named in the paths: NP and RP enable per priority, with the first line
    type Table = Vec<(String, [Option<bool>; 8], Option<Src>)>;
    let mut np: (Table, NameIndex) = Default::default();
    let mut rp: (Table, NameIndex) = Default::default();
    for r in &p.records {
        let Some(name) = target_if(o, p.get(r, "if")) else {
            continue;
        };
        let src = o.src(r.line);
        match p.kind(r) {
            "enable" => {
                let (Some(prio), Some(v)) = (p.num::<usize>(r, "prio"), p.get(r, "v")) else {
                    continue;
                };
                let table = if p.get(r, "point") == Some("np") {
                    &mut np
                } else {
                    &mut rp
                };
                let (table, index) = (&mut table.0, &mut table.1);
                let pos = match index.position(table, |t| &t.0, &name) {
                    Some(pos) => pos,
                    None => {
                        table.push((name, [None; 8], None));
                        table.len() - 1
                    }
                };
                let entry = &mut table[pos];
                if let Some(slot) = entry.1.get_mut(prio) {
                    *slot = Some(v == "1");
                }
                entry.2.get_or_insert(src);
            }
            "cnp_dscp" => {
                if let Some(v) = p.num::<u8>(r, "v").filter(|v| *v < 64) {
                    rdma_of(dev.iface(&name, "ethernet")).details_mut().cnp_dscp = known(v, &src);
                }
            }
            "cnp_prio" => {
                if let Some(v) = p.num::<u8>(r, "v").filter(|v| *v < 8) {
                    rdma_of(dev.iface(&name, "ethernet")).details_mut().cnp_prio = known(v, &src);
                }
            }
            _ => {}
        }
    }
    for (is_np, (table, _)) in [(true, np), (false, rp)] {
        for (name, bits, src) in table {
            // all eight priorities or nothing: a partial table cannot answer "which are on"
            let (Some(src), true) = (src, bits.iter().all(Option::is_some)) else {
                continue;
            };
            let v: Vec<bool> = bits.iter().map(|b| b.unwrap_or(false)).collect();
            let r = rdma_of(dev.iface(&name, "ethernet")).details_mut();
            if is_np {
                r.np_enable = known(v, &src);
            } else {
                r.rp_enable = known(v, &src);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// per-RDMA-device outputs
// ---------------------------------------------------------------------------------------------

/// Report an RDMA device no device → netdev map names. With no map output at all the device
/// is not undefined, the map is missing: the reference is listed as unresolved (the file
/// keeps its status) under a kind that says why.
fn undefined_dev(notes: &mut BuildNotes, map: &RdmaMap, out: usize, name: &str, line: u32) {
    let (list, kind) = if map.read {
        (&mut notes.undefined, "rdma-device")
    } else {
        (
            &mut notes.unresolved,
            "rdma-device (no rdma link / ibdev2netdev / show_gids output maps it to a netdev)",
        )
    };
    let dup = list
        .iter()
        .any(|(i, u)| *i == out && u.name == name && u.kind == kind);
    if !dup {
        list.push((
            out,
            UndefinedRef {
                kind: kind.into(),
                name: name.to_string(),
                line,
            },
        ));
    }
}

/// `cma_roce_tos -d DEV` / `cma_roce_mode -d DEV -p 1`: both address port 1 of DEV.
fn cma_roce(dev: &mut Device, map: &RdmaMap, idx: usize, o: &Output, notes: &mut BuildNotes) {
    let p = &o.parsed;
    let Some(devname) = o.args.get("dev") else {
        return;
    };
    for r in &p.records {
        let src = o.src(r.line);
        let kind = p.kind(r);
        if kind == "error" {
            continue;
        }
        let Some(netdev) = map.netdev(devname, 1) else {
            undefined_dev(notes, map, idx, devname, r.line);
            continue;
        };
        let rd = rdma_of(dev.iface(netdev, "ethernet"));
        match kind {
            "tos" => {
                if let Some(tos) = p.num::<u8>(r, "tos") {
                    rd.details_mut().roce_tos = known(tos, &src);
                }
            }
            "mode" => {
                if let Some(m) = p.get(r, "mode") {
                    rd.details_mut().roce_mode = known(m.to_string(), &src);
                }
            }
            _ => {}
        }
    }
}

/// `ibv_devinfo [-v] [-d DEV]`: port state, active MTU and link layer per device port.
/// `out` is set for the per-device command, whose unmapped device is worth reporting; the
/// all-devices form lists InfiniBand HCAs and down ports with no netdev as a matter of course.
fn ibv_devinfo(
    dev: &mut Device,
    map: &RdmaMap,
    out: Option<usize>,
    o: &Output,
    notes: &mut BuildNotes,
) {
    let p = &o.parsed;
    let mut cur_dev: Option<&str> = None;
    let mut cur_port: Option<u8> = None;
    for r in &p.records {
        let src = o.src(r.line);
        match p.kind(r) {
            "hca" => {
                cur_dev = p.get(r, "dev");
                cur_port = None;
                continue;
            }
            "port" => {
                cur_port = p.num(r, "port");
                if let (Some(d), Some(port), Some(out)) = (cur_dev, cur_port, out)
                    && map.netdev(d, port).is_none()
                {
                    undefined_dev(notes, map, out, d, r.line);
                }
                continue;
            }
            _ => {}
        }
        let (Some(d), Some(port)) = (cur_dev, cur_port) else {
            continue;
        };
        let Some(netdev) = map.netdev(d, port) else {
            continue;
        };
        let rd = rdma_of(dev.iface(netdev, "ethernet"));
        match p.kind(r) {
            "state" => {
                if let Some(s) = p.get(r, "state").filter(|s| *s != "invalid state") {
                    let s = s.strip_prefix("PORT_").unwrap_or(s);
                    rd.state = known(s.to_string(), &src);
                }
            }
            "active_mtu" => {
                if let Some(m) = p.num::<u32>(r, "mtu") {
                    rd.details_mut().active_mtu = known(m, &src);
                }
            }
            "link_layer" => {
                if let Some(ll) = p.get(r, "ll") {
                    rd.details_mut().link_layer = known(ll.to_string(), &src);
                }
            }
            _ => {}
        }
    }
}

// ---------------------------------------------------------------------------------------------
// LLDP
// ---------------------------------------------------------------------------------------------

fn set_neighbor(dev: &mut Device, ifname: &str, nb: LldpNeighbor) {
    let i = dev.iface(ifname, "ethernet");
    // several neighbors on one port: the first one listed is kept
    if i.lldp_neighbor.is_none() {
        i.lldp_neighbor = Some(Box::new(nb));
    }
}

/// The port to report: an interface name when the id is one, else the description.
fn neighbor_port(
    id_type: Option<&str>,
    id_value: Option<&str>,
    descr: Option<&str>,
) -> Option<String> {
    let id_is_name = match id_type {
        Some("ifname" | "ifalias") => true,
        // Junos and some others send the SNMP ifIndex as a "local" id
        Some("local") => id_value.is_some_and(|v| !v.bytes().all(|b| b.is_ascii_digit())),
        _ => false,
    };
    let pick = if id_is_name {
        id_value.or(descr)
    } else {
        descr.filter(|d| !d.is_empty()).or(id_value)
    };
    pick.map(str::to_string)
}

/// A JSON value seen through lldpd's `json0` wrapping (every value an array of objects and
/// every scalar a `{"value": ...}`): the first element of an array, else the value itself.
fn unwrap0(v: &Node) -> &Node {
    v.as_array().and_then(<[Node]>::first).unwrap_or(v)
}

/// A string as `json` (`"x"`) or `json0` (`[{"value": "x"}]`) writes it, with its line.
fn str0(v: Option<&Node>) -> Option<(&str, u32)> {
    let v = unwrap0(v?);
    let s = match v.as_str() {
        Some(_) => v,
        None => v.get("value")?,
    };
    Some((s.as_str()?, s.line))
}

/// The (interface, neighbor body) pairs of one element of `lldp.interface`.
fn lldp_entries<'v>(item: &'v Node, entries: &mut Vec<(&'v str, &'v Node)>) {
    let Some(m) = item.as_object() else {
        return;
    };
    if let Some(name) = item.get("name") {
        // json0: {"name": "eth2", "chassis": [...], ...}
        if let Some((n, _)) = str0(Some(name)) {
            entries.push((n, item));
        }
    } else {
        // json: {"eth2": {...}}
        for mb in m {
            entries.push((&mb.key, &mb.value));
        }
    }
}

/// `lldpctl -f json` / `-f json0`. A neighbor cites the line of its system name (the chassis
/// id's when it has none), as `lldpctl -f keyvalue` cites `chassis.name`.
pub(crate) fn lldp_json(v: &Node, o: &Output) -> Vec<(String, LldpNeighbor)> {
    let mut out = Vec::new();
    let Some(lldp) = v.get("lldp").map(unwrap0) else {
        return out;
    };
    let mut entries: Vec<(&str, &Node)> = Vec::new();
    if let Some(iface) = lldp.get("interface") {
        match iface.as_array() {
            Some(items) => items.iter().for_each(|i| lldp_entries(i, &mut entries)),
            None => lldp_entries(iface, &mut entries),
        }
    }
    for (ifname, body) in entries {
        let chassis = body.get("chassis").map(unwrap0);
        let (sysname, chassis_id) = match chassis.and_then(|c| Some((c, c.as_object()?))) {
            Some((c, _)) if c.get("id").is_some() => {
                // unnamed chassis (json) or json0 layout: the name is a field
                (
                    str0(c.get("name")),
                    c.get("id").map(unwrap0).and_then(|i| str0(i.get("value"))),
                )
            }
            Some((_, members)) => match members.first() {
                // json: {"<system name>": {"id": {...}, ...}}
                Some(m) => (
                    Some((m.key.as_str(), m.line)),
                    m.value.get("id").and_then(|i| str0(i.get("value"))),
                ),
                None => (None, None),
            },
            None => (None, None),
        };
        let port = body.get("port").map(unwrap0);
        let id = port.and_then(|p| p.get("id")).map(unwrap0);
        let id_type = id.and_then(|i| str0(i.get("type"))).map(|t| t.0);
        let id_value = id.and_then(|i| str0(i.get("value"))).map(|t| t.0);
        let descr = port.and_then(|p| str0(p.get("descr"))).map(|t| t.0);
        let (Some((device, line)), Some(port)) = (
            sysname.or(chassis_id),
            neighbor_port(id_type, id_value, descr),
        ) else {
            continue;
        };
        out.push((
            ifname.to_string(),
            LldpNeighbor {
                device: device.to_string(),
                port_id: id_value.filter(|v| *v != port).map(str::to_string),
                port_descr: descr.filter(|d| !d.is_empty()).map(str::to_string),
                port,
                src: Some(o.src(line)),
            },
        ));
    }
    out
}

/// `lldpctl -f keyvalue`: `lldp.<if>.chassis.name=...`, `lldp.<if>.port.<id type>=...`.
fn lldp_keyvalue(o: &Output) -> Vec<(String, LldpNeighbor)> {
    struct Nb<'t> {
        ifname: &'t str,
        line: u32,
        name: Option<&'t str>,
        chassis_id: Option<&'t str>,
        id: Option<(&'t str, &'t str)>,
        descr: Option<&'t str>,
    }
    let p = &o.parsed;
    let mut nbs: Vec<Nb> = Vec::new();
    let mut nbs_index = NameIndex::default();
    for r in &p.records {
        let (Some(ifname), Some(key), Some(val)) =
            (p.get(r, "if"), p.get(r, "key"), p.get(r, "val"))
        else {
            continue;
        };
        let pos = match nbs_index.position(&nbs, |n| n.ifname, ifname) {
            Some(pos) => pos,
            None => {
                nbs.push(Nb {
                    ifname,
                    line: r.line,
                    name: None,
                    chassis_id: None,
                    id: None,
                    descr: None,
                });
                nbs.len() - 1
            }
        };
        let n = &mut nbs[pos];
        match key.split_once('.') {
            Some(("chassis", "name")) => {
                n.name.get_or_insert(val);
                n.line = r.line;
            }
            Some(("chassis", "mac" | "ip" | "local" | "ifname" | "ifalias")) => {
                n.chassis_id.get_or_insert(val);
            }
            Some(("port", "descr")) => {
                n.descr.get_or_insert(val);
            }
            Some(("port", t @ ("ifname" | "ifalias" | "local" | "mac" | "ip" | "agentid"))) => {
                n.id.get_or_insert((t, val));
            }
            _ => {}
        }
    }
    nbs.into_iter()
        .filter_map(|n| {
            let device = n.name.or(n.chassis_id)?;
            let port = neighbor_port(n.id.map(|i| i.0), n.id.map(|i| i.1), n.descr)?;
            Some((
                n.ifname.to_string(),
                LldpNeighbor {
                    device: device.to_string(),
                    port_id: n.id.map(|i| i.1).filter(|v| *v != port).map(str::to_string),
                    port_descr: n.descr.filter(|d| !d.is_empty()).map(str::to_string),
                    port,
                    src: Some(o.src(n.line)),
                },
            ))
        })
        .collect()
}
