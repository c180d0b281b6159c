//! The QoS maps in force on a port, entry by entry, each entry with where it comes from: a line
//! of a file, a platform default (with the vendor text that states it), a value derived from
//! other facts, or unknown (no file states it and the platform documents no default: SAI's
//! "no map").
//!
//! Traffic class, egress queue, priority group and PFC priority are different numbers on some
//! platforms (Juniper's AI/ML JVD: RoCE in forwarding class NO-LOSS on queue 4 with PFC priority
//! 3), so the model keeps one map per step: DSCP → TC, PCP → TC, TC → queue, TC → PG, TC → PFC
//! priority and PFC priority → queue. Rules read the value vectors of the interface
//! (`dscp_to_tc`, `pcp_to_tc`, `tc_to_queue`, `tc_to_pg`, `tc_to_pfc_priority`); these maps are the same
//! values with their provenance per entry, shown by `audit --format model`.
//!
//! On egress a platform may rewrite the DSCP by traffic class (SONiC `TC_TO_DSCP_MAP`, SAI
//! `SAI_PORT_ATTR_QOS_TC_AND_COLOR_TO_DSCP_MAP`; EOS `qos rewrite dscp` with `qos map
//! traffic-class N to dscp D`): `tc_to_dscp` holds that map, an entry `unchanged` where the
//! packet leaves with the DSCP it arrived with. Rules read its effect on the fabric's DSCPs,
//! `dscp_rewrites` (DSCP006).
//!
//! Beside the maps, `policies` lists the QoS policies, maps and profiles in force on the port
//! ([`BoundPolicy`]): what binds each (kind and direction), its name, how it came into force
//! (on the port, through its LAG, globally for the device, by a wildcard binding, or the
//! platform's default) and the binding line. Each platform module's doc says which binding wins
//! where several could apply. No rule reads the list; it is recorded only when the model is
//! shown ([`keep_policies`]).

use super::{Field, Interface, Src};
use serde::Serialize;
use std::collections::HashSet;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// How an entry of a map is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum How {
    /// A line of a file states it (`at`).
    Config,
    /// The platform's default, because no line states it (`at`: the block it applies to).
    Default,
    /// Computed from other facts (no single line).
    Derived,
    /// Not known.
    Unknown,
    /// No value is written: the packet keeps what it carries (egress DSCP rewrite off, or no
    /// rewrite entry for this class); `at`: the line or block that says so.
    Unchanged,
}

/// One entry: `from` → `to`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct MapEntry {
    pub from: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<u8>,
    pub how: How,
    /// The line (shown as `file:line`); shares the file name with every other fact from it.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "file_line")]
    pub at: Option<Src>,
}

pub(crate) fn file_line<S: serde::Serializer>(at: &Option<Src>, s: S) -> Result<S::Ok, S::Error> {
    match at {
        Some(src) => s.collect_str(&format_args!("{}:{}", src.file, src.line)),
        None => s.serialize_none(),
    }
}

impl MapEntry {
    pub fn config(from: u8, to: u8, src: &Src) -> Self {
        MapEntry {
            from,
            to: Some(to),
            how: How::Config,
            at: Some(src.clone()),
        }
    }
    pub fn default(from: u8, to: u8, src: Option<&Src>) -> Self {
        MapEntry {
            from,
            to: Some(to),
            how: How::Default,
            at: src.cloned(),
        }
    }
    pub fn derived(from: u8, to: u8, src: Option<&Src>) -> Self {
        MapEntry {
            from,
            to: Some(to),
            how: How::Derived,
            at: src.cloned(),
        }
    }
    pub fn unknown(from: u8) -> Self {
        MapEntry {
            from,
            to: None,
            how: How::Unknown,
            at: None,
        }
    }
    pub fn unchanged(from: u8, src: Option<&Src>) -> Self {
        MapEntry {
            from,
            to: None,
            how: How::Unchanged,
            at: src.cloned(),
        }
    }
}

/// One map of a port: its entries and, for defaults, derived or unknown entries, the platform's
/// reason (the vendor text that states the default, or why nothing is known).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize)]
pub struct QosMap {
    pub entries: Vec<MapEntry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl QosMap {
    /// The map of a value vector the platform filled: every entry carries the vector's
    /// provenance; an unknown vector gives `size` unknown entries.
    pub fn of_field(f: &Field<Vec<u8>>, size: u8, note: Option<&str>) -> Self {
        let entries = match f {
            Some(s) => (0..size)
                .map(|k| match s.value.get(k as usize) {
                    None => MapEntry::unknown(k),
                    Some(&v) if s.default => MapEntry::default(k, v, s.src.as_ref()),
                    Some(&v) => match &s.src {
                        Some(src) => MapEntry::config(k, v, src),
                        None => MapEntry::derived(k, v, None),
                    },
                })
                .collect(),
            None => (0..size).map(MapEntry::unknown).collect(),
        };
        QosMap {
            entries,
            note: note.map(str::to_string),
        }
    }

    /// A map assembled from several lines: entry `k` is `per[k]` (the class and the line that
    /// states it); an entry no line states is `rest` (the class the platform or the applied
    /// policy gives everything else, with how it is known and the line or block it comes
    /// from), else unknown.
    pub fn assembled(per: &[Option<(u8, Src)>], rest: Option<(u8, How, Option<&Src>)>) -> Self {
        let entries = per
            .iter()
            .enumerate()
            .map(|(k, e)| {
                let k = k as u8;
                match (e, rest) {
                    (Some((to, src)), _) => MapEntry::config(k, *to, src),
                    (None, Some((to, how, src))) => MapEntry {
                        from: k,
                        to: Some(to),
                        how,
                        at: src.cloned(),
                    },
                    (None, None) => MapEntry::unknown(k),
                }
            })
            .collect();
        QosMap {
            entries,
            note: None,
        }
    }

    /// The map's values, when every entry is known.
    pub fn values(&self) -> Option<Vec<u8>> {
        self.entries.iter().map(|e| e.to).collect()
    }

    /// `size` unknown entries, with why.
    pub fn unknown(size: u8, note: &str) -> Self {
        QosMap {
            entries: (0..size).map(MapEntry::unknown).collect(),
            note: Some(note.to_string()),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The value of entry `k`, if known.
    pub fn get(&self, k: u8) -> Option<u8> {
        self.entries.iter().find(|e| e.from == k).and_then(|e| e.to)
    }
}

/// The maps of a port (see the module doc). Empty maps were not filled by the platform.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize)]
pub struct QosMaps {
    pub dscp_to_tc: QosMap,
    pub pcp_to_tc: QosMap,
    pub tc_to_queue: QosMap,
    pub tc_to_pg: QosMap,
    pub tc_to_pfc_priority: QosMap,
    pub pfc_priority_to_queue: QosMap,
    /// Egress DSCP rewrite by traffic class (see the module doc).
    pub tc_to_dscp: QosMap,
    /// The QoS policies and maps in force on the port (see [`BoundPolicy`]); written by the
    /// platform builds only when the model is asked for ([`keep_policies`]).
    pub policies: Vec<BoundPolicy>,
}

/// How a policy came to be in force on a port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Bound {
    /// A line inside the port's own block (or a profile/template the port names, `via`).
    Port,
    /// Bound on the LAG the port is a member of (`via`: the LAG).
    Lag,
    /// Bound for the whole device (NX-OS/OS10 `system qos`, SONiC/NVUE device QoS, EOS global
    /// `qos map` lines, Cumulus `traffic.conf`); `via` names the block.
    Global,
    /// A wildcard binding that matches the port's name (Junos `interfaces et-*`); `via`: the
    /// pattern.
    Wildcard,
    /// Nothing binds one: the platform's own policy or map is in force (`at`: the block it
    /// applies to).
    Default,
}

/// One QoS policy, map or profile in force on a port: its kind (what statement binds it and in
/// which direction), its name, how it came into force, and the line that binds it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct BoundPolicy {
    /// `service-policy type qos input`, `trust-map dscp`, `PORT_QOS_MAP dscp_to_tc_map`,
    /// `classifiers dscp`, `scheduler-map`, ...
    pub kind: String,
    pub name: String,
    /// How it is in force.
    pub bound: Bound,
    /// The block, profile, LAG or pattern it came through.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    /// The binding line (shown as `file:line`); for a platform default, the block it applies to.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "file_line")]
    pub at: Option<Src>,
}

impl BoundPolicy {
    pub fn new(kind: &str, name: &str, bound: Bound, at: Option<&Src>) -> Self {
        BoundPolicy {
            kind: kind.to_string(),
            name: name.to_string(),
            bound,
            via: None,
            at: at.cloned(),
        }
    }

    /// The same, naming the block, profile, LAG or pattern it came through.
    pub fn via(mut self, via: &str) -> Self {
        self.via = Some(via.to_string());
        self
    }
}

static KEEP_POLICIES: AtomicBool = AtomicBool::new(false);

/// Whether platform builds record each port's policies in force (`QosMaps::policies`): only
/// when the model is shown (`audit --format model`). Each port's own binding lines would make
/// every port's maps differ from its neighbours' and end their sharing ([`share`]), which a
/// large fabric pays in memory for a list no rule reads.
pub fn keep_policies() -> bool {
    KEEP_POLICIES.load(Ordering::Relaxed)
}

/// Turn [`keep_policies`] on or off for the process (the CLI turns it on for `--format model`).
pub fn set_keep_policies(on: bool) {
    KEEP_POLICIES.store(on, Ordering::Relaxed);
}

/// Add to the policies in force on a port, when they are kept ([`keep_policies`]); `f` is not
/// called otherwise.
pub fn bind(i: &mut Interface, f: impl FnOnce() -> Vec<BoundPolicy>) {
    if keep_policies() {
        let v = f();
        if !v.is_empty() {
            i.maps.policies.extend(v);
        }
    }
}

impl QosMaps {
    /// Serialized only in the model the user asks for (`audit --format model`, see
    /// `with_maps`): rules read the value vectors, and 100 entries per port would slow every
    /// rule evaluation for nothing.
    pub fn hidden(&self) -> bool {
        !super::maps_on() || *self == QosMaps::default()
    }
}

/// A port's maps, one copy shared by the ports of a device whose maps are equal (see [`share`]):
/// about a hundred entries per port were the largest part of the model. Reads go through to the
/// maps; a write to shared maps copies them first, so it changes only its own port. Serialized
/// as the maps themselves.
#[derive(Debug, Clone, PartialEq)]
pub struct Shared(Arc<QosMaps>);

/// One empty copy for every port whose maps nothing wrote (most ports: the maps are filled
/// for the model only), instead of an allocation per port.
fn empty() -> &'static Arc<QosMaps> {
    static EMPTY: std::sync::LazyLock<Arc<QosMaps>> = std::sync::LazyLock::new(Arc::default);
    &EMPTY
}

impl Default for Shared {
    fn default() -> Self {
        Shared(empty().clone())
    }
}

impl Deref for Shared {
    type Target = QosMaps;
    fn deref(&self) -> &QosMaps {
        &self.0
    }
}

impl DerefMut for Shared {
    fn deref_mut(&mut self) -> &mut QosMaps {
        Arc::make_mut(&mut self.0)
    }
}

impl Serialize for Shared {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl Shared {
    /// Whether these are the untouched empty maps every new port starts with.
    pub fn is_default_copy(&self) -> bool {
        Arc::ptr_eq(&self.0, empty())
    }
    pub fn arc(&self) -> &Arc<QosMaps> {
        &self.0
    }
    pub fn set_arc(&mut self, a: Arc<QosMaps>) {
        self.0 = a;
    }
    /// See [`QosMaps::hidden`].
    pub fn hidden(&self) -> bool {
        self.0.hidden()
    }
}

/// Let every port of `ifaces` whose maps equal another's share that port's copy.
pub fn share(ifaces: &mut [Interface]) {
    let mut seen: HashSet<Arc<QosMaps>> = HashSet::new();
    for i in ifaces {
        match seen.get(&*i.maps.0) {
            Some(same) => i.maps.0 = same.clone(),
            None => {
                seen.insert(i.maps.0.clone());
            }
        }
    }
}

/// The reasons a platform gives for the entries it does not state, per map (None: no note).
#[derive(Debug, Clone, Copy, Default)]
pub struct Notes<'a> {
    pub dscp_to_tc: Option<&'a str>,
    pub pcp_to_tc: Option<&'a str>,
    pub tc_to_queue: Option<&'a str>,
    pub tc_to_pg: Option<&'a str>,
    pub tc_to_pfc_priority: Option<&'a str>,
    pub pfc_priority_to_queue: Option<&'a str>,
    pub tc_to_dscp: Option<&'a str>,
}

/// Fill every map the platform left empty from the interface's value vectors; PFC priority →
/// queue, which has no vector, is unknown unless the platform filled it.
pub fn complete(i: &mut Interface, notes: &Notes) {
    const NO_FILE: &str = "no file read states it";
    // An unknown vector's entries say why they are unknown.
    fn why<'a, T>(f: &Field<T>, note: Option<&'a str>) -> Option<&'a str> {
        match f {
            Some(_) => note,
            None => note.or(Some(NO_FILE)),
        }
    }
    // Sources that cite the port's own line are written as the marker `Src::port_line` once
    // the port is shared (`sharing`): the entries cite the line itself.
    let cited = i
        .defined_at
        .as_ref()
        .and_then(|at| super::sharing::qos_citing(&i.qos, at));
    let qos: &super::PortQos = cited.as_ref().unwrap_or(&i.qos);
    let m = &mut i.maps;
    if m.dscp_to_tc.is_empty() {
        m.dscp_to_tc =
            QosMap::of_field(&qos.dscp_to_tc, 64, why(&qos.dscp_to_tc, notes.dscp_to_tc));
    }
    if m.tc_to_queue.is_empty() {
        m.tc_to_queue = QosMap::of_field(
            &qos.tc_to_queue,
            8,
            why(&qos.tc_to_queue, notes.tc_to_queue),
        );
    }
    if m.tc_to_pg.is_empty() {
        m.tc_to_pg = QosMap::of_field(&qos.tc_to_pg, 8, why(&qos.tc_to_pg, notes.tc_to_pg));
    }
    if m.tc_to_pfc_priority.is_empty() {
        let note = why(&qos.tc_to_pfc_priority, notes.tc_to_pfc_priority);
        m.tc_to_pfc_priority = QosMap::of_field(&qos.tc_to_pfc_priority, 8, note);
    }
    if m.pcp_to_tc.is_empty() {
        m.pcp_to_tc = match &qos.pcp_to_tc {
            Some(_) => QosMap::of_field(&qos.pcp_to_tc, 8, notes.pcp_to_tc),
            None => QosMap::unknown(8, notes.pcp_to_tc.unwrap_or(NO_FILE)),
        };
    }
    if m.pfc_priority_to_queue.is_empty() {
        m.pfc_priority_to_queue =
            QosMap::unknown(8, notes.pfc_priority_to_queue.unwrap_or(NO_FILE));
    }
    if m.tc_to_dscp.is_empty() {
        m.tc_to_dscp = tc_to_dscp_of(&qos.dscp_rewrites, notes.tc_to_dscp);
    }
}

/// How `--format model` completes the maps of the ports of the device being written
/// ([`with_fill`]), port by port on a copy of one port at a time (issue 19: a copy of a whole
/// device of 16,384 ports with its maps complete was most of a model report's memory).
#[derive(Debug, Clone, Copy, Default)]
pub struct Fill {
    /// A switch's reasons: its Ethernet and port-channel ports are completed.
    pub switch: Option<Notes<'static>>,
    /// A host lacking its RDMA ports' maps: those ports are completed.
    pub host_rdma: bool,
}

thread_local! {
    static FILL: std::cell::Cell<Option<Fill>> = const { std::cell::Cell::new(None) };
}

/// Run `f` (which serializes one device) with its ports completed as `fill` says.
pub fn with_fill<R>(fill: Fill, f: impl FnOnce() -> R) -> R {
    let prev = FILL.with(|c| c.replace(Some(fill)));
    let r = f();
    FILL.with(|c| c.set(prev));
    r
}

/// `serialize_with` of `Device::interfaces`: the ports as they are, or inside [`with_fill`]
/// each port that it completes written from a completed copy of it.
pub fn serialize_ports<S: serde::Serializer>(ports: &[Interface], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let Some(fill) = FILL.with(|c| c.get()) else {
        return s.collect_seq(ports);
    };
    let mut seq = s.serialize_seq(Some(ports.len()))?;
    for i in ports {
        let as_switch = fill
            .switch
            .filter(|_| matches!(&*i.kind, "ethernet" | "port-channel"));
        let as_host = fill.host_rdma && i.rdma.is_some();
        if as_switch.is_none() && !as_host {
            seq.serialize_element(i)?;
            continue;
        }
        let mut own = i.clone();
        if let Some(n) = as_switch {
            complete(&mut own, &n);
        }
        if as_host {
            complete(&mut own, &Notes::default());
        }
        seq.serialize_element(&own)?;
    }
    seq.end()
}

/// Whether the model the user asks for (`audit --format model`) completes the maps of `d`'s
/// ports backed by an RDMA device: `d` is a host lacking them. A host's maps are its value
/// vectors again (the host's "traffic class" is the 802.1p priority it sends); keeping them
/// on every host of a large fabric would cost memory that no rule reads.
pub fn fills_host_maps(d: &super::Device) -> bool {
    !d.is_switch
        && d.interfaces
            .iter()
            .any(|i| i.rdma.is_some() && i.maps.tc_to_dscp.is_empty())
}

/// The egress TC → DSCP map of a platform that did not fill it, from what its rewrites say: no
/// DSCP rewritten by anything on the port means every class leaves unchanged (at the line or
/// block that says so); a port whose DSCPs are rewritten by a policy the platform's reader does
/// not keep as a TC → DSCP map (NX-OS, OS10 `set dscp` per policy class), or whose rewrites are
/// unknown, has unknown entries, with why.
fn tc_to_dscp_of(rewrites: &Field<Vec<u8>>, note: Option<&str>) -> QosMap {
    const BY_CLASS: &str = "the port rewrites the DSCPs dscp_rewrites lists, by a policy this platform's reader does not keep as a TC → DSCP map (NX-OS and OS10 `set dscp` per policy class, Junos rewrite rules per forwarding class and loss priority)";
    match rewrites {
        Some(r) if r.value.is_empty() => QosMap {
            entries: (0..8)
                .map(|k| MapEntry::unchanged(k, r.src.as_ref()))
                .collect(),
            note: Some(
                note.unwrap_or("no egress DSCP rewrite applies to the port")
                    .to_string(),
            ),
        },
        Some(_) => QosMap::unknown(8, BY_CLASS),
        None => QosMap::unknown(8, note.unwrap_or("no file read states it")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{default_of, known};
    use std::sync::Arc;

    #[test]
    fn entries_carry_the_fields_provenance() {
        let file: Arc<str> = Arc::from("configs/leaf1.conf");
        let src = Src::new(&file, 12);
        let f = known(vec![0, 1, 2, 3, 4, 5, 6, 7], &src);
        let m = QosMap::of_field(&f, 8, None);
        assert_eq!(m.entries[4], MapEntry::config(4, 4, &src));
        let at = m.entries[4]
            .at
            .as_ref()
            .map(|s| format!("{}:{}", s.file, s.line));
        assert_eq!(at.as_deref(), Some("configs/leaf1.conf:12"));
        let d = default_of(vec![0; 8], Some(&src));
        let m = QosMap::of_field(&d, 8, Some("all to queue 0"));
        assert_eq!(m.entries[3].how, How::Default);
        assert_eq!(m.get(3), Some(0));
        assert_eq!(m.note.as_deref(), Some("all to queue 0"));
        let m = QosMap::of_field(&None, 8, Some("no map"));
        assert!(
            m.entries
                .iter()
                .all(|e| e.how == How::Unknown && e.to.is_none())
        );
        // A vector shorter than the map: the missing entries are unknown, not invented.
        let short = known(vec![1, 2], &src);
        let m = QosMap::of_field(&short, 8, None);
        assert_eq!(m.get(1), Some(2));
        assert_eq!(m.entries[5].how, How::Unknown);
    }

    #[test]
    fn equal_maps_are_shared_and_a_write_stays_on_its_port() {
        let file: Arc<str> = Arc::from("c");
        let src = Src::new(&file, 3);
        let mut ports: Vec<Interface> = (0..3)
            .map(|n| Interface::new(&format!("Ethernet1/{n}"), "ethernet"))
            .collect();
        ports[2].qos.tc_to_queue = known(vec![1; 8], &src);
        for i in ports.iter_mut() {
            complete(i, &Notes::default());
        }
        share(&mut ports);
        assert!(Arc::ptr_eq(&ports[0].maps.0, &ports[1].maps.0));
        assert!(!Arc::ptr_eq(&ports[0].maps.0, &ports[2].maps.0));
        let before = serde_json::to_string(&*ports[1].maps).unwrap_or_default();
        ports[0].maps.tc_to_queue = QosMap::unknown(8, "changed");
        assert_eq!(ports[0].maps.tc_to_queue.note.as_deref(), Some("changed"));
        assert_eq!(
            serde_json::to_string(&*ports[1].maps).unwrap_or_default(),
            before
        );
        assert_eq!(
            serde_json::to_string(&ports[1].maps).unwrap_or_default(),
            before
        );
    }

    #[test]
    fn complete_keeps_what_the_platform_filled() {
        let file: Arc<str> = Arc::from("c");
        let src = Src::new(&file, 3);
        let mut i = Interface::new("et-0/0/0", "ethernet");
        i.qos.tc_to_queue = known(vec![0; 8], &src);
        i.maps.pfc_priority_to_queue = QosMap {
            entries: vec![MapEntry::config(3, 4, &src)],
            note: None,
        };
        complete(&mut i, &Notes::default());
        assert_eq!(i.maps.pfc_priority_to_queue.get(3), Some(4));
        assert_eq!(i.maps.tc_to_queue.entries.len(), 8);
        assert_eq!(i.maps.dscp_to_tc.entries.len(), 64);
        assert!(
            i.maps
                .pcp_to_tc
                .entries
                .iter()
                .all(|e| e.how == How::Unknown)
        );
    }
}
