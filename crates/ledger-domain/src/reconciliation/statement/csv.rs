//! CSV statements: RFC 4180 records (a quoted field may span lines), the mapping's
//! columns found in the header or by number, and each record read into a
//! [`ParsedLine`]. Every refusal names the 1-based line at fault.

use super::{Column, CsvMapping, MAX_STATEMENT_LINES, ParsedLine, StatementError, read_amount};

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

/// The lines of a CSV statement read through `mapping`.
pub(super) fn parse_csv(
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
    let columns = columns(mapping, header.as_deref())?;
    let mut lines = Vec::new();
    for (line, text) in rows {
        if lines.len() > MAX_STATEMENT_LINES {
            return Err(StatementError::TooManyLines);
        }
        lines.push(csv_line(line, &text, mapping, columns, decimals)?);
    }
    Ok(lines)
}

/// The mapped columns of a CSV statement, as 0-based indexes into a record.
#[derive(Clone, Copy)]
struct Columns {
    date: usize,
    amount: AmountColumns,
    description: Option<usize>,
    reference: Option<usize>,
}

/// Where the columns of `mapping` are: by number, or by name in `header`.
fn columns(mapping: &CsvMapping, header: Option<&[String]>) -> Result<Columns, StatementError> {
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
    Ok(Columns {
        date,
        amount,
        description,
        reference,
    })
}

/// The record `text` (starting on 1-based `line`) read through the mapping.
fn csv_line(
    line: usize,
    text: &str,
    mapping: &CsvMapping,
    columns: Columns,
    decimals: u32,
) -> Result<ParsedLine, StatementError> {
    let fields = split_record(text, mapping.delimiter)
        .map_err(|message| StatementError::Line { line, message })?;
    let at = |i: usize| fields.get(i).map(|f| f.trim()).unwrap_or("");
    let bad = |message: String| StatementError::Line { line, message };
    let date_text = at(columns.date);
    let date = mapping
        .date_format
        .read(date_text)
        .ok_or_else(|| bad(format!("'{date_text}' is not a date in the mapped format")))?;
    let amount = match columns.amount {
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
    Ok(ParsedLine {
        date,
        amount,
        description: columns.description.map(at).unwrap_or("").to_owned(),
        reference: columns
            .reference
            .map(at)
            .filter(|r| !r.is_empty())
            .map(str::to_owned),
    })
}

#[derive(Clone, Copy)]
enum AmountColumns {
    Signed(usize),
    Split {
        debit: Option<usize>,
        credit: Option<usize>,
    },
}
