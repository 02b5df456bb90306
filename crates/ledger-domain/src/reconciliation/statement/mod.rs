//! Bank statements as files: CSV with a column mapping, and OFX/QFX (SGML-style OFX 1.x
//! and XML OFX 2.x), parsed here without I/O into [`ParsedLine`]s.
//!
//! Amounts keep the bank's sign: positive is money into the account (a debit to the
//! ledger account the statement reconciles), negative money out. They are parsed from
//! their text into stored units (no float), refusing more decimals than the account's
//! currency allows. Every refusal is a [`StatementError`] naming the line at fault;
//! nothing here panics on any input.
//!
//! The shared pieces live here: the formats, the parsed shapes, the CSV mapping, dates
//! and amounts as banks write them. Reading CSV records is `csv`'s, reading OFX tags
//! `ofx`'s.

mod csv;
mod ofx;

use time::{Date, Month};

use crate::money::{AmountError, parse_units};

/// The most lines one statement may hold.
pub const MAX_STATEMENT_LINES: usize = 5000;

/// The formats a statement may come in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatementFormat {
    Csv,
    /// OFX 1.x (SGML) or 2.x (XML); QFX is OFX with Quicken's extra tags.
    Ofx,
}

impl StatementFormat {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Csv => "csv",
            Self::Ofx => "ofx",
        }
    }

    /// A format a client names (`csv`, `ofx`, `qfx`), case-insensitively.
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "csv" => Some(Self::Csv),
            "ofx" | "qfx" => Some(Self::Ofx),
            _ => None,
        }
    }
}

/// Which format `content` is in: OFX when it starts (after a byte-order mark and
/// whitespace) with an OFX header, an XML declaration followed by an OFX processing
/// instruction, or `<OFX>`; CSV otherwise.
pub fn sniff(content: &str) -> StatementFormat {
    let head = content.trim_start_matches('\u{feff}').trim_start();
    let upper: String = head
        .chars()
        .take(512)
        .collect::<String>()
        .to_ascii_uppercase();
    if upper.starts_with("OFXHEADER")
        || upper.starts_with("<OFX>")
        || (upper.starts_with("<?XML") && upper.contains("<?OFX"))
    {
        StatementFormat::Ofx
    } else {
        StatementFormat::Csv
    }
}

/// One transaction of a statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedLine {
    pub date: Date,
    /// Stored units, the bank's sign (positive: money in).
    pub amount: i64,
    pub description: String,
    /// The bank's id of the line (OFX `FITID`) or the CSV reference column.
    pub reference: Option<String>,
}

/// What a statement file says besides its lines (OFX only).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatementFacts {
    /// `CURDEF`, upper case.
    pub currency: Option<String>,
}

/// A parsed statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedStatement {
    pub format: StatementFormat,
    pub lines: Vec<ParsedLine>,
    pub facts: StatementFacts,
}

/// Why a statement cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StatementError {
    #[error("the statement is empty")]
    Empty,
    #[error("the statement holds no transactions")]
    NoTransactions,
    #[error("the statement holds more than {MAX_STATEMENT_LINES} transactions")]
    TooManyLines,
    /// A mapping that names no column of the file, or an impossible combination.
    #[error("{0}")]
    Mapping(String),
    /// A line (1-based, as a text editor counts) that cannot be read.
    #[error("line {line}: {message}")]
    Line { line: usize, message: String },
    /// OFX without the structure every statement has.
    #[error("not a readable OFX statement: {0}")]
    Ofx(String),
}

/// A CSV column: a header name (case-insensitive) or a 1-based column number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Column {
    Name(String),
    Number(usize),
}

/// How dates are written in a CSV statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateFormat {
    /// `2026-01-31` (the default).
    Iso,
    /// `01/31/2026`.
    MonthDayYear,
    /// `31/01/2026`.
    DayMonthYear,
    /// `31.01.2026`.
    DayMonthYearDots,
    /// `20260131`.
    Compact,
}

impl DateFormat {
    /// The names a client uses: `YYYY-MM-DD`, `MM/DD/YYYY`, `DD/MM/YYYY`, `DD.MM.YYYY`,
    /// `YYYYMMDD` (case-insensitive).
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_uppercase().as_str() {
            "YYYY-MM-DD" => Some(Self::Iso),
            "MM/DD/YYYY" => Some(Self::MonthDayYear),
            "DD/MM/YYYY" => Some(Self::DayMonthYear),
            "DD.MM.YYYY" => Some(Self::DayMonthYearDots),
            "YYYYMMDD" => Some(Self::Compact),
            _ => None,
        }
    }

    /// Reads a date written this way.
    pub fn read(self, text: &str) -> Option<Date> {
        let text = text.trim();
        let numbers = |sep: char| -> Option<Vec<u32>> {
            let parts: Vec<&str> = text.split(sep).collect();
            if parts.len() != 3 || parts.iter().any(|p| p.is_empty() || p.len() > 4) {
                return None;
            }
            parts.iter().map(|p| p.parse::<u32>().ok()).collect()
        };
        let (year, month, day) = match self {
            Self::Iso => {
                let n = numbers('-')?;
                (n[0], n[1], n[2])
            }
            Self::MonthDayYear => {
                let n = numbers('/')?;
                (n[2], n[0], n[1])
            }
            Self::DayMonthYear => {
                let n = numbers('/')?;
                (n[2], n[1], n[0])
            }
            Self::DayMonthYearDots => {
                let n = numbers('.')?;
                (n[2], n[1], n[0])
            }
            Self::Compact => return compact_date(text),
        };
        ymd(year, month, day)
    }
}

fn ymd(year: u32, month: u32, day: u32) -> Option<Date> {
    if !(1000..=9999).contains(&year) {
        return None;
    }
    let month = Month::try_from(u8::try_from(month).ok()?).ok()?;
    Date::from_calendar_date(i32::try_from(year).ok()?, month, u8::try_from(day).ok()?).ok()
}

/// `YYYYMMDD` at the start of `text` (OFX dates carry a time and zone after it).
fn compact_date(text: &str) -> Option<Date> {
    let digits = text.get(..8)?;
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n = |r: std::ops::Range<usize>| digits.get(r).and_then(|s| s.parse::<u32>().ok());
    ymd(n(0..4)?, n(4..6)?, n(6..8)?)
}

/// How to read a CSV statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvMapping {
    pub date: Column,
    /// One signed amount column; or `debit` (money out) and `credit` (money in) columns.
    pub amount: Option<Column>,
    pub debit: Option<Column>,
    pub credit: Option<Column>,
    pub description: Option<Column>,
    pub reference: Option<Column>,
    pub date_format: DateFormat,
    /// Whether the first row names the columns.
    pub has_header: bool,
    pub delimiter: char,
    /// `.` (default) or `,`; the other one is taken as a thousands separator.
    pub decimal_separator: char,
}

impl Default for CsvMapping {
    fn default() -> Self {
        Self {
            date: Column::Name("date".into()),
            amount: Some(Column::Name("amount".into())),
            debit: None,
            credit: None,
            description: Some(Column::Name("description".into())),
            reference: None,
            date_format: DateFormat::Iso,
            has_header: true,
            delimiter: ',',
            decimal_separator: '.',
        }
    }
}

/// Parses a statement in `format` with amounts of a currency of `decimals` decimals.
///
/// # Errors
/// A [`StatementError`] naming what cannot be read.
pub fn parse(
    content: &str,
    format: StatementFormat,
    mapping: &CsvMapping,
    decimals: u32,
) -> Result<ParsedStatement, StatementError> {
    let content = content.trim_start_matches('\u{feff}');
    if content.trim().is_empty() {
        return Err(StatementError::Empty);
    }
    let (lines, facts) = match format {
        StatementFormat::Csv => (
            csv::parse_csv(content, mapping, decimals)?,
            StatementFacts::default(),
        ),
        StatementFormat::Ofx => ofx::parse_ofx(content, decimals)?,
    };
    if lines.is_empty() {
        return Err(StatementError::NoTransactions);
    }
    if lines.len() > MAX_STATEMENT_LINES {
        return Err(StatementError::TooManyLines);
    }
    Ok(ParsedStatement {
        format,
        lines,
        facts,
    })
}

/// An amount as a bank writes it: optional sign or parentheses (negative), currency
/// symbols and spaces dropped, thousands separators dropped, `decimal` as the separator.
fn read_amount(text: &str, decimal: char, decimals: u32) -> Result<i64, String> {
    let mut text = text.trim().to_owned();
    let mut negative = false;
    if text.starts_with('(') && text.ends_with(')') && text.len() >= 2 {
        negative = true;
        text = text[1..text.len() - 1].to_owned();
    }
    let thousands = if decimal == ',' { '.' } else { ',' };
    let cleaned: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != thousands && !"$€£¥".contains(*c))
        .map(|c| if c == decimal { '.' } else { c })
        .collect();
    if cleaned.is_empty() {
        return Err("has no amount".to_owned());
    }
    let units = parse_units(&cleaned, decimals).map_err(|e| match e {
        AmountError::TooManyDecimals(d) => {
            format!("amount '{text}' has more than {d} decimal places")
        }
        _ => format!("'{text}' is not an amount"),
    })?;
    Ok(if negative { -units } else { units })
}

#[cfg(test)]
mod tests;
