//! The OAuth 2.1 resource server against a real OpenID provider (oidc-provider, started by
//! tests/provider): each token case through a server in its own process, answered with the
//! status and `WWW-Authenticate` the MCP specification and RFC 6750/9728 prescribe.

mod provider;

use std::sync::LazyLock;

use harness_test_support::{HttpServer, StatelessClient, audit_records, scratch_file};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::sync::RwLock;

use provider::{AUDIENCE, METADATA_URL, forge, now, token};

/// A key rotation changes what every server sees, and the key-set fetch count is the
/// provider's: the tests doing either run alone (the others never fetch keys without it).
static ROTATION: LazyLock<RwLock<()>> = LazyLock::new(|| RwLock::new(()));

const BINARY: &str = env!("CARGO_BIN_EXE_oauth-resource");

/// The server, introspecting as `mcp-server`, logging the auth layer and the pipeline at
/// debug level (so accepted tokens and successful calls show their subject).
fn server(name: &str) -> (HttpServer, harness_test_support::ScratchFile) {
    provider::ensure();
    let audit = scratch_file(name, "audit.jsonl");
    let server = HttpServer::start_with_env(
        BINARY,
        &audit,
        &[],
        &[
            ("OAUTH_RESOURCE_CLIENT_ID", "mcp-server"),
            ("OAUTH_RESOURCE_CLIENT_SECRET", "server-secret"),
            ("RUST_LOG", "info,rmcp=warn,harness_runtime=debug"),
        ],
    );
    (server, audit)
}

/// What the server answered: status, `WWW-Authenticate`, body.
struct Answer {
    status: StatusCode,
    challenge: String,
    body: String,
}

/// POSTs a `tools/call` of `tool` to the server's /mcp (`query` appended to the URL).
async fn call(server: &HttpServer, bearer: Option<&str>, tool: &str, query: &str) -> Answer {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": {"service": "db"}}});
    let mut request = provider::http()
        .post(format!("http://127.0.0.1:{}/mcp{query}", server.port))
        .header("accept", "application/json, text/event-stream")
        .json(&body);
    if let Some(bearer) = bearer {
        request = request.bearer_auth(bearer);
    }
    let response = request.send().await.expect("the server answers");
    let status = response.status();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|value| value.to_str().expect("ASCII").to_owned())
        .unwrap_or_default();
    let body = response.text().await.expect("a body");
    Answer {
        status,
        challenge,
        body,
    }
}

fn assert_ok(answer: &Answer, text: &str) {
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.challenge);
    let reply: Value = serde_json::from_str(&answer.body).expect("JSON-RPC");
    assert_eq!(reply["result"]["content"][0]["text"], text, "{reply}");
    assert_eq!(reply["result"]["isError"], false);
}

fn assert_invalid(answer: &Answer, reason: &str) {
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{}", answer.body);
    assert_eq!(
        answer.challenge,
        format!(
            "Bearer error=\"invalid_token\", error_description=\"{reason}\", resource_metadata=\"{METADATA_URL}\", scope=\"mcp\""
        )
    );
}

/// A JWT's header, decoded.
fn header_of(jwt: &str) -> String {
    use base64::Engine;
    let header = jwt.split('.').next().expect("a JWT");
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(header)
        .expect("base64url");
    String::from_utf8(bytes).expect("UTF-8")
}

async fn agent() -> String {
    token(
        "mcp-agent",
        "agent-secret",
        "mcp tools:read tools:write",
        AUDIENCE,
    )
    .await
}

#[tokio::test]
async fn a_good_token_calls_and_its_subject_reaches_the_log_but_the_token_does_not() {
    let _shared = ROTATION.read().await;
    let (server, audit) = server("oauth-good");
    let token = agent().await;
    assert_ok(
        &call(&server, Some(&token), "restart_service", "").await,
        "db restarted",
    );
    let line = server
        .log()
        .wait_for_line(std::time::Duration::from_secs(10), |line| {
            line.contains("tools/call") && line.contains("restart_service")
        })
        .expect("the call is logged");
    assert!(line.contains("subject=\"mcp-agent\""), "{line}");
    assert!(
        !server.log().text().contains(&token),
        "the token reached the log"
    );
    // The manifest opts in to `subject` in the audit record: eight fields, no token.
    let records = audit_records(&audit);
    let record = records.last().expect("the call is audited");
    assert_eq!(record["subject"], "mcp-agent", "{record:?}");
    let mut fields: Vec<&str> = record.keys().map(String::as_str).collect();
    fields.sort_unstable();
    assert_eq!(
        fields,
        [
            "args_sha256",
            "call_id",
            "duration_ms",
            "outcome",
            "schema_version",
            "subject",
            "timestamp",
            "tool"
        ]
    );
    assert!(
        !std::fs::read_to_string(&*audit)
            .expect("audit")
            .contains(&token)
    );
}

/// A task is its creator's: another subject cannot read, answer or cancel it, and is told
/// what it would be told of a task that does not exist.
#[tokio::test]
async fn a_task_is_bound_to_the_subject_that_created_it() {
    let _shared = ROTATION.read().await;
    let (server, audit) = server("oauth-task");
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    let owner = StatelessClient::new(&url, json!({}))
        .declaring_tasks()
        .with_token(&agent().await);
    let reader_token = token("mcp-reader", "reader-secret", "mcp tools:read", AUDIENCE).await;
    let other = StatelessClient::new(&url, json!({}))
        .declaring_tasks()
        .with_token(&reader_token);
    let created = owner.call("export_audit", json!({})).await.expect("a task");
    let id = created["taskId"].as_str().expect("a task id").to_owned();
    let nonexistent = other
        .get_task("00000000000000000000000000000000")
        .await
        .expect_err("unknown");
    let refusals = [
        other.get_task(&id).await,
        other
            .request("tasks/update", json!({"taskId": id, "inputResponses": {}}))
            .await,
        other.request("tasks/cancel", json!({"taskId": id})).await,
    ];
    for refusal in refusals {
        let error = refusal.expect_err("another subject's task");
        assert_eq!(error.code, nonexistent.code);
        assert_eq!(
            error.message.replace(&id, "ID"),
            nonexistent
                .message
                .replace("00000000000000000000000000000000", "ID"),
            "the same answer as for a task that does not exist"
        );
    }
    // Still running: the other subject's cancel reached nothing.
    let task = owner.get_task(&id).await.expect("the owner reads it");
    assert_eq!(task["status"], "working", "{task}");
    owner
        .request("tasks/cancel", json!({"taskId": id}))
        .await
        .expect("the owner cancels it");
    assert_eq!(
        owner.get_task(&id).await.expect("readable")["status"],
        "cancelled"
    );
    // Both records of the task carry its creator (the end's is written as the body stops).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let records = loop {
        let records: Vec<_> = audit_records(&audit)
            .into_iter()
            .filter(|record| record.get("task_id").and_then(Value::as_str) == Some(id.as_str()))
            .collect();
        if records.len() >= 2 || std::time::Instant::now() >= deadline {
            break records;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    assert_eq!(records.len(), 2, "{records:?}");
    assert_eq!(records[0]["outcome"], "task_created");
    assert_eq!(records[1]["outcome"], "cancelled");
    assert!(
        records
            .iter()
            .all(|record| record["subject"] == "mcp-agent")
    );
}

#[tokio::test]
async fn no_token_gets_401_with_the_metadata_link_and_the_metadata_is_served() {
    let (server, _audit) = server("oauth-none");
    let answer = call(&server, None, "read_status", "").await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        answer.challenge,
        format!("Bearer resource_metadata=\"{METADATA_URL}\", scope=\"mcp\"")
    );
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let (status, body) = server.get(path).expect("served");
        assert!(status.contains("200"), "{path}: {status}");
        let document: Value = serde_json::from_str(&body).expect("JSON");
        assert_eq!(
            document,
            json!({"resource": AUDIENCE, "authorization_servers": [provider::ISSUER],
                "scopes_supported": ["mcp", "tools:read", "tools:write"],
                "bearer_methods_supported": ["header"]})
        );
    }
}

#[tokio::test]
async fn a_token_in_the_query_string_is_400_even_when_it_is_good() {
    let _shared = ROTATION.read().await;
    let (server, _audit) = server("oauth-query");
    let token = agent().await;
    let answer = call(
        &server,
        None,
        "read_status",
        &format!("?access_token={token}"),
    )
    .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert!(
        answer
            .challenge
            .starts_with("Bearer error=\"invalid_request\""),
        "{}",
        answer.challenge
    );
    assert!(
        !server.log().text().contains(&token),
        "the token reached the log"
    );
}

#[tokio::test]
async fn expired_and_not_yet_valid_tokens_are_refused_past_the_leeway_only() {
    let _shared = ROTATION.read().await;
    let (server, _audit) = server("oauth-time");
    let expired = forge("rs256", json!({"exp": now() - 3600, "iat": now() - 7200})).await;
    assert_invalid(
        &call(&server, Some(&expired), "read_status", "").await,
        "the token has expired",
    );
    let early = forge("rs256", json!({"nbf": now() + 3600})).await;
    assert_invalid(
        &call(&server, Some(&early), "read_status", "").await,
        "the token is not valid yet",
    );
    // 10 s past expiry is within the 60 s leeway.
    let skewed = forge("rs256", json!({"exp": now() - 10})).await;
    assert_ok(
        &call(&server, Some(&skewed), "read_status", "").await,
        "db is running",
    );
}

#[tokio::test]
async fn wrong_audience_another_resource_and_wrong_issuer_are_refused() {
    let _shared = ROTATION.read().await;
    let (server, _audit) = server("oauth-aud");
    let near_miss = forge("rs256", json!({"aud": "https://mcp.oauth-resource.test"})).await;
    assert_invalid(
        &call(&server, Some(&near_miss), "read_status", "").await,
        "the token is for another resource",
    );
    let other = token(
        "mcp-agent",
        "agent-secret",
        "mcp tools:read",
        "https://other.example/mcp",
    )
    .await;
    assert_invalid(
        &call(&server, Some(&other), "read_status", "").await,
        "the token is for another resource",
    );
    let issuer = forge("rs256", json!({"iss": "http://127.0.0.1:1"})).await;
    assert_invalid(
        &call(&server, Some(&issuer), "read_status", "").await,
        "the token is from another issuer",
    );
}

#[tokio::test]
async fn alg_none_and_hs256_keyed_with_the_public_key_are_refused() {
    let _shared = ROTATION.read().await;
    let (server, _audit) = server("oauth-alg");
    let unsigned = forge("none", json!({})).await;
    assert_invalid(
        &call(&server, Some(&unsigned), "read_status", "").await,
        "the token's algorithm is not accepted",
    );
    let hmac = forge("hs256-public", json!({})).await;
    assert_invalid(
        &call(&server, Some(&hmac), "read_status", "").await,
        "the token's algorithm is not accepted",
    );
}

#[tokio::test]
async fn a_missing_tool_scope_is_403_naming_it_while_another_tool_still_works() {
    let _shared = ROTATION.read().await;
    let (server, _audit) = server("oauth-scope");
    let reader = token("mcp-reader", "reader-secret", "mcp tools:read", AUDIENCE).await;
    assert_ok(
        &call(&server, Some(&reader), "read_status", "").await,
        "db is running",
    );
    let answer = call(&server, Some(&reader), "restart_service", "").await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN);
    assert_eq!(
        answer.challenge,
        format!(
            "Bearer error=\"insufficient_scope\", error_description=\"the token lacks the scope tools:write\", resource_metadata=\"{METADATA_URL}\", scope=\"tools:write\""
        )
    );
    // Without the server-wide scope, every request is 403 naming it.
    let narrow = token("mcp-agent", "agent-secret", "tools:read", AUDIENCE).await;
    let answer = call(&server, Some(&narrow), "read_status", "").await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN);
    assert!(
        answer.challenge.ends_with("scope=\"mcp\""),
        "{}",
        answer.challenge
    );
}

#[tokio::test]
async fn an_opaque_token_is_introspected_active_or_not() {
    let (server, _audit) = server("oauth-opaque");
    let opaque = token("mcp-opaque", "opaque-secret", "mcp tools:read", AUDIENCE).await;
    assert!(!opaque.contains('.'), "an opaque token: {opaque}");
    assert_ok(
        &call(&server, Some(&opaque), "read_status", "").await,
        "db is running",
    );
    assert_invalid(
        &call(&server, Some("made-up-opaque-token"), "read_status", "").await,
        "the token is not active",
    );
}

#[tokio::test]
async fn an_unknown_kid_is_refused_and_a_flood_of_them_costs_the_issuer_one_fetch() {
    let _alone = ROTATION.write().await;
    let (server, _audit) = server("oauth-kid");
    // Cache the key set with a good call first.
    assert_ok(
        &call(&server, Some(&agent().await), "read_status", "").await,
        "db is running",
    );
    let before = provider::jwks_fetches().await;
    for _ in 0..50 {
        let stranger = forge("stranger", json!({})).await;
        assert_invalid(
            &call(&server, Some(&stranger), "read_status", "").await,
            "the token's signing key is unknown",
        );
    }
    let fetched = provider::jwks_fetches().await - before;
    assert!(
        fetched <= 1,
        "50 unknown key ids made {fetched} key-set fetches"
    );
}

#[tokio::test]
async fn a_rotated_key_is_fetched_at_its_first_token() {
    let _alone = ROTATION.write().await;
    let (server, _audit) = server("oauth-rotate");
    let before = agent().await;
    assert_ok(
        &call(&server, Some(&before), "read_status", "").await,
        "db is running",
    );
    let kid = provider::rotate().await;
    let rotated = agent().await;
    assert!(
        header_of(&rotated).contains(&kid),
        "the new token is signed with the new key"
    );
    assert_ok(
        &call(&server, Some(&rotated), "read_status", "").await,
        "db is running",
    );
    // A token signed with the previous key still verifies while the issuer publishes it.
    assert_ok(
        &call(&server, Some(&before), "read_status", "").await,
        "db is running",
    );
}
