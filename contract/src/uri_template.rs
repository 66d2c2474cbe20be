//! The URI templates of resource templates: level 1 of RFC 6570 (`{name}` expressions only,
//! each followed by literal text or the end). The generator rejects any other template at build
//! time and the runtime matches requested URIs against the same parse, so a template the build
//! accepted is one the server can match.
//!
//! Matching is the inverse of expansion: each variable takes one or more characters up to the
//! next literal, never across `/`, `?` or `#`, and is percent-decoded. The crates on crates.io
//! expand templates; none matches a URI against one, which is what a server needs.

use std::fmt;

/// One piece of a template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part<'t> {
    /// Text the URI repeats as is.
    Literal(&'t str),
    /// A `{name}` expression: the name, without braces.
    Variable(&'t str),
}

/// A level-1 template, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate<'t> {
    parts: Vec<Part<'t>>,
}

/// Why a text is not a level-1 template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateError {
    /// A `{` with no `}` after it.
    Unclosed {
        /// The byte offset of the `{`.
        at: usize,
    },
    /// A `}` outside an expression.
    StrayClose {
        /// The byte offset of the `}`.
        at: usize,
    },
    /// `{}`.
    EmptyName {
        /// The byte offset of the `{`.
        at: usize,
    },
    /// An expression with an operator (`{+x}`, `{#x}`, `{?x}`, …), which levels 2 to 4 add.
    Operator {
        /// The expression, braces included.
        expression: String,
        /// The operator.
        operator: char,
    },
    /// A prefix (`{x:3}`), an explode (`{x*}`) or a list (`{x,y}`), which levels 3 and 4 add.
    Modifier {
        /// The expression, braces included.
        expression: String,
    },
    /// A name with a character other than an ASCII letter, digit or `_`.
    InvalidName {
        /// The expression, braces included.
        expression: String,
    },
    /// An expression right after another: no literal would tell where the first one ends.
    Adjacent {
        /// The second expression, braces included.
        expression: String,
    },
}

/// The operators of levels 2 to 4, and those RFC 6570 reserves for later.
const OPERATORS: &[char] = &['+', '#', '.', '/', ';', '?', '&', '=', ',', '!', '@', '|'];

impl<'t> UriTemplate<'t> {
    /// Parses `template`, or says why it is not level 1.
    pub fn parse(template: &'t str) -> Result<Self, TemplateError> {
        let mut parts = Vec::new();
        let mut offset = 0;
        while offset < template.len() {
            let rest = &template[offset..];
            let Some(after) = rest.strip_prefix('{') else {
                let end = rest.find('{').unwrap_or(rest.len());
                let literal = &rest[..end];
                if let Some(close) = literal.find('}') {
                    return Err(TemplateError::StrayClose { at: offset + close });
                }
                parts.push(Part::Literal(literal));
                offset += end;
                continue;
            };
            let Some(close) = after.find('}') else {
                return Err(TemplateError::Unclosed { at: offset });
            };
            let name = &after[..close];
            let expression = &rest[..close + 2];
            check_name(name, expression, offset)?;
            if let Some(Part::Variable(_)) = parts.last() {
                return Err(TemplateError::Adjacent {
                    expression: expression.to_owned(),
                });
            }
            parts.push(Part::Variable(name));
            offset += expression.len();
        }
        Ok(Self { parts })
    }

    /// The literals and variables, in template order; no two variables are next to each other.
    pub fn parts(&self) -> &[Part<'t>] {
        &self.parts
    }

    /// The variable names, in template order.
    pub fn variables(&self) -> impl Iterator<Item = &'t str> + '_ {
        self.parts.iter().filter_map(|part| match part {
            Part::Variable(name) => Some(*name),
            Part::Literal(_) => None,
        })
    }

    /// The variables of `uri` under this template, in template order, or `None` when it does
    /// not match (or a value is not valid percent-encoded UTF-8).
    pub fn match_uri(&self, uri: &str) -> Option<Vec<(&'t str, String)>> {
        let mut values = Vec::new();
        let mut rest = uri;
        for (index, part) in self.parts.iter().enumerate() {
            match part {
                Part::Literal(literal) => rest = rest.strip_prefix(literal)?,
                Part::Variable(name) => {
                    let segment_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
                    let end = match self.parts.get(index + 1) {
                        // The first occurrence within the segment, else the literal must start
                        // right where the segment ends (as `/` in `{id}/data` does).
                        Some(Part::Literal(next)) => {
                            rest[..segment_end].find(next).or_else(|| {
                                rest[segment_end..].starts_with(next).then_some(segment_end)
                            })?
                        }
                        _ => segment_end,
                    };
                    if end == 0 {
                        return None;
                    }
                    values.push((*name, percent_decode(&rest[..end])?));
                    rest = &rest[end..];
                }
            }
        }
        rest.is_empty().then_some(values)
    }
}

/// The variables of `uri` under `template`, or `None` when it does not match or `template` is
/// not level 1: see [`UriTemplate::match_uri`].
pub fn match_uri<'t>(template: &'t str, uri: &str) -> Option<Vec<(&'t str, String)>> {
    UriTemplate::parse(template).ok()?.match_uri(uri)
}

fn check_name(name: &str, expression: &str, at: usize) -> Result<(), TemplateError> {
    let Some(first) = name.chars().next() else {
        return Err(TemplateError::EmptyName { at });
    };
    if OPERATORS.contains(&first) {
        return Err(TemplateError::Operator {
            expression: expression.to_owned(),
            operator: first,
        });
    }
    if name.contains([':', '*', ',']) {
        return Err(TemplateError::Modifier {
            expression: expression.to_owned(),
        });
    }
    if !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Err(TemplateError::InvalidName {
            expression: expression.to_owned(),
        });
    }
    Ok(())
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' {
            let hex = text.get(index + 1..index + 3)?;
            decoded.push(u8::from_str_radix(hex, 16).ok()?);
            index += 3;
        } else {
            decoded.push(bytes[index]);
            index += 1;
        }
    }
    String::from_utf8(decoded).ok()
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unclosed { at } => write!(f, "unclosed `{{` at byte {at}"),
            Self::StrayClose { at } => write!(f, "stray `}}` at byte {at}"),
            Self::EmptyName { at } => write!(f, "empty expression `{{}}` at byte {at}"),
            Self::Operator {
                expression,
                operator,
            } => write!(
                f,
                "`{expression}` has the operator `{operator}`, which level 1 does not have"
            ),
            Self::Modifier { expression } => write!(
                f,
                "`{expression}` has a prefix, explode or list, which level 1 does not have"
            ),
            Self::InvalidName { expression } => write!(
                f,
                "`{expression}` is not a variable name (letters, digits, `_`)"
            ),
            Self::Adjacent { expression } => write!(
                f,
                "`{expression}` follows another expression without a literal between"
            ),
        }
    }
}

impl std::error::Error for TemplateError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_parses_into_literals_and_variables() {
        let template = UriTemplate::parse("tickets://{id}/notes/{note_2}").unwrap();
        assert_eq!(
            template.parts(),
            [
                Part::Literal("tickets://"),
                Part::Variable("id"),
                Part::Literal("/notes/"),
                Part::Variable("note_2"),
            ]
        );
        assert_eq!(template.variables().collect::<Vec<_>>(), ["id", "note_2"]);
        assert_eq!(
            UriTemplate::parse("docs://index").unwrap().parts(),
            [Part::Literal("docs://index")]
        );
        assert_eq!(UriTemplate::parse("").unwrap().parts(), []);
    }

    #[test]
    fn every_other_template_says_why() {
        let expression = |text: &str| text.to_owned();
        for (template, error) in [
            ("t://{id", TemplateError::Unclosed { at: 4 }),
            ("t://id}", TemplateError::StrayClose { at: 6 }),
            ("t://{a}}", TemplateError::StrayClose { at: 7 }),
            ("t://{}", TemplateError::EmptyName { at: 4 }),
            (
                "files://{+path}",
                TemplateError::Operator {
                    expression: expression("{+path}"),
                    operator: '+',
                },
            ),
            (
                "t://x{?q}",
                TemplateError::Operator {
                    expression: expression("{?q}"),
                    operator: '?',
                },
            ),
            (
                "t://{a:3}",
                TemplateError::Modifier {
                    expression: expression("{a:3}"),
                },
            ),
            (
                "t://{a*}",
                TemplateError::Modifier {
                    expression: expression("{a*}"),
                },
            ),
            (
                "t://{a,b}",
                TemplateError::Modifier {
                    expression: expression("{a,b}"),
                },
            ),
            (
                "t://{a-b}",
                TemplateError::InvalidName {
                    expression: expression("{a-b}"),
                },
            ),
            (
                "t://{a{b}",
                TemplateError::InvalidName {
                    expression: expression("{a{b}"),
                },
            ),
            (
                "t://{a}{b}",
                TemplateError::Adjacent {
                    expression: expression("{b}"),
                },
            ),
        ] {
            assert_eq!(UriTemplate::parse(template), Err(error), "{template}");
        }
    }

    #[test]
    fn errors_name_the_expression() {
        let error = UriTemplate::parse("files://{+path}").unwrap_err();
        assert_eq!(
            error.to_string(),
            "`{+path}` has the operator `+`, which level 1 does not have"
        );
    }

    #[test]
    fn variables_are_taken_between_literals_and_decoded() {
        assert_eq!(
            match_uri("test://template/{id}/data", "test://template/123/data"),
            Some(vec![("id", "123".to_owned())])
        );
        assert_eq!(
            match_uri("t://{a}-{b}", "t://x%20y-z"),
            Some(vec![("a", "x y".to_owned()), ("b", "z".to_owned())])
        );
    }

    #[test]
    fn anything_else_does_not_match() {
        for uri in [
            "test://template//data",
            "test://template/1/2/data",
            "test://template/123/data/extra",
            "test://other/123/data",
            "test://template/%zz/data",
            "test://template/%ff/data",
        ] {
            assert_eq!(match_uri("test://template/{id}/data", uri), None, "{uri}");
        }
        assert_eq!(
            match_uri("t://{id}", "t://a/b"),
            None,
            "never across a slash"
        );
    }

    #[test]
    fn a_template_that_is_not_level_1_matches_nothing() {
        assert_eq!(match_uri("files://{+path}", "files://a"), None);
        assert_eq!(match_uri("t://{id", "t://{id"), None);
    }
}
