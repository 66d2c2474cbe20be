//! task.toml (Harbor schema 1.3) as the model decides it: every section with Harbor's own
//! defaults applied where the manifest leaves a key out that Harbor would not default the
//! same way (an MCP server's transport is written out as `sse`).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::manifest::bundle::{self as manifest, EnvironmentMode, NetworkMode, TransportKind};

/// The whole task.toml document.
#[derive(Debug, Clone, Serialize)]
pub struct TaskConfig {
    /// Harbor's task schema version.
    pub schema_version: &'static str,
    /// `[[artifacts]]`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub artifacts: Vec<ArtifactConfig>,
    /// `[task]`.
    pub task: TaskSection,
    /// `[metadata]`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, String>,
    /// `[environment]`.
    pub environment: EnvironmentConfig,
    /// `[agent]`.
    pub agent: PhaseConfig,
    /// `[verifier]`.
    pub verifier: VerifierConfig,
}

/// `[[artifacts]]`: a file Harbor copies out of a service.
#[derive(Debug, Clone, Serialize)]
pub struct ArtifactConfig {
    /// Path inside the service.
    pub source: String,
    /// Path inside the artifacts directory.
    pub destination: String,
    /// The compose service (Harbor's default: main).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service: Option<String>,
}

/// `[task]`.
#[derive(Debug, Clone, Serialize)]
pub struct TaskSection {
    /// `org/name`.
    pub name: String,
    /// One line about the task.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Search keywords.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
    /// Who wrote the task.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<AuthorConfig>,
}

/// A task author.
#[derive(Debug, Clone, Serialize)]
pub struct AuthorConfig {
    /// Name.
    pub name: String,
    /// Email address.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
}

/// `[environment]`.
#[derive(Debug, Clone, Serialize)]
pub struct EnvironmentConfig {
    /// Operating system.
    pub os: String,
    /// Working directory of the agent.
    pub workdir: String,
    /// Image build timeout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build_timeout_sec: Option<u64>,
    /// CPUs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpus: Option<u32>,
    /// Memory in MiB.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_mb: Option<u64>,
    /// Network policy of the environment phase.
    #[serde(flatten)]
    pub network: NetworkPolicy,
    /// Where the main image holds the skills.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skills_dir: Option<String>,
    /// MCP servers handed to the agent.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mcp_servers: Vec<McpServerConfig>,
    /// Harbor's environment healthcheck.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub healthcheck: Option<HealthcheckConfig>,
}

/// A phase's network policy; unset keys are Harbor's defaults.
#[derive(Debug, Clone, Default, Serialize)]
pub struct NetworkPolicy {
    /// `public`, `no-network` or `allowlist`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network_mode: Option<NetworkMode>,
    /// Hosts reachable in allowlist mode.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allowed_hosts: Vec<String>,
}

/// `[[environment.mcp_servers]]`.
#[derive(Debug, Clone, Serialize)]
pub struct McpServerConfig {
    /// Registration name.
    pub name: String,
    /// Transport, written out (Harbor's default is `sse`).
    pub transport: TransportKind,
    /// Endpoint of `sse` and `streamable-http`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Command of `stdio`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Arguments of `stdio`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
}

/// `[environment.healthcheck]`.
#[derive(Debug, Clone, Serialize)]
pub struct HealthcheckConfig {
    /// Shell command run in main.
    pub command: String,
    /// Seconds between checks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval_sec: Option<u64>,
    /// Seconds before a check fails.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_sec: Option<u64>,
    /// Grace period.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_period_sec: Option<u64>,
    /// Failures before unhealthy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retries: Option<u32>,
}

/// `[agent]`.
#[derive(Debug, Clone, Serialize)]
pub struct PhaseConfig {
    /// Phase timeout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_sec: Option<u64>,
    /// The uid the agent runs as.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user: Option<u32>,
    /// Network policy of the phase.
    #[serde(flatten)]
    pub network: NetworkPolicy,
}

/// `[verifier]`.
#[derive(Debug, Clone, Serialize)]
pub struct VerifierConfig {
    /// Verifier timeout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_sec: Option<u64>,
    /// `shared` or `separate`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub environment_mode: Option<EnvironmentMode>,
    /// Network policy of the verifier phase.
    #[serde(flatten)]
    pub network: NetworkPolicy,
    /// `[[verifier.collect]]` hooks.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub collect: Vec<CollectConfig>,
    /// `[verifier.environment]` of a separate verifier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub environment: Option<VerifierEnvironmentConfig>,
}

/// `[[verifier.collect]]`.
#[derive(Debug, Clone, Serialize)]
pub struct CollectConfig {
    /// The compose service.
    pub service: String,
    /// User to run as.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// Timeout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_sec: Option<u64>,
    /// Shell command.
    pub command: String,
}

/// `[verifier.environment]`.
#[derive(Debug, Clone, Serialize)]
pub struct VerifierEnvironmentConfig {
    /// Operating system.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub os: Option<String>,
    /// Working directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workdir: Option<String>,
    /// CPUs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpus: Option<u32>,
    /// Memory in MiB.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_mb: Option<u64>,
    /// Network policy.
    #[serde(flatten)]
    pub network: NetworkPolicy,
}

fn policy(network_mode: Option<NetworkMode>, allowed_hosts: &[String]) -> NetworkPolicy {
    NetworkPolicy {
        network_mode,
        allowed_hosts: allowed_hosts.to_vec(),
    }
}

impl TaskConfig {
    /// The document for checked manifest sections.
    pub(super) fn new(
        task: &manifest::Task,
        environment: &manifest::Environment,
        agent: &manifest::Agent,
        verifier: &manifest::Verifier,
        artifacts: &[manifest::Artifact],
    ) -> Self {
        Self {
            schema_version: "1.3",
            artifacts: artifacts
                .iter()
                .map(|artifact| ArtifactConfig {
                    source: artifact.source.clone(),
                    destination: artifact.destination.clone(),
                    service: artifact.service.clone(),
                })
                .collect(),
            task: TaskSection {
                name: task.name.clone(),
                description: task.description.clone(),
                keywords: task.keywords.clone(),
                authors: task
                    .authors
                    .iter()
                    .map(|author| AuthorConfig {
                        name: author.name.clone(),
                        email: author.email.clone(),
                    })
                    .collect(),
            },
            metadata: task.metadata.clone(),
            environment: EnvironmentConfig {
                os: environment.os.clone(),
                workdir: environment.workdir.clone(),
                build_timeout_sec: environment.build_timeout_sec,
                cpus: environment.cpus,
                memory_mb: environment.memory_mb,
                network: policy(environment.network_mode, &environment.allowed_hosts),
                skills_dir: environment.skills_dir.clone(),
                mcp_servers: environment
                    .mcp_servers
                    .iter()
                    .map(|server| McpServerConfig {
                        name: server.name.clone(),
                        transport: server.transport.unwrap_or(TransportKind::Sse),
                        url: server.url.clone(),
                        command: server.command.clone(),
                        args: server.args.clone(),
                    })
                    .collect(),
                healthcheck: environment
                    .healthcheck
                    .as_ref()
                    .map(|check| HealthcheckConfig {
                        command: check.command.clone(),
                        interval_sec: check.interval_sec,
                        timeout_sec: check.timeout_sec,
                        start_period_sec: check.start_period_sec,
                        retries: check.retries,
                    }),
            },
            agent: PhaseConfig {
                timeout_sec: agent.timeout_sec,
                user: agent.user,
                network: policy(agent.network_mode, &agent.allowed_hosts),
            },
            verifier: VerifierConfig {
                timeout_sec: verifier.timeout_sec,
                environment_mode: verifier.environment_mode,
                network: policy(verifier.network_mode, &verifier.allowed_hosts),
                collect: verifier
                    .collect
                    .iter()
                    .map(|hook| CollectConfig {
                        service: hook.service.clone(),
                        user: hook.user.clone(),
                        timeout_sec: hook.timeout_sec,
                        command: hook.command.clone(),
                    })
                    .collect(),
                environment: verifier
                    .environment
                    .as_ref()
                    .map(|env| VerifierEnvironmentConfig {
                        os: env.os.clone(),
                        workdir: env.workdir.clone(),
                        cpus: env.cpus,
                        memory_mb: env.memory_mb,
                        network: policy(env.network_mode, &env.allowed_hosts),
                    }),
            },
        }
    }
}
