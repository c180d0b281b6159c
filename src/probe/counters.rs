//! Counters before and after a probe: `ethtool -S IF` and the RDMA port's hw_counters, read as
//! name → value, subtracted, and summed into the few figures the PROBE rules read.

use super::Deltas;
use std::collections::BTreeMap;

pub type Counters = BTreeMap<String, i64>;

/// `ethtool -S` ("NIC statistics:" then `name: value` lines) and `grep -H . .../hw_counters/*`
/// (`path/name:value`) in one reader: any `name: integer` line counts.
pub fn parse(text: &str) -> Counters {
    let mut out = Counters::new();
    for line in text.lines() {
        let Some((k, v)) = line.trim().rsplit_once(':') else {
            continue;
        };
        let Ok(v) = v.trim().parse::<i64>() else {
            continue;
        };
        let k = k.trim();
        let k = k.rsplit('/').next().unwrap_or(k);
        if !k.is_empty() && !k.contains(' ') {
            out.insert(k.to_string(), v);
        }
    }
    out
}

/// after − before for counters present in both (a counter that went backwards was reset:
/// its delta is unknown and left out).
pub fn delta(before: &Counters, after: &Counters) -> Counters {
    after
        .iter()
        .filter_map(|(k, a)| {
            let b = before.get(k)?;
            (a >= b).then(|| (k.clone(), a - b))
        })
        .collect()
}

/// Priority of a per-priority pause counter: mlx5 `rx_prio3_pause`, `tx_prio3_pause`; bnxt
/// `rx_pfc_ena_frames_pri3`, `tx_pfc_ena_frames_pri3`.
fn pause_priority(name: &str) -> Option<u8> {
    if let Some(rest) = name
        .strip_prefix("rx_prio")
        .or_else(|| name.strip_prefix("tx_prio"))
        && let Some(p) = rest.strip_suffix("_pause")
    {
        return p.parse().ok();
    }
    if (name.starts_with("rx_pfc_") || name.starts_with("tx_pfc_"))
        && let Some(i) = name.rfind("_pri")
    {
        return name[i + 4..].parse().ok();
    }
    None
}

const LOSS: &[&str] = &[
    "queue_drops",
    "out_of_sequence",
    "packet_seq_err",
    "local_ack_timeout_err",
    "rx_discards_phy",
    "rx_out_of_buffer",
];

/// Sum the figures the rules read over every port's deltas (hosts' NIC counters and the
/// switch ports of the path alike).
pub fn summarize(per_port: &BTreeMap<String, Counters>, lossless: &[u8]) -> Deltas {
    let mut d = Deltas::default();
    let add = |slot: &mut Option<i64>, v: i64| *slot = Some(slot.unwrap_or(0) + v);
    for c in per_port.values() {
        for (k, v) in c {
            if let Some(p) = pause_priority(k) {
                if lossless.contains(&p) {
                    add(&mut d.pfc_pause, *v);
                }
            } else if k == "np_cnp_sent" {
                add(&mut d.cnp_sent, *v);
            } else if k == "rp_cnp_handled" {
                add(&mut d.cnp_handled, *v);
            } else if k == "pfc_rx_all_priorities" || k == "pfc_tx_all_priorities" {
                // A switch that counts PFC frames only over all priorities (NX-OS RxPPP/TxPPP).
                add(&mut d.pfc_pause, *v);
            } else if k == "np_ecn_marked_roce_packets" || k == "ecn_marked_packets" {
                add(&mut d.ecn_marked, *v);
            } else if LOSS.contains(&k.as_str()) {
                add(&mut d.loss, *v);
            } else if k.starts_with("tx_pause_storm") {
                add(&mut d.pause_storm, *v);
            }
        }
    }
    d
}

/// Only the counters that moved, to keep the report short.
pub fn moved(c: &Counters) -> Counters {
    c.iter()
        .filter(|(_, v)| **v != 0)
        .map(|(k, v)| (k.clone(), *v))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_ethtool_and_sysfs() {
        let b = parse(
            "NIC statistics:\n     rx_prio3_pause: 10\n     tx_prio3_pause: 5\n     rx_prio0_pause: 1\n/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence:7\n",
        );
        let a = parse(
            "NIC statistics:\n     rx_prio3_pause: 15\n     tx_prio3_pause: 5\n     rx_prio0_pause: 9\n/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence:9\n",
        );
        let d = delta(&b, &a);
        assert_eq!(d["rx_prio3_pause"], 5);
        assert_eq!(d["out_of_sequence"], 2);
        let mut m = BTreeMap::new();
        m.insert("h1:eth2".to_string(), d);
        let s = summarize(&m, &[3]);
        assert_eq!((s.pfc_pause, s.loss, s.cnp_sent), (Some(5), Some(2), None));
        assert_eq!(pause_priority("rx_pfc_ena_frames_pri3"), Some(3));
    }

    #[test]
    fn a_reset_counter_has_no_delta() {
        let d = delta(&parse("x: 10\n"), &parse("x: 3\n"));
        assert!(d.is_empty());
    }
}
