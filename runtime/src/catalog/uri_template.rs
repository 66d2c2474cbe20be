//! Matching a URI against a level-1 RFC 6570 template (`{name}` expressions only, which the
//! generator enforces): each variable takes one or more characters up to the next literal,
//! never across `/`, `?` or `#`, and is percent-decoded. The crates on crates.io expand
//! templates; none matches a URI against one, which is what a server needs.

/// One piece of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part<'t> {
    Literal(&'t str),
    Variable(&'t str),
}

fn parts(template: &str) -> Vec<Part<'_>> {
    let mut parts = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        if open > 0 {
            parts.push(Part::Literal(&rest[..open]));
        }
        let Some(close) = rest[open..].find('}') else {
            parts.push(Part::Literal(&rest[open..]));
            return parts;
        };
        parts.push(Part::Variable(&rest[open + 1..open + close]));
        rest = &rest[open + close + 1..];
    }
    if !rest.is_empty() {
        parts.push(Part::Literal(rest));
    }
    parts
}

/// The variables of `uri` under `template`, in template order, or `None` when it does not
/// match (or a value is not valid percent-encoded UTF-8).
pub(crate) fn match_uri<'t>(template: &'t str, uri: &str) -> Option<Vec<(&'t str, String)>> {
    let parts = parts(template);
    let mut values = Vec::new();
    let mut rest = uri;
    for (index, part) in parts.iter().enumerate() {
        match part {
            Part::Literal(literal) => rest = rest.strip_prefix(literal)?,
            Part::Variable(name) => {
                let segment_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
                let end = match parts.get(index + 1) {
                    Some(Part::Literal(next)) => rest[..segment_end]
                        .find(next)
                        .or_else(|| rest[segment_end..].starts_with(next).then_some(segment_end))?,
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
