#!/usr/bin/env bash
# Runs every cargo-fuzz (libFuzzer) target for FUZZ_SECONDS each (default 60), starting from
# the committed seeds in fuzz/seeds/<target> and a working corpus in target/fuzz-corpus/<target>
# that grows from run to run. Needs the nightly toolchain; installs cargo-fuzz when absent.
# The build goes to target/fuzz (so it lives wherever target/ does: under .ci/run, in the
# cache outside the clone).
#   ./scripts/fuzz.sh                     # every target, 60 s each
#   FUZZ_SECONDS=3600 ./scripts/fuzz.sh strip   # one target, an hour
#   ./scripts/fuzz.sh --build             # only the build (and cargo-fuzz's install)
#   FUZZ_SANITIZER=address ./scripts/fuzz.sh   # with AddressSanitizer (the default is none)
# A crash stops the run; the input that caused it is saved under fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
build_only=false
if [ "${1:-}" = --build ]; then
    build_only=true
    shift
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(strip validator manifest audit_reader state_reader)
fi
if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "fuzz: the nightly toolchain is needed (rustup toolchain install nightly)" >&2
    exit 1
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    # The dev profile: cargo-fuzz only drives cargo, and an optimized build costs a cold run minutes.
    cargo install --locked --debug cargo-fuzz@0.13.2
fi
# No AddressSanitizer by default: every target fuzzes safe Rust, where libFuzzer's own checks
# (a panic, a timeout, memory past -rss_limit_mb) catch what can go wrong, and ASan's
# instrumentation made the build the longest background job of a cold CI run and every
# execution slower. FUZZ_SANITIZER=address brings it back (for unsafe code under test).
sanitizer=${FUZZ_SANITIZER:-none}
root=$PWD
mkdir -p target
build_dir=$root/target/fuzz
cd fuzz
cargo +nightly fuzz build -O --sanitizer "$sanitizer" --target-dir "$build_dir"
$build_only && exit 0
for target in "${targets[@]}"; do
    corpus=$root/target/fuzz-corpus/$target
    mkdir -p "$corpus"
    echo "== fuzz $target for ${seconds}s"
    log=$root/target/fuzz-corpus/$target.log
    if ! cargo +nightly fuzz run -O --sanitizer "$sanitizer" --target-dir "$build_dir" "$target" "$corpus" "seeds/$target" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -print_final_stats=1 >"$log" 2>&1; then
        tail -n 60 "$log"
        echo "fuzz: $target failed; the input is under fuzz/artifacts/$target/" >&2
        exit 1
    fi
    grep -E "^Done [0-9]+ runs|stat::number_of_executed_units|stat::peak_rss_mb" "$log" || tail -n 3 "$log"
    echo "corpus: $(find "$corpus" -type f | wc -l) inputs"
done
