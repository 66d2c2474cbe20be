//! The Harbor task directory as the model decides it: every decision the bundle's files are
//! written from.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use harness_contract::TransportKind;

use crate::model::bundle::judge::JudgeModel;
use crate::model::bundle::task::TaskModel;

/// The Harbor task directory: every decision the bundle's files are written from.
#[derive(Debug, Clone)]
pub struct BundleModel {
    /// task.toml.
    pub task: TaskModel,
    /// The text of instruction.md.
    pub instruction: String,
    /// The main (agent) container.
    pub main: MainModel,
    /// The MCP sidecar that runs this server.
    pub sidecar: SidecarModel,
    /// The other services of the topology.
    pub services: Vec<ServiceModel>,
    /// `[[skills]]`, their files' bytes fixed (the ones the server serves).
    pub skills: Vec<crate::model::skills::SkillModel>,
    /// The verifier's container (tests/Dockerfile).
    pub verifier: VerifierContainer,
    /// Whether Harbor adds its egress overlay (a phase run in the agent's environment is not
    /// public), so every service shares one loopback; otherwise services meet on Compose's
    /// network by name.
    pub overlay: bool,
    /// The URL of the agent's first MCP server when it speaks streamable HTTP, which the oracle
    /// solution (solution/solve.sh) calls.
    pub oracle_url: Option<String>,
    /// A Reward Kit agent judge (`tests/<file>`).
    pub judge: Option<JudgeModel>,
}

/// The main container.
#[derive(Debug, Clone)]
pub struct MainModel {
    /// Base image of environment/Dockerfile.
    pub base_image: String,
    /// uid of the agent user the image creates.
    pub uid: u32,
    /// Working directory of the agent.
    pub workdir: String,
    /// Where the image holds the skills.
    pub skills_dir: Option<String>,
    /// Volumes mounted into main.
    pub volumes: Vec<String>,
    /// What main runs besides the agent: files, build-time setup, processes.
    pub programs: MainPrograms,
}

/// main's shipped files live at `environment/<this>/`, so no service's build context may.
pub const MAIN_FILES_DIR: &str = "main";

/// What main runs besides the agent (`[compose.main]` build_files, setup and processes).
#[derive(Debug, Clone, Default)]
pub struct MainPrograms {
    /// (path under `environment/main/`, text), held in the image at `/opt/main/`.
    pub files: Vec<(String, String)>,
    /// A shell command run at build time, as root.
    pub setup: Option<String>,
    /// Started by main's entrypoint, in order.
    pub processes: Vec<ProcessModel>,
}

/// A program main's entrypoint starts in the background.
#[derive(Debug, Clone)]
pub struct ProcessModel {
    /// Its name (its log is `/var/log/main/<name>.log`).
    pub name: String,
    /// The shell command.
    pub command: String,
    /// The user it runs as.
    pub user: String,
}

/// A sidecar built on a base image: what a gateway's stdio upstreams need to run.
#[derive(Debug, Clone)]
pub struct SidecarBase {
    /// The pinned base image (the Dockerfile's `BASE_IMAGE` argument).
    pub image: String,
    /// The shipped directory's name (held at `/opt/<sidecar>/<dir>/`) and its files (path
    /// under it, text), when there is one.
    pub files: Option<(String, Vec<(String, String)>)>,
    /// A shell command run at build time, as root.
    pub setup: Option<String>,
}

/// Where this server runs: in its own container (the sidecar), or, on stdio, as a binary in
/// main that the agent's MCP client starts.
#[derive(Debug, Clone)]
pub struct SidecarModel {
    /// Compose service name, also the binary's file name in the bundle.
    pub name: String,
    /// stdio: no sidecar service; the binary is in main's image (`/usr/local/bin/<name>`)
    /// and the agent's MCP client starts it, as the agent's user.
    pub in_main: bool,
    /// Non-root uid the server runs as.
    pub uid: u32,
    /// Read-only root filesystem.
    pub read_only: bool,
    /// A pinned image to run instead of building one from the bundled binary.
    pub image: Option<String>,
    /// The image the sidecar builds on instead of `FROM scratch` (a gateway's upstreams).
    pub base: Option<SidecarBase>,
    /// Compose healthcheck timing.
    pub healthcheck: ComposeHealthcheck,
    /// The manifest's `[transport] bind`: where the agent reaches the server.
    pub bind: SocketAddr,
    /// Where the server listens inside its container: the manifest's bind under the overlay
    /// (one shared loopback), the same port on every interface otherwise (main reaches it by
    /// its service name).
    pub listen: SocketAddr,
    /// The transport it serves (stdio exactly when `in_main`).
    pub transport: TransportKind,
    /// The MCP endpoint path.
    pub mcp_path: String,
    /// The health endpoint path.
    pub health_path: String,
    /// Its writable log directory (the audit file's directory, a named volume).
    pub log_dir: String,
    /// The audit file.
    pub audit_path: String,
}

/// A Compose healthcheck, in Compose duration syntax.
#[derive(Debug, Clone)]
pub struct ComposeHealthcheck {
    /// Between checks.
    pub interval: String,
    /// Per check.
    pub timeout: String,
    /// Failures before unhealthy.
    pub retries: u32,
    /// Grace period.
    pub start_period: String,
}

/// Another service of the topology, as the manifest states it.
#[derive(Debug, Clone)]
pub struct ServiceModel {
    /// Compose service name.
    pub name: String,
    /// Image.
    pub image: Option<String>,
    /// Build context, relative to environment/.
    pub build: Option<String>,
    /// Environment variables.
    pub environment: BTreeMap<String, String>,
    /// Explicit networks.
    pub networks: Option<Vec<String>>,
    /// Explicit network_mode.
    pub network_mode: Option<String>,
    /// The files the bundle ships as its build context: (path under the context, text).
    pub build_files: Vec<(String, String)>,
    /// The base image its shipped Dockerfile builds from, overridable.
    pub base_image: Option<String>,
    /// Its volumes.
    pub volumes: Vec<String>,
    /// Its healthcheck command and timing.
    pub healthcheck: Option<ServiceHealthcheckModel>,
}

/// A service's `CMD-SHELL` healthcheck, Compose's defaults filled in.
#[derive(Debug, Clone)]
pub struct ServiceHealthcheckModel {
    /// The shell command.
    pub command: String,
    /// Between checks.
    pub interval: String,
    /// Per check.
    pub timeout: String,
    /// Failures before unhealthy.
    pub retries: u32,
}

/// The verifier's container, built from tests/Dockerfile.
#[derive(Debug, Clone)]
pub struct VerifierContainer {
    /// Whether it runs apart from the task environment (`environment_mode = "separate"`).
    pub separate: bool,
    /// Its base image.
    pub image: String,
    /// Its working directory.
    pub workdir: String,
}

/// The image the verifier builds from when the manifest names none: a pinned Python base (it
/// has /bin/sh, which test.sh needs).
pub const DEFAULT_VERIFIER_IMAGE: &str =
    "python:3.12-slim@sha256:c3d81d25b3154142b0b42eb1e61300024426268edeb5b5a26dd7ddf64d9daf28";
