//! The incident monitor mounted inside an existing axum application: the app's own routes
//! stay as they are, the MCP endpoint answers at /tools/mcp (health at /tools/health) behind
//! the manifest's Host, Origin and bearer checks, and one graceful shutdown ends both.
//!
//!     cargo run -p incident-monitor --example embedded   # then: call get_incident_snapshot --url http://127.0.0.1:8800/tools/mcp

#[allow(
    unreachable_pub,
    reason = "generated items are `pub` so a library crate can export them"
)]
mod generated {
    //! Everything harness-codegen generated from harness.toml.
    harness_runtime::include_generated!();
}
#[path = "../src/tools/mod.rs"]
mod tools;

use axum::routing::get;
use tokio_util::sync::CancellationToken;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let shutdown = CancellationToken::new();
    let server = generated::Harness::new(tools::Toolbox::default());
    let audit = std::env::temp_dir().join("embedded-incident-monitor-audit.jsonl");
    let mcp = harness_runtime::embed::router(server, &audit, shutdown.clone())?;
    let app = axum::Router::new()
        .route("/", get(|| async { "the application's own page" }))
        .nest("/tools", mcp);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:8800").await?;
    println!(
        "app on http://127.0.0.1:8800/, MCP on /tools/mcp, audit in {}",
        audit.display()
    );
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            let _ = tokio::signal::ctrl_c().await;
            // Ends the MCP sessions and event streams with the application.
            shutdown.cancel();
        })
        .await?;
    Ok(())
}
