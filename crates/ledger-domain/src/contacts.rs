//! Contacts (spec 2.5, 3.5): customers, vendors, employees and others a tenant deals with.
//!
//! Field rules live here, once: name 1-255 characters, e-mail and website formats,
//! ISO 3166-1 alpha-2 countries (uppercased), ISO 4217 currencies. A contact referenced by
//! a transaction can be disabled but not deleted.

use std::str::FromStr;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::error::{DomainError, DomainResult};
use crate::ids::names;
use crate::money::Currency;

/// What a contact is to the organization.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContactType {
    Customer,
    Vendor,
    Employee,
    Other,
}

names!(
    ContactType,
    loose,
    {
        Customer => "customer",
        Vendor => "vendor",
        Employee => "employee",
        Other => "other",
    }
);

/// The editable fields of a contact, validated and normalised.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContactFields {
    pub name: String,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub website: Option<String>,
    pub tax_number: Option<String>,
    pub reference: Option<String>,
    pub address: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub zip_code: Option<String>,
    pub country: Option<String>,
    pub currency_id: String,
    pub enabled: bool,
    pub metadata: serde_json::Value,
}

/// A contact of a tenant.
#[derive(Debug, Clone, PartialEq)]
pub struct Contact {
    pub id: String,
    pub organization_id: String,
    pub livemode: bool,
    pub contact_type: ContactType,
    pub fields: ContactFields,
    /// The API key that created it.
    pub created_by: String,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

/// Filters of the contact list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContactFilter {
    pub contact_type: Option<ContactType>,
    /// `None` lists enabled and disabled contacts.
    pub enabled: Option<bool>,
    /// Case-insensitive substring of name, e-mail or reference.
    pub search: Option<String>,
}

/// Changes to a contact; `None` keeps the value. An empty string clears an optional
/// field.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContactChanges {
    pub name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub website: Option<String>,
    pub tax_number: Option<String>,
    pub reference: Option<String>,
    pub address: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub zip_code: Option<String>,
    pub country: Option<String>,
    pub currency_id: Option<String>,
    pub enabled: Option<bool>,
    pub metadata: Option<serde_json::Value>,
}

/// Longest accepted optional text field.
const MAX_TEXT: usize = 255;

/// Checks and trims a name: 1 to 255 characters.
///
/// # Errors
/// `missing_field` when blank, `invalid_field` when longer than 255 characters.
pub fn check_name(name: &str) -> DomainResult<String> {
    let name = name.trim();
    if name.is_empty() {
        return Err(DomainError::missing_field("name"));
    }
    if name.chars().count() > MAX_TEXT {
        return Err(DomainError::invalid_field(
            "name",
            "must be 1 to 255 characters",
        ));
    }
    Ok(name.to_owned())
}

/// Trims an optional text; blank means absent.
///
/// # Errors
/// `invalid_field` when longer than 255 characters.
pub fn check_text(field: &str, value: Option<&str>) -> DomainResult<Option<String>> {
    let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    if value.chars().count() > MAX_TEXT {
        return Err(DomainError::invalid_field(
            field,
            "must be at most 255 characters",
        ));
    }
    Ok(Some(value.to_owned()))
}

/// Checks an e-mail address (RFC 5322 address syntax with a domain).
///
/// # Errors
/// `invalid_field` on `email`.
pub fn check_email(value: Option<&str>) -> DomainResult<Option<String>> {
    let Some(email) = check_text("email", value)? else {
        return Ok(None);
    };
    let valid = email_address::EmailAddress::from_str(&email)
        .ok()
        .is_some_and(|parsed| parsed.domain().contains('.') && !email.contains(' '));
    if !valid {
        return Err(DomainError::invalid_field(
            "email",
            "must be a valid e-mail address",
        ));
    }
    Ok(Some(email))
}

/// Checks a website: an absolute http or https URL with a host.
///
/// # Errors
/// `invalid_field` on `website`.
pub fn check_website(value: Option<&str>) -> DomainResult<Option<String>> {
    let Some(website) = check_text("website", value)? else {
        return Ok(None);
    };
    // Kept as given, so it must read alike to every URL parser.
    let valid = crate::urls::is_portable_http_url(&website);
    if !valid {
        return Err(DomainError::invalid_field(
            "website",
            "must be an http or https URL",
        ));
    }
    Ok(Some(website))
}

/// The ISO 3166-1 alpha-2 codes [`check_country`] takes (uppercase; it reads any case).
pub fn country_codes() -> impl Iterator<Item = &'static str> {
    isocountry::CountryCode::iter_alpha2().map(|c| c.alpha2())
}

/// Checks an ISO 3166-1 alpha-2 country code and uppercases it.
///
/// # Errors
/// `invalid_field` on `country`.
pub fn check_country(value: Option<&str>) -> DomainResult<Option<String>> {
    let Some(country) = check_text("country", value)? else {
        return Ok(None);
    };
    let upper = country.to_ascii_uppercase();
    if upper.len() != 2 || isocountry::CountryCode::for_alpha2(&upper).is_err() {
        return Err(DomainError::invalid_field(
            "country",
            "must be an ISO 3166-1 alpha-2 country code",
        ));
    }
    Ok(Some(upper))
}

/// Checks an ISO 4217 currency code and uppercases it.
///
/// # Errors
/// `invalid_field` on `currency_id`.
pub fn check_currency(code: &str) -> DomainResult<String> {
    Currency::from_code(code.trim())
        .map(|c| c.code())
        .ok_or_else(|| {
            DomainError::invalid_field("currency_id", "must be an ISO 4217 currency code")
        })
}

/// Applies validated `changes` to `fields`.
///
/// # Errors
/// The field errors of the `check_*` functions.
pub fn apply_changes(
    fields: &ContactFields,
    changes: &ContactChanges,
) -> DomainResult<ContactFields> {
    let mut next = fields.clone();
    let text = |field: &str, new: &Option<String>, old: &Option<String>| match new {
        Some(v) => check_text(field, Some(v)),
        None => Ok(old.clone()),
    };
    if let Some(name) = &changes.name {
        next.name = check_name(name)?;
    }
    if let Some(email) = &changes.email {
        next.email = check_email(Some(email))?;
    }
    next.phone = text("phone", &changes.phone, &fields.phone)?;
    if let Some(website) = &changes.website {
        next.website = check_website(Some(website))?;
    }
    next.tax_number = text("tax_number", &changes.tax_number, &fields.tax_number)?;
    next.reference = text("reference", &changes.reference, &fields.reference)?;
    next.address = text("address", &changes.address, &fields.address)?;
    next.city = text("city", &changes.city, &fields.city)?;
    next.state = text("state", &changes.state, &fields.state)?;
    next.zip_code = text("zip_code", &changes.zip_code, &fields.zip_code)?;
    if let Some(country) = &changes.country {
        next.country = check_country(Some(country))?;
    }
    if let Some(currency) = &changes.currency_id {
        next.currency_id = check_currency(currency)?;
    }
    if let Some(enabled) = changes.enabled {
        next.enabled = enabled;
    }
    if let Some(metadata) = &changes.metadata {
        next.metadata = check_metadata(metadata.clone())?;
    }
    Ok(next)
}

/// Metadata must be a JSON object.
///
/// # Errors
/// `invalid_field` on `metadata`.
pub fn check_metadata(value: serde_json::Value) -> DomainResult<serde_json::Value> {
    if value.is_object() {
        Ok(value)
    } else {
        Err(DomainError::invalid_field("metadata", "must be an object"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_rules() {
        assert_eq!(check_name("  Acme ").as_deref(), Ok("Acme"));
        assert_eq!(
            check_name(" ").map_err(|e| e.code().as_str()),
            Err("missing_field")
        );
        assert!(check_name(&"x".repeat(255)).is_ok());
        assert!(check_name(&"x".repeat(256)).is_err());
        assert!(check_email(Some("a@example.com")).is_ok());
        assert!(check_email(Some("not-an-email")).is_err());
        assert!(check_email(Some("a@localhost")).is_err());
        assert!(check_website(Some("https://acme.example")).is_ok());
        assert!(check_website(Some("ftp://acme.example")).is_err());
        assert!(check_website(Some("acme")).is_err());
        assert!(check_website(Some("http://127.0.0.1:8080/x")).is_ok());
        assert!(check_website(Some("http://[::1]/")).is_ok());
        assert!(check_website(Some("https://b\u{fc}cher.example/")).is_ok());
        // Texts WHATWG parsing repairs but other parsers refuse (Python's urlsplit answers
        // "Invalid IPv6 URL" for the first): refused, since the text is kept as given.
        for bad in [
            "http://a\\[b",
            "http://exa\tmple.com",
            "http://example.com/a b",
            "http://a_b.example/",
            "http://*.example/",
            "http://-a.example/",
        ] {
            assert!(check_website(Some(bad)).is_err(), "{bad}");
        }
        assert_eq!(
            check_country(Some("de")).ok().flatten().as_deref(),
            Some("DE")
        );
        assert!(check_country(Some("XX")).is_err());
        assert!(check_country(Some("DEU")).is_err());
        assert_eq!(check_currency("eur").as_deref(), Ok("EUR"));
        assert_eq!(ContactType::parse("Vendor"), Some(ContactType::Vendor));
    }
}
