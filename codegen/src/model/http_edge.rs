//! The HTTP edge of `[transport]`: the limits every connection is held to (header-read and
//! keep-alive timers, the request timeout, header count and size, open connections), each
//! checked against a range that still serves ordinary clients, and the request timeout
//! checked against every call's own time limit, so a call that times out gets its envelope
//! rather than a bare 408.

use crate::diagnostics::Diagnostic;
use crate::error_sink::ErrorSink;
use crate::manifest::{self, Manifest};
use crate::manifest_path::ManifestPath;
use crate::model::upstreams::DEFAULT_UPSTREAM_TIMEOUT_MS;

/// How much longer than every call's own time limit the request timeout must be: time for
/// the guards, a rate-limit check in Redis and the reply after a body times out.
pub(crate) const REQUEST_TIMEOUT_MARGIN_MS: u64 = 5_000;

/// One limit's accepted range, and why values outside it are refused.
struct Range {
    key: &'static str,
    value: fn(&manifest::Transport) -> u64,
    min: u64,
    max: u64,
    too_small: &'static str,
    too_large: &'static str,
}

/// The ranges of the edge's limits.
const RANGES: &[Range] = &[
    Range {
        key: "header_read_timeout_ms",
        value: |transport| transport.header_read_timeout_ms,
        min: 100,
        max: 600_000,
        too_small: "a client on a slow link needs more than 100 ms to send its headers",
        too_large: "more than 10 minutes for a request's headers lets stalled clients hold connections; 10000 is usual",
    },
    Range {
        key: "keep_alive_idle_ms",
        value: |transport| transport.keep_alive_idle_ms,
        min: 100,
        max: 3_600_000,
        too_small: "below 100 ms a client cannot reuse a connection between two calls",
        too_large: "more than an hour of silence keeps dead clients' connections open; 60000 is usual",
    },
    Range {
        key: "first_byte_timeout_ms",
        value: |transport| transport.first_byte_timeout_ms,
        min: 100,
        max: 600_000,
        too_small: "a client on a slow link needs more than 100 ms between connecting and sending",
        too_large: "more than 10 minutes before a first byte lets idle sockets hold connections; 5000 is usual",
    },
    Range {
        key: "request_timeout_ms",
        value: |transport| transport.request_timeout_ms,
        min: 1_000,
        max: 86_400_000,
        too_small: "below 1 s ordinary calls get 408",
        too_large: "more than a day is no limit at all",
    },
    Range {
        key: "max_headers",
        value: |transport| transport.max_headers,
        min: 16,
        max: 1_000,
        too_small: "MCP clients send a dozen headers (Host, Accept, Content-Type, Authorization, Mcp-Session-Id, ...)",
        too_large: "no client needs more than 1000 header fields; 100 is usual",
    },
    Range {
        key: "max_header_bytes",
        value: |transport| transport.max_header_bytes,
        min: 1_024,
        max: 262_144,
        too_small: "a bearer token and a session id alone can take most of 1024 bytes",
        too_large: "more than 256 KiB of headers only serves an attacker; 16384 is usual",
    },
    Range {
        key: "max_connections",
        value: |transport| transport.max_connections,
        min: 4,
        max: 1_000_000,
        too_small: "a client, a health check and a stream need a connection each, and requests keep half",
        too_large: "each connection is a file descriptor; more than a million exceeds any process limit",
    },
];

/// The bound on long-lived streams of each kind: the manifest's, or a quarter of
/// `max_connections`.
pub(crate) fn max_streams(transport: &manifest::Transport) -> u64 {
    transport.max_streams.unwrap_or_else(|| {
        harness_contract::transport::defaults::max_streams(transport.max_connections)
    })
}

/// Checks each limit of `[transport]` against its range, and `max_streams` against
/// `max_connections`.
pub(crate) fn check_limits(transport: &manifest::Transport, errors: &ErrorSink<'_>) {
    let path = ManifestPath::root().key("transport");
    if let Some(streams) = transport.max_streams {
        let most = transport.max_connections / 4;
        if streams == 0 || streams > most {
            errors.report(
                Diagnostic::value(
                    path.key("max_streams"),
                    format!(
                        "max_streams must be between 1 and a quarter of max_connections ({most})"
                    ),
                )
                .label(if streams == 0 { "no stream at all" } else { "more than a quarter" })
                .help("streams of two kinds (GET streams, listen streams) are each bounded by it; at most a quarter each leaves half the connections to requests"),
            );
        }
    }
    for range in RANGES {
        let value = (range.value)(transport);
        let (label, help) = if value < range.min {
            (format!("below {}", range.min), range.too_small)
        } else if value > range.max {
            (format!("above {}", range.max), range.too_large)
        } else {
            continue;
        };
        errors.report(
            Diagnostic::value(
                path.key(range.key),
                format!(
                    "{} must be between {} and {}",
                    range.key, range.min, range.max
                ),
            )
            .label(label)
            .help(help),
        );
    }
}

/// Every call's own time limit (`[defaults.guards]`, each tool's `guards`, each upstream's)
/// must end [`REQUEST_TIMEOUT_MARGIN_MS`] before the request timeout. The error points at
/// the longer limit, or at `request_timeout_ms` when that limit is a default the manifest
/// does not spell out.
pub(crate) fn check_request_timeout(manifest: &Manifest, errors: &ErrorSink<'_>) {
    let request_timeout = manifest.transport.request_timeout_ms;
    let root = ManifestPath::root();
    let mut limits: Vec<(u64, ManifestPath, String)> = Vec::new();
    if let Some(timeout) = manifest.defaults.guards.timeout_ms {
        let path = root.key("defaults").key("guards").key("timeout_ms");
        limits.push((timeout, path, "the default tool timeout".to_owned()));
    }
    for (index, tool) in manifest.tools.iter().enumerate() {
        if let Some(timeout) = tool.guards.timeout_ms {
            let path = root
                .key("tools")
                .index(index)
                .key("guards")
                .key("timeout_ms");
            limits.push((timeout, path, format!("tool `{}`'s timeout", tool.name)));
        }
    }
    for (index, upstream) in manifest.upstreams.iter().enumerate() {
        let what = format!("upstream `{}`'s timeout", upstream.name);
        match upstream.timeout_ms {
            Some(timeout) => {
                let path = root.key("upstreams").index(index).key("timeout_ms");
                limits.push((timeout, path, what));
            }
            None => limits.push((
                DEFAULT_UPSTREAM_TIMEOUT_MS,
                root.key("transport").key("request_timeout_ms"),
                format!("{what} (the default)"),
            )),
        }
    }
    for (timeout, path, what) in limits {
        if timeout.saturating_add(REQUEST_TIMEOUT_MARGIN_MS) <= request_timeout {
            continue;
        }
        errors.report(
            Diagnostic::value(
                path,
                format!(
                    "{what}, {timeout} ms, does not end {REQUEST_TIMEOUT_MARGIN_MS} ms before [transport] request_timeout_ms ({request_timeout} ms)"
                ),
            )
            .label("too close to the request timeout")
            .help(format!(
                "raise [transport] request_timeout_ms to at least {}, or shorten this timeout: otherwise a stateless call that times out gets 408 instead of its envelope",
                timeout.saturating_add(REQUEST_TIMEOUT_MARGIN_MS)
            )),
        );
    }
}
