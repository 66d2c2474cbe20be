#!/usr/bin/env bash
# The test command: every Rust test, then the generated Harbor task loaded by Harbor's own
# models (Python 3.12 and `pip install harbor==0.18.0` into target/harbor-venv, once).
set -euo pipefail
cd "$(dirname "$0")/.."

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

cargo test --workspace --locked

# Python >= 3.12 and the Harbor and MCP-client venvs in target/, made once.
. scripts/python-venvs.sh
rm -rf target/harbor-check
cargo run --locked --quiet -p harness-codegen -- generate --out target/harbor-check >/dev/null
"$harbor_venv/bin/python" scripts/harbor_check.py target/harbor-check/bundle

# The three transports and the HTTP security through the official Python MCP client, against
# the binaries `cargo test` just built.
"$mcp_venv/bin/python" tests/python/test_transports.py target/debug
./scripts/scan_secrets.sh target/harbor-check/bundle
