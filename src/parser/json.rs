//! A span-keeping JSON reader: every key and value keeps the 1-based line it starts on, so a
//! finding read from a JSON document cites `file:line` like one read from CLI text.
//!
//! Why our own: the crates that parse JSON either drop positions (serde_json) or give byte
//! ranges without recovery (json-spanned-value, jsonc-parser, which also accepts comments that
//! are not JSON). A device file cut in the middle (a transfer that stopped, a paste that lost
//! its end) must still yield what it holds up to the cut, with the line where it stops, so the
//! file's status can be `partial` with that reason instead of one opaque error. JSON is small
//! (RFC 8259): a recursive-descent reader is about 300 lines here, runs in one pass (linear
//! time), refuses nesting deeper than [`MAX_DEPTH`] (so no input can exhaust the stack) and
//! never panics (tests feed it every prefix of real documents and random bytes).
//!
//! Object members keep their order and duplicates (the reader reports, callers decide).

/// Deepest nesting accepted; deeper input is an error at the line where it goes too deep.
pub const MAX_DEPTH: usize = 128;

/// A JSON value with the line it starts on.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub line: u32,
    pub value: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    /// The number as written (validated against the JSON grammar).
    Number(String),
    String(String),
    Array(Vec<Node>),
    Object(Vec<Member>),
}

/// One `"key": value` of an object, with the key's line.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub key: String,
    pub line: u32,
    pub value: Node,
}

/// Why reading stopped, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonError {
    pub line: u32,
    pub col: u32,
    pub msg: String,
    /// The text ended inside the document (cut off), as opposed to a wrong character.
    pub truncated: bool,
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {} column {}: {}", self.line, self.col, self.msg)
    }
}

/// The value as `serde_json` holds it (positions dropped), for callers that want a
/// `serde_json::Value` (the tests compare the two readers with it; the `format = "json"`
/// readers walk [`Node`] itself, for the lines). A number `serde_json` cannot hold (none: the
/// grammar was checked) becomes null.
pub fn to_serde(n: &Node) -> serde_json::Value {
    match &n.value {
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => (*b).into(),
        Value::Number(x) => serde_json::from_str(x).unwrap_or(serde_json::Value::Null),
        Value::String(x) => x.clone().into(),
        Value::Array(v) => v.iter().map(to_serde).collect(),
        Value::Object(ms) => ms
            .iter()
            .map(|m| (m.key.clone(), to_serde(&m.value)))
            .collect::<serde_json::Map<_, _>>()
            .into(),
    }
}

/// A parsed document: the value read (complete, or up to the error), and the error if any.
#[derive(Debug, Clone, PartialEq)]
pub struct Doc {
    pub root: Option<Node>,
    pub error: Option<JsonError>,
}

impl Node {
    pub fn as_object(&self) -> Option<&[Member]> {
        match &self.value {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
    /// A scalar as text: strings as they are, numbers as written, `true`/`false`; `None` for
    /// null, arrays and objects.
    pub fn scalar_text(&self) -> Option<&str> {
        match &self.value {
            Value::String(s) | Value::Number(s) => Some(s),
            Value::Bool(true) => Some("true"),
            Value::Bool(false) => Some("false"),
            _ => None,
        }
    }
    pub fn as_array(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }
    /// A number written as a non-negative integer (`9000`, not `9000.0` or `"9000"`).
    pub fn as_u64(&self) -> Option<u64> {
        match &self.value {
            Value::Number(n) => n.parse().ok(),
            _ => None,
        }
    }
    /// A number as a float (any JSON number).
    pub fn as_f64(&self) -> Option<f64> {
        match &self.value {
            Value::Number(n) => n.parse().ok(),
            _ => None,
        }
    }
    pub fn as_bool(&self) -> Option<bool> {
        match &self.value {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }
    /// The object member named `key` (the first, if the name repeats), with its key's line.
    pub fn member(&self, key: &str) -> Option<&Member> {
        self.as_object()?.iter().find(|m| m.key == key)
    }
    /// The value at a path of member names (`&["linkinfo", "info_kind"]`).
    pub fn at(&self, path: &[&str]) -> Option<&Node> {
        path.iter().try_fold(self, |n, k| n.get(k))
    }
    /// The first member named `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_object()?
            .iter()
            .find(|m| m.key == key)
            .map(|m| &m.value)
    }
}

/// Parse a JSON document. Never panics; on an error the part read so far is returned (open
/// arrays and objects closed where the error is) with the error.
pub fn parse(text: &str) -> Doc {
    let mut p = Reader {
        b: text.as_bytes(),
        pos: 0,
        line: 1,
        line_start: 0,
        err: None,
    };
    if text.starts_with('\u{feff}') {
        p.pos = 3;
        p.line_start = 3;
    }
    p.ws();
    if p.pos >= p.b.len() {
        p.fail("no JSON value (the text is empty)", true);
        return Doc {
            root: None,
            error: p.err,
        };
    }
    let root = p.value(0);
    if p.err.is_none() {
        p.ws();
        if p.pos < p.b.len() {
            p.fail("text after the end of the JSON document", false);
        }
    }
    Doc { root, error: p.err }
}

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
    line: u32,
    line_start: usize,
    err: Option<JsonError>,
}

impl Reader<'_> {
    fn fail(&mut self, msg: &str, truncated: bool) {
        if self.err.is_none() {
            let col = self.b[self.line_start..self.pos.min(self.b.len())]
                .iter()
                .filter(|&&c| c & 0xC0 != 0x80)
                .count() as u32
                + 1;
            self.err = Some(JsonError {
                line: self.line,
                col,
                msg: msg.to_string(),
                truncated,
            });
        }
    }

    /// Fail at the current byte: "expected X, found Y" or "ends ... (truncated?)".
    fn unexpected(&mut self, expected: &str) {
        match self.b.get(self.pos) {
            None => self.fail(
                &format!("the text ends where {expected} was expected (truncated?)"),
                true,
            ),
            Some(&c) => {
                let found = if c.is_ascii_graphic() {
                    format!("'{}'", c as char)
                } else {
                    format!("byte 0x{c:02x}")
                };
                self.fail(&format!("expected {expected}, found {found}"), false)
            }
        }
    }

    fn ws(&mut self) {
        while let Some(&c) = self.b.get(self.pos) {
            match c {
                b' ' | b'\t' | b'\r' => self.pos += 1,
                b'\n' => {
                    self.pos += 1;
                    self.line += 1;
                    self.line_start = self.pos;
                }
                _ => break,
            }
        }
    }

    fn value(&mut self, depth: usize) -> Option<Node> {
        let line = self.line;
        let Some(&c) = self.b.get(self.pos) else {
            self.unexpected("a value");
            return None;
        };
        let value = match c {
            b'{' | b'[' if depth >= MAX_DEPTH => {
                self.fail(
                    &format!("nesting deeper than {MAX_DEPTH} levels is not read"),
                    false,
                );
                return None;
            }
            b'{' => self.object(depth),
            b'[' => self.array(depth),
            b'"' => Value::String(self.string()?),
            b't' => self.word("true", Value::Bool(true))?,
            b'f' => self.word("false", Value::Bool(false))?,
            b'n' => self.word("null", Value::Null)?,
            b'-' | b'0'..=b'9' => Value::Number(self.number()?),
            _ => {
                self.unexpected("a value");
                return None;
            }
        };
        Some(Node { line, value })
    }

    fn word(&mut self, w: &str, v: Value) -> Option<Value> {
        let end = self.pos + w.len();
        match self.b.get(self.pos..end) {
            Some(s) if s == w.as_bytes() => {
                self.pos = end;
                Some(v)
            }
            _ if self.b.len() < end && w.as_bytes().starts_with(&self.b[self.pos..]) => {
                self.pos = self.b.len();
                self.unexpected(&format!("the rest of `{w}`"));
                None
            }
            _ => {
                self.unexpected("a value");
                None
            }
        }
    }

    fn object(&mut self, depth: usize) -> Value {
        self.pos += 1; // {
        let mut members = Vec::new();
        self.ws();
        if self.b.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Value::Object(members);
        }
        loop {
            self.ws();
            if self.b.get(self.pos) != Some(&b'"') {
                self.unexpected("a member name in double quotes");
                break;
            }
            let line = self.line;
            let Some(key) = self.string() else { break };
            self.ws();
            if self.b.get(self.pos) != Some(&b':') {
                self.unexpected("':' after a member name");
                break;
            }
            self.pos += 1;
            self.ws();
            let Some(value) = self.value(depth + 1) else {
                break;
            };
            members.push(Member { key, line, value });
            if self.err.is_some() {
                break;
            }
            self.ws();
            match self.b.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                _ => {
                    self.unexpected("',' or '}'");
                    break;
                }
            }
        }
        // A member is 72 bytes and a growing list keeps room for 4 at least: most objects of
        // a device document hold one or two members, so the slack would be most of the tree.
        members.shrink_to_fit();
        Value::Object(members)
    }

    fn array(&mut self, depth: usize) -> Value {
        self.pos += 1; // [
        let mut items = Vec::new();
        self.ws();
        if self.b.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Value::Array(items);
        }
        loop {
            self.ws();
            let Some(v) = self.value(depth + 1) else {
                break;
            };
            items.push(v);
            if self.err.is_some() {
                break;
            }
            self.ws();
            match self.b.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    break;
                }
                _ => {
                    self.unexpected("',' or ']'");
                    break;
                }
            }
        }
        // No growth slack kept in the tree (see `object`).
        items.shrink_to_fit();
        Value::Array(items)
    }

    /// A string at `pos` (which holds the opening quote), escapes resolved.
    fn string(&mut self) -> Option<String> {
        self.pos += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            // Copy the run of plain bytes up to the next quote, backslash or control byte.
            let start = self.pos;
            while let Some(&c) = self.b.get(self.pos) {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            out.extend_from_slice(&self.b[start..self.pos]);
            match self.b.get(self.pos) {
                None => {
                    self.fail("the text ends inside a string (truncated?)", true);
                    return None;
                }
                Some(b'"') => {
                    self.pos += 1;
                    break;
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let Some(&e) = self.b.get(self.pos) else {
                        self.fail("the text ends inside a string (truncated?)", true);
                        return None;
                    };
                    self.pos += 1;
                    let ch = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode_escape()?,
                        _ => {
                            self.pos -= 1;
                            self.fail("unknown escape in a string", false);
                            return None;
                        }
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                Some(_) => {
                    self.fail(
                        "a control character (line break, tab) inside a string: a string must be closed on its line",
                        false,
                    );
                    return None;
                }
            }
        }
        // The input is a &str and escapes add valid UTF-8, so this cannot fail; stay safe.
        Some(String::from_utf8_lossy(&out).into_owned())
    }

    fn hex4(&mut self) -> Option<u32> {
        let Some(h) = self.b.get(self.pos..self.pos + 4) else {
            self.pos = self.b.len();
            self.fail("the text ends inside a \\u escape (truncated?)", true);
            return None;
        };
        let v = std::str::from_utf8(h)
            .ok()
            .filter(|s| s.bytes().all(|c| c.is_ascii_hexdigit()))
            .and_then(|s| u32::from_str_radix(s, 16).ok());
        match v {
            Some(v) => {
                self.pos += 4;
                Some(v)
            }
            None => {
                self.fail("\\u must be followed by 4 hex digits", false);
                None
            }
        }
    }

    fn unicode_escape(&mut self) -> Option<char> {
        let hi = self.hex4()?;
        if (0xD800..0xDC00).contains(&hi) {
            if self.b.get(self.pos..self.pos + 2) == Some(b"\\u") {
                self.pos += 2;
                let lo = self.hex4()?;
                if (0xDC00..0xE000).contains(&lo) {
                    let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                    return Some(char::from_u32(c).unwrap_or('\u{fffd}'));
                }
            }
            return Some('\u{fffd}');
        }
        Some(char::from_u32(hi).unwrap_or('\u{fffd}'))
    }

    fn number(&mut self) -> Option<String> {
        let start = self.pos;
        let digits = |r: &mut Self| {
            let s = r.pos;
            while r.b.get(r.pos).is_some_and(u8::is_ascii_digit) {
                r.pos += 1;
            }
            r.pos > s
        };
        if self.b.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        if self.b.get(self.pos) == Some(&b'0') {
            self.pos += 1;
        } else if !digits(self) {
            self.unexpected("a digit");
            return None;
        }
        if self.b.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if !digits(self) {
                self.unexpected("a digit after '.'");
                return None;
            }
        }
        if matches!(self.b.get(self.pos), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.b.get(self.pos), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !digits(self) {
                self.unexpected("a digit in the exponent");
                return None;
            }
        }
        Some(String::from_utf8_lossy(&self.b[start..self.pos]).into_owned())
    }
}

/// One line of the canonical rendering of a document (see [`render`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// Line of the source document the key or value is on.
    pub src_line: u32,
    pub depth: usize,
    pub text: String,
}

/// Render a value as canonical lines, one key per line, nested by `depth`: `"key": {` opens an
/// object (`"key": {}` when empty), `"key": "value"` a scalar, `"key": [` an array whose items
/// follow one per line (an array of scalars only is one line: `"key": ["a", "b"]`). Strings
/// are JSON-escaped; with `scalars_as_strings` numbers and booleans are written as strings
/// (CONFIG_DB stores every field as a string: `9100` and `"9100"` are the same value).
/// Record patterns written for the pretty-printed form read this for any layout of the input.
pub fn render(node: &Node, scalars_as_strings: bool) -> Vec<Line> {
    let mut out = Vec::new();
    match &node.value {
        Value::Object(ms) => {
            for m in ms {
                member(&m.key, m.line, &m.value, 0, scalars_as_strings, &mut out);
            }
        }
        _ => item(node, 0, scalars_as_strings, &mut out),
    }
    out
}

fn scalar(v: &Value, as_strings: bool) -> Option<String> {
    Some(match v {
        Value::Null => "null".into(),
        Value::Bool(b) if as_strings => quote(if *b { "true" } else { "false" }),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) if as_strings => quote(n),
        Value::Number(n) => n.clone(),
        Value::String(s) => quote(s),
        _ => return None,
    })
}

/// A string as a JSON string literal.
pub fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

fn member(key: &str, line: u32, v: &Node, depth: usize, ss: bool, out: &mut Vec<Line>) {
    let k = quote(key);
    let text = match &v.value {
        Value::Object(ms) if ms.is_empty() => format!("{k}: {{}}"),
        Value::Object(_) => format!("{k}: {{"),
        Value::Array(items) if items.iter().all(|i| scalar(&i.value, ss).is_some()) => {
            let parts: Vec<String> = items.iter().filter_map(|i| scalar(&i.value, ss)).collect();
            format!("{k}: [{}]", parts.join(", "))
        }
        Value::Array(_) => format!("{k}: ["),
        other => format!("{k}: {}", scalar(other, ss).unwrap_or_default()),
    };
    out.push(Line {
        src_line: line,
        depth,
        text,
    });
    children(v, depth + 1, ss, out);
}

fn item(v: &Node, depth: usize, ss: bool, out: &mut Vec<Line>) {
    let text = match &v.value {
        Value::Object(ms) if ms.is_empty() => "{}".to_string(),
        Value::Object(_) => "{".to_string(),
        Value::Array(items) if items.is_empty() => "[]".to_string(),
        Value::Array(_) => "[".to_string(),
        other => scalar(other, ss).unwrap_or_default(),
    };
    out.push(Line {
        src_line: v.line,
        depth,
        text,
    });
    children(v, depth + 1, ss, out);
}

fn children(v: &Node, depth: usize, ss: bool, out: &mut Vec<Line>) {
    match &v.value {
        Value::Object(ms) => {
            for m in ms {
                member(&m.key, m.line, &m.value, depth, ss, out);
            }
        }
        Value::Array(items) if !items.iter().all(|i| scalar(&i.value, ss).is_some()) => {
            for i in items {
                item(i, depth, ss, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> Value {
        Value::String(v.into())
    }

    #[test]
    fn lines_of_keys_and_values() {
        let d =
            parse("{\n  \"a\" :\t{\"b\": \"1\",\n \"c\": [1, true, null]},\n\"d\": -2.5e3\n}\n");
        assert_eq!(d.error, None);
        let root = d.root.unwrap();
        let a = &root.as_object().unwrap()[0];
        assert_eq!((a.key.as_str(), a.line), ("a", 2));
        assert_eq!(a.value.line, 2);
        let c = a.value.get("c").unwrap();
        assert_eq!(c.line, 3);
        let d2 = root.as_object().unwrap()[1].clone();
        assert_eq!(d2.line, 4);
        assert_eq!(d2.value.value, Value::Number("-2.5e3".into()));
        assert_eq!(a.value.get("b").unwrap().value, s("1"));
    }

    #[test]
    fn escapes_and_unicode() {
        let d = parse(r#"{"k\"\\\/\n": "\u00e9\ud83d\ude00 \t x"}"#);
        assert_eq!(d.error, None);
        let m = &d.root.unwrap().as_object().unwrap()[0].clone();
        assert_eq!(m.key, "k\"\\/\n");
        assert_eq!(m.value.value, s("é😀 \t x"));
        // A lone surrogate is replaced, not a panic.
        let d = parse(r#"["\ud800"]"#);
        assert_eq!(d.error, None);
    }

    #[test]
    fn truncated_keeps_the_part_read() {
        let text =
            "{\n \"PORT\": {\n  \"Ethernet0\": {\n   \"mtu\": \"9100\",\n   \"speed\": \"1000";
        let d = parse(text);
        let e = d.error.unwrap();
        assert!(e.truncated, "{e:?}");
        assert_eq!(e.line, 5);
        let root = d.root.unwrap();
        let mtu = root
            .get("PORT")
            .unwrap()
            .get("Ethernet0")
            .unwrap()
            .get("mtu");
        assert_eq!(mtu.unwrap().value, s("9100"));
        // Cut right after a comma, a colon, inside a literal, inside an escape.
        for cut in [
            "{\"a\": 1,",
            "{\"a\":",
            "[tr",
            "[\"\\u00",
            "{\"a\"",
            "[1",
            "[-",
        ] {
            let d = parse(cut);
            assert!(
                d.error.as_ref().is_some_and(|e| e.truncated),
                "{cut}: {d:?}"
            );
        }
    }

    #[test]
    fn errors_name_line_and_column() {
        let d = parse("{\n  \"a\": 1\n  \"b\": 2\n}");
        let e = d.error.unwrap();
        assert_eq!((e.line, e.col), (3, 3), "{e}");
        assert!(!e.truncated);
        assert!(e.msg.contains("','"), "{e}");
        assert_eq!(d.root.unwrap().as_object().unwrap().len(), 1);
        let e = parse("{\"a\": \"x\ny\"}").error.unwrap();
        assert_eq!(e.line, 1);
        assert!(parse("{} x").error.is_some());
        assert!(parse("").error.unwrap().truncated);
        assert!(parse("{'a': 1}").error.is_some());
        assert!(parse("[01]").error.is_some());
        assert!(parse("[1.]").error.is_some());
        assert!(parse("[\"\\x\"]").error.is_some());
        assert_eq!(parse("\u{feff}{}").error, None);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        let e = parse(&deep).error.unwrap();
        assert!(e.msg.contains("nesting"), "{e}");
        let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert_eq!(parse(&ok).error, None);
        let deep_obj = "{\"a\":".repeat(10_000);
        assert!(parse(&deep_obj).error.is_some());
    }

    #[test]
    fn agrees_with_serde_json_and_survives_every_prefix() {
        let docs = [
            "{\"a\": [1, 2, {\"b\": null}], \"c\": \"x\\u0041\", \"d\": false, \"e\": 0.5E-3}",
            "[]",
            "\"plain\"",
            "{\n\t\"PORT|Ethernet0\" : {\"type\":\"hash\",\"value\":{\"mtu\":\"9100\"}}\n}",
        ];
        for doc in docs {
            let ours = parse(doc);
            assert_eq!(ours.error, None, "{doc}");
            let theirs: serde_json::Value = serde_json::from_str(doc).unwrap();
            assert_eq!(to_serde(ours.root.as_ref().unwrap()), theirs, "{doc}");
            for cut in 0..doc.len() {
                if doc.is_char_boundary(cut) {
                    let _ = parse(&doc[..cut]);
                }
            }
        }
        // Arbitrary bytes (as text) never panic.
        const ALPHA: &[u8] = b"{}[]\":,\\ \n\tatrue0-9.eE\"u";
        let mut x: u32 = 12345;
        for _ in 0..2000 {
            let mut t = String::new();
            for _ in 0..40 {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                t.push(ALPHA[(x >> 16) as usize % ALPHA.len()] as char);
            }
            let _ = parse(&t);
        }
    }

    #[test]
    fn scalar_accessors_agree_with_serde_json() {
        let doc = r#"[9000, -1, 1.5, 1e3, 18446744073709551616, "9000", true, null, [], {}]"#;
        let ours = parse(doc).root.unwrap();
        let theirs: serde_json::Value = serde_json::from_str(doc).unwrap();
        let (ours, theirs) = (ours.as_array().unwrap(), theirs.as_array().unwrap());
        for (o, t) in ours.iter().zip(theirs) {
            assert_eq!(o.as_u64(), t.as_u64(), "{t}");
            assert_eq!(o.as_f64(), t.as_f64(), "{t}");
            assert_eq!(o.as_bool(), t.as_bool(), "{t}");
            assert_eq!(o.as_str(), t.as_str(), "{t}");
            assert_eq!(o.as_array().map(<[Node]>::len), t.as_array().map(Vec::len));
        }
        let d = parse("{\"a\": {\n \"b\": {\"c\": 7}}}").root.unwrap();
        let c = d.at(&["a", "b", "c"]).unwrap();
        assert_eq!((c.as_u64(), c.line), (Some(7), 2));
        assert_eq!(d.member("a").map(|m| m.line), Some(1));
        assert!(d.at(&["a", "x"]).is_none());
    }

    #[test]
    fn canonical_lines() {
        let d = parse("{\"T\":{\"k\":{\"a\":9100,\"b\":\"x\\\"y\",\"l\":[\"p\",\"q\"],\"e\":{}}}}");
        let lines = render(d.root.as_ref().unwrap(), true);
        let got: Vec<(usize, &str)> = lines.iter().map(|l| (l.depth, l.text.as_str())).collect();
        assert_eq!(
            got,
            vec![
                (0, "\"T\": {"),
                (1, "\"k\": {"),
                (2, "\"a\": \"9100\""),
                (2, "\"b\": \"x\\\"y\""),
                (2, "\"l\": [\"p\", \"q\"]"),
                (2, "\"e\": {}"),
            ]
        );
        assert!(lines.iter().all(|l| l.src_line == 1));
        let lines = render(&parse("{\"a\": 1}").root.unwrap(), false);
        assert_eq!(lines[0].text, "\"a\": 1");
    }
}
