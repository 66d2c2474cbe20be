//! What the generator (harness-codegen) and the code it generates (through harness-runtime)
//! must agree on, defined once: the manifest's enums, the transport defaults, the audit record's
//! fields and outcome names, and the digest the audit and the verifier both compute.
//!
//! The generator emits paths such as `rt::TransportKind::Sse`; [`ContractEnum`] names the type
//! and variant so no emitter keeps its own copy of a mapping.

pub mod audit;
pub mod digest;
pub mod guards;
pub mod transport;
pub mod verifier;

pub use audit::{FsyncPolicy, HarnessOutcome, RECORD_FIELDS};
pub use digest::{args_sha256, canonical_json, sha256_hex};
pub use guards::{RateLimitBackend, StoreUnreachable, TabularAction};
pub use transport::TransportKind;
pub use verifier::FieldType;

/// A fieldless enum the generated code names: the generator writes `rt::<NAME>::<variant>`.
pub trait ContractEnum: Copy {
    /// The type's name, as harness-runtime re-exports it.
    const NAME: &'static str;

    /// The Rust name of this variant.
    fn variant(self) -> &'static str;
}

/// Implements [`ContractEnum`] and the string forms (`as_str`, `ALL`, `Display`, `FromStr`)
/// of a fieldless enum from one table of `Variant => "wire name"`.
macro_rules! contract_enum {
    ($type:ident { $($variant:ident => $wire:literal),+ $(,)? }) => {
        impl $type {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$type] = &[$($type::$variant),+];

            /// The name the manifest and the wire use.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($type::$variant => $wire),+
                }
            }
        }

        impl $crate::ContractEnum for $type {
            const NAME: &'static str = stringify!($type);

            fn variant(self) -> &'static str {
                match self {
                    $($type::$variant => stringify!($variant)),+
                }
            }
        }

        impl ::std::fmt::Display for $type {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $type {
            type Err = $crate::UnknownName;

            fn from_str(text: &str) -> Result<Self, Self::Err> {
                Self::ALL
                    .iter()
                    .copied()
                    .find(|value| value.as_str() == text)
                    .ok_or_else(|| $crate::UnknownName {
                        given: text.to_owned(),
                        expected: Self::ALL.iter().map(|value| value.as_str()).collect(),
                    })
            }
        }
    };
}
pub(crate) use contract_enum;

/// A name that is not one of an enum's wire names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownName {
    /// What was given.
    pub given: String,
    /// Every accepted name.
    pub expected: Vec<&'static str>,
}

impl std::fmt::Display for UnknownName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` is not one of: {}",
            self.given,
            self.expected.join(", ")
        )
    }
}

impl std::error::Error for UnknownName {}
