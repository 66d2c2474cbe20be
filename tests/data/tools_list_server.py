# A stdio MCP server (stdlib only) for the import tests: answers initialize and tools/list
# with the tools in the JSON file named by its first argument, and nothing else.
import json, sys
tools = json.load(open(sys.argv[1]))
for line in sys.stdin:
    if not line.strip():
        continue
    message = json.loads(line)
    if "id" not in message:
        continue
    method = message.get("method")
    if method == "initialize":
        version = message.get("params", {}).get("protocolVersion", "2025-06-18")
        reply = {"result": {"protocolVersion": version, "capabilities": {"tools": {}},
                            "serverInfo": {"name": "hostile", "version": "0.1.0"}}}
    elif method == "tools/list":
        reply = {"result": {"tools": tools}}
    elif method == "ping":
        reply = {"result": {}}
    else:
        reply = {"error": {"code": -32601, "message": "method not found"}}
    reply.update({"jsonrpc": "2.0", "id": message["id"]})
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
