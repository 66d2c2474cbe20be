//! Every refusal of the auth layer and its answer (RFC 6750 section 3, RFC 9728 section 5.1,
//! MCP "Authorization"): 401 with `WWW-Authenticate: Bearer resource_metadata=..., scope=...`
//! (and `error="invalid_token"` when a token was given), 403 `insufficient_scope` naming the
//! scope, 400 `invalid_request` for a token in the query string, 503 when the issuer's keys
//! cannot be had. The token is never in an answer or a log line.

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// Why a request is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Rejection {
    /// No `Authorization: Bearer` header.
    Missing,
    /// A token that does not hold, and why (said to the client: RFC 6750 allows a
    /// description, and none of these says more than the token itself does).
    Invalid(&'static str),
    /// The token lacks `scope`: the request's tool (or the server) needs it.
    InsufficientScope(String),
    /// `access_token` in the query string (OAuth 2.1 section 5.1.2 forbids it).
    TokenInQuery,
    /// The issuer's keys or introspection endpoint cannot be reached.
    Unavailable,
}

impl Rejection {
    pub(crate) fn invalid(reason: &'static str) -> Self {
        Self::Invalid(reason)
    }

    pub(crate) fn unavailable() -> Self {
        Self::Unavailable
    }

    /// The answer, pointing at the protected-resource metadata and naming the scopes a token
    /// should ask for (`scope`, space-separated).
    pub(crate) fn response(&self, metadata_url: &str, scope: &str) -> Response {
        let mut params = vec![format!("resource_metadata=\"{metadata_url}\"")];
        let status = match self {
            Self::Missing => StatusCode::UNAUTHORIZED,
            Self::Invalid(reason) => {
                params.insert(
                    0,
                    format!("error=\"invalid_token\", error_description=\"{reason}\""),
                );
                StatusCode::UNAUTHORIZED
            }
            Self::InsufficientScope(needed) => {
                params.insert(
                    0,
                    format!(
                        "error=\"insufficient_scope\", error_description=\"the token lacks the scope {needed}\""
                    ),
                );
                params.push(format!("scope=\"{needed}\""));
                return challenge(StatusCode::FORBIDDEN, &params);
            }
            Self::TokenInQuery => {
                params.insert(0, "error=\"invalid_request\", error_description=\"send the token in the Authorization header, not the query string\"".to_owned());
                StatusCode::BAD_REQUEST
            }
            Self::Unavailable => {
                return (
                    StatusCode::SERVICE_UNAVAILABLE,
                    [(header::RETRY_AFTER, "5")],
                    Body::empty(),
                )
                    .into_response();
            }
        };
        if !scope.is_empty() {
            params.push(format!("scope=\"{scope}\""));
        }
        challenge(status, &params)
    }
}

fn challenge(status: StatusCode, params: &[String]) -> Response {
    let value = format!("Bearer {}", params.join(", "));
    // Every part is the manifest's (checked to be header-safe) or one of the texts above.
    let value =
        HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static("Bearer"));
    (status, [(header::WWW_AUTHENTICATE, value)], Body::empty()).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn www_authenticate(rejection: &Rejection) -> (StatusCode, String) {
        let response = rejection.response(
            "https://mcp.example/.well-known/oauth-protected-resource/mcp",
            "tools:read",
        );
        let value = response.headers()[header::WWW_AUTHENTICATE]
            .to_str()
            .unwrap()
            .to_owned();
        (response.status(), value)
    }

    #[test]
    fn no_token_gets_the_metadata_link_and_the_scope_without_an_error() {
        assert_eq!(
            www_authenticate(&Rejection::Missing),
            (
                StatusCode::UNAUTHORIZED,
                "Bearer resource_metadata=\"https://mcp.example/.well-known/oauth-protected-resource/mcp\", scope=\"tools:read\"".to_owned()
            )
        );
    }

    #[test]
    fn a_bad_token_is_invalid_token_and_a_missing_scope_is_403() {
        let (status, value) = www_authenticate(&Rejection::invalid("the token has expired"));
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert!(
            value.starts_with(
                "Bearer error=\"invalid_token\", error_description=\"the token has expired\""
            ),
            "{value}"
        );
        let (status, value) = www_authenticate(&Rejection::InsufficientScope("tools:write".into()));
        assert_eq!(status, StatusCode::FORBIDDEN);
        assert!(
            value.contains("error=\"insufficient_scope\"")
                && value.ends_with("scope=\"tools:write\""),
            "{value}"
        );
        let (status, value) = www_authenticate(&Rejection::TokenInQuery);
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert!(value.contains("error=\"invalid_request\""), "{value}");
    }
}
