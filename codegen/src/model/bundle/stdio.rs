//! A server on stdio in a task bundle: no sidecar service. The binary is in main's image and
//! the agent's MCP client starts it (Harbor writes a stdio entry of `[[environment.mcp_servers]]`
//! into the agent's configuration), so it runs as the agent's user, in the agent's trust
//! domain. These checks keep the manifest saying exactly what Harbor will run: an entry that
//! starts the bundled binary's stdio launcher (a link beside it that serves stdio with the
//! manifest's audit path and needs no arguments, so every agent starts it whatever it does
//! with `args`), and nothing that names a sidecar service that no longer exists.

use harness_contract::TransportKind;

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest::Manifest;
use crate::manifest::bundle::{Compose, McpServer, Verifier};
use crate::manifest_path::ManifestPath;
use crate::model::bundle::task::mcp_transport;

/// Where main's image holds the server binary of a stdio bundle.
pub(crate) fn binary_in_main(name: &str) -> String {
    format!("/usr/local/bin/{name}")
}

/// Where main's image links the stdio launcher of the server binary.
pub(crate) fn launcher_in_main(name: &str) -> String {
    harness_contract::transport::stdio_launcher(&binary_in_main(name))
}

pub(crate) fn server_in_main(
    manifest: &Manifest,
    compose: &Compose,
    verifier: &Verifier,
    errors: &ErrorSink<'_>,
) {
    let root = ManifestPath::root();
    let name = &compose.sidecar.name;
    let command = launcher_in_main(name);
    let binary = binary_in_main(name);
    let servers = manifest
        .environment
        .as_ref()
        .map(|environment| environment.mcp_servers.as_slice())
        .unwrap_or_default();
    let base = root.key("environment").key("mcp_servers");
    let stdio = |server: &&McpServer| mcp_transport(server) == TransportKind::Stdio;
    let starting = servers
        .iter()
        .position(|server| stdio(&server) && server.command.as_deref() == Some(&command));
    let by_binary = servers
        .iter()
        .position(|server| stdio(&server) && server.command.as_deref() == Some(&binary));
    match (starting, by_binary) {
        (None, Some(index)) => errors.report(
            Diagnostic::value(base.index(index).key("command"), "the server's binary, not its stdio launcher")
                .label("an agent that joins `args` into `command` (Harbor's Codex agent does) cannot start this")
                .help(format!(
                    "set command = \"{command}\" and remove args: the launcher serves stdio with the manifest's audit path"
                )),
        ),
        (None, None) => errors.report(
            Diagnostic::key(base, "nothing starts the server")
                .label("on stdio the agent's MCP client starts it, from an entry here")
                .help(format!(
                    "add [[environment.mcp_servers]] with transport = \"stdio\" and command = \"{command}\""
                )),
        ),
        (Some(index), _) if servers[index].args.as_ref().is_some_and(|args| !args.is_empty()) => errors.report(
            Diagnostic::key(base.index(index).key("args"), "the stdio launcher takes no arguments")
                .label("it serves stdio with the manifest's audit path; arguments would be refused")
                .help("remove args"),
        ),
        (Some(_), _) => {}
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
