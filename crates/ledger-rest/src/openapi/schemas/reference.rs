//! The reference data of an organization: taxes, categories, currencies and exchange
//! rates, and a conversion between currencies.

#![expect(dead_code, reason = "documentation types: described, never built")]

use serde_json::Value;
use utoipa::ToSchema;

use super::list_of;

/// A tax rate.
#[derive(ToSchema)]
pub(crate) struct Tax {
    id: String,
    #[schema(example = "tax")]
    object: String,
    organization_id: String,
    livemode: bool,
    name: String,
    description: Option<String>,
    /// A percentage with four decimals (`"8.2500"`).
    rate: String,
    tax_type: String,
    is_compound: bool,
    is_active: bool,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
}

/// A tax as a list shows it (the list renders fewer members than the tax's own get).
#[derive(ToSchema)]
pub(crate) struct TaxSummary {
    id: String,
    #[schema(example = "tax")]
    object: String,
    name: String,
    /// A percentage with four decimals (`"8.2500"`).
    rate: String,
    tax_type: String,
    is_compound: bool,
    is_active: bool,
}

/// A category of income or expense.
#[derive(ToSchema)]
pub(crate) struct Category {
    id: String,
    #[schema(example = "category")]
    object: String,
    organization_id: String,
    livemode: bool,
    name: String,
    description: Option<String>,
    category_type: String,
    color: Option<String>,
    is_active: bool,
    parent_id: Option<String>,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
    /// The direct children, on a single category.
    subcategories: Option<Vec<Value>>,
}

/// A category as a list shows it.
#[derive(ToSchema)]
pub(crate) struct CategorySummary {
    id: String,
    #[schema(example = "category")]
    object: String,
    name: String,
    category_type: String,
    color: Option<String>,
    is_active: bool,
    parent_id: Option<String>,
}

/// A currency (ISO 4217 reference data).
#[derive(ToSchema)]
pub(crate) struct Currency {
    id: String,
    #[schema(example = "currency")]
    object: String,
    #[schema(example = "USD")]
    code: String,
    name: String,
    symbol: String,
    decimals: u32,
}

/// An exchange rate of a tenant.
#[derive(ToSchema)]
pub(crate) struct ExchangeRate {
    id: String,
    #[schema(example = "exchange_rate")]
    object: String,
    from_currency: String,
    to_currency: String,
    from_currency_id: String,
    to_currency_id: String,
    rate: String,
    #[schema(format = Date)]
    effective_date: String,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
}

/// An amount converted between currencies.
#[derive(ToSchema)]
pub(crate) struct Conversion {
    from_currency: String,
    to_currency: String,
    amount: String,
    converted_amount: String,
    rate: String,
    effective_date: String,
}

list_of! {
    TaxList => TaxSummary,
    CategoryList => CategorySummary,
    CurrencyList => Currency,
    ExchangeRateList => ExchangeRate,
}
