//! `fabric-audit emulate`: serve emulated devices (see `emulator`) from the command line, and
//! write the inventory and known_hosts that reach them, so a collection can be tried or
//! measured without a single real switch.

use super::ExitStatus;
use crate::collect::fleet::{self, Fleet};
use anyhow::Result;
use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct EmulateArgs {
    /// Emulated device files (TOML); each is served on its own port.
    #[arg(long = "device", required = true, num_args = 1..)]
    pub devices: Vec<PathBuf>,
    /// First address to listen on (127.0.0.0/8 only); later devices take the next ports.
    #[arg(long, default_value = "127.0.0.1:2200")]
    pub listen: SocketAddr,
    /// Serve every device file this many times (hostnames get a number).
    #[arg(long, default_value_t = 1)]
    pub count: usize,
    /// User allowed to log in.
    #[arg(long, default_value = "audit")]
    pub user: String,
    /// Environment variable holding the accepted password.
    #[arg(long)]
    pub password_env: Option<String>,
    /// Public key files (OpenSSH format) accepted for the user.
    #[arg(long)]
    pub authorized_key: Vec<PathBuf>,
    /// Host key (OpenSSH private key); default: a fresh ed25519 key.
    #[arg(long)]
    pub host_key: Option<PathBuf>,
    /// Write the known_hosts lines of the emulated devices here.
    #[arg(long)]
    pub known_hosts_out: Option<PathBuf>,
    /// Write a fabric-audit inventory (TOML) that reaches the emulated devices here.
    #[arg(long)]
    pub inventory_out: Option<PathBuf>,
    /// A fabric.toml whose [policy], [[link]] cabling plan and device roles are written into
    /// the --inventory-out inventory.
    #[arg(long, requires = "inventory_out")]
    pub fabric: Option<PathBuf>,
}

pub fn run(a: EmulateArgs) -> Result<ExitStatus> {
    fleet::serve(Fleet {
        devices: a.devices,
        listen: a.listen,
        count: a.count,
        user: a.user,
        password_env: a.password_env,
        authorized_key: a.authorized_key,
        host_key: a.host_key,
        known_hosts_out: a.known_hosts_out,
        inventory_out: a.inventory_out,
        fabric: a.fabric,
    })?;
    Ok(ExitStatus::Success)
}
