//! The stateless fast path against rmcp's own stateless service: one corpus of requests
//! (valid calls, every JSON type as id, notifications, batches, bad params, unknown methods
//! and tools, protocol-version, Accept and Content-Type variants, oversized, malformed and
//! empty bodies, duplicate keys, other HTTP methods) goes to the same server twice, once as
//! it serves by default and once with `--rmcp-stateless`, and every answer must be the same:
//! status, Content-Type and body (JSON compared as JSON, each call's random trace id masked),
//! except the listed few where rmcp departs from the specification.

use std::io::{Read, Write};
use std::net::TcpStream;

use harness_test_support::{HttpServer, scratch_file};
use serde_json::Value;

const SERVER: &str = env!("CARGO_BIN_EXE_incident-monitor");

const ACCEPT: &str = "application/json, text/event-stream";
const CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_incident_snapshot","arguments":{"incident_id":42}}}"#;

/// One request of the corpus.
struct Case {
    name: &'static str,
    method: &'static str,
    headers: Vec<(&'static str, String)>,
    body: String,
}

fn post(name: &'static str, body: impl Into<String>) -> Case {
    Case {
        name,
        method: "POST",
        headers: vec![
            ("Content-Type", "application/json".to_owned()),
            ("Accept", ACCEPT.to_owned()),
            ("MCP-Protocol-Version", "2025-11-25".to_owned()),
        ],
        body: body.into(),
    }
}

fn with_header(mut case: Case, name: &'static str, value: Option<&str>) -> Case {
    case.headers
        .retain(|(existing, _)| !existing.eq_ignore_ascii_case(name));
    if let Some(value) = value {
        case.headers.push((name, value.to_owned()));
    }
    case
}

fn call_with_id(name: &'static str, id: &str) -> Case {
    post(name, CALL.replace(r#""id":1"#, &format!(r#""id":{id}"#)))
}

fn corpus() -> Vec<Case> {
    let call = |arguments: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"get_incident_snapshot","arguments":{arguments}}}}}"#
        )
    };
    vec![
        post("a valid call", CALL),
        post(
            "a valid call with every argument",
            call(r#"{"incident_id":42,"view":"signals"}"#),
        ),
        post(
            "null for an optional argument",
            call(r#"{"incident_id":42,"view":null}"#),
        ),
        post("a wrong argument type", call(r#"{"incident_id":"42"}"#)),
        post("an out-of-range argument", call(r#"{"incident_id":0}"#)),
        post(
            "an unknown argument",
            call(r#"{"incident_id":42,"extra":1}"#),
        ),
        post(
            "repeated argument keys",
            call(r#"{"incident_id":"42","incident_id":42}"#),
        ),
        post("arguments that are not an object", call("5")),
        post(
            "no arguments",
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_incident_snapshot"}}"#,
        ),
        post(
            "no tool name",
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{}}}"#,
        ),
        post(
            "no params",
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call"}"#,
        ),
        post(
            "an unknown tool",
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope","arguments":{}}}"#,
        ),
        post(
            "a traceparent in _meta",
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_incident_snapshot","arguments":{"incident_id":0},"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}}}"#,
        ),
        post(
            "a per-request protocol version in _meta",
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_incident_snapshot","arguments":{"incident_id":42},"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}"#,
        ),
        // The edges of the plain `tools/call` form, which is read without rmcp's message enum
        // and must refuse what it does not know (these go the general way).
        post(
            "a progress token in _meta",
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_incident_snapshot","arguments":{"incident_id":42},"_meta":{"progressToken":"p1"}}}"#,
        ),
        post(
            "an unknown member in params",
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_incident_snapshot","arguments":{"incident_id":42},"requestState":"s"}}"#,
        ),
        post(
            "an unknown top-level member",
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_incident_snapshot","arguments":{"incident_id":42}},"extra":true}"#,
        ),
        post(
            "jsonrpc 1.0",
            r#"{"jsonrpc":"1.0","id":4,"method":"tools/call","params":{"name":"get_incident_snapshot","arguments":{"incident_id":42}}}"#,
        ),
        post(
            "a repeated id member",
            r#"{"jsonrpc":"2.0","id":4,"id":5,"method":"tools/call","params":{"name":"get_incident_snapshot","arguments":{"incident_id":42}}}"#,
        ),
        post(
            "a tool name that is not a string",
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":7,"arguments":{"incident_id":42}}}"#,
        ),
        post(
            "null arguments",
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_incident_snapshot","arguments":null}}"#,
        ),
        call_with_id("a float-form integer id", "4.0"),
        call_with_id("id 0", "0"),
        call_with_id("a negative id", "-7"),
        call_with_id("a large id", "18446744073709551615"),
        call_with_id("a fractional id", "1.5"),
        call_with_id("a string id", r#""abc""#),
        call_with_id("an empty string id", r#""""#),
        call_with_id("a null id", "null"),
        call_with_id("a boolean id", "true"),
        call_with_id("an object id", r#"{"a":1}"#),
        call_with_id("an array id", "[1]"),
        post(
            "tools/list",
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#,
        ),
        post(
            "tools/list with a cursor",
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"cursor":"x"}}"#,
        ),
        post("ping", r#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#),
        post(
            "initialize",
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        ),
        post(
            "an unknown method",
            r#"{"jsonrpc":"2.0","id":7,"method":"foo/bar"}"#,
        ),
        post(
            "notifications/initialized",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        ),
        post(
            "a cancellation notification",
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        ),
        post(
            "an unknown notification",
            r#"{"jsonrpc":"2.0","method":"notifications/whatever"}"#,
        ),
        post("a batch", format!("[{CALL},{CALL}]")),
        post("an empty batch", "[]"),
        post("a response", r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
        post("no jsonrpc member", r#"{"id":1,"method":"tools/list"}"#),
        post(
            "a wrong jsonrpc version",
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/list"}"#,
        ),
        post("malformed JSON", "{"),
        post("an empty body", ""),
        post("trailing garbage", format!("{CALL} x")),
        post(
            "an oversized body",
            format!("{}{CALL}", " ".repeat(5 * 1024 * 1024)),
        ),
        with_header(
            post("no protocol version", CALL),
            "MCP-Protocol-Version",
            None,
        ),
        with_header(
            post("protocol 2025-06-18", CALL),
            "MCP-Protocol-Version",
            Some("2025-06-18"),
        ),
        with_header(
            post("protocol 2025-03-26", CALL),
            "MCP-Protocol-Version",
            Some("2025-03-26"),
        ),
        with_header(
            post("an unknown protocol", CALL),
            "MCP-Protocol-Version",
            Some("1999-01-01"),
        ),
        with_header(
            post("protocol 2026-07-28", CALL),
            "MCP-Protocol-Version",
            Some("2026-07-28"),
        ),
        with_header(
            post("Accept: JSON only", CALL),
            "Accept",
            Some("application/json"),
        ),
        with_header(
            post("Accept: SSE only", CALL),
            "Accept",
            Some("text/event-stream"),
        ),
        with_header(post("Accept: any", CALL), "Accept", Some("*/*")),
        with_header(
            post("Accept with weights", CALL),
            "Accept",
            Some("application/json;q=0.9, text/event-stream;q=0"),
        ),
        with_header(
            post("Accept in capitals", CALL),
            "Accept",
            Some("APPLICATION/JSON, TEXT/EVENT-STREAM"),
        ),
        with_header(post("no Accept", CALL), "Accept", None),
        with_header(
            post("Content-Type text/plain", CALL),
            "Content-Type",
            Some("text/plain"),
        ),
        with_header(
            post("Content-Type with a charset", CALL),
            "Content-Type",
            Some("application/json; charset=utf-8"),
        ),
        with_header(post("no Content-Type", CALL), "Content-Type", None),
        Case {
            name: "GET",
            method: "GET",
            headers: vec![("Accept", ACCEPT.to_owned())],
            body: String::new(),
        },
        Case {
            name: "DELETE",
            method: "DELETE",
            headers: vec![("Accept", ACCEPT.to_owned())],
            body: String::new(),
        },
    ]
}

/// (status, Content-Type, body) of one request over a fresh connection.
fn send(port: u16, case: &Case) -> (u16, String, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    let mut head = format!(
        "{} /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nContent-Length: {}\r\n",
        case.method,
        case.body.len()
    );
    for (name, value) in &case.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    // A server may answer (413) before reading a large body, and close.
    let _ = stream.write_all(case.body.as_bytes());
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let response = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let header = |wanted: &str| {
        head.lines()
            .filter_map(|line| line.split_once(':'))
            .find(|(name, _)| name.trim().eq_ignore_ascii_case(wanted))
            .map(|(_, value)| value.trim().to_owned())
    };
    let body = if header("transfer-encoding").is_some_and(|value| value.contains("chunked")) {
        dechunk(body)
    } else {
        body.to_owned()
    };
    (status, header("content-type").unwrap_or_default(), body)
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    out
}

/// The body as JSON with every trace id (`mcp-` and 8 hex digits) masked, or as text.
fn comparable(body: &str) -> Value {
    let masked = regex::Regex::new("mcp-[0-9a-f]{8}")
        .unwrap()
        .replace_all(body, "mcp-TRACE");
    serde_json::from_str(&masked).unwrap_or_else(|_| Value::String(masked.into_owned()))
}

/// Where rmcp's answer departs from the specification and the fast path answers as the
/// specification says: (case, fast status, JSON-RPC error code, (rmcp status, what rmcp's
/// body says)).
const SPEC_DIFFERENCES: &[(&str, u16, i64, (u16, &str))] = &[
    (
        "malformed JSON",
        400,
        -32700,
        (415, "fail to deserialize request body"),
    ),
    (
        "an empty body",
        400,
        -32700,
        (415, "fail to deserialize request body"),
    ),
    (
        "trailing garbage",
        400,
        -32700,
        (415, "fail to deserialize request body"),
    ),
    (
        "arguments that are not an object",
        200,
        -32602,
        (200, "-32601"),
    ),
    ("no tool name", 200, -32602, (200, "-32601")),
    (
        "a tool name that is not a string",
        200,
        -32602,
        (200, "-32601"),
    ),
    ("no params", 200, -32602, (200, "-32601")),
];

#[test]
fn the_fast_path_answers_exactly_as_rmcp_does() {
    let fast_audit = scratch_file("fast-path", "audit.jsonl");
    let rmcp_audit = scratch_file("rmcp-stateless", "audit.jsonl");
    let fast = HttpServer::start_with(SERVER, &fast_audit, &["--stateless"]);
    let rmcp = HttpServer::start_with(SERVER, &rmcp_audit, &["--stateless", "--rmcp-stateless"]);
    let mut differences = Vec::new();
    for case in corpus() {
        let (fast_status, fast_type, fast_body) = send(fast.port, &case);
        let (rmcp_status, rmcp_type, rmcp_body) = send(rmcp.port, &case);
        if let Some((_, status, code, rmcp_answer)) = SPEC_DIFFERENCES
            .iter()
            .find(|(name, ..)| *name == case.name)
        {
            let fast_json = comparable(&fast_body);
            let answered = fast_status == *status
                && fast_type == "application/json"
                && fast_json["error"]["code"] == *code
                && rmcp_status == rmcp_answer.0
                && rmcp_body.contains(rmcp_answer.1);
            if !answered {
                differences.push(format!(
                    "{} (a listed difference):\n  fast: {fast_status} {fast_type} {fast_body}\n  rmcp: {rmcp_status} {rmcp_type} {rmcp_body}",
                    case.name
                ));
            }
            continue;
        }
        if (fast_status, &fast_type, comparable(&fast_body))
            != (rmcp_status, &rmcp_type, comparable(&rmcp_body))
        {
            differences.push(format!(
                "{}:\n  fast: {fast_status} {fast_type} {fast_body}\n  rmcp: {rmcp_status} {rmcp_type} {rmcp_body}",
                case.name
            ));
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));

    // Both audited the same calls with the same outcomes.
    let outcomes = |audit: &std::path::Path| -> Vec<(Value, Value)> {
        harness_test_support::audit_records(audit)
            .iter()
            .map(|record| (record["tool"].clone(), record["outcome"].clone()))
            .collect()
    };
    assert_eq!(outcomes(&fast_audit), outcomes(&rmcp_audit));
    assert!(
        outcomes(&fast_audit).len() > 10,
        "the corpus made real calls"
    );
}

/// Which requests the fast path takes (the rest go to rmcp): the comparison above would pass
/// just as well if it took none.
#[test]
fn plain_requests_take_the_fast_path_and_nothing_else_does() {
    use harness_runtime::transport::StatelessAnswer;

    const FAST: &[&str] = &[
        "a valid call",
        "a valid call with every argument",
        "null for an optional argument",
        "a wrong argument type",
        "an out-of-range argument",
        "an unknown argument",
        "repeated argument keys",
        "no arguments",
        "an unknown tool",
        "a traceparent in _meta",
        "a progress token in _meta",
        "an unknown member in params",
        "an unknown top-level member",
        "a tool name that is not a string",
        "null arguments",
        "a float-form integer id",
        "id 0",
        "a negative id",
        "a string id",
        "an empty string id",
        "tools/list",
        "tools/list with a cursor",
        "notifications/initialized",
        "a cancellation notification",
        "an unknown notification",
        "no protocol version",
        "protocol 2025-06-18",
        "protocol 2025-03-26",
        "Accept in capitals",
        "Content-Type with a charset",
        "malformed JSON",
        "an empty body",
        "trailing garbage",
        "arguments that are not an object",
        "no tool name",
        "no params",
        // A valid call after 5 MiB of blanks: the server's ingress refuses it (413) before
        // the fast path sees it.
        "an oversized body",
    ];
    let server = crate::generated::Harness::new(crate::tools::Toolbox::default());
    let mut wrong = Vec::new();
    for case in corpus() {
        let mut request = axum::http::Request::builder().method(case.method);
        for (name, value) in &case.headers {
            request = request.header(leak_lowercase(name), value.as_str());
        }
        let (parts, ()) = request.body(()).unwrap().into_parts();
        // As the ingress asks: the plain call from the body as it came, then the rest from
        // the body with its repeated keys marked.
        let plain = server
            .answer_plain_call(&parts, &case.body.clone().into_bytes().into())
            .is_some();
        if plain && case.name == "repeated argument keys" {
            wrong.push(format!("{}: read as a plain call, unmarked", case.name));
        }
        let fast = plain || {
            let body = harness_runtime::transport::mark_duplicate_arguments(case.body.as_bytes())
                .unwrap_or_else(|| case.body.clone().into_bytes());
            server.answer(&parts, &body.into()).is_some()
        };
        if fast != FAST.contains(&case.name) {
            wrong.push(format!("{}: fast = {fast}", case.name));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn leak_lowercase(name: &str) -> &'static str {
    Box::leak(name.to_ascii_lowercase().into_boxed_str())
}
