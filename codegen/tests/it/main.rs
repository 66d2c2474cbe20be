//! harness-codegen's integration tests, one binary (one link) for all of them: the build
//! script's side (`builder`), the Harbor bundle (`bundle_services`, `bundle_stdio`), located
//! manifest errors (`every_error_located`), the editors' JSON Schema (`manifest_schema`), where
//! tasks live (`task_store`) and, with the `import` feature the command line turns on, `import`
//! against real upstreams.

mod builder;
mod bundle_services;
mod bundle_stdio;
mod every_error_located;
#[cfg(feature = "import")]
mod import;
mod manifest_schema;
mod task_store;
