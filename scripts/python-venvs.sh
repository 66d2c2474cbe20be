# Sourced by the scripts that need Python: finds a Python >= 3.12 (Harbor's minimum) and makes
# the venvs in target/ the first time: target/harbor-venv (harbor==0.18.0, which pins its
# own dependencies), target/rewardkit-venv (harbor-rewardkit==0.2.3, Reward Kit's judge
# parser) and target/mcp-venv (the official MCP client, mcp==2.3.0, httpx, and FastMCP
# 4.2.3, the seed chapter's server framework, which the read-only gateway's upstream runs on),
# and target/tasks-venv (FastMCP's client half of the tasks extension, fastmcp-tasks==4.1.4,
# which pins fastmcp 4.1.4 and so cannot share the 4.2.3 venv; tests/python/test_tasks.py).
# Sets $python, $harbor_venv, $rewardkit_venv, $mcp_venv and $tasks_venv.
#
# A venv's scripts (bin/pip, bin/harbor) name its path in their #! line, so the venvs are
# made at target/'s real path: under .ci/run, target/ links into a cache outside the clone
# that outlives it, and the next clone's link reaches the same venvs.

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
mkdir -p target
venv_root=$(cd target && pwd -P)
harbor_venv=$venv_root/harbor-venv
# (A venv made at another path, whose scripts name that path, is made again.)
if ! "$harbor_venv/bin/python" -c 'import harbor' 2>/dev/null \
    || [[ "$(head -n 1 "$harbor_venv/bin/harbor" 2>/dev/null)" != "#!$harbor_venv/bin/python"* ]]; then
    "$python" -m venv --clear "$harbor_venv"
    "$harbor_venv/bin/pip" install --quiet --disable-pip-version-check harbor==0.18.0
fi
rewardkit_venv=$venv_root/rewardkit-venv
if ! "$rewardkit_venv/bin/python" -c 'import rewardkit' 2>/dev/null; then
    "$python" -m venv --clear "$rewardkit_venv"
    "$rewardkit_venv/bin/pip" install --quiet --disable-pip-version-check harbor-rewardkit==0.2.3
fi
mcp_venv=$venv_root/mcp-venv
if ! "$mcp_venv/bin/python" -c 'import mcp, httpx, fastmcp' 2>/dev/null; then
    "$python" -m venv --clear "$mcp_venv"
    "$mcp_venv/bin/pip" install --quiet --disable-pip-version-check mcp==2.3.0 httpx==0.28.1 fastmcp==4.2.3
fi
tasks_venv=$venv_root/tasks-venv
if ! "$tasks_venv/bin/python" -c 'import mcp, httpx, fastmcp, fastmcp_tasks' 2>/dev/null; then
    "$python" -m venv --clear "$tasks_venv"
    "$tasks_venv/bin/pip" install --quiet --disable-pip-version-check mcp==2.3.0 httpx==0.28.1 fastmcp==4.1.4 fastmcp-tasks==4.1.4
fi
