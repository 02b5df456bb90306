//! Currencies as resources and exchange rates (spec 2.9, DECISIONS 10): the rate record,
//! its exact text, the inverse of a rate and the conversion of an amount.
//!
//! A rate is kept as the normalized text of an exact decimal (`"1.0825"`), never a
//! float: positive, at most [`RATE_DECIMALS`] decimals, below [`RATE_LIMIT`]. It says how
//! many units of `to_currency` one unit of `from_currency` buys. The inverse of a stored
//! rate is `1 / rate` rounded half away from zero to [`RATE_DECIMALS`] decimals, and a
//! converted amount is rounded half away from zero to the target currency's minor unit.
//! All of it is integer arithmetic on big integers: no float ever sees a rate.

use std::str::FromStr;

use bigdecimal::num_bigint::{BigInt, Sign};
use bigdecimal::{BigDecimal, ToPrimitive, Zero};
use time::{Date, OffsetDateTime};

use crate::money::{Currency, SCALE};

/// The most decimals a rate may have.
pub const RATE_DECIMALS: u32 = 12;

/// Every rate is below this (10^12).
pub const RATE_LIMIT: i64 = 1_000_000_000_000;

/// The prefix of a currency's id (`cur_USD`); any case is accepted on input.
pub const CURRENCY_ID_PREFIX: &str = "cur";

/// A currency's id: `cur_` and its code.
pub fn currency_id(currency: &Currency) -> String {
    format!("{CURRENCY_ID_PREFIX}_{}", currency.code())
}

/// The currency a client names by id (`cur_USD`, `CUR_usd`) or by ISO code (`usd`).
pub fn parse_currency(text: &str) -> Option<Currency> {
    let text = text.trim();
    let code = match text.split_once('_') {
        Some((prefix, code)) if prefix.eq_ignore_ascii_case(CURRENCY_ID_PREFIX) => code,
        Some(_) => return None,
        None => text,
    };
    if code.len() != 3 || !code.bytes().all(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    Currency::from_code(code)
}

/// An exchange rate of an organization (one tenant).
#[derive(Debug, Clone, PartialEq)]
pub struct ExchangeRate {
    pub id: String,
    pub organization_id: String,
    pub livemode: bool,
    /// ISO 4217 code of the currency converted from.
    pub from_currency: String,
    /// ISO 4217 code of the currency converted to.
    pub to_currency: String,
    /// Units of `to_currency` per unit of `from_currency`, normalized decimal text (see
    /// [`parse_rate`]).
    pub rate: String,
    /// The first day the rate applies.
    pub effective_date: Date,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

impl ExchangeRate {
    /// How the rate reads in the deletion trail: `EUR/USD 2026-01-31`.
    pub fn label(&self) -> String {
        format!(
            "{}/{} {}",
            self.from_currency,
            self.to_currency,
            crate::dates::iso_date(self.effective_date)
        )
    }
}

/// Why a rate text is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum RateTextError {
    #[error("must be a decimal number such as 1.0825")]
    NotANumber,
    #[error("must be greater than zero")]
    NotPositive,
    #[error("must have at most {RATE_DECIMALS} decimal places")]
    TooManyDecimals,
    #[error("must be less than 1000000000000")]
    TooLarge,
}

/// Parses a plain decimal text (digits, one dot, an optional sign; no exponent).
fn parse_plain(text: &str) -> Option<BigDecimal> {
    let text = text.trim();
    let plain = !text.is_empty()
        && text.len() <= 64
        && text
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == '-' || c == '+');
    if !plain {
        return None;
    }
    BigDecimal::from_str(text).ok()
}

/// Normalized plain text of a decimal: no exponent, no trailing fractional zeros.
fn plain_text(value: &BigDecimal) -> String {
    let normalized = value.normalized();
    if normalized.fractional_digit_count() < 0 {
        normalized.with_scale(0).to_plain_string()
    } else {
        normalized.to_plain_string()
    }
}

/// Parses a rate text (`"1.0825"`, `"110"`) into its normalized text, exactly.
///
/// # Errors
/// `NotANumber`, `NotPositive` for zero or less, `TooManyDecimals` past
/// [`RATE_DECIMALS`] significant decimals, `TooLarge` from [`RATE_LIMIT`] on.
pub fn parse_rate(text: &str) -> Result<String, RateTextError> {
    let value = parse_plain(text).ok_or(RateTextError::NotANumber)?;
    if value <= BigDecimal::zero() {
        return Err(RateTextError::NotPositive);
    }
    let normalized = value.normalized();
    if normalized.fractional_digit_count() > i64::from(RATE_DECIMALS) {
        return Err(RateTextError::TooManyDecimals);
    }
    // The whole part (truncated); past the i64 range it is too large anyway.
    if normalized.to_i64().is_none_or(|whole| whole >= RATE_LIMIT) {
        return Err(RateTextError::TooLarge);
    }
    Ok(plain_text(&normalized))
}

/// A rate text as an integer and its scale (`"1.0825"` is `(10825, 4)`); `None` for a
/// text [`parse_rate`] would refuse.
fn rate_parts(rate: &str) -> Option<(BigInt, u32)> {
    let value = parse_plain(rate)?;
    if value <= BigDecimal::zero() {
        return None;
    }
    let normalized = value.normalized();
    let scale = normalized.fractional_digit_count().max(0);
    let (digits, scale) = normalized.with_scale(scale).into_bigint_and_exponent();
    Some((digits, u32::try_from(scale).ok()?))
}

/// `n / d` rounded half away from zero (`d > 0`).
fn div_round_half_away(n: &BigInt, d: &BigInt) -> BigInt {
    let q = n / d;
    let r = n % d;
    let twice: BigInt = r.magnitude().clone().into();
    if twice * 2 >= *d {
        match n.sign() {
            Sign::Minus => q - 1,
            _ => q + 1,
        }
    } else {
        q
    }
}

/// `10^exponent` as a big integer.
fn ten_to(exponent: u32) -> BigInt {
    BigInt::from(10).pow(exponent)
}

/// The inverse of a rate, `1 / rate`, rounded half away from zero to
/// [`RATE_DECIMALS`] decimals and normalized; `None` for a text that is not a valid rate
/// or whose inverse rounds to zero (a rate of 2·10^12 or more, which
/// [`parse_rate`] never accepts).
pub fn inverse_rate(rate: &str) -> Option<String> {
    let (digits, scale) = rate_parts(rate)?;
    let scaled = div_round_half_away(&ten_to(scale + RATE_DECIMALS), &digits);
    if scaled.is_zero() {
        return None;
    }
    Some(plain_text(&BigDecimal::new(
        scaled,
        i64::from(RATE_DECIMALS),
    )))
}

/// Converts `units` (stored units, 1/10 000, of the source currency) at `rate` into
/// stored units of the target currency, rounded half away from zero to the target's
/// minor unit (`target_decimals`). `None` for an invalid rate or past the `i64` range.
pub fn convert_units(units: i64, rate: &str, target_decimals: u32) -> Option<i64> {
    let (digits, scale) = rate_parts(rate)?;
    let target_decimals = target_decimals.min(SCALE);
    // units * rate is in stored units times 10^scale; keep `target_decimals` of them.
    let exact = BigInt::from(units) * digits;
    let drop = scale + (SCALE - target_decimals);
    let minor = div_round_half_away(&exact, &ten_to(drop));
    (minor * ten_to(SCALE - target_decimals)).to_i64()
}

/// Where an applied rate comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RateSource {
    /// A stored rate of the asked pair (its id).
    Direct(String),
    /// The inverse of a stored rate of the reversed pair (its id).
    Inverse(String),
    /// The same currency on both sides: rate 1.
    Identity,
}

/// The rate that applies to a pair on a date (see `Ledger::rate_on`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedRate {
    pub from_currency: Currency,
    pub to_currency: Currency,
    /// Units of `to_currency` per unit of `from_currency`, normalized decimal text (an
    /// inverse has at most [`RATE_DECIMALS`] decimals).
    pub rate: String,
    /// The effective date of the stored rate used (the asked date for [`RateSource::Identity`]).
    pub effective_date: Date,
    pub source: RateSource,
}

impl AppliedRate {
    /// Converts `units` of `from_currency` (stored units) into stored units of
    /// `to_currency`, rounded half away from zero to its minor unit; `None` past the
    /// `i64` range.
    pub fn convert(&self, units: i64) -> Option<i64> {
        convert_units(units, &self.rate, self.to_currency.decimals())
    }
}

/// An amount converted at an applied rate (`Ledger::convert_currency`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conversion {
    /// Stored units of the source currency.
    pub amount: i64,
    /// Stored units of the target currency, at its minor unit.
    pub converted_amount: i64,
    pub rate: AppliedRate,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::money::format_units;

    #[test]
    fn rates_are_parsed_exactly_and_normalized() {
        let cases = [
            ("1.0825", Ok("1.0825")),
            ("1.50", Ok("1.5")),
            ("110", Ok("110")),
            ("100.000", Ok("100")),
            ("0.000000000001", Ok("0.000000000001")),
            ("0.0000000000001", Err(RateTextError::TooManyDecimals)),
            ("1.1234567890120", Ok("1.123456789012")),
            ("999999999999.999999999999", Ok("999999999999.999999999999")),
            ("1000000000000", Err(RateTextError::TooLarge)),
            ("0", Err(RateTextError::NotPositive)),
            ("-1.2", Err(RateTextError::NotPositive)),
            ("1e3", Err(RateTextError::NotANumber)),
            ("abc", Err(RateTextError::NotANumber)),
            ("", Err(RateTextError::NotANumber)),
            ("1.2.3", Err(RateTextError::NotANumber)),
        ];
        for (text, want) in cases {
            assert_eq!(parse_rate(text).as_deref(), want.as_deref(), "{text}");
        }
    }

    #[test]
    fn inverses_round_half_away_from_zero_to_twelve_decimals() {
        assert_eq!(inverse_rate("1.25").as_deref(), Some("0.8"));
        assert_eq!(inverse_rate("2").as_deref(), Some("0.5"));
        // 1 / 1.0825 = 0.923787528868360277...
        assert_eq!(inverse_rate("1.0825").as_deref(), Some("0.923787528868"));
        // 1 / 3 = 0.333333333333|33 rounds down; 1 / 6 = 0.166666666666|67 rounds up.
        assert_eq!(inverse_rate("3").as_deref(), Some("0.333333333333"));
        assert_eq!(inverse_rate("6").as_deref(), Some("0.166666666667"));
        // 1 / 160 = 0.00625 exactly; 1 / 0.008 = 125.
        assert_eq!(inverse_rate("160").as_deref(), Some("0.00625"));
        assert_eq!(inverse_rate("0.008").as_deref(), Some("125"));
        // 1 / 1.6e12 = 0.000000000000625 rounds half away from zero to 1e-12.
        assert_eq!(
            inverse_rate("1600000000000").as_deref(),
            Some("0.000000000001")
        );
        assert_eq!(inverse_rate("0"), None);
        assert_eq!(inverse_rate("x"), None);
    }

    #[test]
    fn conversions_round_to_the_target_minor_unit() {
        let usd = Currency::from_code("USD").expect("USD");
        let jpy = Currency::from_code("JPY").expect("JPY");
        let kwd = Currency::from_code("KWD").expect("KWD");
        let show = |units: Option<i64>, c: Currency| units.map(|u| format_units(u, c.decimals()));
        // 100.00 USD at 151.235 JPY = 15123.5 -> 15124 (half away from zero).
        assert_eq!(
            show(convert_units(1_000_000, "151.235", jpy.decimals()), jpy).as_deref(),
            Some("15124")
        );
        // 100.00 USD at 151.234 JPY = 15123.4 -> 15123.
        assert_eq!(
            show(convert_units(1_000_000, "151.234", jpy.decimals()), jpy).as_deref(),
            Some("15123")
        );
        // 10.00 USD at 0.30745 KWD = 3.0745 -> 3.075 (3 decimals).
        assert_eq!(
            show(convert_units(100_000, "0.30745", kwd.decimals()), kwd).as_deref(),
            Some("3.075")
        );
        // 100 JPY at 0.006612 USD = 0.6612 -> 0.66.
        assert_eq!(
            show(convert_units(1_000_000, "0.006612", usd.decimals()), usd).as_deref(),
            Some("0.66")
        );
        // 1.005 rounds half away from zero at 2 decimals, also below zero.
        assert_eq!(convert_units(10_050, "1", 2), Some(10_100));
        assert_eq!(convert_units(-10_050, "1", 2), Some(-10_100));
        assert_eq!(convert_units(i64::MAX, "2", 2), None);
        assert_eq!(convert_units(100, "bad", 2), None);
    }

    #[test]
    fn currencies_are_named_by_id_or_code() {
        let usd = Currency::from_code("USD");
        assert_eq!(parse_currency("USD"), usd);
        assert_eq!(parse_currency("usd"), usd);
        assert_eq!(parse_currency("cur_USD"), usd);
        assert_eq!(parse_currency("CUR_usd"), usd);
        assert_eq!(parse_currency("act_USD"), None);
        assert_eq!(parse_currency("XYZ"), None);
        assert_eq!(parse_currency("US"), None);
        assert_eq!(usd.map(|c| currency_id(&c)).as_deref(), Some("cur_USD"));
    }
}
