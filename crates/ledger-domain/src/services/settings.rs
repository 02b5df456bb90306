//! Organization settings and the billing record (spec 2.2, 2.9, 4.11).
//!
//! Settings are per tenant (organization and mode), so a test key never changes how live
//! mode behaves. Keys are `[a-z0-9_]{1,64}`, values at most 10 000 characters, and keys
//! with a known meaning are checked (`default_currency` is an ISO 4217 code,
//! `period_lock_date` a `YYYY-MM-DD` date or empty). Only `period_lock_date` may be set to
//! null, which clears it (stored empty). A value that is a string of at most 10 000
//! characters but does not fit the key the path names is `inconsistent_fields` (422): the
//! rule ties the body to the path, which no request schema can say.

use crate::error::{DomainError, DomainResult};
use crate::money::Currency;
use crate::ports::{Setting, Store};

use super::accounts::not_found;
use super::{Access, Ledger};

/// Longest setting value, in characters.
pub const MAX_SETTING_CHARS: usize = 10_000;

pub use crate::credits::Billing;

fn check_key(key: &str) -> DomainResult<()> {
    let valid = (1..=64).contains(&key.len())
        && key
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if valid {
        Ok(())
    } else {
        Err(DomainError::invalid_field(
            "setting_key",
            "must be 1 to 64 characters of a-z, 0-9 and _",
        ))
    }
}

/// The value to store for `key`: checked, and normalised where the key has a meaning.
fn check_value(key: &str, value: Option<&str>) -> DomainResult<String> {
    if value.is_some_and(|v| v.chars().count() > MAX_SETTING_CHARS) {
        return Err(DomainError::invalid_field(
            "value",
            format!("must be at most {MAX_SETTING_CHARS} characters"),
        ));
    }
    if key == super::PERIOD_LOCK_SETTING {
        return super::period_lock::check_lock_value(value);
    }
    let Some(value) = value else {
        return Err(DomainError::inconsistent(
            "value",
            format!("{key} cannot be null (only period_lock_date can)"),
        ));
    };
    match key {
        "default_currency" => Currency::from_code(value.trim())
            .map(|c| c.code())
            .ok_or_else(|| {
                DomainError::inconsistent(
                    "value",
                    "default_currency must be an ISO 4217 currency code",
                )
            }),
        "invoice_number_prefix" | "bill_number_prefix" => {
            let ok = value.chars().count() <= 20
                && value
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_/.#".contains(c));
            if ok {
                Ok(value.to_owned())
            } else {
                Err(DomainError::inconsistent(
                    "value",
                    "a number prefix is at most 20 characters of A-Z, a-z, 0-9 and - _ / . #",
                ))
            }
        }
        super::RECOVERABLE_TAX_SETTING => crate::ids::parse_id(crate::ids::IdKind::Account, value)
            .ok_or_else(|| {
                DomainError::inconsistent("value", format!("{key} must be an account id"))
            }),
        _ => Ok(value.to_owned()),
    }
}

impl<S: Store> Ledger<S> {
    /// The tenant's setting `key`.
    ///
    /// # Errors
    /// `invalid_field` on a malformed key; `resource_not_found` when it was never set.
    pub async fn get_setting(&self, access: &Access, key: &str) -> DomainResult<Setting> {
        check_key(key)?;
        self.store
            .get_setting(&access.tenant, key)
            .await?
            .ok_or_else(|| not_found("setting", key))
    }

    /// Sets the tenant's setting `key` (synchronous write), with a `setting.updated` event.
    /// `value` is `None` when the client sent null.
    ///
    /// # Errors
    /// `invalid_field` on the key or the value.
    pub async fn put_setting(
        &self,
        access: &Access,
        key: &str,
        value: Option<&str>,
    ) -> DomainResult<Setting> {
        check_key(key)?;
        let value = check_value(key, value)?;
        let before = self.store.get_setting(&access.tenant, key).await?;
        let setting = Setting {
            organization_id: access.tenant.organization_id.clone(),
            livemode: access.tenant.livemode,
            key: key.to_owned(),
            value,
            updated_at: self.now(),
        };
        let event = self.event(
            access,
            "setting.updated",
            "setting",
            key,
            before.as_ref().map(crate::views::setting),
            Some(crate::views::setting(&setting)),
        );
        let stored = self.store.put_setting(setting, event).await;
        if key == super::PERIOD_LOCK_SETTING {
            // Whether or not the write went through, the next check reads the store.
            self.forget_period_lock(&access.tenant);
        }
        Ok(stored?)
    }

    /// The billing record of the pool that pays for the organization's writes (its root).
    ///
    /// # Errors
    /// `Internal` when the root organization or its owner is missing.
    pub async fn billing(&self, access: &Access) -> DomainResult<Billing> {
        let pool_id = access.pool_id();
        let pool = self
            .store
            .get_organization(&pool_id)
            .await?
            .ok_or_else(|| DomainError::Internal(format!("root organization {pool_id}")))?;
        let test_credits_used = self.store.test_credits_used(&pool_id).await?;
        let owner = self
            .store
            .get_user(&pool.owner_user_id)
            .await?
            .ok_or_else(|| DomainError::Internal(format!("owner of {pool_id}")))?;
        Ok(Billing {
            pool_id,
            credits_remaining: pool.credits_remaining,
            credits_total: pool.credits_total,
            test_credits_used,
            auto_recharge_enabled: false,
            billing_email: owner.email,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_values() {
        assert!(check_key("default_currency").is_ok());
        assert!(check_key("a").is_ok());
        assert!(check_key("").is_err());
        assert!(check_key("Default").is_err());
        assert!(check_key("a-b").is_err());
        assert!(check_key(&"a".repeat(65)).is_err());
        assert_eq!(
            check_value("default_currency", Some("eur")).expect("valid"),
            "EUR"
        );
        assert!(check_value("default_currency", Some("EURO")).is_err());
        assert!(check_value("note", Some(&"x".repeat(MAX_SETTING_CHARS))).is_ok());
        assert!(check_value("note", Some(&"x".repeat(MAX_SETTING_CHARS + 1))).is_err());
        assert!(check_value("note", None).is_err());
        assert_eq!(
            check_value("period_lock_date", Some("2026-01-31")).expect("a date"),
            "2026-01-31"
        );
        assert_eq!(check_value("period_lock_date", None).expect("clears"), "");
        assert!(check_value("period_lock_date", Some("January")).is_err());
    }
}
