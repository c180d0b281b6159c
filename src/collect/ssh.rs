//! The SSH side of collection, on russh: connect (directly or through one jump host), verify the
//! host key against known_hosts, authenticate (key files, ssh-agent, password from a named
//! environment variable), then run commands on exec channels or in one interactive shell with
//! prompt detection and paging answered. Every wait is bounded by a deadline.

use super::inventory::{Endpoint, Target};
use super::known_hosts::{self, KnownHosts, Verdict};
use super::shell_scan::LineScan;
use regex::Regex;
use russh::client::{self, Handle};
use russh::keys::{PrivateKeyWithHashAlg, PublicKeyOrCertificate};
use russh::{ChannelMsg, Pty};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;
use tokio::time::timeout;

/// Resolves once the run is interrupted (Ctrl-C); never, if the sender is gone.
pub async fn interrupted(cancel: &watch::Receiver<bool>) {
    let mut rx = cancel.clone();
    if rx.wait_for(|v| *v).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// Why a device could not be reached; `retry` only for connection-level errors.
#[derive(Debug, Clone)]
pub struct Failure {
    /// refused | timeout | host-key | auth | connect | jump
    pub kind: &'static str,
    pub message: String,
    pub retry: bool,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.kind, self.message)
    }
}

fn fail(kind: &'static str, message: impl Into<String>, retry: bool) -> Failure {
    Failure {
        kind,
        message: message.into(),
        retry,
    }
}

/// Checks the server's key; the reason for a refusal is kept for the error message.
pub struct Verifier {
    host: String,
    port: u16,
    known: Arc<KnownHosts>,
    tofu: bool,
    problem: Arc<Mutex<Option<String>>>,
}

impl client::Handler for Verifier {
    type Error = russh::Error;

    async fn check_server_key(
        &mut self,
        key: &PublicKeyOrCertificate,
    ) -> Result<bool, Self::Error> {
        let key = match key {
            PublicKeyOrCertificate::PublicKey { key, .. } => key,
            PublicKeyOrCertificate::Certificate(_) => {
                self.set_problem("the server presented a host certificate; only plain host keys in known_hosts are accepted".into());
                return Ok(false);
            }
        };
        let fp = known_hosts::fingerprint(key);
        let id = known_hosts::host_id(&self.host, self.port);
        match self.known.check(&self.host, self.port, key) {
            Verdict::Known => Ok(true),
            Verdict::Changed(at) => {
                self.set_problem(format!(
                    "HOST KEY CHANGED for {id}: it now presents {} {fp}, which differs from the key recorded at {at} (a key of another type counts as a changed key). Someone may be intercepting the connection, or the device was replaced; verify and update known_hosts (--trust-new-host-keys never overrides a changed key)",
                    key.algorithm()
                ));
                Ok(false)
            }
            Verdict::Revoked(at) => {
                self.set_problem(format!("host key {fp} of {id} is marked @revoked at {at}"));
                Ok(false)
            }
            Verdict::Unknown if self.tofu => match self.known.learn(&self.host, self.port, key) {
                Ok(path) => {
                    tracing_line(&format!(
                        "recorded new host key of {id} ({} {fp}) in {}",
                        key.algorithm(),
                        path.display()
                    ));
                    Ok(true)
                }
                Err(e) => {
                    self.set_problem(format!("could not record the host key of {id}: {e:#}"));
                    Ok(false)
                }
            },
            Verdict::Unknown => {
                self.set_problem(format!(
                    "unknown host key for {id} ({} {fp}): not in the known_hosts files; add it (ssh-keyscan, then verify the fingerprint) or run with --trust-new-host-keys to record it on first use",
                    key.algorithm()
                ));
                Ok(false)
            }
        }
    }
}

impl Verifier {
    fn set_problem(&self, p: String) {
        if let Ok(mut g) = self.problem.lock() {
            *g = Some(p);
        }
    }
}

fn tracing_line(msg: &str) {
    eprintln!("fabric-audit: {msg}");
}

/// The client configuration for `ep`: [`client_config`] with the host-key types known_hosts
/// records for it asked for first (see [`known_hosts::preferred_types`]).
fn config_for(ep: &Endpoint, known: &KnownHosts, base: &client::Config) -> Arc<client::Config> {
    let recorded = known.recorded_types(&ep.host, ep.port);
    let mut c = client::Config {
        nodelay: base.nodelay,
        inactivity_timeout: base.inactivity_timeout,
        preferred: base.preferred.clone(),
        ..Default::default()
    };
    c.preferred.key = known_hosts::preferred_types(&base.preferred.key, &recorded).into();
    Arc::new(c)
}

/// The client configuration: curve25519 first (a third of the cost of the post-quantum hybrid
/// on a busy collector), TCP_NODELAY on (delayed ACKs otherwise stall every login round trip).
pub fn client_config() -> Arc<client::Config> {
    use russh::kex;
    let mut c = client::Config {
        nodelay: true,
        inactivity_timeout: None,
        ..Default::default()
    };
    c.preferred.kex = std::borrow::Cow::Owned(vec![
        kex::CURVE25519,
        kex::CURVE25519_PRE_RFC_8731,
        kex::MLKEM768X25519_SHA256,
        kex::ECDH_SHA2_NISTP256,
        kex::DH_GEX_SHA256,
        kex::DH_G14_SHA256,
        kex::EXTENSION_SUPPORT_AS_CLIENT,
        kex::EXTENSION_OPENSSH_STRICT_KEX_AS_CLIENT,
    ]);
    Arc::new(c)
}

/// A logged-in SSH session (and the jump session it rides on, kept alive with it).
pub struct Session {
    pub handle: Handle<Verifier>,
    _jump: Option<Handle<Verifier>>,
}

fn classify_io(e: &std::io::Error, ep: &Endpoint) -> Failure {
    use std::io::ErrorKind::*;
    let at = format!("{}:{}", ep.host, ep.port);
    match e.kind() {
        ConnectionRefused => fail("refused", format!("connection refused by {at}"), true),
        TimedOut => fail("timeout", format!("TCP connect to {at} timed out"), true),
        _ => fail("connect", format!("cannot connect to {at}: {e}"), true),
    }
}

async fn handshake<S>(
    cfg: Arc<client::Config>,
    stream: S,
    ep: &Endpoint,
    known: &Arc<KnownHosts>,
    tofu: bool,
) -> Result<Handle<Verifier>, Failure>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let problem = Arc::new(Mutex::new(None));
    let cfg = config_for(ep, known, &cfg);
    let v = Verifier {
        host: ep.host.clone(),
        port: ep.port,
        known: known.clone(),
        tofu,
        problem: problem.clone(),
    };
    match client::connect_stream(cfg, stream, v).await {
        Ok(h) => Ok(h),
        Err(e) => {
            if let Some(p) = problem.lock().ok().and_then(|g| g.clone()) {
                return Err(fail("host-key", p, false));
            }
            Err(fail(
                "connect",
                format!("SSH handshake with {}:{} failed: {e}", ep.host, ep.port),
                true,
            ))
        }
    }
}

async fn authenticate(h: &mut Handle<Verifier>, ep: &Endpoint) -> Result<(), Failure> {
    let mut tried: Vec<String> = Vec::new();
    let auth_err = |e: russh::Error| fail("auth", format!("authentication error: {e}"), false);
    for path in &ep.identity_files {
        let key = match russh::keys::load_secret_key(path, None) {
            Ok(k) => k,
            Err(e) => {
                tried.push(format!("key {} unreadable ({e})", path.display()));
                continue;
            }
        };
        let hash = if key.algorithm().is_rsa() {
            h.best_supported_rsa_hash()
                .await
                .map_err(auth_err)?
                .flatten()
        } else {
            None
        };
        let r = h
            .authenticate_publickey(
                ep.user.clone(),
                PrivateKeyWithHashAlg::new(Arc::new(key), hash),
            )
            .await
            .map_err(auth_err)?;
        if r.success() {
            return Ok(());
        }
        tried.push(format!("key {}", path.display()));
    }
    if ep.agent
        && std::env::var_os("SSH_AUTH_SOCK").is_some()
        && let Ok(mut agent) = russh::keys::agent::client::AgentClient::connect_env().await
    {
        let ids = agent.request_identities().await.unwrap_or_default();
        for id in ids {
            let pk = id.public_key().into_owned();
            let r = h
                .authenticate_publickey_with(ep.user.clone(), pk, None, &mut agent)
                .await;
            match r {
                Ok(r) if r.success() => return Ok(()),
                _ => tried.push("an ssh-agent key".into()),
            }
        }
    }
    if let Some(var) = &ep.password_env {
        match std::env::var(var) {
            Ok(pw) => {
                let r = h
                    .authenticate_password(ep.user.clone(), pw)
                    .await
                    .map_err(auth_err)?;
                if r.success() {
                    return Ok(());
                }
                tried.push(format!("password from ${var}"));
            }
            Err(_) => tried.push(format!("password: ${var} is not set")),
        }
    }
    Err(fail(
        "auth",
        format!(
            "authentication as {:?} on {}:{} failed (tried: {})",
            ep.user,
            ep.host,
            ep.port,
            if tried.is_empty() {
                "nothing: no key file, agent or password_env configured".to_string()
            } else {
                tried.join(", ")
            }
        ),
        false,
    ))
}

async fn tcp(ep: &Endpoint) -> Result<tokio::net::TcpStream, Failure> {
    let s = tokio::net::TcpStream::connect((ep.host.as_str(), ep.port))
        .await
        .map_err(|e| classify_io(&e, ep))?;
    let _ = s.set_nodelay(true);
    Ok(s)
}

/// Connect and log in to `t` within its connect timeout (jump host included).
pub async fn connect(
    t: &Target,
    known: &Arc<KnownHosts>,
    tofu: bool,
    cfg: &Arc<client::Config>,
) -> Result<Session, Failure> {
    let work = async {
        match &t.jump {
            None => {
                let s = tcp(&t.endpoint).await?;
                let mut h = handshake(cfg.clone(), s, &t.endpoint, known, tofu).await?;
                authenticate(&mut h, &t.endpoint).await?;
                Ok(Session {
                    handle: h,
                    _jump: None,
                })
            }
            Some(j) => {
                let jw = |f: Failure| {
                    fail(
                        f.kind,
                        format!(
                            "jump host {} ({}:{}): {}",
                            j.label, j.host, j.port, f.message
                        ),
                        f.retry,
                    )
                };
                let s = tcp(j).await.map_err(jw)?;
                let mut jh = handshake(cfg.clone(), s, j, known, tofu)
                    .await
                    .map_err(jw)?;
                authenticate(&mut jh, j).await.map_err(jw)?;
                let ch = jh
                    .channel_open_direct_tcpip(
                        t.endpoint.host.clone(),
                        u32::from(t.endpoint.port),
                        "127.0.0.1",
                        0,
                    )
                    .await
                    .map_err(|e| {
                        fail(
                            "connect",
                            format!(
                                "jump host {} could not open a connection to {}:{}: {e}",
                                j.label, t.endpoint.host, t.endpoint.port
                            ),
                            true,
                        )
                    })?;
                let mut h =
                    handshake(cfg.clone(), ch.into_stream(), &t.endpoint, known, tofu).await?;
                authenticate(&mut h, &t.endpoint).await?;
                Ok(Session {
                    handle: h,
                    _jump: Some(jh),
                })
            }
        }
    };
    match timeout(t.connect_timeout, work).await {
        Ok(r) => r,
        Err(_) => Err(fail(
            "timeout",
            format!(
                "no SSH session with {}:{} within {:.0?}{}",
                t.endpoint.host,
                t.endpoint.port,
                t.connect_timeout,
                t.jump
                    .as_ref()
                    .map(|j| format!(" (through jump host {})", j.label))
                    .unwrap_or_default()
            ),
            true,
        )),
    }
}

/// What one command gave.
#[derive(Debug, Default, Clone)]
pub struct Output {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub exit: Option<u32>,
    pub duration: Duration,
    /// Why the output is incomplete or missing, if it is.
    pub error: Option<String>,
    /// The device stopped answering: later commands are not worth waiting for.
    pub stalled: bool,
    /// The device does not take exec requests (use the interactive shell).
    pub exec_refused: bool,
    /// The command's time limit ended it (its output, if any, is cut).
    pub timed_out: bool,
}

const STDERR_CAP: usize = 64 * 1024;

impl Session {
    /// Run `cmd` on its own exec channel.
    pub async fn exec(
        &self,
        cmd: &str,
        limit: Duration,
        cap: u64,
        cancel: &watch::Receiver<bool>,
    ) -> Output {
        let start = Instant::now();
        let mut out = Output::default();
        let mut ch = match timeout(limit, self.handle.channel_open_session()).await {
            Ok(Ok(ch)) => ch,
            Ok(Err(e)) => {
                out.error = Some(format!("could not open a channel: {e}"));
                out.stalled = true;
                return out;
            }
            Err(_) => {
                out.error = Some(format!("no channel within {limit:.0?}"));
                out.stalled = true;
                out.timed_out = true;
                return out;
            }
        };
        if let Err(e) = ch.exec(true, cmd).await {
            out.error = Some(format!("exec request refused: {e}"));
            out.exec_refused = true;
            return out;
        }
        let deadline = start + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let msg = tokio::select! {
                m = timeout(left, ch.wait()) => m,
                _ = interrupted(cancel) => {
                    out.error = Some(format!(
                        "interrupted with {} bytes received; output cut",
                        out.stdout.len()
                    ));
                    out.stalled = true;
                    break;
                }
            };
            match msg {
                Err(_) => {
                    out.error = Some(format!(
                        "timed out after {limit:.0?} with {} bytes received; output cut",
                        out.stdout.len()
                    ));
                    out.stalled = true;
                    out.timed_out = true;
                    break;
                }
                Ok(None) => break,
                Ok(Some(msg)) => match msg {
                    ChannelMsg::Data { data } => {
                        let room = (cap as usize).saturating_sub(out.stdout.len());
                        out.stdout.extend_from_slice(&data[..data.len().min(room)]);
                        if data.len() > room {
                            out.error = Some(format!(
                                "output larger than the {cap}-byte cap; cut at {cap} bytes"
                            ));
                            break;
                        }
                    }
                    ChannelMsg::ExtendedData { data, .. } => {
                        let room = STDERR_CAP.saturating_sub(out.stderr.len());
                        out.stderr.extend_from_slice(&data[..data.len().min(room)]);
                    }
                    ChannelMsg::ExitStatus { exit_status } => out.exit = Some(exit_status),
                    ChannelMsg::ExitSignal { signal_name, .. } => {
                        out.error = Some(format!("command killed by signal {signal_name:?}"));
                    }
                    ChannelMsg::Failure => {
                        out.error = Some("the device refused the exec request".into());
                        out.exec_refused = true;
                        break;
                    }
                    ChannelMsg::Close => break,
                    _ => {}
                },
            }
        }
        let _ = timeout(Duration::from_secs(1), ch.close()).await;
        out.duration = start.elapsed();
        out
    }

    /// Open the interactive shell: pty, shell, first prompt, then the paging-off commands.
    pub async fn shell(
        &self,
        prompt: &Regex,
        paging_off: &[String],
        limit: Duration,
        cancel: &watch::Receiver<bool>,
    ) -> Result<Shell, String> {
        let ch = match timeout(limit, self.handle.channel_open_session()).await {
            Ok(Ok(ch)) => ch,
            Ok(Err(e)) => return Err(format!("could not open a shell channel: {e}")),
            Err(_) => return Err(format!("no shell channel within {limit:.0?}")),
        };
        ch.request_pty(false, "vt100", 511, 0, 0, 0, &[(Pty::ECHO, 1)])
            .await
            .map_err(|e| format!("pty request failed: {e}"))?;
        ch.request_shell(true)
            .await
            .map_err(|e| format!("shell request failed: {e}"))?;
        let mut sh = Shell {
            ch,
            prompt_re: prompt.clone(),
            prompt: None,
            buf: Vec::new(),
            scan: LineScan::default(),
        };
        let first = sh.read_until_prompt(limit, 1 << 20, cancel).await;
        if let Some(e) = first.error {
            return Err(format!("no prompt from the device: {e}"));
        }
        for p in paging_off {
            let o = sh.run(p, limit, 1 << 20, cancel).await;
            if let Some(e) = o.error {
                return Err(format!("{p:?} failed: {e}"));
            }
        }
        Ok(sh)
    }
}

/// An interactive CLI session.
pub struct Shell {
    ch: russh::Channel<client::Msg>,
    prompt_re: Regex,
    /// The prompt as first seen; later matched exactly so output never passes for a prompt.
    prompt: Option<String>,
    buf: Vec<u8>,
    /// The visible state of the unfinished last line of `buf`, fed each byte once.
    scan: LineScan,
}

/// Pager prompts answered with a space.
fn pager_at_end(tail: &str) -> bool {
    let t = tail.trim_end();
    let lower = t.to_ascii_lowercase();
    lower.ends_with("--more--")
        || lower.ends_with("-- more --")
        || lower.ends_with("<--- more --->")
        || lower.ends_with("(more)")
        || (lower.starts_with("---(more") && lower.ends_with(")---"))
        || lower.ends_with("--more--\u{8}")
}

/// What a terminal would show: ANSI escape sequences removed, a carriage return that is not
/// part of a line end goes back to the start of the line (a pager prompt erased with spaces
/// disappears; other text is overwritten), a backspace steps back.
pub(super) fn clean(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    let mut out = String::with_capacity(s.len());
    let mut line: Vec<char> = Vec::new();
    let mut cursor = 0usize;
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '\u{1b}' => {
                if it.peek() == Some(&'[') {
                    it.next();
                    for d in it.by_ref() {
                        if d.is_ascii_alphabetic() {
                            break;
                        }
                    }
                }
            }
            '\r' => {
                if it.peek() == Some(&'\n') || it.peek() == Some(&'\r') {
                    continue;
                }
                if line.iter().all(|c| c.is_whitespace()) {
                    line.clear();
                }
                cursor = 0;
            }
            '\u{8}' => cursor = cursor.saturating_sub(1),
            '\n' => {
                out.extend(line.drain(..));
                out.push('\n');
                cursor = 0;
            }
            _ => {
                if cursor < line.len() {
                    line[cursor] = c;
                } else {
                    line.push(c);
                }
                cursor += 1;
            }
        }
    }
    out.extend(line);
    out
}

impl Shell {
    /// Is the last line the prompt? Linear overall: the line's state is kept by `scan`, and
    /// only a line narrower than `shell_scan::MAX_PROMPT` is compared.
    fn at_prompt(&mut self) -> bool {
        let Some(line) = self.scan.visible() else {
            return false;
        };
        match &self.prompt {
            Some(p) => line.trim_end() == p.trim_end(),
            None => {
                if self.prompt_re.is_match(&line) || self.prompt_re.is_match(line.trim_end()) {
                    self.prompt = Some(line);
                    true
                } else {
                    false
                }
            }
        }
    }

    fn at_pager(&self) -> bool {
        self.scan.visible().is_some_and(|l| pager_at_end(&l))
    }

    async fn read_until_prompt(
        &mut self,
        limit: Duration,
        cap: u64,
        cancel: &watch::Receiver<bool>,
    ) -> Output {
        let start = Instant::now();
        let deadline = start + limit;
        let mut out = Output::default();
        self.buf.clear();
        self.scan.clear();
        loop {
            if self.at_prompt() {
                break;
            }
            if self.at_pager() {
                // Drop the pager prompt from what we keep, then ask for the next page.
                let line_start = self.buf.len().saturating_sub(self.scan.line_bytes());
                self.buf.truncate(line_start);
                self.scan.clear();
                if let Err(e) = self.ch.data_bytes(&b" "[..]).await {
                    out.error = Some(format!("could not answer the pager: {e}"));
                    break;
                }
            }
            let left = deadline.saturating_duration_since(Instant::now());
            let msg = tokio::select! {
                m = timeout(left, self.ch.wait()) => m,
                _ = interrupted(cancel) => {
                    out.error = Some("interrupted; output cut".into());
                    out.stalled = true;
                    break;
                }
            };
            match msg {
                Err(_) => {
                    out.error = Some(format!(
                        "no prompt after {limit:.0?} ({} bytes received); output cut",
                        self.buf.len()
                    ));
                    out.stalled = true;
                    out.timed_out = true;
                    break;
                }
                Ok(None) | Ok(Some(ChannelMsg::Close)) | Ok(Some(ChannelMsg::Eof)) => {
                    out.error = Some("the device closed the session".into());
                    out.stalled = true;
                    break;
                }
                Ok(Some(ChannelMsg::Data { data })) => {
                    self.buf.extend_from_slice(&data);
                    self.scan.feed(&data);
                    if self.buf.len() as u64 > cap {
                        self.buf.truncate(cap as usize);
                        out.error = Some(format!(
                            "output larger than the {cap}-byte cap; cut at {cap} bytes"
                        ));
                        out.stalled = true;
                        break;
                    }
                }
                Ok(Some(_)) => {}
            }
        }
        out.stdout = std::mem::take(&mut self.buf);
        out.duration = start.elapsed();
        out
    }

    /// Send `cmd`, read to the next prompt, return what the command printed.
    pub async fn run(
        &mut self,
        cmd: &str,
        limit: Duration,
        cap: u64,
        cancel: &watch::Receiver<bool>,
    ) -> Output {
        if let Err(e) = self.ch.data_bytes(format!("{cmd}\n").into_bytes()).await {
            return Output {
                error: Some(format!("could not send the command: {e}")),
                stalled: true,
                ..Default::default()
            };
        }
        let mut o = self.read_until_prompt(limit, cap, cancel).await;
        let text = clean(&o.stdout);
        let mut lines: Vec<&str> = text.split('\n').collect();
        // The echo of the command comes first; the prompt comes last.
        if lines
            .first()
            .is_some_and(|l| l.trim_end().ends_with(cmd.trim()))
        {
            lines.remove(0);
        }
        if o.error.is_none() {
            lines.pop();
        }
        let mut body = lines.join("\n");
        if !body.is_empty() && !body.ends_with('\n') {
            body.push('\n');
        }
        o.stdout = body.into_bytes();
        if o.error.is_none() {
            o.exit = Some(0);
        }
        o
    }

    pub async fn close(self) {
        let _ = timeout(Duration::from_secs(1), self.ch.data_bytes(&b"exit\n"[..])).await;
        let _ = timeout(Duration::from_secs(1), self.ch.close()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pager_and_ansi() {
        assert!(pager_at_end(" --More-- "));
        assert!(pager_at_end("<--- More --->"));
        assert!(pager_at_end("---(more 45%)---"));
        assert!(!pager_at_end("leaf1# "));
        assert_eq!(clean(b"\x1b[7mab\x1b[m\r\nc"), "ab\nc");
        assert_eq!(clean(b"a\n\r          \r  mtu 9216\r\n"), "a\n  mtu 9216\n");
        assert_eq!(clean(b"abc\x08\x08XY\n"), "aXY\n");
    }
}
