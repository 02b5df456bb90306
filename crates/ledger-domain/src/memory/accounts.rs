//! The chart of accounts and the journal in memory: account writes, transaction reads,
//! and balances and history computed from the counted entries (those of posted and
//! reversed transactions), as the SQL adapter's `balances` module computes them.

use crate::ports::{Audit, StoreError, Taken};
use std::collections::BTreeMap;

use time::OffsetDateTime;

use crate::accounts::{Account, EntryType, Totals};
use crate::error::Resource;
use crate::ports::{
    AccountFilter, Accounts, HistoryPage, HistoryRow, Journal, Page, PageRequest, StoreResult,
    Tenant, Written,
};
use crate::reports::{AccountRef, ChartLine};
use crate::transactions::{Transaction, TransactionStatus};

use super::tenanted::{live_in, live_where, stored_mut, table_methods};
use super::{MemoryStore, Row, State, in_tenant, page_of};

/// One counted ledger entry, with what history rows show of it.
pub(crate) struct CountedEntry<'a> {
    pub(crate) account_id: &'a str,
    pub(crate) date: OffsetDateTime,
    pub(crate) transaction_id: &'a str,
    pub(crate) line_no: usize,
    pub(crate) side: EntryType,
    pub(crate) amount: i64,
    /// The entry's description when not empty, else the transaction's.
    pub(crate) description: &'a str,
}

impl CountedEntry<'_> {
    /// The history order: date, transaction id, line.
    fn key(&self) -> (OffsetDateTime, &str, usize) {
        (self.date, self.transaction_id, self.line_no)
    }

    fn row(&self) -> HistoryRow {
        let mut totals = Totals::default();
        totals.add(self.side, self.amount);
        HistoryRow {
            transaction_id: self.transaction_id.to_owned(),
            date: self.date,
            description: self.description.to_owned(),
            debit: totals.debit,
            credit: totals.credit,
        }
    }
}

impl State {
    /// The counted entries of the tenant (an entry carries its transaction's date and
    /// counts while the transaction is posted or reversed; only pending transactions are
    /// ever deleted, so deleted ones never count).
    pub(crate) fn counted_entries<'a>(
        &'a self,
        tenant: &'a Tenant,
    ) -> impl Iterator<Item = CountedEntry<'a>> + 'a {
        self.transactions
            .iter()
            .map(|t| &t.value)
            .filter(move |t| {
                in_tenant(tenant, &t.organization_id, t.livemode) && t.status.counts_in_balances()
            })
            .flat_map(|t| {
                t.entries
                    .iter()
                    .enumerate()
                    .map(move |(line_no, e)| CountedEntry {
                        account_id: &e.line.account_id,
                        date: t.date,
                        transaction_id: &t.id,
                        line_no,
                        side: e.line.entry_type,
                        amount: e.line.amount,
                        description: e
                            .line
                            .description
                            .as_deref()
                            .filter(|d| !d.is_empty())
                            .unwrap_or(&t.description),
                    })
            })
    }

    /// Debit and credit totals per account of `entries`, by account id.
    fn totals_by_account<'a>(
        entries: impl Iterator<Item = CountedEntry<'a>>,
    ) -> Vec<(String, Totals)> {
        let mut by_account: BTreeMap<&str, Totals> = BTreeMap::new();
        for e in entries {
            by_account
                .entry(e.account_id)
                .or_default()
                .add(e.side, e.amount);
        }
        by_account
            .into_iter()
            .map(|(id, totals)| (id.to_owned(), totals))
            .collect()
    }

    /// The live account `id` of the tenant, by position.
    pub(crate) fn live_account(&self, tenant: &Tenant, id: &str) -> Option<usize> {
        live_in(&self.accounts, tenant, id)
    }

    /// The live transaction `id` of the tenant, by position.
    pub(crate) fn live_transaction(&self, tenant: &Tenant, id: &str) -> Option<usize> {
        live_in(&self.transactions, tenant, id)
    }

    /// Whether a transaction with this id exists in the organization (the primary key).
    pub(crate) fn transaction_exists(&self, organization_id: &str, id: &str) -> bool {
        self.transactions
            .iter()
            .any(|t| t.value.organization_id == organization_id && t.value.id == id)
    }
}

fn within(
    date: OffsetDateTime,
    from: Option<OffsetDateTime>,
    until: Option<OffsetDateTime>,
) -> bool {
    from.is_none_or(|f| date >= f) && until.is_none_or(|u| date < u)
}

impl Accounts for MemoryStore {
    async fn insert_account(
        &self,
        account: Account,
        audit: Audit,
    ) -> StoreResult<Written<Account>> {
        self.state().audited(audit, |state| {
            // The live-code index and the primary key both refuse the insert.
            let taken = state.accounts.iter().any(|a| {
                a.value.organization_id == account.organization_id
                    && (a.value.id == account.id
                        || (a.is_live()
                            && a.value.livemode == account.livemode
                            && a.value.code == account.code))
            });
            if taken {
                return Err(StoreError::Taken(Taken::AccountCode {
                    code: account.code.clone(),
                }));
            }
            state.accounts.push(Row::new(account.clone()));
            Ok(account)
        })
    }

    async fn update_account(
        &self,
        account: Account,
        audit: Audit,
    ) -> StoreResult<Written<Account>> {
        self.state().audited(audit, |state| {
            let stored = stored_mut(&mut state.accounts, &account, Resource::Account)?;
            stored.name = account.name.clone();
            stored.description = account.description.clone();
            stored.status = account.status;
            stored.parent_id = account.parent_id.clone();
            stored.metadata = account.metadata.clone();
            stored.updated_at = account.updated_at;
            Ok(account)
        })
    }

    table_methods! {
        fn get_account(get) -> Account: accounts;
    }

    async fn get_accounts(&self, tenant: &Tenant, ids: &[String]) -> StoreResult<Vec<Account>> {
        let mut found = live_where(&self.state().accounts, tenant, |a| ids.contains(&a.id));
        found.sort_by(|a, b| a.code.cmp(&b.code));
        Ok(found)
    }

    async fn list_accounts(
        &self,
        tenant: &Tenant,
        filter: &AccountFilter,
        page: Option<PageRequest>,
    ) -> StoreResult<Page<Account>> {
        let mut found = live_where(&self.state().accounts, tenant, |a| {
            filter.account_type.is_none_or(|t| a.account_type == t)
                && filter.status.is_none_or(|s| a.status == s)
                && filter.code.as_ref().is_none_or(|c| &a.code == c)
        });
        found.sort_by(|a, b| (&a.code, &a.id).cmp(&(&b.code, &b.id)));
        Ok(page_of(found, page))
    }

    async fn chart_with_totals(
        &self,
        tenant: &Tenant,
        from: Option<OffsetDateTime>,
        until: Option<OffsetDateTime>,
    ) -> StoreResult<Vec<ChartLine>> {
        let chart = self
            .list_accounts(tenant, &AccountFilter::default(), None)
            .await?;
        let totals: BTreeMap<String, Totals> = self
            .account_totals(tenant, None, from, until)
            .await?
            .into_iter()
            .collect();
        Ok(chart
            .items
            .into_iter()
            .map(|a| ChartLine {
                totals: totals.get(&a.id).copied().unwrap_or_default(),
                currency: a.currency,
                account: AccountRef {
                    id: a.id,
                    code: a.code,
                    name: a.name,
                    account_type: a.account_type,
                },
            })
            .collect())
    }

    async fn account_with_totals(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> StoreResult<Option<(Account, Totals)>> {
        let Some(account) = self.get_account(tenant, id).await? else {
            return Ok(None);
        };
        let totals = self
            .account_totals(tenant, Some(id), None, None)
            .await?
            .into_iter()
            .find(|(a, _)| a == id)
            .map(|(_, t)| t)
            .unwrap_or_default();
        Ok(Some((account, totals)))
    }

    async fn account_totals(
        &self,
        tenant: &Tenant,
        account_id: Option<&str>,
        from: Option<OffsetDateTime>,
        until: Option<OffsetDateTime>,
    ) -> StoreResult<Vec<(String, Totals)>> {
        let state = self.state();
        Ok(State::totals_by_account(
            state.counted_entries(tenant).filter(|e| {
                account_id.is_none_or(|id| e.account_id == id) && within(e.date, from, until)
            }),
        ))
    }

    async fn daily_totals(
        &self,
        tenant: &Tenant,
        ids: &[String],
        from: Option<time::Date>,
        until: Option<time::Date>,
    ) -> StoreResult<Vec<(String, time::Date, Totals)>> {
        let state = self.state();
        let mut by_day: BTreeMap<(String, time::Date), Totals> = BTreeMap::new();
        for e in state.counted_entries(tenant) {
            let day = e.date.to_offset(time::UtcOffset::UTC).date();
            if ids.iter().any(|id| id == e.account_id)
                && from.is_none_or(|f| day >= f)
                && until.is_none_or(|u| day < u)
            {
                by_day
                    .entry((e.account_id.to_owned(), day))
                    .or_default()
                    .add(e.side, e.amount);
            }
        }
        Ok(by_day
            .into_iter()
            .map(|((id, day), totals)| (id, day, totals))
            .collect())
    }

    async fn totals_of_accounts(
        &self,
        tenant: &Tenant,
        ids: &[String],
    ) -> StoreResult<Vec<(String, Totals)>> {
        let state = self.state();
        Ok(State::totals_by_account(
            state
                .counted_entries(tenant)
                .filter(|e| ids.iter().any(|id| id == e.account_id)),
        ))
    }

    async fn first_history_of_accounts(
        &self,
        tenant: &Tenant,
        ids: &[String],
        limit: i64,
    ) -> StoreResult<Vec<(String, HistoryRow)>> {
        let state = self.state();
        let limit = usize::try_from(limit).unwrap_or(0);
        let mut by_account: BTreeMap<&str, Vec<CountedEntry<'_>>> = BTreeMap::new();
        for e in state
            .counted_entries(tenant)
            .filter(|e| ids.iter().any(|id| id == e.account_id))
        {
            by_account.entry(e.account_id).or_default().push(e);
        }
        let mut rows = Vec::new();
        for (account_id, mut entries) in by_account {
            entries.sort_by(|a, b| a.key().cmp(&b.key()));
            rows.extend(
                entries
                    .iter()
                    .take(limit)
                    .map(|e| (account_id.to_owned(), e.row())),
            );
        }
        Ok(rows)
    }

    async fn account_history(
        &self,
        tenant: &Tenant,
        account_id: &str,
        from: Option<OffsetDateTime>,
        until: Option<OffsetDateTime>,
        page: PageRequest,
    ) -> StoreResult<HistoryPage> {
        let state = self.state();
        let mut all: Vec<CountedEntry<'_>> = state
            .counted_entries(tenant)
            .filter(|e| e.account_id == account_id)
            .collect();
        all.sort_by(|a, b| a.key().cmp(&b.key()));
        let window: Vec<&CountedEntry<'_>> =
            all.iter().filter(|e| within(e.date, from, until)).collect();
        let total_count = window.len() as i64;
        let rows: Vec<&CountedEntry<'_>> = window
            .into_iter()
            .skip(usize::try_from(page.offset).unwrap_or(0))
            .take(usize::try_from(page.limit).unwrap_or(0))
            .collect();
        // Everything of the account ordered before the page's first row (whatever
        // `from`); with an empty page, everything before the end of the window.
        let mut before = Totals::default();
        match rows.first() {
            Some(first) => {
                let first = first.key();
                for e in all.iter().filter(|e| e.key() < first) {
                    before.add(e.side, e.amount);
                }
            }
            None => {
                for e in all.iter().filter(|e| until.is_none_or(|u| e.date < u)) {
                    before.add(e.side, e.amount);
                }
            }
        }
        Ok(HistoryPage {
            rows: rows.iter().map(|e| e.row()).collect(),
            total_count,
            before,
        })
    }
}

impl Journal for MemoryStore {
    table_methods! {
        fn get_transaction(get) -> Transaction: transactions;
    }

    async fn list_transactions(
        &self,
        tenant: &Tenant,
        status: Option<TransactionStatus>,
        from: Option<OffsetDateTime>,
        until: Option<OffsetDateTime>,
        page: PageRequest,
    ) -> StoreResult<Page<Transaction>> {
        let mut found = live_where(&self.state().transactions, tenant, |t| {
            status.is_none_or(|s| t.status == s) && within(t.date, from, until)
        });
        // Newest date first.
        found.sort_by(|a, b| (b.date, &b.id).cmp(&(a.date, &a.id)));
        Ok(page_of(found, Some(page)))
    }

    async fn list_transactions_from(
        &self,
        tenant: &Tenant,
        source: &str,
        status: Option<TransactionStatus>,
        page: PageRequest,
    ) -> StoreResult<Page<Transaction>> {
        let all = PageRequest {
            limit: i64::MAX,
            offset: 0,
        };
        let everything = self
            .list_transactions(tenant, status, None, None, all)
            .await?;
        let found: Vec<Transaction> = everything
            .items
            .into_iter()
            .filter(|t| t.source.as_deref() == Some(source))
            .collect();
        Ok(page_of(found, Some(page)))
    }
}
