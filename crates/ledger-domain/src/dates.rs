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

impl FlexDate {
    /// Parses `YYYY-MM-DD` or RFC 3339.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        if let Ok(at) = OffsetDateTime::parse(text, &Rfc3339) {
            return Some(Self {
                at: at.to_offset(time::UtcOffset::UTC),
                date_only: false,
            });
        }
        let format = time::macros::format_description!("[year]-[month]-[day]");
        Date::parse(text, &format).ok().map(|d| Self {
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
