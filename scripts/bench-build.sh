#!/usr/bin/env bash
# Build benchmark: what a change to harness.toml costs the person editing it.
#   1. codegen alone for a 100-tool manifest: `harness-codegen generate` as a process
#      (parse, validate, emit and format every artifact, write them);
#   2. `cargo build` of the default server after a one-line change to harness.toml (a tool
#      description), debug and release, the way a user rebuilds;
#   3. the same for a 100-tool server (a package scaffolded under target/bench-build), after
#      its cold build.
# Each incremental figure is the median of BENCH_BUILD_REPEATS (default 3) edits. The
# in-process codegen time is `cargo bench -p harness-bench --bench codegen`.
#
#   ./scripts/bench-build.sh                 # about 10 minutes on 2 cores, most of it cold builds
#   BENCH_BUILD_PROFILES=debug ./scripts/bench-build.sh
#
# With --cold REV...: what a first build costs, for each git revision (default HEAD) in a
# worktree of its own: the crates compiled (the `Compiling` lines) and the wall time of a cold
# `cargo build --release --locked` in an empty target directory, and the peak memory of the
# largest process, for the default server and for a project made by `harness-codegen new`
# (its Cargo.lock the revision's, so both resolve the same versions). About 12 minutes per
# revision on 2 cores; run it with nothing else building.
#
#   ./scripts/bench-build.sh --cold 6a6dba1 HEAD
#
# harness.toml is edited in place and restored on exit, however the script ends.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
repeats=${BENCH_BUILD_REPEATS:-3}
profiles=${BENCH_BUILD_PROFILES:-debug release}
out=target/bench-build
mkdir -p "$out"
export CARGO_TERM_COLOR=never

now() { date +%s.%N; }
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$1" "$2"; }

# cold_build LABEL REV DIR ARGS...: one cold release build of the package in DIR, in an empty
# target directory; prints a table row.
cold_build() {
    local label=$1 rev=$2 dir=$3
    shift 3
    local target=$root/$out/cold/target
    rm -rf "$target"
    local start
    start=$(now)
    (cd "$dir" && CARGO_TARGET_DIR=$target /usr/bin/time -f %M -o "$root/$out/cold/rss" \
        cargo build --release "$@" 2>"$root/$out/cold/build.log") \
        || { cat "$root/$out/cold/build.log" >&2; exit 1; }
    local seconds crates rss_mb
    seconds=$(elapsed "$start" "$(now)")
    crates=$(grep -c '^ *Compiling ' "$root/$out/cold/build.log")
    rss_mb=$(($(tail -1 "$root/$out/cold/rss") / 1024))
    rm -rf "$target"
    echo "| $label | $rev | $crates | $seconds | $rss_mb |"
}

cold() {
    [ $# -gt 0 ] || set -- HEAD
    mkdir -p "$out/cold"
    local rows=()
    for rev in "$@"; do
        local short wt cli_target
        short=$(git rev-parse --short "$rev")
        wt=$root/$out/cold/worktree-$short
        git worktree remove --force "$wt" 2>/dev/null || rm -rf "$wt"
        git worktree add --quiet --detach "$wt" "$rev"
        echo "== $rev ($short): the command line, not timed" >&2
        cli_target=$root/$out/cold/cli-$short
        # The command line is its own package since harness-codegen-cli; before, it was
        # harness-codegen's binary.
        (cd "$wt" && if [ -f cli/Cargo.toml ]; then
            CARGO_TARGET_DIR=$cli_target cargo build --release --locked --quiet -p harness-codegen-cli
        else
            CARGO_TARGET_DIR=$cli_target cargo build --release --locked --quiet -p harness-codegen --bin harness-codegen
        fi)
        echo "== $rev ($short): the default server" >&2
        local row
        row=$(cold_build "default server (\`cargo build --release --locked\`)" "$short" "$wt" --locked)
        rows+=("$row")
        echo "== $rev ($short): a project made by harness-codegen new" >&2
        local project=$root/$out/cold/new-$short
        rm -rf "$project"
        "$cli_target/release/harness-codegen" new "$project" >/dev/null
        cp "$wt/Cargo.lock" "$project/Cargo.lock"
        row=$(cold_build "\`harness-codegen new\` project" "$short" "$project" --offline)
        rows+=("$row")
        git worktree remove --force "$wt"
    done
    {
        echo "# Cold release builds ($(nproc) cores)"
        echo
        echo "| build | revision | crates compiled | seconds | peak memory of one process (MB) |"
        echo "|---|---|---:|---:|---:|"
        printf '%s\n' "${rows[@]}"
    } | tee "$out/cold-report.md"
}

if [ "${1:-}" = --cold ]; then
    shift
    cold "$@"
    exit 0
fi
median() { python3 -c "import statistics, sys; print(f'{statistics.median(map(float, sys.argv[1:])):.2f}')" "$@"; }

profile_flag() { [ "$1" = release ] && echo --release || true; }

echo "== tools"
cargo build --release --locked --quiet -p harness-codegen-cli -p harness-bench --bins

# ---- 1. codegen for 100 tools -------------------------------------------------------------
many=$out/many-tools
mkdir -p "$many/src"
target/release/bench-manifest 100 >"$many/harness.toml"
runs=()
for _ in $(seq 1 5); do
    start=$(now)
    target/release/harness-codegen generate --manifest "$many/harness.toml" --out "$out/generated" >/dev/null
    runs+=("$(elapsed "$start" "$(now)")")
done
codegen_seconds=$(median "${runs[@]}")
generated_lines=$(wc -l <"$out/generated/harness.rs")

# ---- 2. the default server after a one-line harness.toml change ---------------------------
cp harness.toml "$out/harness.toml.orig"
restore() { cp "$out/harness.toml.orig" "$root/harness.toml"; }
trap restore EXIT

# incremental PROFILE DIR MANIFEST: the median rebuild time after appending a marker to the
# first `description = "..."` line of MANIFEST, REPEATS times.
incremental() {
    local profile=$1 dir=$2 manifest=$3 times=()
    for edit in $(seq 1 "$repeats"); do
        sed -i "0,/^description = \"/s/^description = \"\(.*\)\"$/description = \"\1 (edit $edit)\"/" "$manifest"
        local start
        start=$(now)
        (cd "$dir" && cargo build --locked --quiet $(profile_flag "$profile"))
        times+=("$(elapsed "$start" "$(now)")")
    done
    median "${times[@]}"
}

declare -A default_rebuild many_cold many_rebuild
for profile in $profiles; do
    echo "== default server, $profile: settle, then $repeats one-line edits"
    cargo build --locked --quiet $(profile_flag "$profile")
    default_rebuild[$profile]=$(incremental "$profile" . harness.toml)
    restore
    cargo build --locked --quiet $(profile_flag "$profile")
done

# ---- 3. a 100-tool server -----------------------------------------------------------------
cat >"$many/Cargo.toml" <<EOF
[package]
name = "many-tools"
version = "0.1.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
harness-runtime = { path = "$root/runtime" }
serde = { version = "1", features = ["derive"] }
serde_json = { version = "1", features = ["preserve_order"] }

[build-dependencies]
harness-codegen = { path = "$root/codegen" }
EOF
cp Cargo.lock "$many/Cargo.lock" # the workspace's versions, resolved offline
cp build.rs "$many/build.rs"
cp src/main.rs "$many/src/main.rs"
rm -rf "$many/src/tools"
(cd "$many" && "$root/target/release/harness-codegen" scaffold >/dev/null)
export CARGO_TARGET_DIR=$root/target/bench-build/target
for profile in $profiles; do
    echo "== 100-tool server, $profile: cold build, then $repeats one-line edits"
    start=$(now)
    (cd "$many" && cargo build --offline --quiet $(profile_flag "$profile"))
    many_cold[$profile]=$(elapsed "$start" "$(now)")
    many_rebuild[$profile]=$(incremental "$profile" "$many" "$many/harness.toml")
done
unset CARGO_TARGET_DIR

{
    echo "# Build benchmark (median of $repeats edits; $(nproc) cores)"
    echo
    echo "| what | seconds |"
    echo "|---|---:|"
    echo "| codegen process, 100-tool manifest ($generated_lines generated lines) | $codegen_seconds |"
    for profile in $profiles; do
        echo "| default server, $profile rebuild after a one-line harness.toml change | ${default_rebuild[$profile]} |"
    done
    for profile in $profiles; do
        echo "| 100-tool server, $profile cold build (runtime and dependencies included) | ${many_cold[$profile]} |"
        echo "| 100-tool server, $profile rebuild after a one-line harness.toml change | ${many_rebuild[$profile]} |"
    done
} | tee "$out/report.md"
