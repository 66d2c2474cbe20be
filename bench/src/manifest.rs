//! Synthetic manifests for the build benchmarks: `count` tools, each with the argument kinds
//! and guard settings a real server uses.

use std::fmt::Write;

/// A manifest with `count` tools (`tool_000`, ...), each with four arguments (a patterned
/// string, a bounded integer, an enum with a default, an optional array) and its own guards.
pub fn many_tools(count: usize) -> String {
    let mut manifest = String::from(
        r#"# A synthetic manifest for the build benchmark (bench/src/manifest.rs).

[server]
name = "many-tools"
version = "0.1.0"
register_builtins = false

[transport]
kind = "streamable-http"
bind = "127.0.0.1:8792"

[defaults.guards]
max_chars = 4000
max_lines = 200
timeout_ms = 5000
rate_limit = { calls = 60, period_seconds = 60 }
tabular = { max_rows = 50, action = "block" }

[audit]
path = "/tmp/many-tools-audit.jsonl"
"#,
    );
    for index in 0..count {
        let guards = match index % 3 {
            0 => r#"{ strip_xml = true }"#,
            1 => r#"{ tabular = { max_rows = 20, action = "summarize" } }"#,
            _ => r#"{ max_chars = 1000, rate_limit = { calls = 5, period_seconds = 10 } }"#,
        };
        write!(
            manifest,
            r#"
[[tools]]
name = "tool_{index:03}"
description = "Synthetic tool number {index}."
annotations = {{ read_only = true }}
guards = {guards}

[[tools.arguments]]
name = "target"
type = "string"
pattern = "^[a-z][a-z0-9-]{{0,39}}$"
description = "What to look at."

[[tools.arguments]]
name = "window_minutes"
type = "integer"
minimum = 1
maximum = 1440
default = 60
description = "How far back."

[[tools.arguments]]
name = "mode"
type = "enum"
values = ["summary", "detail", "raw"]
default = "summary"
description = "How much to return."

[[tools.arguments]]
name = "labels"
type = "array"
required = false
max_items = 8
items = {{ type = "string", max_length = 32 }}
description = "Labels to filter on."
"#
        )
        .expect("writing to a String cannot fail");
    }
    manifest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_synthetic_manifest_is_valid() {
        let model = harness_codegen::load(&many_tools(100), "many.toml", std::path::Path::new("."))
            .unwrap_or_else(|errors| panic!("{errors}"));
        assert_eq!(model.tools.len(), 100);
    }
}
