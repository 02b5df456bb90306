//! The two steps the workers run: the fan-out of recorded events into deliveries, and
//! the delivery of due ones through the [`crate::ports::WebhookTransport`], each attempt
//! recorded.

use serde_json::json;

use crate::error::DomainResult;
use crate::events::Event;
use crate::ids::{IdKind, new_id};
use crate::ports::{AttemptOutcome, OutgoingWebhook, Store, Tenant};
use crate::webhooks::{DeliveryStatus, WebhookAttempt, WebhookDelivery, WebhookEndpoint, payload};

use crate::services::Ledger;

/// Events one fan-out pass reads per endpoint at most (the next pass reads on).
const FAN_OUT_BATCH: i64 = 500;

/// How long a claimed delivery is leased beyond the transport's timeout.
const LEASE_MARGIN: time::Duration = time::Duration::seconds(30);

impl<S: Store> Ledger<S> {
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
