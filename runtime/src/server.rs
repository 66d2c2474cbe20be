//! The trait generated code implements: what the command line, the transports and an
//! embedding application need from a generated server.

use rmcp::ServerHandler;
use rmcp::model::{CallToolResponse, ErrorData, Tool};

use crate::pipeline::Pipeline;
use crate::pipeline::SetupError;
use crate::pipeline::call::Call;
use crate::spec::{AuthSpec, BundleSpec, ServerSpec, ToolSpec};
#[cfg(feature = "gateway")]
use crate::upstream::Upstreams;
use crate::verify::VerifierSpec;

/// What the CLI needs from a generated server.
pub trait GeneratedServer: ServerHandler + Clone {
    /// The manifest's `[server]`, `[transport]` and `[audit]`.
    fn spec(&self) -> &'static ServerSpec;
    /// The manifest's tools.
    fn tool_specs(&self) -> &'static [ToolSpec];
    /// The guard pipeline every call goes through.
    fn pipeline(&self) -> &Pipeline;
    /// The Harbor task directory generated with the server.
    fn bundle(&self) -> &'static BundleSpec;
    /// The verifier's checks.
    fn verifier(&self) -> &'static VerifierSpec;
    /// What `tools/list` publishes.
    fn tool_definitions(&self) -> &[Tool];
    /// Runs `tools/call` of `name` through the pipeline: what `call_tool` does once rmcp
    /// has split the request, and what the stateless fast path calls directly.
    fn dispatch(
        &self,
        name: &str,
        call: Call,
    ) -> impl std::future::Future<Output = Result<CallToolResponse, ErrorData>> + Send;
    /// The upstream MCP servers its gateway tools call (none for a server without
    /// `[[upstreams]]`).
    #[cfg(feature = "gateway")]
    fn upstreams(&self) -> Option<std::sync::Arc<Upstreams>> {
        None
    }
    /// The manifest's `[auth]`: the OAuth 2.1 resource server its HTTP transports are (none
    /// without the table).
    fn auth(&self) -> Option<&'static AuthSpec> {
        None
    }
}

/// Checks what the server's upstreams need before it serves: every pinned schema compiles
/// (nothing to check in a build without the `gateway` feature, which has no upstreams).
pub(crate) fn check_upstreams<S: GeneratedServer>(server: &S) -> Result<(), SetupError> {
    #[cfg(feature = "gateway")]
    if let Some(upstreams) = server.upstreams() {
        upstreams.check_setup()?;
    }
    #[cfg(not(feature = "gateway"))]
    let _ = server;
    Ok(())
}
