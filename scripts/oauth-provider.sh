#!/usr/bin/env bash
# Installs the OpenID provider the OAuth tests start on loopback (oidc-provider, pinned; its
# script is tests/oauth/provider.mjs) into target/oauth, once, and prints the node_modules
# directory. examples/oauth-resource's tests and tests/python/test_oauth.py call it.
set -euo pipefail
cd "$(dirname "$0")/.."
version=9.5.2
dir=target/oauth
installed="$dir/node_modules/oidc-provider/package.json"
if [ ! -f "$installed" ] || ! grep -q "\"version\": \"$version\"" "$installed"; then
    mkdir -p "$dir"
    (cd "$dir" && { [ -f package.json ] || npm init -y >/dev/null; } \
        && npm install --silent --no-audit --no-fund "oidc-provider@$version" >npm-install.log 2>&1) \
        || { tail -n 40 "$dir/npm-install.log" >&2; echo "oauth-provider: npm install failed" >&2; exit 1; }
fi
echo "$PWD/$dir/node_modules"
