//! Per-call trace ids: `mcp-` and 8 hex digits, as the seed harness prints them.

/// A fresh trace id such as `mcp-3a1b4c9e`.
pub fn new_trace_id() -> String {
    let mut bytes = [0u8; 4];
    // A trace id only correlates logs; if the OS has no randomness left, a fixed id
    // still lets the call proceed.
    let _ = getrandom::fill(&mut bytes);
    format!("mcp-{:08x}", u32::from_be_bytes(bytes))
}

#[cfg(test)]
mod tests {
    #[test]
    fn trace_ids_have_the_seed_format() {
        let id = super::new_trace_id();
        assert_eq!(id.len(), 12);
        assert!(id.starts_with("mcp-"));
        assert!(
            id[4..]
                .chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        assert_ne!(id, super::new_trace_id());
    }
}
