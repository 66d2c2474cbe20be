//! The generated Rust module, one file per part: [`specs`] (the spec constants), [`types`]
//! (argument types and validators), [`server`] (body traits and the rmcp handler), `upstreams` (the gateway's specs and bodies), `auth` (the `[auth]` spec), and
//! [`format`] (prettyplease, the `@generated` header, blank lines between items);
//! `server_module` puts them in order and `tokens` holds the token builders they share.

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
