//! Token benchmark (seed 000's table): what a 1,000-row, 5-column table costs the model
//! unguarded, against what the harness returns for it (the blocked envelope, the summary).
//! Counted with tiktoken's o200k_base and cl100k_base (tiktoken-rs embeds both).
//!
//! `cargo bench -p harness-runtime --bench tokens` prints the table. A tool result carries its
//! JSON twice (text content and structuredContent), as FastMCP's list[dict] results do, so
//! each row counts both.

use harness_runtime::envelope::{ErrorEnvelope, codes};
use harness_runtime::guards::tabular::{BLOCK_MESSAGE, summarize_tables};
use serde_json::{Value, json};

fn table() -> Value {
    const REGIONS: [&str; 3] = ["eu-west", "us-east", "ap-south"];
    Value::Array(
        (0..1000)
            .map(|id: usize| {
                json!({
                    "order_id": id,
                    "customer": format!("customer-{:04}", id * 7 % 1000),
                    "amount": ((id * 37) % 1000) as f64 / 10.0,
                    "region": REGIONS[id % 3],
                    "status": if id.is_multiple_of(10) { "refunded" } else { "paid" },
                })
            })
            .collect(),
    )
}

fn main() {
    let o200k = tiktoken_rs::o200k_base().expect("o200k_base is embedded");
    let cl100k = tiktoken_rs::cl100k_base().expect("cl100k_base is embedded");
    let count = |text: &str| {
        (
            o200k.encode_with_special_tokens(text).len(),
            cl100k.encode_with_special_tokens(text).len(),
        )
    };
    // text content + structuredContent, both the same JSON.
    let twice = |value: &Value| {
        let text = value.to_string();
        let (a, b) = count(&text);
        (2 * a, 2 * b)
    };
    let rows = table();
    let wrapped = json!({"result": rows});
    let pretty = serde_json::to_string_pretty(&rows).expect("JSON");
    let (pretty_o, pretty_c) = count(&pretty);
    let envelope = ErrorEnvelope::new(codes::TOKEN_STARVATION, BLOCK_MESSAGE, "mcp-3a1b4c9e");
    let envelope = serde_json::to_value(&envelope).expect("JSON");
    let mut summary = wrapped.clone();
    summarize_tables(&mut summary, 50);

    println!("tokens for a 1,000-row, 5-column table (o200k_base / cl100k_base)");
    println!(
        "{:<58} {:>9} {:>9}",
        "what the model receives", "o200k", "cl100k"
    );
    for (name, (o, c)) in [
        (
            "unguarded: list[dict] as text + structuredContent",
            twice(&wrapped),
        ),
        ("unguarded: indented JSON text only", (pretty_o, pretty_c)),
        (
            "harness, action = block: the error envelope",
            twice(&envelope),
        ),
        ("harness, action = summarize: the summary", twice(&summary)),
    ] {
        println!("{name:<58} {o:>9} {c:>9}");
    }
}
