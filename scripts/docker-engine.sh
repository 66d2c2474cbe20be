#!/usr/bin/env bash
# Makes a Docker engine usable on a fresh Debian machine, as root, with no registry:
#   - Engine 20.10 from Debian's docker.io package, dockerd started in the background;
#   - Compose v2 and buildx (which Harbor calls) from Debian trixie's .debs, unpacked into
#     $DOCKER_CONFIG/cli-plugins (bookworm's docker-compose is v1 and has no buildx);
#   - Compose v1 (`docker-compose`, 1.29) from bookworm, so both spellings are supported;
#   - a Debian base image with python3 (debootstrap + docker import), cached under
#     target/docker-cache so a warm run imports it in seconds (under .ci/run, target/ links
#     into a cache outside the clone, so the tarball and the plugins outlive the clone).
# Idempotent: every step is skipped when its result is already there.
# Prints `export DOCKER_CONFIG=...` for the caller to eval.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cache=$root/target/docker-cache
mkdir -p "$cache"
export DOCKER_CONFIG=${DOCKER_CONFIG:-$cache/docker-config}
mkdir -p "$DOCKER_CONFIG/cli-plugins"
base_image=${HARNESS_BASE_IMAGE:-harness-local/debian-python:bookworm}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

log() { echo "docker-engine: $*" >&2; }

need_root() {
    if [ "$(id -u)" != 0 ]; then
        log "installing the engine needs root (run as root, or install docker.io yourself)"
        exit 1
    fi
}

if ! command -v dockerd >/dev/null 2>&1 || ! command -v docker-compose >/dev/null 2>&1 \
    || ! command -v debootstrap >/dev/null 2>&1; then
    need_root
    log "installing docker.io, docker-compose (v1) and debootstrap from Debian"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker.io docker-compose debootstrap >/dev/null \
        || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker.io docker-compose debootstrap >/dev/null; }
fi

if ! docker info >/dev/null 2>&1; then
    need_root
    log "starting dockerd"
    # In a session of its own: it outlives the caller (and a CI run's background job).
    setsid nohup dockerd >"$cache/dockerd.log" 2>&1 </dev/null &
    for _ in $(seq 1 60); do
        docker info >/dev/null 2>&1 && break
        sleep 1
    done
    docker info >/dev/null 2>&1 || { log "dockerd did not start; see $cache/dockerd.log"; exit 1; }
fi

if ! docker compose version >/dev/null 2>&1 || ! docker buildx version >/dev/null 2>&1; then
    log "fetching Compose v2 and buildx from Debian trixie"
    apt_dir=$cache/trixie-apt
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/debs"
    echo "deb $mirror trixie main" >"$apt_dir/sources.list"
    apt_opts=(-o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o "Dir::Etc::sourceparts=-"
        -o "Dir::State::Lists=$apt_dir/lists" -o "APT::Get::List-Cleanup=0")
    apt-get "${apt_opts[@]}" update -q >/dev/null
    (cd "$apt_dir/debs" && apt-get "${apt_opts[@]}" download docker-compose docker-buildx >/dev/null)
    for deb in "$apt_dir"/debs/*.deb; do
        dpkg-deb -x "$deb" "$apt_dir/unpacked"
    done
    cp "$apt_dir"/unpacked/usr/libexec/docker/cli-plugins/docker-compose \
        "$apt_dir"/unpacked/usr/libexec/docker/cli-plugins/docker-buildx "$DOCKER_CONFIG/cli-plugins/"
    docker compose version >&2
fi

if ! docker image inspect "$base_image" >/dev/null 2>&1; then
    tarball=$cache/debian-python-bookworm.tar
    if [ ! -s "$tarball" ]; then
        need_root
        log "building a Debian bookworm root with python3 (debootstrap, about two minutes)"
        rootfs=$cache/rootfs
        rm -rf "$rootfs"
        debootstrap --variant=minbase --include=python3 bookworm "$rootfs" "$mirror" >"$cache/debootstrap.log" 2>&1 \
            || { log "debootstrap failed; see $cache/debootstrap.log"; exit 1; }
        rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
        tar -C "$rootfs" -cf "$tarball.partial" .
        mv "$tarball.partial" "$tarball"
        rm -rf "$rootfs"
    fi
    log "importing $base_image"
    docker import "$tarball" "$base_image" >/dev/null
fi

echo "export DOCKER_CONFIG=$DOCKER_CONFIG"
