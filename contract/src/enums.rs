//! What every contract enum shares: the Rust path the generator writes for a value
//! ([`ContractEnum`]) and the string forms, all from one table per enum (`contract_enum!`).

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

        impl $crate::enums::ContractEnum for $type {
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
            type Err = $crate::enums::UnknownName;

            fn from_str(text: &str) -> Result<Self, Self::Err> {
                Self::ALL
                    .iter()
                    .copied()
                    .find(|value| value.as_str() == text)
                    .ok_or_else(|| $crate::enums::UnknownName {
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
