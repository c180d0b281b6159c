//! The fuzzing smoke run that `cargo test` does (issue 19, SECURITY.md "Fuzzing"): every fuzz
//! target's entry point on its seed inputs and on mutations of them ([`super::mutate`]), for a
//! bounded time per target, failing on a panic, on an input that takes over the hang limit, and
//! on an input whose peak memory exceeds `ratio` × its size plus a fixed allowance (measured by
//! [`super::alloc::PeakAlloc`] when the running program installed it: `examples/fuzz_smoke.rs`).
//! Unlike libFuzzer it has no coverage feedback and needs no nightly toolchain, so it runs on
//! every CI run; the coverage-guided long run is `scripts/fuzz-long`. Failing inputs are written
//! to the output folder, named by kind and hash, ready to become `fuzz/regressions/` files.

use super::{alloc, mutate, replay};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Every fuzz target, as `fuzz/fuzz_targets/` names them.
pub const TARGETS: [&str; 15] = [
    "platform_nxos",
    "platform_eos",
    "platform_cumulus",
    "platform_sonic",
    "platform_onyx",
    "platform_junos",
    "platform_os10",
    "platform_linux",
    "json",
    "config_db",
    "inventory_toml",
    "inventory_yaml",
    "fabric_toml",
    "waivers",
    "reports",
];

/// Targets that exist to show the harness catches what it claims to (a panic, a memory
/// blow-up); never run unless named.
pub const SELF_CHECKS: [&str; 2] = ["selfcheck_panic", "selfcheck_memory"];

/// The bounds of one target's run.
#[derive(Clone, Debug)]
pub struct Limits {
    pub seconds: f64,
    /// Mutations run even when the seeds used up `seconds` (a loaded machine), so a short
    /// run still fuzzes.
    pub min_mutations: usize,
    pub max_inputs: u64,
    pub max_len: usize,
    /// Peak memory allowed per input: `ratio` × input bytes + `allowance`, the coarse limit
    /// whose breach is a crash (the 20 × bound of issue 19 is [`MemoryRecord`]'s). The
    /// default allowance (256 MiB) is far above the fixed cost of any input; what it catches
    /// is growth without bound.
    pub ratio: usize,
    pub allowance: usize,
    pub hang: Duration,
    pub seed: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            seconds: 2.0,
            min_mutations: 32,
            max_inputs: u64::MAX,
            max_len: 65_536,
            ratio: 1000,
            allowance: 256 << 20,
            hang: Duration::from_secs(10),
            seed: 0x5eed,
        }
    }
}

/// What went wrong on one input.
#[derive(Debug)]
pub struct Failure {
    pub kind: &'static str,
    pub detail: String,
    pub input: Vec<u8>,
}

/// One target's run.
#[derive(Debug, Default)]
pub struct Outcome {
    pub target: String,
    pub seeds: usize,
    pub inputs: u64,
    pub slowest: Duration,
    /// The input of at least 1 KiB with the highest peak memory per byte: (input bytes, peak
    /// bytes).
    pub worst_memory: Option<(usize, usize)>,
    /// The last input's peak memory (bytes above what was live before it), measured warm
    /// when it was over the limit; `None` when the counting allocator is not installed or the
    /// input failed before it was measured.
    pub last_peak: Option<usize>,
    pub failures: Vec<Failure>,
}

/// The harness's own checks: a target that panics on `BOOM` and one that holds 1,000 bytes
/// per input byte.
fn self_check(target: &str, data: &[u8]) -> bool {
    match target {
        "selfcheck_panic" => {
            if data.windows(4).any(|w| w == b"BOOM") {
                panic!("selfcheck_panic: the input says BOOM");
            }
        }
        "selfcheck_memory" => {
            let held = vec![1u8; data.len().saturating_mul(1000)];
            std::hint::black_box(&held);
        }
        _ => return false,
    }
    true
}

fn call(target: &str, data: &[u8]) -> bool {
    self_check(target, data) || replay(target, data)
}

/// How many file kinds a platform target's first byte chooses between (0 for other targets).
pub fn selector(target: &str) -> usize {
    let Some(p) = target.strip_prefix("platform_") else {
        return 0;
    };
    crate::load_parsers(None)
        .map(|ps| {
            ps.platforms
                .iter()
                .filter(|x| x.id == p)
                .map(|x| x.commands.len())
                .sum()
        })
        .unwrap_or(0)
}

/// Runs `target` on `seeds` and their mutations within `limits`.
pub fn run_target(target: &str, seeds: &[Vec<u8>], limits: &Limits) -> Outcome {
    let mut out = Outcome {
        target: target.to_string(),
        seeds: seeds.len(),
        ..Default::default()
    };
    let empty = vec![Vec::new()];
    let pool = if seeds.is_empty() { &empty } else { seeds };
    let sel = selector(target);
    warm_up(target, sel);
    let mut rng = mutate::Rng::new(limits.seed ^ fnv(target.as_bytes()));
    let start = Instant::now();
    let mut i = 0usize;
    while out.inputs < limits.max_inputs
        && (i < pool.len() + limits.min_mutations || start.elapsed().as_secs_f64() < limits.seconds)
    {
        let input = if i < pool.len() {
            let mut s = pool[i].clone();
            s.truncate(limits.max_len);
            s
        } else {
            let a = &pool[rng.below(pool.len())];
            let b = &pool[rng.below(pool.len())];
            mutate::mutate(&mut rng, a, b, sel, limits.max_len)
        };
        i += 1;
        one(target, input, limits, &mut out);
        if out.failures.len() >= 10 {
            break;
        }
    }
    out
}

/// Loading the embedded parsers and rules, and compiling a command's parser on its first use,
/// happen once per process (each costs up to ~15 MB and 70 ms): not an input's cost.
pub fn warm_up(target: &str, selector: usize) {
    super::load();
    for s in 0..=selector.min(255) {
        let _ = std::panic::catch_unwind(|| call(target, &[s as u8]));
    }
}

fn one(target: &str, input: Vec<u8>, limits: &Limits, out: &mut Outcome) {
    out.inputs += 1;
    let before = alloc::reset_peak();
    let t = Instant::now();
    let ran = std::panic::catch_unwind(|| call(target, &input));
    let took = t.elapsed();
    let grew = alloc::peak().saturating_sub(before);
    out.slowest = out.slowest.max(took);
    if let Err(e) = ran {
        let msg = e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        out.failures.push(Failure {
            kind: "crash",
            detail: format!("panicked: {msg}"),
            input,
        });
        return;
    }
    if took > limits.hang {
        out.failures.push(Failure {
            kind: "timeout",
            detail: format!("{:.1} s on one input", took.as_secs_f64()),
            input,
        });
        return;
    }
    if !alloc::installed() {
        return;
    }
    out.last_peak = Some(grew);
    let limit = limits
        .ratio
        .saturating_mul(input.len())
        .saturating_add(limits.allowance);
    // The first input to reach a parser's pattern compiles it, and the regex engine's lazy
    // caches grow once per process (up to ~15 MB): measure such an input again, warm.
    let grew = if grew > limit {
        let before = alloc::reset_peak();
        let _ = std::panic::catch_unwind(|| call(target, &input));
        alloc::peak().saturating_sub(before)
    } else {
        grew
    };
    out.last_peak = Some(grew);
    let ratio = |len: usize, g: usize| g as f64 / len.max(1) as f64;
    // Per-byte cost means something only past the fixed cost of any input.
    if input.len() >= 1024
        && out
            .worst_memory
            .is_none_or(|(l, g)| ratio(input.len(), grew) > ratio(l, g))
    {
        out.worst_memory = Some((input.len(), grew));
    }
    if grew > limit {
        out.failures.push(Failure {
            kind: "oom",
            detail: format!(
                "{grew} bytes at peak for {} input bytes (limit {} × {} + {})",
                input.len(),
                limits.ratio,
                input.len(),
                limits.allowance
            ),
            input,
        });
    }
}

/// A fuzz target's body under a fuzzer (`fuzz/fuzz_targets/*.rs`, which install
/// [`alloc::PeakAlloc`]): runs `target` on `data` and panics, which the fuzzer records as a
/// crash with the input, when it panics or when the input's peak memory, measured warm, exceeds the default
/// [`Limits`] (1,000 × its size + 256 MiB).
pub fn checked(target: &str, data: &[u8]) {
    let limits = Limits::default();
    let mut o = Outcome::default();
    one(target, data.to_vec(), &limits, &mut o);
    if let Some(f) = o.failures.first() {
        panic!("{target}: {}: {}", f.kind, f.detail);
    }
    if let Some(peak) = o.last_peak {
        note_memory(target, data, peak);
    }
}

/// Issue 19's memory bound, measured over a whole fuzzer run: the most any input's peak went
/// past 20 × its size (the fixed cost an input has whatever its size, found rather than
/// assumed), and the highest peak per byte among inputs of at least [`RATIO_FROM`] bytes. Each
/// input that would raise either is measured again, warm (a first use compiles patterns and
/// grows lazy caches once per process), and a raised record is printed to stderr as one
/// `fuzz-memory:` line, which `scripts/fuzz-long` keeps for the run's summary.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct MemoryRecord {
    /// (bytes over 20 × the input, input bytes, peak bytes).
    pub most_over: Option<(usize, usize, usize)>,
    /// (input bytes, peak bytes) of the highest peak per byte, inputs of `RATIO_FROM` or more.
    pub worst_ratio: Option<(usize, usize)>,
}

/// Inputs shorter than this are left out of the per-byte record: below it the fixed cost of
/// any input (a device, the rules' scopes, nine report writers) is most of the peak.
pub const RATIO_FROM: usize = 4096;

impl MemoryRecord {
    fn over(len: usize, peak: usize) -> usize {
        peak.saturating_sub(len.saturating_mul(20))
    }

    fn per_byte(len: usize, peak: usize) -> f64 {
        peak as f64 / len.max(1) as f64
    }

    /// Whether an input of `len` bytes with `peak` would raise the record.
    pub fn raises(&self, len: usize, peak: usize) -> bool {
        let over = Self::over(len, peak);
        self.most_over.is_none_or(|(o, _, _)| over > o)
            || (len >= RATIO_FROM
                && self
                    .worst_ratio
                    .is_none_or(|(l, p)| Self::per_byte(len, peak) > Self::per_byte(l, p)))
    }

    /// Takes the input in; true when the record was raised.
    pub fn note(&mut self, len: usize, peak: usize) -> bool {
        if !self.raises(len, peak) {
            return false;
        }
        let over = Self::over(len, peak);
        if self.most_over.is_none_or(|(o, _, _)| over > o) {
            self.most_over = Some((over, len, peak));
        }
        if len >= RATIO_FROM
            && self
                .worst_ratio
                .is_none_or(|(l, p)| Self::per_byte(len, peak) > Self::per_byte(l, p))
        {
            self.worst_ratio = Some((len, peak));
        }
        true
    }

    /// The record as one line: `fuzz-memory: most over 20x: B bytes (input L, peak P); worst
    /// ratio at >= 4096 bytes: R (input L, peak P)`.
    pub fn line(&self) -> String {
        let over = match self.most_over {
            Some((o, l, p)) => format!("{o} bytes (input {l}, peak {p})"),
            None => "-".into(),
        };
        let ratio = match self.worst_ratio {
            Some((l, p)) => format!("{:.1} (input {l}, peak {p})", Self::per_byte(l, p)),
            None => "-".into(),
        };
        format!("fuzz-memory: most over 20x: {over}; worst ratio at >= {RATIO_FROM} bytes: {ratio}")
    }
}

static MEMORY: std::sync::Mutex<MemoryRecord> = std::sync::Mutex::new(MemoryRecord {
    most_over: None,
    worst_ratio: None,
});

fn note_memory(target: &str, data: &[u8], peak: usize) {
    let mut record = MEMORY.lock().unwrap_or_else(|e| e.into_inner());
    if !record.raises(data.len(), peak) {
        return;
    }
    // Measured again, warm: the first run may have paid for a pattern's compilation.
    let before = alloc::reset_peak();
    let _ = std::panic::catch_unwind(|| call(target, data));
    let warm = alloc::peak().saturating_sub(before).min(peak);
    if record.note(data.len(), warm) {
        eprintln!("{}", record.line());
    }
}

/// FNV-1a, for reproducible per-target seeds and failing inputs' file names.
pub fn fnv(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325, |h, &x| {
        (h ^ x as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Writes each failing input to `dir/<target>/<kind>-<hash>` and returns the paths.
pub fn save_failures(dir: &Path, o: &Outcome) -> std::io::Result<Vec<PathBuf>> {
    let mut paths = Vec::new();
    for f in &o.failures {
        let d = dir.join(&o.target);
        std::fs::create_dir_all(&d)?;
        let p = d.join(format!("{}-{:016x}", f.kind, fnv(&f.input)));
        std::fs::write(&p, &f.input)?;
        paths.push(p);
    }
    Ok(paths)
}

/// The seed inputs of `target`: the project's fixtures of its kind and, with `corpus`, the
/// real published files of its platform, at most `max_len` bytes each. A platform target's
/// seeds start with the byte 0 (a config file; the mutator rewrites that byte now and then);
/// a `reports` seed starts with the platform's index, then 0.
pub fn seeds(target: &str, root: &Path, corpus: Option<&Path>, max_len: usize) -> Vec<Vec<u8>> {
    let fixtures = root.join("fixtures");
    let pick = |dirs: &[PathBuf], keep: &dyn Fn(&Path, &str) -> bool, cap: usize| {
        let mut files = Vec::new();
        for d in dirs {
            files.extend(files_under(d));
        }
        files.sort();
        files
            .into_iter()
            .filter(|p| {
                let text = std::fs::read_to_string(p).unwrap_or_default();
                keep(p, &text)
            })
            .take(cap)
            .filter_map(|p| std::fs::read(p).ok())
            .filter(|b| b.len() <= max_len)
            .collect::<Vec<Vec<u8>>>()
    };
    let ext = |p: &Path, e: &[&str]| {
        p.extension()
            .and_then(|x| x.to_str())
            .is_some_and(|x| e.contains(&x))
    };
    let prefixed = |prefix: &[u8], v: Vec<Vec<u8>>| {
        v.into_iter()
            .map(|b| [prefix, &b].concat())
            .collect::<Vec<_>>()
    };
    if let Some(p) = target.strip_prefix("platform_") {
        let mut dirs = vec![fixtures.join(p)];
        if let Some(c) = corpus {
            dirs.push(c.join(p));
        }
        return prefixed(&[0], pick(&dirs, &|_, _| true, 400));
    }
    let all = std::slice::from_ref(&fixtures);
    match target {
        "json" => pick(all, &|p, _| ext(p, &["json"]), 200),
        "config_db" => pick(
            &[fixtures.join("sonic")],
            &|p, _| p.to_string_lossy().contains("config-db"),
            100,
        ),
        "fabric_toml" => pick(
            all,
            &|p, _| p.file_name().is_some_and(|n| n == "fabric.toml"),
            100,
        ),
        "waivers" => pick(
            &[fixtures.clone(), root.join("tests")],
            &|_, t| t.contains("[[waiver]]"),
            50,
        ),
        "inventory_toml" => pick(
            all,
            &|p, t| ext(p, &["toml"]) && (t.contains("[[device]]") || t.contains("[defaults]")),
            50,
        ),
        "inventory_yaml" => pick(
            &[fixtures.clone(), root.join("tests")],
            &|p, _| ext(p, &["yml", "yaml"]),
            50,
        ),
        "reports" => crate::platform::registry::ids()
            .enumerate()
            .flat_map(|(i, p)| {
                let configs = pick(
                    &[fixtures.join(p)],
                    &|f, _| f.to_string_lossy().contains("running-config"),
                    5,
                );
                prefixed(&[i as u8, 0], configs)
            })
            .collect(),
        _ => vec![b"BOOM".to_vec(), b"0123456789".to_vec()],
    }
}

/// Every regular file below `dir` (links not followed; an unreadable folder is skipped): the
/// seed files here, and the fixture texts the parser's and redaction's equivalence tests read.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let Ok(t) = e.file_type() else { continue };
            if t.is_dir() {
                walk(&e.path(), out);
            } else if t.is_file() {
                out.push(e.path());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memory_record_keeps_the_most_over_20_times_and_the_worst_large_ratio() {
        let mut r = MemoryRecord::default();
        // The first input always sets the record; a small one only the fixed-cost part.
        assert!(r.note(100, 50_000));
        assert_eq!(r.most_over, Some((48_000, 100, 50_000)));
        assert_eq!(r.worst_ratio, None);
        // Less over 20 times and too short for the ratio: not a record.
        assert!(!r.note(1000, 60_000));
        // Large and within 20 times: sets only the ratio.
        assert!(r.note(8192, 100_000));
        assert_eq!(r.most_over, Some((48_000, 100, 50_000)));
        assert_eq!(r.worst_ratio, Some((8192, 100_000)));
        // A lower ratio does not replace it; a higher one does, and raises the excess too.
        assert!(!r.note(16_384, 150_000));
        assert!(r.note(16_384, 700_000));
        assert_eq!(r.most_over, Some((700_000 - 20 * 16_384, 16_384, 700_000)));
        assert_eq!(r.worst_ratio, Some((16_384, 700_000)));
        assert_eq!(
            r.line(),
            "fuzz-memory: most over 20x: 372320 bytes (input 16384, peak 700000); \
             worst ratio at >= 4096 bytes: 42.7 (input 16384, peak 700000)"
        );
        assert_eq!(
            MemoryRecord::default().line(),
            "fuzz-memory: most over 20x: -; worst ratio at >= 4096 bytes: -"
        );
    }
}
