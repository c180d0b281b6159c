//! Host storage: NVMe subsystems and paths (`nvme list-subsys -o json`, `nvme show-topology`),
//! NVMe over Fabrics controllers and their timers (sysfs), the ToS their connections ask for
//! (`/etc/nvme/discovery.conf`), mounted file systems (`/proc/mounts`) and the GPUDirect
//! Storage platform check (`gdscheck -p`).

use crate::model::{
    Gds, GdsDriver, Host, Mount, Nvme, NvmeController, NvmeNamespace, NvmeNsPath, NvmePath,
    NvmeSubsystem, Sourced, Src, known,
};
use crate::parser::json::Node;
use crate::platform::Output;

/// `traddr=...` out of an NVMe address ("traddr=10.0.0.1,trsvcid=4420" or, nvme-cli 1.x,
/// "traddr=10.0.0.1 trsvcid=4420 host_traddr=...").
fn traddr(addr: &str) -> Option<String> {
    addr.split([',', ' '])
        .find_map(|kv| kv.trim().strip_prefix("traddr="))
        .map(str::to_string)
}

fn path_from_json(v: &Node) -> Option<NvmePath> {
    let s = |k: &str| v.get(k).and_then(Node::as_str).map(str::to_string);
    let addr = s("Address");
    Some(NvmePath {
        controller: s("Name")?,
        transport: s("Transport"),
        traddr: addr.as_deref().and_then(traddr),
        state: s("State"),
        ana_state: s("ANAState"),
    })
}

/// Counts derived from the paths (and namespaces, where listed).
fn finish_subsystem(s: &mut NvmeSubsystem) {
    s.transport = s.paths.iter().find_map(|p| p.transport.clone());
    // no state printed for any path (nvme-cli 1.x JSON): how many are live is not known
    s.live_paths = s.paths.iter().any(|p| p.state.is_some()).then(|| {
        s.paths
            .iter()
            .filter(|p| p.state.as_deref() == Some("live"))
            .count() as u32
    });
    let optimized = |states: &mut dyn Iterator<Item = Option<&str>>| {
        states.filter(|a| *a == Some("optimized")).count() as u32
    };
    let ns_ana = s.namespaces.as_ref().filter(|ns| {
        ns.iter()
            .any(|n| n.paths.iter().any(|p| p.ana_state.is_some()))
    });
    s.optimized_paths = match ns_ana {
        Some(ns) => ns
            .iter()
            .map(|n| optimized(&mut n.paths.iter().map(|p| p.ana_state.as_deref())))
            .min(),
        None => s
            .paths
            .iter()
            .any(|p| p.ana_state.is_some())
            .then(|| optimized(&mut s.paths.iter().map(|p| p.ana_state.as_deref()))),
    };
}

/// `nvme list-subsys -o json`, nvme-cli 2.x (array of hosts, Paths inside each subsystem)
/// and 1.x (one object whose Subsystems list alternates name objects and Paths objects).
fn list_subsys_json(o: &Output) -> Vec<NvmeSubsystem> {
    let Some(v) = &o.parsed.json else {
        return Vec::new();
    };
    let hosts: Vec<&Node> = match v.as_array() {
        Some(a) => a.iter().collect(),
        None => vec![v],
    };
    let mut out: Vec<NvmeSubsystem> = Vec::new();
    for h in hosts {
        let Some(list) = h.get("Subsystems").and_then(Node::as_array) else {
            continue;
        };
        for item in list {
            // a subsystem cites the line of its NQN
            if let Some(nqn_node) = item.get("NQN")
                && let Some(nqn) = nqn_node.as_str()
            {
                let name = item
                    .get("Name")
                    .and_then(Node::as_str)
                    .unwrap_or("")
                    .to_string();
                out.push(NvmeSubsystem {
                    line: nqn_node.line,
                    file: o.file.to_string(),
                    name,
                    nqn: nqn.to_string(),
                    iopolicy: item
                        .get("IOPolicy")
                        .and_then(Node::as_str)
                        .map(str::to_string),
                    ..Default::default()
                });
            }
            if let Some(paths) = item.get("Paths").and_then(Node::as_array)
                && let Some(s) = out.last_mut()
            {
                s.paths.extend(paths.iter().filter_map(path_from_json));
            }
        }
    }
    out
}

/// `nvme show-topology` / `nvme list-subsys` text: each subsystem's paths (one per controller)
/// and, when namespaces are listed, the ANA state of every path for each namespace (the
/// namespaces repeat the controllers, possibly with other ANA states).
fn topology_text(o: &Output) -> Vec<NvmeSubsystem> {
    let p = &o.parsed;
    let mut out: Vec<NvmeSubsystem> = Vec::new();
    for r in &p.records {
        match p.kind(r) {
            "subsys" => {
                let (Some(name), Some(nqn)) = (p.get(r, "name"), p.get(r, "nqn")) else {
                    continue;
                };
                out.push(NvmeSubsystem {
                    name: name.to_string(),
                    nqn: nqn.to_string(),
                    file: o.file.to_string(),
                    line: r.line,
                    ..Default::default()
                });
            }
            "iopolicy" => {
                if let Some(s) = out.last_mut() {
                    s.iopolicy = p.get(r, "v").map(str::to_string);
                }
            }
            "ns" => {
                let (Some(s), Some(nsid)) = (out.last_mut(), p.num::<u32>(r, "ns")) else {
                    continue;
                };
                s.namespaces
                    .get_or_insert_with(Vec::new)
                    .push(NvmeNamespace {
                        nsid,
                        paths: Vec::new(),
                    });
            }
            "path" => {
                let (Some(s), Some(ctrl)) = (out.last_mut(), p.get(r, "ctrl")) else {
                    continue;
                };
                let ana = p.get(r, "ana").map(str::to_string);
                if let Some(n) = s.namespaces.as_mut().and_then(|ns| ns.last_mut()) {
                    n.paths.push(NvmeNsPath {
                        controller: ctrl.to_string(),
                        ana_state: ana.clone(),
                    });
                }
                if let Some(x) = s.paths.iter_mut().find(|x| x.controller == ctrl) {
                    // the same controller under another namespace: one ANA state for the
                    // path only while every namespace agrees
                    if x.ana_state != ana {
                        x.ana_state = None;
                    }
                    continue;
                }
                let addr = p.get(r, "addr").unwrap_or("");
                s.paths.push(NvmePath {
                    controller: ctrl.to_string(),
                    transport: p.get(r, "transport").map(str::to_string),
                    traddr: traddr(addr),
                    state: p.get(r, "state").map(str::to_string),
                    ana_state: ana,
                });
            }
            _ => {}
        }
    }
    out
}

fn secs(v: &str) -> Option<i64> {
    match v.trim() {
        "off" => Some(-1),
        t => t.parse().ok(),
    }
}

/// sysfs: nvme_core multipath and the fabrics controllers.
fn sysfs_nvmf(o: &Output, nvme: &mut Nvme) {
    let p = &o.parsed;
    let mut ctrls: Vec<NvmeController> = Vec::new();
    for r in &p.records {
        match p.kind(r) {
            "multipath" => nvme.multipath = known(p.get(r, "v") == Some("Y"), &o.src(r.line)),
            "attr" => {
                let (Some(name), Some(attr), Some(v)) =
                    (p.get(r, "ctrl"), p.get(r, "attr"), p.get(r, "v"))
                else {
                    continue;
                };
                let pos = match ctrls.iter().position(|c| c.name == name) {
                    Some(pos) => pos,
                    None => {
                        ctrls.push(NvmeController {
                            name: name.to_string(),
                            file: o.file.to_string(),
                            line: r.line,
                            ..Default::default()
                        });
                        ctrls.len() - 1
                    }
                };
                let c = &mut ctrls[pos];
                let v = v.trim();
                match attr {
                    "transport" => c.transport = Some(v.to_string()),
                    "address" => {
                        c.traddr = traddr(v);
                        c.address = Some(v.to_string());
                    }
                    "state" => c.state = Some(v.to_string()),
                    "subsysnqn" => c.subsysnqn = Some(v.to_string()),
                    "ctrl_loss_tmo" => c.ctrl_loss_tmo = secs(v),
                    "reconnect_delay" => c.reconnect_delay = secs(v),
                    "fast_io_fail_tmo" => c.fast_io_fail_tmo = secs(v),
                    _ => {}
                }
            }
            _ => {}
        }
    }
    ctrls.sort_by(|a, b| {
        let n = |c: &NvmeController| {
            c.name
                .strip_prefix("nvme")
                .and_then(|x| x.parse::<u32>().ok())
                .unwrap_or(u32::MAX)
        };
        n(a).cmp(&n(b))
    });
    nvme.controllers = Some(ctrls);
}

/// One connect-options line of discovery.conf: (transport, traddr, tos).
struct ConnectOpts {
    transport: Option<String>,
    traddr: Option<String>,
    tos: Option<i64>,
}

fn connect_opts(args: &str) -> ConnectOpts {
    let toks: Vec<&str> = args.split_whitespace().collect();
    let mut c = ConnectOpts {
        transport: None,
        traddr: None,
        tos: None,
    };
    let mut i = 0;
    while i < toks.len() {
        let (key, inline) = match toks[i].split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (toks[i], None),
        };
        let value = match inline {
            Some(v) => Some(v),
            None => {
                i += 1;
                toks.get(i).copied()
            }
        };
        match key {
            "--transport" | "-t" => c.transport = value.map(str::to_string),
            "--traddr" | "-a" => c.traddr = value.map(str::to_string),
            "--tos" | "-T" => c.tos = value.and_then(|v| v.parse().ok()),
            // flags without a value
            "--persistent"
            | "-p"
            | "--duplicate-connect"
            | "-D"
            | "--disable-sqflow"
            | "-d"
            | "--hdr-digest"
            | "-g"
            | "--data-digest"
            | "-G"
            | "--tls"
            | "--concat"
                if inline.is_none() =>
            {
                i -= 1;
            }
            _ => {}
        }
        i += 1;
    }
    c
}

/// The storage facts of a host; returns whether any output gave some.
pub fn storage(host: &mut Host, outs: &[&Output]) -> bool {
    let mut found = false;
    let mut json_subs: Option<Vec<NvmeSubsystem>> = None;
    let mut text_subs: Option<Vec<NvmeSubsystem>> = None;
    let mut nvme = Nvme::default();
    let mut nvme_seen = false;
    let mut conf: Option<Vec<ConnectOpts>> = None;
    for o in outs {
        match o.cmd.id.as_str() {
            "nvme-list-subsys" if o.parsed.json.is_some() => {
                json_subs
                    .get_or_insert_with(Vec::new)
                    .extend(list_subsys_json(o));
            }
            "nvme-show-topology" | "nvme-list-subsys-text" if !o.parsed.records.is_empty() => {
                text_subs
                    .get_or_insert_with(Vec::new)
                    .extend(topology_text(o));
            }
            "sysfs-nvmf" if !o.parsed.records.is_empty() => {
                nvme_seen = true;
                sysfs_nvmf(o, &mut nvme);
            }
            "nvme-discovery-conf" => {
                let p = &o.parsed;
                let list = conf.get_or_insert_with(Vec::new);
                for r in &p.records {
                    if let Some(a) = p.get(r, "args") {
                        list.push(connect_opts(a));
                    }
                }
            }
            _ => {}
        }
    }
    // subsystems: JSON first, ANA states completed from the tree where JSON has none
    let subs = match (json_subs, text_subs) {
        (Some(mut j), Some(t)) => {
            for s in j.iter_mut() {
                let Some(ts) = t.iter().find(|x| x.nqn == s.nqn) else {
                    continue;
                };
                if s.namespaces.is_none() {
                    s.namespaces = ts.namespaces.clone();
                }
                for path in s.paths.iter_mut().filter(|p| p.ana_state.is_none()) {
                    path.ana_state = ts
                        .paths
                        .iter()
                        .find(|x| x.controller == path.controller)
                        .and_then(|x| x.ana_state.clone());
                }
            }
            Some(j)
        }
        (j, t) => j.or(t),
    };
    if let Some(mut subs) = subs {
        // a path whose output prints no state (nvme-cli 1.x JSON) takes its controller's state
        // from sysfs, when collected
        if let Some(ctrls) = &nvme.controllers {
            for path in subs.iter_mut().flat_map(|s| s.paths.iter_mut()) {
                if path.state.is_none() {
                    path.state = ctrls
                        .iter()
                        .find(|c| c.name == path.controller)
                        .and_then(|c| c.state.clone());
                }
            }
        }
        subs.iter_mut().for_each(finish_subsystem);
        nvme.subsystems = Some(subs);
        nvme_seen = true;
    }
    // Without the sysfs parameter (the running value, which wins), the kernel command line
    // may still say how nvme_core was loaded.
    if nvme.multipath.is_none()
        && let Some(c) = &host.cmdline
        && let Some(on) = super::boot::cmdline_nvme_multipath(&c.value)
    {
        nvme.multipath = Some(Sourced {
            value: on,
            src: c.src.clone(),
            default: false,
        });
        nvme_seen = true;
    }
    if let (Some(ctrls), Some(conf)) = (nvme.controllers.as_mut(), &conf) {
        for c in ctrls.iter_mut() {
            let hit = conf.iter().find(|opts| {
                opts.traddr.is_some()
                    && opts.traddr == c.traddr
                    && opts
                        .transport
                        .as_ref()
                        .is_none_or(|t| Some(t) == c.transport.as_ref())
            });
            // a controller no discovery.conf line names was connected some other way: its
            // options are not known
            if let Some(opts) = hit {
                c.tos = Some(opts.tos.unwrap_or(-1));
            }
        }
    }
    if nvme_seen {
        host.nvme = Some(nvme);
        found = true;
    }
    for o in outs {
        match o.cmd.id.as_str() {
            "proc-mounts" => {
                mounts(host, o);
                found = true;
            }
            "gdscheck" | "gdscheck-path" => {
                found |= gdscheck(host, o);
            }
            _ => {}
        }
    }
    found
}

/// The gdscheck entry a mount needs for GPUDirect Storage, or "none" with a reason.
fn gds_of(m: &Mount, host: &Host) -> (Option<String>, Option<String>) {
    let opt = |name: &str| m.options.iter().find_map(|o| o.strip_prefix(name));
    let some = |s: &str| (Some(s.to_string()), None);
    match m.fstype.as_str() {
        "nfs" | "nfs4" => {
            let rdma = opt("proto=").is_some_and(|p| p.starts_with("rdma"))
                || m.options.iter().any(|o| o == "rdma");
            if rdma {
                some("NFS")
            } else {
                (
                    Some("none".into()),
                    Some(format!(
                        "NFS over {} (GPUDirect Storage needs NFS over RDMA)",
                        opt("proto=").unwrap_or("tcp")
                    )),
                )
            }
        }
        "lustre" => some("DDN EXAScaler"),
        "wekafs" => some("WekaFS"),
        "beegfs" => some("BeeGFS"),
        "gpfs" => some("IBM Spectrum Scale"),
        "virtiofs" => some("VIRTIOFS"),
        "scatefs" => some("ScaTeFS"),
        "ext4" | "xfs" if m.spec.starts_with("/dev/nvme") => {
            if m.fstype == "ext4"
                && let Some(mode) = opt("data=").filter(|d| *d != "ordered")
            {
                return (
                    Some("none".into()),
                    Some(format!(
                        "ext4 mounted data={mode} (GPUDirect Storage needs data=ordered)"
                    )),
                );
            }
            // /dev/nvme<subsystem instance>n<ns>: NVMe-oF when that subsystem is a fabrics one
            let inst: String = m.spec["/dev/nvme".len()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            let fabrics = host
                .nvme
                .as_ref()
                .and_then(|n| n.subsystems.as_ref())
                .and_then(|s| {
                    s.iter()
                        .find(|x| x.name == format!("nvme-subsys{inst}"))
                        .and_then(|x| x.transport.clone())
                })
                .is_some_and(|t| t != "pcie");
            some(if fabrics { "NVMeOF" } else { "NVMe" })
        }
        _ => (None, None),
    }
}

/// A /proc/mounts field as written: the kernel escapes space, tab, newline and backslash as
/// three octal digits (`\040`, `\011`, `\012`, `\134`); any other backslash is kept.
fn unescape_mount(s: &str) -> String {
    let b = s.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && let Some(oct) = b.get(i + 1..i + 4)
            && oct.iter().all(|c| (b'0'..=b'7').contains(c))
        {
            let v = oct.iter().fold(0u32, |a, c| a * 8 + u32::from(c - b'0'));
            if let Ok(byte) = u8::try_from(v) {
                out.push(byte);
                i += 4;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn mounts(host: &mut Host, o: &Output) {
    let p = &o.parsed;
    let mut list = Vec::new();
    for r in &p.records {
        let (Some(dev), Some(mp), Some(fs), Some(opts)) = (
            p.get(r, "dev"),
            p.get(r, "mp"),
            p.get(r, "fstype"),
            p.get(r, "opts"),
        ) else {
            continue;
        };
        let mut m = Mount {
            spec: unescape_mount(dev),
            mountpoint: unescape_mount(mp),
            fstype: fs.to_string(),
            options: opts.split(',').map(str::to_string).collect(),
            file: o.file.to_string(),
            line: r.line,
            ..Default::default()
        };
        (m.gds, m.gds_reason) = gds_of(&m, host);
        list.push(m);
    }
    host.mounts.get_or_insert_with(Vec::new).extend(list);
}

/// `gdscheck -p`; returns whether it held anything.
fn gdscheck(host: &mut Host, o: &Output) -> bool {
    let p = &o.parsed;
    if p.records.is_empty() {
        return false;
    }
    let g = host.gds.get_or_insert_with(Gds::default);
    let mut drivers: Vec<GdsDriver> = Vec::new();
    for r in &p.records {
        let src: Src = o.src(r.line);
        match p.kind(r) {
            "release" => g.release = p.get(r, "v").and_then(|v| known(v.to_string(), &src)),
            "nvfs" => g.nvidia_fs = p.get(r, "v").and_then(|v| known(v.to_string(), &src)),
            "platform" if host.arch.is_none() => {
                host.arch = p.get(r, "arch").and_then(|a| known(a.to_string(), &src));
            }
            "driver" => {
                let (Some(name), Some(status)) = (p.get(r, "name"), p.get(r, "status")) else {
                    continue;
                };
                let supported = status == "Supported"
                    || status
                        .split(", ")
                        .any(|m| matches!(m, "nvfs" | "p2pdma" | "dmabuf" | "c2c"));
                drivers.push(GdsDriver {
                    name: name.trim().to_string(),
                    status: status.to_string(),
                    supported,
                    file: o.file.to_string(),
                    line: r.line,
                });
            }
            "iommu" => {
                let s = p.get(r, "state").unwrap_or("").to_ascii_lowercase();
                host.iommu_active = known(!s.starts_with("disabled"), &src);
            }
            "verified" => g.platform_verified = known(p.get(r, "r") == Some("succeeded"), &src),
            _ => {}
        }
    }
    if !drivers.is_empty() {
        g.supported = Some(
            drivers
                .iter()
                .filter(|d| d.supported)
                .map(|d| d.name.clone())
                .collect(),
        );
        g.drivers = Some(drivers);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::unescape_mount;

    #[test]
    fn mount_fields_unescaped() {
        assert_eq!(
            unescape_mount("nas01:/export/ml\\040data"),
            "nas01:/export/ml data"
        );
        assert_eq!(unescape_mount("/mnt/a\\134b\\011c"), "/mnt/a\\b\tc");
        assert_eq!(unescape_mount("/mnt/x\\9y\\04"), "/mnt/x\\9y\\04");
    }
}
