//! Generates the server from harness.toml into OUT_DIR; the tool bodies are the incident
//! monitor's own, so the two tasks differ only in where the server runs.

fn main() -> std::process::ExitCode {
    harness_codegen::Builder::from_cargo_env()
        .tools_dir("../incident-monitor/src/tools")
        .run_build_script()
}
