//! Collection benchmark: 1,000 emulated NX-OS leaves (`fabric-audit emulate`, a separate
//! process of russh servers on 127.0.0.1, 4 commands each with real-format outputs) collected
//! by `fabric-audit collect` in this process. Client and servers share the machine's cores.
//! Prints wall time, devices/s, CPU seconds of the collector and of the emulator, peak memory of
//! the collector, and the concurrency used.
//!
//! FA_BENCH_DEVICES (default 1000), FA_BENCH_CONCURRENCY (default: the collector's own
//! default), FA_BENCH_PORT (first port, default 31000).

use fabric_audit::collect::inventory::Inventory;
use fabric_audit::collect::run::{self, Options, Progress};
use std::io::BufRead;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// (user + system CPU seconds, peak RSS in MiB) of this process or of its waited-for children.
fn rusage(who: i32) -> (f64, f64) {
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(who, &mut ru) } != 0 {
        return (0.0, 0.0);
    }
    let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    (
        t(ru.ru_utime) + t(ru.ru_stime),
        ru.ru_maxrss as f64 / 1024.0,
    )
}

fn main() {
    let n = env_num("FA_BENCH_DEVICES", 1000);
    let port = env_num("FA_BENCH_PORT", 31000) as u16;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("fa-bench-collect-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let key = fabric_audit::collect::emulator::random_key().expect("client key");
    let key_file = dir.join("id_ed25519");
    std::fs::write(
        &key_file,
        key.to_openssh(russh::keys::ssh_key::LineEnding::LF)
            .expect("encode key")
            .as_bytes(),
    )
    .expect("write key");
    let pub_file = dir.join("id_ed25519.pub");
    std::fs::write(
        &pub_file,
        key.public_key().to_openssh().expect("encode pub"),
    )
    .expect("pub");
    let inv_file = dir.join("inventory.toml");
    let kh_file = dir.join("known_hosts");
    let mut emu = Command::new(env!("CARGO_BIN_EXE_fabric-audit"))
        .args([
            "emulate",
            "--device",
            root.join("fixtures/emulator/bench-leaf.toml")
                .to_str()
                .unwrap_or(""),
            "--count",
            &n.to_string(),
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--authorized-key",
            pub_file.to_str().unwrap_or(""),
            "--known-hosts-out",
            kh_file.to_str().unwrap_or(""),
            "--inventory-out",
            inv_file.to_str().unwrap_or(""),
        ])
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the emulator");
    let mut ready = String::new();
    if let Some(out) = emu.stdout.take() {
        let _ = std::io::BufReader::new(out).read_line(&mut ready);
    }
    if !ready.starts_with("ready") {
        let _ = emu.kill();
        panic!("emulator did not start: {ready:?}");
    }
    let mut inv_text = std::fs::read_to_string(&inv_file).expect("inventory");
    inv_text = inv_text.replacen(
        "[defaults]\n",
        &format!(
            "[defaults]\nidentity_file = {:?}\nagent = false\n",
            key_file.display().to_string()
        ),
        1,
    );
    std::fs::write(&inv_file, inv_text).expect("inventory");
    let inv = Inventory::load(&inv_file, None).expect("load inventory");
    let parsers = fabric_audit::load_parsers(None).expect("parsers");
    let concurrency = env_num("FA_BENCH_CONCURRENCY", run::default_concurrency());
    let opts = Options {
        out: dir.join("snap"),
        concurrency,
        trust_new_host_keys: false,
        force: false,
        progress: Progress::Quiet,
        counters_only: false,
        command_budget: fabric_audit::collect::run::DEFAULT_COMMAND_BUDGET,
        shard: None,
    };
    let (cpu0, _) = rusage(libc::RUSAGE_SELF);
    let t0 = Instant::now();
    let summary = run::collect(&inv, parsers, &opts).expect("collect");
    let wall = t0.elapsed();
    let (cpu1, peak) = rusage(libc::RUSAGE_SELF);
    unsafe {
        libc::kill(emu.id() as i32, libc::SIGINT);
    }
    let t = Instant::now();
    while emu.try_wait().ok().flatten().is_none() && t.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = emu.kill();
    let _ = emu.wait();
    let (emu_cpu, _) = rusage(libc::RUSAGE_CHILDREN);
    let ok = summary.collected();
    let failed: Vec<_> = summary
        .devices
        .iter()
        .filter(|d| d.status != "collected")
        .take(3)
        .map(|d| format!("{}: {}", d.name, d.error.as_deref().unwrap_or("")))
        .collect();
    let commands: usize = summary.devices.iter().map(|d| d.commands).sum();
    println!(
        "collect: {ok}/{n} devices ({commands} commands) in {:.2} s = {:.1} devices/s at concurrency {concurrency}; collector CPU {:.2} s, emulator CPU {:.2} s, collector peak memory {:.0} MiB",
        wall.as_secs_f64(),
        ok as f64 / wall.as_secs_f64(),
        cpu1 - cpu0,
        emu_cpu,
        peak
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failed.is_empty(), "devices not collected: {failed:?}");
}
