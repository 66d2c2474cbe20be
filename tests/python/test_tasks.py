"""The tasks extension (io.modelcontextprotocol/tasks, SEP-2663) through an independent client:
FastMCP 4.1.4's `Client` with fastmcp-tasks 4.1.4, FastMCP's own client half of the extension
(`call_tool_task` and its `ToolTask` handle: `status` is `tasks/get`, `cancel` is
`tasks/cancel`, and `result` answers a task's questions through the client's elicitation
handler with `tasks/update`). The newest fastmcp-tasks pins fastmcp 4.1.4, so it has a venv of
its own (target/tasks-venv, scripts/python-venvs.sh) beside the 4.2.3 one of test_skills.py.

Against the conformance fixture (examples/conformance) over streamable HTTP, with sessions and
stateless, at 2026-07-28: a task created, polled and read; a running task cancelled; questions
asked while a task runs answered with `tasks/update` (by hand and by FastMCP's handler), and
the answers used; a question asked before the task exists (`ask_first`); an unknown task id
refused with -32602. Then against examples/oauth-resource (stateless, behind [auth], a token
for each of two OAuth clients from the real OpenID provider test_oauth.py starts): a task of
another subject is refused with the very answer an unknown id gets, and stays untouched.

One shim: fastmcp-tasks 4.1.4 sends tasks/get, tasks/update and tasks/cancel without the
`Mcp-Name` header that SEP-2663's Streamable HTTP binding requires of a client (the task id),
and a conforming server refuses them (-32020; test_task_request_without_mcp_name_refused
checks that it does). The mcp SDK stamps the header for a request class that names its
parameter (`name_param`), so naming it on FastMCP's three request classes is the whole shim.

Run by scripts/test.sh in the tasks venv:
    python tests/python/test_tasks.py target/debug
Exits non-zero on the first failure, naming it.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import sys
import tempfile
from pathlib import Path

import httpx
import mcp_types
from fastmcp import Client
from fastmcp.exceptions import ToolError
from fastmcp_tasks import ToolTask, call_tool_task
from fastmcp_tasks import client_models as wire
from mcp.shared.exceptions import MCPError

sys.path.insert(0, str(Path(__file__).parent))
from test_transports import http_server, run_tests  # noqa: E402 - the shared fixture and runner

BIN = Path(sys.argv[1] if len(sys.argv) > 1 else "target/debug")
FIXTURE = str(BIN / "conformance-fixture")
# The fixture seals input-required state with this key and refuses to start without one.
os.environ.setdefault("CONFORMANCE_STATE_KEY", secrets.token_hex(32))


class BareGetTaskRequest(wire.GetTaskRequest):
    """`tasks/get` as fastmcp-tasks 4.1.4 sends it: without `Mcp-Name`."""

    name_param = None


# The shim (see above): each task request carries its task id in `Mcp-Name`.
for request_class in (wire.GetTaskRequest, wire.UpdateTaskRequest, wire.CancelTaskRequest):
    request_class.name_param = "taskId"

TERMINAL = {"completed", "failed", "cancelled"}
# An id of the server's shape (128 bits, hex) that no task has.
FORGED_ID = secrets.token_hex(16)


def text_of(result) -> str:
    """The one text block of a CallToolResult, or of a completed task's inlined result."""
    content = result["content"] if isinstance(result, dict) else result.content
    assert len(content) == 1, content
    block = content[0]
    return block["text"] if isinstance(block, dict) else block.text


async def get_task(client: Client, task_id: str, request_class=wire.GetTaskRequest) -> wire.ClientGetTaskResult:
    request = request_class(params=wire.GetTaskRequestParams(task_id=task_id))
    return await client.session.send_request(request, wire.ClientGetTaskResult)


async def update_task(client: Client, task_id: str, responses: dict) -> None:
    request = wire.UpdateTaskRequest(
        params=wire.UpdateTaskRequestParams(task_id=task_id, input_responses=responses)
    )
    await client.session.send_request(request, mcp_types.Result)


async def cancel_task(client: Client, task_id: str) -> None:
    request = wire.CancelTaskRequest(params=wire.CancelTaskRequestParams(task_id=task_id))
    await client.session.send_request(request, mcp_types.Result)


async def refusal(request) -> MCPError:
    """The JSON-RPC error `request` (an awaitable) is answered with; fails if it succeeds."""
    try:
        answer = await request
    except MCPError as error:
        return error
    raise AssertionError(f"expected a JSON-RPC error, got {answer!r}")


async def refusals(client: Client, task_id: str) -> dict[str, tuple[int, str]]:
    """How tasks/get, tasks/update and tasks/cancel of `task_id` are refused, the id in each
    message masked so that the answers for two ids compare."""
    answers = {
        "tasks/get": await refusal(get_task(client, task_id)),
        "tasks/update": await refusal(update_task(client, task_id, {"confirm": {"action": "cancel"}})),
        "tasks/cancel": await refusal(cancel_task(client, task_id)),
    }
    return {method: (error.code, error.message.replace(task_id, "<id>")) for method, error in answers.items()}


def unexpected_question(*_args):
    raise AssertionError("the elicitation handler was asked although the test answers by hand")


class ClientWithoutTasks(Client):
    """A FastMCP client that does not declare the tasks extension."""

    _auto_internal_extensions = False


# ---- against the conformance fixture, with sessions and stateless ----------------------------


async def task_created_polled_and_read(url: str) -> None:
    label = f"alpha-{secrets.token_hex(4)}"
    async with Client(url) as client:
        assert client.protocol_version == "2026-07-28", client.protocol_version
        task = await call_tool_task(client, "slow_compute", {"seconds": 1, "label": label})
        created = task.create_result
        assert created.result_type == "task" and created.status == "working", created
        assert re.fullmatch(r"[0-9a-f]{32}", task.task_id), task.task_id
        # The manifest's [tools.task] for slow_compute.
        assert (created.poll_interval_ms, created.ttl_ms) == (200, 300000), created
        seen = []
        for _ in range(100):
            current = await task.status()
            assert current.task_id == task.task_id, current
            seen.append(current.status)
            if current.status in TERMINAL:
                break
            assert current.result is None and current.error is None, current
            await asyncio.sleep(current.poll_interval_ms / 1000)
        assert seen[0] == "working" and seen[-1] == "completed", seen
        assert set(seen) == {"working", "completed"}, seen
        assert current.error is None and current.result is not None, current
        assert current.result.get("isError") is not True, current.result
        assert text_of(current.result) == f"Computed {label} after 1 s.", current.result
        # FastMCP reads the same result through its handle.
        assert text_of(await task.result()) == f"Computed {label} after 1 s."
        # A plain call_tool is answered through the same extension, polled transparently.
        transparent = await client.call_tool("slow_compute", {"seconds": 0, "label": "beta"})
        assert text_of(transparent) == "Computed beta after 0 s.", transparent
    # The tool is `optional`: a client that does not declare the extension gets no task.
    async with ClientWithoutTasks(url) as plain:
        inline = await plain.call_tool("slow_compute", {"seconds": 0, "label": "gamma"})
        assert text_of(inline) == "Computed gamma after 0 s.", inline
        try:
            await call_tool_task(plain, "slow_compute", {"seconds": 0, "label": "delta"})
        except ToolError as error:
            assert "did not run as a task" in str(error), error
        else:
            raise AssertionError("a client without the extension was answered with a task")


async def running_task_cancelled(url: str) -> None:
    async with Client(url) as client:
        task = await call_tool_task(client, "slow_compute", {"seconds": 60, "label": "long"})
        await asyncio.sleep(0.3)
        assert (await task.status()).status == "working"
        await task.cancel()
        # The task reads cancelled as soon as the cancel is acknowledged, and stays so.
        assert (await task.status()).status == "cancelled"
        await asyncio.sleep(0.5)
        final = await task.status()
        assert final.status == "cancelled" and final.result is None, final
        try:
            await task.result()
        except ToolError as error:
            assert "cancelled" in str(error), error
        else:
            raise AssertionError("a cancelled task's result() did not fail")


async def question_answered_by_tasks_update(url: str) -> None:
    # The body asks only a client that declared elicitation: the handler declares it, and
    # fails the test if FastMCP ever calls it here, where the test answers by hand.
    async with Client(url, elicitation_handler=unexpected_question) as client:
        task = await call_tool_task(client, "confirm_delete", {"filename": "a.txt"})
        asked = await task.wait(state="input_required", timeout=10)
        assert sorted(asked.input_requests) == ["confirm"], asked.input_requests
        question = asked.input_requests["confirm"]
        assert question["method"] == "elicitation/create", question
        assert question["params"]["message"] == "Delete the file?", question
        assert question["params"]["requestedSchema"]["required"] == ["confirm"], question
        await update_task(client, task.task_id, {"confirm": {"action": "accept", "content": {"confirm": True}}})
        final = await task.wait(timeout=10)
        assert final.status == "completed", final
        assert text_of(final.result) == "Deleted a.txt.", final.result


async def questions_answered_by_fastmcp(url: str) -> None:
    asked = []

    async def answer(message, _response_type, _params, _context):
        asked.append(message)
        return {"Delete the file?": {"confirm": False},
                "Who are you?": {"name": "Ada"},
                "What is your name?": {"name": "Ada"},
                "Shall I go on?": {"confirm": True}}[message]

    async with Client(url, elicitation_handler=answer) as client:
        # FastMCP's handle polls, sees input_required, asks the handler and sends tasks/update.
        task = await call_tool_task(client, "confirm_delete", {"filename": "b.txt"})
        assert text_of(await task.result()) == "Kept b.txt."
        assert asked == ["Delete the file?"], asked
        # Two questions outstanding at once, answered by one tasks/update.
        task = await call_tool_task(client, "multi_input", {})
        both = await task.wait(state="input_required", timeout=10)
        for _ in range(50):  # (the two questions may be asked a moment apart)
            if len(both.input_requests or {}) == 2:
                break
            await asyncio.sleep(0.05)
            both = await task.status()
        assert sorted(both.input_requests) == ["first", "second"], both.input_requests
        text = text_of(await task.result())
        assert text == (
            'first: Elicitation completed: action=accept, content={"name":"Ada"}; '
            'second: Elicitation completed: action=accept, content={"confirm":true}'
        ), text
        assert sorted(asked[1:]) == ["Shall I go on?", "Who are you?"], asked
        # FastMCP's plain call_tool answers ask_first's round, then polls the task it made.
        asked.clear()
        greeted = await client.call_tool("test_tool_with_task", {})
        assert text_of(greeted) == "Hello, Ada!", greeted
        assert asked == ["What is your name?"], asked


async def asked_before_the_task_exists(url: str) -> None:
    """ask_first: the name is asked as an input-required round of the call itself, answered
    by calling again; only that call is answered with a task, whose body finds the answer."""
    async with Client(url, elicitation_handler=unexpected_question) as client:
        first = await client.session.call_tool(
            "test_tool_with_task", {}, allow_input_required=True, allow_claimed=True
        )
        assert first.result_type == "input_required", first
        assert sorted(first.input_requests or {}) == ["user_name"], first
        question = first.input_requests["user_name"]
        question = question if isinstance(question, dict) else question.model_dump(by_alias=True, mode="json")
        assert question["params"]["message"] == "What is your name?", question
        created = await client.session.call_tool(
            "test_tool_with_task",
            {},
            input_responses={"user_name": {"action": "accept", "content": {"name": "Grace"}}},
            request_state=first.request_state,
            allow_input_required=True,
            allow_claimed=True,
        )
        assert isinstance(created, wire.ClientCreateTaskResult), created
        task = ToolTask(client, "test_tool_with_task", created)
        final = await task.wait(timeout=10)
        assert final.status == "completed", final
        assert text_of(final.result) == "Hello, Grace!", final.result


async def unknown_task_refused(url: str) -> None:
    async with Client(url) as client:
        answers = await refusals(client, FORGED_ID)
        for method, (code, message) in answers.items():
            assert code == -32602, (method, code, message)
            assert "<id>" in message, (method, message)


async def task_request_without_mcp_name_refused(url: str) -> None:
    async with Client(url) as client:
        task = await call_tool_task(client, "slow_compute", {"seconds": 0, "label": "epsilon"})
        error = await refusal(get_task(client, task.task_id, BareGetTaskRequest))
        assert error.code == -32020 and "Mcp-Name" in error.message, error
        # The same poll with the header is answered.
        assert (await get_task(client, task.task_id)).task_id == task.task_id


FIXTURE_CASES = [
    task_created_polled_and_read,
    running_task_cancelled,
    question_answered_by_tasks_update,
    questions_answered_by_fastmcp,
    asked_before_the_task_exists,
    unknown_task_refused,
    task_request_without_mcp_name_refused,
]


async def against_fixture(*serve: str) -> None:
    async with http_server(FIXTURE, "streamable-http", *serve) as port:
        for case in FIXTURE_CASES:
            try:
                await case(f"http://127.0.0.1:{port}/mcp")
            except BaseException as error:
                raise AssertionError(f"{case.__name__}: {error!r}") from error


async def test_tasks_with_sessions() -> None:
    await against_fixture()


async def test_tasks_stateless() -> None:
    await against_fixture("--stateless")


# ---- behind [auth]: a task is its creator's ---------------------------------------------------


def token(client_id: str, secret: str, scope: str) -> str:
    import test_oauth

    answer = httpx.post(
        f"{test_oauth.ISSUER}/token",
        auth=(client_id, secret),
        data={"grant_type": "client_credentials", "scope": scope, "resource": test_oauth.RESOURCE},
    )
    answer.raise_for_status()
    return answer.json()["access_token"]


async def test_task_of_another_subject_refused_as_unknown() -> None:
    import test_oauth

    provider = test_oauth.start_provider()
    scratch = tempfile.TemporaryDirectory(prefix="harness-py-tasks-")
    audit = Path(scratch.name) / "audit.jsonl"
    server = await asyncio.to_thread(test_oauth.start_server, audit)
    url = f"http://127.0.0.1:{test_oauth.PORT}/mcp"
    try:
        owner = Client(url, auth=token("mcp-agent", "agent-secret", "mcp tools:read"))
        other = Client(url, auth=token("mcp-reader", "reader-secret", "mcp tools:read"))
        async with owner, other:
            task = await call_tool_task(owner, "export_audit", {})
            assert (await task.status()).status == "working"
            # Another subject's tasks/get, tasks/update and tasks/cancel of the real id are
            # answered exactly as those of an id no task has, for either subject.
            stolen = await refusals(other, task.task_id)
            assert stolen == await refusals(other, FORGED_ID), stolen
            assert stolen == await refusals(owner, FORGED_ID), stolen
            assert all(code == -32602 for code, _ in stolen.values()), stolen
            # The other subject's cancel did nothing; the owner's does.
            assert (await task.status()).status == "working"
            await task.cancel()
            assert (await task.status()).status == "cancelled"
            assert await refusals(other, task.task_id) == stolen
    finally:
        server.terminate()
        server.wait(timeout=10)
        provider.stdin.close()
        provider.wait(timeout=10)
    # The audit names the owner for both records of the task, and nobody else touched it.
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    scratch.cleanup()
    of_task = [record for record in records if record.get("task_id") == task.task_id]
    assert [record["outcome"] for record in of_task] == ["task_created", "cancelled"], of_task
    assert {record["subject"] for record in of_task} == {"mcp-agent"}, of_task


async def main() -> int:
    tests = [value for name, value in globals().items() if name.startswith("test_")]
    return await run_tests(tests, "tasks", timeout=120)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
