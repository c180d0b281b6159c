//! Eight numbered entries of a port (egress queues 0-7, priority groups 0-7), stored only once
//! one of them is written, and one copy shared by the ports of a device whose entries are equal.
//!
//! Eight queues and eight priority groups were about 5 KiB per port: most of the model. Most
//! ports of a large fabric have no queue or priority-group fact at all (every port of a switch
//! known only from `show interface`, the loopbacks and management ports of every host); until
//! a platform writes one, the entries read as the eight blank ones (ids 0-7, every fact
//! unknown) from one static copy. The ports of a switch that one QoS policy configures have
//! equal entries, down to the lines they cite; [`share`] lets them hold one copy. A write to a
//! shared copy copies it first, so it changes only its own port. Rules, reports and the model
//! see exactly what they saw when every port held its own.

use super::part::{Blank, Part};
use serde::{Serialize, Serializer};
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// An entry type numbered 0-7 whose blank entries one static copy holds.
pub trait Numbered: Clone + PartialEq + Sized + 'static {
    /// The eight blank entries, ids 0-7.
    fn blank() -> &'static [Self; 8];
}

impl<T: Numbered> Blank for [T; 8] {
    fn blank() -> &'static Self {
        T::blank()
    }
}

/// See the module doc: `[T]` of length 8 for reading; the first write stores the port's own.
/// Stored, shared and copied on write as a [`Part`] of the eight.
#[derive(Clone, Default)]
pub struct Eight<T: Numbered>(Part<[T; 8]>);

impl<T: Numbered> Eight<T> {
    /// Whether this port holds its own entries (one was written).
    pub fn is_stored(&self) -> bool {
        self.0.is_stored()
    }
    /// Where the stored entries are (None: the blank ones); equal pointers share one copy.
    pub fn stored_ptr(&self) -> Option<*const [T; 8]> {
        self.0.stored_ptr()
    }
    /// Hold the copy of `seen` equal to these entries, if one is; else remember these as a
    /// new one while `seen` has fewer than `max` (see [`share`]).
    pub fn fold_into(&mut self, seen: &mut Vec<Arc<[T; 8]>>, max: usize) {
        self.0.fold_into(seen, max);
    }
}

impl<T: Numbered> Deref for Eight<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.0[..]
    }
}

impl<T: Numbered> DerefMut for Eight<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.0[..]
    }
}

impl<T: Numbered + std::fmt::Debug> std::fmt::Debug for Eight<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Numbered + Serialize> Serialize for Eight<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

/// Let the ports whose entries (read by `get`) equal another port's share that port's copy.
pub fn share<P, T: Numbered>(ports: &mut [P], get: impl Fn(&mut P) -> &mut Eight<T>) {
    super::part::share(ports, |p| &mut get(p).0);
}

#[cfg(test)]
mod tests {
    use crate::model::{Interface, Queue};

    #[test]
    fn blank_until_written_and_a_write_stays_on_its_port() {
        let mut a = Interface::new("Ethernet1/1", "ethernet");
        let b = Interface::new("Ethernet1/2", "ethernet");
        assert!(!a.queues.is_stored() && !a.pgs.is_stored());
        assert_eq!(a.queues.len(), 8);
        assert_eq!(
            a.queues.iter().map(|q| q.id).collect::<Vec<_>>(),
            (0..8).collect::<Vec<u8>>()
        );
        let blank = serde_json::to_string(&b.queues).unwrap_or_default();
        assert!(blank.starts_with("[{\"id\":0,"), "{blank}");
        if let Some(q) = a.queues.get_mut(3) {
            q.wred_drop = Some(crate::model::Sourced {
                value: true,
                src: None,
                default: true,
            });
        }
        assert!(a.queues.is_stored() && !a.pgs.is_stored());
        let q3: &Queue = &a.queues[3];
        assert!(q3.wred_drop.is_some());
        assert_eq!(serde_json::to_string(&b.queues).unwrap_or_default(), blank);
        assert!(b.queues[3].wred_drop.is_none());
        // Equal entries are shared; a write to one port leaves the other as it was.
        let mut ports = vec![a.clone(), a, b];
        super::share(&mut ports, |p| &mut p.queues);
        let ptr = |p: &Interface| p.queues.stored_ptr();
        assert!(ptr(&ports[0]).is_some() && ptr(&ports[0]) == ptr(&ports[1]));
        assert!(ptr(&ports[2]).is_none());
        let w = ports[1].queues[3].wred_drop.clone();
        if let Some(q) = ports[0].queues.get_mut(5) {
            q.wred_drop = w;
        }
        assert!(ptr(&ports[0]) != ptr(&ports[1]));
        assert!(ports[0].queues[5].wred_drop.is_some());
        assert!(ports[1].queues[5].wred_drop.is_none());
    }
}
