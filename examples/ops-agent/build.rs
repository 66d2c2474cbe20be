//! Generates the server from harness.toml into OUT_DIR (and nowhere else).

use std::process::ExitCode;

fn main() -> ExitCode {
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    println!("cargo::rerun-if-changed=harness.toml");
    // New or removed tool body files change whether the build can succeed.
    println!("cargo::rerun-if-changed=src/tools");
    let builder = harness_codegen::Builder::new(root, "harness.toml", out_dir);
    match builder.build() {
        Ok(output) => {
            // The manifest, and every file it names (instruction, skill bodies).
            for input in output.inputs {
                println!("cargo::rerun-if-changed={}", input.display());
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("{error}");
            println!("cargo::error=harness.toml cannot be built; every problem is listed below");
            ExitCode::FAILURE
        }
    }
}
