//! What the collector holds per device of the inventory: its name, where to connect, and its
//! resolved settings (`crate::collect::inventory` builds these; its module re-exports them).
//!
//! Why split in parts: an inventory of thousands of hosts usually gives every host the same
//! settings (platform, groups, timeouts, known_hosts, jump host) and the same login (port,
//! user, keys, password variable). Held inline, each host carried all of it (576 bytes and a
//! known_hosts path of its own), so a 1 MiB Ansible inventory of `name:` lines became about
//! 90 MB of targets. Here a host holds only its name and address (88 bytes) and shares one
//! copy of settings and login equal to the previous host's ([`Sharing`]). Reading a
//! setting is unchanged (`t.platform`, `t.endpoint.user`, through `Deref`); changing one
//! copies it for that host only ([`Target::settings_mut`]).

use std::cell::RefCell;
use std::ops::Deref;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// How to reach one SSH server.
#[derive(Debug, Clone, PartialEq)]
pub struct Endpoint {
    /// Name in reports (inventory name or the jump spec).
    pub label: String,
    pub host: String,
    login: Arc<Login>,
}

/// Who logs in to an endpoint, on which port, and with what.
#[derive(Debug, Clone, PartialEq)]
pub struct Login {
    pub port: u16,
    pub user: String,
    pub identity_files: Vec<PathBuf>,
    pub password_env: Option<String>,
    pub agent: bool,
}

impl Endpoint {
    pub fn new(label: String, host: String, login: Login) -> Endpoint {
        Endpoint {
            label,
            host,
            login: Arc::new(login),
        }
    }

    /// The login to change, copied first if another endpoint shares it.
    pub fn login_mut(&mut self) -> &mut Login {
        Arc::make_mut(&mut self.login)
    }
}

impl Deref for Endpoint {
    type Target = Login;
    fn deref(&self) -> &Login {
        &self.login
    }
}

/// One device to collect from, every setting resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    pub name: String,
    pub endpoint: Endpoint,
    settings: Arc<TargetSettings>,
}

/// A device's settings other than its name and address (read through `Target`).
#[derive(Debug, Clone, PartialEq)]
pub struct TargetSettings {
    pub platform: String,
    /// The inventory groups the device is in.
    pub groups: Vec<String>,
    pub role: Option<String>,
    pub jump: Option<Endpoint>,
    pub known_hosts: Vec<PathBuf>,
    pub connect_timeout: Duration,
    pub command_timeout: Duration,
    pub retries: u32,
    pub max_output: u64,
    pub max_interfaces: usize,
    pub device_timeout: Duration,
    pub interfaces: Vec<String>,
    /// Session mode override: exec | shell.
    pub session: Option<String>,
    pub tool_dir: Option<String>,
    pub probe_address: Option<String>,
    pub rdma_device: Option<String>,
    pub gid_index: Option<u32>,
}

impl Target {
    pub fn new(name: String, endpoint: Endpoint, settings: Arc<TargetSettings>) -> Target {
        Target {
            name,
            endpoint,
            settings,
        }
    }

    /// The settings to change for this device only (copied first if shared).
    pub fn settings_mut(&mut self) -> &mut TargetSettings {
        Arc::make_mut(&mut self.settings)
    }
}

impl Deref for Target {
    type Target = TargetSettings;
    fn deref(&self) -> &TargetSettings {
        &self.settings
    }
}

/// The last settings and login handed out while an inventory is resolved: a host whose
/// settings (or login) equal the previous host's gets the same copy.
#[derive(Default)]
pub struct Sharing {
    settings: RefCell<Option<Arc<TargetSettings>>>,
    login: RefCell<Option<Arc<Login>>>,
}

impl Sharing {
    pub fn settings(&self, s: TargetSettings) -> Arc<TargetSettings> {
        same_as_last(&self.settings, s)
    }

    /// `e` with its login replaced by the previous endpoint's when they are equal.
    pub fn endpoint(&self, mut e: Endpoint) -> Endpoint {
        let login = Arc::unwrap_or_clone(e.login);
        e.login = same_as_last(&self.login, login);
        e
    }
}

fn same_as_last<T: PartialEq>(last: &RefCell<Option<Arc<T>>>, v: T) -> Arc<T> {
    let mut last = last.borrow_mut();
    if let Some(a) = last.as_ref().filter(|a| ***a == v) {
        return a.clone();
    }
    let a = Arc::new(v);
    *last = Some(a.clone());
    a
}
