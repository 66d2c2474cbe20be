"""The report of scripts/bench-gateway.sh: medians over rounds of results.jsonl, and the
ratios its goals are stated in.

    python3 bench/load/gateway_report.py target/bench-gateway/results.jsonl
"""

import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
def med(server, connections, key):
    values = [r[key] for r in rows if r["server"] == server and r["connections"] == connections and r.get(key) is not None]
    return statistics.median(values) if values else None
print("| server | conns | calls/s | p50 µs | p99 µs | CPU µs/call | errors |")
print("|---|---|---|---|---|---|---|")
for server in dict.fromkeys(r["server"] for r in rows):
    for c in sorted({r["connections"] for r in rows}):
        if med(server, c, "requests_per_second") is None:
            continue
        cpu = med(server, c, 'cpu_us_per_call')
        print(f"| {server} | {c} | {med(server, c, 'requests_per_second'):.0f} | {med(server, c, 'p50_us'):.0f} | "
              f"{med(server, c, 'p99_us'):.0f} | {'' if cpu is None else f'{cpu:.1f}'} | {med(server, c, 'errors'):.0f} |")
def ratio(a, b, c, key):
    x, y = med(a, c, key), med(b, c, key)
    return None if x is None or y is None or y == 0 else x / y
print()
p50 = ratio("gateway-everything", "direct-everything", 1, "p50_us")
if p50: print(f"- gateway (HTTP in, stdio out) over server-everything's own streamable HTTP, 1 connection: p50 x{p50:.2f} ({(p50 - 1) * 100:+.0f}%; goal at most +15%)")
p50 = ratio("gateway-everything", "direct-everything-stdio", 1, "p50_us")
if p50: print(f"- gateway (HTTP in, stdio out) over server-everything on stdio with no gateway, 1 connection: p50 x{p50:.2f} ({(p50 - 1) * 100:+.0f}%)")
p50 = ratio("gateway-bare", "direct-bare-stdio", 1, "p50_us")
if p50: print(f"- gateway over bench-bare on stdio with no gateway, 1 connection: p50 x{p50:.2f}")
p50 = ratio("gateway-bare", "direct-bare", 1, "p50_us")
if p50: print(f"- gateway over direct, bench-bare, 1 connection: p50 x{p50:.2f}")
p50 = ratio("gateway-bare-http", "direct-bare", 1, "p50_us")
if p50: print(f"- gateway over direct, bench-bare over streamable HTTP upstream, 1 connection: p50 x{p50:.2f}")
for c in (16, 1):
    t = ratio("gateway-bare", "fastmcp-proxy", c, "requests_per_second")
    if t: print(f"- gateway over FastMCP's proxy, bench-bare upstream, {c} connections: throughput x{t:.1f} (goal at least x10)")
