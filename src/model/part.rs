//! A part of a port that most ports of a device hold equal (its PFC, link-pause and PFC
//! watchdog settings), stored once per distinct value.
//!
//! Every platform writes these on every port, mostly as the same defaults; inline they were
//! 256 bytes of each port (issue 19: 64 KiB of `interface` lines built about 2,800 ports).
//! A [`Part`] reads as the blank value from one static copy until it is written; a written
//! part is the port's own until [`Part::fold_into`] lets it hold an equal copy another port
//! already has. A write to a shared copy copies it first ([`Arc::make_mut`]), so it changes
//! only its own port. Reads, serialization and equality are those of the value itself.

use serde::{Serialize, Serializer};
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// A value type whose blank value one static copy holds.
pub trait Blank: Clone + PartialEq + Sized + 'static {
    fn blank() -> &'static Self;
}

/// See the module doc.
pub struct Part<T: Blank>(Option<Arc<T>>);

impl<T: Blank> Part<T> {
    /// Hold the copy in `seen` equal to this one, if there is one; else remember this one
    /// while `seen` has fewer than `max` (a device has few distinct settings: one per policy).
    pub fn fold_into(&mut self, seen: &mut Vec<Arc<T>>, max: usize) {
        let Some(own) = &mut self.0 else { return };
        match seen.iter().find(|s| Arc::ptr_eq(s, own) || ***s == **own) {
            Some(same) => *own = same.clone(),
            None if seen.len() < max => seen.push(own.clone()),
            None => {}
        }
    }

    /// Whether this port holds a written value (its own or a shared copy).
    pub fn is_stored(&self) -> bool {
        self.0.is_some()
    }

    /// Where the stored value is (None: the blank one); equal pointers share one copy.
    pub fn stored_ptr(&self) -> Option<*const T> {
        self.0.as_ref().map(Arc::as_ptr)
    }
}

impl<T: Blank> Default for Part<T> {
    fn default() -> Self {
        Part(None)
    }
}

impl<T: Blank> Clone for Part<T> {
    fn clone(&self) -> Self {
        Part(self.0.clone())
    }
}

impl<T: Blank> From<T> for Part<T> {
    fn from(v: T) -> Self {
        Part(Some(Arc::new(v)))
    }
}

impl<T: Blank> Deref for Part<T> {
    type Target = T;
    fn deref(&self) -> &T {
        match &self.0 {
            Some(own) => own,
            None => T::blank(),
        }
    }
}

impl<T: Blank> DerefMut for Part<T> {
    fn deref_mut(&mut self) -> &mut T {
        let own = self.0.get_or_insert_with(|| Arc::new(T::blank().clone()));
        Arc::make_mut(own)
    }
}

impl<T: Blank> PartialEq for Part<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Blank + std::fmt::Debug> std::fmt::Debug for Part<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

impl<T: Blank + Serialize> Serialize for Part<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

/// `impl Blank` for types whose blank value is their `Default`.
macro_rules! blank_is_default {
    ($($t:ty),*) => {$(
        impl Blank for $t {
            fn blank() -> &'static Self {
                static BLANK: std::sync::LazyLock<$t> = std::sync::LazyLock::new(Default::default);
                &BLANK
            }
        }
    )*};
}
blank_is_default!(
    super::Pfc,
    super::LinkPause,
    super::Watchdog,
    super::PortQos,
    super::PortNames
);

/// Let the ports whose part (read by `get`) equals another port's share that port's copy.
pub fn share<P, T: Blank>(ports: &mut [P], get: impl Fn(&mut P) -> &mut Part<T>) {
    let mut seen: Vec<Arc<T>> = Vec::new();
    for p in ports {
        get(p).fold_into(&mut seen, 64);
    }
}

#[cfg(test)]
mod tests {
    use super::Part;
    use crate::model::{Pfc, Sourced};

    #[test]
    fn blank_until_written_shared_when_equal_and_a_write_stays_on_its_port() {
        let mut ports: Vec<Part<Pfc>> = vec![Part::default(); 3];
        assert!(!ports[0].is_stored());
        assert_eq!(*ports[0], Pfc::default());
        for p in &mut ports {
            p.rx = Some(Sourced {
                value: true,
                src: None,
                default: true,
            });
        }
        assert_ne!(ports[0].stored_ptr(), ports[1].stored_ptr());
        super::share(&mut ports, |p| p);
        assert_eq!(ports[0].stored_ptr(), ports[2].stored_ptr());
        ports[1].tx = ports[1].rx.clone();
        assert_ne!(ports[0].stored_ptr(), ports[1].stored_ptr());
        assert!(ports[0].tx.is_none() && ports[1].tx.is_some());
        assert_eq!(ports[0], ports[2]);
        assert_eq!(
            serde_json::to_string(&ports[0]).ok(),
            serde_json::to_string(&*ports[2]).ok()
        );
    }
}
