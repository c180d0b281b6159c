//! `nv set` merge for Cumulus Linux NVUE configs (`nv config show -o yaml`, startup.yaml).
//!
//! The document is edited line by line as a tree of YAML block mappings (a line's children are
//! the more-indented lines after it), so every line the snippet does not touch stays
//! byte-identical. Snippet lines:
//! - `nv set A B C VALUE`: under the `- set:` item, map keys A → B → C (created where missing);
//!   if C holds a scalar it becomes VALUE; if C is a collection (it has children or is `{}`, or
//!   the path `A B C` matches a `[merge] replace` regex for a new C) VALUE is added as a member
//!   `VALUE: {}` (`3,4` adds two members), NVUE's set style (`switch-priority: {'3': {}}`);
//!   otherwise `C: VALUE` is added.
//! - `nv unset A B C`: removes the key C and its block (a member: `nv unset ... switch-priority
//!   4`); a mapping left empty is removed too, up to the `set` item.
//! - `nv config apply`, `nv config save`: nothing to merge.
//!
//! New keys go to their sorted place when their siblings are sorted (as NVUE prints them), else
//! last; digit-only keys are quoted (`'3':`) as NVUE prints them. Any other line is an error.

use regex::Regex;

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

fn structural(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && !t.starts_with('#')
}

/// A line's key (unquoted), value text after `: ` (empty when none) and whether it is a list
/// item (`- key:`).
fn key_of(line: &str) -> Option<(String, String, bool)> {
    let mut t = line.trim();
    let item = t.starts_with("- ");
    if item {
        t = t[2..].trim_start();
    }
    let (key, rest) = if let Some(r) = t.strip_prefix('\'') {
        let end = r.find('\'')?;
        (r[..end].to_string(), &r[end + 1..])
    } else if let Some(r) = t.strip_prefix('"') {
        let end = r.find('"')?;
        (r[..end].to_string(), &r[end + 1..])
    } else {
        let end = t
            .find(": ")
            .or_else(|| t.ends_with(':').then(|| t.len() - 1))?;
        (t[..end].to_string(), &t[end..])
    };
    let rest = rest.strip_prefix(':')?;
    Some((key, rest.trim().to_string(), item))
}

fn yaml_key(k: &str) -> String {
    if k.chars().all(|c| c.is_ascii_digit()) || !plain(k) {
        format!("'{}'", k.replace('\'', "''"))
    } else {
        k.to_string()
    }
}

fn plain(v: &str) -> bool {
    let mut cs = v.chars();
    cs.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._/-,".contains(c))
}

fn yaml_value(v: &str) -> String {
    if plain(v) {
        v.to_string()
    } else {
        format!("'{}'", v.replace('\'', "''"))
    }
}

struct Doc {
    lines: Vec<String>,
}

impl Doc {
    /// Structural children of line `p` (or the top level for `None`).
    fn children(&self, p: Option<usize>) -> Vec<usize> {
        let (start, min) = match p {
            Some(p) => (p + 1, Some(indent(&self.lines[p]))),
            None => (0, None),
        };
        let mut out = Vec::new();
        let mut child_indent: Option<usize> = None;
        for k in start..self.lines.len() {
            let l = &self.lines[k];
            if !structural(l) {
                continue;
            }
            let ind = indent(l);
            if min.is_some_and(|m| ind <= m) {
                break;
            }
            match child_indent {
                None => {
                    child_indent = Some(ind);
                    out.push(k);
                }
                Some(c) if ind == c => out.push(k),
                Some(c) if ind < c => break,
                _ => {}
            }
        }
        out
    }

    /// Last line of the block of `k`.
    fn last(&self, k: usize) -> usize {
        let ind = indent(&self.lines[k]);
        let mut end = k;
        for j in k + 1..self.lines.len() {
            let l = &self.lines[j];
            if !structural(l) {
                continue;
            }
            if indent(l) <= ind {
                break;
            }
            end = j;
        }
        end
    }

    fn find(&self, parent: Option<usize>, key: &str) -> Option<usize> {
        self.children(parent)
            .into_iter()
            .find(|&k| key_of(&self.lines[k]).is_some_and(|(kk, _, _)| kk == key))
    }

    /// The indentation of a new child of `p`.
    fn child_indent(&self, p: usize) -> usize {
        match self.children(Some(p)).first() {
            Some(&c) => indent(&self.lines[c]),
            None => {
                let l = &self.lines[p];
                // `- set:`: the item's keys sit two past the dash.
                indent(l)
                    + if l.trim_start().starts_with("- ") {
                        4
                    } else {
                        2
                    }
            }
        }
    }

    /// Insert `text` (already indented) as a child of `p` with key `key`; returns its line.
    fn insert_child(&mut self, p: usize, key: &str, text: String) -> usize {
        let kids = self.children(Some(p));
        let keys: Vec<String> = kids
            .iter()
            .filter_map(|&k| key_of(&self.lines[k]).map(|x| x.0))
            .collect();
        let sorted = keys.windows(2).all(|w| w[0] <= w[1]);
        let at = if sorted {
            match keys.iter().position(|k| k.as_str() > key) {
                Some(i) => kids[i],
                None => self.last(p) + 1,
            }
        } else {
            self.last(p) + 1
        };
        self.lines.insert(at, text);
        at
    }

    /// Make `p` a mapping that may take children (`key: {}` → `key:`).
    fn open(&mut self, p: usize) -> Result<(), String> {
        let Some((k, v, _)) = key_of(&self.lines[p]) else {
            return Err(format!("cannot read `{}`", self.lines[p].trim()));
        };
        if v == "{}" {
            let l = &self.lines[p];
            let cut = l.rfind("{}").unwrap_or(l.len());
            self.lines[p] = format!("{}\n", l[..cut].trim_end());
        } else if !v.is_empty() {
            return Err(format!("{k} holds the value {v:?}, not a mapping"));
        }
        Ok(())
    }

    /// The `set` item (created at the end when missing).
    fn set_root(&mut self) -> Result<usize, String> {
        if let Some(k) = self.children(None).into_iter().find(|&k| {
            key_of(&self.lines[k]).is_some_and(|(kk, v, item)| kk == "set" && item && v.is_empty())
        }) {
            return Ok(k);
        }
        if self
            .children(None)
            .into_iter()
            .any(|k| key_of(&self.lines[k]).is_some_and(|(_, _, item)| item))
        {
            self.lines.push("- set:\n".into());
            return Ok(self.lines.len() - 1);
        }
        Err("the document has no `- set:` item".into())
    }
}

/// Merge `nv set` / `nv unset` lines into an NVUE YAML document.
pub fn merge(config: &str, snippet: &str, members: &[Regex]) -> Result<String, String> {
    let mut lines: Vec<String> = config.split_inclusive('\n').map(str::to_string).collect();
    if let Some(l) = lines.last_mut()
        && !l.ends_with('\n')
    {
        l.push('\n');
    }
    let mut doc = Doc { lines };
    for line in snippet.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let w = super::keyed_json::words(t).map_err(|e| format!("`{t}`: {e}"))?;
        let w: Vec<&str> = w.iter().map(String::as_str).collect();
        match w.as_slice() {
            ["nv", "config", "apply" | "save", rest @ ..]
                if rest.iter().all(|a| matches!(*a, "-y" | "--assume-yes")) => {}
            ["nv", "set", path @ .., value] if !path.is_empty() => {
                set(&mut doc, path, value, members).map_err(|e| format!("`{t}`: {e}"))?
            }
            ["nv", "unset", path @ ..] if !path.is_empty() => {
                unset(&mut doc, path).map_err(|e| format!("`{t}`: {e}"))?
            }
            _ => {
                return Err(format!(
                    "`{t}`: not an `nv set`, `nv unset` or `nv config apply`"
                ));
            }
        }
    }
    let mut out = doc.lines.concat();
    if !config.ends_with('\n') && out.ends_with('\n') {
        out.pop();
    }
    Ok(out)
}

fn set(doc: &mut Doc, path: &[&str], value: &str, members: &[Regex]) -> Result<(), String> {
    let root = doc.set_root()?;
    let mut cur = root;
    let n = path.len();
    for (i, key) in path.iter().enumerate() {
        let last = i + 1 == n;
        match doc.find(Some(cur), key) {
            Some(k) => {
                if !last {
                    doc.open(k)?;
                }
                cur = k;
            }
            None => {
                doc.open(cur)?;
                let ind = " ".repeat(doc.child_indent(cur));
                let is_members = last && members.iter().any(|re| re.is_match(&path.join(" ")));
                let text = if !last || is_members {
                    format!("{ind}{}:\n", yaml_key(key))
                } else {
                    format!("{ind}{}: {}\n", yaml_key(key), yaml_value(value))
                };
                cur = doc.insert_child(cur, key, text);
                if last && !is_members {
                    return Ok(());
                }
            }
        }
    }
    // `cur` is the last key: a scalar gets the value, a mapping the members.
    let Some((k, v, _)) = key_of(&doc.lines[cur]) else {
        return Err(format!("cannot read `{}`", doc.lines[cur].trim()));
    };
    let has_kids = !doc.children(Some(cur)).is_empty();
    if !has_kids && !v.is_empty() && v != "{}" {
        let l = doc.lines[cur].clone();
        let ind = &l[..indent(&l)];
        let dash = if l.trim_start().starts_with("- ") {
            "- "
        } else {
            ""
        };
        doc.lines[cur] = format!("{ind}{dash}{}: {}\n", yaml_key(&k), yaml_value(value));
        return Ok(());
    }
    doc.open(cur)?;
    for m in value.split(',').filter(|m| !m.is_empty()) {
        if doc.find(Some(cur), m).is_none() {
            let ind = " ".repeat(doc.child_indent(cur));
            doc.insert_child(cur, m, format!("{ind}{}: {{}}\n", yaml_key(m)));
        }
    }
    Ok(())
}

fn unset(doc: &mut Doc, path: &[&str]) -> Result<(), String> {
    let root = doc.set_root()?;
    let mut chain = vec![root];
    for key in path {
        let Some(&cur) = chain.last() else { break };
        match doc.find(Some(cur), key) {
            Some(k) => chain.push(k),
            // Nothing to remove: NVUE accepts unsetting what is not set.
            None => return Ok(()),
        }
    }
    // Remove the last key, then every mapping left empty, up to (not including) `set`.
    while chain.len() > 1 {
        let Some(k) = chain.pop() else { break };
        let end = doc.last(k);
        doc.lines.drain(k..=end);
        let Some(&parent) = chain.last() else { break };
        if chain.len() == 1 || !doc.children(Some(parent)).is_empty() {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const NV: &str = "- header:
    model: MSN4700
    rev-id: 1.0
- set:
    interface:
      swp1:
        link:
          mtu: 9184
          state:
            up: {}
        qos:
          link-pause:
            profile: pause-all
          pfc-watchdog:
            state: enable
        type: swp
    qos:
      pfc:
        roce-34:
          switch-priority:
            '3': {}
            '4': {}
      roce:
        enable: on
        mode: lossy
    system:
      hostname: spine1
";

    fn members() -> Vec<Regex> {
        vec![Regex::new(r"^qos pfc \S+ switch-priority$").unwrap()]
    }

    #[test]
    fn set_replaces_a_scalar_in_place() {
        let out = merge(
            NV,
            "nv set interface swp1 link mtu 9216\nnv set qos roce mode lossless\nnv config apply\n",
            &members(),
        )
        .unwrap();
        assert_eq!(
            out,
            NV.replace("mtu: 9184", "mtu: 9216")
                .replace("mode: lossy", "mode: lossless")
        );
    }

    #[test]
    fn set_creates_keys_at_their_sorted_place() {
        let out = merge(
            NV,
            "nv set qos mapping default-global dscp 26 switch-priority 3\nnv set interface swp2 link mtu 9216\n",
            &members(),
        )
        .unwrap();
        let want = NV
            .replace(
                "    qos:\n      pfc:\n",
                "    qos:\n      mapping:\n        default-global:\n          dscp:\n            '26':\n              switch-priority: 3\n      pfc:\n",
            )
            .replace(
                "        type: swp\n",
                "        type: swp\n      swp2:\n        link:\n          mtu: 9216\n",
            );
        assert_eq!(out, want);
    }

    #[test]
    fn set_members_of_a_collection() {
        let out = merge(
            NV,
            "nv set qos pfc roce-34 switch-priority 5\nnv set qos pfc default-global switch-priority 3\n",
            &members(),
        )
        .unwrap();
        let want = NV.replace(
            "    qos:\n      pfc:\n        roce-34:\n          switch-priority:\n            '3': {}\n            '4': {}\n",
            "    qos:\n      pfc:\n        default-global:\n          switch-priority:\n            '3': {}\n        roce-34:\n          switch-priority:\n            '3': {}\n            '4': {}\n            '5': {}\n",
        );
        assert_eq!(out, want);
    }

    #[test]
    fn unset_removes_blocks_and_empty_parents() {
        let out = merge(
            NV,
            "nv unset qos pfc roce-34 switch-priority 4\nnv unset interface swp1 qos link-pause\n",
            &members(),
        )
        .unwrap();
        assert_eq!(
            out,
            NV.replace("            '4': {}\n", "").replace(
                "          link-pause:\n            profile: pause-all\n",
                ""
            )
        );
        let out = merge(NV, "nv unset interface swp1 qos link-pause profile\nnv unset interface swp1 qos pfc-watchdog\n", &members()).unwrap();
        assert_eq!(
            out,
            NV.replace(
                "        qos:\n          link-pause:\n            profile: pause-all\n          pfc-watchdog:\n            state: enable\n",
                ""
            )
        );
        // Unsetting what is not there changes nothing.
        assert_eq!(
            merge(NV, "nv unset qos congestion-control", &members()).unwrap(),
            NV
        );
    }

    #[test]
    fn refuses_what_it_does_not_understand() {
        for s in [
            "nv show qos roce",
            "nv set qos",
            "nv set qos roce mode lossless; reboot",
            "sudo nv set qos roce mode lossless",
            "nv set qos roce mode enable extra",
        ] {
            assert!(merge(NV, s, &members()).is_err(), "{s}");
        }
    }

    #[test]
    fn idempotent_and_parses() {
        let s = "nv set qos pfc default-global switch-priority 3\nnv set interface swp1 link mtu 9216\n";
        let once = merge(NV, s, &members()).unwrap();
        assert_eq!(merge(&once, s, &members()).unwrap(), once);
        let docs = yaml_rust2::YamlLoader::load_from_str(&once).unwrap();
        assert_eq!(
            docs[0][1]["set"]["qos"]["pfc"]["default-global"]["switch-priority"]["3"],
            yaml_rust2::Yaml::Hash(Default::default())
        );
    }

    #[test]
    fn fixture_nvue_keeps_every_other_byte() {
        let t = include_str!("../../../fixtures/clean-mixed-fabric/configs/spine1.yaml");
        assert_eq!(merge(t, "nv config apply", &members()).unwrap(), t);
        let out = merge(
            t,
            "nv set qos roce mode lossy\nnv set interface swp3 link mtu 9000\n",
            &members(),
        )
        .unwrap();
        assert_eq!(
            out,
            t.replace("mode: lossless", "mode: lossy").replace(
                "leaf3 Eth1/31\n        link:\n          mtu: 9184",
                "leaf3 Eth1/31\n        link:\n          mtu: 9000"
            )
        );
    }
}
