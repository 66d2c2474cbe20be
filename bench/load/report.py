"""Summarizes scripts/bench-e2e.sh's results.jsonl as Markdown: per mode and server the
medians over rounds, then the ratios between servers, each taken within a round (the
servers of one round ran minutes apart, not hours) and summarized by its median, and the
targets they are held to.

python3 bench/load/report.py RESULTS.jsonl SECONDS_PER_RUN PROFILE
"""

import json
import statistics
import sys
from collections import defaultdict

MODES = {
    "stateless-c16": "streamable HTTP, stateless JSON, 16 connections",
    "stateless-c1": "streamable HTTP, stateless JSON, 1 connection",
    "stateful-c16": "streamable HTTP, stateful (one session, SSE replies), 16 connections",
    "stdio": "stdio, raw JSON-RPC pipe, one call at a time",
}
SERVERS = ["harness", "harness-redis", "harness-rmcp", "bare-transport", "bare", "floor", "fastmcp"]
SINGLE_CALL_MODES = {"stateless-c1", "stdio"}


def median(values):
    values = [value for value in values if value is not None]
    return statistics.median(values) if values else None


def fmt(value, digits=0, unit=""):
    if value is None:
        return "-"
    return f"{value:,.{digits}f}{unit}"


def main():
    path, seconds, profile = sys.argv[1], sys.argv[2], sys.argv[3]
    runs = defaultdict(list)  # (mode, server) -> [result]
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            try:
                result = json.loads(line)
            except json.JSONDecodeError as error:
                sys.exit(f"{path}:{number}: not a JSON line ({error})")
            runs[(result["mode"], result["server"])].append(result)
    rounds = max((r["round"] for rs in runs.values() for r in rs), default=0)

    print(f"# End-to-end benchmark: {rounds} interleaved round(s) of {seconds} s runs "
          f"({profile} build)\n")
    print("Medians over rounds. Server on one core, load generator on another. "
          "CPU is the server's user + system time per call.\n")
    verdicts = []
    for mode, title in MODES.items():
        present = [s for s in SERVERS if (mode, s) in runs]
        if not present:
            continue
        print(f"## {title}\n")
        print("| server | calls/s | p50 | p99 | CPU per call | RSS idle | RSS peak |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for server in present:
            rs = runs[(mode, server)]
            print("| {} | {} | {} | {} | {} | {} | {} |".format(
                server,
                fmt(median(r["requests_per_second"] for r in rs)),
                fmt(median(r["p50_us"] for r in rs), 0, " µs"),
                fmt(median(r["p99_us"] for r in rs), 0, " µs"),
                fmt(median(r.get("cpu_us_per_call") for r in rs), 0, " µs"),
                fmt(median(r.get("rss_idle_kib") for r in rs) / 1024, 1, " MiB"),
                fmt(median(r.get("rss_peak_kib") for r in rs) / 1024, 1, " MiB"),
            ))
        print()

        def per_round(server):
            return {r["round"]: r for r in runs.get((mode, server), [])}

        harness, bare, fastmcp = per_round("harness"), per_round("bare"), per_round("fastmcp")
        transport = per_round("bare-transport")
        lines = []
        on_rmcp = per_round("harness-rmcp")
        for label, slow, fast in (("the harness's HTTP layer (bare-transport / bare)", transport, bare),
                                  ("guards and audit on rmcp's path (harness-rmcp / bare-transport)", on_rmcp, transport),
                                  ("the fast path (harness-rmcp / harness)", on_rmcp, harness),
                                  ("the rate limit in Redis (harness-redis / harness; Redis's own CPU apart)",
                                   per_round("harness-redis"), harness)):
            common = sorted(set(slow) & set(fast))
            if common:
                share = median(slow[n]["requests_per_second"] / fast[n]["requests_per_second"]
                               for n in common)
                cpu = median(slow[n]["cpu_us_per_call"] - fast[n]["cpu_us_per_call"]
                             for n in common
                             if slow[n].get("cpu_us_per_call") is not None
                             and fast[n].get("cpu_us_per_call") is not None)
                lines.append(f"{label}: {share:.1%} throughput, CPU added per call: "
                             f"{fmt(cpu, 1, ' µs')}")
        redis = per_round("harness-redis")
        common = sorted(set(redis) & set(harness))
        if common:
            added = median(redis[n]["p50_us"] - harness[n]["p50_us"] for n in common)
            store_cpu = median(redis[n].get("redis_cpu_us_per_call") for n in common)
            lines.append(f"the rate limit in Redis: p50 added {added:+.0f} µs; redis-server's own "
                         f"CPU per call: {fmt(store_cpu, 1, ' µs')}")
        if harness and bare:
            common = sorted(set(harness) & set(bare))
            share = median(harness[n]["requests_per_second"] / bare[n]["requests_per_second"]
                           for n in common)
            added = median(harness[n]["p50_us"] - bare[n]["p50_us"] for n in common)
            cpu = median(harness[n]["cpu_us_per_call"] - bare[n]["cpu_us_per_call"]
                         for n in common
                         if harness[n].get("cpu_us_per_call") is not None
                         and bare[n].get("cpu_us_per_call") is not None)
            lines.append(f"harness / bare rmcp throughput: {share:.1%} "
                         f"(guards cost {1 - share:.1%}); p50 added: {added:+.0f} µs; "
                         f"CPU added per call: {fmt(cpu, 1, ' µs')}")
            verdicts.append((mode, "guards cost < 5% of bare throughput", 1 - share < 0.05,
                             f"{1 - share:.1%}"))
            # With 16 calls in flight the p50 is mostly queueing (connections / throughput),
            # so the added-latency target is judged where one call is in flight at a time.
            if mode in SINGLE_CALL_MODES:
                verdicts.append((mode, "p50 added < 10 µs", added < 10, f"{added:+.0f} µs"))
        floor = per_round("floor")
        common = sorted(set(harness) & set(bare))
        if common and mode.startswith("stateless"):
            times = median(harness[n]["requests_per_second"] / bare[n]["requests_per_second"]
                           for n in common)
            verdicts.append((mode, "harness >= 1.5x bare rmcp (stateless fast path)",
                             times >= 1.5, f"{times:.2f}x"))
        common = sorted(set(harness) & set(floor))
        if common:
            share = median(harness[n]["requests_per_second"] / floor[n]["requests_per_second"]
                           for n in common)
            bare_share = median(bare[n]["requests_per_second"] / floor[n]["requests_per_second"]
                                for n in common if n in bare)
            lines.append(f"harness / the hand-rolled floor: {share:.1%}; bare rmcp / the floor: "
                         f"{fmt(bare_share and bare_share * 100, 1, '%')}")
            verdicts.append((mode, "harness >= 50% of the hand-rolled floor", share >= 0.5,
                             f"{share:.1%}"))
        if harness and fastmcp:
            common = sorted(set(harness) & set(fastmcp))
            times = median(harness[n]["requests_per_second"] / fastmcp[n]["requests_per_second"]
                           for n in common)
            lines.append(f"harness / FastMCP throughput: {times:.1f}x")
            verdicts.append((mode, "harness >= 25x FastMCP", times >= 25, f"{times:.1f}x"))
        if bare and fastmcp:
            common = sorted(set(bare) & set(fastmcp))
            times = median(bare[n]["requests_per_second"] / fastmcp[n]["requests_per_second"]
                           for n in common)
            lines.append(f"bare rmcp / FastMCP throughput: {times:.1f}x")
        for line in lines:
            print(f"- {line}")
        print()

    if verdicts:
        print("## Targets\n")
        print("| mode | target | measured | met |")
        print("|---|---|---:|---|")
        for mode, target, met, measured in verdicts:
            print(f"| {mode} | {target} | {measured} | {'yes' if met else 'NO'} |")


if __name__ == "__main__":
    main()
