#!/usr/bin/env bash
# The book: builds docs/ with mdBook into target/book and fails on a broken internal link,
# checked offline: a page or file that does not exist by mdbook-linkcheck2 (the maintained
# fork of mdbook-linkcheck for mdBook 0.5, which mdBook's own documentation recommends;
# mdbook-linkcheck 0.7 cannot read mdBook 0.5's render context), and a heading that does not
# exist by scripts/book_anchors.py, on the HTML mdBook wrote.
#
# The tools are pinned and installed with `cargo install --locked` into ~/.cargo/bin, outside
# the clone, only when the installed version differs, so warm runs skip them (a cold install
# of both takes several minutes on two cores; `.ci/run` starts it in the background early with
# `book.sh --install`).
#
# The book's snippets and generated reference pages are checked by `cargo test -p
# harness-book` (part of scripts/test.sh), not here.
set -euo pipefail
cd "$(dirname "$0")/.."

MDBOOK_VERSION=0.5.4
LINKCHECK_VERSION=0.13.0

# install_tool NAME VERSION [ARGS...]: `cargo install` unless `NAME --version` already says
# VERSION. Built in the dev profile: a book of this size renders in a second either way, and
# an optimized build of the tools cost minutes of a cold CI run.
install_tool() {
    local name=$1 version=$2 installed=""
    shift 2
    installed=$("$name" --version 2>/dev/null || true)
    if [ "${installed##* }" = "v$version" ] || [ "${installed##* }" = "$version" ]; then
        return 0
    fi
    echo "-- book.sh: installing $name $version (found: ${installed:-none})"
    cargo install --locked --debug --version "$version" "$name" "$@"
}

# mdBook without `serve` and `watch` (an HTTP server and a file watcher CI never uses).
install_tool mdbook "$MDBOOK_VERSION" --no-default-features --features search
install_tool mdbook-linkcheck2 "$LINKCHECK_VERSION"
if [ "${1:-}" = --install ]; then
    exit 0
fi

# mdBook runs each backend in turn: html, then linkcheck2, which exits non-zero (and mdBook
# with it) on a broken link, since book.toml sets warning-policy = "error".
rm -rf target/book
RUST_BACKTRACE=0 mdbook build docs
# Fragments (`page.md#heading`), which linkcheck2 does not check, against mdBook's own ids.
python3 scripts/book_anchors.py target/book/html
echo "-- book.sh: the book is in target/book/html/index.html; every internal link resolves"
