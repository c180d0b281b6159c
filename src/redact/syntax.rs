//! Where a replacement may go so that the line keeps its structure (issue 46 item 1).
//!
//! A line rule captures a secret as a span of the line: a quoted value with its quotes, a token
//! up to white space, or the rest of a `key: value` line. Written over as it is, a span can take
//! structure with it: `"bind_password": "abc",` (the YAML `key: value` rule's capture is
//! `"abc",`) lost its quotes and its comma and left JSON no reader accepts, and every table after
//! it was lost. [`pieces`] turns a span into the parts of it that are the secret:
//! - a quoted value (`"abc"`, `'abc'`) keeps its quotes: its inside is the secret, up to its
//!   closing quote, and what follows the quote (`,`) stays;
//! - a span that starts inside a quoted string ends at that string's closing quote, and never
//!   splits a `\` escape of a double-quoted one (a lone `\` before `"` would end the string);
//! - in a flow collection or after a quoted key (JSON, YAML flow style) a token ends before the
//!   `,` `]` `}` that close it, and a number, `true`, `false` or `null` there becomes
//!   `"<redacted>"` (quoted, so that JSON stays JSON; `<redacted>` alone is a plain YAML scalar);
//! - a value that is itself a flow collection (`password: [a, b]`, `"key": {"a": "b"}`) keeps
//!   its brackets, commas and keys: each value in it is a piece;
//! - a YAML block scalar header (`password: |`) is no secret: its lines are (see `Lines`).
//!
//! A token of a command line stays one token; nothing here adds or removes a line.
//!
//! [`Syntax`] reads a line's quoting and nesting once, left to right, as the spans of a line
//! come in order: a line is read in time linear in its length whatever the number of spans.

/// A part of a line to write `<redacted>` over: `quoted` writes `"<redacted>"` instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Piece {
    pub s: usize,
    pub e: usize,
    pub quoted: bool,
}

/// The quoting and nesting of one line up to `pos`.
pub(super) struct Syntax<'a> {
    b: &'a [u8],
    pos: usize,
    /// Inside a quoted string: its quote byte.
    string: Option<u8>,
    /// The closing quote of the current string once looked for (`Some(None)`: not on the line).
    close: Option<Option<usize>>,
    /// Flow collections (`{`, `[`) open outside strings.
    depth: usize,
    /// The last byte of structure outside strings before `pos` (a string ends as its quote),
    /// and the one before it; 0 for none.
    last: u8,
    last2: u8,
}

impl<'a> Syntax<'a> {
    pub fn new(line: &'a str) -> Self {
        Syntax::at_start(line.as_bytes())
    }

    /// The state before the first byte of `b`.
    fn at_start(b: &'a [u8]) -> Self {
        Syntax {
            b,
            pos: 0,
            string: None,
            close: None,
            depth: 0,
            last: 0,
            last2: 0,
        }
    }

    fn push(&mut self, c: u8) {
        self.last2 = self.last;
        self.last = c;
    }

    /// Read up to `target`; returns where a span starting at `target` must start so that it
    /// does not split an escape (the escape's `\`), else `target`.
    fn advance(&mut self, target: usize) -> usize {
        if target < self.pos {
            // Spans come in order; were one not to, read the line again from its start.
            *self = Syntax::at_start(self.b);
        }
        let b = self.b;
        while self.pos < target && self.pos < b.len() {
            let c = b[self.pos];
            match self.string {
                Some(b'"') => {
                    if c == b'\\' {
                        let len = escape_len(b, self.pos);
                        if self.pos + len > target {
                            return self.pos;
                        }
                        self.pos += len;
                        continue;
                    }
                    if c == b'"' {
                        self.string = None;
                        self.close = None;
                        self.push(b'"');
                    }
                }
                Some(q) => {
                    if c == q {
                        if b.get(self.pos + 1) == Some(&q) {
                            if self.pos + 2 > target {
                                return self.pos;
                            }
                            self.pos += 2;
                            continue;
                        }
                        self.string = None;
                        self.close = None;
                        self.push(q);
                    }
                }
                None => match c {
                    b'"' => self.string = Some(b'"'),
                    // A single quote opens a string only where a YAML value starts (elsewhere
                    // it is an apostrophe: `don't`).
                    b'\'' if matches!(self.last, 0 | b':' | b',' | b'[' | b'{' | b'-' | b'?') => {
                        self.string = Some(b'\'')
                    }
                    b'{' | b'[' => {
                        self.depth += 1;
                        self.push(c);
                    }
                    b'}' | b']' => {
                        self.depth = self.depth.saturating_sub(1);
                        self.push(c);
                    }
                    b' ' | b'\t' => {}
                    _ => self.push(c),
                },
            }
            self.pos += 1;
        }
        target
    }

    /// Whether `at` is inside a quoted string: `Some` with the string's closing quote when it is
    /// on the line.
    pub fn string_at(&mut self, at: usize) -> Option<Option<usize>> {
        self.advance(at);
        self.string?;
        Some(self.close())
    }

    /// The closing quote of the string `pos` is in, if it is on the line.
    fn close(&mut self) -> Option<usize> {
        if let Some(c) = self.close {
            return c;
        }
        let c = self.string.and_then(|q| find_close(self.b, q, self.pos));
        self.close = Some(c);
        c
    }
}

/// The length of the escape starting at `i` (a `\`): `\uXXXX` 6, any other 2.
fn escape_len(b: &[u8], i: usize) -> usize {
    if b.get(i + 1) == Some(&b'u') { 6 } else { 2 }
}

/// The closing `q` of a string whose inside starts at `from`: `\` escapes in `"…"`, `''` in
/// `'…'`.
fn find_close(b: &[u8], q: u8, from: usize) -> Option<usize> {
    let mut i = from;
    while i < b.len() {
        let c = b[i];
        if q == b'"' && c == b'\\' {
            i += 2;
            continue;
        }
        if c == q {
            if q == b'\'' && b.get(i + 1) == Some(&b'\'') {
                i += 2;
                continue;
            }
            return Some(i);
        }
        i += 1;
    }
    None
}

/// `e` moved on past an escape it would split, in a double-quoted string read from `s` (a
/// boundary), never past `limit`.
fn escape_end(b: &[u8], s: usize, e: usize, limit: usize) -> usize {
    let mut i = s;
    while i < e {
        i += if b[i] == b'\\' { escape_len(b, i) } else { 1 };
    }
    i.min(limit)
}

/// A JSON number or literal: quoted when it is replaced, so that JSON stays JSON.
fn json_scalar(t: &str) -> bool {
    if matches!(t, "true" | "false" | "null") {
        return true;
    }
    let t = t.strip_prefix('-').unwrap_or(t);
    let (int, rest) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()));
    if int.is_empty() {
        return false;
    }
    let rest = match rest.strip_prefix('.') {
        Some(f) => {
            let n = f.find(|c: char| !c.is_ascii_digit()).unwrap_or(f.len());
            if n == 0 {
                return false;
            }
            &f[n..]
        }
        None => rest,
    };
    match rest.strip_prefix(['e', 'E']) {
        Some(x) => {
            let x = x.strip_prefix(['+', '-']).unwrap_or(x);
            !x.is_empty() && x.bytes().all(|c| c.is_ascii_digit())
        }
        None => rest.is_empty(),
    }
}

/// A YAML block scalar header: `|`, `>-`, `|2+`, with an optional comment (`Lines` redacts
/// the lines under one whose key names a secret).
pub(super) fn block_header(t: &str) -> bool {
    let t = t.split(" #").next().unwrap_or(t).trim_end();
    let mut c = t.chars();
    matches!(c.next(), Some('|' | '>')) && c.all(|c| matches!(c, '-' | '+' | '1'..='9'))
}

/// The secret parts of the span `s..e` of `line` (see the module doc), read with `syn`, the
/// line's reader, which spans reach in order.
pub(super) fn pieces(line: &str, syn: &mut Syntax<'_>, s: usize, e: usize) -> Vec<Piece> {
    let b = line.as_bytes();
    let s = syn.advance(s);
    let mut out = Vec::new();
    if let Some(q) = syn.string {
        // Inside a string: the span ends at its closing quote, and splits no escape.
        let close = syn.close();
        let mut e = close.map_or(e, |c| e.min(c));
        if q == b'"' {
            e = escape_end(b, s, e, close.unwrap_or(b.len()));
        }
        if s < e {
            out.push(quoted_inside(b, s, e).unwrap_or(Piece {
                s,
                e,
                quoted: false,
            }));
        }
        return fit(line, out);
    }
    let Some(&first) = b.get(s) else {
        return out;
    };
    let after_quoted_key = syn.last == b':' && matches!(syn.last2, b'"' | b'\'');
    let value_pos = (syn.last == b':'
        && (after_quoted_key
            || s.checked_sub(1)
                .is_some_and(|p| matches!(b[p], b' ' | b'\t'))))
        || (syn.depth > 0 && matches!(syn.last, b',' | b'[' | b'{'));
    let flow = syn.depth > 0 || after_quoted_key;
    if first == b'"' || first == b'\'' {
        // A quoted value: its inside, up to its closing quote (past the span's end when the
        // rule took only part of it).
        let close = find_close(b, first, s + 1);
        let mut end = close.unwrap_or(e).max(s + 1);
        if first == b'"' {
            end = escape_end(b, s + 1, end, close.unwrap_or(b.len()));
        }
        out.push(Piece {
            s: s + 1,
            e: end,
            quoted: false,
        });
        return fit(line, out);
    }
    if value_pos && (first == b'{' || first == b'[') {
        return fit(line, flow_items(b, s, e));
    }
    if syn.last == b':' && value_pos && block_header(&line[s..e]) {
        return out;
    }
    let mut end = e;
    if flow {
        while end > s && matches!(b[end - 1], b',' | b']' | b'}' | b' ' | b'\t') {
            end -= 1;
        }
    }
    if s < end {
        out.push(Piece {
            s,
            e: end,
            quoted: flow && json_scalar(&line[s..end]),
        });
    }
    fit(line, out)
}

/// A span inside a string that is itself a quoted value (`'a b'` in `"cmd": "--pw 'a b'"`):
/// its inside.
fn quoted_inside(b: &[u8], s: usize, e: usize) -> Option<Piece> {
    let q = *b.get(s).filter(|c| matches!(c, b'"' | b'\''))?;
    let c = find_close(&b[..e], q, s + 1)?;
    Some(Piece {
        s: s + 1,
        e: c,
        quoted: false,
    })
}

/// The values of the flow collection that starts at `s` (`{a: b, c: [d]}`): every scalar that
/// is not a key; after the collection, anything but `,` `]` `}` or a comment is one more piece.
fn flow_items(b: &[u8], s: usize, e: usize) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut i = s;
    let is_key = |from: usize| {
        let mut j = from;
        while j < e && matches!(b[j], b' ' | b'\t') {
            j += 1;
        }
        j < e && b[j] == b':'
    };
    while i < e {
        match b[i] {
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                i += 1;
                if depth == 0 {
                    break;
                }
            }
            b',' | b' ' | b'\t' | b':' => i += 1,
            b'#' if matches!(b[i - 1], b' ' | b'\t') => return out,
            q @ (b'"' | b'\'') => {
                let end = find_close(&b[..e], q, i + 1).unwrap_or(e);
                if !is_key(end + 1) && i + 1 < end {
                    out.push(Piece {
                        s: i + 1,
                        e: end,
                        quoted: false,
                    });
                }
                i = end + 1;
            }
            _ => {
                let mut j = i;
                while j < e
                    && !matches!(b[j], b',' | b'[' | b']' | b'{' | b'}')
                    && !(b[j] == b':' && (j + 1 == e || matches!(b[j + 1], b' ' | b'\t')))
                    && !(b[j] == b'#' && matches!(b[j - 1], b' ' | b'\t'))
                {
                    j += 1;
                }
                let mut end = j;
                while end > i && matches!(b[end - 1], b' ' | b'\t') {
                    end -= 1;
                }
                if !is_key(j) && i < end {
                    let t = std::str::from_utf8(&b[i..end]).unwrap_or("");
                    out.push(Piece {
                        s: i,
                        e: end,
                        quoted: json_scalar(t),
                    });
                }
                i = j.max(i + 1);
            }
        }
    }
    // After the collection: structure, a comment, or text that is redacted too.
    let mut j = i;
    while j < e && matches!(b[j], b',' | b']' | b'}' | b' ' | b'\t') {
        j += 1;
    }
    if j < e && b[j] != b'#' {
        let mut end = e;
        while end > j && matches!(b[end - 1], b' ' | b'\t') {
            end -= 1;
        }
        out.push(Piece {
            s: j,
            e: end,
            quoted: false,
        });
    }
    out
}

/// Pieces on character boundaries (an escape moved past could end inside a character).
fn fit(line: &str, mut v: Vec<Piece>) -> Vec<Piece> {
    for p in &mut v {
        p.e = p.e.min(line.len());
        while !line.is_char_boundary(p.e) {
            p.e += 1;
        }
        p.s = p.s.min(p.e);
        while !line.is_char_boundary(p.s) {
            p.s -= 1;
        }
    }
    v.retain(|p| p.s < p.e);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(line: &str, s: usize, e: usize) -> Vec<(String, bool)> {
        let mut syn = Syntax::new(line);
        pieces(line, &mut syn, s, e)
            .into_iter()
            .map(|p| (line[p.s..p.e].to_string(), p.quoted))
            .collect()
    }

    fn at(line: &str, span: &str) -> Vec<(String, bool)> {
        let s = line.find(span).unwrap_or(0);
        one(line, s, s + span.len())
    }

    #[test]
    fn quoted_values_keep_quotes_and_what_follows() {
        let l = r#"    "bind_password": "abc","#;
        assert_eq!(at(l, r#""abc","#), vec![("abc".into(), false)]);
        assert_eq!(
            at("password: 'a''b' # c", "'a''b' # c"),
            vec![("a''b".into(), false)]
        );
        // Taken only in part by the rule: the whole inside.
        assert_eq!(at(r#"x "a b" y"#, r#""a"#), vec![("a b".into(), false)]);
    }

    #[test]
    fn inside_a_string_ends_at_its_quote_and_splits_no_escape() {
        let l = r#""cmd": "readonly-community foo", "x": 1"#;
        assert_eq!(at(l, r#"foo", "x":"#), vec![("foo".into(), false)]);
        let l = r#""cmd": "password ab\"cd""#;
        // `ab\` would leave `"` unescaped: the escape goes with the span.
        assert_eq!(at(l, r"ab\"), vec![(r#"ab\""#.into(), false)]);
        let l = r#""cmd": "x\u00e9y""#;
        let s = l.find("00e9").unwrap_or(0);
        assert_eq!(one(l, s, s + 5), vec![(r"\u00e9y".into(), false)]);
    }

    #[test]
    fn json_and_flow_tokens() {
        assert_eq!(at(r#""key": 5,"#, "5,"), vec![("5".into(), true)]);
        assert_eq!(at(r#""key": abc,"#, "abc,"), vec![("abc".into(), false)]);
        assert_eq!(at(r#""key": {"#, "{"), vec![]);
        assert_eq!(
            at("password: [a, 7]", "[a, 7]"),
            vec![("a".into(), false), ("7".into(), true)]
        );
        assert_eq!(
            at(
                r#"password: {x: y, "k": "v"} # c"#,
                r#"{x: y, "k": "v"} # c"#
            ),
            vec![("y".into(), false), ("v".into(), false)]
        );
        assert_eq!(at("password: |", "|"), vec![]);
        // A command line: one token, as it is.
        assert_eq!(
            at("snmp-server community abc, ro", "abc,"),
            vec![("abc,".into(), false)]
        );
        assert_eq!(
            at("username a password 7 1234", "1234"),
            vec![("1234".into(), false)]
        );
    }

    #[test]
    fn json_scalars() {
        for t in ["0", "-1", "1.5", "2e10", "1E-3", "true", "null"] {
            assert!(json_scalar(t), "{t}");
        }
        for t in ["", "-", "1.", ".5", "1e", "abc", "0x10", "True"] {
            assert!(!json_scalar(t), "{t}");
        }
    }
}
