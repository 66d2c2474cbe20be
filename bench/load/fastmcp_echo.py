"""The FastMCP baseline: the same `echo` tool as the generated and the bare rmcp servers.

HTTP: `uvicorn fastmcp_echo:stateless_app` (stateless, plain JSON replies) or
`uvicorn fastmcp_echo:stateful_app` (sessions, SSE replies), `--workers 1`.
stdio: `python fastmcp_echo.py`.
"""

from fastmcp import FastMCP

mcp = FastMCP("bench-fastmcp")


@mcp.tool
def echo(message: str) -> dict:
    """Return the message, as structured content."""
    return {"message": message}


stateless_app = mcp.http_app(path="/mcp", stateless_http=True, json_response=True)
stateful_app = mcp.http_app(path="/mcp")

if __name__ == "__main__":
    mcp.run(transport="stdio", show_banner=False)
