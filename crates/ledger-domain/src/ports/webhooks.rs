//! Webhooks: endpoint rows (written synchronously with an event and credits), the
//! outbox fan-out, the delivery queue and its log, and the transport that signs and
//! sends a delivery.

use std::future::Future;

use time::OffsetDateTime;

use crate::events::{Deletion, Event};
use crate::webhooks::{SendResult, WebhookAttempt, WebhookDelivery, WebhookEndpoint};

use super::{Audit, BoxFuture, Page, PageRequest, StoreResult, Tenant, Written};

/// How one attempt ended, as the service decided it (see [`Webhooks::record_attempt`]).
#[derive(Debug, Clone, PartialEq)]
pub struct AttemptOutcome {
    pub attempt: WebhookAttempt,
    /// Whether the receiver acknowledged it.
    pub succeeded: bool,
    /// After a failure: when to try again, or `None` to give the delivery up.
    pub retry_at: Option<OffsetDateTime>,
    /// Consecutive failures that disable the endpoint.
    pub disable_after: i64,
    /// The event recorded when this failure disables the endpoint.
    pub disabled_event: Event,
}

/// Webhook endpoints, deliveries and attempts.
pub trait Webhooks: Send + Sync + 'static {
    /// Inserts an endpoint with its event, taking the credits; a used `idempotency` key
    /// is replayed instead.
    ///
    /// # Errors
    /// `CreditsShort` when a live pool is short; nothing is written then.
    fn insert_webhook_endpoint(
        &self,
        endpoint: WebhookEndpoint,
        audit: Audit,
    ) -> impl Future<Output = StoreResult<Written<WebhookEndpoint>>> + Send;

    /// A live (not deleted) endpoint of the tenant.
    fn get_webhook_endpoint(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<WebhookEndpoint>>> + Send;

    /// The live endpoints of the tenant, oldest first.
    fn list_webhook_endpoints(
        &self,
        tenant: &Tenant,
        page: PageRequest,
    ) -> impl Future<Output = StoreResult<Page<WebhookEndpoint>>> + Send;

    /// Stores `endpoint`'s url, description, kinds, enabled flag, disabled reason,
    /// secret and failure streak (the rest is fixed), with its event and credits.
    ///
    /// # Errors
    /// `Missing` when it is not live in its tenant; `CreditsShort`.
    fn update_webhook_endpoint(
        &self,
        endpoint: WebhookEndpoint,
        audit: Audit,
    ) -> impl Future<Output = StoreResult<Written<WebhookEndpoint>>> + Send;

    /// Soft-deletes an endpoint (its deliveries stop) with its deletion record.
    ///
    /// # Errors
    /// `Missing` when it is not live in the deletion's tenant;
    /// `CreditsShort`.
    fn delete_webhook_endpoint(
        &self,
        endpoint_id: &str,
        deletion: Deletion,
        audit: Audit,
    ) -> impl Future<Output = StoreResult<Written<()>>> + Send;

    /// The deliveries of one endpoint of the tenant, newest event first.
    fn list_webhook_deliveries(
        &self,
        tenant: &Tenant,
        endpoint_id: &str,
        page: PageRequest,
    ) -> impl Future<Output = StoreResult<Page<WebhookDelivery>>> + Send;

    /// A delivery of one endpoint of the tenant, with its attempts (oldest first).
    fn get_webhook_delivery(
        &self,
        tenant: &Tenant,
        endpoint_id: &str,
        delivery_id: &str,
    ) -> impl Future<Output = StoreResult<Option<(WebhookDelivery, Vec<WebhookAttempt>)>>> + Send;

    /// Makes a delivered or failed delivery pending again, due at `now` (its attempts so
    /// far stay in the log), with its event and credits.
    ///
    /// # Errors
    /// `Missing` when the delivery is not one of the endpoint's in the
    /// event's tenant; `invalid_state_transition` when it is still pending;
    /// `CreditsShort`.
    fn replay_webhook_delivery(
        &self,
        endpoint_id: &str,
        delivery_id: &str,
        now: OffsetDateTime,
        audit: Audit,
    ) -> impl Future<Output = StoreResult<Written<WebhookDelivery>>> + Send;

    /// Every enabled live endpoint of every tenant (the fan-out's work list).
    fn endpoints_to_fan_out(
        &self,
    ) -> impl Future<Output = StoreResult<Vec<WebhookEndpoint>>> + Send;

    /// Events of the tenant created after `after` and at or before `until`, oldest first
    /// (then by id), at most `limit`.
    fn events_between(
        &self,
        tenant: &Tenant,
        after: OffsetDateTime,
        until: OffsetDateTime,
        limit: i64,
    ) -> impl Future<Output = StoreResult<Vec<Event>>> + Send;

    /// Inserts the deliveries that do not exist yet (one per endpoint and event: a
    /// second fan-out of the same event inserts nothing) and moves the endpoint's
    /// `fanned_out_until` forward to `until` (never back), in one transaction. Answers
    /// how many were inserted.
    fn add_webhook_deliveries(
        &self,
        endpoint: &WebhookEndpoint,
        deliveries: Vec<WebhookDelivery>,
        until: OffsetDateTime,
    ) -> impl Future<Output = StoreResult<usize>> + Send;

    /// Claims up to `limit` due deliveries, each with its endpoint: pending, due at
    /// `now`, not leased (or leased before `now`), of a live enabled endpoint, and with
    /// no earlier pending delivery of the same entity to the same endpoint (earlier by
    /// the event's creation time, then its id). A claim counts an attempt and leases the
    /// delivery until `now + lease`. Concurrent claimers never claim the same delivery.
    fn claim_webhook_deliveries(
        &self,
        now: OffsetDateTime,
        lease: time::Duration,
        limit: i64,
    ) -> impl Future<Output = StoreResult<Vec<(WebhookDelivery, WebhookEndpoint)>>> + Send;

    /// Records an attempt of a claimed delivery in one transaction: the attempt row;
    /// the delivery `delivered`, retried at `retry_at`, or `failed`; the endpoint's
    /// failure streak reset on success or counted on failure, and the endpoint disabled
    /// (reason `failure_streak`, with `disabled_event`) when the streak reaches
    /// `disable_after`. Nothing is written when the claim was taken over meanwhile
    /// (the delivery is no longer pending with the attempt's number); answers whether
    /// it was recorded.
    fn record_attempt(
        &self,
        outcome: AttemptOutcome,
    ) -> impl Future<Output = StoreResult<bool>> + Send;
}

/// A delivery on the wire: what to sign and where to send it.
#[derive(Clone)]
pub struct OutgoingWebhook {
    pub url: String,
    /// `webhook-id`: the event's id (the same for every attempt and replay).
    pub message_id: String,
    /// `webhook-timestamp`: seconds since the Unix epoch, of this attempt.
    pub timestamp: i64,
    pub body: String,
    /// The endpoint's `whsec_` secret.
    pub secret: String,
    pub timeout: std::time::Duration,
    pub allow_private: bool,
}

impl std::fmt::Debug for OutgoingWebhook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutgoingWebhook")
            .field("url", &self.url)
            .field("message_id", &self.message_id)
            .finish_non_exhaustive()
    }
}

/// The outside world of webhooks: makes signing secrets and sends signed deliveries.
/// Object-safe, since the ledger holds one behind `Arc<dyn WebhookTransport>`.
pub trait WebhookTransport: Send + Sync + 'static {
    /// A fresh signing secret: `whsec_` and the base64 of random key bytes.
    ///
    /// # Errors
    /// `Internal` when the random source fails.
    fn new_secret(&self) -> StoreResult<String>;

    /// Signs `webhook` (Standard Webhooks) and POSTs it, refusing (without sending)
    /// any address [`crate::webhooks::is_public_address`] refuses unless
    /// `allow_private`. Never fails: every problem is a failed [`SendResult`].
    fn send(&self, webhook: OutgoingWebhook) -> BoxFuture<'_, SendResult>;
}

/// The transport of a ledger nobody configured one for: no secrets, no sends, so
/// webhook endpoints cannot be created and nothing leaves the process.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoWebhookTransport;

impl WebhookTransport for NoWebhookTransport {
    fn new_secret(&self) -> StoreResult<String> {
        Err(super::StoreError::Internal(
            "no webhook transport is configured".into(),
        ))
    }

    fn send(&self, _webhook: OutgoingWebhook) -> BoxFuture<'_, SendResult> {
        Box::pin(async {
            SendResult {
                status_code: None,
                error: Some("no webhook transport is configured".into()),
                response_snippet: None,
                duration_ms: 0,
            }
        })
    }
}
