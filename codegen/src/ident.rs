//! The one place generated identifiers come from (as prost's `ident.rs`): case conversion,
//! keyword escaping, and the checks that make a name usable in Rust at all.

use heck::{ToSnakeCase, ToUpperCamelCase};
use proc_macro2::{Ident, Span};

/// Keywords that cannot be raw identifiers either (`r#self` is not allowed).
const UNRAWABLE: &[&str] = &["self", "Self", "super", "crate", "_"];

/// Every strict and reserved keyword of Rust 2024; these become raw identifiers.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where",
    "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "try",
    "typeof", "unsized", "virtual", "yield",
];

/// Why a name cannot become a Rust identifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdentError {
    /// The converted name is empty.
    Empty,
    /// The converted name is not an identifier (starts with a digit, has other characters).
    Invalid(String),
    /// The converted name is a keyword that cannot be escaped as a raw identifier.
    ReservedKeyword(String),
}

impl IdentError {
    /// One-line explanation.
    pub fn describe(&self, original: &str) -> String {
        match self {
            IdentError::Empty => format!("`{original}` has no letters or digits to name it by"),
            IdentError::Invalid(converted) => {
                format!("`{original}` becomes `{converted}` in Rust, which is not an identifier")
            }
            IdentError::ReservedKeyword(converted) => format!(
                "`{original}` becomes the Rust keyword `{converted}`, which cannot be used as a name even as a raw identifier"
            ),
        }
    }
}

/// `snake_case` form of a name, for modules, functions and fields (not yet escaped).
pub fn snake(name: &str) -> Result<String, IdentError> {
    checked(name.to_snake_case())
}

/// `UpperCamelCase` form of a name, for types, traits and variants. A leading digit gets a
/// `V` prefix so enum values such as `"2xx"` still name a variant.
pub fn camel(name: &str) -> Result<String, IdentError> {
    let converted = name.to_upper_camel_case();
    if converted.starts_with(|c: char| c.is_ascii_digit()) {
        return checked(format!("V{converted}"));
    }
    checked(converted)
}

fn checked(converted: String) -> Result<String, IdentError> {
    if converted.is_empty() {
        return Err(IdentError::Empty);
    }
    let mut chars = converted.chars();
    let first = chars.next().expect("not empty");
    let valid_start = first == '_' || first.is_ascii_alphabetic();
    if !valid_start || !chars.all(|c| c == '_' || c.is_ascii_alphanumeric()) {
        return Err(IdentError::Invalid(converted));
    }
    if UNRAWABLE.contains(&converted.as_str()) {
        return Err(IdentError::ReservedKeyword(converted));
    }
    Ok(converted)
}

/// A token for a checked name, escaped as `r#name` when it is a keyword.
pub fn to_ident(checked_name: &str) -> Ident {
    if KEYWORDS.contains(&checked_name) {
        Ident::new_raw(checked_name, Span::call_site())
    } else {
        Ident::new(checked_name, Span::call_site())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_case_and_escapes_keywords() {
        assert_eq!(
            snake("getIncident-snapshot").unwrap(),
            "get_incident_snapshot"
        );
        assert_eq!(
            camel("get.incident_snapshot").unwrap(),
            "GetIncidentSnapshot"
        );
        assert_eq!(camel("2xx").unwrap(), "V2xx");
        assert_eq!(to_ident("type").to_string(), "r#type");
        assert_eq!(to_ident("view").to_string(), "view");
    }

    #[test]
    fn refuses_what_cannot_be_named() {
        assert_eq!(
            snake("self"),
            Err(IdentError::ReservedKeyword("self".into()))
        );
        assert_eq!(snake("--"), Err(IdentError::Empty));
        assert!(matches!(snake("naïve"), Err(IdentError::Invalid(_))));
    }
}
