//! One copy of equal per-port QoS data (maps, queues, priority groups, PFC, link pause, PFC
//! watchdog), shared while a device is built rather than only once it is done.
//!
//! A platform writes each port's maps and eight queues and priority groups as it applies the
//! configuration; most ports of a switch get equal ones (one QoS policy, the platform's
//! defaults). [`super::eight::share`] and [`super::maps::share`] fold equal copies into one
//! once the device is built, but until then every port held its own: about 3 KiB a port, the
//! peak of a build (issue 19: a megabyte of bare `interface` stanzas held ~50 MB of queue and
//! group copies before they were shared). [`Sharing::port`] folds a port's copies as soon as
//! the reader moves on to a new port ([`super::Device::iface_slot`]), so at most one port's
//! copies are unshared at a time in a reader that writes port after port. Sharing changes no
//! value: a later write to a shared copy copies it first ([`std::sync::Arc::make_mut`]).
//! Unless the model is asked for ([`super::maps::keep_policies`]), a port's entry-by-entry
//! maps are dropped there instead: nothing else reads them.
//!
//! Most platforms write a port's queue, group, PFC, watchdog and classification defaults citing
//! the port's own line, so no two ports' copies were equal and each port kept its own (about 3 KB; issue 19: OS10's
//! queues and groups were 7.5 MB of 13 MB for 64 KiB of `interface` lines). Before folding,
//! [`cite_port_line`] writes a source equal to the port's `defined_at` as
//! [`Src::port_line`], which serializes as that line ([`super::Interface::defined_at`]), so the
//! copies are equal and every output is as before.

use super::maps::QosMaps;
use super::{Interface, LinkPause, Pfc, PortQos, PriorityGroup, Queue, Src, Watchdog};
use std::collections::HashSet;
use std::sync::Arc;

/// The copy of `value` that `seen` already holds, or `value` made shared and recorded there:
/// one allocation for every equal name, message shape or reason met in a loop.
pub fn one_copy<T, Q>(seen: &mut HashSet<Arc<T>>, value: Q) -> Arc<T>
where
    T: ?Sized + Eq + std::hash::Hash,
    Q: std::borrow::Borrow<T>,
    Arc<T>: From<Q>,
{
    if let Some(s) = seen.get(value.borrow()) {
        return s.clone();
    }
    let s = Arc::from(value);
    seen.insert(s.clone());
    s
}

/// The distinct copies seen so far on one device.
#[derive(Debug, Clone, Default)]
pub struct Sharing {
    maps: HashSet<Arc<QosMaps>>,
    queues: Vec<Arc<[Queue; 8]>>,
    pgs: Vec<Arc<[PriorityGroup; 8]>>,
    pfc: Vec<Arc<Pfc>>,
    link_pause: Vec<Arc<LinkPause>>,
    watchdog: Vec<Arc<Watchdog>>,
    qos: Vec<Arc<PortQos>>,
}

/// A device has few distinct queue or group settings (one per policy); past this many the
/// rest keep their own copies (a linear search each, as in [`super::eight::share`]).
const MAX_DISTINCT: usize = 64;

impl Sharing {
    /// Let `port` hold the copy already seen of each of its maps, queues and groups that
    /// equals one (or remember its own as the first of its kind).
    pub fn port(&mut self, port: &mut Interface) {
        // Entry-by-entry maps are shown only by the model (`--format model`, which turns
        // `keep_policies` on); otherwise no one reads a port's maps once its reader moved on
        // (`platform::maps::model_fill` completes them for that model from the value vectors).
        if !super::maps::keep_policies() {
            if !port.maps.is_default_copy() {
                port.maps = Default::default();
            }
        } else if !port.maps.is_default_copy() {
            match self.maps.get(port.maps.arc()) {
                Some(same) => port.maps.set_arc(same.clone()),
                None => {
                    if self.maps.len() < MAX_DISTINCT * 16 {
                        self.maps.insert(port.maps.arc().clone());
                    }
                }
            }
        }
        port.drop_blank_details();
        cite_port_line(port);
        port.queues.fold_into(&mut self.queues, MAX_DISTINCT);
        port.pgs.fold_into(&mut self.pgs, MAX_DISTINCT);
        port.pfc.fold_into(&mut self.pfc, MAX_DISTINCT);
        port.link_pause
            .fold_into(&mut self.link_pause, MAX_DISTINCT);
        port.watchdog.fold_into(&mut self.watchdog, MAX_DISTINCT);
        port.qos.fold_into(&mut self.qos, MAX_DISTINCT);
    }
}

/// The sources of the facts `$f` (each a `Field`), as `Option<&(mut) Option<Src>>` (`None`
/// for an unknown fact).
macro_rules! srcs {
    (ref $($f:expr),*) => { [$($f.as_ref().map(|f| &f.src)),*] };
    (mut $($f:expr),*) => { [$($f.as_mut().map(|f| &mut f.src)),*] };
}

/// The sources of every fact of each part of a port that [`cite_port_line`] rewrites: one
/// list per part for both directions, so what it marks [`uncite_port_line`] finds.
macro_rules! queue_srcs {
    ($how:tt $q:expr) => {
        srcs!($how $q.scheduler, $q.weight_pct, $q.ecn.enabled, $q.ecn.min_bytes,
            $q.ecn.max_bytes, $q.ecn.max_probability_pct, $q.ecn.min_pct, $q.ecn.max_pct,
            $q.wred_drop)
    };
}
macro_rules! group_srcs {
    ($how:tt $g:expr) => {
        srcs!($how $g.headroom_bytes, $g.xoff_bytes, $g.xon_bytes, $g.size_bytes, $g.pool,
            $g.lossless)
    };
}
macro_rules! pfc_srcs {
    ($how:tt $p:expr) => { srcs!($how $p.mode, $p.priorities, $p.rx, $p.tx) };
}
macro_rules! pause_srcs {
    ($how:tt $p:expr) => { srcs!($how $p.rx, $p.tx) };
}
macro_rules! qos_srcs {
    ($how:tt $c:expr) => {
        srcs!($how $c.trust, $c.dscp_to_tc, $c.pcp_to_tc, $c.tc_to_queue, $c.tc_to_pg,
            $c.tc_to_pfc_priority, $c.dscp_rewrites)
    };
}
macro_rules! watchdog_srcs {
    ($how:tt $w:expr) => {
        srcs!($how $w.enabled, $w.detect_ms, $w.restore_ms, $w.poll_ms, $w.action)
    };
}

/// Rewrite, in `port`'s queues, groups, PFC, link pause, watchdog and classification, each
/// source `from`
/// matches as `to(source)`; a part is copied (when shared) only if one of its sources matches.
fn rewrite(port: &mut Interface, from: &dyn Fn(&Src) -> bool, to: &dyn Fn(&Src) -> Src) {
    let hit = |s: Option<&Option<Src>>| s.and_then(Option::as_ref).is_some_and(from);
    let set = |s: &mut Option<Src>| {
        if let Some(src) = s.as_ref().filter(|s| from(s)) {
            *s = Some(to(src));
        }
    };
    if port.queues.is_stored()
        && port
            .queues
            .iter()
            .any(|q| queue_srcs!(ref q).into_iter().any(hit))
    {
        for q in port.queues.iter_mut() {
            queue_srcs!(mut q).into_iter().flatten().for_each(set);
        }
    }
    if port.pgs.is_stored()
        && port
            .pgs
            .iter()
            .any(|g| group_srcs!(ref g).into_iter().any(hit))
    {
        for g in port.pgs.iter_mut() {
            group_srcs!(mut g).into_iter().flatten().for_each(set);
        }
    }
    // A `part::Part` whose sources `$srcs` lists: copied (when shared) only on a match.
    macro_rules! part {
        ($part:expr, $srcs:ident) => {
            if $part.is_stored() && $srcs!(ref $part).into_iter().any(hit) {
                let p = &mut *$part;
                $srcs!(mut p).into_iter().flatten().for_each(set);
            }
        };
    }
    part!(port.pfc, pfc_srcs);
    part!(port.link_pause, pause_srcs);
    part!(port.watchdog, watchdog_srcs);
    part!(port.qos, qos_srcs);
}

/// Let `port`'s queue, group, PFC, link-pause, watchdog and classification facts that cite its
/// `defined_at` cite [`Src::port_line`].
pub fn cite_port_line(port: &mut Interface) {
    let Some(at) = port.defined_at.clone() else {
        return;
    };
    rewrite(port, &|s| *s == at, &|_| Src::port_line());
}

/// `qos` with its facts that cite [`Src::port_line`] citing `at` (the port's `defined_at`)
/// instead; None when none does. For code that reads a classification fact's source directly
/// rather than through the port's serialization (the entry-by-entry maps).
pub fn qos_citing(qos: &PortQos, at: &Src) -> Option<PortQos> {
    let hit = |s: Option<&Option<Src>>| s.and_then(Option::as_ref).is_some_and(Src::is_port_line);
    if !qos_srcs!(ref qos).into_iter().any(hit) {
        return None;
    }
    let mut own = qos.clone();
    let c = &mut own;
    for s in qos_srcs!(mut c).into_iter().flatten() {
        if s.as_ref().is_some_and(Src::is_port_line) {
            *s = Some(at.clone());
        }
    }
    Some(own)
}

/// Undo [`cite_port_line`]: its facts cite the port's `defined_at` again.
pub fn uncite_port_line(port: &mut Interface) {
    let Some(at) = port.defined_at.clone() else {
        return;
    };
    rewrite(port, &|s| s.is_port_line(), &|_| at.clone());
}

#[cfg(test)]
mod tests {
    use super::Sharing;
    use crate::model::{Interface, Sourced};
    use std::sync::Arc;

    fn wred(i: &mut Interface, q: usize, v: bool) {
        if let Some(q) = i.queues.get_mut(q) {
            q.wred_drop = Some(Sourced {
                value: v,
                src: None,
                default: true,
            });
        }
    }

    /// Two ports whose queue defaults cite each its own line share one copy, and each still
    /// cites its own line when serialized with sources, also after `defined_at` moves.
    #[test]
    fn defaults_citing_the_port_line_are_shared_and_still_cite_it() {
        use crate::model::{Src, default_of, with_sources};
        let file: Arc<str> = Arc::from("configs/leaf1.cfg");
        let mut s = Sharing::default();
        let mut ports: Vec<Interface> = [10u32, 20, 30]
            .iter()
            .map(|&line| {
                let mut p = Interface::new(&format!("Ethernet1/{line}"), "ethernet");
                p.set_defined_at(Src::new(&file, line));
                let at = p.defined_at.clone();
                for q in p.queues.iter_mut() {
                    q.ecn.enabled = default_of(false, at.as_ref());
                }
                p.pgs[3].lossless = default_of(true, at.as_ref());
                p
            })
            .collect();
        for p in &mut ports {
            s.port(p);
        }
        assert_eq!(ports[0].queues.stored_ptr(), ports[2].queues.stored_ptr());
        assert_eq!(ports[0].pgs.stored_ptr(), ports[1].pgs.stored_ptr());
        let cited = |p: &Interface| {
            let v = with_sources(|| serde_json::to_value(p)).unwrap_or_default();
            (
                v["queues"][5]["ecn"]["enabled"]["line"].clone(),
                v["pgs"][3]["lossless"]["line"].clone(),
                v["queues"][5]["ecn"]["enabled"]["file"].clone(),
            )
        };
        for (p, line) in ports.iter().zip([10, 20, 30]) {
            assert_eq!(
                cited(p),
                (line.into(), line.into(), "configs/leaf1.cfg".into()),
                "{}",
                p.name
            );
        }
        // A second stanza of the port moves `defined_at`: the facts keep the first line.
        ports[1].set_defined_at(Src::new(&file, 99));
        assert_eq!(cited(&ports[1]).0, 20);
        assert_eq!(cited(&ports[0]).0, 10);
    }

    /// Classification defaults citing each port's own line: one copy for the ports, and the
    /// port's serialization and its entry-by-entry maps (read from the copy directly) still
    /// cite each port's line.
    #[test]
    fn classification_citing_the_port_line_is_shared_and_its_maps_cite_the_line() {
        use crate::model::{Src, default_of, maps, with_sources};
        let file: Arc<str> = Arc::from("configs/leaf1.cfg");
        let mut s = Sharing::default();
        let mut ports: Vec<Interface> = [10u32, 20]
            .iter()
            .map(|&line| {
                let mut p = Interface::new(&format!("Ethernet1/{line}"), "ethernet");
                p.set_defined_at(Src::new(&file, line));
                let at = p.defined_at.clone();
                p.qos.trust = default_of("dscp".to_string(), at.as_ref());
                p.qos.tc_to_queue = default_of((0..8).collect(), at.as_ref());
                p
            })
            .collect();
        for p in &mut ports {
            s.port(p);
        }
        assert!(ports[0].qos.is_stored());
        assert_eq!(ports[0].qos.stored_ptr(), ports[1].qos.stored_ptr());
        for (p, line) in ports.iter_mut().zip([10u32, 20]) {
            let v = with_sources(|| serde_json::to_value(&*p)).unwrap_or_default();
            assert_eq!(v["trust"]["line"], line, "{}", p.name);
            maps::complete(p, &Default::default());
            let at = p.maps.tc_to_queue.entries[3].at.clone();
            assert_eq!(at, Some(Src::new(&file, line)), "{}", p.name);
        }
    }

    #[test]
    fn equal_ports_share_one_copy_and_a_later_write_stays_on_its_port() {
        let mut s = Sharing::default();
        let mut ports: Vec<Interface> = (1..=3)
            .map(|n| Interface::new(&format!("Ethernet1/{n}"), "ethernet"))
            .collect();
        for p in &mut ports {
            wred(p, 3, true);
            p.maps.pcp_to_tc.note = Some("stated by no file".into());
            s.port(p);
        }
        let q = |p: &Interface| p.queues.stored_ptr();
        assert!(q(&ports[0]).is_some());
        assert_eq!(q(&ports[0]), q(&ports[1]));
        assert_eq!(q(&ports[1]), q(&ports[2]));
        // Without `--format model` (keep_policies off, as in this test) the maps went.
        assert!(ports.iter().all(|p| p.maps.is_default_copy()));
        assert!(Arc::ptr_eq(ports[0].maps.arc(), ports[2].maps.arc()));
        wred(&mut ports[1], 5, false);
        assert_ne!(q(&ports[0]), q(&ports[1]));
        assert!(ports[0].queues[5].wred_drop.is_none());
        assert_eq!(
            ports[1].queues[5].wred_drop.as_ref().map(|w| w.value),
            Some(false)
        );
        // A port that differs keeps its own copy.
        let mut odd = Interface::new("Ethernet1/9", "ethernet");
        wred(&mut odd, 3, false);
        s.port(&mut odd);
        assert_ne!(q(&odd), q(&ports[0]));
        assert_eq!(
            odd.queues[3].wred_drop.as_ref().map(|w| w.value),
            Some(false)
        );
    }
}
