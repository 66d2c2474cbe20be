#!/usr/bin/env bash
# The gateway's cost, measured (figures, not a test): tools/call `echo` through the
# generated gateway (bench/gateway/harness.toml, every guard on, audit to a file) against
# calling the same upstream directly, and against FastMCP's proxy in front of the same
# upstream:
#   direct-bare        bench-bare's echo over streamable HTTP (stateless JSON): no gateway;
#   gateway-bare       the gateway (stateless JSON) -> bench-bare over stdio;
#   gateway-bare-normal
#                      gateway-bare with its child put back under the normal scheduling
#                      policy (the gateway starts it under SCHED_BATCH): what the policy is worth;
#   gateway-bare-http  the gateway (stateless JSON) -> bench-bare over streamable HTTP
#                      (stateless JSON, port 8796, on the gateway's core; one kept-alive
#                      connection pool, no handshake per call);
#   gateway-bare-http-batch
#                      gateway-bare-http with the upstream started under SCHED_BATCH
#                      (`chrt --batch`), as the gateway guide advises for an HTTP upstream
#                      that shares the gateway's cores;
#   fastmcp-proxy      FastMCP 4.2.3's proxy (create_proxy, under uvicorn) -> bench-bare over stdio;
#   direct-everything  @modelcontextprotocol/server-everything's echo over streamable HTTP
#                      (its own sessions);
#   direct-everything-stdio, direct-bare-stdio
#                      the upstream over stdio with no gateway, by bench-stdio (a raw JSON-RPC
#                      pipe client, one call at a time: 1 connection only);
#   gateway-everything the gateway (stateless JSON) -> server-everything over stdio.
# Each at 1 connection (p50 latency) and 16 (throughput), loaded by wrk on the other core;
# the server side (gateway or proxy with its upstream child, or the direct server) on one
# core. CPU per call counts the server side's processes together.
#
#   ./scripts/bench-gateway.sh                    # 3 rounds of 10 s runs
#   BENCH_ROUNDS=1 BENCH_SECONDS=3 ./scripts/bench-gateway.sh
#   BENCH_SERVERS="direct-bare gateway-bare" ./scripts/bench-gateway.sh
#
# Needs wrk, node/npx (server-everything comes from npm) and the FastMCP venv that
# scripts/bench-e2e.sh --venv makes. Results: target/bench-gateway/results.jsonl, report.md.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${BENCH_ROUNDS:-3}
seconds=${BENCH_SECONDS:-10}
warmup=${BENCH_WARMUP_SECONDS:-2}
servers=${BENCH_SERVERS:-direct-bare direct-bare-stdio gateway-bare fastmcp-proxy direct-everything direct-everything-stdio gateway-everything}
connections_list=${BENCH_CONNECTIONS:-1 16}
server_cpu=${BENCH_SERVER_CPU:-0}
load_cpu=${BENCH_LOAD_CPU:-1}
port=${BENCH_PORT:-8795}
out=target/bench-gateway
url="http://127.0.0.1:$port/mcp"
everything="@modelcontextprotocol/server-everything@2026.8.31"

die() {
    echo "bench-gateway: $*" >&2
    exit 1
}

for tool in wrk taskset chrt curl npx; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is missing"
done
./scripts/bench-e2e.sh --venv
venv=$(cd target && pwd -P)/bench-venv

echo "== building (release)"
cargo build --release --locked --quiet -p harness-bench -p bench-gateway \
    --bin bench-bare --bin bench-stdio --bin bench-gateway
bin=$(pwd -P)/target/release
# The gateway finds its upstream on PATH, as its manifest says.
export PATH="$bin:$PATH"
mkdir -p "$out"
results="$out/results.jsonl"
: >"$results"

server_pid=""
# An upstream the gateway reaches over HTTP, started beside it (gateway-bare-http[-batch]).
upstream_pid=""
stop_server() {
    local pid
    for pid in $server_pid $upstream_pid; do
        # The whole process group: a gateway or proxy and its upstream child.
        kill -- "-$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    server_pid=""
    upstream_pid=""
}
trap stop_server EXIT

start_server() {
    local name=$1
    case $name in
    direct-bare) command=("$bin/bench-bare" http --bind "127.0.0.1:$port" --stateless) ;;
    gateway-bare | gateway-bare-normal | gateway-everything | gateway-bare-http | gateway-bare-http-batch)
        # One run's records: the log is appended to, and every run adds about 100 MB.
        rm -f "$out/audit.jsonl"
        command=("$bin/bench-gateway" serve --bind "127.0.0.1:$port" --stateless
            --audit-path "$out/audit.jsonl")
        if [[ $name == gateway-bare-http* ]]; then
            local policy=()
            [ "$name" = gateway-bare-http ] || policy=(chrt --batch 0)
            setsid taskset -c "$server_cpu" "${policy[@]}" "$bin/bench-bare" http \
                --bind 127.0.0.1:8796 --stateless >"$out/upstream.log" 2>&1 &
            upstream_pid=$!
        fi
        ;;
    fastmcp-proxy)
        command=("$venv/bin/uvicorn" --app-dir bench/load fastmcp_proxy:app --host 127.0.0.1
            --port "$port" --workers 1 --no-access-log --log-level warning)
        ;;
    direct-everything) command=(env PORT="$port" npx --yes "$everything" streamableHttp) ;;
    esac
    setsid taskset -c "$server_cpu" "${command[@]}" >"$out/server.log" 2>&1 &
    server_pid=$!
}

# The tool each server calls `echo`, and whether the run needs a session.
tool_of() {
    case $1 in
    gateway-everything) echo everything_echo ;;
    gateway-bare-http | gateway-bare-http-batch) echo echo_http ;;
    *) echo echo ;;
    esac
}

post() { # post BODY [SESSION]
    local session_header=()
    [ -z "${2:-}" ] || session_header=(-H "Mcp-Session-Id: $2")
    curl -sS --max-time 5 -D "$out/headers" -X POST "$url" -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2025-11-25' \
        "${session_header[@]}" -d "$1"
}

# open_session NAME -> a session id (direct-everything) or nothing, once echo answers.
open_session() {
    local name=$1 tool session="" reply=""
    tool=$(tool_of "$name")
    local call='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"'"$tool"'","arguments":{"message":"hello"}}}'
    for _ in $(seq 1 300); do
        if [ "$name" = direct-everything ]; then
            if post '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}' >/dev/null 2>&1; then
                session=$(tr -d '\r' <"$out/headers" | awk 'tolower($1) == "mcp-session-id:" {print $2}')
                post '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$session" >/dev/null
            fi
        fi
        if reply=$(post "$call" "$session" 2>/dev/null) && [[ $reply == *hello* ]]; then
            echo "$session"
            return
        fi
        kill -0 "$server_pid" 2>/dev/null || die "$name exited: $(tail -5 "$out/server.log")"
        sleep 0.2
    done
    die "$name never answered echo: $reply $(tail -5 "$out/server.log")"
}

# The server and every process under it: its children may lead process groups of their own
# (the gateway starts each upstream in one).
tree() {
    local child
    echo "$1"
    for child in $(pgrep -P "$1" 2>/dev/null); do
        tree "$child"
    done
}

# Every thread of every process under $1 back under the normal scheduling policy (the
# gateway starts its upstreams under SCHED_BATCH; gateway-bare-normal measures without it).
normal_policy_below() {
    local pid task
    for pid in $(tree "$1"); do
        [ "$pid" != "$1" ] || continue
        for task in /proc/"$pid"/task/*; do
            chrt --other --pid 0 "${task##*/}" >/dev/null
        done
    done
}

# CPU ticks of the server and everything under it (and of an upstream started beside it).
group_ticks() {
    local total=0 pid
    for pid in $(tree "$server_pid") ${upstream_pid:+$(tree "$upstream_pid")}; do
        total=$((total + $(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{print $12 + $13}' || echo 0)))
    done
    echo "$total"
}

# The server-everything npx installed (started with node directly, so its CPU is its own).
everything_js() {
    npx --yes "$everything" --help </dev/null >/dev/null 2>&1 || true
    find "$HOME/.npm/_npx" -path '*@modelcontextprotocol/server-everything/package.json' 2>/dev/null \
        | head -n 1 | xargs -r dirname | while read -r dir; do
        node -e 'const p = require(process.argv[1]); const b = p.bin; console.log(typeof b === "string" ? b : Object.values(b)[0])' "$dir/package.json" \
            | sed "s|^|$dir/|"
    done
}

run_stdio() {
    local name=$1 round=$2 command report
    case $name in
    direct-bare-stdio) command=("$bin/bench-bare" stdio) ;;
    direct-everything-stdio)
        local js
        js=$(everything_js)
        [ -n "$js" ] || die "server-everything is not in npx's cache"
        command=(node "$js" stdio)
        ;;
    esac
    report=$(taskset -c "$load_cpu" "$bin/bench-stdio" --seconds "$seconds" \
        -- taskset -c "$server_cpu" "${command[@]}")
    python3 -c 'import json, sys; r = json.loads(sys.argv[1]); r.update(server=sys.argv[2], connections=1, round=int(sys.argv[3]), requests_per_second=r.pop("calls_per_second"), requests=r.pop("calls"), errors=0); print(json.dumps(r))' \
        "$report" "$name" "$round" >>"$results"
    tail -n 1 "$results"
}

hz=$(getconf CLK_TCK)
for round in $(seq 1 "$rounds"); do
    for name in $servers; do
        case $name in *-stdio)
            run_stdio "$name" "$round"
            continue
            ;;
        esac
        start_server "$name"
        session=$(open_session "$name")
        [ "$name" != gateway-bare-normal ] || normal_policy_below "$server_pid"
        for connections in $connections_list; do
            export MCP_TOOL MCP_SESSION_ID=$session
            MCP_TOOL=$(tool_of "$name")
            taskset -c "$load_cpu" wrk -t1 -c"$connections" -d"${warmup}s" \
                -s bench/load/tools_call.lua "$url" >/dev/null
            before=$(group_ticks)
            report=$(taskset -c "$load_cpu" wrk -t1 -c"$connections" -d"${seconds}s" --latency \
                -s bench/load/tools_call.lua "$url" | sed -n 's/^WRK_JSON //p')
            after=$(group_ticks)
            [ -n "$report" ] || die "wrk printed nothing for $name"
            echo "$report" | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
name, connections, round_, ticks, hz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
r.update(server=name, connections=connections, round=round_,
         cpu_us_per_call=round(ticks / hz * 1e6 / max(r["requests"], 1), 1))
print(json.dumps(r))' "$name" "$connections" "$round" "$((after - before))" "$hz" >>"$results"
            tail -n 1 "$results"
        done
        stop_server
    done
done

python3 bench/load/gateway_report.py "$results" >"$out/report.md"
cat "$out/report.md"
