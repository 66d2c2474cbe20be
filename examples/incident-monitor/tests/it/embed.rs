//! `harness_runtime::embed::router` nested beside an application's own routes: MCP works at
//! the nested path through a real client and is audited, the application's routes are
//! untouched by the MCP security layer, the layer still guards the nested endpoint, and one
//! cancellation token ends the whole server.

use std::future::IntoFuture;

use axum::routing::get;
use harness_test_support::{audit_records, call, http_client, scratch_file, text};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// (status, body) of a GET with this Host header.
async fn get_with_host(port: u16, path: &str, host: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let status = response.split_whitespace().nth(1).unwrap().parse().unwrap();
    let body = response.split_once("\r\n\r\n").unwrap().1.to_owned();
    (status, body)
}

#[tokio::test]
async fn the_server_nests_beside_the_applications_routes() {
    let audit = scratch_file("embed", "audit.jsonl");
    let shutdown = CancellationToken::new();
    let server = crate::generated::Harness::new(crate::tools::Toolbox::default());
    let mcp =
        harness_runtime::embed::router(server.clone(), &audit, shutdown.clone()).expect("mounts");
    assert_eq!(
        std::fs::read_to_string(&*audit).unwrap(),
        "",
        "the audit file exists before the first request"
    );
    assert!(
        matches!(
            harness_runtime::embed::router(server, &audit, shutdown.clone()),
            Err(harness_runtime::embed::EmbedError::AlreadyAudited)
        ),
        "one server, one audit log"
    );
    let app = axum::Router::new()
        .route("/", get(|| async { "the application" }))
        .nest("/tools", mcp);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let served = tokio::spawn(
        axum::serve(listener, app)
            .with_graceful_shutdown(shutdown.clone().cancelled_owned())
            .into_future(),
    );

    let client = http_client(&format!("http://127.0.0.1:{port}/tools/mcp")).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    assert_eq!(tools[0].name, "get_incident_snapshot");
    let result = call(&client, "get_incident_snapshot", json!({"incident_id": 42}))
        .await
        .expect("answered");
    let snapshot: Value = serde_json::from_str(text(&result)).unwrap();
    assert_eq!(snapshot["incident_id"], 42);
    client.cancel().await.expect("clean close");
    let outcomes: Vec<Value> = audit_records(&audit)
        .iter()
        .map(|record| record["outcome"].clone())
        .collect();
    assert_eq!(outcomes, ["ok"]);

    assert_eq!(
        get_with_host(port, "/", "127.0.0.1").await,
        (200, "the application".to_owned())
    );
    assert_eq!(
        get_with_host(port, "/", "app.example").await.0,
        200,
        "the application's routes keep their own rules"
    );
    assert_eq!(
        get_with_host(port, "/tools/health", "127.0.0.1").await.0,
        200
    );
    assert_eq!(
        get_with_host(port, "/tools/mcp", "evil.example").await.0,
        403,
        "the nested endpoint keeps its Host check"
    );

    shutdown.cancel();
    tokio::time::timeout(std::time::Duration::from_secs(10), served)
        .await
        .expect("one cancellation ends the server")
        .unwrap()
        .unwrap();
}
