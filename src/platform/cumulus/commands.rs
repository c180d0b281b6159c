//! `nv config show -o commands`: the NVUE revision as `nv set <path…> [value]` lines. Each line
//! is a path of the object tree that the YAML and JSON forms print (`nv set interface swp1 link
//! mtu 9216` is `interface: swp1: link: mtu: 9216`), so the lines are folded into the same
//! [`Tree`] and read by the same reader (`nvue::read`). NVUE prints a leaf's value as the last
//! word (`mtu 9216`) and a choice as a key of its own (`state up`, YAML `state: up: {}`); which
//! one a last word is depends on NVUE's schema, so it is kept both ways: as the value of its
//! parent and as a child key (readers ask for one or the other); a number only as a value.

use super::tree::Tree;
use crate::platform::Output;

/// The words of a command line, with `'…'` and `"…"` quoting; `None` for an unclosed quote.
fn words(line: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut has = false;
    for c in line.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                has = true;
            }
            None if c.is_whitespace() => {
                if has {
                    out.push(std::mem::take(&mut cur));
                    has = false;
                }
            }
            None => {
                cur.push(c);
                has = true;
            }
        }
    }
    if quote.is_some() {
        return None;
    }
    if has {
        out.push(cur);
    }
    Some(out)
}

/// The tree of the `nv set` lines of `o`, under a root `set` as the YAML revision has it.
pub(super) fn tree(o: &Output) -> (Tree, Vec<(u32, String)>) {
    let p = &o.parsed;
    let mut t = Tree::default();
    let mut unread = Vec::new();
    let mut root: Option<usize> = None;
    for r in &p.records {
        let Some(path) = p.get(r, "path") else {
            continue;
        };
        let Some(ws) = words(path) else {
            unread.push((r.line, "an unclosed quote".to_string()));
            continue;
        };
        let set = *root.get_or_insert_with(|| t.add_node(None, "set".into(), None, r.line));
        let mut at = set;
        let n = ws.len();
        for (k, w) in ws.iter().enumerate() {
            if k + 1 == n && k > 0 {
                // the last word: the value of its parent, and a key of its own, unless it is
                // a number (`mtu 9216`, `cable-length 10`): the numbers NVUE keys by (VLAN and
                // VNI ids) are not read by the audit, and a node per number made a file of
                // `link mtu` lines cost 21 times its size (issue 19's bound is 20).
                t.set_val(at, w.clone());
                if !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()) {
                    continue;
                }
            }
            at = match t.child(at, w) {
                Some(c) => c,
                None => t.add_node(Some(at), w.clone(), None, r.line),
            };
        }
    }
    (t, unread)
}

#[cfg(test)]
mod tests {
    use super::words;

    #[test]
    fn words_follow_shell_quoting() {
        assert_eq!(
            words("interface swp1 description 'gpu host 1'"),
            Some(vec![
                "interface".into(),
                "swp1".into(),
                "description".into(),
                "gpu host 1".into()
            ])
        );
        assert_eq!(
            words("system hostname \"\""),
            Some(vec!["system".into(), "hostname".into(), "".into()])
        );
        assert_eq!(words("interface 'swp1"), None);
    }
}
