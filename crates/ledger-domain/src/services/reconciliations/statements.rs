//! Bank statements: reading a CSV or OFX file as its client says it is to be read,
//! importing its lines into an open reconciliation (skipping those imported already), and
//! listing them with their matches and proposals.

use serde_json::Value;
use time::{Date, OffsetDateTime};

use crate::error::{DomainError, DomainResult, ErrorCode};
use crate::ids::{IdKind, new_id};
use crate::money::Currency;
use crate::ports::{Store, Written};
use crate::reconciliation::statement::{
    Column, CsvMapping, DateFormat, ParsedLine, ParsedStatement, StatementError, StatementFormat,
    parse, sniff,
};
use crate::reconciliation::{Reconciliation, StatementLine};
use crate::views;

use crate::services::{Access, Ledger, WriteOptions};

use super::{StatementImportInput, StatementMappingInput, check_open};

/// The mapping to read a CSV statement with.
fn mapping_of(input: Option<StatementMappingInput>) -> DomainResult<CsvMapping> {
    let Some(m) = input else {
        return Ok(CsvMapping::default());
    };
    let one_char = |text: Option<String>, field: &str, default: char| -> DomainResult<char> {
        match text {
            None => Ok(default),
            Some(t) => {
                let mut chars = t.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) if c != '"' && c != '\n' && c != '\r' => Ok(c),
                    _ => Err(DomainError::invalid_field(
                        format!("mapping.{field}"),
                        "must be one character (not a quote or a line break)",
                    )),
                }
            }
        }
    };
    let date_format = match m.date_format.as_deref() {
        None => DateFormat::Iso,
        Some(text) => DateFormat::parse(text).ok_or_else(|| {
            DomainError::invalid_field(
                "mapping.date_format",
                "must be one of YYYY-MM-DD, MM/DD/YYYY, DD/MM/YYYY, DD.MM.YYYY, YYYYMMDD",
            )
        })?,
    };
    let decimal_separator = one_char(m.decimal_separator, "decimal_separator", '.')?;
    if decimal_separator != '.' && decimal_separator != ',' {
        return Err(DomainError::invalid_field(
            "mapping.decimal_separator",
            "must be '.' or ','",
        ));
    }
    let split = m.debit.is_some() || m.credit.is_some();
    Ok(CsvMapping {
        date: m.date.unwrap_or_else(|| Column::Name("date".into())),
        amount: match m.amount {
            Some(c) => Some(c),
            None if split => None,
            None => Some(Column::Name("amount".into())),
        },
        debit: m.debit,
        credit: m.credit,
        description: m.description,
        reference: m.reference,
        date_format,
        has_header: m.has_header.unwrap_or(true),
        delimiter: one_char(m.delimiter, "delimiter", ',')?,
        decimal_separator,
    })
}

/// A statement its format and mapping cannot read: the request is well formed (any text
/// is a `content`), but the file inside does not agree with how it is to be read, so it
/// is 422 `inconsistent_fields` on the member at fault, like other rules across members.
fn statement_error(e: StatementError) -> DomainError {
    match e {
        StatementError::Mapping(message) => DomainError::inconsistent("mapping", message),
        other => DomainError::inconsistent("content", other.to_string()),
    }
}

impl<S: Store> Ledger<S> {
    /// The statement lines of a reconciliation with their matches and proposals.
    ///
    /// # Errors
    /// `resource_not_found`.
    pub async fn list_statement_lines(
        &self,
        access: &Access,
        id: &str,
    ) -> DomainResult<Vec<Value>> {
        let r = self.get_reconciliation(access, id).await?;
        let lines = self.store.statement_lines(&access.tenant, &r.id).await?;
        self.line_views(&access.tenant, &r, &lines).await
    }

    /// Imports a bank statement into an open reconciliation (synchronous write, one
    /// credit): its lines are added, except those imported already (the same bank
    /// reference, or for lines without one the same date, amount and description), and
    /// each unmatched line gets a proposed match.
    ///
    /// # Errors
    /// `resource_not_found`, `reconciliation_not_open`, `invalid_field` on `format`,
    /// `mapping...` or `content` (what cannot be read, and where), `currency_mismatch`
    /// (an OFX statement in another currency than the account), `insufficient_credits`.
    pub(crate) async fn import_statement(
        &self,
        access: &Access,
        id: &str,
        input: StatementImportInput,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let before = self.get_reconciliation(access, id).await?;
        check_open(&before)?;
        let parsed = read_statement(input, &before)?;
        let existing = self
            .store
            .statement_lines(&access.tenant, &before.id)
            .await?;
        let now = self.now();
        let (lines, skipped) = fresh_lines(&before, &existing, parsed.lines, now);
        let views_of_new = self.line_views(&access.tenant, &before, &lines).await?;
        let answer = views::json(&views::StatementImportView::of(
            &before.id,
            parsed.format,
            skipped,
            &views_of_new,
        ));
        let mut record = before.clone();
        record.updated_at = now;
        self.save(
            access,
            before,
            record,
            Vec::new(),
            Vec::new(),
            lines,
            "reconciliation.statement_imported",
            options,
            Some(answer),
        )
        .await
    }
}

/// The statement of an import, read in its format (given, or sniffed from the content)
/// with its mapping; an OFX statement must be in the reconciliation's currency.
fn read_statement(
    input: StatementImportInput,
    before: &Reconciliation,
) -> DomainResult<ParsedStatement> {
    if input.content.trim().is_empty() {
        return Err(DomainError::missing_field("content"));
    }
    let format = match input.format.as_deref() {
        None => sniff(&input.content),
        Some(text) => StatementFormat::parse(text)
            .ok_or_else(|| DomainError::invalid_field("format", "must be 'csv', 'ofx' or 'qfx'"))?,
    };
    let mapping = mapping_of(input.mapping)?;
    let parsed = parse(
        &input.content,
        format,
        &mapping,
        views::decimals_of(&before.currency),
    )
    .map_err(statement_error)?;
    if let Some(currency) = &parsed.facts.currency
        && Currency::from_code(currency).map(|c| c.code()).as_deref()
            != Some(before.currency.as_str())
    {
        return Err(DomainError::rule(
            ErrorCode::CurrencyMismatch,
            format!(
                "the statement is in {currency}, the account in {}",
                before.currency
            ),
        ));
    }
    Ok(parsed)
}

/// The statement lines of `parsed` that are not among the reconciliation's `existing`
/// lines (the same bank reference, or for lines without one the same date, amount and
/// description; each existing line stands for one parsed line), numbered on from them,
/// and how many were skipped.
fn fresh_lines(
    before: &Reconciliation,
    existing: &[StatementLine],
    parsed: Vec<ParsedLine>,
    now: OffsetDateTime,
) -> (Vec<StatementLine>, usize) {
    let key = |date: Date, amount: i64, description: &str, reference: Option<&str>| match reference
    {
        Some(r) => format!("ref:{r}"),
        None => format!("{date}|{amount}|{description}"),
    };
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for l in existing {
        *seen
            .entry(key(
                l.date,
                l.amount,
                &l.description,
                l.reference.as_deref(),
            ))
            .or_default() += 1;
    }
    let mut next = existing.iter().map(|l| l.line_number).max().unwrap_or(0);
    let mut lines = Vec::new();
    let mut skipped = 0;
    for p in parsed {
        let k = key(p.date, p.amount, &p.description, p.reference.as_deref());
        if let Some(count) = seen.get_mut(&k)
            && *count > 0
        {
            *count -= 1;
            skipped += 1;
            continue;
        }
        next += 1;
        lines.push(StatementLine {
            id: new_id(IdKind::StatementLine),
            organization_id: before.organization_id.clone(),
            livemode: before.livemode,
            reconciliation_id: before.id.clone(),
            line_number: next,
            date: p.date,
            amount: p.amount,
            description: p.description.chars().take(1000).collect(),
            reference: p.reference.map(|r| r.chars().take(255).collect()),
            created_at: now,
        });
    }
    (lines, skipped)
}
