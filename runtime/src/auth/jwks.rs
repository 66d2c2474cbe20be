//! The issuer's signing keys (JWKS), cached. A token whose `kid` is not in the cache makes
//! one fetch of the key set (so a rotation on the issuer is picked up at its first token);
//! a fetch that still lacks the `kid` starts a cool-down in which further unknown ids are
//! refused without fetching, so a flood of made-up key ids costs the issuer one request per
//! period. Concurrent misses share one fetch.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use jsonwebtoken::DecodingKey;
use jsonwebtoken::jwk::{AlgorithmParameters, Jwk, JwkSet, KeyAlgorithm, PublicKeyUse};
use tokio::sync::{Mutex, RwLock};

use crate::auth::issuer::{FetchError, Issuer};

/// How long a fetched key set is trusted before the next token fetches it again anyway.
const MAX_AGE: Duration = Duration::from_secs(600);

/// One usable key: what `DecodingKey::from_jwk` made of it, and the algorithm it declares.
#[derive(Clone)]
pub(crate) struct Key {
    pub(crate) decoding: DecodingKey,
    pub(crate) algorithm: Option<KeyAlgorithm>,
}

#[derive(Default)]
struct Cached {
    keys: HashMap<String, Key>,
    /// A key without a `kid`, used for tokens without one when it is the only key.
    anonymous: Option<Key>,
    fetched: Option<Instant>,
    /// Until when an unknown `kid` is refused without a fetch.
    cool_down_until: Option<Instant>,
}

/// The cache of one issuer's key set.
pub(crate) struct KeyCache {
    issuer: Arc<Issuer>,
    refresh: Duration,
    cached: RwLock<Cached>,
    /// Held while fetching: concurrent misses wait for the one fetch instead of starting theirs.
    fetching: Mutex<()>,
}

/// Why no key verifies a token.
#[derive(Debug, thiserror::Error)]
pub(crate) enum KeyError {
    /// The key set has no key with the token's `kid`.
    #[error("no signing key with the token's key id")]
    UnknownKid,
    /// The key set could not be fetched.
    #[error(transparent)]
    Fetch(#[from] FetchError),
}

impl KeyCache {
    /// An empty cache for `issuer`'s keys, refetching for an unknown `kid` at most once per
    /// `refresh`.
    pub(crate) fn new(issuer: Arc<Issuer>, refresh: Duration) -> Self {
        Self {
            issuer,
            refresh,
            cached: RwLock::default(),
            fetching: Mutex::new(()),
        }
    }

    /// The key for `kid` (or the only key, for a token without one), fetching the key set when
    /// it was never fetched, is older than [`MAX_AGE`], or lacks `kid` outside a cool-down.
    pub(crate) async fn key(&self, kid: Option<&str>) -> Result<Key, KeyError> {
        if let Some(key) = self.fresh(kid).await {
            return Ok(key);
        }
        let _fetching = self.fetching.lock().await;
        // Another request may have fetched while this one waited.
        if let Some(key) = self.fresh(kid).await {
            return Ok(key);
        }
        {
            let cached = self.cached.read().await;
            let stale = cached.fetched.is_none_or(|at| at.elapsed() >= MAX_AGE);
            let cooling = cached
                .cool_down_until
                .is_some_and(|until| Instant::now() < until);
            if cooling && !stale {
                return Err(KeyError::UnknownKid);
            }
        }
        let set = self.issuer.jwks().await?;
        let mut cached = self.cached.write().await;
        *cached = Cached {
            fetched: Some(Instant::now()),
            cool_down_until: cached.cool_down_until,
            ..index(&set)
        };
        match lookup(&cached, kid) {
            Some(key) => Ok(key),
            None => {
                tracing::warn!(
                    kid,
                    "a token names a key the issuer does not publish; no refetch for {:?}",
                    self.refresh
                );
                cached.cool_down_until = Some(Instant::now() + self.refresh);
                Err(KeyError::UnknownKid)
            }
        }
    }

    /// The cached key for `kid`, when the cache is younger than [`MAX_AGE`].
    async fn fresh(&self, kid: Option<&str>) -> Option<Key> {
        let cached = self.cached.read().await;
        cached
            .fetched
            .filter(|at| at.elapsed() < MAX_AGE)
            .and_then(|_| lookup(&cached, kid))
    }
}

fn lookup(cached: &Cached, kid: Option<&str>) -> Option<Key> {
    match kid {
        Some(kid) => cached.keys.get(kid).cloned(),
        None => cached.anonymous.clone(),
    }
}

/// The signing keys of a set: keys for encryption and keys this crate cannot use are skipped.
fn index(set: &JwkSet) -> Cached {
    // A symmetric key in a published set would let anyone who reads the set sign tokens.
    let usable = |jwk: &&Jwk| {
        !matches!(jwk.common.public_key_use, Some(PublicKeyUse::Encryption))
            && !matches!(
                jwk.algorithm,
                AlgorithmParameters::OctetKey(_) | AlgorithmParameters::Other(_)
            )
    };
    let keys: Vec<(Option<String>, Key)> = set
        .keys
        .iter()
        .filter(usable)
        .filter_map(|jwk| {
            let decoding = DecodingKey::from_jwk(jwk).ok()?;
            let key = Key {
                decoding,
                algorithm: jwk.common.key_algorithm,
            };
            Some((jwk.common.key_id.clone(), key))
        })
        .collect();
    let anonymous = match keys.as_slice() {
        [(_, only)] => Some(only.clone()),
        _ => None,
    };
    Cached {
        keys: keys
            .into_iter()
            .filter_map(|(kid, key)| Some((kid?, key)))
            .collect(),
        anonymous,
        fetched: None,
        cool_down_until: None,
    }
}
