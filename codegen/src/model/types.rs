//! What a validated argument is: its type with the constraints that survived the checks, the
//! Rust integer type that fits its range, and whether it may be absent.

use serde_json::Value;

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

/// A validated argument or object field.
#[derive(Debug, Clone)]
pub struct FieldModel {
    /// JSON property name.
    pub name: String,
    /// Rust field name (`snake_case`, unescaped).
    pub ident: String,
    /// Description for the model.
    pub description: Option<String>,
    /// Whether it must be present, may be absent, or has a default.
    pub presence: Presence,
    /// Type and constraints.
    pub ty: TypeModel,
}

/// How a field's absence is handled.
#[derive(Debug, Clone, PartialEq)]
pub enum Presence {
    /// Absent is an error.
    Required,
    /// Absent becomes `None`.
    Optional,
    /// Absent becomes this (already checked) value.
    Default(Value),
}
