//! Exact money: amounts are integers of 1/10 000 of a currency unit.
//!
//! Every amount in the ledger is an `i64` count of ten-thousandths ([`SCALE`] = 4), on
//! every backend, so sums are exact in SQL and in Rust. A currency allows at most its ISO
//! 4217 number of decimals (2 for USD, 0 for JPY); input with more significant decimals is
//! refused, never rounded. Text is parsed with `bigdecimal`, never through a float.

use std::str::FromStr;

use bigdecimal::{BigDecimal, ToPrimitive};
use iso_currency::IntoEnumIterator;

/// Decimal places of the stored integer unit.
pub const SCALE: u32 = 4;
/// Stored units per currency unit (`10^SCALE`).
pub const UNITS_PER_WHOLE: i64 = 10_000;

/// An ISO 4217 currency with its number of minor-unit decimals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Currency {
    inner: iso_currency::Currency,
}

impl Currency {
    /// Looks a currency up by its ISO 4217 code, case-insensitively.
    ///
    /// From a table sorted by code, built once: every amount shown looks its currency up,
    /// and the crate's own lookup compares the code with each currency in turn (3% of the
    /// server's CPU on a trial balance).
    pub fn from_code(code: &str) -> Option<Self> {
        let key: [u8; 3] = code.trim().as_bytes().try_into().ok()?;
        let key = key.map(|b| b.to_ascii_uppercase());
        let table = by_code();
        let at = table.binary_search_by_key(&key, |(k, _)| *k).ok()?;
        Some(Self { inner: table[at].1 })
    }

    /// The three-letter code (`USD`).
    pub fn code(&self) -> String {
        self.inner.code().to_owned()
    }

    /// The English name (`US Dollar`).
    pub fn name(&self) -> String {
        self.inner.name().to_owned()
    }

    /// The symbol (`$`).
    pub fn symbol(&self) -> String {
        self.inner.symbol().to_string()
    }

    /// The ISO 4217 numeric code (840 for USD).
    pub fn numeric(&self) -> u16 {
        self.inner.numeric()
    }

    /// Number of decimals the currency allows (2 for USD).
    pub fn decimals(&self) -> u32 {
        u32::from(self.inner.exponent().unwrap_or(2)).min(SCALE)
    }

    /// Every currency with a defined minor unit, ordered by code.
    pub fn all() -> Vec<Self> {
        by_code()
            .iter()
            .map(|(_, inner)| Self { inner: *inner })
            .collect()
    }
}

/// Every currency with a defined minor unit by its code's bytes (three uppercase ASCII
/// letters, so also in code order), built once.
fn by_code() -> &'static [([u8; 3], iso_currency::Currency)] {
    static BY_CODE: std::sync::OnceLock<Vec<([u8; 3], iso_currency::Currency)>> =
        std::sync::OnceLock::new();
    BY_CODE.get_or_init(|| {
        let mut table: Vec<([u8; 3], iso_currency::Currency)> = iso_currency::Currency::iter()
            .filter(|c| c.exponent().is_some())
            .filter_map(|c| Some((c.code().as_bytes().try_into().ok()?, c)))
            .collect();
        table.sort_unstable_by_key(|(k, _)| *k);
        table
    })
}

/// Why a text is not a valid amount.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AmountError {
    #[error("is not a decimal number")]
    NotANumber,
    /// A number in exponent notation (`1e308`), which amounts are never written in.
    #[error("is written with an exponent; write the plain decimal (for example 100.00)")]
    Exponent,
    #[error("must be greater than zero")]
    NotPositive,
    #[error("must not be negative")]
    Negative,
    #[error("has more than {0} decimal places")]
    TooManyDecimals(u32),
    #[error("is too large: amounts go up to 922337203685477.5807")]
    TooLarge,
}

impl AmountError {
    /// The refusal of the member `field`, an amount in `currency` (the currency of the
    /// account, contact or document it is in): `invalid_field` whatever is wrong with it.
    /// More decimals than the currency allows is invalid request data (DECISIONS 2: "a
    /// validation error, not a silent rounding"), 400 like any other malformed amount.
    pub fn refusal(self, field: impl Into<String>, currency: &str) -> crate::DomainError {
        let message = match self {
            Self::TooManyDecimals(d) => format!("{currency} allows at most {d} decimal places"),
            other => other.to_string(),
        };
        crate::DomainError::invalid_field(field, message)
    }
}

/// Parses a decimal text into stored units, refusing more decimals than `decimals`.
///
/// # Errors
/// `NotANumber` for anything but a plain decimal, `TooManyDecimals` when a non-zero digit
/// stands past the currency's decimals, `TooLarge` past the `i64` range.
pub fn parse_units(text: &str, decimals: u32) -> Result<i64, AmountError> {
    let text = text.trim();
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == '-' || c == '+');
    if !plain || text.len() > 40 {
        let exponent = text.contains(['e', 'E'])
            && BigDecimal::from_str(text).is_ok()
            && !text.contains(['x', 'X']);
        return Err(if exponent {
            AmountError::Exponent
        } else {
            AmountError::NotANumber
        });
    }
    let value = BigDecimal::from_str(text).map_err(|_| AmountError::NotANumber)?;
    let normalized = value.normalized();
    let (_, exponent) = normalized.as_bigint_and_exponent();
    if exponent > i64::from(decimals) {
        return Err(AmountError::TooManyDecimals(decimals));
    }
    let scaled = normalized * BigDecimal::from(UNITS_PER_WHOLE);
    let scaled = scaled.with_scale(0);
    scaled.to_i64().ok_or(AmountError::TooLarge)
}

/// Parses a strictly positive amount (an entry or payment amount).
///
/// # Errors
/// As [`parse_units`], plus `NotPositive` for zero or less.
pub fn parse_positive_units(text: &str, decimals: u32) -> Result<i64, AmountError> {
    let units = parse_units(text, decimals)?;
    if units <= 0 {
        return Err(AmountError::NotPositive);
    }
    Ok(units)
}

/// Decimals of a currency code (2 when unknown).
pub fn decimals_of(code: &str) -> u32 {
    Currency::from_code(code).map_or(2, |c| c.decimals())
}

/// An amount of `currency` as a decimal string.
pub fn amount(units: i64, currency: &str) -> String {
    format_units(units, decimals_of(currency))
}

/// Formats stored units at `decimals` places: `format_units(1_000_000, 2) == "100.00"`.
///
/// Units that carry more precision than `decimals` (which validated input never does) are
/// shown with all four stored places rather than silently rounded.
pub fn format_units(units: i64, decimals: u32) -> String {
    let decimals = decimals.min(SCALE);
    let abs = units.unsigned_abs();
    let per_whole = UNITS_PER_WHOLE.unsigned_abs();
    let (whole, frac) = (abs / per_whole, abs % per_whole);
    let drop = 10u64.pow(SCALE - decimals);
    let shown = if frac % drop == 0 { decimals } else { SCALE };
    // One allocation, no formatting machinery: a report formats hundreds of amounts.
    let mut out = String::with_capacity(26);
    if units < 0 {
        out.push('-');
    }
    out.push_str(itoa::Buffer::new().format(whole));
    if shown > 0 {
        out.push('.');
        let mut digits = [b'0'; SCALE as usize];
        let mut rest = frac;
        for d in digits.iter_mut().rev() {
            *d = b'0' + u8::try_from(rest % 10).unwrap_or(0);
            rest /= 10;
        }
        for d in &digits[..shown as usize] {
            out.push(char::from(*d));
        }
    }
    out
}

/// `numerator / denominator` (both in stored units) as a decimal text to 10 decimal
/// places, half away from zero, trailing zeros dropped: `ratio(900_000, 1_000_000) ==
/// "0.9"`. A zero denominator answers `"0"`.
pub fn ratio(numerator: i64, denominator: i64) -> String {
    if denominator == 0 {
        return "0".to_owned();
    }
    let quotient = BigDecimal::from(numerator) / BigDecimal::from(denominator);
    quotient
        .with_scale_round(10, bigdecimal::RoundingMode::HalfUp)
        .normalized()
        .to_plain_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_exact_decimals() {
        let cases = [
            ("100", 2, Ok(1_000_000)),
            ("0.1", 2, Ok(1_000)),
            ("100.10", 2, Ok(1_001_000)),
            ("100.100", 2, Ok(1_001_000)),
            ("1.005", 2, Err(AmountError::TooManyDecimals(2))),
            ("5", 0, Ok(50_000)),
            ("5.5", 0, Err(AmountError::TooManyDecimals(0))),
            ("-3.25", 2, Ok(-32_500)),
            ("1e2", 2, Err(AmountError::Exponent)),
            ("abc", 2, Err(AmountError::NotANumber)),
            ("", 2, Err(AmountError::NotANumber)),
            ("99999999999999999999", 2, Err(AmountError::TooLarge)),
        ];
        for (text, decimals, want) in cases {
            assert_eq!(parse_units(text, decimals), want, "{text}");
        }
    }

    #[test]
    fn too_many_decimals_is_invalid_input() {
        use crate::error::{ErrorCode, ErrorKind};

        let e = AmountError::TooManyDecimals(2).refusal("entries[0].amount", "USD");
        assert_eq!(e.code(), ErrorCode::InvalidField);
        assert_eq!(e.kind(), ErrorKind::Validation);
        assert_eq!(
            e.to_string(),
            "entries[0].amount: USD allows at most 2 decimal places"
        );
        assert_eq!(
            e.details(),
            Some(serde_json::json!({"field": "entries[0].amount"}))
        );
        let e = AmountError::Negative.refusal("amount", "JPY");
        assert_eq!(e.code(), ErrorCode::InvalidField);
        assert_eq!(e.to_string(), "amount: must not be negative");
    }

    #[test]
    fn positive_refuses_zero() {
        assert_eq!(
            parse_positive_units("0.00", 2),
            Err(AmountError::NotPositive)
        );
        assert_eq!(parse_positive_units("-1", 2), Err(AmountError::NotPositive));
    }

    #[test]
    fn formats_at_currency_scale() {
        assert_eq!(format_units(1_000_000, 2), "100.00");
        assert_eq!(format_units(0, 2), "0.00");
        assert_eq!(format_units(-32_500, 2), "-3.25");
        assert_eq!(format_units(50_000, 0), "5");
        assert_eq!(format_units(12_345, 2), "1.2345");
    }

    #[test]
    fn currencies_know_their_decimals() {
        assert_eq!(Currency::from_code("usd").map(|c| c.decimals()), Some(2));
        assert_eq!(Currency::from_code("JPY").map(|c| c.decimals()), Some(0));
        assert!(Currency::from_code("XYZ").is_none());
    }

    /// The formatter as it was written with `format!`, the reference for the fast one.
    fn reference_format(units: i64, decimals: u32) -> String {
        let decimals = decimals.min(SCALE);
        let sign = if units < 0 { "-" } else { "" };
        let abs = units.unsigned_abs();
        let per_whole = UNITS_PER_WHOLE.unsigned_abs();
        let (whole, frac) = (abs / per_whole, abs % per_whole);
        let drop = 10u64.pow(SCALE - decimals);
        let shown = if frac % drop == 0 { decimals } else { SCALE };
        if shown == 0 {
            return format!("{sign}{whole}");
        }
        let frac_digits = format!("{frac:04}");
        format!("{sign}{whole}.{}", &frac_digits[..shown as usize])
    }

    #[test]
    fn formats_the_extremes_as_the_reference() {
        for units in [i64::MIN, i64::MIN + 1, -1, 0, 1, 9_999, 10_000, i64::MAX] {
            for decimals in 0..=5 {
                assert_eq!(
                    format_units(units, decimals),
                    reference_format(units, decimals)
                );
            }
        }
    }

    #[test]
    fn the_code_table_answers_as_the_crate() {
        for c in iso_currency::Currency::iter() {
            let code = c.code();
            let want = c.exponent().is_some().then_some(c);
            for given in [
                code.to_owned(),
                code.to_ascii_lowercase(),
                format!(" {code}\t"),
            ] {
                assert_eq!(
                    Currency::from_code(&given).map(|x| x.inner),
                    want,
                    "{given}"
                );
            }
        }
        for junk in ["", "US", "USDX", "U$D", "ÜSD", "  ", "usd usd"] {
            assert!(Currency::from_code(junk).is_none(), "{junk}");
        }
    }

    proptest! {
        #[test]
        fn format_matches_the_reference(units in any::<i64>(), decimals in 0u32..6) {
            prop_assert_eq!(format_units(units, decimals), reference_format(units, decimals));
        }

        #[test]
        fn format_then_parse_round_trips(cents in -1_000_000_000_000i64..1_000_000_000_000) {
            let units = cents * 100;
            prop_assert_eq!(parse_units(&format_units(units, 2), 2), Ok(units));
        }
    }

    #[test]
    fn a_refusal_says_what_is_wrong_with_an_amount() {
        assert_eq!(parse_units("1e308", 2), Err(AmountError::Exponent));
        assert_eq!(parse_units("1.5E2", 2), Err(AmountError::Exponent));
        assert_eq!(parse_units("abc", 2), Err(AmountError::NotANumber));
        assert_eq!(parse_units("0x10", 2), Err(AmountError::NotANumber));
        assert_eq!(
            parse_units("922337203685478", 2),
            Err(AmountError::TooLarge)
        );
        assert!(
            AmountError::TooLarge
                .to_string()
                .contains("922337203685477.5807")
        );
        assert!(AmountError::Exponent.to_string().contains("100.00"));
    }
}
