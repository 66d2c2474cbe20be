//! The incident monitor on stdio: the MCP server generated from ./harness.toml, with the
//! incident monitor's tool bodies (the same module, so the two tasks cannot drift).

#[allow(
    unreachable_pub,
    reason = "generated items are `pub` so a library crate can export them"
)]
mod generated {
    //! Everything harness-codegen generated from harness.toml (see OUT_DIR/harness.rs).
    harness_runtime::include_generated!();
}
#[path = "../../incident-monitor/src/tools/mod.rs"]
mod tools;

/// The allocator: mimalloc, committing memory as it is used (harness-runtime's default
/// `mimalloc` feature).
#[global_allocator]
static ALLOCATOR: harness_runtime::Allocator = harness_runtime::Allocator;

fn main() -> std::process::ExitCode {
    harness_runtime::cli::main(generated::Harness::new(tools::Toolbox::default()))
}
