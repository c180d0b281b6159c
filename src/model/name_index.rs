//! Find an item of a growing list by its name without scanning the list.
//!
//! Readers look a port up by name for every line that names one; a scan per lookup made a
//! file with many short interface stanzas quadratic in its ports (issue 19: 1 MiB of NX-OS
//! stanzas, 48,000 ports, took 20 s in a release build). The index is built only once a list
//! is long (short lists are scanned, as before, and cost no memory), catches up with items
//! pushed since the last lookup, and checks every hit against the list, so a list sorted or
//! shortened behind its back is rescanned rather than misread. Not seen: an item renamed in
//! place, a list shortened and grown back to its length between two lookups (no reader
//! does either to a list it looks up), or, in a reordered list, a name whose key the item
//! now at its old position shares (one chance in 2^32 per lookup).
//!
//! The index keys each position by 32 bits of a hash of the name, not by a copy of it: a hit
//! is checked against the list anyway, so the copy and its pointer only cost memory (an entry
//! was a 24-byte slot and the name's bytes, now an 8-byte slot; issue 19). Two names of one
//! key (the hasher is keyed at random, so an input cannot choose them; among 16,384 names a
//! pair shares one about once in 30 devices) are told apart by that check; the later name of
//! such a pair is listed under the key in a second, normally empty map, so finding it or
//! missing an absent name of a taken key costs a look at the few names of that key, not a
//! scan and a rebuild.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash};

/// Lists shorter than this are scanned.
const SCAN_BELOW: usize = 64;

#[derive(Debug, Clone, Default)]
pub struct NameIndex {
    /// First position of each name's key among the items `0..upto` ([`NameIndex::key`]).
    map: HashMap<u32, u32>,
    /// Per key, the first position of each other name that has it (normally none).
    spill: HashMap<u32, Vec<u32>>,
    upto: usize,
    /// Bits of the hash dropped from a key: none but in the tests that force collisions.
    #[cfg(test)]
    drop_bits: u32,
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
        self.position_by(list, |t| name_of(t), name)
    }

    /// The position of the first item of `list` whose key is `key`, as
    /// `list.iter().position(|t| key_of(t) == key)` would find it: [`NameIndex::position`] for
    /// items named by more than one text (an RDMA device and its port).
    pub fn position_by<'a, T, K: Hash + Eq>(
        &mut self,
        list: &'a [T],
        key_of: impl Fn(&'a T) -> K,
        key: K,
    ) -> Option<usize> {
        if list.len() < SCAN_BELOW || list.len() > u32::MAX as usize {
            self.clear();
            return list.iter().position(|t| key_of(t) == key);
        }
        if self.upto > list.len() {
            self.clear();
        }
        for (i, t) in list.iter().enumerate().skip(self.upto) {
            let n = key_of(t);
            let k = self.key(&n);
            let first = *self.map.entry(k).or_insert(i as u32) as usize;
            if first != i && list.get(first).is_some_and(|f| key_of(f) != n) {
                let other = self.spill.entry(k).or_default();
                if !other
                    .iter()
                    .any(|&q| list.get(q as usize).is_some_and(|f| key_of(f) == n))
                {
                    other.push(i as u32);
                }
            }
        }
        self.upto = list.len();
        let k = self.key(&key);
        let p = *self.map.get(&k)? as usize;
        match list.get(p) {
            Some(t) if key_of(t) == key => return Some(p),
            // Another name holds the key: this one is among the others, or not in the list.
            Some(t) if self.key(&key_of(t)) == k => {
                let mut moved = false;
                for &q in self.spill.get(&k).into_iter().flatten() {
                    match list.get(q as usize) {
                        Some(t) if key_of(t) == key => return Some(q as usize),
                        Some(t) if self.key(&key_of(t)) == k => {}
                        _ => moved = true,
                    }
                }
                if !moved {
                    return None;
                }
            }
            _ => {}
        }
        // Reordered since it was indexed: answer by a scan, index afresh next time.
        self.clear();
        list.iter().position(|t| key_of(t) == key)
    }

    /// A key's 32 bits: the low bits of its hash by the map's own (randomly keyed) hasher.
    fn key(&self, name: &impl Hash) -> u32 {
        let k = self.map.hasher().hash_one(name) as u32;
        #[cfg(test)]
        let k = k & !self.drop_bits;
        k
    }

    /// Forget every position (the memory too).
    pub fn clear(&mut self) {
        if self.upto > 0 {
            self.map = HashMap::with_hasher(self.map.hasher().clone());
            self.spill = HashMap::new();
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

    /// Keys of 2 bits: every name shares its key with a quarter of the others, and each is
    /// still found where a scan finds it, absent names are still missed, and neither path
    /// rebuilds the index (a rebuild per lookup was a scan and a map per lookup).
    #[test]
    fn names_that_share_a_key_are_found_without_a_rebuild() {
        let mut list = names(300);
        list.push("Ethernet1/7".into()); // a duplicate: the first wins
        let mut ix = NameIndex {
            drop_bits: !0b11,
            ..NameIndex::default()
        };
        for probe in [
            "Ethernet1/0",
            "Ethernet1/7",
            "Ethernet1/299",
            "nope",
            "Ethernet9/9",
        ] {
            let want = list.iter().position(|t| t == probe);
            assert_eq!(ix.position(&list, |t| t, probe), want, "{probe}");
            assert_eq!(ix.upto, list.len(), "{probe}: the index was dropped");
        }
        assert_eq!(ix.map.len(), 4);
        assert_eq!(ix.spill.values().map(Vec::len).sum::<usize>(), 296);
        list.push("Ethernet9/9".into());
        assert_eq!(ix.position(&list, |t| t, "Ethernet9/9"), Some(301));
        list.truncate(100);
        assert_eq!(ix.position(&list, |t| t, "Ethernet1/150"), None);
        assert_eq!(ix.position(&list, |t| t, "Ethernet1/99"), Some(99));
    }
}
