//! task.toml (schema 1.3) as a typed value, serialized by the `toml` crate.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::emit::{EmitOptions, generated_notice};
use crate::manifest::bundle::{EnvironmentMode, NetworkMode, TransportKind};
use crate::model::bundle::BundleModel;

#[derive(Serialize)]
struct TaskToml<'a> {
    schema_version: &'static str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    artifacts: Vec<ArtifactEntry<'a>>,
    task: TaskEntry<'a>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    metadata: &'a BTreeMap<String, String>,
    environment: EnvironmentEntry<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent: Option<AgentEntry<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    verifier: Option<VerifierEntry<'a>>,
}

#[derive(Serialize)]
struct ArtifactEntry<'a> {
    source: &'a str,
    destination: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    service: Option<&'a str>,
}

#[derive(Serialize)]
struct TaskEntry<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    keywords: &'a [String],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    authors: Vec<AuthorEntry<'a>>,
}

#[derive(Serialize)]
struct AuthorEntry<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    email: Option<&'a str>,
}

#[derive(Serialize)]
struct EnvironmentEntry<'a> {
    os: &'a str,
    workdir: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    build_timeout_sec: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cpus: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    memory_mb: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    network_mode: Option<NetworkMode>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    allowed_hosts: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    skills_dir: Option<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    mcp_servers: Vec<McpServerEntry<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    healthcheck: Option<HealthcheckEntry<'a>>,
}

#[derive(Serialize)]
struct McpServerEntry<'a> {
    name: &'a str,
    transport: TransportKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    command: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    args: Option<&'a [String]>,
}

#[derive(Serialize)]
struct HealthcheckEntry<'a> {
    command: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    interval_sec: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timeout_sec: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_period_sec: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    retries: Option<u32>,
}

#[derive(Serialize)]
struct AgentEntry<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    timeout_sec: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    user: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    network_mode: Option<NetworkMode>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    allowed_hosts: &'a [String],
}

#[derive(Serialize)]
struct VerifierEntry<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    timeout_sec: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    environment_mode: Option<EnvironmentMode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    network_mode: Option<NetworkMode>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    allowed_hosts: &'a [String],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    collect: Vec<CollectEntry<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    environment: Option<VerifierEnvironmentEntry<'a>>,
}

#[derive(Serialize)]
struct CollectEntry<'a> {
    service: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    user: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timeout_sec: Option<u64>,
    command: &'a str,
}

#[derive(Serialize)]
struct VerifierEnvironmentEntry<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    os: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    workdir: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cpus: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    memory_mb: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    network_mode: Option<NetworkMode>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    allowed_hosts: &'a [String],
}

/// The text of task.toml.
pub(super) fn task_toml(bundle: &BundleModel, options: &EmitOptions) -> String {
    let (task, env, agent, verifier) = (
        &bundle.task,
        &bundle.environment,
        &bundle.agent,
        &bundle.verifier,
    );
    let document = TaskToml {
        schema_version: "1.3",
        artifacts: bundle
            .artifacts
            .iter()
            .map(|artifact| ArtifactEntry {
                source: &artifact.source,
                destination: &artifact.destination,
                service: artifact.service.as_deref(),
            })
            .collect(),
        task: TaskEntry {
            name: &task.name,
            description: task.description.as_deref(),
            keywords: &task.keywords,
            authors: task
                .authors
                .iter()
                .map(|author| AuthorEntry {
                    name: &author.name,
                    email: author.email.as_deref(),
                })
                .collect(),
        },
        metadata: &task.metadata,
        environment: EnvironmentEntry {
            os: &env.os,
            workdir: &env.workdir,
            build_timeout_sec: env.build_timeout_sec,
            cpus: env.cpus,
            memory_mb: env.memory_mb,
            network_mode: env.network_mode,
            allowed_hosts: &env.allowed_hosts,
            skills_dir: env.skills_dir.as_deref(),
            mcp_servers: env
                .mcp_servers
                .iter()
                .map(|server| McpServerEntry {
                    name: &server.name,
                    transport: server.transport.unwrap_or(TransportKind::Sse),
                    url: server.url.as_deref(),
                    command: server.command.as_deref(),
                    args: server.args.as_deref(),
                })
                .collect(),
            healthcheck: env.healthcheck.as_ref().map(|check| HealthcheckEntry {
                command: &check.command,
                interval_sec: check.interval_sec,
                timeout_sec: check.timeout_sec,
                start_period_sec: check.start_period_sec,
                retries: check.retries,
            }),
        },
        agent: Some(AgentEntry {
            timeout_sec: agent.timeout_sec,
            user: agent.user,
            network_mode: agent.network_mode,
            allowed_hosts: &agent.allowed_hosts,
        }),
        verifier: Some(VerifierEntry {
            timeout_sec: verifier.timeout_sec,
            environment_mode: verifier.environment_mode,
            network_mode: verifier.network_mode,
            allowed_hosts: &verifier.allowed_hosts,
            collect: verifier
                .collect
                .iter()
                .map(|hook| CollectEntry {
                    service: &hook.service,
                    user: hook.user.as_deref(),
                    timeout_sec: hook.timeout_sec,
                    command: &hook.command,
                })
                .collect(),
            environment: verifier
                .environment
                .as_ref()
                .map(|env| VerifierEnvironmentEntry {
                    os: env.os.as_deref(),
                    workdir: env.workdir.as_deref(),
                    cpus: env.cpus,
                    memory_mb: env.memory_mb,
                    network_mode: env.network_mode,
                    allowed_hosts: &env.allowed_hosts,
                }),
        }),
    };
    let body = toml::to_string(&document).expect("task.toml is plain TOML");
    format!("# {}\n{body}", generated_notice(&options.manifest_name))
}
