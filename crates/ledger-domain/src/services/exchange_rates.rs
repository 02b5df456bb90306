//! Currencies and exchange rates (spec 2.9, 4.11; DECISIONS 10): the global currency
//! list, the organization's rates (create, read, list, update, soft delete), the rate
//! that applies to a pair on a date, and conversions.
//!
//! Rate writes are synchronous and cost [`super::WRITE_CREDITS`], taken in the write's
//! own database transaction; conversions are reads and cost nothing. The arithmetic lives
//! in [`crate::exchange`].

use serde_json::Value;
use time::Date;

use crate::dates::check_day;
use crate::error::{DomainError, DomainResult, ErrorCode};
use crate::exchange::{
    AppliedRate, Conversion, ExchangeRate, RateSource, RateTextError, inverse_rate, parse_currency,
    parse_rate,
};
use crate::ids::{IdKind, new_id};
use crate::money::{AmountError, Currency, parse_units};
use crate::ports::{ExchangeRateFilter, Page, PageRequest, Store, Tenant, Written};

use super::accounts::{not_found, tenant_reads};
use super::deletions::Removal;
use super::{Access, Ledger, WriteOptions};

/// Fields of a new exchange rate, as a client gave them: currencies by id (`cur_EUR`)
/// or ISO code, the rate as exact decimal text, the date as `YYYY-MM-DD`.
#[derive(Debug, Clone, Default)]
pub struct NewExchangeRateInput {
    pub from_currency: String,
    pub to_currency: String,
    pub rate: String,
    pub effective_date: String,
}

/// Fields an update may change; `None` keeps the value. The pair is fixed at creation.
#[derive(Debug, Clone, Default)]
pub struct ExchangeRateChanges {
    pub rate: Option<String>,
    pub effective_date: Option<String>,
}

/// A conversion as a client asked for it (`POST /currencies/convert`).
#[derive(Debug, Clone, Default)]
pub struct ConversionInput {
    pub from_currency: String,
    pub to_currency: String,
    /// Exact decimal text, at most the source currency's decimals.
    pub amount: String,
    /// `YYYY-MM-DD`; today (UTC) when absent.
    pub date: Option<String>,
}

/// The currency named by `text` (id or code), refusing anything else on `field`.
fn check_currency(text: &str, field: &str) -> DomainResult<Currency> {
    parse_currency(text).ok_or_else(|| {
        DomainError::invalid_field(
            field,
            "must be an ISO 4217 currency code (USD) or a currency id (cur_USD)",
        )
    })
}

fn check_rate(text: &str) -> DomainResult<String> {
    parse_rate(text).map_err(|e| {
        let why = match e {
            RateTextError::NotANumber => "must be a decimal number such as 1.0825",
            RateTextError::NotPositive => "must be greater than zero",
            RateTextError::TooManyDecimals => "must have at most 12 decimal places",
            RateTextError::TooLarge => "must be less than 1000000000000",
        };
        DomainError::invalid_field("rate", why)
    })
}

/// The currency of a global read by id or code; `resource_not_found` otherwise.
///
/// # Errors
/// `resource_not_found` (resource `currency`) for anything that names no ISO 4217
/// currency with a minor unit.
pub fn find_currency(id_or_code: &str) -> DomainResult<Currency> {
    parse_currency(id_or_code).ok_or_else(|| not_found("currency", id_or_code))
}

impl<S: Store> Ledger<S> {
    tenant_reads! {
        /// Reads an exchange rate of the tenant.
        ///
        /// # Errors
        /// `resource_not_found` when it does not exist in the tenant or is deleted.
        pub fn get_exchange_rate(id) -> ExchangeRate:
            ExchangeRate, "exchange_rate", get_exchange_rate;
    }

    /// Lists the tenant's rates, newest effective date first, optionally of one source
    /// or target currency (by id or code).
    ///
    /// # Errors
    /// `invalid_field` on `from_currency` or `to_currency`.
    pub async fn list_exchange_rates(
        &self,
        access: &Access,
        from_currency: Option<&str>,
        to_currency: Option<&str>,
        page: PageRequest,
    ) -> DomainResult<Page<ExchangeRate>> {
        let filter = ExchangeRateFilter {
            from_currency: from_currency
                .map(|c| check_currency(c, "from_currency").map(|c| c.code()))
                .transpose()?,
            to_currency: to_currency
                .map(|c| check_currency(c, "to_currency").map(|c| c.code()))
                .transpose()?,
        };
        Ok(self
            .store
            .list_exchange_rates(&access.tenant, &filter, page)
            .await?)
    }

    /// Creates an exchange rate (synchronous write, one credit).
    ///
    /// # Errors
    /// Validation errors (`from_currency_id`, `to_currency_id`, `rate`,
    /// `effective_date`); `duplicate_value` on `effective_date` when a live rate of the
    /// pair has that date; `insufficient_credits`.
    pub(crate) async fn create_exchange_rate(
        &self,
        access: &Access,
        input: NewExchangeRateInput,
        options: WriteOptions,
    ) -> DomainResult<Written<ExchangeRate>> {
        let from = check_currency(&input.from_currency, "from_currency_id")?;
        let to = check_currency(&input.to_currency, "to_currency_id")?;
        if from == to {
            return Err(DomainError::inconsistent(
                "to_currency_id",
                "must differ from from_currency_id",
            ));
        }
        let rate = check_rate(&input.rate)?;
        let effective_date = check_day(&input.effective_date, "effective_date")?;
        let now = self.now();
        let record = ExchangeRate {
            id: new_id(IdKind::ExchangeRate),
            organization_id: access.tenant.organization_id.clone(),
            livemode: access.tenant.livemode,
            from_currency: from.code(),
            to_currency: to.code(),
            rate,
            effective_date,
            created_at: now,
            updated_at: now,
        };
        let view = crate::views::exchange_rate(&record);
        let audit = self.created_audit(access, options, "exchange_rate", &record.id, &view);
        Ok(self.store.insert_exchange_rate(record, audit).await?)
    }

    /// Changes the rate or the effective date (synchronous write, one credit).
    ///
    /// # Errors
    /// `resource_not_found`, validation errors, `duplicate_value` on `effective_date`,
    /// `insufficient_credits`.
    pub(crate) async fn update_exchange_rate(
        &self,
        access: &Access,
        id: &str,
        changes: ExchangeRateChanges,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let before = self.get_exchange_rate(access, id).await?;
        let mut record = before.clone();
        if let Some(rate) = changes.rate {
            record.rate = check_rate(&rate)?;
        }
        if let Some(date) = changes.effective_date {
            record.effective_date = check_day(&date, "effective_date")?;
        }
        record.updated_at = self.now();
        let view = crate::views::exchange_rate(&record);
        let audit = self.updated_audit(
            access,
            options,
            "exchange_rate",
            &record.id,
            crate::views::exchange_rate(&before),
            &view,
        );
        let written = self.store.update_exchange_rate(record, audit).await?;
        Ok(written.map(|_| view))
    }

    /// Soft-deletes an exchange rate (synchronous write, one credit).
    ///
    /// # Errors
    /// `resource_not_found`, `insufficient_credits`.
    pub(crate) async fn delete_exchange_rate(
        &self,
        access: &Access,
        id: &str,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let record = self.get_exchange_rate(access, id).await?;
        let before = crate::views::exchange_rate(&record);
        let name = record.label();
        let removal = Removal::new("exchange_rate", &record.id, &name, before);
        self.soft_delete(access, options, removal, |deletion, audit| {
            self.store.delete_exchange_rate(&record.id, deletion, audit)
        })
        .await
    }

    /// The rate converting `from` into `to` on `on` for the tenant: the live rate of the
    /// pair with the latest effective date on or before `on`; when the pair has none,
    /// the inverse of the reversed pair's such rate (1 / rate, rounded half away from
    /// zero to 12 decimals); for the same currency, 1. `None` when neither pair has a
    /// rate effective by then.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn rate_on(
        &self,
        tenant: &Tenant,
        from: Currency,
        to: Currency,
        on: Date,
    ) -> DomainResult<Option<AppliedRate>> {
        if from == to {
            return Ok(Some(AppliedRate {
                from_currency: from,
                to_currency: to,
                rate: "1".to_owned(),
                effective_date: on,
                source: RateSource::Identity,
            }));
        }
        let (from_code, to_code) = (from.code(), to.code());
        if let Some(direct) = self
            .store
            .latest_exchange_rate(tenant, &from_code, &to_code, on)
            .await?
        {
            return Ok(Some(AppliedRate {
                from_currency: from,
                to_currency: to,
                rate: direct.rate,
                effective_date: direct.effective_date,
                source: RateSource::Direct(direct.id),
            }));
        }
        let Some(reverse) = self
            .store
            .latest_exchange_rate(tenant, &to_code, &from_code, on)
            .await?
        else {
            return Ok(None);
        };
        let rate = inverse_rate(&reverse.rate).ok_or_else(|| {
            DomainError::Internal(format!(
                "exchange rate {} holds '{}', which has no inverse",
                reverse.id, reverse.rate
            ))
        })?;
        Ok(Some(AppliedRate {
            from_currency: from,
            to_currency: to,
            rate,
            effective_date: reverse.effective_date,
            source: RateSource::Inverse(reverse.id),
        }))
    }

    /// Converts an amount with the tenant's rates (a read: free).
    ///
    /// # Errors
    /// `invalid_field` on `from_currency`, `to_currency`, `amount` (not a decimal,
    /// negative, or with more decimals than the source currency allows) or `date`;
    /// `exchange_rate_not_found` when no rate applies on the date.
    pub async fn convert_currency(
        &self,
        access: &Access,
        input: ConversionInput,
    ) -> DomainResult<Conversion> {
        let from = check_currency(&input.from_currency, "from_currency")?;
        let to = check_currency(&input.to_currency, "to_currency")?;
        let amount = parse_units(&input.amount, from.decimals()).map_err(|e| match e {
            // `from_currency` decides the places; more is invalid input (400).
            AmountError::TooManyDecimals(n) => DomainError::invalid_field(
                "amount",
                format!("has more than {n} decimal places for {}", from.code()),
            ),
            other => DomainError::invalid_field("amount", other.to_string()),
        })?;
        if amount < 0 {
            return Err(DomainError::invalid_field("amount", "must not be negative"));
        }
        let on = match input.date.as_deref() {
            Some(text) => check_day(text, "date")?,
            None => self.now().date(),
        };
        let rate = self
            .rate_on(&access.tenant, from, to, on)
            .await?
            .ok_or_else(|| {
                DomainError::rule(
                    ErrorCode::ExchangeRateNotFound,
                    format!(
                        "no exchange rate from {} to {} (or back) is effective on or before {}",
                        from.code(),
                        to.code(),
                        crate::views::date(on)
                    ),
                )
            })?;
        let converted_amount = rate.convert(amount).ok_or_else(|| {
            DomainError::invalid_field("amount", "the converted amount is too large")
        })?;
        Ok(Conversion {
            amount,
            converted_amount,
            rate,
        })
    }
}
