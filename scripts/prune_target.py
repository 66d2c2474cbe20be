#!/usr/bin/env python3
"""Prunes a cargo target directory shared by CI runs in fresh clones (see .ci/run).

Registry crates build once and are reused by every later run. Some packages are not: the
throwaway ones the user-workflow test builds in a new temporary directory each run, and the
published crates' verify builds once their packaged files change (cargo unpacks a .crate with
one fixed mtime, so it would not see the change). This removes, in every cargo profile
directory under TARGET (target/debug, target/<triple>/release, ...), every unit of the
packages named with --package: .fingerprint/<pkg>-<hash>, build/<pkg>-<hash>, and the
deps/ and examples/ files ending in -<hash> (cargo names a unit's fingerprint directory and
its outputs with the same hash). Registry and git dependencies are
kept. Uplifted binaries (target/debug/<bin>) are overwritten by the next build and left alone.

  scripts/prune_target.py [--dry-run] TARGET --package NAME [--package NAME ...]
"""

import argparse
import os
import re
import shutil
import sys

UNIT = re.compile(r"^(?P<pkg>.+)-(?P<hash>[0-9a-f]{16})$")


def profile_dirs(target):
    """Every directory under TARGET that holds a .fingerprint directory (depth <= 4)."""
    base_depth = target.rstrip(os.sep).count(os.sep)
    for root, dirs, _ in os.walk(target):
        depth = root.count(os.sep) - base_depth
        if ".fingerprint" in dirs:
            yield root
        # Do not descend into cargo's own subdirectories or too deep.
        dirs[:] = [
            d
            for d in dirs
            if depth < 3 and d not in (".fingerprint", "build", "deps", "examples", "incremental")
        ]


DRY_RUN = False
FREED = 0


def size(path):
    if os.path.islink(path) or not os.path.isdir(path):
        return os.lstat(path).st_size
    return sum(
        os.lstat(os.path.join(root, name)).st_size
        for root, _, files in os.walk(path)
        for name in files
    )


def remove(path):
    global FREED
    if not os.path.lexists(path):
        return False
    FREED += size(path)
    if DRY_RUN:
        return True
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.remove(path)
        return True
    except FileNotFoundError:
        return False


def prune(profile_dir, packages):
    fingerprints = os.path.join(profile_dir, ".fingerprint")
    stale = set()
    for name in os.listdir(fingerprints):
        m = UNIT.match(name)
        if not m:
            continue
        pkg, unit_hash = m["pkg"], m["hash"]
        if pkg in packages:
            stale.add((pkg, unit_hash))
    if not stale:
        return 0
    hashes = {h for _, h in stale}
    removed = 0
    for pkg, unit_hash in stale:
        removed += remove(os.path.join(fingerprints, f"{pkg}-{unit_hash}"))
        removed += remove(os.path.join(profile_dir, "build", f"{pkg}-{unit_hash}"))
    for sub in ("deps", "examples"):
        directory = os.path.join(profile_dir, sub)
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        for name in names:
            # name-<hash>, name-<hash>.d, libname-<hash>.rlib, name-<hash>.<cgu>.rcgu.o ...
            m = re.search(r"-([0-9a-f]{16})(\.|$)", name)
            if m and m[1] in hashes:
                removed += remove(os.path.join(directory, name))
    return removed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("target")
    parser.add_argument("--package", action="append", default=[])
    parser.add_argument("--dry-run", action="store_true", help="count, remove nothing")
    args = parser.parse_args()
    global DRY_RUN
    DRY_RUN = args.dry_run
    if not os.path.isdir(args.target):
        return 0
    packages = set(args.package)
    total = 0
    for profile_dir in profile_dirs(args.target):
        count = prune(profile_dir, packages)
        if count:
            print(f"prune: {os.path.relpath(profile_dir, args.target)}: {count} entries", file=sys.stderr)
        total += count
    print(
        f"prune: {total} stale entries of the named packages removed ({FREED / 2**20:.0f} MiB)",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
