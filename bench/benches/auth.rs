//! What checking the caller costs per call: one stateless `tools/call` of `echo` through the
//! HTTP router `serve` uses (Host check, auth, the fast path, the whole guard pipeline), with
//!
//! - `no_auth`: nothing to check (loopback);
//! - `static_token`: `[transport] auth_token_env`, a constant-time compare;
//! - `jwt_new_token`: `[auth]`, an RS256 access token never seen before (each call its own,
//!   signed outside the timed region), checked against the issuer's key set, already cached
//!   (fetched once, before the timed region, from a loopback server of this benchmark): the
//!   signature, `iss`, `aud`, `exp`/`nbf`, the server-wide scope;
//! - `jwt_seen_before`: the same token on every call, as a client sends it until it expires:
//!   found among the tokens already verified, by its SHA-256.
//!
//! The difference to `static_token` is the CPU a resource server adds per call.
//! `cargo bench -p harness-bench --bench auth`; `cargo test -p harness-bench --benches` runs
//! each once as a smoke test.

use std::sync::{Arc, LazyLock};

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use divan::Bencher;
use harness_bench::generated::{Harness, SERVER};
use harness_bench::tools::Toolbox;
use harness_runtime::spec::AuthSpec;
use harness_runtime::transport::{HttpOptions, HttpTransport, StatelessAnswer, http_router};
use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use serde_json::json;
use tokio::runtime::Runtime;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

fn main() {
    divan::main();
}

/// A throwaway 2048-bit RSA key made for this benchmark (PKCS#1 DER, base64), and its
/// modulus (base64url): it signs nothing but the benchmark's own tokens.
const BENCH_KEY_DER: &str = "MIIEowIBAAKCAQEAtebDlOrewcgF8G9IsGcRHZxSG+F5kMtxdgF04ai9dcTesrFqKaFPWknogyLJgaQG7T2CMvVM2g/v7EVfp81gO7q+Frb+xHz7qjdW4jbw6nz+DTq0HEmX1p4j+wD/N5ffr0MF0H2Q6W0qYuDAoVobGgfBicBBfY/sk4I/QWU524QGrJLrigecBTPnJ4wNk4dPL83NcpU1+OAwfvq2SwZTo8bItUCMKXzx77zmKJ1FnNd+dLd6ONy47C0JSla9bIKVbV5SdHtlev0/1u0rRxhomKscdVm+5ZZpNBB56V/EIa7TC3J709+CsyPn02DhRXboGYtS9lf8iRxn1K7y7nFRnwIDAQABAoIBAArIzzCtih5oCv4Zwu/+dFPSmEWh5RCyFxx9cp4MYIsybFeg0B/+udMrDZd0wQioHmcDXgxCYdeN2VYjOMwcj4eLB0kWeV1R4aPSWxrXUgo89dz37YS90jw9rPltMjRsEy1zZk1ZnHVSbRBmrdUDIBc3fYB6vwdAOLD4KGLqqvb6L3MY18MnK5ghQ4r4Akmu3oWXK9NslOyDKhvjdzPT9KKodfo5P3W1PYeAI/8LTxDQlc7a7WRNdeaRPmjW+/wuJIFNm0xk0PDnU8o5JGjCrPcYR2PSuM/o/UBTk+836q8utgRWrE1q2PlMHZNWxGQSCtXKUi3HCVAmlcsPlynZjTUCgYEA/hD/9Dey4U6M6DFotIuHhRdyTFQ5wqKNxO+nbv/AlXFiJ9YGWDvscYPyUFH1hNXc3FZuWqJjNEa3jDUURZbP8CFlh9CiVTKnu8M4aMBcfGFyUY0UEmAj9raWwBCWBJxehwJtt9QAB6eN1LkS7uvchHtMEBvwmh+YwGz68aiQDpsCgYEAt0kqFbpvbgkNVqPxIDEidwP8Z0j1ZzU9yjObautEIZQQDghsl/IhXoovwOIAIcDXeZozoNdIhL5J1zWmTAJ97LiC+xDykoZQqRoAr0tEMWk/BRPye+ODK/A6KWe8ztUso7no89OnUexAZfUW2dF0P1N0y6itvqPlXdVxpJu3F00CgYALbbBVx/uf7uyftTlEhdI+xmM508AVZUKDTVR2xcJf9o23xQTcCzYDlS/dNRKaOxSIRMsKAKv9ugCfqfOTfck0wAvVJClpM7If3BQ5gg2m+qstx+7TNMfpXSVC1nwpEO+fmxhcYIjvzzWuD/UuEiYFP5aYUulrxWgVn9FZ9X8laQKBgHK8iG3lsc/ONt1f75hZadvbUOxPTeB4AeBMgiRidtoWWB6Qw3ozBxSpqM80KyT2FW14TI2Jd0ox3QOuABZhEPdZYhVNPKzhDClvr7IMifnsipjhLdDEUd71mVNGL3nDFRjBTsUkX//2xzGMRevBJOZnlhvP0kQfUXx2G5gSKoGZAoGBANnAXLmT5F4cMyehacS2tsNeuAq3iKyULUaTz+hEOArNfwNNDxwVcuSTuSW/PQtk1TtbxFTp1lmWjr6EabfVSw/XPUXMrcCgI5oSn3jLIYutO6qMtu6DZnOqqKvSZ0pUVNwA/pnVD1JGvun1rzTYpILo8VeP8vzXDNVWFnFQJNKs";
const BENCH_KEY_N: &str = "tebDlOrewcgF8G9IsGcRHZxSG-F5kMtxdgF04ai9dcTesrFqKaFPWknogyLJgaQG7T2CMvVM2g_v7EVfp81gO7q-Frb-xHz7qjdW4jbw6nz-DTq0HEmX1p4j-wD_N5ffr0MF0H2Q6W0qYuDAoVobGgfBicBBfY_sk4I_QWU524QGrJLrigecBTPnJ4wNk4dPL83NcpU1-OAwfvq2SwZTo8bItUCMKXzx77zmKJ1FnNd-dLd6ONy47C0JSla9bIKVbV5SdHtlev0_1u0rRxhomKscdVm-5ZZpNBB56V_EIa7TC3J709-CsyPn02DhRXboGYtS9lf8iRxn1K7y7nFRnw";
const AUDIENCE: &str = "https://mcp.bench.test/mcp";
const STATIC_TOKEN: &str = "bench-static-token-0123456789abcdef";

static RUNTIME: LazyLock<Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
});

/// Serves the key set on a loopback port; returns the issuer URL.
fn issuer() -> String {
    let jwks = json!({"keys": [{"kty": "RSA", "kid": "bench", "alg": "RS256", "use": "sig",
        "n": BENCH_KEY_N, "e": "AQAB"}]});
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("loopback");
    listener.set_nonblocking(true).expect("non-blocking");
    let address = listener.local_addr().expect("bound");
    let app = Router::new().route(
        "/jwks",
        axum::routing::get(move || {
            let jwks = jwks.clone();
            async move { axum::Json(jwks) }
        }),
    );
    // Served on its own thread: the benchmark's runtime only runs while a call is timed.
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            axum::serve(listener, app).await.expect("serves");
        });
    });
    format!("http://{address}")
}

fn token(issuer: &str, nonce: u64) -> String {
    use base64::Engine;
    let der = base64::engine::general_purpose::STANDARD
        .decode(BENCH_KEY_DER)
        .expect("base64");
    let now = jsonwebtoken::get_current_timestamp();
    let claims = json!({"iss": issuer, "aud": AUDIENCE, "sub": "bench-agent", "client_id": "bench-agent",
        "scope": "mcp tools:read", "iat": now, "exp": now + 86_400, "jti": nonce.to_string()});
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some("bench".to_owned());
    encode(&header, &claims, &EncodingKey::from_rsa_der(&der)).expect("signs")
}

struct Case {
    router: Router,
    bearer: Option<String>,
    issuer: Option<String>,
}

fn case(kind: &str) -> Case {
    let server = Harness::new(Toolbox);
    let mut options = HttpOptions::from_manifest(SERVER.transport, HttpTransport::StreamableHttp)
        .expect("no token variable");
    options.stateful = false;
    options.json_response = true;
    let mut jwt_issuer = None;
    let bearer = match kind {
        "static_token" => {
            options.security.token = Some(STATIC_TOKEN.to_owned());
            Some(STATIC_TOKEN.to_owned())
        }
        "jwt_new_token" | "jwt_seen_before" => {
            let issuer = issuer();
            let spec: &'static AuthSpec = Box::leak(Box::new(AuthSpec {
                issuer: Box::leak(issuer.clone().into_boxed_str()),
                audience: AUDIENCE,
                jwks_uri: Some(Box::leak(format!("{issuer}/jwks").into_boxed_str())),
                algorithms: &["RS256"],
                required_scopes: &["mcp"],
                leeway_seconds: 60,
                jwks_refresh_seconds: 30,
                introspection: None,
                ca_pem: None,
                tool_scopes: &[],
            }));
            options = options.with_auth(Some(spec)).expect("no introspection");
            jwt_issuer = Some(issuer.clone());
            Some(token(&issuer, 0))
        }
        _ => None,
    };
    let fast: Arc<dyn StatelessAnswer> = Arc::new(server.clone());
    let router = RUNTIME
        .block_on(async { http_router(server, &options, CancellationToken::new(), Some(fast)) });
    let case = Case {
        router,
        bearer,
        issuer: jwt_issuer,
    };
    // The first call fetches the key set; every timed call finds it cached.
    assert_eq!(RUNTIME.block_on(call(&case)), StatusCode::OK, "{kind}");
    case
}

async fn call(case: &Case) -> StatusCode {
    call_with(case, case.bearer.as_deref()).await
}

async fn call_with(case: &Case, bearer: Option<&str>) -> StatusCode {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}"#;
    let mut request = Request::post("/mcp")
        .header(header::HOST, "127.0.0.1:8790")
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::ACCEPT, "application/json, text/event-stream");
    if let Some(bearer) = bearer {
        request = request.header(header::AUTHORIZATION, format!("Bearer {bearer}"));
    }
    let request = request.body(Body::from(body)).expect("request");
    let response = case
        .router
        .clone()
        .oneshot(request)
        .await
        .expect("infallible");
    let status = response.status();
    let _ = axum::body::to_bytes(response.into_body(), usize::MAX).await;
    status
}

#[divan::bench(args = ["no_auth", "static_token", "jwt_new_token", "jwt_seen_before"])]
fn tools_call(bencher: Bencher, kind: &str) {
    let case = case(kind);
    if kind == "jwt_new_token" {
        let issuer = case.issuer.clone().expect("a JWT case");
        let nonce = std::sync::atomic::AtomicU64::new(1);
        bencher
            .with_inputs(|| {
                token(
                    &issuer,
                    nonce.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
                )
            })
            .bench_local_values(|token| RUNTIME.block_on(call_with(&case, Some(&token))));
        return;
    }
    bencher.bench_local(|| RUNTIME.block_on(call(&case)));
}
