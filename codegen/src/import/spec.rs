//! The runtime's description of an upstream, built from the validated model, so that import
//! connects exactly as the generated server would (the same command, environment allowlist,
//! headers and time limit).

use harness_runtime::spec::{EndpointSpec, UpstreamSpec};

use crate::model::{EndpointModel, UpstreamModel};

/// `upstream` as the runtime's `'static` spec, without pins (import reads, it does not
/// check). The strings are leaked: one spec per run of a command-line tool.
pub(crate) fn leak(upstream: &UpstreamModel) -> &'static UpstreamSpec {
    let endpoint = match &upstream.endpoint {
        EndpointModel::Stdio {
            command,
            args,
            cwd,
            env,
        } => EndpointSpec::Stdio {
            command: text(command),
            args: texts(args),
            cwd: cwd.as_deref().map(text),
            env: texts(env),
        },
        EndpointModel::StreamableHttp {
            url,
            headers,
            ca_pem,
        } => EndpointSpec::StreamableHttp {
            url: text(url),
            headers: Box::leak(
                headers
                    .iter()
                    .map(|(header, variable)| (text(header), text(variable)))
                    .collect::<Vec<_>>()
                    .into_boxed_slice(),
            ),
            ca_pem: ca_pem.as_deref().map(text),
        },
    };
    Box::leak(Box::new(UpstreamSpec {
        name: text(&upstream.name),
        endpoint,
        timeout_ms: upstream.timeout_ms,
        max_restarts: upstream.max_restarts,
        backoff_ms: upstream.backoff_ms,
        on_drift: upstream.on_drift,
        protocol: upstream.protocol,
        forward: Box::leak(upstream.forward.clone().into_boxed_slice()),
        pins: &[],
    }))
}

fn text(value: &str) -> &'static str {
    Box::leak(value.to_owned().into_boxed_str())
}

fn texts(values: &[String]) -> &'static [&'static str] {
    Box::leak(
        values
            .iter()
            .map(|value| text(value))
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    )
}
