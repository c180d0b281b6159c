//! The fuzzing smoke run (`src/fuzzing/smoke.rs`), as its own program so that its counting
//! allocator measures only the input under test. `cargo test` builds it and
//! `tests/spec/fuzz_smoke.rs` runs it; by hand:
//!
//!     cargo run --release --example fuzz_smoke -- --seconds 5 [TARGET...]
//!
//! One line per target (inputs run, seeds, slowest input, highest peak memory per input byte),
//! each failing input saved under `--out` (default target/fuzz-smoke/); exit 1 on any failure.
//! `--write-seeds DIR` writes the seed inputs as `DIR/<target>/seed-<hash>` for `cargo fuzz`
//! (scripts/fuzz-lib.sh) and exits.
//!
//! `--adversarial BYTES [--cases NAME,..] [--max-ratio R] [TARGET...]` measures each target's
//! peak heap on inputs built to cost the most per byte (`src/fuzzing/adversarial.rs`: one huge
//! line, tiny lines, deep nesting, short interface stanzas, every command's fixture
//! replicated), measured warm, against the input's size; the fixed base (parsers and rules
//! loaded) is printed apart. SECURITY.md "Fuzzing" has the figures; by hand:
//!
//!     cargo run --release --example fuzz_smoke -- --adversarial 1048576

use clap::Parser;
use fabric_audit::fuzzing::alloc::PeakAlloc;
use fabric_audit::fuzzing::smoke::{self, Limits};
use std::path::PathBuf;
use std::process::ExitCode;

#[global_allocator]
static ALLOC: PeakAlloc = PeakAlloc;

#[derive(Parser)]
struct Args {
    /// Seconds of mutated inputs per target, after its seeds.
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
    /// At most this many inputs per target.
    #[arg(long)]
    inputs: Option<u64>,
    /// Largest input tried, in bytes.
    #[arg(long, default_value_t = 65_536)]
    max_len: usize,
    /// Peak memory allowed per input: RATIO × its bytes + ALLOWANCE.
    #[arg(long, default_value_t = 1000)]
    ratio: usize,
    #[arg(long, default_value_t = 256 << 20)]
    allowance: usize,
    /// An input slower than this is a hang.
    #[arg(long, default_value_t = 10.0)]
    hang_seconds: f64,
    /// The mutator's seed (the run is reproducible from it).
    #[arg(long, default_value_t = 0x5eed)]
    seed: u64,
    /// Real published device files, seeds for the platform targets (default: FABRIC_AUDIT_CORPUS).
    #[arg(long)]
    corpus: Option<PathBuf>,
    /// Where failing inputs are written.
    #[arg(long, default_value = "target/fuzz-smoke")]
    out: PathBuf,
    /// Write the seeds for cargo fuzz into DIR/<target>/ and exit.
    #[arg(long)]
    write_seeds: Option<PathBuf>,
    /// Run the (first) target on each of these files and print its peak memory (warm).
    #[arg(long)]
    input: Vec<PathBuf>,
    /// Measure peak memory on the adversarial inputs of this many bytes
    /// (`fuzzing::adversarial`): one line per input, then the worst per target.
    #[arg(long)]
    adversarial: Option<usize>,
    /// With --adversarial: exit 1 when an input's peak exceeds this many times its size.
    #[arg(long)]
    max_ratio: Option<f64>,
    /// With --adversarial: only the inputs whose name starts with one of these.
    #[arg(long, value_delimiter = ',')]
    cases: Vec<String>,
    /// With --adversarial: also write each input as DIR/<target>/<input name> (to replay one
    /// with `--input`, or read it).
    #[arg(long)]
    dump: Option<PathBuf>,
    /// Targets to run (default: all fuzz targets).
    targets: Vec<String>,
}

/// Peak heap of one run of `target` on `data`, warm (parsers compiled, rules loaded), and
/// the wall time it took.
fn measure(target: &str, data: &[u8]) -> (usize, std::time::Duration) {
    let before = fabric_audit::fuzzing::alloc::reset_peak();
    let t = std::time::Instant::now();
    fabric_audit::fuzzing::replay(target, data);
    (
        fabric_audit::fuzzing::alloc::peak().saturating_sub(before),
        t.elapsed(),
    )
}

/// `--adversarial SIZE`: every target's adversarial inputs, one line each (bytes, peak heap,
/// peak ÷ bytes, ms), then per target the worst ratio and the heap live before its inputs
/// (parsers and rules loaded, each file kind run once, and what earlier targets of the same
/// run left cached: not the input's doing, and not counted in its peak).
fn adversarial(
    targets: &[String],
    root: &std::path::Path,
    size: usize,
    max: Option<f64>,
    only: &[String],
    dump: Option<&std::path::Path>,
) -> ExitCode {
    use fabric_audit::fuzzing::{adversarial, alloc};
    use fabric_audit::model::{Interface, PriorityGroup, Queue};
    use std::mem::size_of;
    // What one port costs before any allocation of its own (8 queues and 8 priority groups
    // each), for reading the figures below.
    println!(
        "# inline bytes: Interface {} + 8 × Queue {} + 8 × PriorityGroup {}",
        size_of::<Interface>(),
        size_of::<Queue>(),
        size_of::<PriorityGroup>()
    );
    println!("target\tinput\tbytes\tpeak_bytes\tratio\tms");
    let mut worst_all: Vec<(String, f64, String, usize)> = Vec::new();
    for t in targets {
        smoke::warm_up(t, smoke::selector(t));
        let base = alloc::live();
        let mut worst = (0.0f64, String::new());
        let chosen = adversarial::cases(t, root, size)
            .into_iter()
            .filter(|c| only.is_empty() || only.iter().any(|o| c.name.starts_with(o.as_str())));
        for c in chosen {
            if let Some(dir) = dump {
                let path = dir.join(t).join(c.name.replace(' ', "-"));
                let written = std::fs::create_dir_all(dir.join(t))
                    .and_then(|_| std::fs::write(&path, &c.data));
                if let Err(e) = written {
                    eprintln!("fuzz_smoke: {}: {e}", path.display());
                    return ExitCode::from(2);
                }
            }
            // Run once to compile what this file kind needs, and to make its command's line
            // memo (a fixed table, made by the first text of MEMO_MIN_TEXT bytes or more; the
            // input's first byte is not the text's), then measure warm.
            let warm = 4096.max(2 * fabric_audit::parser::MEMO_MIN_TEXT);
            let _ = measure(t, &c.data[..c.data.len().min(warm)]);
            let (peak, took) = measure(t, &c.data);
            let ratio = peak as f64 / c.data.len().max(1) as f64;
            println!(
                "{t}\t{}\t{}\t{peak}\t{ratio:.1}\t{}",
                c.name,
                c.data.len(),
                took.as_millis()
            );
            if ratio > worst.0 {
                worst = (ratio, c.name);
            }
        }
        worst_all.push((t.clone(), worst.0, worst.1, base));
    }
    println!("\ntarget\tworst_ratio\tworst_input\tlive_before_bytes");
    let mut failed = false;
    for (t, r, name, base) in &worst_all {
        let over = max.is_some_and(|m| *r > m);
        failed |= over;
        println!(
            "{t}\t{r:.1}\t{name}\t{base}{}",
            if over { "\tOVER" } else { "" }
        );
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn main() -> ExitCode {
    let a = Args::parse();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let corpus = a
        .corpus
        .clone()
        .or_else(|| std::env::var_os("FABRIC_AUDIT_CORPUS").map(PathBuf::from))
        .filter(|c| c.is_dir());
    let targets: Vec<String> = if a.targets.is_empty() {
        smoke::TARGETS.iter().map(|s| s.to_string()).collect()
    } else {
        a.targets.clone()
    };
    for t in &targets {
        if !smoke::TARGETS.contains(&t.as_str()) && !smoke::SELF_CHECKS.contains(&t.as_str()) {
            eprintln!(
                "fuzz_smoke: unknown target {t}; known: {}",
                smoke::TARGETS.join(", ")
            );
            return ExitCode::from(2);
        }
    }
    if let Some(dir) = &a.write_seeds {
        for t in &targets {
            let d = dir.join(t);
            let seeds = smoke::seeds(t, &root, corpus.as_deref(), a.max_len);
            let written = std::fs::create_dir_all(&d).and_then(|_| {
                seeds.iter().try_for_each(|s| {
                    std::fs::write(d.join(format!("seed-{:016x}", smoke::fnv(s))), s)
                })
            });
            if let Err(e) = written {
                eprintln!("fuzz_smoke: {}: {e}", d.display());
                return ExitCode::from(2);
            }
            println!("{t}\t{} seeds", seeds.len());
        }
        return ExitCode::SUCCESS;
    }
    if let Some(size) = a.adversarial {
        return adversarial(
            &targets,
            &root,
            size,
            a.max_ratio,
            &a.cases,
            a.dump.as_deref(),
        );
    }
    if !a.input.is_empty() {
        smoke::warm_up(&targets[0], smoke::selector(&targets[0]));
        for f in &a.input {
            let Ok(data) = std::fs::read(f) else {
                eprintln!("fuzz_smoke: cannot read {}", f.display());
                return ExitCode::from(2);
            };
            // Warm, as the long run's memory record measures: a first run may pay for a
            // pattern's compilation, once per process.
            fabric_audit::fuzzing::replay(&targets[0], &data);
            let before = fabric_audit::fuzzing::alloc::reset_peak();
            let t = std::time::Instant::now();
            fabric_audit::fuzzing::replay(&targets[0], &data);
            let peak = fabric_audit::fuzzing::alloc::peak() - before;
            println!(
                "{}\t{} B\tpeak {peak} B ({:.1}×)\t{} ms",
                f.display(),
                data.len(),
                peak as f64 / data.len().max(1) as f64,
                t.elapsed().as_millis()
            );
        }
        return ExitCode::SUCCESS;
    }
    let limits = Limits {
        seconds: a.seconds,
        max_inputs: a.inputs.unwrap_or(u64::MAX),
        max_len: a.max_len,
        ratio: a.ratio,
        allowance: a.allowance,
        hang: std::time::Duration::from_secs_f64(a.hang_seconds),
        seed: a.seed,
        ..Limits::default()
    };
    println!("target\tinputs\tseeds\tslowest_ms\tpeak_bytes_per_input_byte\tfailures");
    let mut failed = 0;
    for t in &targets {
        let seeds = smoke::seeds(t, &root, corpus.as_deref(), a.max_len);
        let o = smoke::run_target(t, &seeds, &limits);
        let worst = o
            .worst_memory
            .map(|(len, peak)| {
                format!(
                    "{:.1} ({peak} B for {len} B)",
                    peak as f64 / len.max(1) as f64
                )
            })
            .unwrap_or_else(|| "-".into());
        println!(
            "{t}\t{}\t{}\t{}\t{worst}\t{}",
            o.inputs,
            o.seeds,
            o.slowest.as_millis(),
            o.failures.len()
        );
        match smoke::save_failures(&a.out, &o) {
            Ok(paths) => {
                for (f, p) in o.failures.iter().zip(paths) {
                    println!("FAIL {t} {}: {} ({})", f.kind, f.detail, p.display());
                }
            }
            Err(e) => eprintln!(
                "fuzz_smoke: cannot save failing inputs under {}: {e}",
                a.out.display()
            ),
        }
        failed += o.failures.len();
    }
    if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
