//! Credit purchases paid with x402 (issue 19 item 3): a request for a package without a
//! payment is answered with the payment requirements (HTTP 402); a request carrying a
//! payment is verified and settled by the facilitator and, in one store transaction, the
//! authorization is recorded (its key — network, token, payer, nonce — is unique, so a
//! replayed or concurrently retried payment is credited once), the purchase is stored
//! completed and, in live mode, its credits join the root's pool (the credit ledger row
//! named by the purchase id).

use crate::credits::{CreditPurchase, PRICE_CURRENCY, PurchaseStatus};
use crate::error::{DomainError, DomainResult, ErrorCode};
use crate::ids::{IdKind, new_id};
use crate::ports::{Store, X402Authorization};
use crate::x402::{
    PaymentRequired, Refusal, ResourceInfo, SettlementResponse, X402_VERSION, decode_payment,
};

use super::{Access, Ledger, PurchaseInput};

/// What an x402 purchase request comes to.
#[derive(Debug, Clone)]
pub enum X402Outcome {
    /// Paid and credited: answer 200 with the purchase and `PAYMENT-RESPONSE`.
    Paid {
        purchase: Box<CreditPurchase>,
        settlement: SettlementResponse,
    },
    /// No payment, or a refused one: answer 402 with `payment_required` in
    /// `PAYMENT-REQUIRED` (its `error` says why a payment was refused) and `error` in the
    /// body. Nothing was written.
    Required {
        payment_required: PaymentRequired,
        error: DomainError,
    },
}

/// The refusal an [`X402Outcome::Required`] is answered with, as every interface
/// reports it: the code and message of `error` (`payment_required`, or why the payment
/// was refused), with the requirements in its details (`payment_required`: the object of
/// the `PAYMENT-REQUIRED` header).
pub fn payment_refusal(payment_required: &PaymentRequired, error: &DomainError) -> DomainError {
    DomainError::Reported {
        code: error.code(),
        message: error.public_message(),
        details: Some(serde_json::json!({ "payment_required": payment_required })),
    }
}

/// A request to buy a package with x402.
#[derive(Debug, Clone, Default)]
pub struct X402PurchaseInput {
    /// The package, by id or by size (as for hosted purchases).
    pub package_id: Option<String>,
    pub credit_amount: Option<i64>,
    /// The URL of the resource paid for (the purchase endpoint as the client called it).
    pub resource_url: String,
    /// The `PAYMENT-SIGNATURE` header, when the client pays.
    pub payment: Option<String>,
}

impl<S: Store> Ledger<S> {
    /// Buys a credit package with x402 (needs `admin`; DECISIONS 3).
    ///
    /// # Errors
    /// `insufficient_permissions`; `missing_field`/`invalid_field` on the package;
    /// `service_unavailable` when x402 is not enabled. Payment refusals are not errors
    /// but [`X402Outcome::Required`].
    pub async fn x402_purchase(
        &self,
        access: &Access,
        input: X402PurchaseInput,
    ) -> DomainResult<X402Outcome> {
        access.require(crate::organizations::Scope::Admin, "credits")?;
        let Some(config) = &self.config.x402 else {
            return Err(DomainError::rule(
                ErrorCode::ServiceUnavailable,
                "x402 credit purchases are not enabled on this server",
            ));
        };
        let package = self.package_for(&PurchaseInput {
            package_id: input.package_id,
            credit_amount: input.credit_amount,
            ..PurchaseInput::default()
        })?;
        let offered = config.requirements_for(&package);
        let required = |error: Option<String>| PaymentRequired {
            x402_version: X402_VERSION,
            error,
            resource: ResourceInfo {
                url: input.resource_url.clone(),
                description: Some(format!(
                    "{} Ledger credits ({})",
                    package.credits, package.id
                )),
                mime_type: Some("application/json".into()),
            },
            accepts: vec![offered.clone()],
        };
        let refuse = |r: Refusal| {
            tracing::info!(code = %r.code, reason = %r.message, "x402 payment refused");
            Ok(X402Outcome::Required {
                payment_required: required(Some(r.message.clone())),
                error: r.to_error(),
            })
        };
        let Some(header) = input.payment.filter(|h| !h.trim().is_empty()) else {
            return Ok(X402Outcome::Required {
                payment_required: required(None),
                error: DomainError::rule(
                    ErrorCode::PaymentRequired,
                    format!(
                        "{} credits cost {}.{:02} {}: pay with x402 (the PAYMENT-REQUIRED \
                         header) and send the same request again with PAYMENT-SIGNATURE",
                        package.credits,
                        package.price_cents / 100,
                        package.price_cents % 100,
                        PRICE_CURRENCY.to_uppercase()
                    ),
                ),
            });
        };
        let payment = match decode_payment(&header) {
            Ok(p) => p,
            Err(r) => return refuse(r),
        };
        let now = self.now();
        let verified = match self.facilitator.verify(&payment, &offered, now).await {
            Ok(v) => v,
            Err(r) => return refuse(r),
        };
        // A replay is refused before settling; the store's unique key decides races.
        if self
            .store
            .x402_authorization_used(
                &verified.network,
                &verified.asset,
                &verified.payer,
                &verified.nonce,
            )
            .await?
        {
            return refuse(Refusal::replayed());
        }
        let settlement = match self.facilitator.settle(&verified).await {
            Ok(s) if s.success => s,
            Ok(s) => {
                return refuse(Refusal::invalid(format!(
                    "the facilitator did not settle the payment: {}",
                    s.error_reason.unwrap_or_default()
                )));
            }
            Err(r) => return refuse(r),
        };
        let purchase = CreditPurchase {
            id: new_id(IdKind::CreditPurchase),
            organization_id: access.tenant.organization_id.clone(),
            livemode: access.tenant.livemode,
            pool_id: access.pool_id(),
            package_id: package.id.clone(),
            credits: package.credits,
            price_cents: package.price_cents,
            currency: PRICE_CURRENCY.to_owned(),
            provider: "x402".into(),
            provider_session_id: Some(settlement.transaction.clone()),
            checkout_url: input.resource_url.clone(),
            status: PurchaseStatus::Pending,
            success_url: None,
            cancel_url: None,
            api_key_id: access.key_id.clone(),
            expires_at: now,
            created_at: now,
            completed_at: None,
        };
        let created = self.purchase_event(
            &purchase,
            "credit_purchase.created",
            Some(access.key_id.clone()),
        );
        let mut completed = purchase.clone();
        completed.status = PurchaseStatus::Completed;
        completed.completed_at = Some(now);
        let done = self.purchase_event(
            &completed,
            "credit_purchase.completed",
            Some(access.key_id.clone()),
        );
        let authorization = X402Authorization {
            network: verified.network.clone(),
            asset: verified.asset.clone(),
            payer: verified.payer.clone(),
            nonce: verified.nonce.clone(),
            organization_id: purchase.organization_id.clone(),
            livemode: purchase.livemode,
            purchase_id: purchase.id.clone(),
            transaction: settlement.transaction.clone(),
            amount: verified.amount.clone(),
            created_at: now,
        };
        if !self
            .store
            .record_x402_purchase(purchase, authorization, vec![created, done])
            .await?
        {
            return refuse(Refusal::replayed());
        }
        Ok(X402Outcome::Paid {
            purchase: Box::new(completed),
            settlement,
        })
    }
}
