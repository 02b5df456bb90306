//! Credit pools, their ledger and purchases; the payment-provider port.

use std::future::Future;

use time::OffsetDateTime;

use crate::credits::{CreditPool, CreditPurchase, LedgerEntry};
use crate::error::DomainError;
use crate::events::Event;

use super::{BoxFuture, Page, PageRequest, StoreResult, Tenant};

/// Credit pools and purchases.
pub trait Credits: Send + Sync + 'static {
    /// The live pool of the root organization `pool_id`.
    fn credit_pool(
        &self,
        pool_id: &str,
    ) -> impl Future<Output = StoreResult<Option<CreditPool>>> + Send;

    /// Resets the pool for `period` (see `credits::after_reset`) unless it was reset for
    /// that period or a later one: in one transaction with the pool row locked, a ledger
    /// row whose id is `credits::reset_entry_id(period)` (a unique key, so of two replicas
    /// racing only one resets) and the new balance. Returns the change made, `None` when
    /// there was nothing to do.
    fn reset_pool(
        &self,
        pool_id: &str,
        period: &str,
        allowance: i64,
        at: OffsetDateTime,
    ) -> impl Future<Output = StoreResult<Option<i64>>> + Send;

    /// Up to `limit` pools whose last reset is of a period before `period`.
    fn pools_due(
        &self,
        period: &str,
        limit: i64,
    ) -> impl Future<Output = StoreResult<Vec<String>>> + Send;

    /// The pool's ledger, newest first.
    fn credit_ledger(
        &self,
        pool_id: &str,
        page: PageRequest,
    ) -> impl Future<Output = StoreResult<Page<LedgerEntry>>> + Send;

    /// The sum of the pool's ledger rows (equal to its balance).
    fn credit_ledger_sum(&self, pool_id: &str) -> impl Future<Output = StoreResult<i64>> + Send;

    /// Inserts a pending purchase with its event.
    fn insert_purchase(
        &self,
        purchase: CreditPurchase,
        event: Event,
    ) -> impl Future<Output = StoreResult<CreditPurchase>> + Send;

    /// A purchase of the tenant.
    fn get_purchase(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<CreditPurchase>>> + Send;

    /// A purchase of the organization `organization_id` in either mode (confirmations
    /// name the organization and the purchase, not a mode).
    fn find_purchase(
        &self,
        organization_id: &str,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<CreditPurchase>>> + Send;

    /// The tenant's purchases, newest first.
    fn list_purchases(
        &self,
        tenant: &Tenant,
        page: PageRequest,
    ) -> impl Future<Output = StoreResult<Page<CreditPurchase>>> + Send;

    /// Marks a stored-pending purchase completed at `at` and, for a live one, credits its
    /// pool (a ledger row named by the purchase id, the balance, the purchased part), with
    /// `event`, in one transaction. A purchase already completed is returned as it is and
    /// nothing is written: however often a confirmation arrives, it is credited once.
    /// Returns the purchase and whether this call completed it.
    ///
    /// # Errors
    /// `Missing` when there is no such purchase.
    fn complete_purchase(
        &self,
        organization_id: &str,
        id: &str,
        provider_session_id: Option<String>,
        at: OffsetDateTime,
        event: Event,
    ) -> impl Future<Output = StoreResult<(CreditPurchase, bool)>> + Send;
}

/// What a hosted checkout is opened for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckoutRequest {
    pub purchase_id: String,
    pub organization_id: String,
    pub livemode: bool,
    pub credits: i64,
    pub price_cents: i64,
    pub currency: String,
    pub description: String,
    pub success_url: Option<String>,
    pub cancel_url: Option<String>,
    pub expires_at: OffsetDateTime,
}

/// A checkout session opened at the provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckoutSession {
    /// The provider's session id.
    pub session_id: String,
    /// Where the buyer pays.
    pub url: String,
}

/// A payment the provider confirms, read from a verified notification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentConfirmation {
    pub purchase_id: String,
    pub organization_id: String,
    pub session_id: String,
    pub amount_cents: i64,
    pub currency: String,
}

/// A payment provider with a hosted checkout (Stripe, or the development provider).
pub trait PaymentProvider: Send + Sync + 'static {
    /// `stripe`, `dev`.
    fn name(&self) -> &'static str;

    /// Opens a checkout session for `request`.
    ///
    /// # Errors
    /// `service_unavailable` when the provider cannot be reached or refuses.
    fn create_checkout(
        &self,
        request: CheckoutRequest,
    ) -> BoxFuture<'_, Result<CheckoutSession, DomainError>>;

    /// Verifies a notification (webhook) the provider sent: `signature` is its signature
    /// header, `payload` the raw body. `Ok(None)` for a genuine notification that
    /// confirms no payment (another event type, an unpaid session).
    ///
    /// # Errors
    /// `invalid_field` (field `signature`) when the signature is missing, malformed,
    /// wrong or outside the tolerance window; `invalid_json` when the payload is not the
    /// provider's event shape.
    fn verify_notification(
        &self,
        signature: Option<&str>,
        payload: &[u8],
        now: OffsetDateTime,
    ) -> Result<Option<PaymentConfirmation>, DomainError>;
}

/// No provider configured: every checkout is refused.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoPayments;

impl PaymentProvider for NoPayments {
    fn name(&self) -> &'static str {
        "none"
    }

    fn create_checkout(
        &self,
        _request: CheckoutRequest,
    ) -> BoxFuture<'_, Result<CheckoutSession, DomainError>> {
        Box::pin(async {
            Err(DomainError::rule(
                crate::error::ErrorCode::ServiceUnavailable,
                "credit purchases are not configured on this server",
            ))
        })
    }

    fn verify_notification(
        &self,
        _signature: Option<&str>,
        _payload: &[u8],
        _now: OffsetDateTime,
    ) -> Result<Option<PaymentConfirmation>, DomainError> {
        Err(DomainError::invalid_field(
            "signature",
            "no payment provider is configured",
        ))
    }
}

/// The development provider: the checkout page is served by this service at
/// `{base_url}/checkout/dev/{organization_id}/{purchase_id}`, and paying there completes
/// the purchase. No money moves. Test-mode purchases always use it.
#[derive(Debug, Clone)]
pub struct DevPayments {
    pub base_url: String,
}

impl DevPayments {
    /// The checkout page of a purchase.
    pub fn checkout_url(&self, organization_id: &str, purchase_id: &str) -> String {
        format!(
            "{}/checkout/dev/{organization_id}/{purchase_id}",
            self.base_url.trim_end_matches('/')
        )
    }
}

impl PaymentProvider for DevPayments {
    fn name(&self) -> &'static str {
        "dev"
    }

    fn create_checkout(
        &self,
        request: CheckoutRequest,
    ) -> BoxFuture<'_, Result<CheckoutSession, DomainError>> {
        let url = self.checkout_url(&request.organization_id, &request.purchase_id);
        Box::pin(async move {
            Ok(CheckoutSession {
                session_id: format!("dev_{}", request.purchase_id),
                url,
            })
        })
    }

    fn verify_notification(
        &self,
        _signature: Option<&str>,
        _payload: &[u8],
        _now: OffsetDateTime,
    ) -> Result<Option<PaymentConfirmation>, DomainError> {
        // The development checkout completes purchases directly; it sends no webhooks.
        Err(DomainError::invalid_field(
            "signature",
            "the development payment provider sends no notifications",
        ))
    }
}
