#!/usr/bin/env bash
# Instructions per tools/call, counted by valgrind's callgrind: repeatable whatever the
# machine's noise, where wall-clock figures are not. For each server of bench-e2e.sh
# (harness: every guard and the audit record on, on the stateless fast path; harness-rmcp:
# the same through rmcp's stateless service, `serve --rmcp-stateless`; bare-transport: the
# bare tool behind the harness's HTTP layer; bare: plain rmcp; floor: bench-bare --floor, one
# hand-rolled axum route and no MCP library; gateway: bench/gateway in front of bench-bare over
# stdio, its own process only; gateway-http: the same gateway in front of bench-bare over
# streamable HTTP, started beside it outside valgrind) in stateless JSON mode, it
# counts the whole
# process's instructions for WARM calls and for WARM+CALLS calls over one keep-alive
# connection, and reports (difference / CALLS): start-up and shutdown cancel out.
#
#   ./scripts/bench-callgrind.sh                  # 200 + 1,000 calls per server
#   CALLS=2000 SERVERS="harness bare" ./scripts/bench-callgrind.sh
#
# Results: target/bench-callgrind/report.md, and callgrind.<server>.out files to read with
# `callgrind_annotate --inclusive=yes` (top functions of each server are in the report).
set -euo pipefail
cd "$(dirname "$0")/.."

warm=${WARM:-200}
calls=${CALLS:-1000}
servers=${SERVERS:-harness harness-rmcp bare-transport bare}
port=${BENCH_PORT:-8791}
out=target/bench-callgrind
mkdir -p "$out"
# The benchmark server has a Redis-limited tool (`echo_shared`, bench-e2e's harness-redis) and
# refuses to start without its URL; `echo`, counted here, never asks Redis.
export HARNESS_REDIS_URL=redis://127.0.0.1:1/0

if ! command -v valgrind >/dev/null 2>&1; then
    echo "== installing valgrind"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null \
        || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null; }
fi

echo "== building the benchmark servers (release, with line tables for symbols)"
# Its own target dir: line tables change every crate's build hash.
export CARGO_TARGET_DIR=target/callgrind-build
CARGO_PROFILE_RELEASE_DEBUG=line-tables-only cargo build --release --locked --quiet -p harness-bench --bins
case " $servers " in
*" gateway "* | *" gateway-http "*)
    CARGO_PROFILE_RELEASE_DEBUG=line-tables-only cargo build --release --locked --quiet \
        -p bench-gateway --bin bench-gateway
    ;;
esac
bin=$(pwd -P)/$CARGO_TARGET_DIR/release
# The gateway finds its upstream, bench-bare, on PATH (bench/gateway/harness.toml).
export PATH="$bin:$PATH"

# calls N [TOOL]: N sequential stateless tools/call of TOOL (`echo`) over one keep-alive
# connection.
calls_client() {
    python3 - "$port" "$1" "${2:-echo}" <<'PY'
import http.client, json, sys, time
port, count, tool = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": tool, "arguments": {"message": "hello"}}})
headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
           "MCP-Protocol-Version": "2025-11-25"}
deadline = time.monotonic() + 120
# Until the server answers a call (a gateway answers /health before its upstream is up).
while True:
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        connection.request("POST", "/mcp", body, headers)
        if b'"message":"hello"' in connection.getresponse().read():
            break
    except OSError:
        pass
    if time.monotonic() > deadline:
        sys.exit("the server never answered a call")
    time.sleep(0.2)
for _ in range(count):
    connection.request("POST", "/mcp", body, headers)
    reply = connection.getresponse().read()
    if b'"message":"hello"' not in reply:
        sys.exit(f"unexpected reply: {reply[:300]!r}")
PY
}

upstream_pid=""
# run SERVER N -> total instructions of the server process for N calls.
run() {
    local name=$1 count=$2 file="$out/callgrind.$1.$2.out"
    local command tool=echo
    case $name in
    harness) command=("$bin/bench-harness" serve --transport streamable-http --bind "127.0.0.1:$port" --audit-path "$out/audit.jsonl" --stateless) ;;
    harness-rmcp) command=("$bin/bench-harness" serve --transport streamable-http --bind "127.0.0.1:$port" --audit-path "$out/audit.jsonl" --stateless --rmcp-stateless) ;;
    bare) command=("$bin/bench-bare" http --bind "127.0.0.1:$port" --stateless) ;;
    bare-transport) command=("$bin/bench-bare" http --bind "127.0.0.1:$port" --harness-transport --stateless) ;;
    floor) command=("$bin/bench-bare" http --bind "127.0.0.1:$port" --floor --stateless) ;;
    # Only the gateway's own process is counted: its upstream child runs outside valgrind.
    gateway) command=("$bin/bench-gateway" serve --bind "127.0.0.1:$port" --audit-path "$out/audit.jsonl" --stateless) ;;
    # Its upstream on the port bench/gateway/harness.toml names, outside valgrind.
    gateway-http)
        command=("$bin/bench-gateway" serve --bind "127.0.0.1:$port" --audit-path "$out/audit.jsonl" --stateless)
        tool=echo_http
        "$bin/bench-bare" http --bind 127.0.0.1:8796 --stateless >"$out/upstream.log" 2>&1 &
        upstream_pid=$!
        ;;
    *) echo "unknown server $name" >&2; exit 2 ;;
    esac
    rm -f "$out/audit.jsonl"
    valgrind --tool=callgrind --callgrind-out-file="$file" --dump-instr=no \
        "${command[@]}" >"$out/server.log" 2>&1 &
    local pid=$!
    calls_client "$count" "$tool" || { kill "$pid"; cat "$out/server.log" >&2; exit 1; }
    kill -TERM "$pid"
    wait "$pid" || true
    if [ -n "$upstream_pid" ]; then
        kill "$upstream_pid"
        wait "$upstream_pid" || true
        upstream_pid=""
    fi
    # awk reads to the end: stopping early would end callgrind_annotate with SIGPIPE.
    callgrind_annotate "$file" 2>/dev/null | awk '/PROGRAM TOTALS/ && !total {gsub(",", "", $1); total = $1} END {print total}'
}

report=$out/report.md
{
    echo "| server | instructions per call |"
    echo "|---|---:|"
} >"$report.table"
for server in $servers; do
    echo "== $server: $warm calls, then $((warm + calls))"
    low=$(run "$server" "$warm")
    high=$(run "$server" "$((warm + calls))")
    per_call=$(( (high - low) / calls ))
    echo "$server: $per_call instructions per call"
    echo "| $server | $per_call |" >>"$report.table"
done
{
    echo "# Instructions per stateless tools/call (callgrind, $calls calls after $warm)"
    echo
    cat "$report.table"
    echo
    for server in $servers; do
        echo "## $server: top functions by inclusive instructions ($((warm + calls)) calls)"
        echo
        echo '```'
        callgrind_annotate --inclusive=yes "$out/callgrind.$server.$((warm + calls)).out" 2>/dev/null \
            | sed -n '/^Ir/,$p' | sed -n 1,45p
        echo '```'
        echo
    done
} >"$report"
rm -f "$report.table"
echo "== report: $report"
sed -n 1,8p "$report"
