//! Credit nodes (spec 2.2, 2.8): packages and purchases; the balance is on
//! `OrganizationNode.creditBalance`.

use juniper::{GraphQLObject, ID};
use ledger_domain::credits::{CreditPackage, CreditPurchase, PRICE_CURRENCY};
use time::OffsetDateTime;

use crate::errors::GqlResult;
use crate::nodes::int;
use crate::scalars::DateTime;

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

/// A purchase of credits through a hosted checkout: open `checkoutUrl` to pay; the
/// credits are added once the payment is confirmed.
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
        })
    }
}
