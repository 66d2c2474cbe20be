#!/usr/bin/env bash
# End-to-end load benchmark: tools/call throughput, p50/p99 latency, server CPU per call and
# RSS (idle, peak under load) for three servers with the same `echo` tool:
#   harness  the generated server (bench/harness.toml): every guard on, audit to a file;
#   harness-redis  the same server loading `echo_shared`: `echo` with its rate limit in Redis
#            (a redis-server on loopback, pinned to the server's core; its CPU is reported
#            apart) (HTTP modes only);
#   harness-rmcp  the same with the stateless fast path off (`serve --rmcp-stateless`):
#            stateless requests through rmcp's own service (HTTP modes only);
#   bare     the same tool on plain rmcp, no guards (bench/src/bin/bench-bare.rs);
#   bare-transport  that bare tool behind the generated server's HTTP layer (security checks,
#            health route, shutdown handling), to tell the transport's cost from the guards'
#            (HTTP modes only: over stdio there is no such layer);
#   floor    no MCP library: one hand-rolled axum + serde_json route answering `tools/call echo`
#            (bench-bare --floor; stateless modes only), what the stack can do at best;
#   fastmcp  FastMCP 4.2.3 under uvicorn (uvloop + httptools, one worker).
# Modes: streamable HTTP stateless with JSON replies at 16 and 1 connections, stateful (one
# session, SSE replies) at 16 connections, all loaded by wrk; stdio through a raw JSON-RPC
# pipe client (bench-stdio), one call at a time.
#
# The server runs on one core and the load generator on another (taskset); runs are
# interleaved (each round visits every mode and server, rotating the order) and the report
# gives medians over rounds and ratios between servers measured in the same round.
#
#   ./scripts/bench-e2e.sh                      # 3 rounds of 10 s runs (about 10 minutes)
#   BENCH_ROUNDS=5 BENCH_SECONDS=20 ./scripts/bench-e2e.sh
#   BENCH_MODES="stateless-c16 stdio" BENCH_SERVERS="harness bare" ./scripts/bench-e2e.sh
#   BENCH_PROFILE=debug BENCH_SECONDS=1 BENCH_ROUNDS=1 ./scripts/bench-e2e.sh   # smoke test
#
# Installs what it needs: wrk (apt-get, as root or with sudo) and a Python >= 3.10 venv with
# FastMCP (target/bench-venv; `--venv` makes only that). Results: target/bench-e2e/results.jsonl
# (per run, the server's CPU per call and the part of it spent in the kernel, from /proc) and
# report.md.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${BENCH_ROUNDS:-3}
seconds=${BENCH_SECONDS:-10}
warmup=${BENCH_WARMUP_SECONDS:-2}
modes=${BENCH_MODES:-stateless-c16 stateless-c1 stateful-c16 stdio}
servers=${BENCH_SERVERS:-harness harness-redis harness-rmcp bare-transport bare floor fastmcp}
profile=${BENCH_PROFILE:-release}
server_cpu=${BENCH_SERVER_CPU:-0}
load_cpu=${BENCH_LOAD_CPU:-1}
port=${BENCH_PORT:-8790}
out=target/bench-e2e
url="http://127.0.0.1:$port/mcp"

die() {
    echo "bench-e2e: $*" >&2
    exit 1
}

# ---- set-up -------------------------------------------------------------------------------
# The FastMCP venv, at target/'s real path (its scripts name it; see scripts/python-venvs.sh).
mkdir -p target
venv=$(cd target && pwd -P)/bench-venv
bench_venv() {
    if ! "$venv/bin/python" -c 'import fastmcp, uvicorn, uvloop, httptools' 2>/dev/null \
        || [[ "$(head -n 1 "$venv/bin/uvicorn" 2>/dev/null)" != "#!$venv/bin/python"* ]]; then
        echo "== installing FastMCP into $venv"
        python=""
        for candidate in python3.12 python3.13 python3.11 /root/.pyenv/versions/3.1[123]*/bin/python3 python3; do
            if command -v "$candidate" >/dev/null 2>&1 \
                && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
                python="$candidate"
                break
            fi
        done
        [ -n "$python" ] || die "FastMCP needs Python >= 3.10 and none was found"
        "$python" -m venv --clear "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check \
            fastmcp==4.2.3 uvicorn==0.54.0 uvloop==0.23.0 httptools==0.9.0
    fi
}
# `bench-e2e.sh --venv` makes the FastMCP venv and stops (.ci/run does it while it compiles).
if [ "${1:-}" = --venv ]; then
    bench_venv
    exit 0
fi
if ! command -v wrk >/dev/null 2>&1; then
    echo "== installing wrk"
    if [ "$(id -u)" = 0 ]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null \
            || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
    elif command -v sudo >/dev/null 2>&1; then
        sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
    fi
    command -v wrk >/dev/null 2>&1 || die "wrk is missing and could not be installed (apt-get install wrk)"
fi
case " $servers " in *" harness-redis "*)
    if ! command -v redis-server >/dev/null 2>&1; then
        echo "== installing redis-server"
        if [ "$(id -u)" = 0 ]; then
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null \
                || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; }
        fi
        command -v redis-server >/dev/null 2>&1 || die "redis-server is missing (apt-get install redis-server)"
    fi
    ;;
esac
for tool in taskset curl; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is missing"
done
if [ "$(nproc)" -lt 2 ]; then
    die "needs two CPUs: one for the server, one for the load generator"
fi

case " $servers " in *" fastmcp "*) bench_venv ;; esac

echo "== building the benchmark servers ($profile)"
if [ "$profile" = release ]; then
    cargo build --release --locked --quiet -p harness-bench --bins
else
    # In debug, the servers as the bench targets' test build makes them (with the test
    # command's features): after `cargo test --workspace --bench '*'` (CI's smoke run) this
    # compiles nothing, where `cargo build -p harness-bench` resolves other features and
    # builds some 140 crates again.
    cargo test --workspace --locked --quiet --bench '*' --no-run
fi
bin="target/$profile"

mkdir -p "$out"
results="$out/results.jsonl"
: >"$results"
audit="$out/audit.jsonl"

# ---- one run ------------------------------------------------------------------------------
server_pid=""
redis_pid=""
redis_port=$((port + 1))
# Every run of the harness names a Redis URL: `serve` refuses to start a server with a
# Redis-backed tool without one (only harness-redis calls that tool).
export HARNESS_REDIS_URL="redis://127.0.0.1:$redis_port/0"

stop_server() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
        server_pid=""
    fi
    if [ -n "$redis_pid" ]; then
        kill "$redis_pid" 2>/dev/null || true
        wait "$redis_pid" 2>/dev/null || true
        redis_pid=""
    fi
}
trap stop_server EXIT

start_redis() {
    taskset -c "$server_cpu" redis-server --bind 127.0.0.1 --port "$redis_port" --save "" \
        --appendonly no >"$out/redis.log" 2>&1 &
    redis_pid=$!
    for _ in $(seq 1 100); do
        [ "$(redis-cli -p "$redis_port" ping 2>/dev/null)" = PONG ] && return
        sleep 0.1
    done
    die "redis-server did not start: $(tail -5 "$out/redis.log")"
}

# start_server NAME STATEFUL(0|1): starts an HTTP server pinned to the server CPU.
start_server() {
    local name=$1 stateful=$2
    if curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/"; then
        die "port $port is already in use (a server left over?); set BENCH_PORT"
    fi
    local stateless_flag=()
    [ "$stateful" = 1 ] || stateless_flag=(--stateless)
    case $name in
    harness | harness-rmcp | harness-redis)
        rm -f "$audit"
        [ "$name" != harness-redis ] || start_redis
        local rmcp_flag=()
        [ "$name" != harness-rmcp ] || rmcp_flag=(--rmcp-stateless)
        taskset -c "$server_cpu" "$bin/bench-harness" serve --transport streamable-http \
            --bind "127.0.0.1:$port" --audit-path "$audit" "${stateless_flag[@]}" \
            "${rmcp_flag[@]}" >"$out/server.log" 2>&1 &
        ;;
    bare)
        taskset -c "$server_cpu" "$bin/bench-bare" http --bind "127.0.0.1:$port" \
            "${stateless_flag[@]}" >"$out/server.log" 2>&1 &
        ;;
    floor)
        taskset -c "$server_cpu" "$bin/bench-bare" http --bind "127.0.0.1:$port" --floor \
            "${stateless_flag[@]}" >"$out/server.log" 2>&1 &
        ;;
    bare-transport)
        taskset -c "$server_cpu" "$bin/bench-bare" http --bind "127.0.0.1:$port" \
            --harness-transport "${stateless_flag[@]}" >"$out/server.log" 2>&1 &
        ;;
    fastmcp)
        local app=stateless_app
        [ "$stateful" = 1 ] && app=stateful_app
        taskset -c "$server_cpu" "$venv/bin/uvicorn" --app-dir bench/load "fastmcp_echo:$app" \
            --host 127.0.0.1 --port "$port" --workers 1 --no-access-log --log-level warning \
            >"$out/server.log" 2>&1 &
        ;;
    esac
    server_pid=$!
}

mcp_post() { # mcp_post BODY [SESSION] -> response body on stdout, headers in $out/headers
    local session_header=()
    [ -z "${2:-}" ] || session_header=(-H "Mcp-Session-Id: $2")
    curl -sS --max-time 5 -D "$out/headers" -X POST "$url" \
        -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' \
        -H 'MCP-Protocol-Version: 2025-11-25' "${session_header[@]}" -d "$1"
}

call_body() { # call_body TOOL
    echo '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"'"$1"'","arguments":{"message":"hello"}}}'
}

# open_session STATEFUL -> session id on stdout (empty when stateless), after the server
# answers; fails when it never does or answers wrongly.
open_session() {
    local stateful=$1 session="" reply=""
    for _ in $(seq 1 150); do
        if [ "$stateful" = 1 ]; then
            if mcp_post '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench-e2e","version":"0"}}}' \
                >/dev/null 2>&1; then
                session=$(tr -d '\r' <"$out/headers" | awk 'tolower($1) == "mcp-session-id:" {print $2}')
                [ -n "$session" ] || die "the stateful server sent no Mcp-Session-Id"
                mcp_post '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$session" >/dev/null
                break
            fi
        elif reply=$(mcp_post "$(call_body "$MCP_TOOL")" 2>/dev/null); then
            break
        fi
        kill -0 "$server_pid" 2>/dev/null || die "the server exited: $(tail -5 "$out/server.log")"
        sleep 0.2
    done
    reply=$(mcp_post "$(call_body "$MCP_TOOL")" "$session") || die "the server does not answer at $url"
    case $reply in
    *'"isError":true'*) die "echo failed: $reply" ;;
    *'"message":"hello"'*) ;;
    *) die "unexpected reply to tools/call: $reply" ;;
    esac
    echo "$session"
}

# The server's RSS/HWM (KiB) and a process's CPU time in clock ticks (default: the server's),
# from /proc.
memory_kib() { awk -v field="$1:" '$1 == field {print $2}' "/proc/$server_pid/status"; }
cpu_ticks() { sed 's/.*) //' "/proc/${1:-$server_pid}/stat" | awk '{print $12 + $13}'; }
# The server's CPU time in the kernel alone (the rest of cpu_ticks is its own code).
sys_ticks() { sed 's/.*) //' "/proc/$server_pid/stat" | awk '{print $13}'; }

run_http() {
    local name=$1 mode=$2 round=$3 stateful=0 connections
    case $mode in
    stateless-c16) connections=16 ;;
    stateless-c1) connections=1 ;;
    stateful-c16) connections=16 stateful=1 ;;
    esac
    export MCP_TOOL=echo
    [ "$name" != harness-redis ] || MCP_TOOL=echo_shared
    start_server "$name" "$stateful"
    local session rss_idle ticks_before ticks_after sys_before sys_after rss_peak report
    local redis_before=0 redis_after=0
    session=$(open_session "$stateful")
    rss_idle=$(memory_kib VmRSS)
    if [ "$warmup" != 0 ]; then
        MCP_SESSION_ID=$session taskset -c "$load_cpu" wrk -t1 -c"$connections" -d"${warmup}s" \
            -s bench/load/tools_call.lua "$url" >/dev/null
    fi
    ticks_before=$(cpu_ticks)
    sys_before=$(sys_ticks)
    [ -z "$redis_pid" ] || redis_before=$(cpu_ticks "$redis_pid")
    report=$(MCP_SESSION_ID=$session taskset -c "$load_cpu" wrk -t1 -c"$connections" \
        -d"${seconds}s" --latency -s bench/load/tools_call.lua "$url" | sed -n 's/^WRK_JSON //p')
    ticks_after=$(cpu_ticks)
    sys_after=$(sys_ticks)
    [ -z "$redis_pid" ] || redis_after=$(cpu_ticks "$redis_pid")
    rss_peak=$(memory_kib VmHWM)
    stop_server
    [ -n "$report" ] || die "wrk printed no result for $name $mode"
    python3 - "$report" "$name" "$mode" "$round" "$rss_idle" "$rss_peak" \
        "$((ticks_after - ticks_before))" "$(getconf CLK_TCK)" "$((redis_after - redis_before))" \
        "$((sys_after - sys_before))" \
        >>"$results" <<'EOF'
import json, sys
report = json.loads(sys.argv[1])
name, mode, round_, rss_idle, rss_peak, ticks, hz, redis_ticks, sys_ticks = sys.argv[2:]
if report["errors"]:
    sys.exit(f"bench-e2e: {report['errors']} failed requests for {name} {mode}")
per_call = lambda ticks: round(int(ticks) / int(hz) * 1e6 / max(report["requests"], 1), 1)
report.update(server=name, mode=mode, round=int(round_), rss_idle_kib=int(rss_idle),
              rss_peak_kib=int(rss_peak), cpu_us_per_call=per_call(ticks),
              sys_us_per_call=per_call(sys_ticks))
if name == "harness-redis":
    report.update(redis_cpu_us_per_call=per_call(redis_ticks))
print(json.dumps(report))
EOF
}

run_stdio() {
    local name=$1 round=$2 command report
    case $name in
    harness) command=("$bin/bench-harness" serve --transport stdio --audit-path "$audit") ;;
    bare) command=("$bin/bench-bare" stdio) ;;
    fastmcp) command=("$venv/bin/python" bench/load/fastmcp_echo.py) ;;
    esac
    report=$(taskset -c "$load_cpu" "$bin/bench-stdio" --seconds "$seconds" \
        -- taskset -c "$server_cpu" "${command[@]}")
    python3 -c 'import json, sys; r = json.loads(sys.argv[1]); r.update(server=sys.argv[2], mode="stdio", round=int(sys.argv[3]), requests_per_second=r.pop("calls_per_second")); print(json.dumps(r))' \
        "$report" "$name" "$round" >>"$results"
}

# ---- the interleaved rounds ---------------------------------------------------------------
read -r -a server_list <<<"$servers"
for round in $(seq 1 "$rounds"); do
    for mode in $modes; do
        # Rotate the order so no server always runs first (or right after another).
        count=${#server_list[@]}
        for offset in $(seq 0 $((count - 1))); do
            name=${server_list[$(((offset + round - 1) % count))]}
            case $mode:$name in
            stdio:bare-transport | stdio:harness-rmcp | stdio:harness-redis | stdio:floor | stateful-c16:floor) continue ;;
            esac
            echo "== round $round/$rounds: $mode, $name"
            case $mode in
            stdio) run_stdio "$name" "$round" ;;
            stateless-c16 | stateless-c1 | stateful-c16) run_http "$name" "$mode" "$round" ;;
            *) die "unknown mode $mode (stateless-c16, stateless-c1, stateful-c16, stdio)" ;;
            esac
        done
    done
done

python3 bench/load/report.py "$results" "$seconds" "$profile" | tee "$out/report.md"
