"""The OAuth 2.1 resource server through the official Python `mcp` client: a token from a real
OpenID provider's client-credentials grant (oidc-provider, tests/oauth/provider.mjs, installed
by scripts/oauth-provider.sh), with a resource indicator for the server (RFC 8707), connects
to examples/oauth-resource and calls a tool end to end, over streamable HTTP and over the
legacy SSE transport (whose audit record names the caller too); without a token the client
is refused with the 401 that names the resource metadata.

Run by scripts/test.sh in the MCP-client venv:
    python tests/python/test_oauth.py target/debug
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import json

import httpx
from mcp import ClientSession
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

BIN = Path(sys.argv[1] if len(sys.argv) > 1 else "target/debug")
SERVER = str(BIN / "oauth-resource")
ROOT = Path(__file__).resolve().parents[2]
ISSUER = "http://127.0.0.1:29417"
RESOURCE = "https://mcp.oauth-resource.test/mcp"
PORT = 8791  # the manifest's bind


def start_provider() -> subprocess.Popen:
    modules = subprocess.run(["bash", str(ROOT / "scripts/oauth-provider.sh")], check=True, capture_output=True, text=True).stdout.strip()
    provider = subprocess.Popen(
        ["node", str(ROOT / "tests/oauth/provider.mjs"), "29417", modules],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    line = provider.stdout.readline().strip()
    assert line == f"listening {ISSUER}", f"the provider did not start: {line!r}"
    return provider


SSE_PORT = 8792


def start_server(audit: Path, *extra: str, port: int = PORT) -> subprocess.Popen:
    env = dict(os.environ, OAUTH_RESOURCE_CLIENT_ID="mcp-server", OAUTH_RESOURCE_CLIENT_SECRET="server-secret")
    command = [SERVER, "serve", "--audit-path", str(audit), "--bind", f"127.0.0.1:{port}", *extra]
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        assert server.poll() is None, "the server exited"
        assert time.monotonic() < deadline, "the server never became healthy"
        time.sleep(0.05)


def client_credentials() -> str:
    answer = httpx.post(
        f"{ISSUER}/token",
        auth=("mcp-agent", "agent-secret"),
        data={"grant_type": "client_credentials", "scope": "mcp tools:read tools:write", "resource": RESOURCE},
    )
    answer.raise_for_status()
    return answer.json()["access_token"]


async def connect_and_call(token: str) -> None:
    client = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with client, streamable_http_client(f"http://127.0.0.1:{PORT}/mcp", http_client=client) as (read, write, *_):
        async with ClientSession(read, write) as session:
            await session.initialize()
            names = [tool.name for tool in (await session.list_tools()).tools]
            assert "restart_service" in names and "read_status" in names, names
            result = await session.call_tool("restart_service", {"service": "db"})
            assert not result.is_error, result
            assert result.content[0].text == "db restarted", result


async def over_sse(token: str, audit: Path) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    async with sse_client(f"http://127.0.0.1:{SSE_PORT}/mcp/sse", headers=headers) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("read_status", {"service": "db"})
            assert not result.is_error and result.content[0].text == "db is running", result
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    called = [record for record in records if record["tool"] == "read_status"]
    assert called and called[-1]["subject"] == "mcp-agent", records


def refused_without_a_token() -> None:
    answer = httpx.post(
        f"http://127.0.0.1:{PORT}/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        headers={"Accept": "application/json, text/event-stream"},
    )
    assert answer.status_code == 401, answer
    challenge = answer.headers["www-authenticate"]
    assert 'resource_metadata="https://mcp.oauth-resource.test/.well-known/oauth-protected-resource/mcp"' in challenge, challenge


def main() -> None:
    provider = start_provider()
    scratch = tempfile.TemporaryDirectory(prefix="harness-py-oauth-")
    server = start_server(Path(scratch.name) / "audit.jsonl")
    sse_audit = Path(scratch.name) / "sse-audit.jsonl"
    sse = start_server(sse_audit, "--transport", "sse", port=SSE_PORT)
    try:
        refused_without_a_token()
        asyncio.run(connect_and_call(client_credentials()))
        asyncio.run(over_sse(client_credentials(), sse_audit))
        print("test_oauth: 3 passed, 0 failed")
    finally:
        for process in (server, sse):
            process.terminate()
            process.wait(timeout=10)
        provider.stdin.close()
        provider.wait(timeout=10)
        scratch.cleanup()


if __name__ == "__main__":
    main()
