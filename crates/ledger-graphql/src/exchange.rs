//! Exchange rates and conversions in GraphQL (camelCase): `ExchangeRateNode`,
//! `ConversionNode` and the resolvers the query, mutation and organization roots share.
//! Writes go through the domain's pipeline like every mutation (1 credit each);
//! conversions are reads and cost nothing.
//!
//! Effective dates are calendar dates in the domain; as for documents, `DateTime` carries
//! them as midnight UTC on output and takes a `YYYY-MM-DD` date or a date-time (its UTC
//! date) on input.

use juniper::{DefaultScalarValue, ID, graphql_object};
use ledger_domain::exchange::{Conversion, ExchangeRate};
use ledger_domain::money::format_units;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{ConversionInput, ExchangeRateChanges, NewExchangeRateInput, Write};
use ledger_domain::views;
use time::{Date, Time};

use crate::context::Ctx;
use crate::errors::{GqlResult, IntoGql};
use crate::scalars::{DateTime, Decimal};

/// The permission resource of rates and conversions.
const RESOURCE: &str = "exchange_rates";

/// A calendar date as a `DateTime` (midnight UTC).
fn midnight(date: Date) -> DateTime {
    DateTime::at(date.with_time(Time::MIDNIGHT).assume_utc())
}

/// The `YYYY-MM-DD` text of a `DateTime` input's UTC date.
fn day_of(value: &DateTime) -> String {
    views::date(value.0.at.date())
}

/// An exchange rate of an organization: units of `toCurrency` per unit of
/// `fromCurrency` from `effectiveDate` on.
pub struct ExchangeRateNode(pub ExchangeRate);

/// An exchange rate of an organization.
#[graphql_object(name = "ExchangeRateNode", scalar = DefaultScalarValue)]
impl ExchangeRateNode {
    fn id(&self) -> ID {
        ID::new(&self.0.id)
    }
    /// ISO 4217 code converted from (`EUR`).
    #[graphql(name = "fromCurrency")]
    fn source_currency(&self) -> &str {
        &self.0.from_currency
    }
    /// ISO 4217 code converted to (`USD`).
    fn to_currency(&self) -> &str {
        &self.0.to_currency
    }
    /// Currency id converted from (`cur_EUR`).
    #[graphql(name = "fromCurrencyId")]
    fn source_currency_id(&self) -> ID {
        ID::new(format!("cur_{}", self.0.from_currency))
    }
    /// Currency id converted to (`cur_USD`).
    fn to_currency_id(&self) -> ID {
        ID::new(format!("cur_{}", self.0.to_currency))
    }
    /// The exact rate (`"1.0825"`), at most 12 decimals.
    fn rate(&self) -> Decimal {
        Decimal(self.0.rate.clone())
    }
    /// The first day the rate applies, as midnight UTC.
    fn effective_date(&self) -> DateTime {
        midnight(self.0.effective_date)
    }
    fn created_at(&self) -> DateTime {
        DateTime::at(self.0.created_at)
    }
    fn updated_at(&self) -> DateTime {
        DateTime::at(self.0.updated_at)
    }
}

/// An amount converted with the organization's rates.
pub struct ConversionNode(pub Conversion);

/// An amount converted with the organization's rates.
#[graphql_object(name = "ConversionNode", scalar = DefaultScalarValue)]
impl ConversionNode {
    #[graphql(name = "fromCurrency")]
    fn source_currency(&self) -> String {
        self.0.rate.from_currency.code()
    }
    fn to_currency(&self) -> String {
        self.0.rate.to_currency.code()
    }
    /// The amount converted, at the source currency's decimals.
    fn amount(&self) -> Decimal {
        Decimal(format_units(
            self.0.amount,
            self.0.rate.from_currency.decimals(),
        ))
    }
    /// The result, rounded half away from zero to the target currency's minor unit.
    fn converted_amount(&self) -> Decimal {
        Decimal(format_units(
            self.0.converted_amount,
            self.0.rate.to_currency.decimals(),
        ))
    }
    /// The rate applied (the inverse of the reversed pair's rate when only that exists).
    fn rate(&self) -> Decimal {
        Decimal(self.0.rate.rate.clone())
    }
    /// The effective date of the rate applied, as midnight UTC.
    fn effective_date(&self) -> DateTime {
        midnight(self.0.rate.effective_date)
    }
}

/// The rates of organization `org_id`, newest effective date first.
pub(crate) async fn list<St: Store>(
    context: &Ctx<St>,
    org_id: &str,
    from_currency: Option<String>,
    to_currency: Option<String>,
    limit: Option<i32>,
    offset: Option<i32>,
) -> GqlResult<Vec<ExchangeRateNode>> {
    let access = context.access(org_id, Scope::Read, RESOURCE).await?;
    let page = crate::nodes::list_page(limit, offset)?;
    let list = context
        .ledger
        .list_exchange_rates(
            &access,
            from_currency.as_deref(),
            to_currency.as_deref(),
            page,
        )
        .await
        .gql()?;
    Ok(list.items.into_iter().map(ExchangeRateNode).collect())
}

/// A rate of the key's organization; `None` when there is none with this id.
pub(crate) async fn find<St: Store>(
    context: &Ctx<St>,
    id: &str,
) -> GqlResult<Option<ExchangeRateNode>> {
    let access = context.own(Scope::Read, RESOURCE).await?;
    match context.ledger.get_exchange_rate(&access, id).await {
        Ok(rate) => Ok(Some(ExchangeRateNode(rate))),
        Err(ledger_domain::DomainError::NotFound { .. }) => Ok(None),
        Err(e) => Err(crate::errors::field_error(e)),
    }
}

/// Converts with the key's organization's rates.
pub(crate) async fn convert<St: Store>(
    context: &Ctx<St>,
    from_currency: String,
    to_currency: String,
    amount: Decimal,
    date: Option<DateTime>,
) -> GqlResult<ConversionNode> {
    let access = context.own(Scope::Read, RESOURCE).await?;
    let input = ConversionInput {
        from_currency,
        to_currency,
        amount: amount.0,
        date: date.as_ref().map(day_of),
    };
    let conversion = context
        .ledger
        .convert_currency(&access, input)
        .await
        .gql()?;
    Ok(ConversionNode(conversion))
}

/// Creates a rate (1 credit) and reads it back.
pub(crate) async fn create<St: Store>(
    context: &Ctx<St>,
    from_currency_id: String,
    to_currency_id: String,
    rate: Decimal,
    effective_date: DateTime,
) -> GqlResult<ExchangeRateNode> {
    let access = context.own(Scope::Write, RESOURCE).await?;
    let input = NewExchangeRateInput {
        from_currency: from_currency_id,
        to_currency: to_currency_id,
        rate: rate.0,
        effective_date: day_of(&effective_date),
    };
    let rate = context
        .submit_and_read(
            &access,
            Write::CreateExchangeRate(input),
            async |access, id| context.ledger.get_exchange_rate(access, id).await,
        )
        .await?;
    Ok(ExchangeRateNode(rate))
}

/// Changes a rate's value or effective date (1 credit) and reads it back.
pub(crate) async fn update<St: Store>(
    context: &Ctx<St>,
    id: &str,
    rate: Option<Decimal>,
    effective_date: Option<DateTime>,
) -> GqlResult<ExchangeRateNode> {
    let access = context.own(Scope::Write, RESOURCE).await?;
    let changes = ExchangeRateChanges {
        rate: rate.map(|r| r.0),
        effective_date: effective_date.as_ref().map(day_of),
    };
    let write = Write::UpdateExchangeRate {
        id: id.to_owned(),
        changes,
    };
    let rate = context
        .submit_and_read(&access, write, async |access, id| {
            context.ledger.get_exchange_rate(access, id).await
        })
        .await?;
    Ok(ExchangeRateNode(rate))
}

/// Soft-deletes a rate (1 credit; needs `admin`).
pub(crate) async fn delete<St: Store>(context: &Ctx<St>, id: &str) -> GqlResult<bool> {
    let access = context.own(Scope::Admin, RESOURCE).await?;
    let write = Write::DeleteExchangeRate { id: id.to_owned() };
    context.submit(&access, write).await?;
    Ok(true)
}
