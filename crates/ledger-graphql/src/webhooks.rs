//! Webhooks in GraphQL (camelCase): endpoints of the key's organization, their delivery
//! log, and the resolvers the query and mutation roots share. Writes go through the
//! domain's pipeline (1 credit each, `admin`); reads need `read`. The signing secret is
//! answered only by `createWebhookEndpoint` and `rotateWebhookSecret`.

use juniper::{DefaultScalarValue, ID, graphql_object};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{NewWebhookEndpointInput, WebhookEndpointChanges, Write};
use ledger_domain::webhooks::{WebhookAttempt, WebhookDelivery, WebhookEndpoint};

use crate::context::{Ctx, id_of};
use crate::errors::{GqlResult, IntoGql};
use crate::scalars::{DateTime, Json};

/// The permission resource of webhooks.
const RESOURCE: &str = "webhooks";

/// A receiver of the organization's events.
pub struct WebhookEndpointNode(pub WebhookEndpoint);

/// A receiver of the organization's events (of the key's mode).
#[graphql_object(name = "WebhookEndpointNode", scalar = DefaultScalarValue)]
impl WebhookEndpointNode {
    fn id(&self) -> ID {
        ID::new(&self.0.id)
    }
    fn url(&self) -> &str {
        &self.0.url
    }
    fn description(&self) -> Option<&str> {
        self.0.description.as_deref()
    }
    /// The kinds delivered; `["*"]` for every kind.
    fn event_types(&self) -> Vec<String> {
        if self.0.event_types.is_empty() {
            vec!["*".to_owned()]
        } else {
            self.0.event_types.clone()
        }
    }
    fn enabled(&self) -> bool {
        self.0.enabled
    }
    /// `manual` or `failure_streak` while disabled.
    fn disabled_reason(&self) -> Option<&str> {
        self.0.disabled_reason.as_deref()
    }
    /// Consecutive failed attempts (reset by a success).
    fn failure_streak(&self) -> i32 {
        i32::try_from(self.0.failure_streak).unwrap_or(i32::MAX)
    }
    fn created_at(&self) -> DateTime {
        DateTime::at(self.0.created_at)
    }
    fn updated_at(&self) -> DateTime {
        DateTime::at(self.0.updated_at)
    }
}

/// An endpoint with its signing secret (`whsec_...`), shown only here.
pub struct WebhookEndpointWithSecret {
    endpoint: WebhookEndpoint,
}

/// An endpoint with its signing secret, answered at creation and rotation only.
#[graphql_object(name = "WebhookEndpointWithSecret", scalar = DefaultScalarValue)]
impl WebhookEndpointWithSecret {
    fn endpoint(&self) -> WebhookEndpointNode {
        WebhookEndpointNode(self.endpoint.clone())
    }
    /// `whsec_` and the base64 key that signs deliveries (Standard Webhooks).
    fn secret(&self) -> &str {
        &self.endpoint.secret
    }
}

/// One event on its way to one endpoint, with its attempts when read alone.
pub struct WebhookDeliveryNode(pub WebhookDelivery, pub Vec<WebhookAttempt>);

/// One event on its way to one endpoint.
#[graphql_object(name = "WebhookDeliveryNode", scalar = DefaultScalarValue)]
impl WebhookDeliveryNode {
    fn id(&self) -> ID {
        ID::new(&self.0.id)
    }
    fn endpoint_id(&self) -> ID {
        ID::new(&self.0.endpoint_id)
    }
    /// The event's id, also the `webhook-id` header.
    fn event_id(&self) -> ID {
        ID::new(&self.0.event_id)
    }
    fn event_type(&self) -> &str {
        &self.0.event_type
    }
    fn entity_type(&self) -> &str {
        &self.0.entity_type
    }
    fn entity_id(&self) -> &str {
        &self.0.entity_id
    }
    /// `pending`, `delivered` or `failed` (given up).
    fn status(&self) -> &str {
        self.0.status.as_str()
    }
    fn attempts(&self) -> i32 {
        i32::try_from(self.0.attempts).unwrap_or(i32::MAX)
    }
    fn last_status_code(&self) -> Option<i32> {
        self.0.last_status_code.and_then(|c| i32::try_from(c).ok())
    }
    fn last_error(&self) -> Option<&str> {
        self.0.last_error.as_deref()
    }
    fn delivered_at(&self) -> Option<DateTime> {
        self.0.delivered_at.map(DateTime::at)
    }
    fn created_at(&self) -> DateTime {
        DateTime::at(self.0.created_at)
    }
    /// The body sent.
    fn payload(&self) -> Json {
        Json(serde_json::from_str(&self.0.payload).unwrap_or_default())
    }
    /// The attempts, oldest first (filled when the delivery is read alone).
    fn attempt_log(&self) -> Vec<WebhookAttemptNode> {
        self.1.iter().cloned().map(WebhookAttemptNode).collect()
    }
}

/// One attempt of a delivery.
pub struct WebhookAttemptNode(pub WebhookAttempt);

/// One attempt of a delivery.
#[graphql_object(name = "WebhookAttemptNode", scalar = DefaultScalarValue)]
impl WebhookAttemptNode {
    fn attempt(&self) -> i32 {
        i32::try_from(self.0.attempt).unwrap_or(i32::MAX)
    }
    fn started_at(&self) -> DateTime {
        DateTime::at(self.0.started_at)
    }
    fn duration_ms(&self) -> i32 {
        i32::try_from(self.0.duration_ms).unwrap_or(i32::MAX)
    }
    fn status_code(&self) -> Option<i32> {
        self.0.status_code.and_then(|c| i32::try_from(c).ok())
    }
    fn error(&self) -> Option<&str> {
        self.0.error.as_deref()
    }
    fn response_snippet(&self) -> Option<&str> {
        self.0.response_snippet.as_deref()
    }
}

/// The endpoints of the key's organization, oldest first.
pub(crate) async fn list<St: Store>(
    context: &Ctx<St>,
    limit: Option<i32>,
    offset: Option<i32>,
) -> GqlResult<Vec<WebhookEndpointNode>> {
    let access = context.own(Scope::Read, RESOURCE).await?;
    let found = context
        .ledger
        .list_webhook_endpoints(&access, crate::nodes::list_page(limit, offset)?)
        .await
        .gql()?;
    Ok(found.items.into_iter().map(WebhookEndpointNode).collect())
}

/// An endpoint of the key's organization; `None` when there is none with this id.
pub(crate) async fn find<St: Store>(
    context: &Ctx<St>,
    id: &str,
) -> GqlResult<Option<WebhookEndpointNode>> {
    let access = context.own(Scope::Read, RESOURCE).await?;
    match context.ledger.get_webhook_endpoint(&access, id).await {
        Ok(endpoint) => Ok(Some(WebhookEndpointNode(endpoint))),
        Err(ledger_domain::DomainError::NotFound { .. }) => Ok(None),
        Err(e) => Err(crate::errors::field_error(e)),
    }
}

/// The deliveries of an endpoint, newest event first.
pub(crate) async fn deliveries<St: Store>(
    context: &Ctx<St>,
    endpoint_id: &str,
    limit: Option<i32>,
    offset: Option<i32>,
) -> GqlResult<Vec<WebhookDeliveryNode>> {
    let access = context.own(Scope::Read, RESOURCE).await?;
    let found = context
        .ledger
        .list_webhook_deliveries(
            &access,
            endpoint_id,
            crate::nodes::list_page(limit, offset)?,
        )
        .await
        .gql()?;
    Ok(found
        .items
        .into_iter()
        .map(|d| WebhookDeliveryNode(d, Vec::new()))
        .collect())
}

/// A delivery with its attempts; `None` when there is none.
pub(crate) async fn delivery<St: Store>(
    context: &Ctx<St>,
    endpoint_id: &str,
    id: &str,
) -> GqlResult<Option<WebhookDeliveryNode>> {
    let access = context.own(Scope::Read, RESOURCE).await?;
    match context
        .ledger
        .get_webhook_delivery(&access, endpoint_id, id)
        .await
    {
        Ok((delivery, attempts)) => Ok(Some(WebhookDeliveryNode(delivery, attempts))),
        Err(ledger_domain::DomainError::NotFound { .. }) => Ok(None),
        Err(e) => Err(crate::errors::field_error(e)),
    }
}

/// Submits an endpoint write and reads the endpoint back (with its secret when asked).
async fn written<St: Store>(
    context: &Ctx<St>,
    write: Write,
) -> GqlResult<(WebhookEndpoint, serde_json::Value)> {
    let access = context.own(Scope::Admin, RESOURCE).await?;
    let view = context.submit(&access, write).await?;
    let endpoint = context
        .ledger
        .get_webhook_endpoint(&access, &id_of(&view)?)
        .await
        .gql()?;
    Ok((endpoint, view))
}

/// Creates an endpoint (1 credit; `admin`).
pub(crate) async fn create<St: Store>(
    context: &Ctx<St>,
    input: NewWebhookEndpointInput,
) -> GqlResult<WebhookEndpointWithSecret> {
    let (endpoint, _) = written(context, Write::CreateWebhookEndpoint(input)).await?;
    Ok(WebhookEndpointWithSecret { endpoint })
}

/// Changes an endpoint (1 credit; `admin`).
pub(crate) async fn update<St: Store>(
    context: &Ctx<St>,
    id: &str,
    changes: WebhookEndpointChanges,
) -> GqlResult<WebhookEndpointNode> {
    let write = Write::UpdateWebhookEndpoint {
        id: id.to_owned(),
        changes,
    };
    Ok(WebhookEndpointNode(written(context, write).await?.0))
}

/// Replaces an endpoint's secret (1 credit; `admin`).
pub(crate) async fn rotate<St: Store>(
    context: &Ctx<St>,
    id: &str,
) -> GqlResult<WebhookEndpointWithSecret> {
    let write = Write::RotateWebhookSecret { id: id.to_owned() };
    let (endpoint, _) = written(context, write).await?;
    Ok(WebhookEndpointWithSecret { endpoint })
}

/// Soft-deletes an endpoint (1 credit; `admin`).
pub(crate) async fn delete<St: Store>(context: &Ctx<St>, id: &str) -> GqlResult<bool> {
    let access = context.own(Scope::Admin, RESOURCE).await?;
    let write = Write::DeleteWebhookEndpoint { id: id.to_owned() };
    context.submit(&access, write).await?;
    Ok(true)
}

/// Sends a delivered or given-up delivery again (1 credit; `admin`).
pub(crate) async fn replay<St: Store>(
    context: &Ctx<St>,
    endpoint_id: &str,
    id: &str,
) -> GqlResult<WebhookDeliveryNode> {
    let access = context.own(Scope::Admin, RESOURCE).await?;
    let write = Write::ReplayWebhookDelivery {
        endpoint_id: endpoint_id.to_owned(),
        delivery_id: id.to_owned(),
    };
    context.submit(&access, write).await?;
    let (delivery, attempts) = context
        .ledger
        .get_webhook_delivery(&access, endpoint_id, id)
        .await
        .gql()?;
    Ok(WebhookDeliveryNode(delivery, attempts))
}
