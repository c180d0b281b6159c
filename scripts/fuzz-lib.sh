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
PLATFORMS=(nxos eos cumulus sonic onyx junos os10 linux)

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

# seed TARGET PREFIX FILE...: copy each FILE behind the PREFIX byte (octal, '' for none).
seed() {
  local t="$1" prefix="$2" f n=0
  shift 2
  mkdir -p "$FUZZ_DIR/corpus/$t"
  for f in "$@"; do
    [ -f "$f" ] || continue
    [ "$(stat -c %s "$f")" -le 262144 ] || continue
    n=$((n + 1))
    { [ -n "$prefix" ] && printf "\\$prefix"; cat "$f"; } >"$FUZZ_DIR/corpus/$t/seed-$(printf %s "$f" | cksum | cut -d' ' -f1)"
  done
}

fuzz_seeds() {
  local p corpus="${FABRIC_AUDIT_CORPUS:-}"
  for p in "${PLATFORMS[@]}"; do
    mapfile -t files < <(find "$ROOT/fixtures/$p" -type f -name '*.txt' 2>/dev/null | head -200)
    seed "platform_$p" 0 "${files[@]}"
    if [ -n "$corpus" ] && [ -d "$corpus/$p" ]; then
      mapfile -t files < <(find "$corpus/$p" -type f | head -200)
      seed "platform_$p" 0 "${files[@]}"
    fi
  done
  mapfile -t files < <(find "$ROOT/fixtures" -type f -name '*.json' | head -200)
  seed json '' "${files[@]}"
  mapfile -t files < <(find "$ROOT/fixtures/sonic" -type f -path '*config-db*' | head -100)
  seed config_db '' "${files[@]}"
  seed json '' "${files[@]}"
  mapfile -t files < <(find "$ROOT/fixtures" -name fabric.toml | head -100)
  seed fabric_toml '' "${files[@]}"
  mapfile -t files < <(grep -rl '^\[\[waiver\]\]' "$ROOT/fixtures" "$ROOT/tests" 2>/dev/null | head -50)
  seed waivers '' "${files[@]}"
  mapfile -t files < <(grep -rlE '^\[\[device\]\]|^\[defaults\]' "$ROOT/fixtures" --include='*.toml' | head -50)
  seed inventory_toml '' "${files[@]}"
  mapfile -t files < <(find "$ROOT/fixtures" "$ROOT/tests" -name '*.yml' -o -name '*.yaml' | head -50)
  seed inventory_yaml '' "${files[@]}"
  # Reports: platform byte (0 = nxos, 1 = eos, ...), then file kind 0, then a config.
  local i=0
  for p in "${PLATFORMS[@]}"; do
    mapfile -t files < <(find "$ROOT/fixtures/$p" -path '*running-config*' -type f -name '*.txt' | head -5)
    for f in "${files[@]}"; do
      mkdir -p "$FUZZ_DIR/corpus/reports"
      { printf "\\$(printf %o $i)\\0"; cat "$f"; } >"$FUZZ_DIR/corpus/reports/seed-$p-$(basename "$f")"
    done
    i=$((i + 1))
  done
  for t in $(fuzz_targets); do mkdir -p "$FUZZ_DIR/corpus/$t"; done
}
