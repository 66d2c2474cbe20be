//! `[[compose.services]]` as the model decides them: the files the bundle ships as a
//! service's build context (read from a directory next to the manifest, text only, every
//! file an input to rerun on), its overridable base image, its volumes and its healthcheck;
//! and what main runs beside the agent (`[compose.main]` build_files, setup, processes).

use std::path::{Path, PathBuf};

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest::bundle::{Compose, MainService, Service, Sidecar};
use crate::manifest_path::ManifestPath;
use crate::model::bundle::decisions::{
    MAIN_FILES_DIR, MainPrograms, ProcessModel, ServiceHealthcheckModel, ServiceModel, SidecarBase,
};

pub(crate) fn services(
    compose: &Compose,
    base_dir: &Path,
    inputs: &mut Vec<PathBuf>,
    errors: &ErrorSink<'_>,
) -> Option<Vec<ServiceModel>> {
    let base = ManifestPath::root().key("compose");
    let each = errors.child();
    volumes(
        &compose.main.volumes,
        &base.key("main").key("volumes"),
        &each,
    );
    let mut models = Vec::new();
    for (index, service) in compose.services.iter().enumerate() {
        let path = base.key("services").index(index);
        volumes(&service.volumes, &path.key("volumes"), &each);
        if service.build_files.is_some() && service.build.is_none() {
            each.report(
                Diagnostic::key(path.key("build_files"), "build_files needs build")
                    .label("shipped where?")
                    .help(format!(
                        "add build = \"{}\" (the context under environment/)",
                        service.name
                    )),
            );
        }
        if service.base_image.is_some() && service.build_files.is_none() {
            each.report(
                Diagnostic::key(path.key("base_image"), "base_image applies to a shipped Dockerfile")
                    .label("no build_files")
                    .help("add build_files = \"<dir next to the manifest>\" with a Dockerfile that starts `ARG BASE_IMAGE` / `FROM ${BASE_IMAGE}`"),
            );
        }
        let build_files = match &service.build_files {
            Some(dir) => build_files(base_dir, dir, &path.key("build_files"), inputs, &each),
            None => Vec::new(),
        };
        models.push(model(service, build_files));
    }
    each.unless_failed(models)
}

/// `[compose.main]`'s files, setup and processes. A process runs under a user of its own,
/// never root nor the agent's uid: the agent must not be able to signal, trace or replace
/// what it is asked to diagnose.
pub(crate) fn main_programs(
    main: &MainService,
    services: &[Service],
    base_dir: &Path,
    inputs: &mut Vec<PathBuf>,
    errors: &ErrorSink<'_>,
) -> Option<MainPrograms> {
    let path = ManifestPath::root().key("compose").key("main");
    let each = errors.child();
    let files = match &main.build_files {
        Some(dir) => {
            if let Some(index) = services
                .iter()
                .position(|service| service.build.as_deref() == Some(MAIN_FILES_DIR))
            {
                each.report(
                    Diagnostic::value(
                        ManifestPath::root()
                            .key("compose")
                            .key("services")
                            .index(index)
                            .key("build"),
                        format!("environment/{MAIN_FILES_DIR}/ holds main's build_files"),
                    )
                    .label("two things shipped at one path")
                    .help("name this service's build context otherwise"),
                );
            }
            build_files(base_dir, dir, &path.key("build_files"), inputs, &each)
        }
        None => Vec::new(),
    };
    empty_setup(main.setup.as_deref(), &path, "main's", &each);
    let mut processes: Vec<ProcessModel> = Vec::new();
    for (index, process) in main.processes.iter().enumerate() {
        let at = path.key("processes").index(index);
        let name_ok = process
            .name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_lowercase())
            && process
                .name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "_-".contains(c));
        if !name_ok {
            each.report(
                Diagnostic::value(
                    at.key("name"),
                    format!("`{}` is not a process name", process.name),
                )
                .label("names its log file")
                .help(
                    "lower case letters, digits, `-` and `_`, starting with a letter, e.g. \"api\"",
                ),
            );
        } else if processes.iter().any(|seen| seen.name == process.name) {
            each.report(
                Diagnostic::value(
                    at.key("name"),
                    format!("process `{}` is defined twice", process.name),
                )
                .label("one log per process")
                .help("give each process its own name"),
            );
        }
        if process.command.trim().is_empty() {
            each.report(
                Diagnostic::value(at.key("command"), "command is empty")
                    .label("nothing to start")
                    .help("the shell command that runs the program, e.g. \"python3 /opt/main/api.py\""),
            );
        }
        let user = process.user.as_str();
        let user_ok = !user.is_empty()
            && user
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c));
        if !user_ok {
            each.report(
                Diagnostic::value(
                    at.key("user"),
                    format!("`{user}` is not a user name or uid"),
                )
                .label("runuser -u takes it")
                .help("a user the image knows, e.g. \"www-data\""),
            );
        } else if user == "root" || user == "0" || user == main.uid.to_string() {
            each.report(
                Diagnostic::value(at.key("user"), format!("process `{}` would run as {user}", process.name))
                    .label(if user == main.uid.to_string() { "the agent's own uid" } else { "root" })
                    .help("run it as a user of its own (e.g. \"www-data\"), so the agent cannot signal or replace it"),
            );
        }
        processes.push(ProcessModel {
            name: process.name.clone(),
            command: process.command.clone(),
            user: process.user.clone(),
        });
    }
    each.unless_failed(MainPrograms {
        files,
        setup: main.setup.clone(),
        processes,
    })
}

/// `[compose.sidecar]` base_image, build_files and setup: a sidecar built on an image of its
/// own instead of `FROM scratch`, for a gateway whose stdio upstreams need a runtime.
pub(crate) fn sidecar_base(
    sidecar: &Sidecar,
    base_dir: &Path,
    inputs: &mut Vec<PathBuf>,
    errors: &ErrorSink<'_>,
) -> Option<Option<SidecarBase>> {
    let path = ManifestPath::root().key("compose").key("sidecar");
    let each = errors.child();
    let Some(image) = &sidecar.base_image else {
        for (key, set) in [
            ("build_files", sidecar.build_files.is_some()),
            ("setup", sidecar.setup.is_some()),
        ] {
            if set {
                each.report(
                    Diagnostic::key(path.key(key), format!("{key} needs a base_image"))
                        .label("the sidecar is FROM scratch: no shell, no files but the binary")
                        .help(
                            "add base_image = \"<image>@sha256:...\" with what the upstreams need",
                        ),
                );
            }
        }
        return each.unless_failed(None);
    };
    if sidecar.image.is_some() {
        each.report(
            Diagnostic::key(
                path.key("base_image"),
                "base_image and image exclude each other",
            )
            .label("image runs as it is; base_image is built on")
            .help("keep one"),
        );
    }
    empty_setup(sidecar.setup.as_deref(), &path, "the sidecar's", &each);
    let files = sidecar.build_files.as_ref().map(|dir| {
        let name = Path::new(dir)
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.is_empty() || name == ".." || name == "log" {
            each.report(
                Diagnostic::value(path.key("build_files"), format!("`{dir}` has no name of its own to ship under"))
                    .label("held at /opt/<sidecar>/<its name>/")
                    .help("name a directory next to the manifest, e.g. \"upstreams\" (not `log`, the log directory's source)"),
            );
        }
        (name, build_files(base_dir, dir, &path.key("build_files"), inputs, &each))
    });
    each.unless_failed(Some(SidecarBase {
        image: image.clone(),
        files,
        setup: sidecar.setup.clone(),
    }))
}

/// A `setup` that is blank runs nothing: a located error at `<table>.setup`.
fn empty_setup(setup: Option<&str>, table: &ManifestPath, image: &str, errors: &ErrorSink<'_>) {
    if setup.is_some_and(|setup| setup.trim().is_empty()) {
        errors.report(
            Diagnostic::value(table.key("setup"), "setup is empty")
                .label("nothing to run")
                .help(format!(
                    "remove setup, or give the shell command {image} image runs at build time"
                )),
        );
    }
}

fn model(service: &Service, build_files: Vec<(String, String)>) -> ServiceModel {
    ServiceModel {
        name: service.name.clone(),
        image: service.image.clone(),
        build: service.build.clone(),
        environment: service.environment.clone(),
        networks: service.networks.clone(),
        network_mode: service.network_mode.clone(),
        build_files,
        base_image: service.base_image.clone(),
        volumes: service.volumes.clone(),
        healthcheck: service
            .healthcheck
            .as_ref()
            .map(|check| ServiceHealthcheckModel {
                command: check.command.clone(),
                interval: check.interval.clone().unwrap_or_else(|| "2s".to_owned()),
                timeout: check.timeout.clone().unwrap_or_else(|| "5s".to_owned()),
                retries: check.retries.unwrap_or(30),
            }),
    }
}

/// Every regular file under `dir` (relative to the manifest), as (path under dir, text).
fn build_files(
    base_dir: &Path,
    dir: &str,
    path: &ManifestPath,
    inputs: &mut Vec<PathBuf>,
    errors: &ErrorSink<'_>,
) -> Vec<(String, String)> {
    let root = base_dir.join(dir);
    inputs.push(root.clone());
    let mut files = Vec::new();
    let mut pending = vec![root.clone()];
    while let Some(current) = pending.pop() {
        let entries = match std::fs::read_dir(&current) {
            Ok(entries) => entries,
            Err(error) => {
                errors.report(
                    Diagnostic::value(
                        path.clone(),
                        format!("cannot read {}: {error}", current.display()),
                    )
                    .label("unreadable")
                    .help("paths are relative to the manifest's directory"),
                );
                return Vec::new();
            }
        };
        for entry in entries.flatten() {
            let file = entry.path();
            if file.is_dir() {
                pending.push(file);
                continue;
            }
            inputs.push(file.clone());
            let relative = file
                .strip_prefix(&root)
                .expect("under the root")
                .to_string_lossy()
                .into_owned();
            match std::fs::read_to_string(&file) {
                Ok(text) => files.push((relative, text)),
                Err(error) => errors.report(
                    Diagnostic::value(
                        path.clone(),
                        format!("cannot ship {dir}/{relative}: {error}"),
                    )
                    .label("the bundle ships text files only")
                    .help("build binaries inside the Dockerfile, or name a pinned image"),
                ),
            }
        }
    }
    if files.is_empty() && !errors.failed() {
        errors.report(
            Diagnostic::value(path.clone(), format!("{dir} holds no files"))
                .label("nothing to build from")
                .help("put the service's Dockerfile there"),
        );
    }
    files.sort();
    files
}

/// `name:/absolute/path`, optionally `:ro` or `:rw`; the name a Compose volume name.
fn volumes(volumes: &[String], path: &ManifestPath, errors: &ErrorSink<'_>) {
    for (index, volume) in volumes.iter().enumerate() {
        let parts: Vec<&str> = volume.split(':').collect();
        let name_ok = parts.first().is_some_and(|name| {
            !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
                && name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphanumeric())
        });
        let target_ok = parts.get(1).is_some_and(|target| target.starts_with('/'));
        let mode_ok = parts.len() == 2 || (parts.len() == 3 && matches!(parts[2], "ro" | "rw"));
        if !(name_ok && target_ok && mode_ok) {
            errors.report(
                Diagnostic::value(path.index(index), format!("`{volume}` is not a named volume mount"))
                    .label("expected name:/path[:ro]")
                    .help("name a Compose volume (a host path would tie the task to one machine), e.g. \"proxy-conf:/etc/nginx/conf.d\""),
            );
        }
    }
}
