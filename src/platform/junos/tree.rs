//! Rebuilding the Junos hierarchy: every statement of a configuration, in either form, becomes
//! its full path of words (`class-of-service schedulers s1 explicit-congestion-notification`).
//!
//! Curly-brace files nest by braces: a line ending in `{` opens a block, `}` closes it, a line
//! ending in `;` is a leaf. Indentation is not trusted (pasted configlets lose it), and a file
//! cut short of its closing braces keeps every statement it has and says where: the innermost
//! block left open is reported with its line (only a configlet's `class-of-service {` wrapper may
//! stay open). Blocks deeper than `MAX_DEPTH` are counted, not read, so that memory stays linear
//! in the file size whatever the nesting. `inactive: ` before a
//! statement or block keeps it in the config without applying it, for everything below too.
//! The set form (`show configuration | display set`) already holds full paths; its
//! `deactivate <path>` lines mark the statements under that path inactive. Lists may be written
//! `[ a b ]` on one line or one value per `set` line; readers accept both.
//!
//! Only lines the engine recognized as records become statements: an unrecognized line is
//! reported by the engine and never read here.

use crate::model::Src;
use crate::platform::Output;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hasher, RandomState};

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

/// A list argument as Junos writes one, its values: a single word, or `[ a b ]` closed at the
/// statement's end with no bracket inside. `None` for anything else (a statement nested under a
/// line whose `[` never closed carries that line's words and its own).
pub(super) fn one_list<'a>(rest: &[&'a str]) -> Option<Vec<&'a str>> {
    match rest {
        [v] if *v != "[" && *v != "]" => Some(vec![*v]),
        ["[", inner @ .., "]"] if !inner.iter().any(|w| *w == "[" || *w == "]") => {
            Some(inner.to_vec())
        }
        _ => None,
    }
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

/// Blocks nested deeper than this are not read: no Junos hierarchy comes near it (the deepest
/// paths, under `routing-instances ... protocols`, `firewall ... term` or `class-of-service
/// congestion-notification-profile`, are about 10 levels), and keeping full paths of deeper
/// blocks would make memory grow with the square of the depth.
pub(super) const MAX_DEPTH: usize = 64;

/// How a configuration output may legitimately end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    /// A whole configuration (or the class-of-service hierarchy): every block closes.
    Whole,
    /// A configlet as operators keep it: only the outer `class-of-service {` wrapper may be left
    /// open (vendor examples and Apstra configlets end there).
    Configlet,
}

/// What the walk could not read: a line and why (added to the file's unrecognized lines).
pub(super) type Unread = (u32, String);

/// The paths of the `deactivate <path>` lines of an output (set form): what they name is kept
/// but does not apply, wherever in the file the statement is. A statement is tested by one
/// walk over its words, each prefix's hash looked up (issue 19: a prefix test against every
/// path cost deactivate lines × statements, a minute for 1 MiB of half of each).
struct Deactivated {
    /// Each distinct path once.
    paths: Vec<Vec<String>>,
    /// Paths by the hash of their words ([`Deactivated::hashes`]).
    by_hash: HashMap<u64, Vec<u32>>,
    /// Words of the longest path: no statement's longer prefix can be one.
    longest: usize,
    hasher: RandomState,
}

impl Deactivated {
    fn read(o: &Output, records: &HashSet<u32>, cos_relative: bool) -> Deactivated {
        let mut d = Deactivated {
            paths: Vec::new(),
            by_hash: HashMap::new(),
            longest: 0,
            hasher: RandomState::new(),
        };
        for (i, raw) in o.parsed.text().split('\n').enumerate() {
            if let Some(rest) = clean(raw).strip_prefix("deactivate ")
                && records.contains(&((i + 1) as u32))
            {
                let mut w = words(rest);
                relative(&mut w, cos_relative);
                d.add(w);
            }
        }
        d
    }

    fn add(&mut self, path: Vec<String>) {
        let Some(h) = self.hashes(&path).last() else {
            return;
        };
        let same = self.by_hash.entry(h).or_default();
        if same.iter().any(|&i| self.paths[i as usize] == path) {
            return;
        }
        same.push(self.paths.len() as u32);
        self.longest = self.longest.max(path.len());
        self.paths.push(path);
    }

    /// The hash of each prefix of `words` (one to all of them), each from the one before.
    fn hashes<'a>(&'a self, words: &'a [String]) -> impl Iterator<Item = u64> + 'a {
        let mut h = self.hasher.build_hasher();
        words.iter().map(move |w| {
            // 0xff is in no UTF-8 text: words and their ends are told apart.
            h.write(w.as_bytes());
            h.write_u8(0xff);
            h.finish()
        })
    }

    /// Whether a path is `words` or a prefix of it.
    fn covers(&self, words: &[String]) -> bool {
        if self.paths.is_empty() {
            return false;
        }
        let words = &words[..words.len().min(self.longest)];
        self.hashes(words).enumerate().any(|(n, h)| {
            self.by_hash.get(&h).is_some_and(|same| {
                same.iter()
                    .any(|&i| self.paths[i as usize][..] == words[..=n])
            })
        })
    }
}

/// Each statement of one configuration output in file order, handed to `each` as it is read
/// (so that only one statement's full path exists at a time: kept all together they cost the
/// square of the nesting, 30× the file for a configlet that leaves its block open and is
/// repeated; issue 19), and returned: the lines that make the file incomplete (a block never
/// closed, a cut last line, nesting too deep). `cos_relative`: the output is the
/// [edit class-of-service] hierarchy printed relative to it (`show configuration
/// class-of-service`), so statements not already under `class-of-service` are put there.
pub(super) fn statements(
    o: &Output,
    cos_relative: bool,
    form: Form,
    each: &mut dyn FnMut(Stmt),
) -> Vec<Unread> {
    let p = &o.parsed;
    let records: HashSet<u32> = p.records.iter().map(|r| r.line).collect();
    // Known before the first statement, since a `deactivate` line may come after what it names.
    let deactivated = Deactivated::read(o, &records, cos_relative);
    let mut emit = |words: Vec<String>, src: Src, active: bool| {
        let active = active && !deactivated.covers(&words);
        each(Stmt { words, src, active });
    };
    let mut unread: Vec<Unread> = Vec::new();
    // Open blocks: their words, whether they are inactive, and the line that opened them.
    let mut stack: Vec<(Vec<String>, bool, u32)> = Vec::new();
    // Blocks opened beyond MAX_DEPTH: only counted, so that their closing braces pair up.
    let mut too_deep = 0usize;
    let mut last_set: Option<u32> = None;
    let mut last_line = 0u32;
    for (i, raw) in p.text().split('\n').enumerate() {
        let line = (i + 1) as u32;
        let t = clean(raw);
        if t.is_empty() || t.starts_with('#') || t.starts_with("/*") {
            continue;
        }
        last_line = line;
        if t.starts_with('}') {
            if too_deep > 0 {
                too_deep -= 1;
            } else {
                stack.pop();
            }
            continue;
        }
        let is_record = records.contains(&line);
        if let Some(rest) = t.strip_prefix("set ") {
            last_set = Some(line);
            if is_record {
                let mut w = words(rest);
                relative(&mut w, cos_relative);
                emit(w, o.src(line), true);
            }
            continue;
        }
        if t.starts_with("deactivate ") {
            // read before the walk (`Deactivated`)
            last_set = Some(line);
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
        if too_deep > 0 || stack.len() >= MAX_DEPTH {
            if too_deep == 0 && unread.iter().all(|(_, w)| !w.contains("levels deep")) {
                unread.push((
                    line,
                    format!(
                        "{t} (nested more than {MAX_DEPTH} levels deep: this block and everything below it are not read)"
                    ),
                ));
            }
            if opens {
                too_deep += 1;
            }
            continue;
        }
        let under_inactive = stack.iter().any(|(_, ia, _)| *ia);
        if is_record {
            let mut w: Vec<String> = stack
                .iter()
                .flat_map(|(ws, _, _)| ws.iter().cloned())
                .collect();
            w.extend(words(body));
            relative(&mut w, cos_relative);
            emit(w, o.src(line), !(inactive || under_inactive));
        }
        if opens {
            stack.push((words(body), inactive, line));
        }
    }
    let wrapper_only = form == Form::Configlet
        && too_deep == 0
        && stack.len() == 1
        && stack[0].0.first().is_some_and(|w| w == "class-of-service");
    if let Some((ws, _, opened)) = stack.last()
        && !wrapper_only
    {
        unread.push((
            *opened,
            format!(
                "{} {{ (opened at line {opened}, never closed: the file ends inside {} open block{}; cut short?)",
                ws.join(" "),
                stack.len() + too_deep,
                if stack.len() + too_deep == 1 { "" } else { "s" }
            ),
        ));
    }
    // `| display set`: every line is a whole statement, so a cut shows only as a last line
    // without its line end (its value may be cut: `mtu 92` of `mtu 9216`).
    let text = p.text();
    if let Some(l) = last_set
        && l == last_line
        && !text.ends_with('\n')
        && !p.unrecognized.iter().any(|u| u.line == l)
    {
        unread.push((
            l,
            format!(
                "{} (last line, no line end: the file may be cut and this value incomplete)",
                clean(text.rsplit('\n').next().unwrap_or(""))
            ),
        ));
    }
    unread
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
        assert_eq!(one_list(&["[", "1", "2", "]"]), Some(vec!["1", "2"]));
        assert_eq!(one_list(&["ef"]), Some(vec!["ef"]));
        assert_eq!(one_list(&["[", "]"]), Some(vec![]));
        for bad in [
            &["[", "1", "2"][..],
            &["[", "1", "x-buffer", "percent", "80"],
            &["1", "2"],
            &["[", "1", "]", "2"],
            &["[", "[", "1", "]"],
            &[],
        ] {
            assert_eq!(one_list(bad), None, "{bad:?}");
        }
        assert_eq!(values(&["3"]), vec!["3"]);
        assert_eq!(
            clean("  encrypted-password \"x\"; ## SECRET-DATA\r"),
            "encrypted-password \"x\";"
        );
    }

    fn w(s: &str) -> Vec<String> {
        s.split(' ').map(String::from).collect()
    }

    #[test]
    fn a_deactivated_path_covers_itself_and_what_is_under_it_word_by_word() {
        let mut d = Deactivated {
            paths: Vec::new(),
            by_hash: HashMap::new(),
            longest: 0,
            hasher: RandomState::new(),
        };
        assert!(!d.covers(&w("interfaces et-0/0/1 mtu 9216")));
        d.add(w("interfaces et-0/0/1"));
        d.add(w("interfaces et-0/0/1"));
        d.add(w("class-of-service interfaces et-0/0/2 scheduler-map sm"));
        assert_eq!(d.paths.len(), 2, "a repeated path is kept once");
        assert_eq!(d.longest, 5);
        assert!(d.covers(&w("interfaces et-0/0/1")));
        assert!(d.covers(&w("interfaces et-0/0/1 mtu 9216")));
        assert!(d.covers(&w(
            "class-of-service interfaces et-0/0/2 scheduler-map sm extra words"
        )));
        // Words, not characters: `et-0/0/10` is not under `et-0/0/1`, nor `interfaces` alone.
        assert!(!d.covers(&w("interfaces et-0/0/10 mtu 9216")));
        assert!(!d.covers(&w("interfaces")));
        assert!(!d.covers(&w("interfaceset-0/0/1 mtu")));
        assert!(!d.covers(&w("class-of-service interfaces et-0/0/2 scheduler-map")));
        assert!(!d.covers(&[]));
    }
}
