//! On-call paging behind OAuth 2.1: the server generated from ../../oauth.toml (the same tools
//! as harness.toml, an `[auth]` table instead of the static token, and `page_oncall` limited
//! per token subject in Redis). The tool bodies are the `paging` binary's, in src/tools.

#[allow(
    unreachable_pub,
    reason = "generated items are `pub` so a library crate can export them"
)]
mod generated {
    //! Everything harness-codegen generated from oauth.toml (see OUT_DIR/oauth/harness.rs).
    include!(concat!(env!("OUT_DIR"), "/oauth/harness.rs"));
}
#[path = "../tools/mod.rs"]
mod tools;

/// The allocator: mimalloc, committing memory as it is used (harness-runtime's default
/// `mimalloc` feature).
#[global_allocator]
static ALLOCATOR: harness_runtime::Allocator = harness_runtime::Allocator;

fn main() -> std::process::ExitCode {
    harness_runtime::cli::main(generated::Harness::new(tools::Toolbox))
}
