//! Period locks (issue 17): a tenant's `period_lock_date` setting closes its books up to
//! and including that date, as the "closing date" of Xero and QuickBooks does.
//!
//! Nothing dated inside a closed period changes: a write that would post, change or
//! reverse something dated on or before the lock is refused `period_locked`. The rule is
//! decided here, once for every interface, twice per write: when the write is validated
//! (a refused write never enters the queue) and again when its job is decided (a lock set
//! after the write was accepted still holds, and the failed job is refunded like any
//! other refusal). Writes that post nothing (a pending transaction, a draft, deleting a
//! pending transaction) are not locked.

use time::{Date, OffsetDateTime, UtcOffset};

use crate::error::{DomainError, DomainResult};
use crate::ports::{Store, Tenant};
use crate::views;

use super::Ledger;

/// The setting holding the lock date (`YYYY-MM-DD`; empty when there is no lock).
pub const PERIOD_LOCK_SETTING: &str = "period_lock_date";

/// Something a write would touch, with the date it is booked on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dated {
    /// How the refusal names it ("the transaction", "the reversal", ...).
    pub what: &'static str,
    pub date: Date,
}

impl Dated {
    /// `what`, booked on the UTC day of `at`.
    pub fn at(what: &'static str, at: OffsetDateTime) -> Self {
        Self {
            what,
            date: at.to_offset(UtcOffset::UTC).date(),
        }
    }

    /// `what`, booked on `date`.
    pub fn on(what: &'static str, date: Date) -> Self {
        Self { what, date }
    }
}

/// A lock date as stored or sent: exactly `YYYY-MM-DD`.
fn parse_lock_date(text: &str) -> Option<Date> {
    crate::dates::parse_day(text)
}

/// The value to store for `period_lock_date`: the date as `YYYY-MM-DD`, or empty (no
/// lock) for null or blank text.
///
/// # Errors
/// `invalid_field` on anything else.
pub(super) fn check_lock_value(value: Option<&str>) -> DomainResult<String> {
    match value.map(str::trim) {
        None | Some("") => Ok(String::new()),
        Some(text) => parse_lock_date(text).map(views::date).ok_or_else(|| {
            DomainError::inconsistent(
                "value",
                "period_lock_date must be a date (YYYY-MM-DD), or null or empty to clear the lock",
            )
        }),
    }
}

/// Refuses when any of `touched` is dated on or before `lock`.
///
/// # Errors
/// `period_locked`, naming the first thing inside the closed period.
pub(crate) fn check_open(lock: Option<Date>, touched: &[Dated]) -> DomainResult<()> {
    let Some(lock) = lock else {
        return Ok(());
    };
    match touched.iter().find(|t| t.date <= lock) {
        Some(inside) => Err(DomainError::PeriodLocked {
            lock_date: views::date(lock),
            what: inside.what,
            date: views::date(inside.date),
        }),
        None => Ok(()),
    }
}

impl<S: Store> Ledger<S> {
    /// The tenant's lock date, if it has one, read from the store. A value stored before
    /// the setting was checked that is not a date reads as no lock.
    ///
    /// # Errors
    /// Storage failures.
    pub(crate) async fn period_lock(&self, tenant: &Tenant) -> DomainResult<Option<Date>> {
        let lock = self
            .store
            .get_setting(tenant, PERIOD_LOCK_SETTING)
            .await?
            .and_then(|s| parse_lock_date(&s.value));
        self.lock_cache.put(lock_key(tenant), lock);
        Ok(lock)
    }

    /// Refuses a write of the tenant that touches something dated on or before its lock,
    /// when the write is validated. A copy of the lock read in the last
    /// `LedgerConfig::account_cache_ttl` will do: the job's decision checks again against
    /// the store ([`Self::recheck_period_open`]), and a lock set through this process
    /// replaces the copy at once.
    ///
    /// # Errors
    /// `period_locked`; storage failures.
    pub(crate) async fn check_period_open(
        &self,
        tenant: &Tenant,
        touched: &[Dated],
    ) -> DomainResult<()> {
        if touched.is_empty() {
            return Ok(());
        }
        let lock = match self.lock_cache.get(&lock_key(tenant)) {
            Some(copy) => copy,
            None => self.period_lock(tenant).await?,
        };
        check_open(lock, touched)
    }

    /// The same refusal when a write's job is decided, against the lock as stored now:
    /// a lock set after the write was accepted, by any process, still holds.
    ///
    /// # Errors
    /// `period_locked`; storage failures.
    pub(crate) async fn recheck_period_open(
        &self,
        tenant: &Tenant,
        touched: &[Dated],
    ) -> DomainResult<()> {
        if touched.is_empty() {
            return Ok(());
        }
        check_open(self.period_lock(tenant).await?, touched)
    }

    /// Forgets the copy of the tenant's lock (its setting was just written).
    pub(crate) fn forget_period_lock(&self, tenant: &Tenant) {
        self.lock_cache.forget(&lock_key(tenant));
    }
}

/// The key of a tenant's lock in `Ledger::lock_cache`.
pub(crate) type LockKey = (String, bool);

fn lock_key(tenant: &Tenant) -> LockKey {
    (tenant.organization_id.clone(), tenant.livemode)
}

#[cfg(test)]
mod tests {
    use time::macros::{date, datetime};

    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn lock_values() {
        assert_eq!(
            check_lock_value(Some("2026-01-31")).expect("a date"),
            "2026-01-31"
        );
        assert_eq!(
            check_lock_value(Some(" 2026-01-31 ")).expect("trimmed"),
            "2026-01-31"
        );
        assert_eq!(check_lock_value(None).expect("null clears"), "");
        assert_eq!(check_lock_value(Some("  ")).expect("blank clears"), "");
        for bad in [
            "2026-02-30",
            "2026-1-31",
            "31/01/2026",
            "2026-01-31T00:00:00Z",
            "yes",
        ] {
            let err = check_lock_value(Some(bad)).expect_err(bad);
            assert_eq!(err.code(), ErrorCode::InconsistentFields, "{bad}");
        }
    }

    #[test]
    fn the_lock_date_itself_is_closed() {
        let lock = Some(date!(2026 - 01 - 31));
        let on = Dated::at("the transaction", datetime!(2026-01-31 23:59 UTC));
        let after = Dated::at("the transaction", datetime!(2026-02-01 00:00 UTC));
        // A date-time is booked on its UTC day.
        let late = Dated::at("the transaction", datetime!(2026-02-01 01:00 +02:00));
        assert!(check_open(lock, &[after]).is_ok());
        assert!(check_open(None, &[on]).is_ok());
        for closed in [on, late] {
            let err = check_open(lock, &[after, closed]).expect_err("closed");
            assert_eq!(err.code(), ErrorCode::PeriodLocked);
            assert_eq!(
                err.details(),
                Some(serde_json::json!({ "lock_date": "2026-01-31" }))
            );
        }
        let stored =
            DomainError::from_stored(&check_open(lock, &[on]).expect_err("closed").to_stored());
        assert_eq!(stored.code(), ErrorCode::PeriodLocked);
        assert_eq!(
            stored.details(),
            Some(serde_json::json!({ "lock_date": "2026-01-31" }))
        );
    }
}
