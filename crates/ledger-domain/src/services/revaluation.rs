//! Unrealised currency revaluation (issue 17): what the exchange accounts hold together,
//! valued in the base currency at a date, posted to the income statement on that date
//! and reversed the next day.
//!
//! Every exchange between currencies leaves its two sides in the exchange accounts of
//! those currencies ([`crate::transfers`]). Valued at one day's rates their sum is the
//! gain (credit) or loss (debit) of the positions still open, not yet in the income
//! statement. A revaluation posts it — Dr the base currency's exchange account and Cr
//! "Unrealised Currency Gains" for a gain, the other way for a loss — dated that day, and
//! a posted reversal dated the next day, both by one job (all or none), so each period's
//! statement shows its own revaluation and the next one starts from cost again.

use time::{Date, OffsetDateTime};

use crate::accounts::{AccountType, Totals};
use crate::error::{DomainError, DomainResult, ErrorCode};
use crate::jobs::Job;
use crate::money::{Currency, SCALE, format_units};
use crate::ports::{AccountFilter, Store, Written};
use crate::transfers::EXCHANGE_SUBTYPE;

use super::transfers::SystemAccountSpec;
use super::{Access, EntryInput, Ledger, NewTransactionInput, WriteOptions};

/// The `source` of a revaluation's transactions.
pub const REVALUATION_SOURCE: &str = "revaluation";

/// Code of the unrealised currency gains account (a revenue account: losses debit it).
pub const UNREALISED_GAINS_CODE: &str = "4950";

impl<S: Store> Ledger<S> {
    /// Revalues the tenant's open currency positions at the end of `date` (default
    /// today) and queues the posting and its reversal.
    ///
    /// # Errors
    /// `exchange_rate_not_found` when a currency held has no rate on `date`;
    /// `invalid_state_transition` when there is nothing to revalue (no position, or one
    /// worth exactly its cost); `period_locked` when `date` or the next day is closed;
    /// `insufficient_credits`.
    pub(crate) async fn revalue(
        &self,
        access: &Access,
        date: Option<Date>,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let date = date.unwrap_or_else(|| self.now().date());
        let next = date
            .next_day()
            .ok_or_else(|| DomainError::invalid_field("date", "is out of range"))?;
        let gain = self.unrealised_gain(access, date, next).await?;
        if gain == 0 {
            return Err(DomainError::rule(
                ErrorCode::InvalidStateTransition,
                format!("nothing to revalue on {date}: no open currency position has moved"),
            ));
        }
        let base = access.organization.base_currency.clone();
        let exchange = self.exchange_account(access, &base).await?;
        let gains = self
            .ensure_system_account(
                access,
                SystemAccountSpec {
                    code: UNREALISED_GAINS_CODE.to_owned(),
                    name: "Unrealised Currency Gains".to_owned(),
                    account_type: AccountType::Revenue,
                    subtype: "unrealised_currency_gains",
                    currency: base.clone(),
                    description: "Revaluations of open currency positions (losses debit it)"
                        .to_owned(),
                },
            )
            .await?;
        let amount = format_units(gain.abs(), SCALE);
        let (debit, credit) = if gain > 0 {
            (&exchange.id, &gains.id)
        } else {
            (&gains.id, &exchange.id)
        };
        let posting =
            |at: Date, description: String, debit: &str, credit: &str| NewTransactionInput {
                description,
                date: Some(at.midnight().assume_utc()),
                currency: Some(base.clone()),
                reference: Some(format!("revaluation-{date}")),
                entries: vec![
                    entry(debit, "debit", &amount),
                    entry(credit, "credit", &amount),
                ],
                metadata: None,
                auto_post: true,
                contact_id: None,
                category_id: None,
            };
        let inputs = vec![
            posting(
                date,
                format!("Unrealised currency revaluation on {date}"),
                debit,
                credit,
            ),
            posting(
                next,
                format!("Reversal of the unrealised currency revaluation on {date}"),
                credit,
                debit,
            ),
        ];
        let command = self
            .batch_command(access, inputs, Some(REVALUATION_SOURCE))
            .await?;
        self.enqueue(access, command, options).await
    }

    /// What the exchange accounts hold together at the end of `date`, in the base
    /// currency at that day's rates: positive is a gain (their credits outweigh).
    async fn unrealised_gain(&self, access: &Access, date: Date, next: Date) -> DomainResult<i64> {
        let base = Currency::from_code(&access.organization.base_currency)
            .ok_or_else(|| DomainError::Internal("the base currency is not ISO 4217".into()))?;
        let exchange: Vec<_> = self
            .store
            .list_accounts(&access.tenant, &AccountFilter::default(), None)
            .await?
            .items
            .into_iter()
            .filter(|a| a.is_system && a.subtype.as_deref() == Some(EXCHANGE_SUBTYPE))
            .collect();
        let until: OffsetDateTime = next.midnight().assume_utc();
        let mut net: i64 = 0;
        for account in &exchange {
            let totals: Totals = self
                .store
                .account_totals(&access.tenant, Some(&account.id), None, Some(until))
                .await?
                .into_iter()
                .map(|(_, t)| t)
                .next()
                .unwrap_or_default();
            if totals.debit == totals.credit {
                continue;
            }
            let converted = if account.currency == base.code() {
                totals
            } else {
                self.convert_totals(access, account, totals, base, date)
                    .await?
                    .1
            };
            net = net.saturating_add(converted.debit - converted.credit);
        }
        Ok(-net)
    }
}

fn entry(account: &str, side: &str, amount: &str) -> EntryInput {
    EntryInput {
        account_id: account.to_owned(),
        entry_type: side.to_owned(),
        amount: amount.to_owned(),
        description: None,
    }
}
