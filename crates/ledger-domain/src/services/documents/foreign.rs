//! Documents in a foreign currency ([`crate::documents::foreign`]): the system accounts
//! their postings need, the rates that apply, and the lines of paying them.

use serde_json::{Value, json};
use time::Date;

use crate::accounts::AccountType;
use crate::documents::foreign::{
    Exchange, MoneyAccount, REALISED_GAINS_CODE, REALISED_GAINS_SUBTYPE, booked_in_base,
    control_account_code, control_account_name, control_subtype, payment_in_base, realised_gain,
    settled_share,
};
use crate::documents::{Document, DocumentKind};
use crate::error::{DomainError, DomainResult, ErrorCode};
use crate::exchange::AppliedRate;
use crate::jobs::PaymentDraft;
use crate::money::{Currency, format_units};
use crate::ports::{Store, Tenant};
use crate::transactions::EntryLine;
use crate::transfers::exchange_account_code;
use crate::views;

use crate::services::transfers::SystemAccountSpec;
use crate::services::{Access, Ledger};

/// The accounts a foreign document's postings use.
pub(super) struct ForeignAccounts {
    /// The receivable or payable account of the document's currency.
    pub control: String,
    pub exchange: Exchange,
    /// Realised Currency Gains.
    pub gains: String,
}

/// A foreign payment's lines with what they realised.
pub(super) struct ForeignPayment {
    pub lines: Vec<EntryLine>,
    /// Metadata of the payment's transaction: the rate and the realised gain.
    pub metadata: Value,
}

fn iso(code: &str) -> DomainResult<Currency> {
    Currency::from_code(code)
        .ok_or_else(|| DomainError::Internal(format!("currency '{code}' is not ISO 4217")))
}

fn overflow() -> DomainError {
    DomainError::Internal("a converted amount overflowed".into())
}

impl<S: Store> Ledger<S> {
    /// The organization's base currency: the functional currency documents book in.
    pub(super) async fn base_currency(&self, tenant: &Tenant) -> DomainResult<String> {
        self.store
            .get_organization(&tenant.organization_id)
            .await?
            .map(|o| o.base_currency)
            .ok_or_else(|| {
                DomainError::Internal(format!("organization {} vanished", tenant.organization_id))
            })
    }

    /// Creates, on first use, the system accounts a foreign document of `kind` in
    /// `currency` posts to: its control account, the exchange accounts of both
    /// currencies and Realised Currency Gains (free, with `account.created` events).
    ///
    /// # Errors
    /// `currency_mismatch` when a client's account holds one of their codes in another
    /// currency or is inactive.
    pub(super) async fn ensure_foreign_accounts(
        &self,
        access: &Access,
        kind: DocumentKind,
        currency: &str,
    ) -> DomainResult<()> {
        let base = access.organization.base_currency.clone();
        let (account_type, what) = match kind {
            DocumentKind::Invoice => (AccountType::Asset, "owed by customers"),
            DocumentKind::Bill => (AccountType::Liability, "owed to vendors"),
        };
        self.ensure_system_account(
            access,
            SystemAccountSpec {
                code: control_account_code(kind, &iso(currency)?),
                name: control_account_name(kind, currency),
                account_type,
                subtype: control_subtype(kind),
                currency: currency.to_owned(),
                description: format!("Amounts in {currency} {what} on {}s", kind.as_str()),
            },
        )
        .await?;
        self.exchange_account(access, currency).await?;
        self.exchange_account(access, &base).await?;
        self.ensure_system_account(
            access,
            SystemAccountSpec {
                code: REALISED_GAINS_CODE.to_owned(),
                name: "Realised Currency Gains".to_owned(),
                account_type: AccountType::Revenue,
                subtype: REALISED_GAINS_SUBTYPE,
                currency: base,
                description:
                    "Gains realised when foreign invoices and bills are paid (losses debit it)"
                        .to_owned(),
            },
        )
        .await?;
        Ok(())
    }

    /// The accounts of a foreign document's postings, found by their codes (they are
    /// created when a write needing them is validated).
    ///
    /// # Errors
    /// `account_inactive` when one of them is missing.
    pub(super) async fn foreign_accounts(
        &self,
        tenant: &Tenant,
        kind: DocumentKind,
        currency: &str,
        base: &str,
    ) -> DomainResult<ForeignAccounts> {
        let find = async |code: String, name: String| -> DomainResult<String> {
            self.account_with_code(tenant, &code)
                .await?
                .map(|a| a.id)
                .ok_or_else(|| {
                    DomainError::rule(
                        ErrorCode::AccountInactive,
                        format!("the organization has no account {code} ({name}) to post to"),
                    )
                })
        };
        Ok(ForeignAccounts {
            control: find(
                control_account_code(kind, &iso(currency)?),
                control_account_name(kind, currency),
            )
            .await?,
            exchange: Exchange {
                base_currency: base.to_owned(),
                document_side: find(
                    exchange_account_code(&iso(currency)?),
                    crate::transfers::exchange_account_name(currency),
                )
                .await?,
                base_side: find(
                    exchange_account_code(&iso(base)?),
                    crate::transfers::exchange_account_name(base),
                )
                .await?,
            },
            gains: find(
                REALISED_GAINS_CODE.to_owned(),
                "Realised Currency Gains".to_owned(),
            )
            .await?,
        })
    }

    /// The rate from a document's currency into the base currency on `on`.
    ///
    /// # Errors
    /// `exchange_rate_not_found` when none applies.
    pub(super) async fn document_rate(
        &self,
        tenant: &Tenant,
        doc: &Document,
        base: &str,
        on: Date,
    ) -> DomainResult<AppliedRate> {
        self.rate_on(tenant, iso(&doc.currency)?, iso(base)?, on)
            .await?
            .ok_or_else(|| {
                DomainError::rule(
                    ErrorCode::ExchangeRateNotFound,
                    format!(
                        "no {}/{base} exchange rate is effective on {on}: {} {} is in {} and is booked in {base} at that day's rate",
                        doc.currency,
                        doc.kind.as_str(),
                        doc.number,
                        doc.currency
                    ),
                )
            })
    }

    /// The posting of a payment on a foreign document: the settlement (through the
    /// exchange accounts when the money account is in the base currency) and the gain
    /// or loss it realises against what the document was booked at.
    ///
    /// # Errors
    /// `exchange_rate_not_found` on the payment date, `account_inactive` when an account
    /// of the posting is gone.
    pub(super) async fn foreign_payment(
        &self,
        tenant: &Tenant,
        doc: &Document,
        base: &str,
        payment: &PaymentDraft,
    ) -> DomainResult<ForeignPayment> {
        let accounts = self
            .foreign_accounts(tenant, doc.kind, &doc.currency, base)
            .await?;
        let issued = match &doc.posting_id {
            Some(id) => self.store.get_transaction(tenant, id).await?,
            None => None,
        }
        .ok_or_else(|| {
            DomainError::Internal(format!("{} {} has no posting", doc.kind.as_str(), doc.id))
        })?;
        let issued_lines: Vec<EntryLine> = issued.entries.iter().map(|e| e.line.clone()).collect();
        let booked = booked_in_base(doc.kind, &issued_lines, &accounts.exchange);
        let rate = self
            .document_rate(tenant, doc, base, payment.payment_date)
            .await?;
        let value = rate.convert(payment.amount).ok_or_else(overflow)?;
        let base_decimals = views::decimals_of(base);
        let share = settled_share(
            booked,
            doc.total,
            doc.amount_paid,
            payment.amount,
            base_decimals,
        )
        .ok_or_else(overflow)?;
        let gain = realised_gain(doc.kind, share, value);
        let money_currency = self
            .store
            .get_account(tenant, &payment.account_id)
            .await?
            .map(|a| a.currency)
            .ok_or_else(|| {
                DomainError::rule(
                    ErrorCode::AccountInactive,
                    format!("account {} no longer exists", payment.account_id),
                )
            })?;
        let money = if money_currency == doc.currency {
            MoneyAccount::InDocumentCurrency(payment.account_id.clone())
        } else {
            MoneyAccount::InBase {
                account_id: payment.account_id.clone(),
                value,
            }
        };
        let lines = payment_in_base(
            doc.kind,
            payment.amount,
            &money,
            &accounts.control,
            &accounts.exchange,
            gain,
            &accounts.gains,
        );
        Ok(ForeignPayment {
            lines,
            metadata: json!({
                "exchange_rate": rate.rate,
                "exchange_rate_date": views::date(rate.effective_date),
                "value_in_base": format_units(value, base_decimals),
                "booked_in_base": format_units(share, base_decimals),
                "realised_gain": format_units(gain, base_decimals),
                "base_currency": base,
            }),
        })
    }
}
