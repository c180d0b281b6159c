//! A fleet of emulated devices served from one process (`fabric-audit emulate`): one SSH
//! server per device on consecutive loopback ports, with the inventory and known_hosts lines
//! that reach them.

use super::emulator::{self, Access, Device};
use anyhow::{Context, Result, bail};
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

/// What to serve and where (the `emulate` subcommand's options).
#[derive(Debug, Clone)]
pub struct Fleet {
    pub devices: Vec<PathBuf>,
    pub listen: SocketAddr,
    pub count: usize,
    pub user: String,
    pub password_env: Option<String>,
    pub authorized_key: Vec<PathBuf>,
    pub host_key: Option<PathBuf>,
    pub known_hosts_out: Option<PathBuf>,
    pub inventory_out: Option<PathBuf>,
    /// A fabric.toml whose `[policy]`, `[[link]]` cabling plan and device roles go into the
    /// written inventory (a collection then knows the links the emulated devices stand for).
    pub fabric: Option<PathBuf>,
}

/// Serve the fleet until Ctrl-C.
pub fn serve(a: Fleet) -> Result<()> {
    if !a.listen.ip().is_loopback() {
        bail!("--listen must be a loopback address (127.0.0.0/8 or ::1)");
    }
    let total = a.devices.len() * a.count.max(1);
    raise_fd_limit(total * 2 + 256);
    if usize::from(a.listen.port()) + total > 65_536 {
        bail!(
            "{total} devices do not fit in the ports above {}",
            a.listen.port()
        );
    }
    let host_key = match &a.host_key {
        Some(p) => russh::keys::load_secret_key(p, None)
            .with_context(|| format!("reading host key {}", p.display()))?,
        None => emulator::random_key()?,
    };
    let pubkey = host_key
        .public_key()
        .to_openssh()
        .context("encoding the host key")?;
    let mut keys = Vec::new();
    for p in &a.authorized_key {
        let text =
            std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
        keys.push(
            russh::keys::PublicKey::from_openssh(text.trim())
                .with_context(|| format!("{}: not an OpenSSH public key", p.display()))?,
        );
    }
    let password = match &a.password_env {
        Some(v) => Some(std::env::var(v).with_context(|| format!("${v} is not set"))?),
        None => None,
    };
    let access = Arc::new(Access {
        user: a.user.clone(),
        password,
        keys,
    });
    let mut devices = Vec::new();
    for p in &a.devices {
        devices.push(Device::load(p)?);
    }
    let fabric = match &a.fabric {
        Some(_) if a.count > 1 => bail!("--fabric names single devices; it cannot go with --count"),
        Some(p) => {
            let text =
                std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
            let t: toml::Table = toml::from_str(&text)
                .map_err(|e| anyhow::anyhow!("{}: {}", p.display(), e.message().trim_end()))?;
            Some(t)
        }
        None => None,
    };
    let role_of = |name: &str| -> Option<String> {
        fabric
            .as_ref()?
            .get("device")?
            .as_array()?
            .iter()
            .find(|d| d.get("name").and_then(|n| n.as_str()) == Some(name))?
            .get("role")?
            .as_str()
            .map(str::to_string)
    };
    let mut plan = toml::Table::new();
    if let Some(f) = &fabric {
        for k in ["policy", "link"] {
            if let Some(v) = f.get(k) {
                plan.insert(k.into(), v.clone());
            }
        }
    }
    let plan = if plan.is_empty() {
        String::new()
    } else {
        format!(
            "\n# [policy] and cabling plan from {}\n{}",
            a.fabric
                .as_deref()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
            toml::to_string(&plan).context("encoding the cabling plan")?
        )
    };
    let cfg = emulator::server_config(host_key);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    rt.block_on(async move {
        let mut kh = String::new();
        let mut inv = String::from("# Written by fabric-audit emulate\n[defaults]\n");
        inv.push_str(&format!("user = {:?}\n", a.user));
        if let Some(v) = &a.password_env {
            inv.push_str(&format!("password_env = {v:?}\n"));
        }
        if let Some(k) = &a.known_hosts_out {
            let abs = std::path::absolute(k).unwrap_or_else(|_| k.clone());
            inv.push_str(&format!("known_hosts = {:?}\n", abs.display().to_string()));
        }
        let mut n = 0usize;
        for rep in 0..a.count.max(1) {
            for d in &devices {
                let mut d = d.clone();
                if a.count > 1 {
                    d.hostname = format!("{}-{:04}", d.hostname, rep + 1);
                }
                let addr = SocketAddr::new(a.listen.ip(), a.listen.port() + n as u16);
                n += 1;
                let listener = emulator::bind(addr).await?;
                kh.push_str(&format!("[{}]:{} {pubkey}\n", addr.ip(), addr.port()));
                inv.push_str(&format!(
                    "\n[[device]]\nname = {:?}\naddress = \"{}\"\nport = {}\nplatform = {:?}\n",
                    d.hostname,
                    addr.ip(),
                    addr.port(),
                    d.platform
                ));
                if let Some(r) = role_of(&d.hostname) {
                    inv.push_str(&format!("role = {r:?}\n"));
                }
                tokio::spawn(emulator::serve(
                    listener,
                    Arc::new(d),
                    access.clone(),
                    cfg.clone(),
                ));
            }
        }
        if let Some(p) = &a.known_hosts_out {
            std::fs::write(p, &kh).with_context(|| format!("writing {}", p.display()))?;
        }
        inv.push_str(&plan);
        if let Some(p) = &a.inventory_out {
            std::fs::write(p, &inv).with_context(|| format!("writing {}", p.display()))?;
        }
        println!(
            "ready: {n} emulated devices on {}:{}-{}",
            a.listen.ip(),
            a.listen.port(),
            usize::from(a.listen.port()) + n - 1
        );
        let _ = std::io::stdout().flush();
        let _ = tokio::signal::ctrl_c().await;
        Ok::<_, anyhow::Error>(())
    })
}

/// Every device needs a listening socket and each session another: lift the soft limit on open
/// files toward the hard one when the default (often 1024) is too small.
fn raise_fd_limit(want: usize) {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit only read and write the struct passed to them.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 && (lim.rlim_cur as usize) < want {
            lim.rlim_cur = (want as libc::rlim_t).min(lim.rlim_max);
            let _ = libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        }
    }
}
