"""Loads a generated judge TOML with Reward Kit's own parser (harbor-rewardkit) and checks it.

What Reward Kit does with tests/*.toml (rewardkit.runner: `_load_directory_tomls`, which
validates each judge TOML against its strict JudgeTomlConfig, then `_build_judge_from_toml`):
the judge must come back an AgentJudge whose one MCP server is the judge-side copy (stdio,
the verifier's binary) with `allowed_tools` equal to the tools the server publishes (the
bundle's ledger.json lists them), and Reward Kit's own tool names for it
(`mcp__<server>__<tool>`) must be those the agent saw. Exit 1 with the reason otherwise.

    python scripts/rewardkit_judge.py BUNDLE_DIR
"""

import json
import os
import sys
from pathlib import Path

# Reward Kit imports LiteLLM, which fetches a model price list at import unless told not to:
# this check runs offline.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from rewardkit.models import AgentJudge
from rewardkit.runner import _build_judge_from_toml, _load_directory_tomls


def main() -> int:
    bundle = Path(sys.argv[1])
    _, judges = _load_directory_tomls(bundle / "tests")
    if len(judges) != 1:
        print(f"rewardkit_judge: {len(judges)} judge TOMLs under {bundle / 'tests'}", file=sys.stderr)
        return 1
    path, config = judges[0]
    judge = _build_judge_from_toml(config.judge)
    published = json.loads((bundle / "ledger.json").read_text())["tools"]
    problems = []
    if not isinstance(judge, AgentJudge):
        problems.append(f"Reward Kit built a {type(judge).__name__}, not an agent judge")
    servers = config.judge.mcp_servers
    if len(servers) != 1:
        problems.append(f"{len(servers)} judge MCP servers, expected 1")
    else:
        server = servers[0]
        if list(server.allowed_tools) != published:
            problems.append(f"allowed_tools {list(server.allowed_tools)} are not the published tools {published}")
        if server.transport != "stdio" or not server.command or not server.command.startswith("/tests/"):
            problems.append(f"the judge's server is {server.transport} {server.command}, not the verifier's binary over stdio")
        names = [f"mcp__{server.name}__{tool}" for tool in published]
        if list(server.allowed_tool_names()) != names:
            problems.append(f"Reward Kit's tool names {server.allowed_tool_names()} differ from {names}")
    if not config.criterion:
        problems.append("no criterion")
    for problem in problems:
        print(f"rewardkit_judge: {path.name}: {problem}", file=sys.stderr)
    if not problems:
        print(f"rewardkit_judge: {path.name} loads as a {judge.agent} judge with allowed_tools {published}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
