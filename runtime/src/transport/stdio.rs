//! MCP over stdin/stdout: one session, the client's messages marked for repeated argument keys
//! before rmcp reads them.

use rmcp::ServerHandler;
use rmcp::ServiceExt;

use crate::transport::duplicate_keys::marked_stdin;
use crate::transport::error::ServeError;

/// Serves one MCP session over stdin/stdout until the client disconnects.
pub async fn serve_stdio<H: ServerHandler>(handler: H) -> Result<(), ServeError> {
    let transport = (marked_stdin(), tokio::io::stdout());
    let running = handler
        .serve(transport)
        .await
        .map_err(|error| ServeError::StdioInit(error.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|error| ServeError::Stdio(error.to_string()))?;
    Ok(())
}
