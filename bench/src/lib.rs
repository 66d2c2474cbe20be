//! The benchmark server generated from bench/harness.toml, its tool bodies, the payloads the
//! benchmarks feed through the guards, and the synthetic manifests of the build benchmarks.

pub mod generated {
    //! Everything harness-codegen generated from bench/harness.toml.
    include!(concat!(env!("OUT_DIR"), "/harness.rs"));
}
pub mod manifest;
pub mod payloads;
pub mod tools;
