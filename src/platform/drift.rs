//! Drift: where a platform's state outputs show a running value other than its configuration's.

/// The facts a state overlay changed: `before` and `after` are one device serialized with
/// sources (`crate::model::with_sources`) before and after the show outputs were applied. A
/// leaf that had a value from the configuration and now holds a different value from another
/// file is drift. Interfaces are matched by name; other lists by position.
pub fn between(before: &serde_json::Value, after: &serde_json::Value) -> Vec<crate::model::Drift> {
    let mut out = Vec::new();
    let (Some(b), Some(a)) = (
        before.get("interfaces").and_then(|v| v.as_array()),
        after.get("interfaces").and_then(|v| v.as_array()),
    ) else {
        return out;
    };
    for bi in b {
        let Some(name) = bi.get("name").and_then(|n| n.as_str()) else {
            continue;
        };
        let Some(ai) = a
            .iter()
            .find(|x| x.get("name").and_then(|n| n.as_str()) == Some(name))
        else {
            continue;
        };
        walk(bi, ai, "", Some(name), &mut out);
    }
    out
}

fn walk(
    b: &serde_json::Value,
    a: &serde_json::Value,
    path: &str,
    iface: Option<&str>,
    out: &mut Vec<crate::model::Drift>,
) {
    use serde_json::Value;
    match (b, a) {
        (Value::Object(bm), Value::Object(am)) => {
            if bm.contains_key("value") && bm.contains_key("default") {
                let file = |m: &serde_json::Map<String, Value>| {
                    m.get("file").and_then(|f| f.as_str()).map(str::to_string)
                };
                let (Some(bf), Some(af)) = (file(bm), file(am)) else {
                    return;
                };
                if bf != af && differs(bm.get("value"), am.get("value")) {
                    let line = |m: &serde_json::Map<String, Value>| {
                        m.get("line").and_then(|l| l.as_u64()).unwrap_or(0)
                    };
                    out.push(crate::model::Drift {
                        interface: iface.map(str::to_string),
                        what: path.to_string(),
                        intended: bm.get("value").map(|v| v.to_string()).unwrap_or_default(),
                        intended_at: format!("{bf}:{}", line(bm)),
                        implied: bm.get("default") == Some(&Value::Bool(true)),
                        running: am.get("value").map(|v| v.to_string()).unwrap_or_default(),
                        file: af,
                        line: line(am) as u32,
                    });
                }
                return;
            }
            for (k, bv) in bm {
                // Pool names: the configuration's profile names and the ASIC's pool names
                // label the same pools differently.
                if matches!(k.as_str(), "name" | "defined_at" | "pool") {
                    continue;
                }
                if let Some(av) = am.get(k) {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    walk(bv, av, &p, iface, out);
                }
            }
        }
        (Value::Array(bl), Value::Array(al)) => {
            for (k, (bv, av)) in bl.iter().zip(al).enumerate() {
                walk(bv, av, &format!("{path}[{k}]"), iface, out);
            }
        }
        _ => {}
    }
}

/// Whether two values differ beyond display rounding: state outputs print sizes rounded
/// ("146.48 KB"), so numbers within 0.5 % are the same value.
fn differs(b: Option<&serde_json::Value>, a: Option<&serde_json::Value>) -> bool {
    match (b.and_then(|v| v.as_f64()), a.and_then(|v| v.as_f64())) {
        (Some(x), Some(y)) => (x - y).abs() > 0.005 * x.abs().max(y.abs()),
        _ => b != a,
    }
}
