"""The skills extension through an independent client: FastMCP 4.2.3's, whose
`Client.read_skill` fetches every file of a skill and refuses one whose size or SHA-256
digest differs from what `skills/get` promised, or whose frontmatter or name differ from the
skill's entry. Against the conformance fixture (examples/conformance, one skill with a
supporting file in a subdirectory) over streamable HTTP with sessions and stateless, at
2026-07-28. The bytes FastMCP read are also compared with the skill's files on disk, an
oracle the server has no part in.

Run by scripts/test.sh in the venv of test_transports.py:
    python tests/python/test_skills.py target/debug
Exits non-zero on the first failure, naming it.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import secrets
import sys
from pathlib import Path

from fastmcp import Client
from fastmcp.skills.client import SkillsClientExtension

sys.path.insert(0, str(Path(__file__).parent))
from test_transports import http_server, run_tests  # noqa: E402 - the shared fixture and runner

BIN = Path(sys.argv[1] if len(sys.argv) > 1 else "target/debug")
FIXTURE = str(BIN / "conformance-fixture")
SKILL_DIR = Path(__file__).parents[2] / "examples/conformance/skills/conformance-guide"
# The fixture seals input-required state with this key and refuses to start without one.
os.environ.setdefault("CONFORMANCE_STATE_KEY", secrets.token_hex(32))


def files_on_disk() -> dict[str, bytes]:
    """The skill's files as the manifest's directory holds them, by relative path."""
    return {
        path.relative_to(SKILL_DIR).as_posix(): path.read_bytes()
        for path in sorted(SKILL_DIR.rglob("*"))
        if path.is_file()
    }


async def read_every_skill(*serve: str) -> None:
    async with http_server(FIXTURE, "streamable-http", *serve) as port:
        client = Client(f"http://127.0.0.1:{port}/mcp", extensions=[SkillsClientExtension()])
        async with client:
            assert client.protocol_version == "2026-07-28", client.protocol_version
            skills = await client.list_skills()
            names = [entry.frontmatter.root.get("name") for entry in skills]
            assert names == ["conformance-guide"], names
            entry = skills[0]
            # Every listed file's digest is the SHA-256 of the file on disk.
            disk = files_on_disk()
            listed = {
                str(resource.uri).split("conformance-guide/", 1)[1]: resource
                for resource in entry.resources
            }
            assert sorted(listed) == sorted(disk), (sorted(listed), sorted(disk))
            for path, resource in listed.items():
                digest = "sha256:" + hashlib.sha256(disk[path]).hexdigest()
                assert resource.digest == digest, (path, resource.digest, digest)
                assert resource.size == len(disk[path]), (path, resource.size)
            # FastMCP reads each file and checks it against the entry itself.
            skill = await client.read_skill(str(entry.uri))
            assert skill.name == "conformance-guide", skill.name
            assert dict(skill.files) == disk, sorted(skill.files)


async def test_skills_read_and_verified_with_sessions() -> None:
    await read_every_skill()


async def test_skills_read_and_verified_stateless() -> None:
    await read_every_skill("--stateless")


async def main() -> int:
    tests = [value for name, value in globals().items() if name.startswith("test_")]
    return await run_tests(tests, "skills", timeout=60)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
