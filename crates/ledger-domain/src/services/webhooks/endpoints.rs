//! The synchronous webhook writes through the pipeline, one credit each: creating,
//! changing, rotating the secret of and deleting an endpoint, and replaying a delivery.

use serde_json::{Value, json};

use crate::error::DomainResult;
use crate::error::Resource;
use crate::ids::{IdKind, new_id};
use crate::ports::{Store, StoreError, Written};
use crate::webhooks::{DeliveryStatus, WebhookEndpoint, check_event_types, check_url};

use crate::services::deletions::Removal;
use crate::services::{Access, Ledger, WriteOptions};

use super::{
    NewWebhookEndpointInput, WebhookEndpointChanges, check_description, delivery_view,
    endpoint_view,
};

impl<S: Store> Ledger<S> {
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
            .insert_webhook_endpoint(endpoint, self.audit(access, options, event, &view))
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
            .update_webhook_endpoint(after, self.audit(access, options, event, &view))
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
        let before = endpoint_view(&endpoint, false);
        let removal = Removal::new("webhook_endpoint", &endpoint.id, &endpoint.url, before);
        self.soft_delete(access, options, removal, |deletion, audit| {
            self.store
                .delete_webhook_endpoint(&endpoint.id, deletion, audit)
        })
        .await
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
            return Err(StoreError::status_changed(
                Resource::WebhookDelivery,
                &delivery.id,
                crate::ports::State::Finished,
            )
            .into());
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
                self.audit(access, options, event, &view),
            )
            .await?;
        Ok(written.map(|_| view))
    }
}
