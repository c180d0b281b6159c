//! Rebuilding the Junos hierarchy: every statement of a configuration, in either form, becomes
//! its full path of words (`class-of-service schedulers s1 explicit-congestion-notification`).
//!
//! Curly-brace files nest by braces: a line ending in `{` opens a block, `}` closes it, a line
//! ending in `;` is a leaf. Indentation is not trusted (pasted configlets lose it), and a file
//! cut short of its closing braces keeps every statement it has. `inactive: ` before a
//! statement or block keeps it in the config without applying it, for everything below too.
//! The set form (`show configuration | display set`) already holds full paths; its
//! `deactivate <path>` lines mark the statements under that path inactive. Lists may be written
//! `[ a b ]` on one line or one value per `set` line; readers accept both.
//!
//! Only lines the engine recognized as records become statements: an unrecognized line is
//! reported by the engine and never read here.

use crate::model::Src;
use crate::platform::Output;
use std::collections::HashSet;

/// One configuration statement with its full path.
#[derive(Debug, Clone)]
pub(super) struct Stmt {
    pub(super) words: Vec<String>,
    pub(super) src: Src,
    /// False for `inactive:` statements (or under an inactive block) and deactivated paths.
    pub(super) active: bool,
}

impl Stmt {
    pub(super) fn w(&self) -> Vec<&str> {
        self.words.iter().map(String::as_str).collect()
    }
}

/// Split a statement into words: blanks separate, `"..."` is one word (without quotes), and the
/// list brackets `[` `]` are words of their own.
pub(super) fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in s.chars() {
        match c {
            '"' => {
                if quoted {
                    out.push(std::mem::take(&mut cur));
                }
                quoted = !quoted;
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
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The values of a list argument: `[ a b ]` or a single word.
pub(super) fn values<'a>(rest: &[&'a str]) -> Vec<&'a str> {
    rest.iter()
        .copied()
        .filter(|w| *w != "[" && *w != "]")
        .collect()
}

/// A line without its line end, trailing blanks and a trailing `## ...` annotation
/// (`encrypted-password "..."; ## SECRET-DATA`).
fn clean(raw: &str) -> &str {
    let t = raw.trim_end_matches('\r').trim();
    match t.find("; ##") {
        Some(p) => &t[..=p],
        None => t,
    }
}

/// The statements of one configuration output. `cos_relative`: the output is the
/// [edit class-of-service] hierarchy printed relative to it (`show configuration
/// class-of-service`), so statements not already under `class-of-service` are put there.
pub(super) fn statements(o: &Output, cos_relative: bool) -> Vec<Stmt> {
    let p = &o.parsed;
    let records: HashSet<u32> = p.records.iter().map(|r| r.line).collect();
    let mut out: Vec<Stmt> = Vec::new();
    // Open blocks: their words and whether they are inactive.
    let mut stack: Vec<(Vec<String>, bool)> = Vec::new();
    let mut deactivated: Vec<Vec<String>> = Vec::new();
    for (i, raw) in p.text().split('\n').enumerate() {
        let line = (i + 1) as u32;
        let t = clean(raw);
        if t.is_empty() || t.starts_with('#') || t.starts_with("/*") {
            continue;
        }
        if t.starts_with('}') {
            stack.pop();
            continue;
        }
        let is_record = records.contains(&line);
        if let Some(rest) = t.strip_prefix("set ") {
            if is_record {
                let mut w = words(rest);
                relative(&mut w, cos_relative);
                out.push(Stmt {
                    words: w,
                    src: o.src(line),
                    active: true,
                });
            }
            continue;
        }
        if let Some(rest) = t.strip_prefix("deactivate ") {
            if is_record {
                let mut w = words(rest);
                relative(&mut w, cos_relative);
                deactivated.push(w);
            }
            continue;
        }
        let (inactive, body) = match t.strip_prefix("inactive: ") {
            Some(b) => (true, b),
            None => (false, t.strip_prefix("protect: ").unwrap_or(t)),
        };
        let (body, opens) = if let Some(b) = body.strip_suffix('{') {
            (b.trim_end(), true)
        } else if let Some(b) = body.strip_suffix(';') {
            (b.trim_end(), false)
        } else {
            // Neither a block nor a leaf (a bare word of a hand-written file): not a statement.
            continue;
        };
        let own = words(body);
        let under_inactive = stack.iter().any(|(_, ia)| *ia);
        if is_record {
            let mut w: Vec<String> = stack
                .iter()
                .flat_map(|(ws, _)| ws.iter().cloned())
                .collect();
            w.extend(own.iter().cloned());
            relative(&mut w, cos_relative);
            out.push(Stmt {
                words: w,
                src: o.src(line),
                active: !(inactive || under_inactive),
            });
        }
        if opens {
            stack.push((own, inactive));
        }
    }
    for s in out.iter_mut() {
        if deactivated
            .iter()
            .any(|d| s.words.len() >= d.len() && s.words[..d.len()] == d[..])
        {
            s.active = false;
        }
    }
    out
}

fn relative(w: &mut Vec<String>, cos_relative: bool) {
    if cos_relative && w.first().is_some_and(|f| f != "class-of-service") {
        w.insert(0, "class-of-service".to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_quotes_and_lists() {
        assert_eq!(
            words(r#"description "to leaf 1""#),
            vec!["description", "to leaf 1"]
        );
        assert_eq!(
            words("fill-level [ 20 60 ]"),
            vec!["fill-level", "[", "20", "60", "]"]
        );
        assert_eq!(
            words("code-points [011010]"),
            vec!["code-points", "[", "011010", "]"]
        );
        assert_eq!(values(&["[", "1", "2", "]"]), vec!["1", "2"]);
        assert_eq!(values(&["3"]), vec!["3"]);
        assert_eq!(
            clean("  encrypted-password \"x\"; ## SECRET-DATA\r"),
            "encrypted-password \"x\";"
        );
    }
}
