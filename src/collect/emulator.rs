//! A switch emulator: a real SSH server (russh) on 127.0.0.0/8 that plays a network device for
//! the collection tests, the benchmark and `fabric-audit emulate`. It answers exec requests
//! and an interactive CLI with the platform's prompt, echo and `--More--` paging (until
//! `terminal length 0`), serves command outputs from files, and can misbehave on purpose: hang
//! mid-output, print without end, refuse exec. As a jump host it forwards only to 127.0.0.0/8.
//!
//! A device is described by a TOML file:
//! ```toml
//! platform = "nxos"            # prompt style and paging
//! hostname = "leaf1"
//! exec = true                  # accept exec requests (false: interactive CLI only)
//! page_lines = 24              # shell paging until "terminal length 0"; 0 = none
//! outputs_from = "../demo-fabric/devices/gpu01"   # a snapshot device folder (device.toml)
//! [outputs]                    # command -> file, relative to this TOML file
//! "show running-config" = "../demo-fabric/configs/leaf1.cfg"
//! [live]                       # command -> file read again at every request (counters)
//! "show pfc counters" = "pfc.txt"
//! [faults]
//! hang = ["show interface"]            # print half, then nothing more
//! endless = { "show interface" = 104857600 }   # print this many bytes
//! drip = { "show interface" = 2097152 }        # this many bytes, no newline, 64 at a time
//! delay_ms = 1500                      # wait this long before answering each exec request
//! ```
//!
//! Every command the emulator receives (exec request or shell line) is logged in
//! `Device::received`, so a test can prove what a collector never sent.

use crate::platform::registry::{Emulation, GENERIC_CLI};
use anyhow::{Context, Result, bail};
use russh::keys::{PrivateKey, PublicKey};
use russh::server::{self, Auth, Msg, Session};
use russh::{Channel, ChannelId};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceFile {
    pub platform: String,
    pub hostname: String,
    #[serde(default = "yes")]
    pub exec: bool,
    #[serde(default = "default_page")]
    pub page_lines: usize,
    /// A snapshot device folder whose device.toml maps commands to files.
    #[serde(default)]
    pub outputs_from: Option<PathBuf>,
    #[serde(default)]
    pub outputs: BTreeMap<String, PathBuf>,
    /// Command -> file read again at every request (counters that change between reads).
    #[serde(default)]
    pub live: BTreeMap<String, PathBuf>,
    #[serde(default)]
    pub faults: Faults,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Faults {
    #[serde(default)]
    pub hang: Vec<String>,
    #[serde(default)]
    pub endless: BTreeMap<String, u64>,
    /// The CLI accepts the paging-off command but keeps paging (a role without the right to
    /// change the terminal): the collector must answer every pager prompt.
    #[serde(default)]
    pub sticky_paging: bool,
    /// Command -> bytes printed 64 at a time as one line that never ends (no newline, no
    /// prompt): a collector must cut it at its output cap or timeout, in bounded time.
    #[serde(default)]
    pub drip: BTreeMap<String, u64>,
    /// Milliseconds to wait before answering each exec request (a device answering just inside
    /// the command timeout, every time).
    #[serde(default)]
    pub delay_ms: u64,
}

fn yes() -> bool {
    true
}
fn default_page() -> usize {
    24
}

/// A device the emulator plays, outputs loaded.
#[derive(Debug, Clone, Default)]
pub struct Device {
    pub platform: String,
    pub hostname: String,
    pub exec: bool,
    pub page_lines: usize,
    pub outputs: HashMap<String, Arc<Vec<u8>>>,
    /// Outputs read from their file at every request.
    pub live: HashMap<String, PathBuf>,
    pub hang: HashSet<String>,
    pub endless: HashMap<String, u64>,
    pub sticky_paging: bool,
    pub drip: HashMap<String, u64>,
    pub delay: Duration,
    /// Every command received, in order (exec requests and shell lines).
    pub received: Arc<std::sync::Mutex<Vec<String>>>,
    /// Logins accepted (password or key), so a test can tell a kept session from a new one.
    pub logins: Arc<std::sync::atomic::AtomicUsize>,
}

impl Device {
    pub fn load(path: &Path) -> Result<Device> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading emulated device {}", path.display()))?;
        let f: DeviceFile = toml::from_str(&text)
            .map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.message().trim_end()))?;
        let base = path.parent().unwrap_or(Path::new("."));
        let mut outputs = HashMap::new();
        if let Some(dir) = &f.outputs_from {
            let dir = base.join(dir);
            let (input, _) = crate::snapshot::read_device_folder(&dir, &dir);
            for file in input.files {
                if let (Some(cmd), Ok(text)) = (file.command, file.text) {
                    outputs.insert(cmd, Arc::new(text.into_bytes()));
                }
            }
        }
        for (cmd, file) in &f.outputs {
            let p = base.join(file);
            let bytes = std::fs::read(&p).with_context(|| {
                format!(
                    "{}: output of {cmd:?}: reading {}",
                    path.display(),
                    p.display()
                )
            })?;
            outputs.insert(cmd.clone(), Arc::new(bytes));
        }
        Ok(Device {
            platform: f.platform,
            hostname: f.hostname,
            exec: f.exec,
            page_lines: f.page_lines,
            outputs,
            live: f
                .live
                .iter()
                .map(|(c, p)| (c.clone(), base.join(p)))
                .collect(),
            hang: f.faults.hang.into_iter().collect(),
            endless: f.faults.endless.into_iter().collect(),
            sticky_paging: f.faults.sticky_paging,
            drip: f.faults.drip.into_iter().collect(),
            delay: Duration::from_millis(f.faults.delay_ms),
            received: Default::default(),
            logins: Default::default(),
        })
    }

    fn log(&self, cmd: &str) {
        if let Ok(mut r) = self.received.lock() {
            r.push(cmd.to_string());
        }
    }

    /// The output of `cmd`: a live file as it is now, or the loaded one.
    pub fn output(&self, cmd: &str) -> Option<Arc<Vec<u8>>> {
        if let Some(p) = self.live.get(cmd) {
            return std::fs::read(p).ok().map(Arc::new);
        }
        self.outputs.get(cmd).cloned()
    }

    /// How the platform's CLI looks (the registry's entry; a platform without one looks like
    /// a generic switch CLI).
    fn emulation(&self) -> &'static Emulation {
        crate::platform::registry::get(&self.platform).map_or(&GENERIC_CLI, |e| &e.emulation)
    }

    fn prompt(&self) -> String {
        self.emulation().prompt.replace("{h}", &self.hostname)
    }

    /// What the platform's pager prints at the end of a page.
    fn pager(&self) -> &'static str {
        self.emulation().pager
    }

    fn invalid(&self, cmd: &str) -> Vec<u8> {
        let word = cmd.split_whitespace().next().unwrap_or("");
        self.emulation().invalid.replace("{cmd}", word).into_bytes()
    }
}

/// Who may log in.
#[derive(Debug, Clone, Default)]
pub struct Access {
    pub user: String,
    pub password: Option<String>,
    pub keys: Vec<PublicKey>,
}

/// The server configuration: one host key, fast rejections (tests try wrong passwords).
pub fn server_config(host_key: PrivateKey) -> Arc<server::Config> {
    Arc::new(server::Config {
        keys: vec![host_key],
        auth_rejection_time: Duration::from_millis(20),
        auth_rejection_time_initial: Some(Duration::ZERO),
        inactivity_timeout: Some(Duration::from_secs(120)),
        nodelay: true,
        ..Default::default()
    })
}

/// A fresh ed25519 key (host keys of emulated devices, test client keys).
pub fn random_key() -> Result<PrivateKey> {
    PrivateKey::random(
        &mut russh::keys::key::safe_rng(),
        russh::keys::Algorithm::Ed25519,
    )
    .context("generating an ed25519 key")
}

#[derive(Default)]
struct ShellState {
    line: Vec<u8>,
    paging: bool,
    /// Lines still to show after a `--More--`.
    pending: std::collections::VecDeque<Vec<u8>>,
}

struct Conn {
    dev: Arc<Device>,
    access: Arc<Access>,
    shells: HashMap<ChannelId, ShellState>,
    channels: HashMap<ChannelId, Channel<Msg>>,
}

/// Connections forwarded as a jump host, since the process started (tests prove a jump with it).
pub static FORWARDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn loopback_target(host: &str) -> Option<IpAddr> {
    let ip: IpAddr = host.parse().ok()?;
    match ip {
        IpAddr::V4(v4) if v4.is_loopback() => Some(ip),
        IpAddr::V6(v6) if v6.is_loopback() => Some(ip),
        _ => None,
    }
}

/// Stream `body` (or `endless` bytes of filler) on an exec channel, then exit 0 and close.
async fn stream_output(
    handle: server::Handle,
    id: ChannelId,
    body: Arc<Vec<u8>>,
    endless: Option<u64>,
    hang: bool,
) {
    const CHUNK: usize = 32 * 1024;
    if let Some(total) = endless {
        let line = "Ethernet1/1 is up, line protocol is up (connected)\n";
        let filler: bytes::Bytes = line.repeat(CHUNK / line.len() + 1).into_bytes()[..CHUNK]
            .to_vec()
            .into();
        let mut sent = 0u64;
        while sent < total {
            let n = (total - sent).min(CHUNK as u64) as usize;
            if handle.data(id, filler.slice(..n)).await.is_err() {
                return;
            }
            sent += n as u64;
        }
    } else {
        let end = if hang { body.len() / 2 } else { body.len() };
        for chunk in body[..end].chunks(CHUNK) {
            if handle
                .data(id, bytes::Bytes::copy_from_slice(chunk))
                .await
                .is_err()
            {
                return;
            }
        }
        if hang {
            // Say nothing more; the client's command timeout must end this.
            tokio::time::sleep(Duration::from_secs(3600)).await;
            return;
        }
    }
    let _ = handle.exit_status_request(id, 0).await;
    let _ = handle.eof(id).await;
    let _ = handle.close(id).await;
}

/// Send `total` bytes 64 at a time, never a newline, never an end.
async fn drip(handle: server::Handle, id: ChannelId, total: u64) {
    let chunk = bytes::Bytes::from_static(&[b'x'; 64]);
    let mut sent = 0u64;
    while sent < total {
        let n = (total - sent).min(64) as usize;
        if handle.data(id, chunk.slice(..n)).await.is_err() {
            return;
        }
        sent += n as u64;
    }
    tokio::time::sleep(Duration::from_secs(3600)).await;
}

/// Answer an exec request: after the device's delay, its output (or its faults), or the
/// platform's error for a command it does not know.
async fn answer_exec(handle: server::Handle, id: ChannelId, dev: Arc<Device>, cmd: String) {
    tokio::time::sleep(dev.delay).await;
    if let Some(&n) = dev.drip.get(&cmd) {
        return drip(handle, id, n).await;
    }
    let endless = dev.endless.get(&cmd).copied();
    match dev.output(&cmd) {
        Some(body) => stream_output(handle, id, body, endless, dev.hang.contains(&cmd)).await,
        None if endless.is_some() => {
            stream_output(handle, id, Arc::new(Vec::new()), endless, false).await
        }
        None => {
            let msg = bytes::Bytes::from(dev.invalid(&cmd));
            let code = if crate::platform::registry::is_host(&dev.platform) {
                let _ = handle.extended_data(id, 1, msg).await;
                127
            } else {
                let _ = handle.data(id, msg).await;
                16
            };
            let _ = handle.exit_status_request(id, code).await;
            let _ = handle.eof(id).await;
            let _ = handle.close(id).await;
        }
    }
}

impl Conn {
    fn key_allowed(&self, user: &str, key: &PublicKey) -> Auth {
        if user == self.access.user
            && self
                .access
                .keys
                .iter()
                .any(|k| k.key_data() == key.key_data())
        {
            Auth::Accept
        } else {
            Auth::reject()
        }
    }

    fn send_page(&mut self, id: ChannelId, session: &mut Session) -> Result<(), russh::Error> {
        let page = self.dev.page_lines;
        let prompt = self.dev.prompt();
        let Some(st) = self.shells.get_mut(&id) else {
            return Ok(());
        };
        let mut out = Vec::new();
        let mut n = 0;
        while let Some(l) = st.pending.pop_front() {
            out.extend_from_slice(&l);
            n += 1;
            if st.paging && page > 0 && n >= page && !st.pending.is_empty() {
                out.extend_from_slice(self.dev.pager().as_bytes());
                break;
            }
        }
        if st.pending.is_empty() {
            out.extend_from_slice(prompt.as_bytes());
        }
        session.data(id, out)?;
        Ok(())
    }

    fn shell_line(
        &mut self,
        id: ChannelId,
        line: &str,
        session: &mut Session,
    ) -> Result<(), russh::Error> {
        let cmd = line.trim();
        let dev = self.dev.clone();
        let Some(st) = self.shells.get_mut(&id) else {
            return Ok(());
        };
        if !cmd.is_empty() {
            dev.log(cmd);
        }
        if let Some(&n) = dev.drip.get(cmd) {
            tokio::spawn(drip(session.handle(), id, n));
            return Ok(());
        }
        let body: Vec<u8> = if cmd.is_empty() {
            Vec::new()
        } else if cmd == "exit" || cmd == "quit" {
            session.data(id, b"\r\n".to_vec())?;
            session.exit_status_request(id, 0)?;
            session.eof(id)?;
            session.close(id)?;
            return Ok(());
        } else if cmd.starts_with("terminal length 0")
            || cmd == "set cli screen-length 0"
            || cmd == "no cli session paging enable"
        {
            st.paging = dev.sticky_paging;
            Vec::new()
        } else if cmd.starts_with("terminal width") || cmd.starts_with("terminal length") {
            Vec::new()
        } else if let Some(o) = dev.output(cmd) {
            o.to_vec()
        } else {
            dev.invalid(cmd)
        };
        if dev.hang.contains(cmd) {
            let half = &body[..body.len() / 2];
            session.data(id, half.to_vec())?;
            return Ok(());
        }
        // The terminal turns every \n into \r\n.
        let mut lines = std::collections::VecDeque::new();
        for l in body.split_inclusive(|&b| b == b'\n') {
            let mut v = l.strip_suffix(b"\n").unwrap_or(l).to_vec();
            if l.ends_with(b"\n") {
                v.extend_from_slice(b"\r\n");
            }
            lines.push_back(v);
        }
        st.pending = lines;
        self.send_page(id, session)
    }
}

impl server::Handler for Conn {
    type Error = russh::Error;

    async fn auth_password(&mut self, user: &str, password: &str) -> Result<Auth, Self::Error> {
        if user == self.access.user && self.access.password.as_deref() == Some(password) {
            self.dev
                .logins
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Ok(Auth::Accept)
        } else {
            Ok(Auth::reject())
        }
    }

    async fn auth_publickey_offered(
        &mut self,
        user: &str,
        offer: server::PublicKeyOffer<'_>,
    ) -> Result<Auth, Self::Error> {
        Ok(self.key_allowed(user, offer.public_key))
    }

    async fn auth_publickey(
        &mut self,
        user: &str,
        key: server::VerifiedPublicKey<'_>,
    ) -> Result<Auth, Self::Error> {
        let auth = self.key_allowed(user, key.public_key);
        if matches!(auth, Auth::Accept) {
            self.dev
                .logins
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(auth)
    }

    async fn channel_open_session(
        &mut self,
        channel: Channel<Msg>,
        reply: server::ChannelOpenHandle,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        self.channels.insert(channel.id(), channel);
        reply.accept().await;
        Ok(())
    }

    async fn channel_open_direct_tcpip(
        &mut self,
        channel: Channel<Msg>,
        host_to_connect: &str,
        port_to_connect: u32,
        _originator_address: &str,
        _originator_port: u32,
        reply: server::ChannelOpenHandle,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        let Some(ip) = loopback_target(host_to_connect) else {
            reply
                .reject(russh::ChannelOpenFailure::AdministrativelyProhibited)
                .await;
            return Ok(());
        };
        let Ok(port) = u16::try_from(port_to_connect) else {
            reply.reject(russh::ChannelOpenFailure::ConnectFailed).await;
            return Ok(());
        };
        match tokio::net::TcpStream::connect(SocketAddr::new(ip, port)).await {
            Ok(mut sock) => {
                FORWARDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                reply.accept().await;
                tokio::spawn(async move {
                    let mut ch = channel.into_stream();
                    let _ = tokio::io::copy_bidirectional(&mut ch, &mut sock).await;
                });
            }
            Err(_) => {
                reply.reject(russh::ChannelOpenFailure::ConnectFailed).await;
            }
        }
        Ok(())
    }

    async fn pty_request(
        &mut self,
        channel: ChannelId,
        _term: &str,
        _col_width: u32,
        _row_height: u32,
        _pix_width: u32,
        _pix_height: u32,
        _modes: &[(russh::Pty, u32)],
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        session.channel_success(channel)?;
        Ok(())
    }

    async fn shell_request(
        &mut self,
        channel: ChannelId,
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        session.channel_success(channel)?;
        self.shells.insert(
            channel,
            ShellState {
                paging: true,
                ..Default::default()
            },
        );
        let banner = format!(
            "\r\nEmulated {} device {} (fabric-audit test emulator)\r\n\r\n{}",
            self.dev.platform,
            self.dev.hostname,
            self.dev.prompt()
        );
        session.data(channel, banner.into_bytes())?;
        Ok(())
    }

    async fn exec_request(
        &mut self,
        channel: ChannelId,
        data: &[u8],
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        if !self.dev.exec {
            session.channel_failure(channel)?;
            return Ok(());
        }
        session.channel_success(channel)?;
        let cmd = String::from_utf8_lossy(data).trim().to_string();
        self.dev.log(&cmd);
        tokio::spawn(answer_exec(
            session.handle(),
            channel,
            self.dev.clone(),
            cmd,
        ));
        Ok(())
    }

    async fn data(
        &mut self,
        channel: ChannelId,
        data: &[u8],
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        let Some(st) = self.shells.get_mut(&channel) else {
            return Ok(());
        };
        if !st.pending.is_empty() {
            // At a --More--: space shows the next page, q stops.
            if data.contains(&b'q') {
                st.pending.clear();
                let p = self.dev.prompt();
                session.data(channel, format!("\r\n{p}").into_bytes())?;
                return Ok(());
            }
            session.data(channel, b"\r          \r".to_vec())?;
            return self.send_page(channel, session);
        }
        let mut echo = Vec::new();
        let mut lines = Vec::new();
        for &b in data {
            match b {
                b'\r' | b'\n' => {
                    echo.extend_from_slice(b"\r\n");
                    lines.push(String::from_utf8_lossy(&st.line).into_owned());
                    st.line.clear();
                }
                _ => {
                    echo.push(b);
                    st.line.push(b);
                }
            }
        }
        session.data(channel, echo)?;
        for l in lines {
            self.shell_line(channel, &l, session)?;
        }
        Ok(())
    }
}

/// Serve `dev` on `listener` until the task is dropped.
pub async fn serve(
    listener: tokio::net::TcpListener,
    dev: Arc<Device>,
    access: Arc<Access>,
    cfg: Arc<server::Config>,
) {
    loop {
        let Ok((sock, _)) = listener.accept().await else {
            continue;
        };
        let _ = sock.set_nodelay(true);
        let conn = Conn {
            dev: dev.clone(),
            access: access.clone(),
            shells: HashMap::new(),
            channels: HashMap::new(),
        };
        let cfg = cfg.clone();
        tokio::spawn(async move {
            if let Ok(s) = server::run_stream(cfg, sock, conn).await {
                let _ = s.await;
            }
        });
    }
}

/// Bind a listener, refusing anything outside 127.0.0.0/8 and ::1.
pub async fn bind(addr: SocketAddr) -> Result<tokio::net::TcpListener> {
    if !addr.ip().is_loopback() {
        bail!("the emulator listens on loopback addresses only (127.0.0.0/8, ::1), not {addr}");
    }
    tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("binding {addr}"))
}
