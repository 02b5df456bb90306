//! Ownership transfers of organizations: inserts, reads, the compare-and-set of a status
//! change and, for an accept, the move of the whole subtree in the same database
//! transaction.
//!
//! Exactly one act wins: every change is an `UPDATE ... WHERE status = 'pending'` on the
//! transfer's row, which PostgreSQL row-locks (a concurrent act waits, then finds it no
//! longer pending) and SQLite's single writer serialises. An accept then locks the
//! transferred organization's row (PostgreSQL `FOR UPDATE`) and checks it is still where
//! the accept was decided, so a concurrent accept of an ancestor's transfer either moved
//! it first (this one refuses) or waits for this one (and no longer finds it under its
//! old path). The move is one `UPDATE` of every path with the old prefix, so the subtree
//! keeps its shape.

use diesel::dsl::count_star;
use diesel::expression::IntoSql;
use diesel::prelude::*;
use diesel::sql_types::{Integer, Text};
use diesel_async::RunQueryDsl;
use ledger_domain::Resource;
use ledger_domain::StoreError;
use ledger_domain::events::Event;
use ledger_domain::organizations::{Relationship, User};
use ledger_domain::ownership::{
    OrganizationTransfer, SubtreeStats, TransferChange, TransferStatus,
};
use ledger_domain::ports::{
    CreditCharge, IdempotencyRecord, OrganizationTransfers, Page, PageRequest, StoreResult,
    TransferFilter, Written,
};
use ledger_domain::ports::{State, Taken};
use time::{OffsetDateTime, PrimitiveDateTime};

use crate::db::{Db, TxError, prefix_pattern, unique_or};
use crate::idempotency::settle_idempotent;
use crate::rows::{EventRow, IdempotencyRow, UserRow, event_rows, from_db, to_db};
use crate::schema::{
    accounts, api_keys, categories, contacts, documents, organization_transfers, organizations,
    transactions, users,
};

diesel::define_sql_function! {
    /// SQL `LOWER` of a text.
    #[sql_name = "LOWER"]
    fn lower_text(x: Text) -> Text;
}

diesel::define_sql_function! {
    /// SQL `LOWER` of a nullable text.
    #[sql_name = "LOWER"]
    fn lower_nullable(x: diesel::sql_types::Nullable<Text>) -> diesel::sql_types::Nullable<Text>;
}

diesel::define_sql_function! {
    /// SQL `SUBSTR(x, start)`: the text from the 1-based `start` on (both backends).
    #[sql_name = "SUBSTR"]
    fn substr(x: Text, start: Integer) -> Text;
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = organization_transfers, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
struct TransferRow {
    id: String,
    organization_id: String,
    organization_name: String,
    from_path: String,
    from_user_id: String,
    to_user_id: String,
    status: String,
    relationship_on_accept: Option<String>,
    to_organization_id: Option<String>,
    initiated_at: PrimitiveDateTime,
    responded_at: Option<PrimitiveDateTime>,
    expires_at: PrimitiveDateTime,
    descendant_org_count: i64,
    initiated_by: String,
    responded_by: Option<String>,
}

impl From<&OrganizationTransfer> for TransferRow {
    fn from(t: &OrganizationTransfer) -> Self {
        Self {
            id: t.id.clone(),
            organization_id: t.organization_id.clone(),
            organization_name: t.organization_name.clone(),
            from_path: t.from_path.clone(),
            from_user_id: t.from_user_id.clone(),
            to_user_id: t.to_user_id.clone(),
            status: t.status.as_str().to_owned(),
            relationship_on_accept: t.relationship_on_accept.map(|r| r.as_str().to_owned()),
            to_organization_id: t.to_organization_id.clone(),
            initiated_at: to_db(t.initiated_at),
            responded_at: t.responded_at.map(to_db),
            expires_at: to_db(t.expires_at),
            descendant_org_count: t.descendant_org_count,
            initiated_by: t.initiated_by.clone(),
            responded_by: t.responded_by.clone(),
        }
    }
}

impl TryFrom<TransferRow> for OrganizationTransfer {
    type Error = StoreError;

    fn try_from(r: TransferRow) -> Result<Self, StoreError> {
        let corrupt = |what: &str, text: &str| {
            StoreError::Internal(format!("stored transfer {} has {what} '{text}'", r.id))
        };
        let status =
            TransferStatus::parse(&r.status).ok_or_else(|| corrupt("status", &r.status))?;
        let relationship_on_accept = match r.relationship_on_accept.as_deref() {
            None => None,
            Some(text) => {
                Some(Relationship::parse(text).ok_or_else(|| corrupt("relationship", text))?)
            }
        };
        Ok(Self {
            id: r.id,
            organization_id: r.organization_id,
            organization_name: r.organization_name,
            from_path: r.from_path,
            from_user_id: r.from_user_id,
            to_user_id: r.to_user_id,
            status,
            relationship_on_accept,
            to_organization_id: r.to_organization_id,
            initiated_at: from_db(r.initiated_at),
            responded_at: r.responded_at.map(from_db),
            expires_at: from_db(r.expires_at),
            descendant_org_count: r.descendant_org_count,
            initiated_by: r.initiated_by,
            responded_by: r.responded_by,
        })
    }
}

fn no_longer_pending(id: &str) -> TxError {
    StoreError::status_changed(Resource::OrganizationTransfer, id, State::Pending).into()
}

/// The body of [`OrganizationTransfers::change_transfer`] for one backend; `$lock` says
/// how the subtree's rows are locked (`update` on PostgreSQL, `none` on SQLite, whose
/// single writer already holds every row).
macro_rules! change_body {
    ($conn:ident, $lock:ident, $change:ident, $idem_row:ident, $charge:ident, $event_rows:ident) => {{
        idempotency_guard!($conn, &$idem_row);
        let at = to_db($change.responded_at);
        if let Some(charge) = &$charge {
            // A transfer changes status once, so this names its usage row uniquely.
            let usage_id = format!("{}:{}", $change.transfer_id, $change.status.as_str());
            crate::credits::take_charge($conn, charge, &usage_id, None, at).await?;
        }
        let pending = organization_transfers::table
            .filter(organization_transfers::id.eq(&$change.transfer_id))
            .filter(organization_transfers::status.eq(TransferStatus::Pending.as_str()));
        let changes = (
            organization_transfers::status.eq($change.status.as_str()),
            organization_transfers::responded_at.eq(Some(at)),
            organization_transfers::responded_by.eq($change.responded_by.clone()),
        );
        let changed = if $change.status == TransferStatus::Expired {
            diesel::update(pending.filter(organization_transfers::expires_at.le(at)))
                .set(changes)
                .execute($conn)
                .await?
        } else {
            diesel::update(pending.filter(organization_transfers::expires_at.gt(at)))
                .set(changes)
                .execute($conn)
                .await?
        };
        if changed == 0 {
            return Err(no_longer_pending(&$change.transfer_id));
        }
        if let Some(accept) = &$change.accept {
            let organization_id: String = organization_transfers::table
                .filter(organization_transfers::id.eq(&$change.transfer_id))
                .select(organization_transfers::organization_id)
                .first($conn)
                .await?;
            // Every organization of the subtree is locked first (PostgreSQL), so a
            // sub-organization being created under one of them (it share-locks its
            // parent) either committed before and is moved below, or waits and then
            // reads its parent's new path.
            let subtree = organizations::table
                .filter(
                    organizations::path
                        .like(prefix_pattern(&accept.from_path))
                        .escape('\\'),
                )
                .select(organizations::id);
            let _locked: Vec<String> = change_body!(@lock subtree, $conn, $lock);
            let path: String = organizations::table
                .filter(organizations::id.eq(&organization_id))
                .select(organizations::path)
                .first($conn)
                .await?;
            if path != accept.from_path {
                return Err(StoreError::changed(organization_id.as_str()).into());
            }
            let new_path = format!("{}{organization_id}/", accept.root_path);
            let keep_from = i32::try_from(accept.from_path.chars().count() + 1)
                .map_err(|_| StoreError::Internal("an organization path is too long".into()))?;
            diesel::update(
                organizations::table.filter(
                    organizations::path
                        .like(prefix_pattern(&accept.from_path))
                        .escape('\\'),
                ),
            )
            .set((
                organizations::path.eq(new_path
                    .into_sql::<Text>()
                    .concat(substr(organizations::path, keep_from))),
                organizations::owner_user_id.eq(&accept.owner_user_id),
                organizations::updated_at.eq(at),
            ))
            .execute($conn)
            .await?;
            diesel::update(organizations::table.filter(organizations::id.eq(&organization_id)))
                .set((
                    organizations::parent_id.eq(Some(&accept.root_id)),
                    organizations::relationship.eq(Some(accept.relationship.as_str())),
                ))
                .execute($conn)
                .await?;
            diesel::update(
                organization_transfers::table
                    .filter(organization_transfers::id.eq(&$change.transfer_id)),
            )
            .set((
                organization_transfers::relationship_on_accept
                    .eq(Some(accept.relationship.as_str())),
                organization_transfers::to_organization_id.eq(Some(&accept.root_id)),
                organization_transfers::descendant_org_count.eq(accept.descendant_org_count),
            ))
            .execute($conn)
            .await?;
        }
        for row in &$event_rows {
            diesel::insert_into(crate::schema::events::table)
                .values(row)
                .execute($conn)
                .await?;
        }
        let row: TransferRow = organization_transfers::table
            .filter(organization_transfers::id.eq(&$change.transfer_id))
            .select(TransferRow::as_select())
            .first($conn)
            .await?;
        Ok(Written::Done(OrganizationTransfer::try_from(row)?))
    }};
    (@lock $query:ident, $conn:ident, update) => {
        $query.for_update().load($conn).await?
    };
    (@lock $query:ident, $conn:ident, none) => {{
        let _ = $query;
        Vec::new()
    }};
}

/// The users the filter `$which` selects, in id order; evaluates to
/// `StoreResult<Vec<User>>`.
macro_rules! users_where {
    ($db:expr, $which:expr) => {{
        let rows: Vec<UserRow> = db_read!($db, |conn| {
            Ok(users::table
                .filter($which)
                .order(users::id)
                .select(UserRow::as_select())
                .load(conn)
                .await?)
        })?;
        Ok(rows.into_iter().map(User::from).collect())
    }};
}

impl OrganizationTransfers for Db {
    async fn find_users_by_email(&self, email: &str) -> StoreResult<Vec<User>> {
        let email = email.to_lowercase();
        users_where!(self, lower_text(users::email).eq(&email))
    }

    async fn find_users_by_username(&self, username: &str) -> StoreResult<Vec<User>> {
        let username = username.to_lowercase();
        users_where!(self, lower_nullable(users::provider_username).eq(&username))
    }

    async fn insert_transfer(
        &self,
        transfer: OrganizationTransfer,
        events: Vec<Event>,
        idempotency: Option<IdempotencyRecord>,
        charge: Option<CreditCharge>,
    ) -> StoreResult<Written<OrganizationTransfer>> {
        let row = TransferRow::from(&transfer);
        let event_rows: Vec<EventRow> = event_rows(&events);
        let idem_row = idempotency.as_ref().map(IdempotencyRow::from);
        let written = db_write!(self, |conn| {
            idempotency_guard!(conn, &idem_row);
            if let Some(charge) = &charge {
                crate::credits::take_charge(conn, charge, &row.id, None, row.initiated_at).await?;
            }
            diesel::insert_into(organization_transfers::table)
                .values(&row)
                .execute(conn)
                .await
                .map_err(|e| {
                    unique_or(e, || {
                        StoreError::Taken(Taken::PendingTransfer {
                            organization_id: row.organization_id.clone(),
                        })
                    })
                })?;
            for event in &event_rows {
                diesel::insert_into(crate::schema::events::table)
                    .values(event)
                    .execute(conn)
                    .await?;
            }
            Ok(Written::Done(transfer))
        });
        settle_idempotent(self, written, idempotency).await
    }

    async fn get_transfer(&self, id: &str) -> StoreResult<Option<OrganizationTransfer>> {
        read_first!(
            self,
            TransferRow,
            OrganizationTransfer::try_from,
            organization_transfers::table.filter(organization_transfers::id.eq(id))
        )
    }

    async fn list_transfers(
        &self,
        filter: &TransferFilter,
        page: PageRequest,
    ) -> StoreResult<Page<OrganizationTransfer>> {
        let order = || {
            (
                organization_transfers::initiated_at.desc(),
                organization_transfers::id.desc(),
            )
        };
        match filter {
            TransferFilter::SentFrom(path) => {
                let pattern = prefix_pattern(path);
                read_page!(
                    self,
                    TransferRow,
                    OrganizationTransfer::try_from,
                    page,
                    order(),
                    || {
                        organization_transfers::table.filter(
                            organization_transfers::from_path
                                .like(pattern.clone())
                                .escape('\\'),
                        )
                    }
                )
            }
            TransferFilter::ToUser(user) => read_page!(
                self,
                TransferRow,
                OrganizationTransfer::try_from,
                page,
                order(),
                || organization_transfers::table
                    .filter(organization_transfers::to_user_id.eq(user))
            ),
        }
    }

    async fn change_transfer(
        &self,
        change: TransferChange,
        events: Vec<Event>,
        idempotency: Option<IdempotencyRecord>,
        charge: Option<CreditCharge>,
    ) -> StoreResult<Written<OrganizationTransfer>> {
        let event_rows: Vec<EventRow> = event_rows(&events);
        let idem_row = idempotency.as_ref().map(IdempotencyRow::from);
        let written = db_write!(
            self,
            postgres | conn | { change_body!(conn, update, change, idem_row, charge, event_rows) },
            sqlite | conn | { change_body!(conn, none, change, idem_row, charge, event_rows) }
        );
        settle_idempotent(self, written, idempotency).await
    }

    async fn expirable_transfers(
        &self,
        now: OffsetDateTime,
        limit: i64,
    ) -> StoreResult<Vec<OrganizationTransfer>> {
        let now = to_db(now);
        let rows: Vec<TransferRow> = db_read!(self, |conn| {
            Ok(organization_transfers::table
                .filter(organization_transfers::status.eq(TransferStatus::Pending.as_str()))
                .filter(organization_transfers::expires_at.le(now))
                .order((
                    organization_transfers::expires_at.asc(),
                    organization_transfers::id.asc(),
                ))
                .limit(limit)
                .select(TransferRow::as_select())
                .load(conn)
                .await?)
        })?;
        rows.into_iter()
            .map(OrganizationTransfer::try_from)
            .collect()
    }

    async fn subtree_stats(&self, path: &str, livemode: bool) -> StoreResult<SubtreeStats> {
        let pattern = prefix_pattern(path);
        db_read!(self, |conn| {
            let orgs = || {
                organizations::table
                    .filter(organizations::path.like(pattern.clone()).escape('\\'))
                    .select(organizations::id)
            };
            let organizations: i64 = organizations::table
                .filter(organizations::path.like(pattern.clone()).escape('\\'))
                .select(count_star())
                .first(conn)
                .await?;
            macro_rules! live_count {
                ($table:ident) => {
                    $table::table
                        .filter($table::organization_id.eq_any(orgs()))
                        .filter($table::livemode.eq(livemode))
                        .filter($table::deleted_at.is_null())
                        .select(count_star())
                        .first::<i64>(conn)
                        .await?
                };
            }
            let documents_of = |kind: &'static str| {
                documents::table
                    .filter(documents::organization_id.eq_any(orgs()))
                    .filter(documents::livemode.eq(livemode))
                    .filter(documents::deleted_at.is_null())
                    .filter(documents::kind.eq(kind))
            };
            let invoices: i64 = documents_of("invoice")
                .select(count_star())
                .first(conn)
                .await?;
            let bills: i64 = documents_of("bill")
                .select(count_star())
                .first(conn)
                .await?;
            // Line items live in each document's JSON array; counted here, not in SQL,
            // so both backends agree without JSON functions.
            let item_lists: Vec<String> = documents::table
                .filter(documents::organization_id.eq_any(orgs()))
                .filter(documents::livemode.eq(livemode))
                .filter(documents::deleted_at.is_null())
                .select(documents::items)
                .load(conn)
                .await?;
            let items = item_lists
                .iter()
                .map(|text| {
                    serde_json::from_str::<Vec<serde_json::Value>>(text)
                        .map(|items| items.len() as i64)
                        .map_err(|e| {
                            TxError::Fact(StoreError::Internal(format!(
                                "stored document items are not a JSON array: {e}"
                            )))
                        })
                })
                .sum::<Result<i64, TxError>>()?;
            Ok(SubtreeStats {
                organizations,
                accounts: live_count!(accounts),
                transactions: live_count!(transactions),
                invoices,
                bills,
                contacts: live_count!(contacts),
                categories: live_count!(categories),
                items,
                api_keys: live_count!(api_keys),
            })
        })
    }
}
