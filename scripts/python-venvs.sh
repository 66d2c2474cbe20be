# Sourced by the scripts that need Python: finds a Python >= 3.12 (Harbor's minimum) and makes
# the two venvs in target/ the first time: target/harbor-venv (harbor==0.18.0, which pins its
# own dependencies) and target/mcp-venv (the official MCP client, mcp==2.3.0, and httpx).
# Sets $python, $harbor_venv and $mcp_venv.

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
harbor_venv=target/harbor-venv
if ! "$harbor_venv/bin/python" -c 'import harbor' 2>/dev/null; then
    "$python" -m venv "$harbor_venv"
    "$harbor_venv/bin/pip" install --quiet --disable-pip-version-check harbor==0.18.0
fi
mcp_venv=target/mcp-venv
if ! "$mcp_venv/bin/python" -c 'import mcp, httpx' 2>/dev/null; then
    "$python" -m venv "$mcp_venv"
    "$mcp_venv/bin/pip" install --quiet --disable-pip-version-check mcp==2.3.0 httpx==0.28.1
fi
harbor_venv=$PWD/$harbor_venv
mcp_venv=$PWD/$mcp_venv
