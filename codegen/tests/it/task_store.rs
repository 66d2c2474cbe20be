//! `[tools.task] store` and `lease_ms`: where a tool's tasks live follows `[rate_limit_store]
//! backend` unless the tool says, a Redis store asks for the runtime's `redis` feature, and a
//! lease on tasks kept in memory (which have none) is a located error.

use std::path::Path;

use harness_contract::RateLimitBackend;

fn manifest(store_backend: &str, task: &str) -> String {
    format!(
        r#"
[server]
name = "x"
version = "1"

[rate_limit_store]
backend = "{store_backend}"

[[tools]]
name = "slow"
description = "A slow tool."
task = {{ support = "optional"{task} }}
"#
    )
}

fn store_of(source: &str) -> (RateLimitBackend, u64, Vec<&'static str>) {
    let model = harness_codegen::load(source, "harness.toml", Path::new("."))
        .unwrap_or_else(|errors| panic!("{}", errors.render_plain()));
    let task = model.tools[0].task.clone().expect("a task tool");
    (task.store, task.lease_ms, model.runtime_features())
}

#[test]
fn the_store_follows_the_rate_limit_stores_backend_unless_the_tool_names_one() {
    assert_eq!(
        store_of(&manifest("memory", "")),
        (RateLimitBackend::Memory, 30_000, vec![])
    );
    assert_eq!(
        store_of(&manifest("redis", "")),
        (RateLimitBackend::Redis, 30_000, vec!["redis"])
    );
    assert_eq!(
        store_of(&manifest("redis", ", store = \"memory\"")),
        (RateLimitBackend::Memory, 30_000, vec![])
    );
    assert_eq!(
        store_of(&manifest("memory", ", store = \"redis\", lease_ms = 5000")),
        (RateLimitBackend::Redis, 5_000, vec!["redis"])
    );
}

#[test]
fn a_lease_on_tasks_in_memory_or_out_of_range_is_a_located_error() {
    // Each with the text its error points at: the key, or the value out of range.
    for (task, expected, at) in [
        (
            ", lease_ms = 5000",
            "a lease for tasks kept in memory",
            "lease_ms",
        ),
        (
            ", store = \"redis\", lease_ms = 10",
            "lease_ms = 10",
            "10 }",
        ),
    ] {
        let source = manifest("memory", task);
        let errors =
            harness_codegen::load(&source, "harness.toml", Path::new(".")).expect_err("refused");
        let plain = errors.render_plain();
        assert!(plain.contains(expected), "{plain}");
        let line = source
            .lines()
            .position(|line| line.starts_with("task ="))
            .unwrap()
            + 1;
        let column = source.lines().nth(line - 1).unwrap().find(at).unwrap() + 1;
        assert_eq!(errors.locations(), [Some((line, column))], "{plain}");
    }
}
