// Synthetic 10,000-device fabric for the whole-audit benchmark (included by benches/parse.rs).
//
// The device files are the demo fabric's own (fixtures/demo-fabric), replicated with new
// names: 80 spines, 960 leaves (NX-OS and EOS alternating), 8,960 GPU hosts, and a cabling
// plan linking every host NIC to a leaf port and every leaf to two spines.

use std::path::{Path, PathBuf};
use std::time::Instant;

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map(|kb| kb / 1024.0)
        .unwrap_or(f64::NAN)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read template").flatten() {
        std::fs::copy(e.path(), to.join(e.file_name())).expect("copy");
    }
}

/// The ports of `device` that the cabling plan's links use, in plan order.
fn plan_ports(links: &[toml::Value], device: &str) -> Vec<String> {
    let mut ports: Vec<String> = Vec::new();
    for l in links {
        for side in ["a", "b"] {
            if let Some((dn, p)) = l
                .get(side)
                .and_then(|v| v.as_str())
                .and_then(|s| s.split_once(':'))
                && dn == device
                && !ports.iter().any(|x| x == p)
            {
                ports.push(p.to_string());
            }
        }
    }
    ports
}

struct Template {
    platform: String,
    role: String,
    text: String,
    ports: Vec<String>,
}

fn templates(demo: &Path) -> (Vec<Template>, Vec<Template>, PathBuf, Vec<String>) {
    let fabric: toml::Table = toml::from_str(
        &std::fs::read_to_string(demo.join("fabric.toml")).expect("demo fabric.toml"),
    )
    .expect("demo fabric.toml parses");
    let mut spines = Vec::new();
    let mut leaves = Vec::new();
    let mut host = None;
    let mut host_nics = Vec::new();
    let links = fabric
        .get("link")
        .and_then(|l| l.as_array())
        .cloned()
        .unwrap_or_default();
    for d in fabric
        .get("device")
        .and_then(|d| d.as_array())
        .cloned()
        .unwrap_or_default()
    {
        let name = d
            .get("name")
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string();
        let platform = d
            .get("platform")
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string();
        let role = d
            .get("role")
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string();
        let ports = plan_ports(&links, &name);
        if platform == "linux" {
            if host.is_none() {
                host = Some(demo.join("devices").join(&name));
                host_nics = ports.clone();
            }
            continue;
        }
        let Some(path) = std::fs::read_dir(demo.join("configs"))
            .expect("configs")
            .flatten()
            .map(|e| e.path())
            .find(|p| p.file_stem().is_some_and(|s| s == name.as_str()))
        else {
            continue;
        };
        let text = std::fs::read_to_string(path).expect("config");
        let t = Template {
            platform,
            role: role.clone(),
            text,
            ports,
        };
        if role == "spine" {
            spines.push(t)
        } else {
            leaves.push(t)
        }
    }
    if host.is_none() {
        // Hosts are device folders (their platform is in device.toml, not fabric.toml).
        let first = std::fs::read_dir(demo.join("devices"))
            .expect("demo devices/")
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .min()
            .expect("a host in the demo fabric");
        let hname = first
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        host_nics = plan_ports(&links, &hname);
        host = Some(first);
    }
    (
        spines,
        leaves,
        host.expect("a host in the demo fabric"),
        host_nics,
    )
}

fn generate(root: &Path, n_spines: usize, n_leaves: usize, n_hosts: usize) -> (usize, u64) {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo-fabric");
    let (spines, leaves, host_dir, host_nics) = templates(&demo);
    std::fs::create_dir_all(root.join("configs")).expect("mkdir");
    let mut fabric = String::from("[policy]\nmtu = 9000\n\n");
    let mut bytes = 0u64;
    let mut leaf_ports: Vec<(String, Vec<String>, Vec<String>)> = Vec::new(); // name, host ports, uplinks
    for i in 0..n_spines {
        let t = &spines[i % spines.len()];
        let name = format!("spine{i:03}");
        let text = t.text.replace("spine1", &name).replace("spine2", &name);
        bytes += text.len() as u64;
        std::fs::write(root.join("configs").join(format!("{name}.cfg")), text).expect("write");
        fabric.push_str(&format!(
            "[[device]]\nname = \"{name}\"\nplatform = \"{}\"\nrole = \"{}\"\n",
            t.platform, t.role
        ));
    }
    for i in 0..n_leaves {
        let t = &leaves[i % leaves.len()];
        let name = format!("leaf{i:04}");
        let mut text = t.text.clone();
        for k in 1..=4 {
            text = text.replace(&format!("leaf{k}"), &name);
        }
        bytes += text.len() as u64;
        std::fs::write(root.join("configs").join(format!("{name}.cfg")), text).expect("write");
        fabric.push_str(&format!(
            "[[device]]\nname = \"{name}\"\nplatform = \"{}\"\nrole = \"{}\"\n",
            t.platform, t.role
        ));
        let (up, down): (Vec<String>, Vec<String>) = t.ports.iter().cloned().partition(|p| {
            p.ends_with("/49")
                || p.ends_with("/50")
                || p.ends_with("49/1")
                || p.ends_with("50/1")
                || p == "Ethernet49"
                || p == "Ethernet50"
        });
        leaf_ports.push((name, down, up));
    }
    let mut next_port = vec![0usize; n_leaves];
    let mut links = String::new();
    for h in 0..n_hosts {
        let name = format!("gpu{h:05}");
        let dir = root.join("devices").join(&name);
        copy_dir(&host_dir, &dir);
        bytes += std::fs::read_dir(&dir)
            .expect("dir")
            .flatten()
            .map(|e| e.metadata().map(|m| m.len()).unwrap_or(0))
            .sum::<u64>();
        for (k, nic) in host_nics.iter().enumerate() {
            let li = (h * host_nics.len() + k) % n_leaves;
            let (lname, ports, _) = &leaf_ports[li];
            if let Some(p) = ports.get(next_port[li]) {
                links.push_str(&format!(
                    "[[link]]\na = \"{name}:{nic}\"\nb = \"{lname}:{p}\"\ncable_m = 3\n"
                ));
                next_port[li] += 1;
            }
        }
    }
    for (li, (lname, _, ups)) in leaf_ports.iter().enumerate() {
        for (k, p) in ups.iter().enumerate() {
            let s = (li * 2 + k) % n_spines;
            let sp = &spines[s % spines.len()];
            if let Some(sport) = sp.ports.get(li % sp.ports.len().max(1)) {
                let _ = sport;
                links.push_str(&format!(
                    "[[link]]\na = \"{lname}:{p}\"\nb = \"spine{s:03}:{sport}\"\ncable_m = 30\n"
                ));
            }
        }
    }
    fabric.push_str(&links);
    std::fs::write(root.join("fabric.toml"), fabric).expect("write fabric.toml");
    (n_spines + n_leaves + n_hosts, bytes)
}

pub fn run(scale: f64) {
    // Measure in a child process so the peak memory is the audit's alone.
    if std::env::var_os("FA_BENCH_CHILD").is_none() {
        let exe = std::env::current_exe().expect("exe");
        let status = std::process::Command::new(exe)
            .env("FA_BENCH_CHILD", "1")
            .env("FA_BENCH_SCALE", scale.to_string())
            .status()
            .expect("child");
        assert!(status.success(), "fabric bench failed");
        return;
    }
    let root = std::env::temp_dir().join(format!("fa-bench-fabric-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let n = |x: f64| ((x * scale).round() as usize).max(2);
    let t = Instant::now();
    let (devices, bytes) = generate(&root, n(80.0), n(960.0), n(8960.0));
    let gen_s = t.elapsed().as_secs_f64();
    let t0 = Instant::now();
    let parsers = fabric_audit::load_parsers(None).expect("parsers");
    let rules = fabric_audit::audit::load_rules(None).expect("rules");
    let snap = fabric_audit::snapshot::Snapshot::read(&root).expect("snapshot");
    let (policy, notices) = fabric_audit::audit::resolve_policy(&rules, &snap);
    let fabric = fabric_audit::fabric::assemble(&parsers, &snap, policy, notices);
    drop(snap);
    let parse_s = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let findings = fabric_audit::rules::eval::evaluate(&rules, &fabric);
    let check_s = t1.elapsed().as_secs_f64();
    let total = t0.elapsed().as_secs_f64();
    let ifaces: usize = fabric.devices.iter().map(|d| d.interfaces.len()).sum();
    println!(
        "(b) synthetic fabric: {devices} devices ({:.0} MB of input, {ifaces} interfaces, {} links, {} findings; generated in {gen_s:.1} s)",
        bytes as f64 / 1e6,
        fabric.links.len(),
        findings.len()
    );
    println!(
        "    read+parse {parse_s:.2} s, check {check_s:.2} s, total {total:.2} s, peak memory {:.0} MiB",
        peak_rss_mib()
    );
    let _ = std::fs::remove_dir_all(&root);
}
