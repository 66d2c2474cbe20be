//! task.toml (Harbor schema 1.3): the model's task decisions in Harbor's document shape, every
//! section with Harbor's own defaults applied where the manifest leaves a key out that Harbor
//! would not default the same way (an MCP server's transport is written out as `sse`),
//! serialized by the `toml` crate.

use std::collections::BTreeMap;

use harness_contract::TransportKind;
use serde::Serialize;

use crate::emit::options::{EmitOptions, generated_notice};
use crate::manifest::bundle::{EnvironmentMode, NetworkMode};
use crate::model::bundle::BundleModel;
use crate::model::bundle::task::{NetworkPolicy, TaskModel, mcp_transport};

/// The text of task.toml.
pub(crate) fn task_toml(bundle: &BundleModel, options: &EmitOptions) -> String {
    let config = TaskConfig::new(&bundle.task);
    let body = toml::to_string(&config).expect("task.toml is plain TOML");
    format!("# {}\n{body}", generated_notice(&options.manifest_name))
}

/// The whole task.toml document.
#[derive(Serialize)]
struct TaskConfig {
    /// Harbor's task schema version.
    schema_version: &'static str,
    /// `[[artifacts]]`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    artifacts: Vec<ArtifactConfig>,
    /// `[task]`.
    task: TaskSection,
    /// `[metadata]`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    metadata: BTreeMap<String, String>,
    /// `[environment]`.
    environment: EnvironmentConfig,
    /// `[agent]`.
    agent: PhaseConfig,
    /// `[verifier]`.
    verifier: VerifierConfig,
}

/// `[[artifacts]]`: a file Harbor copies out of a service.
#[derive(Serialize)]
struct ArtifactConfig {
    /// Path inside the service.
    source: String,
    /// Path inside the artifacts directory.
    destination: String,
    /// The compose service (Harbor's default: main).
    #[serde(skip_serializing_if = "Option::is_none")]
    service: Option<String>,
}

/// `[task]`.
#[derive(Serialize)]
struct TaskSection {
    /// `org/name`.
    name: String,
    /// One line about the task.
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    /// Search keywords.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    keywords: Vec<String>,
    /// Who wrote the task.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    authors: Vec<AuthorConfig>,
}

/// A task author.
#[derive(Serialize)]
struct AuthorConfig {
    /// Name.
    name: String,
    /// Email address.
    #[serde(skip_serializing_if = "Option::is_none")]
    email: Option<String>,
}

/// `[environment]`.
#[derive(Serialize)]
struct EnvironmentConfig {
    /// Operating system.
    os: String,
    /// Working directory of the agent.
    workdir: String,
    /// Image build timeout.
    #[serde(skip_serializing_if = "Option::is_none")]
    build_timeout_sec: Option<u64>,
    /// CPUs.
    #[serde(skip_serializing_if = "Option::is_none")]
    cpus: Option<u32>,
    /// Memory in MiB.
    #[serde(skip_serializing_if = "Option::is_none")]
    memory_mb: Option<u64>,
    /// Network policy of the environment phase.
    #[serde(flatten)]
    network: NetworkConfig,
    /// Where the main image holds the skills.
    #[serde(skip_serializing_if = "Option::is_none")]
    skills_dir: Option<String>,
    /// MCP servers handed to the agent.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    mcp_servers: Vec<McpServerConfig>,
    /// Harbor's environment healthcheck.
    #[serde(skip_serializing_if = "Option::is_none")]
    healthcheck: Option<HealthcheckConfig>,
}

/// A phase's network policy; unset keys are Harbor's defaults.
#[derive(Serialize)]
struct NetworkConfig {
    /// `public`, `no-network` or `allowlist`.
    #[serde(skip_serializing_if = "Option::is_none")]
    network_mode: Option<NetworkMode>,
    /// Hosts reachable in allowlist mode.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    allowed_hosts: Vec<String>,
}

/// `[[environment.mcp_servers]]`.
#[derive(Serialize)]
struct McpServerConfig {
    /// Registration name.
    name: String,
    /// Transport, written out (Harbor's default is `sse`).
    transport: TransportKind,
    /// Endpoint of `sse` and `streamable-http`.
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<String>,
    /// Command of `stdio`.
    #[serde(skip_serializing_if = "Option::is_none")]
    command: Option<String>,
    /// Arguments of `stdio`.
    #[serde(skip_serializing_if = "Option::is_none")]
    args: Option<Vec<String>>,
}

/// `[environment.healthcheck]`.
#[derive(Serialize)]
struct HealthcheckConfig {
    /// Shell command run in main.
    command: String,
    /// Seconds between checks.
    #[serde(skip_serializing_if = "Option::is_none")]
    interval_sec: Option<u64>,
    /// Seconds before a check fails.
    #[serde(skip_serializing_if = "Option::is_none")]
    timeout_sec: Option<u64>,
    /// Grace period.
    #[serde(skip_serializing_if = "Option::is_none")]
    start_period_sec: Option<u64>,
    /// Failures before unhealthy.
    #[serde(skip_serializing_if = "Option::is_none")]
    retries: Option<u32>,
}

/// `[agent]`.
#[derive(Serialize)]
struct PhaseConfig {
    /// Phase timeout.
    #[serde(skip_serializing_if = "Option::is_none")]
    timeout_sec: Option<u64>,
    /// The uid the agent runs as.
    #[serde(skip_serializing_if = "Option::is_none")]
    user: Option<u32>,
    /// Network policy of the phase.
    #[serde(flatten)]
    network: NetworkConfig,
}

/// `[verifier]`.
#[derive(Serialize)]
struct VerifierConfig {
    /// Verifier timeout.
    #[serde(skip_serializing_if = "Option::is_none")]
    timeout_sec: Option<u64>,
    /// `shared` or `separate`.
    #[serde(skip_serializing_if = "Option::is_none")]
    environment_mode: Option<EnvironmentMode>,
    /// Network policy of the verifier phase.
    #[serde(flatten)]
    network: NetworkConfig,
    /// `[[verifier.collect]]` hooks.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    collect: Vec<CollectConfig>,
    /// `[verifier.environment]` of a separate verifier.
    #[serde(skip_serializing_if = "Option::is_none")]
    environment: Option<VerifierEnvironmentConfig>,
}

/// `[[verifier.collect]]`.
#[derive(Serialize)]
struct CollectConfig {
    /// The compose service.
    service: String,
    /// User to run as.
    #[serde(skip_serializing_if = "Option::is_none")]
    user: Option<String>,
    /// Timeout.
    #[serde(skip_serializing_if = "Option::is_none")]
    timeout_sec: Option<u64>,
    /// Shell command.
    command: String,
}

/// `[verifier.environment]`.
#[derive(Serialize)]
struct VerifierEnvironmentConfig {
    /// Operating system.
    #[serde(skip_serializing_if = "Option::is_none")]
    os: Option<String>,
    /// Working directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    workdir: Option<String>,
    /// CPUs.
    #[serde(skip_serializing_if = "Option::is_none")]
    cpus: Option<u32>,
    /// Memory in MiB.
    #[serde(skip_serializing_if = "Option::is_none")]
    memory_mb: Option<u64>,
    /// Network policy.
    #[serde(flatten)]
    network: NetworkConfig,
}

impl TaskConfig {
    /// The document of the model's decisions.
    fn new(decided: &TaskModel) -> Self {
        let TaskModel {
            task,
            environment,
            agent,
            verifier,
            artifacts,
            networks,
        } = decided;
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
                network: NetworkConfig::from(&networks.environment),
                skills_dir: environment.skills_dir.clone(),
                mcp_servers: environment
                    .mcp_servers
                    .iter()
                    .map(|server| McpServerConfig {
                        name: server.name.clone(),
                        transport: mcp_transport(server),
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
                network: NetworkConfig::from(&networks.agent),
            },
            verifier: VerifierConfig {
                timeout_sec: verifier.timeout_sec,
                environment_mode: verifier.environment_mode,
                network: NetworkConfig::from(&networks.verifier),
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
                // The model decides a network for exactly the verifier environment the
                // manifest gives.
                environment: verifier
                    .environment
                    .as_ref()
                    .zip(networks.verifier_environment.as_ref())
                    .map(|(env, network)| VerifierEnvironmentConfig {
                        os: env.os.clone(),
                        workdir: env.workdir.clone(),
                        cpus: env.cpus,
                        memory_mb: env.memory_mb,
                        network: NetworkConfig::from(network),
                    }),
            },
        }
    }
}

impl From<&NetworkPolicy> for NetworkConfig {
    fn from(policy: &NetworkPolicy) -> Self {
        Self {
            network_mode: policy.network_mode,
            allowed_hosts: policy.allowed_hosts.clone(),
        }
    }
}
