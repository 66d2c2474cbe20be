//! What the generator (harness-codegen) and the code it generates (through harness-runtime)
//! must agree on, defined once: the manifest's enums, the transport defaults, the audit record's
//! fields and outcome names, the digest the audit and the verifier both compute, the
//! digest of a pinned upstream tool, the skills' bounds, and the grammar of resource URI
//! templates.
//!
//! The generator emits paths such as `rt::TransportKind::Sse`; [`ContractEnum`] names the type
//! and variant so no emitter keeps its own copy of a mapping.

pub mod audit;
pub mod digest;
mod enums;
pub mod guards;
pub mod skills;
pub mod tasks;
pub mod transport;
pub mod upstream;
pub mod uri_template;
pub mod verifier;

pub use audit::{FsyncPolicy, HarnessOutcome, RECORD_FIELDS};
pub use digest::{args_sha256, canonical_json, sha256_hex};
pub use enums::{ContractEnum, UnknownName};
pub use guards::{RateLimitBackend, RateLimitScope, StoreUnreachable, TabularAction};
pub use tasks::TaskSupport;
pub use transport::TransportKind;
pub use upstream::{
    ForwardedRequest, OnDrift, PinKind, UpstreamProtocol, UpstreamTransport, definition_sha256,
    pin_sha256,
};
pub use verifier::FieldType;
