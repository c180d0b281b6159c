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

/// Most slots of a table (a power of two). About 60 % of the lines of the 1,000-device NX-OS
/// snapshot are found here with 2,048; 4,096 find 64 %, 512 find 56 %.
const SLOTS: usize = 2048;
/// Bytes of text per slot: a table has one slot per this many bytes of the longest text it
/// has met (a power of two, at most [`SLOTS`]). A slot is 152 bytes, so the table stays
/// within 1.2× that text: a full table is 311 KB, which a 64 KiB file (and each command that
/// reads it) paid in full (issue 19: peak memory ≤ 20× the input).
const TEXT_PER_SLOT: usize = 128;
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
    /// Pattern `pi`, a record pattern of kind `kind`; its capture spans are kept beside it.
    Record { pi: u16, kind: u16 },
}

/// The length of a slot that holds no line (longer than any line kept).
const EMPTY: u8 = u8::MAX;
const _: () = assert!(MAX_LINE < EMPTY as usize);

/// A record's capture spans relative to the line's start, `(u32::MAX, u32::MAX)` for a group
/// that did not take part.
pub(super) type Spans = [(u32, u32); MAX_GROUPS];

#[derive(Clone)]
struct Slot {
    hash: u64,
    parent: Option<u16>,
    len: u8,
    /// How many of `spans` a record has.
    groups: u8,
    outcome: Outcome,
    line: [u8; MAX_LINE],
    spans: Spans,
}

/// The table of one command on one thread.
pub(super) struct Memo {
    slots: Vec<Slot>,
}

impl Memo {
    pub(super) fn new() -> Memo {
        Memo { slots: Vec::new() }
    }

    /// Whether lines of `text` are worth keeping (and the table is made, or made larger for a
    /// longer text, if not yet).
    pub(super) fn ready(&mut self, text: &str) -> bool {
        if self.slots.is_empty() && text.len() < MIN_TEXT {
            return false;
        }
        let want = (text.len() / TEXT_PER_SLOT).next_power_of_two().min(SLOTS);
        if self.slots.len() < want {
            self.slots = Vec::new();
            self.slots = vec![
                Slot {
                    hash: 0,
                    parent: None,
                    len: EMPTY,
                    groups: 0,
                    outcome: Outcome::Unmatched,
                    line: [0; MAX_LINE],
                    spans: [(0, 0); MAX_GROUPS],
                };
                want
            ];
        }
        true
    }

    /// The slot of `hash`: its top bits (as many as the table's size takes).
    fn index(&self, hash: u64) -> usize {
        match self.slots.len().trailing_zeros() {
            0 => 0,
            bits => (hash >> (64 - bits)) as usize,
        }
    }

    /// The outcome kept for `line` under `parent`, if any, with a record's spans.
    pub(super) fn get(
        &self,
        hash: u64,
        line: &[u8],
        parent: Option<u16>,
    ) -> Option<(Outcome, &[(u32, u32)])> {
        let s = self.slots.get(self.index(hash))?;
        if s.hash == hash
            && s.parent == parent
            && usize::from(s.len) == line.len()
            && s.line.get(..line.len()) == Some(line)
        {
            Some((s.outcome, s.spans.get(..usize::from(s.groups))?))
        } else {
            None
        }
    }

    /// Keep `outcome` for `line` under `parent`, with a record's spans relative to the line
    /// (`usize::MAX` for a group that did not take part). Not kept: a line too long, a record
    /// with more groups than a slot holds, the start of a delimited block.
    pub(super) fn put(
        &mut self,
        hash: u64,
        line: &[u8],
        parent: Option<u16>,
        outcome: Outcome,
        spans: &[(usize, usize)],
    ) {
        if outcome == Outcome::Until {
            return;
        }
        let n = if matches!(outcome, Outcome::Record { .. }) {
            spans.len()
        } else {
            0
        };
        let i = self.index(hash);
        let Some(s) = self.slots.get_mut(i) else {
            return;
        };
        let (Some(dst), Ok(len), Some(span_dst), Ok(groups)) = (
            s.line.get_mut(..line.len()),
            u8::try_from(line.len()),
            s.spans.get_mut(..n),
            u8::try_from(n),
        ) else {
            return;
        };
        for (d, &(a, b)) in span_dst.iter_mut().zip(spans) {
            *d = if a == usize::MAX {
                (u32::MAX, u32::MAX)
            } else {
                // Within a line of at most `MAX_LINE` bytes.
                (a as u32, b as u32)
            };
        }
        dst.copy_from_slice(line);
        s.len = len;
        s.groups = groups;
        s.hash = hash;
        s.parent = parent;
        s.outcome = outcome;
    }
}

#[cfg(test)]
thread_local! {
    static OFF: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether lines are looked up at all (the tests parse with and without).
#[cfg(not(test))]
pub(super) fn enabled() -> bool {
    true
}

#[cfg(test)]
pub(super) fn enabled() -> bool {
    !OFF.with(std::cell::Cell::get)
}

#[cfg(test)]
pub(super) fn set_enabled(on: bool) {
    OFF.with(|c| c.set(!on));
}

/// A hash of a line and its parent kind from its first and last eight bytes and its length
/// (the `FxHash` step: rotate, xor, multiply); the top bits index the table. Lines that differ
/// only in the middle share a slot and evict each other; whether a slot holds this line is
/// decided by comparing the whole line, never by the hash.
pub(super) fn hash(line: &[u8], parent: Option<u16>) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let step = |h: u64, w: u64| (h.rotate_left(5) ^ w).wrapping_mul(K);
    let word = |b: &[u8]| {
        let mut w = [0u8; 8];
        let n = b.len().min(8);
        w[..n].copy_from_slice(&b[..n]);
        u64::from_le_bytes(w)
    };
    let (head, tail) = match (line.first_chunk::<8>(), line.last_chunk::<8>()) {
        (Some(h), Some(t)) => (u64::from_le_bytes(*h), u64::from_le_bytes(*t)),
        _ => (word(line), 0),
    };
    let p = parent.map_or(0, |k| u64::from(k) + 1);
    let h = step(step(step(0, (line.len() as u64) << 32 | p), head), tail);
    // The multiply leaves the low bits poorly mixed into the top ones the index takes.
    h ^ (h >> 29)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_grows_with_the_longest_text_up_to_its_most_slots() {
        // The figure `TEXT_PER_SLOT` states.
        assert_eq!(std::mem::size_of::<Slot>(), 152);
        let mut m = Memo::new();
        assert!(m.ready(&"x".repeat(MIN_TEXT)));
        assert_eq!(m.slots.len(), MIN_TEXT / TEXT_PER_SLOT);
        let line = b"no shutdown";
        let h = hash(line, None);
        m.put(h, line, None, Outcome::Ignore(1), &[]);
        assert!(m.ready(&"x".repeat(MIN_TEXT / 2)));
        assert_eq!(m.slots.len(), MIN_TEXT / TEXT_PER_SLOT);
        assert_eq!(m.get(h, line, None), Some((Outcome::Ignore(1), &[][..])));
        assert!(m.ready(&"x".repeat(1 << 20)));
        assert_eq!(m.slots.len(), SLOTS);
        assert_eq!(m.get(h, line, None), None);
        m.put(h, line, None, Outcome::Ignore(1), &[]);
        assert_eq!(m.get(h, line, None), Some((Outcome::Ignore(1), &[][..])));
    }

    #[test]
    fn kept_outcomes_come_back_for_the_same_line_and_parent_only() {
        let mut m = Memo::new();
        assert!(!m.ready("short"));
        let big = "x".repeat(MIN_TEXT);
        assert!(m.ready(&big));
        let line = b"Encapsulation ARPA, medium is broadcast";
        let h = hash(line, Some(3));
        assert_eq!(m.get(h, line, Some(3)), None);
        m.put(h, line, Some(3), Outcome::Ignore(7), &[]);
        assert_eq!(m.get(h, line, Some(3)), Some((Outcome::Ignore(7), &[][..])));
        let rec = Outcome::Record { pi: 2, kind: 1 };
        m.put(
            h,
            line,
            Some(3),
            rec,
            &[(0, 39), (usize::MAX, usize::MAX), (5, 9)],
        );
        let want = [(0, 39), (u32::MAX, u32::MAX), (5, 9)];
        assert_eq!(m.get(h, line, Some(3)), Some((rec, &want[..])));
        // Too many groups: not kept (the slot keeps what it had).
        m.put(h, line, Some(3), rec, &[(0, 1); MAX_GROUPS + 1]);
        assert_eq!(m.get(h, line, Some(3)), Some((rec, &want[..])));
        // Another parent kind, another line: not this slot's answer.
        assert_eq!(m.get(hash(line, None), line, None), None);
        assert_eq!(
            m.get(h, b"Encapsulation ARPA, medium is broadcasT", Some(3)),
            None
        );
        // Too long to keep.
        let long = [b'a'; MAX_LINE + 1];
        let hl = hash(&long, None);
        m.put(hl, &long, None, Outcome::Unmatched, &[]);
        assert_eq!(m.get(hl, &long, None), None);
        // The empty table's slots answer nothing, whatever the hash.
        let mut fresh = Memo::new();
        fresh.ready(&big);
        for h in [0, u64::MAX, 1 << 63] {
            assert_eq!(fresh.get(h, b"", None), None);
        }
    }
}
