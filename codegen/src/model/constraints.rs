//! The constraint keys an argument or an array's items may carry, read through one view so a
//! type's checks need not know which of the two they came from.

use crate::manifest::{ArgType, Argument, Items, Number};

/// The constraint keys shared by arguments and array items.
pub(crate) struct Constraints<'a> {
    pub(crate) ty: ArgType,
    pub(crate) values: Option<&'a Vec<String>>,
    pub(crate) minimum: Option<Number>,
    pub(crate) maximum: Option<Number>,
    pub(crate) exclusive_minimum: Option<Number>,
    pub(crate) exclusive_maximum: Option<Number>,
    pub(crate) min_length: Option<u64>,
    pub(crate) max_length: Option<u64>,
    pub(crate) pattern: Option<&'a String>,
    pub(crate) min_items: Option<u64>,
    pub(crate) max_items: Option<u64>,
    pub(crate) items: Option<&'a Items>,
    pub(crate) fields: Option<&'a Vec<Argument>>,
}

impl<'a> Constraints<'a> {
    pub(crate) fn of_argument(argument: &'a Argument) -> Self {
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

    pub(crate) fn of_items(items: &'a Items) -> Self {
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
    pub(crate) fn present_keys(&self) -> Vec<(&'static str, &'static [ArgType])> {
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
