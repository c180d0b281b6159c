//! One copy of equal per-port QoS data (maps, queues, priority groups), shared while a device
//! is built rather than only once it is done.
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

use super::maps::QosMaps;
use super::{Interface, PriorityGroup, Queue};
use std::collections::HashSet;
use std::sync::Arc;

/// The distinct copies seen so far on one device.
#[derive(Debug, Clone, Default)]
pub struct Sharing {
    maps: HashSet<Arc<QosMaps>>,
    queues: Vec<Arc<[Queue; 8]>>,
    pgs: Vec<Arc<[PriorityGroup; 8]>>,
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
        // (`platform::fill_maps` fills them for that model from the value vectors).
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
        port.queues.fold_into(&mut self.queues, MAX_DISTINCT);
        port.pgs.fold_into(&mut self.pgs, MAX_DISTINCT);
    }
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
