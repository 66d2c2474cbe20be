"""The scripted model's OpenAI Responses API side: how Codex CLI's requests are read and answered.

The scenarios (scenarios.py) are written in Claude Code's vocabulary; this module reads a
`POST /v1/responses` body behind the methods the scenarios' checks call (ResponsesRequest)
and maps each answer block onto the tools Codex offers (output_items), then streams it as
the Responses API does (sse_events). What Codex 0.171.0 does, measured against this server:

- it offers an MCP server's tools as a `namespace` tool named `mcp__SERVER` whose `tools`
  are the server's, and calls one with a function_call that carries `namespace` and the
  bare tool name (a flat `mcp__SERVER__TOOL` name is refused: "unsupported call"); flattened
  with `__`, its name is Claude Code's, so the scenarios' MCP_TOOL needs no translation;
- it has no Skill, Write or Bash tool: its shell tool (`exec_command`, which Harbor's
  `--enable unified_exec` selects) reads and writes files, and it lists skills by name,
  description and path in a developer message (`<skills_instructions>`) for the model to
  read with that shell;
- a function_call_output is text: an exec's output starts with its exit code ("Process
  exited with code N"); an MCP result is its text with the wall time, and its `isError` is
  not sent to the model at all (so an MCP result's error flag reads None here).

Standard library only, deterministic: ids come from the turn and the block's index.
"""

from __future__ import annotations

import json
import re
import shlex

import scenarios

SHELL = "exec_command"
# What stands in, in Codex, for the Claude Code tools the scenarios use.
STANDS_IN = {"Skill": SHELL, "Write": SHELL, "Bash": SHELL}
# Output items the model produced: a run of them in `input` is one earlier response.
MODEL_ITEMS = {"function_call", "custom_tool_call", "local_shell_call", "reasoning", "web_search_call"}
USAGE = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 20,
         "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 120}


class Unanswerable(Exception):
    """A block the request gives no way to express (e.g. a skill Codex did not list)."""


def is_model_item(item: dict) -> bool:
    return item.get("type") in MODEL_ITEMS or (item.get("type") == "message" and item.get("role") == "assistant")


class ResponsesRequest:
    """One POST /v1/responses body, read the way the scenarios' checks need it."""

    def __init__(self, body: dict) -> None:
        self.body = body
        self.items = [item for item in body.get("input") or [] if isinstance(item, dict)]
        self.tools: dict[str, dict] = {}
        for tool in body.get("tools") or []:
            if not isinstance(tool, dict):
                continue
            if tool.get("type") == "namespace":
                for inner in tool.get("tools") or []:
                    if isinstance(inner, dict):
                        self.tools[f"{tool.get('name')}__{inner.get('name')}"] = inner
            elif tool.get("name"):
                self.tools[tool["name"]] = tool

    def is_agent_turn(self) -> bool:
        # The agent loop always offers its shell; a side request (none seen yet) would not.
        return SHELL in self.tools

    def has_tool(self, name: str) -> bool:
        return STANDS_IN.get(name, name) in self.tools

    def _starts(self) -> list[int]:
        """Where each earlier response's run of output items starts in `input`."""
        return [i for i, item in enumerate(self.items)
                if is_model_item(item) and (i == 0 or not is_model_item(self.items[i - 1]))]

    def turn(self) -> int:
        return len(self._starts())

    def text(self) -> str:
        return json.dumps({"instructions": self.body.get("instructions"), "input": self.items})

    def skills(self) -> dict[str, str]:
        """The skills Codex listed, by name, with the absolute path of each SKILL.md."""
        listed: dict[str, str] = {}
        for item in self.items:
            if item.get("type") != "message" or item.get("role") != "developer":
                continue
            for part in item.get("content") or []:
                text = part.get("text", "") if isinstance(part, dict) else ""
                block = re.search(r"<skills_instructions>(.*?)</skills_instructions>", text, re.S)
                if not block:
                    continue
                roots = dict(re.findall(r"^- `(\w+)` = `([^`]+)`$", block.group(1), re.M))
                for name, path in re.findall(r"^- ([^:\n]+): .*\(file: ([^)\n]+)\)$", block.group(1), re.M):
                    root, _, rest = path.partition("/")
                    listed[name] = f"{roots[root]}/{rest}" if root in roots else path
        return listed

    def offers_skill(self, skill: str) -> bool:
        return skill in self.skills()

    def skill_body_seen(self, marker: str) -> bool:
        # Only a tool's output counts: the body reached the model because it was read.
        return any(marker in scenarios.flatten(item.get("output")) for item in self.items
                   if item.get("type") == "function_call_output")

    def tool_results(self) -> dict[str, dict]:
        """The outputs of the last response's calls, by call_id, text flattened."""
        starts = self._starts()
        if not starts:
            return {}
        tail = self.items[starts[-1]:]
        names = {item.get("call_id"): item.get("name") for item in tail if item.get("type") == "function_call"}
        results = {}
        for item in tail:
            if item.get("type") != "function_call_output":
                continue
            text = scenarios.flatten(item.get("output"))
            error = None
            if names.get(item.get("call_id")) == SHELL:
                code = re.search(r"^Process exited with code (-?\d+)$", text, re.M)
                error = None if code is None else code.group(1) != "0"
            elif text.startswith("unsupported call"):
                error = True
            results[item.get("call_id")] = {"is_error": error, "text": text}
        return results


def codex_call(block: dict, request: ResponsesRequest) -> tuple[str | None, str, dict]:
    """(namespace, name, arguments) of the Codex call that does what `block` asks."""
    name, arguments = block["name"], block["input"]
    if name.startswith("mcp__"):
        namespace, _, tool = name.rpartition("__")
        return namespace, tool, arguments
    if name == "Skill":
        path = request.skills().get(arguments["skill"])
        if path is None:
            raise Unanswerable(f"skill {arguments['skill']} is not listed, so it has no path to read")
        return None, SHELL, {"cmd": f"cat {shlex.quote(path)}"}
    if name == "Write":
        return None, SHELL, {"cmd": f"printf '%s' {shlex.quote(arguments['content'])} > {shlex.quote(arguments['file_path'])}"}
    if name == "Bash":
        return None, SHELL, {"cmd": arguments["command"]}
    raise Unanswerable(f"no Codex tool stands in for {name}")


def output_items(blocks: list[dict], request: ResponsesRequest, turn: str) -> list[dict]:
    """The response's output items; a call's call_id is the scenario's (toolu_TURN_INDEX)."""
    items = []
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            items.append({"type": "message", "id": f"msg_scripted_{turn}_{index:02d}", "role": "assistant",
                          "status": "completed",
                          "content": [{"type": "output_text", "text": block["text"], "annotations": []}]})
            continue
        namespace, name, arguments = codex_call(block, request)
        item = {"type": "function_call", "id": f"fc_scripted_{turn}_{index:02d}",
                "call_id": block.get("id") or f"toolu_{turn}_{index:02d}", "name": name,
                "arguments": json.dumps(arguments), "status": "completed"}
        if namespace:
            item["namespace"] = namespace
        items.append(item)
    return items


def response_of(items: list[dict], model: str, turn: str) -> dict:
    return {"id": f"resp_scripted_{turn}", "object": "response", "created_at": 0, "status": "completed",
            "model": model, "output": items, "usage": USAGE}


def sse_events(response: dict) -> list[tuple[str, dict]]:
    """The stream of Responses API events that carries `response`."""
    events: list[tuple[str, dict]] = []

    def emit(kind: str, **fields: object) -> None:
        events.append((kind, {"type": kind, "sequence_number": len(events), **fields}))

    emit("response.created", response=dict(response, status="in_progress", output=[], usage=None))
    for index, item in enumerate(response["output"]):
        if item["type"] == "message":
            emit("response.output_item.added", output_index=index, item=dict(item, status="in_progress", content=[]))
            for part, content in enumerate(item["content"]):
                emit("response.content_part.added", item_id=item["id"], output_index=index, content_index=part,
                     part=dict(content, text=""))
                emit("response.output_text.delta", item_id=item["id"], output_index=index, content_index=part,
                     delta=content["text"])
                emit("response.output_text.done", item_id=item["id"], output_index=index, content_index=part,
                     text=content["text"])
                emit("response.content_part.done", item_id=item["id"], output_index=index, content_index=part,
                     part=content)
        else:
            emit("response.output_item.added", output_index=index, item=dict(item, status="in_progress", arguments=""))
            emit("response.function_call_arguments.delta", item_id=item["id"], output_index=index,
                 delta=item["arguments"])
            emit("response.function_call_arguments.done", item_id=item["id"], output_index=index,
                 arguments=item["arguments"])
        emit("response.output_item.done", output_index=index, item=item)
    emit("response.completed", response=response)
    return events


def error_body(kind: str, message: str) -> dict:
    return {"error": {"type": kind, "message": message, "param": None, "code": None}}


# A stream that breaks the protocol: an item that is not JSON, and no response.completed.
MALFORMED = (b'event: response.created\ndata: {"type":"response.created","response":{"id":"resp_bad"}}\n\n'
             b"event: response.output_item.done\ndata: {not json\n\n")
