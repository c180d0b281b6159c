//! Finding the next line that holds a trigger word ([`super::PREFILTER_WORDS`], ASCII case
//! aside) in a whole file: the one pass every byte the snapshot reader reads goes through.
//!
//! The words are searched with a SIMD multi-substring searcher (aho-corasick's packed
//! "Teddy" searcher) over a lowercased window of the text, since that searcher has no
//! case-insensitive mode; the two words too short for it (`$`, one byte, and `ſ`, two) are
//! found with `memchr`. Where Teddy cannot be built (a CPU without SSSE3/NEON), the whole
//! search falls back to the case-insensitive automaton of all the words. The tests compare the two searches line for
//! line, across window borders.

use aho_corasick::{AhoCorasick, AhoCorasickKind, packed};

/// How much text is lowercased at a time: small enough to stay in the cache, large enough
/// that the searcher's start-up cost per window does not count.
const WINDOW: usize = 64 * 1024;

/// The words found with `memchr` rather than by the packed searcher.
const DOLLAR: &str = "$";
const LONG_S: &str = "\u{017F}";

pub(super) struct WordFinder {
    /// Every word, ASCII case-insensitive: for one line, and the fallback for whole texts.
    all: AhoCorasick,
    /// The words of three bytes or more, lowercase, for lowercased text.
    packed: Option<packed::Searcher>,
    /// The longest of them, in bytes (windows overlap by one less than this).
    longest: usize,
}

impl WordFinder {
    pub(super) fn new(words: &[&str]) -> Option<WordFinder> {
        let all = AhoCorasick::builder()
            .kind(Some(AhoCorasickKind::DFA))
            .ascii_case_insensitive(true)
            .build(words)
            .ok()?;
        let rest: Vec<String> = words
            .iter()
            .filter(|w| **w != DOLLAR && **w != LONG_S)
            .map(|w| w.to_ascii_lowercase())
            .collect();
        // Only these two are searched apart; any other short word would make the packed
        // searcher unusable, so the fallback is taken then.
        let usable =
            words.contains(&DOLLAR) && words.contains(&LONG_S) && rest.iter().all(|w| w.len() >= 3);
        let packed = if usable {
            packed::Config::new()
                .match_kind(packed::MatchKind::LeftmostFirst)
                .builder()
                .extend(&rest)
                .build()
        } else {
            None
        };
        let longest = rest.iter().map(String::len).max().unwrap_or(1);
        Some(WordFinder {
            all,
            packed,
            longest,
        })
    }

    /// Whether `text` holds a word (the tests' check that every line a rule changes does).
    #[cfg(test)]
    pub(super) fn is_match(&self, text: &str) -> bool {
        self.all.is_match(text)
    }

    /// A search over `text`, positions asked in increasing order.
    pub(super) fn scan<'t>(&'t self, text: &'t [u8]) -> Scan<'t> {
        self.scan_with_window(text, WINDOW)
    }

    fn scan_with_window<'t>(&'t self, text: &'t [u8], window: usize) -> Scan<'t> {
        Scan {
            f: self,
            text,
            window: window.max(2 * self.longest),
            lower: LOWER.take(),
            win: (0, 0),
            rare: None,
        }
    }
}

thread_local! {
    /// The lowercased window of the last search on this thread, kept for the next one: every
    /// file the snapshot reader reads is searched, and a fresh 64 KiB per file is a fresh
    /// allocation, often of pages never touched before.
    static LOWER: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

impl Drop for Scan<'_> {
    fn drop(&mut self) {
        let mut lower = std::mem::take(&mut self.lower);
        lower.clear();
        // Only a window's worth is kept (a test's tiny windows or the default one).
        if lower.capacity() <= 2 * WINDOW {
            LOWER.set(lower);
        }
    }
}

pub(super) struct Scan<'t> {
    f: &'t WordFinder,
    text: &'t [u8],
    window: usize,
    /// `text[win.0..win.1]`, lowercased.
    lower: Vec<u8>,
    win: (usize, usize),
    /// The last `memchr` search: (from, the first `$`/`ſ` at or after it, or none).
    rare: Option<(usize, Option<usize>)>,
}

impl Scan<'_> {
    /// The start of a word at or after `from` that lies on the first line (from `from` on)
    /// holding one; `None` when no line does.
    pub(super) fn next(&mut self, from: usize) -> Option<usize> {
        let Some(packed) = &self.f.packed else {
            let input = aho_corasick::Input::new(self.text).span(from..self.text.len());
            return self.f.all.find(input).map(|m| m.start());
        };
        let rare = self.rare_from(from);
        let mut at = from;
        while at < self.text.len() {
            if rare.is_some_and(|r| r < at) {
                break;
            }
            let (ws, we) = self.window_at(at);
            // A word starting at or after `sure` may cross the window's end: it is looked for
            // in the next window, which starts there.
            let sure = if we == self.text.len() {
                we
            } else {
                we + 1 - self.f.longest
            };
            let span = aho_corasick::Span::from(at - ws..we - ws);
            match packed.find_in(&self.lower, span) {
                Some(m) if ws + m.start() < sure => {
                    let hit = ws + m.start();
                    return Some(rare.map_or(hit, |r| r.min(hit)));
                }
                _ if we == self.text.len() => break,
                _ => at = sure,
            }
        }
        rare
    }

    /// The window holding `at` with room after it for a whole word, lowercased.
    fn window_at(&mut self, at: usize) -> (usize, usize) {
        let (ws, we) = self.win;
        let fits = at >= ws && (we == self.text.len() || at + self.f.longest <= we);
        if fits && we > ws {
            return self.win;
        }
        let end = (at + self.window).min(self.text.len());
        self.lower.clear();
        self.lower
            .extend(self.text[at..end].iter().map(u8::to_ascii_lowercase));
        self.win = (at, end);
        self.win
    }

    /// The first `$` or `ſ` at or after `from` (searched once for a run of calls).
    fn rare_from(&mut self, from: usize) -> Option<usize> {
        if let Some((f, r)) = self.rare
            && f <= from
            && r.is_none_or(|r| r >= from)
        {
            return r;
        }
        let mut at = from;
        let found = loop {
            let Some(p) = memchr::memchr2(b'$', 0xC5, &self.text[at..]) else {
                break None;
            };
            let p = at + p;
            if self.text[p] == b'$' || self.text.get(p + 1) == Some(&0xBF) {
                break Some(p);
            }
            at = p + 1;
        };
        self.rare = Some((from, found));
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finder() -> WordFinder {
        match WordFinder::new(super::super::PREFILTER_WORDS) {
            Some(f) => f,
            None => panic!("the words do not build"),
        }
    }

    /// The lines (by start offset) each search visits: the line of each hit, then on from
    /// the next line, as the redactor walks a text.
    fn visited(text: &[u8], next: &mut dyn FnMut(usize) -> Option<usize>) -> Vec<usize> {
        let mut out = Vec::new();
        let mut pos = 0;
        while pos < text.len() {
            let Some(hit) = next(pos) else { break };
            assert!(hit >= pos);
            let start = memchr::memrchr(b'\n', &text[pos..hit]).map_or(pos, |p| pos + p + 1);
            out.push(start);
            pos = memchr::memchr(b'\n', &text[start..]).map_or(text.len(), |p| start + p + 1);
        }
        out
    }

    fn reference(f: &WordFinder, text: &[u8]) -> Vec<usize> {
        visited(text, &mut |from| {
            f.all
                .find(aho_corasick::Input::new(text).span(from..text.len()))
                .map(|m| m.start())
        })
    }

    fn texts() -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let words = super::super::PREFILTER_WORDS;
        // Every word in upper, lower and mixed case, after every offset of filler, so that
        // with small windows each crosses a window border somewhere.
        for (i, w) in words.iter().enumerate() {
            for pad in 0..40 {
                let mut t = "x".repeat(pad).into_bytes();
                t.extend_from_slice(b"\nno word here\n");
                let cased: String = w
                    .chars()
                    .enumerate()
                    .map(|(k, c)| {
                        if (k + i + pad) % 2 == 0 {
                            c.to_ascii_uppercase()
                        } else {
                            c
                        }
                    })
                    .collect();
                t.extend_from_slice(cased.as_bytes());
                t.extend_from_slice(b" tail\nplain\n");
                t.extend_from_slice(w.as_bytes());
                out.push(t);
            }
        }
        // Near misses: a word cut by a line end, `ſ`'s first byte with another second byte,
        // a lone `$`, the word at the very end without a line end.
        out.push(b"pas\ns secr\net k\ney \xC5\x81 nothing\n".to_vec());
        out.push("\u{0141}\u{0150} \u{017F}ecret\nend$".as_bytes().to_vec());
        out.push(b"a\nb\nc\nauth".to_vec());
        out
    }

    fn files_under(dir: &std::path::Path, out: &mut Vec<Vec<u8>>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                files_under(&p, out);
            } else if let Ok(b) = std::fs::read(&p) {
                out.push(b);
            }
        }
    }

    #[test]
    fn the_packed_search_visits_the_lines_the_automaton_visits() {
        let f = finder();
        assert!(
            f.packed.is_some(),
            "the packed searcher builds on this machine"
        );
        let mut texts = texts();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for d in ["fixtures/nxos", "fixtures/linux", "tests/system/secrets"] {
            files_under(&root.join(d), &mut texts);
        }
        let mut lines = 0;
        for t in &texts {
            let want = reference(&f, t);
            lines += want.len();
            for window in [0, 29, 31, 64, 1000, WINDOW] {
                let mut s = f.scan_with_window(t, window);
                let got = visited(t, &mut |from| s.next(from));
                assert_eq!(
                    got,
                    want,
                    "window {window}: {:?}",
                    String::from_utf8_lossy(t)
                );
            }
        }
        assert!(lines > 2000, "only {lines} lines with a word");
    }
}
