//! `harness-codegen`: see the library's docs for the commands.

fn main() -> std::process::ExitCode {
    harness_codegen_cli::main()
}
