//! Credit pools, packages, the monthly reset and purchases (spec 2.2, 8; issue 19).
//!
//! A root organization's live credit pool is one balance (`credits_remaining`) made of a
//! monthly allowance, which resets without roll-over, and purchased credits, which survive
//! the reset. Writes draw on the allowance first. The pool keeps only an upper bound of
//! its purchased part (`credits_purchased`, as of its last grant): charges never touch
//! it, and the purchased credits left are `min(credits_purchased, credits_remaining)`
//! (see [`purchased_left`]), so the per-write charge stays one conditional decrement.
//!
//! Every change of a balance is a row of the credit ledger ([`LedgerEntry`]): grants at
//! sign-up, charges, refunds, resets and purchases. The rows of a pool sum to its
//! balance at every commit.

use time::{Date, Month, OffsetDateTime, Time};

use crate::error::{DomainError, DomainResult};
use crate::ids::names;

/// The billing record of an organization's credit pool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Billing {
    /// The root organization whose pool pays.
    pub pool_id: String,
    pub credits_remaining: i64,
    pub credits_total: i64,
    pub test_credits_used: i64,
    pub auto_recharge_enabled: bool,
    /// The e-mail of the pool owner.
    pub billing_email: String,
}

/// A package of credits a client can buy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreditPackage {
    /// `credits_<n>`.
    pub id: String,
    pub credits: i64,
    /// Price in US cents.
    pub price_cents: i64,
}

/// The currency of package prices (ISO 4217, lowercase as payment providers write it).
pub const PRICE_CURRENCY: &str = "usd";

/// The default packages, `credits:price_cents` (one credit is one cent; larger packages
/// are discounted by 10 and 20 per cent).
pub const DEFAULT_PACKAGES: &str = "1000:1000,5000:4500,20000:16000";

/// The free credits of a pool each month.
pub const DEFAULT_MONTHLY_CREDITS: i64 = 500;

/// How long a checkout can be completed.
pub const CHECKOUT_EXPIRY: time::Duration = time::Duration::hours(1);

/// Parses packages written `credits:price_cents` separated by commas.
///
/// # Errors
/// A message naming the first malformed package (a positive credit count and a positive
/// price are required; counts must be distinct).
pub fn parse_packages(text: &str) -> Result<Vec<CreditPackage>, String> {
    let mut packages: Vec<CreditPackage> = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (credits, price) = part
            .split_once(':')
            .ok_or_else(|| format!("'{part}': expected credits:price_cents"))?;
        let credits: i64 = credits
            .trim()
            .parse()
            .map_err(|_| format!("'{part}': credits must be an integer"))?;
        let price_cents: i64 = price
            .trim()
            .parse()
            .map_err(|_| format!("'{part}': price_cents must be an integer"))?;
        if credits <= 0 || price_cents <= 0 {
            return Err(format!("'{part}': credits and price must be positive"));
        }
        if packages.iter().any(|p| p.credits == credits) {
            return Err(format!("'{part}': two packages of {credits} credits"));
        }
        packages.push(CreditPackage {
            id: format!("credits_{credits}"),
            credits,
            price_cents,
        });
    }
    if packages.is_empty() {
        return Err("no credit package given".into());
    }
    packages.sort_by_key(|p| p.credits);
    Ok(packages)
}

/// The default packages.
pub fn default_packages() -> Vec<CreditPackage> {
    parse_packages(DEFAULT_PACKAGES).unwrap_or_default()
}

/// The billing period of an instant: its UTC month, `YYYY-MM`.
pub fn period_of(at: OffsetDateTime) -> String {
    format!("{:04}-{:02}", at.year(), u8::from(at.month()))
}

/// When the period after the one of `at` starts (the next reset).
pub fn next_period_start(at: OffsetDateTime) -> OffsetDateTime {
    let (year, month) = match at.month() {
        Month::December => (at.year() + 1, Month::January),
        m => (at.year(), m.next()),
    };
    Date::from_calendar_date(year, month, 1)
        .map(|d| d.with_time(Time::MIDNIGHT).assume_utc())
        .unwrap_or(at)
}

/// Purchased credits left in a pool holding `remaining` whose purchased part was
/// `purchased` at its last grant (charges draw on the allowance first).
pub fn purchased_left(purchased: i64, remaining: i64) -> i64 {
    purchased.min(remaining).max(0)
}

/// A pool after its monthly reset: the purchased credits left survive, the allowance
/// starts again at `allowance`, nothing else rolls over. Returns (remaining, purchased).
pub fn after_reset(remaining: i64, purchased: i64, allowance: i64) -> (i64, i64) {
    let kept = purchased_left(purchased, remaining);
    (kept + allowance, kept)
}

/// A pool after `credits` were bought. Returns (remaining, purchased).
pub fn after_purchase(remaining: i64, purchased: i64, credits: i64) -> (i64, i64) {
    (
        remaining + credits,
        purchased_left(purchased, remaining) + credits,
    )
}

/// What a credit-ledger row records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LedgerKind {
    /// The balance a pool had when the ledger started (migration).
    Opening,
    /// Free credits at sign-up.
    Grant,
    /// Credits taken by writes (one row per write, or per pool and group commit).
    Charge,
    /// Credits given back (a queued write that failed).
    Refund,
    /// The monthly reset (signed: the change it made).
    Reset,
    /// Bought credits.
    Purchase,
}

names!(
    LedgerKind,
    exact,
    {
        Opening => "opening",
        Grant => "grant",
        Charge => "charge",
        Refund => "refund",
        Reset => "reset",
        Purchase => "purchase",
    }
);

/// The ledger row id of a pool's reset for `period`: one per pool and month (the row's
/// primary key is the unique key that makes resets exactly-once across replicas).
pub fn reset_entry_id(period: &str) -> String {
    format!("reset_{period}")
}

/// The ledger row id of the sign-up grant.
pub const GRANT_ENTRY_ID: &str = "grant_signup";

/// One row of a pool's credit ledger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerEntry {
    pub organization_id: String,
    pub id: String,
    pub kind: LedgerKind,
    /// Signed: positive adds to the balance.
    pub credits: i64,
    /// What it is about (a job, a purchase, a period).
    pub reference: Option<String>,
    pub created_at: OffsetDateTime,
}

/// A root organization's live credit pool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreditPool {
    pub organization_id: String,
    pub credits_remaining: i64,
    /// What the pool held this period: its balance after the last reset plus purchases.
    pub credits_total: i64,
    /// Purchased credits left.
    pub purchased_remaining: i64,
    /// The period of the last reset (or sign-up), `YYYY-MM`.
    pub period: String,
}

/// State of a purchase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PurchaseStatus {
    Pending,
    Completed,
    /// Pending past `expires_at` (read so; never stored).
    Expired,
}

names!(
    PurchaseStatus,
    exact,
    {
        Pending => "pending",
        Completed => "completed",
        Expired => "expired",
    }
);

/// A purchase of a credit package through a hosted checkout.
#[derive(Debug, Clone, PartialEq)]
pub struct CreditPurchase {
    pub id: String,
    /// The organization the purchase was made in (its tenant).
    pub organization_id: String,
    pub livemode: bool,
    /// The root whose pool receives the credits (live mode only).
    pub pool_id: String,
    pub package_id: String,
    pub credits: i64,
    pub price_cents: i64,
    pub currency: String,
    /// `dev` or `stripe`.
    pub provider: String,
    /// The provider's checkout session id.
    pub provider_session_id: Option<String>,
    pub checkout_url: String,
    pub status: PurchaseStatus,
    pub success_url: Option<String>,
    pub cancel_url: Option<String>,
    pub api_key_id: String,
    pub expires_at: OffsetDateTime,
    pub created_at: OffsetDateTime,
    pub completed_at: Option<OffsetDateTime>,
}

impl CreditPurchase {
    /// The status as read at `now`: a pending purchase past its expiry reads `expired`.
    pub fn status_at(&self, now: OffsetDateTime) -> PurchaseStatus {
        match self.status {
            PurchaseStatus::Pending if now >= self.expires_at => PurchaseStatus::Expired,
            s => s,
        }
    }
}

/// Checks a client's return URL (`success_url`, `cancel_url`): absolute http(s).
///
/// # Errors
/// `invalid_field` on `field`.
pub fn check_return_url(field: &str, url: Option<String>) -> DomainResult<Option<String>> {
    let Some(url) = url.map(|u| u.trim().to_owned()).filter(|u| !u.is_empty()) else {
        return Ok(None);
    };
    // Kept as given and sent back to the client's browser: it must read alike to every
    // URL parser (a host name or address, no backslash or control character).
    if url.len() <= 2048 && crate::urls::is_portable_http_url(&url) {
        Ok(Some(url))
    } else {
        Err(DomainError::invalid_field(
            field,
            "must be an absolute http(s) URL with a valid host, of at most 2048 characters",
        ))
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    #[test]
    fn return_urls_read_alike_to_every_parser() {
        for good in [
            "https://example.com/paid?session={ID}",
            "http://localhost:3000/return",
            "http://127.0.0.1/x",
        ] {
            assert_eq!(
                check_return_url("success_url", Some(good.into())),
                Ok(Some(good.to_owned()))
            );
        }
        assert_eq!(check_return_url("success_url", Some("  ".into())), Ok(None));
        // schemathesis' seed 5 sent the first: accepted before, and Python's urlsplit
        // then failed on it in our answer ("Invalid IPv6 URL").
        for bad in [
            "http://\u{e3}E]\u{cf}<W",
            "http://a\\[b",
            "https://",
            "ftp://example.com",
            "https://exa mple.com",
        ] {
            assert!(
                check_return_url("cancel_url", Some(bad.into())).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn packages_parse_and_sort() {
        let p = default_packages();
        assert_eq!(
            p.iter()
                .map(|p| (p.credits, p.price_cents))
                .collect::<Vec<_>>(),
            vec![(1000, 1000), (5000, 4500), (20000, 16000)]
        );
        assert_eq!(p[0].id, "credits_1000");
        assert!(parse_packages("").is_err());
        assert!(parse_packages("10").is_err());
        assert!(parse_packages("10:0").is_err());
        assert!(parse_packages("10:1,10:2").is_err());
        assert_eq!(parse_packages(" 20:3 , 10:1 ").expect("ok")[0].credits, 10);
    }

    #[test]
    fn periods() {
        assert_eq!(period_of(datetime!(2026-12-31 23:59 UTC)), "2026-12");
        assert_eq!(
            next_period_start(datetime!(2026-12-31 23:59 UTC)),
            datetime!(2027-01-01 0:00 UTC)
        );
        assert_eq!(
            next_period_start(datetime!(2026-02-10 0:00 UTC)),
            datetime!(2026-03-01 0:00 UTC)
        );
        assert!("2026-11" < "2026-12" && "2026-12" < "2027-01");
    }

    #[test]
    fn resets_keep_purchased_credits_and_drop_the_rest() {
        // 500 free, 1000 bought, 200 spent: the allowance went first.
        let (remaining, purchased) = after_purchase(500, 0, 1000);
        assert_eq!((remaining, purchased), (1500, 1000));
        let remaining = remaining - 200;
        assert_eq!(purchased_left(purchased, remaining), 1000);
        assert_eq!(after_reset(remaining, purchased, 500), (1500, 1000));
        // Next month 700 spent from 1500: the 500 free, then 200 bought.
        let remaining = 1500 - 700;
        assert_eq!(purchased_left(1000, remaining), 800);
        assert_eq!(after_reset(remaining, 1000, 500), (1300, 800));
        // Nothing bought: the allowance only, whatever was left.
        assert_eq!(after_reset(12, 0, 500), (500, 0));
        assert_eq!(after_reset(0, 0, 500), (500, 0));
        // A purchase after the pool ran dry counts only what is left.
        assert_eq!(after_purchase(0, 1000, 50), (50, 50));
    }
}

/// The balance of a pool as a client reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreditBalance {
    pub pool: CreditPool,
    pub monthly_allowance: i64,
    pub test_credits_used: i64,
    pub next_reset_at: OffsetDateTime,
}
