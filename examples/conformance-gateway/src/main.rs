//! The conformance fixture through the gateway: the MCP server generated from ./harness.toml.
//! Every tool is an upstream's, so there are no tool bodies to write.

#[allow(
    unreachable_pub,
    reason = "generated items are `pub` so a library crate can export them"
)]
mod generated {
    //! Everything harness-codegen generated from harness.toml (see OUT_DIR/harness.rs).
    harness_runtime::include_generated!();
}

/// The allocator: mimalloc, committing memory as it is used (harness-runtime's default
/// `mimalloc` feature).
#[global_allocator]
static ALLOCATOR: harness_runtime::Allocator = harness_runtime::Allocator;

fn main() -> std::process::ExitCode {
    harness_runtime::cli::main(generated::Harness::new(()))
}
