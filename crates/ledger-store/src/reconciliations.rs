//! Reconciliations, their matches and statement lines: synchronous writes (each with its
//! event and credits) and reads, on both backends.
//!
//! One open reconciliation per account is the partial unique index
//! `reconciliations_one_open`; one match per entry is the primary key of
//! `reconciliation_matches`, one per statement line its partial unique index. A change
//! is applied only to the open reconciliation as it was read (`updated_at` unchanged):
//! the conditional update takes its row lock, so changes of one reconciliation are
//! serialised and a completion never counts matches it did not see.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use ledger_domain::accounts::AccountType;
use ledger_domain::events::{Deletion, Event};
use ledger_domain::ports::{
    CreditCharge, EntryFilter, IdempotencyRecord, Page, PageRequest, ReconciliationFilter,
    Reconciliations, StoreResult, Tenant, Written,
};
use ledger_domain::ports::{State, Taken};
use ledger_domain::reconciliation::{
    JournalEntry, ReconciledEntry, Reconciliation, ReconciliationChange, ReconciliationStatus,
    StatementLine, signed,
};
use ledger_domain::{Resource, StoreError};
use time::{Date, PrimitiveDateTime, Time};

use crate::db::{Db, TxError, is_unique_violation};
use crate::idempotency::settle_idempotent;
use crate::rows::{DeletionRow, EventRow, IdempotencyRow, from_db, to_db};
use crate::schema::{
    ledger_entries, reconciliation_matches, reconciliations, statement_lines, transactions,
};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = reconciliations, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
struct ReconciliationRow {
    organization_id: String,
    livemode: bool,
    id: String,
    account_id: String,
    account_type: String,
    currency: String,
    start_date: Date,
    end_date: Date,
    opening_balance: i64,
    closing_balance: i64,
    status: String,
    completed_at: Option<PrimitiveDateTime>,
    created_at: PrimitiveDateTime,
    updated_at: PrimitiveDateTime,
}

impl From<&Reconciliation> for ReconciliationRow {
    fn from(r: &Reconciliation) -> Self {
        Self {
            organization_id: r.organization_id.clone(),
            livemode: r.livemode,
            id: r.id.clone(),
            account_id: r.account_id.clone(),
            account_type: r.account_type.as_str().to_owned(),
            currency: r.currency.clone(),
            start_date: r.start_date,
            end_date: r.end_date,
            opening_balance: r.opening_balance,
            closing_balance: r.closing_balance,
            status: r.status.as_str().to_owned(),
            completed_at: r.completed_at.map(to_db),
            created_at: to_db(r.created_at),
            updated_at: to_db(r.updated_at),
        }
    }
}

impl ReconciliationRow {
    fn into_domain(self, matches: Vec<ReconciledEntry>) -> StoreResult<Reconciliation> {
        let account_type = AccountType::parse(&self.account_type).ok_or_else(|| {
            StoreError::Internal(format!(
                "reconciliation {} has account type '{}'",
                self.id, self.account_type
            ))
        })?;
        let status = ReconciliationStatus::parse(&self.status).ok_or_else(|| {
            StoreError::Internal(format!(
                "reconciliation {} has status '{}'",
                self.id, self.status
            ))
        })?;
        Ok(Reconciliation {
            id: self.id,
            organization_id: self.organization_id,
            livemode: self.livemode,
            account_id: self.account_id,
            account_type,
            currency: self.currency,
            start_date: self.start_date,
            end_date: self.end_date,
            opening_balance: self.opening_balance,
            closing_balance: self.closing_balance,
            status,
            completed_at: self.completed_at.map(from_db),
            created_at: from_db(self.created_at),
            updated_at: from_db(self.updated_at),
            matches,
        })
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = reconciliation_matches, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
struct MatchRow {
    organization_id: String,
    livemode: bool,
    entry_id: String,
    reconciliation_id: String,
    transaction_id: String,
    date: Date,
    amount: i64,
    description: String,
    statement_line_id: Option<String>,
    matched_at: PrimitiveDateTime,
}

impl MatchRow {
    fn of(r: &Reconciliation, m: &ReconciledEntry) -> Self {
        Self {
            organization_id: r.organization_id.clone(),
            livemode: r.livemode,
            entry_id: m.entry_id.clone(),
            reconciliation_id: r.id.clone(),
            transaction_id: m.transaction_id.clone(),
            date: m.date,
            amount: m.amount,
            description: m.description.clone(),
            statement_line_id: m.statement_line_id.clone(),
            matched_at: to_db(m.matched_at),
        }
    }
}

impl From<MatchRow> for ReconciledEntry {
    fn from(m: MatchRow) -> Self {
        Self {
            entry_id: m.entry_id,
            transaction_id: m.transaction_id,
            date: m.date,
            amount: m.amount,
            description: m.description,
            statement_line_id: m.statement_line_id,
            matched_at: from_db(m.matched_at),
        }
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = statement_lines, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
struct LineRow {
    organization_id: String,
    livemode: bool,
    id: String,
    reconciliation_id: String,
    line_number: i32,
    date: Date,
    amount: i64,
    description: String,
    reference: Option<String>,
    created_at: PrimitiveDateTime,
}

impl From<&StatementLine> for LineRow {
    fn from(l: &StatementLine) -> Self {
        Self {
            organization_id: l.organization_id.clone(),
            livemode: l.livemode,
            id: l.id.clone(),
            reconciliation_id: l.reconciliation_id.clone(),
            line_number: l.line_number,
            date: l.date,
            amount: l.amount,
            description: l.description.clone(),
            reference: l.reference.clone(),
            created_at: to_db(l.created_at),
        }
    }
}

impl From<LineRow> for StatementLine {
    fn from(l: LineRow) -> Self {
        Self {
            id: l.id,
            organization_id: l.organization_id,
            livemode: l.livemode,
            reconciliation_id: l.reconciliation_id,
            line_number: l.line_number,
            date: l.date,
            amount: l.amount,
            description: l.description,
            reference: l.reference,
            created_at: from_db(l.created_at),
        }
    }
}

/// An entry row as the reconciliation reads it.
#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = ledger_entries, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
struct EntryRow {
    id: String,
    transaction_id: String,
    account_id: String,
    entry_type: String,
    amount: i64,
    description: Option<String>,
    date: PrimitiveDateTime,
}

fn not_found(id: &str) -> StoreError {
    StoreError::missing(Resource::Reconciliation, id)
}

fn not_open(id: &str) -> StoreError {
    StoreError::status_changed(
        Resource::Reconciliation,
        id,
        State::Open,
        Some("completed".to_owned()),
    )
}

fn in_progress(account_id: &str) -> StoreError {
    StoreError::Taken(Taken::OpenReconciliation {
        account_id: account_id.to_owned(),
    })
}

fn entry_matched(entry_id: &str) -> StoreError {
    StoreError::Taken(Taken::MatchedEntry {
        entry_id: entry_id.to_owned(),
    })
}

fn line_matched(line_id: &str) -> StoreError {
    StoreError::Taken(Taken::MatchedStatementLine {
        line_id: line_id.to_owned(),
    })
}

/// Why a change of `id` updated no row: it is gone, completed, or changed meanwhile.
fn unchanged(status: Option<String>, id: &str) -> TxError {
    match status.as_deref() {
        None => not_found(id).into(),
        Some("open") => StoreError::changed(id).into(),
        Some(_) => not_open(id).into(),
    }
}

/// The matches of the reconciliations `ids` of an organization, by date then entry.
macro_rules! matches_of {
    ($conn:ident, $organization_id:expr, $ids:expr) => {{
        let rows: Vec<MatchRow> = reconciliation_matches::table
            .filter(reconciliation_matches::organization_id.eq($organization_id))
            .filter(reconciliation_matches::reconciliation_id.eq_any($ids))
            .order((
                reconciliation_matches::date.asc(),
                reconciliation_matches::entry_id.asc(),
            ))
            .select(MatchRow::as_select())
            .load($conn)
            .await?;
        rows
    }};
}

/// The live status of reconciliation `$id` of the tenant of `$row`, inside a write.
macro_rules! live_status {
    ($conn:ident, $row:expr, $id:expr) => {{
        let status: Option<String> = reconciliations::table
            .filter(tenant_of!(reconciliations, $row))
            .filter(reconciliations::id.eq($id))
            .filter(reconciliations::deleted_at.is_null())
            .select(reconciliations::status)
            .first($conn)
            .await
            .optional()?;
        status
    }};
}

impl Reconciliations for Db {
    async fn insert_reconciliation(
        &self,
        reconciliation: Reconciliation,
        event: Event,
        idempotency: Option<IdempotencyRecord>,
        charge: Option<CreditCharge>,
    ) -> StoreResult<Written<Reconciliation>> {
        let row = ReconciliationRow::from(&reconciliation);
        let event_row = EventRow::from(&event);
        let idem_row = idempotency.as_ref().map(IdempotencyRow::from);
        let written = db_write!(self, |conn| {
            audited_write!(conn, &idem_row, &charge, &event_row, {
                diesel::insert_into(reconciliations::table)
                    .values(&row)
                    .execute(conn)
                    .await
                    .map_err(|e| -> TxError {
                        if is_unique_violation(&e) {
                            in_progress(&row.account_id).into()
                        } else {
                            e.into()
                        }
                    })?;
            });
            Ok(Written::Done(reconciliation))
        });
        settle_idempotent(self, written, idempotency).await
    }

    async fn save_reconciliation(
        &self,
        change: ReconciliationChange,
        event: Event,
        idempotency: Option<IdempotencyRecord>,
        charge: Option<CreditCharge>,
    ) -> StoreResult<Written<()>> {
        let r = &change.reconciliation;
        let row = ReconciliationRow::from(r);
        let expected = to_db(change.expected_updated_at);
        let added: Vec<MatchRow> = change.add.iter().map(|m| MatchRow::of(r, m)).collect();
        let added_entries: Vec<String> = added.iter().map(|m| m.entry_id.clone()).collect();
        let added_lines: Vec<String> = added
            .iter()
            .filter_map(|m| m.statement_line_id.clone())
            .collect();
        let removed = change.remove.clone();
        let lines: Vec<LineRow> = change.lines.iter().map(LineRow::from).collect();
        let event_row = EventRow::from(&event);
        let idem_row = idempotency.as_ref().map(IdempotencyRow::from);
        let written = db_write!(self, |conn| {
            audited_write!(conn, &idem_row, &charge, &event_row, {
                let changed = diesel::update(reconciliations::table)
                    .filter(tenant_of!(reconciliations, row))
                    .filter(reconciliations::id.eq(&row.id))
                    .filter(reconciliations::deleted_at.is_null())
                    .filter(reconciliations::status.eq("open"))
                    .filter(reconciliations::updated_at.eq(expected))
                    .set((
                        reconciliations::start_date.eq(row.start_date),
                        reconciliations::end_date.eq(row.end_date),
                        reconciliations::closing_balance.eq(row.closing_balance),
                        reconciliations::status.eq(&row.status),
                        reconciliations::completed_at.eq(row.completed_at),
                        reconciliations::updated_at.eq(row.updated_at),
                    ))
                    .execute(conn)
                    .await?;
                if changed == 0 {
                    let status = live_status!(conn, row, &row.id);
                    return Err(unchanged(status, &row.id));
                }
                if !removed.is_empty() {
                    diesel::delete(
                        reconciliation_matches::table
                            .filter(
                                reconciliation_matches::organization_id.eq(&row.organization_id),
                            )
                            .filter(reconciliation_matches::reconciliation_id.eq(&row.id))
                            .filter(reconciliation_matches::entry_id.eq_any(&removed)),
                    )
                    .execute(conn)
                    .await?;
                }
                if !added.is_empty() {
                    let taken: Option<String> = reconciliation_matches::table
                        .filter(reconciliation_matches::organization_id.eq(&row.organization_id))
                        .filter(reconciliation_matches::entry_id.eq_any(&added_entries))
                        .select(reconciliation_matches::entry_id)
                        .first(conn)
                        .await
                        .optional()?;
                    if let Some(entry) = taken {
                        return Err(entry_matched(&entry).into());
                    }
                    if !added_lines.is_empty() {
                        let taken: Option<Option<String>> = reconciliation_matches::table
                            .filter(
                                reconciliation_matches::organization_id.eq(&row.organization_id),
                            )
                            .filter(reconciliation_matches::statement_line_id.eq_any(&added_lines))
                            .select(reconciliation_matches::statement_line_id)
                            .first(conn)
                            .await
                            .optional()?;
                        if let Some(Some(line)) = taken {
                            return Err(line_matched(&line).into());
                        }
                    }
                    for m in &added {
                        diesel::insert_into(reconciliation_matches::table)
                            .values(m)
                            .execute(conn)
                            .await
                            .map_err(|e| -> TxError {
                                if is_unique_violation(&e) {
                                    entry_matched(&m.entry_id).into()
                                } else {
                                    e.into()
                                }
                            })?;
                    }
                }
                for l in &lines {
                    diesel::insert_into(statement_lines::table)
                        .values(l)
                        .execute(conn)
                        .await?;
                }
            });
            Ok(Written::Done(()))
        });
        settle_idempotent(self, written, idempotency).await
    }

    async fn delete_reconciliation(
        &self,
        reconciliation_id: &str,
        deletion: Deletion,
        event: Event,
        idempotency: Option<IdempotencyRecord>,
        charge: Option<CreditCharge>,
    ) -> StoreResult<Written<()>> {
        let id = reconciliation_id.to_owned();
        let deletion_row = DeletionRow::from(&deletion);
        let event_row = EventRow::from(&event);
        let idem_row = idempotency.as_ref().map(IdempotencyRow::from);
        let written = db_write!(self, |conn| {
            audited_write!(conn, &idem_row, &charge, &event_row, {
                let status = live_status!(conn, deletion_row, &id);
                match status.as_deref() {
                    None => return Err(not_found(&id).into()),
                    Some("open") => {}
                    Some(_) => return Err(not_open(&id).into()),
                }
                let live = reconciliations::table
                    .filter(tenant_of!(reconciliations, deletion_row))
                    .filter(reconciliations::id.eq(&id))
                    .filter(reconciliations::deleted_at.is_null())
                    .filter(reconciliations::status.eq("open"));
                soft_delete!(
                    conn,
                    reconciliations,
                    live,
                    &deletion_row,
                    not_found(&id).into()
                );
                diesel::delete(
                    reconciliation_matches::table
                        .filter(
                            reconciliation_matches::organization_id
                                .eq(&deletion_row.organization_id),
                        )
                        .filter(reconciliation_matches::reconciliation_id.eq(&id)),
                )
                .execute(conn)
                .await?;
            });
            Ok(Written::Done(()))
        });
        settle_idempotent(self, written, idempotency).await
    }

    async fn get_reconciliation(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> StoreResult<Option<Reconciliation>> {
        let found: Option<(ReconciliationRow, Vec<MatchRow>)> = db_read!(self, |conn| {
            let row: Option<ReconciliationRow> = reconciliations::table
                .filter(tenant_of!(reconciliations, tenant))
                .filter(reconciliations::id.eq(id))
                .filter(reconciliations::deleted_at.is_null())
                .select(ReconciliationRow::as_select())
                .first(conn)
                .await
                .optional()?;
            match row {
                None => Ok(None),
                Some(row) => {
                    let ids = vec![row.id.clone()];
                    let matches = matches_of!(conn, &tenant.organization_id, &ids);
                    Ok(Some((row, matches)))
                }
            }
        })?;
        found
            .map(|(row, matches)| row.into_domain(matches.into_iter().map(Into::into).collect()))
            .transpose()
    }

    async fn list_reconciliations(
        &self,
        tenant: &Tenant,
        filter: &ReconciliationFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Reconciliation>> {
        let account_id = filter.account_id.as_deref();
        let status = filter.status.map(ReconciliationStatus::as_str);
        let (rows, matches, total): (Vec<ReconciliationRow>, Vec<MatchRow>, i64) =
            db_read!(self, |conn| {
                // The filter is built twice (count and page): boxed queries are not Clone.
                let filtered = || {
                    let mut query = reconciliations::table
                        .filter(tenant_of!(reconciliations, tenant))
                        .filter(reconciliations::deleted_at.is_null())
                        .into_boxed();
                    if let Some(a) = account_id {
                        query = query.filter(reconciliations::account_id.eq(a));
                    }
                    if let Some(s) = status {
                        query = query.filter(reconciliations::status.eq(s));
                    }
                    query
                };
                let total: i64 = filtered().count().get_result(conn).await?;
                let rows: Vec<ReconciliationRow> = filtered()
                    .order((reconciliations::end_date.desc(), reconciliations::id.asc()))
                    .select(ReconciliationRow::as_select())
                    .limit(page.limit)
                    .offset(page.offset)
                    .load(conn)
                    .await?;
                let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
                let matches = matches_of!(conn, &tenant.organization_id, &ids);
                Ok((rows, matches, total))
            })?;
        let mut items = Vec::with_capacity(rows.len());
        for row in rows {
            let mine: Vec<ReconciledEntry> = matches
                .iter()
                .filter(|m| m.reconciliation_id == row.id)
                .cloned()
                .map(Into::into)
                .collect();
            items.push(row.into_domain(mine)?);
        }
        Ok(Page {
            items,
            total_count: total,
        })
    }

    async fn statement_lines(
        &self,
        tenant: &Tenant,
        reconciliation_id: &str,
    ) -> StoreResult<Vec<StatementLine>> {
        let rows: Vec<LineRow> = db_read!(self, |conn| {
            Ok(statement_lines::table
                .filter(tenant_of!(statement_lines, tenant))
                .filter(statement_lines::reconciliation_id.eq(reconciliation_id))
                .order(statement_lines::line_number.asc())
                .select(LineRow::as_select())
                .load(conn)
                .await?)
        })?;
        Ok(rows.into_iter().map(Into::into).collect())
    }

    async fn journal_entries(
        &self,
        tenant: &Tenant,
        filter: &EntryFilter,
    ) -> StoreResult<Vec<JournalEntry>> {
        let midnight = |d: Date| PrimitiveDateTime::new(d, Time::MIDNIGHT);
        let from = filter.from.map(midnight);
        let until = filter.until.and_then(|d| d.next_day()).map(midnight);
        let account_id = filter.account_id.as_str();
        let ids = filter.entry_ids.as_deref();
        type TxnRow = (String, String, Option<String>);
        let (entries, txns, matched): (Vec<EntryRow>, Vec<TxnRow>, Vec<(String, String)>) =
            db_read!(self, |conn| {
                let mut query = ledger_entries::table
                    .filter(tenant_of!(ledger_entries, tenant))
                    .filter(ledger_entries::account_id.eq(account_id))
                    .filter(ledger_entries::counted.eq(true))
                    .into_boxed();
                if let Some(from) = from {
                    query = query.filter(ledger_entries::date.ge(from));
                }
                if let Some(until) = until {
                    query = query.filter(ledger_entries::date.lt(until));
                }
                if let Some(ids) = ids {
                    query = query.filter(ledger_entries::id.eq_any(ids));
                }
                let entries: Vec<EntryRow> = query
                    .order((ledger_entries::date.asc(), ledger_entries::id.asc()))
                    .select(EntryRow::as_select())
                    .load(conn)
                    .await?;
                let mut txn_ids: Vec<String> =
                    entries.iter().map(|e| e.transaction_id.clone()).collect();
                txn_ids.sort();
                txn_ids.dedup();
                let entry_ids: Vec<String> = entries.iter().map(|e| e.id.clone()).collect();
                let mut txns: Vec<TxnRow> = Vec::new();
                let mut matched: Vec<(String, String)> = Vec::new();
                for chunk in txn_ids.chunks(crate::db::ROWS_PER_STATEMENT) {
                    txns.extend(
                        transactions::table
                            .filter(tenant_of!(transactions, tenant))
                            .filter(transactions::id.eq_any(chunk))
                            .filter(transactions::deleted_at.is_null())
                            .select((
                                transactions::id,
                                transactions::description,
                                transactions::reference,
                            ))
                            .load::<TxnRow>(conn)
                            .await?,
                    );
                }
                for chunk in entry_ids.chunks(crate::db::ROWS_PER_STATEMENT) {
                    matched.extend(
                        reconciliation_matches::table
                            .inner_join(
                                reconciliations::table.on(reconciliations::organization_id
                                    .eq(reconciliation_matches::organization_id)
                                    .and(
                                        reconciliations::id
                                            .eq(reconciliation_matches::reconciliation_id),
                                    )),
                            )
                            .filter(
                                reconciliation_matches::organization_id.eq(&tenant.organization_id),
                            )
                            .filter(reconciliation_matches::entry_id.eq_any(chunk))
                            .filter(reconciliations::deleted_at.is_null())
                            .select((
                                reconciliation_matches::entry_id,
                                reconciliation_matches::reconciliation_id,
                            ))
                            .load::<(String, String)>(conn)
                            .await?,
                    );
                }
                Ok((entries, txns, matched))
            })?;
        let mut out = Vec::with_capacity(entries.len());
        for e in entries {
            let Some((_, description, reference)) =
                txns.iter().find(|(id, _, _)| *id == e.transaction_id)
            else {
                continue;
            };
            let reconciliation_id = matched
                .iter()
                .find(|(entry, _)| *entry == e.id)
                .map(|(_, r)| r.clone());
            if filter.unmatched_only && reconciliation_id.is_some() {
                continue;
            }
            let entry_type =
                ledger_domain::accounts::EntryType::parse(&e.entry_type).ok_or_else(|| {
                    StoreError::Internal(format!("entry {} has type '{}'", e.id, e.entry_type))
                })?;
            out.push(JournalEntry {
                entry_id: e.id,
                transaction_id: e.transaction_id,
                account_id: e.account_id,
                date: e.date.date(),
                amount: signed(entry_type, e.amount),
                description: match e.description {
                    Some(d) if !d.is_empty() && &d != description => format!("{description} {d}"),
                    _ => description.clone(),
                },
                reference: None,
                transaction_reference: reference.clone(),
                reconciliation_id,
            });
        }
        Ok(out)
    }

    async fn reconciliation_locking(
        &self,
        tenant: &Tenant,
        transaction_id: &str,
    ) -> StoreResult<Option<String>> {
        db_read!(self, |conn| {
            Ok(reconciliation_matches::table
                .inner_join(
                    reconciliations::table.on(reconciliations::organization_id
                        .eq(reconciliation_matches::organization_id)
                        .and(reconciliations::id.eq(reconciliation_matches::reconciliation_id))),
                )
                .filter(reconciliation_matches::organization_id.eq(&tenant.organization_id))
                .filter(reconciliation_matches::transaction_id.eq(transaction_id))
                .filter(reconciliations::livemode.eq(tenant.livemode))
                .filter(reconciliations::deleted_at.is_null())
                .filter(reconciliations::status.eq("completed"))
                .select(reconciliations::id)
                .first::<String>(conn)
                .await
                .optional()?)
        })
    }
}
