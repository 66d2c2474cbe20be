#!/usr/bin/env bash
# Builds the stand-in for Harbor's egress-control sidecar (scripts/egress-standin/) from the
# local Debian image BASE, tagged TAG: the content-addressed name Harbor checks before it
# builds its own, so Harbor uses the stand-in without a registry.
#   scripts/egress-standin.sh BASE TAG
set -euo pipefail
cd "$(dirname "$0")"
base=$1 tag=$2
if ! docker image inspect "$tag" >/dev/null 2>&1; then
    docker build -q --build-arg "BASE=$base" -t "$tag" egress-standin >/dev/null
fi
