//! `health --url URL`: the image's HEALTHCHECK. The sidecar image has no curl or python,
//! so the binary checks itself: a plain HTTP/1.1 GET that must answer 200 `{"status":"ok"}`.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// Why the health check failed.
#[derive(Debug, thiserror::Error)]
pub enum HealthError {
    /// Only `http://host:port/path` is supported.
    #[error("unsupported health url {0:?}: expected http://HOST:PORT/PATH")]
    Url(String),
    /// Connecting, writing or reading failed.
    #[error("health check failed: {0}")]
    Io(#[from] std::io::Error),
    /// The answer was not 200 `{"status":"ok"}`.
    #[error("unhealthy: {0}")]
    Unhealthy(String),
}

/// Checks `url` within `timeout`.
pub(crate) fn check(url: &str, timeout: Duration) -> Result<(), HealthError> {
    let (authority, path) = split_http_url(url).ok_or_else(|| HealthError::Url(url.to_owned()))?;
    let address = authority
        .to_socket_addrs()
        .map_err(|_| HealthError::Url(url.to_owned()))?
        .next()
        .ok_or_else(|| HealthError::Url(url.to_owned()))?;
    let mut stream = TcpStream::connect_timeout(&address, timeout)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    )?;
    let mut response = Vec::new();
    stream.take(64 * 1024).read_to_end(&mut response)?;
    let response = String::from_utf8_lossy(&response);
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    let status = head.lines().next().unwrap_or_default();
    if healthy(status, body) {
        Ok(())
    } else {
        Err(HealthError::Unhealthy(status.to_owned()))
    }
}

/// 200 with a JSON object whose `status` is `"ok"`; a gateway's also lists its upstreams.
fn healthy(status_line: &str, body: &str) -> bool {
    let ok_body = serde_json::from_str::<serde_json::Value>(body.trim())
        .is_ok_and(|value| value.get("status").and_then(serde_json::Value::as_str) == Some("ok"));
    status_line.split_whitespace().nth(1) == Some("200") && ok_body
}

/// `http://HOST:PORT/PATH` as its authority and its path (`/` when absent); `None` for any
/// other scheme.
pub(crate) fn split_http_url(url: &str) -> Option<(&str, String)> {
    let rest = url.strip_prefix("http://")?;
    Some(
        rest.split_once('/')
            .map_or((rest, "/".to_owned()), |(authority, path)| {
                (authority, format!("/{path}"))
            }),
    )
}

#[cfg(test)]
mod tests {
    use super::healthy;

    #[test]
    fn healthy_means_200_and_status_ok_whatever_else_the_body_lists() {
        assert!(healthy("HTTP/1.1 200 OK", r#"{"status":"ok"}"#));
        // A gateway lists its upstreams beside the status.
        assert!(healthy(
            "HTTP/1.1 200 OK",
            r#"{"status":"ok","upstreams":{"u":{"status":"up"}}}"#
        ));
        assert!(!healthy(
            "HTTP/1.1 503 Service Unavailable",
            r#"{"status":"degraded"}"#
        ));
        assert!(!healthy("HTTP/1.1 200 OK", r#"{"status":"degraded"}"#));
        assert!(!healthy("HTTP/1.1 200 OK", "ok"));
    }
}
