//! CONFIG_DB as a table store: `TABLE` → `key` → `field` → value, each value with the file and
//! line it came from, read from the JSON records of vendor-parsers/sonic.toml in any of the
//! three shapes (nested tables, flat `TABLE|key` keys, `redis-dump` entries with a `value`
//! object). Later outputs add to earlier ones; a field read twice keeps its last value.

use crate::model::Src;
use crate::platform::Output;
use std::collections::BTreeMap;

/// A field's value and where it was read.
#[derive(Debug, Clone)]
pub(super) struct Val {
    pub v: String,
    pub src: Src,
    /// Index of the output (for undefined-reference notes).
    pub out: usize,
}

/// One `TABLE|key` entry.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    pub src: Src,
    pub fields: BTreeMap<String, Val>,
}

impl Entry {
    pub fn get(&self, field: &str) -> Option<&Val> {
        self.fields.get(field)
    }
    /// A field parsed as a number.
    pub fn num<T: std::str::FromStr>(&self, field: &str) -> Option<(T, &Val)> {
        let v = self.fields.get(field)?;
        v.v.trim().parse().ok().map(|n| (n, v))
    }
}

#[derive(Debug, Default)]
pub(super) struct Db {
    pub tables: BTreeMap<String, BTreeMap<String, Entry>>,
}

impl Db {
    /// Add the records of one CONFIG_DB output.
    pub fn read(&mut self, oi: usize, o: &Output) {
        let p = &o.parsed;
        let n = p.records.len();
        // A redis-dump entry's fields are under its "value" object; its own direct children
        // (expireat, ttl, type) are metadata, even when a field pattern would accept them.
        let mut has_value = vec![false; n];
        for r in &p.records {
            if p.kind(r).starts_with("v_")
                && let Some(pi) = r.parent
                && let Some(h) = has_value.get_mut(pi as usize)
            {
                *h = true;
            }
        }
        let mut table_of: Vec<Option<String>> = vec![None; n];
        let mut entry_of: Vec<Option<(String, String)>> = vec![None; n];
        for (i, r) in p.records.iter().enumerate() {
            let kind = p.kind(r);
            let parent = r.parent.map(|x| x as usize);
            if kind.starts_with("t_") {
                table_of[i] = p.get(r, "table").map(String::from);
            } else if kind.starts_with("e_") {
                let table = p
                    .get(r, "table")
                    .map(String::from)
                    .or_else(|| parent.and_then(|pi| table_of.get(pi).cloned().flatten()));
                let (Some(table), Some(key)) = (table, p.get(r, "key")) else {
                    continue;
                };
                let key = unescape(key);
                self.tables
                    .entry(table.clone())
                    .or_default()
                    .entry(key.clone())
                    .or_insert_with(|| Entry {
                        src: o.src(r.line),
                        fields: BTreeMap::new(),
                    });
                entry_of[i] = Some((table, key));
            } else if kind.starts_with("v_") {
                entry_of[i] = parent.and_then(|pi| entry_of.get(pi).cloned().flatten());
            } else if kind == "f" {
                let Some(pi) = parent else { continue };
                if has_value.get(pi).copied().unwrap_or(false) {
                    continue;
                }
                let Some((table, key)) = entry_of.get(pi).cloned().flatten() else {
                    continue;
                };
                let (Some(field), Some(value)) = (
                    p.get(r, "k"),
                    p.get(r, "v")
                        .map(unescape)
                        .or_else(|| p.get(r, "n").map(String::from)),
                ) else {
                    continue;
                };
                if let Some(e) = self.tables.get_mut(&table).and_then(|t| t.get_mut(&key)) {
                    e.fields.insert(
                        field.to_string(),
                        Val {
                            v: value,
                            src: o.src(r.line),
                            out: oi,
                        },
                    );
                }
            }
        }
    }

    /// Add (or complete) an entry from an operational output; returns it for its fields.
    pub fn entry_mut(&mut self, table: &str, key: &str, src: Src) -> &mut Entry {
        self.tables
            .entry(table.to_string())
            .or_default()
            .entry(key.to_string())
            .or_insert_with(|| Entry {
                src,
                fields: BTreeMap::new(),
            })
    }

    /// Take the entries of `other` this store does not have.
    pub fn merge_missing(&mut self, other: Db) {
        for (t, entries) in other.tables {
            let mine = self.tables.entry(t).or_default();
            for (k, e) in entries {
                mine.entry(k).or_insert(e);
            }
        }
    }

    pub fn table(&self, table: &str) -> impl Iterator<Item = (&String, &Entry)> {
        self.tables.get(table).into_iter().flatten()
    }

    pub fn entry(&self, table: &str, key: &str) -> Option<&Entry> {
        self.tables.get(table)?.get(key)
    }
}

/// The name a reference field gives: `AZURE`, or `[DSCP_TO_TC_MAP|AZURE]` in releases before
/// 202006. A bracketed reference to another table than `table` names nothing in it (`None`).
pub(super) fn ref_name<'v>(v: &'v str, table: &str) -> Option<&'v str> {
    let v = v.trim();
    match v.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
        Some(inner) => match inner.split_once('|') {
            Some((t, name)) if t == table => Some(name),
            _ => None,
        },
        None => Some(v),
    }
}

/// The ports and the index range of a `QUEUE`/`BUFFER_PG`/`BUFFER_QUEUE` key:
/// `Ethernet0|3`, `Ethernet0,Ethernet4|3-4`.
pub(super) fn split_key(key: &str) -> Option<(Vec<&str>, u32, u32)> {
    let (ports, range) = key.rsplit_once('|')?;
    let (a, b) = match range.split_once('-') {
        Some((a, b)) => (a.trim().parse().ok()?, b.trim().parse().ok()?),
        None => {
            let x = range.trim().parse().ok()?;
            (x, x)
        }
    };
    if a > b {
        return None;
    }
    Some((ports.split(',').map(str::trim).collect(), a, b))
}

/// JSON string escapes (`\"`, `\\`, `\/`, `\n`, `\t`, `\uXXXX`) resolved.
pub(super) fn unescape(s: &str) -> String {
    if !s.contains('\\') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('u') => {
                let hex: String = it.by_ref().take(4).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) => out.push(ch),
                    None => out.push('\u{fffd}'),
                }
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references() {
        assert_eq!(ref_name("AZURE", "DSCP_TO_TC_MAP"), Some("AZURE"));
        assert_eq!(
            ref_name("[DSCP_TO_TC_MAP|AZURE]", "DSCP_TO_TC_MAP"),
            Some("AZURE")
        );
        assert_eq!(ref_name("[TC_TO_QUEUE_MAP|AZURE]", "DSCP_TO_TC_MAP"), None);
    }

    #[test]
    fn keys() {
        assert_eq!(split_key("Ethernet0|3-4"), Some((vec!["Ethernet0"], 3, 4)));
        assert_eq!(
            split_key("Ethernet0,Ethernet4|6"),
            Some((vec!["Ethernet0", "Ethernet4"], 6, 6))
        );
        assert_eq!(split_key("Ethernet0"), None);
        assert_eq!(split_key("Ethernet0|4-3"), None);
        assert_eq!(unescape(r#"a\"b\\c\u0041"#), "a\"b\\cA");
    }
}
