//! The Harbor task directory: one emitter per file. TOML and YAML are typed
//! values serialized by their crates; prose and Dockerfiles come from templates/.

mod compose;
mod ledger;
mod task_toml;
mod templated;

use crate::emit::EmitOptions;
use crate::model::Model;
use crate::model::bundle::BundleModel;

/// Where bundle files go among the artifacts.
pub const PREFIX: &str = "bundle/";

/// File name of the server binary inside the bundle (sidecar and verifier images).
pub fn binary_name(bundle: &BundleModel) -> String {
    bundle.sidecar.name.clone()
}

/// Every bundle file of `model`: (path inside the bundle, text), sorted by path.
pub fn files(model: &Model, bundle: &BundleModel, options: &EmitOptions) -> Vec<(String, String)> {
    let mut files = vec![
        (
            "task.toml".to_owned(),
            task_toml::task_toml(bundle, options),
        ),
        ("instruction.md".to_owned(), bundle.instruction.clone()),
        (
            "environment/docker-compose.yaml".to_owned(),
            compose::compose_yaml(bundle, options),
        ),
    ];
    if bundle.verifier.separate {
        files.push((
            "tests/docker-compose.yaml".to_owned(),
            compose::verifier_compose_yaml(bundle, options),
        ));
    }
    files.extend(templated::files(model, bundle, options));
    let ledger = ledger::ledger_json(model, bundle, &files);
    files.push(("ledger.json".to_owned(), ledger));
    files.sort();
    files
}

/// Where the sidecar's own healthcheck reaches it: its listening port on loopback.
pub fn health_address(bundle: &BundleModel) -> std::net::SocketAddr {
    let listen = bundle.sidecar.listen;
    if !listen.ip().is_unspecified() {
        return listen;
    }
    let loopback: std::net::IpAddr = if listen.is_ipv4() {
        std::net::Ipv4Addr::LOCALHOST.into()
    } else {
        std::net::Ipv6Addr::LOCALHOST.into()
    };
    std::net::SocketAddr::new(loopback, listen.port())
}

/// Where the server binary goes: the sidecar's build context (unless it runs a pinned
/// image) and the verifier's.
pub fn binary_paths(bundle: &BundleModel) -> Vec<String> {
    let binary = binary_name(bundle);
    let sidecar = &bundle.sidecar;
    let mut paths = Vec::new();
    if sidecar.image.is_none() {
        paths.push(format!("environment/{}/{binary}", sidecar.name));
    }
    paths.push(format!("tests/{binary}"));
    paths
}
