//! Whether the bundle's services reach each other: every MCP server URL the agent gets against
//! the sidecar's bind (one shared loopback under Harbor's egress overlay, Compose's network by
//! service name otherwise), and the services' names and ports.

use std::net::{IpAddr, SocketAddr};

use harness_contract::TransportKind;

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest::Manifest;
use crate::manifest::bundle::Compose;
use crate::manifest_path::ManifestPath;
use crate::model::bundle::lints::service_name;
use crate::model::bundle::task::mcp_transport;

pub(crate) fn mcp_servers(
    manifest: &Manifest,
    bind: SocketAddr,
    overlay: bool,
    errors: &ErrorSink<'_>,
) {
    let Some(environment) = &manifest.environment else {
        return;
    };
    let base = ManifestPath::root().key("environment").key("mcp_servers");
    for (index, server) in environment.mcp_servers.iter().enumerate() {
        let path = base.index(index);
        let transport = mcp_transport(server);
        let http = matches!(
            transport,
            TransportKind::Sse | TransportKind::StreamableHttp
        );
        if server.allowed_tools.is_some() {
            errors.report(
                Diagnostic::key(path.key("allowed_tools"), "allowed_tools is not a field of an environment MCP server")
                    .label("Harbor drops it silently")
                    .help("allowed_tools belongs to a Reward Kit judge ([[judge.mcp_servers]] in tests/); publish fewer tools from the server instead"),
            );
        }
        if http && server.url.is_none() {
            errors.report(
                Diagnostic::key(
                    path.clone(),
                    format!("an MCP server on `{}` needs a url", transport),
                )
                .label("no url")
                .help(format!(
                    "add url = \"http://{bind}{}\"",
                    manifest.transport.path
                )),
            );
        }
        if http && server.args.is_some() {
            errors.report(
                Diagnostic::key(path.key("args"), "args only apply to a stdio MCP server")
                    .label("ignored on an HTTP transport")
                    .help("remove args, or use transport = \"stdio\" with a command"),
            );
        }
        if transport == TransportKind::Stdio && server.command.is_none() {
            errors.report(
                Diagnostic::key(path.clone(), "a stdio MCP server needs a command")
                    .label("no command")
                    .help(
                        "add command = \"/usr/local/bin/...\" (it runs in the agent's environment)",
                    ),
            );
        }
        if let Some(url) = &server.url {
            mcp_url(
                url,
                transport,
                manifest,
                bind,
                overlay,
                &path.key("url"),
                errors,
            );
        }
    }
}

/// The url an agent gets must reach the sidecar: its port and path, on the shared
/// loopback under the egress overlay, by its service name on Compose's network otherwise;
/// and a transport the sidecar serves.
fn mcp_url(
    url: &str,
    transport: TransportKind,
    manifest: &Manifest,
    bind: SocketAddr,
    overlay: bool,
    path: &ManifestPath,
    errors: &ErrorSink<'_>,
) {
    let sidecar = manifest
        .compose
        .as_ref()
        .map_or("", |compose| compose.sidecar.name.as_str());
    // The legacy transport's stream is at <path>/sse; streamable HTTP is at <path>.
    let endpoint = match transport {
        TransportKind::Sse => format!("{}/sse", manifest.transport.path.trim_end_matches('/')),
        _ => manifest.transport.path.clone(),
    };
    let expected = if overlay {
        format!("http://{bind}{endpoint}")
    } else {
        format!("http://{sidecar}:{}{endpoint}", bind.port())
    };
    let parsed = url.strip_prefix("http://").and_then(|rest| {
        rest.split_once('/')
            .map(|(authority, tail)| (authority, format!("/{tail}")))
    });
    let matches = parsed.is_some_and(|(authority, tail)| {
        let port_ok = authority
            .rsplit_once(':')
            .and_then(|(host, port)| Some((host, port.parse::<u16>().ok()?)))
            .is_some_and(|(host, port)| {
                let loopback = host == "localhost"
                    || host.parse::<IpAddr>().is_ok_and(|ip| {
                        ip == bind.ip() || (ip.is_loopback() && bind.ip().is_loopback())
                    });
                port == bind.port() && if overlay { loopback } else { host == sidecar }
            });
        port_ok && tail == endpoint
    });
    if !matches {
        errors.report(
            Diagnostic::value(
                path.clone(),
                format!("MCP url `{url}` does not reach the sidecar"),
            )
            .label(if overlay {
                "not the sidecar's bind and path on the shared loopback"
            } else {
                "every phase is public: no egress overlay, so no shared loopback"
            })
            .help(format!(
                "the sidecar serves {expected} ([transport] bind and path)"
            )),
        );
    }
    let served = manifest.transport.kind;
    if transport != served {
        errors.report(
            Diagnostic::value(
                path.clone(),
                format!("the sidecar serves {}, not {}", served, transport),
            )
            .label("transport mismatch")
            .help(format!(
                "set transport = \"{}\" here, or [transport] kind = \"{}\"",
                served, transport
            )),
        );
    }
}

pub(crate) fn topology(compose: &Compose, bind: SocketAddr, overlay: bool, errors: &ErrorSink<'_>) {
    let base = ManifestPath::root().key("compose");
    let mut names: Vec<(&str, ManifestPath)> = vec![
        ("main", base.key("main")),
        (
            compose.sidecar.name.as_str(),
            base.key("sidecar").key("name"),
        ),
    ];
    let mut ports: Vec<(u16, String, ManifestPath)> = vec![(
        bind.port(),
        compose.sidecar.name.clone(),
        ManifestPath::root().key("transport").key("bind"),
    )];
    for (index, port) in compose.main.ports.iter().enumerate() {
        ports.push((
            *port,
            "main".to_owned(),
            base.key("main").key("ports").index(index),
        ));
    }
    for (index, service) in compose.services.iter().enumerate() {
        let path = base.key("services").index(index);
        names.push((service.name.as_str(), path.key("name")));
        for (port_index, port) in service.ports.iter().enumerate() {
            ports.push((
                *port,
                service.name.clone(),
                path.key("ports").index(port_index),
            ));
        }
        if overlay {
            for key in ["networks", "network_mode"] {
                let set = if key == "networks" {
                    service.networks.is_some()
                } else {
                    service.network_mode.is_some()
                };
                if set {
                    errors.report(
                        Diagnostic::key(path.key(key), format!("service `{}` sets {key} inside the egress overlay's loopback topology", service.name))
                            .label("escapes the egress control")
                            .help("remove it so the service shares main's loopback (reach it at 127.0.0.1:<port>), or make every phase public and use Compose DNS"),
                    );
                }
            }
        }
        match (&service.image, &service.build) {
            (None, None) | (Some(_), Some(_)) => errors.report(
                Diagnostic::key(
                    path.clone(),
                    format!(
                        "service `{}` needs exactly one of image and build",
                        service.name
                    ),
                )
                .label("how is it built?")
                .help("give image = \"name@sha256:...\" or build = \"<dir under environment/>\""),
            ),
            _ => {}
        }
    }
    for (position, (name, path)) in names.iter().enumerate() {
        service_name(name, path, errors);
        if let Some((_, first_path)) = names[..position].iter().find(|(other, _)| other == name) {
            errors.report(
                Diagnostic::value(path.clone(), format!("two services are named `{name}`"))
                    .label("duplicate")
                    .also_at(first_path.clone(), "first defined here")
                    .help("service names must be unique"),
            );
        }
    }
    for (position, (port, owner, path)) in ports.iter().enumerate() {
        if let Some((_, first, first_path)) =
            ports[..position].iter().find(|(other, ..)| other == port)
        {
            errors.report(
                Diagnostic::value(path.clone(), format!("`{owner}` and `{first}` both use loopback port {port}"))
                    .label("port clash on the shared loopback")
                    .also_at(first_path.clone(), format!("`{first}` uses it here"))
                    .help("the egress overlay puts every service in one network namespace; give each a unique port"),
            );
        }
    }
}
