#!/usr/bin/env bash
# What creating and polling a task costs against an inline call: bench-harness (release,
# stateless streamable HTTP, every guard and the audit on) pinned to one core, the driver
# (bench/load/tasks.py, one keep-alive connection, sequential requests) to the other.
# BENCH_REQUESTS per phase (default 3000); BENCH_PORT (default 8793); BENCH_PROFILE (release,
# or debug for CI's smoke run).
set -euo pipefail
cd "$(dirname "$0")/.."
port=${BENCH_PORT:-8793}
requests=${BENCH_REQUESTS:-3000}
profile=${BENCH_PROFILE:-release}
[ "$(nproc)" -ge 2 ] || { echo "bench-tasks: needs two CPUs" >&2; exit 1; }
command -v taskset >/dev/null || { echo "bench-tasks: taskset is missing" >&2; exit 1; }
echo "== building bench-harness ($profile)"
if [ "$profile" = release ]; then
    cargo build --release --locked --quiet -p harness-bench --bin bench-harness
else
    cargo build --locked --quiet -p harness-bench --bin bench-harness
fi
# The server's Redis-limited tool (bench-e2e's harness-redis) is never called here; it only
# needs a URL to start.
export HARNESS_REDIS_URL=redis://127.0.0.1:1/0
out=target/bench-tasks
mkdir -p "$out"
taskset -c 0 "target/$profile/bench-harness" serve --transport streamable-http --stateless \
    --bind "127.0.0.1:$port" --audit-path "$out/audit.jsonl" >"$out/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/health" && break
    kill -0 "$server" 2>/dev/null || { cat "$out/server.log" >&2; exit 1; }
    sleep 0.1
done
taskset -c 1 python3 bench/load/tasks.py "$port" "$server" "$requests" 2>"$out/results.jsonl"
