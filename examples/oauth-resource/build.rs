//! Generates the server from harness.toml into OUT_DIR (see `harness_codegen::build_script`).

fn main() -> std::process::ExitCode {
    harness_codegen::build_script()
}
