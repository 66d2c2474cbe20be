//! harness.toml as a whole: one table per concern, each defined in the file of its concern.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::manifest::auth::Auth;
use crate::manifest::bundle;
use crate::manifest::resources::{Caching, Prompt, Resource, ResourceTemplate};
use crate::manifest::server::{Audit, RateLimitStore, Server, Transport};
use crate::manifest::tools::{Defaults, Tool};
use crate::manifest::upstreams::Upstream;

/// harness.toml: one hardened MCP tool server and everything around it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields, title = "harness.toml")]
pub struct Manifest {
    /// Who the server says it is during `initialize`.
    pub server: Server,
    /// How `serve` listens unless the command line says otherwise.
    #[serde(default)]
    pub transport: Transport,
    /// Settings every tool inherits.
    #[serde(default)]
    pub defaults: Defaults,
    /// The audit log: one JSON line per call, for every outcome.
    #[serde(default)]
    pub audit: Audit,
    /// The OAuth 2.1 resource server in front of the HTTP transports (instead of
    /// `[transport] auth_token_env`).
    pub auth: Option<Auth>,
    /// Where rate-limit windows live: in this process, or in Redis shared by every replica.
    #[serde(default)]
    pub rate_limit_store: RateLimitStore,
    /// The tools the server publishes, in `tools/list` order.
    #[serde(default)]
    pub tools: Vec<Tool>,
    /// Existing MCP servers the gateway guards; tools with `upstream = "NAME"` call them.
    #[serde(default)]
    pub upstreams: Vec<Upstream>,
    /// Static resources, in `resources/list` order.
    #[serde(default)]
    pub resources: Vec<Resource>,
    /// Resource templates, each read by a body.
    #[serde(default)]
    pub resource_templates: Vec<ResourceTemplate>,
    /// Prompts, in `prompts/list` order.
    #[serde(default)]
    pub prompts: Vec<Prompt>,
    /// Caching hints on list and read results.
    #[serde(default)]
    pub caching: Caching,
    /// Harbor task metadata; with it, `bundle` writes a Harbor task directory.
    pub task: Option<bundle::Task>,
    /// The environment phase and the main container.
    pub environment: Option<bundle::Environment>,
    /// The agent phase.
    pub agent: Option<bundle::Agent>,
    /// The verifier phase.
    pub verifier: Option<bundle::Verifier>,
    /// The Compose services.
    pub compose: Option<bundle::Compose>,
    /// Skills copied into the main image.
    #[serde(default)]
    pub skills: Vec<bundle::Skill>,
    /// Files Harbor collects after the agent run.
    #[serde(default)]
    pub artifacts: Vec<bundle::Artifact>,
    /// A Reward Kit agent judge, written under tests/.
    pub judge: Option<bundle::Judge>,
}
