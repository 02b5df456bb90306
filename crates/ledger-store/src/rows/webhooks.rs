//! Rows of the webhook tables (`webhook_endpoints`, `webhook_deliveries`,
//! `webhook_attempts`) and their conversions. An endpoint's event kinds are a JSON array.

use diesel::prelude::*;
use ledger_domain::StoreError;
use ledger_domain::webhooks::{DeliveryStatus, WebhookAttempt, WebhookDelivery, WebhookEndpoint};
use time::PrimitiveDateTime;

use super::{from_db, to_db};
use crate::schema::{webhook_attempts, webhook_deliveries, webhook_endpoints};

#[derive(Debug, Clone, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = webhook_endpoints, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
// An update (`AsChangeset`) sets every column but the key and the `skip_update` ones.
#[diesel(primary_key(organization_id, livemode, id), treat_none_as_null = true)]
pub(crate) struct EndpointRow {
    pub(crate) organization_id: String,
    pub(crate) livemode: bool,
    pub(crate) id: String,
    pub(crate) url: String,
    pub(crate) description: Option<String>,
    pub(crate) event_types: String,
    pub(crate) enabled: bool,
    pub(crate) disabled_reason: Option<String>,
    pub(crate) secret: String,
    pub(crate) failure_streak: i64,
    #[diesel(skip_update)]
    pub(crate) fanned_out_until: PrimitiveDateTime,
    #[diesel(skip_update)]
    pub(crate) created_at: PrimitiveDateTime,
    pub(crate) updated_at: PrimitiveDateTime,
}

impl From<&WebhookEndpoint> for EndpointRow {
    fn from(e: &WebhookEndpoint) -> Self {
        Self {
            organization_id: e.organization_id.clone(),
            livemode: e.livemode,
            id: e.id.clone(),
            url: e.url.clone(),
            description: e.description.clone(),
            event_types: serde_json::Value::from(e.event_types.clone()).to_string(),
            enabled: e.enabled,
            disabled_reason: e.disabled_reason.clone(),
            secret: e.secret.clone(),
            failure_streak: e.failure_streak,
            fanned_out_until: to_db(e.fanned_out_until),
            created_at: to_db(e.created_at),
            updated_at: to_db(e.updated_at),
        }
    }
}

impl TryFrom<EndpointRow> for WebhookEndpoint {
    type Error = StoreError;

    fn try_from(r: EndpointRow) -> Result<Self, StoreError> {
        let event_types: Vec<String> = serde_json::from_str(&r.event_types).map_err(|e| {
            StoreError::Internal(format!(
                "webhook endpoint {} has unreadable kinds: {e}",
                r.id
            ))
        })?;
        Ok(Self {
            id: r.id,
            organization_id: r.organization_id,
            livemode: r.livemode,
            url: r.url,
            description: r.description,
            event_types,
            enabled: r.enabled,
            disabled_reason: r.disabled_reason,
            secret: r.secret,
            failure_streak: r.failure_streak,
            fanned_out_until: from_db(r.fanned_out_until),
            created_at: from_db(r.created_at),
            updated_at: from_db(r.updated_at),
        })
    }
}

#[derive(Debug, Clone, Queryable, QueryableByName, Selectable, Insertable)]
#[diesel(table_name = webhook_deliveries, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct DeliveryRow {
    pub(crate) organization_id: String,
    pub(crate) livemode: bool,
    pub(crate) id: String,
    pub(crate) endpoint_id: String,
    pub(crate) event_id: String,
    pub(crate) event_type: String,
    pub(crate) entity_type: String,
    pub(crate) entity_id: String,
    pub(crate) event_created_at: PrimitiveDateTime,
    pub(crate) payload: String,
    pub(crate) status: String,
    pub(crate) attempts: i64,
    pub(crate) next_attempt_at: PrimitiveDateTime,
    pub(crate) locked_until: Option<PrimitiveDateTime>,
    pub(crate) last_status_code: Option<i64>,
    pub(crate) last_error: Option<String>,
    pub(crate) delivered_at: Option<PrimitiveDateTime>,
    pub(crate) created_at: PrimitiveDateTime,
    pub(crate) updated_at: PrimitiveDateTime,
}

impl From<&WebhookDelivery> for DeliveryRow {
    fn from(d: &WebhookDelivery) -> Self {
        Self {
            organization_id: d.organization_id.clone(),
            livemode: d.livemode,
            id: d.id.clone(),
            endpoint_id: d.endpoint_id.clone(),
            event_id: d.event_id.clone(),
            event_type: d.event_type.clone(),
            entity_type: d.entity_type.clone(),
            entity_id: d.entity_id.clone(),
            event_created_at: to_db(d.event_created_at),
            payload: d.payload.clone(),
            status: d.status.as_str().to_owned(),
            attempts: d.attempts,
            next_attempt_at: to_db(d.next_attempt_at),
            locked_until: d.locked_until.map(to_db),
            last_status_code: d.last_status_code,
            last_error: d.last_error.clone(),
            delivered_at: d.delivered_at.map(to_db),
            created_at: to_db(d.created_at),
            updated_at: to_db(d.updated_at),
        }
    }
}

impl TryFrom<DeliveryRow> for WebhookDelivery {
    type Error = StoreError;

    fn try_from(r: DeliveryRow) -> Result<Self, StoreError> {
        let status = DeliveryStatus::parse(&r.status).ok_or_else(|| {
            StoreError::Internal(format!(
                "webhook delivery {} has the unknown status '{}'",
                r.id, r.status
            ))
        })?;
        Ok(Self {
            id: r.id,
            organization_id: r.organization_id,
            livemode: r.livemode,
            endpoint_id: r.endpoint_id,
            event_id: r.event_id,
            event_type: r.event_type,
            entity_type: r.entity_type,
            entity_id: r.entity_id,
            event_created_at: from_db(r.event_created_at),
            payload: r.payload,
            status,
            attempts: r.attempts,
            next_attempt_at: from_db(r.next_attempt_at),
            locked_until: r.locked_until.map(from_db),
            last_status_code: r.last_status_code,
            last_error: r.last_error,
            delivered_at: r.delivered_at.map(from_db),
            created_at: from_db(r.created_at),
            updated_at: from_db(r.updated_at),
        })
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = webhook_attempts, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct AttemptRow {
    pub(crate) organization_id: String,
    pub(crate) livemode: bool,
    pub(crate) id: String,
    pub(crate) delivery_id: String,
    pub(crate) attempt: i64,
    pub(crate) started_at: PrimitiveDateTime,
    pub(crate) duration_ms: i64,
    pub(crate) status_code: Option<i64>,
    pub(crate) error: Option<String>,
    pub(crate) response_snippet: Option<String>,
}

impl From<&WebhookAttempt> for AttemptRow {
    fn from(a: &WebhookAttempt) -> Self {
        Self {
            organization_id: a.organization_id.clone(),
            livemode: a.livemode,
            id: a.id.clone(),
            delivery_id: a.delivery_id.clone(),
            attempt: a.attempt,
            started_at: to_db(a.started_at),
            duration_ms: a.duration_ms,
            status_code: a.status_code,
            error: a.error.clone(),
            response_snippet: a.response_snippet.clone(),
        }
    }
}

impl From<AttemptRow> for WebhookAttempt {
    fn from(r: AttemptRow) -> Self {
        Self {
            id: r.id,
            organization_id: r.organization_id,
            livemode: r.livemode,
            delivery_id: r.delivery_id,
            attempt: r.attempt,
            started_at: from_db(r.started_at),
            duration_ms: r.duration_ms,
            status_code: r.status_code,
            error: r.error,
            response_snippet: r.response_snippet,
        }
    }
}
