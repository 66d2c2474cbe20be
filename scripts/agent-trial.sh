#!/usr/bin/env bash
# A real agent in a real trial: Harbor's own CLI (`harbor trial start`) with Harbor 0.18's
# `claude-code` agent on the incident monitor's generated task (examples/incident-monitor),
# docker environment, offline, against a scripted model (tests/agent/scripted_model.py).
#
#   - Claude Code is pinned (CLAUDE_CODE_VERSION, default 2.1.332) and preinstalled in main's
#     base image at build time (tests/agent/claude-code.Dockerfile) from the npm package
#     fetched on the host, so Harbor's install step finds it and downloads nothing;
#   - the scripted model runs inside the trial's shared loopback namespace as one more
#     compose service, added by this script through `--extra-docker-compose` (never part of
#     the shipped bundle); Harbor passes ANTHROPIC_BASE_URL from its own environment to the
#     agent, and ENABLE_TOOL_SEARCH=false through --ae (otherwise MCP tools are deferred);
#   - per scenario it asserts the reward Harbor itself wrote (or Harbor's exception), that the
#     model's script ran to its end with no mismatch (each turn checks what Claude Code sent),
#     that the skill was offered and loaded, and that the MCP audit Harbor collected holds
#     exactly the calls the script made (tests/agent/check_trial.py).
#
# Local images replace the registry ones as in scripts/harbor-trial.sh.
#   ./scripts/agent-trial.sh                              # every scenario and fault
#   AGENT_SCENARIOS="diligent gullible" ./scripts/agent-trial.sh
#   ./scripts/agent-trial.sh --list                       # every task's scenarios, "TASK SCENARIO" a line
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
started=$(date +%s)
# AGENT_TASK: incident-monitor (the default task), compose-topology-repair (the chapter's
# whole task: db, proxy, the API in main and the sidecar) or incident-monitor-stdio (the
# default task with the server on stdio inside main: the matrix's stdio cell in a real trial).
tasks="incident-monitor compose-topology-repair incident-monitor-stdio"
task_scenarios() {
    case "$1" in
        incident-monitor) echo "diligent gullible self_correcting stormy no_mcp malformed sidecar_killed missing_skill" ;;
        compose-topology-repair) echo "topology_diligent topology_gullible topology_shortcut" ;;
        # The same task with the server on stdio, in main, started by Claude Code itself.
        incident-monitor-stdio) echo "stdio_diligent" ;;
        *) echo "agent-trial: unknown AGENT_TASK $1" >&2; exit 2 ;;
    esac
}
if [ "${1:-}" = --list ]; then
    for task in $tasks; do
        for scenario in $(task_scenarios "$task"); do
            echo "$task $scenario"
        done
    done
    exit 0
fi
task_package=${AGENT_TASK:-incident-monitor}
default_scenarios=$(task_scenarios "$task_package")
scenarios=${AGENT_SCENARIOS:-$default_scenarios}
for scenario in $scenarios; do
    case " $default_scenarios " in
        *" $scenario "*) ;;
        *) echo "agent-trial: $scenario is not a scenario of $task_package (its scenarios: $default_scenarios)" >&2; exit 2 ;;
    esac
done
eval "$(./scripts/docker-engine.sh)"
export DOCKER_CONFIG
. scripts/python-venvs.sh
claude_version=${CLAUDE_CODE_VERSION:-2.1.332}
base_image=${HARNESS_BASE_IMAGE:-harness-local/debian-python:bookworm}
python_image=harness-local/python:3.12-slim
claude_image=harness-local/claude-code:$claude_version
model_image=harness-local/scripted-model:latest
model_port=8990
work=$root/target/agent-trial
cache=$root/target/agent-trial-fetch/claude-code-$claude_version

log() { echo "agent-trial: $*" >&2; }
fail() {
    log "FAILED: $*"
    exit 1
}

if ! docker image inspect "$python_image" >/dev/null 2>&1; then
    printf 'FROM %s\nRUN ln -sf /usr/bin/python3 /usr/local/bin/python3 && ln -sf /usr/bin/python3 /usr/local/bin/python\n' "$base_image" \
        | docker build -q -t "$python_image" - >/dev/null
fi

# The topology's services (and main, which probes them with curl) build on the Debian base
# with PostgreSQL, nginx, curl and psql from Debian's packages, installed on the host once.
main_base=$python_image
if [ "$task_package" = compose-topology-repair ]; then
    services_image=harness-local/topology-services:bookworm
    if ! docker image inspect "$services_image" >/dev/null 2>&1; then
        log "building $services_image (Debian's postgresql, nginx-light, curl)"
        docker build -q --build-arg "BASE=$python_image" -t "$services_image" \
            -f examples/compose-topology-repair/images/services.Dockerfile examples/compose-topology-repair/images >/dev/null
    fi
    export HARNESS_DB_BASE_IMAGE=$services_image HARNESS_PROXY_BASE_IMAGE=$services_image
    main_base=$services_image
    claude_image=harness-local/claude-code-topology:$claude_version
fi

# Main's base: Claude Code from npm, fetched on the host once (cached with the images).
if ! docker image inspect "$claude_image" >/dev/null 2>&1; then
    command -v npm >/dev/null || fail "npm is needed once, to fetch Claude Code's package (apt-get install npm)"
    log "fetching Claude Code $claude_version from npm and procps from Debian"
    rm -rf "$cache" && mkdir -p "$cache/npm" "$cache/context/debs"
    npm install --silent --no-audit --no-fund --prefix "$cache/npm" "@anthropic-ai/claude-code@$claude_version" >&2
    native=$cache/npm/node_modules/@anthropic-ai/claude-code-linux-x64/claude
    [ -x "$native" ] || fail "the npm package has no linux-x64 binary at $native"
    cp "$native" "$cache/context/claude"
    (cd "$cache/context/debs" && apt-get download procps libproc2-0 >/dev/null 2>&1) || fail "apt-get download procps"
    docker build -q --build-arg "BASE=$main_base" --build-arg "CLAUDE_CODE_VERSION=$claude_version" \
        -t "$claude_image" -f tests/agent/claude-code.Dockerfile "$cache/context" >/dev/null
    # The image in the engine is the cache: the 400 MB download is not kept twice.
    rm -rf "$cache"
fi
# The matrix's Codex cells: Codex CLI from npm, fetched on the host once (cached with the
# images), in its own image (tests/agent/codex.Dockerfile).
codex_version=${CODEX_VERSION:-0.171.0}
codex_image=harness-local/codex:$codex_version
if [ "$task_package" = incident-monitor ] && ! docker image inspect "$codex_image" >/dev/null 2>&1; then
    command -v npm >/dev/null || fail "npm is needed once, to fetch Codex's package (apt-get install npm)"
    log "fetching Codex CLI $codex_version from npm"
    codex_cache=$root/target/agent-trial-fetch/codex-$codex_version
    rm -rf "$codex_cache" && mkdir -p "$codex_cache/npm" "$codex_cache/context"
    npm install --silent --no-audit --no-fund --prefix "$codex_cache/npm" "@openai/codex@$codex_version" >&2
    # The native build and the files it loads beside it (its codex-package.json names them).
    native=$codex_cache/npm/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl
    [ -x "$native/bin/codex" ] || fail "the npm package has no linux-x64 binary at $native/bin/codex"
    mv "$native" "$codex_cache/context/codex"
    docker build -q --build-arg "BASE=$python_image" --build-arg "CODEX_VERSION=$codex_version" \
        -t "$codex_image" -f tests/agent/codex.Dockerfile "$codex_cache/context" >/dev/null
    rm -rf "$codex_cache"
fi
docker build -q --build-arg "BASE=$python_image" -t "$model_image" tests/agent >/dev/null

log "building the static binary and the bundle"
static_target=x86_64-unknown-linux-gnu
RUSTFLAGS="-C target-feature=+crt-static" cargo build --release --locked --quiet --target "$static_target" -p "$task_package"
binary=$root/target/$static_target/release/$task_package
rm -rf "$work"
mkdir -p "$work"
"$binary" bundle --out "$work/task" >/dev/null 2>&1
"$harbor_venv/bin/python" scripts/harbor_compose.py "$work/task" "$work/compose.json"
egress_image=$("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["egress_image"])' "$work/compose.json")
./scripts/egress-standin.sh "$python_image" "$egress_image"
export HARNESS_MAIN_BASE_IMAGE=$claude_image HARNESS_VERIFIER_BASE_IMAGE=$python_image
# What Harbor's claude-code agent passes on to Claude Code from Harbor's own environment.
export ANTHROPIC_BASE_URL=http://127.0.0.1:$model_port ANTHROPIC_API_KEY=scripted-model-no-key

# The scripted model as one more service of the trial: no networks of its own, so Harbor's
# egress overlay puts it in the shared namespace, where main reaches it on loopback.
model_service() {
    local scenario=$1 state=$2
    cat <<EOF
services:
  scripted-model:
    image: $model_image
    command: ["--scenario", "$scenario", "--port", "$model_port", "--state-dir", "/state"]
    volumes: ["$state:/state"]
    healthcheck:
      test: ["CMD", "python3", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$model_port/health', timeout=2)"]
      interval: 1s
      timeout: 3s
      retries: 30
EOF
}

# sidecar_killed: once the model holds at its MCP call (hold.waiting), the sidecar is
# killed, then the model is let go (hold.go).
kill_sidecar_when_held() {
    local state=$1
    for _ in $(seq 1 1800); do
        [ -e "$state/hold.waiting" ] && break
        sleep 0.1
    done
    [ -e "$state/hold.waiting" ] || { touch "$state/hold.go"; return 1; }
    docker ps -q --filter label=com.docker.compose.service=monitor-mcp | xargs -r docker kill >/dev/null
    touch "$state/hold.go"
}

run_scenario() {
    local scenario=$1 model_scenario=$1 out=$work/$1 task=$work/task
    mkdir -p "$out/model-state" "$out/trials"
    chmod 777 "$out/model-state"
    case "$scenario" in
        sidecar_killed) model_scenario=held ;;
        stdio_diligent) model_scenario=diligent ;;
        missing_skill)
            # A bundle whose skill file is gone: main's build must stop at the skill gate.
            task=$out/task
            cp -a "$work/task" "$task"
            rm "$task"/environment/skills/*/SKILL.md
            model_scenario=diligent
            ;;
    esac
    model_service "$model_scenario" "$out/model-state" >"$out/scripted-model.yaml"
    local watcher=""
    if [ "$scenario" = sidecar_killed ]; then
        kill_sidecar_when_held "$out/model-state" &
        watcher=$!
    fi
    local trial_started
    trial_started=$(date +%s)
    "$harbor_venv/bin/harbor" trial start -p "$task" -a claude-code -m scripted-model -e docker \
        --trials-dir "$out/trials" --extra-docker-compose "$out/scripted-model.yaml" \
        --agent-kwarg "version=$claude_version" --ae ENABLE_TOOL_SEARCH=false >"$out/harbor.log" 2>&1 || true
    [ -z "$watcher" ] || wait "$watcher" || fail "$scenario: the model never held at its MCP call"
    "$python" tests/agent/check_trial.py --scenario "$scenario" --trials "$out/trials" \
        --model-state "$out/model-state" --claude-version "$claude_version" --ledger "$work/task/ledger.json" \
        >"$out/run-ledger.json" || { tail -n 30 "$out/harbor.log"; fail "$scenario"; }
    log "$scenario: passed in $(($(date +%s) - trial_started)) s: $(cat "$out/run-ledger.json")"
}

for scenario in $scenarios; do
    run_scenario "$scenario"
done
"$python" tests/agent/check_trial.py --matrix "$work"/*/run-ledger.json >"$work/runs.md"
cat "$work/runs.md"
if [ "$task_package" != incident-monitor ]; then
    log "every scenario passed in $(($(date +%s) - started)) s"
    exit 0
fi
# The compatibility matrix: Claude Code and Codex on each transport, configured by Harbor's own code.
log "compatibility matrix (agent x transport)"
"$harbor_venv/bin/python" tests/agent/matrix.py --image "$claude_image" --codex-image "$codex_image" --binary "$binary" \
    --task "$work/task" --work "$work/matrix" --out "$work/matrix.json" >"$work/matrix.md" \
    || { cat "$work/matrix.md"; fail "the compatibility matrix"; }
cat "$work/matrix.md"
log "every scenario and the matrix passed in $(($(date +%s) - started)) s"
