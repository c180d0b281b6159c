//! What each recently seen line was found to be, so that a line met again is not matched again.
//!
//! Command output repeats itself: every port of `show interface` prints the same
//! `Encapsulation ARPA, medium is broadcast`, `0 runts  0 giants  0 CRC/FCS  0 no buffer`,
//! `Input flow-control is off, output flow-control is off` lines, and every switch of a
//! fabric the same ones again. Which pattern takes a line, and where its captures fall within
//! it, depend only on the line's text (leading and trailing blanks taken off) and on the kind
//! of the record it sits under (`ParentRule`): `Command::classify` is a function of those two.
//! So its answer is kept in a small direct-mapped table (one slot per hash; a new line evicts
//! whatever held its slot), per command and per thread, and reused when the same text comes
//! under the same parent kind. Ends of delimited blocks (`IgnoreUntil`) are never kept: what
//! they start depends on the line's captures, which are read again each time.

/// Slots of a table (a power of two). About 60 % of the lines of the 1,000-device NX-OS
/// snapshot are found here with 2,048; 4,096 find 64 %, 512 find 56 %.
const SLOTS: usize = 2048;
/// Longest line kept (longer lines are rarely the same twice, and the slot stays small).
pub(super) const MAX_LINE: usize = 64;
/// Most capture groups (group 0 included) of a record line kept.
pub(super) const MAX_GROUPS: usize = 8;
/// A text shorter than this does not create a table (few lines to repeat; keeps the memory
/// of the many small outputs, each command with its table, at nothing).
pub(super) const MIN_TEXT: usize = 16 << 10;

/// What a line was found to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Outcome {
    /// No pattern takes it.
    Unmatched,
    /// Pattern `pi`, an ignore pattern (line or block).
    Ignore(u16),
    /// The start of a delimited block (`IgnoreUntil`): never kept, since the end it waits
    /// for is made from its captures.
    Until,
    /// Pattern `pi`, a record pattern of kind `kind`, with its `n` capture spans relative to
    /// the line's start (`u32::MAX` for a group that did not take part).
    Record {
        pi: u16,
        kind: u16,
        n: u8,
        spans: [(u32, u32); MAX_GROUPS],
    },
}

/// The length of a slot that holds no line (longer than any line kept).
const EMPTY: u8 = u8::MAX;
const _: () = assert!(MAX_LINE < EMPTY as usize);

#[derive(Clone)]
struct Slot {
    hash: u64,
    parent: Option<u16>,
    len: u8,
    line: [u8; MAX_LINE],
    outcome: Outcome,
}

/// The table of one command on one thread.
pub(super) struct Memo {
    slots: Vec<Slot>,
}

impl Memo {
    pub(super) fn new() -> Memo {
        Memo { slots: Vec::new() }
    }

    /// Whether lines of `text` are worth keeping (and the table is made if not yet).
    pub(super) fn ready(&mut self, text: &str) -> bool {
        if self.slots.is_empty() {
            if text.len() < MIN_TEXT {
                return false;
            }
            self.slots = vec![
                Slot {
                    hash: 0,
                    parent: None,
                    len: EMPTY,
                    line: [0; MAX_LINE],
                    outcome: Outcome::Unmatched,
                };
                SLOTS
            ];
        }
        true
    }

    /// The outcome kept for `line` under `parent`, if any.
    pub(super) fn get(&self, hash: u64, line: &[u8], parent: Option<u16>) -> Option<Outcome> {
        let s = self.slots.get(index(hash))?;
        (s.hash == hash
            && s.parent == parent
            && usize::from(s.len) == line.len()
            && s.line.get(..line.len()) == Some(line))
        .then_some(s.outcome)
    }

    /// Keep `outcome` for `line` under `parent` (a line too long is not kept).
    pub(super) fn put(&mut self, hash: u64, line: &[u8], parent: Option<u16>, outcome: Outcome) {
        if outcome == Outcome::Until {
            return;
        }
        let Some(s) = self.slots.get_mut(index(hash)) else {
            return;
        };
        let (Some(dst), Ok(len)) = (s.line.get_mut(..line.len()), u8::try_from(line.len())) else {
            return;
        };
        dst.copy_from_slice(line);
        s.len = len;
        s.hash = hash;
        s.parent = parent;
        s.outcome = outcome;
    }
}

fn index(hash: u64) -> usize {
    (hash >> (64 - SLOTS.trailing_zeros())) as usize
}

/// A hash of a line (at most [`MAX_LINE`] bytes are ever asked) and its parent kind: eight
/// bytes at a time, multiply and rotate (the `FxHash` step), the top bits index the table.
pub(super) fn hash(line: &[u8], parent: Option<u16>) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let step = |h: u64, w: u64| (h.rotate_left(5) ^ w).wrapping_mul(K);
    let p = parent.map_or(0, |k| u64::from(k) + 1);
    let mut h = step(0, (line.len() as u64) << 32 | p);
    let mut chunks = line.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = step(h, u64::from_le_bytes(w));
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        h = step(h, u64::from_le_bytes(w));
    }
    // The multiply leaves the low bits poorly mixed into the top ones the index takes.
    h ^ (h >> 29)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_outcomes_come_back_for_the_same_line_and_parent_only() {
        let mut m = Memo::new();
        assert!(!m.ready("short"));
        let big = "x".repeat(MIN_TEXT);
        assert!(m.ready(&big));
        let line = b"Encapsulation ARPA, medium is broadcast";
        let h = hash(line, Some(3));
        assert_eq!(m.get(h, line, Some(3)), None);
        m.put(h, line, Some(3), Outcome::Ignore(7));
        assert_eq!(m.get(h, line, Some(3)), Some(Outcome::Ignore(7)));
        // Another parent kind, another line: not this slot's answer.
        assert_eq!(m.get(hash(line, None), line, None), None);
        assert_eq!(
            m.get(h, b"Encapsulation ARPA, medium is broadcasT", Some(3)),
            None
        );
        // Too long to keep.
        let long = [b'a'; MAX_LINE + 1];
        let hl = hash(&long, None);
        m.put(hl, &long, None, Outcome::Unmatched);
        assert_eq!(m.get(hl, &long, None), None);
        // The empty table's slots answer nothing, whatever the hash.
        let mut fresh = Memo::new();
        fresh.ready(&big);
        for h in [0, u64::MAX, 1 << 63] {
            assert_eq!(fresh.get(h, b"", None), None);
        }
    }
}
