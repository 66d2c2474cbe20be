//! The order of the bundle's checks, and the decisions they lead to: whether Harbor adds its
//! egress overlay, where the sidecar listens, what the verifier runs in.

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};

use harness_contract::TransportKind;

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest::Manifest;
use crate::manifest::bundle::{EnvironmentMode, NetworkMode};
use crate::manifest_path::ManifestPath;
use crate::model::bundle::decisions::{
    BundleModel, ComposeHealthcheck, DEFAULT_VERIFIER_IMAGE, MainModel, SidecarModel,
    VerifierContainer,
};
use crate::model::bundle::task::TaskModel;
use crate::model::bundle::topology;
use crate::model::bundle::{judge, lints, services, stdio};
use crate::model::skills::SkillModel;

/// Checks the bundle sections of `manifest`; `None` when it has no `[task]`.
pub(crate) fn build(
    manifest: &Manifest,
    skills: &[SkillModel],
    base_dir: &Path,
    inputs: &mut Vec<PathBuf>,
    errors: &ErrorSink<'_>,
) -> Option<BundleModel> {
    let root = ManifestPath::root();
    let Some(task) = manifest.task.as_ref() else {
        if manifest.judge.is_some() {
            errors.report(
                Diagnostic::key(root.key("judge"), "a judge needs a task bundle")
                    .label("written only into a bundle's tests/")
                    .help("add [task], or remove [judge]"),
            );
        }
        return None;
    };
    let (Some(environment), Some(compose)) = (&manifest.environment, &manifest.compose) else {
        errors.report(
            Diagnostic::key(root.key("task"), "a task bundle needs [environment] and [compose]")
                .label("bundle requested here")
                .help("add [environment] (the phases' network policy) and [compose] (main's base image), or remove [task]"),
        );
        return None;
    };
    let agent = manifest.agent.clone().unwrap_or_default();
    let verifier = manifest.verifier.clone().unwrap_or_default();

    lints::task_name(task, errors);
    let instruction = lints::instruction(task, base_dir, inputs, errors);
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
    lints::allowed_hosts(
        environment.network_mode,
        &environment.allowed_hosts,
        &root.key("environment"),
        errors,
    );
    let agent_path = root.key("agent");
    lints::allowed_hosts(
        agent.network_mode,
        &agent.allowed_hosts,
        &agent_path,
        errors,
    );
    lints::allowed_hosts(
        verifier.network_mode,
        &verifier.allowed_hosts,
        &root.key("verifier"),
        errors,
    );
    if let Some(env) = &verifier.environment {
        let path = root.key("verifier").key("environment");
        lints::allowed_hosts(env.network_mode, &env.allowed_hosts, &path, errors);
        if verifier.environment_mode == Some(EnvironmentMode::Shared) {
            errors.report(
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
    let in_main = manifest.transport.kind == TransportKind::Stdio;
    if in_main {
        stdio::server_in_main(manifest, compose, &verifier, errors);
    }
    topology::mcp_servers(manifest, bind, overlay, errors);
    topology::topology(compose, bind, overlay, errors);
    lints::skills_dir(&manifest.skills, environment.skills_dir.as_deref(), errors);
    lints::artifacts(&manifest.artifacts, errors);
    lints::collect(&verifier, &compose.sidecar, errors);
    let (log_dir, audit_path) = lints::audit_dir(manifest, errors);
    let judge = judge::judge(manifest, errors);
    let services = services::services(compose, base_dir, inputs, errors);
    let sidecar_base = services::sidecar_base(&compose.sidecar, base_dir, inputs, errors);
    let programs =
        services::main_programs(&compose.main, &compose.services, base_dir, inputs, errors);
    // main starts as root when it has processes (to drop to each one's user), so the agent's
    // commands must name their user: Harbor runs them as the container's user otherwise.
    if !compose.main.processes.is_empty() && agent.user.is_none_or(|uid| uid == 0) {
        errors.report(
            Diagnostic::key(
                root.key("compose").key("main").key("processes"),
                "main's processes need the agent to run as a user of its own",
            )
            .label("main starts as root to drop to each process's user")
            .help(format!(
                "set [agent] user = {} (main's uid), so the agent cannot signal or replace them",
                compose.main.uid
            )),
        );
    }

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
        task: TaskModel::new(task, environment, &agent, &verifier, &manifest.artifacts),
        instruction: instruction?,
        main: MainModel {
            base_image: compose.main.base_image.clone(),
            uid: compose.main.uid,
            workdir: environment.workdir.clone(),
            skills_dir: environment.skills_dir.clone(),
            volumes: compose.main.volumes.clone(),
            programs: programs?,
        },
        sidecar: SidecarModel {
            name: sidecar.name.clone(),
            in_main,
            uid: sidecar.uid,
            read_only: sidecar.read_only,
            image: sidecar.image.clone(),
            base: sidecar_base?,
            healthcheck: ComposeHealthcheck {
                interval: check.interval.clone(),
                timeout: check.timeout.clone(),
                retries: check.retries,
                start_period: check.start_period.clone(),
            },
            bind,
            listen: sidecar_listen(bind, overlay),
            transport: manifest.transport.kind,
            mcp_path: manifest.transport.path.clone(),
            health_path: manifest.transport.health_path.clone(),
            log_dir: log_dir?,
            audit_path,
        },
        services: services?,
        skills: skills.to_vec(),
        verifier: verifier_container,
        overlay,
        oracle_url,
        judge,
    })
}

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
