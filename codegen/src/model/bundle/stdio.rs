//! A server on stdio in a task bundle: no sidecar service. The binary is in main's image and
//! the agent's MCP client starts it (Harbor writes a stdio entry of `[[environment.mcp_servers]]`
//! into the agent's configuration), so it runs as the agent's user, in the agent's trust
//! domain. These checks keep the manifest saying exactly what Harbor will run: an entry that
//! starts the bundled binary on stdio with the manifest's audit path, and nothing that names a
//! sidecar service that no longer exists.

use harness_contract::TransportKind;

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest::Manifest;
use crate::manifest::bundle::{Compose, Verifier};
use crate::manifest_path::ManifestPath;
use crate::model::bundle::task::mcp_transport;

/// Where main's image holds the server binary of a stdio bundle.
pub(crate) fn binary_in_main(name: &str) -> String {
    format!("/usr/local/bin/{name}")
}

/// The arguments that serve the manifest's server on stdio with its audit file.
pub(crate) fn serve_args(audit_path: &str) -> Vec<String> {
    ["serve", "--transport", "stdio", "--audit-path", audit_path]
        .map(str::to_owned)
        .to_vec()
}

pub(crate) fn server_in_main(
    manifest: &Manifest,
    compose: &Compose,
    verifier: &Verifier,
    errors: &ErrorSink<'_>,
) {
    let root = ManifestPath::root();
    let name = &compose.sidecar.name;
    let command = binary_in_main(name);
    let args = serve_args(&manifest.audit.path);
    let servers = manifest
        .environment
        .as_ref()
        .map(|environment| environment.mcp_servers.as_slice())
        .unwrap_or_default();
    let base = root.key("environment").key("mcp_servers");
    let starting = servers.iter().position(|server| {
        mcp_transport(server) == TransportKind::Stdio && server.command.as_deref() == Some(&command)
    });
    match starting {
        None => errors.report(
            Diagnostic::key(base, "nothing starts the server")
                .label("on stdio the agent's MCP client starts it, from an entry here")
                .help(format!(
                    "add [[environment.mcp_servers]] with transport = \"stdio\", command = \"{command}\", args = {args:?}"
                )),
        ),
        Some(index) if servers[index].args.as_ref() != Some(&args) => errors.report(
            Diagnostic::key(base.index(index).key("args"), "these args do not serve the manifest's server")
                .label("the audit the verifier reads is written only with these")
                .help(format!("set args = {args:?}")),
        ),
        Some(_) => {}
    }
    if compose.sidecar.base_image.is_some() {
        errors.report(
            Diagnostic::key(
                root.key("compose").key("sidecar").key("base_image"),
                "a stdio server has no sidecar to build",
            )
            .label("the server runs in main, started by the agent's MCP client")
            .help("remove base_image (main's image is [compose.main]'s), or serve over HTTP"),
        );
    }
    if compose.sidecar.image.is_some() {
        errors.report(
            Diagnostic::key(
                root.key("compose").key("sidecar").key("image"),
                "a stdio server has no sidecar image",
            )
            .label("the server runs in main, started by the agent's MCP client")
            .help("remove image, or serve over HTTP ([transport] kind = \"streamable-http\")"),
        );
    }
    let gone = |service: &str, path: ManifestPath, help: &str| {
        if service == name {
            errors.report(
                Diagnostic::value(path, format!("there is no `{name}` service on stdio"))
                    .label("the server runs in main")
                    .help(help.to_owned()),
            );
        }
    };
    for (index, artifact) in manifest.artifacts.iter().enumerate() {
        if let Some(service) = &artifact.service {
            gone(
                service,
                root.key("artifacts").index(index).key("service"),
                "remove service (main is the default)",
            );
        }
    }
    for (index, hook) in verifier.collect.iter().enumerate() {
        gone(
            &hook.service,
            root.key("verifier")
                .key("collect")
                .index(index)
                .key("service"),
            "set service = \"main\"",
        );
    }
}
