//! Argument types: which constraint keys apply to which type, bounds that can be satisfied,
//! patterns that compile, enum members that stay distinct as Rust variants, and the Rust
//! integer type that fits a range.

use crate::diagnostics::Diagnostic;
use crate::ident;
use crate::manifest::{ArgType, Argument, Items, Number};
use crate::manifest_path::ManifestPath;
use crate::model::ModelBuilder;
use crate::model::tools::FieldModel;

/// A Rust integer type chosen to fit an argument's declared range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntRepr {
    /// `u8`
    U8,
    /// `u16`
    U16,
    /// `u32`
    U32,
    /// `u64`
    U64,
    /// `i8`
    I8,
    /// `i16`
    I16,
    /// `i32`
    I32,
    /// `i64`
    I64,
}

impl IntRepr {
    /// The smallest type holding every value of `minimum..=maximum`.
    pub fn fitting(minimum: i64, maximum: i64) -> Self {
        let fits = |lo: i64, hi: i64| minimum >= lo && maximum <= hi;
        if minimum >= 0 {
            [
                (IntRepr::U8, u8::MAX as i64),
                (IntRepr::U16, u16::MAX as i64),
                (IntRepr::U32, u32::MAX as i64),
            ]
            .into_iter()
            .find(|(_, hi)| maximum <= *hi)
            .map_or(IntRepr::U64, |(repr, _)| repr)
        } else if fits(i8::MIN.into(), i8::MAX.into()) {
            IntRepr::I8
        } else if fits(i16::MIN.into(), i16::MAX.into()) {
            IntRepr::I16
        } else if fits(i32::MIN.into(), i32::MAX.into()) {
            IntRepr::I32
        } else {
            IntRepr::I64
        }
    }

    /// The Rust type name.
    pub fn rust_type(self) -> &'static str {
        match self {
            IntRepr::U8 => "u8",
            IntRepr::U16 => "u16",
            IntRepr::U32 => "u32",
            IntRepr::U64 => "u64",
            IntRepr::I8 => "i8",
            IntRepr::I16 => "i16",
            IntRepr::I32 => "i32",
            IntRepr::I64 => "i64",
        }
    }
}

/// A validated type with its constraints.
#[derive(Debug, Clone)]
pub enum TypeModel {
    /// A string.
    String {
        /// Minimum length in code points.
        min_length: Option<u64>,
        /// Maximum length in code points.
        max_length: Option<u64>,
        /// A regex (already checked to compile) that must match somewhere.
        pattern: Option<String>,
    },
    /// A strict integer; the bounds are inclusive and always present (the Rust type's
    /// range when the manifest gives none), so the published schema states them.
    Integer {
        /// Inclusive lower bound.
        minimum: i64,
        /// Inclusive upper bound.
        maximum: i64,
        /// The Rust type.
        repr: IntRepr,
    },
    /// A number (f64).
    Number {
        /// Inclusive lower bound.
        minimum: Option<f64>,
        /// Inclusive upper bound.
        maximum: Option<f64>,
        /// Exclusive lower bound.
        exclusive_minimum: Option<f64>,
        /// Exclusive upper bound.
        exclusive_maximum: Option<f64>,
    },
    /// A boolean.
    Boolean,
    /// One of a fixed set of strings, as a Rust enum.
    Enum {
        /// The Rust enum name.
        type_name: String,
        /// JSON value and Rust variant name of each member.
        variants: Vec<(String, String)>,
    },
    /// An array of scalars.
    Array {
        /// The item type (never an array or object).
        items: Box<TypeModel>,
        /// Minimum number of items.
        min_items: Option<u64>,
        /// Maximum number of items.
        max_items: Option<u64>,
    },
    /// A nested object, as a Rust struct.
    Object {
        /// The Rust struct name.
        type_name: String,
        /// Its fields.
        fields: Vec<FieldModel>,
    },
}

impl TypeModel {
    /// The Rust type of a field of this type, e.g. `Vec<u16>`: what the generated struct
    /// declares and what a scaffolded stub names.
    pub fn rust_type(&self) -> String {
        match self {
            TypeModel::String { .. } => "String".to_owned(),
            TypeModel::Integer { repr, .. } => repr.rust_type().to_owned(),
            TypeModel::Number { .. } => "f64".to_owned(),
            TypeModel::Boolean => "bool".to_owned(),
            TypeModel::Enum { type_name, .. } | TypeModel::Object { type_name, .. } => {
                type_name.clone()
            }
            TypeModel::Array { items, .. } => format!("Vec<{}>", items.rust_type()),
        }
    }
}

/// The constraint keys shared by arguments and array items.
pub(super) struct Constraints<'a> {
    ty: ArgType,
    values: Option<&'a Vec<String>>,
    minimum: Option<Number>,
    maximum: Option<Number>,
    exclusive_minimum: Option<Number>,
    exclusive_maximum: Option<Number>,
    min_length: Option<u64>,
    max_length: Option<u64>,
    pattern: Option<&'a String>,
    min_items: Option<u64>,
    max_items: Option<u64>,
    items: Option<&'a Items>,
    fields: Option<&'a Vec<Argument>>,
}

impl<'a> Constraints<'a> {
    pub(super) fn of_argument(argument: &'a Argument) -> Self {
        Constraints {
            ty: argument.ty,
            values: argument.values.as_ref(),
            minimum: argument.minimum,
            maximum: argument.maximum,
            exclusive_minimum: argument.exclusive_minimum,
            exclusive_maximum: argument.exclusive_maximum,
            min_length: argument.min_length,
            max_length: argument.max_length,
            pattern: argument.pattern.as_ref(),
            min_items: argument.min_items,
            max_items: argument.max_items,
            items: argument.items.as_ref(),
            fields: argument.fields.as_ref(),
        }
    }

    pub(super) fn of_items(items: &'a Items) -> Self {
        Constraints {
            ty: items.ty,
            values: items.values.as_ref(),
            minimum: items.minimum,
            maximum: items.maximum,
            exclusive_minimum: items.exclusive_minimum,
            exclusive_maximum: items.exclusive_maximum,
            min_length: items.min_length,
            max_length: items.max_length,
            pattern: items.pattern.as_ref(),
            min_items: None,
            max_items: None,
            items: None,
            fields: None,
        }
    }

    /// The keys that are set, with the types each applies to.
    fn present_keys(&self) -> Vec<(&'static str, &'static [ArgType])> {
        const NUMERIC: &[ArgType] = &[ArgType::Integer, ArgType::Number];
        let mut keys = Vec::new();
        let mut check = |set: bool, key, types| {
            if set {
                keys.push((key, types));
            }
        };
        check(self.values.is_some(), "values", &[ArgType::Enum][..]);
        check(self.minimum.is_some(), "minimum", NUMERIC);
        check(self.maximum.is_some(), "maximum", NUMERIC);
        check(
            self.exclusive_minimum.is_some(),
            "exclusive_minimum",
            NUMERIC,
        );
        check(
            self.exclusive_maximum.is_some(),
            "exclusive_maximum",
            NUMERIC,
        );
        check(self.min_length.is_some(), "min_length", &[ArgType::String]);
        check(self.max_length.is_some(), "max_length", &[ArgType::String]);
        check(self.pattern.is_some(), "pattern", &[ArgType::String]);
        check(self.min_items.is_some(), "min_items", &[ArgType::Array]);
        check(self.max_items.is_some(), "max_items", &[ArgType::Array]);
        check(self.items.is_some(), "items", &[ArgType::Array]);
        check(self.fields.is_some(), "fields", &[ArgType::Object]);
        keys
    }
}

impl ModelBuilder {
    pub(super) fn type_model(
        &mut self,
        constraints: &Constraints<'_>,
        path: &ManifestPath,
        type_name: Option<&str>,
    ) -> Option<TypeModel> {
        let mut ok = true;
        for (key, applies_to) in constraints.present_keys() {
            if !applies_to.contains(&constraints.ty) {
                let types: Vec<String> = applies_to.iter().map(ToString::to_string).collect();
                self.diagnostics.report(
                    Diagnostic::key(
                        path.key(key),
                        format!("`{key}` does not apply to type `{}`", constraints.ty),
                    )
                    .label("not a constraint of this type")
                    .help(format!(
                        "`{key}` applies to: {}; remove it or change `type`",
                        types.join(", ")
                    )),
                );
                ok = false;
            }
        }
        if !ok {
            return None;
        }
        match constraints.ty {
            ArgType::String => self.string_type(constraints, path),
            ArgType::Integer => self.integer_type(constraints, path),
            ArgType::Number => self.number_type(constraints, path),
            ArgType::Boolean => Some(TypeModel::Boolean),
            ArgType::Enum => self.enum_type(constraints, path, type_name?),
            ArgType::Array => self.array_type(constraints, path, type_name),
            ArgType::Object => {
                let Some(fields) = constraints.fields.filter(|fields| !fields.is_empty()) else {
                    self.diagnostics.report(
                        Diagnostic::value(path.clone(), "an object argument needs `fields`")
                            .label("no fields")
                            .help("add [[...fields]] entries, each with a name and a type"),
                    );
                    return None;
                };
                let type_name = type_name?;
                self.claim_type(type_name, "an object argument", path);
                let fields = self.fields(fields, &path.key("fields"), Some(type_name))?;
                Some(TypeModel::Object {
                    type_name: type_name.to_owned(),
                    fields,
                })
            }
        }
    }

    pub(super) fn string_type(
        &mut self,
        constraints: &Constraints<'_>,
        path: &ManifestPath,
    ) -> Option<TypeModel> {
        let mut ok = self.ordered_u64(
            constraints.min_length,
            constraints.max_length,
            "min_length",
            "max_length",
            path,
        );
        if let Some(pattern) = constraints.pattern
            && let Err(error) = regex::Regex::new(pattern)
        {
            let reason = error.to_string();
            let reason = reason.lines().last().unwrap_or("invalid").trim().to_owned();
            self.diagnostics.report(
                    Diagnostic::value(path.key("pattern"), format!("pattern does not compile: {reason}"))
                        .label("invalid regular expression")
                        .help("use the syntax of the `regex` crate, which JSON Schema validators also accept (no look-around or back-references)"),
                );
            ok = false;
        }
        ok.then(|| TypeModel::String {
            min_length: constraints.min_length,
            max_length: constraints.max_length,
            pattern: constraints.pattern.cloned(),
        })
    }

    pub(super) fn ordered_u64(
        &mut self,
        low: Option<u64>,
        high: Option<u64>,
        low_key: &str,
        high_key: &str,
        path: &ManifestPath,
    ) -> bool {
        match (low, high) {
            (Some(low), Some(high)) if low > high => {
                self.diagnostics.report(
                    Diagnostic::value(
                        path.key(low_key),
                        format!("{low_key} ({low}) is greater than {high_key} ({high})"),
                    )
                    .label("no value can satisfy both")
                    .help(format!("make {low_key} <= {high_key}")),
                );
                false
            }
            _ => true,
        }
    }

    pub(super) fn integer_type(
        &mut self,
        constraints: &Constraints<'_>,
        path: &ManifestPath,
    ) -> Option<TypeModel> {
        let mut ok = true;
        let mut integer = |this: &mut Self, key: &str, bound: Option<Number>| match bound {
            Some(Number::Integer(value)) => Some(value),
            Some(Number::Float(value)) => {
                this.diagnostics.report(
                    Diagnostic::value(
                        path.key(key),
                        format!("{key} of an integer argument must be an integer, not {value:?}"),
                    )
                    .label("a float")
                    .help("write the bound without a fraction, e.g. 10 rather than 10.0"),
                );
                ok = false;
                None
            }
            None => None,
        };
        let minimum = integer(self, "minimum", constraints.minimum);
        let maximum = integer(self, "maximum", constraints.maximum);
        let exclusive_minimum = integer(self, "exclusive_minimum", constraints.exclusive_minimum);
        let exclusive_maximum = integer(self, "exclusive_maximum", constraints.exclusive_maximum);
        let low = self.one_bound(
            minimum,
            exclusive_minimum.map(|v| v.checked_add(1)),
            "minimum",
            path,
        );
        let high = self.one_bound(
            maximum,
            exclusive_maximum.map(|v| v.checked_sub(1)),
            "maximum",
            path,
        );
        if !ok {
            return None;
        }
        let (low, high) = (low?.unwrap_or(i64::MIN), high?.unwrap_or(i64::MAX));
        if low > high {
            self.diagnostics.report(
                Diagnostic::value(
                    path.key(if minimum.is_some() {
                        "minimum"
                    } else {
                        "exclusive_minimum"
                    }),
                    format!("the lower bound ({low}) is greater than the upper bound ({high})"),
                )
                .label("no integer can satisfy both")
                .help("make the lower bound <= the upper bound"),
            );
            return None;
        }
        Some(TypeModel::Integer {
            minimum: low,
            maximum: high,
            repr: IntRepr::fitting(low, high),
        })
    }

    /// Merges an inclusive and an exclusive bound of one side into an inclusive bound.
    pub(super) fn one_bound(
        &mut self,
        inclusive: Option<i64>,
        exclusive: Option<Option<i64>>,
        side: &str,
        path: &ManifestPath,
    ) -> Option<Option<i64>> {
        match (inclusive, exclusive) {
            (Some(_), Some(_)) => {
                self.diagnostics.report(
                    Diagnostic::key(
                        path.key(&format!("exclusive_{side}")),
                        format!("both {side} and exclusive_{side} are given"),
                    )
                    .label("conflicts with the inclusive bound")
                    .help(format!("keep one of {side} and exclusive_{side}")),
                );
                None
            }
            (Some(value), None) => Some(Some(value)),
            (None, Some(Some(value))) => Some(Some(value)),
            (None, Some(None)) => {
                self.diagnostics.report(
                    Diagnostic::value(
                        path.key(&format!("exclusive_{side}")),
                        format!("exclusive_{side} leaves no 64-bit integer"),
                    )
                    .label("out of range")
                    .help("use a bound inside the 64-bit range"),
                );
                None
            }
            (None, None) => Some(None),
        }
    }

    pub(super) fn number_type(
        &mut self,
        constraints: &Constraints<'_>,
        path: &ManifestPath,
    ) -> Option<TypeModel> {
        let f = |bound: Option<Number>| bound.map(Number::as_f64);
        let (minimum, maximum) = (f(constraints.minimum), f(constraints.maximum));
        let (exclusive_minimum, exclusive_maximum) = (
            f(constraints.exclusive_minimum),
            f(constraints.exclusive_maximum),
        );
        let mut ok = true;
        for (side, inclusive, exclusive) in [
            ("minimum", minimum, exclusive_minimum),
            ("maximum", maximum, exclusive_maximum),
        ] {
            if inclusive.is_some() && exclusive.is_some() {
                ok = false;
                self.one_bound(Some(0), Some(Some(0)), side, path);
            }
        }
        let low = minimum
            .map(|v| (v, false))
            .or(exclusive_minimum.map(|v| (v, true)));
        let high = maximum
            .map(|v| (v, false))
            .or(exclusive_maximum.map(|v| (v, true)));
        if let (Some((low, low_open)), Some((high, high_open))) = (low, high)
            && (low > high || (low == high && (low_open || high_open)))
        {
            ok = false;
            self.diagnostics.report(
                Diagnostic::value(
                    path.key(if minimum.is_some() {
                        "minimum"
                    } else {
                        "exclusive_minimum"
                    }),
                    format!(
                        "the lower bound ({low:?}) does not lie below the upper bound ({high:?})"
                    ),
                )
                .label("no number can satisfy both")
                .help("make the lower bound smaller than the upper bound"),
            );
        }
        ok.then_some(TypeModel::Number {
            minimum,
            maximum,
            exclusive_minimum,
            exclusive_maximum,
        })
    }

    pub(super) fn enum_type(
        &mut self,
        constraints: &Constraints<'_>,
        path: &ManifestPath,
        type_name: &str,
    ) -> Option<TypeModel> {
        let Some(values) = constraints.values.filter(|values| !values.is_empty()) else {
            self.diagnostics.report(
                Diagnostic::value(path.clone(), "an enum needs `values`")
                    .label("no values")
                    .help("list the allowed strings, e.g. values = [\"summary\", \"signals\"]"),
            );
            return None;
        };
        let mut variants: Vec<(String, String)> = Vec::new();
        let mut ok = true;
        for (index, value) in values.iter().enumerate() {
            let value_path = path.key("values").index(index);
            match ident::camel(value) {
                Err(error) => {
                    self.ident_error(&error, value, &value_path);
                    ok = false;
                }
                Ok(variant) => {
                    if let Some(other_index) = variants
                        .iter()
                        .position(|(v, i)| v == value || *i == variant)
                    {
                        let other = &variants[other_index].0;
                        let message = if other == value {
                            format!("duplicate enum value `{value}`")
                        } else {
                            format!(
                                "enum values `{other}` and `{value}` both become the variant `{variant}`"
                            )
                        };
                        self.diagnostics.report(
                            Diagnostic::value(value_path, message)
                                .label("collides")
                                .also_at(
                                    path.key("values").index(other_index),
                                    "first defined here",
                                )
                                .help("make every value distinct after case conversion"),
                        );
                        ok = false;
                    } else {
                        variants.push((value.clone(), variant));
                    }
                }
            }
        }
        if !ok {
            return None;
        }
        self.claim_type(type_name, "an enum argument", path);
        Some(TypeModel::Enum {
            type_name: type_name.to_owned(),
            variants,
        })
    }

    pub(super) fn array_type(
        &mut self,
        constraints: &Constraints<'_>,
        path: &ManifestPath,
        type_name: Option<&str>,
    ) -> Option<TypeModel> {
        let ordered = self.ordered_u64(
            constraints.min_items,
            constraints.max_items,
            "min_items",
            "max_items",
            path,
        );
        let Some(items) = constraints.items else {
            self.diagnostics.report(
                Diagnostic::value(path.clone(), "an array argument needs `items`")
                    .label("no item type")
                    .help("add items = { type = \"string\" } (or another scalar type)"),
            );
            return None;
        };
        let items_path = path.key("items");
        if matches!(items.ty, ArgType::Array | ArgType::Object) {
            self.diagnostics.report(
                Diagnostic::value(items_path.key("type"), format!("array items cannot be of type `{}`", items.ty))
                    .label("not a scalar")
                    .help("items are string, integer, number, boolean or enum; use an object argument for structure"),
            );
            return None;
        }
        let item_type_name = type_name.map(|name| format!("{name}Item"));
        let items = self.type_model(
            &Constraints::of_items(items),
            &items_path,
            item_type_name.as_deref(),
        )?;
        ordered.then(|| TypeModel::Array {
            items: Box::new(items),
            min_items: constraints.min_items,
            max_items: constraints.max_items,
        })
    }
}
