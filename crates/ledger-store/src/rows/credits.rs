//! Rows of the credit pools, the credit ledger and purchases.

use diesel::prelude::*;
use ledger_domain::StoreError;
use ledger_domain::credits::{CreditPurchase, LedgerEntry, LedgerKind, PurchaseStatus};
use time::PrimitiveDateTime;

use super::{from_db, parsed, to_db};
use crate::schema::{credit_ledger, credit_pools, credit_purchases};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = credit_pools, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct CreditPoolRow {
    pub organization_id: String,
    pub credits_purchased: i64,
    pub period: String,
    pub updated_at: PrimitiveDateTime,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = credit_ledger, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct CreditLedgerRow {
    pub organization_id: String,
    pub id: String,
    pub kind: String,
    pub credits: i64,
    pub reference: Option<String>,
    pub created_at: PrimitiveDateTime,
}

impl CreditLedgerRow {
    /// A row of `kind` in the ledger of `pool`.
    pub(crate) fn new(
        pool: &str,
        id: &str,
        kind: LedgerKind,
        credits: i64,
        reference: Option<&str>,
        at: PrimitiveDateTime,
    ) -> Self {
        Self {
            organization_id: pool.to_owned(),
            id: id.to_owned(),
            kind: kind.as_str().to_owned(),
            credits,
            reference: reference.map(str::to_owned),
            created_at: at,
        }
    }

    pub(crate) fn into_domain(self) -> Result<LedgerEntry, StoreError> {
        Ok(LedgerEntry {
            kind: parsed(LedgerKind::parse, "ledger kind", &self.kind)?,
            organization_id: self.organization_id,
            id: self.id,
            credits: self.credits,
            reference: self.reference,
            created_at: from_db(self.created_at),
        })
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = credit_purchases, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct CreditPurchaseRow {
    pub organization_id: String,
    pub livemode: bool,
    pub id: String,
    pub pool_id: String,
    pub package_id: String,
    pub credits: i64,
    pub price_cents: i64,
    pub currency: String,
    pub provider: String,
    pub provider_session_id: Option<String>,
    pub checkout_url: String,
    pub status: String,
    pub success_url: Option<String>,
    pub cancel_url: Option<String>,
    pub api_key_id: String,
    pub expires_at: PrimitiveDateTime,
    pub created_at: PrimitiveDateTime,
    pub completed_at: Option<PrimitiveDateTime>,
}

impl From<&CreditPurchase> for CreditPurchaseRow {
    fn from(p: &CreditPurchase) -> Self {
        Self {
            organization_id: p.organization_id.clone(),
            livemode: p.livemode,
            id: p.id.clone(),
            pool_id: p.pool_id.clone(),
            package_id: p.package_id.clone(),
            credits: p.credits,
            price_cents: p.price_cents,
            currency: p.currency.clone(),
            provider: p.provider.clone(),
            provider_session_id: p.provider_session_id.clone(),
            checkout_url: p.checkout_url.clone(),
            // Expiry is read, never stored.
            status: match p.status {
                PurchaseStatus::Completed => "completed",
                _ => "pending",
            }
            .to_owned(),
            success_url: p.success_url.clone(),
            cancel_url: p.cancel_url.clone(),
            api_key_id: p.api_key_id.clone(),
            expires_at: to_db(p.expires_at),
            created_at: to_db(p.created_at),
            completed_at: p.completed_at.map(to_db),
        }
    }
}

impl CreditPurchaseRow {
    pub(crate) fn into_domain(self) -> Result<CreditPurchase, StoreError> {
        Ok(CreditPurchase {
            status: parsed(PurchaseStatus::parse, "purchase status", &self.status)?,
            id: self.id,
            organization_id: self.organization_id,
            livemode: self.livemode,
            pool_id: self.pool_id,
            package_id: self.package_id,
            credits: self.credits,
            price_cents: self.price_cents,
            currency: self.currency,
            provider: self.provider,
            provider_session_id: self.provider_session_id,
            checkout_url: self.checkout_url,
            success_url: self.success_url,
            cancel_url: self.cancel_url,
            api_key_id: self.api_key_id,
            expires_at: from_db(self.expires_at),
            created_at: from_db(self.created_at),
            completed_at: self.completed_at.map(from_db),
        })
    }
}
