//! Opening one connection to an upstream: a child process with only the environment the
//! manifest allows, or a streamable HTTP client whose headers come from named variables;
//! then MCP's `initialize` (2025-11-25) or `server/discover` (2026-07-28), within the
//! upstream's time limit. A connection that made the `initialize` handshake gets its
//! transport's direct lane.

use std::collections::HashMap;
use std::time::Duration;

use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, Peer, RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

use crate::spec::{EndpointSpec, UpstreamProtocol, UpstreamSpec};
use crate::upstream::handler::UpstreamHandler;
use crate::upstream::lane::Lane;

/// rmcp's client service over an upstream's transport.
pub(crate) type Connection = RunningService<RoleClient, UpstreamHandler>;

/// What a request to a connected upstream goes through: rmcp's peer, and the direct lane of a
/// connection that has one (crate::upstream::lane).
#[derive(Clone)]
pub(crate) struct Handle {
    pub(crate) peer: Peer<RoleClient>,
    pub(crate) lane: Option<Lane>,
}

impl std::fmt::Debug for Handle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handle")
            .field("lane", &self.lane.is_some())
            .finish_non_exhaustive()
    }
}

/// Why a connection could not be opened.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConnectError {
    /// The child process did not start.
    #[error("cannot start `{command}`: {source}")]
    Spawn {
        /// The program.
        command: &'static str,
        /// Why.
        source: std::io::Error,
    },
    /// A header's variable is unset or not a valid header value.
    #[error("header {header}: {reason}")]
    Header {
        /// The header.
        header: &'static str,
        /// Why.
        reason: String,
    },
    /// The HTTP client could not be built.
    #[error("HTTP client: {0}")]
    Client(String),
    /// `initialize` failed.
    #[error("initialize failed: {0}")]
    Initialize(String),
    /// `initialize` took longer than the upstream's `timeout_ms`.
    #[error("no answer to initialize within {0} ms")]
    Timeout(u64),
}

/// Opens a connection to `spec` and initializes it: the live connection, and the handle its
/// requests go through (with the direct lane when the protocol has an `initialize` handshake).
pub(crate) async fn connect(
    spec: &'static UpstreamSpec,
    handler: UpstreamHandler,
) -> Result<(Connection, Handle), ConnectError> {
    let limit = Duration::from_millis(spec.timeout_ms);
    // A 2026-07-28 upstream that turns out to speak only 2025-11-25 is an error, not a
    // fallback: the manifest says which protocol the gateway relies on.
    let lifecycle = match spec.protocol {
        UpstreamProtocol::V2025_11_25 => ClientLifecycleMode::Initialize,
        UpstreamProtocol::V2026_07_28 => ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    };
    let started = async {
        match spec.endpoint {
            EndpointSpec::Stdio {
                command,
                args,
                cwd,
                env,
            } => {
                let (transport, child) =
                    crate::upstream::child::spawn(spec.name, command, args, cwd, env)
                        .map_err(|source| ConnectError::Spawn { command, source })?;
                let lane = transport.lane();
                match handler.serve_with_lifecycle(transport, lifecycle).await {
                    Ok(service) => Ok(with_handle(service, Lane::Pipe(lane))),
                    Err(error) => Err(ConnectError::Initialize(format!(
                        "{error}{}",
                        child.after_failure().await
                    ))),
                }
            }
            EndpointSpec::StreamableHttp {
                url,
                headers,
                ca_pem,
            } => {
                // No redirects (a redirect could carry the headers to another host); Mozilla's
                // roots and the manifest's `ca_file`.
                let client = crate::http_client::client(ca_pem)
                    .map_err(|error| ConnectError::Client(error.to_string()))?;
                let transport =
                    crate::upstream::remote::open(client.clone(), config(url, headers)?);
                let lane = transport.lane();
                match handler.serve_with_lifecycle(transport, lifecycle).await {
                    Ok(service) => Ok(with_handle(service, Lane::Post(lane))),
                    Err(error) => Err(ConnectError::Initialize(format!(
                        "{error}{}",
                        why_unreachable(&client, url).await
                    ))),
                }
            }
        }
    };
    tokio::time::timeout(limit, started)
        .await
        .map_err(|_| ConnectError::Timeout(spec.timeout_ms))?
}

/// Why `url` cannot be reached at all, when that is why the connection failed: rmcp's error
/// keeps only "error sending request", and an untrusted certificate or a refused connection
/// should say so in the log and on `/health`. One plain request, made only after a failure.
async fn why_unreachable(client: &reqwest::Client, url: &str) -> String {
    // Bounded apart from the connection's own limit: a server that is reachable but slow to
    // answer a GET must not turn the real error into a timeout.
    let probe = tokio::time::timeout(Duration::from_secs(2), client.get(url).send()).await;
    match probe {
        Ok(Err(error)) if error.is_connect() || error.is_request() => {
            let mut why = String::new();
            let mut cause = std::error::Error::source(&error);
            while let Some(inner) = cause {
                why = inner.to_string();
                cause = inner.source();
            }
            if why.is_empty() {
                String::new()
            } else {
                format!(" ({why})")
            }
        }
        _ => String::new(),
    }
}

/// `service` with its handle, which keeps `lane` only when the connection's protocol has an
/// `initialize` handshake: a 2026-07-28 request carries the client's identity in its `_meta`,
/// which rmcp writes.
fn with_handle(service: Connection, lane: Lane) -> (Connection, Handle) {
    let peer = service.peer().clone();
    let has_handshake = peer
        .peer_info()
        .is_some_and(|info| info.protocol_version.has_initialize());
    let handle = Handle {
        peer,
        lane: has_handshake.then_some(lane),
    };
    (service, handle)
}

/// The streamable HTTP client's settings, with each manifest header's value read from its
/// variable now (a rotated secret is picked up on reconnect).
fn config(
    url: &'static str,
    headers: &'static [(&'static str, &'static str)],
) -> Result<StreamableHttpClientTransportConfig, ConnectError> {
    let mut custom = HashMap::new();
    for &(header, variable) in headers {
        let value = std::env::var(variable).map_err(|_| ConnectError::Header {
            header,
            reason: format!("variable {variable} is not set"),
        })?;
        let name = http::HeaderName::from_bytes(header.as_bytes()).map_err(|error| {
            ConnectError::Header {
                header,
                reason: error.to_string(),
            }
        })?;
        let mut value = http::HeaderValue::from_str(&value).map_err(|_| ConnectError::Header {
            header,
            reason: format!("the value of {variable} is not a valid header value"),
        })?;
        value.set_sensitive(true);
        custom.insert(name, value);
    }
    Ok(StreamableHttpClientTransportConfig::with_uri(url).custom_headers(custom))
}
