#!/usr/bin/env bash
# The test command: every Rust test, then the generated Harbor task loaded by Harbor's own
# models (Python 3.12 and `pip install harbor==0.18.0` into target/harbor-venv, once).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo test --workspace --locked

python=""
for candidate in python3.12 /root/.pyenv/versions/3.12*/bin/python3 python3.13 /root/.pyenv/versions/3.13*/bin/python3; do
    if command -v "$candidate" >/dev/null 2>&1 \
        && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
        python="$candidate"
        break
    fi
done
if [ -z "$python" ]; then
    echo "error: Harbor needs Python >= 3.12 and none was found" >&2
    exit 1
fi
# One venv per consumer: Harbor pins its own dependencies.
venv=target/harbor-venv
if ! "$venv/bin/python" -c 'import harbor' 2>/dev/null; then
    "$python" -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check harbor==0.18.0
fi
rm -rf target/harbor-check
cargo run --locked --quiet -p harness-codegen -- generate --out target/harbor-check >/dev/null
"$venv/bin/python" scripts/harbor_check.py target/harbor-check/bundle

# The three transports and the HTTP security through the official Python MCP client, against
# the binaries `cargo test` just built.
mcp_venv=target/mcp-venv
if ! "$mcp_venv/bin/python" -c 'import mcp, httpx' 2>/dev/null; then
    "$python" -m venv "$mcp_venv"
    "$mcp_venv/bin/pip" install --quiet --disable-pip-version-check mcp==2.3.0 httpx==0.28.1
fi
"$mcp_venv/bin/python" tests/python/test_transports.py target/debug
./scripts/scan_secrets.sh target/harbor-check/bundle
