//! The credit fields of the mutation root: buying credits through a hosted checkout or
//! with x402 (both free, both needing `admin`).
//!
//! Juniper reads an object's fields from one `#[graphql_object]` impl, so the fields are
//! written here inside macros that `super` expands into that impl: the names the bodies
//! use resolve in `super`.

/// Appends these fields to the fields gathered so far (`[...]`) and hands them on to
/// the next macro named.
macro_rules! credit_fields {
    ([$($fields:tt)*] $next:ident $($rest:ident)*) => {
        $next! { [$($fields)*

            /// Opens a hosted checkout for the credit package of `creditAmount` credits (free;
            /// needs `admin`). Pay at `checkoutUrl` before `expiresAt`; the credits are added once
            /// the payment is confirmed. Test keys use the development checkout (no money, no
            /// live credits).
            async fn purchase_credits(
                context: &Ctx<St>,
                credit_amount: i32,
                success_url: Option<String>,
                cancel_url: Option<String>,
            ) -> GqlResult<Option<crate::credits::CreditPurchaseNode>> {
                let access = context.own(Scope::Admin, "credits").await?;
                let input = ledger_domain::services::PurchaseInput {
                    package_id: None,
                    credit_amount: Some(i64::from(credit_amount)),
                    success_url,
                    cancel_url,
                };
                let purchase = context
                    .ledger
                    .purchase_credits(&access, input)
                    .await
                    .gql()?;
                crate::credits::CreditPurchaseNode::of(&purchase, context.ledger.now()).map(Some)
            }

            /// Asks to buy a credit package with x402 (free; needs `admin`): answers the payment
            /// requirements, what REST's 402 carries in `PAYMENT-REQUIRED` (as a typed object and
            /// as that header's value). Sign one of `accepts` (an EIP-3009 authorization as EIP-712
            /// typed data) and send it with `completeX402CreditPurchase`. In `organizationId`
            /// (default the key's own); credits go to its root's pool. Nothing is written.
            async fn start_x402_credit_purchase(
                context: &Ctx<St>,
                organization_id: Option<ID>,
                input: crate::credits::StartX402CreditPurchaseInput,
            ) -> GqlResult<Option<crate::credits::X402PaymentRequiredNode>> {
                crate::credits::start_x402(context, organization_id.as_deref(), input)
                    .await
                    .map(Some)
            }

            /// Pays for a credit package with a signed x402 payment (free; needs `admin`):
            /// verified and settled, the purchase is completed and its credits added once;
            /// answers the purchase and the settlement (REST's `PAYMENT-RESPONSE`). A refused
            /// payment changes nothing and is the field's error (`BUSINESS_RULE_VIOLATION`,
            /// `reason` `payment_replayed`, `payment_signature_invalid`, `payment_invalid`,
            /// `payment_amount_mismatch`, `payment_recipient_mismatch`, `payment_expired` or
            /// `payment_required`, with the requirements in `extensions.paymentRequired`).
            async fn complete_x402_credit_purchase(
                context: &Ctx<St>,
                organization_id: Option<ID>,
                input: crate::credits::CompleteX402CreditPurchaseInput,
            ) -> GqlResult<Option<crate::credits::X402CreditPurchaseNode>> {
                crate::credits::complete_x402(context, organization_id.as_deref(), input)
                    .await
                    .map(Some)
            }

        ] $($rest)* }
    };
}
pub(super) use credit_fields;
