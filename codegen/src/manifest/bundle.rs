//! The raw `[task]`, `[environment]`, `[agent]`, `[verifier]`, `[compose]`, `[[skills]]`
//! and `[[artifacts]]` tables: the Harbor task directory around the server.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;

pub use harness_contract::{FieldType, TransportKind};

/// `[task]`: Harbor task metadata.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Task {
    /// `org/name`, e.g. `llmkb/compose-topology-repair-mcp`.
    pub name: String,
    /// One line about the task.
    pub description: Option<String>,
    /// Search keywords.
    #[serde(default)]
    pub keywords: Vec<String>,
    /// Who wrote the task.
    #[serde(default)]
    pub authors: Vec<Author>,
    /// Free-form `[metadata]` of task.toml (dataset, category, difficulty...).
    #[serde(default)]
    pub metadata: BTreeMap<String, String>,
    /// The instruction the agent reads (instruction.md), inline...
    pub instruction: Option<String>,
    /// ...or from a file, relative to the manifest.
    pub instruction_file: Option<String>,
}

/// A task author.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Author {
    /// Name.
    pub name: String,
    /// Email address.
    pub email: Option<String>,
}

/// A Harbor network policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NetworkMode {
    /// Unrestricted.
    Public,
    /// No network at all.
    NoNetwork,
    /// Only `allowed_hosts`.
    Allowlist,
}

/// `[environment]`: the environment phase and the main container.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Environment {
    /// Operating system.
    #[serde(default = "default_os")]
    pub os: String,
    /// Working directory of the agent.
    #[serde(default = "default_workdir")]
    pub workdir: String,
    /// Image build timeout.
    pub build_timeout_sec: Option<u64>,
    /// CPUs.
    pub cpus: Option<u32>,
    /// Memory in MiB.
    pub memory_mb: Option<u64>,
    /// Network policy of the environment phase (and of agent setup).
    pub network_mode: Option<NetworkMode>,
    /// Hosts reachable in allowlist mode.
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
    /// Where the main image holds the skills (`[[skills]]` are copied there).
    pub skills_dir: Option<String>,
    /// Harbor's environment healthcheck, run in main.
    pub healthcheck: Option<Healthcheck>,
    /// MCP servers handed to the agent.
    #[serde(default)]
    pub mcp_servers: Vec<McpServer>,
}

fn default_os() -> String {
    "linux".to_owned()
}

fn default_workdir() -> String {
    "/workspace".to_owned()
}

/// `[environment.healthcheck]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Healthcheck {
    /// Shell command run in main.
    pub command: String,
    /// Seconds between checks.
    pub interval_sec: Option<u64>,
    /// Seconds before a check fails.
    pub timeout_sec: Option<u64>,
    /// Grace period.
    pub start_period_sec: Option<u64>,
    /// Failures before unhealthy.
    pub retries: Option<u32>,
}

/// `[[environment.mcp_servers]]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct McpServer {
    /// Registration name.
    pub name: String,
    /// Transport (Harbor's default is `sse`).
    pub transport: Option<TransportKind>,
    /// Endpoint of `sse` and `streamable-http`.
    pub url: Option<String>,
    /// Command of `stdio`.
    pub command: Option<String>,
    /// Arguments of `stdio`.
    pub args: Option<Vec<String>>,
    /// Not a Harbor field here: accepted only so the lint can say where it belongs.
    pub allowed_tools: Option<Vec<String>>,
}

/// `[agent]`: the agent phase.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Agent {
    /// Agent timeout.
    pub timeout_sec: Option<u64>,
    /// The uid the agent runs as.
    pub user: Option<u32>,
    /// Network policy of `agent.run()`.
    pub network_mode: Option<NetworkMode>,
    /// Hosts reachable in allowlist mode.
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
}

/// Whether the verifier shares the environment or gets its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EnvironmentMode {
    /// Runs inside the task environment.
    Shared,
    /// Runs in its own container built from tests/.
    Separate,
}

/// `[verifier]`: the verifier phase.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Verifier {
    /// Verifier timeout.
    pub timeout_sec: Option<u64>,
    /// `shared` or `separate`.
    pub environment_mode: Option<EnvironmentMode>,
    /// Network policy of the verifier phase.
    pub network_mode: Option<NetworkMode>,
    /// Hosts reachable in allowlist mode.
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
    /// Base image of the separate verifier (tests/Dockerfile), pinned by digest.
    pub image: Option<String>,
    /// `[verifier.environment]` of a separate verifier.
    pub environment: Option<VerifierEnvironment>,
    /// `[[verifier.collect]]` hooks, run before the verifier.
    #[serde(default)]
    pub collect: Vec<Collect>,
    /// `[[verifier.checks]]`: what `verify` checks, in order.
    #[serde(default)]
    pub checks: Vec<Check>,
}

/// What a check looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CheckKind {
    /// At least one audit record of `tool` with `arguments` and `outcome`.
    AuditCall,
    /// A JSON state file with exactly `fields`; `require` (trust) and `expect` (candidate).
    StateFile,
    /// `path` exists.
    FileExists,
    /// At most `max_calls` audit records, none with an outcome in `forbid_outcomes`.
    CallBudget,
}

/// `[[verifier.checks]]`: one check; which keys apply depends on `kind`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Check {
    /// What the check looks at.
    pub kind: CheckKind,
    /// audit_call: the tool.
    pub tool: Option<String>,
    /// audit_call: the arguments (validated and completed with defaults at build time, then
    /// compared through args_sha256).
    #[schemars(with = "Option<BTreeMap<String, serde_json::Value>>")]
    pub arguments: Option<toml::Table>,
    /// audit_call: the outcome (default `ok`).
    pub outcome: Option<String>,
    /// state_file, file_exists: the file's path in the task environment (an artifact source).
    pub path: Option<String>,
    /// state_file: the exact field set and types.
    pub fields: Option<BTreeMap<String, FieldType>>,
    /// state_file: values the evidence must have to be trusted (else infrastructure failure).
    #[schemars(with = "Option<BTreeMap<String, serde_json::Value>>")]
    pub require: Option<toml::Table>,
    /// state_file: values the candidate must have produced (else candidate failure).
    #[schemars(with = "Option<BTreeMap<String, serde_json::Value>>")]
    pub expect: Option<toml::Table>,
    /// call_budget: at most this many calls.
    pub max_calls: Option<u64>,
    /// call_budget: outcomes no call may have.
    pub forbid_outcomes: Option<Vec<String>>,
}

/// `[verifier.environment]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct VerifierEnvironment {
    /// Operating system.
    pub os: Option<String>,
    /// Working directory.
    pub workdir: Option<String>,
    /// CPUs.
    pub cpus: Option<u32>,
    /// Memory in MiB.
    pub memory_mb: Option<u64>,
    /// Network policy.
    pub network_mode: Option<NetworkMode>,
    /// Hosts reachable in allowlist mode.
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
}

/// `[[verifier.collect]]`: evidence gathered from a service before the verifier runs.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Collect {
    /// The compose service (default `main`).
    #[serde(default = "default_main")]
    pub service: String,
    /// User to run as.
    pub user: Option<String>,
    /// Timeout.
    pub timeout_sec: Option<u64>,
    /// Shell command.
    pub command: String,
}

fn default_main() -> String {
    "main".to_owned()
}

/// `[[artifacts]]`: a file Harbor copies out of a service.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Artifact {
    /// Path inside the service.
    pub source: String,
    /// Path inside the artifacts directory (relative).
    pub destination: String,
    /// The compose service (default main).
    pub service: Option<String>,
}

/// `[[skills]]`: an Agent Skill the server publishes (the skills extension: `skills/list`,
/// `skills/get`, each file a resource with its SHA-256 digest) and a task bundle copies into
/// the main image's `skills_dir`. Either a directory (`dir`), written from the manifest
/// (`name`, `description`, `body_file`), or an upstream's (`upstream`, `uri`, `pin_sha256`),
/// served through the gateway and never copied into a bundle.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Skill {
    /// The skill's name, e.g. `incident-triage` (1 to 64 lowercase letters, digits and single
    /// hyphens): its directory and the last segment of its URI. With `body_file` only; a
    /// directory's SKILL.md says it.
    pub name: Option<String>,
    /// One line saying when to use it. With `body_file` only.
    pub description: Option<String>,
    /// The Markdown body of its SKILL.md, relative to the manifest; the frontmatter (name,
    /// description) is written from the keys above.
    pub body_file: Option<String>,
    /// A directory, relative to the manifest, named as the skill, holding its SKILL.md (YAML
    /// frontmatter with `name` and `description`, other fields kept) and any supporting
    /// files (UTF-8 text; at most 512 files and 16 MiB).
    pub dir: Option<String>,
    /// The `[[upstreams]]` entry that serves this skill: the gateway reads its files from
    /// there, checks them against the pin and cleans their text (tag strip, hidden
    /// characters) before serving them.
    pub upstream: Option<String>,
    /// With `upstream`: the skill's `SKILL.md` URI as the upstream lists it, e.g.
    /// `skill://triage/SKILL.md`.
    pub uri: Option<String>,
    /// With `upstream`: sha256 (64 lower-case hex digits) of the upstream's `skills/list`
    /// entry (frontmatter, and each file's URI, digest and size), written by `harness-codegen
    /// import`.
    pub pin_sha256: Option<String>,
}

/// `[compose]`: the services of environment/docker-compose.yaml.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Compose {
    /// The main (agent) container.
    pub main: MainService,
    /// The MCP sidecar that runs this server.
    #[serde(default)]
    pub sidecar: Sidecar,
    /// Other services of the topology (db, proxy...).
    #[serde(default)]
    pub services: Vec<Service>,
}

/// `[compose.main]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct MainService {
    /// Base image of environment/Dockerfile, pinned by digest.
    pub base_image: String,
    /// uid of the agent user the image creates.
    #[serde(default = "default_agent_uid")]
    pub uid: u32,
    /// Loopback ports main listens on.
    #[serde(default)]
    pub ports: Vec<u16>,
    /// Volumes mounted into main (`name:/path`, `name:/path:ro`), e.g. a configuration
    /// another service reads.
    #[serde(default)]
    pub volumes: Vec<String>,
    /// A directory next to the manifest whose files the bundle ships as `environment/main/`
    /// and main's image holds at `/opt/main/` (a program of the task that runs beside the
    /// agent, such as the API the agent repairs).
    pub build_files: Option<String>,
    /// A shell command main's image runs at build time, as root, after `build_files` are in
    /// place (installing what its processes need).
    pub setup: Option<String>,
    /// Programs main starts before the agent's phase, each under its own user, so the agent
    /// (its own uid) can reach them on loopback but cannot signal or replace them.
    #[serde(default)]
    pub processes: Vec<MainProcess>,
}

/// `[[compose.main.processes]]`: a program main's entrypoint starts in the background.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct MainProcess {
    /// Its name: its log is `/var/log/main/<name>.log`.
    pub name: String,
    /// The shell command that runs it.
    pub command: String,
    /// The user it runs as (a name or uid the image knows), never root or the agent's uid.
    pub user: String,
}

fn default_agent_uid() -> u32 {
    1000
}

/// `[compose.sidecar]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Sidecar {
    /// Compose service name.
    #[serde(default = "default_sidecar_name")]
    pub name: String,
    /// Non-root uid the server runs as.
    #[serde(default = "default_sidecar_uid")]
    pub uid: u32,
    /// Read-only root filesystem.
    #[serde(default = "yes")]
    pub read_only: bool,
    /// Run this image (pinned by digest) instead of building one from the bundled binary.
    pub image: Option<String>,
    /// Build the sidecar on this image (pinned by digest) instead of `FROM scratch`, for a
    /// gateway whose stdio upstreams need a runtime (Python, Node); its Dockerfile's
    /// `BASE_IMAGE` argument, overridable with `HARNESS_<SIDECAR>_BASE_IMAGE`.
    pub base_image: Option<String>,
    /// A directory next to the manifest the sidecar image holds under its working directory
    /// `/opt/<name>/` by the same name (so an upstream's relative paths work unchanged);
    /// needs `base_image`.
    pub build_files: Option<String>,
    /// A shell command run at build time, as root, on `base_image` (installing what the
    /// upstreams need); needs `base_image`.
    pub setup: Option<String>,
    /// Compose healthcheck timing.
    #[serde(default)]
    pub healthcheck: SidecarHealthcheck,
}

impl Default for Sidecar {
    fn default() -> Self {
        Self {
            name: default_sidecar_name(),
            uid: default_sidecar_uid(),
            read_only: true,
            image: None,
            base_image: None,
            build_files: None,
            setup: None,
            healthcheck: SidecarHealthcheck::default(),
        }
    }
}

fn default_sidecar_name() -> String {
    "monitor-mcp".to_owned()
}

fn default_sidecar_uid() -> u32 {
    10001
}

fn yes() -> bool {
    true
}

/// `[compose.sidecar.healthcheck]`, in Compose duration syntax.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct SidecarHealthcheck {
    /// Between checks.
    pub interval: String,
    /// Per check.
    pub timeout: String,
    /// Failures before unhealthy.
    pub retries: u32,
    /// Grace period.
    pub start_period: String,
}

impl Default for SidecarHealthcheck {
    fn default() -> Self {
        Self {
            interval: "2s".to_owned(),
            timeout: "3s".to_owned(),
            retries: 15,
            start_period: "5s".to_owned(),
        }
    }
}

/// `[[compose.services]]`: another service of the topology.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Service {
    /// Compose service name.
    pub name: String,
    /// Image, pinned by digest.
    pub image: Option<String>,
    /// Build context, relative to environment/.
    pub build: Option<String>,
    /// Loopback ports it listens on.
    #[serde(default)]
    pub ports: Vec<u16>,
    /// Explicit networks (takes the service out of the egress overlay).
    pub networks: Option<Vec<String>>,
    /// Explicit network_mode (takes the service out of the egress overlay).
    pub network_mode: Option<String>,
    /// Environment variables.
    #[serde(default)]
    pub environment: BTreeMap<String, String>,
    /// A directory next to the manifest whose files the bundle ships as the build context
    /// (`environment/<build>/`); needs `build`.
    pub build_files: Option<String>,
    /// The base image the shipped Dockerfile builds from (its `BASE_IMAGE` argument), pinned
    /// by digest; `HARNESS_<SERVICE>_BASE_IMAGE` overrides it (a local image where no
    /// registry is reachable). Needs `build_files`.
    pub base_image: Option<String>,
    /// Volumes (`name:/path`, `name:/path:ro`); a name shared with main shares the files.
    #[serde(default)]
    pub volumes: Vec<String>,
    /// A shell command Compose runs to tell the service healthy; main waits for it.
    pub healthcheck: Option<ServiceHealthcheck>,
}

/// `[compose.services.healthcheck]`: a `CMD-SHELL` healthcheck, in Compose duration syntax.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ServiceHealthcheck {
    /// Run with the service's shell; exit 0 is healthy.
    pub command: String,
    /// Between checks (default 2s).
    pub interval: Option<String>,
    /// Per check (default 5s).
    pub timeout: Option<String>,
    /// Failures before unhealthy (default 30).
    pub retries: Option<u32>,
}

/// `[judge]`: a Reward Kit agent judge for the task, written to `tests/<file>`. Its
/// `[[judge.mcp_servers]]` entry is generated: a judge-side copy of this server (the
/// verifier's binary over stdio, with an audit of its own) whose `allowed_tools` are the tools
/// the server publishes. `allowed_tools` belongs here, never to the task's MCP servers.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Judge {
    /// The agent that judges: `claude-code` or `codex` (Reward Kit's agent judges that honour
    /// `allowed_tools`).
    pub judge: String,
    /// The judge's model, as Reward Kit names it.
    pub model: Option<String>,
    /// The judge TOML's file name under tests/ (default `judge.toml`).
    pub file: Option<String>,
    /// Files the judge reads, as the verifier sees them.
    #[serde(default)]
    pub files: Vec<String>,
    /// What the judge decides, one criterion each.
    #[serde(default)]
    pub criteria: Vec<JudgeCriterion>,
}

/// `[[judge.criteria]]`: one binary criterion (Reward Kit's `[[criterion]]`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct JudgeCriterion {
    /// Its name in Reward Kit's report.
    pub name: Option<String>,
    /// What the judge is asked.
    pub description: String,
}
