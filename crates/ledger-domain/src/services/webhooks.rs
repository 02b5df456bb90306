//! Webhooks (DECISIONS 9): endpoint management (synchronous writes through the
//! pipeline, one credit each), the delivery log and replay, and the two steps the
//! workers run: the fan-out of recorded events into deliveries, and the delivery of due
//! ones through the [`crate::ports::WebhookTransport`].
//!
//! The retry schedule, giving up, the failure streak that disables an endpoint and the
//! address rule live in [`crate::webhooks`]; the transport only signs, resolves and
//! sends; the store only claims and records what it is told.

use serde_json::{Value, json};

use crate::error::{DomainError, DomainResult};
use crate::events::Event;
use crate::ids::{IdKind, new_id, parse_id};
use crate::ports::{AttemptOutcome, OutgoingWebhook, Page, PageRequest, Store, Tenant, Written};
use crate::views::timestamp;
use crate::webhooks::{
    DeliveryStatus, MAX_DESCRIPTION_CHARS, WebhookAttempt, WebhookDelivery, WebhookEndpoint,
    check_event_types, check_url, payload,
};

use super::accounts::not_found;
use super::{Access, Ledger, WriteOptions, with_result};

/// Events one fan-out pass reads per endpoint at most (the next pass reads on).
const FAN_OUT_BATCH: i64 = 500;

/// How long a claimed delivery is leased beyond the transport's timeout.
const LEASE_MARGIN: time::Duration = time::Duration::seconds(30);

/// A new endpoint as a client gave it.
#[derive(Debug, Clone, Default)]
pub struct NewWebhookEndpointInput {
    pub url: String,
    pub description: Option<String>,
    /// Empty or `["*"]`: every kind.
    pub event_types: Vec<String>,
    /// Default true.
    pub enabled: Option<bool>,
}

/// Changes to an endpoint; `None` keeps the value (an empty description clears it).
#[derive(Debug, Clone, Default)]
pub struct WebhookEndpointChanges {
    pub url: Option<String>,
    pub description: Option<String>,
    pub event_types: Option<Vec<String>>,
    pub enabled: Option<bool>,
}

fn check_description(text: Option<String>) -> DomainResult<Option<String>> {
    let Some(text) = text.map(|t| t.trim().to_owned()).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    if text.chars().count() > MAX_DESCRIPTION_CHARS {
        return Err(DomainError::invalid_field(
            "description",
            format!("must be at most {MAX_DESCRIPTION_CHARS} characters"),
        ));
    }
    Ok(Some(text))
}

/// The endpoint as clients see it; the secret only when `with_secret` (creation and
/// rotation answers).
pub fn endpoint_view(e: &WebhookEndpoint, with_secret: bool) -> Value {
    let mut v = json!({
        "id": e.id,
        "object": "webhook_endpoint",
        "organization_id": e.organization_id,
        "livemode": e.livemode,
        "url": e.url,
        "description": e.description,
        "event_types": if e.event_types.is_empty() { vec!["*".to_owned()] } else { e.event_types.clone() },
        "enabled": e.enabled,
        "disabled_reason": e.disabled_reason,
        "failure_streak": e.failure_streak,
        "created_at": timestamp(e.created_at),
        "updated_at": timestamp(e.updated_at),
    });
    if with_secret {
        v["secret"] = json!(e.secret);
    }
    v
}

/// A delivery as clients see it (the payload as JSON when it parses).
pub fn delivery_view(d: &WebhookDelivery, attempts: Option<&[WebhookAttempt]>) -> Value {
    let mut v = json!({
        "id": d.id,
        "object": "webhook_delivery",
        "endpoint_id": d.endpoint_id,
        "event_id": d.event_id,
        "event_type": d.event_type,
        "entity_type": d.entity_type,
        "entity_id": d.entity_id,
        "status": d.status.as_str(),
        "attempts": d.attempts,
        "next_attempt_at": (d.status == DeliveryStatus::Pending).then(|| timestamp(d.next_attempt_at)),
        "last_status_code": d.last_status_code,
        "last_error": d.last_error,
        "delivered_at": d.delivered_at.map(timestamp),
        "created_at": timestamp(d.created_at),
        "payload": serde_json::from_str::<Value>(&d.payload).unwrap_or(Value::String(d.payload.clone())),
    });
    if let Some(attempts) = attempts {
        v["attempt_log"] = attempts.iter().map(attempt_view).collect::<Vec<_>>().into();
    }
    v
}

/// One attempt of the delivery log.
pub fn attempt_view(a: &WebhookAttempt) -> Value {
    json!({
        "id": a.id,
        "attempt": a.attempt,
        "started_at": timestamp(a.started_at),
        "duration_ms": a.duration_ms,
        "status_code": a.status_code,
        "error": a.error,
        "response_snippet": a.response_snippet,
    })
}

impl<S: Store> Ledger<S> {
    /// A live endpoint of the tenant.
    ///
    /// # Errors
    /// `resource_not_found` when it does not exist in the tenant or is deleted.
    pub async fn get_webhook_endpoint(
        &self,
        access: &Access,
        id: &str,
    ) -> DomainResult<WebhookEndpoint> {
        let Some(parsed) = parse_id(IdKind::WebhookEndpoint, id) else {
            return Err(not_found("webhook_endpoint", id));
        };
        self.store
            .get_webhook_endpoint(&access.tenant, &parsed)
            .await?
            .ok_or_else(|| not_found("webhook_endpoint", id))
    }

    /// The tenant's live endpoints, oldest first.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn list_webhook_endpoints(
        &self,
        access: &Access,
        page: PageRequest,
    ) -> DomainResult<Page<WebhookEndpoint>> {
        Ok(self
            .store
            .list_webhook_endpoints(&access.tenant, page)
            .await?)
    }

    /// The deliveries of an endpoint, newest event first.
    ///
    /// # Errors
    /// `resource_not_found` for an endpoint outside the tenant.
    pub async fn list_webhook_deliveries(
        &self,
        access: &Access,
        endpoint_id: &str,
        page: PageRequest,
    ) -> DomainResult<Page<WebhookDelivery>> {
        let endpoint = self.get_webhook_endpoint(access, endpoint_id).await?;
        Ok(self
            .store
            .list_webhook_deliveries(&access.tenant, &endpoint.id, page)
            .await?)
    }

    /// A delivery of an endpoint with its attempts.
    ///
    /// # Errors
    /// `resource_not_found` for an endpoint or delivery outside the tenant.
    pub async fn get_webhook_delivery(
        &self,
        access: &Access,
        endpoint_id: &str,
        delivery_id: &str,
    ) -> DomainResult<(WebhookDelivery, Vec<WebhookAttempt>)> {
        let endpoint = self.get_webhook_endpoint(access, endpoint_id).await?;
        let Some(parsed) = parse_id(IdKind::WebhookDelivery, delivery_id) else {
            return Err(not_found("webhook_delivery", delivery_id));
        };
        self.store
            .get_webhook_delivery(&access.tenant, &endpoint.id, &parsed)
            .await?
            .ok_or_else(|| not_found("webhook_delivery", delivery_id))
    }

    fn endpoint_event(
        &self,
        access: &Access,
        event_type: &str,
        before: Option<&WebhookEndpoint>,
        after: Option<&WebhookEndpoint>,
        id: &str,
    ) -> Event {
        self.event(
            access,
            event_type,
            "webhook_endpoint",
            id,
            before.map(|e| endpoint_view(e, false)),
            after.map(|e| endpoint_view(e, false)),
        )
    }

    /// Creates an endpoint with a fresh secret (synchronous write); the answer is the
    /// only one that shows the secret, besides a rotation's.
    ///
    /// # Errors
    /// `invalid_field` on `url`, `description`, `event_types`; `insufficient_credits`.
    pub(crate) async fn create_webhook_endpoint(
        &self,
        access: &Access,
        input: NewWebhookEndpointInput,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let url = check_url(&input.url, self.config.webhooks.allow_private)?;
        let description = check_description(input.description)?;
        let event_types = check_event_types(&input.event_types)?;
        let enabled = input.enabled.unwrap_or(true);
        let now = self.now();
        let endpoint = WebhookEndpoint {
            id: new_id(IdKind::WebhookEndpoint),
            organization_id: access.tenant.organization_id.clone(),
            livemode: access.tenant.livemode,
            url,
            description,
            event_types,
            enabled,
            disabled_reason: (!enabled).then(|| "manual".to_owned()),
            secret: self.webhook_transport.new_secret()?,
            failure_streak: 0,
            fanned_out_until: now,
            created_at: now,
            updated_at: now,
        };
        let view = endpoint_view(&endpoint, true);
        let event = self.endpoint_event(
            access,
            "webhook_endpoint.created",
            None,
            Some(&endpoint),
            &endpoint.id,
        );
        let written = self
            .store
            .insert_webhook_endpoint(
                endpoint,
                event,
                with_result(options.idempotency, &view),
                Some(self.charge(access, options.credits)),
            )
            .await?;
        Ok(written.map(|_| view))
    }

    /// Changes an endpoint (synchronous write). Enabling it clears its failure streak.
    ///
    /// # Errors
    /// `resource_not_found`; validation as at creation; `insufficient_credits`.
    pub(crate) async fn update_webhook_endpoint(
        &self,
        access: &Access,
        id: &str,
        changes: WebhookEndpointChanges,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let before = self.get_webhook_endpoint(access, id).await?;
        let mut after = before.clone();
        if let Some(url) = changes.url {
            after.url = check_url(&url, self.config.webhooks.allow_private)?;
        }
        if changes.description.is_some() {
            after.description = check_description(changes.description)?;
        }
        if let Some(kinds) = changes.event_types {
            after.event_types = check_event_types(&kinds)?;
        }
        match changes.enabled {
            Some(true) if !before.enabled => {
                after.enabled = true;
                after.disabled_reason = None;
                after.failure_streak = 0;
            }
            Some(false) if before.enabled => {
                after.enabled = false;
                after.disabled_reason = Some("manual".to_owned());
            }
            _ => {}
        }
        after.updated_at = self.now();
        self.store_endpoint_change(
            access,
            before,
            after,
            "webhook_endpoint.updated",
            false,
            options,
        )
        .await
    }

    /// Replaces an endpoint's secret (synchronous write); the answer shows the new one.
    /// The old secret stops signing at once.
    ///
    /// # Errors
    /// `resource_not_found`; `insufficient_credits`.
    pub(crate) async fn rotate_webhook_secret(
        &self,
        access: &Access,
        id: &str,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let before = self.get_webhook_endpoint(access, id).await?;
        let mut after = before.clone();
        after.secret = self.webhook_transport.new_secret()?;
        after.updated_at = self.now();
        self.store_endpoint_change(
            access,
            before,
            after,
            "webhook_endpoint.secret_rotated",
            true,
            options,
        )
        .await
    }

    async fn store_endpoint_change(
        &self,
        access: &Access,
        before: WebhookEndpoint,
        after: WebhookEndpoint,
        event_type: &str,
        with_secret: bool,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let view = endpoint_view(&after, with_secret);
        let event = self.endpoint_event(access, event_type, Some(&before), Some(&after), &after.id);
        let written = self
            .store
            .update_webhook_endpoint(
                after,
                event,
                with_result(options.idempotency, &view),
                Some(self.charge(access, options.credits)),
            )
            .await?;
        Ok(written.map(|_| view))
    }

    /// Soft-deletes an endpoint (synchronous write); its pending deliveries stop.
    ///
    /// # Errors
    /// `resource_not_found`; `insufficient_credits`.
    pub(crate) async fn delete_webhook_endpoint(
        &self,
        access: &Access,
        id: &str,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let endpoint = self.get_webhook_endpoint(access, id).await?;
        let deletion = self.soft_deletion(access, "webhook_endpoint", &endpoint.id, &endpoint.url);
        let event = self.endpoint_event(
            access,
            "webhook_endpoint.deleted",
            Some(&endpoint),
            None,
            &endpoint.id,
        );
        let view =
            crate::views::deleted("webhook_endpoint", &endpoint.id, deletion.recoverable_until);
        let written = self
            .store
            .delete_webhook_endpoint(
                &endpoint.id,
                deletion,
                event,
                with_result(options.idempotency, &view),
                Some(self.charge(access, options.credits)),
            )
            .await?;
        Ok(written.map(|()| view))
    }

    /// Sends a delivered or given-up delivery again (synchronous write): it becomes
    /// pending, due now, and keeps its `webhook-id` and body.
    ///
    /// # Errors
    /// `resource_not_found`; `invalid_state_transition` while it is pending;
    /// `insufficient_credits`.
    pub(crate) async fn replay_webhook_delivery(
        &self,
        access: &Access,
        endpoint_id: &str,
        delivery_id: &str,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let (delivery, _) = self
            .get_webhook_delivery(access, endpoint_id, delivery_id)
            .await?;
        if delivery.status == DeliveryStatus::Pending {
            return Err(DomainError::rule(
                crate::error::ErrorCode::InvalidStateTransition,
                format!(
                    "webhook delivery {} is still pending; only a delivered or failed delivery is replayed",
                    delivery.id
                ),
            ));
        }
        let now = self.now();
        let mut replayed = delivery.clone();
        replayed.status = DeliveryStatus::Pending;
        replayed.next_attempt_at = now;
        replayed.updated_at = now;
        let view = delivery_view(&replayed, None);
        let event = self.event(
            access,
            "webhook_delivery.replayed",
            "webhook_delivery",
            &delivery.id,
            Some(json!({ "status": delivery.status.as_str() })),
            Some(json!({ "status": "pending", "endpoint_id": delivery.endpoint_id })),
        );
        let written = self
            .store
            .replay_webhook_delivery(
                &delivery.endpoint_id,
                &delivery.id,
                now,
                event,
                with_result(options.idempotency, &view),
                Some(self.charge(access, options.credits)),
            )
            .await?;
        Ok(written.map(|_| view))
    }

    /// The fan-out: turns the events recorded since each enabled endpoint's watermark
    /// (and older than the policy's settle time) into its deliveries. Idempotent, so
    /// every replica may run it. Answers how many deliveries were added.
    ///
    /// # Errors
    /// Storage failures (the next pass takes up where this one stopped).
    pub async fn fan_out_webhooks(&self) -> DomainResult<usize> {
        let settle = time::Duration::try_from(self.config.webhooks.settle).unwrap_or_default();
        let until = self.now() - settle;
        let mut added = 0;
        for endpoint in self.store.endpoints_to_fan_out().await? {
            let after = endpoint.fanned_out_until;
            if until <= after {
                continue;
            }
            let tenant = Tenant {
                organization_id: endpoint.organization_id.clone(),
                livemode: endpoint.livemode,
            };
            let events = self
                .store
                .events_between(&tenant, after, until, FAN_OUT_BATCH)
                .await?;
            // A full batch may stop inside one microsecond: read on from just before it.
            let watermark = match events.last() {
                Some(last) if events.len() as i64 >= FAN_OUT_BATCH => {
                    (last.created_at - time::Duration::microseconds(1)).max(after)
                }
                _ => until,
            };
            let now = self.now();
            let deliveries: Vec<WebhookDelivery> = events
                .iter()
                .filter(|e| endpoint.wants(&e.event_type, &e.entity_type))
                .map(|e| WebhookDelivery {
                    id: new_id(IdKind::WebhookDelivery),
                    organization_id: endpoint.organization_id.clone(),
                    livemode: endpoint.livemode,
                    endpoint_id: endpoint.id.clone(),
                    event_id: e.id.clone(),
                    event_type: e.event_type.clone(),
                    entity_type: e.entity_type.clone(),
                    entity_id: e.entity_id.clone(),
                    event_created_at: e.created_at,
                    payload: payload(e),
                    status: DeliveryStatus::Pending,
                    attempts: 0,
                    next_attempt_at: now,
                    locked_until: None,
                    last_status_code: None,
                    last_error: None,
                    delivered_at: None,
                    created_at: now,
                    updated_at: now,
                })
                .collect();
            added += self
                .store
                .add_webhook_deliveries(&endpoint, deliveries, watermark)
                .await?;
        }
        Ok(added)
    }

    /// Claims a batch of due deliveries and attempts each (concurrently), recording
    /// every attempt. Answers how many were claimed.
    ///
    /// # Errors
    /// Storage failures of the claim (an attempt's record failing is logged; its
    /// lease then runs out and another pass attempts it again).
    pub async fn deliver_webhooks(&self) -> DomainResult<usize> {
        let policy = &self.config.webhooks;
        let timeout = time::Duration::try_from(policy.timeout).unwrap_or_default();
        let claimed = self
            .store
            .claim_webhook_deliveries(self.now(), timeout + LEASE_MARGIN, policy.batch)
            .await?;
        let count = claimed.len();
        let mut running = Vec::with_capacity(count);
        for (delivery, endpoint) in claimed {
            let ledger = self.clone();
            running.push(self.runtime.spawn(Box::pin(async move {
                if let Err(e) = ledger.attempt_delivery(delivery, endpoint).await {
                    tracing::error!(error = %e, "recording a webhook attempt failed");
                }
            })));
        }
        for task in running {
            task.await;
        }
        Ok(count)
    }

    /// The fan-out, then one delivery pass; answers the deliveries claimed.
    ///
    /// # Errors
    /// As [`Ledger::fan_out_webhooks`] and [`Ledger::deliver_webhooks`].
    pub async fn run_webhooks(&self) -> DomainResult<usize> {
        self.fan_out_webhooks().await?;
        self.deliver_webhooks().await
    }

    async fn attempt_delivery(
        &self,
        delivery: WebhookDelivery,
        endpoint: WebhookEndpoint,
    ) -> DomainResult<()> {
        let policy = &self.config.webhooks;
        let started_at = self.now();
        let result = self
            .webhook_transport
            .send(OutgoingWebhook {
                url: endpoint.url.clone(),
                message_id: delivery.event_id.clone(),
                timestamp: started_at.unix_timestamp(),
                body: delivery.payload.clone(),
                secret: endpoint.secret.clone(),
                timeout: policy.timeout,
                allow_private: policy.allow_private,
            })
            .await;
        let succeeded = result.succeeded();
        let now = self.now();
        let retry_at = if succeeded {
            None
        } else {
            policy.next_attempt(&delivery.id, delivery.attempts, now)
        };
        tracing::info!(
            delivery_id = %delivery.id,
            endpoint_id = %endpoint.id,
            attempt = delivery.attempts,
            status = ?result.status_code,
            error = ?result.error,
            "webhook attempt"
        );
        let disabled_event = Event {
            id: new_id(IdKind::Event),
            organization_id: endpoint.organization_id.clone(),
            livemode: endpoint.livemode,
            event_type: "webhook_endpoint.disabled".to_owned(),
            entity_type: "webhook_endpoint".to_owned(),
            entity_id: endpoint.id.clone(),
            api_key_id: None,
            before_state: Some(json!({ "enabled": true })),
            after_state: Some(json!({
                "enabled": false,
                "disabled_reason": "failure_streak",
                "failure_streak": policy.disable_after,
            })),
            created_at: now,
        };
        let outcome = AttemptOutcome {
            attempt: WebhookAttempt {
                id: new_id(IdKind::WebhookAttempt),
                organization_id: delivery.organization_id.clone(),
                livemode: delivery.livemode,
                delivery_id: delivery.id.clone(),
                attempt: delivery.attempts,
                started_at,
                duration_ms: result.duration_ms,
                status_code: result.status_code.map(i64::from),
                error: result.error,
                response_snippet: result.response_snippet,
            },
            succeeded,
            retry_at,
            disable_after: policy.disable_after,
            disabled_event,
        };
        if !self.store.record_attempt(outcome).await? {
            tracing::warn!(delivery_id = %delivery.id, "a webhook attempt ended after its lease was taken over; not recorded");
        }
        Ok(())
    }
}
