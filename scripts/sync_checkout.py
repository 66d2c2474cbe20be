#!/usr/bin/env python3
"""Makes DST a copy of the clone SRC that cargo can build incrementally (see .ci/run).

Cargo decides whether a workspace crate is stale by comparing its sources' mtimes with the
last build, and a fresh clone gives every file a new mtime at a new path: every workspace
crate would build again in every run. CI therefore builds in one checkout kept in the cache
root, and this brings it to the clone's exact content while writing only what differs:

- a file whose bytes, mode and kind are already right is not touched, so it keeps its mtime
  and what was built from it stays fresh;
- a file that differs is written anew (its mtime is now, so cargo rebuilds from it);
- what DST holds beyond SRC is deleted, so nothing a previous run left behind survives;
- the top-level `target` of DST (the cache's build tree) is left alone, and SRC's is skipped.

  scripts/sync_checkout.py SRC DST

Prints how many files it wrote and deleted.
"""

import filecmp
import os
import shutil
import stat
import sys

KEPT = {"target"}


def same_file(src, dst):
    try:
        s, d = os.lstat(src), os.lstat(dst)
    except FileNotFoundError:
        return False
    if stat.S_IFMT(s.st_mode) != stat.S_IFMT(d.st_mode):
        return False
    if stat.S_ISLNK(s.st_mode):
        return os.readlink(src) == os.readlink(dst)
    return (
        stat.S_IMODE(s.st_mode) == stat.S_IMODE(d.st_mode)
        and s.st_size == d.st_size
        and filecmp.cmp(src, dst, shallow=False)
    )


def remove(path):
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def sync(src, dst, top, counts):
    os.makedirs(dst, exist_ok=True)
    wanted = set(os.listdir(src))
    if top:
        wanted -= KEPT
    for name in os.listdir(dst):
        if name not in wanted and not (top and name in KEPT):
            remove(os.path.join(dst, name))
            counts["deleted"] += 1
    for name in sorted(wanted):
        s, d = os.path.join(src, name), os.path.join(dst, name)
        if os.path.isdir(s) and not os.path.islink(s):
            if os.path.lexists(d) and (os.path.islink(d) or not os.path.isdir(d)):
                remove(d)
                counts["deleted"] += 1
            sync(s, d, False, counts)
            continue
        if same_file(s, d):
            continue
        if os.path.lexists(d):
            remove(d)
        if os.path.islink(s):
            os.symlink(os.readlink(s), d)
        else:
            # copyfile, not copy2: the copy's mtime must be now, newer than any build.
            shutil.copyfile(s, d)
            os.chmod(d, stat.S_IMODE(os.lstat(s).st_mode))
        counts["written"] += 1


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, dst = (os.path.abspath(p) for p in sys.argv[1:])
    if not os.path.isdir(src):
        sys.exit(f"sync_checkout: {src} is not a directory")
    if dst == src or dst.startswith(src + os.sep):
        sys.exit(f"sync_checkout: {dst} lies inside {src}")
    counts = {"written": 0, "deleted": 0}
    sync(src, dst, True, counts)
    print(f"-- {dst}: {counts['written']} files written, {counts['deleted']} deleted, the rest kept")


if __name__ == "__main__":
    main()
