"""The scripted model on its own: the Messages API events it streams, a mismatch failing the
turn, side requests leaving the script where it is, and the malformed stream of the fault.
Standard library only: `python3 tests/agent/test_scripted_model.py`."""

from __future__ import annotations

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

import scenarios  # noqa: E402 (after the path it is found on)
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


def events_of(stream: str) -> list[tuple[str, str]]:
    """(event, data) pairs of a text/event-stream body."""
    pairs = []
    for chunk in stream.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in chunk.splitlines())
        pairs.append((fields["event"], fields["data"]))
    return pairs


class ScriptedModel(unittest.TestCase):
    def start(self, scenario: str) -> None:
        self.state = Path(tempfile.mkdtemp(prefix="scripted-model-"))
        handler = type("TestHandler", (scripted_model.Handler,), {
            "scenario": scenarios.SCENARIOS[scenario],
            "recorder": scripted_model.Recorder(self.state, scenario),
            "log_message": lambda *args: None,
        })
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        # Cleanups run last first: stop serving, then close the socket.
        self.addCleanup(self.server.server_close)
        self.addCleanup(self.server.shutdown)

    def post(self, body: dict) -> tuple[int, str]:
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.server.server_port}/v1/messages",
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


if __name__ == "__main__":
    unittest.main(verbosity=2)
