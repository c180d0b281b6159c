//! A process on a probe host, over the collection's SSH session.
//!
//! Every tool runs in its own session (`setsid`) under `timeout -k`, so the host itself ends it
//! even if this program dies; servers write to a temporary log and are ended by their process
//! group; clients run in the foreground with their pid printed first, so our deadline or a
//! Ctrl-C can end them the same way. Cleanup commands use a cancel signal that never fires:
//! an interrupted run still cleans up.
//!
//! Only commands built by this module's callers from checked names (`safe_word`) and numbers
//! are sent.

use crate::collect::ssh::{Output, Session};
use crate::parser::allow::safe_word;
use std::time::Duration;
use tokio::sync::watch;

pub struct Host<'a> {
    pub name: String,
    pub session: &'a Session,
    /// Prepended to PATH for the tools (perftest built under /opt, a test's stand-ins).
    pub tool_dir: Option<String>,
    pub cancel: watch::Receiver<bool>,
    /// A receiver whose sender is gone: never signals, for cleanup that must run regardless.
    never: watch::Receiver<bool>,
}

/// A background process started by `start`.
#[derive(Debug, Clone)]
pub struct Started {
    pub pid: u32,
    pub log: String,
}

/// What a foreground client gave.
#[derive(Debug, Clone, Default)]
pub struct ClientOut {
    pub text: String,
    /// The tool's exit status (124: `timeout` ended it).
    pub exit: Option<i32>,
    /// ok | timeout | interrupted | failed (the SSH side failed: `error` says why)
    pub status: &'static str,
    pub error: Option<String>,
}

const CAP: u64 = 4 << 20;

impl<'a> Host<'a> {
    pub fn new(
        name: &str,
        session: &'a Session,
        tool_dir: Option<String>,
        cancel: watch::Receiver<bool>,
    ) -> Host<'a> {
        let (_tx, never) = watch::channel(false);
        Host {
            name: name.to_string(),
            session,
            tool_dir,
            cancel,
            never,
        }
    }

    fn prefix(&self) -> String {
        match &self.tool_dir {
            Some(d) => format!("PATH={d}:$PATH; export PATH; "),
            None => String::new(),
        }
    }

    /// Run a short command (bounded by `limit` here and by `timeout` on the host).
    pub async fn run(&self, cmd: &str, limit: Duration) -> Output {
        let secs = limit.as_secs().max(1);
        let full = format!("{}timeout -k 1 {secs} {cmd}", self.prefix());
        self.session
            .exec(&full, limit + Duration::from_secs(3), CAP, &self.cancel)
            .await
    }

    /// Run a command that must not be interrupted (reading counters back, cleanup).
    pub async fn run_always(&self, cmd: &str, limit: Duration) -> Output {
        self.session
            .exec(cmd, limit + Duration::from_secs(3), CAP, &self.never)
            .await
    }

    /// Start `cmd` in the background for at most `secs` seconds; its output goes to a log file
    /// that `stop` returns.
    pub async fn start(&self, cmd: &str, secs: u64) -> Result<Started, String> {
        let full = format!(
            "{}log=$(mktemp /tmp/fabric-audit-probe.XXXXXX) || exit 1; setsid timeout -k 2 {secs} {cmd} >\"$log\" 2>&1 </dev/null & echo \"@fa pid=$! log=$log\"",
            self.prefix()
        );
        let o = self
            .session
            .exec(&full, Duration::from_secs(15), CAP, &self.never)
            .await;
        let text = String::from_utf8_lossy(&o.stdout);
        let parsed = text.lines().find_map(|l| {
            let rest = l.trim().strip_prefix("@fa pid=")?;
            let (pid, log) = rest.split_once(" log=")?;
            Some(Started {
                pid: pid.parse().ok()?,
                log: log.trim().to_string(),
            })
        });
        match parsed {
            Some(s) if safe_word(&s.log) && s.log.starts_with("/tmp/fabric-audit-probe.") => Ok(s),
            _ => Err(format!(
                "could not start {cmd:?} on {}: {}{}",
                self.name,
                o.error.unwrap_or_default(),
                String::from_utf8_lossy(&o.stderr).trim()
            )),
        }
    }

    /// Wait until the server listens on `port` (or says it waits), or has exited; at most
    /// `secs` seconds. Returns false when it exited.
    pub async fn wait_ready(&self, s: &Started, port: u16, secs: u64) -> bool {
        let tries = secs * 10;
        let cmd = format!(
            "i=0; while [ $i -lt {tries} ]; do \
               if ss -Hltn 2>/dev/null | awk '{{print $4}}' | grep -q ':{port}$' || grep -q 'Waiting for client' {log} 2>/dev/null; then echo ready; exit 0; fi; \
               kill -0 {pid} 2>/dev/null || {{ echo exited; exit 0; }}; \
               sleep 0.1; i=$((i+1)); done; echo waiting",
            log = s.log,
            pid = s.pid
        );
        let o = self.run_always(&cmd, Duration::from_secs(secs + 2)).await;
        !String::from_utf8_lossy(&o.stdout).contains("exited")
    }

    /// End a background process (its whole process group), then return and remove its log.
    pub async fn stop(&self, s: &Started) -> String {
        let cmd = format!(
            "{} cat {log} 2>/dev/null; rm -f {log}",
            kill_group(s.pid),
            log = s.log
        );
        let o = self.run_always(&cmd, Duration::from_secs(10)).await;
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    /// Run `cmd` in the foreground for at most `secs` seconds; on our deadline or Ctrl-C its
    /// process group is ended on the host before this returns.
    pub async fn client(&self, cmd: &str, secs: u64) -> ClientOut {
        let full = format!(
            "{}setsid timeout -k 2 {secs} {cmd} </dev/null 2>&1 & p=$!; echo \"@fa pid=$p\"; wait $p; echo \"@fa exit=$?\"",
            self.prefix()
        );
        let o = self
            .session
            .exec(&full, Duration::from_secs(secs + 5), CAP, &self.cancel)
            .await;
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        let mut out = ClientOut::default();
        let mut pid = None;
        let mut body = String::new();
        for l in text.lines() {
            if let Some(p) = l.strip_prefix("@fa pid=") {
                pid = p.trim().parse::<u32>().ok();
            } else if let Some(e) = l.strip_prefix("@fa exit=") {
                out.exit = e.trim().parse().ok();
            } else {
                body.push_str(l);
                body.push('\n');
            }
        }
        out.text = body;
        let interrupted = *self.cancel.borrow();
        out.status = match (out.exit, interrupted) {
            (Some(124), _) | (Some(137), _) => "timeout",
            (Some(_), _) => "ok",
            (None, true) => "interrupted",
            (None, false) if o.stalled => "timeout",
            (None, false) => "failed",
        };
        if out.exit.is_none() {
            out.error = o.error.clone();
            if let Some(pid) = pid {
                self.run_always(&kill_group(pid), Duration::from_secs(10))
                    .await;
            }
        }
        out
    }
}

/// TERM the process group of `pid` (and `pid`), wait up to 3 s, then KILL what is left.
fn kill_group(pid: u32) -> String {
    format!(
        "kill -TERM -- -{pid} {pid} 2>/dev/null; i=0; while kill -0 {pid} 2>/dev/null && [ $i -lt 30 ]; do sleep 0.1; i=$((i+1)); done; kill -KILL -- -{pid} {pid} 2>/dev/null;"
    )
}
