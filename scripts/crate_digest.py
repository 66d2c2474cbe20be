#!/usr/bin/env python3
"""Prints a digest of each .crate's files, for .ci/run to tell whether a package changed.

The digest covers every member's path, mode and bytes, except what changes with the commit
alone: `.cargo_vcs_info.json`, which names it, and the `checksum = ` lines of `Cargo.lock`,
which for the workspace's own crates are checksums of .crate files that name it. (A crate's
own change changes its own digest, and a dependency's version line changes with its
checksum.) So a new commit that leaves a package's files alone leaves its digest alone.

  scripts/crate_digest.py CRATE...                      # "DIGEST  FILE" a line
  scripts/crate_digest.py --changed-since LIST CRATE... # the packages whose line LIST lacks

LIST is an earlier output (a missing file lists nothing, so every package has changed).
"""

import hashlib
import os
import re
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
                data = archive.extractfile(member).read()
                if member.name.endswith("/Cargo.lock"):
                    data = b"".join(
                        line
                        for line in data.splitlines(keepends=True)
                        if not line.startswith(b"checksum = ")
                    )
                h.update(data)
            h.update(b"\0")
    return h.hexdigest()


def package_name(path):
    """harness-codegen-cli-0.1.0.crate -> harness-codegen-cli: the name ends where a
    MAJOR.MINOR.PATCH version begins."""
    stem = os.path.basename(path).removesuffix(".crate")
    found = re.match(r"^(?P<name>.+?)-\d+\.\d+\.\d+", stem)
    return found["name"] if found else stem


def main():
    args = sys.argv[1:]
    known = None
    if args[:1] == ["--changed-since"]:
        if len(args) < 2:
            sys.exit(__doc__)
        try:
            with open(args[1]) as listed:
                known = set(listed.read().splitlines())
        except FileNotFoundError:
            known = set()
        args = args[2:]
    if not args:
        sys.exit(__doc__)
    for path in args:
        line = f"{digest(path)}  {os.path.basename(path)}"
        if known is None:
            print(line)
        elif line not in known:
            print(package_name(path))


if __name__ == "__main__":
    main()
