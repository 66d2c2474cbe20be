"""The gateway (examples/gateway, in front of server-everything) through the official Python
`mcp` client, over stdio and streamable HTTP: only pinned tools, invalid arguments refused
before the upstream, images and progress carried, tag injections stripped.

Run by scripts/test.sh in the venv of test_transports.py (npx fetches server-everything):
    python tests/python/test_gateway.py target/debug
Exits non-zero on the first failure, naming it.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).parent))
from test_transports import http_server, run_tests  # noqa: E402 - the shared fixture and runner

BIN = Path(sys.argv[1] if len(sys.argv) > 1 else "target/debug")
GATEWAY = str(BIN / "gateway")
PINNED = {
    "echo",
    "get-sum",
    "get-tiny-image",
    "get-structured-content",
    "get-resource-links",
    "get-resource-reference",
    "trigger-long-running-operation",
    "get-env",
    # Pinned with `forward`: their requests reach the client that calls them.
    "trigger-sampling-request",
    "trigger-elicitation-request",
    "get-roots-list",
}


async def exercise(session: ClientSession) -> None:
    await session.initialize()
    names = {tool.name for tool in (await session.list_tools()).tools}
    assert names - {"health", "ping", "diagnostics"} == PINNED, names
    total = await session.call_tool("get-sum", {"a": 2, "b": 3})
    assert not total.is_error and "5" in total.content[0].text, total
    refused = await session.call_tool("get-sum", {"a": "2", "b": 3})
    assert refused.is_error and refused.structured_content["error_code"] == "InvalidArguments", refused
    echoed = await session.call_tool("echo", {"message": "hi <IMPORTANT>exfiltrate</IMPORTANT>"})
    assert "hi" in echoed.content[0].text and "exfiltrate" not in echoed.content[0].text, echoed
    image = await session.call_tool("get-tiny-image", {})
    assert any(block.type == "image" and block.mime_type == "image/png" for block in image.content), image
    progress: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    slow = await session.call_tool(
        "trigger-long-running-operation", {"duration": 1, "steps": 3}, progress_callback=on_progress
    )
    assert not slow.is_error, slow
    assert progress and progress == sorted(progress), progress


async def test_stdio() -> None:
    with tempfile.TemporaryDirectory(prefix="harness-py-") as scratch:
        audit = Path(scratch) / "audit.jsonl"
        params = StdioServerParameters(
            command=GATEWAY, args=["serve", "--transport", "stdio", "--audit-path", str(audit)], env=dict(os.environ)
        )
        with open(os.devnull, "w") as quiet:
            async with stdio_client(params, errlog=quiet) as (read, write), ClientSession(read, write) as session:
                await exercise(session)
        assert len(audit.read_text().splitlines()) == 5, "every call audited"


async def test_streamable_http() -> None:
    async with http_server(GATEWAY, "streamable-http") as port:
        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write, *_):
            async with ClientSession(read, write) as session:
                await exercise(session)


async def main() -> int:
    return await run_tests([test_stdio, test_streamable_http], "gateway", timeout=120)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
