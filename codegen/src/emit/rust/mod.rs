//! The generated Rust module, written one part per file (each seeing only the validated model)
//! and put in order by [`server_module()`], which is all this file re-exports.

mod auth;
mod catalog;
pub mod format;
mod guards;
mod server;
mod server_module;
mod specs;
mod tokens;
mod types;
mod upstreams;

pub use server_module::server_module;
