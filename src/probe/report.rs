//! Probes in reports: the table of pairs with their figures, and the tie between a PROBE
//! finding and the config findings on the same path ("latency 14 µs on h3→h7; leaf2
//! Ethernet1/7 has PFC off").

use super::Probe;
use crate::finding::{Finding, Severity};
use crate::report::table::cell;
use std::collections::BTreeSet;

/// Config findings (warning or error, decided) on a port of the probe's path.
fn on_path<'a>(p: &Probe, config: &'a [Finding]) -> Vec<&'a Finding> {
    let ports: BTreeSet<(&str, &str)> = p
        .path
        .iter()
        .map(|e| (e.device.as_str(), e.interface.as_str()))
        .collect();
    config
        .iter()
        .filter(|f| {
            f.severity >= Severity::Warning && !f.undecided() && !f.rule.starts_with("PROBE")
        })
        .filter(|f| {
            let here = f
                .interface
                .as_deref()
                .is_some_and(|i| ports.contains(&(f.device.as_str(), i)));
            let peer = f
                .peer
                .as_ref()
                .is_some_and(|e| ports.contains(&(e.device.as_str(), e.interface.as_str())));
            here || peer
        })
        .collect()
}

/// Attach to every PROBE finding the config findings on its path (message and evidence).
pub fn tie(
    found: Vec<(Option<usize>, Finding)>,
    probes: &[Probe],
    config: &[Finding],
) -> Vec<Finding> {
    let mut out = Vec::with_capacity(found.len());
    for (pi, mut f) in found {
        if let Some(p) = pi.and_then(|i| probes.get(i)) {
            // A probe that gave no result says nothing about the path's config.
            let no_result = matches!(
                p.status.as_str(),
                "failed" | "timeout" | "interrupted" | "skipped"
            );
            let related = if no_result {
                vec![]
            } else {
                on_path(p, config)
            };
            if !related.is_empty() {
                let mut parts: Vec<String> = related
                    .iter()
                    .take(3)
                    .map(|r| {
                        format!(
                            "{} {} {} ({})",
                            r.device,
                            r.interface.as_deref().unwrap_or(""),
                            r.rule,
                            r.message
                        )
                    })
                    .collect();
                if related.len() > 3 {
                    parts.push(format!("{} more", related.len() - 3));
                }
                f.message = format!("{}; on this path: {}", f.message, parts.join("; "));
                f.evidence.insert(
                    "path_findings".into(),
                    serde_json::Value::Array(
                        related
                            .iter()
                            .map(|r| {
                                serde_json::json!({
                                    "rule": r.rule,
                                    "severity": r.severity,
                                    "device": r.device,
                                    "interface": r.interface,
                                    "message": r.message,
                                })
                            })
                            .collect(),
                    ),
                );
            }
            f.evidence.insert(
                "path".into(),
                serde_json::Value::Array(
                    p.path
                        .iter()
                        .map(|e| serde_json::Value::String(format!("{}:{}", e.device, e.interface)))
                        .collect(),
                ),
            );
        }
        out.push(f);
    }
    out
}

fn us(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.2}")).unwrap_or_default()
}

/// One line per probe: pair, class, test, figures or the reason there are none.
pub fn table(probes: &[Probe]) -> String {
    let mut t = crate::report::table::new_table(false);
    t.set_header(vec![
        "pair",
        "class",
        "test",
        "size",
        "status",
        "min µs",
        "median µs",
        "p99 µs",
        "max µs",
        "Gb/s",
        "note",
    ]);
    for p in probes {
        let l = p.latency.as_ref();
        let note = match (&p.mtu, &p.message) {
            (Some(m), _) if m.verdict != "ok" => format!(
                "{}-byte packets: {}{} ({} of {} replies; small ping {})",
                m.mtu,
                m.verdict,
                m.reported_mtu
                    .map(|x| format!(", mtu {x} reported"))
                    .unwrap_or_default(),
                m.big_received,
                m.big_sent,
                if m.small_received > 0 {
                    "answered"
                } else {
                    "unanswered"
                }
            ),
            (Some(m), _) => format!("{}-byte packets pass", m.mtu),
            (None, Some(msg)) => msg.clone(),
            (None, None) => String::new(),
        };
        t.add_row(vec![
            cell(format!("{} → {}", p.src, p.dst)),
            cell(&p.path_class),
            cell(format!("{} {}", p.test, p.transport)),
            cell(p.size.map(|s| s.to_string()).unwrap_or_default()),
            cell(&p.status),
            cell(us(l.and_then(|l| l.min))),
            cell(us(l.map(|l| l.median))),
            cell(us(l.and_then(|l| l.p99))),
            cell(us(l.and_then(|l| l.max))),
            cell(p.bw_gbps.map(|b| format!("{b:.1}")).unwrap_or_default()),
            cell(note),
        ]);
    }
    format!("{t}\n")
}
