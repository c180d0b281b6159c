//! The vendor-independent fabric model: the only thing rules ever see.
//!
//! Every fact is an `Option<Sourced<T>>`: `None` means "not known" (not collected or not
//! parsed), which is different from a known `false`/`off`. A `Sourced` value remembers the
//! file and line it came from and whether it is a platform default applied because a line was
//! absent. Serialized for rules, a `Sourced<T>` is just its value and unknown fields are left
//! out, so a rule touching them hits minijinja's strict-undefined error and the engine reports
//! "could not decide". Serialized with sources (see [`with_sources`]), each value carries its
//! provenance, which is how findings point at `configs/leaf1.cfg:214`.

/// `boxed_part!(Outer, field, Inner)`: `Outer` reads and writes the fields of `Inner` as its
/// own (`Deref`, `DerefMut`) though it holds them as `field: Option<Box<Inner>>`, allocated
/// on the first write; until then they read as `Inner::default()` (one static copy). For
/// records most of which set none of those fields (issue 19: a port's details, a bare
/// `interface` or `class` line), 8 bytes instead of all of them.
#[macro_export]
macro_rules! boxed_part {
    ($outer:ty, $field:ident, $inner:ty) => {
        impl std::ops::Deref for $outer {
            type Target = $inner;
            fn deref(&self) -> &$inner {
                static NONE: std::sync::LazyLock<$inner> =
                    std::sync::LazyLock::new(<$inner>::default);
                self.$field.as_deref().unwrap_or(&NONE)
            }
        }

        impl std::ops::DerefMut for $outer {
            fn deref_mut(&mut self) -> &mut $inner {
                self.$field.get_or_insert_with(Box::default)
            }
        }
    };
}

pub mod eight;
pub mod file_name;
pub mod maps;
pub mod name_index;
pub mod part;
pub mod probe;
pub mod sharing;

use serde::{Serialize, Serializer};
use std::cell::Cell;
use std::sync::Arc;

/// Where a value came from: a file of the snapshot (relative path) and a 1-based line.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Src {
    pub file: file_name::FileName,
    pub line: u32,
}

impl Src {
    pub fn new(file: &Arc<str>, line: u32) -> Self {
        Src {
            file: file_name::FileName::of(file),
            line,
        }
    }

    /// The source "this port's own definition line" ([`Interface::defined_at`]), which every
    /// port's queue and priority-group defaults cite on most platforms. Written as one value
    /// it lets equal defaults of different ports be one shared copy ([`sharing`]); serialized
    /// with sources it is the port's `defined_at`, as if that line were stored in it.
    pub fn port_line() -> Src {
        Src {
            file: file_name::FileName::PORT_LINE,
            line: 0,
        }
    }

    pub fn is_port_line(&self) -> bool {
        self.file == file_name::FileName::PORT_LINE
    }
}

/// A known value with its provenance.
#[derive(Debug, Clone, PartialEq)]
pub struct Sourced<T> {
    pub value: T,
    pub src: Option<Src>,
    /// True when the platform module applied a default because the config said nothing.
    pub default: bool,
}

/// Shorthand for a field of the model.
pub type Field<T> = Option<Sourced<T>>;

/// A value read from a line.
pub fn known<T>(value: T, src: &Src) -> Field<T> {
    Some(Sourced {
        value,
        src: Some(src.clone()),
        default: false,
    })
}

/// A value the platform assumes because no line set it; `src` is the block it applies to.
pub fn default_of<T>(value: T, src: Option<&Src>) -> Field<T> {
    Some(Sourced {
        value,
        src: src.cloned(),
        default: true,
    })
}

/// A value derived from other facts (no single line), e.g. computed by the engine.
pub fn derived<T>(value: T) -> Field<T> {
    Some(Sourced {
        value,
        src: None,
        default: false,
    })
}

/// The plain value of a field, if known.
pub fn val<T>(f: &Field<T>) -> Option<&T> {
    f.as_ref().map(|s| &s.value)
}

thread_local! {
    static WITH_SOURCES: Cell<bool> = const { Cell::new(false) };
    /// The `defined_at` of the port being serialized, for [`Src::port_line`] values.
    static PORT_LINE: Cell<Option<(file_name::FileName, u32)>> = const { Cell::new(None) };
    static WITH_MAPS: Cell<bool> = const { Cell::new(false) };
}

/// Whether each port's entry-by-entry QoS maps serialize (inside [`with_maps`]).
pub fn maps_on() -> bool {
    WITH_MAPS.with(|c| c.get())
}

/// Run `f` with each port's `maps` (`maps::QosMaps`) serialized: only the model the user asks
/// for (`audit --format model`) shows them; rules, goldens and drift read the value vectors.
pub fn with_maps<R>(f: impl FnOnce() -> R) -> R {
    let prev = WITH_MAPS.with(|c| c.replace(true));
    let r = f();
    WITH_MAPS.with(|c| c.set(prev));
    r
}

/// `skip_serializing_if` of [`Interface::defined_at`], which serde calls before it writes the
/// port's later fields: the port's queues and groups that cite [`Src::port_line`] are written
/// citing this. Skips the field when it is `None`, as `Option::is_none` did.
fn port_line_noted(defined_at: &Option<Src>) -> bool {
    PORT_LINE.with(|p| p.set(defined_at.as_ref().map(|s| (s.file, s.line))));
    defined_at.is_none()
}

/// Run `f` with `Sourced` values serializing as `{value, file, line, default}`.
pub fn with_sources<R>(f: impl FnOnce() -> R) -> R {
    let prev = WITH_SOURCES.with(|c| c.replace(true));
    let r = f();
    WITH_SOURCES.with(|c| c.set(prev));
    r
}

impl<T: Serialize> Serialize for Sourced<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if WITH_SOURCES.with(|c| c.get()) {
            use serde::ser::SerializeMap;
            let mut m = s.serialize_map(Some(4))?;
            m.serialize_entry("value", &self.value)?;
            let src = match &self.src {
                Some(src) if src.is_port_line() => PORT_LINE.with(|p| p.get()),
                Some(src) => Some((src.file, src.line)),
                None => None,
            };
            if let Some((file, line)) = src {
                m.serialize_entry("file", &file)?;
                m.serialize_entry("line", &line)?;
            }
            m.serialize_entry("default", &self.default)?;
            m.end()
        } else {
            self.value.serialize(s)
        }
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Fabric {
    pub devices: Vec<Device>,
    pub links: Vec<Link>,
    /// Fabric policy after defaults and `fabric.toml [policy]` overrides.
    pub policy: serde_json::Map<String, serde_json::Value>,
    /// Problems with the snapshot itself (unknown files, bad cabling-plan entries, unknown
    /// policy keys) that PARSE/TOPO rules report.
    pub notices: Vec<Notice>,
}

/// A problem found while reading the snapshot, outside any one device model.
#[derive(Debug, Clone, Serialize)]
pub struct Notice {
    /// snapshot | refused | plan | policy | unknown-file | collection
    pub kind: String,
    pub device: String,
    pub file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub message: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Device {
    pub name: String,
    pub platform: String,
    /// leaf | spine | super-spine | host | storage | unknown
    pub role: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub os_version: Field<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hostname: Field<String>,
    /// True for switches (every platform but linux).
    pub is_switch: bool,
    #[serde(serialize_with = "maps::serialize_ports")]
    pub interfaces: Vec<Interface>,
    pub qos: DeviceQos,
    /// How the platform was decided: "fabric.toml", "device.toml" or "detected: <evidence>".
    pub platform_reason: String,
    /// Per-file parse results.
    pub parse: Vec<FileParse>,
    /// Engine-computed (switches): how the ports audited as RoCE (`i.roce`) were chosen, in
    /// counts (see `fabric::mark_roce_ports_by`; reported by TOPO006).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roce_scope: Option<RoceScope>,
    /// A device whose input could not be used at all (reason).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Host-wide facts of a Linux host (GPUs, PCIe, boot settings, NVMe-oF, GPUDirect
    /// Storage); absent on switches and on hosts none of whose outputs state any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<Host>,
    /// Facts whose running state (a show output) differs from what the configuration states or
    /// implies, on platforms that read both (Cumulus `nv show` operational vs `nv config`);
    /// unknown (None) where the snapshot does not hold both.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drift: Option<Vec<Drift>>,
    /// Finds a port of `interfaces` by name while readers build the device (dropped after).
    #[serde(skip)]
    pub iface_index: name_index::NameIndex,
    /// Ports named after the device already had as many as it keeps ([`port_bound`]): how
    /// many times a reader named a new one (a run of lookups of one name counts once); none
    /// of them is read (PARSE013).
    #[serde(skip_serializing_if = "is_zero")]
    pub interfaces_not_read: u32,
    /// The most ports this device keeps ([`port_bound`] of its files' size); `None`:
    /// [`MAX_INTERFACES`] (a device built outside an audit run, before its bound is set).
    #[serde(skip)]
    pub port_cap: Option<usize>,
    /// Where a reader writes a port past [`Device::port_limit`]: one scratch port, replaced for
    /// each new name and never read.
    #[serde(skip)]
    #[doc(hidden)]
    pub spill: Option<Box<Interface>>,
    /// Equal QoS copies of the ports built so far, shared as the reader moves from port to
    /// port (see [`sharing`]); emptied when the device is built.
    #[serde(skip)]
    #[doc(hidden)]
    pub sharing: sharing::Sharing,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_zero_u64(n: &u64) -> bool {
    *n == 0
}

/// At most this many interfaces are read per device. A port costs the model a few KiB (its
/// QoS maps, queues and priority groups, each value with its source) and a config can declare
/// one in 20 bytes (`interface Ethernet9/9`), so without a bound one 64 MiB file in a pull
/// request could ask for tens of GiB (issue 19). No switch comes near it: the largest chassis
/// have 576 ports, 4,608 when every one is broken out to 8, plus up to 4,094 VLAN interfaces
/// and a few thousand subinterfaces or port-channels.
pub const MAX_INTERFACES: usize = 16_384;

/// Ports a device keeps for each this many bytes of its files, beyond its floor
/// ([`port_bound`]). A port costs the model 500-900 bytes (measured with
/// `examples/fuzz_smoke --input` on EOS range ports: ~680 B, ~840 B with PFC set), so 48
/// bytes a port holds the model's ports of any input within 20 times its size (the findings
/// a port draws cost a whole audit more: see [`RUN_PORT_FLOOR`]); a real device's files
/// spend far more on each port (fixture and corpus configurations: 58-440 bytes a port, the
/// least a real Onyx configuration of range lines).
pub const INPUT_BYTES_PER_PORT: usize = 48;

/// Ports any device keeps whatever its files' size, in a run of at most
/// [`RUN_PORT_FLOOR`] / 1,024 (32) devices: a 60-byte intended configuration of one
/// `interface Ethernet1/1-64` range is a real 64-port switch, and a 576-port chassis can be
/// written in a few short range lines.
pub const DEVICE_PORT_FLOOR: usize = 1_024;

/// The floors of all the devices of one run together: a run of more than 32 devices shares
/// it (each keeps [`DEVICE_PORT_FLOOR`] or its equal share), so many tiny files of range
/// lines cannot add up to more ports than this beyond what their bytes pay for (before: 160
/// EOS configs of four `interface EthernetK/1-4095` lines, 19 KB in all, took 891 MB; issue 19).
/// A port with findings costs a whole audit up to ~7 KB (five findings, the report): 64 files
/// of 240 bytes, each a range of 1,016 ports with PFC on and MTU 1500, took 468 MB of RSS and
/// 27 s at 65,536 (`fabric-audit audit DIR --format json`), so this floor is half that. A
/// real fabric's devices each get their share plus their files' bytes (a 1,000-switch fabric:
/// 32 ports each, plus ~100 for a 5 KB configuration; 500 files of one 100-byte range line
/// still keep 64 ports each).
pub const RUN_PORT_FLOOR: usize = 32_768;

/// The most ports a device of a run of `run_devices` devices keeps when its files hold
/// `input_bytes` bytes: its floor plus one port per [`INPUT_BYTES_PER_PORT`] bytes, at most
/// [`MAX_INTERFACES`]. So the ports of a run cost memory in proportion to its input, plus a
/// fixed part, however few bytes a range line spends on many ports. The same input always
/// gets the same bound (it depends on sizes and counts, never on the order of the work).
pub fn port_bound(input_bytes: usize, run_devices: usize) -> usize {
    let floor = DEVICE_PORT_FLOOR
        .min(RUN_PORT_FLOOR / run_devices.max(1))
        .max(1);
    floor
        .saturating_add(input_bytes / INPUT_BYTES_PER_PORT)
        .min(MAX_INTERFACES)
}

/// One fact where the running switch differs from its configuration. The running value is
/// what the model holds (rules judge the switch as it runs); this records the difference.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Drift {
    /// The interface, when the fact is per interface.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interface: Option<String>,
    /// Model path of the fact below the interface or device (`pfc.tx`, `queues[3].ecn.min_bytes`).
    pub what: String,
    /// The configured value (JSON text) and where it is stated; `implied` when it is the
    /// platform default the configuration brings rather than a line of it.
    pub intended: String,
    pub intended_at: String,
    pub implied: bool,
    /// The running value and the output line that shows it.
    pub running: String,
    pub file: String,
    pub line: u32,
}

/// Device-wide QoS facts that are not per interface.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DeviceQos {
    /// MTU (frame size as configured) of the no-drop network-qos class (NX-OS).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodrop_class_mtu: Field<u32>,
    /// Lossless ingress buffer pool size in bytes (0 = none configured).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lossless_pool_bytes: Field<u64>,
    /// Headroom pool size in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub headroom_pool_bytes: Field<u64>,
    /// Names of QoS policies/maps in force, for messages.
    pub policies: Vec<String>,
    /// A vendor mode that brings lossless settings to every port, stated in the configuration
    /// (NVUE `qos roce` in a lossless mode, Onyx `roce lossless`): lossless intent for the
    /// whole switch, though the per-port values it brings are the mode's defaults.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lossless_mode: Field<String>,
}

/// A port of a device. Serialized through [`InterfaceSer`] (the classification fields of
/// [`PortQos`] in their place among the others).
///
/// The facts a bare `interface` stanza of a configuration never states (MAC address,
/// operational state, speed, LAG members, cable length, LLDP neighbor, counters, host NIC)
/// are one boxed [`PortDetails`], held only by the ports that have one of them; they read
/// and write as if they were fields of the port itself (`i.speed_gbps`, through `Deref`).
/// Inline they were 150 of the port's 336 bytes, paid by every port (issue 19: 64 KiB of
/// NX-OS `interface` lines builds about 2,800 ports).
#[derive(Debug, Clone, Default)]
pub struct Interface {
    /// Canonical full name (NX-OS `Ethernet1/1`, EOS `Ethernet1`, Linux `eth2`).
    pub name: String,
    /// Other names of the port and of what it links to ([`PortNames`]): held only by the
    /// ports that have one.
    pub names: part::Part<PortNames>,
    /// ethernet | port-channel | vlan | loopback | mgmt | tunnel | other (one of these names
    /// is not copied per port; any other text is owned).
    pub kind: std::borrow::Cow<'static, str>,
    /// Where the interface is defined (header line). Set it with
    /// [`Interface::set_defined_at`]: its queues and groups may cite it ([`Src::port_line`]).
    pub defined_at: Option<Src>,
    pub admin_up: Field<bool>,
    /// MTU normalized to the IP MTU.
    pub mtu: Field<u32>,
    /// MTU as the device states it.
    pub mtu_raw: Field<u32>,
    /// Switchport (L2) vs routed.
    pub switchport: Field<bool>,
    /// The port's classification: trust and its QoS maps ([`PortQos`]), one copy per distinct
    /// value on a device (a port written by no QoS setting holds none).
    pub qos: part::Part<PortQos>,
    /// The same maps entry by entry with where each entry comes from, plus PCP → TC and PFC
    /// priority → queue (`maps::complete` fills what the platform did not); shown only by the
    /// model with sources (`audit --format model`).
    pub maps: maps::Shared,
    pub pfc: part::Part<Pfc>,
    pub link_pause: part::Part<LinkPause>,
    /// Egress queues 0..7 (always 8 entries; unknown fields left out; stored once written).
    pub queues: eight::Eight<Queue>,
    /// Priority groups 0..7 (always 8 entries; stored once written).
    pub pgs: eight::Eight<PriorityGroup>,
    pub watchdog: part::Part<Watchdog>,
    /// RDMA/RoCE facts for host netdevs backed by an RDMA device.
    /// Boxed, as `nic`: most ports have neither, and inline they were over half of every port.
    pub rdma: Option<Box<Rdma>>,
    /// Engine-computed: this port is expected to carry RoCE (see `fabric::mark_roce_ports`).
    pub roce: bool,
    /// Engine-computed: an up switch Ethernet port that no link names, on a device that has
    /// links, so it is not audited as a RoCE port (reported by TOPO005).
    pub idle: bool,
    /// Engine-computed: the LLDP neighbor's system name is a device of the snapshot.
    pub lldp_in_fabric: Option<bool>,
    /// The facts of [`PortDetails`], once one is written (see the struct doc).
    details: Option<Box<PortDetails>>,
}

/// A port that carries the device's lossless binding (a wildcard or device-wide CoS, global
/// PFC, a vendor RoCE mode) but that the scope rule left out of the RoCE ports.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ScopeNote {
    /// `left out`
    pub decision: String,
    /// The scope rule that left it out (`lossless+mtu`, `pfc`).
    pub rule: String,
    /// Why that rule left it out (`keeps the platform's default MTU 1514`).
    pub why: String,
    /// The lossless binding it carries (`a lossless priority group`, `NVUE qos roce`).
    pub binding: String,
    /// The line that binds it, when known.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "maps::file_line"
    )]
    pub at: Option<Src>,
    /// The error checks it fails when held to the RoCE rules (rule ids, sorted).
    pub would_fail: Vec<String>,
}

/// The facts of a port that a bare `interface` stanza does not state: what the running port
/// reports and what only some ports have. Read and written as fields of [`Interface`].
#[derive(Debug, Clone, Default)]
pub struct PortDetails {
    /// Hardware (MAC) address as the device reports it, lowercase `aa:bb:cc:dd:ee:ff` (for a
    /// bond member, its permanent address): what an LLDP port id of subtype MAC names.
    pub mac: Field<String>,
    pub oper_up: Field<bool>,
    pub speed_gbps: Field<f64>,
    /// Members of a LAG (on the LAG interface).
    pub lag_members: Vec<String>,
    /// Configured cable length in metres (what the buffer calculation uses).
    pub cable_m: Field<f64>,
    pub lldp_neighbor: Option<Box<LldpNeighbor>>,
    /// Switch port counters as last read (cumulative): what probes subtract before and after.
    pub counters: Option<Box<PortCounters>>,
    /// Hardware facts of a host NIC: PCIe function, NUMA node, PCIe link, counters.
    pub nic: Option<Box<Nic>>,
    /// Engine-computed: why a port that carries the device's lossless binding was left out of
    /// the RoCE ports, and the checks it would fail if it carries RoCE (`fabric::mark_roce_ports`;
    /// reported by TOPO007). Here, not inline in the port: held by the few ports a scope
    /// heuristic leaves out (8 bytes more on every port took two adversarial inputs over
    /// issue 19's 20x). Write it only on those ports: writing makes the details.
    pub scope: Option<Box<ScopeNote>>,
}

// The port's details; all unknown until one is written.
crate::boxed_part!(Interface, details, PortDetails);

impl PortDetails {
    /// Nothing in it is known (as the blank copy).
    fn is_blank(&self) -> bool {
        self.mac.is_none()
            && self.oper_up.is_none()
            && self.speed_gbps.is_none()
            && self.lag_members.is_empty()
            && self.cable_m.is_none()
            && self.lldp_neighbor.is_none()
            && self.counters.is_none()
            && self.nic.is_none()
            && self.scope.is_none()
    }
}

/// The other names of a port and of what it links to: its alias, its LAG, its LLDP peer and
/// its planned peer. Few ports have any, so a port holds them only once one is written
/// ([`part::Part`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PortNames {
    /// Another name the device gives the port (SONiC `PORT.<name>.alias`, e.g. `etp1`), which
    /// its LLDP may advertise as the port id.
    pub alias: Field<String>,
    /// The LAG this port belongs to.
    pub lag_parent: Option<String>,
    /// Engine-computed: the LLDP neighbor resolved to "device:interface" (canonical names).
    pub lldp_peer: Option<String>,
    /// Engine-computed: how the neighbor's advertised port was matched to a port of the peer
    /// (`name`, `short-name`, `alias`, `mac`, `description`); absent when nothing matched (the
    /// advertised name is then kept as it is, and TOPO001/TOPO003 judge it).
    pub lldp_matched_by: Option<String>,
    /// Engine-computed: the peer the cabling plan (fabric.toml) gives, as "device:interface".
    pub planned_peer: Option<String>,
}

/// A port's classification and QoS maps: how it trusts, and how DSCP and PCP reach traffic
/// classes, queues, priority groups and PFC priorities. Most ports of a device hold them equal
/// (one QoS policy), so a port holds one shared copy ([`part::Part`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PortQos {
    /// dscp | pcp | both | port
    pub trust: Field<String>,
    /// 64 entries: DSCP value -> traffic class (host: priority).
    pub dscp_to_tc: Field<Vec<u8>>,
    /// 8 entries: 802.1p priority (PCP) of a tagged frame -> traffic class (host: priority),
    /// where the platform states or documents one; what rules read where the port trusts PCP.
    pub pcp_to_tc: Field<Vec<u8>>,
    /// 8 entries: traffic class -> egress queue.
    pub tc_to_queue: Field<Vec<u8>>,
    /// 8 entries: traffic class -> priority group.
    pub tc_to_pg: Field<Vec<u8>>,
    /// 8 entries: traffic class -> PFC priority (the priority paused for this TC).
    pub tc_to_pfc_priority: Field<Vec<u8>>,
    /// DSCP values that a policy on this interface rewrites to another value.
    pub dscp_rewrites: Field<Vec<u8>>,
}

/// [`Interface`] as it serializes: every field in its place, with the classification fields
/// read from [`Interface::qos`] (derived, so skipped fields and their order are serde's own).
#[derive(Serialize)]
#[serde(rename = "Interface")]
struct InterfaceSer<'a> {
    name: &'a String,
    #[serde(skip_serializing_if = "ser::none")]
    mac: &'a Field<String>,
    #[serde(skip_serializing_if = "ser::none")]
    alias: &'a Field<String>,
    kind: &'a std::borrow::Cow<'static, str>,
    #[serde(skip_serializing_if = "ser::port_line_noted")]
    defined_at: &'a Option<Src>,
    #[serde(skip_serializing_if = "ser::none")]
    admin_up: &'a Field<bool>,
    #[serde(skip_serializing_if = "ser::none")]
    oper_up: &'a Field<bool>,
    #[serde(skip_serializing_if = "ser::none")]
    speed_gbps: &'a Field<f64>,
    #[serde(skip_serializing_if = "ser::none")]
    mtu: &'a Field<u32>,
    #[serde(skip_serializing_if = "ser::none")]
    mtu_raw: &'a Field<u32>,
    lag_members: &'a Vec<String>,
    #[serde(skip_serializing_if = "ser::none")]
    lag_parent: &'a Option<String>,
    #[serde(skip_serializing_if = "ser::none")]
    switchport: &'a Field<bool>,
    #[serde(skip_serializing_if = "ser::none")]
    trust: &'a Field<String>,
    #[serde(skip_serializing_if = "ser::none")]
    dscp_to_tc: &'a Field<Vec<u8>>,
    #[serde(skip_serializing_if = "ser::none")]
    pcp_to_tc: &'a Field<Vec<u8>>,
    #[serde(skip_serializing_if = "ser::none")]
    tc_to_queue: &'a Field<Vec<u8>>,
    #[serde(skip_serializing_if = "ser::none")]
    tc_to_pg: &'a Field<Vec<u8>>,
    #[serde(skip_serializing_if = "ser::none")]
    tc_to_pfc_priority: &'a Field<Vec<u8>>,
    #[serde(skip_serializing_if = "ser::maps_hidden")]
    maps: &'a maps::Shared,
    #[serde(skip_serializing_if = "ser::none")]
    dscp_rewrites: &'a Field<Vec<u8>>,
    pfc: &'a part::Part<Pfc>,
    link_pause: &'a part::Part<LinkPause>,
    queues: &'a eight::Eight<Queue>,
    pgs: &'a eight::Eight<PriorityGroup>,
    #[serde(skip_serializing_if = "ser::none")]
    cable_m: &'a Field<f64>,
    watchdog: &'a part::Part<Watchdog>,
    #[serde(skip_serializing_if = "ser::none")]
    lldp_neighbor: &'a Option<Box<LldpNeighbor>>,
    #[serde(skip_serializing_if = "ser::none")]
    counters: &'a Option<Box<PortCounters>>,
    #[serde(skip_serializing_if = "ser::none")]
    rdma: &'a Option<Box<Rdma>>,
    #[serde(skip_serializing_if = "ser::none")]
    nic: &'a Option<Box<Nic>>,
    roce: &'a bool,
    idle: &'a bool,
    #[serde(skip_serializing_if = "ser::none")]
    lldp_in_fabric: &'a Option<bool>,
    #[serde(skip_serializing_if = "ser::none")]
    scope: &'a Option<Box<ScopeNote>>,
    #[serde(skip_serializing_if = "ser::none")]
    lldp_peer: &'a Option<String>,
    #[serde(skip_serializing_if = "ser::none")]
    lldp_matched_by: &'a Option<String>,
    #[serde(skip_serializing_if = "ser::none")]
    planned_peer: &'a Option<String>,
}

impl Serialize for Interface {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        InterfaceSer {
            name: &self.name,
            mac: &self.mac,
            alias: &self.names.alias,
            kind: &self.kind,
            defined_at: &self.defined_at,
            admin_up: &self.admin_up,
            oper_up: &self.oper_up,
            speed_gbps: &self.speed_gbps,
            mtu: &self.mtu,
            mtu_raw: &self.mtu_raw,
            lag_members: &self.lag_members,
            lag_parent: &self.names.lag_parent,
            switchport: &self.switchport,
            trust: &self.qos.trust,
            dscp_to_tc: &self.qos.dscp_to_tc,
            pcp_to_tc: &self.qos.pcp_to_tc,
            tc_to_queue: &self.qos.tc_to_queue,
            tc_to_pg: &self.qos.tc_to_pg,
            tc_to_pfc_priority: &self.qos.tc_to_pfc_priority,
            maps: &self.maps,
            dscp_rewrites: &self.qos.dscp_rewrites,
            pfc: &self.pfc,
            link_pause: &self.link_pause,
            queues: &self.queues,
            pgs: &self.pgs,
            cable_m: &self.cable_m,
            watchdog: &self.watchdog,
            lldp_neighbor: &self.lldp_neighbor,
            counters: &self.counters,
            rdma: &self.rdma,
            nic: &self.nic,
            roce: &self.roce,
            idle: &self.idle,
            lldp_in_fabric: &self.lldp_in_fabric,
            scope: &self.scope,
            lldp_peer: &self.names.lldp_peer,
            lldp_matched_by: &self.names.lldp_matched_by,
            planned_peer: &self.names.planned_peer,
        }
        .serialize(s)
    }
}

/// The `skip_serializing_if` tests of [`InterfaceSer`]'s borrowed fields.
mod ser {
    pub(super) fn none<T>(v: &&Option<T>) -> bool {
        v.is_none()
    }
    pub(super) fn port_line_noted(v: &&Option<super::Src>) -> bool {
        super::port_line_noted(v)
    }
    pub(super) fn maps_hidden(v: &&super::maps::Shared) -> bool {
        v.hidden()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Pfc {
    /// on | auto | off
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Field<String>,
    /// Priorities with PFC enabled (operationally, where known).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priorities: Field<Vec<u8>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rx: Field<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tx: Field<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LinkPause {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rx: Field<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tx: Field<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Queue {
    pub id: u8,
    /// strict | dwrr
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduler: Field<String>,
    /// Share of bandwidth for dwrr/ets queues, percent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight_pct: Field<f64>,
    pub ecn: Ecn,
    /// WRED drops packets (as opposed to ECN marking only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wred_drop: Field<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Ecn {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled: Field<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_bytes: Field<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes: Field<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_probability_pct: Field<f64>,
    /// Thresholds as the platform states them where it states them in percent of the queue's
    /// (or pool's) buffer (Junos drop-profile `fill-level`, Onyx `minimum-relative`): not sizes,
    /// so `min_bytes`/`max_bytes` stay unknown and byte rules cannot decide.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_pct: Field<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_pct: Field<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PriorityGroup {
    pub id: u8,
    /// Headroom reserved after XOFF, bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub headroom_bytes: Field<u64>,
    /// Fill level at which PAUSE is sent, bytes (static threshold).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub xoff_bytes: Field<u64>,
    /// Fill level at which PAUSE is released, bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub xon_bytes: Field<u64>,
    /// Total PG buffer size, bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_bytes: Field<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pool: Field<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lossless: Field<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Watchdog {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled: Field<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detect_ms: Field<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restore_ms: Field<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub poll_ms: Field<f64>,
    /// drop | errdisable | forward | alert | no-drop
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Field<String>,
}

/// Cumulative counters of a switch port. Per-priority maps hold only the priorities the output
/// gives; the totals are the output's own total, or the sum over the priorities it gives.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct PortCounters {
    /// PFC pause frames received / sent, per priority.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub pfc_rx: std::collections::BTreeMap<u8, u64>,
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub pfc_tx: std::collections::BTreeMap<u8, u64>,
    /// PFC frames where the output gives no priority: over all priorities (NX-OS RxPPP/TxPPP)
    /// or of the RoCE class (Cumulus `qos roce counters`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pfc_rx_total: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pfc_tx_total: Option<u64>,
    /// Packets the port marked ECN-CE.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ecn_marked: Option<u64>,
    /// Packets dropped in the port's egress queues or for want of buffer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drops: Option<u64>,
    /// The file and line the counters were read from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub src: Option<Src>,
}

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct LldpNeighbor {
    /// System name as advertised (may be an FQDN).
    pub device: String,
    /// Port id as advertised, canonicalized by the reporting platform where possible (on
    /// lldpd, the port description when the id is a MAC address or a number).
    pub port: String,
    /// The advertised port id, when `port` holds something else (the description).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port_id: Option<String>,
    /// The advertised port description, when the output shows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port_descr: Option<String>,
    pub src: Option<Src>,
}

/// Host NIC facts (ConnectX and friends).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Rdma {
    /// RDMA device, e.g. mlx5_0.
    pub device: String,
    pub port: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Field<String>,
    /// The rest ([`RdmaDetails`]), serialized in its place as if its fields were here: read
    /// from outputs besides the one that maps the device to its netdev, so held only once one
    /// is written. Inline it was 500 of a device's 552 bytes, boxed for every port of a host
    /// that lists RDMA devices (issue 19: 1 MiB of `ibdev2netdev` lines, 21.9x its size).
    #[serde(flatten)]
    details: Option<Box<RdmaDetails>>,
}

impl Rdma {
    /// The facts besides the device, port and state (none written: all unknown).
    pub fn details(&self) -> &RdmaDetails {
        static NONE: std::sync::LazyLock<RdmaDetails> =
            std::sync::LazyLock::new(RdmaDetails::default);
        self.details.as_deref().unwrap_or(&NONE)
    }

    pub fn details_mut(&mut self) -> &mut RdmaDetails {
        self.details.get_or_insert_with(Box::default)
    }
}

/// What a host's RDMA device says besides its netdev and state: RoCE mode and ToS, DCQCN,
/// MTU, link layer and the NIC's QoS (DCBX, buffers, ETS, PFC stall prevention).
#[derive(Debug, Clone, Default, Serialize)]
pub struct RdmaDetails {
    /// "RoCE v2" | "IB/RoCE v1"
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roce_mode: Field<String>,
    /// Default ToS of RDMA-CM QPs (DSCP << 2 | ECN bits).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roce_tos: Field<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cnp_dscp: Field<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cnp_prio: Field<u8>,
    /// DCQCN notification point enabled per priority (8 entries).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub np_enable: Field<Vec<bool>>,
    /// DCQCN reaction point enabled per priority (8 entries).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rp_enable: Field<Vec<bool>>,
    /// RoCE path MTU (ibv_devinfo active_mtu).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active_mtu: Field<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link_layer: Field<String>,
    /// "OS controlled" | "firmware"...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dcbx_mode: Field<String>,
    /// 8 entries: priority -> receive buffer index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prio_to_buffer: Field<Vec<u8>>,
    /// Receive buffer sizes in bytes (8 entries).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffer_size: Field<Vec<u64>>,
    /// 8 entries: priority -> TC.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prio_to_tc: Field<Vec<u8>>,
    /// Per TC: "ets" | "strict" | "vendor".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tc_tsa: Field<Vec<String>>,
    /// Per TC: its share of the ETS bandwidth, percent (the shares of the ETS TCs sum to 100).
    /// A TC that takes no part in ETS (strict, or not listed) has no share: 0. The entry is
    /// then not a configured value; read it together with `tc_tsa`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tc_bw: Field<Vec<u8>>,
    /// PFC stall prevention timeout in ms (0 = disabled).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pfc_prevention_ms: Field<u32>,
    /// Per-priority PFC pause counters present in `ethtool -S`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prio_pause_counters: Field<bool>,
}

/// Hardware facts of a host NIC (ethtool -i, sysfs, lspci, ethtool -S, RDMA hw_counters).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Nic {
    /// PCI address of the NIC function (ethtool -i bus-info), e.g. 0000:0c:00.0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pci_address: Field<String>,
    /// Kernel driver (mlx5_core, bnxt_en, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub driver: Field<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub firmware: Field<String>,
    /// NUMA node of the PCIe function; -1 when the platform reports none (single node).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub numa_node: Field<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pcie: Option<PcieLink>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counters: Option<NicCounters>,
}

/// A PCIe link: what the device and slot can do against what was negotiated.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PcieLink {
    /// Capability (LnkCap, max_link_speed/width): GT/s and lanes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cap_gts: Field<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cap_width: Field<u32>,
    /// Negotiated (LnkSta, current_link_speed/width).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sta_gts: Field<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sta_width: Field<u32>,
    /// Derived: the link trained below its capability in speed / in width.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speed_degraded: Field<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width_degraded: Field<bool>,
}

/// NIC counters, cumulative since the driver loaded (or the counters were cleared): ethtool -S
/// (mlx5 names; bnxt_en's rx_/tx_pfc_ena_frames_priN fill the per-priority pause arrays) and
/// the RDMA device port's hw_counters.
#[derive(Debug, Clone, Default, Serialize)]
pub struct NicCounters {
    /// Per priority 0-7: PFC PAUSE frames received / sent; null where the NIC has no counter
    /// for the priority (mlx5 shows them only for priorities with PFC on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rx_prio_pause: Field<Vec<Option<u64>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tx_prio_pause: Field<Vec<Option<u64>>>,
    /// Per priority: time spent paused, microseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rx_prio_pause_duration: Field<Vec<Option<u64>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tx_prio_pause_duration: Field<Vec<Option<u64>>>,
    /// Per priority: packets dropped for lack of receive buffer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rx_prio_discards: Field<Vec<Option<u64>>>,
    /// PFC stall (pause storm) prevention: warnings, and times it stopped sending PAUSE.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tx_pause_storm_warning_events: Field<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tx_pause_storm_error_events: Field<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rx_discards_phy: Field<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tx_discards_phy: Field<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rx_out_of_buffer: Field<u64>,
    /// Percent of the last second the NIC could not issue PCIe reads / writes for lack of
    /// credits (PCIe back-pressure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outbound_pci_stalled_rd: Field<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outbound_pci_stalled_wr: Field<u64>,
    /// RDMA transport errors and retransmissions (hw_counters).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub out_of_sequence: Field<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub packet_seq_err: Field<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_ack_timeout_err: Field<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roce_adp_retrans: Field<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub out_of_buffer: Field<u64>,
    /// DCQCN: CNPs sent (notification point), ECN-marked RoCE packets received, CNPs handled
    /// and ignored (reaction point).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub np_cnp_sent: Field<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub np_ecn_marked_roce_packets: Field<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rp_cnp_handled: Field<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rp_cnp_ignored: Field<u64>,
}

/// Host-wide facts of a Linux host. Lists are `None` when the output that gives them was not
/// collected and empty when it was and lists nothing. List items carry the `file` and `line`
/// they were read from, so a finding about an item cites it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Host {
    /// Kernel command line (/proc/cmdline).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cmdline: Field<String>,
    /// IOMMU mode the kernel command line asks for: off | pt | on | default (no parameter).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iommu: Field<String>,
    /// Whether the IOMMU is active (gdscheck PLATFORM INFO).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iommu_active: Field<bool>,
    /// CPU architecture: x86_64 | aarch64 (uname -m, gdscheck Platform).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arch: Field<String>,
    /// True when the host's LLDP neighbors were collected (a RoCE port without a neighbor then
    /// truly has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lldp: Field<bool>,
    /// Boot-time files (systemd units, udev rules, NetworkManager/networkd dispatcher scripts,
    /// if-up.d, rc.local) that apply RoCE QoS (mlnx_qos, cma_roce_tos/mode, ecn sysfs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qos_boot_files: Field<Vec<String>>,
    /// Loaded kernel modules (/proc/modules).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modules: Field<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpus: Option<Vec<Gpu>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pci: Option<Vec<PciFunction>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mounts: Option<Vec<Mount>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nvme: Option<Nvme>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gds: Option<Gds>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nccl: Option<Nccl>,
}

/// A GPU as `nvidia-smi topo -m` shows it, with its nearest RDMA NIC.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Gpu {
    /// GPU0, GPU1, ...
    pub name: String,
    pub index: u32,
    /// PCI address: nvidia-smi numbers GPUs in PCI bus order, so GPUn is the n-th NVIDIA GPU
    /// function of lspci.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pci_address: Option<String>,
    /// NUMA node (topo -m NUMA Affinity, else lspci); -1 when none is reported.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub numa_node: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_affinity: Option<String>,
    /// Relationship to each RDMA NIC (X, PIX, PXB, PHB, NODE, SYS, NV#).
    pub nics: Vec<GpuNic>,
    /// The RDMA netdev with the closest relationship, its relationship and NUMA node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nearest_nic: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nearest_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nearest_nic_numa: Option<i64>,
    /// Derived: the GPU and its nearest NIC are on the same NUMA node (absent when either
    /// node is unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub numa_aligned: Option<bool>,
    /// PCIe switch ports with ACS redirection on between this GPU and its nearest NIC or an
    /// NVMe drive (lspci ACSCtl); `None` when lspci is not known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub acs_bridges: Option<Vec<String>>,
    pub file: String,
    pub line: u32,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct GpuNic {
    /// RDMA device as topo -m names it (mlx5_0).
    pub rdma: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub netdev: Option<String>,
    pub path: String,
}

/// A PCI function (lspci -vvv), or a NIC known only from sysfs.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PciFunction {
    /// 0000:0c:00.0 (a netdev name when only sysfs knows the NIC).
    pub address: String,
    /// nic | gpu | nvme | bridge | other
    pub kind: String,
    /// lspci class and name: "Ethernet controller: Mellanox Technologies MT2910 ...".
    pub description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub driver: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub netdev: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub numa_node: Option<i64>,
    /// PCI Express port type: Endpoint, Upstream Port, Downstream Port, Root Port, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<PcieLink>,
    /// ACS control bits that are on (SrcValid, ReqRedir, CmpltRedir, UpstreamFwd, ...); empty
    /// when all are off; `None` without an ACS capability (or when it could not be read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub acs_ctl: Option<Vec<String>>,
    /// The bridge this function sits under.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// NICs: PCIe back-pressure, the larger of outbound_pci_stalled_rd/wr (percent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stalled_pct: Option<u64>,
    pub file: String,
    pub line: u32,
}

/// A mounted file system (/proc/mounts).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Mount {
    /// What is mounted: a block device, `host:/export`, a file-system name.
    pub spec: String,
    pub mountpoint: String,
    pub fstype: String,
    pub options: Vec<String>,
    /// The gdscheck DRIVER CONFIGURATION entry this file system needs for GPUDirect Storage
    /// (NFS, NVMe, NVMeOF, DDN EXAScaler, WekaFS, BeeGFS, IBM Spectrum Scale, ...), "none"
    /// when this form of it cannot do GDS, absent for file systems GDS is not about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gds: Option<String>,
    /// Why `gds` is "none".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gds_reason: Option<String>,
    pub file: String,
    pub line: u32,
}

/// NVMe (over Fabrics) initiator state.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Nvme {
    /// nvme_core native multipath (/sys/module/nvme_core/parameters/multipath).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multipath: Field<bool>,
    /// Subsystems and their paths (nvme list-subsys / show-topology).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subsystems: Option<Vec<NvmeSubsystem>>,
    /// Fabrics controllers (/sys/class/nvme-fabrics/ctl/*).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controllers: Option<Vec<NvmeController>>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct NvmeSubsystem {
    /// nvme-subsys0
    pub name: String,
    pub nqn: String,
    /// Transport of its paths: pcie | rdma | tcp | fc | loop.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transport: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iopolicy: Option<String>,
    pub paths: Vec<NvmePath>,
    /// Paths whose controller is live; `None` when no output gave controller states (nvme-cli
    /// 1.x `list-subsys -o json` prints none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live_paths: Option<u32>,
    /// Paths in ANA state optimized; where namespaces are listed, the fewest any namespace has
    /// (0: a namespace without an optimized path). `None` when no output gave ANA states.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub optimized_paths: Option<u32>,
    /// The namespaces and the ANA state of each path for each (`nvme show-topology`); `None`
    /// when no output lists namespaces.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespaces: Option<Vec<NvmeNamespace>>,
    pub file: String,
    pub line: u32,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct NvmePath {
    /// Controller: nvme0.
    pub controller: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transport: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub traddr: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// optimized | non-optimized | inaccessible | persistent-loss | change. ANA states belong
    /// to a path for a namespace: set here when the output gives one state for every namespace
    /// it lists on this path; absent when the namespaces differ (see
    /// `NvmeSubsystem::namespaces`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ana_state: Option<String>,
}

/// A namespace of a subsystem and the ANA state of each of its paths.
#[derive(Debug, Clone, Default, Serialize)]
pub struct NvmeNamespace {
    pub nsid: u32,
    pub paths: Vec<NvmeNsPath>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct NvmeNsPath {
    /// Controller: nvme0.
    pub controller: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ana_state: Option<String>,
}

/// An NVMe over Fabrics controller and its reconnect/failover timers (seconds; -1 = off).
#[derive(Debug, Clone, Default, Serialize)]
pub struct NvmeController {
    /// nvme0
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transport: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub traddr: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subsysnqn: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ctrl_loss_tmo: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reconnect_delay: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fast_io_fail_tmo: Option<i64>,
    /// ToS the connection is made with (connect options, /etc/nvme/discovery.conf `--tos`);
    /// -1 when the options were read and ask for none (the transport default applies).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tos: Option<i64>,
    pub file: String,
    pub line: u32,
}

/// GPUDirect Storage platform check (`gdscheck -p`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Gds {
    /// GDS release version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub release: Field<String>,
    /// nvidia_fs version as gdscheck reports it (the module is loaded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nvidia_fs: Field<String>,
    /// DRIVER CONFIGURATION: per transport or file system, its status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drivers: Option<Vec<GdsDriver>>,
    /// Names of the DRIVER CONFIGURATION entries with GPUDirect support (Supported, or a
    /// mode other than compat: nvfs, p2pdma, dmabuf, c2c).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supported: Option<Vec<String>>,
    /// "Platform verification succeeded" (true) / "failed" (false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platform_verified: Field<bool>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct GdsDriver {
    /// NVMe, NVMeOF, NFS, DDN EXAScaler, WekaFS, ...
    pub name: String,
    /// Supported | Unsupported | a mode list (nvfs, compat)
    pub status: String,
    pub supported: bool,
    pub file: String,
    pub line: u32,
}

/// NCCL settings from /etc/nccl.conf; -1 = not set (NCCL's default applies).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Nccl {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ib_tc: Field<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ib_timeout: Field<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ib_retry_cnt: Field<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ib_gid_index: Field<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ib_hca: Field<String>,
}

#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Endpoint {
    pub device: String,
    pub interface: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Link {
    pub a: Endpoint,
    pub b: Endpoint,
    /// lldp | fabric.toml | both
    pub source: String,
    /// LLDP saw this link from one side only (the other side runs LLDP but did not see it).
    pub one_sided: bool,
    /// Cable length from the cabling plan, metres.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cable_m: Option<f64>,
    /// Where the link was declared (fabric.toml line) or seen (LLDP output line).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub src: Option<Src>,
    /// How each LLDP view of the link named the far port and how that name was matched.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub matched_by: Vec<PortMatch>,
}

/// How the RoCE ports of a switch were chosen (engine-computed).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct RoceScope {
    /// roce_ports | links | pfc | lossless | lossless+mtu | none
    pub rule: String,
    /// Up Ethernet ports audited as RoCE, and those left out.
    pub audited: usize,
    pub left_out: usize,
    /// Links of this switch (cabling plan or LLDP) whose other end is another switch: none on
    /// a switch with RoCE ports means its inter-switch ports are among those left out.
    pub switch_links: usize,
    /// Other switches in the snapshot (so links to them could be known).
    pub other_switches: usize,
    /// The rule and the counts in one sentence.
    pub text: String,
}

/// One LLDP neighbor entry resolved to a port: `seen_by` (device:interface whose LLDP reports
/// it) advertised `seen_as`, which names `port` (device:interface) by `method`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PortMatch {
    pub seen_by: String,
    pub seen_as: String,
    pub port: String,
    /// name | short-name | alias | mac | description
    pub method: String,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Unrecognized {
    pub line: u32,
    /// Boxed: a file of short unrecognized lines holds one per line (24 bytes, not 32).
    pub text: Box<str>,
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum ParseStatus {
    Passed,
    Partial,
    Failed,
}

impl ParseStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ParseStatus::Passed => "passed",
            ParseStatus::Partial => "partial",
            ParseStatus::Failed => "failed",
        }
    }
}

/// A reference to something the file never defines (policy-map, class-map, ...).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct UndefinedRef {
    pub kind: String,
    pub name: String,
    pub line: u32,
}

/// Undefined references, and conflicts, listed per file ([`FileParse`]); the rest are counted
/// (`undefined_not_listed`, `conflicts_not_listed`). Enough to show what a broken file gets
/// wrong, and a bound on what a file of thousands of such lines costs (issue 19).
pub const LISTED_PER_FILE: usize = 64;

/// One thing a file defines twice, differently (PARSE012): the first definition and the
/// conflicting one, each with its line.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Conflict {
    /// What is defined twice (`DSCP 42`, a key, an interface's service-policy slot).
    pub what: String,
    pub first: String,
    pub first_line: u32,
    pub value: String,
    pub line: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct FileParse {
    pub device: String,
    /// Snapshot-relative path.
    pub file: String,
    pub platform: String,
    /// The command whose output this is ("config" for configs/ files).
    pub command: String,
    pub status: ParseStatus,
    pub unrecognized: Vec<Unrecognized>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub undefined: Vec<UndefinedRef>,
    /// References found past the [`LISTED_PER_FILE`] listed.
    #[serde(skip_serializing_if = "is_zero_u64")]
    pub undefined_not_listed: u64,
    /// Names the file uses that only an output that was not collected would resolve (a host's
    /// RDMA device with no device → netdev map): a collection gap (PARSE011), not an undefined
    /// reference.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gaps: Vec<UndefinedRef>,
    /// Definitions that contradict each other (see `crate::platform::conflicts`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<Conflict>,
    /// Conflicts found past the [`LISTED_PER_FILE`] listed.
    #[serde(skip_serializing_if = "is_zero_u64")]
    pub conflicts_not_listed: u64,
    /// Why the file failed, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Push `item`, growing `v` by a sixteenth rather than doubling it: for lists of large
/// records per port (ports, a reader's interface blocks) doubling leaves up to half the list
/// unused at the peak of a build, an eighth up to an eighth (issue 19: 64 KiB of Junos
/// stanzas, 1,896 ports in room for 2,113). Twice the moves of an eighth, each a `realloc`.
pub fn push_slim<T>(v: &mut Vec<T>, item: T) {
    if v.len() == v.capacity() {
        v.reserve_exact((v.len() / 16).max(8));
    }
    v.push(item);
}

/// A port kind: one of the usual names, borrowed; anything else, copied.
pub fn kind_name(kind: &str) -> std::borrow::Cow<'static, str> {
    const KINDS: [&str; 9] = [
        "ethernet",
        "port-channel",
        "vlan",
        "loopback",
        "mgmt",
        "tunnel",
        "other",
        "bond",
        "infiniband",
    ];
    match KINDS.iter().find(|k| **k == kind) {
        Some(k) => std::borrow::Cow::Borrowed(k),
        None => std::borrow::Cow::Owned(kind.to_string()),
    }
}

impl Interface {
    pub fn new(name: &str, kind: &str) -> Self {
        Interface {
            name: name.to_string(),
            kind: kind_name(kind),
            ..Default::default()
        }
    }

    /// Give back the details box when a reader wrote only unknowns through it (`i.speed_gbps =
    /// None` makes one), so ports with no detail hold none.
    pub fn drop_blank_details(&mut self) {
        if self.details.as_deref().is_some_and(PortDetails::is_blank) {
            self.details = None;
        }
    }

    /// Set where the port is defined. Facts that cite the old line as [`Src::port_line`]
    /// get the old line written back first, so they keep citing it.
    pub fn set_defined_at(&mut self, src: Src) {
        if self.defined_at.as_ref().is_some_and(|old| *old != src) {
            sharing::uncite_port_line(self);
        }
        self.defined_at = Some(src);
    }
}

impl eight::Numbered for Queue {
    fn blank() -> &'static [Queue; 8] {
        static BLANK: std::sync::LazyLock<[Queue; 8]> = std::sync::LazyLock::new(|| {
            std::array::from_fn(|id| Queue {
                id: id as u8,
                ..Default::default()
            })
        });
        &BLANK
    }
}

impl eight::Numbered for PriorityGroup {
    fn blank() -> &'static [PriorityGroup; 8] {
        static BLANK: std::sync::LazyLock<[PriorityGroup; 8]> = std::sync::LazyLock::new(|| {
            std::array::from_fn(|id| PriorityGroup {
                id: id as u8,
                ..Default::default()
            })
        });
        &BLANK
    }
}

impl Device {
    pub fn interface(&self, name: &str) -> Option<&Interface> {
        self.interfaces.iter().find(|i| i.name == name)
    }
    pub fn interface_mut(&mut self, name: &str) -> Option<&mut Interface> {
        let p = self.iface_position(name)?;
        self.interfaces.get_mut(p)
    }
    /// Where the interface named `name` is in `interfaces` (by an index once they are many).
    pub fn iface_position(&mut self, name: &str) -> Option<usize> {
        self.iface_index
            .position(&self.interfaces, |i| i.name.as_str(), name)
    }

    /// The most ports this device keeps: [`port_bound`] of its files, or [`MAX_INTERFACES`].
    pub fn port_limit(&self) -> usize {
        self.port_cap.unwrap_or(MAX_INTERFACES).min(MAX_INTERFACES)
    }

    /// The position of the interface `name`, created when new; `None` when it is new and the
    /// device already has [`Device::port_limit`] ports (then counted in `interfaces_not_read`).
    pub fn iface_slot(&mut self, name: &str, kind: &str) -> Option<usize> {
        if let Some(pos) = self.iface_position(name) {
            return Some(pos);
        }
        if self.interfaces.len() >= self.port_limit() {
            if self.spill.as_ref().is_none_or(|s| s.name != name) {
                self.interfaces_not_read = self.interfaces_not_read.saturating_add(1);
                self.spill = Some(Box::new(Interface::new(name, kind)));
            }
            return None;
        }
        // The reader is done with the last port for now: let it share its QoS copies.
        if let Some(last) = self.interfaces.last_mut() {
            self.sharing.port(last);
        }
        let len = self.interfaces.len();
        push_slim(&mut self.interfaces, Interface::new(name, kind));
        Some(len)
    }

    /// Get or create an interface by canonical name. Past [`Device::port_limit`] a new name gets
    /// a scratch port that is not part of the device (see `interfaces_not_read`).
    pub fn iface(&mut self, name: &str, kind: &str) -> &mut Interface {
        match self.iface_slot(name, kind) {
            Some(pos) => &mut self.interfaces[pos],
            None => self
                .spill
                .get_or_insert_with(|| Box::new(Interface::new(name, kind))),
        }
    }
}

#[cfg(test)]
mod port_bound_tests {
    use super::port_bound;

    #[test]
    fn a_device_keeps_its_floor_plus_what_its_bytes_pay_for() {
        assert_eq!(port_bound(0, 1), 1024);
        assert_eq!(port_bound(48 * 100 + 47, 1), 1124);
        // Up to 32 devices each keep the whole floor; more share 32,768 ports.
        assert_eq!(port_bound(0, 32), 1024);
        assert_eq!(port_bound(0, 33), 992);
        assert_eq!(port_bound(4800, 1000), 32 + 100);
        // Never nothing, never past the model's bound.
        assert_eq!(port_bound(0, 10_000_000), 1);
        assert_eq!(port_bound(usize::MAX, 1), 16_384);
    }
}
