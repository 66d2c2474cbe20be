"""A scripted model (Anthropic Messages API or OpenAI Responses API): the model of a real agent trial.

`--api messages` (the default): Claude Code talks to it through ANTHROPIC_BASE_URL exactly
as it talks to the real API (POST /v1/messages, streaming or not, and
/v1/messages/count_tokens). `--api responses`: Codex CLI talks to it through its
openai_base_url (POST /v1/responses, streamed; responses_api.py reads and answers it). Each
answer comes from a scenario (scenarios.py): a list of turns, each of which first checks
what the agent sent (the tools offered, the skill, the previous tool results) and then
answers with text or tool calls. The turn is the number of earlier model responses in the
conversation, so a retried request gets the same answer and side requests (titles, quota
checks: no tools offered) never advance the script.

A mismatch ends the trial as failed: it is recorded in the verdict file and answered with
an invalid_request_error, so the agent stops. The verdict file (JSON, rewritten after every
request) says which turns ran, every mismatch, and whether the script finished. Standard
library only; deterministic (no clocks or randomness in what it answers).

    python3 scripted_model.py --scenario diligent --port 8990 --state-dir /state [--api responses]
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import responses_api
import scenarios


class Recorder:
    """The verdict and the request log, written under one lock."""

    def __init__(self, state_dir: Path, scenario: str) -> None:
        self.state_dir = state_dir
        self.lock = threading.Lock()
        self.verdict = {
            "scenario": scenario,
            "turns_answered": [],
            "side_requests": 0,
            "mismatches": [],
            "finished": False,
            "skill_offered": False,
            "skill_loaded": False,
            "agent_headers": {},
        }
        state_dir.mkdir(parents=True, exist_ok=True)
        (state_dir / "requests.jsonl").write_text("", encoding="utf-8")
        self._write()

    def request(self, path: str, headers: dict[str, str], body: object) -> None:
        with self.lock:
            with open(self.state_dir / "requests.jsonl", "a", encoding="utf-8") as log:
                log.write(json.dumps({"path": path, "body": body}, sort_keys=True) + "\n")
            for name in ("user-agent", "x-app", "anthropic-version", "originator"):
                if name in headers:
                    self.verdict["agent_headers"][name] = headers[name]

    def update(self, **changes: object) -> None:
        with self.lock:
            for key, value in changes.items():
                if isinstance(self.verdict.get(key), list):
                    self.verdict[key].append(value)
                elif key == "side_requests":
                    self.verdict[key] += 1
                else:
                    self.verdict[key] = value
            self._write()

    def _write(self) -> None:
        path = self.state_dir / "verdict.json"
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(self.verdict, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        temporary.replace(path)


def sse_events(message: dict) -> list[tuple[str, dict]]:
    """The stream of Messages API events that carries `message`."""
    start = dict(message, content=[], stop_reason=None, stop_sequence=None)
    start["usage"] = {"input_tokens": message["usage"]["input_tokens"], "output_tokens": 1}
    events = [("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                                   "content_block": {"type": "text", "text": ""}}))
            events.append(("content_block_delta", {"type": "content_block_delta", "index": index,
                                                   "delta": {"type": "text_delta", "text": block["text"]}}))
        else:
            events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                                   "content_block": dict(block, input={})}))
            events.append(("content_block_delta", {"type": "content_block_delta", "index": index,
                                                   "delta": {"type": "input_json_delta",
                                                             "partial_json": json.dumps(block["input"])}}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                                     "usage": {"output_tokens": message["usage"]["output_tokens"]}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def message_of(blocks: list[dict], model: str, turn: str) -> dict:
    """A whole Messages API response with deterministic ids."""
    content = []
    for index, block in enumerate(blocks):
        if block["type"] == "tool_use":
            block = dict(block, id=block.get("id") or f"toolu_{turn}_{index:02d}")
        content.append(block)
    stop = "tool_use" if any(block["type"] == "tool_use" for block in content) else "end_turn"
    return {
        "id": f"msg_scripted_{turn}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 100, "output_tokens": 20},
    }


class Handler(BaseHTTPRequestHandler):
    server_version = "scripted-model/1"
    protocol_version = "HTTP/1.1"
    recorder: Recorder
    scenario: scenarios.Scenario
    api = "messages"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base's name)
        sys.stderr.write("scripted-model: " + format % args + "\n")

    def do_GET(self) -> None:  # noqa: N802 (the base's name)
        if self.api == "responses" and self.path.split("?", 1)[0] == "/v1/responses":
            # Codex tries the Responses WebSocket first. 426 makes it fall back to HTTP at
            # once; a 404 costs it five reconnects (about 6 s) before the same fallback.
            self._json(426, responses_api.error_body("invalid_request_error", "no WebSocket here: POST /v1/responses"))
        elif self.path.rstrip("/") in ("", "/health"):
            self._json(200, {"status": "ok", "scenario": self.scenario.name})
        else:
            self._json(404, self._error("not_found_error", f"no route {self.path}"))

    def do_HEAD(self) -> None:  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._json(400, self._error("invalid_request_error", "body is not JSON"))
            return
        path = self.path.split("?", 1)[0]
        self.recorder.request(path, {k.lower(): v for k, v in self.headers.items()}, body)
        if self.api == "messages" and path == "/v1/messages/count_tokens":
            self._json(200, {"input_tokens": max(1, len(raw) // 4)})
        elif self.api == "messages" and path == "/v1/messages":
            self._turn(scenarios.Request(body), body)
        elif self.api == "responses" and path == "/v1/responses":
            self._turn(responses_api.ResponsesRequest(body), body)
        else:
            self._json(404, self._error("not_found_error", f"no route {path}"))

    def _turn(self, request: scenarios.Request | responses_api.ResponsesRequest, body: dict) -> None:
        if not request.is_agent_turn():
            # A side request (a title, a quota probe): a fixed answer, the script unmoved.
            self.recorder.update(side_requests=1)
            self._answer(body, request, [{"type": "text", "text": "ok"}], "side")
            return
        if request.offers_skill(self.scenario.skill):
            self.recorder.update(skill_offered=True)
        if request.skill_body_seen(self.scenario.skill_marker):
            self.recorder.update(skill_loaded=True)
        index = request.turn()
        if index >= len(self.scenario.turns):
            problem = f"turn {index}: the script has only {len(self.scenario.turns)} turns"
            self._mismatch(index, problem)
            return
        turn = self.scenario.turns[index]
        problems = turn.check(request)
        answer = None
        if not problems and not turn.malformed:
            try:
                answer = self._prepare(body, request, turn.answer(request), f"{index:02d}")
            except responses_api.Unanswerable as problem:
                problems = [str(problem)]
        if problems:
            self._mismatch(index, "; ".join(problems))
            return
        self.recorder.update(turns_answered=index)
        if index == len(self.scenario.turns) - 1:
            self.recorder.update(finished=True)
        if turn.hold:
            self._hold()
        if turn.malformed:
            self._malformed()
            return
        self._send(body, answer)

    def _prepare(self, body: dict, request: object, blocks: list[dict], turn: str) -> dict:
        """The whole response to `blocks`, in this server's API."""
        model = body.get("model", "scripted")
        if self.api == "responses":
            return responses_api.response_of(responses_api.output_items(blocks, request, turn), model, turn)
        return message_of(blocks, model, turn)

    def _answer(self, body: dict, request: object, blocks: list[dict], turn: str) -> None:
        self._send(body, self._prepare(body, request, blocks, turn))

    def _error(self, kind: str, message: str) -> dict:
        return responses_api.error_body(kind, message) if self.api == "responses" else error_body(kind, message)

    def _hold(self, deadline_seconds: float = 300) -> None:
        state = self.recorder.state_dir
        (state / "hold.waiting").write_text("", encoding="utf-8")
        waited = 0.0
        while not (state / "hold.go").exists() and waited < deadline_seconds:
            time.sleep(0.1)
            waited += 0.1

    def _mismatch(self, index: int, problem: str) -> None:
        sys.stderr.write(f"scripted-model: MISMATCH at turn {index}: {problem}\n")
        self.recorder.update(mismatches={"turn": index, "problem": problem})
        self._json(400, self._error("invalid_request_error", f"scripted model: turn {index}: {problem}"))

    def _send(self, body: dict, message: dict) -> None:
        if not body.get("stream"):
            self._json(200, message)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        events = responses_api.sse_events(message) if self.api == "responses" else sse_events(message)
        for event, data in events:
            self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()
        self.close_connection = True

    def _malformed(self) -> None:
        """A stream that breaks the protocol (Messages: a delta for a block never started, then
        junk; Responses: responses_api.MALFORMED)."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        if self.api == "responses":
            self.wfile.write(responses_api.MALFORMED)
        else:
            self.wfile.write(b'event: content_block_delta\ndata: {"type":"content_block_delta","index":7,'
                             b'"delta":{"type":"input_json_delta","partial_json":"{\\"incid"}}\n\n')
            self.wfile.write(b"event: message_start\ndata: {not json\n\n")
        self.wfile.flush()
        self.close_connection = True

    def _json(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def error_body(kind: str, message: str) -> dict:
    return {"type": "error", "error": {"type": kind, "message": message}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", required=True, choices=sorted(scenarios.SCENARIOS))
    parser.add_argument("--bind", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8990)
    parser.add_argument("--state-dir", type=Path, required=True)
    parser.add_argument("--api", choices=("messages", "responses"), default="messages",
                        help="messages: Anthropic's, for Claude Code; responses: OpenAI's, for Codex")
    options = parser.parse_args()
    Handler.api = options.api
    Handler.scenario = scenarios.SCENARIOS[options.scenario]
    Handler.recorder = Recorder(options.state_dir, options.scenario)
    server = ThreadingHTTPServer((options.bind, options.port), Handler)
    sys.stderr.write(f"scripted-model: {options.scenario} ({options.api}) on {options.bind}:{options.port}\n")
    server.serve_forever()


if __name__ == "__main__":
    main()
