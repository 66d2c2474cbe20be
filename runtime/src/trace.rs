//! Per-call trace ids: `mcp-` and 8 hex digits, the form agents and operators already grep for, or the
//! trace id of a W3C `traceparent` the client sent in `_meta`, so the call joins the
//! client's distributed trace.

/// A fresh trace id such as `mcp-3a1b4c9e` (from a thread-local generator seeded by the OS:
/// trace ids correlate logs, they are not secrets).
pub(crate) fn new_trace_id() -> String {
    use std::fmt::Write;
    // Its exact length up front: `format!` guesses 8 bytes from the literal and grows once.
    let mut id = String::with_capacity(12);
    write!(id, "mcp-{:08x}", rand::random::<u32>()).expect("a String takes any write");
    id
}

/// The 32-hex trace id of a valid W3C `traceparent` (`00-<trace-id>-<parent-id>-<flags>`).
pub(crate) fn trace_id_from_traceparent(traceparent: &str) -> Option<&str> {
    let mut parts = traceparent.trim().split('-');
    let (version, trace_id, parent_id, flags) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let hex = |text: &str, len: usize| {
        text.len() == len
            && text
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    let valid = hex(version, 2)
        && version != "ff"
        && (version != "00" || parts.next().is_none())
        && hex(trace_id, 32)
        && trace_id.bytes().any(|b| b != b'0')
        && hex(parent_id, 16)
        && parent_id.bytes().any(|b| b != b'0')
        && hex(flags, 2);
    valid.then_some(trace_id)
}

/// The trace id for a call: the client's W3C trace id when it sent a valid one.
pub(crate) fn trace_id_for(traceparent: Option<&str>) -> String {
    traceparent
        .and_then(trace_id_from_traceparent)
        .map_or_else(new_trace_id, str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_ids_have_the_seed_format() {
        let id = new_trace_id();
        assert_eq!(id.len(), 12);
        assert!(id.starts_with("mcp-"));
        assert!(
            id[4..]
                .chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        assert_ne!(id, new_trace_id());
    }

    #[test]
    fn traceparent_is_honoured_when_valid() {
        let header = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        assert_eq!(
            trace_id_for(Some(header)),
            "4bf92f3577b34da6a3ce929d0e0e4736"
        );
        for bad in [
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "garbage",
        ] {
            assert!(trace_id_for(Some(bad)).starts_with("mcp-"), "{bad}");
        }
    }
}
