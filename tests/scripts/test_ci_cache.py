"""The scripts CI's cache rests on (see .ci/README.md): scripts/sync_checkout.py must keep what
did not change (its mtime is what keeps cargo's builds fresh), rewrite what did, and leave
nothing behind; scripts/crate_digest.py must see any change to a package's files but not a new
commit alone, and name the packages that changed. Standard library only: `python3 tests/scripts/test_ci_cache.py`."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SYNC = ROOT / "scripts" / "sync_checkout.py"
DIGEST = ROOT / "scripts" / "crate_digest.py"
OLD = 1_000_000_000  # an mtime long before any build


def run(script: Path, *args: object) -> str:
    done = subprocess.run(
        [sys.executable, str(script), *map(str, args)], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise AssertionError(f"{script.name} failed: {done.stderr}")
    return done.stdout


def write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)


class SyncCheckout(unittest.TestCase):
    def setUp(self) -> None:
        scratch = tempfile.TemporaryDirectory()
        self.addCleanup(scratch.cleanup)
        self.src = Path(scratch.name) / "clone"
        self.dst = Path(scratch.name) / "cache" / "checkout"
        write(self.src / "src" / "lib.rs", "pub fn a() {}\n")
        write(self.src / "run.sh", "#!/bin/sh\n", 0o755)
        write(self.src / "target" / "debug" / "clone-only", "x")
        os.symlink("src/lib.rs", self.src / "link")
        run(SYNC, self.src, self.dst)
        for path in self.dst.rglob("*"):
            os.utime(path, (OLD, OLD), follow_symlinks=False)

    def mtime(self, relative: str) -> float:
        return (self.dst / relative).lstat().st_mtime

    def test_the_first_sync_copies_content_mode_and_links_but_not_target(self) -> None:
        self.assertEqual((self.dst / "src" / "lib.rs").read_text(), "pub fn a() {}\n")
        self.assertEqual((self.dst / "run.sh").stat().st_mode & 0o777, 0o755)
        self.assertEqual(os.readlink(self.dst / "link"), "src/lib.rs")
        self.assertFalse((self.dst / "target").exists())

    def test_an_unchanged_file_keeps_its_mtime_and_a_changed_one_is_new(self) -> None:
        write(self.src / "src" / "lib.rs", "pub fn b() {}\n")
        out = run(SYNC, self.src, self.dst)
        self.assertIn("1 files written, 0 deleted", out)
        self.assertEqual(self.mtime("run.sh"), OLD)
        self.assertEqual(self.mtime("link"), OLD)
        self.assertGreater(self.mtime("src/lib.rs"), OLD)
        self.assertEqual((self.dst / "src" / "lib.rs").read_text(), "pub fn b() {}\n")

    def test_a_change_of_mode_alone_or_of_same_sized_bytes_is_seen(self) -> None:
        (self.src / "run.sh").chmod(0o644)
        write(self.src / "src" / "lib.rs", "pub fn z() {}\n")  # same size as before
        run(SYNC, self.src, self.dst)
        self.assertEqual((self.dst / "run.sh").stat().st_mode & 0o777, 0o644)
        self.assertEqual((self.dst / "src" / "lib.rs").read_text(), "pub fn z() {}\n")

    def test_what_the_clone_lacks_goes_and_the_caches_target_stays(self) -> None:
        write(self.dst / "left-behind" / "file", "stale")
        write(self.dst / "src" / "old.rs", "stale")
        (self.dst / "target").symlink_to("/nonexistent/cache/target")
        (self.src / "link").unlink()
        (self.src / "link").mkdir()  # a link that became a directory
        out = run(SYNC, self.src, self.dst)
        self.assertIn("3 deleted", out)
        self.assertFalse((self.dst / "left-behind").exists())
        self.assertFalse((self.dst / "src" / "old.rs").exists())
        self.assertTrue((self.dst / "link").is_dir())
        self.assertFalse((self.dst / "link").is_symlink())
        self.assertEqual(os.readlink(self.dst / "target"), "/nonexistent/cache/target")

    def test_a_destination_inside_the_clone_is_refused(self) -> None:
        done = subprocess.run(
            [sys.executable, str(SYNC), str(self.src), str(self.src / "sub")],
            capture_output=True,
            text=True,
        )
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("lies inside", done.stderr)


def crate(path: Path, files: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(f"pkg-0.1.0/{name}")
            info.size = len(data)
            info.mtime = 1153704088  # cargo's fixed mtime
            archive.addfile(info, io.BytesIO(data))
    return path


class CrateDigest(unittest.TestCase):
    def setUp(self) -> None:
        scratch = tempfile.TemporaryDirectory()
        self.addCleanup(scratch.cleanup)
        self.dir = Path(scratch.name)

    def digest(self, files: dict[str, bytes], name: str = "pkg-0.1.0.crate") -> str:
        line = run(DIGEST, crate(self.dir / name, files)).strip()
        self.assertTrue(line.endswith(f"  {name}"), line)
        return line.split()[0]

    def test_only_the_commit_changing_leaves_the_digest_alone(self) -> None:
        base = {"src/lib.rs": b"fn a() {}", ".cargo_vcs_info.json": b'{"git":{"sha1":"aaa"}}'}
        moved = dict(base, **{".cargo_vcs_info.json": b'{"git":{"sha1":"bbb"}}'})
        self.assertEqual(self.digest(base), self.digest(moved))

    def test_the_checksums_in_cargo_lock_do_not_count_and_the_rest_does(self) -> None:
        lock = b'[[package]]\nname = "harness-contract"\nversion = "0.1.0"\nchecksum = "%s"\n'
        first = self.digest({"Cargo.lock": lock % b"aa"})
        self.assertEqual(first, self.digest({"Cargo.lock": lock % b"bb"}))
        bumped = lock.replace(b'"0.1.0"', b'"0.2.0"')
        self.assertNotEqual(first, self.digest({"Cargo.lock": bumped % b"aa"}))

    def test_a_changed_added_or_renamed_file_changes_the_digest(self) -> None:
        base = {"src/lib.rs": b"fn a() {}"}
        first = self.digest(base)
        self.assertNotEqual(first, self.digest({"src/lib.rs": b"fn b() {}"}))
        self.assertNotEqual(first, self.digest(dict(base, **{"src/new.rs": b""})))
        self.assertNotEqual(first, self.digest({"src/main.rs": b"fn a() {}"}))

    def test_changed_since_names_the_packages_whose_files_changed(self) -> None:
        runtime = crate(self.dir / "harness-runtime-0.1.0.crate", {"src/lib.rs": b"a"})
        cli = crate(self.dir / "harness-codegen-cli-0.1.0.crate", {"src/main.rs": b"b"})
        listed = self.dir / "verified.sha256"
        self.assertEqual(
            run(DIGEST, "--changed-since", listed, runtime, cli).split(),
            ["harness-runtime", "harness-codegen-cli"],
        )
        listed.write_text(run(DIGEST, runtime, cli))
        self.assertEqual(run(DIGEST, "--changed-since", listed, runtime, cli), "")
        crate(self.dir / "harness-codegen-cli-0.1.0.crate", {"src/main.rs": b"c"})
        self.assertEqual(
            run(DIGEST, "--changed-since", listed, runtime, cli).split(), ["harness-codegen-cli"]
        )

    def test_a_file_that_is_not_a_crate_is_an_error(self) -> None:
        (self.dir / "broken.crate").write_bytes(b"not gzip")
        done = subprocess.run(
            [sys.executable, str(DIGEST), str(self.dir / "broken.crate")],
            capture_output=True,
            text=True,
        )
        self.assertNotEqual(done.returncode, 0)


if __name__ == "__main__":
    unittest.main()
