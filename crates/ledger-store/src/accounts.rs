//! The chart of accounts: inserts, updates and reads of accounts.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use ledger_domain::Resource;
use ledger_domain::StoreError;
use ledger_domain::accounts::{Account, Totals};
use ledger_domain::ports::Taken;
use ledger_domain::ports::{
    AccountFilter, Accounts, Audit, HistoryPage, HistoryRow, Page, PageRequest, StoreResult,
    Tenant, Written,
};
use ledger_domain::reports::{AccountRef, ChartLine};
use time::OffsetDateTime;

use crate::db::{Db, page_from, unique_or};
use crate::rows::{AccountRow, json_text, to_db};
use crate::schema::accounts;

/// An account row with its running totals (none before its first counted entry).
type WithTotals = (AccountRow, Option<i64>, Option<i64>);

/// The tenant's accounts (not deleted) left-joined to their running totals, selected as
/// [`WithTotals`]: one statement (not boxed, so each shape is prepared once per
/// connection) where a balance would otherwise read twice.
macro_rules! with_totals {
    ($tenant:expr) => {{
        use $crate::schema::account_totals as at;
        accounts::table
            .left_join(
                at::table.on(at::organization_id
                    .eq(accounts::organization_id)
                    .and(at::account_id.eq(accounts::id))),
            )
            .filter(tenant_of!(accounts, $tenant))
            .filter(accounts::deleted_at.is_null())
            .select((
                AccountRow::as_select(),
                at::debit.nullable(),
                at::credit.nullable(),
            ))
    }};
}

fn account_and_totals((row, debit, credit): WithTotals) -> StoreResult<(Account, Totals)> {
    let totals = Totals {
        debit: debit.unwrap_or(0),
        credit: credit.unwrap_or(0),
    };
    Ok((Account::try_from(row)?, totals))
}

impl Accounts for Db {
    async fn insert_account(
        &self,
        account: Account,
        audit: Audit,
    ) -> StoreResult<Written<Account>> {
        let row = AccountRow::from(&account);
        let code = account.code.clone();
        audited_insert!(self, audit, accounts::table, row, account, |e| {
            unique_or(e, || {
                StoreError::Taken(Taken::AccountCode { code: code.clone() })
            })
        })
    }

    async fn update_account(
        &self,
        account: Account,
        audit: Audit,
    ) -> StoreResult<Written<Account>> {
        audited_update!(
            self,
            audit,
            accounts,
            Resource::Account,
            account,
            (
                accounts::name.eq(&account.name),
                accounts::description.eq(&account.description),
                accounts::status.eq(account.status.as_str()),
                accounts::parent_id.eq(&account.parent_id),
                accounts::metadata.eq(json_text(&account.metadata)),
                accounts::updated_at.eq(to_db(account.updated_at)),
            ),
            account
        )
    }

    async fn get_account(&self, tenant: &Tenant, id: &str) -> StoreResult<Option<Account>> {
        live_record!(self, accounts, tenant, id, AccountRow)
    }

    async fn get_accounts(&self, tenant: &Tenant, ids: &[String]) -> StoreResult<Vec<Account>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        read_all!(
            self,
            AccountRow,
            Account::try_from,
            accounts::table
                .filter(tenant_of!(accounts, tenant))
                .filter(accounts::id.eq_any(ids))
                .filter(accounts::deleted_at.is_null())
                .order(accounts::code.asc())
        )
    }

    async fn list_accounts(
        &self,
        tenant: &Tenant,
        filter: &AccountFilter,
        page: Option<PageRequest>,
    ) -> StoreResult<Page<Account>> {
        let account_type = filter.account_type.map(|t| t.as_str());
        let status = filter.status.map(|s| s.as_str());
        let code = filter.code.as_deref();
        let rows = db_read!(self, |conn| {
            // Built twice (count and page): boxed queries are not Clone.
            let filtered = || {
                live_filtered!(
                    accounts,
                    tenant,
                    account_type = account_type,
                    status = status,
                    code = code,
                )
            };
            let query = filtered()
                .order((accounts::code.asc(), accounts::id.asc()))
                .select(AccountRow::as_select());
            // Unpaged (reports read the whole chart): the rows are the count.
            let Some(page) = page else {
                let rows: Vec<AccountRow> = query.load(conn).await?;
                let total = i64::try_from(rows.len()).unwrap_or(i64::MAX);
                return Ok((rows, total));
            };
            let total: i64 = filtered().count().get_result(conn).await?;
            let rows = query
                .limit(page.limit)
                .offset(page.offset)
                .load(conn)
                .await?;
            Ok((rows, total))
        })?;
        page_from(rows, Account::try_from)
    }

    async fn chart_with_totals(
        &self,
        tenant: &Tenant,
        from: Option<OffsetDateTime>,
        until: Option<OffsetDateTime>,
    ) -> StoreResult<Vec<ChartLine>> {
        // The chart from memory while it stays the same (see `charts`), the totals
        // apart: each read has one plan whatever the statistics say (a join planned on
        // stale ones, as after a bulk load, looped over the tenant's totals once per
        // account: ten times the cost).
        let chart = self.chart(tenant).await?;
        // Looked up in a vector sorted by id: no hashing of every id twice (perf: the
        // map's SipHash was 3% of a trial balance's server CPU).
        let mut totals = crate::balances::totals(self, tenant, None, from, until).await?;
        totals.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let totals_of = |id: &str| {
            totals
                .binary_search_by(|(t, _)| t.as_str().cmp(id))
                .map_or_else(|_| Totals::default(), |i| totals[i].1)
        };
        Ok(chart
            .iter()
            .map(|row| ChartLine {
                totals: totals_of(&row.id),
                account: AccountRef {
                    id: row.id.clone(),
                    code: row.code.clone(),
                    name: row.name.clone(),
                    account_type: row.account_type,
                },
                currency: row.currency.clone(),
            })
            .collect())
    }

    async fn account_with_totals(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> StoreResult<Option<(Account, Totals)>> {
        let row: Option<WithTotals> = db_read!(self, |conn| {
            Ok(with_totals!(tenant)
                .filter(accounts::id.eq(id))
                .first(conn)
                .await
                .optional()?)
        })?;
        row.map(account_and_totals).transpose()
    }

    async fn account_totals(
        &self,
        tenant: &Tenant,
        account_id: Option<&str>,
        from: Option<OffsetDateTime>,
        until: Option<OffsetDateTime>,
    ) -> StoreResult<Vec<(String, Totals)>> {
        crate::balances::totals(self, tenant, account_id, from, until).await
    }

    async fn daily_totals(
        &self,
        tenant: &Tenant,
        ids: &[String],
        from: Option<time::Date>,
        until: Option<time::Date>,
    ) -> StoreResult<Vec<(String, time::Date, Totals)>> {
        crate::balances::daily_totals(self, tenant, ids, from, until).await
    }

    async fn totals_of_accounts(
        &self,
        tenant: &Tenant,
        ids: &[String],
    ) -> StoreResult<Vec<(String, Totals)>> {
        crate::balances::totals_of(self, tenant, ids).await
    }

    async fn first_history_of_accounts(
        &self,
        tenant: &Tenant,
        ids: &[String],
        limit: i64,
    ) -> StoreResult<Vec<(String, HistoryRow)>> {
        crate::balances::first_rows_of(self, tenant, ids, limit).await
    }

    async fn account_history(
        &self,
        tenant: &Tenant,
        account_id: &str,
        from: Option<OffsetDateTime>,
        until: Option<OffsetDateTime>,
        page: PageRequest,
    ) -> StoreResult<HistoryPage> {
        crate::balances::history(self, tenant, account_id, from, until, page).await
    }
}
