//! The generated benchmark server, every guard on: the same CLI as any generated server
//! (`serve --transport stdio|streamable-http [--stateless] [--bind] [--audit-path]`).

use harness_bench::generated::Harness;
use harness_bench::tools::Toolbox;

fn main() -> std::process::ExitCode {
    harness_runtime::cli::main(Harness::new(Toolbox))
}
