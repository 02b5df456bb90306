//! Organizations and what belongs to one as a tenant: sign-up, API keys, settings,
//! ownership transfers, and billing with its credits (balance, packages, ledger and
//! purchases).

use serde::Serialize;
use serde_json::Value;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::credits::CreditBalance;
use crate::credits::{Billing, CreditPackage, CreditPurchase, LedgerEntry, PRICE_CURRENCY};
use crate::organizations::SignupResult;
use crate::organizations::{ApiKey, Organization, User};
use crate::ownership::{OrganizationTransfer, SubtreeStats};
use crate::ports::Setting;

use super::{json, timestamp};

/// An organization (tenant).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Organization)]
pub struct OrganizationView<'a> {
    id: &'a str,
    #[schema(example = "organization")]
    object: &'static str,
    name: &'a str,
    #[schema(example = "USD")]
    base_currency: &'a str,
    /// Whether it has no parent (a sign-up's organization).
    is_root: bool,
    parent_organization_id: Option<&'a str>,
    /// `owned` or `linked`; null on a root organization.
    relationship_type: Option<&'static str>,
    credits_remaining: i64,
    /// Key-value data; an object (`{}` from sign-up on).
    #[schema(value_type = Object)]
    metadata: &'a Value,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
}

impl<'a> OrganizationView<'a> {
    /// The organization object.
    pub fn of(o: &'a Organization) -> Self {
        Self {
            id: &o.id,
            object: "organization",
            name: &o.name,
            base_currency: &o.base_currency,
            is_root: o.is_root(),
            parent_organization_id: o.parent_id.as_deref(),
            relationship_type: o.relationship.map(|r| r.as_str()),
            credits_remaining: o.credits_remaining,
            metadata: &o.metadata,
            created_at: timestamp(o.created_at),
            updated_at: timestamp(o.updated_at),
        }
    }
}

/// The organization object.
pub fn organization(o: &Organization) -> Value {
    json(&OrganizationView::of(o))
}

/// An organization below another, as the list of sub-organizations shows it: the
/// organization with its depth.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = SubOrganization)]
pub struct SubOrganizationView<'a> {
    #[serde(flatten)]
    organization: OrganizationView<'a>,
    /// Levels below the organization listed from (1 for a child).
    depth: i64,
}

impl<'a> SubOrganizationView<'a> {
    /// The organization `o`, `depth` levels below the one listed from.
    pub fn of(o: &'a Organization, depth: i64) -> Self {
        Self {
            organization: OrganizationView::of(o),
            depth,
        }
    }
}

/// An API key; `key` (the secret) only in the answer that made or rotated it.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ApiKey)]
pub struct ApiKeyView<'a> {
    id: &'a str,
    #[schema(example = "api_key")]
    object: &'static str,
    organization_id: &'a str,
    name: &'a str,
    /// `test` or `live`.
    mode: &'static str,
    livemode: bool,
    /// `read`, `write`, `admin`, `system`, or `<resource>:<read|write|admin>`.
    permissions: Vec<String>,
    /// The last four characters of the secret, to recognise the key.
    last4: &'a str,
    #[schema(format = DateTime)]
    expires_at: Option<String>,
    disabled: bool,
    /// Until when the secret replaced by the last rotation still works.
    #[schema(format = DateTime)]
    previous_key_expires_at: Option<String>,
    #[schema(format = DateTime)]
    last_used_at: Option<String>,
    #[schema(format = DateTime)]
    created_at: String,
    /// The secret, shown once.
    #[serde(skip_serializing_if = "Option::is_none")]
    key: Option<&'a str>,
}

impl<'a> ApiKeyView<'a> {
    /// The API key object; `secret` only when the key was just made or rotated.
    pub fn of(k: &'a ApiKey, secret: Option<&'a str>) -> Self {
        Self {
            id: &k.id,
            object: "api_key",
            organization_id: &k.organization_id,
            name: &k.name,
            mode: if k.livemode { "live" } else { "test" },
            livemode: k.livemode,
            permissions: k.permissions.iter().map(|p| p.as_string()).collect(),
            last4: &k.last4,
            expires_at: k.expires_at.map(timestamp),
            disabled: k.disabled,
            previous_key_expires_at: k
                .previous_hash
                .as_ref()
                .and(k.previous_expires_at)
                .map(timestamp),
            last_used_at: k.last_used_at.map(timestamp),
            created_at: timestamp(k.created_at),
            key: secret,
        }
    }
}

/// The API key object; `secret` is included only when the key was just made or rotated.
pub fn api_key(k: &ApiKey, secret: Option<&str>) -> Value {
    json(&ApiKeyView::of(k, secret))
}

/// The answer to a sign-up: the organization and its first keys, secrets shown once.
/// A root sign-up makes a test key and a live key; a sub-organization gets one key, in
/// the caller's mode, and no `live_api_key`.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Signup)]
pub struct SignupView<'a> {
    organization: OrganizationView<'a>,
    /// The test-mode key (a sub-organization's one key, whatever its mode).
    api_key: Option<ApiKeyView<'a>>,
    /// The live-mode key (root sign-up only).
    #[serde(skip_serializing_if = "Option::is_none")]
    live_api_key: Option<ApiKeyView<'a>>,
}

impl<'a> SignupView<'a> {
    /// What the sign-up `s` made.
    pub fn of(s: &'a SignupResult) -> Self {
        let view = |(k, secret): &'a (ApiKey, String)| ApiKeyView::of(k, Some(secret));
        let in_mode = |live: bool| s.keys.iter().find(|(k, _)| k.livemode == live).map(view);
        let (api_key, live_api_key) = if s.organization.is_root() {
            (in_mode(false), in_mode(true))
        } else {
            (s.keys.first().map(view), None)
        };
        Self {
            organization: OrganizationView::of(&s.organization),
            api_key,
            live_api_key,
        }
    }
}

/// A setting of a tenant.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Setting)]
pub struct SettingView<'a> {
    #[schema(example = "setting")]
    object: &'static str,
    #[schema(example = "default_currency")]
    key: &'a str,
    /// What it means depends on the key (empty for a cleared `period_lock_date`).
    #[schema(example = "USD")]
    value: &'a str,
    livemode: bool,
    #[schema(format = DateTime)]
    updated_at: String,
}

impl<'a> SettingView<'a> {
    /// The setting object.
    pub fn of(s: &'a Setting) -> Self {
        Self {
            object: "setting",
            key: &s.key,
            value: &s.value,
            livemode: s.livemode,
            updated_at: timestamp(s.updated_at),
        }
    }
}

/// A setting of a tenant.
pub fn setting(s: &Setting) -> Value {
    json(&SettingView::of(s))
}

/// The billing record of a tenant (spec 2.2, DECISIONS 10): the credit pool that pays
/// for its live writes.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Billing)]
pub struct BillingView<'a> {
    #[schema(example = "billing")]
    object: &'static str,
    /// The organization whose pool this is (the root of the tree).
    organization_id: &'a str,
    credits_remaining: i64,
    credits_total: i64,
    auto_recharge_enabled: bool,
    /// The e-mail of the pool's owner.
    billing_email: &'a str,
    /// Credits test-mode writes would have cost (they never touch the pool).
    test_credits_used: i64,
}

impl<'a> BillingView<'a> {
    /// The billing object.
    pub fn of(b: &'a Billing) -> Self {
        Self {
            object: "billing",
            organization_id: &b.pool_id,
            credits_remaining: b.credits_remaining,
            credits_total: b.credits_total,
            auto_recharge_enabled: b.auto_recharge_enabled,
            billing_email: &b.billing_email,
            test_credits_used: b.test_credits_used,
        }
    }
}

/// The billing record (spec 2.2, DECISIONS 10).
pub fn billing(b: &Billing) -> Value {
    json(&BillingView::of(b))
}

/// A transfer of an organization to another user (spec 2.10), with its sender's and
/// recipient's user fields. A user's display name is the provider username, else the
/// e-mail; the user fields are null when the user is gone.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = OrganizationTransfer)]
pub struct OrganizationTransferView<'a> {
    id: &'a str,
    #[schema(example = "organization_transfer")]
    object: &'static str,
    organization_id: &'a str,
    /// The organization's name when the transfer was initiated.
    organization_name: &'a str,
    from_user_id: &'a str,
    from_provider_username: Option<&'a str>,
    from_display_name: Option<&'a str>,
    from_email: Option<&'a str>,
    to_user_id: &'a str,
    to_provider_username: Option<&'a str>,
    to_display_name: Option<&'a str>,
    to_email: Option<&'a str>,
    /// `pending`, `accepted`, `rejected`, `cancelled` or `expired` (a pending transfer
    /// past `expires_at` reads `expired`).
    status: &'static str,
    /// `owned` or `linked`, once accepted.
    relationship_on_accept: Option<&'static str>,
    /// The recipient's root organization it was moved under, once accepted.
    to_organization_id: Option<&'a str>,
    #[schema(format = DateTime)]
    initiated_at: String,
    #[schema(format = DateTime)]
    responded_at: Option<String>,
    #[schema(format = DateTime)]
    expires_at: String,
    /// Organizations below the transferred one.
    descendant_org_count: i64,
    /// The transferred organization and its descendants.
    total_org_count: i64,
}

impl<'a> OrganizationTransferView<'a> {
    /// The transfer `t` as of `now`, with its sender `from` and recipient `to`.
    pub fn of(
        t: &'a OrganizationTransfer,
        from: Option<&'a User>,
        to: Option<&'a User>,
        now: OffsetDateTime,
    ) -> Self {
        let username = |u: Option<&'a User>| u.and_then(|u| u.provider_username.as_deref());
        let display =
            |u: Option<&'a User>| u.map(|u| u.provider_username.as_deref().unwrap_or(&u.email));
        let email = |u: Option<&'a User>| u.map(|u| u.email.as_str());
        Self {
            id: &t.id,
            object: "organization_transfer",
            organization_id: &t.organization_id,
            organization_name: &t.organization_name,
            from_user_id: &t.from_user_id,
            from_provider_username: username(from),
            from_display_name: display(from),
            from_email: email(from),
            to_user_id: &t.to_user_id,
            to_provider_username: username(to),
            to_display_name: display(to),
            to_email: email(to),
            status: t.status_at(now).as_str(),
            relationship_on_accept: t.relationship_on_accept.map(|r| r.as_str()),
            to_organization_id: t.to_organization_id.as_deref(),
            initiated_at: timestamp(t.initiated_at),
            responded_at: t.responded_at.map(timestamp),
            expires_at: timestamp(t.expires_at),
            descendant_org_count: t.descendant_org_count,
            total_org_count: t.total_org_count(),
        }
    }
}

/// An ownership transfer (spec 2.10) as of `now` (a pending transfer past its expiry
/// reads `expired`), with its sender's and recipient's user fields. A user's display
/// name is the provider username, else the e-mail (users have no other name).
pub fn organization_transfer(
    t: &OrganizationTransfer,
    from: Option<&User>,
    to: Option<&User>,
    now: OffsetDateTime,
) -> Value {
    json(&OrganizationTransferView::of(t, from, to, now))
}

/// What an organization transfer moves (spec 4.4): the subtree's figures in the
/// caller's mode.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = TransferStats)]
pub struct TransferStatsView<'a> {
    #[schema(example = "organization_transfer_stats")]
    object: &'static str,
    transfer_id: &'a str,
    organization_id: &'a str,
    livemode: bool,
    /// Organizations below the transferred one.
    descendant_organizations: i64,
    /// The transferred organization and its descendants.
    total_organizations: i64,
    accounts: i64,
    transactions: i64,
    invoices: i64,
    bills: i64,
    contacts: i64,
    categories: i64,
    /// Line items of the invoices and bills.
    items: i64,
    api_keys: i64,
}

impl<'a> TransferStatsView<'a> {
    /// The figures `s` of the subtree `t` moves, in mode `livemode`.
    pub fn of(t: &'a OrganizationTransfer, s: &SubtreeStats, livemode: bool) -> Self {
        Self {
            object: "organization_transfer_stats",
            transfer_id: &t.id,
            organization_id: &t.organization_id,
            livemode,
            descendant_organizations: s.organizations - 1,
            total_organizations: s.organizations,
            accounts: s.accounts,
            transactions: s.transactions,
            invoices: s.invoices,
            bills: s.bills,
            contacts: s.contacts,
            categories: s.categories,
            items: s.items,
            api_keys: s.api_keys,
        }
    }
}

/// The `stats` of a transfer (spec 4.4): the subtree's figures in the caller's mode.
pub fn transfer_stats(t: &OrganizationTransfer, s: &SubtreeStats, livemode: bool) -> Value {
    json(&TransferStatsView::of(t, s, livemode))
}

/// The balance of a credit pool: the monthly allowance left, the purchased credits left,
/// and when the allowance is reset.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = CreditBalance)]
pub struct CreditBalanceView<'a> {
    #[schema(example = "credit_balance")]
    object: &'static str,
    /// The organization whose pool this is (the root of the tree).
    organization_id: &'a str,
    /// Credits left: the monthly allowance left plus the purchased credits left.
    #[schema(example = 1450)]
    credits_remaining: i64,
    /// What the pool held this period: its balance after the last reset plus what was
    /// bought since.
    #[schema(example = 1500)]
    credits_total: i64,
    /// The free credits of each calendar month (no roll-over).
    #[schema(example = 500)]
    monthly_allowance: i64,
    #[schema(example = 450)]
    monthly_credits_remaining: i64,
    /// Purchased credits left; they survive the monthly reset.
    #[schema(example = 1000)]
    purchased_credits_remaining: i64,
    /// Credits test-mode writes would have cost (they never touch the pool).
    test_credits_used: i64,
    /// The month of the last reset, `YYYY-MM`.
    #[schema(example = "2026-11")]
    period: &'a str,
    #[schema(format = DateTime)]
    next_reset_at: String,
}

impl<'a> CreditBalanceView<'a> {
    /// The balance object.
    pub fn of(b: &'a CreditBalance) -> Self {
        let purchased = b.pool.purchased_remaining;
        Self {
            object: "credit_balance",
            organization_id: &b.pool.organization_id,
            credits_remaining: b.pool.credits_remaining,
            credits_total: b.pool.credits_total,
            monthly_allowance: b.monthly_allowance,
            monthly_credits_remaining: b.pool.credits_remaining - purchased,
            purchased_credits_remaining: purchased,
            test_credits_used: b.test_credits_used,
            period: &b.pool.period,
            next_reset_at: timestamp(b.next_reset_at),
        }
    }
}

/// A package of credits on sale.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = CreditPackage)]
pub struct CreditPackageView<'a> {
    #[schema(example = "credit_package")]
    object: &'static str,
    #[schema(example = "credits_1000")]
    id: &'a str,
    #[schema(example = 1000)]
    credits: i64,
    /// The price in cents of `currency`.
    #[schema(example = 1000)]
    price_cents: i64,
    #[schema(example = "usd")]
    currency: &'static str,
}

impl<'a> CreditPackageView<'a> {
    /// The package object.
    pub fn of(p: &'a CreditPackage) -> Self {
        Self {
            object: "credit_package",
            id: &p.id,
            credits: p.credits,
            price_cents: p.price_cents,
            currency: PRICE_CURRENCY,
        }
    }
}

/// One row of the credit ledger: a grant, charge, refund, reset or purchase.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = CreditLedgerEntry)]
pub struct CreditLedgerEntryView<'a> {
    #[schema(example = "credit_ledger_entry")]
    object: &'static str,
    id: &'a str,
    /// `opening`, `grant`, `charge`, `refund`, `reset` or `purchase`.
    #[schema(example = "purchase")]
    kind: &'static str,
    /// Signed: positive adds to the balance.
    #[schema(example = 1000)]
    credits: i64,
    /// What the row is about (a job, a purchase, a period).
    reference: Option<&'a str>,
    #[schema(format = DateTime)]
    created_at: String,
}

impl<'a> CreditLedgerEntryView<'a> {
    /// The ledger row object.
    pub fn of(e: &'a LedgerEntry) -> Self {
        Self {
            object: "credit_ledger_entry",
            id: &e.id,
            kind: e.kind.as_str(),
            credits: e.credits,
            reference: e.reference.as_deref(),
            created_at: timestamp(e.created_at),
        }
    }
}

/// A credit purchase: hosted (`provider` `dev` or `stripe`, pending until paid at
/// `checkout_url`) or x402 (`provider` `x402`, completed when answered; `checkout_url`
/// is the resource paid for).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = CreditPurchase)]
pub struct CreditPurchaseView<'a> {
    id: &'a str,
    #[schema(example = "credit_purchase")]
    object: &'static str,
    organization_id: &'a str,
    livemode: bool,
    #[schema(example = "credits_1000")]
    package_id: &'a str,
    #[schema(example = 1000)]
    credits_to_add: i64,
    #[schema(example = 1000)]
    price_cents: i64,
    #[schema(example = "usd")]
    currency: &'a str,
    /// `dev`, `stripe` or `x402`.
    provider: &'a str,
    /// `pending`, `completed` or `expired` (a pending purchase past `expires_at`).
    status: &'static str,
    checkout_url: &'a str,
    success_url: Option<&'a str>,
    cancel_url: Option<&'a str>,
    #[schema(format = DateTime)]
    expires_at: String,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    completed_at: Option<String>,
}

impl<'a> CreditPurchaseView<'a> {
    /// The purchase object as read at `now`.
    pub fn of(p: &'a CreditPurchase, now: OffsetDateTime) -> Self {
        Self {
            id: &p.id,
            object: "credit_purchase",
            organization_id: &p.organization_id,
            livemode: p.livemode,
            package_id: &p.package_id,
            credits_to_add: p.credits,
            price_cents: p.price_cents,
            currency: &p.currency,
            provider: &p.provider,
            status: p.status_at(now).as_str(),
            checkout_url: &p.checkout_url,
            success_url: p.success_url.as_deref(),
            cancel_url: p.cancel_url.as_deref(),
            expires_at: timestamp(p.expires_at),
            created_at: timestamp(p.created_at),
            completed_at: p.completed_at.map(timestamp),
        }
    }
}
