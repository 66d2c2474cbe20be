"""The scripted model on its own: the Messages API events it streams, a mismatch failing the
turn, side requests leaving the script where it is, and the malformed stream of the fault;
in Responses API mode, the events Codex reads, its namespaced MCP call, the skill read from
the path Codex listed, and how its tool outputs are read; the compatibility matrix's
expectations (a cell that differs fails, whichever way) and its skill-over-MCP column, read
from the monitor's request log and audit. Standard library only:
`python3 tests/agent/test_scripted_model.py`."""

from __future__ import annotations

import copy
import json
import sys
import tempfile
import threading
import unittest
import urllib.error
import urllib.request
from http.server import ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import responses_api  # noqa: E402 (after the path it is found on)
import scenarios  # noqa: E402
import scripted_model  # noqa: E402

TOOLS = [{"name": name, "description": "", "input_schema": {"type": "object"}}
         for name in ("Bash", "Write", "Skill", scenarios.MCP_TOOL)]
FIRST_TURN = {
    "model": "scripted-model",
    "stream": True,
    "tools": TOOLS,
    "messages": [{"role": "user", "content": [
        {"type": "text", "text": "The following skills are available for use with the Skill tool:\n\n"
                                 "- incident-triage: Diagnose a system failure."},
        {"type": "text", "text": "# Diagnose incident 42"},
    ]}],
}


# A first request of Codex 0.171.0 (`codex exec`, Harbor's flags), cut down from one recorded
# in the matrix's streamable-HTTP cell: its shell, the monitor's namespace, the skill roots
# and the skills listed in a developer message, the task.
SKILLS = ("<skills_instructions>\n## Skills\n### Skill roots\n- `r0` = `/root/.agents/skills`\n"
          "- `r1` = `/tmp/codex-home/skills/.system`\n### Available skills\n"
          "- skill-creator: Create or update a Codex skill. (file: r1/skill-creator/SKILL.md)\n"
          "- incident-triage: Diagnose a system failure from read-only monitoring evidence. "
          "(file: r0/incident-triage/SKILL.md)\n</skills_instructions>")
CODEX_TOOLS = [
    {"type": "function", "name": "exec_command", "strict": False,
     "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}, "required": ["cmd"]}},
    {"type": "namespace", "name": "mcp__monitoring", "description": "Read-only incident monitoring.",
     "tools": [{"type": "function", "name": "get_incident_snapshot", "strict": False,
                "parameters": {"type": "object", "properties": {"incident_id": {"type": "integer"}}}}]},
]
CODEX_FIRST_TURN = {
    "model": "scripted-model",
    "stream": True,
    "tool_choice": "auto",
    "parallel_tool_calls": True,
    "tools": CODEX_TOOLS,
    "input": [
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "You are Codex."}]},
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": SKILLS}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "# Diagnose incident 42"}]},
    ],
}


def codex_turn(body: dict, call: dict, output: str) -> dict:
    """`body` continued as Codex continues it: the model's call echoed, then its output."""
    echoed = dict(call, internal_chat_message_metadata_passthrough={"turn_id": "t"})
    result = {"type": "function_call_output", "id": "fco_1", "call_id": call["call_id"], "output": output}
    return dict(body, input=body["input"] + [echoed, result])


def events_of(stream: str) -> list[tuple[str, str]]:
    """(event, data) pairs of a text/event-stream body."""
    pairs = []
    for chunk in stream.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in chunk.splitlines())
        pairs.append((fields["event"], fields["data"]))
    return pairs


class ScriptedModel(unittest.TestCase):
    def start(self, scenario: str, api: str = "messages") -> None:
        self.state = Path(tempfile.mkdtemp(prefix="scripted-model-"))
        handler = type("TestHandler", (scripted_model.Handler,), {
            "scenario": scenarios.SCENARIOS[scenario],
            "recorder": scripted_model.Recorder(self.state, scenario),
            "api": api,
            "log_message": lambda *args: None,
        })
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        # Cleanups run last first: stop serving, then close the socket.
        self.addCleanup(self.server.server_close)
        self.addCleanup(self.server.shutdown)

    def post(self, body: dict, path: str = "/v1/messages") -> tuple[int, str]:
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.server.server_port}{path}",
            data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def verdict(self) -> dict:
        return json.loads((self.state / "verdict.json").read_text())

    def test_a_turn_streams_the_messages_api_events_of_its_tool_use(self) -> None:
        self.start("diligent")
        status, body = self.post(FIRST_TURN)
        self.assertEqual(status, 200)
        events = events_of(body)
        self.assertEqual([name for name, _ in events], [
            "message_start", "content_block_start", "content_block_delta", "content_block_stop",
            "message_delta", "message_stop"])
        start = json.loads(events[1][1])["content_block"]
        self.assertEqual((start["type"], start["name"], start["id"]), ("tool_use", "Skill", "toolu_00_00"))
        self.assertEqual(json.loads(json.loads(events[2][1])["delta"]["partial_json"]), {"skill": "incident-triage"})
        self.assertEqual(json.loads(events[4][1])["delta"]["stop_reason"], "tool_use")
        verdict = self.verdict()
        self.assertEqual((verdict["turns_answered"], verdict["mismatches"], verdict["skill_offered"]), ([0], [], True))

    def test_a_mismatch_fails_the_turn_and_is_recorded(self) -> None:
        self.start("diligent")
        body = dict(FIRST_TURN, tools=[tool for tool in TOOLS if tool["name"] != scenarios.MCP_TOOL])
        status, text = self.post(body)
        self.assertEqual(status, 400)
        self.assertEqual(json.loads(text)["error"]["type"], "invalid_request_error")
        verdict = self.verdict()
        self.assertEqual(verdict["turns_answered"], [])
        self.assertIn(f"tool {scenarios.MCP_TOOL} not offered", verdict["mismatches"][0]["problem"])

    def test_a_side_request_leaves_the_script_where_it_is(self) -> None:
        self.start("diligent")
        status, body = self.post({"model": "scripted-model", "messages": [{"role": "user", "content": "title?"}]})
        self.assertEqual(status, 200)
        self.assertEqual(json.loads(body)["content"], [{"type": "text", "text": "ok"}])
        verdict = self.verdict()
        self.assertEqual((verdict["side_requests"], verdict["turns_answered"]), (1, []))

    def test_the_malformed_fault_breaks_the_event_protocol(self) -> None:
        self.start("malformed")
        status, body = self.post(FIRST_TURN)
        self.assertEqual(status, 200)
        events = events_of(body)
        # A delta for a block that was never started, then data that is not JSON.
        self.assertEqual(events[0][0], "content_block_delta")
        self.assertEqual(json.loads(events[0][1])["index"], 7)
        with self.assertRaises(json.JSONDecodeError):
            json.loads(events[1][1])


    # ---- the OpenAI Responses API (Codex) ---------------------------------------------------

    def responses(self, body: dict) -> tuple[int, list[tuple[str, dict]]]:
        status, text = self.post(body, "/v1/responses")
        return status, [(name, json.loads(data)) for name, data in events_of(text)] if status == 200 else text

    def test_a_responses_turn_reads_the_listed_skill_through_codex_shell(self) -> None:
        self.start("diligent", "responses")
        status, events = self.responses(CODEX_FIRST_TURN)
        self.assertEqual(status, 200)
        self.assertEqual([name for name, _ in events], [
            "response.created", "response.output_item.added", "response.function_call_arguments.delta",
            "response.function_call_arguments.done", "response.output_item.done", "response.completed"])
        self.assertEqual([data["sequence_number"] for _, data in events], list(range(6)))
        call = events[4][1]["item"]
        # The skill is read at the path Codex listed: root r0 expanded.
        self.assertEqual((call["type"], call["name"], call["call_id"], "namespace" in call),
                         ("function_call", "exec_command", "toolu_00_00", False))
        self.assertEqual(json.loads(call["arguments"]), {"cmd": "cat /root/.agents/skills/incident-triage/SKILL.md"})
        completed = events[5][1]["response"]
        self.assertEqual((completed["status"], completed["output"], completed["usage"]["total_tokens"]),
                         ("completed", [call], 120))
        verdict = self.verdict()
        self.assertEqual((verdict["turns_answered"], verdict["mismatches"], verdict["skill_offered"],
                          verdict["skill_loaded"]), ([0], [], True, False))

    def test_the_mcp_call_goes_to_codex_namespace_once_the_skill_was_read(self) -> None:
        self.start("diligent", "responses")
        _, events = self.responses(CODEX_FIRST_TURN)
        body = codex_turn(CODEX_FIRST_TURN, events[4][1]["item"],
                          "Process exited with code 0\nOutput:\n2. Start with the summary view, then signals.\n")
        status, events = self.responses(body)
        self.assertEqual(status, 200)
        done = [data["item"] for name, data in events if name == "response.output_item.done"]
        self.assertEqual([item["type"] for item in done], ["message", "function_call"])
        self.assertIn(("response.output_text.delta", "Summary first, as the skill says."),
                      [(name, data.get("delta")) for name, data in events])
        self.assertEqual((done[1]["namespace"], done[1]["name"], done[1]["call_id"], json.loads(done[1]["arguments"])),
                         ("mcp__monitoring", "get_incident_snapshot", "toolu_01_01", {"incident_id": 42}))
        verdict = self.verdict()
        self.assertEqual((verdict["turns_answered"], verdict["skill_loaded"]), ([0, 1], True))

    def test_a_responses_mismatch_is_an_openai_error_and_recorded(self) -> None:
        self.start("diligent", "responses")
        status, text = self.responses(dict(CODEX_FIRST_TURN, tools=CODEX_TOOLS[:1]))
        self.assertEqual(status, 400)
        self.assertEqual(json.loads(text)["error"]["type"], "invalid_request_error")
        verdict = self.verdict()
        self.assertEqual(verdict["turns_answered"], [])
        self.assertIn(f"tool {scenarios.MCP_TOOL} not offered", verdict["mismatches"][0]["problem"])

    def test_the_skill_body_counts_only_once_read_by_a_tool(self) -> None:
        # The body's line in the model's instructions is not a load: only a tool output is.
        self.start("diligent", "responses")
        _, events = self.responses(CODEX_FIRST_TURN)
        body = codex_turn(copy.deepcopy(CODEX_FIRST_TURN), events[4][1]["item"], "Process exited with code 0\nOutput:\n")
        body["input"][0]["content"][0]["text"] += " " + scenarios.SKILL_MARKER
        self.responses(body)
        self.assertFalse(self.verdict()["skill_loaded"])

    def test_the_websocket_upgrade_is_refused_with_426(self) -> None:
        self.start("diligent", "responses")
        request = urllib.request.Request(f"http://127.0.0.1:{self.server.server_port}/v1/responses",
                                         headers={"Connection": "Upgrade", "Upgrade": "websocket"})
        with self.assertRaises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        self.assertEqual(refused.exception.code, 426)

    def test_the_messages_route_is_not_served_in_responses_mode(self) -> None:
        self.start("diligent", "responses")
        status, _ = self.post(FIRST_TURN)
        self.assertEqual(status, 404)

    def test_codex_outputs_are_read_by_exit_code_and_mcp_errors_are_unknown(self) -> None:
        calls = [{"type": "function_call", "call_id": "a", "name": "exec_command", "arguments": "{}"},
                 {"type": "function_call", "call_id": "b", "name": "exec_command", "arguments": "{}"},
                 {"type": "function_call", "call_id": "c", "namespace": "mcp__monitoring",
                  "name": "get_incident_snapshot", "arguments": "{}"}]
        outputs = [{"type": "function_call_output", "call_id": "a", "output": "Process exited with code 0\nOutput:\n"},
                   {"type": "function_call_output", "call_id": "b", "output": "Process exited with code 1\nOutput:\n"},
                   {"type": "function_call_output", "call_id": "c",
                    "output": [{"type": "input_text", "text": "Output:\n{\"error_code\":\"InvalidArguments\"}"}]}]
        earlier = [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hi"}]},
                   {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go on"}]}]
        request = responses_api.ResponsesRequest(dict(CODEX_FIRST_TURN, input=CODEX_FIRST_TURN["input"] + earlier
                                                      + calls + outputs))
        self.assertEqual(request.turn(), 2)
        results = request.tool_results()
        self.assertEqual({key: value["is_error"] for key, value in results.items()}, {"a": False, "b": True, "c": None})
        self.assertIn("InvalidArguments", results["c"]["text"])
        self.assertEqual(request.skills()["incident-triage"], "/root/.agents/skills/incident-triage/SKILL.md")
        self.assertTrue(request.has_tool("Write") and request.has_tool(scenarios.MCP_TOOL))


def import_matrix():
    """tests/agent/matrix.py, with Harbor's modules stood in for when Harbor is not installed
    (its expectations need none of them)."""
    import importlib
    import types
    try:
        import harbor  # noqa: F401
    except ImportError:
        names = {"harbor.agents.installed.claude_code": "ClaudeCode", "harbor.agents.installed.codex": "Codex",
                 "harbor.environments.base": "ExecResult", "harbor.models.agent.context": "AgentContext",
                 "harbor.models.task.config": "MCPServerConfig"}
        for module, name in names.items():
            parts = module.split(".")
            for end in range(1, len(parts) + 1):
                sys.modules.setdefault(".".join(parts[:end]), types.ModuleType(".".join(parts[:end])))
            setattr(sys.modules[module], name, type(name, (), {}))
    return importlib.import_module("matrix")


class MatrixExpectations(unittest.TestCase):
    """A matrix cell whose outcome differs from its expectation fails the run, whichever way
    it changed."""

    def test_cells(self):
        matrix = import_matrix()
        # A cell that works: the skill came from the image, not over MCP.
        works = dict(dict.fromkeys(matrix.COLUMNS, True), skill_over_mcp=False)
        broken = {"config_written": False, "server_discovered": False, "tool_called": False,
                  "skill_discovered": "listed to the model (measured); loading not reached (the script stopped)",
                  "skill_over_mcp": False}
        # Every cell of both agents is expected to work.
        for transport in matrix.SERVERS:
            self.assertIsNone(matrix.changed(f"codex/{transport}", works, matrix.CODEX_EXPECTED_CELLS[transport]))
            self.assertIsNone(matrix.changed(f"claude-code/{transport}", works, matrix.WORKS))
        # A cell expected not to work that now works fails, naming the cell and both sides.
        expected_broken = {"config_written": "no", "server_discovered": "no", "tool_called": "no", "skill_discovered": "listed",
                           "skill_over_mcp": "no"}
        self.assertIsNone(matrix.changed("codex/stdio", broken, expected_broken))
        message = matrix.changed("codex/stdio", works, expected_broken)
        self.assertIn("codex/stdio: expected config written no", message)
        self.assertIn("got config written yes", message)
        # So does one that works in part now, and one expected to work that stopped.
        self.assertIn("differs in: config written", matrix.changed("codex/sse", dict(broken, config_written=True),
                                                                   expected_broken))
        self.assertIn("differs in: tool called", matrix.changed("codex/sse", dict(works, tool_called=False),
                                                                matrix.CODEX_EXPECTED_CELLS["sse"]))
        self.assertIn("skill discovered no", matrix.changed("claude-code/sse", dict(works, skill_discovered=False),
                                                            matrix.WORKS))
        # An agent that starts to fetch the skill over MCP fails its cell, either agent.
        for name, expected in (("claude-code/streamable-http", matrix.WORKS),
                               ("codex/streamable-http", matrix.CODEX_EXPECTED_CELLS["streamable-http"])):
            message = matrix.changed(name, dict(works, skill_over_mcp=True), expected)
            self.assertIn("differs in: skill over mcp", message)
            self.assertIn("got config written yes, server discovered yes, tool called yes, skill discovered yes, "
                          "skill over mcp yes", message)


# As the monitor logs them under RUST_LOG=rmcp::service=debug (rmcp 3.11), and as it audits a read.
LOGGED = "2026-12-06T23:28:51.315659Z DEBUG serve_inner: rmcp::service: received request id={id} request={request}\n"
DISCOVER = LOGGED.format(id="server-discover-probe-1", request="DiscoverRequest(Request { method: DiscoverRequestMethod })")
TOOLS_LIST = LOGGED.format(id=1, request="ListToolsRequest(RequestOptionalParam { method: ListToolsRequestMethod })")
CALL = LOGGED.format(id=2, request='CallToolRequest(Request { method: CallToolRequestMethod, params: '
                                   'CallToolRequestParams { name: "get_incident_snapshot" } })')
READ_SKILL = LOGGED.format(id=7, request='ReadResourceRequest(Request { method: ReadResourceRequestMethod, params: '
                                         'ReadResourceRequestParams { meta: None, uri: "skill://incident-triage/SKILL.md" } })')
READ_OTHER = LOGGED.format(id=8, request='ReadResourceRequest(Request { method: ReadResourceRequestMethod, params: '
                                         'ReadResourceRequestParams { meta: None, uri: "monitor://incidents/42" } })')
LIST_SKILLS = LOGGED.format(id=3, request="ListSkillsRequest(RequestOptionalParam { method: ListSkillsRequestMethod })")
TOOL_RECORD = {"args_sha256": "1d84", "call_id": "1", "duration_ms": 21, "outcome": "ok", "schema_version": 1,
               "timestamp": "2026-12-06T23:27:50.059201Z", "tool": "get_incident_snapshot"}
SKILL_READ_RECORD = dict(TOOL_RECORD, method="resources/read", tool="skill://incident-triage/SKILL.md")


class SkillOverMcp(unittest.TestCase):
    """The matrix's skill-over-MCP column reads the monitor's request log and audit."""

    def measure(self, transport: str, log: str | None, records: list[dict]) -> tuple[object, dict]:
        matrix = import_matrix()
        with tempfile.TemporaryDirectory() as directory:
            cell = Path(directory)
            if log is not None:
                (cell / "server.log").write_text(log)
            return matrix.skill_over_mcp(transport, cell, records)

    def test_an_agent_that_lists_tools_and_calls_them_got_no_skill_over_mcp(self) -> None:
        value, detail = self.measure("streamable-http", DISCOVER + TOOLS_LIST + CALL + READ_OTHER, [TOOL_RECORD])
        self.assertIs(value, False)
        self.assertEqual(detail["requests_received"], ["CallToolRequest", "DiscoverRequest", "ListToolsRequest",
                                                       "ReadResourceRequest"])
        self.assertEqual(detail["skill_requests"], [])

    def test_skills_list_or_a_skill_read_is_a_skill_over_mcp(self) -> None:
        self.assertIs(self.measure("sse", DISCOVER + LIST_SKILLS, [])[0], True)
        value, detail = self.measure("streamable-http", DISCOVER + READ_SKILL, [TOOL_RECORD, SKILL_READ_RECORD])
        self.assertIs(value, True)
        self.assertEqual(detail["skill_requests"], ["ReadResourceRequest"])
        self.assertEqual(detail["skill_reads_in_audit"], ["skill://incident-triage/SKILL.md"])

    def test_stdio_is_measured_by_the_audit_alone(self) -> None:
        self.assertIs(self.measure("stdio", None, [TOOL_RECORD])[0], False)
        self.assertIs(self.measure("stdio", None, [TOOL_RECORD, SKILL_READ_RECORD])[0], True)

    def test_an_empty_request_log_measures_nothing(self) -> None:
        self.assertTrue(str(self.measure("streamable-http", "", [TOOL_RECORD])[0]).startswith("not measured"))

    def test_tool_outcomes_leave_the_skill_reads_out(self) -> None:
        self.assertEqual(import_matrix().tool_outcomes([TOOL_RECORD, SKILL_READ_RECORD, TOOL_RECORD]), ["ok", "ok"])

if __name__ == "__main__":
    unittest.main(verbosity=2)
