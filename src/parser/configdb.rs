//! SONiC CONFIG_DB documents in every layout SONiC and its tools write, normalized to one:
//! `{"TABLE": {"key": {"field": "value"}}}`, each key and value keeping its source line.
//!
//! Layouts (each has a golden case under `fixtures/sonic/config-db-json/layouts/`):
//! - nested, as `sonic-cfggen -d --print-data`, `show runningconfiguration all` and
//!   `/etc/sonic/config_db.json` write it (json.dump indent=4), and as sonic-cfggen renders
//!   the qos.json / buffers.json templates (`"pfc_enable"      : "3,4"`, spaces before the
//!   colon); compact or tab-indented copies of the same;
//! - flat `"TABLE|key": {fields}` (sonic-utilities `tests/mock_tables/config_db.json`);
//! - `redis-dump` (`"TABLE|key": {"type": "hash", "value": {fields}, "ttl": -1, "expireat":
//!   ...}`, sonic-utilities `tests/db_migrator_input/config_db/*.json`): the fields are the
//!   `value` object; the Redis metadata is dropped;
//! - YANG-wrapped (RFC 7951 JSON of the sonic-yang models, as `sonic_yang` translates a config
//!   DB: `"sonic-port:sonic-port": {"sonic-port:PORT": {"PORT_LIST": [{"name": "Ethernet0",
//!   "mtu": 9100}]}}`): each list entry becomes `TABLE|key`, its key leaves joined with `|` in
//!   the order of the YANG `key` statement (known per table below), a map's inner list
//!   (`"DSCP_TO_TC_MAP": [{"dscp": "8", "tc": "1"}]`) becomes its `from: to` fields.
//!
//! A shape none of these explains is kept as it is, so its lines are reported unrecognized.

use super::json::{Member, Node, Value};

/// Normalize a CONFIG_DB document (see the module doc). Never fails.
pub fn normalize(root: Node) -> Node {
    let line = root.line;
    let Value::Object(members) = root.value else {
        return root;
    };
    let mut tables: Vec<Member> = Vec::new();
    for m in members {
        if let Some((table, key)) = m.key.split_once('|') {
            let (table, key) = (table.to_string(), key.to_string());
            let entry = Member {
                key,
                line: m.line,
                value: unwrap_redis(m.value),
            };
            push_entry(&mut tables, &table, m.line, entry);
        } else if m.key.contains(':') && matches!(m.value.value, Value::Object(_)) {
            yang_module(&mut tables, m);
        } else {
            match tables.iter_mut().find(|t| t.key == m.key) {
                // A table written twice (or once nested, once flat): one table, in order.
                Some(t) => {
                    if let (Value::Object(have), Value::Object(more)) =
                        (&mut t.value.value, m.value.value)
                    {
                        have.extend(more);
                    }
                }
                None => tables.push(m),
            }
        }
    }
    Node {
        line,
        value: Value::Object(tables),
    }
}

fn push_entry(tables: &mut Vec<Member>, table: &str, line: u32, entry: Member) {
    if let Some(t) = tables.iter_mut().find(|t| t.key == table)
        && let Value::Object(es) = &mut t.value.value
    {
        es.push(entry);
        return;
    }
    tables.push(Member {
        key: table.to_string(),
        line,
        value: Node {
            line,
            value: Value::Object(vec![entry]),
        },
    });
}

/// A redis-dump entry (`type` hash and a `value` object) → its fields; anything else as it is.
fn unwrap_redis(v: Node) -> Node {
    let is_dump = v.get("value").is_some_and(|x| x.as_object().is_some())
        && v.get("type").and_then(Node::as_str).is_some()
        && v.as_object().is_some_and(|ms| {
            ms.iter()
                .all(|m| matches!(m.key.as_str(), "value" | "type" | "ttl" | "expireat"))
        });
    if !is_dump {
        return v;
    }
    let line = v.line;
    let Value::Object(ms) = v.value else {
        return Node {
            line,
            value: Value::Null,
        };
    };
    ms.into_iter()
        .find(|m| m.key == "value")
        .map(|m| m.value)
        .unwrap_or(Node {
            line,
            value: Value::Object(Vec::new()),
        })
}

/// The key leaves of a sonic-yang list, in the order of its `key` statement, for the tables
/// fabric-audit reads (sonic-buildimage src/sonic-yang-models/yang-models/sonic-*.yang).
/// Other lists are keyed by `name`, which most sonic-yang lists use.
fn key_leaves(table: &str) -> &'static [&'static str] {
    match table {
        "PORT_QOS_MAP" | "PFC_WD" => &["ifname"],
        "QUEUE" => &["ifname", "qindex"],
        "BUFFER_PG" => &["port", "pg_num"],
        "BUFFER_QUEUE" => &["port", "qindex"],
        "BUFFER_PORT_INGRESS_PROFILE_LIST" | "BUFFER_PORT_EGRESS_PROFILE_LIST" => &["port"],
        _ => &["name"],
    }
}

/// A map's inner list in sonic-yang (named as its table): (from-leaf, to-leaf), from the
/// `sonic-*-map.yang` and `sonic-cable-length.yang` models.
fn map_pairs(list: &str) -> Option<(&'static str, &'static str)> {
    Some(match list {
        "DSCP_TO_TC_MAP" => ("dscp", "tc"),
        "DOT1P_TO_TC_MAP" => ("dot1p", "tc"),
        "TC_TO_QUEUE_MAP" => ("tc", "qindex"),
        "TC_TO_PRIORITY_GROUP_MAP" => ("tc", "pg"),
        "MAP_PFC_PRIORITY_TO_QUEUE" => ("pfc_priority", "qindex"),
        "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP" => ("pfc_priority", "pg"),
        "CABLE_LENGTH" => ("port", "length"),
        _ => return None,
    })
}

/// `"module:module": {"module:TABLE": {"TABLE_LIST": [...]} | {container...}}` → tables.
fn yang_module(tables: &mut Vec<Member>, m: Member) {
    let Value::Object(containers) = m.value.value else {
        return;
    };
    for c in containers {
        let table = c.key.rsplit(':').next().unwrap_or(&c.key).to_string();
        let Value::Object(inner) = c.value.value else {
            tables.push(Member {
                key: c.key.clone(),
                line: c.line,
                value: c.value,
            });
            continue;
        };
        for l in inner {
            match l.value.value {
                Value::Array(items) if l.key.ends_with("_LIST") => {
                    for it in items {
                        if let Some(e) = yang_entry(&table, it) {
                            push_entry(tables, &table, c.line, e);
                        }
                    }
                }
                // A container (DEVICE_METADATA's `localhost`, PFC_WD's `GLOBAL`): key = its name.
                value => push_entry(
                    tables,
                    &table,
                    c.line,
                    Member {
                        key: l.key,
                        line: l.line,
                        value: Node {
                            line: l.line,
                            value,
                        },
                    },
                ),
            }
        }
    }
}

fn yang_entry(table: &str, it: Node) -> Option<Member> {
    let line = it.line;
    let Value::Object(leaves) = it.value else {
        return None;
    };
    let keys = key_leaves(table);
    let mut parts = Vec::new();
    for k in keys {
        let v = leaves.iter().find(|m| m.key == *k)?;
        parts.push(v.value.scalar_text()?.to_string());
    }
    let mut fields = Vec::new();
    for f in leaves {
        if keys.contains(&f.key.as_str()) {
            continue;
        }
        match (map_pairs(&f.key), f.value.value) {
            (Some((from, to)), Value::Array(pairs)) => {
                for p in pairs {
                    let (Some(a), Some(b)) = (
                        p.get(from).and_then(Node::scalar_text),
                        p.get(to).and_then(Node::scalar_text),
                    ) else {
                        continue;
                    };
                    fields.push(Member {
                        key: a.to_string(),
                        line: p.line,
                        value: Node {
                            line: p.line,
                            value: Value::String(b.to_string()),
                        },
                    });
                }
            }
            // A leaf-list (`profile_list`) is a comma-separated string in CONFIG_DB.
            (_, Value::Array(items)) if items.iter().all(|i| i.scalar_text().is_some()) => {
                let joined: Vec<&str> = items.iter().filter_map(Node::scalar_text).collect();
                fields.push(Member {
                    key: f.key,
                    line: f.line,
                    value: Node {
                        line: f.value.line,
                        value: Value::String(joined.join(",")),
                    },
                });
            }
            (_, value) => fields.push(Member {
                key: f.key,
                line: f.line,
                value: Node {
                    line: f.value.line,
                    value,
                },
            }),
        }
    }
    Some(Member {
        key: parts.join("|"),
        line,
        value: Node {
            line,
            value: Value::Object(fields),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::json::{parse, render};

    fn canon(text: &str) -> Vec<String> {
        let d = parse(text);
        assert_eq!(d.error, None, "{text}");
        render(&normalize(d.root.unwrap()), true)
            .into_iter()
            .map(|l| format!("{}{}", "  ".repeat(l.depth), l.text))
            .collect()
    }

    #[test]
    fn every_layout_gives_the_same_tables() {
        let want = canon(
            r#"{"PORT": {"Ethernet0": {"mtu": "9100"}}, "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}}}"#,
        );
        let flat = r#"{"PORT|Ethernet0": {"mtu": "9100"}, "PORT_QOS_MAP|Ethernet0": {"pfc_enable": "3,4"}}"#;
        let dump = r#"{"PORT|Ethernet0": {"type": "hash", "ttl": -1, "expireat": 1.5, "value": {"mtu": "9100"}},
                       "PORT_QOS_MAP|Ethernet0": {"type": "hash", "value": {"pfc_enable": "3,4"}}}"#;
        let yang = r#"{"sonic-port:sonic-port": {"sonic-port:PORT": {"PORT_LIST": [{"name": "Ethernet0", "mtu": 9100}]}},
                       "sonic-port-qos-map:sonic-port-qos-map": {"sonic-port-qos-map:PORT_QOS_MAP": {"PORT_QOS_MAP_LIST": [{"ifname": "Ethernet0", "pfc_enable": "3,4"}]}}}"#;
        for t in [flat, dump, yang] {
            assert_eq!(canon(t), want, "{t}");
        }
    }

    #[test]
    fn yang_maps_and_composite_keys() {
        let got = canon(
            r#"{"sonic-dscp-tc-map:sonic-dscp-tc-map": {"sonic-dscp-tc-map:DSCP_TO_TC_MAP": {"DSCP_TO_TC_MAP_LIST": [
                 {"name": "AZURE", "DSCP_TO_TC_MAP": [{"dscp": "26", "tc": "3"}]}]}},
               "sonic-buffer-pg:sonic-buffer-pg": {"sonic-buffer-pg:BUFFER_PG": {"BUFFER_PG_LIST": [
                 {"port": "Ethernet0", "pg_num": "3-4", "profile": "pg_lossless"}]}}}"#,
        );
        assert_eq!(
            got,
            vec![
                "\"DSCP_TO_TC_MAP\": {",
                "  \"AZURE\": {",
                "    \"26\": \"3\"",
                "\"BUFFER_PG\": {",
                "  \"Ethernet0|3-4\": {",
                "    \"profile\": \"pg_lossless\"",
            ]
        );
    }

    #[test]
    fn a_non_dump_entry_with_a_value_field_is_kept() {
        // A field that happens to be called "value" beside real fields is not redis metadata.
        let got = canon(r#"{"T|k": {"value": {"a": "1"}, "other": "2"}}"#);
        assert_eq!(got.len(), 5, "{got:?}");
    }
}
