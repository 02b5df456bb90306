//! The records the books name: contacts, taxes, categories, currencies and exchange
//! rates (with the conversions they make).

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::categories::Category;
use crate::contacts::Contact;
use crate::money::{Currency, format_units};
use crate::tax::{Tax, format_rate};

use super::{date, json, timestamp};

/// A contact: a customer, a vendor or both (spec 2.5).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Contact)]
pub struct ContactView<'a> {
    id: &'a str,
    #[schema(example = "contact")]
    object: &'static str,
    organization_id: &'a str,
    livemode: bool,
    /// `customer`, `vendor` or `both`.
    contact_type: &'static str,
    name: &'a str,
    email: Option<&'a str>,
    phone: Option<&'a str>,
    website: Option<&'a str>,
    tax_number: Option<&'a str>,
    reference: Option<&'a str>,
    address: Option<&'a str>,
    city: Option<&'a str>,
    state: Option<&'a str>,
    zip_code: Option<&'a str>,
    country: Option<&'a str>,
    currency_id: &'a str,
    enabled: bool,
    created_by: &'a str,
    /// Free-form key-value data of the client: an object (a contact refuses other JSON).
    #[schema(value_type = Object)]
    metadata: &'a Value,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
}

impl<'a> ContactView<'a> {
    /// The complete contact.
    pub fn of(c: &'a Contact) -> Self {
        let f = &c.fields;
        Self {
            id: &c.id,
            object: "contact",
            organization_id: &c.organization_id,
            livemode: c.livemode,
            contact_type: c.contact_type.as_str(),
            name: &f.name,
            email: f.email.as_deref(),
            phone: f.phone.as_deref(),
            website: f.website.as_deref(),
            tax_number: f.tax_number.as_deref(),
            reference: f.reference.as_deref(),
            address: f.address.as_deref(),
            city: f.city.as_deref(),
            state: f.state.as_deref(),
            zip_code: f.zip_code.as_deref(),
            country: f.country.as_deref(),
            currency_id: &f.currency_id,
            enabled: f.enabled,
            created_by: &c.created_by,
            metadata: &f.metadata,
            created_at: timestamp(c.created_at),
            updated_at: timestamp(c.updated_at),
        }
    }
}

/// A contact as a list shows it (spec 2.5).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ContactSummary)]
pub struct ContactSummaryView<'a> {
    id: &'a str,
    contact_type: &'static str,
    name: &'a str,
    email: Option<&'a str>,
    phone: Option<&'a str>,
    reference: Option<&'a str>,
    enabled: bool,
    #[schema(format = DateTime)]
    created_at: String,
}

impl<'a> ContactSummaryView<'a> {
    /// The summary of `c`.
    pub fn of(c: &'a Contact) -> Self {
        Self {
            id: &c.id,
            contact_type: c.contact_type.as_str(),
            name: &c.fields.name,
            email: c.fields.email.as_deref(),
            phone: c.fields.phone.as_deref(),
            reference: c.fields.reference.as_deref(),
            enabled: c.fields.enabled,
            created_at: timestamp(c.created_at),
        }
    }
}

/// The complete contact object (spec 2.5).
pub fn contact(c: &Contact) -> Value {
    json(&ContactView::of(c))
}

/// The summary of a contact in the list (spec 2.5).
pub fn contact_summary(c: &Contact) -> Value {
    json(&ContactSummaryView::of(c))
}

/// A tax rate.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Tax)]
pub struct TaxView<'a> {
    id: &'a str,
    #[schema(example = "tax")]
    object: &'static str,
    organization_id: &'a str,
    livemode: bool,
    name: &'a str,
    description: Option<&'a str>,
    /// A percentage with four decimals (`"8.2500"`).
    #[schema(example = "8.2500")]
    rate: String,
    /// `sales`, `purchase` or `both`.
    tax_type: &'static str,
    is_compound: bool,
    is_active: bool,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
}

impl<'a> TaxView<'a> {
    /// The tax object.
    pub fn of(t: &'a Tax) -> Self {
        Self {
            id: &t.id,
            object: "tax",
            organization_id: &t.organization_id,
            livemode: t.livemode,
            name: &t.name,
            description: t.description.as_deref(),
            rate: format_rate(t.rate),
            tax_type: t.tax_type.as_str(),
            is_compound: t.is_compound,
            is_active: t.is_active,
            created_at: timestamp(t.created_at),
            updated_at: timestamp(t.updated_at),
        }
    }
}

/// A tax as a list shows it (fewer members than the tax's own read).
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = TaxSummary)]
pub struct TaxSummaryView<'a> {
    id: &'a str,
    #[schema(example = "tax")]
    object: &'static str,
    name: &'a str,
    /// A percentage with four decimals (`"8.2500"`).
    #[schema(example = "8.2500")]
    rate: String,
    tax_type: &'static str,
    is_compound: bool,
    is_active: bool,
}

impl<'a> TaxSummaryView<'a> {
    /// The summary of `t`.
    pub fn of(t: &'a Tax) -> Self {
        Self {
            id: &t.id,
            object: "tax",
            name: &t.name,
            rate: format_rate(t.rate),
            tax_type: t.tax_type.as_str(),
            is_compound: t.is_compound,
            is_active: t.is_active,
        }
    }
}

/// The tax object; the rate is a percentage string with four decimals (`"8.2500"`).
pub fn tax(t: &Tax) -> Value {
    json(&TaxView::of(t))
}

/// A category of income or expense.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Category)]
pub struct CategoryView<'a> {
    id: &'a str,
    #[schema(example = "category")]
    object: &'static str,
    organization_id: &'a str,
    livemode: bool,
    name: &'a str,
    description: Option<&'a str>,
    /// `income` or `expense`.
    category_type: &'static str,
    /// `#RRGGBB`, uppercase.
    color: &'a str,
    is_active: bool,
    parent_id: Option<&'a str>,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
    /// The direct children, on a single category.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(no_recursion)]
    subcategories: Option<Vec<CategoryView<'a>>>,
}

impl<'a> CategoryView<'a> {
    /// The category object; `subcategories` (the direct children) when known.
    pub fn of(c: &'a Category, subcategories: Option<&'a [Category]>) -> Self {
        Self {
            id: &c.id,
            object: "category",
            organization_id: &c.organization_id,
            livemode: c.livemode,
            name: &c.name,
            description: c.description.as_deref(),
            category_type: c.category_type.as_str(),
            color: &c.color,
            is_active: c.is_active,
            parent_id: c.parent_id.as_deref(),
            created_at: timestamp(c.created_at),
            updated_at: timestamp(c.updated_at),
            subcategories: subcategories
                .map(|children| children.iter().map(|k| Self::of(k, None)).collect()),
        }
    }
}

/// A category as a list shows it.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = CategorySummary)]
pub struct CategorySummaryView<'a> {
    id: &'a str,
    #[schema(example = "category")]
    object: &'static str,
    name: &'a str,
    category_type: &'static str,
    color: &'a str,
    is_active: bool,
    parent_id: Option<&'a str>,
}

impl<'a> CategorySummaryView<'a> {
    /// The summary of `c`.
    pub fn of(c: &'a Category) -> Self {
        Self {
            id: &c.id,
            object: "category",
            name: &c.name,
            category_type: c.category_type.as_str(),
            color: &c.color,
            is_active: c.is_active,
            parent_id: c.parent_id.as_deref(),
        }
    }
}

/// The category object; `subcategories` (the direct children) when known.
pub fn category(c: &Category, subcategories: Option<&[Category]>) -> Value {
    json(&CategoryView::of(c, subcategories))
}

/// A currency (ISO 4217 reference data): its id is `cur_` and its code.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Currency)]
pub struct CurrencyView {
    id: String,
    #[schema(example = "currency")]
    object: &'static str,
    #[schema(example = "USD")]
    code: String,
    name: String,
    symbol: String,
    decimals: u32,
}

impl CurrencyView {
    /// The currency object.
    pub fn of(c: &Currency) -> Self {
        Self {
            id: crate::exchange::currency_id(c),
            object: "currency",
            code: c.code(),
            name: c.name(),
            symbol: c.symbol(),
            decimals: c.decimals(),
        }
    }
}

/// A currency (global reference data, ISO 4217): its id is `cur_` and its code.
pub fn currency(c: &Currency) -> Value {
    json(&CurrencyView::of(c))
}

/// An exchange rate of a tenant; the rate is its exact decimal text.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ExchangeRate)]
pub struct ExchangeRateView<'a> {
    id: &'a str,
    #[schema(example = "exchange_rate")]
    object: &'static str,
    from_currency: &'a str,
    to_currency: &'a str,
    from_currency_id: String,
    to_currency_id: String,
    #[schema(example = "1.0850")]
    rate: &'a str,
    #[schema(format = Date)]
    effective_date: String,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
}

impl<'a> ExchangeRateView<'a> {
    /// The exchange rate object.
    pub fn of(r: &'a crate::exchange::ExchangeRate) -> Self {
        let id_of = |code: &str| format!("{}_{code}", crate::exchange::CURRENCY_ID_PREFIX);
        Self {
            id: &r.id,
            object: "exchange_rate",
            from_currency: &r.from_currency,
            to_currency: &r.to_currency,
            from_currency_id: id_of(&r.from_currency),
            to_currency_id: id_of(&r.to_currency),
            rate: &r.rate,
            effective_date: date(r.effective_date),
            created_at: timestamp(r.created_at),
            updated_at: timestamp(r.updated_at),
        }
    }
}

/// An exchange rate of an organization; the rate is its exact decimal text.
pub fn exchange_rate(r: &crate::exchange::ExchangeRate) -> Value {
    json(&ExchangeRateView::of(r))
}

/// An amount converted between currencies (DECISIONS 10): both amounts at their
/// currency's minor unit.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Conversion)]
pub struct ConversionView<'a> {
    from_currency: String,
    to_currency: String,
    #[schema(example = "100.00")]
    amount: String,
    #[schema(example = "108.50")]
    converted_amount: String,
    rate: &'a str,
    #[schema(format = Date)]
    effective_date: String,
}

impl<'a> ConversionView<'a> {
    /// The conversion object.
    pub fn of(c: &'a crate::exchange::Conversion) -> Self {
        let from = c.rate.from_currency;
        let to = c.rate.to_currency;
        Self {
            from_currency: from.code(),
            to_currency: to.code(),
            amount: format_units(c.amount, from.decimals()),
            converted_amount: format_units(c.converted_amount, to.decimals()),
            rate: &c.rate.rate,
            effective_date: date(c.rate.effective_date),
        }
    }
}

/// A conversion (DECISIONS 10): both amounts at their currency's minor unit.
pub fn conversion(c: &crate::exchange::Conversion) -> Value {
    json(&ConversionView::of(c))
}
