-- wrk script: every request is one MCP `tools/call echo` (or $MCP_TOOL) over streamable HTTP. With
-- MCP_SESSION_ID set (stateful runs) the request joins that session. At the end it prints one
-- JSON line, prefixed with WRK_JSON, for scripts/bench-e2e.sh.

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
-- rmcp answers 406 unless the client accepts both.
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
local session = os.getenv("MCP_SESSION_ID")
if session ~= nil and session ~= "" then
  wrk.headers["Mcp-Session-Id"] = session
end
-- MCP_TOOL names another tool taking `message` (harness-redis loads `echo_shared`).
local tool = os.getenv("MCP_TOOL")
if tool == nil or tool == "" then
  tool = "echo"
end
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"' .. tool .. '","arguments":{"message":"hello"}}}'

function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%d,"duration_us":%d,"requests_per_second":%.1f,' ..
    '"p50_us":%d,"p90_us":%d,"p99_us":%d,"errors":%d}\n',
    summary.requests, summary.duration, summary.requests / (summary.duration / 1e6),
    latency:percentile(50), latency:percentile(90), latency:percentile(99),
    errors.connect + errors.read + errors.write + errors.status + errors.timeout))
end
