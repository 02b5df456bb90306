//! Applying a job: completion, effect and events in one database transaction.
//!
//! The job is first marked `completed` by a conditional update (still `processing`
//! with the worker's attempts, else `job_lost`); then the effect runs with its
//! precondition expressed as a conditional update (`... WHERE status = 'pending'`),
//! and zero rows touched is the business-rule refusal. Any refusal or error rolls the
//! whole transaction back, so a job's effect and its completion commit together.
//!
//! The effect's rows are prepared before the transaction opens (`prepare`); the checks a
//! write makes under lock live in `checks`, shared with the group commit.

mod checks;
mod prepare;

use std::future::Future;

use diesel::prelude::*;
use diesel::result::QueryResult;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use ledger_domain::events::Event;
use ledger_domain::jobs::Job;
use ledger_domain::ports::{Effect, StoreResult};
use ledger_domain::transactions::TransactionStatus;
use ledger_domain::{Resource, StoreError};
use time::{OffsetDateTime, PrimitiveDateTime};

use crate::db::{Db, SqliteConn, unique_or};
use crate::locks::AccountLocks;
use crate::references::in_use;
use crate::rows::{EntryRow, event_rows, json_text, to_db};
use crate::schema::{
    accounts, contacts, document_history, document_payments, document_references, documents,
    events, ledger_entries, transactions,
};

use checks::{account_ids, changed_meanwhile, duplicate_reference, lock_categories};
pub(crate) use checks::{check_locked, check_parties};
use prepare::{Prepared, PreparedDocument, prepare};

/// Inserting one transaction's lines. On PostgreSQL in one statement: the statement-level
/// triggers that keep the maintained totals then take each touched total's row once, in
/// key order, as a concurrent group-commit batch does (lines inserted one statement each
/// would take them in line order, and two such orders deadlock). On SQLite one statement
/// a row: diesel-async has no multi-row insert there, and a single writer cannot deadlock.
pub(crate) trait EntryConn {
    fn insert_entries<'a>(
        &'a mut self,
        rows: &'a [EntryRow],
    ) -> impl Future<Output = QueryResult<()>> + Send + 'a;
}

impl EntryConn for AsyncPgConnection {
    insert_chunks!(insert_entries, ledger_entries::table, EntryRow);
}

impl EntryConn for SqliteConn {
    insert_each!(insert_entries, ledger_entries::table, EntryRow);
}

/// Inside the [`apply`] write transaction: marks the tenant's posted transaction `$id`
/// reversed by `$mirror_id` for `$reason`, refused when it is not posted (any more).
macro_rules! mark_reversed {
    ($conn:ident, $org:expr, $livemode:expr, $id:expr, $mirror_id:expr, $reason:expr, $now:expr) => {{
        let reversed = diesel::update(transactions::table)
            .filter(tenant_of!(transactions, $org.clone(), $livemode))
            .filter(transactions::id.eq($id))
            .filter(transactions::deleted_at.is_null())
            .filter(transactions::status.eq(TransactionStatus::Posted.as_str()))
            .set((
                transactions::status.eq(TransactionStatus::Reversed.as_str()),
                transactions::reversed_by.eq(Some($mirror_id)),
                transactions::reversal_reason.eq(Some($reason)),
                transactions::updated_at.eq($now),
            ))
            .execute(&mut *$conn)
            .await?;
        if reversed == 0 {
            return Err(StoreError::transaction_not_posted($id).into());
        }
    }};
}

/// Inside the [`apply`] write transaction: a document effect's own rows, each write
/// conditional on the state the decision read (`concurrent_update` otherwise). The
/// posting or reversal it carries is written by the caller like any other.
macro_rules! apply_document {
    ($conn:ident, $org:expr, $livemode:expr, $now:expr, $doc:expr) => {{
        let tenant_doc = |id: &str| {
            documents::table
                .filter(tenant_of!(documents, $org.clone(), $livemode))
                .filter(documents::id.eq(id.to_owned()))
                .filter(documents::deleted_at.is_null())
        };
        match $doc {
            PreparedDocument::Insert {
                row,
                references,
                history,
            } => {
                lock_categories($conn, &$org, $livemode, references).await?;
                diesel::insert_into(documents::table)
                    .values(row)
                    .execute($conn)
                    .await
                    .map_err(|e| unique_or(e, || StoreError::changed(&row.number)))?;
                for reference in references {
                    diesel::insert_into(document_references::table)
                        .values(reference)
                        .execute($conn)
                        .await?;
                }
                diesel::insert_into(document_history::table)
                    .values(history)
                    .execute($conn)
                    .await?;
            }
            PreparedDocument::Replace { row, references } => {
                lock_categories($conn, &$org, $livemode, references).await?;
                let changed = diesel::update(tenant_doc(&row.id))
                    .filter(documents::status.eq("draft"))
                    .set((
                        documents::contact_id.eq(&row.contact_id),
                        documents::issue_date.eq(row.issue_date),
                        documents::due_date.eq(row.due_date),
                        documents::currency.eq(&row.currency),
                        documents::items.eq(&row.items),
                        documents::taxes.eq(&row.taxes),
                        documents::subtotal.eq(row.subtotal),
                        documents::tax_amount.eq(row.tax_amount),
                        documents::total.eq(row.total),
                        documents::notes.eq(&row.notes),
                        documents::updated_at.eq(row.updated_at),
                    ))
                    .execute($conn)
                    .await?;
                if changed == 0 {
                    return Err(changed_meanwhile(&row.id));
                }
                diesel::delete(
                    document_references::table
                        .filter(document_references::organization_id.eq($org.clone()))
                        .filter(document_references::document_id.eq(&row.id)),
                )
                .execute($conn)
                .await?;
                for reference in references {
                    diesel::insert_into(document_references::table)
                        .values(reference)
                        .execute($conn)
                        .await?;
                }
            }
            PreparedDocument::Delete { id, deletion } => {
                let draft = tenant_doc(id).filter(documents::status.eq("draft"));
                soft_delete!(
                    $conn,
                    documents,
                    draft,
                    deletion,
                    changed_meanwhile(id),
                    documents::updated_at.eq($now),
                );
            }
            PreparedDocument::Transition {
                row,
                expected_status,
                expected_paid,
                posting: _,
                reversal,
                payment,
                history,
            } => {
                let changed = diesel::update(tenant_doc(&row.id))
                    .filter(documents::status.eq(*expected_status))
                    .filter(documents::amount_paid.eq(*expected_paid))
                    .set((
                        documents::status.eq(&row.status),
                        documents::amount_paid.eq(row.amount_paid),
                        documents::posting_id.eq(&row.posting_id),
                        documents::updated_at.eq(row.updated_at),
                    ))
                    .execute($conn)
                    .await?;
                if changed == 0 {
                    return Err(changed_meanwhile(&row.id));
                }
                if let Some((original, reason, mirror)) = reversal {
                    mark_reversed!(
                        $conn,
                        $org,
                        $livemode,
                        original,
                        &mirror.row.id,
                        reason,
                        $now
                    );
                }
                if let Some(payment) = payment {
                    diesel::insert_into(document_payments::table)
                        .values(payment)
                        .execute($conn)
                        .await?;
                }
                diesel::insert_into(document_history::table)
                    .values(history)
                    .execute($conn)
                    .await?;
            }
        }
    }};
}

/// Inside the apply transaction: refuses when the row `$id` of `$table` is still in use
/// (see `references`), then soft-deletes it as `$deletion`, refused when it is not live.
macro_rules! delete_unused {
    ($conn:ident, $table:ident, $resource:expr, $org:expr, $livemode:expr, $id:expr, $deletion:expr, $now:expr) => {{
        if let Some(refusal) = in_use($conn, $org, $livemode, $resource, $id).await? {
            return Err(refusal.into());
        }
        let live = $table::table
            .filter(tenant_of!($table, $org, $livemode))
            .filter($table::id.eq($id))
            .filter($table::deleted_at.is_null());
        soft_delete!(
            $conn,
            $table,
            live,
            $deletion,
            StoreError::missing($resource, $id.clone()).into(),
            $table::updated_at.eq($now),
        );
    }};
}

/// See [`ledger_domain::ports::Jobs::apply_job`].
pub(crate) async fn apply(
    db: &Db,
    job: &Job,
    effect: Effect,
    events: Vec<Event>,
    result: serde_json::Value,
    now: OffsetDateTime,
) -> StoreResult<()> {
    let org = job.organization_id.clone();
    let livemode = job.livemode;
    let job_id = job.id.clone();
    let attempts = job.attempts;
    let result = json_text(&result);
    let now = to_db(now);
    let prepared = prepare(effect);
    let event_rows = event_rows(&events);
    let posted = TransactionStatus::Posted.as_str();
    db_write!(db, |conn| {
        end_claim!(
            conn,
            &org,
            &job_id,
            attempts,
            (
                jobs::status.eq("completed"),
                jobs::result.eq(Some(&result)),
                jobs::locked_until.eq(None::<PrimitiveDateTime>),
                jobs::completed_at.eq(Some(now)),
                jobs::updated_at.eq(now),
            ),
        );
        // The transaction rows an effect may touch: this tenant's, not deleted.
        let tenant_txn = |id: &str| {
            transactions::table
                .filter(tenant_of!(transactions, org.clone(), livemode))
                .filter(transactions::id.eq(id.to_owned()))
                .filter(transactions::deleted_at.is_null())
        };
        // Lock the accounts the effect writes entries to (see `locks`).
        let (touched, any_status): (Vec<String>, bool) = match &prepared {
            Prepared::Insert(new) | Prepared::Replace(new) => (account_ids(&new.entries), false),
            Prepared::InsertMany { entries, .. } => (account_ids(entries), false),
            Prepared::Reverse { mirror, .. } => (account_ids(&mirror.entries), true),
            Prepared::Post { id, .. } => {
                let mut ids: Vec<String> = ledger_entries::table
                    .filter(ledger_entries::organization_id.eq(&org))
                    .filter(ledger_entries::transaction_id.eq(id))
                    .select(ledger_entries::account_id)
                    .load(conn)
                    .await?;
                ids.sort();
                ids.dedup();
                (ids, false)
            }
            Prepared::DeleteAccount { id, .. } => (vec![id.clone()], true),
            Prepared::Document(PreparedDocument::Transition {
                posting: Some(new), ..
            }) => (account_ids(&new.entries), false),
            Prepared::Document(PreparedDocument::Transition {
                reversal: Some((_, _, mirror)),
                ..
            }) => (account_ids(&mirror.entries), true),
            Prepared::Document(_)
            | Prepared::DeleteTransaction { .. }
            | Prepared::InsertContact(_)
            | Prepared::ReplaceContact(_)
            | Prepared::DeleteContact { .. } => (Vec::new(), true),
        };
        if !touched.is_empty() {
            let exclusive = matches!(prepared, Prepared::DeleteAccount { .. });
            let locked = conn
                .lock_accounts(&org, livemode, &touched, exclusive)
                .await?;
            if !exclusive {
                check_locked(&touched, &locked, any_status)?;
            }
        }
        // The contact and category a new or replaced transaction names must still be live.
        if let Prepared::Insert(new)
        | Prepared::Replace(new)
        | Prepared::Document(PreparedDocument::Transition {
            posting: Some(new), ..
        }) = &prepared
        {
            check_parties(conn, &org, livemode, &new.row).await?;
        }
        if let Prepared::InsertMany { transactions, .. } = &prepared {
            for new in transactions {
                check_parties(conn, &org, livemode, &new.row).await?;
            }
        }
        let (inserts, replaced) = match &prepared {
            Prepared::Insert(new) => (Some(new), None),
            Prepared::InsertMany {
                transactions: batch,
                entries,
            } => {
                // The transactions first (the entries reference them), then every entry
                // of the batch sorted by account and date: one statement per chunk, so
                // the maintained totals' rows are taken in key order across the whole
                // batch, as every other write takes them.
                for new in batch {
                    diesel::insert_into(transactions::table)
                        .values(&new.row)
                        .execute(conn)
                        .await?;
                }
                (None, Some(entries))
            }
            Prepared::Replace(new) => {
                let changed = diesel::update(tenant_txn(&new.row.id))
                    .filter(transactions::status.eq("pending"))
                    .set((
                        transactions::description.eq(&new.row.description),
                        transactions::date.eq(new.row.date),
                        transactions::currency.eq(&new.row.currency),
                        transactions::amount.eq(new.row.amount),
                        transactions::reference.eq(&new.row.reference),
                        transactions::contact_id.eq(&new.row.contact_id),
                        transactions::category_id.eq(&new.row.category_id),
                        transactions::metadata.eq(&new.row.metadata),
                        transactions::updated_at.eq(new.row.updated_at),
                    ))
                    .execute(conn)
                    .await?;
                if changed == 0 {
                    return Err(StoreError::transaction_not_pending(&new.row.id).into());
                }
                diesel::delete(
                    ledger_entries::table
                        .filter(ledger_entries::organization_id.eq(&org))
                        .filter(ledger_entries::transaction_id.eq(&new.row.id)),
                )
                .execute(conn)
                .await?;
                (None, Some(&new.entries))
            }
            Prepared::Post { id, posted_at } => {
                let changed = diesel::update(tenant_txn(id))
                    .filter(transactions::status.eq("pending"))
                    .set((
                        transactions::status.eq(posted),
                        transactions::posted_at.eq(Some(*posted_at)),
                        transactions::updated_at.eq(now),
                    ))
                    .execute(conn)
                    .await?;
                if changed == 0 {
                    return Err(StoreError::transaction_not_pending(id).into());
                }
                // Entries of a posted transaction count in balances from now on.
                diesel::update(ledger_entries::table)
                    .filter(ledger_entries::organization_id.eq(&org))
                    .filter(ledger_entries::transaction_id.eq(id))
                    .set(ledger_entries::counted.eq(true))
                    .execute(conn)
                    .await?;
                (None, None)
            }
            Prepared::Reverse { id, reason, mirror } => {
                mark_reversed!(conn, org, livemode, id, &mirror.row.id, reason, now);
                // The reversed transaction's entries stay counted, beside the mirror's.
                (Some(mirror), None)
            }
            Prepared::DeleteTransaction { id, deletion } => {
                let pending = tenant_txn(id).filter(transactions::status.eq("pending"));
                soft_delete!(
                    conn,
                    transactions,
                    pending,
                    deletion,
                    StoreError::transaction_not_pending(id).into(),
                    transactions::updated_at.eq(now),
                );
                (None, None)
            }
            Prepared::DeleteAccount { id, deletion } => {
                // The account is locked exclusively above, so no posting adds an entry
                // between this check and the delete.
                delete_unused!(
                    conn,
                    accounts,
                    Resource::Account,
                    &org,
                    livemode,
                    id,
                    deletion,
                    now
                );
                (None, None)
            }
            Prepared::InsertContact(row) => {
                diesel::insert_into(contacts::table)
                    .values(row)
                    .execute(conn)
                    .await
                    .map_err(|e| duplicate_reference(e, row.reference.as_ref()))?;
                (None, None)
            }
            Prepared::ReplaceContact(row) => {
                let changed = diesel::update(contacts::table)
                    .filter(tenant_of!(contacts, &org, livemode))
                    .filter(contacts::id.eq(&row.id))
                    .filter(contacts::deleted_at.is_null())
                    .set((
                        contacts::name.eq(&row.name),
                        contacts::email.eq(&row.email),
                        contacts::phone.eq(&row.phone),
                        contacts::website.eq(&row.website),
                        contacts::tax_number.eq(&row.tax_number),
                        contacts::reference.eq(&row.reference),
                        contacts::address.eq(&row.address),
                        contacts::city.eq(&row.city),
                        contacts::state.eq(&row.state),
                        contacts::zip_code.eq(&row.zip_code),
                        contacts::country.eq(&row.country),
                        contacts::currency_id.eq(&row.currency_id),
                        contacts::enabled.eq(row.enabled),
                        contacts::metadata.eq(&row.metadata),
                        contacts::updated_at.eq(row.updated_at),
                    ))
                    .execute(conn)
                    .await
                    .map_err(|e| duplicate_reference(e, row.reference.as_ref()))?;
                if changed == 0 {
                    return Err(StoreError::missing(Resource::Contact, &row.id).into());
                }
                (None, None)
            }
            Prepared::DeleteContact { id, deletion } => {
                // Exclusive lock first: postings naming the contact finish before the
                // in-use check below looks for them (see `locks`).
                conn.lock_contact(&org, livemode, id, true).await?;
                delete_unused!(
                    conn,
                    contacts,
                    Resource::Contact,
                    &org,
                    livemode,
                    id,
                    deletion,
                    now
                );
                (None, None)
            }
            // Applied below, after the other effects' shared steps.
            Prepared::Document(_) => (None, None),
        };
        let (inserts, replaced) = match &prepared {
            Prepared::Document(doc) => {
                apply_document!(conn, org, livemode, now, doc);
                match doc {
                    PreparedDocument::Transition {
                        posting: Some(new), ..
                    } => (Some(new), None),
                    PreparedDocument::Transition {
                        reversal: Some((_, _, mirror)),
                        ..
                    } => (Some(mirror), None),
                    _ => (None, None),
                }
            }
            _ => (inserts, replaced),
        };
        if let Some(new) = inserts {
            diesel::insert_into(transactions::table)
                .values(&new.row)
                .execute(conn)
                .await?;
        }
        if let Some(rows) = inserts.map(|n| &n.entries).or(replaced) {
            conn.insert_entries(rows).await?;
        }
        for event in &event_rows {
            diesel::insert_into(events::table)
                .values(event)
                .execute(conn)
                .await?;
        }
        Ok(())
    })?;
    Ok(())
}
