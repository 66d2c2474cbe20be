"""The content kinds and client callbacks through the official Python `mcp` client, against the
conformance fixture (examples/conformance), on every transport: an image block, progress
notifications, log messages, a write tool's confirmation and idempotency key, elicitation
(accepted, declined, and accepted with content the form refuses) and sampling, on streamable
HTTP with sessions, legacy SSE and stdio.

On stateless streamable HTTP the server cannot send a request or a notification of its own:
it answers each POST with one JSON reply, so there is no stream for progress or log
notifications, and no session in which to ask the client for elicitation or sampling. There
the client speaks 2026-07-28 (`server/discover`) and the same questions travel as
input-required results instead: the call ends naming what it needs with a sealed
`requestState`, and the client calls again with its answers; those flows are tested there,
with the image.

Run by scripts/test.sh in the venv of test_transports.py:
    python tests/python/test_protocol.py target/debug
Exits non-zero on the first failure, naming it.
"""

from __future__ import annotations

import asyncio
import base64
import os
import secrets
import sys
import tempfile
import warnings
from contextlib import asynccontextmanager
from pathlib import Path

import mcp.types as types
from mcp import ClientSession, MCPDeprecationWarning, MCPError, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).parent))
from test_transports import http_server, run_tests  # noqa: E402 - the shared fixture and runner

BIN = Path(sys.argv[1] if len(sys.argv) > 1 else "target/debug")
FIXTURE = str(BIN / "conformance-fixture")
# What the fixture's image tool serves, read from disk: the oracle for the bytes.
PIXEL_PNG = (Path(__file__).parents[2] / "examples/conformance/fixtures/pixel.png").read_bytes()
# The fixture seals input-required state with this key and refuses to start without one.
os.environ.setdefault("CONFORMANCE_STATE_KEY", secrets.token_hex(32))


class Client:
    """The callbacks of one session, recording what the server asked and sent."""

    def __init__(self) -> None:
        self.logs: list[types.LoggingMessageNotificationParams] = []
        self.three_logs = asyncio.Event()
        self.elicited: list[types.ElicitRequestParams] = []
        self.elicit_answer: types.ElicitResult = types.ElicitResult(action="decline")
        self.sampled: list[types.CreateMessageRequestParams] = []

    async def on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append(params)
        if len(self.logs) >= 3:
            self.three_logs.set()

    async def on_elicit(self, _context, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.elicited.append(params)
        return self.elicit_answer

    async def on_sample(self, _context, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        self.sampled.append(params)
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="Paris, said the model"), model="stub-model"
        )

    def session(self, read, write) -> ClientSession:
        return ClientSession(
            read, write, logging_callback=self.on_log, elicitation_callback=self.on_elicit, sampling_callback=self.on_sample
        )


def text(result) -> str:
    assert len(result.content) == 1 and result.content[0].type == "text", result
    return result.content[0].text


async def check_image(session: ClientSession) -> None:
    result = await session.call_tool("test_image_content", {})
    assert not result.is_error, result
    [block] = result.content
    assert block.type == "image" and block.mime_type == "image/png", block
    assert base64.b64decode(block.data, validate=True) == PIXEL_PNG, "the image's bytes are the fixture's PNG"


async def check_progress(session: ClientSession) -> None:
    seen: list[tuple[float, float | None, str | None]] = []
    three = asyncio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))
        if len(seen) >= 3:
            three.set()

    result = await session.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
    assert text(result) == "Progress test completed", result
    await asyncio.wait_for(three.wait(), timeout=10)
    assert seen == [(0, 100, "working"), (50, 100, "working"), (100, 100, "working")], seen


async def check_logging(session: ClientSession, client: Client) -> None:
    with warnings.catch_warnings():
        # Deprecated from 2026-07-28 on, where the level travels per request; these sessions
        # are 2025-11-25, where `logging/setLevel` is how a client asks for log messages.
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        await session.set_logging_level("info")
    result = await session.call_tool("test_tool_with_logging", {})
    assert text(result) == "Logging test completed", result
    await asyncio.wait_for(client.three_logs.wait(), timeout=10)
    messages = [(log.level, log.data) for log in client.logs]
    assert messages == [
        ("info", "Tool execution started"),
        ("info", "Tool processing data"),
        ("info", "Tool execution completed"),
    ], messages


async def check_elicitation(session: ClientSession, client: Client) -> None:
    question = {"message": "Who are you?"}
    client.elicit_answer = types.ElicitResult(action="accept", content={"username": "ada", "email": "ada@example.com"})
    accepted = await session.call_tool("test_elicitation", question)
    assert text(accepted) == (
        'Elicitation completed: action=accept, content={"username":"ada","email":"ada@example.com"}'
    ), accepted
    asked = client.elicited[-1]
    assert asked.message == "Who are you?", asked
    assert asked.requested_schema["required"] == ["username", "email"], asked

    client.elicit_answer = types.ElicitResult(action="decline")
    declined = await session.call_tool("test_elicitation", question)
    assert text(declined) == "Elicitation completed: action=decline", declined

    # An answer the form does not allow (no email, a field it lacks) never reaches the body.
    client.elicit_answer = types.ElicitResult(action="accept", content={"username": "ada", "admin": True})
    refused = await session.call_tool("test_elicitation", question)
    assert refused.is_error, refused
    assert "Elicitation completed" not in str(refused.content), refused
    assert "email" in str(refused.structured_content), refused
    assert len(client.elicited) == 3, client.elicited


async def check_write_tool(session: ClientSession, client: Client, request_id: str) -> None:
    """confirm + idempotency_key: asked once, run once, a repeat replayed, a reuse refused."""
    asked_before = len(client.elicited)
    refund = {"request_id": request_id, "order": "A-42"}
    client.elicit_answer = types.ElicitResult(action="accept", content={"confirm": True})
    first = await session.call_tool("harness_refund_order", refund)
    assert not first.is_error and text(first).startswith("Refunded order A-42"), first
    asked = client.elicited[-1]
    assert "harness_refund_order" in asked.message and "A-42" in asked.message, asked
    assert asked.requested_schema["required"] == ["confirm"], asked
    again = await session.call_tool("harness_refund_order", refund)
    assert text(again) == text(first), again
    assert again.meta["harness/replay"]["outcome"] == "ok", again
    assert len(client.elicited) == asked_before + 1, "a replay asks nobody"
    reused = await session.call_tool("harness_refund_order", {"request_id": request_id, "order": "B-7"})
    assert reused.is_error and reused.structured_content["error_code"] == "IdempotencyKeyReused", reused
    client.elicit_answer = types.ElicitResult(action="decline")
    declined = await session.call_tool("harness_refund_order", {"request_id": request_id + "-2", "order": "A-42"})
    assert declined.is_error and declined.structured_content["error_code"] == "NotConfirmed", declined


async def check_sampling(session: ClientSession, client: Client) -> None:
    result = await session.call_tool("test_sampling", {"prompt": "What is the capital of France?"})
    assert text(result) == "LLM response: Paris, said the model", result
    [asked] = client.sampled
    assert asked.max_tokens == 100, asked
    assert [(m.role, m.content.text) for m in asked.messages] == [("user", "What is the capital of France?")], asked


async def check_prompt_body_and_form(session: ClientSession, client: Client) -> None:
    """A prompt body that asks in the session, a completion body, and a declared form."""
    client.elicit_answer = types.ElicitResult(action="accept", content={"context": "the night shift<b>obey</b>"})
    prompt = await session.get_prompt("test_input_required_result_prompt", {})
    [message] = prompt.messages
    assert (message.role, message.content.text) == ("user", "Answer with this context in mind: the night shift"), prompt
    assert client.elicited[-1].message == "What context should the prompt use?", client.elicited[-1]

    completion = await session.complete(
        types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"), {"name": "arg1", "value": "par"}
    )
    assert completion.completion.values == ["paris", "park", "party"], completion

    # [[tools.forms]] user_name: the generated validator refuses an empty name and a field
    # the form lacks before the body sees either.
    client.elicit_answer = types.ElicitResult(action="accept", content={"name": "Ada"})
    greeted = await session.call_tool("test_input_required_result_elicitation", {})
    assert text(greeted) == "Hello, Ada!", greeted
    assert client.elicited[-1].requested_schema["properties"]["name"]["maxLength"] == 200, client.elicited[-1]
    for misfit in ({"name": ""}, {"name": "Ada", "admin": True}):
        client.elicit_answer = types.ElicitResult(action="accept", content=misfit)
        refused = await session.call_tool("test_input_required_result_elicitation", {})
        assert refused.is_error and refused.structured_content["error_code"] == "InvalidInput", refused


async def exercise_session(read, write) -> None:
    """Every kind, in a session that lets the server notify and ask."""
    client = Client()
    async with client.session(read, write) as session:
        await session.initialize()
        await check_image(session)
        await check_progress(session)
        await check_logging(session, client)
        await check_elicitation(session, client)
        await check_write_tool(session, client, "refund-session")
        await check_sampling(session, client)
        await check_prompt_body_and_form(session, client)


@asynccontextmanager
async def fixture(transport: str, *extra: str):
    async with http_server(FIXTURE, transport, *extra) as port:
        yield port


async def test_streamable_http_with_sessions() -> None:
    async with fixture("streamable-http") as port:
        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write, *_):
            await exercise_session(read, write)


async def test_legacy_sse() -> None:
    async with fixture("sse") as port:
        async with sse_client(f"http://127.0.0.1:{port}/mcp/sse") as (read, write):
            await exercise_session(read, write)


async def test_stdio() -> None:
    with tempfile.TemporaryDirectory(prefix="harness-py-") as scratch:
        params = StdioServerParameters(
            command=FIXTURE,
            args=["serve", "--transport", "stdio", "--audit-path", str(Path(scratch) / "audit.jsonl")],
            env=dict(os.environ),
        )
        with open(os.devnull, "w") as quiet:
            async with stdio_client(params, errlog=quiet) as (read, write):
                await exercise_session(read, write)


async def test_stateless_http_images_and_input_required_results() -> None:
    async with fixture("streamable-http", "--stateless") as port:
        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write, *_):
            # The callbacks make the client declare elicitation and sampling; on 2026-07-28 the
            # test answers the input requests itself, as the calls below return them.
            async with Client().session(read, write) as session:
                discovered = await session.discover()
                assert discovered is not None
                await check_image(session)

                # Elicitation: the first call asks, the second carries the answer and the state.
                first = await session.call_tool("test_input_required_result_elicitation", {}, allow_input_required=True)
                assert isinstance(first, types.InputRequiredResult), first
                [(key, request)] = first.input_requests.items()
                assert request.method == "elicitation/create" and request.params.message == "What is your name?", request
                answer = types.ElicitResult(action="accept", content={"name": "Ada"})
                done = await session.call_tool(
                    "test_input_required_result_elicitation",
                    {},
                    input_responses={key: answer},
                    request_state=first.request_state,
                    allow_input_required=True,
                )
                assert isinstance(done, types.CallToolResult) and text(done) == "Hello, Ada!", done
                declined = await session.call_tool(
                    "test_input_required_result_elicitation",
                    {},
                    input_responses={key: types.ElicitResult(action="decline")},
                    request_state=first.request_state,
                    allow_input_required=True,
                )
                assert text(declined) == "Hello, stranger!", declined

                # A confirm tool asks by input-required result; the answer beside its state runs it.
                refund = {"request_id": "refund-stateless", "order": "A-42"}
                first = await session.call_tool("harness_refund_order", refund, allow_input_required=True)
                assert isinstance(first, types.InputRequiredResult), first
                [(key, request)] = first.input_requests.items()
                assert key == "harness/confirm" and request.method == "elicitation/create", request
                yes = types.ElicitResult(action="accept", content={"confirm": True})
                done = await session.call_tool(
                    "harness_refund_order",
                    refund,
                    input_responses={key: yes},
                    request_state=first.request_state,
                    allow_input_required=True,
                )
                assert isinstance(done, types.CallToolResult) and text(done).startswith("Refunded order A-42"), done
                again = await session.call_tool("harness_refund_order", refund, allow_input_required=True)
                assert isinstance(again, types.CallToolResult) and text(again) == text(done), again

                # Sampling, the same way.
                first = await session.call_tool("test_input_required_result_sampling", {}, allow_input_required=True)
                assert isinstance(first, types.InputRequiredResult), first
                [(key, request)] = first.input_requests.items()
                assert request.method == "sampling/createMessage", request
                assert request.params.messages[0].content.text == "What is the capital of France?", request
                reply = types.CreateMessageResult(
                    role="assistant", content=types.TextContent(type="text", text="Paris"), model="stub-model"
                )
                done = await session.call_tool(
                    "test_input_required_result_sampling",
                    {},
                    input_responses={key: reply},
                    request_state=first.request_state,
                    allow_input_required=True,
                )
                assert text(done) == "The model says: Paris", done

                # A state altered by the client does not open: a JSON-RPC invalid-params error.
                state = first.request_state
                altered = state[:-4] + ("AAAA" if not state.endswith("AAAA") else "BBBB")
                try:
                    tampered = await session.call_tool(
                        "test_input_required_result_sampling",
                        {},
                        input_responses={key: reply},
                        request_state=altered,
                        allow_input_required=True,
                    )
                except MCPError as error:
                    assert error.error.code == -32602 and "invalid request state" in error.error.message, error
                else:
                    raise AssertionError(f"an altered state was accepted: {tampered}")


async def main() -> int:
    tests = [value for name, value in globals().items() if name.startswith("test_")]
    return await run_tests(tests, "protocol", timeout=60)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
