"""The three transports through the official Python `mcp` client, and the HTTP security.

Run by scripts/test.sh in a venv with `mcp` and `httpx` installed:
    python tests/python/test_transports.py target/debug
Exits non-zero on the first failure, naming it.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
from mcp import ClientSession, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

BIN = Path(sys.argv[1] if len(sys.argv) > 1 else "target/debug")
SERVER = str(BIN / "incident-monitor")
OPS = str(BIN / "ops-agent")
TOKEN = "python-test-token-0123456789"
INCIDENT = {"incident_id": 42}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@asynccontextmanager
async def http_server(binary: str, transport: str, *extra: str):
    port = free_port()
    scratch = tempfile.TemporaryDirectory(prefix="harness-py-")
    audit = Path(scratch.name) / "audit.jsonl"
    env = dict(os.environ, OPS_AGENT_TOKEN=TOKEN)
    process = subprocess.Popen(
        [binary, "serve", "--transport", transport, "--bind", f"127.0.0.1:{port}", "--audit-path", str(audit), *extra],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"{binary} never became healthy")
            await asyncio.sleep(0.05)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)
        scratch.cleanup()


def structured(result) -> dict:
    assert result.structured_content is not None, result
    return result.structured_content


async def list_and_call(session: ClientSession) -> None:
    await session.initialize()
    tools = await session.list_tools()
    assert [tool.name for tool in tools.tools] == ["get_incident_snapshot"], tools
    result = await session.call_tool("get_incident_snapshot", INCIDENT)
    assert not result.is_error, result
    assert structured(result)["status"] == "degraded", result
    refused = await session.call_tool("get_incident_snapshot", {"incident_id": "42"})
    assert refused.is_error and structured(refused)["error_code"] == "InvalidArguments", refused


async def test_stdio() -> None:
    with tempfile.TemporaryDirectory(prefix="harness-py-") as scratch:
        await stdio_calls(Path(scratch) / "audit.jsonl")


async def stdio_calls(audit: Path) -> None:
    params = StdioServerParameters(command=SERVER, args=["serve", "--transport", "stdio", "--audit-path", str(audit)])
    with open(os.devnull, "w") as quiet:
        async with stdio_client(params, errlog=quiet) as (read, write), ClientSession(read, write) as session:
            await list_and_call(session)


async def test_streamable_http() -> None:
    async with http_server(SERVER, "streamable-http") as port:
        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write, *_):
            async with ClientSession(read, write) as session:
                await list_and_call(session)


async def test_sse() -> None:
    async with http_server(SERVER, "sse") as port:
        async with sse_client(f"http://127.0.0.1:{port}/mcp/sse") as (read, write):
            async with ClientSession(read, write) as session:
                await list_and_call(session)


async def test_a_panic_on_an_sse_stream_is_answered_and_the_stream_lives_on() -> None:
    async with http_server(OPS, "sse") as port:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with sse_client(f"http://127.0.0.1:{port}/mcp/sse", headers=headers) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                panicked = await session.call_tool("simulate_fault", {"kind": "panic"})
                assert panicked.is_error and structured(panicked)["error_code"] == "InternalError", panicked
                status = await session.call_tool("get_status", {})
                assert not status.is_error and status.content[0].text == "System healthy", status


def post(port: int, body: dict, **headers: str) -> httpx.Response:
    base = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
    return httpx.post(f"http://127.0.0.1:{port}/mcp", json=body, headers={**base, **headers}, timeout=5)


CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_incident_snapshot", "arguments": INCIDENT}}
PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


async def test_origin_and_host_checks() -> None:
    async with http_server(SERVER, "streamable-http") as port:
        assert post(port, PING, Origin="http://evil.example").status_code == 403
        assert post(port, PING, Host="evil.example").status_code == 403
    async with http_server(SERVER, "sse") as port:
        response = httpx.get(f"http://127.0.0.1:{port}/mcp/sse", headers={"Origin": "http://evil.example"}, timeout=5)
        assert response.status_code == 403, response


async def test_bearer_tokens() -> None:
    async with http_server(OPS, "streamable-http") as port:
        missing = post(port, PING)
        wrong = post(port, PING, Authorization="Bearer nope")
        assert missing.status_code == 401 and wrong.status_code == 401, (missing, wrong)
        assert missing.content == b"" and wrong.content == b"", "a 401 carries no details"
        assert post(port, PING, Authorization=f"Bearer {TOKEN}").status_code != 401


async def test_stateless_replicas_share_nothing() -> None:
    async with http_server(SERVER, "streamable-http", "--stateless") as first:
        async with http_server(SERVER, "streamable-http", "--stateless") as second:
            for index in range(6):
                port = (first, second)[index % 2]
                response = post(port, {**CALL, "id": index})
                assert response.status_code == 200, response.text
                reply = response.json()
                assert reply["result"]["structuredContent"]["incident_id"] == 42, reply


# Duplicate keys cannot be written with a JSON library; these bodies are raw text.
DUPLICATE_CALL = (
    '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_incident_snapshot",'
    '"arguments":{"incident_id":"42","incident_id":42}}}'
)
INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
INITIALIZED = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})


def assert_duplicate_refused(reply: dict, transport: str) -> None:
    assert reply.get("id") == 7, (transport, reply)
    result = reply["result"]
    envelope = result["structuredContent"]
    assert result["isError"] is True and envelope["error_code"] == "InvalidArguments", (transport, reply)
    assert "incident_id: duplicate key" in envelope["message"], (transport, envelope)


def sse_data(text: str) -> list[dict]:
    return [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:") and line[5:].strip()]


async def test_duplicate_argument_keys_are_refused_on_every_transport() -> None:
    with tempfile.TemporaryDirectory(prefix="harness-py-") as scratch:
        await duplicate_keys_refused(Path(scratch) / "audit.jsonl")


async def duplicate_keys_refused(audit: Path) -> None:
    stdio = subprocess.Popen([SERVER, "serve", "--transport", "stdio", "--audit-path", str(audit)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out, _ = stdio.communicate("\n".join([INITIALIZE, INITIALIZED, DUPLICATE_CALL]) + "\n", timeout=20)
    replies = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert_duplicate_refused(replies[-1], "stdio")
    assert [json.loads(line)["outcome"] for line in audit.read_text().splitlines()] == ["invalid_arguments"]

    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-11-25"}
    async with http_server(SERVER, "streamable-http", "--stateless") as port:
        reply = httpx.post(f"http://127.0.0.1:{port}/mcp", content=DUPLICATE_CALL, headers=headers, timeout=5)
        assert_duplicate_refused(reply.json(), "stateless streamable HTTP")
    async with http_server(SERVER, "streamable-http") as port:
        url = f"http://127.0.0.1:{port}/mcp"
        opened = httpx.post(url, content=INITIALIZE, headers=headers, timeout=5)
        session = {**headers, "Mcp-Session-Id": opened.headers["mcp-session-id"]}
        httpx.post(url, content=INITIALIZED, headers=session, timeout=5)
        reply = httpx.post(url, content=DUPLICATE_CALL, headers=session, timeout=5)
        assert_duplicate_refused(sse_data(reply.text)[-1], "streamable HTTP")
    async with http_server(SERVER, "sse") as port:
        with httpx.stream("GET", f"http://127.0.0.1:{port}/mcp/sse", timeout=10) as stream:
            lines = stream.iter_lines()
            endpoint = next(line[5:].strip() for line in lines if line.startswith("data:"))
            post_url = f"http://127.0.0.1:{port}{endpoint}"
            for body in (INITIALIZE, INITIALIZED, DUPLICATE_CALL):
                accepted = httpx.post(post_url, content=body, headers={"Content-Type": "application/json"}, timeout=5)
                assert accepted.status_code == 202, accepted
            for line in lines:
                if line.startswith("data:") and '"id":7' in line:
                    assert_duplicate_refused(json.loads(line[5:]), "legacy SSE")
                    break
            else:
                raise AssertionError("legacy SSE: the stream ended without the reply to id 7")


async def test_sse_posts_need_json_within_the_body_limit() -> None:
    async with http_server(SERVER, "sse") as port:
        with httpx.stream("GET", f"http://127.0.0.1:{port}/mcp/sse", timeout=10) as stream:
            endpoint = next(line[5:].strip() for line in stream.iter_lines() if line.startswith("data:"))
            post_url = f"http://127.0.0.1:{port}{endpoint}"
            plain = httpx.post(post_url, content=INITIALIZE, headers={"Content-Type": "text/plain"}, timeout=5)
            assert plain.status_code == 415, plain
            huge = httpx.post(post_url, content=b" " * (5 * 1024 * 1024) + INITIALIZE.encode(),
                              headers={"Content-Type": "application/json"}, timeout=10)
            assert huge.status_code == 413, huge


async def test_a_bracketed_host_followed_by_anything_is_refused() -> None:
    for transport, path in (("streamable-http", "/mcp"), ("sse", "/mcp/sse")):
        async with http_server(SERVER, transport) as port:
            url = f"http://127.0.0.1:{port}{path}"
            for headers in ({"Host": "[::1]evil.example"}, {"Origin": "http://[::1]evil.example"}):
                response = httpx.get(url, headers=headers, timeout=5)
                assert response.status_code == 403, (transport, headers, response)


async def run_tests(tests: list, what: str, timeout: float) -> int:
    """Runs each test in turn; stops at the first failure, naming it."""
    for test in tests:
        try:
            await asyncio.wait_for(test(), timeout=timeout)
        except BaseException as error:  # noqa: BLE001 - report any failure by name
            print(f"FAIL {test.__name__}: {error!r}")
            return 1
        print(f"ok   {test.__name__}")
    print(f"{len(tests)} {what} tests passed")
    return 0


async def main() -> int:
    tests = [value for name, value in globals().items() if name.startswith("test_")]
    return await run_tests(tests, "transport", timeout=60)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
