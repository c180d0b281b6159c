//! A JSON Schema checker for the published schemas (`schemas/*.schema.json`), written for the
//! keywords `schemars` emits and nothing more: `type` (one or a list), `properties`,
//! `required`, `additionalProperties` (false or a schema), `items`, `enum`, `const`,
//! `minimum`/`maximum`, `anyOf`/`oneOf`/`allOf`, and `$ref` into `#/$defs/`. Annotations
//! (`description`, `title`, `default`, `format`) are not assertions and are skipped. A keyword
//! it does not know fails the check, so a schema that grows past this subset cannot pass
//! unchecked. (A general validator crate cost the CI about a minute of build on 2 cores.)

use serde_json::Value;

const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$defs",
    "title",
    "description",
    "default",
    "format",
    "examples",
];

/// Every place where `instance` breaks `schema` (empty: it conforms).
pub fn errors(schema: &Value, instance: &Value) -> Vec<String> {
    let mut out = Vec::new();
    check(schema, schema, instance, "", &mut out);
    out
}

fn check(root: &Value, s: &Value, v: &Value, at: &str, out: &mut Vec<String>) {
    let Some(obj) = s.as_object() else {
        if s == &Value::Bool(false) {
            out.push(format!("{at}: no value is allowed here"));
        }
        return;
    };
    for (k, kv) in obj {
        match k.as_str() {
            "$ref" => {
                let name = kv.as_str().and_then(|r| r.strip_prefix("#/$defs/"));
                match name.and_then(|n| root.get("$defs").and_then(|d| d.get(n))) {
                    Some(target) => check(root, target, v, at, out),
                    None => out.push(format!("{at}: unresolvable $ref {kv}")),
                }
            }
            "type" => {
                let types: Vec<&str> = match kv {
                    Value::String(t) => vec![t.as_str()],
                    Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                    _ => vec![],
                };
                if !types.iter().any(|t| is_type(v, t)) {
                    out.push(format!("{at}: {v} is not of type {kv}"));
                }
            }
            "properties" => {
                if let (Some(props), Some(o)) = (kv.as_object(), v.as_object()) {
                    for (name, ps) in props {
                        if let Some(x) = o.get(name) {
                            check(root, ps, x, &format!("{at}/{name}"), out);
                        }
                    }
                }
            }
            "required" => {
                if let (Some(req), Some(o)) = (kv.as_array(), v.as_object()) {
                    for r in req.iter().filter_map(Value::as_str) {
                        if !o.contains_key(r) {
                            out.push(format!("{at}: missing required property {r}"));
                        }
                    }
                }
            }
            "additionalProperties" => {
                if let Some(o) = v.as_object() {
                    let known = obj.get("properties").and_then(Value::as_object);
                    for (name, x) in o {
                        if known.is_some_and(|p| p.contains_key(name)) {
                            continue;
                        }
                        check(root, kv, x, &format!("{at}/{name}"), out);
                    }
                }
            }
            "items" => {
                if let Some(a) = v.as_array() {
                    for (i, x) in a.iter().enumerate() {
                        check(root, kv, x, &format!("{at}/{i}"), out);
                    }
                }
            }
            "enum" => {
                if !kv.as_array().is_some_and(|a| a.contains(v)) {
                    out.push(format!("{at}: {v} is not one of {kv}"));
                }
            }
            "const" => {
                if kv != v {
                    out.push(format!("{at}: {v} is not {kv}"));
                }
            }
            "minimum" | "maximum" => {
                if let (Some(limit), Some(x)) = (kv.as_f64(), v.as_f64()) {
                    let ok = if k == "minimum" {
                        x >= limit
                    } else {
                        x <= limit
                    };
                    if !ok {
                        out.push(format!("{at}: {x} is outside {k} {limit}"));
                    }
                }
            }
            "anyOf" | "oneOf" | "allOf" => {
                let subs = kv.as_array().map(Vec::as_slice).unwrap_or_default();
                let passing = subs
                    .iter()
                    .filter(|sub| {
                        let mut e = Vec::new();
                        check(root, sub, v, at, &mut e);
                        e.is_empty()
                    })
                    .count();
                let ok = match k.as_str() {
                    "anyOf" => passing >= 1,
                    "oneOf" => passing == 1,
                    _ => passing == subs.len(),
                };
                if !ok {
                    out.push(format!("{at}: {v} matches {passing} of the {k} schemas"));
                }
            }
            other if ANNOTATIONS.contains(&other) => {}
            other => out.push(format!("{at}: schema keyword {other} is not checked here")),
        }
    }
}

fn is_type(v: &Value, t: &str) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        _ => false,
    }
}
