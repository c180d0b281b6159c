// End-to-end bench (issue 16): the real CLI on replicated fabrics, as users run it.
//
//   cargo bench --bench e2e                 full scale: (b) 10,010 devices with and without
//                                           device.toml, (c) 5,000 mixed-platform devices
//   FA_BENCH_SMALL=1 cargo bench --bench e2e   the same shapes at ~50 devices (CI)
//
// The fabrics are generated into target/bench-e2e-cargo/ (never committed) by `replicate.rs`.
// Each run prints one JSON line with wall, CPU and peak RSS of the `fabric-audit audit` process
// (wait4(2) rusage), then the CLI's own `--timings`. The NX-OS `show interface` corpus (a) and
// the TTP/TextFSM peers are in `scripts/bench-e2e` (they need the peer benchmark's Python tools).

mod replicate;

use replicate::{Meta, replicate};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

struct Usage {
    wall: f64,
    cpu: f64,
    peak_mib: f64,
    status: i32,
}

/// Run the CLI, reaping it with wait4 for its own CPU time and peak RSS.
fn run(args: &[&str], stderr_to: &Path) -> std::io::Result<Usage> {
    let err = std::fs::File::create(stderr_to)?;
    let start = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_fabric-audit"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(err)
        .spawn()?;
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: wait4 on our own child's pid, into a zeroed rusage we own.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::wait4(pid, &mut status, 0, &mut ru) } != pid {
        return Err(std::io::Error::last_os_error());
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Ok(Usage {
        wall: start.elapsed().as_secs_f64(),
        cpu: secs(ru.ru_utime) + secs(ru.ru_stime),
        peak_mib: ru.ru_maxrss as f64 / 1024.0,
        status: libc::WEXITSTATUS(status),
    })
}

fn bench(label: &str, snapshot: &Path, out: &Path) {
    let snap = snapshot.to_string_lossy();
    let log = out.join("last.err");
    let args = [
        "audit",
        &snap,
        "--format",
        "json",
        "--fail-on",
        "never",
        "--timings",
    ];
    match run(&args, &log) {
        Ok(u) => {
            println!(
                "{{\"bench\":\"{label}\",\"wall_s\":{:.2},\"cpu_s\":{:.2},\"peak_mib\":{:.0},\"exit\":{}}}",
                u.wall, u.cpu, u.peak_mib, u.status
            );
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            for l in text.lines().skip_while(|l| !l.starts_with("timings")) {
                println!("    {l}");
            }
        }
        Err(e) => println!("{{\"bench\":\"{label}\",\"error\":\"{e}\"}}"),
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo test --benches` lists benches: nothing to list here
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let small = std::env::var_os("FA_BENCH_SMALL").is_some();
    let (pods10, pods5) = if small { (3, 5) } else { (715, 500) };
    let out: PathBuf = root.join("target/bench-e2e-cargo");
    let gen_ = |fixture: &str, name: String, pods: usize, meta: Meta| -> Option<PathBuf> {
        let dir = out.join(name);
        if !dir.join("fabric.toml").exists() {
            match replicate(&root.join("fixtures").join(fixture), &dir, pods, meta) {
                Ok(_) => {}
                Err(e) => {
                    eprintln!("cannot generate {}: {e}", dir.display());
                    return None;
                }
            }
        }
        Some(dir)
    };
    let n10 = pods10 * 14;
    let n5 = pods5 * 10;
    if let Some(d) = gen_(
        "clean-fabric",
        format!("clean-{pods10}"),
        pods10,
        Meta::Keep,
    ) {
        bench(&format!("b: {n10} devices, device.toml"), &d, &out);
    }
    if let Some(d) = gen_(
        "clean-fabric",
        format!("clean-{pods10}-nometa"),
        pods10,
        Meta::Drop,
    ) {
        bench(&format!("b: {n10} devices, no device.toml"), &d, &out);
    }
    if let Some(d) = gen_(
        "clean-mixed-fabric",
        format!("mixed-{pods5}"),
        pods5,
        Meta::Keep,
    ) {
        bench(&format!("c: {n5} mixed-platform devices"), &d, &out);
    }
}
