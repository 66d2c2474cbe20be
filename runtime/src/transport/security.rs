//! HTTP security for both HTTP transports: a Host allowlist and Origin validation against DNS
//! rebinding (on by default, loopback only), and optional bearer-token auth. The token comes
//! from an environment variable the manifest names, never from the manifest; the comparison
//! is constant-time, and a failure is a bare 401.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

/// What the MCP endpoints accept.
#[derive(Debug, Clone, Default)]
pub struct HttpSecurity {
    /// Host names (without port) a request's `Host` may carry; empty allows any.
    pub allowed_hosts: Vec<String>,
    /// Extra origins (`scheme://host[:port]`) allowed besides those on an allowed host.
    pub allowed_origins: Vec<String>,
    /// The bearer token every request must carry.
    pub token: Option<String>,
}

/// The host part of a `Host` header or an origin's authority: `[::1]:80` -> `::1`. `None`
/// when the authority is malformed: anything after a bracketed IPv6 literal other than a
/// port (`[::1]evil.example`), or a port that is not digits.
fn host_of(authority: &str) -> Option<&str> {
    let is_port = |port: &str| !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit());
    if let Some(rest) = authority.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        let port_ok = after.is_empty() || after.strip_prefix(':').is_some_and(is_port);
        return port_ok.then_some(host);
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if is_port(port) && !host.contains(':') => Some(host),
        Some(_) => None,
        None => Some(authority),
    }
}

impl HttpSecurity {
    fn host_allowed(&self, authority: &str) -> bool {
        let Some(host) = host_of(authority) else {
            return false;
        };
        self.allowed_hosts.is_empty()
            || self
                .allowed_hosts
                .iter()
                .any(|allowed| allowed.eq_ignore_ascii_case(host))
    }

    /// The status a request is refused with, if any.
    pub fn refusal(&self, headers: &HeaderMap) -> Option<StatusCode> {
        let host = headers
            .get(header::HOST)
            .and_then(|value| value.to_str().ok());
        match host {
            Some(host) if self.host_allowed(host) => {}
            _ if self.allowed_hosts.is_empty() => {}
            _ => return Some(StatusCode::FORBIDDEN),
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let Ok(origin) = origin.to_str() else {
                return Some(StatusCode::FORBIDDEN);
            };
            let listed = self
                .allowed_origins
                .iter()
                .any(|allowed| allowed.eq_ignore_ascii_case(origin));
            let on_allowed_host = origin.split_once("://").is_some_and(|(_, authority)| {
                !self.allowed_hosts.is_empty() && self.host_allowed(authority)
            });
            if !listed && !on_allowed_host {
                return Some(StatusCode::FORBIDDEN);
            }
        }
        if let Some(token) = &self.token {
            let presented = headers
                .get(header::AUTHORIZATION)
                .and_then(|value| value.to_str().ok())
                .and_then(|value| value.strip_prefix("Bearer "))
                .unwrap_or("");
            if !bool::from(presented.as_bytes().ct_eq(token.as_bytes())) {
                return Some(StatusCode::UNAUTHORIZED);
            }
        }
        None
    }
}

/// The axum middleware applying `security` to every request of the router it wraps.
pub(crate) async fn enforce(security: Arc<HttpSecurity>, request: Request, next: Next) -> Response {
    match security.refusal(request.headers()) {
        None => next.run(request).await,
        Some(StatusCode::UNAUTHORIZED) => (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            Body::empty(),
        )
            .into_response(),
        Some(status) => (status, Body::empty()).into_response(),
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(name.clone(), HeaderValue::from_str(value).unwrap());
        }
        map
    }

    fn loopback(token: Option<&str>) -> HttpSecurity {
        HttpSecurity {
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            allowed_origins: vec!["https://app.example.com".into()],
            token: token.map(str::to_owned),
        }
    }

    #[test]
    fn hosts_and_origins() {
        let security = loopback(None);
        assert_eq!(
            security.refusal(&headers(&[(header::HOST, "127.0.0.1:8765")])),
            None
        );
        assert_eq!(
            security.refusal(&headers(&[(header::HOST, "[::1]:8765")])),
            None
        );
        assert_eq!(
            security.refusal(&headers(&[(header::HOST, "evil.example:8765")])),
            Some(StatusCode::FORBIDDEN)
        );
        let host = (header::HOST, "localhost:8765");
        assert_eq!(
            security.refusal(&headers(&[
                host.clone(),
                (header::ORIGIN, "http://localhost:3000")
            ])),
            None
        );
        assert_eq!(
            security.refusal(&headers(&[
                host.clone(),
                (header::ORIGIN, "https://app.example.com")
            ])),
            None
        );
        assert_eq!(
            security.refusal(&headers(&[host, (header::ORIGIN, "http://evil.example")])),
            Some(StatusCode::FORBIDDEN)
        );
    }

    #[test]
    fn anything_after_a_bracketed_address_but_a_port_is_refused() {
        let security = loopback(None);
        for host in [
            "[::1]evil.example",
            "[::1]:80evil",
            "[::1",
            "[::1]:",
            "localhost:80:80",
        ] {
            let refused = security.refusal(&headers(&[(header::HOST, host)]));
            assert_eq!(refused, Some(StatusCode::FORBIDDEN), "Host: {host}");
        }
        for origin in [
            "http://[::1]evil.example",
            "http://[::1]evil.example:80",
            "http://[::1]:8765x",
        ] {
            let refused = security.refusal(&headers(&[
                (header::HOST, "[::1]:8765"),
                (header::ORIGIN, origin),
            ]));
            assert_eq!(refused, Some(StatusCode::FORBIDDEN), "Origin: {origin}");
        }
        assert_eq!(
            security.refusal(&headers(&[
                (header::HOST, "[::1]:8765"),
                (header::ORIGIN, "http://[::1]:3000")
            ])),
            None
        );
    }

    #[test]
    fn bearer_tokens() {
        let security = loopback(Some("s3cret"));
        let host = (header::HOST, "127.0.0.1:8765");
        assert_eq!(
            security.refusal(&headers(std::slice::from_ref(&host))),
            Some(StatusCode::UNAUTHORIZED)
        );
        assert_eq!(
            security.refusal(&headers(&[
                host.clone(),
                (header::AUTHORIZATION, "Bearer wrong")
            ])),
            Some(StatusCode::UNAUTHORIZED)
        );
        assert_eq!(
            security.refusal(&headers(&[
                host.clone(),
                (header::AUTHORIZATION, "Bearer s3cret")
            ])),
            None
        );
        assert_eq!(
            security.refusal(&headers(&[host, (header::AUTHORIZATION, "Basic s3cret")])),
            Some(StatusCode::UNAUTHORIZED)
        );
    }
}
