//! The HTTP transports: streamable HTTP (stateful or stateless) and the legacy HTTP+SSE
//! transport, behind the same Host/Origin/bearer checks, with a health route, a request
//! timeout, and a graceful shutdown that waits for the requests in flight; their
//! connections are held to the manifest's limits by crate::transport::edge.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::routing::get;
use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use crate::auth::AuthSetupError;
#[cfg(feature = "oauth")]
use crate::auth::Authenticator;
use crate::spec::AuthSpec;
use crate::transport::edge::HttpLimits;
use crate::transport::error::ServeError;
use crate::transport::fast_path::StatelessAnswer;
use crate::transport::front_door::FrontDoor;
use crate::transport::in_flight::{InFlight, Tracked};
use crate::transport::ingress::Ingress;
use crate::transport::security::{HttpSecurity, enforce};
#[cfg(feature = "gateway")]
use crate::upstream::Upstreams;

/// How long replies of calls that just finished get to reach their streams at shutdown.
const REPLY_FLUSH: Duration = Duration::from_millis(250);

/// Which HTTP transport to serve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpTransport {
    /// Streamable HTTP at `path`.
    StreamableHttp,
    /// Legacy HTTP+SSE at `path/sse` and `path/message`.
    Sse,
}

/// Where and how an HTTP transport listens.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Which transport.
    pub transport: HttpTransport,
    /// MCP endpoint path.
    pub path: String,
    /// Health endpoint path.
    pub health_path: String,
    /// Streamable HTTP sessions on (false = stateless).
    pub stateful: bool,
    /// Stateless streamable HTTP answers with plain JSON.
    pub json_response: bool,
    /// Largest request body.
    pub max_request_body_bytes: usize,
    /// SSE keep-alive interval.
    pub keep_alive: Duration,
    /// Host, Origin and bearer checks.
    pub security: HttpSecurity,
    /// Time in-flight calls get after a shutdown signal.
    pub shutdown_grace: Duration,
    /// The gateway's upstreams, whose state `/health` reports (503 while one is down).
    #[cfg(feature = "gateway")]
    pub upstreams: Option<Arc<Upstreams>>,
    /// The limits every connection and request is held to.
    pub limits: HttpLimits,
    /// The OAuth 2.1 resource server in front of the MCP endpoints (`[auth]`).
    #[cfg(feature = "oauth")]
    pub auth: Option<Arc<Authenticator>>,
    /// Cancelled by [`serve_http`] when a shutdown begins, before it waits for the calls in
    /// flight: the server's `Subscriptions::closing`, so that open
    /// `subscriptions/listen` streams, which are requests that never finish on their own,
    /// end with their final result instead of holding the shutdown for the grace period.
    pub draining: CancellationToken,
}

/// The manifest turns auth on but the token's variable is unset or empty.
#[derive(Debug, thiserror::Error)]
#[error("the manifest requires a bearer token, but ${0} is not set (or empty)")]
pub struct MissingToken(pub &'static str);

impl HttpOptions {
    /// The manifest's `[transport]` as options for `kind`, with the bearer token read from
    /// the manifest's `auth_token_env` variable.
    pub fn from_manifest(
        transport: crate::spec::TransportSpec,
        kind: HttpTransport,
    ) -> Result<Self, MissingToken> {
        let token = match transport.auth_token_env {
            Some(variable) => match std::env::var(variable) {
                Ok(token) if !token.is_empty() => Some(token),
                _ => return Err(MissingToken(variable)),
            },
            None => None,
        };
        let owned = |items: &[&str]| items.iter().map(|item| (*item).to_owned()).collect();
        Ok(Self {
            transport: kind,
            path: transport.path.to_owned(),
            health_path: transport.health_path.to_owned(),
            stateful: transport.stateful,
            json_response: transport.json_response,
            max_request_body_bytes: usize::try_from(transport.max_request_body_bytes)
                .unwrap_or(usize::MAX),
            keep_alive: Duration::from_secs(transport.sse_keep_alive_seconds.max(1)),
            security: HttpSecurity {
                allowed_hosts: owned(transport.allowed_hosts),
                allowed_origins: owned(transport.allowed_origins),
                token,
            },
            shutdown_grace: Duration::from_secs(transport.shutdown_grace_seconds),
            #[cfg(feature = "gateway")]
            upstreams: None,
            limits: HttpLimits::from_spec(&transport),
            #[cfg(feature = "oauth")]
            auth: None,
            draining: CancellationToken::new(),
        })
    }

    /// The same options behind the manifest's `[auth]` (when it has one), with introspection's
    /// credentials read from the environment now.
    /// Without the `oauth` feature, an `[auth]` is refused ([`AuthSetupError::FeatureOff`]).
    pub fn with_auth(
        #[cfg_attr(not(feature = "oauth"), expect(unused_mut))] mut self,
        auth: Option<&'static AuthSpec>,
    ) -> Result<Self, AuthSetupError> {
        #[cfg(feature = "oauth")]
        {
            self.auth = auth
                .map(Authenticator::from_spec)
                .transpose()?
                .map(Arc::new);
        }
        #[cfg(not(feature = "oauth"))]
        if auth.is_some() {
            return Err(AuthSetupError::FeatureOff);
        }
        Ok(self)
    }

    /// Whether an OAuth 2.1 resource server guards the MCP endpoints.
    pub fn has_oauth(&self) -> bool {
        #[cfg(feature = "oauth")]
        return self.auth.is_some();
        #[cfg(not(feature = "oauth"))]
        false
    }
}

/// The axum router: the MCP endpoint(s) behind the security checks, and `GET health_path`,
/// each request answered 408 when its response has not begun within the request timeout
/// (its body read included; a streamed reply is not cut once it has begun). With `fast`, stateless JSON streamable HTTP answers plain requests without rmcp's
/// per-request service (crate::transport::fast_path).
pub fn http_router<H: ServerHandler + Clone>(
    handler: H,
    options: &HttpOptions,
    shutdown: CancellationToken,
    fast: Option<Arc<dyn StatelessAnswer>>,
) -> Router {
    http_routes(handler, options, shutdown, fast, Arc::default()).router
}

/// What [`serve_http`] serves: the router and, where the fast path answers, its front door.
struct Routes {
    router: Router,
    front_door: Option<Arc<FrontDoor>>,
}

/// [`http_router`] counting every request it hands to the server in `in_flight`, with the
/// front door of the fast path (crate::transport::front_door) when it has one and no OAuth
/// resource server is in front of it.
fn http_routes<H: ServerHandler + Clone>(
    handler: H,
    options: &HttpOptions,
    shutdown: CancellationToken,
    fast: Option<Arc<dyn StatelessAnswer>>,
    in_flight: Arc<InFlight>,
) -> Routes {
    let ingress = Arc::new(Ingress {
        in_flight,
        max_request_body_bytes: options.max_request_body_bytes,
        fast: fast.filter(|_| !options.stateful && options.json_response),
    });
    let streamable_paths = match options.transport {
        HttpTransport::StreamableHttp => vec![options.path.clone()],
        // A client configured with the SSE URL may speak streamable HTTP to it (Codex
        // does): the legacy transport's endpoints answer it, as does `path` itself.
        HttpTransport::Sse => vec![
            options.path.clone(),
            crate::transport::sse::stream_path(&options.path),
        ],
    };
    let streamable = streamable_router(
        handler.clone(),
        options,
        shutdown.clone(),
        Arc::clone(&ingress),
        &streamable_paths,
    );
    let mcp = match options.transport {
        HttpTransport::StreamableHttp => streamable,
        HttpTransport::Sse => crate::transport::sse::sse_router(
            Tracked::new(handler, Arc::clone(&ingress.in_flight)),
            &options.path,
            options.keep_alive,
            options.max_request_body_bytes,
            shutdown,
            streamable,
        ),
    };
    #[cfg_attr(not(feature = "oauth"), expect(unused_mut))]
    let mut mcp = mcp;
    #[cfg_attr(not(feature = "oauth"), expect(unused_mut))]
    let mut metadata = Router::new();
    #[cfg(feature = "oauth")]
    if let Some(auth) = options.auth.clone() {
        let document = crate::auth::resource_metadata::document(auth.spec());
        for path in crate::auth::resource_metadata::paths(auth.spec()) {
            let document = document.clone();
            metadata = metadata.route(&path, get(move || async move { axum::Json(document) }));
        }
        let limit = options.max_request_body_bytes;
        mcp = mcp.layer(axum::middleware::from_fn(move |request, next| {
            crate::auth::layer::authorize(Arc::clone(&auth), limit, request, next)
        }));
    }
    // Host and Origin first: a rebinding page gets 403 before any token is looked at.
    let security = Arc::new(options.security.clone());
    let mcp = mcp.layer(axum::middleware::from_fn({
        let security = Arc::clone(&security);
        move |request, next| enforce(Arc::clone(&security), request, next)
    }));
    let router = Router::new()
        .route(&options.health_path, health_route(options))
        .merge(metadata)
        .merge(mcp)
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            axum::http::StatusCode::REQUEST_TIMEOUT,
            options.limits.request_timeout,
        ));
    let front_door = (ingress.fast.is_some() && !options.has_oauth()).then(|| {
        Arc::new(FrontDoor {
            paths: streamable_paths,
            security,
            ingress,
            request_timeout: options.limits.request_timeout,
            router: router.clone(),
        })
    });
    Routes { router, front_door }
}

/// Streamable HTTP at each of `paths` (one service: its sessions are the same at every path)
/// behind `ingress`: every POST counted in flight, the duplicate-key mark, and the stateless
/// fast path when the ingress has it.
fn streamable_router<H: ServerHandler + Clone>(
    handler: H,
    options: &HttpOptions,
    shutdown: CancellationToken,
    ingress: Arc<Ingress>,
    paths: &[String],
) -> Router {
    // Host and Origin are checked by our own layer, the same for both transports.
    let config = StreamableHttpServerConfig::default()
        .with_cancellation_token(shutdown)
        .with_legacy_session_mode(options.stateful)
        .with_json_response(!options.stateful && options.json_response)
        .with_sse_keep_alive(Some(options.keep_alive))
        .with_max_request_body_bytes(options.max_request_body_bytes)
        .disable_allowed_hosts();
    let service = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let mut router = Router::new();
    for path in paths {
        router = router.route_service(path, service.clone());
    }
    router.layer(axum::middleware::from_fn(move |request, next| {
        crate::transport::ingress::admit(Arc::clone(&ingress), request, next)
    }))
}

/// `GET health_path`: `{"status":"ok"}`; with upstreams, their states too, and 503 with
/// `"status":"degraded"` while one is not connected.
#[cfg(feature = "gateway")]
fn health_route(options: &HttpOptions) -> axum::routing::MethodRouter {
    use axum::response::IntoResponse;
    let upstreams = options.upstreams.clone();
    get(move || async move {
        let Some(upstreams) = upstreams else {
            return axum::Json(serde_json::json!({"status": "ok"})).into_response();
        };
        let up = upstreams.all_up();
        let body = serde_json::json!({
            "status": if up { "ok" } else { "degraded" },
            "upstreams": upstreams.health(),
        });
        let status = if up {
            axum::http::StatusCode::OK
        } else {
            axum::http::StatusCode::SERVICE_UNAVAILABLE
        };
        (status, axum::Json(body)).into_response()
    })
}

/// `GET health_path`: `{"status":"ok"}` (a server without the gateway has no upstreams).
#[cfg(not(feature = "gateway"))]
fn health_route(_options: &HttpOptions) -> axum::routing::MethodRouter {
    get(|| async { axum::Json(serde_json::json!({"status": "ok"})) })
}

/// Serves HTTP on `bind` until SIGINT or SIGTERM. Then it stops accepting connections, waits
/// for the calls in flight (at most the grace period), closes sessions and streams, and
/// returns.
pub async fn serve_http<H: ServerHandler + Clone>(
    handler: H,
    bind: SocketAddr,
    options: HttpOptions,
    fast: Option<Arc<dyn StatelessAnswer>>,
) -> Result<(), ServeError> {
    let shutdown = CancellationToken::new();
    let in_flight = Arc::<InFlight>::default();
    let Routes { router, front_door } = http_routes(
        handler,
        &options,
        shutdown.clone(),
        fast,
        Arc::clone(&in_flight),
    );
    crate::transport::edge::allow_open_files(options.limits.max_connections);
    let listener = crate::transport::edge::listen(bind)
        .map_err(|source| ServeError::Bind { addr: bind, source })?;
    let local = listener.local_addr().map_err(ServeError::Http)?;
    tracing::info!(addr = %local, path = %options.path, health = %options.health_path, transport = ?options.transport, stateful = options.stateful, "serving HTTP");
    let signalled = CancellationToken::new();
    let grace = options.shutdown_grace;
    tokio::spawn({
        let (signalled, shutdown) = (signalled.clone(), shutdown.clone());
        let draining = options.draining.clone();
        async move {
            shutdown_signal().await;
            tracing::info!(?grace, "shutting down: waiting for calls in flight");
            signalled.cancel();
            draining.cancel();
            if tokio::time::timeout(grace, in_flight.wait_idle())
                .await
                .is_err()
            {
                tracing::warn!(?grace, "calls still in flight after the grace period");
            }
            // A finished call's reply still has to travel from its session to its stream;
            // give that a moment before ending sessions and event streams.
            tokio::time::sleep(REPLY_FLUSH).await;
            shutdown.cancel();
        }
    });
    let server =
        crate::transport::edge::serve(listener, router, front_door, options.limits, signalled);
    tokio::select! {
        () = server => {}
        () = async {
            shutdown.cancelled().await;
            tokio::time::sleep(Duration::from_secs(2)).await;
        } => tracing::warn!("connections still open after shutdown; closing them"),
    }
    Ok(())
}

async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                .expect("SIGTERM handler installs");
        tokio::select! {
            _ = interrupt => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}
