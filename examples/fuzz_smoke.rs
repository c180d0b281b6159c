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
    #[arg(long, default_value_t = 32 << 20)]
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
    /// Run the (first) target once on each of these files and print its peak memory.
    #[arg(long)]
    input: Vec<PathBuf>,
    /// Targets to run (default: all fuzz targets).
    targets: Vec<String>,
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
    if !a.input.is_empty() {
        smoke::warm_up(&targets[0], smoke::selector(&targets[0]));
        for f in &a.input {
            let Ok(data) = std::fs::read(f) else {
                eprintln!("fuzz_smoke: cannot read {}", f.display());
                return ExitCode::from(2);
            };
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
