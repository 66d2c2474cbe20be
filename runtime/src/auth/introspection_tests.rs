//! The introspection cache against a counting fake endpoint on loopback: an active answer is
//! asked once, an inactive one every time, and neither outlives the token's `exp`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::routing::post;
use serde_json::{Value, json};

use super::*;
use crate::spec::IntrospectionSpec;

/// A fake introspection endpoint: answers by the token's text, counts the requests.
struct Endpoint {
    url: &'static str,
    asked: Arc<AtomicUsize>,
}

async fn endpoint() -> Endpoint {
    let asked = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&asked);
    let app = axum::Router::new().route(
        "/introspect",
        post(move |body: String| {
            counter.fetch_add(1, Ordering::SeqCst);
            let token = body
                .split('&')
                .find_map(|pair| pair.strip_prefix("token="))
                .unwrap_or_default()
                .to_owned();
            async move { axum::Json(answer(&token)) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let address = listener.local_addr().expect("bound");
    tokio::spawn(async move { axum::serve(listener, app).await });
    Endpoint {
        url: Box::leak(format!("http://{address}/introspect").into_boxed_str()),
        asked,
    }
}

fn answer(token: &str) -> Value {
    let active = |exp: u64| json!({"active": true, "sub": "svc", "scope": "mcp", "exp": exp});
    match token {
        "good" => active(now() + 3600),
        "no-exp" => json!({"active": true, "sub": "svc"}),
        // Expires now: the answer says active, but no second is left to reuse it in.
        "expiring" => active(now()),
        _ => json!({"active": false}),
    }
}

fn spec(endpoint: &'static str) -> &'static AuthSpec {
    Box::leak(Box::new(AuthSpec {
        issuer: "http://127.0.0.1:1",
        audience: "https://mcp.example/mcp",
        jwks_uri: None,
        algorithms: &["RS256"],
        required_scopes: &[],
        leeway_seconds: 60,
        jwks_refresh_seconds: 30,
        introspection: Some(IntrospectionSpec {
            endpoint,
            client_id_env: "UNUSED",
            client_secret_env: "UNUSED",
            cache_seconds: 60,
        }),
        ca_pem: None,
        tool_scopes: &[],
    }))
}

fn introspection(endpoint: &'static str, cache_seconds: u64) -> Introspection {
    Introspection {
        endpoint,
        client_id: "rs".into(),
        client_secret: "rs-secret".into(),
        cache_seconds,
        answers: Verified::default(),
    }
}

#[tokio::test]
async fn an_active_answer_is_asked_once_an_inactive_one_every_time() {
    let fake = endpoint().await;
    let (spec, client) = (
        spec(fake.url),
        crate::http_client::client(None).expect("client"),
    );
    let checker = introspection(fake.url, 60);
    for _ in 0..3 {
        let caller = checker.verify(&client, "good", spec).await.expect("active");
        assert_eq!(caller.subject, "svc");
    }
    assert_eq!(
        fake.asked.load(Ordering::SeqCst),
        1,
        "one request for three calls"
    );
    for _ in 0..3 {
        assert!(checker.verify(&client, "revoked", spec).await.is_err());
    }
    assert_eq!(
        fake.asked.load(Ordering::SeqCst),
        4,
        "inactive answers are not kept"
    );
    checker
        .verify(&client, "no-exp", spec)
        .await
        .expect("active");
    checker
        .verify(&client, "no-exp", spec)
        .await
        .expect("active");
    assert_eq!(
        fake.asked.load(Ordering::SeqCst),
        5,
        "no exp: kept for cache_seconds"
    );
}

#[tokio::test]
async fn nothing_is_kept_past_exp_or_with_cache_seconds_0() {
    let fake = endpoint().await;
    let (spec, client) = (
        spec(fake.url),
        crate::http_client::client(None).expect("client"),
    );
    let checker = introspection(fake.url, 60);
    checker
        .verify(&client, "expiring", spec)
        .await
        .expect("active");
    checker
        .verify(&client, "expiring", spec)
        .await
        .expect("active");
    assert_eq!(
        fake.asked.load(Ordering::SeqCst),
        2,
        "a token at its exp is asked again"
    );
    let uncached = introspection(fake.url, 0);
    uncached
        .verify(&client, "good", spec)
        .await
        .expect("active");
    uncached
        .verify(&client, "good", spec)
        .await
        .expect("active");
    assert_eq!(
        fake.asked.load(Ordering::SeqCst),
        4,
        "cache_seconds = 0 asks every time"
    );
}

#[test]
fn an_answer_is_kept_until_the_nearer_of_exp_and_the_bound() {
    assert_eq!(cache_until(1000, Some(5000), 60), Some(1060));
    assert_eq!(cache_until(1000, Some(1030), 60), Some(1029));
    assert_eq!(cache_until(1000, None, 60), Some(1060));
    assert_eq!(cache_until(1000, Some(1001), 60), Some(1000));
    assert_eq!(cache_until(1000, Some(1000), 60), None, "expired");
    assert_eq!(cache_until(1000, Some(0), 60), None);
    assert_eq!(cache_until(1000, Some(5000), 0), None, "caching off");
}
