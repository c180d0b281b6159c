//! The inventory: which devices to collect from and how to reach them.
//!
//! Two forms are read. Our TOML (`[defaults]`, `[group.NAME]`, `[[device]]`; see
//! `docs/inventory.md`) and an Ansible YAML inventory (`ansible_host`, `ansible_user`,
//! `ansible_port`, `ansible_network_os`, `ansible_ssh_private_key_file`, ProxyJump in
//! `ansible_ssh_common_args`, plus `fabric_audit_*` variables for what Ansible has no name for).
//! Credentials are references only: key files, the ssh-agent, or the *name* of an environment
//! variable that holds a password. Settings are layered: device, then its groups in order, then
//! `[defaults]`, then `~/.ssh/config` for the address, then built-in defaults.

use super::ansible;
use super::ssh_config::{HostConfig, SshConfig};
use anyhow::{Context, Result, bail};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Settings a device, a group or `[defaults]` may carry.
#[derive(Debug, Default, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Only on `[[device]]`: the device's name in the snapshot.
    pub name: Option<String>,
    /// Only on `[[device]]`: address or DNS name to connect to (default: `name`).
    pub address: Option<String>,
    /// Only on `[[device]]`: groups, in order of precedence (first wins).
    #[serde(default)]
    pub groups: Vec<String>,
    pub platform: Option<String>,
    pub role: Option<String>,
    pub user: Option<String>,
    pub port: Option<u16>,
    /// Private key files, tried in order.
    pub identity_file: Option<OneOrMany>,
    /// Name of the environment variable holding the password (never the password itself).
    pub password_env: Option<String>,
    /// Offer the keys of the running ssh-agent (`SSH_AUTH_SOCK`); default true.
    pub agent: Option<bool>,
    /// Jump host: the name of another inventory device, or `[user@]host[:port]`; "none" for none.
    pub jump: Option<String>,
    /// known_hosts files to verify host keys against (default: the user's).
    pub known_hosts: Option<OneOrMany>,
    /// Seconds.
    pub connect_timeout: Option<f64>,
    pub command_timeout: Option<f64>,
    /// Connection attempts after the first, on connection errors only.
    pub retries: Option<u32>,
    /// Bytes kept per command output; the rest is cut and the cut recorded.
    pub max_output: Option<u64>,
    /// Interfaces (and RDMA devices) a host's discovery may add, each bringing its
    /// per-interface commands; more are not collected and the cut is recorded.
    pub max_interfaces: Option<usize>,
    /// Seconds one device may take, login and every command included; what is left when it
    /// passes is not run and the cut is recorded.
    pub device_timeout: Option<f64>,
    /// Host interfaces to audit besides the RDMA netdevs the host reports.
    pub interfaces: Option<Vec<String>>,
    /// "exec" or "shell": override the platform's session mode (vendor-parsers `[session]`).
    pub session: Option<String>,
    /// Probes: a folder put first on PATH for perftest/qperf on this host (a perftest built
    /// under /opt, say).
    pub tool_dir: Option<String>,
    /// Probes: the data-plane address other hosts reach this one at (default: the IPv4
    /// address of its probe interface).
    pub probe_address: Option<String>,
    /// Probes: RDMA device and RoCE v2 GID index to use when the host's GID table cannot be
    /// read (a container without /sys/class/infiniband). Normally found from the GID table.
    pub rdma_device: Option<String>,
    pub gid_index: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn list(&self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s.clone()],
            OneOrMany::Many(v) => v.clone(),
        }
    }
}

/// A fabric-audit inventory (TOML): `[defaults]`, `[group.NAME]`s and `[[device]]`s of
/// settings, and the `[policy]` and `[[link]]`s copied to the snapshot's fabric.toml.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "fabric-audit inventory")]
struct InventoryToml {
    #[serde(default)]
    defaults: Settings,
    #[serde(default)]
    group: BTreeMap<String, Settings>,
    #[serde(default)]
    #[schemars(with = "Vec<Settings>")]
    device: Vec<DeviceEntry>,
    /// Copied to the snapshot's fabric.toml.
    #[serde(default)]
    #[schemars(with = "serde_json::Map<String, serde_json::Value>")]
    policy: toml::Table,
    /// The cabling plan, copied to fabric.toml.
    #[serde(default)]
    link: Vec<PlannedLink>,
}

/// A `[[link]]` of the cabling plan: its ends as "device:interface" and its cable length in
/// metres, copied to the snapshot's fabric.toml.
// A struct, not a `toml::Table`: a table of one key holds a whole B-tree node (about 500
// bytes), so an inventory of many short links cost 40 times its text (issue 19).
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlannedLink {
    pub a: String,
    pub b: String,
    #[serde(default)]
    pub cable_m: Option<f64>,
}

impl PlannedLink {
    /// The link as fabric.toml's `[[link]]` table.
    pub fn to_table(&self) -> toml::Table {
        let mut t = toml::Table::new();
        t.insert("a".into(), self.a.clone().into());
        t.insert("b".into(), self.b.clone().into());
        if let Some(c) = self.cable_m {
            t.insert("cable_m".into(), c.into());
        }
        t
    }
}

/// A `[[device]]` as read. Most devices set a name, an address and groups only; their other
/// settings (a `Settings` is 480 bytes) are boxed, and held only when one is set, so that an
/// inventory of many short entries costs memory in proportion to its text (issue 19).
#[derive(Debug)]
struct DeviceEntry {
    name: Option<String>,
    address: Option<String>,
    groups: Vec<String>,
    /// The other settings, when any is set (name, address and groups taken out).
    more: Option<Box<Settings>>,
}

impl<'de> Deserialize<'de> for DeviceEntry {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let mut s = Settings::deserialize(d)?;
        let name = s.name.take();
        let address = s.address.take();
        let groups = std::mem::take(&mut s.groups);
        let more = (s != Settings::default()).then(|| Box::new(s));
        Ok(DeviceEntry {
            name,
            address,
            groups,
            more,
        })
    }
}

/// The JSON Schema of the TOML inventory (as the JSON a TOML document maps to).
pub fn json_schema() -> schemars::Schema {
    schemars::schema_for!(InventoryToml)
}

use super::target::Sharing;
pub use super::target::{Endpoint, Login, Target, TargetSettings};

/// A loaded inventory.
#[derive(Debug, Default)]
pub struct Inventory {
    pub source: PathBuf,
    pub targets: Vec<Target>,
    pub policy: toml::Table,
    pub links: Vec<PlannedLink>,
    /// Things worth telling the user (ignored inline passwords, ssh_config lines skipped).
    pub warnings: Vec<String>,
}

pub const DEFAULT_CONNECT_TIMEOUT: f64 = 10.0;
pub const DEFAULT_COMMAND_TIMEOUT: f64 = 60.0;
pub const DEFAULT_RETRIES: u32 = 2;
pub const DEFAULT_MAX_OUTPUT: u64 = 64 * 1024 * 1024;
/// A GPU server has 8 to 16 RDMA NICs; 256 leaves room for any real host and bounds what a
/// host reporting thousands of netdevs can make the collector send.
pub const DEFAULT_MAX_INTERFACES: usize = 256;
/// 15 minutes: 256 interfaces of commands at a few hundred milliseconds each fit in it.
pub const DEFAULT_DEVICE_TIMEOUT: f64 = 900.0;

fn expand_home(p: &str, base: &Path) -> PathBuf {
    if let Some(rest) = p.strip_prefix("~/")
        && let Some(home) = std::env::var_os("HOME")
    {
        return Path::new(&home).join(rest);
    }
    let pb = PathBuf::from(p);
    if pb.is_absolute() { pb } else { base.join(pb) }
}

fn toml_err(file: &Path, text: &str, e: &crate::toml_pieces::Error) -> anyhow::Error {
    let (line, col) = e
        .span()
        .map(|s| {
            let before = &text[..s.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.len() - before.rfind('\n').map(|i| i + 1).unwrap_or(0) + 1;
            (line, col)
        })
        .unwrap_or((0, 0));
    anyhow::anyhow!(
        "{}:{line}:{col}: {}",
        file.display(),
        e.message().trim_end()
    )
}

/// `[user@]host[:port]` (also `ssh://user@host:port`).
fn parse_hop(spec: &str) -> (Option<String>, String, Option<u16>) {
    let spec = spec.strip_prefix("ssh://").unwrap_or(spec);
    let (user, rest) = match spec.rsplit_once('@') {
        Some((u, r)) => (Some(u.to_string()), r),
        None => (None, spec),
    };
    if let Some(inner) = rest.strip_prefix('[')
        && let Some((h, tail)) = inner.split_once(']')
    {
        let port = tail.strip_prefix(':').and_then(|p| p.parse().ok());
        return (user, h.to_string(), port);
    }
    match rest.rsplit_once(':') {
        Some((h, p)) if !h.contains(':') => match p.parse() {
            Ok(port) => (user, h.to_string(), Some(port)),
            Err(_) => (user, rest.to_string(), None),
        },
        _ => (user, rest.to_string(), None),
    }
}

fn local_user() -> String {
    std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .unwrap_or_else(|_| "root".into())
}

struct Resolver<'a> {
    ssh: Option<&'a SshConfig>,
    base: PathBuf,
    /// The platforms a device may name: the registry's and those `--parsers DIR` added.
    platforms: Vec<String>,
    /// One copy of the settings and login hosts have in common.
    sharing: Sharing,
}

impl Resolver<'_> {
    fn ssh_for(&self, host: &str) -> HostConfig {
        self.ssh.map(|c| c.resolve(host)).unwrap_or_default()
    }

    /// An endpoint from layered settings (first `Some` wins) and ssh_config for `host`.
    fn endpoint(&self, label: &str, host: &str, layers: &[&Settings]) -> Endpoint {
        let pick = |f: &dyn Fn(&Settings) -> Option<String>| layers.iter().find_map(|s| f(s));
        let sc = self.ssh_for(host);
        let user = pick(&|s| s.user.clone())
            .or(sc.user.clone())
            .unwrap_or_else(local_user);
        let port = layers.iter().find_map(|s| s.port).or(sc.port).unwrap_or(22);
        let mut identity_files: Vec<PathBuf> = layers
            .iter()
            .find_map(|s| s.identity_file.as_ref())
            .map(|l| {
                l.list()
                    .iter()
                    .map(|p| expand_home(p, &self.base))
                    .collect()
            })
            .unwrap_or_default();
        identity_files.extend(sc.identity_files.iter().cloned());
        let real_host = sc.hostname.clone().unwrap_or_else(|| host.to_string());
        Endpoint::new(
            label.to_string(),
            real_host,
            Login {
                port,
                user,
                identity_files,
                password_env: pick(&|s| s.password_env.clone()),
                agent: layers.iter().find_map(|s| s.agent).unwrap_or(true),
            },
        )
    }
}

/// Default identity files when none is configured anywhere: the user's usual keys.
fn default_identities() -> Vec<PathBuf> {
    let Some(home) = std::env::var_os("HOME") else {
        return Vec::new();
    };
    let ssh = Path::new(&home).join(".ssh");
    ["id_ed25519", "id_ecdsa", "id_rsa"]
        .iter()
        .map(|f| ssh.join(f))
        .filter(|p| p.exists())
        .collect()
}

impl Inventory {
    /// Read a TOML or Ansible YAML inventory (by extension: .yml/.yaml is Ansible).
    pub fn load(path: &Path, ssh: Option<&SshConfig>) -> Result<Inventory> {
        Self::load_with_platforms(path, ssh, &[])
    }

    /// [`Inventory::load`], also accepting the platforms of `extra` (those `--parsers DIR`
    /// adds to the registry's).
    pub fn load_with_platforms(
        path: &Path,
        ssh: Option<&SshConfig>,
        extra: &[&str],
    ) -> Result<Inventory> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading inventory {}", path.display()))?;
        Self::from_text_with_platforms(&text, path, ssh, extra)
    }

    /// Read an inventory from its text; `path` names it in errors, says by its extension
    /// whether it is Ansible YAML, and is the folder relative paths in it start from.
    pub fn from_text(text: &str, path: &Path, ssh: Option<&SshConfig>) -> Result<Inventory> {
        Self::from_text_with_platforms(text, path, ssh, &[])
    }

    /// [`Inventory::from_text`], also accepting the platforms of `extra`.
    pub fn from_text_with_platforms(
        text: &str,
        path: &Path,
        ssh: Option<&SshConfig>,
        extra: &[&str],
    ) -> Result<Inventory> {
        let base = path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        let is_yaml = matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yml" | "yaml")
        );
        let mut platforms: Vec<String> = crate::platform::registry::ids()
            .map(str::to_string)
            .collect();
        for p in extra {
            if !platforms.iter().any(|k| k == p) {
                platforms.push(p.to_string());
            }
        }
        let r = Resolver {
            ssh,
            base,
            platforms,
            sharing: Sharing::default(),
        };
        let mut inv = if is_yaml {
            Self::from_ansible(text, path, &r)?
        } else {
            Self::from_toml(text, path, &r)?
        };
        inv.source = path.to_path_buf();
        if let Some(c) = ssh {
            inv.warnings.extend(c.warnings().iter().cloned());
        }
        Ok(inv)
    }

    fn from_toml(text: &str, path: &Path, r: &Resolver) -> Result<Inventory> {
        let mut t: InventoryToml =
            crate::toml_pieces::from_str(text).map_err(|e| toml_err(path, text, &e))?;
        // Moved, not copied: an inventory of many short `[[link]]`s is mostly these tables.
        let policy = std::mem::take(&mut t.policy);
        let links = std::mem::take(&mut t.link);
        let file = path.display();
        for (what, s) in std::iter::once(("[defaults]".to_string(), &t.defaults))
            .chain(t.group.iter().map(|(g, s)| (format!("[group.{g}]"), s)))
        {
            if s.name.is_some() || s.address.is_some() || !s.groups.is_empty() {
                bail!("{file}: {what}: name, address and groups belong on a [[device]]");
            }
        }
        let mut names = BTreeMap::new();
        let mut targets = Vec::new();
        let no_settings = Settings::default();
        for (i, d) in t.device.iter().enumerate() {
            let Some(name) = d.name.clone().filter(|n| !n.trim().is_empty()) else {
                bail!("{file}: device #{} has no name", i + 1);
            };
            check_name(&name).with_context(|| format!("{file}: device {name:?}"))?;
            if names.insert(name.clone(), i).is_some() {
                bail!("{file}: device {name:?} is listed twice");
            }
            let mut layers: Vec<&Settings> = vec![d.more.as_deref().unwrap_or(&no_settings)];
            for g in &d.groups {
                let Some(gs) = t.group.get(g) else {
                    bail!(
                        "{file}: device {name:?} is in group {g:?}, which has no [group.{g}] table (groups: {})",
                        t.group.keys().cloned().collect::<Vec<_>>().join(", ")
                    );
                };
                layers.push(gs);
            }
            layers.push(&t.defaults);
            let host = d.address.clone().unwrap_or_else(|| name.clone());
            targets.push((name, host, layers, d.groups.clone()));
        }
        let mut out = Inventory {
            policy,
            links,
            ..Default::default()
        };
        for (name, host, layers, groups) in &targets {
            let jump_spec = layers.iter().find_map(|s| s.jump.clone());
            let jump = match jump_spec.as_deref() {
                None | Some("none") | Some("") => None,
                Some(j) => {
                    if let Some((_, jhost, jlayers, _)) = targets.iter().find(|t| t.0 == j) {
                        if jlayers.iter().any(|s| {
                            s.jump
                                .as_deref()
                                .is_some_and(|x| !x.is_empty() && x != "none")
                        }) {
                            bail!(
                                "{file}: device {name:?} jumps through {j:?}, which itself has a jump host; one hop is supported"
                            );
                        }
                        Some(r.endpoint(j, jhost, jlayers))
                    } else {
                        Some(hop_endpoint(r, j, &t.defaults))
                    }
                }
            };
            out.targets
                .push(finish(r, name, host, layers, jump, groups.clone(), &file)?);
        }
        Ok(out)
    }

    fn from_ansible(text: &str, path: &Path, r: &Resolver) -> Result<Inventory> {
        let file = path.display().to_string();
        let hosts = ansible::parse(text, &file)?;
        let mut out = Inventory::default();
        // One target per host: no growth slack (a list grown by doubling keeps up to half
        // again of room, and an inventory may list many thousands of hosts).
        out.targets.reserve_exact(hosts.len());
        for h in hosts {
            let v = |k: &str| h.vars.get(k).cloned();
            if v("ansible_password").is_some() || v("ansible_ssh_pass").is_some() {
                out.warnings.push(format!(
                    "{file}: {}: ansible_password ignored (fabric-audit takes passwords only by reference: set fabric_audit_password_env to the name of an environment variable)",
                    h.name
                ));
            }
            let platform = v("fabric_audit_platform").or_else(|| {
                v("ansible_network_os").map(|os| {
                    ansible::platform_of(&os)
                        .map(str::to_string)
                        .unwrap_or_else(|| format!("unknown network_os {os:?}"))
                })
            });
            let s = Settings {
                name: Some(h.name.clone()),
                address: v("ansible_host"),
                platform: Some(platform.unwrap_or_else(|| "linux".into())),
                role: v("fabric_audit_role"),
                user: v("ansible_user").or(v("ansible_ssh_user")),
                port: match v("ansible_port").or(v("ansible_ssh_port")) {
                    Some(p) => Some(p.parse().with_context(|| {
                        format!(
                            "{file}: {}: ansible_port {p:?} is not a port number",
                            h.name
                        )
                    })?),
                    None => None,
                },
                identity_file: v("ansible_ssh_private_key_file")
                    .or(v("ansible_private_key_file"))
                    .map(OneOrMany::One),
                password_env: v("fabric_audit_password_env"),
                jump: v("fabric_audit_jump").or_else(|| {
                    v("ansible_ssh_common_args").and_then(|a: String| proxy_jump_of(&a))
                }),
                known_hosts: v("fabric_audit_known_hosts").map(OneOrMany::One),
                tool_dir: v("fabric_audit_tool_dir"),
                probe_address: v("fabric_audit_probe_address"),
                rdma_device: v("fabric_audit_rdma_device"),
                max_interfaces: ansible_number(
                    &v("fabric_audit_max_interfaces"),
                    "fabric_audit_max_interfaces",
                    &file,
                    &h.name,
                )?,
                device_timeout: ansible_number(
                    &v("fabric_audit_device_timeout"),
                    "fabric_audit_device_timeout",
                    &file,
                    &h.name,
                )?,
                gid_index: match v("fabric_audit_gid_index") {
                    Some(g) => Some(g.parse().with_context(|| {
                        format!(
                            "{file}: {}: fabric_audit_gid_index {g:?} is not a number",
                            h.name
                        )
                    })?),
                    None => None,
                },
                ..Default::default()
            };
            let host = s.address.clone().unwrap_or_else(|| h.name.clone());
            let jump = match s.jump.as_deref() {
                None | Some("none") | Some("") => None,
                Some(j) => Some(hop_endpoint(r, j, &Settings::default())),
            };
            check_name(&h.name).with_context(|| format!("{file}: host {:?}", h.name))?;
            out.targets.push(finish(
                r,
                &h.name,
                &host,
                &[&s],
                jump,
                h.groups.clone(),
                &file,
            )?);
        }
        Ok(out)
    }

    /// Keep the targets named by `limit` (comma-separated device names, group names or globs).
    pub fn limit(&mut self, limit: &str) -> Result<()> {
        let pats: Vec<&str> = limit
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        for p in &pats {
            let hit = self
                .targets
                .iter()
                .any(|t| glob_match(p, &t.name) || t.groups.iter().any(|g| glob_match(p, g)));
            if !hit {
                bail!("--limit {p:?} names no device or group of the inventory");
            }
        }
        self.targets.retain(|t| {
            pats.iter()
                .any(|p| glob_match(p, &t.name) || t.groups.iter().any(|g| glob_match(p, g)))
        });
        Ok(())
    }
}

/// `-J x` or `-o ProxyJump=x` inside `ansible_ssh_common_args`.
fn proxy_jump_of(args: &str) -> Option<String> {
    let words: Vec<&str> = args.split_whitespace().collect();
    for (i, w) in words.iter().enumerate() {
        let w = w.trim_matches(['\'', '"']);
        if w == "-J" {
            return words
                .get(i + 1)
                .map(|s| s.trim_matches(['\'', '"']).to_string());
        }
        let opt = if w == "-o" {
            words.get(i + 1).map(|s| s.trim_matches(['\'', '"']))
        } else {
            w.strip_prefix("-o")
        };
        if let Some(o) = opt
            && let Some((k, val)) = o.split_once(['=', ' '])
            && k.eq_ignore_ascii_case("ProxyJump")
        {
            return Some(val.to_string());
        }
    }
    None
}

fn hop_endpoint(r: &Resolver, spec: &str, defaults: &Settings) -> Endpoint {
    let (user, host, port) = parse_hop(spec);
    let s = Settings {
        user,
        port,
        ..Default::default()
    };
    // The jump host's own user/port win; defaults (keys, agent, password) still apply.
    r.endpoint(spec, &host, &[&s, defaults])
}

fn finish(
    r: &Resolver,
    name: &str,
    host: &str,
    layers: &[&Settings],
    jump: Option<Endpoint>,
    groups: Vec<String>,
    file: &dyn std::fmt::Display,
) -> Result<Target> {
    let platform = layers
        .iter()
        .find_map(|s| s.platform.clone())
        .with_context(|| {
            format!(
                "{file}: device {name:?} has no platform (set platform = one of {} on the device, a group or [defaults])",
                r.platforms.join(", ")
            )
        })?;
    if !r.platforms.contains(&platform) {
        bail!(
            "{file}: device {name:?}: platform {platform:?} is not one of {}",
            r.platforms.join(", ")
        );
    }
    let sc = r.ssh_for(host);
    let mut endpoint = r.endpoint(name, host, layers);
    let jump = jump.or_else(|| {
        sc.proxy_jump
            .as_deref()
            .filter(|j| *j != "none")
            .map(|j| j.split(',').next().unwrap_or(j).to_string())
            .map(|j| hop_endpoint(r, &j, &Settings::default()))
    });
    if endpoint.identity_files.is_empty() {
        endpoint.login_mut().identity_files = default_identities();
    }
    let endpoint = r.sharing.endpoint(endpoint);
    // A jump host with no credentials of its own is tried with the device's.
    let jump = jump.map(|mut j| {
        if j.identity_files.is_empty() {
            j.login_mut().identity_files = endpoint.identity_files.clone();
        }
        if j.password_env.is_none() {
            j.login_mut().password_env = endpoint.password_env.clone();
        }
        j
    });
    let secs = |v: Option<f64>, d: f64, what: &str| -> Result<Duration> {
        let s = v.unwrap_or(d);
        if !(s.is_finite() && s > 0.0 && s < 86_400.0) {
            bail!("{file}: device {name:?}: {what} must be a number of seconds > 0");
        }
        Ok(Duration::from_secs_f64(s))
    };
    let session = layers.iter().find_map(|s| s.session.clone());
    if let Some(m) = &session
        && m != "exec"
        && m != "shell"
    {
        bail!("{file}: device {name:?}: session must be \"exec\" or \"shell\", not {m:?}");
    }
    let mut known_hosts: Vec<PathBuf> = layers
        .iter()
        .find_map(|s| s.known_hosts.as_ref())
        .map(|l| l.list().iter().map(|p| expand_home(p, &r.base)).collect())
        .unwrap_or_default();
    if known_hosts.is_empty() {
        known_hosts.extend(sc.user_known_hosts_file.clone());
    }
    if known_hosts.is_empty() {
        known_hosts.extend(super::known_hosts::user_file());
    }
    let word = |v: Option<String>, what: &str| -> Result<Option<String>> {
        match v {
            Some(x) if !crate::parser::allow::safe_word(&x) => bail!(
                "{file}: device {name:?}: {what} {x:?} may hold only letters, digits and _.:@/+-%"
            ),
            v => Ok(v),
        }
    };
    let tool_dir = word(layers.iter().find_map(|s| s.tool_dir.clone()), "tool_dir")?;
    let probe_address = word(
        layers.iter().find_map(|s| s.probe_address.clone()),
        "probe_address",
    )?;
    let rdma_device = word(
        layers.iter().find_map(|s| s.rdma_device.clone()),
        "rdma_device",
    )?;
    let settings = TargetSettings {
        tool_dir,
        probe_address,
        rdma_device,
        gid_index: layers.iter().find_map(|s| s.gid_index),
        platform,
        groups,
        role: layers.iter().find_map(|s| s.role.clone()),
        jump,
        known_hosts,
        connect_timeout: secs(
            layers
                .iter()
                .find_map(|s| s.connect_timeout)
                .or(sc.connect_timeout.map(|s| s as f64)),
            DEFAULT_CONNECT_TIMEOUT,
            "connect_timeout",
        )?,
        command_timeout: secs(
            layers.iter().find_map(|s| s.command_timeout),
            DEFAULT_COMMAND_TIMEOUT,
            "command_timeout",
        )?,
        retries: layers
            .iter()
            .find_map(|s| s.retries)
            .unwrap_or(DEFAULT_RETRIES),
        max_output: layers
            .iter()
            .find_map(|s| s.max_output)
            .unwrap_or(DEFAULT_MAX_OUTPUT),
        max_interfaces: layers
            .iter()
            .find_map(|s| s.max_interfaces)
            .unwrap_or(DEFAULT_MAX_INTERFACES),
        device_timeout: secs(
            layers.iter().find_map(|s| s.device_timeout),
            DEFAULT_DEVICE_TIMEOUT,
            "device_timeout",
        )?,
        interfaces: layers
            .iter()
            .find_map(|s| s.interfaces.clone())
            .unwrap_or_default(),
        session,
    };
    Ok(Target::new(
        name.to_string(),
        endpoint,
        r.sharing.settings(settings),
    ))
}

/// An Ansible host variable holding a number (`fabric_audit_max_interfaces: 16`).
fn ansible_number<T: std::str::FromStr>(
    value: &Option<String>,
    var: &str,
    file: &str,
    host: &str,
) -> Result<Option<T>> {
    match value {
        None => Ok(None),
        Some(s) => match s.trim().parse() {
            Ok(n) => Ok(Some(n)),
            Err(_) => bail!("{file}: {host}: {var} {s:?} is not a number"),
        },
    }
}

/// A device name becomes a folder name: no separators, no dot-files, printable.
fn check_name(name: &str) -> Result<()> {
    if name.starts_with('.')
        || name.contains(['/', '\\'])
        || name.chars().any(|c| c.is_control() || c.is_whitespace())
    {
        bail!("a device name must be printable, without spaces or '/', and not start with '.'");
    }
    Ok(())
}

/// `*` and `?` globbing for `--limit` (see [`crate::glob`]: no backtracking blow-up).
pub use crate::glob::matches as glob_match;

#[cfg(test)]
mod tests {
    #[test]
    fn a_device_of_a_name_address_and_groups_holds_no_other_settings() {
        let t: InventoryToml = crate::toml_pieces::from_str(
            "[[device]]\nname = \"a\"\naddress = \"h\"\ngroups = [\"g\"]\n[[device]]\nname = \"b\"\nuser = \"u\"\n",
        )
        .unwrap();
        let (a, b) = (&t.device[0], &t.device[1]);
        assert_eq!(
            (a.name.as_deref(), a.address.as_deref()),
            (Some("a"), Some("h"))
        );
        assert_eq!(a.groups, ["g"]);
        assert!(a.more.is_none());
        let more = b.more.as_deref().unwrap();
        assert_eq!(
            (more.user.as_deref(), more.name.as_deref()),
            (Some("u"), None)
        );
        assert_eq!(b.name.as_deref(), Some("b"));
    }

    use super::*;

    fn load_str(text: &str, ext: &str) -> Result<Inventory> {
        let dir =
            std::env::temp_dir().join(format!("fa-inv-{}-{}", std::process::id(), text.len()));
        std::fs::create_dir_all(&dir)?;
        let p = dir.join(format!("inventory.{ext}"));
        std::fs::write(&p, text)?;
        let r = Inventory::load(&p, None);
        let _ = std::fs::remove_dir_all(&dir);
        r
    }

    #[test]
    fn toml_layers_device_group_defaults() {
        let inv = load_str(
            r#"
[defaults]
user = "audit"
password_env = "FA_PW"
known_hosts = "kh"
command_timeout = 30

[group.leaves]
platform = "nxos"
role = "leaf"
port = 2222

[[device]]
name = "leaf1"
address = "10.0.0.1"
groups = ["leaves"]

[[device]]
name = "leaf2"
groups = ["leaves"]
user = "other"
jump = "bastion"

[[device]]
name = "bastion"
platform = "linux"
"#,
            "toml",
        )
        .unwrap();
        let l1 = &inv.targets[0];
        assert_eq!(l1.endpoint.host, "10.0.0.1");
        assert_eq!(l1.endpoint.port, 2222);
        assert_eq!(l1.endpoint.user, "audit");
        assert_eq!(l1.platform, "nxos");
        assert_eq!(l1.role.as_deref(), Some("leaf"));
        assert_eq!(l1.command_timeout, Duration::from_secs(30));
        assert_eq!(l1.endpoint.password_env.as_deref(), Some("FA_PW"));
        assert!(l1.known_hosts[0].ends_with("kh"));
        let l2 = &inv.targets[1];
        assert_eq!(l2.endpoint.user, "other");
        assert_eq!(l2.endpoint.host, "leaf2");
        let j = l2.jump.as_ref().unwrap();
        assert_eq!(
            (j.host.as_str(), j.port, j.user.as_str()),
            ("bastion", 22, "audit")
        );
    }

    #[test]
    fn collection_budgets_layer_and_default() {
        let inv = load_str(
            "[defaults]\nmax_interfaces = 8\ndevice_timeout = 120\n\n[[device]]\nname = \"gpu1\"\nplatform = \"linux\"\nmax_interfaces = 2\n\n[[device]]\nname = \"gpu2\"\nplatform = \"linux\"\n",
            "toml",
        )
        .unwrap();
        assert_eq!(inv.targets[0].max_interfaces, 2);
        assert_eq!(inv.targets[1].max_interfaces, 8);
        assert_eq!(inv.targets[1].device_timeout, Duration::from_secs(120));
        let plain = load_str("[[device]]\nname = \"h\"\nplatform = \"linux\"\n", "toml").unwrap();
        assert_eq!(plain.targets[0].max_interfaces, DEFAULT_MAX_INTERFACES);
        assert_eq!(
            plain.targets[0].device_timeout,
            Duration::from_secs_f64(DEFAULT_DEVICE_TIMEOUT)
        );
        let e = load_str(
            "[[device]]\nname = \"h\"\nplatform = \"linux\"\ndevice_timeout = -1\n",
            "toml",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("device_timeout"), "{e}");
    }

    #[test]
    fn toml_errors_name_file_line_and_what() {
        let e = load_str("[[device]]\nname = \"a\"\nplatfrom = \"nxos\"\n", "toml")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("inventory.toml:3:1") && e.contains("platfrom"),
            "{e}"
        );
        let e = load_str("[[device]]\nname = \"a\"\n", "toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("has no platform"), "{e}");
        let e = load_str("[[device]]\nname = \"a\"\nplatform = \"ios\"\n", "toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("not one of"), "{e}");
        let e = load_str(
            "[[device]]\nname = \"a\"\nplatform = \"eos\"\ngroups = [\"x\"]\n",
            "toml",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("group \"x\""), "{e}");
        let e = load_str("[[device]]\nname = \"../a\"\nplatform = \"eos\"\n", "toml").unwrap_err();
        assert!(format!("{e:#}").contains("'/'"), "{e:#}");
        // A link is checked where it is written, not later in the snapshot's fabric.toml.
        let dev = "[[device]]\nname = \"a\"\nplatform = \"eos\"\n";
        let e = load_str(
            &format!("{dev}[[link]]\na = \"a:e1\"\nb = \"b:e1\"\ncabel_m = 3\n"),
            "toml",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("inventory.toml:7:1") && e.contains("cabel_m"),
            "{e}"
        );
        let e = load_str(
            &format!("{dev}[[link]]\na = \"a:e1\"\nb = \"b:e1\"\ncable_m = \"3m\"\n"),
            "toml",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("inventory.toml:7"), "{e}");
        let inv = load_str(
            &format!("{dev}[[link]]\na = \"a:e1\"\nb = \"b:e1\"\ncable_m = 3\n"),
            "toml",
        )
        .unwrap();
        assert_eq!(inv.links.len(), 1);
        assert_eq!(inv.links[0].cable_m, Some(3.0));
        assert_eq!(inv.links[0].to_table()["b"].as_str(), Some("b:e1"));
    }

    #[test]
    fn ansible_yaml_maps_vars() {
        let inv = load_str(
            r#"
all:
  vars:
    ansible_user: netops
  children:
    leaves:
      vars:
        ansible_network_os: cisco.nxos.nxos
        fabric_audit_role: leaf
      hosts:
        leaf1:
          ansible_host: 10.1.1.1
          ansible_port: 2200
    gpus:
      hosts:
        gpu1:
          ansible_ssh_common_args: "-o ProxyJump=jump@bastion:2201"
          ansible_password: hunter2
          fabric_audit_max_interfaces: 16
          fabric_audit_device_timeout: 300
"#,
            "yml",
        )
        .unwrap();
        let l = &inv.targets[0];
        assert_eq!(
            (
                l.name.as_str(),
                l.platform.as_str(),
                l.endpoint.host.as_str(),
                l.endpoint.port
            ),
            ("leaf1", "nxos", "10.1.1.1", 2200)
        );
        assert_eq!(l.endpoint.user, "netops");
        assert_eq!(l.role.as_deref(), Some("leaf"));
        let g = &inv.targets[1];
        assert_eq!(g.platform, "linux");
        assert_eq!(
            (g.max_interfaces, g.device_timeout),
            (16, Duration::from_secs(300))
        );
        assert_eq!(l.max_interfaces, DEFAULT_MAX_INTERFACES);
        let j = g.jump.as_ref().unwrap();
        assert_eq!(
            (j.user.as_str(), j.host.as_str(), j.port),
            ("jump", "bastion", 2201)
        );
        assert!(
            inv.warnings
                .iter()
                .any(|w| w.contains("ansible_password ignored"))
        );
    }

    #[test]
    fn limit_by_name_group_glob() {
        let mut inv = load_str(
            "[group.spines]\nplatform = \"eos\"\n[[device]]\nname = \"leaf1\"\nplatform = \"nxos\"\n[[device]]\nname = \"leaf2\"\nplatform = \"nxos\"\n[[device]]\nname = \"s1\"\ngroups = [\"spines\"]\n",
            "toml",
        )
        .unwrap();
        inv.limit("leaf2,spines").unwrap();
        let names: Vec<_> = inv.targets.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["leaf2", "s1"]);
        assert!(inv.limit("nothing*").is_err());
        assert!(glob_match("leaf*", "leaf12") && !glob_match("leaf?", "leaf12"));
    }

    #[test]
    fn hop_forms() {
        assert_eq!(
            parse_hop("u@h:2222"),
            (Some("u".into()), "h".into(), Some(2222))
        );
        assert_eq!(parse_hop("h"), (None, "h".into(), None));
        assert_eq!(parse_hop("[::1]:22"), (None, "::1".into(), Some(22)));
        assert_eq!(
            proxy_jump_of("-o StrictHostKeyChecking=no -J a@b"),
            Some("a@b".into())
        );
    }
}
