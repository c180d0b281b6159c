//! Probe records: what one probe measured (latency, bandwidth, path MTU, counter deltas), as
//! the rules read them. Filled by `crate::probe`, stored in a snapshot's `probes.json`.

use crate::model::Endpoint;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Latency figures in microseconds (perftest's one-way half round trip; qperf's latency).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    /// perftest's `t_typical` (the median) or qperf's single figure.
    pub median: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stdev: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p99: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p999: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
}

/// The result of one probe: one tool, one direction of one pair.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Probe {
    /// Client (sender) host and the interface the probe leaves by.
    pub src: String,
    pub src_if: String,
    /// Server (receiver) host.
    pub dst: String,
    pub dst_if: String,
    /// Data-plane addresses used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub src_addr: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dst_addr: Option<String>,
    /// same-leaf | cross-leaf | unknown
    pub path_class: String,
    /// Ports along the path, sender first, as far as the model knows them.
    pub path: Vec<Endpoint>,
    /// ib_write_lat | ib_write_bw | ib_read_lat | ib_send_lat | ib_send_bw | qperf | ping
    pub tool: String,
    /// Test within the tool: tcp_lat, rc_rdma_write_lat, path-mtu, ...
    pub test: String,
    /// latency | bandwidth | path-mtu | incast
    pub kind: String,
    /// rdma | tcp | icmp
    pub transport: String,
    /// ok: the tool ran and gave a result (which may be bad); failed: it did not give one
    /// (`message` holds its own words); invalid: ran outside the production class; timeout;
    /// interrupted; skipped.
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iterations: Option<u64>,
    /// Microseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency: Option<Latency>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bw_gbps: Option<f64>,
    /// Speed of the sender's port, for the share of line rate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_rate_gbps: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rdma_device: Option<String>,
    /// RoCE v2 GID index used (`-x`), and where it came from (gid-table | inventory).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gid_index: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gid_source: Option<String>,
    /// IP traffic class used (`--tclass`): the policy's RoCE DSCP << 2.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tclass: Option<u32>,
    /// Path-MTU verdict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mtu: Option<PathMtu>,
    /// Senders of an incast (besides `src`).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub senders: Vec<String>,
    /// Counter deltas during the probe: "host:interface" → counter → delta.
    #[serde(skip_serializing_if = "BTreeMap::is_empty", default)]
    pub counters: BTreeMap<String, BTreeMap<String, i64>>,
    /// Sums over the path of the counters that matter, for rules.
    pub deltas: Deltas,
    /// The client command as run (the server's, when there is one, in `server_command`).
    pub command: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_command: Option<String>,
    pub duration_s: f64,
}

/// Path-MTU check of one direction.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PathMtu {
    /// The IP MTU the fabric must carry (policy `mtu`).
    pub mtu: u32,
    /// ok | silent-loss | frag-needed | local-mtu | unreachable
    pub verdict: String,
    /// The MTU a router or the sender's own stack reported, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reported_mtu: Option<u32>,
    pub big_received: u32,
    pub big_sent: u32,
    pub small_received: u32,
}

/// Counter deltas that rules read, summed over the hosts of the path (None: no counter read).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Deltas {
    /// PFC pause frames sent+received on the lossless priorities.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pfc_pause: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cnp_sent: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cnp_handled: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ecn_marked: Option<i64>,
    /// out_of_sequence + packet_seq_err + local_ack_timeout_err + discards.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loss: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pause_storm: Option<i64>,
}

/// Every field set, for the rule loader's field-name check.
pub fn full_probe() -> Probe {
    Probe {
        src: "h1".into(),
        src_if: "eth2".into(),
        dst: "h2".into(),
        dst_if: "eth2".into(),
        src_addr: Some("a".into()),
        dst_addr: Some("b".into()),
        path_class: "same-leaf".into(),
        path: vec![],
        tool: "ib_write_lat".into(),
        test: "x".into(),
        kind: "latency".into(),
        transport: "rdma".into(),
        status: "ok".into(),
        message: Some("x".into()),
        size: Some(2),
        iterations: Some(1000),
        latency: Some(Latency {
            min: Some(1.0),
            median: 1.0,
            mean: Some(1.0),
            stdev: Some(1.0),
            p99: Some(1.0),
            p999: Some(1.0),
            max: Some(1.0),
        }),
        bw_gbps: Some(1.0),
        line_rate_gbps: Some(1.0),
        rdma_device: Some("mlx5_0".into()),
        gid_index: Some(3),
        gid_source: Some("gid-table".into()),
        tclass: Some(104),
        mtu: Some(PathMtu {
            mtu: 9000,
            verdict: "ok".into(),
            reported_mtu: Some(1500),
            big_received: 3,
            big_sent: 3,
            small_received: 1,
        }),
        senders: vec!["h3".into()],
        counters: BTreeMap::new(),
        deltas: Deltas {
            pfc_pause: Some(0),
            cnp_sent: Some(0),
            cnp_handled: Some(0),
            ecn_marked: Some(0),
            loss: Some(0),
            pause_storm: Some(0),
        },
        command: "x".into(),
        server_command: Some("x".into()),
        duration_s: 1.0,
    }
}
