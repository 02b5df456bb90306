//! Rate limits (DECISIONS 3): a token bucket per API key (live 1000/min, test 100/min by
//! default), one per organization (10 000/min) and one for `/system` (60/hour), all
//! configurable. In-process by default (governor's GCRA, equivalent to a token bucket);
//! with `REDIS_URL` the same algorithm runs in Redis, shared by every replica.
//!
//! The tightest bucket's figures go to the `X-RateLimit-*` headers of the response.

use std::num::NonZeroU32;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use actix_web::HttpMessage;
use actix_web::HttpRequest;
use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};
use ledger_domain::DomainError;
use ledger_domain::services::Principal;

use crate::limits_redis::{RedisLimiter, Verdict};

/// Requests allowed per window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitConfig {
    pub live_per_minute: u32,
    pub test_per_minute: u32,
    pub organization_per_minute: u32,
    pub system_per_hour: u32,
    /// Requests per minute of one client address to each unauthenticated endpoint of
    /// the authorization server (`/register`, `/token`, the sign-ins).
    pub auth_per_minute: u32,
}

impl Default for LimitConfig {
    fn default() -> Self {
        Self {
            live_per_minute: 1000,
            test_per_minute: 100,
            organization_per_minute: 10_000,
            system_per_hour: 60,
            auth_per_minute: 30,
        }
    }
}

/// What the response headers say about the caller's budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateInfo {
    pub limit: u32,
    pub remaining: u32,
    /// Unix seconds when the bucket is full again.
    pub reset: u64,
}

struct Bucket {
    limiter: RateLimiter<
        String,
        DefaultKeyedStateStore<String>,
        DefaultClock,
        StateInformationMiddleware,
    >,
    limit: u32,
    period: Duration,
}

impl Bucket {
    fn new(limit: u32, period: Duration) -> Self {
        let burst = NonZeroU32::new(limit.max(1)).unwrap_or(NonZeroU32::MIN);
        let quota = Quota::with_period(period / burst.get())
            .unwrap_or_else(|| Quota::per_second(burst))
            .allow_burst(burst);
        Self {
            limiter: RateLimiter::dashmap(quota).with_middleware::<StateInformationMiddleware>(),
            limit: burst.get(),
            period,
        }
    }

    fn check(&self, key: &str) -> Result<RateInfo, DomainError> {
        let now = unix_now();
        let per_token = self.period / self.limit;
        match self.limiter.check_key(&key.to_owned()) {
            Ok(snapshot) => {
                let remaining = snapshot.remaining_burst_capacity();
                let refill = per_token * (self.limit - remaining.min(self.limit));
                Ok(RateInfo {
                    limit: self.limit,
                    remaining,
                    reset: now + refill.as_secs() + u64::from(refill.subsec_nanos() > 0),
                })
            }
            Err(not_until) => {
                let wait = not_until.wait_time_from(DefaultClock::default().now());
                Err(DomainError::RateLimited {
                    retry_after: wait.as_secs() + u64::from(wait.subsec_nanos() > 0),
                })
            }
        }
    }
}

/// Answers a bucket check, recording its figures on the request for the headers: the
/// admitted request's, or a refused one's (`limit`, none left until `retry_after`).
fn record(
    req: &HttpRequest,
    checked: Result<Option<RateInfo>, (DomainError, u32)>,
) -> Result<(), DomainError> {
    match checked {
        Ok(Some(info)) => {
            req.extensions_mut().insert(info);
            Ok(())
        }
        Ok(None) => Ok(()),
        Err((error, limit)) => {
            if let DomainError::RateLimited { retry_after } = &error {
                req.extensions_mut().insert(RateInfo {
                    limit,
                    remaining: 0,
                    reset: unix_now() + retry_after,
                });
            }
            Err(error)
        }
    }
}

/// Seconds since the Unix epoch.
pub(crate) fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Where the buckets live.
enum Backend {
    Local(Box<LocalBuckets>),
    Redis(RedisLimiter),
}

struct LocalBuckets {
    live: Bucket,
    test: Bucket,
    organization: Bucket,
    system: Bucket,
    auth: Bucket,
}

/// The process's rate limiters.
pub struct RateLimits {
    config: LimitConfig,
    backend: Backend,
}

impl RateLimits {
    /// In-process limiters with these budgets.
    pub fn new(config: LimitConfig) -> Self {
        let minute = Duration::from_secs(60);
        Self {
            config,
            backend: Backend::Local(Box::new(LocalBuckets {
                live: Bucket::new(config.live_per_minute, minute),
                test: Bucket::new(config.test_per_minute, minute),
                organization: Bucket::new(config.organization_per_minute, minute),
                system: Bucket::new(config.system_per_hour, Duration::from_secs(3600)),
                auth: Bucket::new(config.auth_per_minute, minute),
            })),
        }
    }

    /// Limiters shared by every replica through Redis.
    pub fn shared(config: LimitConfig, redis: RedisLimiter) -> Self {
        Self {
            config,
            backend: Backend::Redis(redis),
        }
    }

    /// Takes one request from the key's and the organization's buckets (the `/system`
    /// bucket instead of the key's when `system` is set) and records the figures on the
    /// request for the headers.
    ///
    /// # Errors
    /// `rate_limit_exceeded` with the seconds until the next request is admitted.
    pub async fn admit(
        &self,
        req: &HttpRequest,
        principal: &Principal,
        system: bool,
    ) -> Result<(), DomainError> {
        let (key_limit, key_period) = if system {
            (self.config.system_per_hour, Duration::from_secs(3600))
        } else if principal.key.livemode {
            (self.config.live_per_minute, Duration::from_secs(60))
        } else {
            (self.config.test_per_minute, Duration::from_secs(60))
        };
        let key_name = format!(
            "{}:{}",
            if system { "system" } else { "key" },
            principal.key.id
        );
        let org_name = format!("org:{}", principal.organization.id);
        let checked: Result<Option<RateInfo>, (DomainError, u32)> = match &self.backend {
            Backend::Local(local) => {
                let LocalBuckets {
                    live,
                    test,
                    organization,
                    system: system_bucket,
                    ..
                } = &**local;
                let bucket = if system {
                    system_bucket
                } else if principal.key.livemode {
                    live
                } else {
                    test
                };
                match bucket.check(&principal.key.id) {
                    Err(e) => Err((e, bucket.limit)),
                    Ok(key_info) => match organization.check(&principal.organization.id) {
                        Err(e) => Err((e, organization.limit)),
                        Ok(org_info) => Ok(Some(tighter(key_info, org_info))),
                    },
                }
            }
            Backend::Redis(redis) => {
                let minute_ms = 60_000;
                match redis
                    .check(&key_name, key_limit, key_period.as_millis() as u64)
                    .await
                {
                    None => Ok(None),
                    Some(Verdict::Refused { retry_after, limit }) => {
                        Err((DomainError::RateLimited { retry_after }, limit))
                    }
                    Some(Verdict::Admitted(key_info)) => {
                        match redis
                            .check(&org_name, self.config.organization_per_minute, minute_ms)
                            .await
                        {
                            None => Ok(Some(key_info)),
                            Some(Verdict::Refused { retry_after, limit }) => {
                                Err((DomainError::RateLimited { retry_after }, limit))
                            }
                            Some(Verdict::Admitted(org_info)) => {
                                Ok(Some(tighter(key_info, org_info)))
                            }
                        }
                    }
                }
            }
        };
        record(req, checked)
    }

    /// Takes one request from the bucket of `client` (an address) at the unauthenticated
    /// authorization-server endpoint `endpoint` (`register`, `token`, `signin`, ...),
    /// and records the figures on the request for the headers.
    ///
    /// # Errors
    /// `rate_limit_exceeded` with the seconds until the next request is admitted.
    pub async fn admit_anonymous(
        &self,
        req: &HttpRequest,
        endpoint: &str,
        client: &str,
    ) -> Result<(), DomainError> {
        let name = format!("auth:{endpoint}:{client}");
        let limit = self.config.auth_per_minute;
        let checked = match &self.backend {
            Backend::Local(local) => local.auth.check(&name).map(Some),
            Backend::Redis(redis) => match redis.check(&name, limit, 60_000).await {
                None => Ok(None),
                Some(Verdict::Refused { retry_after, .. }) => {
                    Err(DomainError::RateLimited { retry_after })
                }
                Some(Verdict::Admitted(info)) => Ok(Some(info)),
            },
        };
        record(req, checked.map_err(|error| (error, limit)))
    }

    /// Forgets in-process buckets that are full again, to bound memory.
    pub fn shrink(&self) {
        if let Backend::Local(local) = &self.backend {
            let LocalBuckets {
                live,
                test,
                organization,
                system,
                auth,
            } = &**local;
            for bucket in [live, test, organization, system, auth] {
                bucket.limiter.retain_recent();
                bucket.limiter.shrink_to_fit();
            }
        }
    }
}

fn tighter(a: RateInfo, b: RateInfo) -> RateInfo {
    if b.remaining < a.remaining { b } else { a }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_admits_its_burst_then_refuses() {
        let bucket = Bucket::new(3, Duration::from_secs(60));
        let first = bucket.check("k").expect("first");
        assert_eq!((first.limit, first.remaining), (3, 2));
        assert!(bucket.check("k").is_ok());
        assert_eq!(bucket.check("k").map(|i| i.remaining), Ok(0));
        match bucket.check("k") {
            Err(DomainError::RateLimited { retry_after }) => {
                assert!((1..=20).contains(&retry_after), "{retry_after}")
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
        // Another key has its own bucket.
        assert!(bucket.check("other").is_ok());
    }
}
