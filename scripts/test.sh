#!/usr/bin/env bash
# The test command: every Rust test, then the same for the feature set that ships, then the
# generated Harbor task loaded by Harbor's own models (Python 3.12 and `pip install
# harbor==0.18.0` into a venv under target/, once), the transports through the official
# Python MCP client, and the secrets scan of the bundle.
set -euo pipefail
cd "$(dirname "$0")/.."

started=$(date +%s)
step() { echo "-- test.sh: $1 ($(($(date +%s) - started)) s in)"; }

# The shared rate-limit tests (examples/paging) start their own redis-server on loopback:
# Debian's package, installed once.
if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get install -y -q redis-server >/dev/null \
      || { apt-get update -q >/dev/null && apt-get install -y -q redis-server >/dev/null; }
  else
    echo "scripts/test.sh: redis-server is needed: apt-get install redis-server (as root)" >&2
    exit 1
  fi
fi

step "cargo test --workspace"
cargo test --workspace --locked

# The workspace build unifies features: examples/paging and the benchmarks turn the
# runtime's `redis` and `otel` on, so every test above runs with them. The bundle's static
# binary (incident-monitor; the root package's for `make static`) is built alone, without
# them. Built alone too, these packages resolve to what ships: the runtime's own tests and
# the two servers' tests run again with the runtime as it ships.
shipped=(-p harness-runtime -p incident-monitor -p mcp-agent-harness)
runtime_features() {
    cargo tree --locked "$@" -i harness-runtime --prefix none \
        | grep -o 'harness-runtime feature "[^"]*"' | sort -u | tr '\n' ' '
}
tested=$(runtime_features "${shipped[@]}" -e features)
for binary in incident-monitor mcp-agent-harness; do
    built=$(runtime_features -p "$binary" -e normal,build,features)
    if [ "$tested" != "$built" ]; then
        echo "scripts/test.sh: the shipped-feature test run would build the runtime with $tested but $binary ships with $built" >&2
        exit 1
    fi
done
case "$tested" in
    *'"redis"'* | *'"otel"'*)
        echo "scripts/test.sh: the shipped feature set turns on $tested; this run was meant to test without redis and otel" >&2
        exit 1
        ;;
esac
step "cargo test ${shipped[*]} (the shipped feature set: ${tested% })"
cargo test --locked "${shipped[@]}"

# Python >= 3.12 and the Harbor and MCP-client venvs, made once.
. scripts/python-venvs.sh
step "the generated task through Harbor's models"
rm -rf target/harbor-check
# harness-codegen as `cargo test --workspace` built it (a `cargo run` here would resolve the
# package's features alone and build it again).
target/debug/harness-codegen generate --out target/harbor-check >/dev/null
"$harbor_venv/bin/python" scripts/harbor_check.py target/harbor-check/bundle
rm -rf target/topology-check
target/debug/harness-codegen generate --manifest examples/compose-topology-repair/harness.toml \
    --tools-dir examples/compose-topology-repair/src/tools --out target/topology-check >/dev/null
"$harbor_venv/bin/python" scripts/harbor_check.py target/topology-check/bundle
rm -rf target/stdio-check
target/debug/harness-codegen generate --manifest examples/incident-monitor-stdio/harness.toml \
    --tools-dir examples/incident-monitor/src/tools --out target/stdio-check >/dev/null
"$harbor_venv/bin/python" scripts/harbor_check.py target/stdio-check/bundle
step "a generated Reward Kit judge through Reward Kit's own parser"
rm -rf target/judge-check
target/debug/harness-codegen generate --manifest tests/fixtures/good/bundle_judge.toml --out target/judge-check >/dev/null
"$rewardkit_venv/bin/python" scripts/rewardkit_judge.py target/judge-check/bundle

# The three transports and the HTTP security through the official Python MCP client, against
# the binaries `cargo test` just built (the incident monitor's with the shipped features).
step "the official Python MCP client"
"$mcp_venv/bin/python" tests/python/test_transports.py target/debug
step "images, progress, logging, elicitation and sampling on every transport, through the official Python MCP client"
# The conformance fixture has no tests of its own, so `cargo test` need not have built it.
cargo build --locked --quiet -p conformance-fixture
"$mcp_venv/bin/python" tests/python/test_protocol.py target/debug
step "skills through FastMCP's client, which checks every file's size and digest"
"$mcp_venv/bin/python" tests/python/test_skills.py target/debug
step "tasks through FastMCP's client (fastmcp-tasks): create, poll, cancel, tasks/update, another subject's task refused"
# Its last test is behind [auth]: examples/oauth-resource (built by `cargo test`) and the
# OpenID provider of test_oauth.py.
"$tasks_venv/bin/python" tests/python/test_tasks.py target/debug
step "the gateway in front of server-everything, through the official Python MCP client"
"$mcp_venv/bin/python" tests/python/test_gateway.py target/debug
step "the read-only gateway in front of the seed's FastMCP server and server-filesystem"
# Like the conformance fixture, it has no Rust tests, so `cargo test` need not have built it.
cargo build --locked --quiet -p gateway-readonly
"$mcp_venv/bin/python" tests/python/test_gateway_readonly.py target/debug
step "the OAuth resource server with a token from a real OpenID provider, through the official Python MCP client"
# oidc-provider (pinned) is installed under target/oauth by scripts/oauth-provider.sh, once.
"$mcp_venv/bin/python" tests/python/test_oauth.py target/debug
step "the scripted model of the agent trial (tests/agent)"
"$python" tests/agent/test_scripted_model.py
./scripts/scan_secrets.sh target/harbor-check/bundle
step "the scripts CI's cache rests on (tests/scripts)"
"$python" tests/scripts/test_ci_cache.py
step "done"
