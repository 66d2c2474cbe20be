"""What a task costs against an inline call, over one keep-alive HTTP connection.

Drives a running bench-harness (stateless streamable HTTP) with sequential requests, one
phase at a time, and prints per phase the client's p50 round trip and the server's CPU per
request (the sum of its threads' run time from /proc/PID/task/*/schedstat, nanoseconds, so the
client's own overhead does not count):

- `echo`, a 2025-11-25 stateless call (the fast path);
- `echo_task` called inline by a 2026-07-28 request that does not declare the extension;
- `echo_task` as a task: the `tools/call` that creates it, then polling it with `tasks/get`
  until it reads `completed` (the creation's own figures, and one poll's);

Usage: tasks.py PORT SERVER_PID [REQUESTS]
"""

import http.client
import json
import os
import statistics
import sys
import time

TASKS = "io.modelcontextprotocol/tasks"


def server_cpu_ns(pid):
    total = 0
    for thread in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{thread}/schedstat") as stat:
                total += int(stat.read().split()[0])
        except FileNotFoundError:
            pass
    return total


class Client:
    def __init__(self, port):
        self.connection = http.client.HTTPConnection("127.0.0.1", port)
        self.next_id = 0

    def request(self, method, params, revision, declare_tasks=False, name=None):
        self.next_id += 1
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": revision,
        }
        if revision == "2026-07-28":
            capabilities = {"extensions": {TASKS: {}}} if declare_tasks else {}
            params = dict(params, _meta={
                "io.modelcontextprotocol/protocolVersion": revision,
                "io.modelcontextprotocol/clientInfo": {"name": "bench-tasks", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": capabilities,
            })
            headers["Mcp-Method"] = method
            if name:
                headers["Mcp-Name"] = name
        body = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                           "params": params})
        self.connection.request("POST", "/mcp", body, headers)
        response = self.connection.getresponse()
        text = response.read().decode()
        if response.status != 200:
            sys.exit(f"{method}: HTTP {response.status}: {text[:300]}")
        if text.startswith("{"):
            message = json.loads(text)
        else:
            message = next(json.loads(line[5:]) for line in text.splitlines()
                           if line.startswith("data:") and f'"id":{self.next_id}' in line.replace(" ", ""))
        if "error" in message:
            sys.exit(f"{method}: {message['error']}")
        return message["result"]


def phase(label, pid, count, send):
    times = []
    before = server_cpu_ns(pid)
    for _ in range(count):
        start = time.perf_counter_ns()
        send()
        times.append(time.perf_counter_ns() - start)
    cpu = (server_cpu_ns(pid) - before) / count
    return {"phase": label, "requests": count, "p50_us": statistics.median(times) / 1000,
            "server_cpu_us": cpu / 1000}


def main():
    port, pid = int(sys.argv[1]), int(sys.argv[2])
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 3000
    client = Client(port)
    message = {"message": "hello"}
    call = lambda tool: {"name": tool, "arguments": message}

    def inline_echo():
        result = client.request("tools/call", call("echo"), "2025-11-25")
        assert result["structuredContent"] == message, result

    def inline_task_tool():
        result = client.request("tools/call", call("echo_task"), "2026-07-28", name="echo_task")
        assert result.get("resultType") == "complete", result

    last_task = {}

    def create():
        result = client.request("tools/call", call("echo_task"), "2026-07-28",
                                declare_tasks=True, name="echo_task")
        assert result["resultType"] == "task", result
        last_task["id"] = result["taskId"]

    def get():
        task = client.request("tasks/get", {"taskId": last_task["id"]}, "2026-07-28",
                              declare_tasks=True, name=last_task["id"])
        assert task["status"] == "completed", task
        assert task["result"]["structuredContent"] == message, task

    for warm in (inline_echo, inline_task_tool, create, get):
        for _ in range(200):
            warm()
    rows = [
        phase("echo inline, 2025-11-25 (the fast path)", pid, count, inline_echo),
        phase("echo_task inline, 2026-07-28 without the extension", pid, count,
              inline_task_tool),
        phase("echo_task as a task: the tools/call that creates it", pid, count, create),
        phase("echo_task as a task: one tasks/get of the completed task", pid, count, get),
    ]
    # A whole task as a client lives it: create, then poll until completed.
    def whole():
        create()
        while True:
            task = client.request("tasks/get", {"taskId": last_task["id"]}, "2026-07-28",
                                  declare_tasks=True, name=last_task["id"])
            if task["status"] == "completed":
                return
    rows.append(phase("echo_task as a task: created and polled to its result", pid, count,
                      whole))
    print(f"| {'request':<62} | p50 µs | server CPU µs |")
    print(f"|{'-' * 64}|-------:|--------------:|")
    for row in rows:
        print(f"| {row['phase']:<62} | {row['p50_us']:6.0f} | {row['server_cpu_us']:13.1f} |")
        print(json.dumps(row), file=sys.stderr)


if __name__ == "__main__":
    main()
