//! What a terminal shows on the line a device is printing, kept up to date byte by byte.
//!
//! In an interactive shell the collector must decide after every chunk it receives whether the
//! unfinished last line is the device's prompt (the command is done) or a pager prompt (answer
//! it). Re-reading that line at every chunk costs the line's length each time: a device that
//! sends one long line without a newline in small chunks made one command take 190 s against
//! a 60 s timeout (issue 19). [`LineScan`] is fed each byte once and keeps the visible line
//! (ANSI escape sequences dropped, a lone carriage return going back to the start of the line
//! and clearing it when it holds only blanks, backspace stepping back), so the work is linear in
//! the bytes received. A line wider than [`MAX_PROMPT`] columns is neither a prompt nor a pager
//! prompt; only its first columns are kept.

/// The widest line that can be a prompt or a pager prompt, in characters.
pub const MAX_PROMPT: usize = 256;

#[derive(Debug, Default, Clone, Copy, PartialEq)]
enum Escape {
    #[default]
    None,
    /// After ESC.
    Start,
    /// Inside `ESC [ … letter`.
    Csi,
}

/// The visible state of the line being printed (everything after the last `\n`).
#[derive(Debug, Default)]
pub struct LineScan {
    /// The first `MAX_PROMPT + 1` columns of the line.
    cols: Vec<char>,
    /// Width of the line (columns written so far, kept or not).
    width: usize,
    cursor: usize,
    /// Columns of `cols` holding something other than white space.
    blank_free: usize,
    /// Something other than white space was written beyond the kept columns.
    wide_text: bool,
    escape: Escape,
    /// A carriage return whose meaning depends on the next character (`\r\n` is a line end).
    pending_cr: bool,
    /// The bytes of a UTF-8 character not yet complete.
    partial: Vec<u8>,
    /// Bytes fed since the last `\n`.
    line_bytes: usize,
}

impl LineScan {
    /// Feed bytes received after those already fed.
    pub fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if b == b'\n' {
                *self = LineScan::default();
                continue;
            }
            self.line_bytes += 1;
            self.byte(b);
        }
    }

    /// One byte of the line, decoded as UTF-8 the way `String::from_utf8_lossy` does.
    fn byte(&mut self, b: u8) {
        if b < 0x80 && self.partial.is_empty() {
            self.char(b as char);
            return;
        }
        self.partial.push(b);
        match std::str::from_utf8(&self.partial) {
            Ok(s) => {
                let c = s.chars().next().unwrap_or('\u{fffd}');
                self.partial.clear();
                self.char(c);
            }
            Err(e) => {
                if let Some(bad) = e.error_len() {
                    // Not a character: one replacement, then the bytes after it anew.
                    let rest = self.partial.split_off(bad.min(self.partial.len()));
                    self.partial.clear();
                    self.char('\u{fffd}');
                    for r in rest {
                        self.byte(r);
                    }
                }
            }
        }
    }

    /// Bytes of the unfinished line (after the last `\n`), to drop a pager prompt from output.
    pub fn line_bytes(&self) -> usize {
        self.line_bytes
    }

    /// Forget the unfinished line (its bytes were dropped from the output).
    pub fn clear(&mut self) {
        *self = LineScan::default();
    }

    /// The line as a terminal shows it, or `None` when it is wider than [`MAX_PROMPT`].
    pub fn visible(&self) -> Option<String> {
        if self.width > MAX_PROMPT {
            return None;
        }
        if self.pending_cr && self.all_blank() {
            return Some(String::new());
        }
        Some(self.cols.iter().collect())
    }

    fn all_blank(&self) -> bool {
        self.blank_free == 0 && !self.wide_text
    }

    fn char(&mut self, c: char) {
        match self.escape {
            Escape::Start => {
                self.escape = Escape::None;
                if c == '[' {
                    self.escape = Escape::Csi;
                    return;
                }
            }
            Escape::Csi => {
                if c.is_ascii_alphabetic() {
                    self.escape = Escape::None;
                }
                return;
            }
            Escape::None => {}
        }
        if self.pending_cr {
            if c == '\r' {
                return;
            }
            self.pending_cr = false;
            self.carriage_return();
        }
        match c {
            '\u{1b}' => self.escape = Escape::Start,
            '\r' => self.pending_cr = true,
            '\u{8}' => self.cursor = self.cursor.saturating_sub(1),
            _ => self.put(c),
        }
    }

    fn carriage_return(&mut self) {
        if self.all_blank() {
            self.cols.clear();
            self.width = 0;
        }
        self.cursor = 0;
    }

    fn put(&mut self, c: char) {
        let blank = c.is_whitespace();
        if self.cursor < self.cols.len() {
            let old_blank = self.cols[self.cursor].is_whitespace();
            self.cols[self.cursor] = c;
            self.blank_free = self.blank_free + usize::from(old_blank) - usize::from(blank);
        } else if self.cursor <= MAX_PROMPT {
            self.cols.push(c);
            self.blank_free += usize::from(!blank);
        } else {
            self.wide_text |= !blank;
        }
        self.cursor += 1;
        self.width = self.width.max(self.cursor);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference: what `ssh::clean` makes of the bytes after the last `\n`.
    fn reference(bytes: &[u8]) -> String {
        let start = bytes
            .iter()
            .rposition(|&b| b == b'\n')
            .map(|i| i + 1)
            .unwrap_or(0);
        super::super::ssh::clean(&bytes[start..])
    }

    fn scanned(bytes: &[u8], chunk: usize) -> Option<String> {
        let mut s = LineScan::default();
        for c in bytes.chunks(chunk.max(1)) {
            s.feed(c);
        }
        s.visible()
    }

    #[test]
    fn the_visible_line_is_what_the_whole_line_cleaned_shows() {
        let cases: [&[u8]; 13] = [
            b"leaf1# ",
            b"output\r\nleaf1# ",
            b"a\n\r          \r  mtu 9216",
            b"abc\x08\x08XY",
            b"\x1b[7m --More-- \x1b[m",
            b"line\r\n\x1b[K\x1b[1;32mleaf1#\x1b[0m ",
            b"abc\rX",
            b"   \rleaf1# ",
            b"x\r\r\rleaf1#",
            b"caf\xc3\xa9 leaf1# ",
            b"bad \xff\xfe utf8#",
            b"\x1bXleaf1#",
            b"\xc3x \xe2\x82leaf1#",
        ];
        for bytes in cases {
            for chunk in [1, 2, 3, 7, 1000] {
                assert_eq!(
                    scanned(bytes, chunk).as_deref(),
                    Some(reference(bytes).as_str()),
                    "{bytes:?} in chunks of {chunk}"
                );
            }
        }
    }

    #[test]
    fn a_wide_line_is_no_prompt_and_keeps_bounded_memory() {
        let mut s = LineScan::default();
        for _ in 0..100_000 {
            s.feed(b"0123456789");
        }
        assert_eq!(s.visible(), None);
        assert!(s.cols.len() <= MAX_PROMPT + 1);
        assert_eq!(s.line_bytes(), 1_000_000);
        // A newline starts a fresh line; a prompt after it is seen.
        s.feed(b"\r\nleaf1# ");
        assert_eq!(s.visible().as_deref(), Some("leaf1# "));
        assert_eq!(s.line_bytes(), 7);
        // A wide line of blanks erased with a carriage return is cleared, as a terminal does.
        let mut s = LineScan::default();
        s.feed(" ".repeat(1000).as_bytes());
        s.feed(b"\rleaf1# ");
        assert_eq!(s.visible().as_deref(), Some("leaf1# "));
    }
}
