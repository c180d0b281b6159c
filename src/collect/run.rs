//! One collection run: every target of the inventory, at most `concurrency` at a time, each
//! connected (with retries on connection errors only), its platform's commands run in exec or
//! shell mode, every output checked against the allow-list before it is sent and redacted
//! before it is written. A device that fails is recorded with its reason and the run goes on.
//!
//! The engine is a command runner ([`Runner`]: devices and commands in, outputs in memory, one
//! runtime, logins kept for the next call); [`collect`] is the snapshot writer on top of it.

use super::inventory::{Inventory, Target};
use super::known_hosts::KnownHosts;
use super::ssh::{self, Output, Session, Shell};
use super::writer::SnapshotWriter;
use crate::parser::allow;
use crate::parser::{Parsers, Platform};
use crate::snapshot::CommandRecord;
use anyhow::{Context, Result};
use regex::Regex;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::watch;

#[derive(Debug, Clone)]
pub struct Options {
    pub out: PathBuf,
    pub concurrency: usize,
    /// Record unknown host keys instead of refusing them.
    pub trust_new_host_keys: bool,
    /// Replace an earlier snapshot in `out`.
    pub force: bool,
    /// Progress bar on stderr (a terminal); plain lines otherwise; nothing when quiet.
    pub progress: Progress,
    /// Run only the commands marked `counters` (a probe's before/after reads).
    pub counters_only: bool,
    /// Commands the whole run may send; devices left when it is spent are not collected.
    pub command_budget: u64,
    /// Collect only this shard's devices (`collect --shard K/N`, see `super::shard`).
    pub shard: Option<super::shard::Shard>,
}

/// Commands a run may send when no budget is given: 4,000 hosts of 256 interfaces' worth.
pub const DEFAULT_COMMAND_BUDGET: u64 = 1_000_000;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Progress {
    Bar,
    Lines,
    Quiet,
}

/// Concurrency when none is given: SSH collection waits on the network, not the CPU.
pub fn default_concurrency() -> usize {
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2);
    (cores * 32).clamp(16, 256)
}

/// How the commands sent to one device ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CommandCounts {
    /// Output received, no error.
    pub ok: usize,
    /// The device answered with an error of its own (`% Invalid command`, a non-zero exit).
    pub rejected: usize,
    /// Not sent (allow-list), not run (device stalled), or lost (channel, session, output cap).
    pub failed: usize,
    /// Cut by the command's time limit.
    pub timed_out: usize,
}

impl CommandCounts {
    pub fn total(&self) -> usize {
        self.ok + self.rejected + self.failed + self.timed_out
    }

    /// "4 commands: 1 ok, 3 rejected" (the zero counts left out).
    pub fn describe(&self) -> String {
        let parts: Vec<String> = [
            (self.ok, "ok"),
            (self.rejected, "rejected"),
            (self.failed, "failed"),
            (self.timed_out, "timed out"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, w)| format!("{n} {w}"))
        .collect();
        let total = self.total();
        let noun = if total == 1 { "command" } else { "commands" };
        if parts.is_empty() {
            format!("{total} {noun}")
        } else {
            format!("{total} {noun}: {}", parts.join(", "))
        }
    }
}

/// A command of a device that returned no usable output: what it was, how it ended, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandProblem {
    pub cmd: String,
    /// rejected | failed | timed out
    pub kind: &'static str,
    pub why: String,
    /// The platform marks the command optional (its failure is expected on some devices).
    pub optional: bool,
}

/// What happened to one device.
#[derive(Debug, Clone)]
pub struct DeviceOutcome {
    pub name: String,
    /// collected | failed | interrupted
    pub status: &'static str,
    pub error: Option<String>,
    pub commands: usize,
    /// How the commands ended, counted.
    pub counts: CommandCounts,
    /// The commands that returned no usable output, in order.
    pub problems: Vec<CommandProblem>,
    pub attempts: u32,
    pub duration: Duration,
    /// Budgets this device ran into (interfaces cap, deadline, run budget), as recorded.
    pub limits_hit: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Summary {
    pub devices: Vec<DeviceOutcome>,
    pub interrupted: bool,
    pub wall: Duration,
    pub concurrency: usize,
}

impl DeviceOutcome {
    fn new(name: &str) -> DeviceOutcome {
        DeviceOutcome {
            name: name.to_string(),
            status: "failed",
            error: None,
            commands: 0,
            counts: CommandCounts::default(),
            problems: Vec::new(),
            attempts: 0,
            duration: Duration::ZERO,
            limits_hit: Vec::new(),
        }
    }
}

impl Summary {
    pub fn collected(&self) -> usize {
        self.devices
            .iter()
            .filter(|d| d.status == "collected")
            .count()
    }
}

/// RDMA netdevs and devices from `rdma link show -j`.
fn rdma_links(json: &[u8]) -> (Vec<String>, Vec<String>) {
    let mut netdevs = Vec::new();
    let mut devs = Vec::new();
    if let Ok(serde_json::Value::Array(links)) = serde_json::from_slice(json) {
        for l in links {
            if let Some(n) = l.get("netdev").and_then(|v| v.as_str()) {
                netdevs.push(n.to_string());
            }
            if let Some(d) = l.get("ifname").and_then(|v| v.as_str()) {
                devs.push(d.split('/').next().unwrap_or(d).to_string());
            }
        }
    }
    (netdevs, devs)
}

/// Up Ethernet netdevs from `ip -d -j link show` (when the host reports no RDMA device).
fn ethernet_up(json: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    if let Ok(serde_json::Value::Array(links)) = serde_json::from_slice(json) {
        for l in links {
            let name = l.get("ifname").and_then(|v| v.as_str()).unwrap_or("");
            let ether = l.get("link_type").and_then(|v| v.as_str()) == Some("ether");
            let up = l.get("operstate").and_then(|v| v.as_str()) == Some("UP");
            let kind = l
                .get("linkinfo")
                .and_then(|i| i.get("info_kind"))
                .and_then(|v| v.as_str())
                .unwrap_or("");
            let virtual_kind = matches!(
                kind,
                "bridge" | "vxlan" | "dummy" | "tun" | "openvswitch" | "vrf" | "macvlan" | "ipvlan"
            );
            if ether && up && !virtual_kind && !name.is_empty() {
                out.push(name.to_string());
            }
        }
    }
    out
}

enum Channel {
    Exec,
    Shell(Box<Shell>),
}

/// Where a device's command records and outputs go: the snapshot's device folder
/// (`DeviceWriter`) or memory ([`Outputs`]).
pub trait Sink: Send {
    /// Keep one command's record and output (already redacted by the platform's rules).
    fn add(&mut self, rec: CommandRecord, stdout: &[u8]) -> Result<()>;
    fn records(&self) -> &[CommandRecord];
}

impl Sink for super::writer::DeviceWriter {
    fn add(&mut self, rec: CommandRecord, stdout: &[u8]) -> Result<()> {
        super::writer::DeviceWriter::add(self, rec, stdout)
    }
    fn records(&self) -> &[CommandRecord] {
        super::writer::DeviceWriter::records(self)
    }
}

/// A device's command records and outputs in memory (what [`Runner::run`] returns), redacted as
/// the snapshot writer redacts them.
#[derive(Debug, Clone, Default)]
pub struct Outputs {
    pub records: Vec<CommandRecord>,
    /// The output of `records[i]` (empty when there was none).
    pub stdout: Vec<Vec<u8>>,
}

impl Sink for Outputs {
    fn add(&mut self, mut rec: CommandRecord, stdout: &[u8]) -> Result<()> {
        let stdout = if stdout.is_empty() {
            Vec::new()
        } else {
            crate::redact::redact(&String::from_utf8_lossy(stdout))
                .0
                .into_bytes()
        };
        rec.stderr = rec.stderr.map(|e| crate::redact::redact(&e).0);
        rec.error = rec.error.map(|e| crate::redact::redact(&e).0);
        rec.bytes = stdout.len() as u64;
        self.records.push(rec);
        self.stdout.push(stdout);
        Ok(())
    }
    fn records(&self) -> &[CommandRecord] {
        &self.records
    }
}

/// How one command ended: (`ok` | `rejected` | `failed` | `timed out`, why when not ok).
fn classify(o: &Output) -> (&'static str, Option<String>) {
    if o.timed_out {
        return ("timed out", o.error.clone());
    }
    if let Some(e) = &o.error {
        return ("failed", Some(e.clone()));
    }
    match o.exit {
        Some(code) if code != 0 => {
            let stderr = String::from_utf8_lossy(&o.stderr);
            let first = stderr
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(|l| l.chars().take(200).collect::<String>());
            (
                "rejected",
                Some(first.unwrap_or_else(|| format!("exit status {code}"))),
            )
        }
        _ => ("ok", None),
    }
}

struct DeviceRun<'a, S: Sink> {
    t: &'a Target,
    platform: &'a Platform,
    session: &'a Session,
    channel: Channel,
    w: S,
    cancel_rx: watch::Receiver<bool>,
    stalled: bool,
    /// The platform's prompt (shell mode and the exec fallback).
    prompt: Regex,
    /// The command being run is optional on this platform.
    optional: bool,
    counters_only: bool,
    /// When this device's time is up (`device_timeout` after its start).
    deadline: Instant,
    /// Commands the run may still send (shared by every device).
    budget: &'a AtomicU64,
    command_budget: u64,
    /// Budgets hit, recorded in device.toml and the journal.
    limits_hit: Vec<String>,
    /// How the commands ended.
    counts: CommandCounts,
    problems: Vec<CommandProblem>,
}

/// One command of a device's plan.
struct Planned<'c> {
    cmd: String,
    allow_chars: &'c str,
    optional: bool,
}

/// Take one command from the run's budget; false when it is spent.
fn take_one(budget: &AtomicU64) -> bool {
    budget
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
        .is_ok()
}

/// The first `cap` names of `names` (in order), and how many were left out.
fn capped(names: BTreeSet<String>, cap: usize) -> (Vec<String>, Vec<String>) {
    let mut kept: Vec<String> = names.into_iter().collect();
    let dropped = kept.split_off(cap.min(kept.len()));
    (kept, dropped)
}

/// Error lines a switch CLI prints instead of output.
fn cli_error(stdout: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(&stdout[..stdout.len().min(512)]);
    let first = text.lines().find(|l| !l.trim().is_empty())?.trim();
    let markers = [
        "% Invalid",
        "% Incomplete",
        "% Ambiguous",
        "% Error",
        "% Unrecognized",
        "% Permission denied",
        "Syntax error",
        "syntax error",
    ];
    markers
        .iter()
        .any(|m| first.starts_with(m))
        .then(|| first.to_string())
}

impl<S: Sink> DeviceRun<'_, S> {
    fn cancelled(&self) -> bool {
        *self.cancel_rx.borrow()
    }

    async fn run(&mut self, cmd: &str, allow_chars: &str, optional: bool) -> Output {
        self.optional = optional;
        if let Some(why) = allow::refuse(&self.t.platform, cmd, allow_chars) {
            let o = Output {
                error: Some(format!("not sent: {why}")),
                ..Default::default()
            };
            self.record(cmd, &o);
            return o;
        }
        if self.stalled {
            let o = Output {
                error: Some("not run: the device stopped answering an earlier command".into()),
                ..Default::default()
            };
            self.record(cmd, &o);
            return o;
        }
        let left = self.deadline.saturating_duration_since(Instant::now());
        let limit = self
            .t
            .command_timeout
            .min(left.max(Duration::from_millis(1)));
        let cap = self.t.max_output;
        if matches!(self.channel, Channel::Exec) {
            let o = self.session.exec(cmd, limit, cap, &self.cancel_rx).await;
            if !(o.exec_refused && self.w.records().iter().all(|r| r.exit.is_none())) {
                return self.finish(cmd, o);
            }
            // No exec channel on this device: go on in its interactive CLI.
            match self
                .session
                .shell(
                    &self.prompt,
                    &self.platform.paging_off,
                    limit,
                    &self.cancel_rx,
                )
                .await
            {
                Ok(sh) => self.channel = Channel::Shell(Box::new(sh)),
                Err(e) => {
                    let mut o = o;
                    o.error = Some(format!(
                        "the device refused exec requests, and its interactive shell failed: {e}"
                    ));
                    o.stalled = true;
                    return self.finish(cmd, o);
                }
            }
        }
        let Channel::Shell(sh) = &mut self.channel else {
            return self.finish(cmd, Output::default());
        };
        let o = sh.run(cmd, limit, cap, &self.cancel_rx).await;
        self.finish(cmd, o)
    }

    /// Redact, record and return one command's output.
    fn finish(&mut self, cmd: &str, mut o: Output) -> Output {
        self.stalled |= o.stalled;
        if o.stalled && Instant::now() >= self.deadline {
            // Its time was the device's last: say so where the command's error is read.
            o.error = o.error.map(|e| {
                format!(
                    "{e} (cut at the per-device deadline, device_timeout = {} s)",
                    self.t.device_timeout.as_secs_f64()
                )
            });
        }
        // A switch CLI prints its errors as output, often with exit status 0.
        if self.t.platform != "linux"
            && let Some(err) = cli_error(&o.stdout)
        {
            o.exit = Some(o.exit.filter(|&e| e != 0).unwrap_or(1));
            o.stderr = err.into_bytes();
            o.stdout.clear();
        }
        if !o.stdout.is_empty() {
            let text = String::from_utf8_lossy(&o.stdout);
            let (red, _n) = self.platform.redact(&text);
            o.stdout = red.into_bytes();
        }
        self.record(cmd, &o);
        o
    }

    fn record(&mut self, cmd: &str, o: &Output) {
        let (kind, why) = classify(o);
        match kind {
            "ok" => self.counts.ok += 1,
            "rejected" => self.counts.rejected += 1,
            "timed out" => self.counts.timed_out += 1,
            _ => self.counts.failed += 1,
        }
        if let Some(why) = why {
            self.problems.push(CommandProblem {
                cmd: cmd.to_string(),
                kind,
                why: self.platform.redact(&why).0,
                optional: self.optional,
            });
        }
        let stderr = String::from_utf8_lossy(&o.stderr).trim().to_string();
        let rec = CommandRecord {
            cmd: cmd.to_string(),
            file: None,
            exit: o.exit.map(|e| e as i32),
            duration_ms: o.duration.as_millis() as u64,
            bytes: 0,
            stderr: (!stderr.is_empty()).then(|| {
                let (red, _) = self.platform.redact(&stderr);
                red.chars().take(2000).collect()
            }),
            error: o.error.clone(),
            optional: self.optional,
        };
        if let Err(e) = self.w.add(rec, &o.stdout) {
            eprintln!("fabric-audit: {}: {e:#}", self.t.name);
        }
    }

    /// The device's deadline has passed.
    fn past_deadline(&self) -> Option<String> {
        (Instant::now() >= self.deadline).then(|| {
            format!(
                "cut at the per-device deadline (device_timeout = {} s)",
                self.t.device_timeout.as_secs_f64()
            )
        })
    }

    /// Why no further command may be sent, if so: the device's deadline or the run's budget
    /// (one command is taken from the budget when there is none).
    fn out_of_time_or_budget(&self) -> Option<String> {
        if let Some(why) = self.past_deadline() {
            return Some(why);
        }
        if !take_one(self.budget) {
            return Some(format!(
                "the run's command budget ({} commands, --command-budget) is spent",
                self.command_budget
            ));
        }
        None
    }

    /// Run `plan` in order until the device's deadline or the run's budget stops it.
    async fn run_plan(&mut self, plan: &[Planned<'_>]) -> bool {
        for (i, p) in plan.iter().enumerate() {
            if self.cancelled() {
                return false;
            }
            // A device that stopped answering gets "not run" records, not budget.
            let why = match self.past_deadline() {
                None if !self.stalled => self.out_of_time_or_budget(),
                why => why,
            };
            if let Some(why) = why {
                self.limits_hit.push(format!(
                    "{why}: {} of {} command(s) not run, from {:?}",
                    plan.len() - i,
                    plan.len(),
                    p.cmd
                ));
                return false;
            }
            self.run(&p.cmd, p.allow_chars, p.optional).await;
        }
        true
    }

    /// Names discovered on the host, at most `max_interfaces` of them; a cut is recorded.
    fn cap_discovered(&mut self, what: &str, names: BTreeSet<String>) -> Vec<String> {
        let total = names.len();
        let (kept, dropped) = capped(names, self.t.max_interfaces);
        if let (Some(first), Some(last)) = (dropped.first(), dropped.last()) {
            self.limits_hit.push(format!(
                "{total} {what} discovered, commands run for the first {} (max_interfaces = {}): {} not collected ({first} to {last})",
                kept.len(),
                self.t.max_interfaces,
                dropped.len()
            ));
        }
        kept
    }

    /// Names that may go into a command; each refused one is recorded once, never sent.
    fn checked_names(&mut self, names: Vec<String>, first_cmd: Option<&str>) -> Vec<String> {
        let mut ok = Vec::new();
        for n in names {
            if allow::safe_interface(&self.t.platform, &n) {
                ok.push(n);
                continue;
            }
            if let Some(cmd) = first_cmd {
                let o = Output {
                    error: Some(format!(
                        "not sent: the name {n:?} reported by the device is not a plain interface or RDMA device name"
                    )),
                    ..Default::default()
                };
                self.record(&cmd.replace("{if}", "?").replace("{dev}", "?"), &o);
            }
        }
        ok
    }

    /// The platform's commands, host discovery included.
    async fn collect_all(&mut self) {
        let cmds: Vec<_> = self
            .platform
            .commands
            .iter()
            .filter(|c| c.collect && (c.counters || !self.counters_only))
            .collect();
        let once: Vec<_> = cmds.iter().filter(|c| c.per == "once").collect();
        let per_if: Vec<_> = cmds.iter().filter(|c| c.per == "per-interface").collect();
        let per_dev: Vec<_> = cmds.iter().filter(|c| c.per == "per-rdma-device").collect();
        let mut found: BTreeSet<String> = BTreeSet::new();
        let mut rdma_found: BTreeSet<String> = BTreeSet::new();
        let mut ip_link = Vec::new();
        // Discovery commands first (their outputs decide the per-interface commands).
        let discovery = ["ip-link-json", "rdma-link-json"];
        for c in once.iter().filter(|c| discovery.contains(&c.id.as_str())) {
            if self.cancelled() {
                return;
            }
            if let Some(why) = self.out_of_time_or_budget() {
                self.limits_hit
                    .push(format!("{why}: discovery ({:?}) not run", c.cmd));
                return;
            }
            let o = self.run(&c.cmd, &c.allow_chars, c.optional).await;
            if c.id == "rdma-link-json" {
                let (n, d) = rdma_links(&o.stdout);
                found.extend(n);
                rdma_found.extend(d);
            } else {
                ip_link = o.stdout.clone();
            }
        }
        let listed: BTreeSet<String> = self.t.interfaces.iter().cloned().collect();
        if found.is_empty() && listed.is_empty() && !per_if.is_empty() {
            found.extend(ethernet_up(&ip_link));
        }
        found.retain(|n| !listed.contains(n));
        let mut netdevs: Vec<String> = listed.into_iter().collect();
        netdevs.extend(self.cap_discovered("interfaces", found));
        let rdma_devs = self.cap_discovered("RDMA devices", rdma_found);
        let first_if = per_if.first().map(|c| c.cmd.as_str());
        let netdevs = self.checked_names(netdevs, first_if);
        let first_dev = per_dev.first().map(|c| c.cmd.as_str());
        let rdma_devs = self.checked_names(rdma_devs, first_dev);
        // The device's own commands first: a deadline or a spent budget cuts the tail of the
        // per-interface commands, not the configuration.
        let mut plan: Vec<Planned> = once
            .iter()
            .filter(|c| !discovery.contains(&c.id.as_str()))
            .map(|c| Planned {
                cmd: c.cmd.clone(),
                allow_chars: &c.allow_chars,
                optional: c.optional,
            })
            .collect();
        for n in &netdevs {
            plan.extend(per_if.iter().map(|c| Planned {
                cmd: c.cmd.replace("{if}", n),
                allow_chars: &c.allow_chars,
                optional: c.optional,
            }));
        }
        for d in &rdma_devs {
            plan.extend(per_dev.iter().map(|c| Planned {
                cmd: c.cmd.replace("{dev}", d),
                allow_chars: &c.allow_chars,
                optional: c.optional,
            }));
        }
        self.run_plan(&plan).await;
    }
}

/// What every device task of a run shares.
struct Shared {
    platforms: Platforms,
    known: Arc<KnownHosts>,
    tofu: bool,
    cfg: Arc<russh::client::Config>,
    /// Becomes true on Ctrl-C (or when the caller's own cancel signal fires).
    cancel_rx: watch::Receiver<bool>,
    /// Commands the run may still send.
    budget: AtomicU64,
    command_budget: u64,
}

impl Shared {
    fn cancelled(&self) -> bool {
        *self.cancel_rx.borrow()
    }
}

/// A logged-in device: its session, the channel commands go through, its prompt. Kept by a
/// [`Runner`] between calls, so repeated reads (a probe's counters) log in once.
struct Login {
    session: Session,
    channel: Channel,
    prompt: Regex,
}

impl Login {
    async fn close(self) {
        if let Channel::Shell(sh) = self.channel {
            sh.close().await;
        }
        let _ = tokio::time::timeout(
            Duration::from_secs(2),
            self.session
                .handle
                .disconnect(russh::Disconnect::ByApplication, "", "en"),
        )
        .await;
    }
}

/// Connect to `t` with retries on connection errors, within its deadline, and open the channel
/// its platform's session mode asks for. On failure, the outcome says why.
async fn login(
    t: &Target,
    p: &Platform,
    sh: &Shared,
    deadline: Instant,
    outcome: &mut DeviceOutcome,
) -> Option<Login> {
    let cancel_rx = &sh.cancel_rx;
    let mut session = None;
    let mut last = None;
    for attempt in 0..=t.retries {
        if sh.cancelled() {
            break;
        }
        outcome.attempts = attempt + 1;
        let attempt_result = tokio::select! {
            r = ssh::connect(t, &sh.known, sh.tofu, &sh.cfg) => r,
            _ = ssh::interrupted(cancel_rx) => break,
            _ = tokio::time::sleep_until(deadline.into()) => Err(deadline_failure(t)),
        };
        match attempt_result {
            Ok(s) => {
                session = Some(s);
                break;
            }
            Err(f) => {
                let retry = f.retry && Instant::now() < deadline;
                last = Some(f);
                if !retry || attempt == t.retries {
                    break;
                }
                let backoff = Duration::from_millis(250u64 << attempt.min(5));
                tokio::select! {
                    _ = tokio::time::sleep(backoff) => {}
                    _ = ssh::interrupted(cancel_rx) => break,
                }
            }
        }
    }
    let Some(session) = session else {
        if sh.cancelled() {
            outcome.status = "interrupted";
        }
        outcome.error = Some(match (last, sh.cancelled()) {
            (_, true) => "interrupted before the device was reached".to_string(),
            (Some(f), _) => format!(
                "{f}{}",
                if outcome.attempts > 1 {
                    format!(" (after {} attempts)", outcome.attempts)
                } else {
                    String::new()
                }
            ),
            (None, _) => "not attempted".into(),
        });
        return None;
    };
    let mode = t.session.as_deref().or(p.session_mode.as_deref());
    let prompt = p
        .prompt
        .as_deref()
        .and_then(|re| Regex::new(re).ok())
        .or_else(|| Regex::new(r"[>#$] ?$").ok());
    let Some(prompt) = prompt else {
        outcome.error = Some("no usable prompt pattern".into());
        return None;
    };
    let channel = if mode == Some("shell") {
        let left = deadline.saturating_duration_since(Instant::now());
        let limit = t.command_timeout.min(left.max(Duration::from_millis(1)));
        match session
            .shell(&prompt, &p.paging_off, limit, cancel_rx)
            .await
        {
            Ok(sh) => Channel::Shell(Box::new(sh)),
            Err(e) => {
                outcome.error = Some(format!("shell session: {e}"));
                return None;
            }
        }
    } else {
        Channel::Exec
    };
    Some(Login {
        session,
        channel,
        prompt,
    })
}

/// Run one device's commands (all of its platform's, or only those marked `counters`) into
/// `sink`, logging in unless `reuse` is a live login. Never fails: what went wrong is in the
/// outcome. Returns the login when the device is still answering (for the next call).
async fn device_run<S: Sink>(
    t: &Target,
    sh: &Shared,
    counters_only: bool,
    sink: S,
    reuse: Option<Login>,
) -> (DeviceOutcome, S, Option<Login>) {
    let start = Instant::now();
    let mut outcome = DeviceOutcome::new(&t.name);
    let deadline = start + t.device_timeout;
    let Some(p) = sh.platforms.get(&t.platform) else {
        outcome.error = Some(format!(
            "no vendor parser for platform {:?}: nothing to collect",
            t.platform
        ));
        return (outcome, sink, reuse);
    };
    if sh.budget.load(Ordering::Relaxed) == 0 {
        outcome.error = Some(format!(
            "not attempted: the run's command budget ({} commands, --command-budget) was spent before this device's turn",
            sh.command_budget
        ));
        return (outcome, sink, reuse);
    }
    let login = match reuse {
        Some(l) => {
            outcome.attempts = 0;
            l
        }
        None => match login(t, p, sh, deadline, &mut outcome).await {
            Some(l) => l,
            None => return (outcome, sink, None),
        },
    };
    let Login {
        session,
        channel,
        prompt,
    } = login;
    let mut run = DeviceRun {
        t,
        platform: p,
        session: &session,
        channel,
        w: sink,
        cancel_rx: sh.cancel_rx.clone(),
        stalled: false,
        prompt,
        optional: false,
        counters_only,
        deadline,
        budget: &sh.budget,
        command_budget: sh.command_budget,
        limits_hit: Vec::new(),
        counts: CommandCounts::default(),
        problems: Vec::new(),
    };
    run.collect_all().await;
    outcome.limits_hit = std::mem::take(&mut run.limits_hit);
    outcome.counts = run.counts;
    outcome.problems = std::mem::take(&mut run.problems);
    let stalled = run.stalled;
    let (channel, prompt, sink) = (run.channel, run.prompt, run.w);
    let records = sink.records();
    if sh.cancelled() {
        outcome.status = "interrupted";
        outcome.error = Some(format!(
            "interrupted after {} command(s); the rest were not run",
            records.len()
        ));
    } else if outcome.counts.ok == 0 {
        let first = outcome
            .problems
            .first()
            .map(|p| format!("{:?} {}: {}", p.cmd, p.kind, p.why))
            .or_else(|| outcome.limits_hit.first().cloned())
            .unwrap_or_else(|| "no command to run".into());
        outcome.error = Some(format!(
            "no command succeeded ({}; {first})",
            outcome.counts.describe()
        ));
    } else {
        outcome.status = "collected";
    }
    outcome.commands = records.len();
    outcome.duration = start.elapsed();
    let login = Login {
        session,
        channel,
        prompt,
    };
    let keep = !stalled && !sh.cancelled() && !login.session.handle.is_closed();
    (outcome, sink, keep.then_some(login))
}

/// Collect one device into its snapshot folder: connect, run, write, log out. Never returns an
/// error: failures are recorded.
async fn collect_device(
    t: Target,
    sh: Arc<Shared>,
    writer: Arc<std::sync::Mutex<SnapshotWriter>>,
    counters_only: bool,
) -> DeviceOutcome {
    let start = Instant::now();
    let dw = writer
        .lock()
        .map_err(|_| ())
        .and_then(|w| w.device(&t.name).map_err(|_| ()));
    let Ok(dw) = dw else {
        let mut outcome = DeviceOutcome::new(&t.name);
        outcome.error = Some("could not create the device folder".into());
        return outcome;
    };
    let (mut outcome, dw, login) = device_run(&t, &sh, counters_only, dw, None).await;
    if let Some(l) = login {
        l.close().await;
    }
    finish_device(&writer, dw, &t, &mut outcome, start);
    outcome
}

/// The failure of a device whose deadline passed before a session was up.
fn deadline_failure(t: &Target) -> ssh::Failure {
    ssh::Failure {
        kind: "timeout",
        message: format!(
            "no SSH session within the per-device deadline (device_timeout = {} s)",
            t.device_timeout.as_secs_f64()
        ),
        retry: false,
    }
}

fn finish_device(
    writer: &std::sync::Mutex<SnapshotWriter>,
    dw: super::writer::DeviceWriter,
    t: &Target,
    outcome: &mut DeviceOutcome,
    start: Instant,
) {
    outcome.duration = start.elapsed();
    if let Err(e) = dw.finish(t, outcome.error.as_deref(), &outcome.limits_hit) {
        outcome.status = "failed";
        outcome.error = Some(format!("writing the device folder: {e:#}"));
    }
    if let Ok(mut w) = writer.lock() {
        w.set_status(
            &t.name,
            outcome.status,
            outcome.error.clone(),
            &outcome.limits_hit,
        );
    }
}

/// The platforms of the vendor parsers, shared with the device tasks.
pub struct Platforms(Arc<Parsers>);

impl Platforms {
    fn get(&self, id: &str) -> Option<&Platform> {
        self.0.platform(id)
    }
}

/// The known_hosts files the targets name, loaded once (their warnings on stderr).
fn known_hosts_of<'a>(targets: impl Iterator<Item = &'a Target>) -> Result<Arc<KnownHosts>> {
    let mut kh_files: Vec<PathBuf> = Vec::new();
    for t in targets {
        for f in &t.known_hosts {
            if !kh_files.contains(f) {
                kh_files.push(f.clone());
            }
        }
    }
    let known = Arc::new(KnownHosts::load(&kh_files)?);
    for w in &known.warnings {
        eprintln!("fabric-audit: known_hosts: {w}");
    }
    Ok(known)
}

/// One device's outputs from [`Runner::run`].
#[derive(Debug, Clone)]
pub struct DeviceOutputs {
    pub outcome: DeviceOutcome,
    pub outputs: Outputs,
}

impl DeviceOutputs {
    /// The outputs that arrived, as `(command, text)`.
    pub fn texts(&self) -> impl Iterator<Item = (&str, String)> {
        self.outputs
            .records
            .iter()
            .zip(&self.outputs.stdout)
            .filter(|(r, out)| r.error.is_none() && !out.is_empty())
            .map(|(r, out)| (r.cmd.as_str(), String::from_utf8_lossy(out).into_owned()))
    }
}

/// The command runner: devices and their platforms' commands in, outputs in memory out, on the
/// caller's tokio runtime. Logins are kept between calls (a device answering is not logged in
/// again), so reading counters before and after a probe costs two command rounds, not two
/// logins. Every command passes the read-only allow-list and is redacted, as in `collect`.
pub struct Runner {
    shared: Arc<Shared>,
    logins: tokio::sync::Mutex<HashMap<String, Login>>,
    concurrency: usize,
}

impl Runner {
    /// A runner for `targets` (their known_hosts are loaded now). `cancel` ends every command
    /// in flight when it becomes true.
    pub fn new(
        targets: &[Target],
        parsers: Arc<Parsers>,
        trust_new_host_keys: bool,
        concurrency: usize,
        cancel: watch::Receiver<bool>,
    ) -> Result<Runner> {
        Ok(Runner {
            shared: Arc::new(Shared {
                platforms: Platforms(parsers),
                known: known_hosts_of(targets.iter())?,
                tofu: trust_new_host_keys,
                cfg: ssh::client_config(),
                cancel_rx: cancel,
                budget: AtomicU64::new(DEFAULT_COMMAND_BUDGET),
                command_budget: DEFAULT_COMMAND_BUDGET,
            }),
            logins: tokio::sync::Mutex::new(HashMap::new()),
            concurrency: concurrency.max(1),
        })
    }

    /// Run on every target its platform's commands (only those marked `counters` when
    /// `counters_only`; per-interface commands for `t.interfaces`), `concurrency` devices at
    /// once. Results are in the order of `targets`.
    pub async fn run(&self, targets: &[Target], counters_only: bool) -> Vec<DeviceOutputs> {
        use futures::StreamExt;
        let runs = targets.iter().map(|t| async move {
            let reuse = self.logins.lock().await.remove(&t.name);
            let (outcome, outputs, login) =
                device_run(t, &self.shared, counters_only, Outputs::default(), reuse).await;
            if let Some(l) = login {
                self.logins.lock().await.insert(t.name.clone(), l);
            }
            DeviceOutputs { outcome, outputs }
        });
        futures::stream::iter(runs)
            .buffered(self.concurrency)
            .collect()
            .await
    }

    /// How many devices are logged in (kept for the next call).
    pub async fn logged_in(&self) -> usize {
        self.logins.lock().await.len()
    }

    /// Log out of every device.
    pub async fn close(&self) {
        let logins: Vec<Login> = self.logins.lock().await.drain().map(|(_, l)| l).collect();
        futures::future::join_all(logins.into_iter().map(Login::close)).await;
    }
}

/// Collect every target of `inv` into `opts.out`: the snapshot writer on top of the runner's
/// device engine (each device's outputs go to its folder as they arrive).
/// With `opts.shard`, only that shard's targets are collected; `fabric.toml` still plans them
/// all.
pub fn collect(plan: &Inventory, parsers: Arc<Parsers>, opts: &Options) -> Result<Summary> {
    let start = Instant::now();
    let part = opts.shard.map(|s| s.part_of(plan));
    let inv = part.as_ref().unwrap_or(plan);
    let known = known_hosts_of(inv.targets.iter())?;
    let shard = opts.shard.map(|s| crate::snapshot::JournalShard {
        index: s.index,
        count: s.count,
    });
    let writer = Arc::new(std::sync::Mutex::new(SnapshotWriter::create(
        &opts.out,
        plan,
        &inv.targets,
        shard,
        opts.force,
    )?));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .worker_threads(
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2),
        )
        .build()
        .context("starting the async runtime")?;
    let (cancel_tx, cancel_rx) = watch::channel(false);
    let concurrency = opts.concurrency.max(1);
    let shared = Arc::new(Shared {
        platforms: Platforms(parsers),
        known,
        tofu: opts.trust_new_host_keys,
        cfg: ssh::client_config(),
        cancel_rx,
        budget: AtomicU64::new(opts.command_budget),
        command_budget: opts.command_budget,
    });
    let total = inv.targets.len();
    let progress = opts.progress;
    let counters_only = opts.counters_only;
    let outcomes = rt.block_on(async {
        let bar = (progress == Progress::Bar).then(|| {
            let b = indicatif::ProgressBar::new(total as u64);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "{spinner} collecting [{bar:30}] {pos}/{len} devices, {per_sec} ({elapsed}) {msg}",
            ) {
                b.set_style(style.progress_chars("=> "));
            }
            b
        });
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!(
                    "fabric-audit: interrupted; finishing the snapshot with what was collected"
                );
                let _ = cancel_tx.send(true);
                // Keep the sender: a dropped one would read as "changed" forever.
                std::future::pending::<()>().await;
            }
        });
        let sem = Arc::new(tokio::sync::Semaphore::new(concurrency));
        let mut set = tokio::task::JoinSet::new();
        for (i, t) in inv.targets.iter().cloned().enumerate() {
            let sem = sem.clone();
            let shared = shared.clone();
            let writer = writer.clone();
            set.spawn(async move {
                let _permit = sem.acquire_owned().await;
                (i, collect_device(t, shared, writer, counters_only).await)
            });
        }
        let mut outcomes: Vec<Option<DeviceOutcome>> = vec![None; total];
        let mut done = 0;
        while let Some(r) = set.join_next().await {
            if let Ok((i, o)) = r {
                done += 1;
                match &bar {
                    Some(b) => b.inc(1),
                    // Failed and interrupted devices are left to the grouped summary, so one
                    // cause does not print a line per device.
                    None if progress == Progress::Lines && o.status == "collected" => eprintln!(
                        "fabric-audit: [{done}/{total}] {} collected ({}, {:.1} s)",
                        o.name,
                        o.counts.describe(),
                        o.duration.as_secs_f64(),
                    ),
                    None => {}
                }
                outcomes[i] = Some(o);
            }
        }
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        outcomes
    });
    rt.shutdown_timeout(Duration::from_secs(2));
    let interrupted = shared.cancelled();
    let devices: Vec<DeviceOutcome> = outcomes
        .into_iter()
        .zip(&inv.targets)
        .map(|(o, t)| {
            o.unwrap_or_else(|| {
                let mut d = DeviceOutcome::new(&t.name);
                d.error = Some("the collection task ended abnormally".into());
                d
            })
        })
        .collect();
    let mut w = writer
        .lock()
        .map_err(|_| anyhow::anyhow!("snapshot writer poisoned"))?;
    let sent = opts
        .command_budget
        .saturating_sub(shared.budget.load(Ordering::Relaxed));
    w.finish(interrupted, opts.command_budget, sent)?;
    Ok(Summary {
        devices,
        interrupted,
        wall: start.elapsed(),
        concurrency,
    })
}

/// A message with what is particular to one device (its name, address, port) and to one run
/// (numbers) taken out, so the same cause on many devices reads as one line.
fn generic(msg: &str, name: &str, at: Option<&(String, u16)>) -> String {
    let mut m = msg.to_string();
    if let Some((host, port)) = at {
        m = m.replace(&format!("{host}:{port}"), "<address>");
        if !host.is_empty() {
            m = m.replace(host.as_str(), "<address>");
        }
    }
    if !name.is_empty() {
        m = m.replace(name, "<device>");
    }
    let mut out = String::with_capacity(m.len());
    let mut in_num = false;
    for c in m.chars() {
        if c.is_ascii_digit() {
            if !in_num {
                out.push('N');
            }
            in_num = true;
        } else {
            in_num = false;
            out.push(c);
        }
    }
    out
}

/// One distinct problem of a run and the devices it hit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grouped {
    /// The problem as printed: the message when every device gave the same one, else its
    /// generic form.
    pub text: String,
    pub devices: Vec<String>,
}

impl Grouped {
    /// `text: 28 devices (leaf01, leaf02, leaf03, … +25)`.
    pub fn line(&self) -> String {
        const SHOWN: usize = 3;
        let n = self.devices.len();
        let names: Vec<&str> = self
            .devices
            .iter()
            .take(SHOWN)
            .map(String::as_str)
            .collect();
        let more = n.saturating_sub(SHOWN);
        let more = if more > 0 {
            format!(", … +{more}")
        } else {
            String::new()
        };
        format!(
            "{}: {n} device{} ({}{more})",
            self.text,
            if n == 1 { "" } else { "s" },
            names.join(", ")
        )
    }
}

/// Group `(device, message)` pairs by cause: first seen first, devices in their order.
fn group<'a>(
    items: impl Iterator<Item = (&'a str, String)>,
    targets: &HashMap<&str, (String, u16)>,
) -> Vec<Grouped> {
    let mut order: Vec<String> = Vec::new();
    let mut by: BTreeMap<String, (Vec<String>, Vec<String>)> = BTreeMap::new();
    for (dev, msg) in items {
        let key = generic(&msg, dev, targets.get(dev));
        let e = by.entry(key.clone()).or_insert_with(|| {
            order.push(key.clone());
            (Vec::new(), Vec::new())
        });
        if !e.0.iter().any(|d| d == dev) {
            e.0.push(dev.to_string());
        }
        if !e.1.contains(&msg) {
            e.1.push(msg);
        }
    }
    order
        .into_iter()
        .filter_map(|k| {
            let (devices, msgs) = by.remove(&k)?;
            let text = if msgs.len() == 1 {
                msgs.into_iter().next().unwrap_or_default()
            } else {
                k
            };
            Some(Grouped { text, devices })
        })
        .collect()
}

/// Each target's address (host, port), by name.
fn addresses(inv: &Inventory) -> HashMap<&str, (String, u16)> {
    inv.targets
        .iter()
        .map(|t| (t.name.as_str(), (t.endpoint.host.clone(), t.endpoint.port)))
        .collect()
}

impl Summary {
    /// Commands of every device, counted.
    pub fn counts(&self) -> CommandCounts {
        self.devices
            .iter()
            .fold(CommandCounts::default(), |mut a, d| {
                a.ok += d.counts.ok;
                a.rejected += d.counts.rejected;
                a.failed += d.counts.failed;
                a.timed_out += d.counts.timed_out;
                a
            })
    }

    /// The devices not collected, one entry per distinct cause.
    pub fn device_failures(&self, inv: &Inventory) -> Vec<Grouped> {
        let targets = addresses(inv);
        group(
            self.devices
                .iter()
                .filter(|d| d.status != "collected")
                .map(|d| {
                    (
                        d.name.as_str(),
                        format!("{}: {}", d.status, d.error.as_deref().unwrap_or("")),
                    )
                }),
            &targets,
        )
    }

    /// The commands that returned no usable output on collected devices, one entry per
    /// command and cause (`"show interface" rejected: % Invalid input`).
    pub fn command_problems(&self, inv: &Inventory) -> Vec<Grouped> {
        let targets = addresses(inv);
        group(
            self.devices
                .iter()
                .filter(|d| d.status == "collected")
                .flat_map(|d| {
                    d.problems.iter().map(move |p| {
                        (
                            d.name.as_str(),
                            format!(
                                "{:?} {}{}: {}",
                                p.cmd,
                                p.kind,
                                if p.optional { " (optional)" } else { "" },
                                p.why
                            ),
                        )
                    })
                }),
            &targets,
        )
    }

    /// Budgets the devices ran into, one entry per distinct cut.
    pub fn limits(&self, inv: &Inventory) -> Vec<Grouped> {
        let targets = addresses(inv);
        group(
            self.devices
                .iter()
                .flat_map(|d| d.limits_hit.iter().map(|l| (d.name.as_str(), l.clone()))),
            &targets,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovery_reads_rdma_and_ip_json() {
        let (n, d) = rdma_links(
            br#"[{"ifindex":1,"ifname":"mlx5_0/1","port":1,"state":"ACTIVE","netdev":"eth2"},{"ifname":"mlx5_1","netdev":"eth3"}]"#,
        );
        assert_eq!(n, ["eth2", "eth3"]);
        assert_eq!(d, ["mlx5_0", "mlx5_1"]);
        assert_eq!(rdma_links(b"[]"), (vec![], vec![]));
        assert_eq!(rdma_links(b"garbage"), (vec![], vec![]));
        let ip = br#"[{"ifname":"lo","link_type":"loopback","operstate":"UNKNOWN"},
            {"ifname":"eth1","link_type":"ether","operstate":"UP","linkinfo":{"info_kind":"veth"}},
            {"ifname":"br0","link_type":"ether","operstate":"UP","linkinfo":{"info_kind":"bridge"}},
            {"ifname":"eth9","link_type":"ether","operstate":"DOWN"}]"#;
        assert_eq!(ethernet_up(ip), ["eth1"]);
    }

    #[test]
    fn discovered_names_are_capped_in_order() {
        let names: BTreeSet<String> = (0..2000).map(|i| format!("eth{i:04}")).collect();
        let (kept, dropped) = capped(names, 4);
        assert_eq!(kept, ["eth0000", "eth0001", "eth0002", "eth0003"]);
        assert_eq!(dropped.len(), 1996);
        let (kept, dropped) = capped(BTreeSet::from(["a".to_string()]), 4);
        assert_eq!((kept.len(), dropped.len()), (1, 0));
    }

    #[test]
    fn the_run_budget_is_taken_one_command_at_a_time() {
        let b = AtomicU64::new(2);
        assert!(take_one(&b) && take_one(&b));
        assert!(!take_one(&b));
        assert_eq!(b.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn one_cause_on_many_devices_is_one_group() {
        let by: HashMap<&str, (String, u16)> = [
            ("leaf01", ("10.0.0.1".to_string(), 2201)),
            ("leaf02", ("10.0.0.1".to_string(), 2202)),
            ("spine1", ("10.0.0.1".to_string(), 22)),
        ]
        .into_iter()
        .collect();
        let msg = |port: u16| {
            format!(
                "failed: auth: authentication as \"audit\" on 10.0.0.1:{port} failed (tried: key /k)"
            )
        };
        let items = [("leaf01", msg(2201)), ("leaf02", msg(2202))]
            .into_iter()
            .chain([(
                "spine1",
                "failed: refused: connection refused by 10.0.0.1:22".to_string(),
            )]);
        let g = group(items, &by);
        assert_eq!(g.len(), 2, "{g:?}");
        assert_eq!(g[0].devices, ["leaf01", "leaf02"]);
        assert_eq!(
            g[0].line(),
            "failed: auth: authentication as \"audit\" on <address> failed (tried: key /k): 2 devices (leaf01, leaf02)"
        );
        assert_eq!(
            g[1].line(),
            "failed: refused: connection refused by 10.0.0.1:22: 1 device (spine1)"
        );
        let many = Grouped {
            text: "x".into(),
            devices: (1..=28).map(|i| format!("leaf{i:02}")).collect(),
        };
        assert_eq!(many.line(), "x: 28 devices (leaf01, leaf02, leaf03, … +25)");
    }

    #[test]
    fn counts_describe_what_ended_how() {
        let c = CommandCounts {
            ok: 1,
            rejected: 3,
            failed: 0,
            timed_out: 0,
        };
        assert_eq!(c.describe(), "4 commands: 1 ok, 3 rejected");
        let rejected = Output {
            exit: Some(16),
            stderr: b"% Invalid command at '^' marker.".to_vec(),
            ..Default::default()
        };
        assert_eq!(
            classify(&rejected),
            ("rejected", Some("% Invalid command at '^' marker.".into()))
        );
        let slow = Output {
            error: Some("timed out".into()),
            timed_out: true,
            ..Default::default()
        };
        assert_eq!(classify(&slow).0, "timed out");
        assert_eq!(classify(&Output::default()), ("ok", None));
    }

    #[test]
    fn cli_errors_are_seen() {
        assert!(cli_error(b"\n% Invalid input detected at '^' marker.\n").is_some());
        assert!(cli_error(b"Ethernet1/1 is up\n").is_none());
    }
}
