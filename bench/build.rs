//! Generates the benchmark server from harness.toml into OUT_DIR.

fn main() -> std::process::ExitCode {
    harness_codegen::build_script()
}
