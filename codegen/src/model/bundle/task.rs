//! task.toml's decisions. The manifest's `[task]`, `[environment]`, `[agent]` and `[verifier]`
//! tables follow Harbor's task schema key for key, so the model keeps them as checked; what it
//! decides is each phase's network policy and the transport of each MCP server handed to the
//! agent. The document's shape (sections, which keys are written) is the emitter's
//! (`emit::bundle::task_toml`), as the compose file's is.

use crate::manifest::bundle::{
    Agent, Artifact, Environment, McpServer, NetworkMode, Task, Verifier,
};
use harness_contract::TransportKind;

/// Harbor's transport for an MCP server that names none.
pub const HARBOR_DEFAULT_MCP_TRANSPORT: TransportKind = TransportKind::Sse;

/// The transport an agent's MCP server entry means, Harbor's default applied.
pub fn mcp_transport(server: &McpServer) -> TransportKind {
    server.transport.unwrap_or(HARBOR_DEFAULT_MCP_TRANSPORT)
}

/// The checked tables task.toml is written from.
#[derive(Debug, Clone)]
pub struct TaskModel {
    /// `[task]`.
    pub task: Task,
    /// `[environment]`.
    pub environment: Environment,
    /// `[agent]` (Harbor's defaults when the manifest has none).
    pub agent: Agent,
    /// `[verifier]` (Harbor's defaults when the manifest has none).
    pub verifier: Verifier,
    /// `[[artifacts]]`.
    pub artifacts: Vec<Artifact>,
    /// Each phase's network policy.
    pub networks: PhaseNetworks,
}

/// The network policy of each phase, as task.toml states it.
#[derive(Debug, Clone)]
pub struct PhaseNetworks {
    /// The environment phase (and agent setup).
    pub environment: NetworkPolicy,
    /// `agent.run()`.
    pub agent: NetworkPolicy,
    /// The verifier phase.
    pub verifier: NetworkPolicy,
    /// A separate verifier's own environment, when the manifest gives one.
    pub verifier_environment: Option<NetworkPolicy>,
}

/// A phase's network policy; unset keys are Harbor's defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NetworkPolicy {
    /// `public`, `no-network` or `allowlist`.
    pub network_mode: Option<NetworkMode>,
    /// Hosts reachable in allowlist mode.
    pub allowed_hosts: Vec<String>,
}

impl NetworkPolicy {
    fn new(network_mode: Option<NetworkMode>, allowed_hosts: &[String]) -> Self {
        Self {
            network_mode,
            allowed_hosts: allowed_hosts.to_vec(),
        }
    }
}

impl TaskModel {
    /// The decisions of checked manifest sections.
    pub(crate) fn new(
        task: &Task,
        environment: &Environment,
        agent: &Agent,
        verifier: &Verifier,
        artifacts: &[Artifact],
    ) -> Self {
        let networks = PhaseNetworks {
            environment: NetworkPolicy::new(environment.network_mode, &environment.allowed_hosts),
            agent: NetworkPolicy::new(agent.network_mode, &agent.allowed_hosts),
            verifier: NetworkPolicy::new(verifier.network_mode, &verifier.allowed_hosts),
            verifier_environment: verifier
                .environment
                .as_ref()
                .map(|env| NetworkPolicy::new(env.network_mode, &env.allowed_hosts)),
        };
        Self {
            task: task.clone(),
            environment: environment.clone(),
            agent: agent.clone(),
            verifier: verifier.clone(),
            artifacts: artifacts.to_vec(),
            networks,
        }
    }
}
