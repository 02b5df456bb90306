//! The shared rate limiter for several replicas: the same GCRA as the in-process limiter,
//! run atomically in Redis by a Lua script with Redis's own clock, so every replica draws
//! from one budget per key and per organization.
//!
//! If Redis cannot be reached, requests are admitted (and a warning logged): an outage of
//! the limiter must not take the ledger down with it.

use redis::Script;
use redis::aio::ConnectionManager;

use crate::limits::RateInfo;

/// GCRA over `KEYS[1]`: `ARGV[1]` burst size, `ARGV[2]` window in milliseconds.
/// Answers `{admitted (0/1), remaining, retry_after_ms, reset_ms}`.
const GCRA: &str = r"
local limit = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = period / limit
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local new_tat = tat + interval
local allow_at = new_tat - period
if allow_at > now then
  return {0, 0, math.ceil(allow_at - now), math.ceil(tat - now)}
end
redis.call('SET', KEYS[1], tostring(new_tat), 'PX', math.ceil(new_tat - now) + 1)
local remaining = math.floor((now - allow_at) / interval)
return {1, remaining, 0, math.ceil(new_tat - now)}
";

/// A connection to the shared limiter.
#[derive(Clone)]
pub struct RedisLimiter {
    connection: ConnectionManager,
    script: std::sync::Arc<Script>,
    prefix: String,
}

/// What one bucket said.
pub(crate) enum Verdict {
    Admitted(RateInfo),
    Refused { retry_after: u64, limit: u32 },
}

impl RedisLimiter {
    /// Connects to `url`; bucket keys start with `prefix`.
    ///
    /// # Errors
    /// When the URL is invalid or Redis does not answer.
    pub async fn connect(url: &str, prefix: &str) -> redis::RedisResult<Self> {
        let client = redis::Client::open(url)?;
        let connection = ConnectionManager::new(client).await?;
        Ok(Self {
            connection,
            script: std::sync::Arc::new(Script::new(GCRA)),
            prefix: prefix.to_owned(),
        })
    }

    /// Takes one request from bucket `name` (limit per `period_ms`); `None` when Redis failed.
    pub(crate) async fn check(&self, name: &str, limit: u32, period_ms: u64) -> Option<Verdict> {
        let mut connection = self.connection.clone();
        let key = format!("{}:{name}", self.prefix);
        let answer: redis::RedisResult<(i64, i64, i64, i64)> = self
            .script
            .key(key)
            .arg(limit.max(1))
            .arg(period_ms)
            .invoke_async(&mut connection)
            .await;
        match answer {
            Ok((admitted, remaining, retry_ms, reset_ms)) => {
                let now = crate::limits::unix_now();
                let ceil_secs = |ms: i64| u64::try_from(ms.max(0)).unwrap_or(0).div_ceil(1000);
                Some(if admitted == 1 {
                    Verdict::Admitted(RateInfo {
                        limit,
                        remaining: u32::try_from(remaining.max(0)).unwrap_or(0),
                        reset: now + ceil_secs(reset_ms),
                    })
                } else {
                    Verdict::Refused {
                        retry_after: ceil_secs(retry_ms).max(1),
                        limit,
                    }
                })
            }
            Err(e) => {
                tracing::warn!(error = %e, "rate limiter: Redis failed; admitting the request");
                None
            }
        }
    }
}
