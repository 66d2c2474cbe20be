//! The issuer over https on loopback, under a CA this test makes (rcgen): its metadata and
//! keys are fetched and a token verified when the manifest's `ca_file` names the CA, and the
//! fetch is refused, saying why, when it does not.

use std::sync::Arc;

use axum::routing::get;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use harness_test_support::tls::{pki, serve_https};
use rcgen::KeyPair;
use serde_json::{Value, json};

use crate::auth::authenticator::Authenticator;
use crate::auth::challenge::Rejection;
use crate::auth::issuer::Issuer;
use crate::auth::setup_error::AuthSetupError;
use crate::auth::verified::now;
use crate::http_client;
use crate::spec::AuthSpec;

/// A token's signing key (ES256) and its JWK.
struct SigningKey {
    encoding: jsonwebtoken::EncodingKey,
    jwk: Value,
}

fn signing_key() -> SigningKey {
    let key = KeyPair::generate().expect("a P-256 key");
    // The uncompressed point: 0x04, then x and y.
    let point = key.public_key_raw();
    let jwk = json!({
        "kty": "EC", "crv": "P-256", "kid": "k1", "alg": "ES256", "use": "sig",
        "x": URL_SAFE_NO_PAD.encode(&point[1..33]),
        "y": URL_SAFE_NO_PAD.encode(&point[33..65]),
    });
    let encoding = jsonwebtoken::EncodingKey::from_ec_der(&key.serialize_der());
    SigningKey { encoding, jwk }
}

/// Serves the issuer's discovery document and key set over https on a loopback port; returns
/// the issuer (`https://127.0.0.1:PORT`).
async fn https_issuer(server: Arc<rustls::ServerConfig>, jwk: Value) -> &'static str {
    serve_https(server, |origin| {
        let discovery = json!({"issuer": origin, "jwks_uri": format!("{origin}/jwks")});
        let keys = json!({"keys": [jwk]});
        axum::Router::new()
            .route(
                "/.well-known/openid-configuration",
                get(move || async move { axum::Json(discovery) }),
            )
            .route("/jwks", get(move || async move { axum::Json(keys) }))
    })
    .await
}

fn spec(issuer: &'static str, ca_pem: Option<&'static str>) -> &'static AuthSpec {
    Box::leak(Box::new(AuthSpec {
        issuer,
        audience: "https://mcp.example/mcp",
        jwks_uri: None,
        algorithms: &["ES256"],
        required_scopes: &[],
        leeway_seconds: 60,
        jwks_refresh_seconds: 30,
        introspection: None,
        ca_pem,
        tool_scopes: &[],
    }))
}

fn token(issuer: &str, key: &SigningKey) -> String {
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
    header.kid = Some("k1".into());
    let claims = json!({
        "iss": issuer, "aud": "https://mcp.example/mcp", "sub": "svc",
        "exp": now() + 300, "scope": "mcp",
    });
    jsonwebtoken::encode(&header, &claims, &key.encoding).expect("signed")
}

#[tokio::test]
async fn an_https_issuer_under_the_manifests_ca_is_trusted() {
    let (pki, key) = (pki("issuer's CA"), signing_key());
    let issuer = https_issuer(pki.server, key.jwk.clone()).await;
    let auth = Authenticator::from_spec(spec(issuer, Some(pki.ca_pem))).expect("auth starts");
    let caller = auth
        .authenticate(&token(issuer, &key))
        .await
        .expect("discovery and keys over https, the token verified");
    assert_eq!(caller.subject, "svc");
}

#[tokio::test]
async fn an_https_issuer_under_an_unknown_ca_is_refused_saying_why() {
    let (pki, key) = (pki("issuer's CA"), signing_key());
    let issuer = https_issuer(pki.server, key.jwk.clone()).await;
    // Mozilla's roots only, then another private CA: neither signed the server's certificate.
    let stranger = self::pki("another CA").ca_pem;
    for ca_pem in [None, Some(stranger)] {
        let client = http_client::client(ca_pem).expect("client");
        let error = Issuer::new(issuer, None, client)
            .jwks()
            .await
            .expect_err("an untrusted certificate");
        let text = error.to_string();
        assert!(
            text.contains("invalid peer certificate: UnknownIssuer"),
            "the reason is named: {text}"
        );
        let auth = Authenticator::from_spec(spec(issuer, ca_pem)).expect("auth starts");
        let refused = auth.authenticate(&token(issuer, &key)).await;
        assert!(
            matches!(refused, Err(Rejection::Unavailable)),
            "503, never accepted: {refused:?}"
        );
    }
}

#[test]
fn a_ca_file_without_a_usable_certificate_stops_auth_from_starting() {
    let junk = "-----BEGIN CERTIFICATE-----\nTUlJ\n-----END CERTIFICATE-----\n";
    for (pem, says) in [
        ("not pem", "holds no PEM certificate"),
        (
            junk,
            "the CA certificate 1 of the ca_file cannot be trusted",
        ),
    ] {
        let error =
            Authenticator::from_spec(spec("https://id.example", Some(pem))).expect_err("refused");
        let AuthSetupError::Client(text) = error else {
            panic!("not a client error: {error:?}");
        };
        assert!(text.contains(says), "{text}");
    }
}
