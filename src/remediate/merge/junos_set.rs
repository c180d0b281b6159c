//! `set`-form merge for Junos curly-brace configs (`show configuration`).
//!
//! The config is read into a tree: `name value;` leaves, `name {` ... `}` blocks, an
//! `inactive: ` (or `protect: `) prefix on either, `"quoted strings"`, `[ a b ]` lists, and
//! comment lines (`#`, `## ...`, `/* ... */`, also over several lines) and blank lines, which are
//! kept where they are. The snippet holds Junos configuration-mode commands, applied in order as
//! `load set` would:
//!
//! * `set PATH`: the words descend the blocks whose header words they start with (the longest
//!   header wins); where no block matches, a new block is created only when its whole path from
//!   the top matches one of `[merge] blocks` (Junos knows from its schema which statements are
//!   containers; this merge is told), else the remaining words are one leaf statement. A leaf
//!   already there is left alone; a leaf whose `[merge] replace` key (capture group 1) equals
//!   a sibling's replaces it (single-valued statements such as `mtu`); a leaf ending in a
//!   `[merge] lists` keyword and its value(s) adds the values to the sibling list with the same
//!   words (`code-points [ 011100 011010 ]`); anything else is added at the end of its block.
//! * `delete PATH`: removes the block or leaf at PATH (a leaf also by its leading words, as
//!   `delete interfaces et-0/0/0 mtu`), or one value of a list; a missing statement is a no-op
//!   (Junos warns "statement not found" and goes on).
//! * `activate PATH` / `deactivate PATH`: remove / add the `inactive: ` prefix (an error when
//!   there is no such statement).
//!
//! Lines not touched keep their bytes; a new or changed line is indented four spaces below its
//! parent, as Junos prints. `#` lines and blank lines of the snippet are skipped.

use super::super::spec::MergeSpec;

#[derive(Debug, Clone)]
struct Node {
    /// The original line (with its line end) while the statement is unchanged.
    raw: Option<String>,
    /// The original closing line of a block.
    close: Option<String>,
    indent: String,
    inactive: bool,
    protect: bool,
    words: Vec<String>,
    /// What followed `;` on the line (` ## SECRET-DATA`).
    trailer: String,
    /// Some for a block.
    kids: Option<Vec<Item>>,
}

#[derive(Debug, Clone)]
enum Item {
    Node(Node),
    /// A comment, blank or unrecognized line, kept as it is.
    Other(String),
}

/// Split a statement into words: blanks separate, `"..."` is one word (quotes kept), `[` and
/// `]` are words of their own.
fn words(s: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                cur.push(c);
                if quoted {
                    out.push(std::mem::take(&mut cur));
                }
                quoted = !quoted;
            }
            '\\' if quoted => {
                cur.push(c);
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            _ if quoted => cur.push(c),
            ' ' | '\t' => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            '[' | ']' => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                out.push(c.to_string());
            }
            _ => cur.push(c),
        }
    }
    if quoted {
        return Err(format!("unterminated quoted string in `{s}`"));
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    Ok(out)
}

/// A word as Junos compares it: without its quotes.
fn bare(w: &str) -> &str {
    w.strip_prefix('"')
        .and_then(|w| w.strip_suffix('"'))
        .unwrap_or(w)
}

fn same(a: &[String], b: &[String]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| bare(x) == bare(y))
}

fn starts(long: &[String], short: &[String]) -> bool {
    long.len() >= short.len() && same(&long[..short.len()], short)
}

/// The body of a statement line and what follows its `;` (outside quotes).
fn split_leaf(t: &str) -> Option<(&str, &str)> {
    let mut quoted = false;
    for (k, c) in t.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ';' if !quoted => return Some((&t[..k], &t[k + 1..])),
            _ => {}
        }
    }
    None
}

fn parse(config: &str) -> Result<Vec<Item>, String> {
    // Open blocks: (node, items so far).
    let mut stack: Vec<(Node, Vec<Item>)> = Vec::new();
    let mut top: Vec<Item> = Vec::new();
    let mut in_comment = false;
    let push = |stack: &mut Vec<(Node, Vec<Item>)>, top: &mut Vec<Item>, it: Item| match stack
        .last_mut()
    {
        Some((_, v)) => v.push(it),
        None => top.push(it),
    };
    for (n, raw) in config.split_inclusive('\n').enumerate() {
        let t = raw.trim();
        if in_comment {
            in_comment = !t.contains("*/");
            push(&mut stack, &mut top, Item::Other(raw.to_string()));
            continue;
        }
        if t.is_empty() || t.starts_with('#') {
            push(&mut stack, &mut top, Item::Other(raw.to_string()));
            continue;
        }
        if t.starts_with("/*") {
            in_comment = !t.contains("*/");
            push(&mut stack, &mut top, Item::Other(raw.to_string()));
            continue;
        }
        if t.starts_with("set ") || t.starts_with("deactivate ") {
            return Err(format!(
                "line {}: a `set`-form config; this merge reads the curly-brace form",
                n + 1
            ));
        }
        if t.starts_with('}') {
            let Some((mut node, kids)) = stack.pop() else {
                return Err(format!("line {}: `}}` closes no block", n + 1));
            };
            node.kids = Some(kids);
            node.close = Some(raw.to_string());
            push(&mut stack, &mut top, Item::Node(node));
            continue;
        }
        let indent = raw[..raw.len() - raw.trim_start().len()].to_string();
        let (inactive, protect, body) = match t.strip_prefix("inactive: ") {
            Some(b) => (true, false, b),
            None => match t.strip_prefix("protect: ") {
                Some(b) => (false, true, b),
                None => (false, false, t),
            },
        };
        if let Some(h) = body.strip_suffix('{') {
            stack.push((
                Node {
                    raw: Some(raw.to_string()),
                    close: None,
                    indent,
                    inactive,
                    protect,
                    words: words(h.trim_end())?,
                    trailer: String::new(),
                    kids: None,
                },
                Vec::new(),
            ));
        } else if let Some((b, trailer)) = split_leaf(body) {
            push(
                &mut stack,
                &mut top,
                Item::Node(Node {
                    raw: Some(raw.to_string()),
                    close: None,
                    indent,
                    inactive,
                    protect,
                    words: words(b.trim_end())?,
                    trailer: trailer.trim_end().to_string(),
                    kids: None,
                }),
            );
        } else {
            push(&mut stack, &mut top, Item::Other(raw.to_string()));
        }
    }
    // A file cut short of its closing braces keeps its blocks open (no closing line is made up).
    while let Some((mut node, kids)) = stack.pop() {
        node.kids = Some(kids);
        push(&mut stack, &mut top, Item::Node(node));
    }
    Ok(top)
}

fn render(items: &[Item], out: &mut String) {
    for it in items {
        match it {
            Item::Other(s) => out.push_str(s),
            Item::Node(n) => {
                match &n.raw {
                    Some(r) => out.push_str(r),
                    None => {
                        out.push_str(&n.indent);
                        if n.inactive {
                            out.push_str("inactive: ");
                        } else if n.protect {
                            out.push_str("protect: ");
                        }
                        out.push_str(&n.words.join(" "));
                        out.push_str(if n.kids.is_some() { " {" } else { ";" });
                        out.push_str(&n.trailer);
                        out.push('\n');
                    }
                }
                if let Some(k) = &n.kids {
                    render(k, out);
                    match &n.close {
                        Some(c) => out.push_str(c),
                        None if n.raw.is_none() => {
                            out.push_str(&n.indent);
                            out.push_str("}\n");
                        }
                        None => {}
                    }
                }
            }
        }
    }
}

fn node_at(items: &mut [Item], k: usize) -> Option<&mut Node> {
    match items.get_mut(k) {
        Some(Item::Node(n)) => Some(n),
        _ => None,
    }
}

/// The child block of `items` whose header words begin `rest` (the longest).
fn block_of(items: &[Item], rest: &[String]) -> Option<usize> {
    items
        .iter()
        .enumerate()
        .filter_map(|(k, it)| match it {
            Item::Node(n) if n.kids.is_some() && starts(rest, &n.words) => Some((k, n.words.len())),
            _ => None,
        })
        .max_by_key(|(_, l)| *l)
        .map(|(k, _)| k)
}

fn leaves(items: &[Item]) -> impl Iterator<Item = (usize, &Node)> {
    items.iter().enumerate().filter_map(|(k, it)| match it {
        Item::Node(n) if n.kids.is_none() => Some((k, n)),
        _ => None,
    })
}

/// Split leaf words into (words up to and including the list keyword, the values).
fn list_parts<'a>(w: &'a [String], lists: &[String]) -> Option<(&'a [String], Vec<String>)> {
    let j = w.iter().rposition(|x| lists.iter().any(|l| l == x))?;
    let vals: Vec<String> = w[j + 1..]
        .iter()
        .filter(|x| *x != "[" && *x != "]")
        .cloned()
        .collect();
    if vals.is_empty() {
        return None;
    }
    Some((&w[..=j], vals))
}

fn list_words(head: &[String], vals: &[String]) -> Vec<String> {
    let mut w = head.to_vec();
    if vals.len() == 1 {
        w.extend(vals.iter().cloned());
    } else {
        w.push("[".into());
        w.extend(vals.iter().cloned());
        w.push("]".into());
    }
    w
}

fn child_indent(parent_indent: Option<&str>) -> String {
    match parent_indent {
        Some(p) => format!("{p}    "),
        None => String::new(),
    }
}

fn new_node(words: &[String], indent: String, block: bool) -> Node {
    Node {
        raw: None,
        close: None,
        indent,
        inactive: false,
        protect: false,
        words: words.to_vec(),
        trailer: String::new(),
        kids: if block { Some(Vec::new()) } else { None },
    }
}

/// Where a new statement goes in a block: after its last statement (comments and blank lines
/// that end the block stay at the end).
fn insert_at(items: &[Item]) -> usize {
    items
        .iter()
        .rposition(|it| matches!(it, Item::Node(_)))
        .map_or(items.len(), |k| k + 1)
}

fn set(
    items: &mut Vec<Item>,
    indent: Option<&str>,
    path: &[String],
    rest: &[String],
    spec: &MergeSpec,
) -> Result<(), String> {
    if rest.is_empty() {
        return Ok(());
    }
    if let Some(k) = block_of(items, rest) {
        let Some(n) = node_at(items, k) else {
            return Err("internal: not a block".into());
        };
        let l = n.words.len();
        let mut p = path.to_vec();
        p.extend(rest[..l].iter().cloned());
        let ind = n.indent.clone();
        let Some(kids) = n.kids.as_mut() else {
            return Err("internal: not a block".into());
        };
        return set(kids, Some(&ind), &p, &rest[l..], spec);
    }
    if leaves(items).any(|(_, n)| same(&n.words, rest)) {
        return Ok(());
    }
    // A new block where the schema (`[merge] blocks`) says the words open one.
    for l in 1..rest.len() {
        let mut p: Vec<&str> = path.iter().map(|w| bare(w)).collect();
        p.extend(rest[..l].iter().map(|w| bare(w)));
        let full = p.join(" ");
        if spec.blocks.iter().any(|re| re.is_match(&full)) {
            let at = insert_at(items);
            let ind = child_indent(indent);
            items.insert(at, Item::Node(new_node(&rest[..l], ind, true)));
            return set(items, indent, path, rest, spec);
        }
    }
    // A list: add the values to the sibling with the same words up to the keyword.
    if let Some((head, vals)) = list_parts(rest, &spec.lists) {
        let hit = leaves(items)
            .find(|(_, n)| list_parts(&n.words, &spec.lists).is_some_and(|(h, _)| same(h, head)))
            .map(|(k, _)| k);
        if let Some(k) = hit
            && let Some(n) = node_at(items, k)
            && let Some((h, mut old)) = list_parts(&n.words, &spec.lists)
        {
            for v in vals {
                if !old.iter().any(|o| bare(o) == bare(&v)) {
                    old.push(v);
                }
            }
            n.words = list_words(h, &old);
            n.raw = None;
            return Ok(());
        }
    }
    // A single-valued statement replaces its sibling with the same key.
    let text: Vec<&str> = rest.iter().map(|w| bare(w)).collect();
    let key = |t: &str| {
        spec.replace.iter().find_map(|re| {
            re.captures(t)
                .and_then(|c| c.get(1))
                .map(|m| m.as_str().to_string())
        })
    };
    if let Some(kk) = key(&text.join(" ")) {
        let hit = leaves(items)
            .find(|(_, n)| {
                let t: Vec<&str> = n.words.iter().map(|w| bare(w)).collect();
                key(&t.join(" ")).as_deref() == Some(kk.as_str())
            })
            .map(|(k, _)| k);
        if let Some(k) = hit
            && let Some(n) = node_at(items, k)
        {
            n.words = rest.to_vec();
            n.raw = None;
            return Ok(());
        }
    }
    let at = insert_at(items);
    items.insert(at, Item::Node(new_node(rest, child_indent(indent), false)));
    Ok(())
}

fn delete(items: &mut Vec<Item>, rest: &[String], lists: &[String]) {
    if rest.is_empty() {
        return;
    }
    if let Some(k) = block_of(items, rest) {
        let exact = node_at(items, k).is_some_and(|n| n.words.len() == rest.len());
        if exact {
            items.remove(k);
            return;
        }
        if let Some(n) = node_at(items, k) {
            let l = n.words.len();
            if let Some(kids) = n.kids.as_mut() {
                delete(kids, &rest[l..], lists);
            }
        }
        return;
    }
    let exact = leaves(items)
        .find(|(_, n)| same(&n.words, rest))
        .map(|(k, _)| k);
    if let Some(k) = exact {
        items.remove(k);
        return;
    }
    // One value of a list.
    if let Some((head, vals)) = list_parts(rest, lists) {
        let hit = leaves(items)
            .find(|(_, n)| list_parts(&n.words, lists).is_some_and(|(h, _)| same(h, head)))
            .map(|(k, _)| k);
        if let Some(k) = hit
            && let Some(n) = node_at(items, k)
            && let Some((h, old)) = list_parts(&n.words, lists)
        {
            let left: Vec<String> = old
                .into_iter()
                .filter(|o| !vals.iter().any(|v| bare(v) == bare(o)))
                .collect();
            if left.is_empty() {
                items.remove(k);
            } else {
                n.words = list_words(h, &left);
                n.raw = None;
            }
            return;
        }
    }
    // A leaf named by its leading words (`delete ... mtu`).
    let by_key = leaves(items)
        .find(|(_, n)| starts(&n.words, rest))
        .map(|(k, _)| k);
    if let Some(k) = by_key {
        items.remove(k);
    }
}

fn activate(items: &mut [Item], rest: &[String], on: bool) -> Result<(), String> {
    if let Some(k) = block_of(items, rest)
        && let Some(n) = node_at(items, k)
    {
        if n.words.len() == rest.len() {
            if n.inactive == on {
                n.inactive = !on;
                n.raw = None;
            }
            return Ok(());
        }
        let l = n.words.len();
        if let Some(kids) = n.kids.as_mut() {
            return activate(kids, &rest[l..], on);
        }
    }
    let hit = leaves(items)
        .find(|(_, n)| same(&n.words, rest))
        .or_else(|| leaves(items).find(|(_, n)| starts(&n.words, rest)))
        .map(|(k, _)| k);
    match hit.and_then(|k| node_at(items, k)) {
        Some(n) => {
            if n.inactive == on {
                n.inactive = !on;
                n.raw = None;
            }
            Ok(())
        }
        None => Err(format!("statement not found: {}", rest.join(" "))),
    }
}

/// Merge a snippet of `set` / `delete` / `activate` / `deactivate` lines into a brace config.
pub fn merge(config: &str, snippet: &str, spec: &MergeSpec) -> Result<String, String> {
    let mut items = parse(config)?;
    for line in snippet.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let (cmd, rest) = t.split_once(' ').unwrap_or((t, ""));
        let w = words(rest)?;
        if w.is_empty() {
            return Err(format!("`{t}`: no path"));
        }
        match cmd {
            "set" => set(&mut items, None, &[], &w, spec)?,
            "delete" => delete(&mut items, &w, &spec.lists),
            "activate" => activate(&mut items, &w, true)?,
            "deactivate" => activate(&mut items, &w, false)?,
            _ => return Err(format!("`{t}`: not a set, delete, activate or deactivate")),
        }
    }
    let mut out = String::new();
    render(&items, &mut out);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::Regex;

    fn spec() -> MergeSpec {
        let re = |v: &[&str]| -> Vec<Regex> {
            v.iter()
                .map(|r| Regex::new(&format!("^(?:{r})$")).unwrap())
                .collect()
        };
        MergeSpec {
            kind: "junos_set".into(),
            flat: false,
            replace: ["^(mtu) ", "^(priority) ", "^(description) "]
                .iter()
                .map(|r| Regex::new(r).unwrap())
                .collect(),
            blocks: re(&[
                "interfaces",
                "interfaces \\S+",
                "interfaces \\S+ unit \\S+",
                "interfaces \\S+ unit \\S+ family \\S+",
                "protocols",
                "protocols dcbx",
                "protocols dcbx interface \\S+",
                "protocols dcbx interface \\S+ priority-flow-control",
                "class-of-service classifiers",
                "class-of-service classifiers dscp \\S+",
                "class-of-service classifiers dscp \\S+ forwarding-class \\S+",
            ]),
            lists: vec!["code-points".into(), "fill-level".into()],
        }
    }

    const CONF: &str = "## Last commit: 2025-03-14 09:12:44 UTC by netops
version 23.4R2-S3.9-EVO;
system {
    host-name spine2;
    root-authentication {
        encrypted-password \"<redacted>\"; ## SECRET-DATA
    }
}
interfaces {
    /* uplink to leaf1 */
    et-0/0/0 {
        description \"leaf1 Ethernet248\";
        mtu 1514;
        unit 0 {
            family inet {
                address 10.1.2.0/31;
            }
        }
    }
}
class-of-service {
    classifiers {
        dscp roce-dscp {
            forwarding-class roce {
                loss-priority low code-points 011100;
            }
        }
    }
    schedulers {
        roce-sched {
            priority low;
            inactive: explicit-congestion-notification;
        }
    }
    inactive: interfaces {
        et-* {
            congestion-notification-profile roce-cnp;
        }
    }
}
protocols {
    lldp {
        interface all;
    }
}
";

    fn m(snippet: &str) -> String {
        merge(CONF, snippet, &spec()).unwrap()
    }

    #[test]
    fn single_valued_leaf_replaces_and_quoted_strings_stay_one_word() {
        let out = m(
            "set interfaces et-0/0/0 mtu 9216\nset interfaces et-0/0/0 description \"to leaf 1 uplink\"\n",
        );
        assert_eq!(
            out,
            CONF.replace("mtu 1514;", "mtu 9216;").replace(
                "description \"leaf1 Ethernet248\";",
                "description \"to leaf 1 uplink\";"
            )
        );
        // Already there: nothing changes (quotes do not count).
        assert_eq!(
            m("set interfaces et-0/0/0 description \"leaf1 Ethernet248\"\n"),
            CONF
        );
        assert_eq!(m("set system host-name spine2\n"), CONF);
    }

    #[test]
    fn new_leaf_goes_last_in_its_block_and_new_blocks_follow_the_schema() {
        let out = m("set interfaces et-0/0/0 unit 0 family inet mtu 9184\n");
        assert_eq!(
            out,
            CONF.replace(
                "                address 10.1.2.0/31;\n",
                "                address 10.1.2.0/31;\n                mtu 9184;\n"
            )
        );
        let out = m("set protocols dcbx interface all priority-flow-control no-auto-negotiation\n");
        assert_eq!(
            out,
            CONF.replace(
                "    lldp {\n        interface all;\n    }\n",
                "    lldp {\n        interface all;\n    }\n    dcbx {\n        interface all {\n            priority-flow-control {\n                no-auto-negotiation;\n            }\n        }\n    }\n"
            )
        );
        let out = m("set interfaces et-0/0/9 mtu 9216\n");
        assert!(
            out.contains("    }\n    et-0/0/9 {\n        mtu 9216;\n    }\n}\nclass-of-service {"),
            "{out}"
        );
    }

    #[test]
    fn lists_add_and_delete_values() {
        let out = m(
            "set class-of-service classifiers dscp roce-dscp forwarding-class roce loss-priority low code-points 011010\n",
        );
        assert_eq!(
            out,
            CONF.replace("code-points 011100;", "code-points [ 011100 011010 ];")
        );
        let out = merge(
            &out,
            "delete class-of-service classifiers dscp roce-dscp forwarding-class roce loss-priority low code-points 011100\n",
            &spec(),
        )
        .unwrap();
        assert_eq!(
            out,
            CONF.replace("code-points 011100;", "code-points 011010;")
        );
        // A new class in the classifier: a new block.
        let out = m(
            "set class-of-service classifiers dscp roce-dscp forwarding-class cnp loss-priority low code-points 110000\n",
        );
        assert!(
            out.contains("                loss-priority low code-points 011100;\n            }\n            forwarding-class cnp {\n                loss-priority low code-points 110000;\n            }\n        }\n"),
            "{out}"
        );
    }

    #[test]
    fn activate_inactive_leaf_and_block() {
        let out = m(
            "activate class-of-service schedulers roce-sched explicit-congestion-notification\nactivate class-of-service interfaces\n",
        );
        assert_eq!(
            out,
            CONF.replace(
                "inactive: explicit-congestion-notification;",
                "explicit-congestion-notification;"
            )
            .replace("inactive: interfaces {", "interfaces {")
        );
        let back = merge(&out, "deactivate class-of-service interfaces\n", &spec()).unwrap();
        assert_eq!(
            back,
            CONF.replace(
                "inactive: explicit-congestion-notification;",
                "explicit-congestion-notification;"
            )
        );
        assert!(merge(CONF, "activate class-of-service nothing-here\n", &spec()).is_err());
    }

    #[test]
    fn delete_block_and_leaf_by_its_keyword() {
        let out = m("delete interfaces et-0/0/0 unit 0\ndelete interfaces et-0/0/0 mtu\n");
        assert_eq!(
            out,
            CONF.replace("        mtu 1514;\n", "").replace(
                "        unit 0 {\n            family inet {\n                address 10.1.2.0/31;\n            }\n        }\n",
                ""
            )
        );
        // A statement that is not there: Junos warns and goes on.
        assert_eq!(m("delete protocols dcbx\n"), CONF);
        let out = m("delete class-of-service schedulers roce-sched\n");
        assert!(out.contains("    schedulers {\n    }\n"), "{out}");
    }

    #[test]
    fn comments_and_secrets_survive_and_set_form_is_refused() {
        let out = m("set class-of-service schedulers roce-sched priority strict-high\n");
        assert!(out.contains("        encrypted-password \"<redacted>\"; ## SECRET-DATA\n"));
        assert!(
            out.contains("    /* uplink to leaf 1 */\n")
                || out.contains("    /* uplink to leaf1 */\n")
        );
        assert!(out.contains("            priority strict-high;\n"));
        assert!(
            merge(
                "set interfaces et-0/0/0 mtu 9216\n",
                "set system host-name x\n",
                &spec()
            )
            .is_err()
        );
        assert!(merge(CONF, "rollback 1\n", &spec()).is_err());
    }

    #[test]
    fn idempotent() {
        let s = "set interfaces et-0/0/0 mtu 9216\nset protocols dcbx interface all priority-flow-control no-auto-negotiation\nactivate class-of-service interfaces\n";
        let once = m(s);
        assert_eq!(merge(&once, s, &spec()).unwrap(), once);
    }
}
