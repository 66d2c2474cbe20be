"""FastMCP's proxy in front of bench-bare's echo over stdio: what a FastMCP user puts in front
of an existing server (`create_proxy`), served stateless with plain JSON replies, as the
gateway is in scripts/bench-gateway.sh. bench-bare is found on PATH.

`uvicorn fastmcp_proxy:app --workers 1`.
"""

import shutil

from fastmcp.client.transports import StdioTransport
from fastmcp.server import create_proxy

bare = shutil.which("bench-bare")
if bare is None:
    raise SystemExit("bench-bare is not on PATH")

proxy = create_proxy(StdioTransport(command=bare, args=["stdio"]), name="fastmcp-proxy")
app = proxy.http_app(path="/mcp", stateless_http=True, json_response=True)
