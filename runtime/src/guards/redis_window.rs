//! A sliding-window rate limit kept in Redis, so replicas sharing one Redis share one exact
//! window. One Lua script does the whole decision atomically on the server: drop admissions
//! older than the window, count, and either record this call or answer when the oldest one
//! leaves. Times come from Redis's own clock (`TIME`), so replicas whose clocks disagree still
//! agree on the window.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};

/// KEYS[1]: the window (a sorted set of admissions scored by microseconds).
/// ARGV: limit, period in microseconds, a unique member for this admission.
/// Returns `{1, 0}` when admitted, `{0, retry_after_us}` when refused. Numbers go to Redis
/// through `%.0f`: Lua's default formatting keeps only 14 digits, and microsecond timestamps
/// have 16.
const SLIDING_WINDOW: &str = r"
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%.0f', now - period))
if redis.call('ZCARD', key) < limit then
  redis.call('ZADD', key, string.format('%.0f', now), ARGV[3])
  redis.call('PEXPIRE', key, string.format('%.0f', math.ceil(period / 1000)))
  return {1, 0}
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return {0, tonumber(oldest[2]) + period - now}
";

/// One Redis shared by every Redis-backed limit of a server: the client parsed at startup,
/// the connection opened on the first call and re-opened after Redis comes back.
pub(crate) struct RedisConnection {
    client: redis::Client,
    timeout: Duration,
    manager: OnceLock<ConnectionManager>,
    script: redis::Script,
}

impl std::fmt::Debug for RedisConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may carry a password: never print it.
        f.debug_struct("RedisConnection")
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl RedisConnection {
    /// A connection to `url` whose every round trip, connecting included, ends within
    /// `timeout`.
    pub(crate) fn open(url: &str, timeout: Duration) -> Result<Self, redis::RedisError> {
        Ok(Self {
            client: redis::Client::open(url)?,
            timeout,
            manager: OnceLock::new(),
            script: redis::Script::new(SLIDING_WINDOW),
        })
    }

    /// Longest wait for one round trip.
    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The connection manager, created on first use (it needs the Tokio runtime).
    pub(crate) fn manager(&self) -> Result<ConnectionManager, redis::RedisError> {
        if let Some(manager) = self.manager.get() {
            return Ok(manager.clone());
        }
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(self.timeout))
            .set_response_timeout(Some(self.timeout))
            // Reconnection is retried on the next call, not in a long background loop: a call
            // never waits longer than `timeout` for Redis.
            .set_number_of_retries(1)
            .set_max_delay(self.timeout);
        let manager = ConnectionManager::new_lazy_with_config(self.client.clone(), config)?;
        Ok(self.manager.get_or_init(|| manager).clone())
    }
}

/// The window of one tool in Redis.
#[derive(Debug)]
pub(crate) struct RedisWindow {
    connection: Arc<RedisConnection>,
    key: String,
    calls: u32,
    period_us: u64,
}

/// Why Redis gave no decision.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum RedisWindowError {
    /// No answer within the timeout.
    #[error("Redis did not answer within {0:?}")]
    Timeout(Duration),
    /// Redis answered with an error, or the connection failed.
    #[error("Redis: {0}")]
    Redis(String),
}

impl RedisWindow {
    /// The window of `tool` of `server` under `key_prefix`. The key's `{...}` hash tag keeps it
    /// on one slot of a Redis Cluster.
    pub(crate) fn new(
        connection: Arc<RedisConnection>,
        key_prefix: &str,
        server: &str,
        tool: &str,
        calls: u32,
        period: Duration,
    ) -> Self {
        Self {
            connection,
            key: format!("{{{key_prefix}:{server}:{tool}}}:window"),
            calls,
            period_us: u64::try_from(period.as_micros()).unwrap_or(u64::MAX),
        }
    }

    /// Admits a call (`Ok(None)`), refuses it with the time until the oldest admission leaves
    /// (`Ok(Some(retry_after))`), or reports that Redis gave no answer in time. With a
    /// `subject` the call counts in that subject's own window, keyed by the subject's digest
    /// (a subject is the token's, any string: it never becomes part of a key as written).
    pub(crate) async fn try_acquire(
        &self,
        subject: Option<&str>,
    ) -> Result<Option<Duration>, RedisWindowError> {
        let key = match subject {
            None => std::borrow::Cow::Borrowed(self.key.as_str()),
            Some(subject) => {
                let digest = harness_contract::sha256_hex(subject.as_bytes());
                std::borrow::Cow::Owned(format!("{}:subject:{digest}", self.key))
            }
        };
        let timeout = self.connection.timeout;
        let attempt = async {
            let mut manager = self.connection.manager()?;
            self.connection
                .script
                .key(key.as_ref())
                .arg(self.calls)
                .arg(self.period_us)
                .arg(uuid::Uuid::new_v4().as_simple().to_string())
                .invoke_async::<(i64, i64)>(&mut manager)
                .await
        };
        match tokio::time::timeout(timeout, attempt).await {
            Err(_) => Err(RedisWindowError::Timeout(timeout)),
            Ok(Err(error)) => Err(RedisWindowError::Redis(error.to_string())),
            Ok(Ok((1, _))) => Ok(None),
            Ok(Ok((_, retry_after_us))) => Ok(Some(Duration::from_micros(
                u64::try_from(retry_after_us).unwrap_or(0),
            ))),
        }
    }
}
