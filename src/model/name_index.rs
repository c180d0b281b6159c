//! Find an item of a growing list by its name without scanning the list.
//!
//! Readers look a port up by name for every line that names one; a scan per lookup made a
//! file with many short interface stanzas quadratic in its ports (issue 19: 1 MiB of NX-OS
//! stanzas, 48,000 ports, took 20 s in a release build). The index is built only once a list
//! is long (short lists are scanned, as before, and cost no memory), catches up with items
//! pushed since the last lookup, and checks every hit against the list, so a list sorted or
//! shortened behind its back is rescanned rather than misread. Not seen: an item renamed in
//! place, or a list shortened and grown back to its length between two lookups (no reader
//! does either to a list it looks up).
//!
//! The index keys each position by 32 bits of a hash of the name, not by a copy of it: a hit
//! is checked against the list anyway, so the copy and its pointer only cost memory (an entry
//! was a 24-byte slot and the name's bytes, now an 8-byte slot; issue 19). Two names of one
//! key (the hasher is keyed at random, so an input cannot choose them; among 16,384 names a
//! pair shares one about once in 30 devices) are told apart by that check, the later one
//! found by a scan.

use std::collections::HashMap;
use std::hash::BuildHasher;

/// Lists shorter than this are scanned.
const SCAN_BELOW: usize = 64;

#[derive(Debug, Clone, Default)]
pub struct NameIndex {
    /// First position of each name's key among the items `0..upto` ([`NameIndex::key`]).
    map: HashMap<u32, u32>,
    upto: usize,
}

impl NameIndex {
    /// The position of the first item of `list` named `name`, as
    /// `list.iter().position(|t| name_of(t) == name)` would find it.
    pub fn position<T>(
        &mut self,
        list: &[T],
        name_of: impl Fn(&T) -> &str,
        name: &str,
    ) -> Option<usize> {
        if list.len() < SCAN_BELOW || list.len() > u32::MAX as usize {
            self.clear();
            return list.iter().position(|t| name_of(t) == name);
        }
        if self.upto > list.len() {
            self.clear();
        }
        for (i, t) in list.iter().enumerate().skip(self.upto) {
            let k = self.key(name_of(t));
            self.map.entry(k).or_insert(i as u32);
        }
        self.upto = list.len();
        let p = *self.map.get(&self.key(name))? as usize;
        if list.get(p).is_some_and(|t| name_of(t) == name) {
            return Some(p);
        }
        // Reordered since it was indexed, or another name of the same hash: answer by a scan,
        // index afresh next time.
        self.clear();
        list.iter().position(|t| name_of(t) == name)
    }

    /// A name's key: the low 32 bits of its hash by the map's own (randomly keyed) hasher.
    fn key(&self, name: &str) -> u32 {
        self.map.hasher().hash_one(name) as u32
    }

    /// Forget every position (the memory too).
    pub fn clear(&mut self) {
        if self.upto > 0 {
            self.map = HashMap::new();
            self.upto = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("Ethernet1/{i}")).collect()
    }

    #[test]
    fn finds_what_a_scan_finds_on_short_and_long_lists() {
        for n in [0, 3, SCAN_BELOW - 1, SCAN_BELOW, 500] {
            let mut list = names(n);
            list.push("Ethernet1/0".into()); // a duplicate: the first wins, as with a scan
            let mut ix = NameIndex::default();
            for probe in ["Ethernet1/0", "Ethernet1/2", "Ethernet1/499", "nope"] {
                let want = list.iter().position(|t| t == probe);
                assert_eq!(ix.position(&list, |t| t, probe), want, "{n} {probe}");
            }
        }
    }

    #[test]
    fn catches_up_with_pushes_and_survives_reorder_and_shrink() {
        let mut list = names(100);
        let mut ix = NameIndex::default();
        assert_eq!(ix.position(&list, |t| t, "Ethernet1/99"), Some(99));
        list.push("Ethernet9/9".into());
        assert_eq!(ix.position(&list, |t| t, "Ethernet9/9"), Some(100));
        list.reverse();
        assert_eq!(ix.position(&list, |t| t, "Ethernet9/9"), Some(0));
        assert_eq!(ix.position(&list, |t| t, "Ethernet1/0"), Some(100));
        list.truncate(70);
        assert_eq!(ix.position(&list, |t| t, "Ethernet1/0"), None);
        assert_eq!(ix.position(&list, |t| t, "Ethernet1/99"), Some(1));
        list.truncate(10);
        assert_eq!(ix.position(&list, |t| t, "Ethernet1/95"), Some(5));
    }
}
