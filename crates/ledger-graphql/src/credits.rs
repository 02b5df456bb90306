//! Credit nodes (spec 2.2, 2.8): packages and purchases; the balance is on
//! `OrganizationNode.creditBalance`. The x402 pair (issue 19 item 3): the payment
//! requirements `startX402CreditPurchase` answers (what REST's 402 carries in
//! `PAYMENT-REQUIRED`) and the paid purchase with its settlement
//! `completeX402CreditPurchase` answers (REST's 200 with `PAYMENT-RESPONSE`).

use juniper::{GraphQLInputObject, GraphQLObject, ID};
use ledger_domain::DomainError;
use ledger_domain::credits::{CreditPackage, CreditPurchase, PRICE_CURRENCY};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{X402Outcome, X402PurchaseInput, payment_refusal};
use ledger_domain::x402::{
    PaymentRequired, PaymentRequirements, ResourceInfo, SettlementResponse, encode_header,
};
use time::OffsetDateTime;

use crate::context::Ctx;
use crate::errors::{GqlResult, IntoGql, field_error};
use crate::nodes::int;
use crate::scalars::{DateTime, Json};

/// A package of credits on sale.
#[derive(GraphQLObject)]
#[graphql(name = "CreditPackageNode")]
pub struct CreditPackageNode {
    id: ID,
    credits: i32,
    /// Price in cents of `currency`.
    price_cents: i32,
    currency: String,
}

impl CreditPackageNode {
    pub(crate) fn of(p: &CreditPackage) -> GqlResult<Self> {
        Ok(Self {
            id: ID::new(&p.id),
            credits: int(p.credits)?,
            price_cents: int(p.price_cents)?,
            currency: PRICE_CURRENCY.to_owned(),
        })
    }
}

/// A purchase of credits. Through a hosted checkout (`provider` `dev` or `stripe`): open
/// `checkoutUrl` to pay; the credits are added once the payment is confirmed. With x402
/// (`provider` `x402`): completed when answered; `checkoutUrl` is the resource paid for.
#[derive(GraphQLObject)]
#[graphql(name = "CreditPurchaseNode")]
pub struct CreditPurchaseNode {
    id: ID,
    checkout_url: String,
    credits_to_add: i32,
    price_cents: i32,
    currency: String,
    /// `pending`, `completed` or `expired`.
    status: String,
    expires_at: DateTime,
    /// `dev`, `stripe` or `x402`.
    provider: String,
    /// The package bought (`credits_1000`).
    package_id: ID,
    /// False for a test-mode purchase, which never changes the live pool.
    livemode: bool,
    completed_at: Option<DateTime>,
}

impl CreditPurchaseNode {
    pub(crate) fn of(p: &CreditPurchase, now: OffsetDateTime) -> GqlResult<Self> {
        Ok(Self {
            id: ID::new(&p.id),
            checkout_url: p.checkout_url.clone(),
            credits_to_add: int(p.credits)?,
            price_cents: int(p.price_cents)?,
            currency: p.currency.clone(),
            status: p.status_at(now).as_str().to_owned(),
            expires_at: DateTime::at(p.expires_at),
            provider: p.provider.clone(),
            package_id: ID::new(&p.package_id),
            livemode: p.livemode,
            completed_at: p.completed_at.map(DateTime::at),
        })
    }
}

/// The package an x402 purchase is for: by its size or by its id (one of the two).
#[derive(Debug, GraphQLInputObject)]
#[graphql(name = "StartX402CreditPurchaseInput")]
pub struct StartX402CreditPurchaseInput {
    /// Credits to buy: the size of a package (`creditPackages`); or give `packageId`.
    pub credit_amount: Option<i32>,
    /// A package id (`credits_1000`); or give `creditAmount`.
    pub package_id: Option<ID>,
}

/// An x402 payment for a package: the same package as `startX402CreditPurchase` and
/// the signed payment for the requirements it answered.
#[derive(Debug, GraphQLInputObject)]
#[graphql(name = "CompleteX402CreditPurchaseInput")]
pub struct CompleteX402CreditPurchaseInput {
    /// Credits to buy: the size of a package (`creditPackages`); or give `packageId`.
    pub credit_amount: Option<i32>,
    /// A package id (`credits_1000`); or give `creditAmount`.
    pub package_id: Option<ID>,
    /// The x402 `PaymentPayload` as REST's `PAYMENT-SIGNATURE` header carries it:
    /// standard base64 of `{x402Version: 2, accepted: <the requirements offered,
    /// unchanged>, payload: {signature, authorization: {from, to, value, validAfter,
    /// validBefore, nonce}}}` (an EIP-3009 authorization signed as EIP-712 typed data).
    pub payment_signature: String,
}

/// The resource paid for.
#[derive(GraphQLObject)]
#[graphql(name = "X402ResourceNode")]
pub struct X402ResourceNode {
    /// The REST purchase endpoint of the organization (the same resource either way).
    url: String,
    description: Option<String>,
    mime_type: Option<String>,
}

/// One way to pay (x402 `PaymentRequirements`).
#[derive(GraphQLObject)]
#[graphql(name = "X402PaymentRequirementsNode")]
pub struct X402PaymentRequirementsNode {
    /// `exact`.
    scheme: String,
    /// CAIP-2 network, `eip155:<chain id>`.
    network: String,
    /// The token contract (the EIP-712 `verifyingContract`).
    asset: String,
    /// The price in the token's atomic units, decimal text.
    amount: String,
    /// The address paid (the authorization's `to`).
    pay_to: String,
    /// The longest validity window an authorization may have.
    max_timeout_seconds: i32,
    /// The token's EIP-712 domain `{name, version}`.
    extra: Json,
    /// These requirements as JSON, to be copied unchanged into the payment's `accepted`.
    json: Json,
}

/// What an x402 purchase takes (x402 `PaymentRequired`, REST's 402): sign one of
/// `accepts` and send it with `completeX402CreditPurchase`.
#[derive(GraphQLObject)]
#[graphql(name = "X402PaymentRequiredNode")]
pub struct X402PaymentRequiredNode {
    /// `2`.
    x402_version: i32,
    /// Why a payment was refused; `null` when none was sent.
    error: Option<String>,
    resource: X402ResourceNode,
    accepts: Vec<X402PaymentRequirementsNode>,
    /// The same object as REST's `PAYMENT-REQUIRED` header value (standard base64 of its
    /// JSON), for x402 client libraries.
    payment_required_header: String,
}

impl X402PaymentRequiredNode {
    pub(crate) fn of(required: &PaymentRequired) -> GqlResult<Self> {
        let ResourceInfo {
            url,
            description,
            mime_type,
        } = required.resource.clone();
        let accepts = required
            .accepts
            .iter()
            .map(X402PaymentRequirementsNode::of)
            .collect::<GqlResult<Vec<_>>>()?;
        Ok(Self {
            x402_version: int(i64::from(required.x402_version))?,
            error: required.error.clone(),
            resource: X402ResourceNode {
                url,
                description,
                mime_type,
            },
            accepts,
            payment_required_header: encode_header(required),
        })
    }
}

impl X402PaymentRequirementsNode {
    fn of(r: &PaymentRequirements) -> GqlResult<Self> {
        Ok(Self {
            scheme: r.scheme.clone(),
            network: r.network.clone(),
            asset: r.asset.clone(),
            amount: r.amount.clone(),
            pay_to: r.pay_to.clone(),
            max_timeout_seconds: int(i64::try_from(r.max_timeout_seconds).unwrap_or(i64::MAX))?,
            extra: Json(serde_json::Value::Object(r.extra.clone())),
            json: Json(serde_json::to_value(r).unwrap_or_default()),
        })
    }
}

/// The settlement of an x402 payment (x402 `SettlementResponse`, REST's
/// `PAYMENT-RESPONSE`).
#[derive(GraphQLObject)]
#[graphql(name = "X402SettlementNode")]
pub struct X402SettlementNode {
    success: bool,
    /// The settlement's transaction id (`0x` + 32 bytes hex).
    transaction: String,
    network: String,
    /// The paying address.
    payer: Option<String>,
    /// Atomic units of the token.
    amount: Option<String>,
    error_reason: Option<String>,
}

/// A paid x402 purchase: the completed purchase (its credits added once) and the
/// settlement.
#[derive(GraphQLObject)]
#[graphql(name = "X402CreditPurchaseNode")]
pub struct X402CreditPurchaseNode {
    purchase: CreditPurchaseNode,
    settlement: X402SettlementNode,
    /// The same object as REST's `PAYMENT-RESPONSE` header value (standard base64 of its
    /// JSON).
    payment_response_header: String,
}

impl X402CreditPurchaseNode {
    pub(crate) fn of(
        purchase: &CreditPurchase,
        settlement: &SettlementResponse,
        now: OffsetDateTime,
    ) -> GqlResult<Self> {
        Ok(Self {
            purchase: CreditPurchaseNode::of(purchase, now)?,
            settlement: X402SettlementNode {
                success: settlement.success,
                transaction: settlement.transaction.clone(),
                network: settlement.network.clone(),
                payer: settlement.payer.clone(),
                amount: settlement.amount.clone(),
                error_reason: settlement.error_reason.clone(),
            },
            payment_response_header: encode_header(settlement),
        })
    }
}

/// Runs an x402 purchase request through the domain (the same call as REST's
/// `POST /organizations/{org}/credits/x402`, which MCP's tools call): in
/// `organization_id` (default the key's own; its root's pool is credited), needs `admin`
/// on `credits`, as REST.
async fn x402_request<St: Store>(
    context: &Ctx<St>,
    organization_id: Option<&str>,
    credit_amount: Option<i32>,
    package_id: Option<ID>,
    payment: Option<String>,
) -> GqlResult<X402Outcome> {
    let access = match organization_id {
        Some(org) => context.access(org, Scope::Admin, "credits").await?,
        None => context.own(Scope::Admin, "credits").await?,
    };
    let resource_url = format!(
        "{}/organizations/{}/credits/x402",
        context.origin, access.tenant.organization_id
    );
    context
        .ledger
        .x402_purchase(
            &access,
            X402PurchaseInput {
                package_id: package_id.map(|id| id.to_string()),
                credit_amount: credit_amount.map(i64::from),
                resource_url,
                payment,
            },
        )
        .await
        .gql()
}

/// `startX402CreditPurchase`: the payment requirements of a package.
pub(crate) async fn start_x402<St: Store>(
    context: &Ctx<St>,
    organization_id: Option<&str>,
    input: StartX402CreditPurchaseInput,
) -> GqlResult<X402PaymentRequiredNode> {
    match x402_request(
        context,
        organization_id,
        input.credit_amount,
        input.package_id,
        None,
    )
    .await?
    {
        X402Outcome::Required {
            payment_required, ..
        } => X402PaymentRequiredNode::of(&payment_required),
        X402Outcome::Paid { .. } => Err(field_error(DomainError::Internal(
            "an x402 purchase was paid without a payment".into(),
        ))),
    }
}

/// `completeX402CreditPurchase`: pays a package; a refused payment is the field's error
/// with the refusal's code and the requirements in `extensions.paymentRequired`.
pub(crate) async fn complete_x402<St: Store>(
    context: &Ctx<St>,
    organization_id: Option<&str>,
    input: CompleteX402CreditPurchaseInput,
) -> GqlResult<X402CreditPurchaseNode> {
    match x402_request(
        context,
        organization_id,
        input.credit_amount,
        input.package_id,
        Some(input.payment_signature),
    )
    .await?
    {
        X402Outcome::Paid {
            purchase,
            settlement,
        } => X402CreditPurchaseNode::of(&purchase, &settlement, context.ledger.now()),
        X402Outcome::Required {
            payment_required,
            error,
        } => Err(field_error(payment_refusal(&payment_required, &error))),
    }
}
