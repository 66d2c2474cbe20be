#!/usr/bin/env bash
# Fails if a directory (a generated bundle) holds something that looks like a credential:
# private keys, cloud access keys, bearer tokens, or passwords in URLs. Binaries are skipped.
# Exit 1: possible secrets (listed); exit 2: something could not be read (nothing is proven).
set -euo pipefail
dir=${1:?usage: scan_secrets.sh DIR}
patterns=(
    '-----BEGIN [A-Z ]*PRIVATE KEY-----'
    'AKIA[0-9A-Z]{16}'
    'gh[pousr]_[A-Za-z0-9]{36}'
    'sk-[A-Za-z0-9_-]{20,}'
    'xox[abpr]-[A-Za-z0-9-]{10,}'
    '[a-z][a-z0-9+.-]*://[^/ :@"]+:[^/ @"]+@'
    '(api[_-]?key|secret|password|token)[[:space:]]*[:=][[:space:]]*["'"'"'][^"'"'"']{8,}'
)
found=0
for pattern in "${patterns[@]}"; do
    # grep: 0 = a match, 1 = none, anything else = it could not read everything, which
    # proves nothing: the scan fails rather than pass unread files.
    status=0
    grep -rIEn --exclude-dir=.git -e "$pattern" "$dir" || status=$?
    case $status in
        0) found=1 ;;
        1) ;;
        *)
            echo "error: could not scan $dir (grep exit $status)" >&2
            exit 2
            ;;
    esac
done
if [ "$found" -ne 0 ]; then
    echo "error: possible secrets in $dir (listed above)" >&2
    exit 1
fi
echo "no secrets found in $dir"
