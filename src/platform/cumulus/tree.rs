//! The NVUE object tree, whichever form it was printed in: the YAML of `nv config show` /
//! startup.yaml or the JSON of `nv config show -o json`. The engine parses either as structure
//! (`crate::parser::yaml`, format `yaml-lines`) and shows the record patterns one canonical
//! line per key at its source line; the tree is rebuilt here from those records (each holding
//! its key `k` and scalar `v`), so one reader (`nvue`) serves both forms and every value keeps
//! its line.

use super::intent::unquote;
use crate::platform::Output;

/// One key of the tree, with its scalar value (absent for maps and `{}`) and its line.
#[derive(Debug, Clone)]
pub(super) struct Node {
    /// Boxed strings: a node is 64 bytes, not 80 (a file of `nv set` lines builds several
    /// nodes a line; issue 19's bound of 20 times the input).
    pub(super) key: Box<str>,
    pub(super) val: Option<Box<str>>,
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
            key: key.into_boxed_str(),
            val: val.map(String::into_boxed_str),
            line,
            kids: Vec::new(),
        });
        match parent {
            Some(p) => self.nodes[p].kids.push(id),
            None => self.roots.push(id),
        }
        id
    }

    /// [`Tree::add`] for the readers of other forms (`commands`).
    pub(super) fn add_node(
        &mut self,
        parent: Option<usize>,
        key: String,
        val: Option<String>,
        line: u32,
    ) -> usize {
        self.add(parent, key, val, line)
    }

    /// Set the scalar of node `id`.
    pub(super) fn set_val(&mut self, id: usize, val: String) {
        if let Some(n) = self.nodes.get_mut(id) {
            n.val = Some(val.into_boxed_str());
        }
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
            .find(|&k| &*self.nodes[k].key == key)
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
