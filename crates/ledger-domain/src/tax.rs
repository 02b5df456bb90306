//! Taxes (spec 2.7, 4.9): the tax record and the tax arithmetic of DECISIONS 2.
//!
//! A rate is an exact percentage held as an `i64` count of 1/10 000 of a percent
//! ([`RATE_SCALE`] = 4 decimals), so `8.25%` is `82_500` and `100%` is `1_000_000`.
//! Amounts are stored units ([`crate::money`], 1/10 000 of a currency unit).
//!
//! Tax is computed per line and per tax, and each amount is rounded half away from zero
//! to the currency's minor unit. Non-compound rates apply to the line price; a compound
//! rate applies to the price plus every (rounded) tax listed before it. Integer
//! arithmetic only (`i128` intermediates): no float ever sees a rate or an amount.

use time::OffsetDateTime;

use crate::ids::names;
use crate::money::{AmountError, SCALE, format_units, parse_units};

/// Decimal places of a stored rate.
pub const RATE_SCALE: u32 = 4;
/// The stored rate of 100%.
pub const MAX_RATE: i64 = 100 * 10_000;

/// What kind of tax a record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaxType {
    SalesTax,
    Vat,
    Excise,
    Other,
}

names!(
    TaxType,
    loose,
    {
        SalesTax => "sales_tax",
        Vat => "vat",
        Excise => "excise",
        Other => "other",
    }
);

/// A tax of an organization.
#[derive(Debug, Clone, PartialEq)]
pub struct Tax {
    pub id: String,
    pub organization_id: String,
    pub livemode: bool,
    pub name: String,
    pub description: Option<String>,
    /// Percent in units of 1/10 000 (see [`RATE_SCALE`]).
    pub rate: i64,
    pub tax_type: TaxType,
    pub is_compound: bool,
    pub is_active: bool,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

/// Why a rate text is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RateError {
    #[error("must be a decimal percentage")]
    NotANumber,
    #[error("must have at most {RATE_SCALE} decimal places")]
    TooManyDecimals,
    #[error("must be between 0 and 100")]
    OutOfRange,
}

/// Parses a percentage text (`"8.25"`) into stored rate units, exactly.
///
/// # Errors
/// `NotANumber`, `TooManyDecimals` past four decimals, `OutOfRange` outside 0..=100.
pub fn parse_rate(text: &str) -> Result<i64, RateError> {
    match parse_units(text, RATE_SCALE) {
        Ok(units) if (0..=MAX_RATE).contains(&units) => Ok(units),
        Ok(_) | Err(AmountError::TooLarge) => Err(RateError::OutOfRange),
        Err(AmountError::TooManyDecimals(_)) => Err(RateError::TooManyDecimals),
        Err(_) => Err(RateError::NotANumber),
    }
}

/// A stored rate as a string with four decimals (`"8.2500"`).
pub fn format_rate(rate: i64) -> String {
    format_units(rate, RATE_SCALE)
}

/// One tax applied to a line, in application order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppliedRate {
    /// Percent in units of 1/10 000.
    pub rate: i64,
    pub is_compound: bool,
}

/// The taxes of one line: one amount per applied rate (same order) and their total.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineTax {
    pub amounts: Vec<i64>,
    pub total: i64,
}

/// The taxes of several lines: per line, per tax (summed over the lines) and in total.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaxSummary {
    pub lines: Vec<LineTax>,
    pub per_tax: Vec<i64>,
    pub total: i64,
}

/// Why tax cannot be computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TaxError {
    #[error("the tax amount is too large")]
    TooLarge,
}

/// `n / d` rounded half away from zero (`d > 0`).
fn div_round_half_away(n: i128, d: i128) -> i128 {
    let q = n / d;
    let r = n % d;
    if 2 * r.abs() >= d { q + n.signum() } else { q }
}

/// Stored units per minor unit of a currency with `decimals` decimals (100 for cents).
fn minor_unit(decimals: u32) -> i128 {
    10i128.pow(SCALE - decimals.min(SCALE))
}

/// The taxes of one line of `amount` stored units, for a currency with `decimals`
/// decimals. Each tax is rounded half away from zero to the minor unit; a compound rate
/// applies to the amount plus the taxes before it.
///
/// # Errors
/// `TooLarge` when an amount leaves the `i64` range.
pub fn line_tax(amount: i64, rates: &[AppliedRate], decimals: u32) -> Result<LineTax, TaxError> {
    // Percent units per whole: 100 % = 100 * 10^RATE_SCALE.
    let rate_whole = i128::from(MAX_RATE);
    let minor = minor_unit(decimals);
    let price = i128::from(amount);
    let mut amounts = Vec::with_capacity(rates.len());
    let mut total: i128 = 0;
    for applied in rates {
        let base = if applied.is_compound {
            price + total
        } else {
            price
        };
        let exact_numerator = base
            .checked_mul(i128::from(applied.rate))
            .ok_or(TaxError::TooLarge)?;
        let tax = div_round_half_away(exact_numerator, rate_whole * minor) * minor;
        total += tax;
        amounts.push(i64::try_from(tax).map_err(|_| TaxError::TooLarge)?);
    }
    Ok(LineTax {
        amounts,
        total: i64::try_from(total).map_err(|_| TaxError::TooLarge)?,
    })
}

/// The taxes of several lines that carry the same rates.
///
/// # Errors
/// `TooLarge` when an amount or a sum leaves the `i64` range.
pub fn lines_tax(
    amounts: &[i64],
    rates: &[AppliedRate],
    decimals: u32,
) -> Result<TaxSummary, TaxError> {
    let mut per_tax = vec![0i64; rates.len()];
    let mut total: i64 = 0;
    let mut lines = Vec::with_capacity(amounts.len());
    for &amount in amounts {
        let line = line_tax(amount, rates, decimals)?;
        for (sum, tax) in per_tax.iter_mut().zip(&line.amounts) {
            *sum = sum.checked_add(*tax).ok_or(TaxError::TooLarge)?;
        }
        total = total.checked_add(line.total).ok_or(TaxError::TooLarge)?;
        lines.push(line);
    }
    Ok(TaxSummary {
        lines,
        per_tax,
        total,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rate(text: &str, is_compound: bool) -> AppliedRate {
        AppliedRate {
            rate: parse_rate(text).expect("rate"),
            is_compound,
        }
    }

    fn units(text: &str) -> i64 {
        parse_units(text, 4).expect("amount")
    }

    #[test]
    fn spec_examples_hold_exactly() {
        let one = line_tax(units("100.00"), &[rate("8.25", false)], 2).expect("tax");
        assert_eq!(one.amounts, [units("8.25")]);
        assert_eq!(one.total, units("8.25"));
        let compound =
            line_tax(units("100.00"), &[rate("8", false), rate("5", true)], 2).expect("tax");
        assert_eq!(compound.amounts, [units("8.00"), units("5.40")]);
        assert_eq!(compound.total, units("13.40"));
    }

    #[test]
    fn table_of_lines() {
        // (amount, [(rate, compound)], decimals, amounts, total)
        type Case<'a> = (&'a str, &'a [(&'a str, bool)], u32, &'a [&'a str], &'a str);
        let cases: &[Case] = &[
            ("100.00", &[("8.25", false)], 2, &["8.25"], "8.25"),
            (
                "100.00",
                &[("5", false), ("3", false)],
                2,
                &["5.00", "3.00"],
                "8.00",
            ),
            (
                "100.00",
                &[("8", false), ("5", true)],
                2,
                &["8.00", "5.40"],
                "13.40",
            ),
            // 0.125 rounds half away from zero to 0.13; -0.125 to -0.13.
            ("1.25", &[("10", false)], 2, &["0.13"], "0.13"),
            ("-1.25", &[("10", false)], 2, &["-0.13"], "-0.13"),
            ("1.24", &[("10", false)], 2, &["0.12"], "0.12"),
            // Zero-decimal currency: 7% of 150 = 10.5 -> 11.
            ("150", &[("7", false)], 0, &["11"], "11"),
            ("0.00", &[("20", false)], 2, &["0.00"], "0.00"),
            ("19.99", &[("0", false)], 2, &["0.00"], "0.00"),
            ("19.99", &[("100", false)], 2, &["19.99"], "19.99"),
            ("33.33", &[("8.8888", false)], 2, &["2.96"], "2.96"),
            // Three decimals (BHD): 5% of 1.005 = 0.05025 -> 0.050.
            ("1.005", &[("5", false)], 3, &["0.050"], "0.050"),
            // Compound after two simple taxes uses both.
            (
                "200.00",
                &[("5", false), ("2.5", false), ("10", true)],
                2,
                &["10.00", "5.00", "21.50"],
                "36.50",
            ),
        ];
        for (amount, rates, decimals, want, total) in cases {
            let rates: Vec<AppliedRate> = rates.iter().map(|(r, c)| rate(r, *c)).collect();
            let got = line_tax(units(amount), &rates, *decimals).expect("tax");
            let want: Vec<i64> = want.iter().map(|w| units(w)).collect();
            assert_eq!(got.amounts, want, "{amount} {rates:?}");
            assert_eq!(got.total, units(total), "{amount} {rates:?}");
        }
    }

    #[test]
    fn rates_parse_exactly_and_format_with_four_decimals() {
        assert_eq!(parse_rate("8.25"), Ok(82_500));
        assert_eq!(parse_rate("0"), Ok(0));
        assert_eq!(parse_rate("100"), Ok(MAX_RATE));
        assert_eq!(parse_rate("8.12345"), Err(RateError::TooManyDecimals));
        assert_eq!(parse_rate("100.0001"), Err(RateError::OutOfRange));
        assert_eq!(parse_rate("-1"), Err(RateError::OutOfRange));
        assert_eq!(parse_rate("1e2"), Err(RateError::NotANumber));
        assert_eq!(parse_rate("abc"), Err(RateError::NotANumber));
        assert_eq!(format_rate(82_500), "8.2500");
        assert_eq!(format_rate(0), "0.0000");
        assert_eq!(format_rate(MAX_RATE), "100.0000");
    }

    #[test]
    fn huge_amounts_are_refused_not_wrapped() {
        let rates = [rate("100", false), rate("100", true), rate("100", true)];
        assert_eq!(line_tax(i64::MAX / 2, &rates, 2), Err(TaxError::TooLarge));
    }

    fn applied() -> impl Strategy<Value = AppliedRate> {
        (0..=MAX_RATE, any::<bool>())
            .prop_map(|(rate, is_compound)| AppliedRate { rate, is_compound })
    }

    proptest! {
        /// Each rounded tax is within half a minor unit of its exact value, so the sum
        /// over n lines is within n half-units, and every total is the sum of its parts.
        #[test]
        fn totals_never_lose_or_invent_a_cent(
            cents in proptest::collection::vec(-10_000_000i64..10_000_000, 1..20),
            rates in proptest::collection::vec(applied(), 0..5),
            decimals in 0u32..=3,
        ) {
            let minor = minor_unit(decimals) as i64;
            let amounts: Vec<i64> = cents.iter().map(|c| c * minor).collect();
            let summary = lines_tax(&amounts, &rates, decimals).expect("tax");
            let rate_whole = i128::from(MAX_RATE);
            for (i, applied) in rates.iter().enumerate() {
                // The exact tax of each line, as a fraction over rate_whole.
                let mut exact_sum: i128 = 0;
                let mut rounded_sum: i128 = 0;
                for (amount, line) in amounts.iter().zip(&summary.lines) {
                    let before: i64 = line.amounts[..i].iter().sum();
                    let base = i128::from(*amount)
                        + if applied.is_compound { i128::from(before) } else { 0 };
                    let exact = base * i128::from(applied.rate);
                    let rounded = i128::from(line.amounts[i]) * rate_whole;
                    prop_assert!(2 * (rounded - exact).abs() <= i128::from(minor) * rate_whole);
                    prop_assert_eq!(line.amounts[i] % minor, 0);
                    exact_sum += exact;
                    rounded_sum += rounded;
                }
                let n = amounts.len() as i128;
                prop_assert!(2 * (rounded_sum - exact_sum).abs() <= n * i128::from(minor) * rate_whole);
                let per_tax: i64 = summary.lines.iter().map(|l| l.amounts[i]).sum();
                prop_assert_eq!(summary.per_tax[i], per_tax);
            }
            for line in &summary.lines {
                prop_assert_eq!(line.total, line.amounts.iter().sum::<i64>());
            }
            prop_assert_eq!(summary.total, summary.lines.iter().map(|l| l.total).sum::<i64>());
            prop_assert_eq!(summary.total, summary.per_tax.iter().sum::<i64>());
        }

        /// Shuffling the non-compound taxes (listed before the compound ones) changes no
        /// tax amount and no total.
        #[test]
        fn order_of_non_compound_taxes_does_not_matter(
            cents in -10_000_000i64..10_000_000,
            simple in proptest::collection::vec(0..=MAX_RATE, 0..5),
            compound in proptest::collection::vec(0..=MAX_RATE, 0..3),
            seed in any::<u64>(),
        ) {
            let amount = cents * 100;
            let build = |simple: &[i64]| -> Vec<AppliedRate> {
                simple.iter().map(|&rate| AppliedRate { rate, is_compound: false })
                    .chain(compound.iter().map(|&rate| AppliedRate { rate, is_compound: true }))
                    .collect()
            };
            let mut shuffled: Vec<(usize, i64)> = simple.iter().copied().enumerate().collect();
            // A deterministic shuffle from the seed.
            let mut state = seed;
            for i in (1..shuffled.len()).rev() {
                state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let j = (state >> 33) as usize % (i + 1);
                shuffled.swap(i, j);
            }
            let original = line_tax(amount, &build(&simple), 2).expect("tax");
            let rates: Vec<i64> = shuffled.iter().map(|(_, r)| *r).collect();
            let other = line_tax(amount, &build(&rates), 2).expect("tax");
            prop_assert_eq!(original.total, other.total);
            for (pos, (orig_index, _)) in shuffled.iter().enumerate() {
                prop_assert_eq!(original.amounts[*orig_index], other.amounts[pos]);
            }
            let n = simple.len();
            prop_assert_eq!(&original.amounts[n..], &other.amounts[n..]);
        }
    }
}
