//! The records the books name: contacts, taxes, categories, currencies and exchange
//! rates (with the conversions they make).

use serde_json::{Value, json};

use crate::categories::Category;
use crate::contacts::Contact;
use crate::money::{Currency, format_units};
use crate::tax::{Tax, format_rate};

use super::{date, timestamp};

/// The complete contact object (spec 2.5).
pub fn contact(c: &Contact) -> Value {
    let f = &c.fields;
    json!({
        "id": c.id,
        "object": "contact",
        "organization_id": c.organization_id,
        "livemode": c.livemode,
        "contact_type": c.contact_type.as_str(),
        "name": f.name,
        "email": f.email,
        "phone": f.phone,
        "website": f.website,
        "tax_number": f.tax_number,
        "reference": f.reference,
        "address": f.address,
        "city": f.city,
        "state": f.state,
        "zip_code": f.zip_code,
        "country": f.country,
        "currency_id": f.currency_id,
        "enabled": f.enabled,
        "created_by": c.created_by,
        "metadata": f.metadata,
        "created_at": timestamp(c.created_at),
        "updated_at": timestamp(c.updated_at),
    })
}

/// The summary of a contact in the list (spec 2.5).
pub fn contact_summary(c: &Contact) -> Value {
    json!({
        "id": c.id,
        "contact_type": c.contact_type.as_str(),
        "name": c.fields.name,
        "email": c.fields.email,
        "phone": c.fields.phone,
        "reference": c.fields.reference,
        "enabled": c.fields.enabled,
        "created_at": timestamp(c.created_at),
    })
}

/// The tax object; the rate is a percentage string with four decimals (`"8.2500"`).
pub fn tax(t: &Tax) -> Value {
    json!({
        "id": t.id,
        "object": "tax",
        "organization_id": t.organization_id,
        "livemode": t.livemode,
        "name": t.name,
        "description": t.description,
        "rate": format_rate(t.rate),
        "tax_type": t.tax_type.as_str(),
        "is_compound": t.is_compound,
        "is_active": t.is_active,
        "created_at": timestamp(t.created_at),
        "updated_at": timestamp(t.updated_at),
    })
}

/// The category object; `subcategories` (the direct children) when known.
pub fn category(c: &Category, subcategories: Option<&[Category]>) -> Value {
    let mut v = json!({
        "id": c.id,
        "object": "category",
        "organization_id": c.organization_id,
        "livemode": c.livemode,
        "name": c.name,
        "description": c.description,
        "category_type": c.category_type.as_str(),
        "color": c.color,
        "is_active": c.is_active,
        "parent_id": c.parent_id,
        "created_at": timestamp(c.created_at),
        "updated_at": timestamp(c.updated_at),
    });
    if let Some(children) = subcategories {
        v["subcategories"] = children.iter().map(|k| category(k, None)).collect();
    }
    v
}

/// A currency (global reference data, ISO 4217): its id is `cur_` and its code.
pub fn currency(c: &Currency) -> Value {
    json!({
        "id": crate::exchange::currency_id(c),
        "object": "currency",
        "code": c.code(),
        "name": c.name(),
        "symbol": c.symbol(),
        "decimals": c.decimals(),
    })
}

/// An exchange rate of an organization; the rate is its exact decimal text.
pub fn exchange_rate(r: &crate::exchange::ExchangeRate) -> Value {
    json!({
        "id": r.id,
        "object": "exchange_rate",
        "from_currency": r.from_currency,
        "to_currency": r.to_currency,
        "from_currency_id": format!("{}_{}", crate::exchange::CURRENCY_ID_PREFIX, r.from_currency),
        "to_currency_id": format!("{}_{}", crate::exchange::CURRENCY_ID_PREFIX, r.to_currency),
        "rate": r.rate,
        "effective_date": date(r.effective_date),
        "created_at": timestamp(r.created_at),
        "updated_at": timestamp(r.updated_at),
    })
}

/// A conversion (DECISIONS 10): both amounts at their currency's minor unit.
pub fn conversion(c: &crate::exchange::Conversion) -> Value {
    let from = c.rate.from_currency;
    let to = c.rate.to_currency;
    json!({
        "from_currency": from.code(),
        "to_currency": to.code(),
        "amount": format_units(c.amount, from.decimals()),
        "converted_amount": format_units(c.converted_amount, to.decimals()),
        "rate": c.rate.rate,
        "effective_date": date(c.rate.effective_date),
    })
}
