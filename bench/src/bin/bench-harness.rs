//! The generated benchmark server, every guard on: the same CLI as any generated server
//! (`serve --transport stdio|streamable-http [--stateless] [--bind] [--audit-path]`).

use harness_bench::generated::Harness;
use harness_bench::tools::Toolbox;

/// The allocator: mimalloc, committing memory as it is used (harness-runtime's default
/// `mimalloc` feature).
#[global_allocator]
static ALLOCATOR: harness_runtime::Allocator = harness_runtime::Allocator;

fn main() -> std::process::ExitCode {
    harness_runtime::cli::main(Harness::new(Toolbox))
}
