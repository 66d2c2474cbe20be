//! The root package's tests, one test binary (one link, where a binary per file linked four
//! times): each file below is a module of it. The snapshots of `codegen_snapshots` are in
//! snapshots/ beside it, named `it__codegen_snapshots__*` after the module's path.

mod codegen_snapshots;
mod dependency_weight;
mod module_graph;
mod scan_secrets;
mod server;
