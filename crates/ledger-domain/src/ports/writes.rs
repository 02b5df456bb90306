//! What every write carries: its `Idempotency-Key` record, the credits it takes, and
//! whether it happened or replayed an earlier outcome.

use std::future::Future;

use time::OffsetDateTime;

use super::{StoreResult, Tenant};
use crate::events::Event;

/// A record of an `Idempotency-Key` use, stored in the same transaction as the write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyRecord {
    pub organization_id: String,
    pub livemode: bool,
    pub key: String,
    /// SHA-256 hex of method, path and body.
    pub request_hash: String,
    /// The job the request created (queued writes).
    pub job_id: Option<String>,
    /// The rendered result of a synchronous write (its view), replayed as it was.
    pub result: Option<serde_json::Value>,
    pub created_at: OffsetDateTime,
}

/// How long an `Idempotency-Key` answers with its first outcome (DECISIONS 4: 24 hours).
/// After it, the key is free again: a new request with it is a new write.
pub const IDEMPOTENCY_WINDOW: time::Duration = time::Duration::hours(24);

impl IdempotencyRecord {
    /// Records of the same key made at or before this instant have left the window: the
    /// store replaces them instead of replaying them.
    pub fn stale_before(&self) -> OffsetDateTime {
        self.created_at - IDEMPOTENCY_WINDOW
    }

    /// Whether `earlier`, a stored record of the same key, is still answered instead of
    /// this one (it is within the window).
    pub fn replays(&self, earlier: &IdempotencyRecord) -> bool {
        earlier.created_at > self.stale_before()
    }
}

/// A write that carries an idempotency record either happened, or the key was already
/// used and the first record is returned instead (nothing was written).
#[derive(Debug, Clone, PartialEq)]
pub enum Written<T> {
    Done(T),
    Replay(IdempotencyRecord),
}

impl<T> Written<T> {
    /// The written value turned by `f`; a replay stays the replay.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Written<U> {
        match self {
            Self::Done(value) => Written::Done(f(value)),
            Self::Replay(first) => Written::Replay(first),
        }
    }
}

/// Credits to take for a write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreditCharge {
    /// The organization whose pool pays (the root of the caller's organization).
    pub pool_id: String,
    pub livemode: bool,
    pub credits: i64,
}

/// What an audited write stores with its rows, in the same transaction: the event that
/// records it, the record of its `Idempotency-Key` (carrying the answer it replays), and
/// the credits it takes. The store runs the steps in one order for every write: replay a
/// key already used (nothing is written), take the credits (`CreditsShort` refuses the
/// write), write the rows, insert the event.
#[derive(Debug, Clone, PartialEq)]
pub struct Audit {
    pub event: Event,
    pub idempotency: Option<IdempotencyRecord>,
    pub charge: Option<CreditCharge>,
}

impl Audit {
    /// An audit of `event` with no key and no price (set-up writes and tests).
    pub fn of(event: Event) -> Self {
        Self {
            event,
            idempotency: None,
            charge: None,
        }
    }
}

/// Idempotency records.
pub trait IdempotencyRecords: Send + Sync + 'static {
    /// The record of `key` in the tenant, if one was made after `since`.
    fn find_idempotency(
        &self,
        tenant: &Tenant,
        key: &str,
        since: OffsetDateTime,
    ) -> impl Future<Output = StoreResult<Option<IdempotencyRecord>>> + Send;
}
