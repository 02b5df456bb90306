//! Credits: the balance, the packages, the monthly reset and purchases through a hosted
//! checkout (issue 19; spec 2.2, 4.12, 4.13, 8).
//!
//! A purchase is opened at the payment provider (live mode: the configured provider;
//! test mode: always the development provider, so no money moves and the live pool never
//! changes) and stored pending. It completes when the provider confirms the payment (a
//! verified webhook) or, for the development provider, when its checkout page is
//! submitted. Completion is a compare-and-set on the stored status plus a ledger row named
//! by the purchase: however often a confirmation arrives, the credits are added once.

use serde_json::Value;
use time::OffsetDateTime;

use crate::credits::{
    CHECKOUT_EXPIRY, CreditPackage, CreditPurchase, LedgerEntry, PRICE_CURRENCY, PurchaseStatus,
    check_return_url, next_period_start, period_of,
};
use crate::error::{DomainError, DomainResult, ErrorCode, Resource};
use crate::events::Event;
use crate::ids::{IdKind, new_id, parse_id};
use crate::ports::{CheckoutRequest, Page, PageRequest, PaymentConfirmation, Store};
use crate::views;

use super::accounts::tenant_reads;
use super::{Access, Ledger};

/// What a client asks to buy: a package by id, or by its credit count (GraphQL's
/// `creditAmount`).
#[derive(Debug, Clone, Default)]
pub struct PurchaseInput {
    pub package_id: Option<String>,
    pub credit_amount: Option<i64>,
    pub success_url: Option<String>,
    pub cancel_url: Option<String>,
}

pub use crate::credits::CreditBalance;

/// JSON of a package ([`views::CreditPackageView`]).
pub fn package_view(p: &CreditPackage) -> Value {
    views::json(&views::CreditPackageView::of(p))
}

/// JSON of a purchase as read at `now` ([`views::CreditPurchaseView`]).
pub fn purchase_view(p: &CreditPurchase, now: OffsetDateTime) -> Value {
    views::json(&views::CreditPurchaseView::of(p, now))
}

/// JSON of a balance ([`views::CreditBalanceView`]).
pub fn balance_view(b: &CreditBalance) -> Value {
    views::json(&views::CreditBalanceView::of(b))
}

/// JSON of a ledger row ([`views::CreditLedgerEntryView`]).
pub fn ledger_entry_view(e: &LedgerEntry) -> Value {
    views::json(&views::CreditLedgerEntryView::of(e))
}

impl<S: Store> Ledger<S> {
    /// The packages on sale.
    pub fn credit_packages(&self) -> &[CreditPackage] {
        &self.config.credit_packages
    }

    /// The balance of the pool that pays for the organization's writes.
    ///
    /// # Errors
    /// `Internal` when the root's pool is missing.
    pub async fn credit_balance(&self, access: &Access) -> DomainResult<CreditBalance> {
        let pool_id = access.pool_id();
        let pool = self
            .store
            .credit_pool(&pool_id)
            .await?
            .ok_or_else(|| DomainError::Internal(format!("credit pool {pool_id}")))?;
        let test_credits_used = self.store.test_credits_used(&pool_id).await?;
        Ok(CreditBalance {
            pool,
            monthly_allowance: self.config.monthly_credits,
            test_credits_used,
            next_reset_at: next_period_start(self.now()),
        })
    }

    /// The ledger of the pool that pays for the organization's writes, newest first.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn credit_ledger(
        &self,
        access: &Access,
        page: PageRequest,
    ) -> DomainResult<Page<LedgerEntry>> {
        Ok(self.store.credit_ledger(&access.pool_id(), page).await?)
    }

    /// Resets every pool not yet reset for the current month (every replica may run it:
    /// each reset is exactly-once per pool and month). Returns how many it reset.
    ///
    /// # Errors
    /// Storage failures (the pools reset before the failure stay reset).
    pub async fn reset_monthly_credits(&self) -> DomainResult<usize> {
        let now = self.now();
        let period = period_of(now);
        let mut reset = 0;
        loop {
            let due = self.store.pools_due(&period, 100).await?;
            if due.is_empty() {
                return Ok(reset);
            }
            // A round that resets nothing (another replica got there first) ends the
            // sweep: what is still listed is being reset elsewhere.
            let mut progressed = false;
            for pool_id in due {
                if self
                    .store
                    .reset_pool(&pool_id, &period, self.config.monthly_credits, now)
                    .await?
                    .is_some()
                {
                    reset += 1;
                    progressed = true;
                }
            }
            if !progressed {
                return Ok(reset);
            }
        }
    }

    pub(super) fn package_for(&self, input: &PurchaseInput) -> DomainResult<CreditPackage> {
        let offered = || {
            self.config
                .credit_packages
                .iter()
                .map(|p| format!("{} ({})", p.credits, p.id))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match (&input.package_id, input.credit_amount) {
            (Some(id), _) => self
                .config
                .credit_packages
                .iter()
                .find(|p| p.id == id.trim())
                .cloned()
                .ok_or_else(|| {
                    DomainError::reference_not_found_in(
                        "package_id",
                        Resource::CreditPackage,
                        id.trim(),
                        format!("no such package; packages: {}", offered()),
                    )
                }),
            (None, Some(amount)) => self
                .config
                .credit_packages
                .iter()
                .find(|p| p.credits == amount)
                .cloned()
                .ok_or_else(|| {
                    DomainError::reference_not_found_in(
                        "credit_amount",
                        Resource::CreditPackage,
                        amount.to_string(),
                        format!("must be the size of a package: {}", offered()),
                    )
                }),
            (None, None) => Err(DomainError::missing_field("credit_amount")),
        }
    }

    pub(super) fn purchase_event(
        &self,
        purchase: &CreditPurchase,
        event_type: &str,
        api_key_id: Option<String>,
    ) -> Event {
        let now = self.now();
        Event {
            id: new_id(IdKind::Event),
            organization_id: purchase.organization_id.clone(),
            livemode: purchase.livemode,
            event_type: event_type.to_owned(),
            entity_type: "credit_purchase".into(),
            entity_id: purchase.id.clone(),
            api_key_id,
            before_state: None,
            after_state: Some(purchase_view(purchase, now)),
            created_at: now,
        }
    }

    /// Opens a checkout for a package (needs `admin`; DECISIONS 3). Live mode uses the
    /// configured provider; test mode the development provider.
    ///
    /// # Errors
    /// `insufficient_permissions`; `missing_field`/`invalid_field` on the package or the
    /// return URLs; `service_unavailable` when the provider cannot open a checkout.
    pub async fn purchase_credits(
        &self,
        access: &Access,
        input: PurchaseInput,
    ) -> DomainResult<CreditPurchase> {
        access.require(crate::organizations::Scope::Admin, "credits")?;
        let package = self.package_for(&input)?;
        let success_url = check_return_url("success_url", input.success_url)?;
        let cancel_url = check_return_url("cancel_url", input.cancel_url)?;
        let now = self.now();
        let id = new_id(IdKind::CreditPurchase);
        let livemode = access.tenant.livemode;
        let request = CheckoutRequest {
            purchase_id: id.clone(),
            organization_id: access.tenant.organization_id.clone(),
            livemode,
            credits: package.credits,
            price_cents: package.price_cents,
            currency: PRICE_CURRENCY.to_owned(),
            description: format!("{} Ledger credits", package.credits),
            success_url: success_url.clone(),
            cancel_url: cancel_url.clone(),
            expires_at: now + CHECKOUT_EXPIRY,
        };
        let (provider, session) = if livemode {
            let p = self.payments.name();
            (p, self.payments.create_checkout(request).await?)
        } else {
            let p = crate::ports::PaymentProvider::name(&self.dev_payments);
            (
                p,
                crate::ports::PaymentProvider::create_checkout(&self.dev_payments, request).await?,
            )
        };
        let purchase = CreditPurchase {
            id,
            organization_id: access.tenant.organization_id.clone(),
            livemode,
            pool_id: access.pool_id(),
            package_id: package.id,
            credits: package.credits,
            price_cents: package.price_cents,
            currency: PRICE_CURRENCY.to_owned(),
            provider: provider.to_owned(),
            provider_session_id: Some(session.session_id),
            checkout_url: session.url,
            status: PurchaseStatus::Pending,
            success_url,
            cancel_url,
            api_key_id: access.key_id.clone(),
            expires_at: now + CHECKOUT_EXPIRY,
            created_at: now,
            completed_at: None,
        };
        let event = self.purchase_event(
            &purchase,
            "credit_purchase.created",
            Some(access.key_id.clone()),
        );
        Ok(self.store.insert_purchase(purchase, event).await?)
    }

    /// A purchase of the tenant.
    ///
    /// # Errors
    /// `invalid_field` on a malformed id, `resource_not_found`.
    pub async fn get_purchase(&self, access: &Access, id: &str) -> DomainResult<CreditPurchase> {
        access.require(crate::organizations::Scope::Read, "credits")?;
        let not_found = || DomainError::NotFound {
            resource: "credit_purchase",
            id: id.to_owned(),
        };
        let id = parse_id(IdKind::CreditPurchase, id).ok_or_else(not_found)?;
        self.store
            .get_purchase(&access.tenant, &id)
            .await?
            .ok_or_else(not_found)
    }

    tenant_reads! {
        /// The tenant's purchases, newest first.
        ///
        /// # Errors
        /// Storage failures.
        pub fn list_purchases(page) -> CreditPurchase: list_purchases;
    }

    /// A purchase opened with the development provider, for its checkout page (no key:
    /// the page is opened in a browser; the unguessable purchase id is the capability).
    ///
    /// # Errors
    /// `resource_not_found` when there is no such development purchase.
    pub async fn dev_checkout(
        &self,
        organization_id: &str,
        purchase_id: &str,
    ) -> DomainResult<CreditPurchase> {
        let not_found = || DomainError::NotFound {
            resource: "credit_purchase",
            id: purchase_id.to_owned(),
        };
        let org = parse_id(IdKind::Organization, organization_id).ok_or_else(not_found)?;
        let id = parse_id(IdKind::CreditPurchase, purchase_id).ok_or_else(not_found)?;
        self.store
            .find_purchase(&org, &id)
            .await?
            .filter(|p| p.provider == "dev")
            .ok_or_else(not_found)
    }

    /// Pays a development purchase (its checkout page was submitted). A completed one is
    /// answered as it is; an expired one is refused.
    ///
    /// # Errors
    /// `resource_not_found`; `invalid_state_transition` when the checkout expired.
    pub async fn complete_dev_checkout(
        &self,
        organization_id: &str,
        purchase_id: &str,
    ) -> DomainResult<CreditPurchase> {
        let purchase = self.dev_checkout(organization_id, purchase_id).await?;
        if purchase.status_at(self.now()) == PurchaseStatus::Expired {
            return Err(DomainError::rule(
                ErrorCode::InvalidStateTransition,
                "this checkout expired; start a new purchase",
            ));
        }
        let session = purchase.provider_session_id.clone();
        Ok(self.complete(&purchase, session).await?.0)
    }

    async fn complete(
        &self,
        purchase: &CreditPurchase,
        session: Option<String>,
    ) -> DomainResult<(CreditPurchase, bool)> {
        let mut completed = purchase.clone();
        completed.status = PurchaseStatus::Completed;
        completed.completed_at = Some(self.now());
        let event = self.purchase_event(&completed, "credit_purchase.completed", None);
        Ok(self
            .store
            .complete_purchase(
                &purchase.organization_id,
                &purchase.id,
                session,
                self.now(),
                event,
            )
            .await?)
    }

    /// Handles a notification of the live payment provider: verifies its signature,
    /// and for a confirmed payment completes the purchase it names (once, however often
    /// it arrives). Returns the purchase when the notification confirmed one.
    ///
    /// # Errors
    /// `invalid_field` (`signature`) or `invalid_json` from the verification;
    /// `resource_not_found` for an unknown purchase; `invalid_field` (`amount`) when the
    /// paid amount or currency differs from the purchase's price (nothing is credited).
    pub async fn confirm_payment(
        &self,
        signature: Option<&str>,
        payload: &[u8],
    ) -> DomainResult<Option<CreditPurchase>> {
        let Some(PaymentConfirmation {
            purchase_id,
            organization_id,
            session_id,
            amount_cents,
            currency,
        }) = self
            .payments
            .verify_notification(signature, payload, self.now())?
        else {
            return Ok(None);
        };
        let not_found = || DomainError::NotFound {
            resource: "credit_purchase",
            id: purchase_id.clone(),
        };
        let org = parse_id(IdKind::Organization, &organization_id).ok_or_else(not_found)?;
        let id = parse_id(IdKind::CreditPurchase, &purchase_id).ok_or_else(not_found)?;
        let purchase = self
            .store
            .find_purchase(&org, &id)
            .await?
            .filter(|p| p.provider == self.payments.name())
            .ok_or_else(not_found)?;
        if amount_cents != purchase.price_cents
            || !currency.eq_ignore_ascii_case(&purchase.currency)
        {
            tracing::warn!(
                purchase = %purchase.id,
                amount_cents,
                currency = %currency,
                "a payment confirmation does not match the purchase's price; nothing credited"
            );
            return Err(DomainError::invalid_field(
                "amount",
                "the paid amount does not match the purchase",
            ));
        }
        Ok(Some(self.complete(&purchase, Some(session_id)).await?.0))
    }
}
