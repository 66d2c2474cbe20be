"""A scripted agent session for scripts/compose-proof.sh, through the official Python MCP client.

    python scripts/proof_agent.py URL CASE

Runs in main's network namespace (the proof enters it with nsenter), so URL is what the task
gives the agent. CASE decides what the agent does:
  good          tools/list, get_incident_snapshot 42 (summary), then 42 (signals)
  no_summary    only the signals view: the verifier's incident-42 summary call is missing
  over_budget   21 summary calls: one more than the verifier's call budget
  rate_limited  65 summary calls: past the tool's rate limit (60 per minute)
Prints the final report (JSON) on stdout, for the proof to write into main.
"""

from __future__ import annotations

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

CALLS = {
    "good": [{"incident_id": 42}, {"incident_id": 42, "view": "signals"}],
    "no_summary": [{"incident_id": 42, "view": "signals"}],
    "over_budget": [{"incident_id": 42}] * 21,
    "rate_limited": [{"incident_id": 42}] * 65,
}


async def session(url: str, case: str) -> dict:
    async with streamable_http_client(url) as (read, write, *_):
        async with ClientSession(read, write) as client:
            await client.initialize()
            tools = await client.list_tools()
            assert [tool.name for tool in tools.tools] == ["get_incident_snapshot"], tools
            calls, outcomes, signals = [], [], []
            for arguments in CALLS[case]:
                result = await client.call_tool("get_incident_snapshot", arguments)
                content = result.structured_content or {}
                outcomes.append(content.get("error_code", "ok") if result.is_error else "ok")
                signals.extend(content.get("signals", []))
                calls.append({"tool": "get_incident_snapshot", "arguments": arguments})
            print(f"proof agent ({case}): {len(calls)} calls, outcomes {sorted(set(outcomes))}", file=sys.stderr)
            return {
                "incident_id": 42,
                "root_cause": "the proxy forwards to the wrong upstream port"
                if "upstream_port_mismatch" in signals
                else "undetermined",
                "evidence": sorted(set(signals)),
                "tool_calls": calls,
            }


def main() -> int:
    url, case = sys.argv[1], sys.argv[2]
    report = asyncio.run(session(url, case))
    print(json.dumps(report, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
