//! The incident monitor's tests, one test binary (one link, where a binary per file linked six
//! times): each file below is a module of it, and every test runs in this one process, in
//! threads, most against server processes of their own.

// The incident monitor's generated code and tool bodies, compiled into this test crate so
// embed and fast_path can build servers in-process; at the crate root, because the tool bodies
// name `crate::generated` and `crate::tools`.
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

mod audit;
mod bundle;
mod cli;
mod e2e;
mod embed;
mod fast_path;
mod skills;
mod verifier;
