//! Where things are in the bundle, for every file that names them: the server binary, the
//! sidecar's health endpoint, and the build arguments that override each image's base.

use std::net::SocketAddr;

use crate::model::bundle::BundleModel;

/// File name of the server binary inside the bundle (sidecar and verifier images).
pub fn binary_name(bundle: &BundleModel) -> String {
    bundle.sidecar.name.clone()
}

/// Where the server binary goes: the sidecar's build context (unless it runs a pinned
/// image), or main's on stdio, and the verifier's.
pub fn binary_paths(bundle: &BundleModel) -> Vec<String> {
    let binary = binary_name(bundle);
    let sidecar = &bundle.sidecar;
    let mut paths = Vec::new();
    if sidecar.in_main {
        paths.push(format!("environment/{binary}"));
    } else if sidecar.image.is_none() {
        paths.push(format!("environment/{}/{binary}", sidecar.name));
    }
    paths.push(format!("tests/{binary}"));
    paths
}

/// Where the sidecar's own healthcheck reaches it: its listening address, on loopback when it
/// listens on every interface.
pub fn health_address(bundle: &BundleModel) -> SocketAddr {
    harness_contract::transport::local_address_of(bundle.sidecar.listen)
}

/// The sidecar's health URL, as its healthchecks call it.
pub(crate) fn health_url(bundle: &BundleModel) -> String {
    format!(
        "http://{}{}",
        health_address(bundle),
        bundle.sidecar.health_path
    )
}

/// The build argument main's Dockerfile takes its base image from, and the environment
/// variable that overrides it (a local image where no registry is reachable).
pub(crate) const MAIN_BASE_IMAGE_ARG: &str = "MAIN_BASE_IMAGE";
/// See [`MAIN_BASE_IMAGE_ARG`].
pub(crate) const MAIN_BASE_IMAGE_ENV: &str = "HARNESS_MAIN_BASE_IMAGE";
/// The environment variable that sets the verifier's base image (its Dockerfile's
/// `VERIFIER_BASE_IMAGE` argument) when Harbor builds it through tests/docker-compose.yaml.
pub(crate) const VERIFIER_BASE_IMAGE_ENV: &str = "HARNESS_VERIFIER_BASE_IMAGE";

/// The build argument the verifier's Dockerfile takes its base image from: a local image
/// where no registry is reachable (`docker build --build-arg VERIFIER_BASE_IMAGE=...`).
pub(crate) const VERIFIER_BASE_IMAGE_ARG: &str = "VERIFIER_BASE_IMAGE";

/// The build argument a service's shipped Dockerfile takes its base image from.
pub(crate) const SERVICE_BASE_IMAGE_ARG: &str = "BASE_IMAGE";

/// The environment variable that overrides a service's base image:
/// `HARNESS_<SERVICE>_BASE_IMAGE`, the name upper-cased with `-` and `.` as `_`.
pub(crate) fn service_base_image_env(service: &str) -> String {
    let name: String = service
        .chars()
        .map(|c| match c {
            '-' | '.' => '_',
            c => c.to_ascii_uppercase(),
        })
        .collect();
    format!("HARNESS_{name}_BASE_IMAGE")
}

/// main's entrypoint when it starts processes of its own (`[[compose.main.processes]]`), and
/// where the bundle ships it (under environment/).
pub(crate) const MAIN_START: &str = "/usr/local/bin/harness-main-start";
/// See [`MAIN_START`].
pub(crate) const MAIN_START_FILE: &str = "main-start.sh";

/// A sidecar built on a base image holds its upstreams' files, and starts, here.
pub(crate) fn sidecar_files_dir(sidecar: &str) -> String {
    format!("/opt/{sidecar}")
}
