//! Token benchmark (a 1,000-row orders table): what a 1,000-row, 5-column table costs the model
//! unguarded, against what the harness actually replies for it, through the benchmark
//! server's real pipeline: the block envelope (`echo`, tabular action = block) and the
//! summary (`list_orders`, action = summarize). Counted with tiktoken's o200k_base and
//! cl100k_base (tiktoken-rs embeds both).
//!
//! `cargo bench -p harness-bench --bench tokens` prints the table. What is counted is the
//! text the client hands the model: every text content block plus structuredContent, as
//! FastMCP's list[dict] results carry both.

use harness_bench::generated::{EchoArgs, ListOrdersArgs, SERVER, TOOLS};
use harness_bench::payloads;
use harness_runtime::ToolError;
use harness_runtime::{Call, Pipeline};
use rmcp::model::CallToolResult;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// The model-visible text of a reply: its text blocks and its structuredContent.
fn visible_text(result: &CallToolResult) -> String {
    let mut text: Vec<String> = result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.clone()))
        .collect();
    if let Some(structured) = &result.structured_content {
        text.push(structured.to_string());
    }
    text.join("\n")
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let pipeline = Pipeline::new(&SERVER, TOOLS);
    let index = |name: &str| {
        TOOLS
            .iter()
            .position(|tool| tool.name == name)
            .expect("tool")
    };
    let call = || Call::new(None, None, CancellationToken::new());
    let echo_call = || {
        let Value::Object(args) = json!({"message": "orders"}) else {
            unreachable!()
        };
        Call::new(Some(args), None, CancellationToken::new())
    };

    let rows = payloads::order_table();
    let blocked = runtime
        .block_on(
            pipeline.run(index("echo"), echo_call(), |_: EchoArgs, _| async {
                Ok::<_, ToolError>(payloads::order_table())
            }),
        )
        .expect("the envelope is a tool result");
    let summarized = runtime
        .block_on(
            pipeline.run(index("list_orders"), call(), |_: ListOrdersArgs, _| async {
                Ok::<_, ToolError>(payloads::order_table())
            }),
        )
        .expect("the summary is a tool result");
    assert_eq!(blocked.is_error, Some(true), "the table is refused");
    assert_ne!(summarized.is_error, Some(true), "the table is summarized");

    let o200k = tiktoken_rs::o200k_base().expect("o200k_base is embedded");
    let cl100k = tiktoken_rs::cl100k_base().expect("cl100k_base is embedded");
    let count = |text: &str| {
        (
            o200k.encode_with_special_tokens(text).len(),
            cl100k.encode_with_special_tokens(text).len(),
        )
    };
    let compact = json!({"result": rows}).to_string();
    let unguarded_twice = format!("{compact}\n{compact}");
    let pretty = serde_json::to_string_pretty(&rows).expect("JSON");

    println!("tokens for a 1,000-row, 5-column table (o200k_base / cl100k_base)");
    println!(
        "{:<60} {:>9} {:>9}",
        "what the model receives", "o200k", "cl100k"
    );
    for (name, text) in [
        (
            "unguarded: list[dict] as text + structuredContent",
            &unguarded_twice,
        ),
        ("unguarded: indented JSON text only", &pretty),
        (
            "harness, action = block: the error envelope",
            &visible_text(&blocked),
        ),
        (
            "harness, action = summarize: the summary",
            &visible_text(&summarized),
        ),
    ] {
        let (o, c) = count(text);
        println!("{name:<60} {o:>9} {c:>9}");
    }
    println!(
        "\nthe summary, as the model receives it:\n{}",
        visible_text(&summarized)
    );
}
