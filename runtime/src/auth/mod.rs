//! The OAuth 2.1 resource server (`[auth]` in the manifest, MCP "Authorization"): who the
//! caller is ([`Caller`]), put into each accepted request's extensions by the HTTP layer.

mod caller;

pub use self::caller::Caller;
