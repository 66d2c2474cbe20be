//! Who is calling ([`Caller`]) and, with the `oauth` feature, the OAuth 2.1 resource server
//! (`[auth]` in the manifest, MCP "Authorization"): JWT access tokens checked against the
//! issuer's cached keys, opaque ones introspected, the protected-resource metadata, every
//! refusal's answer, and the HTTP middleware, which puts the [`Caller`] into each accepted
//! request's extensions.
//!
//! The token itself goes nowhere: a [`Caller`] holds no token, nothing logs it, and a gateway
//! upstream's headers come only from the manifest.

#[cfg(feature = "oauth")]
mod authenticator;
mod caller;
#[cfg(feature = "oauth")]
mod challenge;
#[cfg(feature = "oauth")]
mod introspection;
#[cfg(feature = "oauth")]
mod issuer;
#[cfg(feature = "oauth")]
mod jwks;
#[cfg(feature = "oauth")]
mod jwt;
#[cfg(feature = "oauth")]
pub(crate) mod layer;
#[cfg(feature = "oauth")]
pub(crate) mod resource_metadata;
mod setup_error;
#[cfg(feature = "oauth")]
mod verified;

#[cfg(all(test, feature = "oauth"))]
mod https_issuer_tests;

#[cfg(feature = "oauth")]
pub use self::authenticator::Authenticator;
pub use self::caller::Caller;
pub use self::setup_error::{AuthSetupError, MissingCredential};
