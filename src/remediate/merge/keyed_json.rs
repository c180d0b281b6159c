//! Keyed merge for SONiC CONFIG_DB JSON (`config_db.json`, `show runningconfiguration all`).
//!
//! A snippet is a list of `sonic-db-cli CONFIG_DB` commands, one per line:
//! `hset 'TABLE|key' field value [field value ...]` sets fields of an entry (creating the entry
//! and the table), `hdel 'TABLE|key' field [...]` removes fields (an entry left without fields
//! is removed, as Redis removes an empty hash). The document keeps its own shape (nested
//! `TABLE` → `key` → field, flat `"TABLE|key"` entries, or `redis-dump` entries with a `value`
//! object), key order and indentation: it is parsed into an order-preserving tree here rather
//! than with serde_json, whose maps sort keys unless the crate-wide `preserve_order` feature is
//! on (which would change the order of every JSON report this project prints). New keys go to
//! their sorted place when their siblings are sorted (as `config save` writes them), else last.
//! A line the merge does not understand is an error.

/// A JSON value with object members in document order.
#[derive(Debug, Clone, PartialEq)]
enum J {
    Obj(Vec<(String, J)>),
    Arr(Vec<J>),
    Str(String),
    /// A number, `true`, `false` or `null`, as written.
    Lit(String),
}

struct P<'a> {
    s: &'a [u8],
    pos: usize,
}

impl P<'_> {
    fn ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }
    fn err(&self, what: &str) -> String {
        format!("JSON: {what} at byte {}", self.pos)
    }
    fn value(&mut self, depth: usize) -> Result<J, String> {
        if depth > 64 {
            return Err(self.err("nesting too deep"));
        }
        self.ws();
        match self.s.get(self.pos) {
            Some(b'{') => {
                self.pos += 1;
                let mut m = Vec::new();
                self.ws();
                if self.s.get(self.pos) == Some(&b'}') {
                    self.pos += 1;
                    return Ok(J::Obj(m));
                }
                loop {
                    self.ws();
                    let k = self.string()?;
                    self.ws();
                    if self.s.get(self.pos) != Some(&b':') {
                        return Err(self.err("expected ':'"));
                    }
                    self.pos += 1;
                    let v = self.value(depth + 1)?;
                    m.push((k, v));
                    self.ws();
                    match self.s.get(self.pos) {
                        Some(b',') => self.pos += 1,
                        Some(b'}') => {
                            self.pos += 1;
                            return Ok(J::Obj(m));
                        }
                        _ => return Err(self.err("expected ',' or '}'")),
                    }
                }
            }
            Some(b'[') => {
                self.pos += 1;
                let mut a = Vec::new();
                self.ws();
                if self.s.get(self.pos) == Some(&b']') {
                    self.pos += 1;
                    return Ok(J::Arr(a));
                }
                loop {
                    a.push(self.value(depth + 1)?);
                    self.ws();
                    match self.s.get(self.pos) {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {
                            self.pos += 1;
                            return Ok(J::Arr(a));
                        }
                        _ => return Err(self.err("expected ',' or ']'")),
                    }
                }
            }
            Some(b'"') => Ok(J::Str(self.string()?)),
            Some(_) => {
                let start = self.pos;
                while self.pos < self.s.len()
                    && (self.s[self.pos].is_ascii_alphanumeric()
                        || matches!(self.s[self.pos], b'-' | b'+' | b'.'))
                {
                    self.pos += 1;
                }
                let lit = String::from_utf8_lossy(&self.s[start..self.pos]).into_owned();
                // Validate the literal with serde_json (numbers, true, false, null).
                if lit.is_empty() || serde_json::from_str::<serde_json::Value>(&lit).is_err() {
                    return Err(self.err("unexpected character"));
                }
                Ok(J::Lit(lit))
            }
            None => Err(self.err("unexpected end")),
        }
    }
    fn string(&mut self) -> Result<String, String> {
        if self.s.get(self.pos) != Some(&b'"') {
            return Err(self.err("expected a string"));
        }
        let start = self.pos;
        self.pos += 1;
        while self.pos < self.s.len() {
            match self.s[self.pos] {
                b'\\' => self.pos += 2,
                b'"' => {
                    self.pos += 1;
                    let raw = std::str::from_utf8(&self.s[start..self.pos])
                        .map_err(|_| self.err("invalid UTF-8"))?;
                    return serde_json::from_str::<String>(raw)
                        .map_err(|e| self.err(&e.to_string()));
                }
                _ => self.pos += 1,
            }
        }
        Err(self.err("unterminated string"))
    }
}

fn parse(text: &str) -> Result<J, String> {
    let mut p = P {
        s: text.as_bytes(),
        pos: 0,
    };
    let v = p.value(0)?;
    p.ws();
    if p.pos != p.s.len() {
        return Err(p.err("trailing characters"));
    }
    Ok(v)
}

/// Output style of the document: `None` for one line, else the indentation unit.
fn style(text: &str) -> Option<String> {
    let body = text.trim();
    if !body.contains('\n') {
        return None;
    }
    let unit = body
        .lines()
        .skip(1)
        .map(|l| &l[..l.len() - l.trim_start().len()])
        .find(|w| !w.is_empty())
        .unwrap_or("    ");
    Some(unit.to_string())
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("{s:?}"))
}

fn emit(v: &J, unit: Option<&str>, depth: usize, out: &mut String) {
    let nl = |out: &mut String, d: usize| {
        if let Some(u) = unit {
            out.push('\n');
            for _ in 0..d {
                out.push_str(u);
            }
        }
    };
    match v {
        J::Str(s) => out.push_str(&quote(s)),
        J::Lit(l) => out.push_str(l),
        J::Obj(m) if m.is_empty() => out.push_str("{}"),
        J::Arr(a) if a.is_empty() => out.push_str("[]"),
        J::Obj(m) => {
            out.push('{');
            for (k, (key, val)) in m.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                nl(out, depth + 1);
                out.push_str(&quote(key));
                out.push_str(if unit.is_some() { ": " } else { ":" });
                emit(val, unit, depth + 1, out);
            }
            nl(out, depth);
            out.push('}');
        }
        J::Arr(a) => {
            out.push('[');
            for (k, val) in a.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                nl(out, depth + 1);
                emit(val, unit, depth + 1, out);
            }
            nl(out, depth);
            out.push(']');
        }
    }
}

/// The member `key` of an object, created (at its sorted place when the siblings are sorted)
/// as an empty object when missing.
fn member<'a>(m: &'a mut Vec<(String, J)>, key: &str) -> &'a mut J {
    let at = match m.iter().position(|(k, _)| k == key) {
        Some(i) => i,
        None => {
            let sorted = m.windows(2).all(|w| w[0].0 <= w[1].0);
            let i = if sorted {
                m.iter()
                    .position(|(k, _)| k.as_str() > key)
                    .unwrap_or(m.len())
            } else {
                m.len()
            };
            m.insert(i, (key.to_string(), J::Obj(Vec::new())));
            i
        }
    };
    &mut m[at].1
}

/// Where a document keeps `TABLE|key`: the entry's field object, created when `create`.
fn entry<'a>(
    doc: &'a mut J,
    table: &str,
    key: &str,
    create: bool,
) -> Result<Option<&'a mut Vec<(String, J)>>, String> {
    let J::Obj(top) = doc else {
        return Err("the config is not a JSON object".into());
    };
    let flat_key = format!("{table}|{key}");
    let nested = top
        .iter()
        .any(|(k, v)| k == table && matches!(v, J::Obj(_)));
    let flat = !nested && top.iter().any(|(k, _)| k.contains('|'));
    let e: &mut J = if flat {
        if !create && !top.iter().any(|(k, _)| *k == flat_key) {
            return Ok(None);
        }
        let e = member(top, &flat_key);
        // redis-dump: {"type": "hash", "value": {fields}}
        let dump =
            matches!(e, J::Obj(m) if m.iter().any(|(k, v)| k == "value" && matches!(v, J::Obj(_))));
        if dump {
            let J::Obj(m) = e else {
                return Err(format!("{flat_key} is not an object"));
            };
            member(m, "value")
        } else {
            e
        }
    } else {
        if !create
            && !top.iter().any(|(k, v)| {
                k == table && matches!(v, J::Obj(t) if t.iter().any(|(kk, _)| kk == key))
            })
        {
            return Ok(None);
        }
        let t = member(top, table);
        let J::Obj(t) = t else {
            return Err(format!("table {table} is not an object"));
        };
        member(t, key)
    };
    match e {
        J::Obj(m) => Ok(Some(m)),
        _ => Err(format!("{flat_key} is not an object")),
    }
}

/// Remove the entry `TABLE|key` if it has no field left (and its table if then empty).
fn prune(doc: &mut J, table: &str, key: &str) {
    let J::Obj(top) = doc else { return };
    let flat_key = format!("{table}|{key}");
    let empty = |v: &J| match v {
        J::Obj(m) => {
            m.is_empty()
                || m.iter()
                    .any(|(k, v)| k == "value" && matches!(v, J::Obj(f) if f.is_empty()))
        }
        _ => false,
    };
    if let Some(i) = top.iter().position(|(k, v)| *k == flat_key && empty(v)) {
        top.remove(i);
        return;
    }
    if let Some(ti) = top.iter().position(|(k, _)| k == table)
        && let J::Obj(t) = &mut top[ti].1
    {
        if let Some(i) = t.iter().position(|(k, v)| k == key && empty(v)) {
            t.remove(i);
        }
        if t.is_empty() {
            top.remove(ti);
        }
    }
}

/// Split a command line into words the way a POSIX shell would for plain words and single- or
/// double-quoted ones; anything a shell would expand or interpret is refused.
pub fn words(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut it = line.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match it.next() {
                        Some('\'') => break,
                        Some(c) => cur.push(c),
                        None => return Err("unterminated quote".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match it.next() {
                        Some('"') => break,
                        Some('\\') => match it.next() {
                            Some(c @ ('"' | '\\')) => cur.push(c),
                            _ => return Err("unsupported escape in double quotes".into()),
                        },
                        Some(c @ ('$' | '`')) => return Err(format!("`{c}` in double quotes")),
                        Some(c) => cur.push(c),
                        None => return Err("unterminated quote".into()),
                    }
                }
            }
            c if c.is_ascii_alphanumeric() || "_-.,:/@%+=".contains(c) => {
                in_word = true;
                cur.push(c);
            }
            c => return Err(format!("unquoted `{c}`")),
        }
    }
    if in_word {
        out.push(cur);
    }
    Ok(out)
}

/// Merge a snippet of `sonic-db-cli CONFIG_DB hset|hdel` lines into a CONFIG_DB JSON document.
pub fn merge(config: &str, snippet: &str) -> Result<String, String> {
    let mut doc = parse(config)?;
    for line in snippet.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let w = words(t).map_err(|e| format!("`{t}`: {e}"))?;
        let w: Vec<&str> = w.iter().map(String::as_str).collect();
        let (op, tk, rest) = match w.as_slice() {
            ["sonic-db-cli", "CONFIG_DB", op, tk, rest @ ..] => (*op, *tk, rest),
            _ => return Err(format!("`{t}`: not a `sonic-db-cli CONFIG_DB` command")),
        };
        let Some((table, key)) = tk.split_once('|') else {
            return Err(format!("`{t}`: {tk:?} is not TABLE|key"));
        };
        match op {
            "hset" => {
                if rest.is_empty() || rest.len() % 2 != 0 {
                    return Err(format!("`{t}`: hset needs field value pairs"));
                }
                let Some(m) = entry(&mut doc, table, key, true)? else {
                    return Err(format!("`{t}`: cannot create {tk}"));
                };
                for fv in rest.chunks(2) {
                    let (f, v) = (fv[0], fv[1]);
                    match m.iter_mut().find(|(k, _)| k == f) {
                        Some((_, old @ (J::Str(_) | J::Lit(_)))) => *old = J::Str(v.to_string()),
                        Some(_) => {
                            return Err(format!(
                                "`{t}`: field {f} of {tk} is not a string in the JSON"
                            ));
                        }
                        None => {
                            *member(m, f) = J::Str(v.to_string());
                        }
                    }
                }
            }
            "hdel" => {
                if rest.is_empty() {
                    return Err(format!("`{t}`: hdel needs a field"));
                }
                if let Some(m) = entry(&mut doc, table, key, false)? {
                    m.retain(|(k, _)| !rest.contains(&k.as_str()));
                }
                prune(&mut doc, table, key);
            }
            _ => return Err(format!("`{t}`: {op} is not hset or hdel")),
        }
    }
    let unit = style(config);
    let mut out = String::new();
    emit(&doc, unit.as_deref(), 0, &mut out);
    if config.ends_with('\n') {
        out.push('\n');
    }
    Ok(out)
}

/// A CONFIG_DB entry: table, key and its (field, value) pairs.
pub type Entry = (String, String, Vec<(String, String)>);

/// The CONFIG_DB of a JSON document as (table, key, fields) in document order, whatever its
/// shape; `None` when the text is not a JSON object.
pub fn entries(text: &str) -> Option<Vec<Entry>> {
    let J::Obj(top) = parse(text).ok()? else {
        return None;
    };
    let fields = |v: &J| -> Vec<(String, String)> {
        let J::Obj(m) = v else { return Vec::new() };
        let m = match m.iter().find(|(k, _)| k == "value") {
            Some((_, J::Obj(inner))) => inner,
            _ => m,
        };
        m.iter()
            .filter_map(|(k, v)| match v {
                J::Str(s) | J::Lit(s) => Some((k.clone(), s.clone())),
                _ => None,
            })
            .collect()
    };
    let mut out = Vec::new();
    for (k, v) in &top {
        if let Some((t, key)) = k.split_once('|') {
            out.push((t.to_string(), key.to_string(), fields(v)));
        } else if let J::Obj(t) = v {
            for (key, e) in t {
                out.push((k.clone(), key.clone(), fields(e)));
            }
        }
    }
    Some(out)
}

/// `cfg(re1, re2, re3)` of a CONFIG_DB JSON document: `re1` matches table names, `re2` the
/// entry keys, `re3` the fields as `field value`; the capture groups of each match at the last
/// level. `None` when the text is not a JSON object (then `cfg` walks stanzas).
/// (Templates ask `config_index::ConfigText::json_cfg`, which reads the document once per
/// device; this per-call form is its tests' reference.)
#[cfg(test)]
pub fn cfg(text: &str, res: &[regex::Regex]) -> Option<Vec<Vec<String>>> {
    let caps = |re: &regex::Regex, s: &str| -> Option<Vec<String>> {
        re.captures(s).map(|c| {
            c.iter()
                .skip(1)
                .map(|m| m.map(|m| m.as_str().to_string()).unwrap_or_default())
                .collect()
        })
    };
    let mut out = Vec::new();
    if res.is_empty() || res.len() > 3 {
        return Some(out);
    }
    let mut tables_seen: Vec<String> = Vec::new();
    let mut keys_seen: Vec<(String, String)> = Vec::new();
    for (t, k, fields) in entries(text)? {
        let Some(c1) = caps(&res[0], &t) else {
            continue;
        };
        if res.len() == 1 {
            if !tables_seen.contains(&t) {
                tables_seen.push(t);
                out.push(c1);
            }
            continue;
        }
        let Some(c2) = caps(&res[1], &k) else {
            continue;
        };
        if res.len() == 2 {
            if !keys_seen.contains(&(t.clone(), k.clone())) {
                keys_seen.push((t, k));
                out.push([c1, c2].concat());
            }
            continue;
        }
        for (f, v) in &fields {
            if let Some(c3) = caps(&res[2], &format!("{f} {v}")) {
                out.push([c1.clone(), c2.clone(), c3].concat());
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DB: &str = r#"{
    "PORT": {
        "Ethernet0": {
            "admin_status": "up",
            "mtu": "1500",
            "speed": "100000"
        },
        "Ethernet8": {
            "mtu": "9100"
        }
    },
    "PORT_QOS_MAP": {
        "Ethernet0": {
            "dscp_to_tc_map": "ROCE",
            "pfc_enable": "3,4"
        }
    },
    "VERSIONS": {
        "DATABASE": {
            "VERSION": "version_4_0_1"
        }
    }
}
"#;

    #[test]
    fn untouched_document_is_byte_identical() {
        assert_eq!(merge(DB, "").unwrap(), DB);
        let min = r#"{"PORT":{"Ethernet0":{"mtu":"1500"}},"A":[1,true,null]}"#;
        assert_eq!(merge(min, "").unwrap(), min);
    }

    #[test]
    fn hset_replaces_and_adds_fields_in_place() {
        let out = merge(
            DB,
            "sonic-db-cli CONFIG_DB hset 'PORT|Ethernet0' mtu 9100\nsonic-db-cli CONFIG_DB hset 'PORT_QOS_MAP|Ethernet0' pfc_enable '3'\nsonic-db-cli CONFIG_DB hset 'PORT_QOS_MAP|Ethernet0' pfc_to_pg_map ROCE\n",
        )
        .unwrap();
        let want = DB
            .replace("\"mtu\": \"1500\"", "\"mtu\": \"9100\"")
            .replace(
                "\"pfc_enable\": \"3,4\"",
                "\"pfc_enable\": \"3\",\n            \"pfc_to_pg_map\": \"ROCE\"",
            );
        assert_eq!(out, want);
    }

    #[test]
    fn hset_creates_entry_and_table_at_sorted_place() {
        let out = merge(
            DB,
            "sonic-db-cli CONFIG_DB hset 'QUEUE|Ethernet0|3' wred_profile ROCE_LOSSLESS\nsonic-db-cli CONFIG_DB hset 'PORT_QOS_MAP|Ethernet8' dscp_to_tc_map ROCE\n",
        )
        .unwrap();
        let want = DB
            .replace(
                "    \"VERSIONS\"",
                "    \"QUEUE\": {\n        \"Ethernet0|3\": {\n            \"wred_profile\": \"ROCE_LOSSLESS\"\n        }\n    },\n    \"VERSIONS\"",
            )
            .replace(
                "            \"pfc_enable\": \"3,4\"\n        }\n",
                "            \"pfc_enable\": \"3,4\"\n        },\n        \"Ethernet8\": {\n            \"dscp_to_tc_map\": \"ROCE\"\n        }\n",
            );
        assert_eq!(out, want);
    }

    #[test]
    fn hdel_removes_fields_and_empty_entries() {
        let out = merge(DB, "sonic-db-cli CONFIG_DB hdel 'PORT|Ethernet8' mtu\n").unwrap();
        assert_eq!(
            out,
            DB.replace(
                "        },\n        \"Ethernet8\": {\n            \"mtu\": \"9100\"\n        }\n",
                "        }\n"
            )
        );
        let out = merge(
            DB,
            "sonic-db-cli CONFIG_DB hdel 'PORT_QOS_MAP|Ethernet0' pfc_enable\n",
        )
        .unwrap();
        assert_eq!(
            out,
            DB.replace(",\n            \"pfc_enable\": \"3,4\"", "")
        );
    }

    #[test]
    fn flat_and_redis_dump_shapes() {
        let flat = "{\n  \"PORT|Ethernet0\": {\n    \"mtu\": \"1500\"\n  }\n}";
        let out = merge(
            flat,
            "sonic-db-cli CONFIG_DB hset 'PORT|Ethernet0' mtu 9100",
        )
        .unwrap();
        assert_eq!(out, flat.replace("1500", "9100"));
        let dump = "{\n  \"PORT|Ethernet0\": {\n    \"type\": \"hash\",\n    \"value\": {\n      \"mtu\": \"1500\"\n    }\n  }\n}";
        let out = merge(
            dump,
            "sonic-db-cli CONFIG_DB hset 'PORT|Ethernet0' mtu 9100",
        )
        .unwrap();
        assert_eq!(out, dump.replace("1500", "9100"));
        let e = entries(dump).unwrap();
        assert_eq!(e[0].0, "PORT");
        assert_eq!(e[0].2, vec![("mtu".to_string(), "1500".to_string())]);
    }

    #[test]
    fn refuses_what_it_does_not_understand() {
        for s in [
            "config interface mtu Ethernet0 9100",
            "sonic-db-cli CONFIG_DB hset 'PORT|Ethernet0' mtu",
            "sonic-db-cli CONFIG_DB hset PORT mtu 9100",
            "sonic-db-cli CONFIG_DB hset 'PORT|Ethernet0' mtu 9100; reboot",
            "sonic-db-cli CONFIG_DB hset 'PORT|Ethernet0' mtu $(reboot)",
            "sonic-db-cli APPL_DB hset 'PORT|Ethernet0' mtu 9100",
            "sonic-db-cli CONFIG_DB del 'PORT|Ethernet0'",
        ] {
            assert!(merge(DB, s).is_err(), "{s}");
        }
        assert!(merge("[1]", "sonic-db-cli CONFIG_DB hset 'A|b' c d").is_err());
        assert!(merge("{\"a\": ", "").is_err());
    }

    #[test]
    fn idempotent() {
        let s = "sonic-db-cli CONFIG_DB hset 'PORT_QOS_MAP|Ethernet8' pfc_enable 3\n";
        let once = merge(DB, s).unwrap();
        assert_eq!(merge(&once, s).unwrap(), once);
    }

    #[test]
    fn fixture_config_db_keeps_every_other_byte() {
        let t = include_str!("../../../fixtures/clean-mixed-fabric/configs/leaf1.json");
        assert_eq!(merge(t, "").unwrap(), t);
        let out = merge(
            t,
            "sonic-db-cli CONFIG_DB hset 'PORT_QOS_MAP|Ethernet0' pfc_enable '3,4'",
        )
        .unwrap();
        assert_eq!(
            out,
            t.replacen("\"pfc_enable\": \"3\"", "\"pfc_enable\": \"3,4\"", 1)
        );
    }
}
