//! One probe run: connect to every probe host, learn each one's data address, RDMA device,
//! RoCE v2 GID and port speed, then for every pair run the chosen tools (server first, client
//! second, unique ports, hard time limits), reading counters before and after.

use super::counters::{self, Counters};
use super::output;
use super::plan::{HostPort, Pair};
use super::remote::Host;
use super::{PathMtu, Probe};
use crate::collect::inventory::Target;
use crate::collect::known_hosts::KnownHosts;
use crate::collect::run::Runner;
use crate::collect::ssh::{self, Session};
use crate::parser::allow::safe_word;
use anyhow::{Context, Result};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU16, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::watch;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Tool {
    /// `ping -M do` at the fabric MTU both ways, and a small ping beside it.
    PathMtu,
    IbWriteLat,
    IbWriteBw,
    IbReadLat,
    IbSendLat,
    IbSendBw,
    /// qperf: the tests of `--qperf-tests` (default tcp_lat, the transport baseline).
    Qperf,
    /// N senders `ib_write_bw` into one receiver at once, to make congestion on purpose.
    Incast,
}

impl Tool {
    pub fn name(self) -> &'static str {
        match self {
            Tool::PathMtu => "ping",
            Tool::IbWriteLat => "ib_write_lat",
            Tool::IbWriteBw => "ib_write_bw",
            Tool::IbReadLat => "ib_read_lat",
            Tool::IbSendLat => "ib_send_lat",
            Tool::IbSendBw => "ib_send_bw",
            Tool::Qperf => "qperf",
            Tool::Incast => "ib_write_bw",
        }
    }
    fn is_lat(self) -> bool {
        matches!(self, Tool::IbWriteLat | Tool::IbReadLat | Tool::IbSendLat)
    }
}

#[derive(Debug, Clone)]
pub struct Options {
    pub tools: Vec<Tool>,
    pub qperf_tests: Vec<String>,
    /// Pairs probed at once.
    pub parallel: usize,
    pub lat_size: u64,
    pub bw_size: u64,
    pub iterations: u64,
    /// Seconds of a bandwidth/qperf/incast test.
    pub duration_s: u64,
    /// Hard limit of one tool run, seconds.
    pub timeout_s: u64,
    pub port_base: u16,
    /// IP MTU the path must carry.
    pub mtu: u32,
    pub lossless: Vec<u8>,
    pub roce_dscp: u32,
    pub incast_senders: usize,
    pub trust_new_host_keys: bool,
    pub quiet: bool,
}

/// Probe settings of one host from the inventory.
#[derive(Debug, Clone, Default)]
pub struct HostSettings {
    pub tool_dir: Option<String>,
    pub address: Option<String>,
    pub rdma_device: Option<String>,
    pub gid_index: Option<u32>,
}

/// Switches of the inventory whose counters are read before and after every probe (by the
/// collector's command runner, in memory: logins are kept from one read to the next).
pub struct Switches {
    pub targets: Vec<Target>,
    pub parsers: Arc<crate::parser::Parsers>,
}

pub struct ProbeHost {
    pub target: Target,
    pub port: HostPort,
    pub settings: HostSettings,
}

pub struct Outcome {
    pub probes: Vec<Probe>,
    pub interrupted: bool,
    /// Hosts that could not be reached, and why.
    pub unreachable: Vec<(String, String)>,
}

/// What a host told us before any probe.
#[derive(Debug, Clone, Default)]
struct Prep {
    addr: Option<String>,
    rdma: Option<(String, u32)>,
    gid: Option<u32>,
    gid_source: Option<String>,
    /// Why there is no GID, when there is none.
    gid_note: Option<String>,
    speed_gbps: Option<f64>,
}

fn log(quiet: bool, msg: &str) {
    if !quiet {
        eprintln!("fabric-audit: {msg}");
    }
}

/// RoCE v2 GIDs of `iface` from `grep -H .` over the GID table: (dev, port, index, gid).
fn roce_v2_gids(text: &str, iface: &str) -> Vec<(String, u32, u32, String)> {
    // /sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/3:eth2
    let mut ndev: BTreeMap<(String, u32, u32), String> = BTreeMap::new();
    let mut kind: BTreeMap<(String, u32, u32), String> = BTreeMap::new();
    let mut gid: BTreeMap<(String, u32, u32), String> = BTreeMap::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("/sys/class/infiniband/") else {
            continue;
        };
        let Some((path, val)) = rest.split_once(':') else {
            continue;
        };
        let parts: Vec<&str> = path.split('/').collect();
        let key = |p: &[&str]| -> Option<(String, u32, u32)> {
            Some((
                p[0].to_string(),
                p[2].parse().ok()?,
                p.last()?.parse().ok()?,
            ))
        };
        match parts.as_slice() {
            [_, "ports", _, "gid_attrs", "ndevs", _] => {
                if let Some(k) = key(&parts) {
                    ndev.insert(k, val.trim().to_string());
                }
            }
            [_, "ports", _, "gid_attrs", "types", _] => {
                if let Some(k) = key(&parts) {
                    kind.insert(k, val.trim().to_string());
                }
            }
            [_, "ports", _, "gids", _] => {
                if let Some(k) = key(&parts) {
                    gid.insert(k, val.trim().to_string());
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (k, n) in &ndev {
        if n != iface {
            continue;
        }
        if !kind
            .get(k)
            .is_some_and(|t| t.eq_ignore_ascii_case("RoCE v2"))
        {
            continue;
        }
        let g = gid.get(k).cloned().unwrap_or_default();
        out.push((k.0.clone(), k.1, k.2, g));
    }
    out
}

/// The IPv4 address an IPv4-mapped GID carries (`0000:...:ffff:0a4d:0001` → 10.77.0.1).
fn gid_ipv4(g: &str) -> Option<String> {
    let h: Vec<&str> = g.split(':').collect();
    if h.len() != 8 || !h[..5].iter().all(|x| *x == "0000") || h[5] != "ffff" {
        return None;
    }
    let a = u16::from_str_radix(h[6], 16).ok()?;
    let b = u16::from_str_radix(h[7], 16).ok()?;
    Some(format!("{}.{}.{}.{}", a >> 8, a & 0xff, b >> 8, b & 0xff))
}

async fn prep(h: &Host<'_>, hp: &HostPort, s: &HostSettings) -> Prep {
    let mut p = Prep::default();
    let iface = &hp.iface;
    let t = Duration::from_secs(10);
    p.addr = match &s.address {
        Some(a) => Some(a.clone()),
        None => {
            let o = h.run(&format!("ip -j -4 addr show dev {iface}"), t).await;
            serde_json::from_slice::<serde_json::Value>(&o.stdout)
                .ok()
                .and_then(|v| {
                    v.get(0)?
                        .get("addr_info")?
                        .as_array()?
                        .iter()
                        .find_map(|a| a.get("local")?.as_str().map(str::to_string))
                })
                .filter(|a| safe_word(a))
        }
    };
    let o = h.run(&format!("cat /sys/class/net/{iface}/speed"), t).await;
    p.speed_gbps = String::from_utf8_lossy(&o.stdout)
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|v| *v > 0.0)
        .map(|mb| mb / 1000.0);
    let o = h
        .run(
            "sh -c 'grep -H . /sys/class/infiniband/*/ports/*/gid_attrs/ndevs/* /sys/class/infiniband/*/ports/*/gid_attrs/types/* /sys/class/infiniband/*/ports/*/gids/* 2>/dev/null; true'",
            t,
        )
        .await;
    let table = String::from_utf8_lossy(&o.stdout);
    // Device names come from the host: only plain names go into a command line.
    let gids: Vec<_> = roce_v2_gids(&table, iface)
        .into_iter()
        .filter(|(dev, _, _, _)| safe_word(dev))
        .collect();
    if let Some(d) = &s.rdma_device {
        p.rdma = Some((d.clone(), 1));
    }
    if let Some(g) = s.gid_index {
        p.gid = Some(g);
        p.gid_source = Some("inventory".into());
    } else if let Some((dev, port, idx, _)) = gids
        .iter()
        .find(|(_, _, _, g)| gid_ipv4(g).is_some() && gid_ipv4(g) == p.addr)
        .or_else(|| gids.iter().find(|(_, _, _, g)| gid_ipv4(g).is_some()))
        .or(gids.first())
    {
        p.rdma = Some((dev.clone(), *port));
        p.gid = Some(*idx);
        p.gid_source = Some("gid-table".into());
    } else if table.trim().is_empty() {
        p.gid_note = Some(format!(
            "{} has no RDMA device (/sys/class/infiniband is empty)",
            h.name
        ));
    } else {
        p.gid_note = Some(format!(
            "no RoCE v2 GID is bound to {iface} in {}'s GID table",
            h.name
        ));
    }
    p
}

async fn read_counters(h: &Host<'_>, iface: &str, p: &Prep) -> Counters {
    let mut cmd = format!("ethtool -S {iface} 2>/dev/null");
    if let Some((dev, port)) = &p.rdma {
        cmd.push_str(&format!(
            "; grep -H . /sys/class/infiniband/{dev}/ports/{port}/hw_counters/* 2>/dev/null"
        ));
    }
    let o = h
        .run_always(&format!("sh -c '{cmd}; true'"), Duration::from_secs(10))
        .await;
    counters::parse(&String::from_utf8_lossy(&o.stdout))
}

struct Ctx<'a> {
    hosts: BTreeMap<String, (Host<'a>, Prep, &'a ProbeHost)>,
    opts: &'a Options,
    port: AtomicU16,
    switches: Option<(&'a Switches, Runner)>,
}

type PortMap = BTreeMap<(String, String), crate::model::PortCounters>;

/// Switch counters as named counters (host-counter style names, so `summarize` reads both).
fn switch_delta(b: &crate::model::PortCounters, a: &crate::model::PortCounters) -> Counters {
    let mut out = Counters::new();
    let mut put = |k: String, bv: Option<u64>, av: Option<u64>| {
        if let (Some(b), Some(a)) = (bv, av)
            && a >= b
        {
            out.insert(k, (a - b) as i64);
        }
    };
    for (p, v) in &a.pfc_rx {
        put(
            format!("rx_prio{p}_pause"),
            b.pfc_rx.get(p).copied(),
            Some(*v),
        );
    }
    for (p, v) in &a.pfc_tx {
        put(
            format!("tx_prio{p}_pause"),
            b.pfc_tx.get(p).copied(),
            Some(*v),
        );
    }
    put(
        "pfc_rx_all_priorities".into(),
        b.pfc_rx_total,
        a.pfc_rx_total,
    );
    put(
        "pfc_tx_all_priorities".into(),
        b.pfc_tx_total,
        a.pfc_tx_total,
    );
    put("ecn_marked_packets".into(), b.ecn_marked, a.ecn_marked);
    put("queue_drops".into(), b.drops, a.drops);
    out
}

/// The port counters a switch's outputs give, by (device, port): its outputs built into the
/// device model by the platform's readers, as the audit builds a collected device.
fn port_counters(
    parsers: &crate::parser::Parsers,
    t: &Target,
    r: &crate::collect::run::DeviceOutputs,
) -> Vec<((String, String), crate::model::PortCounters)> {
    let input = crate::snapshot::DeviceInput {
        name: t.name.clone(),
        platform: Some(t.platform.clone()),
        platform_reason: "inventory".into(),
        role: t.role.clone(),
        files: r
            .texts()
            .map(|(cmd, text)| crate::snapshot::InputFile {
                rel: format!(
                    "devices/{}/{}",
                    t.name,
                    crate::snapshot::command_file_name(cmd)
                ),
                command: Some(cmd.to_string()),
                text: Ok(text),
            })
            .collect(),
        error: None,
    };
    let (d, _) = crate::device::build_device(parsers, &input);
    d.interfaces
        .into_iter()
        .filter_map(|i| {
            let counters = i.counters.as_deref()?.clone();
            Some(((d.name.clone(), i.name), counters))
        })
        .collect()
}

fn first_lines(text: &str, n: usize) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(n)
        .collect::<Vec<_>>()
        .join(" / ")
}

impl Ctx<'_> {
    fn next_port(&self) -> u16 {
        self.port.fetch_add(1, Ordering::Relaxed)
    }

    fn base(&self, pair: &Pair, reverse: bool, tool: &str, kind: &str, transport: &str) -> Probe {
        let (a, b) = if reverse {
            (&pair.b, &pair.a)
        } else {
            (&pair.a, &pair.b)
        };
        let addr = |n: &str| self.hosts.get(n).and_then(|h| h.1.addr.clone());
        Probe {
            src: a.host.clone(),
            src_if: a.iface.clone(),
            dst: b.host.clone(),
            dst_if: b.iface.clone(),
            src_addr: addr(&a.host),
            dst_addr: addr(&b.host),
            path_class: pair.class.clone(),
            path: pair.path(reverse),
            tool: tool.into(),
            test: tool.into(),
            kind: kind.into(),
            transport: transport.into(),
            status: "failed".into(),
            line_rate_gbps: self.hosts.get(&a.host).and_then(|h| h.1.speed_gbps),
            ..Default::default()
        }
    }

    async fn counters_of(&self, names: &[(&str, &str)]) -> BTreeMap<String, Counters> {
        let mut out = BTreeMap::new();
        for (host, iface) in names {
            if let Some((h, p, _)) = self.hosts.get(*host) {
                out.insert(format!("{host}:{iface}"), read_counters(h, iface, p).await);
            }
        }
        out
    }

    /// Counters of the switch ports on `path`: the switches' `counters` commands run by the
    /// command runner (the collector's sessions, paging, allow-list and redaction; a switch
    /// logged in by the previous read is not logged in again), parsed by the platform's
    /// readers into the model's port counters.
    async fn switch_counters(&self, path: &[crate::model::Endpoint]) -> PortMap {
        let Some((sw, runner)) = &self.switches else {
            return PortMap::new();
        };
        // Per-interface counter commands (Cumulus) run for the switch's ports on the path.
        let targets: Vec<Target> = sw
            .targets
            .iter()
            .filter(|t| path.iter().any(|e| e.device == t.name))
            .map(|t| {
                let mut t = t.clone();
                t.settings_mut().interfaces = path
                    .iter()
                    .filter(|e| e.device == t.name)
                    .map(|e| e.interface.clone())
                    .collect();
                t
            })
            .collect();
        if targets.is_empty() {
            return PortMap::new();
        }
        let mut m = PortMap::new();
        for (t, r) in targets.iter().zip(runner.run(&targets, true).await) {
            if r.outcome.status != "collected" {
                log(
                    self.opts.quiet,
                    &format!(
                        "switch counters of {} not read: {}",
                        t.name,
                        r.outcome.error.as_deref().unwrap_or("no output")
                    ),
                );
                continue;
            }
            for ((d, i), c) in port_counters(&sw.parsers, t, &r) {
                if path.iter().any(|e| e.device == d && e.interface == i) {
                    m.insert((d, i), c);
                }
            }
        }
        m
    }

    /// Host and switch counters of a probe's path.
    async fn path_counters(
        &self,
        names: &[(&str, &str)],
        path: &[crate::model::Endpoint],
    ) -> (BTreeMap<String, Counters>, PortMap) {
        (
            self.counters_of(names).await,
            self.switch_counters(path).await,
        )
    }

    fn finish_counters(
        &self,
        p: &mut Probe,
        before: &(BTreeMap<String, Counters>, PortMap),
        after: &(BTreeMap<String, Counters>, PortMap),
    ) {
        let mut deltas = BTreeMap::new();
        for (k, b) in &before.0 {
            if let Some(a) = after.0.get(k) {
                deltas.insert(k.clone(), counters::delta(b, a));
            }
        }
        for (k, b) in &before.1 {
            if let Some(a) = after.1.get(k) {
                deltas.insert(format!("{}:{}", k.0, k.1), switch_delta(b, a));
            }
        }
        p.deltas = counters::summarize(&deltas, &self.opts.lossless);
        p.counters = deltas
            .iter()
            .map(|(k, v)| (k.clone(), counters::moved(v)))
            .collect();
    }

    async fn path_mtu(&self, pair: &Pair, reverse: bool) -> Probe {
        let mut p = self.base(pair, reverse, "ping", "path-mtu", "icmp");
        p.test = "path-mtu".into();
        let start = Instant::now();
        let Some((h, _, _)) = self.hosts.get(&p.src) else {
            return p;
        };
        let Some(dst) = p.dst_addr.clone() else {
            p.message = Some(format!("no IPv4 address on {} {}", p.dst, p.dst_if));
            return p;
        };
        let payload = self.opts.mtu.saturating_sub(28);
        let big = format!("ping -M do -s {payload} -c 3 -i 0.2 -W 1 {dst}");
        let small = format!("ping -c 1 -W 1 {dst}");
        p.command = big.clone();
        p.size = Some(u64::from(self.opts.mtu));
        let ob = h.run(&big, Duration::from_secs(8)).await;
        if *h.cancel.borrow() {
            p.status = "interrupted".into();
            return p;
        }
        let os = h.run(&small, Duration::from_secs(5)).await;
        let text = |o: &ssh::Output| {
            format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            )
        };
        let b = output::ping(&text(&ob));
        let s = output::ping(&text(&os));
        let sent = b.transmitted.unwrap_or(0);
        let got = b.received.unwrap_or(0);
        let small_got = s.received.unwrap_or(0);
        let verdict = if sent > 0 && got == sent {
            "ok"
        } else if b.frag_needed_mtu.is_some() {
            "frag-needed"
        } else if b.local_mtu.is_some() {
            "local-mtu"
        } else if small_got > 0 {
            "silent-loss"
        } else {
            "unreachable"
        };
        p.mtu = Some(PathMtu {
            mtu: self.opts.mtu,
            verdict: verdict.into(),
            reported_mtu: b.frag_needed_mtu.or(b.local_mtu),
            big_received: got,
            big_sent: sent,
            small_received: small_got,
        });
        p.status = if verdict == "unreachable" {
            "failed".into()
        } else {
            "ok".into()
        };
        if verdict == "unreachable" {
            let mut msg: Vec<String> = b.errors.clone();
            msg.extend(s.errors.clone());
            p.message = Some(if msg.is_empty() {
                format!(
                    "{} does not answer ping from {} (neither {}-byte nor small)",
                    dst, p.src, self.opts.mtu
                )
            } else {
                msg.join(" / ")
            });
        }
        p.duration_s = start.elapsed().as_secs_f64();
        p
    }

    fn perftest_cmd(&self, tool: Tool, prep: &Prep, port: u16, peer: Option<&str>) -> String {
        let mut c = vec![tool.name().to_string()];
        if let Some((dev, ibport)) = &prep.rdma {
            c.push(format!("-d {dev} -i {ibport}"));
        }
        if let Some(g) = prep.gid {
            c.push(format!("-x {g}"));
        }
        c.push(format!("--tclass={}", self.opts.roce_dscp << 2));
        c.push(format!("-p {port}"));
        if tool.is_lat() {
            c.push(format!(
                "-s {} -n {}",
                self.opts.lat_size, self.opts.iterations
            ));
        } else {
            c.push(format!(
                "-s {} -D {} --report_gbits",
                self.opts.bw_size, self.opts.duration_s
            ));
        }
        c.push("-F".into());
        if let Some(a) = peer {
            c.push(a.to_string());
        }
        c.join(" ")
    }

    async fn perftest(&self, tool: Tool, pair: &Pair) -> Probe {
        let kind = if tool.is_lat() {
            "latency"
        } else {
            "bandwidth"
        };
        let mut p = self.base(pair, false, tool.name(), kind, "rdma");
        p.tclass = Some(self.opts.roce_dscp << 2);
        let start = Instant::now();
        let (Some((ha, pa, _)), Some((hb, pb, _))) =
            (self.hosts.get(&p.src), self.hosts.get(&p.dst))
        else {
            return p;
        };
        p.rdma_device = pa.rdma.as_ref().map(|r| r.0.clone());
        p.gid_index = pa.gid;
        p.gid_source = pa.gid_source.clone();
        p.size = Some(if tool.is_lat() {
            self.opts.lat_size
        } else {
            self.opts.bw_size
        });
        if pa.rdma.is_some() && pa.gid.is_none() || pb.rdma.is_some() && pb.gid.is_none() {
            p.status = "invalid".into();
            p.message = Some(format!(
                "not run: {}; a probe without a RoCE v2 GID does not ride the production class",
                pa.gid_note
                    .clone()
                    .or(pb.gid_note.clone())
                    .unwrap_or_default()
            ));
            return p;
        }
        let Some(dst) = p.dst_addr.clone() else {
            p.message = Some(format!("no IPv4 address on {} {}", p.dst, p.dst_if));
            return p;
        };
        let port = self.next_port();
        let server_cmd = self.perftest_cmd(tool, pb, port, None);
        let client_cmd = self.perftest_cmd(tool, pa, port, Some(&dst));
        p.command = client_cmd.clone();
        p.server_command = Some(server_cmd.clone());
        let names = [
            (p.src.as_str(), p.src_if.as_str()),
            (p.dst.as_str(), p.dst_if.as_str()),
        ];
        let before = self.path_counters(&names, &p.path).await;
        let (client, server_text) =
            match serve(ha, hb, &server_cmd, &client_cmd, port, self.opts.timeout_s).await {
                Ok(r) => r,
                Err(e) => {
                    p.message = Some(e);
                    return p;
                }
            };
        let after = self.path_counters(&names, &p.path).await;
        self.finish_counters(&mut p, &before, &after);
        p.duration_s = start.elapsed().as_secs_f64();
        let kind_s = if tool.is_lat() { "lat" } else { "bw" };
        let sv = output::perftest(&server_text, kind_s);
        let Some(c) = client else {
            p.message = Some(format!(
                "the server on {} ended before the client started: {}",
                p.dst,
                if sv.errors.is_empty() {
                    first_lines(&server_text, 3)
                } else {
                    sv.errors.join(" / ")
                }
            ));
            return p;
        };
        if c.status == "timeout" || c.status == "interrupted" {
            p.status = c.status.into();
            p.message = Some(format!(
                "{} after {:.0} s; the processes on {} and {} were ended",
                if c.status == "timeout" {
                    "no result within the time limit"
                } else {
                    "interrupted"
                },
                p.duration_s,
                p.src,
                p.dst
            ));
            return p;
        }
        let cl = output::perftest(&c.text, kind_s);
        match cl.row(p.size) {
            Some(r) => {
                p.status = "ok".into();
                p.iterations = Some(r.iterations).filter(|i| *i > 0);
                p.latency = r.latency.clone();
                p.bw_gbps = r.bw_gbps;
                p.size = Some(r.bytes).filter(|b| *b > 0).or(p.size);
                if p.gid_index.is_none() {
                    p.gid_index = cl.gid_index;
                }
            }
            None => {
                let mut msg = cl.errors.clone();
                if msg.is_empty() {
                    msg.push(first_lines(&c.text, 3));
                }
                if !sv.errors.is_empty() {
                    msg.push(format!("server on {}: {}", p.dst, sv.errors.join(" / ")));
                }
                if let Some(e) = c.error {
                    msg.push(e);
                }
                p.message = Some(msg.join(" / "));
            }
        }
        p
    }

    async fn qperf(&self, pair: &Pair) -> Vec<Probe> {
        let start = Instant::now();
        let tests = &self.opts.qperf_tests;
        let proto = |t: &str| -> (&'static str, &'static str) {
            let transport = if t.starts_with("tcp") || t.starts_with("udp") || t.starts_with("sctp")
            {
                "tcp"
            } else {
                "rdma"
            };
            let kind = if t.ends_with("_bw") {
                "bandwidth"
            } else {
                "latency"
            };
            (kind, transport)
        };
        let mk = |t: &str| {
            let (kind, transport) = proto(t);
            let mut p = self.base(pair, false, "qperf", kind, transport);
            p.test = t.to_string();
            p
        };
        let mut probes: Vec<Probe> = tests.iter().map(|t| mk(t)).collect();
        let (Some((ha, _, _)), Some((hb, _, _))) =
            (self.hosts.get(&pair.a.host), self.hosts.get(&pair.b.host))
        else {
            return probes;
        };
        let Some(dst) = probes.first().and_then(|p| p.dst_addr.clone()) else {
            for p in &mut probes {
                p.message = Some(format!("no IPv4 address on {} {}", p.dst, p.dst_if));
            }
            return probes;
        };
        let port = self.next_port();
        let server_cmd = format!("qperf -lp {port}");
        let client_cmd = format!(
            "qperf -lp {port} -t {} {dst} {}",
            self.opts.duration_s,
            tests.join(" ")
        );
        let names = [
            (pair.a.host.as_str(), pair.a.iface.as_str()),
            (pair.b.host.as_str(), pair.b.iface.as_str()),
        ];
        let before = self.path_counters(&names, &pair.path(false)).await;
        let (client, server_text) =
            match serve(ha, hb, &server_cmd, &client_cmd, port, self.opts.timeout_s).await {
                Ok(r) => r,
                Err(e) => {
                    for p in &mut probes {
                        p.message = Some(e.clone());
                    }
                    return probes;
                }
            };
        let after = self.path_counters(&names, &pair.path(false)).await;
        let q = client.as_ref().map(|c| output::qperf(&c.text));
        for p in &mut probes {
            p.command = client_cmd.clone();
            p.server_command = Some(server_cmd.clone());
            p.duration_s = start.elapsed().as_secs_f64();
            self.finish_counters(p, &before, &after);
            let Some(c) = &client else {
                p.message = Some(format!(
                    "the qperf server on {} ended before the client started: {}",
                    p.dst,
                    first_lines(&server_text, 3)
                ));
                continue;
            };
            if c.status == "timeout" || c.status == "interrupted" {
                p.status = c.status.into();
                p.message = Some(format!(
                    "{}; the processes on {} and {} were ended",
                    c.status, p.src, p.dst
                ));
                continue;
            }
            let r = q
                .as_ref()
                .and_then(|q| q.tests.iter().find(|t| t.test == p.test));
            match r {
                Some(t) if t.latency_us.is_some() || t.bw_gbps.is_some() => {
                    p.status = "ok".into();
                    p.latency = t.latency_us.map(|v| output::Latency {
                        median: v,
                        ..Default::default()
                    });
                    p.bw_gbps = t.bw_gbps;
                }
                _ => {
                    let errs = q.as_ref().map(|q| q.errors.join(" / ")).unwrap_or_default();
                    p.message = Some(if errs.is_empty() {
                        format!(
                            "qperf printed no {} result: {}",
                            p.test,
                            first_lines(&c.text, 3)
                        )
                    } else {
                        errs
                    });
                }
            }
        }
        probes
    }

    async fn pair(&self, pair: &Pair) -> Vec<Probe> {
        let mut out = Vec::new();
        for t in &self.opts.tools {
            if *self
                .hosts
                .values()
                .next()
                .map(|h| h.0.cancel.borrow())
                .as_deref()
                .unwrap_or(&false)
            {
                break;
            }
            match t {
                Tool::PathMtu => {
                    out.push(self.path_mtu(pair, false).await);
                    out.push(self.path_mtu(pair, true).await);
                }
                Tool::Qperf => out.extend(self.qperf(pair).await),
                Tool::Incast => {}
                t => out.push(self.perftest(*t, pair).await),
            }
        }
        out
    }

    /// N senders into one receiver at once.
    async fn incast(&self, receiver: &HostPort, senders: &[HostPort]) -> Probe {
        let pair = Pair {
            a: senders[0].clone(),
            b: receiver.clone(),
            class: if senders.iter().all(|s| {
                s.leaf.as_ref().map(|l| &l.device) == receiver.leaf.as_ref().map(|l| &l.device)
            }) {
                "same-leaf".into()
            } else {
                "cross-leaf".into()
            },
        };
        let mut p = self.base(&pair, false, "ib_write_bw", "incast", "rdma");
        p.test = "incast".into();
        p.senders = senders[1..].iter().map(|s| s.host.clone()).collect();
        p.tclass = Some(self.opts.roce_dscp << 2);
        p.size = Some(self.opts.bw_size);
        let start = Instant::now();
        let Some((hr, pr, _)) = self.hosts.get(&receiver.host) else {
            return p;
        };
        let Some(dst) = pr.addr.clone() else {
            p.message = Some(format!(
                "no IPv4 address on {} {}",
                receiver.host, receiver.iface
            ));
            return p;
        };
        let mut names: Vec<(&str, &str)> = vec![(receiver.host.as_str(), receiver.iface.as_str())];
        names.extend(senders.iter().map(|s| (s.host.as_str(), s.iface.as_str())));
        let before = self.path_counters(&names, &p.path).await;
        let secs = self.opts.timeout_s;
        let mut servers = Vec::new();
        let mut clients = Vec::new();
        for s in senders {
            let port = self.next_port();
            let Some((_, ps, _)) = self.hosts.get(&s.host) else {
                continue;
            };
            if ps.rdma.is_some() && ps.gid.is_none() {
                p.status = "invalid".into();
                p.message = ps.gid_note.clone();
                continue;
            }
            match hr
                .start(&self.perftest_cmd(Tool::IbWriteBw, pr, port, None), secs)
                .await
            {
                Ok(st) => {
                    hr.wait_ready(&st, port, 3).await;
                    servers.push(st);
                    clients.push((
                        s.host.clone(),
                        self.perftest_cmd(Tool::IbWriteBw, ps, port, Some(&dst)),
                    ));
                }
                Err(e) => p.message = Some(e),
            }
        }
        p.command = clients.first().map(|c| c.1.clone()).unwrap_or_default();
        let runs = clients.iter().filter_map(|(h, cmd)| {
            let (host, _, _) = self.hosts.get(h)?;
            Some(async move { (h.clone(), host.client(cmd, secs).await) })
        });
        let results = futures_join(runs.collect()).await;
        for s in &servers {
            hr.stop(s).await;
        }
        let after = self.path_counters(&names, &p.path).await;
        self.finish_counters(&mut p, &before, &after);
        p.duration_s = start.elapsed().as_secs_f64();
        if p.status == "invalid" {
            return p;
        }
        let mut total = 0.0;
        let mut errs = Vec::new();
        for (h, c) in &results {
            let r = output::perftest(&c.text, "bw");
            match r.row(p.size).and_then(|r| r.bw_gbps) {
                Some(b) => total += b,
                None => errs.push(format!(
                    "{h}: {}",
                    if r.errors.is_empty() {
                        first_lines(&c.text, 2)
                    } else {
                        r.errors.join(" / ")
                    }
                )),
            }
        }
        if errs.is_empty() && !results.is_empty() {
            p.status = "ok".into();
            p.bw_gbps = Some(total);
        } else {
            p.message = Some(errs.join(" / "));
        }
        p
    }
}

/// Server on `hb` first, client on `ha` second (only if the server is still alive), then the
/// server ended: the client's output (None when the server died first) and the server's log.
async fn serve(
    ha: &Host<'_>,
    hb: &Host<'_>,
    server_cmd: &str,
    client_cmd: &str,
    port: u16,
    secs: u64,
) -> Result<(Option<super::remote::ClientOut>, String), String> {
    let server = hb.start(server_cmd, secs).await?;
    let alive = hb.wait_ready(&server, port, 3).await;
    let client = if alive {
        Some(ha.client(client_cmd, secs).await)
    } else {
        None
    };
    let server_text = hb.stop(&server).await;
    Ok((client, server_text))
}

/// Await all futures concurrently, keeping their order.
async fn futures_join<F: std::future::Future>(fs: Vec<F>) -> Vec<F::Output> {
    futures::future::join_all(fs).await
}

/// Run the plan. Hosts are connected once each; pairs run `opts.parallel` at a time.
pub fn run(
    hosts: &[ProbeHost],
    pairs: &[Pair],
    opts: &Options,
    switches: Option<&Switches>,
) -> Result<Outcome> {
    let mut kh_files: Vec<PathBuf> = Vec::new();
    for h in hosts {
        for f in &h.target.known_hosts {
            if !kh_files.contains(f) {
                kh_files.push(f.clone());
            }
        }
    }
    let known = Arc::new(KnownHosts::load(&kh_files)?);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .worker_threads(2)
        .build()
        .context("starting the async runtime")?;
    let (cancel_tx, cancel_rx) = watch::channel(false);
    let cfg = ssh::client_config();
    let tofu = opts.trust_new_host_keys;
    let quiet = opts.quiet;
    let out = rt.block_on(async {
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!("fabric-audit: interrupted; ending the probe processes on the hosts");
                let _ = cancel_tx.send(true);
            }
        });
        // Connect every host that takes part.
        let mut needed: Vec<&ProbeHost> = Vec::new();
        for h in hosts {
            if pairs
                .iter()
                .any(|p| p.a.host == h.target.name || p.b.host == h.target.name)
                || opts.tools.contains(&Tool::Incast)
            {
                needed.push(h);
            }
        }
        let connects = needed.iter().map(|h| {
            let known = known.clone();
            let cfg = cfg.clone();
            let t = h.target.clone();
            async move { (t.name.clone(), ssh::connect(&t, &known, tofu, &cfg).await) }
        });
        let mut sessions: BTreeMap<String, Session> = BTreeMap::new();
        let mut unreachable = Vec::new();
        for (name, r) in futures_join(connects.collect()).await {
            match r {
                Ok(s) => {
                    sessions.insert(name, s);
                }
                Err(e) => {
                    log(quiet, &format!("{name}: {e}"));
                    unreachable.push((name, e.to_string()));
                }
            }
        }
        let mut hmap = BTreeMap::new();
        for h in &needed {
            let Some(s) = sessions.get(&h.target.name) else {
                continue;
            };
            let host = Host::new(
                &h.target.name,
                s,
                h.settings.tool_dir.clone(),
                cancel_rx.clone(),
            );
            let pr = prep(&host, &h.port, &h.settings).await;
            hmap.insert(h.target.name.clone(), (host, pr, *h));
        }
        // One runner for every switch counter read of the run, on this runtime.
        let switches = match switches {
            Some(sw) => {
                match Runner::new(&sw.targets, sw.parsers.clone(), tofu, 8, cancel_rx.clone()) {
                    Ok(r) => Some((sw, r)),
                    Err(e) => {
                        log(quiet, &format!("switch counters not read: {e:#}"));
                        None
                    }
                }
            }
            None => None,
        };
        let ctx = Ctx {
            hosts: hmap,
            opts,
            port: AtomicU16::new(opts.port_base),
            switches,
        };
        let mut probes = Vec::new();
        let par = opts.parallel.max(1);
        for chunk in pairs.chunks(par) {
            if *cancel_rx.borrow() {
                break;
            }
            let runs = chunk.iter().map(|pair| {
                let ctx = &ctx;
                let unreachable = &unreachable;
                async move {
                    let down: Vec<&(String, String)> = unreachable
                        .iter()
                        .filter(|(n, _)| *n == pair.a.host || *n == pair.b.host)
                        .collect();
                    if !down.is_empty() {
                        let mut p = ctx.base(pair, false, "ssh", "reachability", "ssh");
                        p.test = "ssh".into();
                        p.message = Some(
                            down.iter()
                                .map(|(n, e)| format!("cannot reach {n} over SSH: {e}"))
                                .collect::<Vec<_>>()
                                .join(" / "),
                        );
                        return vec![p];
                    }
                    log(
                        quiet,
                        &format!("probing {} ↔ {} ({})", pair.a.host, pair.b.host, pair.class),
                    );
                    ctx.pair(pair).await
                }
            });
            for v in futures_join(runs.collect()).await {
                probes.extend(v);
            }
        }
        if opts.tools.contains(&Tool::Incast) && !*cancel_rx.borrow() {
            let reachable: Vec<&ProbeHost> = needed
                .iter()
                .copied()
                .filter(|h| ctx.hosts.contains_key(&h.target.name))
                .collect();
            if reachable.len() >= 2 {
                let receiver = reachable[0].port.clone();
                let senders: Vec<HostPort> = reachable[1..]
                    .iter()
                    .take(opts.incast_senders.max(1))
                    .map(|h| h.port.clone())
                    .collect();
                log(
                    quiet,
                    &format!("incast: {} senders into {}", senders.len(), receiver.host),
                );
                probes.push(ctx.incast(&receiver, &senders).await);
            }
        }
        if let Some((_, r)) = &ctx.switches {
            r.close().await;
        }
        let interrupted = *cancel_rx.borrow();
        Outcome {
            probes,
            interrupted,
            unreachable,
        }
    });
    rt.shutdown_timeout(Duration::from_secs(2));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gid_table_gives_the_roce_v2_index_of_the_interface() {
        let t = "/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0:eth2\n\
/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/1:eth2\n\
/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/2:eth2\n\
/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/3:eth2\n\
/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/0:IB/RoCE v1\n\
/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/1:RoCE v2\n\
/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/2:IB/RoCE v1\n\
/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/3:RoCE v2\n\
/sys/class/infiniband/mlx5_0/ports/1/gids/1:fe80:0000:0000:0000:0e42:a1ff:fe00:0001\n\
/sys/class/infiniband/mlx5_0/ports/1/gids/3:0000:0000:0000:0000:0000:ffff:0a4d:0001\n";
        let g = roce_v2_gids(t, "eth2");
        assert_eq!(g.len(), 2);
        assert_eq!((g[1].2, gid_ipv4(&g[1].3)), (3, Some("10.77.0.1".into())));
        assert!(roce_v2_gids(t, "eth3").is_empty());
    }
}
