//! "Could not decide" findings in words: each missing input named as a field of the model a
//! user recognises (never the rule's internal variable path), and why it is missing:
//!
//! - `not_collected`: a command of the platform states it, but no such output was read for the
//!   device (collect it);
//! - `not_stated`: the outputs that can state it were read, and do not (the configuration
//!   leaves it to a default the platform does not document, or the feature is not configured);
//! - `never_provided`: no input of the platform that fabric-audit reads states it.
//!
//! The rule engine's raw paths stay in `evidence.missing` (JSON compatibility); the model
//! fields go to `evidence.missing_fields` and the reasons to `evidence.why`.

use crate::finding::Finding;
use crate::model::Device;
use crate::parser::Parsers;
use crate::rules::RuleSet;

/// A rule path (`i.pgs[pg].headroom_bytes`, or a `let` name bound to one) as a model field
/// path (`interfaces[].pgs[].headroom_bytes`), if it names one.
fn model_path(rule_lets: &[String], path: &str) -> Option<String> {
    let mut p = path.to_string();
    // Substitute `let` names bound to a plain path (`x = i.pgs[pg]`), a few levels deep.
    for _ in 0..4 {
        let root: String = p
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let Some(expr) = rule_lets.iter().find_map(|l| {
            let (name, expr) = l.split_once('=')?;
            (name.trim() == root).then(|| expr.trim().to_string())
        }) else {
            break;
        };
        let plain = expr
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.[]".contains(c));
        if !plain {
            break;
        }
        p = format!("{expr}{}", &p[root.len()..]);
    }
    let mut out = String::new();
    let mut depth = 0;
    for c in p.chars() {
        match c {
            '[' => {
                depth += 1;
                if depth == 1 {
                    out.push_str("[]");
                }
            }
            ']' => depth -= 1,
            _ if depth > 0 => {}
            c => out.push(c),
        }
    }
    let (root, rest) = out.split_once('.')?;
    match root {
        // interfaces: i (an interface rule), a/b (the two ends of a link), h/s (host, switch)
        "i" | "a" | "b" | "h" | "s" => Some(format!("interfaces[].{rest}")),
        "d" | "ad" | "bd" => Some(rest.to_string()),
        _ => None,
    }
}

/// A model field path in words: `interfaces[].pgs[].headroom_bytes` → "priority group
/// headroom (bytes)".
pub fn field_words(path: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    let segs: Vec<&str> = path.split('.').map(|s| s.trim_end_matches("[]")).collect();
    for (k, s) in segs.iter().enumerate() {
        let last = k + 1 == segs.len();
        let w = match *s {
            "interfaces" if segs.len() == 2 => "port".to_string(),
            "interfaces" => continue,
            "pgs" => "priority group".into(),
            "queues" => "queue".into(),
            "watchdog" => "PFC watchdog".into(),
            "pfc" => "PFC".into(),
            "ecn" => "ECN".into(),
            "rdma" => "RDMA".into(),
            "qos" => "QoS".into(),
            "tc_to_pfc_priority" => "traffic class → PFC priority map".into(),
            "tc_to_queue" => "traffic class → queue map".into(),
            "tc_to_pg" => "traffic class → priority group map".into(),
            "dscp_to_tc" => "DSCP → traffic class map".into(),
            s if last => {
                let (base, unit) = [
                    ("_bytes", " (bytes)"),
                    ("_pct", " (%)"),
                    ("_gbps", " (Gb/s)"),
                    ("_ms", " (ms)"),
                ]
                .iter()
                .find_map(|(suf, unit)| s.strip_suffix(suf).map(|b| (b, *unit)))
                .unwrap_or((s, ""));
                format!("{}{unit}", base.replace('_', " "))
            }
            s => s.replace('_', " "),
        };
        words.push(w);
    }
    words.join(" ")
}

/// Why a model field is missing on a device: (`not_collected` | `not_stated` |
/// `never_provided`, the sentence).
fn why(parsers: &Parsers, d: &Device, field: &str) -> (&'static str, String) {
    let Some(p) = parsers.platforms.iter().find(|p| p.id == d.platform) else {
        return (
            "never_provided",
            format!(
                "the platform never provides it (no reader of platform {:?})",
                d.platform
            ),
        );
    };
    let fills: Vec<&crate::parser::Command> = p
        .commands
        .iter()
        .filter(|c| c.fills.iter().any(|f| f == field))
        .collect();
    if fills.is_empty() {
        return (
            "never_provided",
            format!(
                "the platform never provides it (no {} input fabric-audit reads states it)",
                p.id
            ),
        );
    }
    // The files of the device that a command stating the field produced.
    let mut got: Vec<String> = Vec::new();
    for fp in &d.parse {
        // A templated command (`cma_roce_tos -d {dev}`) is read under its concrete line.
        let read_as = p.command_for(&fp.command).map(|(c, _)| c.id.as_str());
        let hit = fills
            .iter()
            .any(|c| read_as == Some(c.id.as_str()) || (c.config && fp.command == "config"));
        let label = if fp.command == "config" {
            fp.file.clone()
        } else {
            fp.command.clone()
        };
        if hit && !got.contains(&label) {
            got.push(label);
        }
    }
    if got.is_empty() {
        let want: Vec<&str> = fills.iter().map(|c| c.cmd.as_str()).take(3).collect();
        (
            "not_collected",
            format!("not collected (it is in `{}`)", want.join("`, `")),
        )
    } else {
        (
            "not_stated",
            format!(
                "not in the files read (`{}` does not state it, and {} documents no default)",
                got.join("`, `"),
                p.id
            ),
        )
    }
}

/// Rewrite the message of every "could not decide" finding on a device.
pub fn explain(findings: &mut [Finding], devices: &[Device], rules: &RuleSet, parsers: &Parsers) {
    // Devices by name, the first of a name as a scan finds it (a scan per finding was
    // quadratic: 10,010 devices spent 0.7 s here).
    let mut by_name: std::collections::HashMap<&str, &Device> = std::collections::HashMap::new();
    for d in devices {
        by_name.entry(d.name.as_str()).or_insert(d);
    }
    for f in findings.iter_mut().filter(|f| f.undecided()) {
        let Some(&d) = by_name.get(&*f.device) else {
            continue;
        };
        let Some(rule) = rules.get(f.rule()) else {
            continue;
        };
        let missing: Vec<String> = f
            .evidence_mut()
            .get("missing")
            .and_then(|v| v.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        if missing.is_empty() {
            continue;
        }
        let lets: Vec<String> = rule.spec.lets.iter().map(|l| l.get_ref().clone()).collect();
        let mut fields: Vec<String> = Vec::new();
        let mut parts: Vec<String> = Vec::new();
        let mut reasons = serde_json::Map::new();
        let mut derived = false;
        for m in &missing {
            match model_path(&lets, m) {
                Some(field) if !fields.contains(&field) => {
                    let (kind, sentence) = why(parsers, d, &field);
                    parts.push(format!("{}: {sentence}", field_words(&field)));
                    reasons.insert(field.clone(), serde_json::json!(kind));
                    fields.push(field);
                }
                Some(_) => {}
                None => derived = true,
            }
        }
        if derived && parts.is_empty() {
            parts.push("a value the rule computes from inputs that were not known".into());
        }
        // "could not decide on 6 interfaces (…): " is kept; what follows is rewritten.
        let text = f.message().text().into_owned();
        let head = text
            .split_once("): ")
            .map(|(h, _)| format!("{h})"))
            .or_else(|| text.split_once(": ").map(|(h, _)| h.to_string()))
            .unwrap_or_else(|| "could not decide".into());
        f.set_message(format!("{head}: {}", parts.join("; ")));
        f.evidence_mut()
            .insert("missing_fields", serde_json::json!(fields));
        f.evidence_mut()
            .insert("why", serde_json::Value::Object(reasons));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_paths_become_model_fields_in_words() {
        let lets = vec![
            "x = i.pgs[pg]".to_string(),
            "pg = i.tc_to_pg[tc]".to_string(),
        ];
        assert_eq!(
            model_path(&lets, "i.pgs[pg].headroom_bytes").as_deref(),
            Some("interfaces[].pgs[].headroom_bytes")
        );
        assert_eq!(
            model_path(&lets, "x.xoff_bytes").as_deref(),
            Some("interfaces[].pgs[].xoff_bytes")
        );
        assert_eq!(model_path(&lets, "headroom_required"), None);
        assert_eq!(
            field_words("interfaces[].pgs[].headroom_bytes"),
            "priority group headroom (bytes)"
        );
        assert_eq!(field_words("interfaces[].speed_gbps"), "port speed (Gb/s)");
        assert_eq!(
            field_words("interfaces[].queues[].ecn.max_probability_pct"),
            "queue ECN max probability (%)"
        );
        assert_eq!(
            field_words("interfaces[].watchdog.enabled"),
            "PFC watchdog enabled"
        );
    }
}
