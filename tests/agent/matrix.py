"""The compatibility matrix (the chapter's exercise 5): agent x transport, each cell measured.

For Claude Code, per transport (streamable HTTP, legacy SSE, stdio): the MCP and skill
configuration is written by Harbor 0.18's own agent code (ClaudeCode's
_build_register_mcp_servers_command and _build_register_skills_command, run as Harbor runs
them), then one container with no network runs the monitor on that transport, the scripted
model (diligent) and `claude -p` with the variables Harbor's agent sets. Measured cells:
configuration written (the entry Claude Code reads, of the transport's type), server
discovered (Claude Code's init event says "connected"), tool called (the audit holds the two
ok calls the script made and the script finished), skill discovered (offered, then its body
loaded).

For Codex (its own image, --codex-image), per transport: Harbor's Codex.run itself runs
against a recording stand-in for Harbor's environment, so every command it would exec (the
directories, auth.json, openai_base_url, the skills into $HOME/.agents/skills, the MCP
servers into $CODEX_HOME/config.toml, `codex exec ...`, the session copy, the clean-up) and
its environment are Harbor's own; one container with no network replays them in order, with
the monitor on that transport and the scripted model in Responses API mode. Measured cells:
configuration written (the entry Codex reads holds what the server needs: its url, or its
command and args), server discovered (the model's first request offers the monitor's tool in
Codex's `mcp__monitoring` namespace), tool called and skill discovered as for Claude Code.
CODEX_EXPECTED says which cells are expected to work, and why the others are not;
CODEX_EXPECTED_CELLS what each column of a cell that does not work is expected to measure.

One more column, for both agents: skill over MCP, whether the agent also asked the server for
the skill (the extension io.modelcontextprotocol/skills, which the monitor declares on
2026-07-28 connections): `skills/list`, `skills/get`, `resources/directory/read`, or a
`resources/read` of a `skill://` URI. Measured on the server's side: its request log (the
monitor runs with RUST_LOG=rmcp::service=debug, which logs every request it receives) on the
HTTP transports, and its audit (every `resources/read` is audited) on all three. Expected no for
both pinned agents (docs/src/guides/skills.md says why, and how it was measured with the
flags on); an agent that starts fetching skills over MCP fails the run, so the expectation
and the docs get corrected.

The exit status is 1 when any cell's outcome differs from its expectation: a Claude Code
cell that is not yes in every column but no in skill over MCP (WORKS), a Codex cell that is not what CODEX_EXPECTED_CELLS
says (one that starts to work included: the expectation is then corrected, not the cell
passed); each such cell is named on stderr with what was expected and what was measured.
Run with the Harbor venv's Python (scripts/agent-trial.sh does):

    matrix.py --image IMAGE --codex-image IMAGE --binary MONITOR --task TASK_DIR --work DIR --out matrix.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

from harbor.agents.installed.claude_code import ClaudeCode
from harbor.agents.installed.codex import Codex
from harbor.environments.base import ExecResult
from harbor.models.agent.context import AgentContext
from harbor.models.task.config import MCPServerConfig

sys.path.insert(0, str(Path(__file__).resolve().parent))
import responses_api  # noqa: E402 (after the path it is found on)
import scenarios  # noqa: E402

PORT = 8765
MODEL_PORT = 8990
SKILLS_DIR = "/opt/harbor-skills"
MONITOR = "/usr/local/bin/incident-monitor"
# The monitor's stdio launcher (the same binary under a name ending in -stdio, as a bundle
# links it): no arguments, the manifest's audit path, which is in MONITOR_LOG.
LAUNCHER = f"{MONITOR}-stdio"
MONITOR_LOG = "/var/log/monitor-mcp"
SERVERS = {
    "streamable-http": dict(transport="streamable-http", url=f"http://127.0.0.1:{PORT}/mcp"),
    "sse": dict(transport="sse", url=f"http://127.0.0.1:{PORT}/mcp/sse"),
    "stdio": dict(transport="stdio", command=LAUNCHER, args=[]),
}
SERVE = {
    "streamable-http": "serve --audit-path /cell/audit.jsonl",
    "sse": "serve --transport sse --audit-path /cell/audit.jsonl",
    "stdio": None,
}
# rmcp logs every request the monitor receives at debug (`received request id=.. request=KIND(..)`):
# the HTTP cells' request log. (A stdio server is the agent's child, its stderr the agent's.)
REQUEST_LOG = "RUST_LOG=rmcp::service=debug"
COLUMNS = ("config_written", "server_discovered", "tool_called", "skill_discovered", "skill_over_mcp")
# The requests of the skills extension, as rmcp names them in its request log.
SKILL_REQUESTS = ("ListSkillsRequest", "GetSkillRequest", "ReadResourceDirectoryRequest")
# Main's workdir (task.toml), where Harbor's docker environment runs every exec.
WORKDIR = "/workspace"
# Which Codex cells should work, and, for the others, why not (read from the code, then
# measured: a cell that starts working fails the run, so the expectation gets corrected).
CODEX_EXPECTED = {
    "streamable-http": True,
    "sse": True,
    "stdio": True,
}
# Each column's expected outcome, per Codex transport: "yes", "no", or "listed" (the skill
# was listed to the model, whose script stopped before the turn that loads it). As measured
# on Codex 0.171.0 with Harbor 0.18 (README, the compatibility matrix).
# A cell that works: every column yes, but skill over MCP no: neither pinned agent asks an MCP
# server for skills in a Harbor trial (Claude Code 2.1.332 not in print mode, whatever its
# flag; Codex 0.171.0 not at all), so the skill comes from the image (measured;
# docs/src/guides/skills.md).
WORKS = {**dict.fromkeys(COLUMNS, "yes"), "skill_over_mcp": "no"}
CODEX_EXPECTED_CELLS = {
    "streamable-http": WORKS,
    "sse": WORKS,
    "stdio": WORKS,
}


def audit_file(transport: str, cell: Path) -> Path:
    """Where the cell's audit is: the launcher writes the manifest's path, mounted from the cell."""
    return cell / "monitor-log" / "audit.jsonl" if transport == "stdio" else cell / "audit.jsonl"


def mounts(cell: Path, options: argparse.Namespace) -> list[str]:
    """The monitor (and its launcher) and the directory of the manifest's audit path."""
    log = cell / "monitor-log"
    log.mkdir(exist_ok=True)
    log.chmod(0o777)
    return ["-v", f"{options.binary}:{MONITOR}:ro", "-v", f"{options.binary}:{LAUNCHER}:ro",
            "-v", f"{log}:{MONITOR_LOG}"]


def outcome(value: object) -> str:
    """A measured column as the expectations spell it."""
    if value is True:
        return "yes"
    if value is False:
        return "no"
    if isinstance(value, str) and value.startswith("listed to the model"):
        return "listed"
    return f"other: {value}"


def changed(name: str, row: dict, expected: dict[str, str]) -> str | None:
    """None when every column of the cell measured what was expected; otherwise the message
    naming the cell, what was expected and what was measured."""
    got = {column: outcome(row[column]) for column in COLUMNS}
    if got == expected:
        return None
    spell = lambda cells: ", ".join(f"{column.replace('_', ' ')} {cells[column]}" for column in COLUMNS)  # noqa: E731
    differs = [column.replace("_", " ") for column in COLUMNS if got[column] != expected[column]]
    return f"{name}: expected {spell(expected)}; got {spell(got)} (differs in: {', '.join(differs)})"


def servers_lines(transport: str, api: str) -> list[str]:
    """The scripted model (speaking `api`) and, on an HTTP transport, the monitor, in the
    background; then both listening before the agent starts: each port waited on, with a
    deadline."""
    serve = SERVE[transport]
    lines = [
        f"python3 /opt/scripted-model/scripted_model.py --api {api} --scenario diligent --port {MODEL_PORT} "
        "--state-dir /cell/model 2>/cell/model.log &",
    ]
    if serve:
        lines.append(f"{REQUEST_LOG} {MONITOR} {serve} 2>/cell/server.log &")
    return lines + [
        "for port in " + " ".join(str(p) for p in ([MODEL_PORT] + ([PORT] if serve else []))) + "; do",
        "  for _ in $(seq 1 100); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done",
        "done",
    ]


def cell_script(transport: str, agent: ClaudeCode, instruction: str) -> str:
    """What runs in the cell's container: Harbor's set-up commands, the servers, the agent."""
    lines = [
        "set -u",
        "export CLAUDE_CONFIG_DIR=/cell/sessions HOME=/cell/home",
        "mkdir -p $CLAUDE_CONFIG_DIR/skills $HOME /workspace && cd /workspace",
        # Harbor's own commands, exactly as its agent builds them.
        agent._build_register_skills_command() or "true",
        agent._build_register_mcp_servers_command() or "true",
        *servers_lines(transport, "messages"),
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
    records = audit_records(audit_file(transport, cell))
    outcomes = tool_outcomes(records)
    verdict = json.loads((cell / "model" / "verdict.json").read_text()) if (cell / "model" / "verdict.json").is_file() else {}
    over_mcp, over_mcp_detail = skill_over_mcp(transport, cell, records)
    return {
        "config_written": entry.get("type") == wanted,
        "server_discovered": status == "connected",
        "tool_called": outcomes == ["ok", "ok"] and verdict.get("finished") is True and not verdict.get("mismatches"),
        "skill_discovered": bool(verdict.get("skill_offered") and verdict.get("skill_loaded")),
        "skill_over_mcp": over_mcp,
        "detail": {"entry": entry, "status": status, "outcomes": outcomes, "skill_over_mcp": over_mcp_detail,
                   "mismatches": verdict.get("mismatches", [])[:1]},
    }


def audit_records(path: Path) -> list[dict]:
    return [json.loads(line) for line in read_text(path).splitlines() if line]


def tool_outcomes(records: list[dict]) -> list[str]:
    """The outcomes of the tool calls (a tool record has no `method`; a resources/read has one)."""
    return [record["outcome"] for record in records if "method" not in record]


def received_requests(server_log: str) -> list[tuple[str, str]]:
    """What rmcp's request log says the monitor received: (kind, the request as logged)."""
    return [(match.group(1), match.group(0))
            for match in re.finditer(r"received request id=\S+ request=(\w+)\((.*)", server_log)]


def skill_over_mcp(transport: str, cell: Path, records: list[dict]) -> tuple[bool | str, dict]:
    """Whether the agent asked the monitor for a skill (the extension's requests, or a read of a
    skill:// URI), from the monitor's request log (HTTP) and its audit (every transport). A
    request log that holds none of the agent's requests measures nothing: then not True/False."""
    reads = [record["tool"] for record in records
             if record.get("method") == "resources/read" and str(record.get("tool", "")).startswith("skill://")]
    detail: dict = {"skill_reads_in_audit": reads}
    if SERVE[transport] is None:
        detail["request_log"] = "none on stdio (the server is the agent's child); the audit only"
        return bool(reads), detail
    received = received_requests(read_text(cell / "server.log"))
    kinds = sorted({kind for kind, _ in received})
    asked = [kind for kind, line in received
             if kind in SKILL_REQUESTS or (kind == "ReadResourceRequest" and '"skill://' in line)]
    detail.update(requests_received=kinds, skill_requests=asked)
    if not received:
        return "not measured: the monitor's request log holds no request", detail
    return bool(asked or reads), detail


class RecordingEnvironment:
    """Harbor's environment as Codex.run sees it: each exec is recorded, not run, and succeeds.
    (Codex.run reads nothing back from its commands.)"""

    default_user = None

    def __init__(self) -> None:
        self.execs: list[dict] = []

    async def exec(self, command: str, cwd: str | None = None, env: dict[str, str] | None = None,
                   timeout_sec: int | None = None, user: str | int | None = None) -> ExecResult:
        self.execs.append({"command": command, "cwd": cwd, "env": dict(env or {}), "user": user})
        return ExecResult(return_code=0, stdout="", stderr="")

    async def upload_file(self, source: Path, target: str) -> None:
        raise RuntimeError(f"the matrix authenticates with OPENAI_API_KEY, not an uploaded {source}")


def harbor_codex_execs(transport: str, logs: Path, instruction: str) -> list[dict]:
    """The commands Harbor 0.18's Codex agent execs for a trial, in order, with their env.
    extra_env is what `--ae` would pass; a trial also overlays it on every exec's env."""
    extra_env = {"OPENAI_BASE_URL": f"http://127.0.0.1:{MODEL_PORT}/v1", "OPENAI_API_KEY": "scripted-model-no-key"}
    agent = Codex(logs_dir=logs, model_name="openai/scripted-model", extra_env=extra_env,
                  mcp_servers=[MCPServerConfig(name="monitoring", **SERVERS[transport])], skills_dir=SKILLS_DIR)
    environment = RecordingEnvironment()
    asyncio.run(agent.run(instruction, environment, AgentContext()))
    for record in environment.execs:
        record["env"] = {**record["env"], **extra_env}
    return environment.execs


# Run just before `codex exec`, with its env: what Codex will read, kept because Harbor's last
# exec deletes CODEX_HOME. `codex mcp list --json` is Codex's own reading of config.toml; a
# stdio entry is then spawned as Codex spawns it (program `command`, arguments `args`),
# because Codex 0.171.0 says nothing when a stdio server fails to start.
CODEX_PROBE = r"""cp "$CODEX_HOME/config.toml" /cell/config.toml
ls "$HOME/.agents/skills" >/cell/skills.txt
codex mcp list --json >/cell/mcp-list.json 2>/cell/mcp-list.err
python3 - <<'PROBE' >/cell/spawn-probe.txt 2>&1
import json, subprocess
for server in json.load(open("/cell/mcp-list.json")):
    transport = server["transport"]
    if transport.get("type") == "stdio":
        try:
            child = subprocess.Popen([transport["command"], *(transport.get("args") or [])],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            child.kill()
            child.wait()
            print(f"{server['name']}: spawned")
        except OSError as error:
            print(f"{server['name']}: {type(error).__name__}: {error}")
PROBE
"""


def codex_cell_script(transport: str, execs: list[dict]) -> str:
    """The Codex cell's container: the servers, then Harbor's execs as its docker environment
    runs them (`bash -c COMMAND` in the workdir with the exec's env), CODEX_PROBE before
    `codex exec`."""
    lines = ["set -u", f"mkdir -p {WORKDIR}", *servers_lines(transport, "responses")]
    runs_codex = [i for i, record in enumerate(execs) if "codex exec " in record["command"]]
    if len(runs_codex) != 1:
        raise SystemExit(f"matrix: expected one `codex exec` among Harbor's execs, found {len(runs_codex)}")
    for index, record in enumerate(execs):
        env = " ".join(shlex.quote(f"{key}={value}") for key, value in sorted(record["env"].items()))
        if index == runs_codex[0]:
            lines.append(f"(cd {WORKDIR} && env {env} bash -c {shlex.quote(CODEX_PROBE)})")
        lines.append(f"(cd {shlex.quote(record['cwd'] or WORKDIR)} && env {env} timeout 300 bash -c "
                     f"{shlex.quote(record['command'])}) >/cell/exec-{index}.log 2>&1 </dev/null; "
                     f"echo $? >/cell/exec-{index}.rc")
    return "\n".join(lines) + "\n"


def codex_mcp_errors(cell: Path) -> list[str]:
    """Codex's own ERROR log lines from an MCP module (Harbor's command sends its stderr to
    codex.txt with the --json events; the events themselves are left out)."""
    log = cell / "agent-logs" / "codex.txt"
    errors = []
    for line in log.read_text(errors="replace").splitlines() if log.is_file() else []:
        match = re.match(r"^\S+Z\s+ERROR\s+(\S*mcp\S*): (.*)$", line)
        if match:
            errors.append(f"{match.group(1)}: {match.group(2)}")
    return errors


def read_json(path: Path, default: object) -> object:
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return default


def codex_measure(transport: str, cell: Path) -> dict:
    server = SERVERS[transport]
    listed = read_json(cell / "mcp-list.json", [])
    entry = next((item.get("transport") or {} for item in listed if item.get("name") == "monitoring"), {})
    # Codex's names for the transports. It has none for legacy SSE: given the SSE URL it
    # speaks streamable HTTP there, which a legacy SSE server answers on that path too.
    wanted = {"streamable-http": "streamable_http", "sse": "streamable_http", "stdio": "stdio"}[transport]
    if transport == "stdio":
        address = entry.get("command") == server["command"] and (entry.get("args") or []) == server["args"]
    else:
        address = entry.get("url") == server["url"]
    written = entry.get("type") == wanted and address
    requests = [json.loads(line) for line in read_text(cell / "model" / "requests.jsonl").splitlines()]
    first = next((request["body"] for request in requests if request["path"] == "/v1/responses"), None)
    offered = first is not None and responses_api.ResponsesRequest(first).has_tool(scenarios.MCP_TOOL)
    records = audit_records(audit_file(transport, cell))
    outcomes = tool_outcomes(records)
    verdict = read_json(cell / "model" / "verdict.json", {})
    skills = read_text(cell / "skills.txt").split()
    rc = {path.stem: path.read_text().strip() for path in sorted(cell.glob("exec-*.rc"))}
    over_mcp, over_mcp_detail = skill_over_mcp(transport, cell, records)
    row = {
        "config_written": written,
        "server_discovered": offered,
        "tool_called": outcomes == ["ok", "ok"] and verdict.get("finished") is True and not verdict.get("mismatches"),
        "skill_discovered": bool(verdict.get("skill_offered") and verdict.get("skill_loaded")),
        "skill_over_mcp": over_mcp,
        "detail": {"entry": entry, "config_toml": read_text(cell / "config.toml"), "outcomes": outcomes,
                   "skill_over_mcp": over_mcp_detail,
                   "skills_installed": skills, "mcp_errors": codex_mcp_errors(cell),
                   "spawn_probe": read_text(cell / "spawn-probe.txt").strip(),
                   "exec_rc": rc, "agent_headers": verdict.get("agent_headers", {}),
                   "mismatches": verdict.get("mismatches", [])[:1]},
    }
    reasons = {}
    if not written:
        if not entry:
            reasons["config_written"] = "Codex lists no `monitoring` server: " + read_text(cell / "mcp-list.err").strip()[:200]
        elif transport == "stdio":
            reasons["config_written"] = (f"Codex reads `{entry.get('type')}` with `command` "
                                         f"{json.dumps(entry.get('command'))} and `args` {json.dumps(entry.get('args'))}")
        else:
            reasons["config_written"] = f"Codex reads `{entry.get('type')}` at {entry.get('url')}"
    if not offered:
        said = codex_mcp_errors(cell) or [f"no MCP error logged; spawning the entry as Codex reads it: "
                                          f"{read_text(cell / 'spawn-probe.txt').strip() or 'not probed'}"]
        reasons["server_discovered"] = "the model was offered no `mcp__monitoring` tool; " + said[0][:240]
    mismatch = (verdict.get("mismatches") or [None])[0]
    stopped = f"the script stopped at turn {mismatch['turn']}: {mismatch['problem'].split(' (offered')[0]}" if mismatch else ""
    if not row["tool_called"]:
        reasons["tool_called"] = f"audit {outcomes or 'empty'}" + (f"; {stopped}" if stopped else "")
    if verdict.get("skill_offered") and not verdict.get("skill_loaded") and not verdict.get("turns_answered"):
        # Listed, but the script stopped before the turn that loads it: not a NO.
        row["skill_discovered"] = f"listed to the model (measured); loading not reached ({stopped})"
    elif not row["skill_discovered"]:
        reasons["skill_discovered"] = (f"listed to the model: {'yes' if verdict.get('skill_offered') else 'no'}; "
                                       f"loaded: {'yes' if verdict.get('skill_loaded') else 'no'}"
                                       + (f" ({stopped})" if stopped else ""))
    row["reasons"] = reasons
    return row


def read_text(path: Path) -> str:
    return path.read_text(errors="replace") if path.is_file() else ""


def run_codex_cell(transport: str, cell: Path, options: argparse.Namespace, instruction: str, here: Path) -> dict:
    # A previous run's audit or verdict would be measured as this run's.
    shutil.rmtree(cell, ignore_errors=True)
    (cell / "agent-logs").mkdir(parents=True)
    for directory in (cell, cell / "agent-logs"):
        directory.chmod(0o777)
    execs = harbor_codex_execs(transport, cell / "harbor-logs", instruction)
    (cell / "harbor-execs.json").write_text(json.dumps(execs, indent=2) + "\n")
    (cell / "run.sh").write_text(codex_cell_script(transport, execs))
    subprocess.run(["docker", "run", "--rm", "--network", "none",
                    "-v", f"{cell}:/cell", "-v", f"{cell / 'agent-logs'}:/logs/agent",
                    "-v", f"{here}:/opt/scripted-model:ro", *mounts(cell, options),
                    "-v", f"{options.task / 'environment' / 'skills'}:{SKILLS_DIR}:ro",
                    options.codex_image, "bash", "/cell/run.sh"], check=True, timeout=600)
    return codex_measure(transport, cell)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image", required=True, help="Claude Code's image")
    parser.add_argument("--codex-image", help="Codex CLI's image (without it, the Codex cells are not verified)")
    parser.add_argument("--binary", type=Path, required=True)
    parser.add_argument("--task", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    options = parser.parse_args()
    instruction = (options.task / "instruction.md").read_text()
    here = Path(__file__).resolve().parent
    rows, failed, codex_seconds = {}, [], 0.0
    for transport, server in SERVERS.items():
        cell = options.work / transport
        cell.mkdir(parents=True, exist_ok=True)
        cell.chmod(0o777)
        agent = ClaudeCode(logs_dir=cell, mcp_servers=[MCPServerConfig(name="monitoring", **server)],
                           skills_dir=SKILLS_DIR)
        (cell / "run.sh").write_text(cell_script(transport, agent, instruction))
        subprocess.run(["docker", "run", "--rm", "--network", "none",
                        "-v", f"{cell}:/cell", "-v", f"{here}:/opt/scripted-model:ro", *mounts(cell, options),
                        "-v", f"{options.task / 'environment' / 'skills'}:{SKILLS_DIR}:ro",
                        options.image, "bash", "/cell/run.sh"], check=True, timeout=600)
        rows[f"claude-code/{transport}"] = measure(transport, cell)
        message = changed(f"claude-code/{transport}", rows[f"claude-code/{transport}"], WORKS)
        if message:
            failed.append(message)
    for transport in SERVERS:
        name = f"codex/{transport}"
        if not options.codex_image:
            rows[name] = dict.fromkeys(COLUMNS, "not verified: no --codex-image given")
            continue
        started = time.monotonic()
        rows[name] = run_codex_cell(transport, options.work / f"codex-{transport}", options, instruction, here)
        codex_seconds += time.monotonic() - started
        rows[name]["expected"] = CODEX_EXPECTED[transport]
        message = changed(name, rows[name], CODEX_EXPECTED_CELLS[transport])
        if message:
            if CODEX_EXPECTED[transport] is not True:
                message += (f"; expected not to work because {CODEX_EXPECTED[transport]}: if the new outcome is "
                            "right, correct CODEX_EXPECTED and CODEX_EXPECTED_CELLS")
            failed.append(message)
    options.out.write_text(json.dumps({"cells": rows, "codex_wall_seconds": round(codex_seconds, 1)},
                                      indent=2, sort_keys=True) + "\n")
    print(markdown(rows))
    if options.codex_image:
        print(f"matrix: the Codex cells took {codex_seconds:.1f} s", file=sys.stderr)
    for message in failed:
        print(f"matrix: FAILED: a cell differs from its expectation: {message}", file=sys.stderr)
    if failed:
        print(f"matrix: {len(failed)} cell(s) differ from their expectation: see {options.out}", file=sys.stderr)
    return 1 if failed else 0


def over_mcp_summary(row: dict) -> str:
    """What the monitor received, for the skill-over-MCP column."""
    detail = (row.get("detail") or {}).get("skill_over_mcp") or {}
    reads = detail.get("skill_reads_in_audit") or []
    said = f"audit: {len(reads)} skill:// read{'s' if len(reads) != 1 else ''}"
    if "requests_received" not in detail:
        return f"{said}; no request log on stdio"
    asked = detail.get("skill_requests") or []
    return (f"{said}; request log: {', '.join(asked) if asked else 'no skills request'} among "
            f"{', '.join(detail['requests_received'])}")


def markdown(rows: dict) -> str:
    lines = ["| agent / transport | " + " | ".join(c.replace("_", " ") for c in COLUMNS) + " |",
             "|---|" + "---|" * len(COLUMNS)]
    for name, row in rows.items():
        cells = []
        for column in COLUMNS:
            value = row[column]
            if column == "skill_over_mcp" and isinstance(value, bool):
                cells.append(f"{'YES' if value else 'no'} (measured: {over_mcp_summary(row)})")
            elif value is True:
                cells.append("yes (measured)")
            elif value is False:
                reason = (row.get("reasons") or {}).get(column)
                cells.append(f"NO (measured: {reason})" if reason else "NO (measured)")
            else:
                cells.append(value)
        lines.append(f"| {name} | " + " | ".join(" ".join(cell.split()).replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
