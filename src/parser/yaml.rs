//! A span-keeping YAML reader: yaml-rust2's event parser (which reports a [`Marker`] with the
//! line of every event) folded into the same tree as the JSON reader ([`json::Node`]), so a
//! value read from YAML cites the line it is on. yaml-rust2 (already a dependency for Ansible
//! inventories) is a maintained pure-Rust YAML 1.2 parser; its loader (`YamlLoader`) drops the
//! markers, so this layer builds the tree from the events itself (about 150 lines).
//!
//! Scalars are kept as the text written (`on`, `9216`, `'3'` → `3`): the readers decide what a
//! value means, as they do for CLI text. Plain empty, `~` and `null` are null. Anchors and
//! aliases are resolved, with a bound on the nodes an alias may copy (no "billion laughs").
//! On a syntax error, what was read before it is kept (open collections closed) with the error
//! and its line, like [`json::parse`].
//!
//! [`render`] writes a tree as canonical block YAML, one key per line at the key's source line,
//! so record patterns written for `nv config show` read any layout of the same document: flow
//! maps (`link: {mtu: 9216}`), other indentation, quoting, comments, or the JSON form.

use super::json::{Doc, JsonError, Line, Member, Node, Value};
use std::collections::HashMap;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// Most nodes a document may expand to through aliases.
const MAX_NODES: usize = 1_000_000;

/// What aliases may copy into a document, in bytes of tree: this much, plus
/// [`ALIAS_BYTES_PER_BYTE`] times the document's size. A node count alone let one long scalar
/// be copied thousands of times: 60 KB of NVUE YAML with a 60,000-character anchor nested
/// through four levels of eight aliases asked for 1.1 GB, five levels for over 8 GB (issue 19).
const ALIAS_BYTES: usize = 1 << 20;
const ALIAS_BYTES_PER_BYTE: usize = 8;

/// Parse a YAML document. Never panics; a second document, or an error, is reported with its
/// line and what came before it is returned.
pub fn parse(text: &str) -> Doc {
    let mut b = Builder {
        copy_budget: ALIAS_BYTES.saturating_add(ALIAS_BYTES_PER_BYTE.saturating_mul(text.len())),
        ..Default::default()
    };
    let mut p = Parser::new_from_str(text);
    let scan = p.load(&mut b, true);
    let mut error = b.error.take();
    if let (Err(e), None) = (scan, &error) {
        let m = e.marker();
        error = Some(JsonError {
            line: m.line() as u32,
            col: m.col() as u32 + 1,
            msg: e.info().to_string(),
            truncated: m.index() >= text.len(),
        });
    }
    // Collections left open by an error: close them where it is.
    while !b.stack.is_empty() {
        b.close();
    }
    Doc {
        root: b.docs.into_iter().next(),
        error,
    }
}

enum Frame {
    Seq(Node, usize),
    Map(Node, usize, Option<(String, u32)>),
}

#[derive(Default)]
struct Builder {
    stack: Vec<Frame>,
    docs: Vec<Node>,
    anchors: HashMap<usize, Node>,
    nodes: usize,
    /// Bytes of tree the aliases have copied so far, and the most they may.
    copied: usize,
    copy_budget: usize,
    error: Option<JsonError>,
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        if self.error.is_some() {
            return;
        }
        let line = mark.line() as u32;
        let node = |value| Node { line, value };
        match ev {
            Event::Scalar(text, style, anchor, _) => {
                let plain_null =
                    style == TScalarStyle::Plain && matches!(text.as_str(), "" | "~" | "null");
                let v = if plain_null {
                    Value::Null
                } else {
                    Value::String(text)
                };
                self.complete(node(v), anchor);
            }
            Event::Alias(id) => match self.anchors.get(&id).cloned() {
                Some(n) => {
                    let (nodes, bytes) = count(&n);
                    self.nodes = self.nodes.saturating_add(nodes);
                    self.copied = self.copied.saturating_add(bytes);
                    if self.nodes > MAX_NODES {
                        self.fail(mark, "aliases expand to too many nodes");
                    } else if self.copied > self.copy_budget {
                        let msg = format!(
                            "aliases copy more than {} bytes ({} MiB and {} times the document's size)",
                            self.copy_budget,
                            ALIAS_BYTES >> 20,
                            ALIAS_BYTES_PER_BYTE
                        );
                        self.fail(mark, &msg);
                    } else {
                        self.complete(Node { line, ..n }, 0);
                    }
                }
                None => self.fail(mark, "alias to an unknown anchor"),
            },
            Event::SequenceStart(a, _) => {
                self.stack.push(Frame::Seq(node(Value::Array(vec![])), a))
            }
            Event::MappingStart(a, _) => {
                self.stack
                    .push(Frame::Map(node(Value::Object(vec![])), a, None))
            }
            Event::SequenceEnd | Event::MappingEnd => self.close(),
            _ => {}
        }
    }
}

impl Builder {
    fn fail(&mut self, mark: Marker, msg: &str) {
        self.error = Some(JsonError {
            line: mark.line() as u32,
            col: mark.col() as u32 + 1,
            msg: msg.to_string(),
            truncated: false,
        });
    }

    fn close(&mut self) {
        let (mut n, anchor) = match self.stack.pop() {
            Some(Frame::Seq(n, a)) | Some(Frame::Map(n, a, _)) => (n, a),
            None => return,
        };
        // No growth slack kept in the tree: a list grows to room for 4 members at least, and
        // most mappings of a device document hold one or two (see `json::Reader::object`).
        match &mut n.value {
            Value::Array(items) => items.shrink_to_fit(),
            Value::Object(ms) => ms.shrink_to_fit(),
            _ => {}
        }
        self.complete(n, anchor);
    }

    /// A finished node: the value of a pending key, an item, a key, or a document.
    fn complete(&mut self, n: Node, anchor: usize) {
        self.nodes += 1;
        if anchor > 0 {
            self.anchors.insert(anchor, n.clone());
        }
        match self.stack.last_mut() {
            None => self.docs.push(n),
            Some(Frame::Seq(s, _)) => {
                if let Value::Array(items) = &mut s.value {
                    items.push(n);
                }
            }
            Some(Frame::Map(m, _, key)) => match key.take() {
                Some((k, line)) => {
                    if let Value::Object(ms) = &mut m.value {
                        ms.push(Member {
                            key: k,
                            line,
                            value: n,
                        });
                    }
                }
                None => *key = Some((key_text(&n), n.line)),
            },
        }
    }
}

/// A key as text (a collection used as a key, which YAML allows, is written as `?`).
fn key_text(n: &Node) -> String {
    match &n.value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        _ => "?".to_string(),
    }
}

/// Nodes in `n`, and the bytes of tree a copy of it takes (nodes, members and texts).
fn count(n: &Node) -> (usize, usize) {
    let node = std::mem::size_of::<Node>();
    let member = std::mem::size_of::<Member>() - node;
    let mut nodes = 1;
    let mut bytes = node;
    match &n.value {
        Value::String(t) | Value::Number(t) => bytes += t.len(),
        Value::Array(items) => {
            for i in items {
                let (n, b) = count(i);
                nodes += n;
                bytes += b;
            }
        }
        Value::Object(ms) => {
            for m in ms {
                let (n, b) = count(&m.value);
                nodes += n;
                bytes += b + member + m.key.len();
            }
        }
        Value::Null | Value::Bool(_) => {}
    }
    (nodes, bytes)
}

/// A JSON or YAML document (JSON when it starts with `[` or `{`: JSON is read by the JSON
/// reader, which tells a cut document from a wrong one).
pub fn parse_json_or_yaml(text: &str) -> Doc {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if t.starts_with('[') || t.starts_with('{') {
        let doc = super::json::parse(text);
        if doc.error.is_none() || doc.root.is_some() {
            return doc;
        }
    }
    parse(text)
}

/// Render a tree as canonical block YAML lines: `key:` opens a map or list, `key: {}` / `key:
/// []` is empty, `key: value` is a scalar written plain (quoted only when empty or multi-line);
/// a list item is `- value`, `- key: ...` for a one-key map, `-` above a map of several keys.
pub fn render(node: &Node) -> Vec<Line> {
    let mut out = Vec::new();
    kids(node, 0, &mut out);
    out
}

fn plain(v: &Value) -> Option<String> {
    Some(match v {
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        Value::Number(s) => s.clone(),
        Value::String(s) if s.is_empty() => "''".to_string(),
        Value::String(s) if s.contains(['\n', '\r']) => super::json::quote(s),
        Value::String(s) => s.clone(),
        _ => return None,
    })
}

/// The text after `key:` / `-` for a value, and whether its children follow.
fn head(v: &Value) -> (String, bool) {
    match v {
        Value::Object(ms) if ms.is_empty() => (" {}".into(), false),
        Value::Array(items) if items.is_empty() => (" []".into(), false),
        Value::Object(_) | Value::Array(_) => (String::new(), true),
        Value::Null => (String::new(), false),
        other => (format!(" {}", plain(other).unwrap_or_default()), false),
    }
}

fn push(out: &mut Vec<Line>, src_line: u32, depth: usize, text: String) {
    out.push(Line {
        src_line,
        depth,
        text,
    });
}

fn member(key: &str, line: u32, v: &Node, depth: usize, prefix: &str, out: &mut Vec<Line>) {
    let (h, nested) = head(&v.value);
    push(out, line, depth, format!("{prefix}{key}:{h}"));
    if nested {
        kids(v, depth + 1, out);
    }
}

fn kids(v: &Node, depth: usize, out: &mut Vec<Line>) {
    match &v.value {
        Value::Object(ms) => {
            for m in ms {
                member(&m.key, m.line, &m.value, depth, "", out);
            }
        }
        Value::Array(items) => {
            for i in items {
                item(i, depth, out);
            }
        }
        other => push(out, v.line, depth, plain(other).unwrap_or_default()),
    }
}

fn item(i: &Node, depth: usize, out: &mut Vec<Line>) {
    match &i.value {
        Value::Object(ms) if ms.len() == 1 => {
            member(&ms[0].key, ms[0].line, &ms[0].value, depth, "- ", out)
        }
        Value::Object(ms) if !ms.is_empty() => {
            push(out, i.line, depth, "-".into());
            kids(i, depth + 1, out);
        }
        other => {
            let (h, nested) = head(other);
            push(out, i.line, depth, format!("-{h}"));
            if nested {
                kids(i, depth + 1, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<(u32, usize, String)> {
        let doc = parse_json_or_yaml(text);
        render(&doc.root.expect("a document"))
            .into_iter()
            .map(|l| (l.src_line, l.depth, l.text))
            .collect()
    }

    #[test]
    fn block_and_flow_yaml_render_the_same_lines_at_their_source_lines() {
        let block = "- set:\n    interface:\n      swp1:\n        link:\n          mtu: 9216\n          state:\n            up: {}\n";
        let flow = "- set:\n    interface:\n      swp1: {link: {mtu: 9216, state: {up: {}}}}\n";
        let b = lines(block);
        let f = lines(flow);
        let texts = |v: &[(u32, usize, String)]| -> Vec<String> {
            v.iter()
                .map(|(_, d, t)| format!("{}{t}", "  ".repeat(*d)))
                .collect()
        };
        assert_eq!(texts(&b), texts(&f));
        assert_eq!(b[4], (5, 4, "mtu: 9216".to_string()));
        assert_eq!(f[4].0, 3, "a flow value keeps the line it is on");
    }

    #[test]
    fn json_and_yaml_of_one_revision_render_alike() {
        let json = "[{\"header\": {\"rev-id\": 1.0}}, {\"set\": {\"qos\": {\"roce\": {\"enable\": \"on\"}}}}]";
        let yaml =
            "- header:\n    rev-id: 1.0\n- set:\n    qos:\n      roce:\n        enable: on\n";
        let t =
            |v: Vec<(u32, usize, String)>| v.into_iter().map(|x| (x.1, x.2)).collect::<Vec<_>>();
        assert_eq!(t(lines(json)), t(lines(yaml)));
    }

    #[test]
    fn quoted_keys_comments_and_aliases() {
        let y = "# comment\na: &x\n  '3': {}\nb: *x\nc: ''\nd:\n";
        let l = lines(y);
        let texts: Vec<&str> = l.iter().map(|x| x.2.as_str()).collect();
        assert_eq!(texts, vec!["a:", "3: {}", "b:", "3: {}", "c: ''", "d:"]);
        assert_eq!(l[2].0, 4, "an alias takes the line it is used on");
    }

    #[test]
    fn an_error_keeps_what_came_before_with_its_line() {
        let y = "a:\n  b: 1\n  c: [1, 2\nd: 3\n";
        let doc = parse(y);
        let e = doc.error.expect("an error");
        assert!(e.line >= 3, "{e:?}");
        let root = doc.root.expect("the part before the error");
        assert_eq!(
            root.get("a")
                .and_then(|a| a.get("b"))
                .and_then(|b| b.as_str()),
            Some("1")
        );
    }

    #[test]
    fn aliases_cannot_explode() {
        let mut y = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let p = i - 1;
            y.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        let doc = parse(&y);
        let msg = doc.error.expect("refused").msg;
        // The bytes copied pass their bound before the nodes do.
        assert!(msg.contains("aliases copy more than"), "{msg}");
    }

    /// Few nodes, long texts: a 60,000-character anchor copied 8^4 times asked for 1.1 GB.
    #[test]
    fn aliases_of_long_texts_cannot_explode() {
        let mut y = format!("s: &s \"{}\"\n", "A".repeat(60_000));
        y.push_str(&format!("x1: &a1 [{}]\n", ["*s"; 8].join(", ")));
        for i in 2..5 {
            let p = format!("*a{}", i - 1);
            y.push_str(&format!("x{i}: &a{i} [{}]\n", vec![p; 8].join(", ")));
        }
        let doc = parse(&y);
        let e = doc.error.expect("refused");
        assert!(e.msg.contains("aliases copy more than"), "{}", e.msg);
        assert_eq!(e.line, 3, "the alias past the budget: {}", e.msg);
        // A few copies of it are fine.
        let doc = parse(&format!("s: &s \"{}\"\nt: [*s, *s]\n", "A".repeat(60_000)));
        assert!(doc.error.is_none(), "{:?}", doc.error);
    }

    #[test]
    fn garbage_never_panics() {
        for s in [
            "",
            ":",
            "- - - [",
            "{a: [}",
            "\u{feff}a: b",
            "a: |\n  x\n y",
            "*x",
            "? [a]\n: b",
        ] {
            let _ = parse_json_or_yaml(s);
        }
    }
}
