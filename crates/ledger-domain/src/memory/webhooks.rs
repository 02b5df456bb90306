//! Webhooks in memory: endpoints with their event, credits and idempotency record (in
//! the SQL adapter's order), the fan-out, the claim with per-entity ordering, the
//! attempt log, and [`MemoryWebhookTransport`], a transport that records what it would
//! send.

use crate::ports::{Audit, State as StoreState, StoreError};
use std::sync::{Arc, Mutex};

use time::OffsetDateTime;

use crate::error::Resource;
use crate::events::Event;
use crate::ports::{
    AttemptOutcome, BoxFuture, OutgoingWebhook, Page, PageRequest, StoreResult, Tenant,
    WebhookTransport, Webhooks, Written,
};
use crate::webhooks::{
    DeliveryStatus, SendResult, WebhookAttempt, WebhookDelivery, WebhookEndpoint,
};

use super::tenanted::{of_tenant, sort_oldest_first, stored_mut, table_methods};
use super::{MemoryStore, in_tenant, page_of, push_new};

/// The webhook tables of the memory store.
#[derive(Default)]
pub(crate) struct WebhookState {
    pub(crate) endpoints: Vec<super::Row<WebhookEndpoint>>,
    pub(crate) deliveries: Vec<WebhookDelivery>,
    pub(crate) attempts: Vec<WebhookAttempt>,
}

/// The order of deliveries within an entity: the event's time, then its id.
fn order_key(d: &WebhookDelivery) -> (OffsetDateTime, &str) {
    (d.event_created_at, d.event_id.as_str())
}

impl Webhooks for MemoryStore {
    async fn insert_webhook_endpoint(
        &self,
        endpoint: WebhookEndpoint,
        audit: Audit,
    ) -> StoreResult<Written<WebhookEndpoint>> {
        self.state().audited(audit, |state| {
            let same = |e: &WebhookEndpoint| e.id == endpoint.id;
            push_new(
                &mut state.webhooks.endpoints,
                endpoint.clone(),
                same,
                "webhook endpoint",
                &endpoint.id,
            )?;
            Ok(endpoint)
        })
    }

    table_methods! {
        fn get_webhook_endpoint(get) -> WebhookEndpoint: webhooks.endpoints;
        fn list_webhook_endpoints(page) -> WebhookEndpoint: webhooks.endpoints;
    }

    async fn update_webhook_endpoint(
        &self,
        endpoint: WebhookEndpoint,
        audit: Audit,
    ) -> StoreResult<Written<WebhookEndpoint>> {
        self.state().audited(audit, |state| {
            let stored = stored_mut(
                &mut state.webhooks.endpoints,
                &endpoint,
                Resource::WebhookEndpoint,
            )?;
            stored.url = endpoint.url.clone();
            stored.description = endpoint.description.clone();
            stored.event_types = endpoint.event_types.clone();
            stored.enabled = endpoint.enabled;
            stored.disabled_reason = endpoint.disabled_reason.clone();
            stored.secret = endpoint.secret.clone();
            stored.failure_streak = endpoint.failure_streak;
            stored.updated_at = endpoint.updated_at;
            let stored = stored.clone();
            Ok(stored)
        })
    }

    table_methods! {
        fn delete_webhook_endpoint(delete) -> WebhookEndpoint: webhooks.endpoints;
    }

    async fn list_webhook_deliveries(
        &self,
        tenant: &Tenant,
        endpoint_id: &str,
        page: PageRequest,
    ) -> StoreResult<Page<WebhookDelivery>> {
        let state = self.state();
        let mut found = of_tenant(&state.webhooks.deliveries, tenant, |d| {
            d.endpoint_id == endpoint_id
        });
        found.sort_by(|a, b| order_key(b).cmp(&order_key(a)));
        Ok(page_of(found, Some(page)))
    }

    async fn get_webhook_delivery(
        &self,
        tenant: &Tenant,
        endpoint_id: &str,
        delivery_id: &str,
    ) -> StoreResult<Option<(WebhookDelivery, Vec<WebhookAttempt>)>> {
        let state = self.state();
        let Some(delivery) = state.webhooks.deliveries.iter().find(|d| {
            in_tenant(tenant, &d.organization_id, d.livemode)
                && d.endpoint_id == endpoint_id
                && d.id == delivery_id
        }) else {
            return Ok(None);
        };
        let mut attempts: Vec<WebhookAttempt> = state
            .webhooks
            .attempts
            .iter()
            .filter(|a| a.delivery_id == delivery.id)
            .cloned()
            .collect();
        attempts.sort_by_key(|a| a.attempt);
        Ok(Some((delivery.clone(), attempts)))
    }

    async fn replay_webhook_delivery(
        &self,
        endpoint_id: &str,
        delivery_id: &str,
        now: OffsetDateTime,
        audit: Audit,
    ) -> StoreResult<Written<WebhookDelivery>> {
        let (organization_id, livemode) =
            (audit.event.organization_id.clone(), audit.event.livemode);
        self.state().audited(audit, |state| {
            let Some(delivery) = state.webhooks.deliveries.iter_mut().find(|d| {
                d.organization_id == organization_id
                    && d.livemode == livemode
                    && d.endpoint_id == endpoint_id
                    && d.id == delivery_id
            }) else {
                return Err(StoreError::missing(Resource::WebhookDelivery, delivery_id));
            };
            if delivery.status == DeliveryStatus::Pending {
                return Err(StoreError::status_changed(
                    Resource::WebhookDelivery,
                    delivery_id,
                    StoreState::Finished,
                ));
            }
            delivery.status = DeliveryStatus::Pending;
            delivery.next_attempt_at = now;
            delivery.locked_until = None;
            delivery.updated_at = now;
            let replayed = delivery.clone();
            Ok(replayed)
        })
    }

    async fn endpoints_to_fan_out(&self) -> StoreResult<Vec<WebhookEndpoint>> {
        let state = self.state();
        Ok(state
            .webhooks
            .endpoints
            .iter()
            .filter(|r| r.is_live() && r.value.enabled)
            .map(|r| r.value.clone())
            .collect())
    }

    async fn events_between(
        &self,
        tenant: &Tenant,
        after: OffsetDateTime,
        until: OffsetDateTime,
        limit: i64,
    ) -> StoreResult<Vec<Event>> {
        let mut found = of_tenant(&self.state().events, tenant, |e| {
            e.created_at > after && e.created_at <= until
        });
        sort_oldest_first(&mut found);
        found.truncate(usize::try_from(limit).unwrap_or(0));
        Ok(found)
    }

    async fn add_webhook_deliveries(
        &self,
        endpoint: &WebhookEndpoint,
        deliveries: Vec<WebhookDelivery>,
        until: OffsetDateTime,
    ) -> StoreResult<usize> {
        let mut state = self.state();
        let mut added = 0;
        for delivery in deliveries {
            let exists =
                state.webhooks.deliveries.iter().any(|d| {
                    d.endpoint_id == delivery.endpoint_id && d.event_id == delivery.event_id
                });
            if !exists {
                state.webhooks.deliveries.push(delivery);
                added += 1;
            }
        }
        if let Some(row) = state
            .webhooks
            .endpoints
            .iter_mut()
            .find(|r| r.value.id == endpoint.id)
            && row.value.fanned_out_until < until
        {
            row.value.fanned_out_until = until;
        }
        Ok(added)
    }

    async fn claim_webhook_deliveries(
        &self,
        now: OffsetDateTime,
        lease: time::Duration,
        limit: i64,
    ) -> StoreResult<Vec<(WebhookDelivery, WebhookEndpoint)>> {
        let mut state = self.state();
        let state = &mut *state;
        let hooks = &mut state.webhooks;
        let mut candidates: Vec<usize> = (0..hooks.deliveries.len())
            .filter(|&i| {
                let d = &hooks.deliveries[i];
                let due = d.status == DeliveryStatus::Pending
                    && d.next_attempt_at <= now
                    && d.locked_until.is_none_or(|l| l < now);
                let open = hooks
                    .endpoints
                    .iter()
                    .any(|r| r.is_live() && r.value.enabled && r.value.id == d.endpoint_id);
                let blocked = hooks.deliveries.iter().any(|p| {
                    p.endpoint_id == d.endpoint_id
                        && p.entity_type == d.entity_type
                        && p.entity_id == d.entity_id
                        && p.status == DeliveryStatus::Pending
                        && order_key(p) < order_key(d)
                });
                due && open && !blocked
            })
            .collect();
        candidates.sort_by(|&a, &b| {
            let (a, b) = (&hooks.deliveries[a], &hooks.deliveries[b]);
            (a.next_attempt_at, &a.id).cmp(&(b.next_attempt_at, &b.id))
        });
        candidates.truncate(usize::try_from(limit).unwrap_or(0));
        let mut claimed = Vec::with_capacity(candidates.len());
        for i in candidates {
            let d = &mut hooks.deliveries[i];
            d.attempts += 1;
            d.locked_until = Some(now + lease);
            d.updated_at = now;
            let endpoint = hooks
                .endpoints
                .iter()
                .find(|r| r.value.id == d.endpoint_id)
                .map(|r| r.value.clone())
                .ok_or_else(|| {
                    StoreError::Internal("a claimed delivery lost its endpoint".into())
                })?;
            claimed.push((d.clone(), endpoint));
        }
        Ok(claimed)
    }

    async fn record_attempt(&self, outcome: AttemptOutcome) -> StoreResult<bool> {
        let mut state = self.state();
        let state = &mut *state;
        let AttemptOutcome {
            attempt,
            succeeded,
            retry_at,
            disable_after,
            disabled_event,
        } = outcome;
        let now = attempt.started_at + time::Duration::milliseconds(attempt.duration_ms);
        let Some(delivery) = state.webhooks.deliveries.iter_mut().find(|d| {
            d.id == attempt.delivery_id
                && d.status == DeliveryStatus::Pending
                && d.attempts == attempt.attempt
        }) else {
            return Ok(false);
        };
        delivery.locked_until = None;
        delivery.last_status_code = attempt.status_code;
        delivery.last_error = attempt.error.clone();
        delivery.updated_at = now;
        match (succeeded, retry_at) {
            (true, _) => {
                delivery.status = DeliveryStatus::Delivered;
                delivery.delivered_at = Some(now);
            }
            (false, Some(at)) => delivery.next_attempt_at = at,
            (false, None) => delivery.status = DeliveryStatus::Failed,
        }
        let endpoint_id = delivery.endpoint_id.clone();
        state.webhooks.attempts.push(attempt);
        if let Some(row) = state
            .webhooks
            .endpoints
            .iter_mut()
            .find(|r| r.value.id == endpoint_id)
        {
            if succeeded {
                row.value.failure_streak = 0;
            } else {
                row.value.failure_streak += 1;
                if row.value.enabled && row.value.failure_streak >= disable_after {
                    row.value.enabled = false;
                    row.value.disabled_reason = Some("failure_streak".into());
                    state.events.push(disabled_event);
                }
            }
        }
        Ok(true)
    }
}

/// A transport for tests: secrets from a counter, and every send answered with the
/// next scripted status (200 when the script is empty), recorded.
#[derive(Debug, Clone, Default)]
pub struct MemoryWebhookTransport {
    inner: Arc<Mutex<TransportState>>,
}

#[derive(Debug, Default)]
struct TransportState {
    secrets: u64,
    script: std::collections::VecDeque<u16>,
    sent: Vec<OutgoingWebhook>,
}

impl MemoryWebhookTransport {
    fn lock(&self) -> std::sync::MutexGuard<'_, TransportState> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Answers the next sends with these statuses, in order.
    pub fn script(&self, statuses: &[u16]) {
        self.lock().script.extend(statuses.iter().copied());
    }

    /// What was sent so far, in order.
    pub fn sent(&self) -> Vec<OutgoingWebhook> {
        self.lock().sent.clone()
    }
}

impl WebhookTransport for MemoryWebhookTransport {
    fn new_secret(&self) -> StoreResult<String> {
        let mut state = self.lock();
        state.secrets += 1;
        Ok(format!("whsec_dGVzdC1zZWNyZXQt{:08}", state.secrets))
    }

    fn send(&self, webhook: OutgoingWebhook) -> BoxFuture<'_, SendResult> {
        let mut state = self.lock();
        let status = state.script.pop_front().unwrap_or(200);
        state.sent.push(webhook);
        Box::pin(async move {
            SendResult {
                status_code: Some(status),
                error: None,
                response_snippet: None,
                duration_ms: 1,
            }
        })
    }
}
