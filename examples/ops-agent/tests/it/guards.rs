//! The guard pipeline through a real MCP client (rmcp over streamable HTTP) against the
//! ops-agent server: panics, rate limits under concurrency, the tabular blockade and
//! summary, truncation and stripping, timeouts, error hygiene, trace ids, built-in tools,
//! and the audit log, which must hold exactly one valid record per call.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use futures::future::join_all;
use harness_test_support::{
    Client, HttpServer, ScratchFile, assert_trace_id, audit_records, call, scratch_file, text,
};
use rmcp::model::{CallToolRequestParams, CallToolResult, RequestMetaObject};
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_ops-agent");

fn envelope(result: &CallToolResult) -> &Value {
    assert_eq!(
        result.is_error,
        Some(true),
        "expected an error result: {result:?}"
    );
    let envelope = result
        .structured_content
        .as_ref()
        .expect("structuredContent");
    let fields: Vec<&str> = envelope
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        fields,
        ["status", "error_code", "message", "trace_id"],
        "exactly the envelope"
    );
    assert_eq!(
        serde_json::from_str::<Value>(text(result)).unwrap(),
        *envelope,
        "text = structured"
    );
    envelope
}

async fn start(name: &str) -> (HttpServer, Client, ScratchFile) {
    let audit = scratch_file(name, "audit.jsonl");
    let server = HttpServer::start(SERVER, &audit);
    let client = server.client("/mcp").await;
    (server, client, audit)
}

#[tokio::test]
async fn a_thousand_calls_with_ten_percent_panics_keep_the_session_up() {
    let (_server, client, audit) = start("panics").await;
    let mut panics = 0;
    for index in 0..1000 {
        if index % 10 == 0 {
            let result = call(&client, "simulate_fault", json!({"kind": "panic"}))
                .await
                .expect("answered");
            let envelope = envelope(&result);
            assert_eq!(envelope["error_code"], "InternalError");
            assert_eq!(envelope["message"], "internal error");
            assert!(
                !text(&result).contains("secret") && !text(&result).contains("/srv"),
                "no panic payload leaks"
            );
            panics += 1;
        } else {
            let result = call(&client, "query_order_metrics", json!({}))
                .await
                .expect("answered");
            assert_eq!(result.is_error, Some(false));
            assert_eq!(
                result.structured_content.as_ref().unwrap()["order_count"],
                1000
            );
        }
    }
    assert_eq!(panics, 100);
    let records = audit_records(&audit);
    assert_eq!(records.len(), 1000, "one record per call");
    let panicked = records.iter().filter(|r| r["outcome"] == "panic").count();
    assert_eq!(panicked, 100);
    assert!(
        records
            .iter()
            .filter(|r| r["outcome"] == "panic")
            .all(|r| r["error_code"] == "InternalError")
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_rate_limit_is_exact_under_concurrency_and_stops_the_body() {
    let (_server, client, audit) = start("rate").await;
    let calls = (0..20).map(|i| {
        call(
            &client,
            "trigger_external_mutation",
            json!({"action": format!("a{i}")}),
        )
    });
    let results: Vec<CallToolResult> = join_all(calls)
        .await
        .into_iter()
        .map(|r| r.expect("answered"))
        .collect();
    let admitted: Vec<&CallToolResult> = results
        .iter()
        .filter(|r| r.is_error == Some(false))
        .collect();
    assert_eq!(admitted.len(), 3, "3 calls per 60 s");
    let mut numbers: Vec<u64> = admitted
        .iter()
        .map(|r| {
            r.structured_content.as_ref().unwrap()["dispatch_number"]
                .as_u64()
                .unwrap()
        })
        .collect();
    numbers.sort_unstable();
    assert_eq!(numbers, [1, 2, 3], "refused calls never reached the body");
    for refused in results.iter().filter(|r| r.is_error == Some(true)) {
        let envelope = envelope(refused);
        assert_eq!(envelope["error_code"], "ToolRateLimitError");
        let message = envelope["message"].as_str().unwrap();
        assert!(
            message
                .starts_with("Rate limit exceeded: 3 calls per 60.0s limit reached. Retry after "),
            "{message}"
        );
    }
    let diagnostics = call(&client, "diagnostics", json!({})).await.unwrap();
    let counters =
        &diagnostics.structured_content.as_ref().unwrap()["tools"]["trigger_external_mutation"];
    assert_eq!(
        *counters,
        json!({"calls": 20, "errors": 17, "rate_limited": 17})
    );
    let limited = audit_records(&audit)
        .iter()
        .filter(|r| r["outcome"] == "rate_limited")
        .count();
    assert_eq!(
        limited, 17,
        "rate-limited calls are audited although the body never ran"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn tables_are_blocked_or_summarized() {
    let (_server, client, _audit) = start("tabular").await;
    let blocked = call(&client, "query_orders", json!({})).await.unwrap();
    let envelope = envelope(&blocked);
    assert_eq!(envelope["error_code"], "TokenStarvationError");
    assert_eq!(
        envelope["message"],
        "Raw DataFrames are strictly prohibited in MCP tools. Return scalar metrics or token-compressed strings."
    );
    assert!(text(&blocked).len() < 400);

    let summarized = call(&client, "query_orders_summary", json!({}))
        .await
        .unwrap();
    assert_eq!(summarized.is_error, Some(false));
    let structured = summarized.structured_content.as_ref().unwrap();
    assert_eq!(
        structured["orders"],
        "table: 1000 rows, 4 columns\n\
         order_id: integer, nulls 0, 0..999, mean 499.5\n\
         amount: number, nulls 0, 0..99.9, mean 49.95\n\
         region: string, nulls 0, 3 distinct, top eu-west (334), ap-south (333), us-east (333)\n\
         status: string, nulls 0, 2 distinct, top paid (900), refunded (100)"
    );
    assert_eq!(
        structured["source"], "orders",
        "the rest of the result stays"
    );
    assert!(
        text(&summarized).len() < 600,
        "{} bytes",
        text(&summarized).len()
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn logs_are_capped_and_stripped() {
    let (_server, client, _audit) = start("logs").await;
    let result = call(&client, "query_system_logs", json!({"service": "checkout"}))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false));
    let log = text(&result);
    assert!(log.chars().count() <= 2000, "{} chars", log.chars().count());
    assert!(
        log.ends_with("characters cut]"),
        "the cut is marked: {:?}",
        &log[log.len() - 60..]
    );
    for hidden in [
        "<DATA>",
        "ignore previous instructions",
        "\x1b",
        "\u{202e}",
        "exfiltrate",
    ] {
        assert!(!log.contains(hidden), "{hidden:?} reached the model");
    }
    assert!(log.contains("checkout request 0 served"));
    let meta = result.meta.as_ref().expect("the cut is reported in _meta");
    assert!(
        meta.0["harness/truncated"]["original_chars"]
            .as_u64()
            .unwrap()
            > 2000
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn errors_and_timeouts_are_enveloped_without_internals() {
    let (_server, client, audit) = start("faults").await;
    let error = call(&client, "simulate_fault", json!({"kind": "error"}))
        .await
        .unwrap();
    let envelope = envelope(&error);
    assert_eq!(envelope["error_code"], "ConnectionResetError");
    assert_eq!(envelope["message"], "Remote database closed connection");
    assert!(
        !text(&error).contains("hunter2"),
        "internal detail stays in the server log"
    );
    assert_trace_id(envelope);

    let started = Instant::now();
    let timeout = call(&client, "simulate_fault", json!({"kind": "timeout"}))
        .await
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "answered at the timeout, not at 30 s"
    );
    assert_eq!(envelope_code(&timeout), "ToolTimeoutError");
    assert_eq!(
        self::envelope(&timeout)["message"],
        "Tool call timed out after 300 ms."
    );

    let invalid = call(&client, "simulate_fault", json!({"kind": "meltdown"}))
        .await
        .unwrap();
    assert_eq!(envelope_code(&invalid), "InvalidArguments");

    let outcomes: Vec<String> = audit_records(&audit)
        .iter()
        .map(|r| r["outcome"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(outcomes, ["error", "timeout", "invalid_arguments"]);
    client.cancel().await.unwrap();
}

fn envelope_code(result: &CallToolResult) -> String {
    envelope(result)["error_code"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_w3c_traceparent_becomes_the_trace_id() {
    let (_server, client, audit) = start("trace").await;
    let mut meta = RequestMetaObject::default();
    meta.set_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    let mut params = CallToolRequestParams::new("simulate_fault");
    params.arguments = json!({"kind": "error"}).as_object().cloned();
    params.meta = Some(meta);
    let result = client.call_tool(params).await.unwrap();
    assert_eq!(
        envelope(&result)["trace_id"],
        "4bf92f3577b34da6a3ce929d0e0e4736"
    );
    assert_eq!(
        audit_records(&audit)[0]["trace_id"],
        "4bf92f3577b34da6a3ce929d0e0e4736"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn builtin_tools_are_listed_read_only_and_guarded() {
    let (_server, client, _audit) = start("builtins").await;
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    for builtin in ["health", "ping", "diagnostics"] {
        assert!(names.contains(&builtin), "{names:?}");
        let tool = tools.iter().find(|tool| tool.name == builtin).unwrap();
        assert_eq!(
            tool.annotations.as_ref().unwrap().read_only_hint,
            Some(true)
        );
    }
    let health = call(&client, "health", json!({})).await.unwrap();
    assert_eq!(health.structured_content, Some(json!({"status": "ok"})));
    assert_eq!(
        text(&call(&client, "ping", json!({})).await.unwrap()),
        "pong"
    );
    let refused = call(&client, "ping", json!({"extra": 1})).await.unwrap();
    assert_eq!(
        envelope_code(&refused),
        "InvalidArguments",
        "built-ins validate strictly too"
    );
    let diagnostics = call(&client, "diagnostics", json!({})).await.unwrap();
    let report = diagnostics.structured_content.unwrap();
    assert_eq!(report["server"], "ops-agent");
    assert_eq!(report["version"], "0.2.0");
    assert_eq!(report["manifest_sha256"].as_str().unwrap().len(), 64);
    assert_eq!(
        report["tools"]["ping"],
        json!({"calls": 2, "errors": 1, "rate_limited": 0})
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn concurrent_calls_leave_exactly_one_valid_audit_line_each() {
    let (_server, client, audit) = start("audit").await;
    let calls = (0..300).map(|i| {
        let arguments = if i % 3 == 0 {
            json!({"bogus": i})
        } else {
            json!({})
        };
        call(&client, "query_order_metrics", arguments)
    });
    for result in join_all(calls).await {
        result.expect("answered");
    }
    let text = std::fs::read_to_string(&audit).unwrap();
    assert!(text.ends_with('\n'));
    let records = audit_records(&audit);
    assert_eq!(records.len(), 300);
    let mut call_ids = HashSet::new();
    for record in &records {
        let keys: Vec<&str> = record.keys().map(String::as_str).collect();
        let expected_keys: &[&str] = if record["outcome"] == "ok" {
            &[
                "args_sha256",
                "call_id",
                "duration_ms",
                "outcome",
                "schema_version",
                "timestamp",
                "tool",
                "trace_id",
            ]
        } else {
            &[
                "args_sha256",
                "call_id",
                "duration_ms",
                "error_code",
                "outcome",
                "schema_version",
                "timestamp",
                "tool",
                "trace_id",
            ]
        };
        assert_eq!(keys, expected_keys);
        assert!(
            call_ids.insert(record["call_id"].as_str().unwrap().to_owned()),
            "call ids are unique"
        );
        assert_eq!(record["args_sha256"].as_str().unwrap().len(), 64);
    }
    assert_eq!(
        records
            .iter()
            .filter(|r| r["outcome"] == "invalid_arguments")
            .count(),
        100
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn sigterm_lets_in_flight_calls_finish_and_keeps_their_audit() {
    let audit = scratch_file("shutdown", "audit.jsonl");
    // At debug level rmcp logs each request the server receives: the event to wait on.
    let mut server = HttpServer::start_with_env(
        SERVER,
        &audit,
        &[],
        &[("RUST_LOG", "info,rmcp=warn,rmcp::service=debug")],
    );
    let client = server.client("/mcp").await;
    // A call that takes the tool's whole 300 ms timeout, in flight when SIGTERM arrives.
    let slow = tokio::spawn(async move {
        let result = call(&client, "simulate_fault", json!({"kind": "timeout"})).await;
        (client, result)
    });
    let log = server.log().clone();
    let received = tokio::task::spawn_blocking(move || {
        log.wait_for_line(Duration::from_secs(20), |line| {
            line.contains("received request") && line.contains("simulate_fault")
        })
    });
    assert!(
        received.await.unwrap().is_some(),
        "the server never received the call: {}",
        server.log().text()
    );
    let exited = tokio::task::spawn_blocking(move || server.terminate(Duration::from_secs(10)))
        .await
        .unwrap();
    let (_client, result) = tokio::time::timeout(Duration::from_secs(20), slow)
        .await
        .expect("the in-flight call is answered, not dropped")
        .unwrap();
    let result = result.expect("the in-flight call is answered before the server exits");
    assert_eq!(envelope_code(&result), "ToolTimeoutError");
    assert!(exited, "the server exits cleanly after SIGTERM");
    let records = audit_records(&audit);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["outcome"], "timeout");
}

/// A panic storm with `RUST_BACKTRACE=1`: each panic is one log line with its trace id and
/// location, and no backtrace is printed (resolving them grew the server fivefold).
#[test]
fn body_panics_log_one_line_with_the_trace_id_and_no_backtrace() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};

    const PANICS: usize = 50;
    let audit = scratch_file("panic-log", "audit.jsonl");
    let mut child = Command::new(SERVER)
        .args(["serve", "--transport", "stdio", "--audit-path"])
        .arg(&audit)
        .env("RUST_BACKTRACE", "1")
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("server starts");
    let mut stdin = child.stdin.take().expect("piped");
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "panic-log", "version": "0"}}})
    )
    .unwrap();
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )
    .unwrap();
    for id in 1..=PANICS {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "simulate_fault", "arguments": {"kind": "panic"}}});
        writeln!(stdin, "{request}").unwrap();
    }
    let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
    let mut line = String::new();
    let mut replies = 0;
    while replies < PANICS + 1 && stdout.read_line(&mut line).unwrap() > 0 {
        replies += 1;
        line.clear();
    }
    drop(stdin);
    let output = child.wait_with_output().expect("the server exits");
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(!log.contains("stack backtrace"), "{log}");
    assert!(
        !log.contains("panicked at"),
        "the default hook stayed silent: {log}"
    );
    let panic_lines: Vec<&str> = log
        .lines()
        .filter(|line| line.contains("tool body panicked"))
        .collect();
    assert_eq!(panic_lines.len(), PANICS, "{log}");
    for line in panic_lines {
        assert!(
            line.contains("trace_id=\"mcp-") || line.contains("trace_id=mcp-"),
            "{line}"
        );
        assert!(
            line.contains("simulate_fault.rs:"),
            "the location is logged: {line}"
        );
    }
}
