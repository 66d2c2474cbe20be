//! Line cap: keeps the first `max_lines` lines of a text and says how many were cut. Lines
//! end at `\n` and at the separators the tag strip turns into `\n` (U+2028, U+2029, NEL), so
//! a text cannot pass the cap as one line and reach the model as many.

use std::borrow::Cow;

use super::strip::is_line_separator;

fn is_line_break(c: char) -> bool {
    c == '\n' || is_line_separator(c)
}

/// Lines in `text`, a trailing line break not starting another line.
fn count_lines(text: &str) -> usize {
    if text.is_empty() {
        return 0;
    }
    let breaks = text.matches(is_line_break).count();
    let ends_with_break = text.chars().next_back().is_some_and(is_line_break);
    breaks + usize::from(!ends_with_break)
}

/// Caps `text` at `max_lines` lines; the marker line says how many lines were dropped.
pub fn cap_lines(text: &str, max_lines: u64) -> Cow<'_, str> {
    let max_lines = usize::try_from(max_lines).unwrap_or(usize::MAX);
    let Some((cut_at, separator)) = text
        .match_indices(is_line_break)
        .nth(max_lines.saturating_sub(1))
    else {
        return Cow::Borrowed(text);
    };
    if max_lines == 0 {
        let total = count_lines(text);
        return Cow::Owned(format!("[truncated: {total} lines cut]"));
    }
    let dropped = count_lines(&text[cut_at + separator.len()..]);
    if dropped == 0 {
        return Cow::Borrowed(text);
    }
    Cow::Owned(format!(
        "{}\n[truncated: {dropped} more lines cut]",
        &text[..cut_at]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_short_texts_and_marks_cuts() {
        assert_eq!(cap_lines("a\nb", 2), "a\nb");
        assert_eq!(cap_lines("a\nb\n", 2), "a\nb\n");
        assert_eq!(
            cap_lines("a\nb\nc\nd", 2),
            "a\nb\n[truncated: 2 more lines cut]"
        );
        assert_eq!(cap_lines("a\nb\nc", 0), "[truncated: 3 lines cut]");
    }

    #[test]
    fn unicode_line_separators_count_as_line_breaks() {
        assert_eq!(
            cap_lines("a\u{2028}b\u{2029}c\u{85}d\ne", 2),
            "a\u{2028}b\n[truncated: 3 more lines cut]"
        );
    }
}
