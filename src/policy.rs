//! Strict validation of `fabric.toml [policy]`: every key known, every value of the type its
//! default has, numbers finite and within their range. A typo in CI must fail the run (exit 2,
//! file:line), not pass it quietly or turn into false findings: `mtu = "9000"` (a string)
//! compared with numbers gave 16 false errors, `roce_dscpp = 26` was only a warning, and
//! `mtu = nan` or `roce_dscp = 64` were used as given (issues 17 and 19).
//!
//! The known keys are those of `rules/policy.toml` and every rule's `[rule.params]`; the type a
//! key takes is its default's. Ranges come from the protocol fields the values end up in:
//!
//! - DSCP is the six-bit Differentiated Services Codepoint, 0..=63 (RFC 2474 §3, "Definition of
//!   the Differentiated Services Field (DS Field) in the IPv4 and IPv6 Headers",
//!   <https://www.rfc-editor.org/rfc/rfc2474#section-3>); `storage_dscp` also takes -1 (unset).
//! - Priorities and traffic classes are the three-bit Priority Code Point of IEEE 802.1Q, 0..=7,
//!   the eight priorities PFC pauses (IEEE 802.1Qbb; Linux `dcb-pfc(8)`: "prio-pfc ... PRIO is
//!   0..7", <https://man7.org/linux/man-pages/man8/dcb-pfc.8.html>).
//! - An MTU is an IPv4 packet size: at least 68 octets, at most 65535, the 16-bit Total Length
//!   (RFC 791, "Internet Protocol", <https://www.rfc-editor.org/rfc/rfc791>).
//! - Percentages are 0..=100; shares written as fractions 0..=1.

use crate::parser::line_col;
use std::collections::BTreeMap;
use toml::Spanned;

/// One refused policy entry: `file:line:col: message`.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyError {
    pub file: String,
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl std::fmt::Display for PolicyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.col, self.message
        )
    }
}

/// A numeric range a key's value (or each element of it) must fall in, and why.
struct Range {
    lo: f64,
    hi: f64,
    why: &'static str,
}

const DSCP: Range = Range {
    lo: 0.0,
    hi: 63.0,
    why: "a DSCP is 6 bits, RFC 2474 §3",
};
const PRIORITY: Range = Range {
    lo: 0.0,
    hi: 7.0,
    why: "an 802.1Q priority or traffic class is 3 bits",
};
const PERCENT: Range = Range {
    lo: 0.0,
    hi: 100.0,
    why: "a percentage",
};

/// The range of a known key, if it has one.
fn range_of(key: &str) -> Option<Range> {
    Some(match key {
        "roce_dscp" | "cnp_dscp" => DSCP,
        "storage_dscp" => Range {
            lo: -1.0,
            why: "a DSCP is 6 bits, RFC 2474 §3; -1 leaves it unset",
            ..DSCP
        },
        "roce_tc" | "cnp_tc" | "cnp_priority" | "lossless_priorities" => PRIORITY,
        "max_lossless_priorities" => Range {
            lo: 0.0,
            hi: 8.0,
            why: "802.1Q has 8 priorities",
        },
        "mtu" => Range {
            lo: 68.0,
            hi: 65535.0,
            why: "an IPv4 packet is 68 to 65535 octets, RFC 791",
        },
        "encap_overhead" => Range {
            lo: 0.0,
            hi: 65535.0,
            why: "bytes added to an IP packet",
        },
        "roce_min_share" | "pcie_stall_pct" | "profile_pmax" => PERCENT,
        "min_share" => Range {
            lo: 0.0,
            hi: 1.0,
            why: "a fraction of the port speed",
        },
        "ecn_min_floor_bytes"
        | "ecn_max_ceiling_bytes"
        | "default_cable_m"
        | "tolerance_m"
        | "min_paths"
        | "max_paths"
        | "small_max_bytes"
        | "detect_min_ms"
        | "detect_max_ms"
        | "nic_stall_max_ms"
        | "max_error_count"
        | "healthy_us"
        | "warning_us"
        | "p999_ratio"
        | "max_ratio"
        | "min_ib_timeout"
        | "ib_retry_cnt" => Range {
            lo: 0.0,
            hi: f64::MAX,
            why: "a count, size or duration",
        },
        _ => return None,
    })
}

/// The words a string key takes, when it is a closed set.
fn choices_of(key: &str) -> Option<&'static [&'static str]> {
    match key {
        // ECN003's profiles (rules/ecn.toml profile_pmax) and "custom".
        "ecn_profile" => Some(&["nvidia", "cisco_blueprint", "sonic", "custom"]),
        _ => None,
    }
}

/// The element type of a key whose default is an empty array.
fn empty_array_element(key: &str) -> Option<toml::Value> {
    match key {
        "roce_ports" => Some(toml::Value::String(String::new())),
        _ => None,
    }
}

#[derive(serde::Deserialize)]
struct PolicyOnly {
    #[serde(default)]
    policy: BTreeMap<String, Spanned<toml::Value>>,
}

/// Check the `[policy]` table of `text` (a fabric.toml named `file`) against `known`: each
/// known key with its default. Returns every problem found, in file order.
pub fn check(
    text: &str,
    file: &str,
    known: &BTreeMap<String, serde_json::Value>,
) -> Vec<PolicyError> {
    // In pieces, as the snapshot reader reads the file: parsed whole, a plan of a few thousand
    // short `[[link]]` tables cost 50 to 70 times its size here (issue 19).
    let Ok(doc) = crate::toml_pieces::from_str::<PolicyOnly>(text) else {
        // The snapshot reader reports a fabric.toml that is not TOML.
        return Vec::new();
    };
    let mut errs: Vec<PolicyError> = doc
        .policy
        .iter()
        .filter_map(|(k, v)| {
            let problem = problem(k, v.get_ref(), known)?;
            let (line, col) = line_col(text, v.span().start);
            Some(PolicyError {
                file: file.to_string(),
                line,
                col,
                message: format!("[policy] {k}: {problem}"),
            })
        })
        .collect();
    errs.sort_by_key(|e| (e.line, e.col));
    errs
}

/// What is wrong with `key = value`, if anything.
fn problem(
    key: &str,
    value: &toml::Value,
    known: &BTreeMap<String, serde_json::Value>,
) -> Option<String> {
    let Some(default) = known.get(key) else {
        return Some(unknown_key(key, known));
    };
    let shown = value.to_string();
    if let Some(want) = type_mismatch(key, value, default) {
        return Some(format!("{shown} is {}, expected {want}", kind(value)));
    }
    for n in numbers(value) {
        if !n.is_finite() {
            return Some(format!("{shown} is not a finite number"));
        }
        if let Some(r) = range_of(key).filter(|r| n < r.lo || n > r.hi) {
            let hi = if r.hi == f64::MAX {
                String::new()
            } else {
                r.hi.to_string()
            };
            return Some(format!(
                "{shown} is out of range {}..{hi} ({})",
                r.lo, r.why
            ));
        }
    }
    if let (Some(words), toml::Value::String(s)) = (choices_of(key), value)
        && !words.contains(&s.as_str())
    {
        return Some(format!("{shown} is not one of {}", words.join(", ")));
    }
    None
}

fn unknown_key(key: &str, known: &BTreeMap<String, serde_json::Value>) -> String {
    let near = known
        .keys()
        .map(|k| (edit_distance(key, k), k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 4))
        .min();
    match near {
        Some((_, k)) => format!("unknown key; did you mean {k}?"),
        None => format!(
            "unknown key (known: {})",
            known.keys().cloned().collect::<Vec<_>>().join(", ")
        ),
    }
}

/// The type `value` should have had, when it is not the type of `default`.
fn type_mismatch(key: &str, value: &toml::Value, default: &serde_json::Value) -> Option<String> {
    use serde_json::Value as J;
    use toml::Value as T;
    let ok = match (default, value) {
        (J::Number(d), T::Integer(_)) => d.is_i64() || d.is_u64() || d.is_f64(),
        (J::Number(d), T::Float(_)) => d.is_f64(),
        (J::String(_), T::String(_)) | (J::Bool(_), T::Boolean(_)) => true,
        (J::Array(d), T::Array(v)) => {
            let elem = d
                .first()
                .cloned()
                .or_else(|| empty_array_element(key).and_then(|e| serde_json::to_value(e).ok()));
            return match elem {
                Some(e) => v
                    .iter()
                    .find_map(|x| type_mismatch(key, x, &e))
                    .map(|w| format!("an array of {w}")),
                None => None,
            };
        }
        (J::Object(d), T::Table(v)) => {
            return d.values().next().and_then(|e| {
                v.values()
                    .find_map(|x| type_mismatch(key, x, e))
                    .map(|w| format!("a table of {w}"))
            });
        }
        _ => false,
    };
    (!ok).then(|| match default {
        J::Number(d) if d.is_f64() => "a number".to_string(),
        J::Number(_) => "an integer".to_string(),
        J::String(_) => "a string".to_string(),
        J::Bool(_) => "true or false".to_string(),
        J::Array(_) => "an array".to_string(),
        J::Object(_) => "a table".to_string(),
        J::Null => "nothing".to_string(),
    })
}

fn kind(v: &toml::Value) -> &'static str {
    match v {
        toml::Value::String(_) => "a string",
        toml::Value::Integer(_) => "an integer",
        toml::Value::Float(_) => "a float",
        toml::Value::Boolean(_) => "a boolean",
        toml::Value::Datetime(_) => "a date",
        toml::Value::Array(_) => "an array",
        toml::Value::Table(_) => "a table",
    }
}

/// Every number in `v`, in arrays and tables too.
fn numbers(v: &toml::Value) -> Vec<f64> {
    match v {
        toml::Value::Integer(i) => vec![*i as f64],
        toml::Value::Float(f) => vec![*f],
        toml::Value::Array(a) => a.iter().flat_map(numbers).collect(),
        toml::Value::Table(t) => t.values().flat_map(numbers).collect(),
        _ => Vec::new(),
    }
}

/// Levenshtein distance on characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> BTreeMap<String, serde_json::Value> {
        serde_json::from_str(
            r#"{"roce_dscp": 26, "storage_dscp": -1, "mtu": 9000, "lossless_priorities": [3],
                "roce_ports": [], "ecn_profile": "nvidia", "healthy_us": 5.0,
                "profile_pmax": {"nvidia": 100}}"#,
        )
        .unwrap_or_default()
    }

    fn msgs(policy: &str) -> Vec<String> {
        check(&format!("[policy]\n{policy}\n"), "fabric.toml", &known())
            .into_iter()
            .map(|e| e.to_string())
            .collect()
    }

    #[test]
    fn good_values_pass() {
        assert!(
            msgs("roce_dscp = 26\nstorage_dscp = -1\nmtu = 9216\nlossless_priorities = [3, 4]\nroce_ports = [\"Ethernet*\"]\necn_profile = \"custom\"\nhealthy_us = 4\nprofile_pmax = { nvidia = 50 }")
                .is_empty()
        );
    }

    #[test]
    fn each_problem_is_named_with_its_line() {
        assert_eq!(
            msgs("roce_dscp = 64"),
            [
                "fabric.toml:2:13: [policy] roce_dscp: 64 is out of range 0..63 (a DSCP is 6 bits, RFC 2474 §3)"
            ]
        );
        assert_eq!(
            msgs("mtu = \"9000\""),
            ["fabric.toml:2:7: [policy] mtu: \"9000\" is a string, expected an integer"]
        );
        assert_eq!(
            msgs("mtu = nan"),
            ["fabric.toml:2:7: [policy] mtu: nan is a float, expected an integer"]
        );
        assert_eq!(
            msgs("healthy_us = nan"),
            ["fabric.toml:2:14: [policy] healthy_us: nan is not a finite number"]
        );
        assert_eq!(
            msgs("roce_dscpp = 26"),
            ["fabric.toml:2:14: [policy] roce_dscpp: unknown key; did you mean roce_dscp?"]
        );
        assert!(msgs("lossless_priorities = [3, 8]")[0].contains("out of range 0..7"));
        assert!(
            msgs("lossless_priorities = [\"3\"]")[0].contains("expected an array of an integer")
        );
        assert!(msgs("roce_ports = [1]")[0].contains("expected an array of a string"));
        assert!(msgs("ecn_profile = \"nvida\"")[0].contains("not one of nvidia"));
        assert!(msgs("profile_pmax = { nvidia = 101 }")[0].contains("out of range"));
        assert!(msgs("zzz = 1")[0].contains("unknown key (known: "));
        assert_eq!(msgs("roce_dscp = 64\nmtu = 1").len(), 2);
    }

    #[test]
    fn distance() {
        assert_eq!(edit_distance("roce_dscpp", "roce_dscp"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
