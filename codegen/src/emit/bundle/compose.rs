//! environment/docker-compose.yaml as a typed value, serialized by `serde_yaml_ng`.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::emit::bundle::layout::{
    MAIN_BASE_IMAGE_ARG, MAIN_BASE_IMAGE_ENV, MAIN_START, SERVICE_BASE_IMAGE_ARG,
    VERIFIER_BASE_IMAGE_ARG, VERIFIER_BASE_IMAGE_ENV, binary_name, health_url,
    service_base_image_env,
};
use crate::emit::options::{EmitOptions, generated_notice};
use crate::model::bundle::BundleModel;

#[derive(Serialize)]
struct ComposeFile {
    services: BTreeMap<String, Service>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    volumes: BTreeMap<String, Volume>,
}

/// A named volume with Compose's defaults.
#[derive(Serialize)]
struct Volume {}

#[derive(Default, Serialize)]
struct Service {
    #[serde(skip_serializing_if = "Option::is_none")]
    image: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    build: Option<Build>,
    #[serde(skip_serializing_if = "Option::is_none")]
    command: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    user: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    read_only: Option<bool>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    volumes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cap_drop: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    security_opt: Option<Vec<String>>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    environment: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    networks: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    network_mode: Option<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    depends_on: BTreeMap<String, DependsOn>,
    #[serde(skip_serializing_if = "Option::is_none")]
    healthcheck: Option<Healthcheck>,
}

#[derive(Serialize)]
struct Build {
    context: String,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    args: BTreeMap<String, String>,
}

/// A build from `.` whose base image is the build argument `arg`, defaulting to `image` and
/// overridden by the environment variable `env`.
fn build_with_base(arg: &str, env: &str, image: &str) -> Build {
    Build {
        context: ".".into(),
        args: BTreeMap::from([(arg.to_owned(), format!("${{{env}:-{image}}}"))]),
    }
}

fn header(options: &EmitOptions) -> String {
    format!("# {}\n", generated_notice(&options.manifest_name))
}

/// The text of tests/docker-compose.yaml, which Harbor merges into the separate verifier's
/// compose files: only the verifier's base image as an overridable build argument.
pub(crate) fn verifier_compose_yaml(bundle: &BundleModel, options: &EmitOptions) -> String {
    let image = &bundle.verifier.image;
    let main = Service {
        build: Some(build_with_base(
            VERIFIER_BASE_IMAGE_ARG,
            VERIFIER_BASE_IMAGE_ENV,
            image,
        )),
        ..Service::default()
    };
    let file = ComposeFile {
        services: BTreeMap::from([("main".to_owned(), main)]),
        volumes: BTreeMap::new(),
    };
    let yaml = serde_yaml_ng::to_string(&file).expect("compose is plain YAML");
    format!("{}{yaml}", header(options))
}

#[derive(Serialize)]
struct DependsOn {
    condition: &'static str,
}

#[derive(Serialize)]
struct Healthcheck {
    test: Vec<String>,
    interval: String,
    timeout: String,
    retries: u32,
    start_period: String,
}

/// The text of docker-compose.yaml. main is built from environment/ (so the file also runs
/// alone, as `make demo` does; Harbor's own base file names the same context), kept alive,
/// and waits for the healthy sidecar. The sidecar runs the server with a read-only root, its
/// log directory on a named volume (Harbor copies artifacts out with `docker compose cp`,
/// which cannot read a tmpfs), no published ports, no capabilities, and a healthcheck that
/// runs the binary itself. A stdio server has no sidecar: it runs inside main.
pub(crate) fn compose_yaml(bundle: &BundleModel, options: &EmitOptions) -> String {
    let sidecar = &bundle.sidecar;
    let log_volume = format!("{}-logs", sidecar.name);
    let processes = !bundle.main.programs.processes.is_empty();
    let mut services = BTreeMap::new();
    // On stdio there is no sidecar: the agent's MCP client starts the server inside main.
    let mut depends_on = BTreeMap::new();
    if !sidecar.in_main {
        depends_on.insert(
            sidecar.name.clone(),
            DependsOn {
                condition: "service_healthy",
            },
        );
    }
    for service in &bundle.services {
        let condition = match service.healthcheck {
            Some(_) => "service_healthy",
            None => "service_started",
        };
        depends_on.insert(service.name.clone(), DependsOn { condition });
    }
    let main = Service {
        build: Some(build_with_base(
            MAIN_BASE_IMAGE_ARG,
            MAIN_BASE_IMAGE_ENV,
            &bundle.main.base_image,
        )),
        command: Some(if processes {
            vec![MAIN_START.into()]
        } else {
            vec!["sleep".into(), "infinity".into()]
        }),
        // The entrypoint drops to each process's user; the agent's commands run as the task's
        // agent user whatever the container's own user is (Harbor execs with its user).
        user: processes.then(|| "0:0".to_owned()),
        volumes: bundle.main.volumes.clone(),
        depends_on,
        ..Service::default()
    };
    services.insert("main".to_owned(), main);
    let mut volumes = BTreeMap::new();
    if !sidecar.in_main {
        services.insert(sidecar.name.clone(), sidecar_service(bundle, &log_volume));
        volumes.insert(log_volume, Volume {});
    }
    for service in &bundle.services {
        services.insert(
            service.name.clone(),
            Service {
                image: service.image.clone(),
                build: service.build.as_ref().map(|context| Build {
                    context: format!("./{context}"),
                    args: service
                        .base_image
                        .iter()
                        .map(|image| {
                            let env = service_base_image_env(&service.name);
                            (
                                SERVICE_BASE_IMAGE_ARG.to_owned(),
                                format!("${{{env}:-{image}}}"),
                            )
                        })
                        .collect(),
                }),
                environment: service.environment.clone(),
                networks: service.networks.clone(),
                network_mode: service.network_mode.clone(),
                volumes: service.volumes.clone(),
                healthcheck: service.healthcheck.as_ref().map(|check| Healthcheck {
                    test: vec!["CMD-SHELL".into(), check.command.clone()],
                    interval: check.interval.clone(),
                    timeout: check.timeout.clone(),
                    retries: check.retries,
                    start_period: "0s".into(),
                }),
                ..Service::default()
            },
        );
    }
    let mounts = bundle
        .main
        .volumes
        .iter()
        .chain(bundle.services.iter().flat_map(|service| &service.volumes));
    for mount in mounts {
        let name = mount.split(':').next().unwrap_or_default();
        volumes.insert(name.to_owned(), Volume {});
    }
    let yaml = serde_yaml_ng::to_string(&ComposeFile { services, volumes })
        .expect("compose is plain YAML");
    format!("{}{yaml}", header(options))
}

/// The sidecar's service: the server with a read-only root, its log directory on the named
/// volume `log_volume`, no capabilities, and a healthcheck that runs the binary itself.
fn sidecar_service(bundle: &BundleModel, log_volume: &str) -> Service {
    let sidecar = &bundle.sidecar;
    let binary = binary_name(bundle);
    let health_url = health_url(bundle);
    let uid = sidecar.uid;
    let (image, build) = match &sidecar.image {
        Some(image) => (Some(image.clone()), None),
        None => (
            None,
            Some(Build {
                context: format!("./{}", sidecar.name),
                args: sidecar
                    .base
                    .iter()
                    .map(|base| {
                        let env = service_base_image_env(&sidecar.name);
                        (
                            SERVICE_BASE_IMAGE_ARG.to_owned(),
                            format!("${{{env}:-{}}}", base.image),
                        )
                    })
                    .collect(),
            }),
        ),
    };
    let check = &sidecar.healthcheck;
    Service {
        image,
        build,
        command: Some(vec![
            "serve".into(),
            "--transport".into(),
            sidecar.transport.to_string(),
            "--bind".into(),
            sidecar.listen.to_string(),
            "--audit-path".into(),
            sidecar.audit_path.clone(),
        ]),
        user: Some(format!("{uid}:{uid}")),
        read_only: Some(sidecar.read_only),
        volumes: vec![format!("{log_volume}:{}", sidecar.log_dir)],
        cap_drop: Some(vec!["ALL".into()]),
        security_opt: Some(vec!["no-new-privileges:true".into()]),
        healthcheck: Some(Healthcheck {
            test: vec![
                "CMD".into(),
                format!("/{binary}"),
                "health".into(),
                "--url".into(),
                health_url,
            ],
            interval: check.interval.clone(),
            timeout: check.timeout.clone(),
            retries: check.retries,
            start_period: check.start_period.clone(),
        }),
        ..Service::default()
    }
}
