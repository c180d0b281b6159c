//! Parse-rate and whole-fabric benchmarks. Run with `cargo bench`; prints figures.
//!
//! (a) NX-OS `show interface`: a generated ~100 MB corpus (1,000 devices × 52 interfaces, in
//!     the real output format with every counter block), parsed and turned into the model
//!     (every field the model takes from it), in parallel across devices.
//! (b) A synthetic fabric of 10,000 devices written to a temporary snapshot folder (NX-OS and
//!     EOS leaves and spines, Linux GPU hosts), then audited: read + parse, check, total, and
//!     the peak resident memory of the process.
//!
//! Set FA_BENCH_SCALE=0.1 for a quick run (both corpora scaled down), FA_BENCH_ONLY=a or b to
//! run one part.

use fabric_audit::device::build_device;
use fabric_audit::snapshot::DeviceInput;
use rayon::prelude::*;
use std::fmt::Write as _;
use std::time::Instant;

/// CPU seconds (user + system) this process has used, from /proc/self/stat (clock ticks of
/// 10 ms); wall-clock figures on a shared machine vary with its neighbours, CPU time less so.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which is in parentheses and may hold spaces).
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime are fields 14 and 15 of the stat line, 12 and 13 after ')'.
    (ticks(11) + ticks(12)) / 100.0
}

fn scale() -> f64 {
    std::env::var("FA_BENCH_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0)
}

/// One interface block of `show interface` as NX-OS 9.3 prints it.
fn nxos_interface(out: &mut String, dev: usize, slot: usize, port: usize) {
    let up = !(dev + port).is_multiple_of(7);
    let mtu = if port.is_multiple_of(13) { 1500 } else { 9216 };
    let speed = if port < 48 { 100 } else { 400 };
    let n = (dev * 52 + port) as u64 * 7919;
    let _ = write!(
        out,
        "Ethernet{slot}/{port} is {state}\n\
admin state is up, Dedicated Interface\n\
  Hardware: 100000 Ethernet, address: 00de.fb{dev:02x}.{port:04x} (bia 00de.fb{dev:02x}.{port:04x})\n\
  Description: gpu-node-{dev:04}-{port:02} rail {rail}\n\
  MTU {mtu} bytes, BW {bw} Kbit, DLY 10 usec\n\
  reliability 255/255, txload 1/255, rxload 1/255\n\
  Encapsulation ARPA, medium is broadcast\n\
  Port mode is routed\n\
  full-duplex, {speed} Gb/s, media type is {speed}G\n\
  Beacon is turned off\n\
  Auto-Negotiation is turned on  FEC mode is Auto\n\
  Input flow-control is off, output flow-control is off\n\
  Auto-mdix is turned off\n\
  Rate mode is dedicated\n\
  Switchport monitor is off\n\
  EtherType is 0x8100\n\
  EEE (efficient-ethernet) : n/a\n\
    admin fec state is auto, oper fec state is Rs-fec\n\
  Last link flapped 3week(s) 2day(s)\n\
  Last clearing of \"show interface\" counters never\n\
  2 interface resets\n\
  Load-Interval #1: 30 seconds\n\
    30 seconds input rate {r1} bits/sec, {p1} packets/sec\n\
    30 seconds output rate {r2} bits/sec, {p2} packets/sec\n\
    input rate 1.20 Gbps, 98.10 Kpps; output rate 1.10 Gbps, 87.30 Kpps\n\
  Load-Interval #2: 5 minute (300 seconds)\n\
    300 seconds input rate {r1} bits/sec, {p1} packets/sec\n\
    300 seconds output rate {r2} bits/sec, {p2} packets/sec\n\
    input rate 1.20 Gbps, 98.10 Kpps; output rate 1.10 Gbps, 87.30 Kpps\n\
  RX\n\
    {u1} unicast packets  {m1} multicast packets  12 broadcast packets\n\
    {t1} input packets  {b1} bytes\n\
    {j1} jumbo packets  0 storm suppression packets\n\
    0 runts  0 giants  0 CRC/FCS  0 no buffer\n\
    0 input error  0 short frame  0 overrun   0 underrun  0 ignored\n\
    0 watchdog  0 bad etype drop  0 bad proto drop  0 if down drop\n\
    0 input with dribble  0 input discard\n\
    {px} Rx pause\n\
  TX\n\
    {u2} unicast packets  {m2} multicast packets  3 broadcast packets\n\
    {t2} output packets  {b2} bytes\n\
    {j2} jumbo packets\n\
    0 output error  0 collision  0 deferred  0 late collision\n\
    0 lost carrier  0 no carrier  0 babble  0 output discard\n\
    {px} Tx pause\n\n",
        state = if up {
            "up"
        } else {
            "down (Link not connected)"
        },
        rail = port % 8,
        bw = speed * 1_000_000,
        r1 = n % 1_000_000_007,
        r2 = n % 999_999_937,
        p1 = n % 98_317,
        p2 = n % 87_211,
        u1 = n * 31,
        m1 = n % 10_007,
        t1 = n * 31 + n % 10_007 + 12,
        b1 = n * 31 * 4096,
        j1 = n * 29,
        u2 = n * 37,
        m2 = n % 9_973,
        t2 = n * 37 + n % 9_973 + 3,
        b2 = n * 37 * 4096,
        j2 = n * 35,
        px = n % 17,
    );
}

fn bench_show_interface() {
    let parsers = fabric_audit::load_parsers(None).expect("parsers");
    let devices = ((1000.0 * scale()) as usize).max(1);
    let outputs: Vec<String> = (0..devices)
        .into_par_iter()
        .map(|d| {
            let mut s = String::with_capacity(110_000);
            for port in 1..=52 {
                nxos_interface(&mut s, d, 1, port);
            }
            s
        })
        .collect();
    let bytes: usize = outputs.iter().map(|s| s.len()).sum();
    let inputs: Vec<DeviceInput> = outputs
        .into_iter()
        .enumerate()
        .map(|(d, text)| {
            DeviceInput::one_file(
                &format!("leaf{d:04}"),
                "nxos",
                &format!("devices/leaf{d:04}/show_interface.txt"),
                "show interface",
                Ok(text),
            )
        })
        .collect();
    // Warm-up on one device, and a check that the bench measures a real parse.
    let (dev, _) = build_device(&parsers, &inputs[0]);
    assert_eq!(dev.interfaces.len(), 52, "every interface parsed");
    assert!(
        dev.parse[0].unrecognized.is_empty(),
        "unrecognized: {:?}",
        &dev.parse[0].unrecognized[..3.min(dev.parse[0].unrecognized.len())]
    );
    assert!(
        dev.interfaces
            .iter()
            .all(|i| i.mtu.is_some() && i.speed_gbps.is_some() && i.link_pause.rx.is_some())
    );
    let mut runs = Vec::new();
    let cpu0 = cpu_seconds();
    for _ in 0..7 {
        let t = Instant::now();
        let n: usize = inputs
            .par_iter()
            .map(|i| build_device(&parsers, i).0.interfaces.len())
            .sum();
        runs.push(t.elapsed().as_secs_f64());
        assert_eq!(n, devices * 52);
    }
    let cpu = (cpu_seconds() - cpu0) / runs.len() as f64;
    runs.sort_by(f64::total_cmp);
    let (best, median) = (runs[0], runs[runs.len() / 2]);
    // The engine alone (records, no model), to show where the time goes.
    let cmd = parsers
        .platform("nxos")
        .and_then(|p| p.command_by_id("show-interface"))
        .expect("nxos show interface parser");
    let mut engine = f64::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        let n: usize = inputs
            .par_iter()
            .map(|i| match &i.files[0].text {
                Ok(text) => cmd.parse(text).records.len(),
                Err(_) => 0,
            })
            .sum();
        assert!(n > 0);
        engine = engine.min(t.elapsed().as_secs_f64());
    }
    println!(
        "    engine only (records, no model): {:.3} s = {:.0} MB/s",
        engine,
        bytes as f64 / 1e6 / engine
    );
    println!(
        "(a) nxos show interface: {devices} devices x 52 interfaces, {:.1} MB parsed into the model: best {:.3} s = {:.0} MB/s, median of 7 {:.3} s = {:.0} MB/s ({} threads)",
        bytes as f64 / 1e6,
        best,
        bytes as f64 / 1e6 / best,
        median,
        bytes as f64 / 1e6 / median,
        rayon::current_num_threads()
    );
    println!(
        "    CPU time per run {cpu:.3} s: {:.0} MB per CPU-second, {:.0} MB/s on {} fully available cores",
        bytes as f64 / 1e6 / cpu,
        bytes as f64 / 1e6 / cpu * rayon::current_num_threads() as f64,
        rayon::current_num_threads()
    );
}

fn main() {
    // `cargo bench` passes --bench; ignore arguments. The fabric part re-runs this binary as a
    // child (to measure its peak memory alone); the child skips part (a).
    let only = std::env::var("FA_BENCH_ONLY").unwrap_or_default();
    if std::env::var_os("FA_BENCH_CHILD").is_none() && only != "b" {
        bench_show_interface();
    }
    if only != "a" {
        fabric_bench::run(scale());
    }
}

mod fabric_bench {
    include!("fabric_gen.rs");
}
