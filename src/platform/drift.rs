//! Drift: where a platform's state outputs show a running value other than its configuration's.

/// The facts a state overlay changed: `before` and `after` are one device's ports before and
/// after the show outputs were applied, compared port by port serialized with sources
/// (`crate::model::with_sources`). A leaf that had a value from the configuration and now
/// holds a different value from another file is drift. Ports are matched by name; lists
/// inside a port by position.
///
/// One pair of ports is serialized at a time: the whole device as JSON values, twice, was
/// ~12 KiB a port and the peak of a Cumulus build (issue 19).
pub fn between(
    before: &[crate::model::Interface],
    after: &[crate::model::Interface],
) -> Vec<crate::model::Drift> {
    let mut out = Vec::new();
    let mut by_name: std::collections::HashMap<&str, &crate::model::Interface> =
        std::collections::HashMap::with_capacity(after.len());
    for a in after {
        by_name.entry(a.name.as_str()).or_insert(a);
    }
    let value =
        |i: &crate::model::Interface| crate::model::with_sources(|| serde_json::to_value(i)).ok();
    for bi in before {
        let Some(ai) = by_name.get(bi.name.as_str()) else {
            continue;
        };
        if let (Some(bv), Some(av)) = (value(bi), value(ai)) {
            walk(&bv, &av, "", Some(&bi.name), &mut out);
        }
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
