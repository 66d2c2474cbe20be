#!/usr/bin/env bash
# The incident monitor's generated Harbor task (examples/incident-monitor), run for real
# under a Docker engine through the steps of a Harbor 0.18 trial, in Harbor's order, and
# judged by its own verifier:
#   1. engine, Compose and local base images (scripts/docker-engine.sh; no registry is needed);
#   2. the static binary and `bundle --out`;
#   3. the compose files Harbor would pass, computed by Harbor's own code
#      (scripts/harbor_compose.py: its base file, the task's file, its egress-control file and
#      the services overlay `_write_egress_control_services_compose_file()` writes);
#   4. per case: build (zero pulls), up, wait for health, [environment.healthcheck] in main, a
#      scripted agent session from main's network namespace through the official Python MCP
#      client, [[verifier.collect]] in main, [[artifacts]] copied out with `docker cp` as
#      Harbor's `compose cp` does, down; then tests/test.sh in the verifier image with no
#      network and the artifacts at their source paths, and the reward it wrote.
# Cases: a good run (reward 1); candidate failures (reward 0): no incident-42 summary call,
# over the call budget, past the rate limit; missing evidence (the audit not collected): an
# infrastructure failure with no reward. The good run also reads the live hardening off the
# running containers.
#
# Registry images are replaced by local ones, never by editing generated files: main's base
# through HARNESS_MAIN_BASE_IMAGE (a build argument in the generated compose file), the
# verifier's through --build-arg VERIFIER_BASE_IMAGE, both set to a Debian bookworm root with
# python3 (debootstrap) laid out like python:3.12-slim; Harbor's egress-control sidecar (gost
# + nftables, FROM a registry image) by a stand-in under the exact tag Harbor looks for
# (scripts/egress-standin/): the same entrypoint, readiness file and network-policy command,
# whose deny-all takes every interface but loopback down. Harbor's compose files are used
# unchanged.
#
# PROOF_PACKAGE=gateway-task proves the same task with its tool behind the gateway: the seed
# chapter's FastMCP server as a stdio upstream in a sidecar built on a Python base, whose
# local stand-in (harness-local/fastmcp-python) is the Debian base with FastMCP 4.2.3 from
# PyPI's wheels, fetched on the host once (pip --target) and copied in.
#
#   ./scripts/compose-proof.sh              # every case
#   PROOF_CASES="good" ./scripts/compose-proof.sh
#   PROOF_PACKAGE=gateway-task ./scripts/compose-proof.sh
#   COMPOSE="docker-compose" ./scripts/compose-proof.sh   # Compose v1 (1.29) instead of v2
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
started=$(date +%s)

eval "$(./scripts/docker-engine.sh)"
base_image=${HARNESS_BASE_IMAGE:-harness-local/debian-python:bookworm}
python_image=harness-local/python:3.12-slim
package=${PROOF_PACKAGE:-incident-monitor}
case "$package" in
    incident-monitor) work=$root/target/compose-proof ;;
    gateway-task) work=$root/target/compose-proof-gateway ;;
    *) echo "proof: unknown PROOF_PACKAGE $package" >&2; exit 2 ;;
esac
cases=${PROOF_CASES:-good no_summary over_budget rate_limited audit_not_collected}
if [ -n "${COMPOSE:-}" ]; then
    read -r -a compose_cmd <<<"$COMPOSE"
elif docker compose version >/dev/null 2>&1; then
    compose_cmd=(docker compose)
else
    compose_cmd=(docker-compose)
fi

log() { echo "proof: $*" >&2; }
fail() {
    log "FAILED: $*"
    exit 1
}

. scripts/python-venvs.sh

# python:3.12-slim's layout on the local Debian root: the task's hooks call
# /usr/local/bin/python3 and its healthcheck `python`.
if ! docker image inspect "$python_image" >/dev/null 2>&1; then
    printf 'FROM %s\nRUN ln -sf /usr/bin/python3 /usr/local/bin/python3 && ln -sf /usr/bin/python3 /usr/local/bin/python\n' "$base_image" \
        | docker build -q -t "$python_image" - >/dev/null
fi

if [ "$package" = gateway-task ]; then
    fastmcp_image=harness-local/fastmcp-python:4.2.3
    if ! docker image inspect "$fastmcp_image" >/dev/null 2>&1; then
        log "building $fastmcp_image (FastMCP 4.2.3 and its dependencies from PyPI's wheels for the base's Python 3.11)"
        context=$(mktemp -d)
        "$python" -m pip install --quiet --disable-pip-version-check --target "$context/site" --python-version 3.11 \
            --implementation cp --only-binary=:all: --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
            --platform manylinux_2_28_x86_64 fastmcp==4.2.3 >"$context/pip.log" 2>&1 \
            || { cat "$context/pip.log"; fail "fetching FastMCP's wheels"; }
        printf 'ARG BASE\nFROM ${BASE}\nCOPY site/ /usr/local/lib/python3.11/dist-packages/\nRUN python3 -c "import fastmcp; assert fastmcp.__version__ == \\"4.2.3\\""\n' >"$context/Dockerfile"
        docker build -q --build-arg "BASE=$python_image" -t "$fastmcp_image" "$context" >/dev/null || fail "building $fastmcp_image"
        rm -rf "$context"
    fi
    # The generated sidecar Dockerfile's BASE_IMAGE argument, through its documented override.
    export HARNESS_MONITOR_MCP_BASE_IMAGE=$fastmcp_image
fi

log "building the static binary and the bundle"
static_target=x86_64-unknown-linux-gnu
RUSTFLAGS="-C target-feature=+crt-static" cargo build --release --locked --quiet --target "$static_target" -p "$package"
binary=$root/target/$static_target/release/$package
rm -rf "$work"
mkdir -p "$work"
"$binary" bundle --out "$work/task" >"$work/bundle.out" 2>&1
task=$work/task
"$harbor_venv/bin/python" scripts/harbor_compose.py "$task" "$work/compose.json"
field() { "$python" -c 'import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]; print(v if isinstance(v,str) else json.dumps(v))' "$work/compose.json" "$1"; }
egress=$(field egress)
[ "$egress" = true ] || fail "the $package task should run under Harbor's egress overlay"
egress_image=$(field egress_image)
project_dir=$(field project_directory)
mapfile -t compose_files < <("$python" -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["files"]))' "$work/compose.json")
# Harbor's variables for compose (CONTEXT_DIR, MAIN_IMAGE_NAME, the sidecar image, limits).
while IFS='=' read -r name value; do
    export "$name=$value"
done < <("$python" -c 'import json,sys; [print(f"{k}={v}") for k,v in json.load(open(sys.argv[1]))["env"].items()]' "$work/compose.json")
export HARNESS_MAIN_BASE_IMAGE=$python_image

# The egress-control sidecar's stand-in, under the tag Harbor checks before building its own.
./scripts/egress-standin.sh "$python_image" "$egress_image"
# One project per run, so runs side by side (a CI run and a developer's) never meet.
project=harness-proof-$$
verifier_image=$project-verifier
trap 'compose down --volumes --remove-orphans --rmi local >/dev/null 2>&1 || true; docker rmi -f "$verifier_image" >/dev/null 2>&1 || true' EXIT
compose() {
    local args=(--project-name "$project" --project-directory "$project_dir")
    for file in "${compose_files[@]}"; do
        args+=(-f "$file")
    done
    "${compose_cmd[@]}" "${args[@]}" "$@"
}
container() { compose ps -q "$1"; }
toml() { "$python" -c 'import json,sys,tomllib; print(json.dumps(tomllib.load(open(sys.argv[1],"rb"))))' "$task/task.toml"; }
sidecar=$("$python" -c 'import json,sys; c=json.load(sys.stdin); print([a["service"] for a in c["artifacts"] if a.get("service","main")!="main"][0])' <<<"$(toml)")
mcp_url=$("$python" -c 'import json,sys; print(json.load(sys.stdin)["environment"]["mcp_servers"][0]["url"])' <<<"$(toml)")
healthcheck=$("$python" -c 'import json,sys; print(json.load(sys.stdin)["environment"]["healthcheck"]["command"])' <<<"$(toml)")
workdir=$("$python" -c 'import json,sys; print(json.load(sys.stdin)["environment"]["workdir"])' <<<"$(toml)")

log "building the images (no pulls) with ${compose_cmd[*]}"
build_started=$(date +%s)
compose build --quiet >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "compose build"; }
log "built in $(($(date +%s) - build_started)) s"

docker build -q --build-arg "VERIFIER_BASE_IMAGE=$python_image" -t "$verifier_image" "$task/tests" >/dev/null \
    || fail "the verifier image does not build"

wait_healthy() {
    local id=$1 status
    for _ in $(seq 1 90); do
        # A container without a healthcheck counts once it runs.
        status=$(docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}-unchecked{{end}}' "$id")
        case "$status" in
            healthy | running-unchecked) return 0 ;;
            unhealthy | exited* | dead*) return 1 ;;
        esac
        sleep 1
    done
    return 1
}

# The live hardening of the running sidecar and the shared namespace.
check_hardening() {
    local mcp=$1 egress_id=$2 pid
    [ "$(docker inspect -f '{{.HostConfig.ReadonlyRootfs}}' "$mcp")" = true ] || fail "the sidecar's root is writable"
    echo probe >"$work/probe"
    if docker cp "$work/probe" "$mcp:/probe" 2>/dev/null; then fail "a write to the sidecar's root succeeded"; fi
    pid=$(docker inspect -f '{{.State.Pid}}' "$mcp")
    grep -Eq '^Uid:\s+10001\s+10001\s+10001\s+10001' "/proc/$pid/status" || fail "the sidecar does not run as 10001"
    grep -Eq '^CapEff:\s+0+$' "/proc/$pid/status" || fail "the sidecar has capabilities"
    grep -Eq '^CapBnd:\s+0+$' "/proc/$pid/status" || fail "the sidecar's bounding set is not empty"
    grep -Eq '^NoNewPrivs:\s+1$' "/proc/$pid/status" || fail "no-new-privileges is off"
    for id in $(compose ps -q); do
        [ -z "$(docker inspect -f '{{range $port, $bindings := .NetworkSettings.Ports}}{{if $bindings}}{{$port}} {{end}}{{end}}' "$id")" ] \
            || fail "a port is published by $id"
    done
    local links
    links=$(nsenter -t "$(docker inspect -f '{{.State.Pid}}' "$egress_id")" -n ip -o link show up | awk -F': ' '{print $2}' | tr '\n' ' ')
    [ "$links" = "lo " ] || fail "the shared namespace has interfaces up besides loopback: $links"
    # Nothing beyond loopback is reachable: one probe (a TCP connect from a network namespace,
    # 3 s at most), first shown to work where it must, so a probe that cannot connect at all
    # (no nsenter, no /dev/tcp, a wrong address) fails here instead of passing as "unreachable".
    reach() { nsenter -t "$1" -n timeout 3 bash -c "exec 3<>/dev/tcp/${2%:*}/${2#*:}" 2>/dev/null; }
    local sidecar_addr
    sidecar_addr=$("$python" -c 'import sys, urllib.parse; u = urllib.parse.urlsplit(sys.argv[1]); print(f"{u.hostname}:{u.port}")' "$mcp_url")
    reach "$pid" "$sidecar_addr" \
        || fail "positive control: the probe does not reach the sidecar at $sidecar_addr from the shared namespace"
    # A listener of ours on every host address: from the host the probe reaches it (so the
    # targets below exist and answer), from the shared namespace it must not.
    local host_ip bridge_ip port listener
    host_ip=$(ip -o -4 route get 1.1.1.1 2>/dev/null | awk '{for (i=1;i<=NF;i++) if ($i=="src") print $(i+1)}')
    bridge_ip=$(docker network inspect bridge -f '{{range .IPAM.Config}}{{.Gateway}}{{end}}' 2>/dev/null || true)
    rm -f "$work/listener.port"
    timeout 120 "$python" -c 'import socket, sys, time
s = socket.socket(); s.bind(("0.0.0.0", 0)); s.listen(64)
print(s.getsockname()[1], flush=True); time.sleep(120)' >"$work/listener.port" &
    listener=$!
    for _ in $(seq 50); do
        [ -s "$work/listener.port" ] && break
        sleep 0.1
    done
    port=$(cat "$work/listener.port")
    [ -n "$port" ] || fail "the host listener did not start"
    local targets=(1.1.1.1:53 "${host_ip:-10.0.0.1}:22" 172.17.0.1:2375)
    for address in ${host_ip:-} ${bridge_ip:-}; do
        reach $$ "$address:$port" || fail "positive control: the probe does not reach the host's listener at $address:$port from the host"
        targets+=("$address:$port")
    done
    [ ${#targets[@]} -gt 3 ] || fail "no host address (default route or Docker bridge) to put the listener's control on"
    for target in "${targets[@]}"; do
        if reach "$pid" "$target"; then
            kill "$listener" 2>/dev/null || true
            fail "$target is reachable from the shared namespace"
        fi
    done
    kill "$listener" 2>/dev/null || true
    wait "$listener" 2>/dev/null || true
    log "hardening: read-only root (a write fails), uid 10001, no capabilities, no-new-privileges, no published port, only loopback; the probe reaches the sidecar at $sidecar_addr on loopback and the host's listener from the host, and from the shared namespace none of ${targets[*]}"
}

run_case() {
    local case=$1 agent=$1 out=$work/cases/$1
    [ "$case" = audit_not_collected ] && agent=good
    mkdir -p "$out/artifacts"
    compose down --volumes --remove-orphans >/dev/null 2>&1 || true
    local up_args=(up --detach)
    [ "${compose_cmd[*]}" = "docker compose" ] && up_args+=(--pull never)
    compose "${up_args[@]}" >"$out/up.log" 2>&1 || { cat "$out/up.log"; fail "$case: compose up"; }
    local main mcp egress_id
    main=$(container main)
    mcp=$(container "$sidecar")
    egress_id=$(container harbor-docker-egress-control-sidecar)
    wait_healthy "$mcp" || { docker logs "$mcp" 2>&1 | tail -20; fail "$case: the sidecar never became healthy"; }
    wait_healthy "$main" || fail "$case: main is not running"
    docker exec -u root "$main" bash -c 'mkdir -p /logs/agent /logs/verifier /logs/artifacts && chmod 777 /logs/agent /logs/verifier /logs/artifacts'
    docker exec "$main" bash -c "$healthcheck" || fail "$case: [environment.healthcheck] failed in main"
    [ "$case" = good ] && check_hardening "$mcp" "$egress_id"
    # The agent: the official Python MCP client in main's network namespace.
    nsenter -t "$(docker inspect -f '{{.State.Pid}}' "$main")" -n \
        "$mcp_venv/bin/python" "$root/scripts/proof_agent.py" "$mcp_url" "$agent" >"$out/report.json" \
        || fail "$case: the agent session failed"
    docker exec -i -u 1000 "$main" sh -c "cat > $workdir/final-report.json" <"$out/report.json"
    # [[verifier.collect]] in main, then main's artifacts, then main stops (separate verifier),
    # then the sidecar's artifacts, then down: Harbor's order.
    "$python" -c 'import json,sys; [print(json.dumps(h)) for h in json.load(sys.stdin)["verifier"].get("collect",[])]' <<<"$(toml)" \
        | while read -r hook; do
            local user command
            user=$("$python" -c 'import json,sys; print(json.loads(sys.argv[1]).get("user","root"))' "$hook")
            command=$("$python" -c 'import json,sys; print(json.loads(sys.argv[1])["command"])' "$hook")
            docker exec -w "$workdir" -u "$user" "$main" bash -c "$command" || fail "$case: a collect hook failed"
        done
    copy_artifacts main "$main" "$out/artifacts"
    compose stop main >/dev/null 2>&1
    if [ "$case" != audit_not_collected ]; then
        copy_artifacts "$sidecar" "$mcp" "$out/artifacts"
    fi
    compose down --volumes --remove-orphans >/dev/null 2>&1
    verify "$case" "$out"
}

copy_artifacts() {
    local service=$1 id=$2 into=$3
    "$python" -c 'import json,sys; [print(a["source"]) for a in json.load(sys.stdin)["artifacts"] if a.get("service","main")==sys.argv[1]]' "$service" <<<"$(toml)" \
        | while read -r source; do
            mkdir -p "$into$(dirname "$source")"
            docker cp "$id:$source" "$into$source" >/dev/null || fail "cannot copy $source out of $service"
        done
}

# tests/test.sh in the verifier image: no network, artifacts at their source paths.
verify() {
    local case=$1 out=$2 id status
    id=$(docker create --network none -u root "$verifier_image" sh -c 'mkdir -p /logs/verifier && (/tests/test.sh) > /logs/verifier/test-stdout.txt 2>&1')
    tar -C "$out/artifacts" -cf - . | docker cp - "$id:/"
    docker start -a "$id" >/dev/null 2>&1 || true
    status=$(docker inspect -f '{{.State.ExitCode}}' "$id")
    docker cp "$id:/logs/verifier/test-stdout.txt" "$out/test-stdout.txt" >/dev/null 2>&1 || true
    rm -f "$out/reward.json"
    docker cp "$id:/logs/verifier/reward.json" "$out/reward.json" >/dev/null 2>&1 || true
    docker rm -f "$id" >/dev/null
    local reward=none
    [ -f "$out/reward.json" ] && reward=$("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["reward"])' "$out/reward.json")
    # The reward, and the verifier's reason for it.
    local expected reason
    case "$case" in
        good) expected=1 reason="" ;;
        no_summary) expected=0 reason="no ok call of get_incident_snapshot" ;;
        over_budget) expected=0 reason="21 calls, more than the budget of 20" ;;
        rate_limited) expected=0 reason="ended rate_limited" ;;
        audit_not_collected) expected=none reason="MCP audit is missing" ;;
    esac
    local said
    said=$(tail -n 1 "$out/test-stdout.txt" 2>/dev/null || true)
    log "$case: test.sh exit $status, reward $reward (${said:-pass})"
    [ "$reward" = "$expected" ] || { cat "$out/test-stdout.txt" 2>/dev/null; fail "$case: expected reward $expected, got $reward"; }
    case "$said" in
        *"$reason"*) ;;
        *) fail "$case: the verifier's reason lacks \"$reason\"" ;;
    esac
}

for case in $cases; do
    case_started=$(date +%s)
    run_case "$case"
    log "$case: passed in $(($(date +%s) - case_started)) s"
done
log "every case passed in $(($(date +%s) - started)) s"
