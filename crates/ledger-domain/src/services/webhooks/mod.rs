//! Webhooks (DECISIONS 9): endpoint management (synchronous writes through the
//! pipeline, one credit each), the delivery log and replay, and the two steps the
//! workers run: the fan-out of recorded events into deliveries, and the delivery of due
//! ones through the [`crate::ports::WebhookTransport`].
//!
//! The retry schedule, giving up, the failure streak that disables an endpoint and the
//! address rule live in [`crate::webhooks`]; the transport only signs, resolves and
//! sends; the store only claims and records what it is told.
//!
//! The endpoint writes and the replay of a delivery are in [`endpoints`]; the fan-out and
//! the delivery in [`delivery`].

mod delivery;
mod endpoints;

use serde_json::Value;

use crate::error::{DomainError, DomainResult};
use crate::events::Event;
use crate::ids::IdKind;
use crate::ports::{Page, PageRequest, Store};
use crate::views;
use crate::webhooks::{MAX_DESCRIPTION_CHARS, WebhookAttempt, WebhookDelivery, WebhookEndpoint};

use super::accounts::{find_by_id, tenant_reads};
use super::{Access, Ledger};

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
    views::json(&views::WebhookEndpointView::of(e, with_secret))
}

/// A delivery as clients see it (the payload as JSON when it parses).
pub fn delivery_view(d: &WebhookDelivery, attempts: Option<&[WebhookAttempt]>) -> Value {
    views::json(&views::WebhookDeliveryView::of(d, attempts))
}

/// One attempt of the delivery log.
pub fn attempt_view(a: &WebhookAttempt) -> Value {
    views::json(&views::WebhookAttemptView::of(a))
}

impl<S: Store> Ledger<S> {
    tenant_reads! {
        /// A live endpoint of the tenant.
        ///
        /// # Errors
        /// `resource_not_found` when it does not exist in the tenant or is deleted.
        pub fn get_webhook_endpoint(id) -> WebhookEndpoint:
            WebhookEndpoint, "webhook_endpoint", get_webhook_endpoint;

        /// The tenant's live endpoints, oldest first.
        ///
        /// # Errors
        /// Storage failures.
        pub fn list_webhook_endpoints(page) -> WebhookEndpoint: list_webhook_endpoints;
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
        find_by_id(
            IdKind::WebhookDelivery,
            "webhook_delivery",
            delivery_id,
            |parsed| async move {
                self.store
                    .get_webhook_delivery(&access.tenant, &endpoint.id, &parsed)
                    .await
            },
        )
        .await
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
}
