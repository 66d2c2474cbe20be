#!/usr/bin/env bash
# Harbor's own CLI on the incident monitor's generated task (examples/incident-monitor):
# `harbor trial start` with Harbor's oracle agent (which runs the generated
# solution/solve.sh) on its docker environment, offline, and the
# reward Harbor itself writes. Local images replace the registry ones as in
# scripts/compose-proof.sh: HARNESS_MAIN_BASE_IMAGE and HARNESS_VERIFIER_BASE_IMAGE (build
# arguments of the generated compose files) and the egress-sidecar stand-in.
#   ./scripts/harbor-trial.sh        # expects reward 1
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
eval "$(./scripts/docker-engine.sh)"
export DOCKER_CONFIG
python_image=harness-local/python:3.12-slim
work=$root/target/harbor-trial
. scripts/python-venvs.sh
docker image inspect "$python_image" >/dev/null 2>&1 || { echo "harbor-trial: $python_image is missing; run ./scripts/compose-proof.sh first" >&2; exit 1; }
static_target=x86_64-unknown-linux-gnu
RUSTFLAGS="-C target-feature=+crt-static" cargo build --release --locked --quiet --target "$static_target" -p incident-monitor
rm -rf "$work"
mkdir -p "$work/trials"
"$root/target/$static_target/release/incident-monitor" bundle --out "$work/task" >/dev/null 2>&1
"$harbor_venv/bin/python" scripts/harbor_compose.py "$work/task" "$work/compose.json"
egress_image=$("$harbor_venv/bin/python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["egress_image"])' "$work/compose.json")
./scripts/egress-standin.sh "$python_image" "$egress_image"
export HARNESS_MAIN_BASE_IMAGE=$python_image HARNESS_VERIFIER_BASE_IMAGE=$python_image
started=$(date +%s)
"$harbor_venv/bin/harbor" trial start -p "$work/task" -a oracle -e docker --trials-dir "$work/trials" >"$work/harbor.log" 2>&1 || true
result=$(find "$work/trials" -name result.json | head -n 1)
[ -n "$result" ] || { tail -n 40 "$work/harbor.log"; echo "harbor-trial: Harbor wrote no result.json" >&2; exit 1; }
"$harbor_venv/bin/python" - "$result" <<'PY'
import json
import sys

result = json.load(open(sys.argv[1]))
exception = result.get("exception_info")
rewards = (result.get("verifier_result") or {}).get("rewards")
print(f"harbor-trial: exception {exception and exception.get('exception_type')}, rewards {rewards}")
if exception or rewards != {"reward": 1.0} and rewards != {"reward": 1}:
    print(json.dumps(result, indent=2)[:4000])
    sys.exit(1)
PY
echo "harbor-trial: Harbor's own trial scored 1 in $(($(date +%s) - started)) s" >&2
