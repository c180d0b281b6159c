//! A small deterministic mutator for the in-suite fuzzing smoke run ([`super::smoke`]): no
//! coverage feedback (that is libFuzzer's job in the long run, `scripts/fuzz-long`), but the
//! mutations that found this project's bugs before: bit flips, cut and repeated ranges, lines
//! spliced from another seed, and tokens that open structure (braces, ranges, JSON keys), end
//! lines oddly (CR, NUL, BOM) or carry hostile bytes (terminal escapes, huge numbers).

/// xorshift64*: reproducible from its seed, printed by the smoke run.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
}

/// Tokens inserted whole: structure openers and closers, every vendor's range syntax, line
/// ends, hostile bytes.
const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"{\n",
    b"}\n",
    b"\"",
    b":",
    b",",
    b"\r",
    b"\r\n",
    b"\0",
    b"\xEF\xBB\xBF",
    b"\xFF\xFE",
    b"\n!\n",
    b"interface Ethernet1/1-64\n",
    b"interface Ethernet 1/17-1/32\n",
    b"interface range Ethernet 0-124\n",
    b"interface et-0/0/[0-7] {\n",
    b"interface swp1-64\n",
    b"\"PORT|Ethernet0\": {",
    b"\"PORT_QOS_MAP\": {\"Ethernet0-124\": {\"pfc_enable\": \"3,4\"}},",
    b"  mtu 9216\n",
    b"priority-flow-control mode on\n",
    b"priority-flow-control priority 3 no-drop\n",
    b"random-detect minimum-threshold 150 kbytes maximum-threshold 1500 kbytes\n",
    b"match dscp 26\n",
    b"set qos-group 3\n",
    b"99999999999999999999999999",
    b"-1",
    b"nan",
    b"4294967296",
    b"\x1b]52;c;aGVsbG8=\x07",
    b"\x1b[2J",
    b"*",
    b"***********",
    b"..",
    b"/dev/zero",
];

/// One to four mutations of `input`, the result at most `max_len` bytes. `other` is another
/// seed to splice from. The first byte of a platform target's input picks the file kind, so
/// it is rewritten now and then (`selector`: how many kinds there are, 0 for none).
pub fn mutate(
    rng: &mut Rng,
    input: &[u8],
    other: &[u8],
    selector: usize,
    max_len: usize,
) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = out.len();
        match rng.below(9) {
            0 if len > 0 => {
                let i = rng.below(len);
                out[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                const BYTES: &[u8] = b"\n\r\0{}[]\" -/:,9\xff";
                out[i] = BYTES[rng.below(BYTES.len())];
            }
            2 if len > 0 => {
                let a = rng.below(len);
                let b = (a + 1 + rng.below(64.min(len - a))).min(len);
                out.drain(a..b);
            }
            3 if len > 0 => {
                let a = rng.below(len);
                let b = (a + 1 + rng.below(256.min(len - a))).min(len);
                let copy = out[a..b].to_vec();
                let at = rng.below(len + 1);
                for _ in 0..1 + rng.below(8) {
                    out.splice(at..at, copy.iter().copied());
                }
            }
            4 | 5 => {
                let t = TOKENS[rng.below(TOKENS.len())];
                let at = rng.below(len + 1);
                out.splice(at..at, t.iter().copied());
            }
            6 if !other.is_empty() => {
                // Splice: this input up to a line end, then the other from a line start.
                let cut = line_start(&out, rng.below(len + 1));
                let from = line_start(other, rng.below(other.len()));
                out.truncate(cut);
                out.extend_from_slice(&other[from..]);
            }
            7 if len > 0 => {
                out.truncate(rng.below(len));
            }
            8 if selector > 0 && len > 0 => {
                out[0] = rng.below(selector + 1) as u8;
            }
            _ => {
                let at = rng.below(len + 1);
                const FILL: &[u8] = b"a \n";
                let b = FILL[rng.below(FILL.len())];
                out.splice(at..at, std::iter::repeat_n(b, 1 + rng.below(4096)));
            }
        }
    }
    out.truncate(max_len);
    out
}

/// The start of the line that holds byte `i`.
fn line_start(s: &[u8], i: usize) -> usize {
    let i = i.min(s.len());
    s[..i]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_are_reproducible_and_bounded() {
        let seed = b"\0interface Ethernet1/1\n  mtu 9216\n".to_vec();
        let run = |s: u64| {
            let mut r = Rng::new(s);
            (0..200)
                .map(|_| mutate(&mut r, &seed, b"other\nlines\n", 5, 128))
                .collect::<Vec<_>>()
        };
        let a = run(7);
        assert_eq!(a, run(7));
        assert_ne!(a, run(8));
        assert!(a.iter().all(|m| m.len() <= 128));
        assert!(a.iter().any(|m| m != &seed), "something changes");
        assert!(a.iter().any(|m| m.len() > seed.len()), "something grows");
        assert!(a.iter().any(|m| m.len() < seed.len()), "something shrinks");
    }
}
