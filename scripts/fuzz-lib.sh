# Shared by scripts/fuzz-smoke and scripts/fuzz-long (sourced, not run): the fuzz targets, the
# check that cargo-fuzz and a nightly toolchain are present, and the seed inputs.
#
# Seeds are built under fuzz/corpus/<target>/ (git-ignored) from the repository's fixtures and,
# when FABRIC_AUDIT_CORPUS is set, the real published device files; nothing is copied into the
# repository. A platform target's first input byte chooses the file kind (0: a config file in
# configs/, n: the platform's n-th command), so each seed is a fixture behind a 0 byte; the
# fuzzer mutates that byte like any other.

FUZZ_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../fuzz" && pwd)"
ROOT="$(cd "$FUZZ_DIR/.." && pwd)"

# Exit 0 with a SKIPPED line when cargo-fuzz or nightly is missing.
fuzz_tools_or_skip() {
  if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "SKIPPED: fuzzing: cargo-fuzz is not installed (cargo install cargo-fuzz)"
    exit 0
  fi
  if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "SKIPPED: fuzzing: no nightly toolchain (rustup toolchain install nightly)"
    exit 0
  fi
}

fuzz_targets() {
  (cd "$FUZZ_DIR" && cargo +nightly fuzz list)
}

# Build every target: release with debug assertions and overflow checks (cargo-fuzz's
# default), no sanitizer (the crate is safe Rust; panics, hangs and memory are what we look
# for, and a sanitizer would cost several times the throughput).
fuzz_build() {
  (cd "$FUZZ_DIR" && cargo +nightly fuzz build -s none "$@")
}

# The seed inputs of every target, written by the smoke runner (src/fuzzing/smoke.rs `seeds`,
# the one place that says which fixtures and corpus files seed which target).
fuzz_seeds() {
  (cd "$ROOT" && cargo run --quiet --release --example fuzz_smoke -- --write-seeds "$FUZZ_DIR/corpus")
}
