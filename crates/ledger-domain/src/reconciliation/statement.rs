//! Bank statements as files: CSV with a column mapping, and OFX/QFX (SGML-style OFX 1.x
//! and XML OFX 2.x), parsed here without I/O into [`ParsedLine`]s.
//!
//! Amounts keep the bank's sign: positive is money into the account (a debit to the
//! ledger account the statement reconciles), negative money out. They are parsed from
//! their text into stored units (no float), refusing more decimals than the account's
//! currency allows. Every refusal is a [`StatementError`] naming the line at fault;
//! nothing here panics on any input.

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
            parse_csv(content, mapping, decimals)?,
            StatementFacts::default(),
        ),
        StatementFormat::Ofx => parse_ofx(content, decimals)?,
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

/// The fields of one CSV record (RFC 4180 quoting: `"a ""b"""`), or why not.
fn split_record(record: &str, delimiter: char) -> Result<Vec<String>, String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut chars = record.chars().peekable();
    let mut quoted = false;
    let mut at_start = true;
    while let Some(c) = chars.next() {
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    field.push('"');
                    chars.next();
                } else {
                    quoted = false;
                }
            } else {
                field.push(c);
            }
        } else if c == '"' && at_start {
            quoted = true;
            at_start = false;
        } else if c == delimiter {
            fields.push(std::mem::take(&mut field));
            at_start = true;
        } else {
            field.push(c);
            at_start = false;
        }
    }
    if quoted {
        return Err("a quoted field is not closed".to_owned());
    }
    fields.push(field);
    Ok(fields)
}

/// The records of a CSV text with their 1-based line numbers; a quoted field may span
/// lines.
fn records(content: &str) -> Result<Vec<(usize, String)>, StatementError> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut start = 0;
    let mut open_quotes = false;
    for (i, line) in content.lines().enumerate() {
        if !open_quotes {
            start = i + 1;
            current.clear();
        } else {
            current.push('\n');
        }
        current.push_str(line.trim_end_matches('\r'));
        open_quotes = current.chars().filter(|c| *c == '"').count() % 2 == 1;
        if !open_quotes && !current.trim().is_empty() {
            out.push((start, current.clone()));
        }
    }
    if open_quotes {
        return Err(StatementError::Line {
            line: start,
            message: "a quoted field is not closed".to_owned(),
        });
    }
    Ok(out)
}

fn column_index(column: &Column, header: Option<&[String]>) -> Result<usize, StatementError> {
    match column {
        Column::Number(n) if *n >= 1 => Ok(n - 1),
        Column::Number(_) => Err(StatementError::Mapping(
            "column numbers start at 1".to_owned(),
        )),
        Column::Name(name) => {
            let Some(header) = header else {
                return Err(StatementError::Mapping(format!(
                    "column '{name}' is named, but the file has no header row; give column numbers"
                )));
            };
            header
                .iter()
                .position(|h| h.trim().eq_ignore_ascii_case(name.trim()))
                .ok_or_else(|| {
                    StatementError::Mapping(format!(
                        "the header has no column '{name}' (it has: {})",
                        header.join(", ")
                    ))
                })
        }
    }
}

fn parse_csv(
    content: &str,
    mapping: &CsvMapping,
    decimals: u32,
) -> Result<Vec<ParsedLine>, StatementError> {
    let records = records(content)?;
    let mut rows = records.into_iter();
    let header = if mapping.has_header {
        let (line, text) = rows.next().ok_or(StatementError::Empty)?;
        Some(
            split_record(&text, mapping.delimiter)
                .map_err(|message| StatementError::Line { line, message })?,
        )
    } else {
        None
    };
    let header = header.as_deref();
    let date = column_index(&mapping.date, header)?;
    let amount = match (&mapping.amount, &mapping.debit, &mapping.credit) {
        (Some(amount), None, None) => AmountColumns::Signed(column_index(amount, header)?),
        (None, debit, credit) if debit.is_some() || credit.is_some() => AmountColumns::Split {
            debit: debit
                .as_ref()
                .map(|c| column_index(c, header))
                .transpose()?,
            credit: credit
                .as_ref()
                .map(|c| column_index(c, header))
                .transpose()?,
        },
        _ => {
            return Err(StatementError::Mapping(
                "map either an amount column, or debit and/or credit columns, not both".to_owned(),
            ));
        }
    };
    let description = mapping
        .description
        .as_ref()
        .map(|c| column_index(c, header))
        .transpose()?;
    let reference = mapping
        .reference
        .as_ref()
        .map(|c| column_index(c, header))
        .transpose()?;
    let mut lines = Vec::new();
    for (line, text) in rows {
        if lines.len() > MAX_STATEMENT_LINES {
            return Err(StatementError::TooManyLines);
        }
        let fields = split_record(&text, mapping.delimiter)
            .map_err(|message| StatementError::Line { line, message })?;
        let at = |i: usize| fields.get(i).map(|f| f.trim()).unwrap_or("");
        let bad = |message: String| StatementError::Line { line, message };
        let date_text = at(date);
        let date = mapping
            .date_format
            .read(date_text)
            .ok_or_else(|| bad(format!("'{date_text}' is not a date in the mapped format")))?;
        let amount = match amount {
            AmountColumns::Signed(i) => {
                read_amount(at(i), mapping.decimal_separator, decimals).map_err(bad)?
            }
            AmountColumns::Split { debit, credit } => {
                let side = |i: Option<usize>| -> Result<i64, StatementError> {
                    match i.map(at).filter(|t| !t.is_empty()) {
                        None => Ok(0),
                        Some(t) => read_amount(t, mapping.decimal_separator, decimals)
                            .map(i64::abs)
                            .map_err(|m| StatementError::Line { line, message: m }),
                    }
                };
                side(credit)?
                    .checked_sub(side(debit)?)
                    .ok_or_else(|| bad("the amount is too large".to_owned()))?
            }
        };
        lines.push(ParsedLine {
            date,
            amount,
            description: description.map(at).unwrap_or("").to_owned(),
            reference: reference
                .map(at)
                .filter(|r| !r.is_empty())
                .map(str::to_owned),
        });
    }
    Ok(lines)
}

#[derive(Clone, Copy)]
enum AmountColumns {
    Signed(usize),
    Split {
        debit: Option<usize>,
        credit: Option<usize>,
    },
}

/// One token of an OFX body: a start tag, an end tag, or the text after a tag.
#[derive(Debug)]
enum Token<'a> {
    Start(String),
    End(String),
    Text(&'a str),
}

/// The tags and texts of an OFX body (from `<OFX>` on). Processing instructions and
/// comments are skipped; SGML leaves without end tags read the same as XML leaves.
fn tokens(body: &str) -> Result<Vec<Token<'_>>, StatementError> {
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(open) = rest.find('<') {
        let text = rest[..open].trim();
        if !text.is_empty() {
            out.push(Token::Text(text));
        }
        rest = &rest[open..];
        if rest.starts_with("<!--") {
            let end = rest
                .find("-->")
                .ok_or_else(|| StatementError::Ofx("a comment is not closed".into()))?;
            rest = &rest[end + 3..];
            continue;
        }
        let close = rest
            .find('>')
            .ok_or_else(|| StatementError::Ofx("a tag is not closed".into()))?;
        let tag = &rest[1..close];
        rest = &rest[close + 1..];
        if tag.starts_with('?') || tag.starts_with('!') {
            continue;
        }
        let self_closing = tag.ends_with('/');
        let name = tag
            .trim_end_matches('/')
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_uppercase();
        if let Some(end) = name.strip_prefix('/') {
            out.push(Token::End(end.to_owned()));
        } else if !name.is_empty() {
            out.push(Token::Start(name.clone()));
            if self_closing {
                out.push(Token::End(name));
            }
        }
    }
    let text = rest.trim();
    if !text.is_empty() {
        out.push(Token::Text(text));
    }
    Ok(out)
}

/// XML and SGML character entities OFX files use.
fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&")
}

fn parse_ofx(
    content: &str,
    decimals: u32,
) -> Result<(Vec<ParsedLine>, StatementFacts), StatementError> {
    let upper = content.to_ascii_uppercase();
    let start = upper
        .find("<OFX>")
        .or_else(|| upper.find("<OFX "))
        .ok_or_else(|| StatementError::Ofx("no <OFX> element".into()))?;
    let tokens = tokens(&content[start..])?;
    let mut facts = StatementFacts::default();
    let mut lines = Vec::new();
    // The leaves of the STMTTRN being read (tag, text), and its ordinal.
    let mut current: Option<Vec<(String, String)>> = None;
    let mut ordinal = 0;
    let mut last_tag = String::new();
    for token in tokens {
        match token {
            Token::Start(name) => {
                if name == "STMTTRN" {
                    if current.is_some() {
                        return Err(StatementError::Ofx(format!(
                            "transaction {ordinal} is not closed before the next one"
                        )));
                    }
                    ordinal += 1;
                    current = Some(Vec::new());
                }
                last_tag = name;
            }
            Token::End(name) => {
                if name == "STMTTRN" {
                    let leaves = current.take().ok_or_else(|| {
                        StatementError::Ofx("</STMTTRN> without a transaction".into())
                    })?;
                    if lines.len() >= MAX_STATEMENT_LINES {
                        return Err(StatementError::TooManyLines);
                    }
                    lines.push(ofx_line(&leaves, ordinal, decimals)?);
                }
                last_tag.clear();
            }
            Token::Text(text) => {
                if last_tag.is_empty() {
                    continue;
                }
                let value = unescape(text);
                match &mut current {
                    Some(leaves) => leaves.push((last_tag.clone(), value)),
                    None if last_tag == "CURDEF" => {
                        facts.currency = Some(value.trim().to_ascii_uppercase());
                    }
                    None => {}
                }
                last_tag.clear();
            }
        }
    }
    if current.is_some() {
        return Err(StatementError::Ofx(format!(
            "transaction {ordinal} is not closed"
        )));
    }
    Ok((lines, facts))
}

/// One `STMTTRN` from its leaves: `DTPOSTED` and `TRNAMT` required, `FITID`, `NAME`,
/// `MEMO`, `CHECKNUM` optional.
fn ofx_line(
    leaves: &[(String, String)],
    ordinal: usize,
    decimals: u32,
) -> Result<ParsedLine, StatementError> {
    let get = |tag: &str| {
        leaves
            .iter()
            .find(|(t, _)| t == tag)
            .map(|(_, v)| v.trim())
            .filter(|v| !v.is_empty())
    };
    let bad = |message: String| StatementError::Ofx(format!("transaction {ordinal}: {message}"));
    let posted = get("DTPOSTED").ok_or_else(|| bad("DTPOSTED is missing".into()))?;
    let date =
        compact_date(posted).ok_or_else(|| bad(format!("DTPOSTED '{posted}' is not a date")))?;
    let amount_text = get("TRNAMT").ok_or_else(|| bad("TRNAMT is missing".into()))?;
    // Some banks write a decimal comma.
    let decimal = if amount_text.contains(',') && !amount_text.contains('.') {
        ','
    } else {
        '.'
    };
    let amount =
        read_amount(amount_text, decimal, decimals).map_err(|m| bad(format!("TRNAMT {m}")))?;
    let name = get("NAME").or_else(|| get("PAYEE"));
    let memo = get("MEMO");
    let description = match (name, memo) {
        (Some(n), Some(m)) if !n.eq_ignore_ascii_case(m) => format!("{n} {m}"),
        (Some(n), _) => n.to_owned(),
        (None, Some(m)) => m.to_owned(),
        (None, None) => String::new(),
    };
    let reference = get("FITID")
        .or_else(|| get("CHECKNUM"))
        .or_else(|| get("REFNUM"))
        .map(str::to_owned);
    Ok(ParsedLine {
        date,
        amount,
        description,
        reference,
    })
}

#[cfg(test)]
mod tests {
    use time::macros::date;

    use super::*;

    const OFX_SGML: &str = "OFXHEADER:100\r\nDATA:OFXSGML\r\nVERSION:102\r\nSECURITY:NONE\r\nENCODING:USASCII\r\nCHARSET:1252\r\nCOMPRESSION:NONE\r\nOLDFILEUID:NONE\r\nNEWFILEUID:NONE\r\n\r\n<OFX>\r\n<SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS><DTSERVER>20260201120000<LANGUAGE>ENG</SONRS></SIGNONMSGSRSV1>\r\n<BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STATUS><CODE>0<SEVERITY>INFO</STATUS>\r\n<STMTRS><CURDEF>USD<BANKACCTFROM><BANKID>121000248<ACCTID>000123456<ACCTTYPE>CHECKING</BANKACCTFROM>\r\n<BANKTRANLIST><DTSTART>20260101<DTEND>20260131\r\n<STMTTRN><TRNTYPE>CREDIT<DTPOSTED>20260105120000.000[-5:EST]<TRNAMT>1500.00<FITID>2026010501<NAME>ACME PAYROLL<MEMO>Salary January</STMTTRN>\r\n<STMTTRN><TRNTYPE>CHECK<DTPOSTED>20260112<TRNAMT>-75.5<FITID>2026011202<CHECKNUM>1001<NAME>City Water &amp; Power</STMTTRN>\r\n</BANKTRANLIST><LEDGERBAL><BALAMT>1424.50<DTASOF>20260131</LEDGERBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\r\n";

    const OFX_XML: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<?OFX OFXHEADER="200" VERSION="220" SECURITY="NONE" OLDFILEUID="NONE" NEWFILEUID="NONE"?>
<OFX>
  <BANKMSGSRSV1><STMTTRNRS><STMTRS>
    <CURDEF>EUR</CURDEF>
    <BANKTRANLIST>
      <STMTTRN>
        <TRNTYPE>DEBIT</TRNTYPE>
        <DTPOSTED>20260203</DTPOSTED>
        <TRNAMT>-12,40</TRNAMT>
        <FITID>A-1</FITID>
        <NAME>Café Central</NAME>
        <MEMO>Card 1234</MEMO>
      </STMTTRN>
      <STMTTRN>
        <TRNTYPE>CREDIT</TRNTYPE>
        <DTPOSTED>20260204100000</DTPOSTED>
        <TRNAMT>250.00</TRNAMT>
        <FITID>A-2</FITID>
        <MEMO>Refund</MEMO>
      </STMTTRN>
    </BANKTRANLIST>
  </STMTRS></STMTTRNRS></BANKMSGSRSV1>
</OFX>"#;

    fn ofx(content: &str) -> Result<ParsedStatement, StatementError> {
        parse(content, sniff(content), &CsvMapping::default(), 2)
    }

    #[test]
    fn sniffs_ofx_and_csv() {
        assert_eq!(sniff(OFX_SGML), StatementFormat::Ofx);
        assert_eq!(sniff(&format!("\u{feff}  {OFX_XML}")), StatementFormat::Ofx);
        assert_eq!(sniff("<OFX><STMTTRN>"), StatementFormat::Ofx);
        assert_eq!(sniff("date,amount\n2026-01-01,1"), StatementFormat::Csv);
        assert_eq!(
            sniff("<?xml version=\"1.0\"?><html/>"),
            StatementFormat::Csv
        );
    }

    #[test]
    fn reads_sgml_ofx() {
        let s = ofx(OFX_SGML).expect("parses");
        assert_eq!(s.format, StatementFormat::Ofx);
        assert_eq!(s.facts.currency.as_deref(), Some("USD"));
        assert_eq!(
            s.lines,
            vec![
                ParsedLine {
                    date: date!(2026 - 01 - 05),
                    amount: 15_000_000,
                    description: "ACME PAYROLL Salary January".into(),
                    reference: Some("2026010501".into()),
                },
                ParsedLine {
                    date: date!(2026 - 01 - 12),
                    amount: -755_000,
                    description: "City Water & Power".into(),
                    reference: Some("2026011202".into()),
                },
            ]
        );
    }

    #[test]
    fn reads_xml_ofx() {
        let s = ofx(OFX_XML).expect("parses");
        assert_eq!(s.facts.currency.as_deref(), Some("EUR"));
        assert_eq!(s.lines.len(), 2);
        assert_eq!(s.lines[0].amount, -124_000);
        assert_eq!(s.lines[0].description, "Café Central Card 1234");
        assert_eq!(s.lines[1].date, date!(2026 - 02 - 04));
        assert_eq!(s.lines[1].description, "Refund");
        assert_eq!(s.lines[1].reference.as_deref(), Some("A-2"));
    }

    #[test]
    fn malformed_ofx_is_refused_with_a_reason() {
        let cases = [
            "OFXHEADER:100\n\n<OFX><STMTTRN><DTPOSTED>20260101<TRNAMT>1.00",
            "OFXHEADER:100\n\n<OFX><STMTTRN><TRNAMT>1.00</STMTTRN></OFX>",
            "OFXHEADER:100\n\n<OFX><STMTTRN><DTPOSTED>2026XX01<TRNAMT>1.00</STMTTRN></OFX>",
            "OFXHEADER:100\n\n<OFX><STMTTRN><DTPOSTED>20260101<TRNAMT>ten</STMTTRN></OFX>",
            "OFXHEADER:100\n\n<OFX><STMTTRN><DTPOSTED>20260101<TRNAMT>1.001</STMTTRN></OFX>",
            "OFXHEADER:100\n\n<OFX><STMTTRN><DTPOSTED>20261301<TRNAMT>1</STMTTRN></OFX>",
            "OFXHEADER:100\n\n<OFX></STMTTRN></OFX>",
            "OFXHEADER:100\n\n<OFX><STMTTRN <DTPOSTED",
            "OFXHEADER:100\n\nno body at all",
            "OFXHEADER:100\n\n<OFX><BANKTRANLIST></BANKTRANLIST></OFX>",
        ];
        for case in cases {
            assert!(ofx(case).is_err(), "{case}");
        }
        assert_eq!(
            ofx("<OFX></OFX>").expect_err("empty"),
            StatementError::NoTransactions
        );
    }

    #[test]
    fn reads_csv_with_a_signed_amount_column() {
        let csv = "Date,Amount,Description,Ref\n2026-01-05,1500.00,\"ACME, Inc payroll\",P-1\n2026-01-12,-75.50,Water,\n";
        let mapping = CsvMapping {
            reference: Some(Column::Name("ref".into())),
            ..CsvMapping::default()
        };
        let s = parse(csv, StatementFormat::Csv, &mapping, 2).expect("parses");
        assert_eq!(s.lines.len(), 2);
        assert_eq!(s.lines[0].description, "ACME, Inc payroll");
        assert_eq!(s.lines[0].reference.as_deref(), Some("P-1"));
        assert_eq!(s.lines[1].amount, -755_000);
        assert_eq!(s.lines[1].reference, None);
    }

    #[test]
    fn reads_csv_with_debit_and_credit_columns_by_number() {
        let csv = "31.01.2026;Miete;1.200,00;\r\n01.02.2026;Zins;;0,35\r\n02.02.2026;\"Quote \"\"x\"\"\";(3,00);\r\n";
        let mapping = CsvMapping {
            date: Column::Number(1),
            amount: None,
            debit: Some(Column::Number(3)),
            credit: Some(Column::Number(4)),
            description: Some(Column::Number(2)),
            reference: None,
            date_format: DateFormat::DayMonthYearDots,
            has_header: false,
            delimiter: ';',
            decimal_separator: ',',
        };
        let s = parse(csv, StatementFormat::Csv, &mapping, 2).expect("parses");
        let amounts: Vec<i64> = s.lines.iter().map(|l| l.amount).collect();
        assert_eq!(amounts, vec![-12_000_000, 3_500, -30_000]);
        assert_eq!(s.lines[2].description, "Quote \"x\"");
        assert_eq!(s.lines[0].date, date!(2026 - 01 - 31));
    }

    #[test]
    fn date_formats() {
        assert_eq!(
            DateFormat::MonthDayYear.read("01/31/2026"),
            Some(date!(2026 - 01 - 31))
        );
        assert_eq!(
            DateFormat::DayMonthYear.read("31/01/2026"),
            Some(date!(2026 - 01 - 31))
        );
        assert_eq!(
            DateFormat::Compact.read("20260131"),
            Some(date!(2026 - 01 - 31))
        );
        assert_eq!(DateFormat::Iso.read("2026-02-30"), None);
        assert_eq!(DateFormat::Iso.read("26-01-31"), None);
        assert_eq!(DateFormat::MonthDayYear.read("31/01/2026"), None);
        assert_eq!(
            DateFormat::parse("mm/dd/yyyy"),
            Some(DateFormat::MonthDayYear)
        );
        assert_eq!(DateFormat::parse("%Y"), None);
    }

    #[test]
    fn malformed_csv_is_refused_with_its_line() {
        let mapping = CsvMapping::default();
        let bad_date = "date,amount,description\n2026-01-01,1.00,ok\n01/02/2026,2.00,x\n";
        assert_eq!(
            parse(bad_date, StatementFormat::Csv, &mapping, 2).expect_err("date"),
            StatementError::Line {
                line: 3,
                message: "'01/02/2026' is not a date in the mapped format".into()
            }
        );
        let bad_amount = "date,amount,description\n2026-01-01,abc,x\n";
        assert!(matches!(
            parse(bad_amount, StatementFormat::Csv, &mapping, 2),
            Err(StatementError::Line { line: 2, .. })
        ));
        let unclosed = "date,amount,description\n2026-01-01,1.00,\"open\n";
        assert!(parse(unclosed, StatementFormat::Csv, &mapping, 2).is_err());
        let no_column = "when,amount\n2026-01-01,1.00\n";
        assert!(matches!(
            parse(no_column, StatementFormat::Csv, &mapping, 2),
            Err(StatementError::Mapping(_))
        ));
        let header_only = "date,amount,description\n";
        assert_eq!(
            parse(header_only, StatementFormat::Csv, &mapping, 2).expect_err("empty"),
            StatementError::NoTransactions
        );
        assert_eq!(
            parse("  \n", StatementFormat::Csv, &mapping, 2).expect_err("empty"),
            StatementError::Empty
        );
        let both = CsvMapping {
            debit: Some(Column::Number(2)),
            ..CsvMapping::default()
        };
        assert!(parse(bad_date, StatementFormat::Csv, &both, 2).is_err());
        let zero = CsvMapping {
            date: Column::Number(0),
            ..CsvMapping::default()
        };
        assert!(parse(bad_date, StatementFormat::Csv, &zero, 2).is_err());
    }

    #[test]
    fn arbitrary_text_never_panics() {
        let samples = [
            "<",
            ">",
            "<<<>>>",
            "<OFX>",
            "<OFX><STMTTRN>",
            "\"",
            "\"\"\"",
            ",,,\n,,,",
            "é,ü\n\u{0}",
            "<OFX><STMTTRN><DTPOSTED>2026<TRNAMT>-</STMTTRN>",
        ];
        for s in samples {
            let _ = parse(s, sniff(s), &CsvMapping::default(), 2);
            let _ = parse(s, StatementFormat::Ofx, &CsvMapping::default(), 0);
        }
    }
}
