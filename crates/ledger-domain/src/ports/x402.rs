//! x402 payments: the facilitator port (verify, settle) with its local implementation,
//! and the store's record of used authorizations.

use std::future::Future;

use time::OffsetDateTime;

use crate::credits::CreditPurchase;
use crate::events::Event;
use crate::x402::{
    PaymentPayload, PaymentRequirements, Refusal, SettlementResponse, VerifiedPayment,
    local_transaction_id, verify_exact,
};

use super::{BoxFuture, StoreResult};

/// An x402 facilitator: verifies a payment against the requirements offered, and settles
/// it (moves the funds). Object-safe.
pub trait X402Facilitator: Send + Sync + 'static {
    /// `local`, or the facilitator's name.
    fn name(&self) -> &'static str;

    /// Verifies `payment` against `offered` at `now`.
    ///
    /// # Errors
    /// The [`Refusal`] of the first failed check (`payment_invalid`,
    /// `payment_signature_invalid`, `payment_amount_mismatch`,
    /// `payment_recipient_mismatch`, `payment_expired`).
    fn verify<'a>(
        &'a self,
        payment: &'a PaymentPayload,
        offered: &'a PaymentRequirements,
        now: OffsetDateTime,
    ) -> BoxFuture<'a, Result<VerifiedPayment, Refusal>>;

    /// Settles a verified payment.
    ///
    /// # Errors
    /// A [`Refusal`] when the settlement fails (`payment_replayed` when the chain has
    /// seen the nonce).
    fn settle<'a>(
        &'a self,
        payment: &'a VerifiedPayment,
    ) -> BoxFuture<'a, Result<SettlementResponse, Refusal>>;
}

/// The local facilitator: verification is [`verify_exact`] (signature, recipient,
/// amount, window), settlement moves nothing and answers a deterministic transaction id
/// (keccak-256 of the signed digest). The nonce is made single-use by the store
/// ([`X402Payments::record_x402_purchase`]), where a chain would refuse it. For
/// development and tests: no funds move.
#[derive(Debug, Clone, Copy, Default)]
pub struct LocalFacilitator;

impl X402Facilitator for LocalFacilitator {
    fn name(&self) -> &'static str {
        "local"
    }

    fn verify<'a>(
        &'a self,
        payment: &'a PaymentPayload,
        offered: &'a PaymentRequirements,
        now: OffsetDateTime,
    ) -> BoxFuture<'a, Result<VerifiedPayment, Refusal>> {
        let now = u64::try_from(now.unix_timestamp()).unwrap_or(0);
        Box::pin(async move { verify_exact(payment, offered, now) })
    }

    fn settle<'a>(
        &'a self,
        payment: &'a VerifiedPayment,
    ) -> BoxFuture<'a, Result<SettlementResponse, Refusal>> {
        Box::pin(async move {
            Ok(SettlementResponse {
                success: true,
                error_reason: None,
                payer: Some(payment.payer.clone()),
                transaction: local_transaction_id(payment),
                network: payment.network.clone(),
                amount: Some(payment.amount.clone()),
            })
        })
    }
}

/// A used x402 authorization: its key is (network, asset, payer, nonce).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct X402Authorization {
    pub network: String,
    /// Lowercase 0x hex.
    pub asset: String,
    /// Lowercase 0x hex.
    pub payer: String,
    /// Lowercase 0x hex.
    pub nonce: String,
    /// The organization whose purchase it paid.
    pub organization_id: String,
    pub livemode: bool,
    pub purchase_id: String,
    /// The settlement's transaction id.
    pub transaction: String,
    /// Atomic units paid.
    pub amount: String,
    pub created_at: OffsetDateTime,
}

/// The store's side of x402: authorizations are single-use across every organization.
pub trait X402Payments: Send + Sync + 'static {
    /// Whether the authorization (network, asset, payer, nonce) was used.
    fn x402_authorization_used(
        &self,
        network: &str,
        asset: &str,
        payer: &str,
        nonce: &str,
    ) -> impl Future<Output = StoreResult<bool>> + Send;

    /// Records `authorization` and the paid `purchase` (stored completed: for a live
    /// purchase its pool is credited, a ledger row named by the purchase id), with
    /// `events`, in one transaction. The authorization's key is unique: when it was
    /// recorded before (a replay, or a racing retry that committed first) nothing is
    /// written and `false` is returned.
    fn record_x402_purchase(
        &self,
        purchase: CreditPurchase,
        authorization: X402Authorization,
        events: Vec<Event>,
    ) -> impl Future<Output = StoreResult<bool>> + Send;
}
