//! The axum middleware in front of the MCP endpoints: a token in the query string refused,
//! the `Authorization: Bearer` token checked, the server-wide scopes required, a `tools/call`
//! whose tool needs a scope the token lacks refused with 403 before any handler sees it, and
//! the accepted [`crate::auth::Caller`] put into the request's extensions.
//!
//! `tools/list` shows every tool whatever the token's scopes: a list that changed with the
//! token would defeat clients' caching of it, and a 403 naming the missing scope is what a
//! client needs to step up (MCP "Authorization", scope challenge).

use std::sync::Arc;

use axum::extract::Request;
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use crate::auth::authenticator::Authenticator;
use crate::auth::challenge::Rejection;

/// The two members of a JSON-RPC request the scope check reads.
#[derive(Deserialize)]
struct Peek {
    method: Option<String>,
    params: Option<PeekParams>,
}

#[derive(Deserialize)]
struct PeekParams {
    name: Option<String>,
}

/// The bearer token of `Authorization` (the scheme is case-insensitive, RFC 7235).
fn bearer(request: &Request) -> Option<&str> {
    let value = request
        .headers()
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

fn token_in_query(request: &Request) -> bool {
    request.uri().query().is_some_and(|query| {
        query
            .split('&')
            .any(|pair| pair.split('=').next() == Some("access_token"))
    })
}

/// Applies `auth` to one request; `body_limit` bounds what the scope check reads.
pub(crate) async fn authorize(
    auth: Arc<Authenticator>,
    body_limit: usize,
    request: Request,
    next: Next,
) -> Response {
    if token_in_query(&request) {
        return auth.refuse(&Rejection::TokenInQuery);
    }
    let Some(token) = bearer(&request) else {
        return auth.refuse(&Rejection::Missing);
    };
    let caller = match auth.authenticate(token).await {
        Ok(caller) => caller,
        Err(rejection) => {
            tracing::info!(reason = ?rejection, "access token refused");
            return auth.refuse(&rejection);
        }
    };
    let spec = auth.spec();
    if let Some(scope) = caller.missing_scope(spec.required_scopes) {
        return auth.refuse(&Rejection::InsufficientScope(scope.to_owned()));
    }
    let lacks_a_tool_scope = spec
        .tool_scopes
        .iter()
        .any(|(_, scopes)| caller.missing_scope(scopes).is_some());
    let mut request = request;
    if lacks_a_tool_scope && request.method() == Method::POST {
        let (parts, body) = request.into_parts();
        let Ok(bytes) = axum::body::to_bytes(body, body_limit).await else {
            return StatusCode::PAYLOAD_TOO_LARGE.into_response();
        };
        if let Ok(Peek {
            method: Some(method),
            params: Some(PeekParams { name: Some(name) }),
        }) = serde_json::from_slice::<Peek>(&bytes)
            && method == "tools/call"
            && let Some(scope) = caller.missing_scope(spec.scopes_of(&name))
        {
            tracing::info!(subject = %caller.subject, tool = %name, scope, "tools/call refused: the token lacks the tool's scope");
            return auth.refuse(&Rejection::InsufficientScope(scope.to_owned()));
        }
        request = Request::from_parts(parts, axum::body::Body::from(bytes));
    }
    tracing::debug!(subject = %caller.subject, client_id = caller.client_id.as_deref(), "access token accepted");
    request.extensions_mut().insert(caller);
    next.run(request).await
}
