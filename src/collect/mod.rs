//! Collection from live devices: an inventory (ours in TOML, or Ansible YAML) resolved with
//! `~/.ssh/config`, SSH sessions on russh with host keys checked against known_hosts, only
//! commands the read-only allow-list (`allow`) accepts, secrets redacted (`Platform::redact`)
//! before anything is written, and a snapshot written so that it is consistent at any moment.

pub mod ansible;
pub mod emulator;
pub mod fleet;
pub mod inventory;
pub mod known_hosts;
pub mod run;
pub mod shard;
pub mod shell_scan;
pub mod ssh;
pub mod ssh_config;
pub mod target;
pub mod writer;
