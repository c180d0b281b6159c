//! Ansible YAML inventory reader: which hosts exist, which groups they are in, and their
//! variables with Ansible's precedence.
//!
//! The format is `all: { hosts: {...}, vars: {...}, children: { GROUP: {...} } }`, nested to
//! any depth; top-level keys other than `all` are groups too. Variable precedence follows
//! Ansible: `all` vars, then each group's vars ordered by depth (parents before children), then
//! `ansible_group_priority`, then group name (so of two sibling groups the one that sorts last
//! wins), then host vars. Host names may hold ranges (`leaf[01:04]`, `sw-[a:c]`) and a
//! `:port` suffix, both expanded as Ansible does. Values are kept as text; lists and mappings
//! are skipped, as are `!vault` values (encrypted, so unusable here).
//!
//! The YAML is read with yaml-rust2's event parser into a small tree that remembers line
//! numbers, so errors name `file:line`.

use anyhow::{Result, bail};
use std::collections::{BTreeMap, HashMap};
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// One host of the inventory.
#[derive(Debug, Clone, PartialEq)]
pub struct AnsibleHost {
    pub name: String,
    /// Every group the host belongs to, outermost first (never "all" / "ungrouped"), no
    /// duplicates.
    pub groups: Vec<String>,
    /// Variables as strings (numbers/bools rendered as text): `all` vars, then group vars from
    /// the outermost group down to the innermost (child overrides parent), then host vars
    /// (override all).
    pub vars: BTreeMap<String, String>,
}

/// Parse a YAML inventory; `file` names it in errors. Hosts come in order of first appearance.
pub fn parse(text: &str, file: &str) -> Result<Vec<AnsibleHost>> {
    let docs = load_yaml(text, file)?;
    let mut inv = Inventory::new(file);
    read_groups(&docs, &mut inv)?;
    // The tree is let go before the hosts are resolved, so the two are never held at once.
    drop(docs);
    inv.finish()
}

/// The top level of the document: each key a group.
fn read_groups(docs: &[Node], inv: &mut Inventory) -> Result<()> {
    let file = inv.file;
    let root = match docs {
        [] => bail!("{file}: empty inventory: expected a mapping of groups such as `all:`"),
        [root] => root,
        [_, second, ..] => bail!(
            "{file}:{}: a second YAML document; an inventory is a single document",
            second.line
        ),
    };
    let entries = match &root.kind {
        Kind::Map(entries) => entries,
        _ if root.is_null() => {
            bail!("{file}: empty inventory: expected a mapping of groups such as `all:`")
        }
        _ => bail!(
            "{file}:{}: expected a mapping of groups at the top level (such as `all:`), found {}",
            root.line,
            root.describe()
        ),
    };
    for (key, value) in entries {
        let name = inv.name_of(key, "group name")?;
        if name == "plugin" {
            bail!(
                "{file}:{}: this is an inventory plugin configuration (`plugin:`), not a YAML \
                 inventory",
                key.line
            );
        }
        inv.group(&name, value, 0)?;
    }
    Ok(())
}

/// Map `ansible_network_os` (short name or FQCN) to our platform id (the names are in the
/// platform registry, `crate::platform::registry`).
pub fn platform_of(network_os: &str) -> Option<&'static str> {
    crate::platform::registry::of_ansible(network_os)
}

// ---------------------------------------------------------------------------------------------
// Inventory model

/// Groups nested deeper than this are refused (guards the recursion).
const MAX_GROUP_NESTING: usize = 100;
/// One host pattern may not expand to more hosts than this.
const MAX_RANGE_HOSTS: usize = 100_000;

const ALL: usize = 0;

struct Group {
    name: String,
    vars: BTreeMap<String, String>,
    /// Indices of parent groups (explicit `children:` edges only).
    parents: Vec<usize>,
}

/// One listing of a host under a group's `hosts:` (a host listed in several groups is several
/// of these until [`Inventory::finish`] merges them).
#[derive(Default)]
struct Host {
    name: String,
    vars: BTreeMap<String, String>,
    /// Groups that list the host under `hosts:`.
    groups: Vec<usize>,
}

struct Inventory<'f> {
    file: &'f str,
    groups: Vec<Group>,
    group_index: HashMap<String, usize>,
    /// Every host listing in the order written. Not indexed by name while it is read: a
    /// name index is a copy of every name and some 40 bytes a host, held while the YAML tree
    /// is, and an inventory may list a hundred thousand hosts; [`merge_listings`] joins the
    /// listings of one host afterwards.
    hosts: Vec<Host>,
}

impl<'f> Inventory<'f> {
    fn new(file: &'f str) -> Self {
        let mut inv = Inventory {
            file,
            groups: Vec::new(),
            group_index: HashMap::new(),
            hosts: Vec::new(),
        };
        inv.group_id("all");
        inv
    }

    fn group_id(&mut self, name: &str) -> usize {
        if let Some(&id) = self.group_index.get(name) {
            return id;
        }
        let id = self.groups.len();
        self.groups.push(Group {
            name: name.to_string(),
            vars: BTreeMap::new(),
            parents: Vec::new(),
        });
        self.group_index.insert(name.to_string(), id);
        id
    }

    /// A mapping key used as a group or host name: any scalar, taken as written.
    fn name_of(&self, key: &Node, what: &str) -> Result<String> {
        match &key.kind {
            Kind::Scalar { text, .. } if !key.is_null() => Ok(text.to_string()),
            _ => bail!(
                "{}:{}: expected a {what}, found {}",
                self.file,
                key.line,
                key.describe()
            ),
        }
    }

    /// One group definition (`name: {hosts, vars, children}` or `name: null`). A group may be
    /// defined in several places; the definitions merge.
    fn group(&mut self, name: &str, node: &Node, nesting: usize) -> Result<()> {
        let file = self.file;
        if nesting > MAX_GROUP_NESTING {
            bail!(
                "{file}:{}: groups nested more than {MAX_GROUP_NESTING} deep",
                node.line
            );
        }
        let id = self.group_id(name);
        if node.is_null() {
            return Ok(());
        }
        let Kind::Map(entries) = &node.kind else {
            bail!(
                "{file}:{}: group '{name}' must be a mapping with hosts, vars or children, found {}",
                node.line,
                node.describe()
            );
        };
        for (key, value) in entries {
            let section = self.name_of(key, "section name (hosts, vars or children)")?;
            match section.as_str() {
                "vars" => {
                    let vars = self.vars(value, &format!("vars of group '{name}'"))?;
                    self.groups[id].vars.extend(vars);
                }
                "hosts" => self.hosts(id, name, value)?,
                "children" => {
                    if value.is_null() {
                        continue;
                    }
                    let Kind::Map(children) = &value.kind else {
                        bail!(
                            "{file}:{}: 'children' of group '{name}' must be a mapping of group \
                             names, found {}",
                            value.line,
                            value.describe()
                        );
                    };
                    for (child_key, child) in children {
                        let child_name = self.name_of(child_key, "group name")?;
                        if child_name == "all" {
                            bail!(
                                "{file}:{}: group 'all' cannot be a child of '{name}'",
                                child_key.line
                            );
                        }
                        let child_id = self.group_id(&child_name);
                        if child_id == id {
                            bail!(
                                "{file}:{}: group '{name}' cannot be its own child",
                                child_key.line
                            );
                        }
                        if !self.groups[child_id].parents.contains(&id) {
                            self.groups[child_id].parents.push(id);
                        }
                        self.group(&child_name, child, nesting + 1)?;
                    }
                }
                other => bail!(
                    "{file}:{}: unexpected key '{other}' in group '{name}' (expected hosts, vars \
                     or children)",
                    key.line
                ),
            }
        }
        Ok(())
    }

    /// A group's `hosts:` mapping: `host:` (null) or `host: {vars}`, names possibly patterns.
    fn hosts(&mut self, group: usize, group_name: &str, node: &Node) -> Result<()> {
        let file = self.file;
        if node.is_null() {
            return Ok(());
        }
        let entries = match &node.kind {
            Kind::Map(entries) => entries,
            Kind::Seq(_) => bail!(
                "{file}:{}: 'hosts' of group '{group_name}' is a list; it must be a mapping, one \
                 `name:` per host (a trailing colon, optionally followed by host vars)",
                node.line
            ),
            Kind::Scalar { .. } => bail!(
                "{file}:{}: 'hosts' of group '{group_name}' must be a mapping of host names, \
                 found {}",
                node.line,
                node.describe()
            ),
        };
        self.hosts.reserve(entries.len());
        for (key, value) in entries {
            let pattern = self.name_of(key, "host name")?;
            let (pattern, port) = split_port(&pattern);
            let names = expand_hosts(pattern)
                .map_err(|why| anyhow::anyhow!("{file}:{}: {why}", key.line))?;
            let vars = self.vars(value, &format!("vars of host '{pattern}'"))?;
            for name in names {
                let mut host = Host {
                    name,
                    vars: BTreeMap::new(),
                    groups: vec![group],
                };
                if let Some(port) = port {
                    host.vars
                        .insert("ansible_port".to_string(), port.to_string());
                }
                host.vars
                    .extend(vars.iter().map(|(k, v)| (k.clone(), v.clone())));
                self.hosts.push(host);
            }
        }
        Ok(())
    }

    /// A vars mapping; scalar values as text, others skipped.
    fn vars(&self, node: &Node, what: &str) -> Result<Vec<(String, String)>> {
        if node.is_null() {
            return Ok(Vec::new());
        }
        let Kind::Map(entries) = &node.kind else {
            bail!(
                "{}:{}: {what} must be a mapping of variable names to values, found {}",
                self.file,
                node.line,
                node.describe()
            );
        };
        let mut out = Vec::with_capacity(entries.len());
        for (key, value) in entries {
            let name = self.name_of(key, "variable name")?;
            if let Some(text) = value.scalar_value() {
                out.push((name, text));
            }
        }
        Ok(out)
    }

    /// Resolve group depths, memberships and variable precedence.
    fn finish(mut self) -> Result<Vec<AnsibleHost>> {
        let hosts = merge_listings(std::mem::take(&mut self.hosts));
        let n = self.groups.len();
        // Parentless groups hang off `all`, as Ansible's reconcile step does.
        let parents: Vec<Vec<usize>> = self
            .groups
            .iter()
            .enumerate()
            .map(|(id, g)| {
                if id != ALL && g.parents.is_empty() {
                    vec![ALL]
                } else {
                    g.parents.clone()
                }
            })
            .collect();
        let depth = self.depths(&parents)?;
        let priority: Vec<i64> = self
            .groups
            .iter()
            .map(|g| {
                g.vars
                    .get("ansible_group_priority")
                    .and_then(|p| p.trim().parse().ok())
                    .unwrap_or(1)
            })
            .collect();
        let ungrouped = self.group_index.get("ungrouped").copied();

        let mut out = Vec::with_capacity(hosts.len());
        for host in hosts {
            // The host's groups and all their ancestors.
            let mut member = vec![false; n];
            let mut stack: Vec<usize> = host.groups.clone();
            while let Some(g) = stack.pop() {
                if !member[g] {
                    member[g] = true;
                    stack.extend(parents[g].iter().copied());
                }
            }
            let is_real = |g: usize| g != ALL && Some(g) != ungrouped;
            // `ungrouped` holds exactly the hosts in no other group.
            if let Some(u) = ungrouped {
                member[u] = !(0..n).any(|g| member[g] && is_real(g));
            }
            let mut by_precedence: Vec<usize> = (0..n).filter(|&g| member[g] || g == ALL).collect();
            by_precedence.sort_by(|&a, &b| {
                (depth[a], priority[a], &self.groups[a].name).cmp(&(
                    depth[b],
                    priority[b],
                    &self.groups[b].name,
                ))
            });
            let mut vars = BTreeMap::new();
            for &g in &by_precedence {
                vars.extend(
                    self.groups[g]
                        .vars
                        .iter()
                        .map(|(k, v)| (k.clone(), v.clone())),
                );
            }
            vars.extend(host.vars);

            let mut groups: Vec<usize> = (0..n).filter(|&g| member[g] && is_real(g)).collect();
            groups.sort_by(|&a, &b| {
                (depth[a], &self.groups[a].name).cmp(&(depth[b], &self.groups[b].name))
            });
            out.push(AnsibleHost {
                name: host.name,
                groups: groups
                    .into_iter()
                    .map(|g| self.groups[g].name.clone())
                    .collect(),
                vars,
            });
        }
        Ok(out)
    }

    /// Depth of each group: the longest chain of parents up to `all` (depth 0). A cycle in
    /// `children` is an error.
    fn depths(&self, parents: &[Vec<usize>]) -> Result<Vec<usize>> {
        #[derive(Clone, Copy, PartialEq)]
        enum State {
            New,
            Visiting,
            Done(usize),
        }
        let n = parents.len();
        let mut state = vec![State::New; n];
        state[ALL] = State::Done(0);
        for start in 0..n {
            // Iterative post-order walk up the parent links.
            let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
            while let Some(&mut (g, ref mut next)) = stack.last_mut() {
                if let State::Done(_) = state[g] {
                    stack.pop();
                    continue;
                }
                state[g] = State::Visiting;
                if let Some(&p) = parents[g].get(*next) {
                    *next += 1;
                    match state[p] {
                        State::Visiting => bail!(
                            "{}: group '{}' is its own ancestor (a cycle in children)",
                            self.file,
                            self.groups[p].name
                        ),
                        State::New => stack.push((p, 0)),
                        State::Done(_) => {}
                    }
                    continue;
                }
                let d = parents[g]
                    .iter()
                    .map(|&p| match state[p] {
                        State::Done(d) => d + 1,
                        _ => 1,
                    })
                    .max()
                    .unwrap_or(0);
                state[g] = State::Done(d);
                stack.pop();
            }
        }
        Ok(state
            .into_iter()
            .map(|s| match s {
                State::Done(d) => d,
                _ => 0,
            })
            .collect())
    }
}

/// Join the listings of one host (a host under several groups' `hosts:`, or one name reached
/// twice through ranges) into its first, in the order written: its groups once each, later
/// variables over earlier ones, as when each listing is applied to one host in turn. Found by
/// sorting the listings' positions by name.
fn merge_listings(mut hosts: Vec<Host>) -> Vec<Host> {
    let name = |i: usize| hosts[i].name.as_str();
    let mut order: Vec<usize> = (0..hosts.len()).collect();
    order.sort_by(|&a, &b| name(a).cmp(name(b)).then(a.cmp(&b)));
    // first[i]: the position of the first listing of host i's name.
    let mut first: Vec<usize> = (0..hosts.len()).collect();
    let mut repeated = false;
    for run in order.chunk_by(|&a, &b| name(a) == name(b)) {
        for &i in run {
            first[i] = run[0];
        }
        repeated |= run.len() > 1;
    }
    if !repeated {
        return hosts;
    }
    drop(order);
    for i in 0..hosts.len() {
        if first[i] != i {
            let later = std::mem::take(&mut hosts[i]);
            let host = &mut hosts[first[i]];
            for g in later.groups {
                if !host.groups.contains(&g) {
                    host.groups.push(g);
                }
            }
            host.vars.extend(later.vars);
        }
    }
    let mut i = 0;
    hosts.retain(|_| {
        let keep = first[i] == i;
        i += 1;
        keep
    });
    hosts
}

/// `host:port` → (`host`, port). Only one colon outside `[...]` followed by digits counts, so
/// IPv6 addresses and range patterns stay whole.
fn split_port(pattern: &str) -> (&str, Option<u16>) {
    let mut bracket = 0usize;
    let mut colons = Vec::new();
    for (i, c) in pattern.char_indices() {
        match c {
            '[' => bracket += 1,
            ']' => bracket = bracket.saturating_sub(1),
            ':' if bracket == 0 => colons.push(i),
            _ => {}
        }
    }
    if let [i] = colons.as_slice() {
        let (host, port) = (&pattern[..*i], &pattern[*i + 1..]);
        if !host.is_empty()
            && !port.is_empty()
            && port.bytes().all(|b| b.is_ascii_digit())
            && let Ok(p) = port.parse::<u16>()
        {
            return (host, Some(p));
        }
    }
    (pattern, None)
}

/// Expand Ansible host ranges: `[BEGIN:END]` or `[BEGIN:END:STEP]`, numeric (a zero-padded
/// BEGIN pads every number to its width) or single letters; several ranges multiply.
fn expand_hosts(pattern: &str) -> Result<Vec<String>, String> {
    let Some((head, range, tail)) = find_range(pattern) else {
        return Ok(vec![pattern.to_string()]);
    };
    let bounds: Vec<&str> = range.split(':').collect();
    let (beg, end, step) = match bounds.as_slice() {
        [b, e] => (*b, *e, "1"),
        [b, e, s] => (*b, *e, *s),
        _ => {
            return Err(format!(
                "host range [{range}] must be [begin:end] or [begin:end:step]"
            ));
        }
    };
    let beg = if beg.is_empty() { "0" } else { beg };
    if end.is_empty() {
        return Err(format!("host range [{range}] has no end"));
    }
    let step: usize = match step.parse() {
        Ok(s) if s > 0 => s,
        _ => {
            return Err(format!(
                "host range [{range}]: step must be a positive number"
            ));
        }
    };
    let values: Vec<String> = if let (Ok(b), Ok(e)) = (beg.parse::<u64>(), end.parse::<u64>()) {
        if !beg.bytes().all(|c| c.is_ascii_digit()) || !end.bytes().all(|c| c.is_ascii_digit()) {
            return Err(format!("host range [{range}] must be numbers or letters"));
        }
        if b > e {
            return Err(format!("host range [{range}] begins after it ends"));
        }
        let width = if beg.len() > 1 && beg.starts_with('0') {
            if beg.len() != end.len() {
                return Err(format!(
                    "host range [{range}]: a zero-padded begin needs an end of the same width"
                ));
            }
            beg.len()
        } else {
            0
        };
        let count = (e - b) / step as u64 + 1;
        if count > MAX_RANGE_HOSTS as u64 {
            return Err(format!(
                "host range [{range}] expands to more than {MAX_RANGE_HOSTS} hosts"
            ));
        }
        (b..=e)
            .step_by(step)
            .map(|v| format!("{v:0width$}"))
            .collect()
    } else {
        let letter = |s: &str| {
            let mut chars = s.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) if c.is_ascii_alphabetic() => Some(c),
                _ => None,
            }
        };
        let (Some(b), Some(e)) = (letter(beg), letter(end)) else {
            return Err(format!(
                "host range [{range}] must be numbers or single letters"
            ));
        };
        // Ansible's letter order: a-z then A-Z.
        let rank = |c: char| {
            if c.is_ascii_lowercase() {
                c as u8 - b'a'
            } else {
                c as u8 - b'A' + 26
            }
        };
        let (rb, re) = (rank(b), rank(e));
        if rb > re {
            return Err(format!("host range [{range}] begins after it ends"));
        }
        (rb..=re)
            .step_by(step)
            .map(|r| {
                let c = if r < 26 { b'a' + r } else { b'A' + r - 26 };
                char::from(c).to_string()
            })
            .collect()
    };
    let mut out = Vec::new();
    for v in values {
        for host in expand_hosts(&format!("{head}{v}{tail}"))? {
            if out.len() >= MAX_RANGE_HOSTS {
                return Err(format!(
                    "host pattern expands to more than {MAX_RANGE_HOSTS} hosts"
                ));
            }
            out.push(host);
        }
    }
    Ok(out)
}

/// The first `[...]` holding a `:` that looks like a range (not an IPv6 address): returns
/// (before, inside, after).
fn find_range(pattern: &str) -> Option<(&str, &str, &str)> {
    let mut from = 0;
    while let Some(open) = pattern[from..].find('[').map(|i| i + from) {
        let close = open + pattern[open..].find(']')?;
        let inside = &pattern[open + 1..close];
        let parts = inside.split(':').count();
        if (parts == 2 || parts == 3)
            && inside
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b':')
        {
            return Some((&pattern[..open], inside, &pattern[close + 1..]));
        }
        from = close + 1;
    }
    None
}

// ---------------------------------------------------------------------------------------------
// YAML tree with line numbers

/// A YAML node and the (1-based) line it starts on.
///
/// Kept small (48 bytes; a mapping entry is two): an inventory of `name:` lines is little
/// more than entries, so their size is the tree's (it was 144 bytes an entry with `usize`
/// line and size and `String` texts, most of the memory a 1 MiB inventory took).
#[derive(Debug, Clone)]
struct Node {
    line: u32,
    /// Nodes in this subtree, to bound alias expansion (at most about [`MAX_NODES`]).
    size: u32,
    kind: Kind,
}

#[derive(Debug, Clone)]
enum Kind {
    Scalar {
        text: Box<str>,
        plain: bool,
        /// Full tag, e.g. `tag:yaml.org,2002:str` or `!vault`.
        tag: Option<Box<str>>,
    },
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

const CORE_TAG: &str = "tag:yaml.org,2002:";

impl Node {
    /// Bytes of tree a copy of this node takes (nodes and texts).
    fn bytes(&self) -> usize {
        std::mem::size_of::<Node>()
            + match &self.kind {
                Kind::Scalar { text, tag, .. } => text.len() + tag.as_ref().map_or(0, |t| t.len()),
                Kind::Seq(items) => items.iter().map(Node::bytes).sum(),
                Kind::Map(entries) => entries.iter().map(|(k, v)| k.bytes() + v.bytes()).sum(),
            }
    }

    fn is_null(&self) -> bool {
        match &self.kind {
            Kind::Scalar {
                text,
                plain: true,
                tag: None,
            } => {
                matches!(&**text, "" | "~" | "null" | "Null" | "NULL")
            }
            Kind::Scalar { tag: Some(tag), .. } => &**tag == "tag:yaml.org,2002:null",
            _ => false,
        }
    }

    fn describe(&self) -> String {
        match &self.kind {
            _ if self.is_null() => "nothing (null)".to_string(),
            Kind::Scalar { text, .. } => format!("the scalar '{text}'"),
            Kind::Seq(_) => "a list".to_string(),
            Kind::Map(_) => "a mapping".to_string(),
        }
    }

    /// A variable's value as text: numbers and booleans normalised, strings as written.
    /// `None` for null, lists, mappings and tags that hide the value (`!vault`).
    fn scalar_value(&self) -> Option<String> {
        if self.is_null() {
            return None;
        }
        let Kind::Scalar { text, plain, tag } = &self.kind else {
            return None;
        };
        let resolve = |t: &str| match yaml_rust2::Yaml::from_str(t) {
            yaml_rust2::Yaml::Integer(i) => i.to_string(),
            yaml_rust2::Yaml::Boolean(b) => b.to_string(),
            _ => t.to_string(),
        };
        match tag.as_deref() {
            None if *plain => Some(resolve(text)),
            None => Some(text.to_string()),
            Some("!vault") => None,
            Some(t) => match t.strip_prefix(CORE_TAG) {
                Some("int" | "bool") => Some(resolve(text)),
                _ => Some(text.to_string()),
            },
        }
    }

    /// Text of a plain or quoted scalar key, for duplicate and merge checks.
    fn key_text(&self) -> Option<&str> {
        match &self.kind {
            Kind::Scalar { text, .. } => Some(text),
            _ => None,
        }
    }

    fn is_merge_key(&self) -> bool {
        matches!(&self.kind, Kind::Scalar { text, plain: true, tag: None } if &**text == "<<")
    }
}

/// Total nodes an alias may copy into a document (guards "billion laughs").
const MAX_NODES: usize = 2_000_000;

/// What aliases may copy into an inventory, in bytes of tree: this much plus
/// [`ALIAS_BYTES_PER_BYTE`] times the file's size (a node count alone let one long value be
/// copied thousands of times; issue 19). Generous for `<<: *defaults` merged into every host:
/// a host's copy of ten variables is about 2 KB for a line of 30 bytes.
const ALIAS_BYTES: usize = 4 << 20;
const ALIAS_BYTES_PER_BYTE: usize = 64;

enum Frame {
    Seq {
        line: u32,
        anchor: usize,
        items: Vec<Node>,
    },
    Map {
        line: u32,
        anchor: usize,
        entries: Vec<(Node, Node)>,
        key: Option<Node>,
    },
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
    error: Option<(u32, String)>,
}

/// A list of the tree grows by an eighth (and 4), not by doubling: a mapping of many
/// thousand hosts would otherwise keep up to as much room again as it holds.
fn push_grown_by_an_eighth<T>(v: &mut Vec<T>, x: T) {
    if v.len() == v.capacity() {
        v.reserve_exact(v.len() / 8 + 4);
    }
    v.push(x);
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        let line = u32::try_from(mark.line()).unwrap_or(u32::MAX);
        if self.error.is_none()
            && let Err(e) = self.handle(ev, line)
        {
            self.error = Some(e);
        }
    }
}

impl Builder {
    fn handle(&mut self, ev: Event, line: u32) -> Result<(), (u32, String)> {
        match ev {
            Event::Nothing
            | Event::StreamStart
            | Event::StreamEnd
            | Event::DocumentStart
            | Event::DocumentEnd => Ok(()),
            Event::Scalar(text, style, anchor, tag) => {
                let tag = tag.map(|t| format!("{}{}", t.handle, t.suffix).into_boxed_str());
                let node = Node {
                    line,
                    kind: Kind::Scalar {
                        text: text.into_boxed_str(),
                        plain: style == TScalarStyle::Plain,
                        tag,
                    },
                    size: 1,
                };
                self.complete(node, anchor)
            }
            Event::Alias(id) => {
                let Some(node) = self.anchors.get(&id) else {
                    return Err((line, "alias to an unknown anchor".to_string()));
                };
                self.copied = self.copied.saturating_add(node.bytes());
                if self.copied > self.copy_budget {
                    return Err((
                        line,
                        format!(
                            "aliases copy more than {} bytes ({} MiB and {} times the file's size)",
                            self.copy_budget,
                            ALIAS_BYTES >> 20,
                            ALIAS_BYTES_PER_BYTE
                        ),
                    ));
                }
                let mut node = node.clone();
                node.line = line;
                self.complete(node, 0)
            }
            Event::SequenceStart(anchor, _) => {
                self.stack.push(Frame::Seq {
                    line,
                    anchor,
                    items: Vec::new(),
                });
                Ok(())
            }
            Event::MappingStart(anchor, _) => {
                self.stack.push(Frame::Map {
                    line,
                    anchor,
                    entries: Vec::new(),
                    key: None,
                });
                Ok(())
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let (node, anchor) = match self.stack.pop() {
                    Some(Frame::Seq {
                        line,
                        anchor,
                        items,
                    }) => {
                        let mut items = items;
                        items.shrink_to_fit();
                        let size = items.iter().fold(1u32, |n, i| n.saturating_add(i.size));
                        (
                            Node {
                                line,
                                kind: Kind::Seq(items),
                                size,
                            },
                            anchor,
                        )
                    }
                    Some(Frame::Map {
                        line,
                        anchor,
                        entries,
                        ..
                    }) => {
                        let entries = merge_entries(entries)?;
                        let size = entries.iter().fold(1u32, |n, (k, v)| {
                            n.saturating_add(k.size).saturating_add(v.size)
                        });
                        (
                            Node {
                                line,
                                kind: Kind::Map(entries),
                                size,
                            },
                            anchor,
                        )
                    }
                    None => return Err((line, "unbalanced YAML structure".to_string())),
                };
                self.complete(node, anchor)
            }
        }
    }

    /// Attach a finished node to its parent (or as a document).
    fn complete(&mut self, node: Node, anchor: usize) -> Result<(), (u32, String)> {
        self.nodes = self.nodes.saturating_add(node.size as usize);
        if self.nodes > MAX_NODES {
            return Err((
                node.line,
                "document too large (aliases expand too far)".to_string(),
            ));
        }
        if anchor > 0 {
            self.anchors.insert(anchor, node.clone());
        }
        match self.stack.last_mut() {
            None => self.docs.push(node),
            Some(Frame::Seq { items, .. }) => push_grown_by_an_eighth(items, node),
            Some(Frame::Map { entries, key, .. }) => match key.take() {
                Some(k) => push_grown_by_an_eighth(entries, (k, node)),
                None => *key = Some(node),
            },
        }
        Ok(())
    }
}

/// Reject duplicate keys and apply `<<` merge keys (explicit keys win over merged ones, earlier
/// merged mappings over later ones).
fn merge_entries(mut entries: Vec<(Node, Node)>) -> Result<Vec<(Node, Node)>, (u32, String)> {
    if !entries.iter().any(|(k, _)| k.is_merge_key()) {
        // The usual mapping: checked in place, kept without copies of it or of its keys.
        first_duplicate(&entries)?;
        entries.shrink_to_fit();
        return Ok(entries);
    }
    let mut out: Vec<(Node, Node)> = Vec::with_capacity(entries.len());
    let mut merges: Vec<Node> = Vec::new();
    let mut seen: HashMap<String, u32> = HashMap::new();
    for (k, v) in entries {
        if k.is_merge_key() {
            merges.push(v);
            continue;
        }
        if let Some(text) = k.key_text()
            && let Some(first) = seen.insert(text.to_string(), k.line)
        {
            return Err((
                k.line,
                format!("duplicate key '{text}' (first at line {first})"),
            ));
        }
        out.push((k, v));
    }
    for merge in merges {
        let sources = match merge.kind {
            Kind::Map(entries) => vec![entries],
            Kind::Seq(items) => {
                let mut maps = Vec::with_capacity(items.len());
                for item in items {
                    match item.kind {
                        Kind::Map(entries) => maps.push(entries),
                        _ => {
                            return Err((
                                item.line,
                                "a `<<` merge list must hold only mappings".to_string(),
                            ));
                        }
                    }
                }
                maps
            }
            Kind::Scalar { .. } => {
                return Err((
                    merge.line,
                    "`<<` must be followed by a mapping or a list of mappings".to_string(),
                ));
            }
        };
        for (k, v) in sources.into_iter().flatten() {
            match k.key_text() {
                Some(text) if seen.contains_key(text) => {}
                Some(text) => {
                    seen.insert(text.to_string(), k.line);
                    out.push((k, v));
                }
                None => out.push((k, v)),
            }
        }
    }
    Ok(out)
}

/// The first key (in the order written) that repeats an earlier one, as the error
/// "duplicate key 'K' (first at line L)". Found by sorting the entries' positions by key (4
/// bytes an entry) rather than a set of copied keys (a copy and about 40 bytes a key).
fn first_duplicate(entries: &[(Node, Node)]) -> Result<(), (u32, String)> {
    let key = |i: u32| entries[i as usize].0.key_text();
    let mut order: Vec<u32> = (0..entries.len())
        .filter_map(|i| u32::try_from(i).ok())
        .filter(|&i| key(i).is_some())
        .collect();
    order.sort_by(|&a, &b| key(a).cmp(&key(b)).then(a.cmp(&b)));
    // Of the runs of one key, each run's second position is a repeat of its first; the
    // earliest such repeat is the one reported.
    let first = order
        .windows(2)
        .filter(|w| key(w[0]) == key(w[1]))
        .min_by_key(|w| w[1]);
    if let Some(w) = first {
        let (k, earlier) = (&entries[w[1] as usize].0, &entries[w[0] as usize].0);
        return Err((
            k.line,
            format!(
                "duplicate key '{}' (first at line {})",
                k.key_text().unwrap_or_default(),
                earlier.line
            ),
        ));
    }
    Ok(())
}

fn load_yaml(text: &str, file: &str) -> Result<Vec<Node>> {
    let mut builder = Builder {
        copy_budget: ALIAS_BYTES.saturating_add(ALIAS_BYTES_PER_BYTE.saturating_mul(text.len())),
        ..Default::default()
    };
    let mut parser = Parser::new_from_str(text);
    if let Err(e) = parser.load(&mut builder, true) {
        bail!("{file}:{}: invalid YAML: {}", e.marker().line(), e.info());
    }
    if let Some((line, why)) = builder.error {
        bail!("{file}:{line}: {why}");
    }
    Ok(builder.docs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Few nodes, long texts: a long value copied through nested aliases is refused by the
    /// bytes it would copy, with the line of the alias past the budget; merged defaults are not.
    #[test]
    fn aliases_of_long_values_cannot_explode() {
        let mut y = format!(
            "all:\n  vars:\n    s: &s \"{}\"\n    x1: &a1 [{}]\n",
            "A".repeat(60_000),
            ["*s"; 8].join(", ")
        );
        for i in 2..6 {
            let p = format!("*a{}", i - 1);
            y.push_str(&format!("    x{i}: &a{i} [{}]\n", vec![p; 8].join(", ")));
        }
        let e = err(&y);
        assert!(
            e.contains("inv.yml:6:") && e.contains("aliases copy more than"),
            "{e}"
        );
        let mut y = String::from(
            "all:\n  vars:\n    d: &d {ansible_network_os: eos, a: 1, b: 2, c: 3}\n  hosts:\n",
        );
        for i in 0..2000 {
            y.push_str(&format!("    h{i}: {{<<: *d, ansible_host: 10.0.0.1}}\n"));
        }
        assert_eq!(inv(&y).len(), 2000);
    }

    fn inv(text: &str) -> Vec<AnsibleHost> {
        match parse(text, "inv.yml") {
            Ok(h) => h,
            Err(e) => panic!("parse failed: {e:#}"),
        }
    }

    fn err(text: &str) -> String {
        match parse(text, "inv.yml") {
            Ok(h) => panic!("expected an error, got {h:?}"),
            Err(e) => format!("{e:#}"),
        }
    }

    fn host<'a>(hosts: &'a [AnsibleHost], name: &str) -> &'a AnsibleHost {
        match hosts.iter().find(|h| h.name == name) {
            Some(h) => h,
            None => panic!("no host {name} in {hosts:?}"),
        }
    }

    fn var<'a>(h: &'a AnsibleHost, k: &str) -> Option<&'a str> {
        h.vars.get(k).map(String::as_str)
    }

    #[test]
    fn nested_group_var_precedence() {
        let hosts = inv(r#"
all:
  vars:
    ansible_user: admin
    mtu: 1500
    site: none
  children:
    dc1:
      vars:
        site: dc1
        mtu: 9000
      children:
        leafs:
          vars:
            mtu: 9216
            ansible_network_os: cisco.nxos.nxos
          hosts:
            leaf1:
              mtu: 1234
              enabled: true
            leaf2:
"#);
        assert_eq!(hosts.len(), 2);
        let leaf1 = host(&hosts, "leaf1");
        assert_eq!(leaf1.groups, vec!["dc1", "leafs"]);
        assert_eq!(var(leaf1, "ansible_user"), Some("admin"));
        assert_eq!(var(leaf1, "site"), Some("dc1"));
        assert_eq!(var(leaf1, "mtu"), Some("1234"));
        assert_eq!(var(leaf1, "enabled"), Some("true"));
        let leaf2 = host(&hosts, "leaf2");
        assert_eq!(var(leaf2, "mtu"), Some("9216"));
        assert_eq!(var(leaf2, "ansible_network_os"), Some("cisco.nxos.nxos"));
    }

    #[test]
    fn host_in_two_groups_merges() {
        let hosts = inv(r#"
all:
  children:
    zeta:
      vars: {color: zeta, only_zeta: z}
      hosts:
        sw1: {ansible_host: 10.0.0.1}
    alpha:
      vars: {color: alpha, only_alpha: a}
      hosts:
        sw1: {ansible_port: 2222}
        sw2:
"#);
        assert_eq!(
            hosts.iter().map(|h| h.name.as_str()).collect::<Vec<_>>(),
            vec!["sw1", "sw2"]
        );
        let sw1 = host(&hosts, "sw1");
        assert_eq!(sw1.groups, vec!["alpha", "zeta"]);
        // Equal depth: the group name sorting last wins.
        assert_eq!(var(sw1, "color"), Some("zeta"));
        assert_eq!(var(sw1, "only_alpha"), Some("a"));
        assert_eq!(var(sw1, "only_zeta"), Some("z"));
        assert_eq!(var(sw1, "ansible_host"), Some("10.0.0.1"));
        assert_eq!(var(sw1, "ansible_port"), Some("2222"));
        assert_eq!(host(&hosts, "sw2").groups, vec!["alpha"]);
    }

    #[test]
    fn a_yaml_node_stays_small() {
        // A mapping entry is two nodes: their size is most of a large inventory's tree.
        assert!(std::mem::size_of::<Node>() <= 48);
    }

    #[test]
    fn a_host_listed_in_several_groups_is_one_host_in_first_listed_order() {
        let hosts = inv(r#"
g1:
  hosts:
    sw[1:3]:
      v: g1
g2:
  hosts:
    sw4:
    sw2: {v: g2, w: g2}
g3:
  hosts:
    sw3:
    sw2: {v: g3}
    sw[1:2]:
"#);
        assert_eq!(
            hosts.iter().map(|h| h.name.as_str()).collect::<Vec<_>>(),
            vec!["sw1", "sw2", "sw3", "sw4"]
        );
        let sw2 = host(&hosts, "sw2");
        assert_eq!(sw2.groups, vec!["g1", "g2", "g3"]);
        // Host vars: the last listing wins, key by key.
        assert_eq!(var(sw2, "v"), Some("g3"));
        assert_eq!(var(sw2, "w"), Some("g2"));
        assert_eq!(host(&hosts, "sw1").groups, vec!["g1", "g3"]);
        assert_eq!(var(host(&hosts, "sw1"), "v"), Some("g1"));
    }

    #[test]
    fn null_hosts_groups_and_top_level_groups() {
        let hosts = inv(r#"
all:
  hosts:
    mgmt1:
  vars:
    ansible_connection: network_cli
spines:
  hosts:
    spine1:
    spine2: ~
  children:
    empty_group:
borders: null
ungrouped:
  hosts:
    lonely:
"#);
        let names: Vec<&str> = hosts.iter().map(|h| h.name.as_str()).collect();
        assert_eq!(names, vec!["mgmt1", "spine1", "spine2", "lonely"]);
        assert!(host(&hosts, "mgmt1").groups.is_empty());
        assert!(host(&hosts, "lonely").groups.is_empty());
        assert_eq!(host(&hosts, "spine2").groups, vec!["spines"]);
        assert_eq!(
            var(host(&hosts, "spine2"), "ansible_connection"),
            Some("network_cli")
        );
    }

    #[test]
    fn host_ranges_expand() {
        let hosts = inv(r#"
all:
  children:
    leafs:
      hosts:
        leaf[01:04]:
        rack[a:c]-tor[1:2]:
        odd[1:5:2].lab:2222:
"#);
        let names: Vec<&str> = hosts.iter().map(|h| h.name.as_str()).collect();
        assert_eq!(
            names,
            vec![
                "leaf01",
                "leaf02",
                "leaf03",
                "leaf04",
                "racka-tor1",
                "racka-tor2",
                "rackb-tor1",
                "rackb-tor2",
                "rackc-tor1",
                "rackc-tor2",
                "odd1.lab",
                "odd3.lab",
                "odd5.lab",
            ]
        );
        assert_eq!(var(host(&hosts, "odd3.lab"), "ansible_port"), Some("2222"));
        assert_eq!(expand_hosts("fe80::1"), Ok(vec!["fe80::1".to_string()]));
        assert!(err("all:\n  hosts:\n    leaf[5:1]:\n").starts_with("inv.yml:3:"));
        assert!(err("all:\n  hosts:\n    leaf[01:4]:\n").starts_with("inv.yml:3:"));
    }

    #[test]
    fn malformed_inventories_are_rejected() {
        let e = err("- leaf1\n- leaf2\n");
        assert!(
            e.starts_with("inv.yml:1: expected a mapping of groups"),
            "{e}"
        );
        let e = err("just text\n");
        assert!(e.contains("expected a mapping of groups"), "{e}");
        assert!(err("").contains("empty inventory"));
        let e = err("all:\n  children:\n    leafs:\n      hosts:\n        - leaf1\n");
        assert!(
            e.starts_with("inv.yml:5: 'hosts' of group 'leafs' is a list"),
            "{e}"
        );
        let e = err("all:\n  hostz:\n    leaf1:\n");
        assert!(e.starts_with("inv.yml:2: unexpected key 'hostz'"), "{e}");
        let e = err("all:\n  hosts:\n    a:\n    a:\n");
        assert!(e.starts_with("inv.yml:4: duplicate key 'a'"), "{e}");
        // The earliest repeat in the order written, with its key's first line.
        let e = err("all:\n  hosts:\n    b:\n    a:\n    c:\n    a:\n    b:\n");
        assert_eq!(e, "inv.yml:6: duplicate key 'a' (first at line 4)", "{e}");
        let e = err("all:\n  hosts: [unclosed\n");
        assert!(
            e.starts_with("inv.yml:") && e.contains("invalid YAML"),
            "{e}"
        );
        let e = err("a:\n  children:\n    b:\n      children:\n        a:\n");
        assert!(e.contains("own ancestor"), "{e}");
    }

    #[test]
    fn non_scalar_vars_skipped_and_anchors_merge() {
        let hosts = inv(r#"
all:
  vars:
    ntp: [1.1.1.1, 2.2.2.2]
    nested: {a: 1}
    port: 0x16
    quoted: "007"
    secret: !vault |
      $ANSIBLE_VAULT;1.1;AES256
      6162
  hosts:
    h1: &common
      ansible_user: ops
    h2:
      <<: *common
      extra: yes
"#);
        let h1 = host(&hosts, "h1");
        assert!(!h1.vars.contains_key("ntp"));
        assert!(!h1.vars.contains_key("nested"));
        assert!(!h1.vars.contains_key("secret"));
        assert_eq!(var(h1, "port"), Some("22"));
        assert_eq!(var(h1, "quoted"), Some("007"));
        let h2 = host(&hosts, "h2");
        assert_eq!(var(h2, "ansible_user"), Some("ops"));
        assert_eq!(var(h2, "extra"), Some("yes"));
    }

    #[test]
    fn deeper_group_beats_name_order() {
        // `aaa` is deeper (all > zzz > aaa), so it wins although `zzz` sorts later.
        let hosts = inv(r#"
zzz:
  vars: {x: from_zzz}
  children:
    aaa:
      vars: {x: from_aaa}
      hosts: {h:}
"#);
        let h = host(&hosts, "h");
        assert_eq!(h.groups, vec!["zzz", "aaa"]);
        assert_eq!(var(h, "x"), Some("from_aaa"));
    }

    #[test]
    fn platform_mapping() {
        assert_eq!(platform_of("cisco.nxos.nxos"), Some("nxos"));
        assert_eq!(platform_of("nxos"), Some("nxos"));
        assert_eq!(platform_of("arista.eos.eos"), Some("eos"));
        assert_eq!(platform_of("EOS"), Some("eos"));
        assert_eq!(platform_of("nvidia.cumulus.cumulus"), Some("cumulus"));
        assert_eq!(platform_of("nvidia.cumulus.nvue"), Some("cumulus"));
        assert_eq!(platform_of("nvue"), Some("cumulus"));
        assert_eq!(platform_of("dellemc.enterprise_sonic.sonic"), Some("sonic"));
        assert_eq!(platform_of("junipernetworks.junos.junos"), Some("junos"));
        assert_eq!(platform_of("mellanox.onyx.onyx"), Some("onyx"));
        assert_eq!(platform_of("dellemc.os10.os10"), Some("os10"));
        assert_eq!(platform_of("linux"), Some("linux"));
        assert_eq!(platform_of("cisco.ios.ios"), None);
        assert_eq!(platform_of("nvidia.cumulus."), None);
        assert_eq!(platform_of(""), None);
    }
}
