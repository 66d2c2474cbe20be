#!/bin/sh
# Stand-in for Harbor's egress-control sidecar (gost and nftables, built FROM a registry
# image): the same entrypoint path, readiness file and `network-policy` command, enforcing
# only what a machine without a registry or internet needs. See network-policy.
set -eu
network-policy "$(case "${EGRESS_CONTROL_INITIAL_NETWORK_MODE:-public}" in
    no-network) echo deny-all ;;
    allowlist) echo allow ;;
    *) echo allow-all ;;
esac)"
touch /tmp/harbor-docker-egress-control-sidecar.ready
exec sleep infinity
