//! Used x402 authorizations and x402 purchases (the `X402Payments` port).
//!
//! `x402_authorizations` is keyed by (network, asset, payer, nonce): the insert of that
//! row is the first statement of the transaction that stores and credits the purchase,
//! so of two requests carrying the same authorization — a replay, or two retries racing
//! — exactly one commits; the other fails on the key (PostgreSQL makes it wait for the
//! first to commit; SQLite has one writer) and writes nothing. The purchase is then
//! inserted pending and completed by `credit_pools`' completion, the same path that
//! credits hosted purchases once.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use ledger_domain::StoreError;
use ledger_domain::credits::{CreditPurchase, LedgerKind, after_purchase};
use ledger_domain::events::Event;
use ledger_domain::ports::{StoreResult, X402Authorization, X402Payments};
use time::PrimitiveDateTime;

use crate::db::{Db, TxError, is_unique_violation};
use crate::rows::{CreditLedgerRow, CreditPurchaseRow, event_rows, to_db};
use crate::schema::{
    credit_ledger, credit_pools, credit_purchases, events, organizations, x402_authorizations,
};

#[derive(Debug, Clone, Insertable)]
#[diesel(table_name = x402_authorizations, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
struct AuthorizationRow {
    network: String,
    asset: String,
    payer: String,
    nonce: String,
    organization_id: String,
    livemode: bool,
    purchase_id: String,
    settlement_transaction: String,
    amount: String,
    created_at: PrimitiveDateTime,
}

impl From<X402Authorization> for AuthorizationRow {
    fn from(a: X402Authorization) -> Self {
        Self {
            network: a.network,
            asset: a.asset,
            payer: a.payer,
            nonce: a.nonce,
            organization_id: a.organization_id,
            livemode: a.livemode,
            purchase_id: a.purchase_id,
            settlement_transaction: a.transaction,
            amount: a.amount,
            created_at: to_db(a.created_at),
        }
    }
}

/// The authorization, the pending purchase, then its completion (`complete_body!`).
macro_rules! record_body {
    ($conn:ident, $lock:ident, $auth:ident, $row:ident, $org:ident, $id:ident, $session:ident, $at:ident, $event_rows:ident) => {{
        diesel::insert_into(x402_authorizations::table)
            .values(&$auth)
            .execute($conn)
            .await?;
        diesel::insert_into(credit_purchases::table)
            .values(&$row)
            .execute($conn)
            .await?;
        complete_body!($conn, $lock, $org, $id, $session, $at, $event_rows)
    }};
}

impl X402Payments for Db {
    async fn x402_authorization_used(
        &self,
        network: &str,
        asset: &str,
        payer: &str,
        nonce: &str,
    ) -> StoreResult<bool> {
        let found: i64 = db_read!(self, |conn| {
            Ok(x402_authorizations::table
                .filter(x402_authorizations::network.eq(network))
                .filter(x402_authorizations::asset.eq(asset))
                .filter(x402_authorizations::payer.eq(payer))
                .filter(x402_authorizations::nonce.eq(nonce))
                .count()
                .get_result(conn)
                .await?)
        })?;
        Ok(found > 0)
    }

    async fn record_x402_purchase(
        &self,
        purchase: CreditPurchase,
        authorization: X402Authorization,
        events: Vec<Event>,
    ) -> StoreResult<bool> {
        let at = to_db(purchase.completed_at.unwrap_or(purchase.created_at));
        let mut pending = purchase;
        pending.status = ledger_domain::credits::PurchaseStatus::Pending;
        pending.completed_at = None;
        let row = CreditPurchaseRow::from(&pending);
        let org = pending.organization_id.clone();
        let id = pending.id.clone();
        let session = pending.provider_session_id.clone();
        let auth = AuthorizationRow::from(authorization);
        let event_rows = event_rows(&events);
        let result: Result<(CreditPurchaseRow, bool), TxError> = db_write!(
            self,
            postgres | conn | {
                record_body!(
                    conn, for_update, auth, row, org, id, session, at, event_rows
                )
            },
            sqlite | conn | {
                record_body!(conn, none, auth, row, org, id, session, at, event_rows)
            }
        );
        match result {
            Ok((_, completed)) => Ok(completed),
            // The authorization was recorded first by another request: nothing written.
            Err(TxError::Db(e)) if is_unique_violation(&e) => Ok(false),
            Err(e) => Err(StoreError::from(e)),
        }
    }
}
