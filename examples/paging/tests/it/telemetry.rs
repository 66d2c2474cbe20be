//! OpenTelemetry export from a real replica to a real OTLP/HTTP receiver, which decodes what it
//! gets with the official protobuf definitions (opentelemetry-proto): one span per
//! `tools/call`, continuing the client's `traceparent`, with the audit record's attributes,
//! and the calls-by-outcome and latency metrics; and the service named by the standard
//! variables when they are set.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::routing::post;
use harness_test_support::{HttpServer, ScratchFile, TEST_TOKEN, audit_records, scratch_file};
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::metrics::v1::metric;
use opentelemetry_proto::tonic::trace::v1::{Span, span, status};
use prost::Message;
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_paging");
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_SPAN_ID: &str = "00f067aa0ba902b7";

#[derive(Default)]
struct Received {
    traces: Vec<ExportTraceServiceRequest>,
    metrics: Vec<ExportMetricsServiceRequest>,
}

type Shared = Arc<Mutex<Received>>;

/// An OTLP/HTTP receiver on a free loopback port: `/v1/traces` and `/v1/metrics`, protobuf.
async fn receiver() -> (u16, Shared) {
    async fn traces(State(received): State<Shared>, body: Bytes) -> &'static str {
        let request = ExportTraceServiceRequest::decode(body).expect("a protobuf trace export");
        received.lock().unwrap().traces.push(request);
        ""
    }
    async fn metrics(State(received): State<Shared>, body: Bytes) -> &'static str {
        let request = ExportMetricsServiceRequest::decode(body).expect("a protobuf metrics export");
        received.lock().unwrap().metrics.push(request);
        ""
    }
    let received = Shared::default();
    let app = Router::new()
        .route("/v1/traces", post(traces))
        .route("/v1/metrics", post(metrics))
        .with_state(Arc::clone(&received));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (port, received)
}

/// One stateless JSON-RPC POST; the `result` of the reply.
fn post_call(port: u16, body: &Value) -> Value {
    let body = body.to_string();
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TEST_TOKEN}\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         MCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    serde_json::from_str::<Value>(body).unwrap()["result"].clone()
}

fn runbook(alert: &str, meta: Option<Value>) -> Value {
    let mut params = json!({"name": "runbook", "arguments": {"alert": alert}});
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
}

fn attribute<'a>(attributes: &'a [KeyValue], key: &str) -> Option<&'a any_value::Value> {
    attributes
        .iter()
        .find(|attribute| attribute.key == key)
        .and_then(|attribute| attribute.value.as_ref())
        .and_then(|value: &AnyValue| value.value.as_ref())
}

fn string(attributes: &[KeyValue], key: &str) -> String {
    match attribute(attributes, key) {
        Some(any_value::Value::StringValue(text)) => text.clone(),
        other => panic!("{key}: {other:?}"),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn spans(received: &Shared) -> Vec<(Span, Vec<KeyValue>)> {
    let received = received.lock().unwrap();
    received
        .traces
        .iter()
        .flat_map(|request| &request.resource_spans)
        .flat_map(|resource| {
            let resource_attributes = resource
                .resource
                .as_ref()
                .map(|r| r.attributes.clone())
                .unwrap_or_default();
            resource
                .scope_spans
                .iter()
                .flat_map(|scope| scope.spans.clone())
                .map(move |span| (span, resource_attributes.clone()))
        })
        .collect()
}

/// The latest cumulative value of the calls counter for (tool, outcome), and the latency
/// histogram's total count.
fn metric_totals(received: &Shared) -> (Vec<(String, String, i64)>, u64) {
    let received = received.lock().unwrap();
    let Some(latest) = received.metrics.last() else {
        return (Vec::new(), 0);
    };
    let mut calls = Vec::new();
    let mut durations = 0;
    let all = latest
        .resource_metrics
        .iter()
        .flat_map(|resource| &resource.scope_metrics)
        .flat_map(|scope| &scope.metrics);
    for metric in all {
        match (metric.name.as_str(), &metric.data) {
            ("harness.tool.calls", Some(metric::Data::Sum(sum))) => {
                assert!(sum.is_monotonic);
                for point in &sum.data_points {
                    let value = match point.value {
                        Some(
                            opentelemetry_proto::tonic::metrics::v1::number_data_point::Value::AsInt(
                                value,
                            ),
                        ) => value,
                        other => panic!("{other:?}"),
                    };
                    calls.push((
                        string(&point.attributes, "mcp.tool.name"),
                        string(&point.attributes, "harness.outcome"),
                        value,
                    ));
                }
            }
            ("harness.tool.duration", Some(metric::Data::Histogram(histogram))) => {
                assert_eq!(metric.unit, "s");
                durations = histogram.data_points.iter().map(|point| point.count).sum();
            }
            _ => {}
        }
    }
    calls.sort();
    (calls, durations)
}

async fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(Instant::now() < deadline, "never received: {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A replica exporting to a fresh OTLP receiver (spans every 50 ms), with `extra_env`; what
/// the receiver got, the server, and its audit file.
async fn exporting_replica(
    name: &str,
    extra_env: &[(&str, &str)],
) -> (Shared, HttpServer, ScratchFile) {
    let (port, received) = receiver().await;
    let endpoint = format!("http://127.0.0.1:{port}");
    let audit = scratch_file(name, "audit.jsonl");
    let mut env = vec![
        ("PAGING_TOKEN", TEST_TOKEN),
        // Only `runbook` is called, whose limit is in memory: Redis is never asked.
        ("PAGING_REDIS_URL", "redis://127.0.0.1:1/0"),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()),
        ("OTEL_BSP_SCHEDULE_DELAY", "50"),
    ];
    env.extend_from_slice(extra_env);
    let server = HttpServer::start_with_env(SERVER, &audit, &[], &env);
    (received, server, audit)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spans_continue_the_callers_trace_and_metrics_count_outcomes() {
    let (received, server, audit) =
        exporting_replica("paging-otel", &[("OTEL_METRIC_EXPORT_INTERVAL", "100")]).await;

    let traceparent = format!("00-{TRACE_ID}-{PARENT_SPAN_ID}-01");
    let found = post_call(
        server.port,
        &runbook("disk_full", Some(json!({"traceparent": traceparent}))),
    );
    assert_eq!(found["isError"], false, "{found}");
    let missing = post_call(server.port, &runbook("no_such_alert", None));
    assert_eq!(missing["isError"], true, "{missing}");

    wait_for("two spans", || spans(&received).len() >= 2).await;
    let spans = spans(&received);
    assert_eq!(spans.len(), 2, "one span per call");
    let records = audit_records(&audit);

    let (joined, resource) = spans
        .iter()
        .find(|(span, _)| hex(&span.trace_id) == TRACE_ID)
        .expect("the call with a traceparent continues its trace");
    assert_eq!(hex(&joined.parent_span_id), PARENT_SPAN_ID);
    assert_eq!(joined.name, "tools/call runbook");
    assert_eq!(joined.kind, span::SpanKind::Server as i32);
    assert!(joined.end_time_unix_nano >= joined.start_time_unix_nano);
    assert_eq!(string(resource, "service.name"), "paging");
    assert_eq!(string(resource, "service.version"), "0.1.0");
    let attributes = &joined.attributes;
    assert_eq!(string(attributes, "mcp.tool.name"), "runbook");
    assert_eq!(string(attributes, "harness.outcome"), "ok");
    assert!(attribute(attributes, "harness.error_code").is_none());
    assert!(matches!(
        attribute(attributes, "harness.duration_ms"),
        Some(any_value::Value::DoubleValue(ms)) if *ms >= 0.0
    ));
    // The span and the audit record describe the same call.
    assert_eq!(
        string(attributes, "harness.args_sha256"),
        records[0]["args_sha256"]
    );
    assert_eq!(
        string(attributes, "harness.trace_id"),
        records[0]["trace_id"]
    );

    let (fresh, _) = spans
        .iter()
        .find(|(span, _)| hex(&span.trace_id) != TRACE_ID)
        .unwrap();
    assert!(
        fresh.parent_span_id.is_empty(),
        "no traceparent: a new trace"
    );
    assert_ne!(hex(&fresh.trace_id), "0".repeat(32));
    assert_eq!(string(&fresh.attributes, "harness.outcome"), "not_found");
    assert_eq!(string(&fresh.attributes, "harness.error_code"), "NotFound");
    let status = fresh.status.as_ref().expect("a status");
    assert_eq!(status.code, status::StatusCode::Error as i32);
    assert_eq!(
        string(&fresh.attributes, "harness.args_sha256"),
        records[1]["args_sha256"]
    );

    let expected = vec![
        ("runbook".to_owned(), "not_found".to_owned(), 1),
        ("runbook".to_owned(), "ok".to_owned(), 1),
    ];
    wait_for("the call metrics", || {
        metric_totals(&received) == (expected.clone(), 2)
    })
    .await;
}

/// The standard variables name the service: `OTEL_SERVICE_NAME` wins over the server's own
/// name, which is only the default, and `OTEL_RESOURCE_ATTRIBUTES` adds to the resource.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn otel_service_name_and_resource_attributes_win_over_the_servers_name() {
    let (received, server, _audit) = exporting_replica(
        "paging-otel-named",
        &[
            ("OTEL_SERVICE_NAME", "paging-eu-west"),
            ("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=staging"),
        ],
    )
    .await;
    let found = post_call(server.port, &runbook("disk_full", None));
    assert_eq!(found["isError"], false, "{found}");

    wait_for("a span", || !spans(&received).is_empty()).await;
    let (_, resource) = &spans(&received)[0];
    assert_eq!(string(resource, "service.name"), "paging-eu-west");
    assert_eq!(string(resource, "deployment.environment"), "staging");
    assert_eq!(string(resource, "service.version"), "0.1.0");
}
