//! The fabric picture of the HTML report, drawn as SVG: a layered layout computed here (no
//! layout engine in the page). Tiers by role, super-spines and spines on top, leaves in the
//! middle, hosts and storage at the bottom (a device of unknown role goes with the leaves when
//! it is a switch, with the hosts otherwise); long tiers wrap onto extra rows so a fabric of
//! 64 hosts still fits, and the viewBox grows with the drawing. Each link is coloured by the
//! worst open finding on it: a finding is on a link when its device and interface are one of
//! the link's endpoints, or its peer is.

use super::html::esc;
use crate::finding::{Finding, Severity};
use crate::model::{Device, Endpoint, Fabric, Link};
use crate::text::natural_cmp;
use std::collections::HashMap;
use std::fmt::Write;

const NODE_W: f64 = 124.0;
const NODE_H: f64 = 38.0;
const GAP_X: f64 = 14.0;
const ROW_H: f64 = 64.0;
const TIER_GAP: f64 = 46.0;
const MARGIN: f64 = 16.0;
/// Nodes per row before a tier wraps.
const PER_ROW: usize = 16;
/// Longest label drawn in full (the `<title>` always holds the whole name).
const LABEL_MAX: usize = 18;

/// The colour of a severity, and of "no finding".
pub fn colour(s: Option<Severity>) -> &'static str {
    match s {
        Some(Severity::Error) => "#d62728",
        Some(Severity::Warning) => "#e69500",
        Some(Severity::Info) => "#1f77b4",
        None => "#9e9e9e",
    }
}

/// The CSS class of a severity, and of "no finding".
pub fn sev_class(s: Option<Severity>) -> &'static str {
    s.map(Severity::as_str).unwrap_or("none")
}

/// The tier a device is drawn in: 0 super-spine, 1 spine, 2 leaf, 3 host and storage.
fn tier(d: &Device) -> usize {
    match d.role.as_str() {
        "super-spine" | "superspine" => 0,
        "spine" => 1,
        "leaf" => 2,
        "host" | "storage" => 3,
        _ if d.is_switch => 2,
        _ => 3,
    }
}

/// Where each device's centre is (by index into `fabric.devices`), and the drawing's size.
pub struct Layout {
    pub at: Vec<(f64, f64)>,
    pub width: f64,
    pub height: f64,
}

pub fn layout(fabric: &Fabric) -> Layout {
    let devices = &fabric.devices;
    let mut tiers: [Vec<usize>; 4] = Default::default();
    for (i, d) in devices.iter().enumerate() {
        tiers[tier(d)].push(i);
    }
    let index: HashMap<&str, usize> = devices
        .iter()
        .enumerate()
        .map(|(i, d)| (d.name.as_str(), i))
        .collect();
    let mut neighbours: Vec<Vec<usize>> = vec![Vec::new(); devices.len()];
    for l in &fabric.links {
        if let (Some(&a), Some(&b)) = (
            index.get(l.a.device.as_str()),
            index.get(l.b.device.as_str()),
        ) {
            neighbours[a].push(b);
            neighbours[b].push(a);
        }
    }
    let cols = tiers
        .iter()
        .map(|t| t.len().min(PER_ROW))
        .max()
        .unwrap_or(0)
        .max(1);
    let inner = cols as f64 * (NODE_W + GAP_X);
    let width = inner + 2.0 * MARGIN;
    let mut at: Vec<Option<(f64, f64)>> = vec![None; devices.len()];
    let mut y = MARGIN + NODE_H / 2.0;
    let mut last = y;
    for t in tiers.iter_mut().filter(|t| !t.is_empty()) {
        // Order a tier under the ones above by the mean x of its placed neighbours
        // (fewer crossings); the top tier, and ties, by name.
        let bary = |i: usize| -> f64 {
            let xs: Vec<f64> = neighbours[i]
                .iter()
                .filter_map(|&n| at[n].map(|p| p.0))
                .collect();
            if xs.is_empty() {
                f64::INFINITY
            } else {
                xs.iter().sum::<f64>() / xs.len() as f64
            }
        };
        let mut keyed: Vec<(f64, usize)> = t.iter().map(|&i| (bary(i), i)).collect();
        keyed.sort_by(|a, b| {
            a.0.total_cmp(&b.0)
                .then_with(|| natural_cmp(&devices[a.1].name, &devices[b.1].name))
        });
        for row in keyed.chunks(PER_ROW) {
            let n = row.len() as f64;
            for (k, &(_, i)) in row.iter().enumerate() {
                at[i] = Some((MARGIN + inner * (k as f64 + 0.5) / n, y));
            }
            last = y;
            y += ROW_H;
        }
        y += TIER_GAP;
    }
    let height = last + NODE_H / 2.0 + MARGIN;
    Layout {
        at: at.into_iter().map(|p| p.unwrap_or((0.0, 0.0))).collect(),
        width,
        height,
    }
}

fn same(e: &Endpoint, device: &str, interface: &str) -> bool {
    e.device == device && e.interface == interface
}

/// True when the finding is about this link.
pub fn on_link(f: &Finding, l: &Link) -> bool {
    let ends = [&l.a, &l.b];
    f.interface
        .as_deref()
        .is_some_and(|i| ends.iter().any(|e| same(e, &f.device, i)))
        || f.peer
            .as_ref()
            .is_some_and(|p| ends.iter().any(|e| same(e, &p.device, &p.interface)))
}

fn worst<'a>(fs: impl Iterator<Item = &'a Finding>) -> (Option<Severity>, Vec<&'a Finding>) {
    let hits: Vec<&Finding> = fs.collect();
    (hits.iter().map(|f| f.severity()).max(), hits)
}

/// The worst severity of `fs`, and how many they are (a device's title counts them: a list of
/// them was a tenth of the HTML report on a device of many ports, issue 19).
fn worst_count<'a>(fs: impl Iterator<Item = &'a Finding>) -> (Option<Severity>, usize) {
    fs.fold((None, 0), |(sev, n), f| {
        (sev.max(Some(f.severity())), n + 1)
    })
}

fn label(name: &str) -> String {
    if name.chars().count() <= LABEL_MAX {
        name.to_string()
    } else {
        name.chars().take(LABEL_MAX - 1).collect::<String>() + "…"
    }
}

/// The SVG of the fabric, links coloured by the worst of `open` findings on them (the
/// findings of each list in turn, read where they are: a list of references to them was
/// 0.8 MB of the HTML report on eos-lossless-stanzas, 97,600 findings, issue 19).
pub fn render(fabric: &Fabric, open: &[&[Finding]]) -> String {
    let open = || open.iter().flat_map(|fs| fs.iter());
    let lay = layout(fabric);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" id="fabric" viewBox="0 0 {w:.0} {h:.0}" width="{w:.0}" height="{h:.0}" role="img" aria-label="fabric: {} devices, {} links">"#,
        fabric.devices.len(),
        fabric.links.len(),
        w = lay.width,
        h = lay.height,
    );
    let pos: HashMap<&str, (f64, f64)> = fabric
        .devices
        .iter()
        .zip(&lay.at)
        .map(|(d, p)| (d.name.as_str(), *p))
        .collect();
    s.push_str("<g class=\"links\">\n");
    for l in &fabric.links {
        let (Some(a), Some(b)) = (pos.get(l.a.device.as_str()), pos.get(l.b.device.as_str()))
        else {
            continue;
        };
        let (sev, hits) = worst(open().filter(|f| on_link(f, l)));
        let mut title = format!(
            "{} {} ↔ {} {}",
            l.a.device, l.a.interface, l.b.device, l.b.interface
        );
        for f in &hits {
            let _ = write!(
                title,
                "\n{} {}: {}",
                f.severity().as_str(),
                f.rule(),
                f.message()
            );
        }
        let _ = writeln!(
            s,
            r#"<line class="link sev-{cls}" data-a="{da}" data-b="{db}" data-severity="{cls}" x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{col}" stroke-width="{sw}"><title>{t}</title></line>"#,
            a.0,
            a.1,
            b.0,
            b.1,
            cls = sev_class(sev),
            da = esc(&format!("{}:{}", l.a.device, l.a.interface)),
            db = esc(&format!("{}:{}", l.b.device, l.b.interface)),
            col = colour(sev),
            sw = if sev.is_some() { 3.0 } else { 1.5 },
            t = esc(&title),
        );
    }
    s.push_str("</g>\n<g class=\"devices\">\n");
    for (d, &(x, y)) in fabric.devices.iter().zip(&lay.at) {
        let (sev, hits) = worst_count(open().filter(|f| *f.device == *d.name));
        let kind = if d.is_switch { "switch" } else { "host" };
        let title = format!(
            "{} — {} {} ({}), {} open finding(s)",
            d.name, d.platform, kind, d.role, hits
        );
        let _ = write!(
            s,
            r#"<g class="device {kind} sev-{cls}" data-device="{n}" data-role="{r}" tabindex="0"><title>{t}</title>"#,
            cls = sev_class(sev),
            n = esc(&d.name),
            r = esc(&d.role),
            t = esc(&title),
        );
        let (left, top) = (x - NODE_W / 2.0, y - NODE_H / 2.0);
        let rx = if d.is_switch { 4.0 } else { NODE_H / 2.0 };
        let _ = write!(
            s,
            r##"<rect x="{left:.1}" y="{top:.1}" width="{NODE_W}" height="{NODE_H}" rx="{rx}" fill="#ffffff" stroke="{col}" stroke-width="{sw}"/><text x="{x:.1}" y="{:.1}" text-anchor="middle" class="name">{}</text><text x="{x:.1}" y="{:.1}" text-anchor="middle" class="sub">{}</text></g>"##,
            y - 2.0,
            esc(&label(&d.name)),
            y + 12.0,
            esc(&label(&format!("{} · {}", d.platform, d.role))),
            col = if sev.is_some() {
                colour(sev)
            } else {
                "#555555"
            },
            sw = if sev.is_some() { 2.5 } else { 1.0 },
        );
        s.push('\n');
    }
    s.push_str("</g>\n</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(name: String, role: &str, is_switch: bool) -> Device {
        Device {
            name,
            role: role.to_string(),
            is_switch,
            ..Device::default()
        }
    }

    #[test]
    fn sixty_four_hosts_wrap_into_rows_inside_the_view_box() {
        let mut devices = vec![
            dev("spine1".into(), "spine", true),
            dev("spine2".into(), "spine", true),
            dev("odd-switch".into(), "unknown", true),
        ];
        devices.extend((1..=4).map(|i| dev(format!("leaf{i}"), "leaf", true)));
        devices.extend((1..=64).map(|i| dev(format!("gpu{i:02}"), "host", false)));
        let fabric = Fabric {
            devices,
            ..Fabric::default()
        };
        let lay = layout(&fabric);
        let ys = |role: &str| -> Vec<f64> {
            let mut v: Vec<f64> = fabric
                .devices
                .iter()
                .zip(&lay.at)
                .filter(|(d, _)| d.role == role)
                .map(|(_, p)| p.1)
                .collect();
            v.dedup();
            v.sort_by(f64::total_cmp);
            v.dedup();
            v
        };
        assert_eq!(ys("host").len(), 4, "64 hosts in 4 rows of 16");
        assert!(ys("spine")[0] < ys("leaf")[0] && ys("leaf")[0] < ys("host")[0]);
        assert_eq!(
            ys("unknown"),
            ys("leaf"),
            "a switch of unknown role sits with the leaves"
        );
        for (i, &(x, y)) in lay.at.iter().enumerate() {
            assert!(
                x - NODE_W / 2.0 >= 0.0 && x + NODE_W / 2.0 <= lay.width,
                "{x}"
            );
            assert!(
                y - NODE_H / 2.0 >= 0.0 && y + NODE_H / 2.0 <= lay.height,
                "{y}"
            );
            for &(x2, y2) in &lay.at[i + 1..] {
                assert!(
                    (x - x2).abs() >= NODE_W || (y - y2).abs() >= NODE_H,
                    "nodes overlap"
                );
            }
        }
    }
}
