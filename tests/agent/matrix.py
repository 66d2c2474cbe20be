"""The compatibility matrix (the chapter's exercise 5): agent x transport, each cell measured.

For Claude Code, per transport (streamable HTTP, legacy SSE, stdio): the MCP and skill
configuration is written by Harbor 0.18's own agent code (ClaudeCode's
_build_register_mcp_servers_command and _build_register_skills_command, run as Harbor runs
them), then one container with no network runs the monitor on that transport, the scripted
model (diligent) and `claude -p` with the variables Harbor's agent sets. Measured cells:
configuration written (the entry Claude Code reads, of the transport's type), server
discovered (Claude Code's init event says "connected"), tool called (the audit holds the two
ok calls the script made and the script finished), skill discovered (offered, then its body
loaded). For Codex, what Harbor's code writes is measured; the rest is "not verified", with
the reason. Run with the Harbor venv's Python (scripts/agent-trial.sh does):

    matrix.py --image IMAGE --binary MONITOR --task TASK_DIR --work DIR --out matrix.json
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from pathlib import Path

from harbor.agents.installed.claude_code import ClaudeCode
from harbor.agents.installed.codex import Codex
from harbor.models.task.config import MCPServerConfig

PORT = 8765
MODEL_PORT = 8990
SKILLS_DIR = "/opt/harbor-skills"
SERVERS = {
    "streamable-http": dict(transport="streamable-http", url=f"http://127.0.0.1:{PORT}/mcp"),
    "sse": dict(transport="sse", url=f"http://127.0.0.1:{PORT}/mcp/sse"),
    "stdio": dict(transport="stdio", command="/usr/local/bin/incident-monitor",
                  args=["serve", "--transport", "stdio", "--audit-path", "/cell/audit.jsonl"]),
}
SERVE = {
    "streamable-http": "serve --audit-path /cell/audit.jsonl",
    "sse": "serve --transport sse --audit-path /cell/audit.jsonl",
    "stdio": None,
}


def cell_script(transport: str, agent: ClaudeCode, instruction: str) -> str:
    """What runs in the cell's container: Harbor's set-up commands, the servers, the agent."""
    serve = SERVE[transport]
    lines = [
        "set -u",
        "export CLAUDE_CONFIG_DIR=/cell/sessions HOME=/cell/home",
        "mkdir -p $CLAUDE_CONFIG_DIR/skills $HOME /workspace && cd /workspace",
        # Harbor's own commands, exactly as its agent builds them.
        agent._build_register_skills_command() or "true",
        agent._build_register_mcp_servers_command() or "true",
        f"python3 /opt/scripted-model/scripted_model.py --scenario diligent --port {MODEL_PORT} "
        "--state-dir /cell/model 2>/cell/model.log &",
    ]
    if serve:
        lines.append(f"/usr/local/bin/incident-monitor {serve} 2>/cell/server.log &")
    lines += [
        # Both listening before the agent starts: wait on their ports, with a deadline.
        "for port in " + " ".join(str(p) for p in ([MODEL_PORT] + ([PORT] if serve else []))) + "; do",
        "  for _ in $(seq 1 100); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done",
        "done",
        f"ANTHROPIC_BASE_URL=http://127.0.0.1:{MODEL_PORT} ANTHROPIC_API_KEY=scripted-model-no-key "
        "ANTHROPIC_MODEL=scripted-model CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 IS_SANDBOX=1 "
        "ENABLE_TOOL_SEARCH=false timeout 300 claude --verbose --output-format=stream-json "
        f"--permission-mode=bypassPermissions --print -- {shlex.quote(instruction)} "
        ">/cell/claude.out 2>&1 </dev/null",
        "echo $? >/cell/claude.rc",
    ]
    return "\n".join(lines) + "\n"


def measure(transport: str, cell: Path) -> dict:
    config = json.loads((cell / "sessions" / ".claude.json").read_text()) if (cell / "sessions" / ".claude.json").is_file() else {}
    entry = (config.get("mcpServers") or {}).get("monitoring") or {}
    wanted = {"streamable-http": "http", "sse": "sse", "stdio": "stdio"}[transport]
    status = None
    for line in (cell / "claude.out").read_text(errors="replace").splitlines() if (cell / "claude.out").is_file() else []:
        if line.startswith("{") and '"subtype":"init"' in line:
            servers = json.loads(line).get("mcp_servers") or []
            status = next((s.get("status") for s in servers if s.get("name") == "monitoring"), None)
            break
    audit = cell / "audit.jsonl"
    outcomes = [json.loads(l)["outcome"] for l in audit.read_text().splitlines() if l] if audit.is_file() else []
    verdict = json.loads((cell / "model" / "verdict.json").read_text()) if (cell / "model" / "verdict.json").is_file() else {}
    return {
        "config_written": entry.get("type") == wanted,
        "server_discovered": status == "connected",
        "tool_called": outcomes == ["ok", "ok"] and verdict.get("finished") is True and not verdict.get("mismatches"),
        "skill_discovered": bool(verdict.get("skill_offered") and verdict.get("skill_loaded")),
        "detail": {"entry": entry, "status": status, "outcomes": outcomes,
                   "mismatches": verdict.get("mismatches", [])[:1]},
    }


def codex_cells(transport: str, logs: Path) -> dict:
    agent = Codex(logs_dir=logs, mcp_servers=[MCPServerConfig(name="monitoring", **SERVERS[transport])],
                  skills_dir=SKILLS_DIR)
    written = agent._build_register_mcp_servers_command() or ""
    reason = "not verified: needs a scripted OpenAI Responses API endpoint, which this project does not have yet"
    return {"config_written": written, "server_discovered": reason, "tool_called": reason, "skill_discovered": reason}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image", required=True)
    parser.add_argument("--binary", type=Path, required=True)
    parser.add_argument("--task", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    options = parser.parse_args()
    instruction = (options.task / "instruction.md").read_text()
    here = Path(__file__).resolve().parent
    rows, failed = {}, []
    for transport, server in SERVERS.items():
        cell = options.work / transport
        cell.mkdir(parents=True, exist_ok=True)
        cell.chmod(0o777)
        agent = ClaudeCode(logs_dir=cell, mcp_servers=[MCPServerConfig(name="monitoring", **server)],
                           skills_dir=SKILLS_DIR)
        (cell / "run.sh").write_text(cell_script(transport, agent, instruction))
        subprocess.run(["docker", "run", "--rm", "--network", "none",
                        "-v", f"{cell}:/cell", "-v", f"{here}:/opt/scripted-model:ro",
                        "-v", f"{options.binary}:/usr/local/bin/incident-monitor:ro",
                        "-v", f"{options.task / 'environment' / 'skills'}:{SKILLS_DIR}:ro",
                        options.image, "bash", "/cell/run.sh"], check=True, timeout=600)
        rows[f"claude-code/{transport}"] = measure(transport, cell)
        if not all(rows[f"claude-code/{transport}"][k] for k in ("config_written", "server_discovered", "tool_called", "skill_discovered")):
            failed.append(transport)
        rows[f"codex/{transport}"] = codex_cells(transport, cell / "codex-logs")
    options.out.write_text(json.dumps(rows, indent=2, sort_keys=True) + "\n")
    print(markdown(rows))
    if failed:
        print(f"matrix: Claude Code failed on {failed}: see {options.out}", file=sys.stderr)
    return 1 if failed else 0


def markdown(rows: dict) -> str:
    columns = ("config_written", "server_discovered", "tool_called", "skill_discovered")
    lines = ["| agent / transport | " + " | ".join(c.replace("_", " ") for c in columns) + " |",
             "|---|" + "---|" * len(columns)]
    for name, row in rows.items():
        cells = []
        for column in columns:
            value = row[column]
            if value is True:
                cells.append("yes (measured)")
            elif value is False:
                cells.append("NO (measured)")
            elif column == "config_written":
                cells.append("`" + value.split("echo ", 1)[-1].split(" >>")[0].replace("\n", " ").replace("|", "\\|") + "`")
            else:
                cells.append(value)
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
