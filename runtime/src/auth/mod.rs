//! The OAuth 2.1 resource server (`[auth]` in the manifest, MCP "Authorization"): JWT access
//! tokens checked against the issuer's cached keys ([`jwt`], [`jwks`], [`issuer`]; tokens
//! already verified are remembered until they expire, [`verified`]), opaque
//! ones introspected ([`introspection`]), the protected-resource metadata
//! ([`resource_metadata`]), every refusal's answer ([`challenge`]), the HTTP middleware
//! ([`layer`]), and who is calling ([`Caller`]), put into each accepted request's extensions.
//!
//! The token itself goes nowhere: a [`Caller`] holds no token, nothing logs it, and a gateway
//! upstream's headers come only from the manifest.

mod authenticator;
mod caller;
mod challenge;
mod introspection;
mod issuer;
mod jwks;
mod jwt;
pub(crate) mod layer;
pub(crate) mod resource_metadata;
mod verified;

#[cfg(test)]
mod https_issuer_tests;

pub use self::authenticator::{AuthSetupError, Authenticator};
pub use self::caller::Caller;
pub use self::introspection::MissingCredential;
