//! Line cap: keeps the first `max_lines` lines of a text and says how many were cut.

use std::borrow::Cow;

/// Caps `text` at `max_lines` lines; the marker line says how many lines were dropped.
pub fn cap_lines(text: &str, max_lines: u64) -> Cow<'_, str> {
    let max_lines = usize::try_from(max_lines).unwrap_or(usize::MAX);
    let Some((cut_at, _)) = text.match_indices('\n').nth(max_lines.saturating_sub(1)) else {
        return Cow::Borrowed(text);
    };
    if max_lines == 0 {
        let total = text.lines().count();
        return Cow::Owned(format!("[truncated: {total} lines cut]"));
    }
    let dropped = text[cut_at + 1..].lines().count();
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
    }
}
