//! Stanza-aware merge for indented IOS-like configs (NX-OS, EOS, OS10, Onyx).
//!
//! A config is a tree by indentation: a line opens a stanza, the more-indented lines after it
//! are its children. A snippet is applied as the device would: a snippet line with children
//! selects (or creates, at the end of its parent) the stanza with the same text; a leaf line
//! `no X` removes the children `X` or `X ...`; any other leaf line is added unless present,
//! replacing a sibling with the same key (`[merge] replace`: capture group 1 of the first regex
//! that matches, e.g. `mtu` for `mtu 9216` and `mtu 1500`). Lines not touched stay
//! byte-identical. Blank lines and comments (`!`, `#`) are not part of the tree.
//!
//! A flat config (`[merge] flat = true`, Onyx: every command is a whole line, indented for
//! style only) has no stanzas: every line is top-level, and a new line goes after the last line
//! of its kind (see [`kind`]), so that it follows the range line it overrides (Onyx applies
//! lines in order), with that line's indentation.

use regex::Regex;

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

fn structural(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && !t.starts_with('!') && !t.starts_with('#')
}

/// The stanza tree of a list of lines (indices into the list).
///
/// Children are kept in one list, each line's as a contiguous run (`kids[start[p]..start[p +
/// 1]]`, in line order), as 32-bit line numbers: 8 bytes a line, where a list per line cost 24
/// plus each list's own allocation, and `usize` positions 16 (the fix step of a 1 MiB config
/// holds this tree; issue 19). Lines past the 2³²−1st are left out (a config of so many
/// lines is past the 4 GiB that questions are answered on, [`super::super::config_index`]).
#[derive(Debug)]
pub struct Tree {
    /// Per line p: where its direct children (structural lines below it in its block) start
    /// in `kids`; one more entry than lines.
    start: Vec<u32>,
    kids: Vec<u32>,
    top: Vec<u32>,
}

impl Tree {
    pub fn new<S: AsRef<str>>(lines: &[S], flat: bool) -> Tree {
        Tree::of_lines(lines.len(), lines.iter().map(|l| l.as_ref()), flat)
    }

    /// The tree of the `n` lines `lines` gives, read once (no list of the lines is made: a
    /// config's index reads them from its text).
    pub fn of_lines<'a>(n: usize, lines: impl Iterator<Item = &'a str>, flat: bool) -> Tree {
        let n = n.min(u32::MAX as usize - 1);
        let none = n as u32;
        // Per line: its parent (n: none, a top-level or non-structural line).
        let mut parent = vec![none; n];
        let mut count = vec![0u32; n + 1];
        let mut top = Vec::new();
        // Open stanzas: (line index, indent).
        let mut stack: Vec<(u32, usize)> = Vec::new();
        for (k, l) in lines.take(n).enumerate() {
            if !structural(l) {
                continue;
            }
            let ind = if flat { 0 } else { indent(l) };
            while stack.last().is_some_and(|(_, i)| *i >= ind) {
                stack.pop();
            }
            // k < n < u32::MAX
            let k = k as u32;
            match stack.last() {
                Some((p, _)) => {
                    parent[k as usize] = *p;
                    count[*p as usize] += 1;
                }
                None => top.push(k),
            }
            stack.push((k, ind));
        }
        top.shrink_to_fit();
        // Prefix sums: start[p] is where p's children begin (at most n children in all).
        let mut start = count;
        let mut at = 0u32;
        for c in start.iter_mut() {
            let here = *c;
            *c = at;
            at += here;
        }
        let mut kids = vec![0u32; at as usize];
        // Each child is placed at its parent's start, which then moves on; the starts are
        // moved back after (each by its own count).
        for (k, &p) in parent.iter().enumerate() {
            if p < none {
                let s = &mut start[p as usize];
                kids[*s as usize] = k as u32;
                *s += 1;
            }
        }
        drop(parent);
        // start[p] is now where p's children end, which is where p + 1's begin.
        for p in (1..start.len()).rev() {
            start[p] = start[p - 1];
        }
        if let Some(s) = start.first_mut() {
            *s = 0;
        }
        Tree { start, kids, top }
    }

    /// The structural lines directly below `parent` (None: the top level).
    pub fn children_of(&self, parent: Option<usize>) -> &[u32] {
        match parent {
            None => &self.top,
            Some(p) => match (
                self.start.get(p),
                p.checked_add(1).and_then(|q| self.start.get(q)),
            ) {
                (Some(&a), Some(&b)) => self.kids.get(a as usize..b as usize).unwrap_or(&[]),
                _ => &[],
            },
        }
    }

    /// How many structural lines the tree holds (every one is top-level or a child).
    pub fn structural_lines(&self) -> usize {
        self.top.len() + self.kids.len()
    }

    pub fn children(&self, parent: Option<usize>) -> Vec<usize> {
        self.children_of(parent)
            .iter()
            .map(|&k| k as usize)
            .collect()
    }

    /// Last line of the block of `k` (itself when it has no children).
    fn last(&self, k: usize) -> usize {
        match self.children_of(Some(k)).last() {
            Some(&c) => self.last(c as usize),
            None => k,
        }
    }
}

/// A snippet line and the snippet lines below it.
struct Node {
    text: String,
    kids: Vec<Node>,
}

fn snippet_tree(snippet: &str, flat: bool) -> Vec<Node> {
    fn build(lines: &[&str], pos: &mut usize, min: Option<usize>) -> Vec<Node> {
        let mut out = Vec::new();
        while *pos < lines.len() {
            let l = lines[*pos];
            let ind = indent(l);
            if min.is_some_and(|m| ind <= m) {
                break;
            }
            *pos += 1;
            let kids = build(lines, pos, Some(ind));
            out.push(Node {
                text: l.trim_end().to_string(),
                kids,
            });
        }
        out
    }
    let lines: Vec<&str> = snippet
        .lines()
        .filter(|l| structural(l))
        .map(|l| if flat { l.trim_start() } else { l })
        .collect();
    let mut pos = 0;
    build(&lines, &mut pos, None)
}

fn key(keys: &[Regex], line: &str) -> Option<String> {
    let t = line.trim();
    keys.iter().find_map(|re| {
        re.captures(t)
            .and_then(|c| c.get(1))
            .map(|m| m.as_str().to_string())
    })
}

/// Merge a snippet into a config (see the module doc).
pub fn merge(config: &str, snippet: &str, keys: &[Regex], flat: bool) -> Result<String, String> {
    let mut lines: Vec<String> = config.split_inclusive('\n').map(str::to_string).collect();
    if lines.last().is_some_and(|l| !l.ends_with('\n')) {
        // Appending after a last line without a newline would join two lines.
        if let Some(l) = lines.last_mut() {
            l.push('\n');
        }
    }
    for n in snippet_tree(snippet, flat) {
        apply(&mut lines, None, &n, keys, flat)?;
    }
    Ok(lines.concat())
}

fn apply(
    lines: &mut Vec<String>,
    parent: Option<usize>,
    n: &Node,
    keys: &[Regex],
    flat: bool,
) -> Result<(), String> {
    let tree = Tree::new(lines, flat);
    let kids = tree.children(parent);
    let want = n.text.trim();
    // Where a new child of `parent` goes: after the last line of its block (for the top level,
    // before a final `end`).
    let insert_at = || -> usize {
        match parent {
            Some(p) => tree.last(p) + 1,
            None => match kids.last() {
                Some(&l) if lines[l].trim() == "end" => l,
                Some(&l) => tree.last(l) + 1,
                None => lines.len(),
            },
        }
    };
    if !n.kids.is_empty() {
        let at = match kids.iter().find(|&&k| lines[k].trim() == want) {
            Some(&k) => k,
            None => {
                let at = insert_at();
                lines.insert(at, format!("{}\n", n.text));
                at
            }
        };
        for c in &n.kids {
            apply(lines, Some(at), c, keys, flat)?;
        }
        return Ok(());
    }
    if let Some(target) = want.strip_prefix("no ") {
        let target = target.trim();
        let mut gone: Vec<(usize, usize)> = kids
            .iter()
            .filter(|&&k| {
                let t = lines[k].trim();
                t == target || t.starts_with(&format!("{target} "))
            })
            .map(|&k| (k, tree.last(k)))
            .collect();
        gone.reverse();
        for (a, b) in gone {
            lines.drain(a..=b);
        }
        return Ok(());
    }
    if kids.iter().any(|&k| lines[k].trim() == want) {
        return Ok(());
    }
    let new_line = format!("{}\n", n.text);
    if let Some(kk) = key(keys, want) {
        let same: Vec<usize> = kids
            .iter()
            .copied()
            .filter(|&k| key(keys, &lines[k]).as_deref() == Some(kk.as_str()))
            .collect();
        if let Some((&first, rest)) = same.split_first() {
            if tree.last(first) != first {
                return Err(format!(
                    "`{want}` would replace the stanza `{}`",
                    lines[first].trim()
                ));
            }
            // Keep the old line's indentation: it is the config's own style.
            lines[first] = format!("{}{}\n", &lines[first][..indent(&lines[first])], want);
            for &k in rest.iter().rev() {
                let b = tree.last(k);
                lines.drain(k..=b);
            }
            return Ok(());
        }
    }
    if flat && let Some(after) = flat_slot(lines, &kids, want) {
        let ind = &lines[after][..indent(&lines[after])];
        let new_line = format!("{ind}{want}\n");
        lines.insert(after + 1, new_line);
        return Ok(());
    }
    let at = insert_at();
    lines.insert(at, new_line);
    Ok(())
}

/// Words of a flat line with every word holding a digit (a port, a range, a value) masked.
fn masked(line: &str) -> Vec<&str> {
    line.split_whitespace()
        .map(|w| {
            if w.chars().any(|c| c.is_ascii_digit()) {
                "#"
            } else {
                w
            }
        })
        .collect()
}

/// The kind of a flat line: its masked words up to the word after the first masked one
/// (`interface ethernet # mtu`, `interface ethernet # traffic-class`,
/// `dcb priority-flow-control priority #`), else all of them.
fn kind(line: &str) -> Vec<&str> {
    let m = masked(line);
    match m.iter().position(|w| *w == "#") {
        Some(p) => m[..(p + 2).min(m.len())].to_vec(),
        None => m,
    }
}

/// The line a new flat line goes after: the last of the lines sharing the longest prefix of
/// its kind (at least one word); `None` when no line shares a word.
fn flat_slot(lines: &[String], kids: &[usize], want: &str) -> Option<usize> {
    let k = kind(want);
    let mut best: Option<(usize, usize)> = None;
    for &l in kids {
        let m = masked(&lines[l]);
        let n = k.iter().zip(&m).take_while(|(a, b)| a == b).count();
        if n > 0 && best.is_none_or(|(bn, _)| n >= bn) {
            best = Some((n, l));
        }
    }
    best.map(|(_, l)| l)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tree as a list of children per line, built the way it was before the one-list form.
    fn reference(lines: &[&str], flat: bool) -> (Vec<Vec<usize>>, Vec<usize>) {
        let mut kids = vec![Vec::new(); lines.len()];
        let mut top = Vec::new();
        let mut stack: Vec<(usize, usize)> = Vec::new();
        for (k, l) in lines.iter().enumerate() {
            if !structural(l) {
                continue;
            }
            let ind = if flat { 0 } else { indent(l) };
            while stack.last().is_some_and(|(_, i)| *i >= ind) {
                stack.pop();
            }
            match stack.last() {
                Some((p, _)) => kids[*p].push(k),
                None => top.push(k),
            }
            stack.push((k, ind));
        }
        (kids, top)
    }

    /// Generated configs (indents going up and down by varying steps, blank and comment lines,
    /// repeated lines) give the same children per line as the reference, in both modes.
    #[test]
    fn tree_children_are_the_references() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for case in 0..60 {
            let n = 1 + next(200) as usize;
            let mut text = Vec::new();
            let mut ind = 0usize;
            for i in 0..n {
                ind = match next(6) {
                    0 => 0,
                    1 | 2 => ind + 1 + next(3) as usize,
                    3 => ind.saturating_sub(1 + next(4) as usize),
                    _ => ind,
                };
                let body = match next(10) {
                    0 => String::new(),
                    1 => "! note".into(),
                    2 => "# note".into(),
                    3 => "same".into(),
                    _ => format!("line {i}"),
                };
                text.push(format!("{}{body}", " ".repeat(ind)));
            }
            let lines: Vec<&str> = text.iter().map(String::as_str).collect();
            for flat in [false, true] {
                let t = Tree::new(&lines, flat);
                let (kids, top) = reference(&lines, flat);
                assert_eq!(t.children(None), top, "case {case} flat {flat}");
                for (k, want) in kids.iter().enumerate() {
                    assert_eq!(t.children(Some(k)), *want, "case {case} line {k}");
                }
                assert!(t.children_of(Some(lines.len())).is_empty());
            }
        }
    }

    fn keys() -> Vec<Regex> {
        [
            "^(?:no )?(mtu)(?: |$)",
            "^(?:no )?(priority-flow-control mode)(?: |$)",
            "^(qos map dscp [0-9]+ to traffic-class) ",
        ]
        .iter()
        .map(|r| Regex::new(r).unwrap())
        .collect()
    }

    const NXOS: &str = "!Command: show running-config\nhostname leaf1\n\npolicy-map type qos P\n  class ROCE\n    set qos-group 4\n  class CNP\n    set qos-group 6\nsystem qos\n  service-policy type queuing output Q\n\ninterface Ethernet1/1\n  mtu 1500\n  priority-flow-control mode off\n  no shutdown\n\ninterface Ethernet1/2\n  no shutdown\n";

    #[test]
    fn replaces_keyed_children_and_keeps_the_rest() {
        let out = merge(
            NXOS,
            "interface Ethernet1/1\n  mtu 9216\n  priority-flow-control mode on\n",
            &keys(),
            false,
        )
        .unwrap();
        assert_eq!(
            out,
            NXOS.replace(
                "  mtu 1500\n  priority-flow-control mode off",
                "  mtu 9216\n  priority-flow-control mode on"
            )
        );
    }

    #[test]
    fn adds_missing_children_at_the_end_of_the_block() {
        let out = merge(NXOS, "interface Ethernet1/2\n  mtu 9214\n", &keys(), false).unwrap();
        assert!(
            out.ends_with("interface Ethernet1/2\n  no shutdown\n  mtu 9214\n"),
            "{out}"
        );
        let out = merge(
            NXOS,
            "system qos\n  service-policy type qos input P\n",
            &keys(),
            false,
        )
        .unwrap();
        assert!(out.contains("system qos\n  service-policy type queuing output Q\n  service-policy type qos input P\n\n"), "{out}");
    }

    #[test]
    fn nested_stanzas_and_no() {
        let out = merge(
            NXOS,
            "policy-map type qos P\n  class ROCE\n    no set qos-group 4\n    set qos-group 3\n",
            &keys(),
            false,
        )
        .unwrap();
        assert_eq!(
            out,
            NXOS.replace("    set qos-group 4\n", "    set qos-group 3\n")
        );
        let out = merge(NXOS, "interface Ethernet1/1\n  no mtu\n", &keys(), false).unwrap();
        assert_eq!(out, NXOS.replace("  mtu 1500\n", ""));
    }

    #[test]
    fn new_stanza_at_the_end_before_end() {
        let eos = "hostname l3\nqos map dscp 26 to traffic-class 4\ninterface Ethernet1\n   mtu 9214\n!\nend\n";
        let out = merge(
            eos,
            "qos map dscp 26 to traffic-class 3\ninterface Ethernet2\n   mtu 9214\n",
            &keys(),
            false,
        )
        .unwrap();
        assert_eq!(
            out,
            "hostname l3\nqos map dscp 26 to traffic-class 3\ninterface Ethernet1\n   mtu 9214\n!\ninterface Ethernet2\n   mtu 9214\nend\n"
        );
    }

    #[test]
    fn idempotent() {
        let s = "interface Ethernet1/1\n  mtu 9216\n";
        let once = merge(NXOS, s, &keys(), false).unwrap();
        assert_eq!(merge(&once, s, &keys(), false).unwrap(), once);
    }

    const ONYX: &str = "##\n## Interface Ethernet configuration\n##\nno cli default prefix-modes enable\n   interface ethernet 1/1-1/2 mtu 9216 force\n   interface ethernet 1/31-1/32 mtu 9184 force\n   interface ethernet 1/1 description \"gpu03\"\n\n##\n## DCBX PFC configuration\n##\n   dcb priority-flow-control enable force\n   dcb priority-flow-control priority 3 enable\n   interface ethernet 1/1-1/2 dcb priority-flow-control mode on force\n   interface ethernet 1/1 qos trust L2\n   interface ethernet 1/2 qos trust L3\n\n   hostname leaf3\ncli default prefix-modes enable\n";

    fn onyx_keys() -> Vec<Regex> {
        ["^(interface ethernet \\S+ qos trust) "]
            .iter()
            .map(|r| Regex::new(r).unwrap())
            .collect()
    }

    #[test]
    fn flat_lines_are_top_level() {
        let lines: Vec<&str> = ONYX.lines().collect();
        let t = Tree::new(&lines, true);
        assert!(t.children(None).contains(&4), "{:?}", t.children(None));
        assert!(Tree::new(&lines, false).children(Some(3)).contains(&4));
    }

    #[test]
    fn flat_replaces_in_place_and_adds_after_its_kind() {
        let out = merge(
            ONYX,
            "interface ethernet 1/1 qos trust L3\ninterface ethernet 1/2 mtu 9216 force\ndcb priority-flow-control priority 6 enable\n",
            &onyx_keys(),
            true,
        )
        .unwrap();
        assert_eq!(
            out,
            ONYX.replace("1/1 qos trust L2", "1/1 qos trust L3")
                .replace(
                    "1/31-1/32 mtu 9184 force\n",
                    "1/31-1/32 mtu 9184 force\n   interface ethernet 1/2 mtu 9216 force\n"
                )
                .replace(
                    "priority 3 enable\n",
                    "priority 3 enable\n   dcb priority-flow-control priority 6 enable\n"
                )
        );
        // `no X` removes the line X; a second merge changes nothing.
        let out = merge(
            ONYX,
            "no dcb priority-flow-control priority 3 enable\n",
            &onyx_keys(),
            true,
        )
        .unwrap();
        assert_eq!(
            out,
            ONYX.replace("   dcb priority-flow-control priority 3 enable\n", "")
        );
        let s = "interface ethernet 1/2 mtu 9216 force\n";
        let once = merge(ONYX, s, &onyx_keys(), true).unwrap();
        assert_eq!(merge(&once, s, &onyx_keys(), true).unwrap(), once);
    }
}
