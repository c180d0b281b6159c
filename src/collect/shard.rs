//! `collect --shard K/N`: which devices of an inventory shard K of N collects.
//!
//! A device's shard depends on its name and N only, never on the inventory's order or on the
//! other devices: each shard k (1..=N) scores the name with a fixed 64-bit hash (FNV-1a of the
//! UTF-8 name, mixed with k by the SplitMix64 finaliser; not Rust's per-process randomised
//! SipHash) and the device goes to the shard with the highest score (rendezvous hashing).
//! So the same device lands in the same shard on every machine and every run; adding or
//! removing devices moves no other device; and growing N to N+1 moves only the devices the
//! new shard wins (about 1/(N+1) of them), which keeps a scheduler's per-shard history
//! (timings, logs, host keys learnt) mostly valid when a fleet outgrows its shard count.
//! Shards are balanced statistically: with D devices each holds about D/N ± √(D/N).

use crate::collect::inventory::Inventory;
use std::fmt;
use std::str::FromStr;

/// Shard `index` (1-based) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

/// The largest N accepted: far above any useful split, and it bounds the per-device work
/// (one hash per shard).
pub const MAX_SHARDS: u32 = 100_000;

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let expected = "expected K/N with 1 ≤ K ≤ N, e.g. --shard 2/8";
        let (k, n) = s
            .trim()
            .split_once('/')
            .ok_or_else(|| format!("{s:?} is not a shard: {expected}"))?;
        let num = |t: &str, what: &str| {
            t.trim()
                .parse::<u32>()
                .map_err(|_| format!("{s:?}: {what} {t:?} is not a whole number; {expected}"))
        };
        let (index, count) = (num(k, "K")?, num(n, "N")?);
        if count == 0 {
            return Err(format!("{s:?}: N must be at least 1; {expected}"));
        }
        if count > MAX_SHARDS {
            return Err(format!("{s:?}: N is at most {MAX_SHARDS}"));
        }
        if index == 0 || index > count {
            return Err(format!(
                "{s:?}: K must be between 1 and {count} (shards are numbered from 1); {expected}"
            ));
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// FNV-1a, 64 bits: fixed, portable, and good enough once mixed by [`mix`].
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The SplitMix64 finaliser: every input bit moves every output bit.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The shard (1..=count) that holds device `name` in a split into `count` shards.
pub fn shard_of(name: &str, count: u32) -> u32 {
    let h = fnv1a64(name.as_bytes());
    let mut best = (0u64, 1u32);
    for k in 1..=count.max(1) {
        let score = mix(h ^ mix(u64::from(k)));
        if score > best.0 {
            best = (score, k);
        }
    }
    best.1
}

impl Shard {
    /// True when this shard holds device `name`.
    pub fn holds(&self, name: &str) -> bool {
        shard_of(name, self.count) == self.index
    }

    /// The part of `inv` this shard collects (the same inventory, fewer targets).
    pub fn part_of(&self, inv: &Inventory) -> Inventory {
        Inventory {
            source: inv.source.clone(),
            targets: inv
                .targets
                .iter()
                .filter(|t| self.holds(&t.name))
                .cloned()
                .collect(),
            policy: inv.policy.clone(),
            links: inv.links.clone(),
            warnings: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_k_of_n_and_refuses_the_rest() {
        assert_eq!("2/8".parse(), Ok(Shard { index: 2, count: 8 }));
        assert_eq!("1/1".parse(), Ok(Shard { index: 1, count: 1 }));
        for bad in [
            "0/4", "5/4", "3/0", "a/b", "3", "", "1/2/3", "-1/4", "1/100001",
        ] {
            assert!(bad.parse::<Shard>().is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn fixed_values_pin_the_function_across_releases() {
        // A change here re-splits every user's fleet: it must be deliberate.
        let got: Vec<u32> = ["leaf1", "leaf2", "spine1", "gpu01", "gpu02"]
            .iter()
            .map(|n| shard_of(n, 4))
            .collect();
        assert_eq!(got, vec![4, 4, 2, 4, 1]);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn growing_n_moves_only_devices_to_the_new_shard() {
        let names: Vec<String> = (0..5000).map(|i| format!("dev{i:05}")).collect();
        let mut moved = 0;
        for n in &names {
            let (a, b) = (shard_of(n, 8), shard_of(n, 9));
            if a != b {
                assert_eq!(b, 9, "{n} moved from {a} to {b}");
                moved += 1;
            }
        }
        // About 1/9 of 5,000 (555); far from all.
        assert!((400..700).contains(&moved), "{moved} moved");
    }

    #[test]
    fn shards_are_balanced_and_cover_every_device_once() {
        let names: Vec<String> = (0..8000).map(|i| format!("gpu{i:05}")).collect();
        let mut sizes = [0usize; 8];
        for n in &names {
            let k = shard_of(n, 8);
            let holders = (1..=8)
                .filter(|&i| Shard { index: i, count: 8 }.holds(n))
                .count();
            assert_eq!(holders, 1);
            sizes[k as usize - 1] += 1;
        }
        for s in sizes {
            assert!((850..1150).contains(&s), "{sizes:?}");
        }
    }
}
