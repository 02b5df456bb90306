//! The journal: reads of transactions with their entries.

use std::collections::HashMap;

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use ledger_domain::ports::{Journal, Page, PageRequest, StoreResult, Tenant};
use ledger_domain::transactions::{Transaction, TransactionStatus};
use time::OffsetDateTime;

use crate::db::Db;
use crate::rows::{EntryRow, TransactionRow, to_db};
use crate::schema::{ledger_entries, transactions};

impl Journal for Db {
    async fn get_transaction(&self, tenant: &Tenant, id: &str) -> StoreResult<Option<Transaction>> {
        let found: Option<(TransactionRow, Vec<EntryRow>)> = db_read!(self, |conn| {
            let row: Option<TransactionRow> = transactions::table
                .filter(tenant_of!(transactions, tenant))
                .filter(transactions::id.eq(id))
                .filter(transactions::deleted_at.is_null())
                .select(TransactionRow::as_select())
                .first(conn)
                .await
                .optional()?;
            let Some(row) = row else {
                return Ok(None);
            };
            let entries: Vec<EntryRow> = ledger_entries::table
                .filter(ledger_entries::organization_id.eq(&tenant.organization_id))
                .filter(ledger_entries::transaction_id.eq(id))
                .order(ledger_entries::line_no.asc())
                .select(EntryRow::as_select())
                .load(conn)
                .await?;
            Ok(Some((row, entries)))
        })?;
        found
            .map(|(row, entries)| row.into_domain(entries))
            .transpose()
    }

    async fn list_transactions(
        &self,
        tenant: &Tenant,
        status: Option<TransactionStatus>,
        from: Option<OffsetDateTime>,
        until: Option<OffsetDateTime>,
        page: PageRequest,
    ) -> StoreResult<Page<Transaction>> {
        self.transactions_page(tenant, None, status, from, until, page)
            .await
    }

    async fn list_transactions_from(
        &self,
        tenant: &Tenant,
        source: &str,
        status: Option<TransactionStatus>,
        page: PageRequest,
    ) -> StoreResult<Page<Transaction>> {
        self.transactions_page(tenant, Some(source), status, None, None, page)
            .await
    }
}

impl Db {
    /// A page of the tenant's live transactions (of `source` when given), newest first.
    async fn transactions_page(
        &self,
        tenant: &Tenant,
        source: Option<&str>,
        status: Option<TransactionStatus>,
        from: Option<OffsetDateTime>,
        until: Option<OffsetDateTime>,
        page: PageRequest,
    ) -> StoreResult<Page<Transaction>> {
        let status = status.map(TransactionStatus::as_str);
        let from = from.map(to_db);
        let until = until.map(to_db);
        let (rows, entries, total_count): (Vec<TransactionRow>, Vec<EntryRow>, i64) =
            db_read!(self, |conn| {
                // Built twice (count and page): boxed queries are not Clone.
                let filtered = || {
                    let mut query =
                        live_filtered!(transactions, tenant, status = status, source = source);
                    in_period!(query, transactions::date, from, until);
                    query
                };
                let order = (transactions::date.desc(), transactions::id.desc());
                let (rows, total) = load_page!(conn, filtered, order, page, TransactionRow);
                let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
                let entries: Vec<EntryRow> = if ids.is_empty() {
                    Vec::new()
                } else {
                    ledger_entries::table
                        .filter(ledger_entries::organization_id.eq(&tenant.organization_id))
                        .filter(ledger_entries::transaction_id.eq_any(&ids))
                        .order((ledger_entries::transaction_id, ledger_entries::line_no))
                        .select(EntryRow::as_select())
                        .load(conn)
                        .await?
                };
                Ok((rows, entries, total))
            })?;
        let mut by_transaction: HashMap<String, Vec<EntryRow>> = HashMap::new();
        for entry in entries {
            by_transaction
                .entry(entry.transaction_id.clone())
                .or_default()
                .push(entry);
        }
        let items = rows
            .into_iter()
            .map(|row| {
                let entries = by_transaction.remove(&row.id).unwrap_or_default();
                row.into_domain(entries)
            })
            .collect::<StoreResult<Vec<_>>>()?;
        Ok(Page { items, total_count })
    }
}
