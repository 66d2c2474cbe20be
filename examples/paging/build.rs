//! Generates the server from harness.toml into OUT_DIR (see `harness_codegen::build_script`),
//! and the same server behind OAuth from oauth.toml into OUT_DIR/oauth for the `paging-oauth`
//! binary (src/bin/paging-oauth.rs); both share the tool bodies in src/tools.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let status = harness_codegen::build_script();
    if status != ExitCode::SUCCESS {
        return status;
    }
    let root = std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    harness_codegen::Builder::new(root, "oauth.toml", out_dir.join("oauth"))
        .out_prefix("oauth/")
        .run_build_script()
}
