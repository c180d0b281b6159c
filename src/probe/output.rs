//! Reading what the probe tools print: perftest (every result form it has printed across
//! versions: the table with or without percentile columns, `--output=latency|bandwidth`,
//! `--out_json`, MB/MiB/Gb per second, warnings between the lines, its error messages), qperf's
//! `test:` blocks and `ping -M do`.
//!
//! A parser never invents a number: what the output does not say stays `None`, and an output
//! that holds no result gives the tool's own message instead.

use serde::{Deserialize, Serialize};

pub use crate::model::probe::Latency;

/// One result row of a perftest run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PerfRow {
    pub bytes: u64,
    pub iterations: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency: Option<Latency>,
    /// Average bandwidth in Gb/s (converted from whatever unit the tool printed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bw_gbps: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bw_peak_gbps: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub msg_rate_mpps: Option<f64>,
}

/// What one perftest output says.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Perftest {
    /// "RDMA_Write Latency Test", "RDMA_Write_BW_Test", ...
    pub test: Option<String>,
    pub device: Option<String>,
    pub link_type: Option<String>,
    pub gid_index: Option<u32>,
    pub mtu: Option<u32>,
    pub connection: Option<String>,
    pub qps: Option<u32>,
    pub rdma_cm: Option<bool>,
    pub rows: Vec<PerfRow>,
    /// Lines that are neither the banner nor a result (CPU frequency warnings and the like).
    pub warnings: Vec<String>,
    /// The tool's own error lines, when it did not produce a result.
    pub errors: Vec<String>,
}

impl Perftest {
    /// The row for `bytes`, or the only/last row.
    pub fn row(&self, bytes: Option<u64>) -> Option<&PerfRow> {
        match bytes {
            Some(b) => self.rows.iter().find(|r| r.bytes == b).or(self.rows.last()),
            None => self.rows.last(),
        }
    }
}

const PERFTEST_ERRORS: &[&str] = &[
    "did not detect devices",
    "unable to find the infiniband/roce device",
    "if device exists, check if driver is up",
    "couldn't",
    "could not",
    "unable to",
    "failed to",
    "error",
    "is down",
    "no such",
    "not supported",
    "invalid",
    "timeout",
    "refused",
    "command not found",
    "no such file",
];

fn num(s: &str) -> Option<f64> {
    s.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Gb/s from a perftest bandwidth unit: `Gb/sec`, `MB/sec` (perftest's MB is 2^20 bytes, which
/// newer versions print as `MiB/sec`), `MiB/sec`.
fn to_gbps(v: f64, unit: &str) -> Option<f64> {
    match unit {
        "Gb/sec" | "Gbps" => Some(v),
        "MB/sec" | "MiB/sec" => Some(v * 1_048_576.0 * 8.0 / 1e9),
        _ => None,
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Col {
    Bytes,
    Iters,
    Sl,
    Min,
    Max,
    Typical,
    Avg,
    Stdev,
    P99,
    P999,
    BwPeak(String),
    BwAvg(String),
    MsgRate,
    Other,
}

fn columns(header: &str) -> Vec<Col> {
    // Column names hold spaces ("BW peak[Gb/sec]", "99% percentile[usec]"): match them whole.
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| {
        regex::Regex::new(
            r"#bytes|#iterations|#sl|t_min\[usec\]|t_max\[usec\]|t_typical\[usec\]|t_avg\[usec\]|t_stdev\[usec\]|99% percentile\[usec\]|99\.9% percentile\[usec\]|BW peak\[([^\]]+)\]|BW average\[([^\]]+)\]|MsgRate\[Mpps\]|[A-Za-z][\w ]*?\[[^\]]+\]",
        )
        .unwrap_or_else(|_| unreachable!("constant pattern"))
    });
    re.captures_iter(header)
        .map(|c| {
            let all = c.get(0).map(|m| m.as_str()).unwrap_or("");
            if let Some(u) = c.get(1) {
                return Col::BwPeak(u.as_str().to_string());
            }
            if let Some(u) = c.get(2) {
                return Col::BwAvg(u.as_str().to_string());
            }
            match all {
                "#bytes" => Col::Bytes,
                "#iterations" => Col::Iters,
                "#sl" => Col::Sl,
                "t_min[usec]" => Col::Min,
                "t_max[usec]" => Col::Max,
                "t_typical[usec]" => Col::Typical,
                "t_avg[usec]" => Col::Avg,
                "t_stdev[usec]" => Col::Stdev,
                "99% percentile[usec]" => Col::P99,
                "99.9% percentile[usec]" => Col::P999,
                "MsgRate[Mpps]" => Col::MsgRate,
                _ => Col::Other,
            }
        })
        .collect()
}

fn row_of(cols: &[Col], fields: &[&str]) -> Option<PerfRow> {
    if fields.len() != cols.len() {
        return None;
    }
    let mut r = PerfRow::default();
    let mut lat = Latency::default();
    let mut has_lat = false;
    let mut typical = None;
    let mut avg = None;
    for (c, f) in cols.iter().zip(fields) {
        let v = num(f)?;
        match c {
            Col::Bytes => r.bytes = f.parse().ok()?,
            Col::Iters => r.iterations = f.parse().ok()?,
            Col::Sl | Col::Other => {}
            Col::Min => {
                lat.min = Some(v);
                has_lat = true
            }
            Col::Max => lat.max = Some(v),
            Col::Typical => {
                typical = Some(v);
                has_lat = true
            }
            Col::Avg => {
                avg = Some(v);
                has_lat = true
            }
            Col::Stdev => lat.stdev = Some(v),
            Col::P99 => lat.p99 = Some(v),
            Col::P999 => lat.p999 = Some(v),
            Col::BwPeak(u) => r.bw_peak_gbps = to_gbps(v, u),
            Col::BwAvg(u) => r.bw_gbps = to_gbps(v, u),
            Col::MsgRate => r.msg_rate_mpps = Some(v),
        }
    }
    if has_lat {
        lat.mean = avg;
        // Duration mode (-D) prints only t_avg: that is the figure there is.
        lat.median = typical.or(avg)?;
        r.latency = Some(lat);
    }
    Some(r)
}

fn banner_value(p: &mut Perftest, key: &str, val: &str) {
    let val = val.trim();
    let first = val.split_whitespace().next().unwrap_or("");
    match key {
        "Device" => p.device = Some(first.to_string()),
        "Link type" => p.link_type = Some(first.to_string()),
        "GID index" => p.gid_index = first.parse().ok(),
        "Mtu" => p.mtu = first.trim_end_matches("[B]").parse().ok(),
        "Connection type" => p.connection = Some(first.to_string()),
        "Number of qps" => p.qps = first.parse().ok(),
        "rdma_cm QPs" => p.rdma_cm = Some(first == "ON"),
        _ => {}
    }
}

/// Parse a perftest client or server output (text, bare `--output` figure, or `--out_json`).
/// `kind` is "lat" or "bw" (from the tool's name) to read a bare `--output` number.
pub fn perftest(text: &str, kind: &str) -> Perftest {
    let t = text.trim_start_matches('\u{feff}');
    if t.trim_start().starts_with('{')
        && let Ok(v) = serde_json::from_str::<serde_json::Value>(t.trim())
    {
        return perftest_json(&v);
    }
    let mut p = Perftest::default();
    let mut cols: Option<Vec<Col>> = None;
    let kv = regex_kv();
    let mut saw_banner = false;
    for raw in t.lines() {
        let line = raw.trim_end_matches('\r');
        let s = line.trim();
        if s.is_empty() || s.chars().all(|c| c == '-' || c == '*') {
            continue;
        }
        if s.starts_with("#bytes") {
            cols = Some(columns(s));
            continue;
        }
        if let Some(c) = &cols {
            let fields: Vec<&str> = s.split_whitespace().collect();
            if let Some(r) = row_of(c, &fields) {
                p.rows.push(r);
                continue;
            }
        }
        if s.ends_with("Test") && !s.contains(':') {
            p.test = Some(s.to_string());
            saw_banner = true;
            continue;
        }
        let mut matched = false;
        // Banner lines are indented (" Device : mlx5_0"); warnings such as "Conflicting CPU
        // frequency values detected: ..." are not, and " WARNING: ..." is not a setting.
        let banner = line.starts_with([' ', '\t']) && !s.starts_with("WARNING");
        for c in kv.captures_iter(line).filter(|_| banner) {
            if let (Some(k), Some(v)) = (c.get(1), c.get(2)) {
                banner_value(&mut p, k.as_str().trim(), v.as_str());
                matched = true;
            }
        }
        if matched
            || s.starts_with("local address")
            || s.starts_with("remote address")
            || s.starts_with("GID:")
            || s.starts_with("Waiting for client")
            || s.starts_with("* Waiting")
        {
            continue;
        }
        // `--output=latency|bandwidth`: one bare figure (the median, or the average BW in the
        // unit asked for, Gb/s with --report_gbits; MiB/s otherwise).
        if cols.is_none()
            && !saw_banner
            && let Some(v) = num(s)
        {
            let mut r = PerfRow::default();
            if kind == "lat" {
                r.latency = Some(Latency {
                    median: v,
                    ..Default::default()
                });
            } else {
                r.bw_gbps = Some(v);
            }
            p.rows.push(r);
            continue;
        }
        let lower = s.to_ascii_lowercase();
        // "libibverbs: Warning: couldn't stat ..." is a warning whatever it says.
        if PERFTEST_ERRORS.iter().any(|e| lower.contains(e)) && !lower.contains("warning") {
            p.errors.push(s.to_string());
        } else {
            p.warnings.push(s.to_string());
        }
    }
    p
}

fn regex_kv() -> &'static regex::Regex {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        // " Dual-port       : OFF          Device         : mlx5_0"
        regex::Regex::new(r"(?:^|\s{2,}|^\s)([A-Za-z][A-Za-z0-9_*./ -]*?)\s*:\s+(\S+(?:\[B\])?)")
            .unwrap_or_else(|_| unreachable!("constant pattern"))
    })
}

fn perftest_json(v: &serde_json::Value) -> Perftest {
    let mut p = Perftest::default();
    let info = &v["test_info"];
    let s = |k: &str| info.get(k).and_then(|x| x.as_str()).map(str::to_string);
    let n = |k: &str| info.get(k).and_then(|x| x.as_u64()).map(|x| x as u32);
    p.test = s("test");
    p.device = s("Device");
    p.link_type = s("Link_type");
    p.gid_index = n("GID_index");
    p.mtu = n("Mtu");
    p.connection = s("Connection_type");
    p.qps = n("Number_of_qps");
    p.rdma_cm = s("rdma_cm_QPs").map(|x| x == "ON");
    let res = &v["results"];
    let f = |k: &str| res.get(k).and_then(|x| x.as_f64());
    let mut r = PerfRow {
        bytes: res.get("MsgSize").and_then(|x| x.as_u64()).unwrap_or(0),
        iterations: res
            .get("n_iterations")
            .and_then(|x| x.as_u64())
            .unwrap_or(0),
        ..Default::default()
    };
    // --out_json writes bandwidth in the unit of the run: Gb/s with --report_gbits, else MiB/s;
    // the unit is not in the file, so the report_gbits flag of our own command decides.
    let gbits = info
        .get("report_gbits")
        .and_then(|x| x.as_str())
        .is_some_and(|x| x == "ON");
    let unit = if gbits { "Gb/sec" } else { "MiB/sec" };
    r.bw_gbps = f("BW_average").and_then(|x| to_gbps(x, unit));
    r.bw_peak_gbps = f("BW_peak").and_then(|x| to_gbps(x, unit));
    r.msg_rate_mpps = f("MsgRate");
    if let Some(t) = f("t_typical").or(f("t_avg")) {
        r.latency = Some(Latency {
            min: f("t_min"),
            median: t,
            mean: f("t_avg"),
            stdev: f("t_stdev"),
            p99: f("99%_percentile").or(f("t_99")),
            p999: f("99.9%_percentile").or(f("t_99_9")),
            max: f("t_max"),
        });
    }
    if r.bytes > 0 || r.bw_gbps.is_some() || r.latency.is_some() {
        p.rows.push(r);
    }
    p
}

/// One qperf test result (`tcp_lat:` block).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct QperfTest {
    pub test: String,
    /// Microseconds.
    pub latency_us: Option<f64>,
    /// Gb/s (qperf prints decimal GB/MB/KB per second, or bits with -uu).
    pub bw_gbps: Option<f64>,
    pub msg_rate: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Qperf {
    pub tests: Vec<QperfTest>,
    pub errors: Vec<String>,
}

/// Parse qperf's output: `name:` lines followed by indented `key = value unit` lines.
pub fn qperf(text: &str) -> Qperf {
    let mut q = Qperf::default();
    for raw in text.lines() {
        let line = raw.trim_end_matches('\r');
        let s = line.trim();
        if s.is_empty() {
            continue;
        }
        if !line.starts_with(char::is_whitespace)
            && let Some(name) = s.strip_suffix(':')
            && !name.contains(' ')
        {
            q.tests.push(QperfTest {
                test: name.to_string(),
                ..Default::default()
            });
            continue;
        }
        if let Some((k, v)) = s.split_once('=')
            && let Some(t) = q.tests.last_mut()
        {
            let mut it = v.split_whitespace();
            let val = it.next().and_then(num);
            let unit = it.next().unwrap_or("");
            match (k.trim(), val) {
                ("latency", Some(x)) => {
                    t.latency_us = match unit {
                        "ns" => Some(x / 1000.0),
                        "us" => Some(x),
                        "ms" => Some(x * 1000.0),
                        "sec" | "s" => Some(x * 1e6),
                        _ => None,
                    }
                }
                ("bw", Some(x)) => {
                    t.bw_gbps = match unit {
                        "GB/sec" => Some(x * 8.0),
                        "MB/sec" => Some(x * 8.0 / 1000.0),
                        "KB/sec" => Some(x * 8.0 / 1e6),
                        "bytes/sec" => Some(x * 8.0 / 1e9),
                        "Gb/sec" => Some(x),
                        "Mb/sec" => Some(x / 1000.0),
                        _ => None,
                    }
                }
                ("msg_rate", Some(x)) => {
                    t.msg_rate = match unit {
                        "M/sec" => Some(x * 1e6),
                        "K/sec" => Some(x * 1e3),
                        "/sec" | "" => Some(x),
                        _ => None,
                    }
                }
                _ => {}
            }
            continue;
        }
        q.errors.push(s.to_string());
    }
    q
}

/// What `ping -M do` showed for one direction.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Ping {
    /// ICMP payload size (`-s`).
    pub payload: Option<u32>,
    pub transmitted: Option<u32>,
    pub received: Option<u32>,
    /// "Frag needed and DF set (mtu = N)" from a router on the path.
    pub frag_needed_mtu: Option<u32>,
    /// "local error: message too long, mtu=N": the sender's own route/interface MTU.
    pub local_mtu: Option<u32>,
    pub rtt_avg_ms: Option<f64>,
    /// Error lines (`ping: connect: Network is unreachable`, unknown host, ...).
    pub errors: Vec<String>,
}

/// Parse `ping` (iputils) output.
pub fn ping(text: &str) -> Ping {
    let mut p = Ping::default();
    for raw in text.lines() {
        let s = raw.trim_end_matches('\r').trim();
        if s.is_empty() {
            continue;
        }
        if let Some(rest) = s.strip_prefix("PING ") {
            // PING 10.0.0.2 (10.0.0.2) 8972(9000) bytes of data.
            p.payload = rest
                .split(") ")
                .nth(1)
                .and_then(|x| x.split('(').next())
                .and_then(|x| x.trim().parse().ok());
            continue;
        }
        if let Some(i) = s.find("mtu = ")
            && s.contains("Frag needed")
        {
            p.frag_needed_mtu = s[i + 6..]
                .trim_end_matches(')')
                .trim()
                .parse()
                .ok()
                .or(p.frag_needed_mtu);
            continue;
        }
        if s.contains("message too long") {
            if let Some(i) = s.rfind("mtu=") {
                p.local_mtu = s[i + 4..].trim().parse().ok();
            }
            continue;
        }
        if s.contains("packets transmitted") {
            for part in s.split(',') {
                let part = part.trim();
                let n = part.split_whitespace().next().and_then(|x| x.parse().ok());
                if part.ends_with("packets transmitted") {
                    p.transmitted = n;
                } else if part.ends_with("received") {
                    p.received = n;
                }
            }
            continue;
        }
        if let Some(rest) = s
            .strip_prefix("rtt ")
            .or_else(|| s.strip_prefix("round-trip "))
        {
            p.rtt_avg_ms = rest
                .split('=')
                .nth(1)
                .and_then(|x| x.trim().split('/').nth(1))
                .and_then(num);
            continue;
        }
        if s.contains(" bytes from ")
            || s.starts_with("---")
            || s.starts_with("From ") && s.contains("icmp_seq")
        {
            continue;
        }
        p.errors.push(s.to_string());
    }
    p
}

/// One line of what an output gives, for golden files: `tool` is a perftest binary name
/// (`ib_write_lat`, or a corpus folder like `out-json`/`errors`), `qperf` or `ping`.
pub fn summary(tool: &str, text: &str) -> Option<String> {
    let f = |v: Option<f64>| v.map(|x| format!("{x}")).unwrap_or_else(|| "-".into());
    let n = |v: Option<u32>| v.map(|x| x.to_string()).unwrap_or_else(|| "-".into());
    Some(match tool {
        "qperf" => {
            let q = qperf(text);
            let tests: Vec<String> = q
                .tests
                .iter()
                .map(|t| {
                    format!(
                        "{}:lat={}:gbps={}",
                        t.test,
                        f(t.latency_us),
                        f(t.bw_gbps.map(|g| (g * 1000.0).round() / 1000.0))
                    )
                })
                .collect();
            format!("{} errors={}", tests.join(","), q.errors.len())
        }
        "ping" => {
            let p = ping(text);
            format!(
                "payload={} sent={} received={} frag_needed_mtu={} local_mtu={} errors={}",
                n(p.payload),
                n(p.transmitted),
                n(p.received),
                n(p.frag_needed_mtu),
                n(p.local_mtu),
                p.errors.len()
            )
        }
        t => {
            let kind = if t.contains("lat") { "lat" } else { "bw" };
            let p = perftest(text, kind);
            let r = p.rows.last();
            let l = r.and_then(|r| r.latency.as_ref());
            format!(
                "rows={} bytes={} median={} p99={} p999={} max={} gbps={} gid={} errors={} warnings={}",
                p.rows.len(),
                r.map(|r| r.bytes.to_string()).unwrap_or_else(|| "-".into()),
                f(l.map(|l| l.median)),
                f(l.and_then(|l| l.p99)),
                f(l.and_then(|l| l.p999)),
                f(l.and_then(|l| l.max)),
                f(r.and_then(|r| r.bw_gbps)
                    .map(|g| (g * 100.0).round() / 100.0)),
                n(p.gid_index),
                p.errors.len(),
                p.warnings.len()
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perftest_table_with_percentiles_and_warnings() {
        let t = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]\n\
Conflicting CPU frequency values detected: 999.991000 != 1084.582000. CPU Frequency is not max.\n\
 2       1000          1.54           2.13         1.58               1.58           0.01              1.65                          2.13\n";
        let p = perftest(t, "lat");
        let r = p.row(Some(2)).unwrap();
        let l = r.latency.as_ref().unwrap();
        assert_eq!(
            (l.min, l.median, l.p99, l.p999, l.max),
            (Some(1.54), 1.58, Some(1.65), Some(2.13), Some(2.13))
        );
        assert_eq!(p.warnings.len(), 1);
        assert!(p.errors.is_empty());
    }

    #[test]
    fn perftest_bandwidth_units() {
        let t = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n 65536      1000           11469.84            11469.23            0.183508\n";
        let r = perftest(t, "bw").rows[0].clone();
        let g = r.bw_gbps.unwrap();
        assert!((g - 96.21).abs() < 0.01, "{g}");
        let t = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n 65536      20000            111.72             111.71             0.213070\n";
        assert_eq!(perftest(t, "bw").rows[0].bw_gbps, Some(111.71));
    }

    #[test]
    fn perftest_bare_output_and_errors() {
        let p = perftest("1.846569\n", "lat");
        assert_eq!(p.rows[0].latency.as_ref().unwrap().median, 1.846569);
        let p = perftest(
            " Did not detect devices \n If device exists, check if driver is up\n Unable to find the Infiniband/RoCE device\n",
            "lat",
        );
        assert!(p.rows.is_empty());
        assert_eq!(p.errors.len(), 3);
    }

    #[test]
    fn qperf_blocks() {
        let q = qperf(
            "tcp_lat:\n    latency  =  43.5 us\n    time     =     5 sec\ntcp_bw:\n    bw    =  1.52 GB/sec\n",
        );
        assert_eq!(q.tests[0].latency_us, Some(43.5));
        assert!((q.tests[1].bw_gbps.unwrap() - 12.16).abs() < 1e-9);
        let q = qperf("qperf: failed to connect: Connection refused\n");
        assert!(q.tests.is_empty());
        assert_eq!(q.errors.len(), 1);
    }

    #[test]
    fn ping_forms() {
        let p = ping(
            "PING 198.19.0.1 (198.19.0.1) 8972(9000) bytes of data.\nFrom 198.18.255.254 icmp_seq=1 Frag needed and DF set (mtu = 1500)\nping: local error: message too long, mtu=1500\n\n--- 198.19.0.1 ping statistics ---\n3 packets transmitted, 0 received, +3 errors, 100% packet loss, time 2025ms\n",
        );
        assert_eq!(
            (p.payload, p.frag_needed_mtu, p.local_mtu, p.received),
            (Some(8972), Some(1500), Some(1500), Some(0))
        );
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        let p = ping("ping: connect: Network is unreachable\n");
        assert_eq!(p.errors.len(), 1);
    }
}
