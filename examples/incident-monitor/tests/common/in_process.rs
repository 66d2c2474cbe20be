// The incident monitor's generated code and tool bodies, compiled into a test crate so it can
// build servers in-process; `include!`d at the crate root (tool bodies name
// `crate::generated` and `crate::tools`).

#[allow(
    unreachable_pub,
    reason = "generated items are `pub` so a library crate can export them"
)]
mod generated {
    //! Everything harness-codegen generated from harness.toml.
    harness_runtime::include_generated!();
}
#[allow(dead_code, reason = "the binary's tool bodies, shared with this test")]
#[path = "../../src/tools/mod.rs"]
mod tools;
