//! Decimal members (amounts, quantities, tax and exchange rates): a decimal string, with
//! the sign, digits and places the domain's parsers accept, or a whole JSON number.
//!
//! The server also reads a JSON number with a fraction exactly as it is written, but the
//! document does not offer one: a client generator types a JSON number as a binary float
//! (`float` in Python), which cannot hold most decimal amounts, so a client that follows
//! the document sends a string, or an integer that any language holds exactly
//! (docs/decisions.md, "Generated clients").

use std::borrow::Cow;

use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, Type};
use utoipa::{PartialSchema, ToSchema};

/// What a decimal member accepts: its sign, its whole digits and its decimal places,
/// exactly as the domain parses it (`ledger_domain::money::parse_units`, `tax::parse_rate`,
/// `exchange::parse_rate`).
struct DecimalRule {
    /// `Some(true)`: greater than zero; `Some(false)`: zero or more; `None`: any sign.
    positive: Option<bool>,
    /// Significant digits before the point.
    whole: usize,
    /// Significant decimal places (trailing zeros are free).
    places: usize,
    /// The whole JSON number's bounds, both inclusive.
    integer_min: i64,
    integer_max: i64,
    /// A pattern of its own, when the digits alone do not say the range (a percentage).
    pattern: Option<&'static str>,
    max_length: usize,
    description: &'static str,
}

impl DecimalRule {
    /// The string form as a pattern: leading zeros and trailing decimal zeros are free, as
    /// the parser normalises them.
    fn pattern(&self) -> String {
        if let Some(pattern) = self.pattern {
            return pattern.to_owned();
        }
        let (w, p) = (self.whole, self.places);
        let fraction = format!(r"(\.[0-9]{{1,{p}}}0*)?");
        match self.positive {
            Some(true) => {
                // A non-zero digit before the point, or one within the places after it.
                let small: Vec<String> = (0..p)
                    .map(|k| format!("0{{{k}}}[1-9][0-9]{{0,{}}}", p - 1 - k))
                    .collect();
                format!(
                    r"^0*([1-9][0-9]{{0,{}}}{fraction}|0\.({})0*)$",
                    w - 1,
                    small.join("|")
                )
            }
            Some(false) => format!(r"^0*(0|[1-9][0-9]{{0,{}}}){fraction}$", w - 1),
            None => format!(r"^-?0*(0|[1-9][0-9]{{0,{}}}){fraction}$", w - 1),
        }
    }

    fn schema(&self) -> RefOr<Schema> {
        let whole = ObjectBuilder::new()
            .schema_type(Type::Integer)
            .minimum(Some(self.integer_min))
            .maximum(Some(self.integer_max));
        OneOfBuilder::new()
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .max_length(Some(self.max_length))
                    .pattern(Some(self.pattern())),
            )
            .item(whole)
            .description(Some(self.description))
            .into()
    }
}

/// An amount as stored (`ledger_domain::money`): at most 14 digits before the point and
/// 4 after (the most any currency has; a currency with fewer refuses the rest with 422
/// `inconsistent_fields`, since the currency comes from another member or a record).
const AMOUNT_WHOLE: usize = 14;
/// The largest whole amount a JSON number may carry: the stored `i64` of ten-thousandths
/// holds up to 922 337 203 685 477.5807 (a number above it is refused, so the document
/// says where the server stops; the string form keeps to 14 digits).
const AMOUNT_MAX: i64 = 922_337_203_685_477;

macro_rules! decimal_schema {
    ($(#[$doc:meta])* $name:ident, $rule:expr) => {
        $(#[$doc])*
        pub(crate) struct $name;

        impl PartialSchema for $name {
            fn schema() -> RefOr<Schema> {
                $rule.schema()
            }
        }

        impl ToSchema for $name {
            fn name() -> Cow<'static, str> {
                Cow::Borrowed(stringify!($name))
            }
        }
    };
}

decimal_schema!(
    /// A signed amount (a closing balance): a JSON number or a string, kept exact.
    Decimal,
    DecimalRule {
        positive: None,
        whole: AMOUNT_WHOLE,
        places: 4,
        integer_min: -AMOUNT_MAX,
        integer_max: AMOUNT_MAX,
        pattern: None,
        max_length: 40,
        description: "A signed amount as a decimal string (`\"-12.50\"`), or a whole JSON number (`-12`): at most 14 digits before the point and 4 after (the currency may allow fewer). Send a string for anything with cents: a binary float cannot hold most of them.",
    }
);

decimal_schema!(
    /// An amount greater than zero (a journal line, a transfer, a payment).
    PositiveAmount,
    DecimalRule {
        positive: Some(true),
        whole: AMOUNT_WHOLE,
        places: 4,
        integer_min: 1,
        integer_max: AMOUNT_MAX,
        pattern: None,
        max_length: 40,
        description: "An amount greater than zero as a decimal string (`\"12.50\"`), or a whole JSON number (`12`): at most 14 digits before the point and 4 after (the currency may allow fewer). Send a string for anything with cents: a binary float cannot hold most of them.",
    }
);

decimal_schema!(
    /// An amount of zero or more (a unit price, an amount to convert).
    NonNegativeAmount,
    DecimalRule {
        positive: Some(false),
        whole: AMOUNT_WHOLE,
        places: 4,
        integer_min: 0,
        integer_max: AMOUNT_MAX,
        pattern: None,
        max_length: 40,
        description: "An amount of zero or more as a decimal string (`\"12.50\"`), or a whole JSON number (`12`): at most 14 digits before the point and 4 after (the currency may allow fewer). Send a string for anything with cents: a binary float cannot hold most of them.",
    }
);

decimal_schema!(
    /// A quantity greater than zero, at most 4 decimals.
    Quantity,
    DecimalRule {
        positive: Some(true),
        whole: AMOUNT_WHOLE,
        places: 4,
        integer_min: 1,
        integer_max: AMOUNT_MAX,
        pattern: None,
        max_length: 40,
        description: "A quantity greater than zero as a decimal string (`\"1.5\"`), at most 4 decimal places, or a whole JSON number (`3`).",
    }
);

decimal_schema!(
    /// A tax rate in percent, 0 to 100 with at most 4 decimals (`ledger_domain::tax`).
    TaxRate,
    DecimalRule {
        positive: Some(false),
        whole: 3,
        places: 4,
        integer_min: 0,
        integer_max: 100,
        // 0 to 100: two digits, or 100 itself.
        pattern: Some(r"^0*([0-9]{1,2}(\.[0-9]{1,4}0*)?|100(\.0+)?)$"),
        max_length: 40,
        description: "A percentage from 0 to 100 as a decimal string (`\"8.25\"`), at most 4 decimal places, or a whole JSON number (`20`).",
    }
);

decimal_schema!(
    /// An exchange rate: greater than zero, below 10^12, at most 12 decimals
    /// (`ledger_domain::exchange::parse_rate`).
    RateValue,
    DecimalRule {
        positive: Some(true),
        whole: 12,
        places: 12,
        integer_min: 1,
        integer_max: 999_999_999_999,
        pattern: None,
        max_length: 64,
        description: "Units of the target currency per unit of the source currency: greater than zero, below 10^12, at most 12 decimal places, as a decimal string (`\"1.0825\"`), or a whole JSON number (`150`).",
    }
);
