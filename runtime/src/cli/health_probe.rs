//! `health --url URL`: the image's HEALTHCHECK. The sidecar image has no curl or python,
//! so the binary checks itself: a plain HTTP/1.1 GET that must answer 200 `{"status":"ok"}`.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use crate::cli::error::{CliError, HealthError};
use crate::cli::shared::manifest_url;
use crate::server::GeneratedServer;

#[derive(Debug, clap::Args)]
pub(crate) struct HealthArgs {
    /// The health endpoint [default: the manifest's bind and health_path, on loopback when
    /// the bind is every interface].
    #[arg(long)]
    url: Option<String>,
    /// Seconds to wait.
    #[arg(long, default_value_t = 2)]
    timeout_seconds: u64,
}

/// Checks the given or the manifest's health URL; exit code 0 when healthy.
pub(crate) fn run<S: GeneratedServer>(server: &S, args: HealthArgs) -> Result<u8, CliError> {
    let url = match args.url {
        Some(url) => url,
        None => {
            let spec = server.spec();
            manifest_url(spec, spec.transport.health_path)?
        }
    };
    check(&url, Duration::from_secs(args.timeout_seconds))?;
    Ok(0)
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
