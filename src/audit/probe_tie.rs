//! The tie between a PROBE finding and the config findings on the same path ("latency 14 µs
//! on h3→h7; leaf2 Ethernet1/7 has PFC off").

use crate::finding::{Finding, Severity};
use crate::model::probe::Probe;
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
            f.severity() >= Severity::Warning && !f.undecided() && !f.rule().starts_with("PROBE")
        })
        .filter(|f| {
            let here = f
                .interface
                .as_deref()
                .is_some_and(|i| ports.contains(&(&*f.device, i)));
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
                            r.rule(),
                            r.message()
                        )
                    })
                    .collect();
                if related.len() > 3 {
                    parts.push(format!("{} more", related.len() - 3));
                }
                let text = format!("{}; on this path: {}", f.message(), parts.join("; "));
                f.set_message(text);
                f.evidence_mut().insert(
                    "path_findings",
                    serde_json::Value::Array(
                        related
                            .iter()
                            .map(|r| {
                                serde_json::json!({
                                    "rule": r.rule(),
                                    "severity": r.severity(),
                                    "device": r.device,
                                    "interface": r.interface,
                                    "message": r.message(),
                                })
                            })
                            .collect(),
                    ),
                );
            }
            f.evidence_mut().insert(
                "path",
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
