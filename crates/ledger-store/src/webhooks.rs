//! Webhook endpoints, deliveries and attempts: endpoint writes with their event and
//! credits, the fan-out's idempotent inserts, the claim of due deliveries (row locks
//! with `SKIP LOCKED` on PostgreSQL; SQLite's single writer serializes claimers) with
//! per-entity ordering, and the attempt log.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use ledger_domain::Resource;
use ledger_domain::StoreError;
use ledger_domain::events::Event;
use ledger_domain::ports::State;
use ledger_domain::ports::{
    AttemptOutcome, Audit, Page, PageRequest, StoreResult, Tenant, Webhooks, Written,
};
use ledger_domain::webhooks::{DeliveryStatus, WebhookAttempt, WebhookDelivery, WebhookEndpoint};
use time::{OffsetDateTime, PrimitiveDateTime};

use crate::db::{Db, TxError};
use crate::rows::{AttemptRow, DeliveryRow, EndpointRow, EventRow, to_db};
use crate::schema::{events, webhook_attempts, webhook_deliveries, webhook_endpoints};

const PENDING: &str = "pending";

fn delivery_not_found(id: &str) -> StoreError {
    StoreError::missing(Resource::WebhookDelivery, id)
}

/// The claim's candidates: due, unleased deliveries of live enabled endpoints with no
/// earlier pending delivery of the same entity to the same endpoint. `{now}`, `{limit}`
/// and `{lock}` are the backend's placeholders and locking clause.
fn claim_sql(now: &str, now_again: &str, lease: &str, limit: &str, lock: &str) -> String {
    format!(
        "UPDATE webhook_deliveries SET attempts = attempts + 1, locked_until = {lease}, \
         updated_at = {now} \
         WHERE (organization_id, id) IN ( \
           SELECT d.organization_id, d.id FROM webhook_deliveries d \
           WHERE d.status = 'pending' AND d.next_attempt_at <= {now_again} \
             AND (d.locked_until IS NULL OR d.locked_until < {now_again}) \
             AND EXISTS (SELECT 1 FROM webhook_endpoints e \
               WHERE e.organization_id = d.organization_id AND e.id = d.endpoint_id \
                 AND e.enabled AND e.deleted_at IS NULL) \
             AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p \
               WHERE p.organization_id = d.organization_id AND p.endpoint_id = d.endpoint_id \
                 AND p.entity_type = d.entity_type AND p.entity_id = d.entity_id \
                 AND p.status = 'pending' \
                 AND (p.event_created_at < d.event_created_at \
                   OR (p.event_created_at = d.event_created_at AND p.event_id < d.event_id))) \
           ORDER BY d.next_attempt_at, d.id \
           LIMIT {limit} {lock}) \
         RETURNING *"
    )
}

/// The endpoints of claimed deliveries `$rows`, read with `$conn` (in the claim's
/// transaction): a macro, so the one query body serves both connection types.
macro_rules! endpoints_of {
    ($conn:ident, $rows:expr) => {{
        let organizations: Vec<String> = $rows.iter().map(|r| r.organization_id.clone()).collect();
        let ids: Vec<String> = $rows.iter().map(|r| r.endpoint_id.clone()).collect();
        if ids.is_empty() {
            Vec::new()
        } else {
            webhook_endpoints::table
                .filter(webhook_endpoints::organization_id.eq_any(organizations))
                .filter(webhook_endpoints::id.eq_any(ids))
                .select(EndpointRow::as_select())
                .load::<EndpointRow>($conn)
                .await?
        }
    }};
}

impl Webhooks for Db {
    resource_methods!(
        WebhookEndpoint, EndpointRow, webhook_endpoints, Resource::WebhookEndpoint;
        insert: insert_webhook_endpoint,
        update: update_webhook_endpoint,
        get: get_webhook_endpoint,
        list: list_webhook_endpoints,
        delete: delete_webhook_endpoint,
    );

    async fn list_webhook_deliveries(
        &self,
        tenant: &Tenant,
        endpoint_id: &str,
        page: PageRequest,
    ) -> StoreResult<Page<WebhookDelivery>> {
        read_page!(
            self,
            DeliveryRow,
            WebhookDelivery::try_from,
            page,
            (
                webhook_deliveries::event_created_at.desc(),
                webhook_deliveries::event_id.desc(),
            ),
            || {
                webhook_deliveries::table
                    .filter(tenant_of!(webhook_deliveries, tenant))
                    .filter(webhook_deliveries::endpoint_id.eq(endpoint_id))
            }
        )
    }

    async fn get_webhook_delivery(
        &self,
        tenant: &Tenant,
        endpoint_id: &str,
        delivery_id: &str,
    ) -> StoreResult<Option<(WebhookDelivery, Vec<WebhookAttempt>)>> {
        let found: Option<(DeliveryRow, Vec<AttemptRow>)> = db_read!(self, |conn| {
            let row: Option<DeliveryRow> = webhook_deliveries::table
                .filter(tenant_of!(webhook_deliveries, tenant))
                .filter(webhook_deliveries::endpoint_id.eq(endpoint_id))
                .filter(webhook_deliveries::id.eq(delivery_id))
                .select(DeliveryRow::as_select())
                .first(conn)
                .await
                .optional()?;
            let Some(row) = row else {
                return Ok(None);
            };
            let attempts = webhook_attempts::table
                .filter(tenant_of!(webhook_attempts, tenant))
                .filter(webhook_attempts::delivery_id.eq(delivery_id))
                .order(webhook_attempts::attempt.asc())
                .select(AttemptRow::as_select())
                .load(conn)
                .await?;
            Ok(Some((row, attempts)))
        })?;
        found
            .map(|(row, attempts)| {
                Ok((
                    WebhookDelivery::try_from(row)?,
                    attempts.into_iter().map(WebhookAttempt::from).collect(),
                ))
            })
            .transpose()
    }

    async fn replay_webhook_delivery(
        &self,
        endpoint_id: &str,
        delivery_id: &str,
        now: OffsetDateTime,
        audit: Audit,
    ) -> StoreResult<Written<WebhookDelivery>> {
        let endpoint_id = endpoint_id.to_owned();
        let delivery_id = delivery_id.to_owned();
        let now = to_db(now);
        let tenant = Tenant {
            organization_id: audit.event.organization_id.clone(),
            livemode: audit.event.livemode,
        };
        let written = audited!(self, audit, |conn| {
            let of_endpoint = || {
                webhook_deliveries::table
                    .filter(tenant_of!(webhook_deliveries, tenant))
                    .filter(webhook_deliveries::endpoint_id.eq(&endpoint_id))
                    .filter(webhook_deliveries::id.eq(&delivery_id))
            };
            let replayed: Option<DeliveryRow> =
                diesel::update(of_endpoint().filter(webhook_deliveries::status.ne(PENDING)))
                    .set((
                        webhook_deliveries::status.eq(PENDING),
                        webhook_deliveries::next_attempt_at.eq(now),
                        webhook_deliveries::locked_until.eq(None::<PrimitiveDateTime>),
                        webhook_deliveries::updated_at.eq(now),
                    ))
                    .returning(DeliveryRow::as_returning())
                    .get_result(conn)
                    .await
                    .optional()?;
            match replayed {
                Some(row) => row,
                None => {
                    let exists: i64 = of_endpoint().count().get_result(conn).await?;
                    return Err(TxError::Fact(if exists == 0 {
                        delivery_not_found(&delivery_id)
                    } else {
                        StoreError::status_changed(
                            Resource::WebhookDelivery,
                            delivery_id.as_str(),
                            State::Finished,
                        )
                    }));
                }
            }
        })?;
        match written {
            Written::Done(row) => Ok(Written::Done(WebhookDelivery::try_from(row)?)),
            Written::Replay(first) => Ok(Written::Replay(first)),
        }
    }

    async fn endpoints_to_fan_out(&self) -> StoreResult<Vec<WebhookEndpoint>> {
        read_all!(
            self,
            EndpointRow,
            WebhookEndpoint::try_from,
            webhook_endpoints::table
                .filter(webhook_endpoints::enabled.eq(true))
                .filter(webhook_endpoints::deleted_at.is_null())
        )
    }

    async fn events_between(
        &self,
        tenant: &Tenant,
        after: OffsetDateTime,
        until: OffsetDateTime,
        limit: i64,
    ) -> StoreResult<Vec<Event>> {
        let (after, until) = (to_db(after), to_db(until));
        read_all!(
            self,
            EventRow,
            Event::try_from,
            events::table
                .filter(tenant_of!(events, tenant))
                .filter(events::created_at.gt(after))
                .filter(events::created_at.le(until))
                .order((events::created_at.asc(), events::id.asc()))
                .limit(limit)
        )
    }

    async fn add_webhook_deliveries(
        &self,
        endpoint: &WebhookEndpoint,
        deliveries: Vec<WebhookDelivery>,
        until: OffsetDateTime,
    ) -> StoreResult<usize> {
        let rows: Vec<DeliveryRow> = deliveries.iter().map(DeliveryRow::from).collect();
        let organization_id = endpoint.organization_id.clone();
        let endpoint_id = endpoint.id.clone();
        let until = to_db(until);
        let added = db_write!(self, |conn| {
            let mut added = 0;
            // Both backends speak `INSERT ... ON CONFLICT DO NOTHING`: a delivery of the
            // same endpoint and event (a repeated or concurrent fan-out) is skipped.
            for row in &rows {
                added += diesel::insert_into(webhook_deliveries::table)
                    .values(row)
                    .on_conflict((
                        webhook_deliveries::organization_id,
                        webhook_deliveries::endpoint_id,
                        webhook_deliveries::event_id,
                    ))
                    .do_nothing()
                    .execute(conn)
                    .await?;
            }
            diesel::update(
                webhook_endpoints::table
                    .filter(webhook_endpoints::organization_id.eq(&organization_id))
                    .filter(webhook_endpoints::id.eq(&endpoint_id))
                    .filter(webhook_endpoints::fanned_out_until.lt(until)),
            )
            .set(webhook_endpoints::fanned_out_until.eq(until))
            .execute(conn)
            .await?;
            Ok(added)
        })?;
        Ok(added)
    }

    async fn claim_webhook_deliveries(
        &self,
        now: OffsetDateTime,
        lease: time::Duration,
        limit: i64,
    ) -> StoreResult<Vec<(WebhookDelivery, WebhookEndpoint)>> {
        use diesel::sql_types::{BigInt, Timestamp};
        if limit <= 0 {
            return Ok(Vec::new());
        }
        let lease_end = to_db(now + lease);
        let now = to_db(now);
        let (rows, endpoints): (Vec<DeliveryRow>, Vec<EndpointRow>) = db_write!(
            self,
            postgres | conn | {
                // PostgreSQL: concurrent claimers lock different candidates; a row another
                // claimer holds is skipped, never waited for or shared. A later delivery
                // of an entity stays out while an earlier one is pending, claimed or not.
                let rows: Vec<DeliveryRow> = diesel::sql_query(claim_sql(
                    "$1",
                    "$1",
                    "$2",
                    "$3",
                    "FOR UPDATE OF d SKIP LOCKED",
                ))
                .bind::<Timestamp, _>(now)
                .bind::<Timestamp, _>(lease_end)
                .bind::<BigInt, _>(limit)
                .load(conn)
                .await?;
                let endpoints = endpoints_of!(conn, &rows);
                Ok((rows, endpoints))
            },
            sqlite | conn | {
                // SQLite has no row locks: the single writer connection and BEGIN
                // IMMEDIATE serialize claimers.
                let rows: Vec<DeliveryRow> = diesel::sql_query(claim_sql("?", "?", "?", "?", ""))
                    .bind::<Timestamp, _>(lease_end)
                    .bind::<Timestamp, _>(now)
                    .bind::<Timestamp, _>(now)
                    .bind::<Timestamp, _>(now)
                    .bind::<BigInt, _>(limit)
                    .load(conn)
                    .await?;
                let endpoints = endpoints_of!(conn, &rows);
                Ok((rows, endpoints))
            }
        )?;
        let endpoints: Vec<WebhookEndpoint> = endpoints
            .into_iter()
            .map(WebhookEndpoint::try_from)
            .collect::<StoreResult<_>>()?;
        let mut claimed = Vec::with_capacity(rows.len());
        for row in rows {
            let delivery = WebhookDelivery::try_from(row)?;
            let endpoint = endpoints
                .iter()
                .find(|e| {
                    e.id == delivery.endpoint_id && e.organization_id == delivery.organization_id
                })
                .cloned()
                .ok_or_else(|| {
                    StoreError::Internal(format!(
                        "claimed webhook delivery {} has no endpoint",
                        delivery.id
                    ))
                })?;
            claimed.push((delivery, endpoint));
        }
        claimed
            .sort_by(|(a, _), (b, _)| (a.next_attempt_at, &a.id).cmp(&(b.next_attempt_at, &b.id)));
        Ok(claimed)
    }

    async fn record_attempt(&self, outcome: AttemptOutcome) -> StoreResult<bool> {
        let AttemptOutcome {
            attempt,
            succeeded,
            retry_at,
            disable_after,
            disabled_event,
        } = outcome;
        let now = to_db(attempt.started_at + time::Duration::milliseconds(attempt.duration_ms));
        let attempt_row = AttemptRow::from(&attempt);
        let event_row = EventRow::from(&disabled_event);
        let (status, next_attempt_at) = match (succeeded, retry_at) {
            (true, _) => (DeliveryStatus::Delivered, None),
            (false, Some(at)) => (DeliveryStatus::Pending, Some(to_db(at))),
            (false, None) => (DeliveryStatus::Failed, None),
        };
        let recorded = db_write!(self, |conn| {
            let delivery = webhook_deliveries::table
                .filter(webhook_deliveries::organization_id.eq(&attempt_row.organization_id))
                .filter(webhook_deliveries::id.eq(&attempt_row.delivery_id))
                .filter(webhook_deliveries::status.eq(PENDING))
                .filter(webhook_deliveries::attempts.eq(attempt_row.attempt));
            let endpoint_id: Option<String> = diesel::update(delivery)
                .set((
                    webhook_deliveries::status.eq(status.as_str()),
                    webhook_deliveries::locked_until.eq(None::<PrimitiveDateTime>),
                    webhook_deliveries::last_status_code.eq(attempt_row.status_code),
                    webhook_deliveries::last_error.eq(&attempt_row.error),
                    webhook_deliveries::updated_at.eq(now),
                ))
                .returning(webhook_deliveries::endpoint_id)
                .get_result(conn)
                .await
                .optional()?;
            let Some(endpoint_id) = endpoint_id else {
                return Ok(false);
            };
            let this = webhook_deliveries::table
                .filter(webhook_deliveries::organization_id.eq(&attempt_row.organization_id))
                .filter(webhook_deliveries::id.eq(&attempt_row.delivery_id));
            if let Some(at) = next_attempt_at {
                diesel::update(this)
                    .set(webhook_deliveries::next_attempt_at.eq(at))
                    .execute(conn)
                    .await?;
            } else if succeeded {
                diesel::update(this)
                    .set(webhook_deliveries::delivered_at.eq(Some(now)))
                    .execute(conn)
                    .await?;
            }
            diesel::insert_into(webhook_attempts::table)
                .values(&attempt_row)
                .execute(conn)
                .await?;
            let endpoint = webhook_endpoints::table
                .filter(webhook_endpoints::organization_id.eq(&attempt_row.organization_id))
                .filter(webhook_endpoints::id.eq(&endpoint_id));
            if succeeded {
                diesel::update(endpoint)
                    .set(webhook_endpoints::failure_streak.eq(0i64))
                    .execute(conn)
                    .await?;
            } else {
                let streak: i64 = diesel::update(endpoint)
                    .set(
                        webhook_endpoints::failure_streak.eq(webhook_endpoints::failure_streak + 1),
                    )
                    .returning(webhook_endpoints::failure_streak)
                    .get_result(conn)
                    .await?;
                if streak >= disable_after {
                    let disabled =
                        diesel::update(endpoint.filter(webhook_endpoints::enabled.eq(true)))
                            .set((
                                webhook_endpoints::enabled.eq(false),
                                webhook_endpoints::disabled_reason.eq(Some("failure_streak")),
                                webhook_endpoints::updated_at.eq(now),
                            ))
                            .execute(conn)
                            .await?;
                    if disabled > 0 {
                        diesel::insert_into(events::table)
                            .values(&event_row)
                            .execute(conn)
                            .await?;
                    }
                }
            }
            Ok(true)
        })?;
        Ok(recorded)
    }
}
