//! Sign-up: master (root) organizations and sub-organizations (DECISIONS 3).

use serde_json::json;

use crate::accounts::{Account, AccountStatus, DEFAULT_CHART};
use crate::error::{DomainError, DomainResult};
use crate::events::Event;
use crate::ids::{IdKind, new_id};
use crate::money::Currency;
use crate::organizations::{ApiKey, Organization, Permission, Relationship, Scope, User};
use crate::ports::{NewOrganization, Store};

use super::{Ledger, Principal};

pub use crate::ports::IssuedKey;

/// `POST /accounts/master`.
#[derive(Debug, Clone)]
pub struct MasterSignup {
    pub name: String,
    pub user_provider_id: String,
    pub user_email: String,
    pub provider_username: Option<String>,
    pub base_currency: Option<String>,
    /// Secrets for the test key and the live key.
    pub test_key: IssuedKey,
    pub live_key: IssuedKey,
}

/// `POST /accounts/sub`.
#[derive(Debug, Clone)]
pub struct SubSignup {
    pub parent_organization_id: String,
    pub name: String,
    pub relationship_type: String,
    pub key: IssuedKey,
}

pub use crate::organizations::SignupResult;

pub(super) fn check_name(name: &str) -> DomainResult<String> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 255 {
        return Err(DomainError::invalid_field(
            "name",
            "must be 1 to 255 characters",
        ));
    }
    Ok(name.to_owned())
}

/// Applies an update's new name (checked as a new name is, see [`check_name`]) and new
/// description (kept as given) to a record's `name` and `description`; `None` keeps each.
///
/// # Errors
/// `invalid_field` on `name`.
pub(super) fn rename(
    name: &mut String,
    description: &mut Option<String>,
    new_name: Option<String>,
    new_description: Option<String>,
) -> DomainResult<()> {
    if let Some(new_name) = new_name {
        *name = check_name(&new_name)?;
    }
    if let Some(new_description) = new_description {
        *description = Some(new_description);
    }
    Ok(())
}

fn check_email(email: &str) -> DomainResult<String> {
    let email = email.trim();
    let valid = email.len() <= 254
        && email.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty()
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
        })
        && !email.contains(char::is_whitespace);
    if !valid {
        return Err(DomainError::invalid_field(
            "user_email",
            "must be a valid e-mail address",
        ));
    }
    Ok(email.to_owned())
}

impl<S: Store> Ledger<S> {
    /// Whether a user signed up with this sign-in provider id.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn user_exists(&self, provider_id: &str) -> DomainResult<bool> {
        Ok(self.store.find_user(provider_id).await?.is_some())
    }

    fn chart_for(&self, org: &Organization) -> Vec<Account> {
        let now = self.now();
        [true, false]
            .into_iter()
            .flat_map(|livemode| {
                DEFAULT_CHART.iter().map(move |c| Account {
                    id: new_id(IdKind::Account),
                    organization_id: org.id.clone(),
                    livemode,
                    code: c.code.to_owned(),
                    name: c.name.to_owned(),
                    account_type: c.account_type,
                    subtype: Some(c.subtype.to_owned()),
                    currency: org.base_currency.clone(),
                    description: None,
                    status: AccountStatus::Active,
                    parent_id: None,
                    is_system: true,
                    metadata: json!({}),
                    created_at: now,
                    updated_at: now,
                })
            })
            .collect()
    }

    fn key_for(&self, org_id: &str, livemode: bool, name: &str, issued: &IssuedKey) -> ApiKey {
        ApiKey {
            id: new_id(IdKind::ApiKey),
            organization_id: org_id.to_owned(),
            name: name.to_owned(),
            livemode,
            permissions: [Scope::Read, Scope::Write, Scope::Admin]
                .into_iter()
                .map(|scope| Permission {
                    scope,
                    resource: None,
                })
                .collect(),
            key_hash: issued.hash.clone(),
            last4: issued
                .secret
                .chars()
                .rev()
                .take(4)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect(),
            expires_at: None,
            disabled: false,
            previous_hash: None,
            previous_expires_at: None,
            last_used_at: None,
            created_at: self.now(),
        }
    }

    fn created_event(&self, org: &Organization, livemode: bool, key_id: Option<String>) -> Event {
        Event {
            id: new_id(IdKind::Event),
            organization_id: org.id.clone(),
            livemode,
            event_type: "organization.created".into(),
            entity_type: "organization".into(),
            entity_id: org.id.clone(),
            api_key_id: key_id,
            before_state: None,
            after_state: Some(crate::views::organization(org)),
            created_at: self.now(),
        }
    }

    /// Creates a root organization with the default chart and a test and a live key.
    ///
    /// # Errors
    /// Validation errors on `name`, `user_email`, `user_provider_id`, `base_currency`.
    pub async fn sign_up_master(&self, input: MasterSignup) -> DomainResult<SignupResult> {
        let name = check_name(&input.name)?;
        let email = check_email(&input.user_email)?;
        let provider_id = input.user_provider_id.trim().to_owned();
        if provider_id.is_empty() || provider_id.len() > 255 {
            return Err(DomainError::invalid_field(
                "user_provider_id",
                "must be 1 to 255 characters",
            ));
        }
        let currency = match input.base_currency.as_deref() {
            None => "USD".to_owned(),
            Some(code) => Currency::from_code(code).map(|c| c.code()).ok_or_else(|| {
                DomainError::invalid_field("base_currency", "must be an ISO 4217 currency code")
            })?,
        };
        let now = self.now();
        let existing = self.store.find_user(&provider_id).await?;
        let new_user = match &existing {
            Some(_) => None,
            None => Some(User {
                id: new_id(IdKind::User),
                provider_id,
                email,
                provider_username: input
                    .provider_username
                    .map(|u| u.trim().to_owned())
                    .filter(|u| !u.is_empty()),
                created_at: now,
            }),
        };
        let owner_user_id = match (&existing, &new_user) {
            (Some(user), _) | (None, Some(user)) => user.id.clone(),
            (None, None) => {
                return Err(DomainError::Internal(
                    "no owner for the new organization".into(),
                ));
            }
        };
        let id = new_id(IdKind::Organization);
        let organization = Organization {
            path: format!("/{id}/"),
            id,
            name,
            parent_id: None,
            relationship: None,
            owner_user_id,
            base_currency: currency,
            credits_remaining: self.config.signup_credits,
            credits_total: self.config.signup_credits,
            metadata: json!({}),
            created_at: now,
            updated_at: now,
        };
        let test_key = self.key_for(&organization.id, false, "Default test key", &input.test_key);
        let live_key = self.key_for(&organization.id, true, "Default live key", &input.live_key);
        let new = NewOrganization {
            accounts: self.chart_for(&organization),
            events: vec![
                self.created_event(&organization, true, None),
                self.created_event(&organization, false, None),
            ],
            keys: vec![test_key.clone(), live_key.clone()],
            user: new_user,
            organization,
        };
        let organization = self.store.create_organization(new).await?;
        Ok(SignupResult {
            organization,
            keys: vec![
                (test_key, input.test_key.secret),
                (live_key, input.live_key.secret),
            ],
        })
    }

    /// Creates a sub-organization under one the caller reaches with `admin`.
    ///
    /// # Errors
    /// `organization_not_found`, `insufficient_permissions`, validation errors.
    pub async fn sign_up_sub(
        &self,
        principal: &Principal,
        input: SubSignup,
    ) -> DomainResult<SignupResult> {
        if input.parent_organization_id.trim().is_empty() {
            return Err(DomainError::missing_field("parent_organization_id"));
        }
        let access = self
            .authorize(
                principal,
                input.parent_organization_id.trim(),
                Scope::Admin,
                "organizations",
            )
            .await?;
        let name = check_name(&input.name)?;
        let relationship =
            Relationship::parse(input.relationship_type.trim()).ok_or_else(|| {
                DomainError::invalid_field("relationship_type", "must be 'owned' or 'linked'")
            })?;
        let mut parent = access.organization;
        // The parent may move under a concurrent ownership transfer: the store refuses a
        // path that no longer matches (`concurrent_update`), and the write is decided
        // again from the parent as it now stands.
        let mut attempts = 0;
        let (organization, key) = loop {
            attempts += 1;
            let now = self.now();
            let id = new_id(IdKind::Organization);
            let organization = Organization {
                path: parent.child_path(&id),
                id,
                name: name.clone(),
                parent_id: Some(parent.id.clone()),
                relationship: Some(relationship),
                owner_user_id: parent.owner_user_id.clone(),
                base_currency: parent.base_currency.clone(),
                credits_remaining: 0,
                credits_total: 0,
                metadata: json!({}),
                created_at: now,
                updated_at: now,
            };
            let livemode = principal.key.livemode;
            let key = self.key_for(&organization.id, livemode, "Default key", &input.key);
            let new = NewOrganization {
                accounts: self.chart_for(&organization),
                events: vec![self.created_event(
                    &organization,
                    livemode,
                    Some(principal.key.id.clone()),
                )],
                keys: vec![key.clone()],
                user: None,
                organization,
            };
            match self.store.create_organization(new).await {
                Ok(organization) => break (organization, key),
                Err(crate::ports::StoreError::Changed { .. }) if attempts < 3 => {
                    parent = self
                        .store
                        .get_organization(&parent.id)
                        .await?
                        .ok_or_else(|| DomainError::OrganizationNotFound(parent.id.clone()))?;
                }
                Err(e) => return Err(e.into()),
            }
        };
        Ok(SignupResult {
            organization,
            keys: vec![(key, input.key.secret)],
        })
    }
}
