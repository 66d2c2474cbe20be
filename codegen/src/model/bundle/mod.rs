//! The validated Harbor task around the server: the decisions every bundle file is written
//! from ([`BundleModel`]), the task.toml document ([`task_config`]), and the lints that catch
//! what Harbor itself does not check ([`lints`]), each an error with its location and a help
//! line.

mod lints;
pub mod task_config;

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::path::Path;

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::manifest::bundle::NetworkMode;
use crate::manifest::{Manifest, TransportKind};
use crate::manifest_path::ManifestPath;
use lints::Lints;

pub use crate::manifest::bundle::EnvironmentMode;
pub use task_config::TaskConfig;

/// The Harbor task directory: every decision the bundle's files are written from.
#[derive(Debug, Clone)]
pub struct BundleModel {
    /// task.toml.
    pub task_config: TaskConfig,
    /// The text of instruction.md.
    pub instruction: String,
    /// The main (agent) container.
    pub main: MainModel,
    /// The MCP sidecar that runs this server.
    pub sidecar: SidecarModel,
    /// The other services of the topology.
    pub services: Vec<ServiceModel>,
    /// `[[skills]]` with their bodies read.
    pub skills: Vec<SkillModel>,
    /// The verifier's container (tests/Dockerfile).
    pub verifier: VerifierContainer,
    /// Whether Harbor adds its egress overlay (a phase run in the agent's environment is not
    /// public), so every service shares one loopback; otherwise services meet on Compose's
    /// network by name.
    pub overlay: bool,
    /// The URL of the agent's first MCP server when it speaks streamable HTTP, which the oracle
    /// solution (solution/solve.sh) calls.
    pub oracle_url: Option<String>,
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
}

/// The sidecar: this server in its own container.
#[derive(Debug, Clone)]
pub struct SidecarModel {
    /// Compose service name, also the binary's file name in the bundle.
    pub name: String,
    /// Non-root uid the server runs as.
    pub uid: u32,
    /// Read-only root filesystem.
    pub read_only: bool,
    /// A pinned image to run instead of building one from the bundled binary.
    pub image: Option<String>,
    /// Compose healthcheck timing.
    pub healthcheck: ComposeHealthcheck,
    /// The manifest's `[transport] bind`: where the agent reaches the server.
    pub bind: SocketAddr,
    /// Where the server listens inside its container: the manifest's bind under the overlay
    /// (one shared loopback), the same port on every interface otherwise (main reaches it by
    /// its service name).
    pub listen: SocketAddr,
    /// The HTTP transport it serves.
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

/// The sidecar's listening address for the topology: see [`SidecarModel::listen`].
fn sidecar_listen(bind: SocketAddr, overlay: bool) -> SocketAddr {
    if overlay || !bind.ip().is_loopback() {
        return bind;
    }
    let any: IpAddr = if bind.is_ipv4() {
        std::net::Ipv4Addr::UNSPECIFIED.into()
    } else {
        std::net::Ipv6Addr::UNSPECIFIED.into()
    };
    SocketAddr::new(any, bind.port())
}

/// A skill with its body.
#[derive(Debug, Clone)]
pub struct SkillModel {
    /// Directory name.
    pub name: String,
    /// When to use it.
    pub description: String,
    /// Markdown body.
    pub body: String,
}

/// Checks the bundle sections of `manifest`; `None` when it has no `[task]`.
pub(crate) fn build(
    manifest: &Manifest,
    base_dir: &Path,
    inputs: &mut Vec<std::path::PathBuf>,
    diagnostics: &mut Diagnostics,
) -> Option<BundleModel> {
    let task = manifest.task.as_ref()?;
    let root = ManifestPath::root();
    let mut lint = Lints { diagnostics };
    let (Some(environment), Some(compose)) = (&manifest.environment, &manifest.compose) else {
        lint.diagnostics.report(
            Diagnostic::key(root.key("task"), "a task bundle needs [environment] and [compose]")
                .label("bundle requested here")
                .help("add [environment] (the phases' network policy) and [compose] (main's base image), or remove [task]"),
        );
        return None;
    };
    let agent = manifest.agent.clone().unwrap_or_default();
    let verifier = manifest.verifier.clone().unwrap_or_default();

    lint.task_name(task);
    let instruction = lint.instruction(task, base_dir, inputs);
    // Harbor 0.18 (environments/docker/docker.py, trial/trial.py) adds its egress overlay to
    // the agent's environment when the environment's startup policy or a phase run in it is
    // not public: the agent phase always, the verifier phase only when it shares the
    // environment. A separate verifier's policy applies to its own environment.
    let shared_verifier = verifier.environment_mode != Some(EnvironmentMode::Separate);
    let overlay = [
        environment.network_mode,
        agent.network_mode,
        verifier.network_mode.filter(|_| shared_verifier),
    ]
    .into_iter()
    .flatten()
    .any(|mode| mode != NetworkMode::Public);
    lint.allowed_hosts(
        environment.network_mode,
        &environment.allowed_hosts,
        &root.key("environment"),
    );
    lint.allowed_hosts(agent.network_mode, &agent.allowed_hosts, &root.key("agent"));
    lint.allowed_hosts(
        verifier.network_mode,
        &verifier.allowed_hosts,
        &root.key("verifier"),
    );
    if let Some(env) = &verifier.environment {
        let path = root.key("verifier").key("environment");
        lint.allowed_hosts(env.network_mode, &env.allowed_hosts, &path);
        if verifier.environment_mode == Some(EnvironmentMode::Shared) {
            lint.diagnostics.report(
                Diagnostic::key(
                    path,
                    "[verifier.environment] only applies to a separate verifier",
                )
                .label("ignored with environment_mode = \"shared\"")
                .help("set environment_mode = \"separate\", or remove [verifier.environment]"),
            );
        }
    }
    let bind: SocketAddr = manifest.transport.bind.parse().ok()?;
    if manifest.transport.kind == TransportKind::Stdio {
        lint.diagnostics.report(
            Diagnostic::value(
                root.key("transport").key("kind"),
                "the sidecar needs an HTTP transport",
            )
            .label("a Compose service cannot serve stdio")
            .help("set kind = \"streamable-http\" (or \"sse\")"),
        );
    }
    lint.mcp_servers(manifest, bind, overlay);
    lint.topology(compose, bind, overlay);
    let skills = lint.skills(
        &manifest.skills,
        environment.skills_dir.as_deref(),
        base_dir,
        inputs,
    );
    lint.artifacts(&manifest.artifacts);
    lint.collect(&verifier, &compose.sidecar);
    let (log_dir, audit_path) = lint.audit_dir(manifest);

    let separate = verifier.environment_mode == Some(EnvironmentMode::Separate);
    let verifier_container = VerifierContainer {
        separate,
        image: verifier
            .image
            .clone()
            .unwrap_or_else(|| DEFAULT_VERIFIER_IMAGE.to_owned()),
        workdir: verifier
            .environment
            .as_ref()
            .and_then(|env| env.workdir.clone())
            .unwrap_or_else(|| "/workspace".to_owned()),
    };
    let oracle_url = environment
        .mcp_servers
        .first()
        .filter(|server| server.transport == Some(TransportKind::StreamableHttp))
        .and_then(|server| server.url.clone());
    let sidecar = &compose.sidecar;
    let check = &sidecar.healthcheck;
    Some(BundleModel {
        task_config: TaskConfig::new(task, environment, &agent, &verifier, &manifest.artifacts),
        instruction: instruction?,
        main: MainModel {
            base_image: compose.main.base_image.clone(),
            uid: compose.main.uid,
            workdir: environment.workdir.clone(),
            skills_dir: environment.skills_dir.clone(),
        },
        sidecar: SidecarModel {
            name: sidecar.name.clone(),
            uid: sidecar.uid,
            read_only: sidecar.read_only,
            image: sidecar.image.clone(),
            healthcheck: ComposeHealthcheck {
                interval: check.interval.clone(),
                timeout: check.timeout.clone(),
                retries: check.retries,
                start_period: check.start_period.clone(),
            },
            bind,
            listen: sidecar_listen(bind, overlay),
            transport: match manifest.transport.kind {
                TransportKind::Sse => TransportKind::Sse,
                _ => TransportKind::StreamableHttp,
            },
            mcp_path: manifest.transport.path.clone(),
            health_path: manifest.transport.health_path.clone(),
            log_dir: log_dir?,
            audit_path,
        },
        services: compose
            .services
            .iter()
            .map(|service| ServiceModel {
                name: service.name.clone(),
                image: service.image.clone(),
                build: service.build.clone(),
                environment: service.environment.clone(),
                networks: service.networks.clone(),
                network_mode: service.network_mode.clone(),
            })
            .collect(),
        skills: skills?,
        verifier: verifier_container,
        overlay,
        oracle_url,
    })
}
