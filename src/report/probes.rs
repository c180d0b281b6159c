//! Probes in reports: the table of pairs with their figures.

use super::table::cell;
use crate::model::probe::Probe;

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
