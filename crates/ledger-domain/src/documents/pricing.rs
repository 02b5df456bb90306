//! Document arithmetic: line amounts, line taxes and totals, exact to the minor unit.

use std::collections::HashMap;

use crate::error::DomainError;
use crate::money::{SCALE, UNITS_PER_WHOLE};
use crate::tax::{AppliedRate, Tax, TaxError, line_tax};

use super::{DocumentItem, TaxLine};

/// `a x b / 10^SCALE` rounded half away from zero to the minor unit of `decimals`.
///
/// # Errors
/// `invalid_field` on `field` when the product leaves the `i64` range.
pub fn line_amount(
    quantity: i64,
    unit_price: i64,
    decimals: u32,
    field: &str,
) -> Result<i64, DomainError> {
    let minor = 10i128.pow(SCALE - decimals.min(SCALE));
    let product = i128::from(quantity) * i128::from(unit_price);
    let d = i128::from(UNITS_PER_WHOLE) * minor;
    let q = product / d;
    let r = product % d;
    let rounded = if 2 * r.abs() >= d {
        q + product.signum()
    } else {
        q
    };
    i64::try_from(rounded * minor)
        .map_err(|_| DomainError::invalid_field(field, "the line amount is too large"))
}

/// Prices `items` in place (amount and taxes per line) and returns the per-tax totals,
/// in order of first use. `taxes` holds every tax the items name.
///
/// # Errors
/// `invalid_field` when an amount leaves the `i64` range or a tax is missing.
pub fn price_items(
    items: &mut [DocumentItem],
    taxes: &HashMap<String, Tax>,
    decimals: u32,
) -> Result<Vec<TaxLine>, DomainError> {
    let mut summary: Vec<TaxLine> = Vec::new();
    for (i, item) in items.iter_mut().enumerate() {
        item.amount = line_amount(
            item.quantity,
            item.unit_price,
            decimals,
            &format!("items[{i}]"),
        )?;
        let mut rates = Vec::with_capacity(item.tax_ids.len());
        for id in &item.tax_ids {
            let tax = taxes.get(id).ok_or_else(|| {
                DomainError::invalid_field(format!("items[{i}].tax_ids"), format!("no tax '{id}'"))
            })?;
            rates.push(AppliedRate {
                rate: tax.rate,
                is_compound: tax.is_compound,
            });
        }
        let line = line_tax(item.amount, &rates, decimals).map_err(|TaxError::TooLarge| {
            DomainError::invalid_field(format!("items[{i}]"), "the tax amount is too large")
        })?;
        item.tax_amount = line.total;
        for (id, amount) in item.tax_ids.iter().zip(line.amounts) {
            match summary.iter_mut().find(|t| &t.tax_id == id) {
                Some(t) => t.amount += amount,
                None => {
                    let tax = &taxes[id];
                    summary.push(TaxLine {
                        tax_id: id.clone(),
                        name: tax.name.clone(),
                        rate: tax.rate,
                        amount,
                    });
                }
            }
        }
    }
    Ok(summary)
}

/// Subtotal, tax and total of priced items.
///
/// # Errors
/// `invalid_field` on `items` when a sum leaves the `i64` range.
pub fn totals(items: &[DocumentItem]) -> Result<(i64, i64, i64), DomainError> {
    let too_large = || DomainError::invalid_field("items", "the document total is too large");
    let mut subtotal: i64 = 0;
    let mut tax: i64 = 0;
    for item in items {
        subtotal = subtotal.checked_add(item.amount).ok_or_else(too_large)?;
        tax = tax.checked_add(item.tax_amount).ok_or_else(too_large)?;
    }
    let total = subtotal.checked_add(tax).ok_or_else(too_large)?;
    Ok((subtotal, tax, total))
}
