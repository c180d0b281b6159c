//! The NVUE object tree, whichever form it was printed in: the YAML of `nv config show` /
//! startup.yaml (rebuilt from the engine's records, each holding its key `k` and scalar `v`) or
//! the JSON of `nv config show -o json` (read here with line numbers, which serde_json does not
//! keep). Both give the same nodes, so one reader (`nvue`) serves both.

use super::intent::unquote;
use crate::platform::Output;

/// One key of the tree, with its scalar value (absent for maps and `{}`) and its line.
#[derive(Debug, Clone)]
pub(super) struct Node {
    pub(super) key: String,
    pub(super) val: Option<String>,
    pub(super) line: u32,
    pub(super) kids: Vec<usize>,
}

#[derive(Debug, Default)]
pub(super) struct Tree {
    pub(super) nodes: Vec<Node>,
    pub(super) roots: Vec<usize>,
}

impl Tree {
    fn add(&mut self, parent: Option<usize>, key: String, val: Option<String>, line: u32) -> usize {
        let id = self.nodes.len();
        self.nodes.push(Node {
            key,
            val,
            line,
            kids: Vec::new(),
        });
        match parent {
            Some(p) => self.nodes[p].kids.push(id),
            None => self.roots.push(id),
        }
        id
    }

    pub(super) fn node(&self, id: usize) -> &Node {
        &self.nodes[id]
    }

    /// Children of `id` in document order.
    pub(super) fn kids(&self, id: usize) -> impl Iterator<Item = (usize, &Node)> {
        self.nodes[id].kids.iter().map(|&k| (k, &self.nodes[k]))
    }

    /// The child of `id` with key `key`.
    pub(super) fn child(&self, id: usize, key: &str) -> Option<usize> {
        self.nodes[id]
            .kids
            .iter()
            .copied()
            .find(|&k| self.nodes[k].key == key)
    }

    /// The scalar of child `key` of `id`, with its line.
    pub(super) fn val(&self, id: usize, key: &str) -> Option<(&str, u32)> {
        let c = self.child(id, key)?;
        let n = &self.nodes[c];
        n.val.as_deref().map(|v| (v, n.line))
    }
}

/// The tree of a YAML revision from the records of `nv config show`.
pub(super) fn from_records(o: &Output) -> Tree {
    let p = &o.parsed;
    let mut t = Tree::default();
    // record index → node index
    let mut map: Vec<Option<usize>> = Vec::with_capacity(p.records.len());
    for r in &p.records {
        let Some(k) = p.get(r, "k") else {
            map.push(None);
            continue;
        };
        let parent = match r.parent {
            Some(pi) => match map.get(pi as usize).copied().flatten() {
                Some(n) => Some(n),
                // under an opaque record: not part of the tree
                None => {
                    map.push(None);
                    continue;
                }
            },
            None => None,
        };
        let val = p
            .get(r, "v")
            .map(|v| unquote(v).to_string())
            .filter(|v| v != "{}" && !v.is_empty());
        let id = t.add(parent, unquote(k).to_string(), val, r.line);
        map.push(Some(id));
    }
    t
}

/// The tree of a JSON revision (`[{"header": {...}}, {"set": {...}}]`, or an unwrapped object).
/// `None` when the text is not JSON this reader understands.
pub(super) fn from_json(text: &str) -> Option<Tree> {
    let mut j = Json {
        b: text.as_bytes(),
        i: 0,
        line: 1,
        depth: 0,
    };
    let mut t = Tree::default();
    j.ws();
    j.value(&mut t, None)?;
    j.ws();
    (j.i == j.b.len()).then_some(t)
}

/// A small JSON reader that keeps the line of every key.
struct Json<'a> {
    b: &'a [u8],
    i: usize,
    line: u32,
    depth: u32,
}

impl Json<'_> {
    fn ws(&mut self) {
        while let Some(&c) = self.b.get(self.i) {
            match c {
                b'\n' => {
                    self.line += 1;
                    self.i += 1;
                }
                b' ' | b'\t' | b'\r' => self.i += 1,
                _ => break,
            }
        }
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        self.ws();
        (self.b.get(self.i) == Some(&c)).then(|| self.i += 1)
    }

    /// A value whose members (objects) or elements (arrays) become children of `parent`.
    fn value(&mut self, t: &mut Tree, parent: Option<usize>) -> Option<()> {
        self.ws();
        self.depth += 1;
        if self.depth > 256 {
            return None;
        }
        let r = match self.b.get(self.i)? {
            b'{' => {
                self.i += 1;
                self.ws();
                if self.b.get(self.i) == Some(&b'}') {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        let line = self.line;
                        let key = self.string()?;
                        self.eat(b':')?;
                        self.ws();
                        match self.b.get(self.i)? {
                            b'{' | b'[' => {
                                let id = t.add(parent, key, None, line);
                                self.value(t, Some(id))?;
                            }
                            _ => {
                                let v = self.scalar()?;
                                t.add(parent, key, Some(v), line);
                            }
                        }
                        self.ws();
                        match self.b.get(self.i)? {
                            b',' => self.i += 1,
                            b'}' => {
                                self.i += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
                Some(())
            }
            b'[' => {
                self.i += 1;
                self.ws();
                if self.b.get(self.i) == Some(&b']') {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        match self.b.get(self.i)? {
                            // members of an element object join the array's node
                            b'{' | b'[' => self.value(t, parent)?,
                            _ => {
                                let line = self.line;
                                let v = self.scalar()?;
                                t.add(parent, v, None, line);
                            }
                        }
                        self.ws();
                        match self.b.get(self.i)? {
                            b',' => self.i += 1,
                            b']' => {
                                self.i += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
                Some(())
            }
            _ => None,
        };
        self.depth -= 1;
        r
    }

    /// A string, number, true, false or null, as text.
    fn scalar(&mut self) -> Option<String> {
        self.ws();
        if self.b.get(self.i) == Some(&b'"') {
            return self.string();
        }
        let start = self.i;
        while let Some(&c) = self.b.get(self.i) {
            if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'+' | b'.') {
                self.i += 1;
            } else {
                break;
            }
        }
        if self.i == start {
            return None;
        }
        std::str::from_utf8(&self.b[start..self.i])
            .ok()
            .map(str::to_string)
    }

    fn string(&mut self) -> Option<String> {
        self.ws();
        if self.b.get(self.i) != Some(&b'"') {
            return None;
        }
        self.i += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let c = *self.b.get(self.i)?;
            self.i += 1;
            match c {
                b'"' => break,
                b'\n' => return None,
                b'\\' => {
                    let e = *self.b.get(self.i)?;
                    self.i += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'b' | b'f' => {}
                        b'u' => {
                            let hex = self.b.get(self.i..self.i + 4)?;
                            self.i += 4;
                            let code =
                                u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?;
                            let ch = char::from_u32(code).unwrap_or('\u{fffd}');
                            let mut buf = [0u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        }
                        other => out.push(other),
                    }
                }
                other => out.push(other),
            }
        }
        String::from_utf8(out).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_keys_keep_their_lines() {
        let text = "[\n  {\n    \"header\": {\n      \"rev-id\": 1.0\n    }\n  },\n  {\n    \"set\": {\n      \"qos\": {\"roce\": {\"enable\": \"on\"}},\n      \"x\": [\"a\", {\"b\": true}]\n    }\n  }\n]\n";
        let t = from_json(text).unwrap();
        let keys: Vec<&str> = t.roots.iter().map(|&r| t.node(r).key.as_str()).collect();
        assert_eq!(keys, vec!["header", "set"]);
        let set = t.roots[1];
        assert_eq!(t.node(set).line, 8);
        let qos = t.child(set, "qos").unwrap();
        let roce = t.child(qos, "roce").unwrap();
        assert_eq!(t.val(roce, "enable"), Some(("on", 9)));
        let x = t.child(set, "x").unwrap();
        assert_eq!(t.kids(x).count(), 2);
        let rev = t.child(t.roots[0], "rev-id").unwrap();
        assert_eq!(t.node(rev).val.as_deref(), Some("1.0"));
    }

    #[test]
    fn bad_json_is_refused() {
        assert!(from_json("{\"a\": }").is_none());
        assert!(from_json("{\"a\": 1} x").is_none());
        assert!(from_json(&"[".repeat(1000)).is_none());
        assert!(from_json("").is_none());
    }
}
