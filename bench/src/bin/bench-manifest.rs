//! Prints a synthetic manifest with N tools (default 100), for scripts/bench-build.sh:
//! `bench-manifest [N] > harness.toml`.

fn main() -> std::process::ExitCode {
    let count = match std::env::args().nth(1).map(|arg| arg.parse::<usize>()) {
        None => 100,
        Some(Ok(count)) => count,
        Some(Err(_)) => {
            eprintln!("usage: bench-manifest [TOOL COUNT]");
            return std::process::ExitCode::FAILURE;
        }
    };
    print!("{}", harness_bench::manifest::many_tools(count));
    std::process::ExitCode::SUCCESS
}
