//! Dates as clients send them: a `YYYY-MM-DD` date or an RFC 3339 date-time (DECISIONS
//! 2), read the same way by every interface.

use serde::{Deserialize, Deserializer};
use time::format_description::well_known::Rfc3339;
use time::{Date, OffsetDateTime, Time};

/// A date or date-time; a date means midnight UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlexDate {
    pub at: OffsetDateTime,
    /// Whether only a date was given.
    pub date_only: bool,
}

/// The first year a date may carry (DECISIONS 2 leaves it open; see docs/decisions.md,
/// "Hostile input"): earlier dates are refused as input.
pub const MIN_YEAR: i32 = 1000;
/// The last year a date may carry: later dates are refused, so that "the day after" and
/// a year's worth of schedule arithmetic never leave the representable range.
pub const MAX_YEAR: i32 = 9998;

/// RFC 3339 UTC with `Z`, as every interface writes a moment.
pub fn timestamp(at: OffsetDateTime) -> String {
    at.to_offset(time::UtcOffset::UTC)
        .format(&Rfc3339)
        .unwrap_or_default()
}

/// An optional moment: its [`timestamp`], or `null`.
pub fn opt_timestamp(at: Option<OffsetDateTime>) -> serde_json::Value {
    at.map_or(serde_json::Value::Null, |t| {
        serde_json::Value::String(timestamp(t))
    })
}

/// `YYYY-MM-DD`, as every interface writes a date.
pub fn iso_date(d: Date) -> String {
    format!("{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day())
}

/// Parses exactly `YYYY-MM-DD` with a year in [`MIN_YEAR`]`..=`[`MAX_YEAR`].
pub fn parse_day(text: &str) -> Option<Date> {
    let format = time::macros::format_description!("[year]-[month]-[day]");
    Date::parse(text.trim(), &format)
        .ok()
        .filter(|d| (MIN_YEAR..=MAX_YEAR).contains(&d.year()))
}

/// What is wrong with `text` as a date, for a refusal: a day the calendar does not have
/// (`2026-02-30`) and a year out of range are named as such; anything else is not written
/// `YYYY-MM-DD`.
pub fn day_problem(text: &str) -> String {
    let text = text.trim();
    let shaped = text.len() == 10
        && text.char_indices().all(|(i, c)| match i {
            4 | 7 => c == '-',
            _ => c.is_ascii_digit(),
        });
    if !shaped {
        return "must be a date (YYYY-MM-DD)".to_owned();
    }
    let year: i32 = text[..4].parse().unwrap_or(0);
    if !(MIN_YEAR..=MAX_YEAR).contains(&year) {
        return format!("must be a date in the years {MIN_YEAR} to {MAX_YEAR}");
    }
    format!("{text} is not a day of the calendar")
}

/// The `YYYY-MM-DD` day `text`, or the refusal of the member `field` saying what is
/// wrong with it ([`day_problem`]).
///
/// # Errors
/// `invalid_field` on `field`.
pub fn check_day(text: &str, field: &str) -> Result<Date, crate::DomainError> {
    parse_day(text).ok_or_else(|| crate::DomainError::invalid_field(field, day_problem(text)))
}

impl FlexDate {
    /// Parses `YYYY-MM-DD` or RFC 3339, in UTC, with a year in
    /// [`MIN_YEAR`]`..=`[`MAX_YEAR`].
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        if let Ok(at) = OffsetDateTime::parse(text, &Rfc3339) {
            return at
                .checked_to_offset(time::UtcOffset::UTC)
                .filter(|at| (MIN_YEAR..=MAX_YEAR).contains(&at.year()))
                .map(|at| Self {
                    at,
                    date_only: false,
                });
        }
        parse_day(text).map(|d| Self {
            at: d.with_time(Time::MIDNIGHT).assume_utc(),
            date_only: true,
        })
    }

    /// The exclusive upper bound meaning "up to and including this": the next day for a
    /// date, the next nanosecond for a date-time.
    pub fn inclusive_until(self) -> OffsetDateTime {
        if self.date_only {
            self.at + time::Duration::days(1)
        } else {
            self.at + time::Duration::nanoseconds(1)
        }
    }
}

impl<'de> Deserialize<'de> for FlexDate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Self::parse(&text).ok_or_else(|| {
            serde::de::Error::custom("expected a date (YYYY-MM-DD) or an RFC 3339 date-time")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn reads_dates_and_date_times() {
        let d = FlexDate::parse("2026-01-31").expect("a date");
        assert!(d.date_only);
        assert_eq!(d.at.date().to_string(), "2026-01-31");
        let t = FlexDate::parse("2026-01-31T23:30:00-02:00").expect("a date-time");
        assert_eq!(t.at.date().to_string(), "2026-02-01");
        assert_eq!(t.at.offset(), time::UtcOffset::UTC);
    }

    #[test]
    fn refuses_what_it_cannot_hold() {
        for text in [
            "2026-02-30",
            "2026-13-01",
            "2026-1-1",
            "20260101",
            "+999999-01-01",
            "0000-01-01",
            "0999-12-31",
            "9999-12-31",
            "9999-12-31T23:59:59-23:59",
            "9998-12-31T23:59:59-23:59",
            "1000-01-01T00:00:00+23:59",
            "",
        ] {
            assert_eq!(FlexDate::parse(text), None, "{text}");
        }
        assert_eq!(parse_day("9999-01-01"), None);
        assert!(parse_day("9998-12-31").is_some());
        assert!(parse_day("1000-01-01").is_some());
    }

    #[test]
    fn the_last_day_has_a_day_after() {
        let last = FlexDate::parse("9998-12-31").expect("the last date");
        assert_eq!(last.inclusive_until().year(), 9999);
        let late = FlexDate::parse("9998-12-31T23:59:59.999999999Z").expect("the last instant");
        assert!(late.inclusive_until() > late.at);
    }

    proptest! {
        /// Any text: no panic, and whatever parses lies in the supported range and has a
        /// day after it.
        #[test]
        fn any_text_parses_or_is_refused(text in "\\PC{0,40}") {
            if let Some(d) = FlexDate::parse(&text) {
                prop_assert!((MIN_YEAR..=MAX_YEAR).contains(&d.at.year()));
                prop_assert!(d.inclusive_until() > d.at);
            }
        }

        /// Date-shaped text with any digits and offsets: the same.
        #[test]
        fn date_shaped_text(
            year in 0i32..100_000,
            month in 0u8..15,
            day in 0u8..35,
            hour in 0u8..26,
            offset_h in 0u8..25,
            negative in any::<bool>(),
        ) {
            let sign = if negative { '-' } else { '+' };
            for text in [
                format!("{year:04}-{month:02}-{day:02}"),
                format!("{year:04}-{month:02}-{day:02}T{hour:02}:59:59.999999999{sign}{offset_h:02}:59"),
            ] {
                if let Some(d) = FlexDate::parse(&text) {
                    prop_assert!((MIN_YEAR..=MAX_YEAR).contains(&d.at.year()));
                    prop_assert!(d.inclusive_until() > d.at);
                }
            }
        }
    }

    #[test]
    fn a_refusal_says_what_is_wrong_with_a_date() {
        assert_eq!(
            day_problem("2026-02-30"),
            "2026-02-30 is not a day of the calendar"
        );
        assert_eq!(
            day_problem("2026-13-01"),
            "2026-13-01 is not a day of the calendar"
        );
        assert_eq!(
            day_problem("0999-01-01"),
            "must be a date in the years 1000 to 9998"
        );
        assert_eq!(day_problem("30/02/2026"), "must be a date (YYYY-MM-DD)");
        assert_eq!(day_problem("2026-2-3"), "must be a date (YYYY-MM-DD)");
        assert!(check_day("2024-02-29", "date").is_ok());
        let refused = check_day("2025-02-29", "date").map(|_| ()).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "date: 2025-02-29 is not a day of the calendar"
        );
    }
}
