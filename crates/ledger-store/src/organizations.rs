//! Organizations, users, API keys, idempotency records, events and health.

use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::BigInt;
use diesel_async::RunQueryDsl;
use ledger_domain::events::Event;
use ledger_domain::organizations::{Organization, User};
use ledger_domain::ports::{
    CreditCharge, Events, Health, IdempotencyRecord, IdempotencyRecords, NewOrganization,
    Organizations, Page, PageRequest, StoreResult, Tenant,
};
use time::OffsetDateTime;

use crate::db::{Db, prefix_pattern};
use crate::rows::{
    AccountRow, ApiKeyRow, CreditLedgerRow, CreditPoolRow, EventRow, IdempotencyRow,
    OrganizationRow, UserRow, event_rows, to_db,
};
use crate::schema::{
    accounts, api_keys, credit_ledger, credit_pools, credit_usage, events, idempotency_keys,
    organizations, users,
};

/// `SUM(credits)` of a pool's test-mode usage, exact and 0 when there is none.
pub(crate) const SUM_CREDITS: &str = "CAST(COALESCE(SUM(credits), 0) AS BIGINT)";

/// The body of [`Organizations::create_organization`] for one backend. A
/// sub-organization's path is checked against its parent's, read under a share lock on
/// PostgreSQL (`$lock` = `share`; SQLite's single writer holds every row), so a
/// concurrent ownership transfer that moves the parent either waits for this insert and
/// moves the new organization too, or committed first and this insert refuses with
/// `concurrent_update` (the domain decides again).
macro_rules! create_body {
    ($conn:ident, $lock:ident, $user_row:ident, $org_row:ident, $account_rows:ident, $key_rows:ident, $event_rows:ident) => {{
        let conn = $conn;
        let user_row = &$user_row;
        let org_row = &mut $org_row;
        let account_rows = &$account_rows;
        let key_rows = &$key_rows;
        let event_rows = &$event_rows;
        if let Some(parent_id) = &org_row.parent_id {
            let query = organizations::table
                .filter(organizations::id.eq(parent_id))
                .select(organizations::path);
            let parent_path: Option<String> = create_body!(@read query, conn, $lock);
            let expected = parent_path.map(|p| format!("{p}{}/", org_row.id));
            if expected.as_deref() != Some(org_row.path.as_str()) {
                return Err(ledger_domain::StoreError::changed(parent_id.as_str()).into());
            }
        }
        if let Some(user_row) = user_row {
            // A returning user (same provider id) keeps its row and owns the org.
            let existing: Option<String> = users::table
                .filter(users::provider_id.eq(&user_row.provider_id))
                .select(users::id)
                .first(conn)
                .await
                .optional()?;
            match existing {
                Some(id) => org_row.owner_user_id = id,
                None => {
                    diesel::insert_into(users::table)
                        .values(user_row)
                        .execute(conn)
                        .await?;
                    org_row.owner_user_id = user_row.id.clone();
                }
            }
        }
        diesel::insert_into(organizations::table)
            .values(&*org_row)
            .execute(conn)
            .await?;
        // A root organization is a credit pool: its reset state, and the sign-up grant
        // as the first row of its ledger.
        if org_row.parent_id.is_none() {
            diesel::insert_into(credit_pools::table)
                .values(&CreditPoolRow {
                    organization_id: org_row.id.clone(),
                    credits_purchased: 0,
                    period: ledger_domain::credits::period_of(crate::rows::from_db(
                        org_row.created_at,
                    )),
                    updated_at: org_row.created_at,
                })
                .execute(conn)
                .await?;
            if org_row.credits_remaining != 0 {
                diesel::insert_into(credit_ledger::table)
                    .values(&CreditLedgerRow::new(
                        &org_row.id,
                        ledger_domain::credits::GRANT_ENTRY_ID,
                        ledger_domain::credits::LedgerKind::Grant,
                        org_row.credits_remaining,
                        None,
                        org_row.created_at,
                    ))
                    .execute(conn)
                    .await?;
            }
        }
        for row in account_rows.iter() {
            diesel::insert_into(accounts::table)
                .values(row)
                .execute(conn)
                .await?;
        }
        for row in key_rows.iter() {
            diesel::insert_into(api_keys::table)
                .values(row)
                .execute(conn)
                .await?;
        }
        for row in event_rows.iter() {
            diesel::insert_into(events::table)
                .values(row)
                .execute(conn)
                .await?;
        }
        Ok(org_row.owner_user_id.clone())
    }};
    (@read $query:ident, $conn:ident, share) => {
        $query.for_share().first($conn).await.optional()?
    };
    (@read $query:ident, $conn:ident, none) => {
        $query.first($conn).await.optional()?
    };
}

impl Organizations for Db {
    async fn create_organization(&self, new: NewOrganization) -> StoreResult<Organization> {
        let NewOrganization {
            user,
            mut organization,
            accounts: chart,
            keys,
            events: new_events,
        } = new;
        let user_row = user.as_ref().map(UserRow::from);
        let account_rows: Vec<AccountRow> = chart.iter().map(AccountRow::from).collect();
        let key_rows: Vec<ApiKeyRow> = keys.iter().map(ApiKeyRow::from).collect();
        let event_rows = event_rows(&new_events);
        let mut org_row = OrganizationRow::from(&organization);
        // Rows are inserted one by one: diesel's multi-row INSERT for SQLite only exists
        // on its synchronous connection, not through diesel-async.
        let owner_id: String = db_write!(
            self,
            postgres | conn | {
                create_body!(
                    conn,
                    share,
                    user_row,
                    org_row,
                    account_rows,
                    key_rows,
                    event_rows
                )
            },
            sqlite | conn | {
                create_body!(
                    conn,
                    none,
                    user_row,
                    org_row,
                    account_rows,
                    key_rows,
                    event_rows
                )
            }
        )?;
        organization.owner_user_id = owner_id;
        Ok(organization)
    }

    async fn find_user(&self, provider_id: &str) -> StoreResult<Option<User>> {
        let row: Option<UserRow> = db_read!(self, |conn| {
            let query = users::table.filter(users::provider_id.eq(provider_id));
            Ok(first_row!(conn, query, UserRow))
        })?;
        Ok(row.map(User::from))
    }

    async fn get_organization(&self, id: &str) -> StoreResult<Option<Organization>> {
        let found: Option<OrganizationRow> = db_read!(self, |conn| {
            let query = organizations::table.filter(organizations::id.eq(id));
            Ok(first_row!(conn, query, OrganizationRow))
        })?;
        found.map(OrganizationRow::into_domain).transpose()
    }

    async fn list_descendants(
        &self,
        path: &str,
        page: PageRequest,
    ) -> StoreResult<Page<Organization>> {
        let pattern = prefix_pattern(path);
        read_page!(
            self,
            OrganizationRow,
            OrganizationRow::into_domain,
            page,
            organizations::path.asc(),
            || {
                organizations::table
                    .filter(organizations::path.like(pattern.clone()).escape('\\'))
                    .filter(organizations::path.ne(path))
            }
        )
    }

    async fn test_credits_used(&self, pool_id: &str) -> StoreResult<i64> {
        db_read!(self, |conn| {
            Ok(credit_usage::table
                .filter(tenant_of!(credit_usage, pool_id, false))
                .select(sql::<BigInt>(SUM_CREDITS))
                .first::<i64>(conn)
                .await?)
        })
    }

    async fn spend_credits(
        &self,
        charge: CreditCharge,
        usage_id: &str,
        at: OffsetDateTime,
    ) -> StoreResult<()> {
        let usage_id = usage_id.to_owned();
        let at = to_db(at);
        db_write!(self, |conn| {
            crate::credits::take_charge(conn, &charge, &usage_id, None, at).await
        })?;
        Ok(())
    }

    async fn get_user(&self, id: &str) -> StoreResult<Option<User>> {
        let row: Option<UserRow> = db_read!(self, |conn| {
            let query = users::table.filter(users::id.eq(id));
            Ok(first_row!(conn, query, UserRow))
        })?;
        Ok(row.map(User::from))
    }
}

impl IdempotencyRecords for Db {
    async fn find_idempotency(
        &self,
        tenant: &Tenant,
        key: &str,
        since: OffsetDateTime,
    ) -> StoreResult<Option<IdempotencyRecord>> {
        let since = to_db(since);
        let row: Option<IdempotencyRow> = db_read!(self, |conn| {
            Ok(idempotency_keys::table
                .filter(tenant_of!(idempotency_keys, tenant))
                .filter(idempotency_keys::key.eq(key))
                .filter(idempotency_keys::created_at.gt(since))
                .select(IdempotencyRow::as_select())
                .first(conn)
                .await
                .optional()?)
        })?;
        Ok(row.map(IdempotencyRecord::from))
    }
}

impl Events for Db {
    async fn list_events(
        &self,
        tenant: &Tenant,
        entity_type: &str,
        entity_id: &str,
    ) -> StoreResult<Vec<Event>> {
        read_all!(
            self,
            EventRow,
            Event::try_from,
            events::table
                .filter(tenant_of!(events, tenant))
                .filter(events::entity_type.eq(entity_type))
                .filter(events::entity_id.eq(entity_id))
                .order((events::created_at.asc(), events::id.asc()))
        )
    }
}

impl Health for Db {
    async fn ping(&self) -> bool {
        let answer: StoreResult<usize> = db_read!(self, |conn| {
            Ok(diesel::sql_query("SELECT 1").execute(conn).await?)
        });
        answer.is_ok()
    }
}
