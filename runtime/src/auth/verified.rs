//! Tokens already accepted, by the SHA-256 of their text: a client sends the same token on
//! every call until it expires, and checking an RS256 signature costs about eight times the
//! rest of the call (bench `auth`). For a JWT, a hit is the same bytes the signature check
//! accepted, so it is accepted again while `exp` (with the leeway) has not passed; nothing
//! else about the token can have changed. Introspection keeps its active answers here too,
//! for a shorter time (`introspection.rs`). Bounded: when full, expired entries go first,
//! then everything.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};

use crate::auth::caller::Caller;
use crate::sync::lock;

/// Most tokens remembered at once.
const CAPACITY: usize = 4096;

/// A verified token's caller, and when the token stops being valid (seconds since the
/// epoch, leeway included).
type Entry = (Arc<Caller>, u64);

/// Verified tokens by the SHA-256 of their text.
#[derive(Default)]
pub(crate) struct Verified {
    tokens: Mutex<HashMap<[u8; 32], Entry>>,
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

pub(crate) fn now() -> u64 {
    jsonwebtoken::get_current_timestamp()
}

impl Verified {
    /// The caller of `token`, when it was verified before and has not expired since.
    pub(crate) fn get(&self, token: &str) -> Option<Arc<Caller>> {
        let tokens = lock(&self.tokens);
        let (caller, until) = tokens.get(&digest(token))?;
        (now() <= *until).then(|| Arc::clone(caller))
    }

    /// Remembers that `token` names `caller` until `until`.
    pub(crate) fn insert(&self, token: &str, caller: Arc<Caller>, until: u64) {
        let mut tokens = lock(&self.tokens);
        if tokens.len() >= CAPACITY {
            let now = now();
            tokens.retain(|_, (_, until)| *until >= now);
            if tokens.len() >= CAPACITY {
                tokens.clear();
            }
        }
        tokens.insert(digest(token), (caller, until));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_remembered_until_it_expires() {
        let verified = Verified::default();
        let caller = Arc::new(Caller::new("svc", Vec::new(), None));
        verified.insert("a.b.c", Arc::clone(&caller), now() + 60);
        verified.insert("d.e.f", caller, now() - 1);
        assert_eq!(verified.get("a.b.c").unwrap().subject, "svc");
        assert!(verified.get("d.e.f").is_none(), "expired");
        assert!(verified.get("a.b.x").is_none(), "another token");
    }

    #[test]
    fn a_full_cache_drops_expired_entries_first() {
        let verified = Verified::default();
        let caller = Arc::new(Caller::new("svc", Vec::new(), None));
        verified.insert("keep", Arc::clone(&caller), now() + 60);
        for index in 0..CAPACITY {
            verified.insert(&format!("old-{index}"), Arc::clone(&caller), now() - 1);
        }
        assert!(verified.get("keep").is_some());
    }
}
