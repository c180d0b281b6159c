//! Where an audit spends its time: per-phase seconds for `audit --timings` (printed on stderr)
//! and the end-to-end benches (`benches/e2e.rs`, `scripts/bench-e2e`).
//!
//! Stages that run one after the other (loading, link assembly, rules, fixes, report) get their
//! wall time and the CPU time of the whole process over that stage. Reading, parsing and
//! modelling run per device on every worker thread at once: each gets the CPU time threads spent
//! in it (`CLOCK_THREAD_CPUTIME_ID`), and the stage as a whole its wall time. CPU time, unlike
//! wall time, does not grow when other processes share the cores. The totals line gives the
//! process's own wall, CPU and peak RSS (`getrusage(2)`), so the phases can be checked against
//! it.
//!
//! The counters are process-wide (one audit per process is what the CLI runs); `reset` starts
//! them again.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A stage of the audit pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Rule, parser and fix-template files compiled.
    Load,
    /// Snapshot folders listed (wall), then each device's files read and redacted (per device).
    Read,
    /// Vendor-parser engine over every file.
    Parse,
    /// Platform modules turning records into the model.
    Model,
    /// Cabling plan, LLDP and RoCE port marking.
    Links,
    /// Every rule on every object, probes and waivers.
    Rules,
    /// Fix snippets attached to findings.
    Fixes,
    /// The report rendered and written.
    Report,
}

impl Phase {
    pub const ALL: [Phase; 8] = [
        Phase::Load,
        Phase::Read,
        Phase::Parse,
        Phase::Model,
        Phase::Links,
        Phase::Rules,
        Phase::Fixes,
        Phase::Report,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Phase::Load => "load",
            Phase::Read => "read",
            Phase::Parse => "parse",
            Phase::Model => "model",
            Phase::Links => "links",
            Phase::Rules => "rules",
            Phase::Fixes => "fixes",
            Phase::Report => "report",
        }
    }

    /// Whether the phase runs on every worker thread at once (its time is summed over them).
    pub fn per_device(self) -> bool {
        matches!(self, Phase::Read | Phase::Parse | Phase::Model)
    }
}

static WALL: [AtomicU64; 8] = [const { AtomicU64::new(0) }; 8];
static CPU: [AtomicU64; 8] = [const { AtomicU64::new(0) }; 8];
/// The process's peak resident set (KiB) when the phase last ended: where memory grows.
static PEAK: [AtomicU64; 8] = [const { AtomicU64::new(0) }; 8];
/// Wall time of the stage where devices are read, parsed and modelled side by side.
static DEVICES_WALL: AtomicU64 = AtomicU64::new(0);
static ENABLED: AtomicBool = AtomicBool::new(false);

/// Measure from now on (`--timings`); per-device clocks cost a system call each, so they are
/// only read when asked for.
pub fn enable() {
    ENABLED.store(true, Ordering::Relaxed);
}

pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

fn get(a: &AtomicU64) -> f64 {
    a.load(Ordering::Relaxed) as f64 / 1e9
}

/// Run a stage of the pipeline, adding its wall time and the CPU time of the whole process
/// (every thread) to `phase`.
pub fn stage<T>(phase: Phase, f: impl FnOnce() -> T) -> T {
    if !enabled() {
        return f();
    }
    let (wall, cpu) = (Instant::now(), process_cpu());
    let r = f();
    WALL[phase as usize].fetch_add(nanos(wall.elapsed()), Ordering::Relaxed);
    CPU[phase as usize].fetch_add(nanos(process_cpu().saturating_sub(cpu)), Ordering::Relaxed);
    note_peak(&[phase]);
    r
}

/// Record the peak resident set so far as the peak at the end of `phases`.
fn note_peak(phases: &[Phase]) {
    let kib = (process_usage().2 * 1024.0) as u64;
    for p in phases {
        PEAK[*p as usize].fetch_max(kib, Ordering::Relaxed);
    }
}

/// Run the per-device stage (read, parse, model on every worker thread): its wall time.
pub fn devices_stage<T>(f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let r = f();
    DEVICES_WALL.fetch_add(nanos(t.elapsed()), Ordering::Relaxed);
    if enabled() {
        note_peak(&[Phase::Read, Phase::Parse, Phase::Model]);
    }
    r
}

/// CPU time of the calling thread, when timings are on (zero otherwise).
pub fn thread_cpu() -> Duration {
    if !enabled() {
        return Duration::ZERO;
    }
    clock(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// Add CPU time a worker thread spent in a per-device phase.
pub fn add_cpu(phase: Phase, d: Duration) {
    CPU[phase as usize].fetch_add(nanos(d), Ordering::Relaxed);
}

/// Seconds recorded for a phase so far: (wall, CPU).
pub fn seconds(phase: Phase) -> (f64, f64) {
    (get(&WALL[phase as usize]), get(&CPU[phase as usize]))
}

/// Zero every phase.
pub fn reset() {
    for a in WALL.iter().chain(CPU.iter()).chain(PEAK.iter()) {
        a.store(0, Ordering::Relaxed);
    }
    DEVICES_WALL.store(0, Ordering::Relaxed);
}

fn clock(id: libc::clockid_t) -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we own; the id is a valid clock.
    if unsafe { libc::clock_gettime(id, &mut ts) } != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn process_cpu() -> Duration {
    clock(libc::CLOCK_PROCESS_CPUTIME_ID)
}

/// This process's user and system CPU seconds and peak resident set (MiB).
pub fn process_usage() -> (f64, f64, f64) {
    // SAFETY: getrusage writes into the zeroed struct we own; RUSAGE_SELF is always valid.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    // Linux reports ru_maxrss in KiB.
    (
        secs(ru.ru_utime),
        secs(ru.ru_stime),
        ru.ru_maxrss as f64 / 1024.0,
    )
}

/// The `--timings` report: one line per phase (wall and CPU seconds, and the peak resident set
/// when the phase ended: the phase where it grows is where the memory goes), then the process
/// totals since `start`.
pub fn render(start: Instant) -> String {
    let threads = rayon::current_num_threads();
    let mut out = String::from("timings       wall s     cpu s  peak MiB\n");
    for p in Phase::ALL {
        let (wall, cpu) = seconds(p);
        let peak = match PEAK[p as usize].load(Ordering::Relaxed) {
            0 => "-".to_string(),
            k => format!("{:.0}", k as f64 / 1024.0),
        };
        if p.per_device() {
            let wall = if wall > 0.0 {
                format!("{wall:.3}")
            } else {
                "-".into()
            };
            out.push_str(&format!(
                "  {:<8}{wall:>10}{cpu:>10.3}{peak:>10}  per device, on {threads} threads\n",
                p.name(),
            ));
        } else {
            out.push_str(&format!(
                "  {:<8}{wall:>10.3}{cpu:>10.3}{peak:>10}\n",
                p.name()
            ));
        }
    }
    out.push_str(&format!(
        "  (read+parse+model: {:.3} s wall)\n",
        get(&DEVICES_WALL)
    ));
    let (user, sys, peak) = process_usage();
    out.push_str(&format!(
        "  total   {:>10.3}{:>10.3}  user {user:.3}, sys {sys:.3}, peak RSS {peak:.0} MiB\n",
        start.elapsed().as_secs_f64(),
        user + sys
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stage_adds_wall_and_cpu_to_its_phase_only() {
        enable();
        let (w0, c0) = seconds(Phase::Links);
        let before_fixes = seconds(Phase::Fixes);
        let v = stage(Phase::Links, || {
            let t = Instant::now();
            let mut x = 0u64;
            while t.elapsed() < Duration::from_millis(30) {
                x = std::hint::black_box(x.wrapping_add(1));
            }
            7
        });
        assert_eq!(v, 7);
        let (w1, c1) = seconds(Phase::Links);
        assert!(w1 - w0 >= 0.029, "{w0} {w1}");
        assert!(c1 - c0 > 0.0, "a busy loop costs CPU: {c0} {c1}");
        assert_eq!(seconds(Phase::Fixes), before_fixes);
    }

    #[test]
    fn render_names_every_phase_and_the_totals() {
        let text = render(Instant::now());
        for p in Phase::ALL {
            assert!(text.contains(&format!("  {} ", p.name())), "{text}");
        }
        assert!(text.contains("peak RSS"), "{text}");
    }
}
