//! Organizations and what belongs to one as a tenant: sign-up, API keys, ownership
//! transfers, settings and billing.

#![expect(dead_code, reason = "documentation types: described, never built")]

use serde_json::Value;
use utoipa::ToSchema;

use super::list_of;

/// An organization (tenant).
#[derive(ToSchema)]
pub(crate) struct Organization {
    id: String,
    #[schema(example = "organization")]
    object: String,
    name: String,
    base_currency: String,
    is_root: bool,
    parent_organization_id: Option<String>,
    relationship_type: Option<String>,
    credits_remaining: Option<i64>,
    metadata: Option<Value>,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
}

/// The answer to a sign-up: the organization and its first keys, secrets shown once
/// (a sub-organization gets one key, and no `live_api_key`).
#[derive(ToSchema)]
pub(crate) struct Signup {
    organization: Organization,
    /// The test-mode key.
    api_key: Option<ApiKey>,
    /// The live-mode key (root sign-up only).
    live_api_key: Option<ApiKey>,
}

/// An API key; `key` (the secret) only in the answer that made or rotated it.
#[derive(ToSchema)]
pub(crate) struct ApiKey {
    id: String,
    #[schema(example = "api_key")]
    object: String,
    organization_id: String,
    name: Option<String>,
    /// `test` or `live`.
    mode: String,
    livemode: bool,
    permissions: Vec<String>,
    last4: String,
    expires_at: Option<String>,
    disabled: bool,
    previous_key_expires_at: Option<String>,
    last_used_at: Option<String>,
    #[schema(format = DateTime)]
    created_at: String,
    /// The secret, shown once.
    key: Option<String>,
}

/// A transfer of an organization to another user.
#[derive(ToSchema)]
pub(crate) struct OrganizationTransfer {
    id: String,
    #[schema(example = "organization_transfer")]
    object: String,
    organization_id: String,
    organization_name: Option<String>,
    from_user_id: Option<String>,
    to_user_id: Option<String>,
    to_email: Option<String>,
    status: String,
    relationship_on_accept: Option<String>,
    to_organization_id: Option<String>,
    initiated_at: Option<String>,
    responded_at: Option<String>,
    expires_at: Option<String>,
}

/// What an organization transfer would move.
#[derive(ToSchema)]
pub(crate) struct TransferStats {
    object: String,
    transfer_id: String,
    organization_id: String,
    livemode: bool,
}

/// A setting of a tenant.
#[derive(ToSchema)]
pub(crate) struct Setting {
    #[schema(example = "setting")]
    object: String,
    key: String,
    value: Option<String>,
    livemode: bool,
    #[schema(format = DateTime)]
    updated_at: String,
}

/// The billing record of a tenant (spec 2.2).
#[derive(ToSchema)]
pub(crate) struct Billing {
    #[schema(example = "billing")]
    object: String,
    organization_id: String,
    credits_remaining: i64,
    credits_total: i64,
    auto_recharge_enabled: bool,
    billing_email: Option<String>,
    test_credits_used: i64,
}

list_of! {
    OrganizationList => Organization,
    ApiKeyList => ApiKey,
    OrganizationTransferList => OrganizationTransfer,
}
