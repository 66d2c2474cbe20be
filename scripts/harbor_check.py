"""Load a generated Harbor task directory with Harbor's own models, and fail on any key of
task.toml that Harbor dropped (its models ignore unknown keys silently).

Usage: python harbor_check.py TASK_DIR
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

from harbor.models.task.task import Task


def dropped_keys(raw: object, parsed: object, path: str = "") -> list[str]:
    """Every key path present in the raw TOML but missing from Harbor's model dump."""
    missing: list[str] = []
    if isinstance(raw, dict):
        if not isinstance(parsed, dict):
            return [path or "<root>"]
        for key, value in raw.items():
            where = f"{path}.{key}" if path else key
            if key not in parsed:
                missing.append(where)
            else:
                missing.extend(dropped_keys(value, parsed[key], where))
    elif isinstance(raw, list) and raw and isinstance(raw[0], dict):
        if not isinstance(parsed, list) or len(parsed) != len(raw):
            return [path]
        for index, (item, model) in enumerate(zip(raw, parsed)):
            missing.extend(dropped_keys(item, model, f"{path}[{index}]"))
    return missing


def main() -> int:
    task_dir = Path(sys.argv[1])
    raw = tomllib.loads((task_dir / "task.toml").read_text(encoding="utf-8"))
    task = Task(task_dir)
    config = task.config
    dumped = config.model_dump(mode="json")
    missing = dropped_keys(raw, dumped)
    if missing:
        print(f"Harbor dropped these task.toml keys: {', '.join(missing)}", file=sys.stderr)
        return 1
    problems = []
    if config.schema_version != "1.3":
        problems.append(f"schema_version is {config.schema_version!r}")
    for server in config.environment.mcp_servers:
        if server.transport in ("sse", "streamable-http") and not server.url:
            problems.append(f"MCP server {server.name} has no url")
    if not (task_dir / "instruction.md").read_text(encoding="utf-8").strip():
        problems.append("instruction.md is empty")
    if config.verifier.environment_mode == "separate" and not (task_dir / "tests" / "test.sh").is_file():
        problems.append("a separate verifier needs tests/test.sh")
    if problems:
        print("; ".join(problems), file=sys.stderr)
        return 1
    print(f"Harbor loads {task_dir}: {config.task.name}, {len(config.environment.mcp_servers)} MCP server(s), "
          f"{len(config.artifacts)} artifact(s), every key kept")
    return 0


if __name__ == "__main__":
    sys.exit(main())
