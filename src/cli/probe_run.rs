//! `fabric-audit probe` and `audit --probe`: from an inventory (and a snapshot, when there is
//! one) to probe results and PROBE findings.

use super::CollectArgs;
use crate::audit::{self, Audit};
use crate::model::Fabric;
use crate::probe::plan::{self, HostPort, Pairs};
use crate::probe::run::{self, HostSettings, Options, ProbeHost, Tool};
use anyhow::{Result, bail};
use std::path::Path;

/// Options of a probe run. (Its argument group has its own id: `probe` flattens it into a
/// struct of the same name, and two groups of one name make clap panic in debug builds.)
#[derive(clap::Args, Debug, Clone)]
#[group(id = "probe_run_options")]
pub struct ProbeArgs {
    /// Host pairs: default (each host once within its leaf, plus one pair per two leaves),
    /// all, cross-leaf, or a file with one "a b" pair per line.
    #[arg(long, default_value = "default")]
    pub pairs: String,
    /// Tools to run, comma-separated.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "path-mtu,ib-write-lat,ib-write-bw,qperf"
    )]
    pub tools: Vec<Tool>,
    /// qperf tests, comma-separated (tcp_lat and tcp_bw are the transport baseline;
    /// rc_rdma_write_lat, rc_bw need an RDMA device).
    #[arg(long, value_delimiter = ',', default_value = "tcp_lat")]
    pub qperf_tests: Vec<String>,
    /// Pairs probed at once (probes disturb each other and production: keep it small).
    #[arg(long, default_value_t = 1)]
    pub parallel: usize,
    /// Message size of latency tests, bytes.
    #[arg(long, default_value_t = 2)]
    pub lat_size: u64,
    /// Message size of bandwidth and incast tests, bytes.
    #[arg(long, default_value_t = 65536)]
    pub bw_size: u64,
    /// Iterations of latency tests.
    #[arg(long, default_value_t = 1000)]
    pub iterations: u64,
    /// Seconds of a bandwidth, qperf or incast test.
    #[arg(long, default_value_t = 2)]
    pub duration: u64,
    /// Hard limit of one tool run on a host, seconds (the host's `timeout` ends it).
    #[arg(long, default_value_t = 30)]
    pub probe_timeout: u64,
    /// First TCP port for the tools' servers; each probe takes the next one.
    #[arg(long, default_value_t = 18600)]
    pub port_base: u16,
    /// Senders of the incast test.
    #[arg(long, default_value_t = 3)]
    pub incast_senders: usize,
}

pub struct ProbeRun {
    /// Model of the snapshot (empty without one), the PROBE findings, and the probes.
    pub audit: Audit,
    pub interrupted: bool,
}

fn policy_u32(policy: &serde_json::Map<String, serde_json::Value>, k: &str) -> Option<u32> {
    policy.get(k)?.as_u64().and_then(|v| u32::try_from(v).ok())
}

/// The probe interface of a host: the inventory's first interface, else the first RDMA netdev
/// the snapshot knows for it.
fn probe_iface(t: &crate::collect::inventory::Target, fabric: Option<&Fabric>) -> Option<String> {
    if let Some(i) = t.interfaces.first() {
        return Some(i.clone());
    }
    let d = fabric?.devices.iter().find(|d| d.name == t.name)?;
    d.interfaces
        .iter()
        .find(|i| i.rdma.is_some() && i.roce)
        .or_else(|| d.interfaces.iter().find(|i| i.rdma.is_some()))
        .map(|i| i.name.clone())
}

pub fn run(
    inventory: &Path,
    snapshot: Option<&Path>,
    args: &ProbeArgs,
    collect: &CollectArgs,
    rules_dir: Option<&Path>,
    parsers_dir: Option<&Path>,
) -> Result<ProbeRun> {
    let inv = super::load_inventory(inventory, collect, parsers_dir)?;
    let (fabric, config, rules) = match snapshot {
        Some(s) => {
            let (a, rules) = audit::run_keeping_rules(
                s,
                &audit::Options {
                    rules_dir: rules_dir.map(Path::to_path_buf),
                    parsers_dir: parsers_dir.map(Path::to_path_buf),
                    waivers: None,
                },
            )?;
            // Probe findings of an earlier run in the snapshot are not config findings.
            let cfg = a
                .findings
                .into_iter()
                .filter(|f| !f.rule().starts_with("PROBE"))
                .collect::<Vec<_>>();
            (a.fabric, cfg, rules)
        }
        None => {
            let rules = audit::load_rules(rules_dir)?;
            let mut policy = rules.policy_defaults.clone();
            for (k, v) in crate::rules::table_to_json(&inv.policy) {
                policy.insert(k, v);
            }
            (
                Fabric {
                    devices: vec![],
                    links: vec![],
                    policy,
                    notices: vec![],
                },
                vec![],
                rules,
            )
        }
    };
    let fab = snapshot.map(|_| &fabric);
    let mut hosts = Vec::new();
    for t in inv.targets.iter().filter(|t| t.platform == "linux") {
        let Some(iface) = probe_iface(t, fab) else {
            bail!(
                "{}: host {} has no probe interface: list it in the inventory (interfaces = [\"eth2\"]) or give a --snapshot in which it has an RDMA netdev",
                inventory.display(),
                t.name
            );
        };
        if !crate::parser::allow::safe_word(&iface) {
            bail!(
                "{}: host {}: interface name {iface:?} is not usable in a command",
                inventory.display(),
                t.name
            );
        }
        let leaf = plan::leaf_of(fab, &t.name, &iface);
        hosts.push(ProbeHost {
            port: HostPort {
                host: t.name.clone(),
                iface,
                leaf,
            },
            settings: HostSettings {
                tool_dir: t.tool_dir.clone(),
                address: t.probe_address.clone(),
                rdma_device: t.rdma_device.clone(),
                gid_index: t.gid_index,
            },
            target: t.clone(),
        });
    }
    if hosts.len() < 2 {
        bail!(
            "{}: probes need at least two linux hosts; found {}",
            inventory.display(),
            hosts.len()
        );
    }
    let how: Pairs = args.pairs.parse().map_err(|e: String| anyhow::anyhow!(e))?;
    let ports: Vec<HostPort> = hosts.iter().map(|h| h.port.clone()).collect();
    let pairs = plan::pairs(&ports, &how)?;
    let policy = &fabric.policy;
    let lossless: Vec<u8> = policy
        .get("lossless_priorities")
        .and_then(|v| v.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_u64())
                .map(|x| x as u8)
                .collect()
        })
        .unwrap_or_else(|| vec![3]);
    let opts = Options {
        tools: args.tools.clone(),
        qperf_tests: args
            .qperf_tests
            .iter()
            .filter(|t| crate::parser::allow::safe_word(t))
            .cloned()
            .collect(),
        parallel: args.parallel,
        lat_size: args.lat_size,
        bw_size: args.bw_size,
        iterations: args.iterations.max(5),
        duration_s: args.duration.max(1),
        timeout_s: args.probe_timeout.max(5),
        port_base: args.port_base,
        mtu: policy_u32(policy, "mtu").unwrap_or(9000),
        lossless,
        roce_dscp: policy_u32(policy, "roce_dscp").unwrap_or(26),
        incast_senders: args.incast_senders,
        trust_new_host_keys: collect.trust_new_host_keys,
        quiet: collect.quiet,
    };
    // Switches of the inventory on some probe's path: their counters are read around probes.
    let on_path: std::collections::BTreeSet<String> = pairs
        .iter()
        .flat_map(|p| p.path(false))
        .map(|e| e.device)
        .collect();
    let sw_targets: Vec<_> = inv
        .targets
        .iter()
        .filter(|t| t.platform != "linux" && on_path.contains(&t.name))
        .cloned()
        .collect();
    let switches = if sw_targets.is_empty() {
        None
    } else {
        Some(run::Switches {
            targets: sw_targets,
            parsers: crate::parser::load_parsers(parsers_dir)?,
        })
    };
    let outcome = run::run(&hosts, &pairs, &opts, switches.as_ref());
    let outcome = outcome?;
    let (findings, passes) = audit::probe_findings(&rules, &outcome.probes, policy, &config);
    let mut findings = findings;
    crate::finding::sort(&mut findings);
    Ok(ProbeRun {
        audit: Audit {
            fabric,
            findings,
            rules: rules.rules.len(),
            passes,
            probes: outcome.probes,
            waived: Vec::new(),
            catalog: audit::catalog(&rules),
        },
        interrupted: outcome.interrupted,
    })
}
