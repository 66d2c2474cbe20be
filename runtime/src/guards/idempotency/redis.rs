//! Idempotency keys kept in Redis, shared by every replica: one script claims a key atomically
//! (answer what is there, or hold the key for this call), a finished call's reply replaces the
//! hold for the window, and a hold is released only by the call that holds it. A hold expires
//! after a lease (the tool's timeout and a minute), so a replica that dies mid-call does not
//! block its key for the whole window.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::guards::idempotency::record::{Found, Stored};
use crate::guards::redis_window::RedisConnection;

/// KEYS[1]: the key. ARGV: the hold's JSON, its lease in milliseconds. Returns what the key
/// holds, or nil once this call holds it.
const CLAIM: &str = r"
local found = redis.call('GET', KEYS[1])
if found then return found end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
";

/// KEYS[1]: the key. ARGV[1]: the hold's JSON. Deletes the key only while it is that hold.
const RELEASE: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
";

/// What one key holds in Redis.
#[derive(Debug, Serialize, Deserialize)]
struct Record {
    digest: String,
    /// The holding call, while it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    token: Option<String>,
    /// The reply, once the call finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    stored: Option<Stored>,
}

/// The keys of one tool in Redis.
pub(crate) struct RedisKeys {
    connection: Arc<RedisConnection>,
    prefix: String,
    window: Duration,
    lease: Duration,
    claim: redis::Script,
    release: Arc<redis::Script>,
}

impl std::fmt::Debug for RedisKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisKeys")
            .field("prefix", &self.prefix)
            .field("window", &self.window)
            .finish_non_exhaustive()
    }
}

impl RedisKeys {
    /// Keys under `prefix` (with its `{...}` hash tag), kept for `window`, held for `lease`.
    pub(crate) fn new(
        connection: Arc<RedisConnection>,
        prefix: String,
        window: Duration,
        lease: Duration,
    ) -> Self {
        Self {
            connection,
            prefix,
            window,
            lease,
            claim: redis::Script::new(CLAIM),
            release: Arc::new(redis::Script::new(RELEASE)),
        }
    }

    fn redis_key(&self, key: &str) -> String {
        format!("{}:{key}", self.prefix)
    }

    /// What `key` holds (`None`: this call holds it now), or why Redis did not say.
    pub(crate) async fn claim(
        &self,
        key: &str,
        digest: &str,
        token: &str,
    ) -> Result<Option<Found>, String> {
        let hold = hold(digest, token);
        let lease_ms = u64::try_from(self.lease.as_millis()).unwrap_or(u64::MAX);
        let attempt = async {
            let mut manager = self.connection.manager()?;
            self.claim
                .key(self.redis_key(key))
                .arg(&hold)
                .arg(lease_ms)
                .invoke_async::<Option<String>>(&mut manager)
                .await
        };
        match self.timed(attempt).await? {
            None => Ok(None),
            Some(found) => {
                let record: Record = serde_json::from_str(&found).map_err(|error| {
                    format!("an idempotency record that does not parse: {error}")
                })?;
                Ok(Some(Found {
                    digest: record.digest,
                    stored: record.stored,
                }))
            }
        }
    }

    /// Keeps `stored` under `key` for the window (replacing the hold).
    pub(crate) async fn keep(&self, key: &str, digest: &str, stored: &Stored) {
        let record = Record {
            digest: digest.to_owned(),
            token: None,
            stored: Some(stored.clone()),
        };
        let Ok(record) = serde_json::to_string(&record) else {
            return;
        };
        let window_ms = u64::try_from(self.window.as_millis()).unwrap_or(u64::MAX);
        let attempt = async {
            let mut manager = self.connection.manager()?;
            redis::cmd("SET")
                .arg(self.redis_key(key))
                .arg(record)
                .arg("PX")
                .arg(window_ms)
                .query_async::<()>(&mut manager)
                .await
        };
        if let Err(reason) = self.timed(attempt).await {
            // The hold expires after its lease; until then a repeat is refused as in flight.
            tracing::error!(%reason, "idempotency reply not kept in Redis");
        }
    }

    /// Releases `key` if `token` still holds it (in the background: a reservation is
    /// released when dropped, which cannot wait).
    pub(crate) fn release(&self, key: &str, digest: &str, token: &str) {
        let hold = hold(digest, token);
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (connection, script, key) = (
            Arc::clone(&self.connection),
            Arc::clone(&self.release),
            self.redis_key(key),
        );
        runtime.spawn(async move {
            let timeout = connection.timeout();
            let attempt = async {
                let mut manager = connection.manager()?;
                script
                    .key(key)
                    .arg(hold)
                    .invoke_async::<i64>(&mut manager)
                    .await
            };
            if !matches!(tokio::time::timeout(timeout, attempt).await, Ok(Ok(_))) {
                tracing::warn!("idempotency key not released in Redis; it expires with its lease");
            }
        });
    }

    async fn timed<T>(
        &self,
        attempt: impl Future<Output = Result<T, redis::RedisError>>,
    ) -> Result<T, String> {
        let timeout = self.connection.timeout();
        match tokio::time::timeout(timeout, attempt).await {
            Err(_) => Err(format!("Redis did not answer within {timeout:?}")),
            Ok(Err(error)) => Err(format!("Redis: {error}")),
            Ok(Ok(value)) => Ok(value),
        }
    }
}

/// The JSON of the hold of the call `token` with arguments `digest` (the same text every time,
/// so a release deletes only its own hold).
fn hold(digest: &str, token: &str) -> String {
    serde_json::to_string(&Record {
        digest: digest.to_owned(),
        token: Some(token.to_owned()),
        stored: None,
    })
    .expect("a record of strings serializes")
}
