#!/usr/bin/env python3
"""Prints a digest of each .crate's files, for .ci/run to tell whether a package changed.

The digest covers every member's path, mode and bytes except `.cargo_vcs_info.json`, which
names the commit: a new commit that leaves a package's files alone leaves its digest alone.

  scripts/crate_digest.py CRATE...
"""

import hashlib
import os
import sys
import tarfile

SKIPPED = ".cargo_vcs_info.json"


def digest(path):
    h = hashlib.sha256()
    with tarfile.open(path, "r:gz") as archive:
        for member in sorted(archive.getmembers(), key=lambda m: m.name):
            if member.name.split("/", 1)[-1] == SKIPPED:
                continue
            h.update(f"{member.name}\0{member.mode:o}\0{member.type.decode()}\0".encode())
            if member.isfile():
                h.update(archive.extractfile(member).read())
            h.update(b"\0")
    return h.hexdigest()


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        print(f"{digest(path)}  {os.path.basename(path)}")


if __name__ == "__main__":
    main()
