//! Bank reconciliation (spec 2.9, 4.11; DECISIONS 7): create, read, list, change and
//! delete a reconciliation while it is open, match and unmatch posted journal entries,
//! import a bank statement (CSV or OFX) with proposed matches, accept a proposal, book an
//! unmatched statement line as a new transaction, and complete a reconciliation whose
//! difference is zero, which locks the transactions of its entries.
//!
//! Every write is synchronous and costs [`super::WRITE_CREDITS`] through the one write
//! pipeline; reads are free. The rules are in [`crate::reconciliation`].

use serde_json::{Value, json};
use time::{Date, Time};

use crate::accounts::{AccountType, EntryType};
use crate::error::{DomainError, DomainResult, ErrorCode, Resource};
use crate::ids::{IdKind, new_id, parse_id};
use crate::money::{Currency, format_units, parse_units};
use crate::ports::{EntryFilter, Page, PageRequest, ReconciliationFilter, Store, Tenant, Written};
use crate::reconciliation::matcher::{DATE_WINDOW_DAYS, Proposal, propose};
use crate::reconciliation::statement::{
    Column, CsvMapping, DateFormat, StatementError, StatementFormat, parse, sniff,
};
use crate::reconciliation::{
    JournalEntry, ReconciledEntry, Reconciliation, ReconciliationChange, ReconciliationStatus,
    StatementLine,
};
use crate::views;

use super::accounts::not_found;
use super::{Access, EntryInput, Ledger, NewTransactionInput, WriteOptions, with_result};

/// A new reconciliation as a client gave it.
#[derive(Debug, Clone, Default)]
pub struct NewReconciliationInput {
    pub account_id: String,
    /// `YYYY-MM-DD`.
    pub start_date: String,
    pub end_date: String,
    /// The statement's closing balance, decimal text, in the account type's normal
    /// direction.
    pub closing_balance: String,
}

/// Changes to an open reconciliation; `None` and empty lists keep what is there.
#[derive(Debug, Clone, Default)]
pub struct ReconciliationChanges {
    pub start_date: Option<String>,
    pub end_date: Option<String>,
    pub closing_balance: Option<String>,
    /// Journal entries (`ent_...`) of the account to mark cleared.
    pub match_entry_ids: Vec<String>,
    /// Matched entries to clear again.
    pub unmatch_entry_ids: Vec<String>,
}

/// How a CSV statement is read, as a client gave it (every member optional).
#[derive(Debug, Clone, Default)]
pub struct StatementMappingInput {
    pub date: Option<Column>,
    pub amount: Option<Column>,
    pub debit: Option<Column>,
    pub credit: Option<Column>,
    pub description: Option<Column>,
    pub reference: Option<Column>,
    pub date_format: Option<String>,
    pub has_header: Option<bool>,
    pub delimiter: Option<String>,
    pub decimal_separator: Option<String>,
}

/// A statement import.
#[derive(Debug, Clone, Default)]
pub struct StatementImportInput {
    /// The file's text.
    pub content: String,
    /// `csv`, `ofx` or `qfx`; sniffed from the content when absent.
    pub format: Option<String>,
    pub mapping: Option<StatementMappingInput>,
}

/// Booking an unmatched statement line as a new posted transaction.
#[derive(Debug, Clone, Default)]
pub struct StatementTransactionInput {
    /// The other side of the booking (an expense, revenue, ... account).
    pub counter_account_id: String,
    /// Defaults to the line's description.
    pub description: Option<String>,
}

fn check_date(text: &str, field: &str) -> DomainResult<Date> {
    let format = time::macros::format_description!("[year]-[month]-[day]");
    Date::parse(text.trim(), &format)
        .map_err(|_| DomainError::invalid_field(field, "must be a date (YYYY-MM-DD)"))
}

fn check_balance(text: &str, currency: &str) -> DomainResult<i64> {
    let decimals = views::decimals_of(currency);
    // The account's currency decides the places (400 past them, as for a transaction's
    // lines).
    parse_units(text, decimals).map_err(|e| e.refusal("closing_balance", currency))
}

/// An end before its start is invalid request data (400), not a business rule.
fn check_period(start: Date, end: Date) -> DomainResult<()> {
    if end < start {
        return Err(DomainError::invalid_field(
            "end_date",
            "must be on or after start_date",
        ));
    }
    Ok(())
}

fn check_open(r: &Reconciliation) -> DomainResult<()> {
    match r.status {
        ReconciliationStatus::Open => Ok(()),
        ReconciliationStatus::Completed => Err(crate::reconciliation::not_open(&r.id)),
    }
}

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

/// Midnight UTC of a day (a statement line's booking time).
fn midnight(date: Date) -> time::OffsetDateTime {
    date.with_time(Time::MIDNIGHT).assume_utc()
}

impl<S: Store> Ledger<S> {
    /// Reads a reconciliation of the tenant with its matches.
    ///
    /// # Errors
    /// `resource_not_found` when it does not exist in the tenant or is deleted.
    pub async fn get_reconciliation(
        &self,
        access: &Access,
        id: &str,
    ) -> DomainResult<Reconciliation> {
        let Some(parsed) = parse_id(IdKind::Reconciliation, id) else {
            return Err(not_found("reconciliation", id));
        };
        self.store
            .get_reconciliation(&access.tenant, &parsed)
            .await?
            .ok_or_else(|| not_found("reconciliation", id))
    }

    /// Lists the tenant's reconciliations, latest end date first, optionally of one
    /// account or status.
    ///
    /// # Errors
    /// `invalid_field` on `account_id` or `status`.
    pub async fn list_reconciliations(
        &self,
        access: &Access,
        account_id: Option<&str>,
        status: Option<&str>,
        page: PageRequest,
    ) -> DomainResult<Page<Reconciliation>> {
        let filter = ReconciliationFilter {
            account_id: account_id
                .map(|a| {
                    crate::ids::parse_reference(IdKind::Account, Resource::Account, "account_id", a)
                })
                .transpose()?,
            status: status
                .map(|s| {
                    ReconciliationStatus::parse(s).ok_or_else(|| {
                        DomainError::invalid_field("status", "must be 'open' or 'completed'")
                    })
                })
                .transpose()?,
        };
        // A filter naming an account of no one's books here is refused, not answered
        // with an empty page (the same words as a body reference).
        if let Some(account_id) = &filter.account_id
            && self
                .store
                .get_account(&access.tenant, account_id)
                .await?
                .is_none()
        {
            return Err(DomainError::reference_not_found(
                "account_id",
                Resource::Account,
                account_id,
            ));
        }
        Ok(self
            .store
            .list_reconciliations(&access.tenant, &filter, page)
            .await?)
    }

    /// Refuses to change a transaction whose entries a completed reconciliation matched.
    ///
    /// # Errors
    /// `transaction_reconciled`; storage failures.
    pub(crate) async fn check_not_reconciled(
        &self,
        tenant: &Tenant,
        transaction_id: &str,
    ) -> DomainResult<()> {
        match self
            .store
            .reconciliation_locking(tenant, transaction_id)
            .await?
        {
            None => Ok(()),
            Some(reconciliation_id) => Err(DomainError::Reported {
                code: ErrorCode::TransactionReconciled,
                message: format!(
                    "transaction {transaction_id} is reconciled in completed reconciliation {reconciliation_id}; it can no longer be updated, reversed or deleted"
                ),
                details: Some(json!({ "reconciliation_id": reconciliation_id })),
            }),
        }
    }

    /// Creates an open reconciliation (synchronous write, one credit). Its opening
    /// balance is the closing balance of the account's latest completed reconciliation.
    ///
    /// # Errors
    /// Validation errors (`account_id`: not an asset or liability account of the tenant;
    /// dates; `closing_balance`), `reconciliation_in_progress`, `insufficient_credits`.
    pub(crate) async fn create_reconciliation(
        &self,
        access: &Access,
        input: NewReconciliationInput,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        if input.account_id.trim().is_empty() {
            return Err(DomainError::missing_field("account_id"));
        }
        let account_id = crate::ids::parse_reference(
            IdKind::Account,
            Resource::Account,
            "account_id",
            &input.account_id,
        )?;
        let account = self
            .store
            .get_account(&access.tenant, &account_id)
            .await?
            .ok_or_else(|| {
                DomainError::reference_not_found("account_id", Resource::Account, &account_id)
            })?;
        if !matches!(
            account.account_type,
            AccountType::Asset | AccountType::Liability
        ) {
            return Err(DomainError::reference_not_usable(
                "account_id",
                Resource::Account,
                &account.id,
                "must be an asset or liability account (a bank, cash or card account)",
            ));
        }
        let start_date = check_date(&input.start_date, "start_date")?;
        let end_date = check_date(&input.end_date, "end_date")?;
        check_period(start_date, end_date)?;
        let closing_balance = check_balance(&input.closing_balance, &account.currency)?;
        let previous = self
            .store
            .list_reconciliations(
                &access.tenant,
                &ReconciliationFilter {
                    account_id: Some(account.id.clone()),
                    status: Some(ReconciliationStatus::Completed),
                },
                PageRequest {
                    limit: 1,
                    offset: 0,
                },
            )
            .await?
            .items
            .into_iter()
            .next();
        if let Some(previous) = &previous
            && start_date <= previous.end_date
        {
            return Err(DomainError::inconsistent(
                "start_date",
                format!(
                    "must be after {}, the end of the account's last completed reconciliation",
                    views::date(previous.end_date)
                ),
            ));
        }
        let now = self.now();
        let record = Reconciliation {
            id: new_id(IdKind::Reconciliation),
            organization_id: access.tenant.organization_id.clone(),
            livemode: access.tenant.livemode,
            account_id: account.id.clone(),
            account_type: account.account_type,
            currency: account.currency.clone(),
            start_date,
            end_date,
            opening_balance: previous.map_or(0, |p| p.closing_balance),
            closing_balance,
            status: ReconciliationStatus::Open,
            completed_at: None,
            created_at: now,
            updated_at: now,
            matches: Vec::new(),
        };
        let view = views::reconciliation(&record);
        let event = self.event(
            access,
            "reconciliation.created",
            "reconciliation",
            &record.id,
            None,
            Some(view.clone()),
        );
        let written = self
            .store
            .insert_reconciliation(
                record,
                event,
                with_result(options.idempotency, &view),
                Some(self.charge(access, options.credits)),
            )
            .await?;
        Ok(written.map(|_| view))
    }

    /// The entries `ids` (field `field`) of the reconciliation's account that no other
    /// reconciliation matched, as matches; entries this one matched already are skipped.
    async fn entries_to_match(
        &self,
        access: &Access,
        r: &Reconciliation,
        ids: &[String],
        field: &str,
        line: Option<&StatementLine>,
    ) -> DomainResult<Vec<ReconciledEntry>> {
        let mut parsed = Vec::with_capacity(ids.len());
        for (i, id) in ids.iter().enumerate() {
            let name = if line.is_some() {
                field.to_owned()
            } else {
                format!("{field}[{i}]")
            };
            let id = crate::ids::parse_reference(IdKind::Entry, Resource::Entry, &name, id)?;
            parsed.push((name, id));
        }
        if parsed.is_empty() {
            return Ok(Vec::new());
        }
        let found = self
            .store
            .journal_entries(
                &access.tenant,
                &EntryFilter {
                    account_id: r.account_id.clone(),
                    entry_ids: Some(parsed.iter().map(|(_, id)| id.clone()).collect()),
                    ..EntryFilter::default()
                },
            )
            .await?;
        let now = self.now();
        let mut out: Vec<ReconciledEntry> = Vec::new();
        for (name, id) in parsed {
            let entry = found.iter().find(|e| e.entry_id == id).ok_or_else(|| {
                DomainError::reference_not_found_in(
                    name.clone(),
                    Resource::Entry,
                    &id,
                    format!(
                        "'{id}' is no entry of a posted transaction on account {}",
                        r.account_id
                    ),
                )
            })?;
            match &entry.reconciliation_id {
                Some(other) if other != &r.id => {
                    return Err(DomainError::Reported {
                        code: ErrorCode::EntryAlreadyMatched,
                        message: format!("entry {id} is already matched in reconciliation {other}"),
                        details: Some(json!({ "entry_id": id, "reconciliation_id": other })),
                    });
                }
                Some(_) if line.is_none() => continue,
                _ => {}
            }
            if let Some(line) = line
                && line.amount != entry.amount
            {
                return Err(DomainError::inconsistent(
                    name,
                    format!(
                        "the entry's amount {} differs from the statement line's {}",
                        format_units(entry.amount, views::decimals_of(&r.currency)),
                        format_units(line.amount, views::decimals_of(&r.currency))
                    ),
                ));
            }
            if out.iter().any(|m| m.entry_id == entry.entry_id) {
                continue;
            }
            out.push(matched(entry, line.map(|l| l.id.clone()), now));
        }
        Ok(out)
    }

    /// Changes an open reconciliation: its period, its closing balance, and which
    /// entries are matched (synchronous write, one credit).
    ///
    /// # Errors
    /// `resource_not_found`, `reconciliation_not_open`, validation errors (dates,
    /// `closing_balance`, `match_entry_ids[i]`, `unmatch_entry_ids[i]`),
    /// `entry_already_matched`, `insufficient_credits`.
    pub(crate) async fn update_reconciliation(
        &self,
        access: &Access,
        id: &str,
        changes: ReconciliationChanges,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let before = self.get_reconciliation(access, id).await?;
        check_open(&before)?;
        let mut record = before.clone();
        if let Some(d) = &changes.start_date {
            record.start_date = check_date(d, "start_date")?;
        }
        if let Some(d) = &changes.end_date {
            record.end_date = check_date(d, "end_date")?;
        }
        check_period(record.start_date, record.end_date)?;
        if let Some(b) = &changes.closing_balance {
            record.closing_balance = check_balance(b, &record.currency)?;
        }
        let mut remove = Vec::new();
        for (i, entry) in changes.unmatch_entry_ids.iter().enumerate() {
            let field = format!("unmatch_entry_ids[{i}]");
            let parsed =
                crate::ids::parse_reference(IdKind::Entry, Resource::Entry, &field, entry)?;
            if !before.matches.iter().any(|m| m.entry_id == parsed) {
                return Err(DomainError::reference_not_found_in(
                    field,
                    Resource::Entry,
                    &parsed,
                    format!("entry '{parsed}' is not matched in this reconciliation"),
                ));
            }
            remove.push(parsed);
        }
        let add = self
            .entries_to_match(
                access,
                &before,
                &changes.match_entry_ids,
                "match_entry_ids",
                None,
            )
            .await?;
        record.updated_at = self.now();
        self.save(
            access,
            before,
            record,
            add,
            remove,
            Vec::new(),
            "reconciliation.updated",
            options,
            None,
        )
        .await
    }

    /// Writes a change of `before` into `record` (header), with its event; answers
    /// `answer` when given, else the reconciliation's view after the change.
    #[expect(
        clippy::too_many_arguments,
        reason = "one private helper for every change"
    )]
    async fn save(
        &self,
        access: &Access,
        before: Reconciliation,
        mut record: Reconciliation,
        add: Vec<ReconciledEntry>,
        remove: Vec<String>,
        lines: Vec<StatementLine>,
        event_type: &str,
        options: WriteOptions,
        answer: Option<Value>,
    ) -> DomainResult<Written<Value>> {
        record.matches.retain(|m| !remove.contains(&m.entry_id));
        record.matches.extend(add.iter().cloned());
        record
            .matches
            .sort_by(|a, b| (a.date, &a.entry_id).cmp(&(b.date, &b.entry_id)));
        let view = views::reconciliation(&record);
        let event = self.event(
            access,
            event_type,
            "reconciliation",
            &record.id,
            Some(views::reconciliation(&before)),
            Some(view.clone()),
        );
        let answer = answer.unwrap_or(view);
        let expected_updated_at = before.updated_at;
        let charge = (options.credits > 0).then(|| self.charge(access, options.credits));
        let written = self
            .store
            .save_reconciliation(
                ReconciliationChange {
                    reconciliation: record,
                    expected_updated_at,
                    add,
                    remove,
                    lines,
                },
                event,
                with_result(options.idempotency, &answer),
                charge,
            )
            .await?;
        Ok(written.map(|()| answer))
    }

    /// Completes an open reconciliation whose difference is zero (synchronous write,
    /// one credit): it can no longer change, and its entries' transactions are locked.
    ///
    /// # Errors
    /// `resource_not_found`, `reconciliation_not_open`, `reconciliation_not_balanced`
    /// (details: `closing_balance`, `cleared_balance`, `difference`),
    /// `insufficient_credits`.
    pub(crate) async fn complete_reconciliation(
        &self,
        access: &Access,
        id: &str,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let before = self.get_reconciliation(access, id).await?;
        check_open(&before)?;
        let difference = before.difference();
        if difference != 0 {
            let money = |units: i64| views::amount(units, &before.currency);
            return Err(DomainError::Reported {
                code: ErrorCode::ReconciliationNotBalanced,
                message: format!(
                    "the reconciliation is not balanced: closing balance {} minus cleared balance {} leaves a difference of {}; match or unmatch entries, or correct the closing balance",
                    money(before.closing_balance),
                    money(before.cleared_balance()),
                    money(difference)
                ),
                details: Some(json!({
                    "closing_balance": money(before.closing_balance),
                    "cleared_balance": money(before.cleared_balance()),
                    "difference": money(difference),
                })),
            });
        }
        let now = self.now();
        let mut record = before.clone();
        record.status = ReconciliationStatus::Completed;
        record.completed_at = Some(now);
        record.updated_at = now;
        self.save(
            access,
            before,
            record,
            Vec::new(),
            Vec::new(),
            Vec::new(),
            "reconciliation.completed",
            options,
            None,
        )
        .await
    }

    /// Soft-deletes an open reconciliation (synchronous write, one credit); its entries
    /// may be matched again.
    ///
    /// # Errors
    /// `resource_not_found`, `reconciliation_not_open`, `insufficient_credits`.
    pub(crate) async fn delete_reconciliation(
        &self,
        access: &Access,
        id: &str,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let record = self.get_reconciliation(access, id).await?;
        check_open(&record)?;
        let deletion = self.soft_deletion(access, "reconciliation", &record.id, &record.label());
        let event = self.event(
            access,
            "reconciliation.deleted",
            "reconciliation",
            &record.id,
            Some(views::reconciliation(&record)),
            None,
        );
        let view = views::deleted("reconciliation", &record.id, deletion.recoverable_until);
        let written = self
            .store
            .delete_reconciliation(
                &record.id,
                deletion,
                event,
                with_result(options.idempotency, &view),
                Some(self.charge(access, options.credits)),
            )
            .await?;
        Ok(written.map(|()| view))
    }

    /// The proposals for the unmatched `lines` of `r` among the account's unmatched
    /// entries dated near them.
    async fn proposals(
        &self,
        tenant: &Tenant,
        r: &Reconciliation,
        lines: &[&StatementLine],
    ) -> DomainResult<Vec<Proposal>> {
        let (Some(first), Some(last)) = (
            lines.iter().map(|l| l.date).min(),
            lines.iter().map(|l| l.date).max(),
        ) else {
            return Ok(Vec::new());
        };
        let window = time::Duration::days(DATE_WINDOW_DAYS);
        let entries: Vec<JournalEntry> = self
            .store
            .journal_entries(
                tenant,
                &EntryFilter {
                    account_id: r.account_id.clone(),
                    entry_ids: None,
                    from: first.checked_sub(window),
                    until: last.checked_add(window),
                    unmatched_only: true,
                },
            )
            .await?;
        Ok(propose(lines, &entries, views::decimals_of(&r.currency)))
    }

    /// The views of `lines` of `r`: matched or not, and the match proposed for each
    /// unmatched one.
    async fn line_views(
        &self,
        tenant: &Tenant,
        r: &Reconciliation,
        lines: &[StatementLine],
    ) -> DomainResult<Vec<Value>> {
        let matched_of = |l: &StatementLine| {
            r.matches
                .iter()
                .find(|m| m.statement_line_id.as_deref() == Some(l.id.as_str()))
        };
        let open: Vec<&StatementLine> = if r.status == ReconciliationStatus::Open {
            lines.iter().filter(|l| matched_of(l).is_none()).collect()
        } else {
            Vec::new()
        };
        let proposals = self.proposals(tenant, r, &open).await?;
        Ok(lines
            .iter()
            .map(|l| {
                let proposal = proposals.iter().find(|p| p.line_id == l.id);
                views::statement_line(l, &r.currency, matched_of(l), proposal)
            })
            .collect())
    }

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
        if input.content.trim().is_empty() {
            return Err(DomainError::missing_field("content"));
        }
        let format = match input.format.as_deref() {
            None => sniff(&input.content),
            Some(text) => StatementFormat::parse(text).ok_or_else(|| {
                DomainError::invalid_field("format", "must be 'csv', 'ofx' or 'qfx'")
            })?,
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
        let existing = self
            .store
            .statement_lines(&access.tenant, &before.id)
            .await?;
        let key =
            |date: Date, amount: i64, description: &str, reference: Option<&str>| match reference {
                Some(r) => format!("ref:{r}"),
                None => format!("{date}|{amount}|{description}"),
            };
        let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        for l in &existing {
            *seen
                .entry(key(
                    l.date,
                    l.amount,
                    &l.description,
                    l.reference.as_deref(),
                ))
                .or_default() += 1;
        }
        let now = self.now();
        let mut next = existing.iter().map(|l| l.line_number).max().unwrap_or(0);
        let mut lines = Vec::new();
        let mut skipped = 0;
        for p in parsed.lines {
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
        let views_of_new = self.line_views(&access.tenant, &before, &lines).await?;
        let answer = json!({
            "object": "statement_import",
            "reconciliation_id": before.id,
            "format": parsed.format.as_str(),
            "imported": lines.len(),
            "skipped_duplicates": skipped,
            "statement_lines": views_of_new,
        });
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

    /// A statement line of the reconciliation that no entry is matched to yet.
    async fn open_line(
        &self,
        access: &Access,
        r: &Reconciliation,
        line_id: &str,
    ) -> DomainResult<StatementLine> {
        let parsed = parse_id(IdKind::StatementLine, line_id)
            .ok_or_else(|| not_found("statement_line", line_id))?;
        let line = self
            .store
            .statement_lines(&access.tenant, &r.id)
            .await?
            .into_iter()
            .find(|l| l.id == parsed)
            .ok_or_else(|| not_found("statement_line", line_id))?;
        if r.matches
            .iter()
            .any(|m| m.statement_line_id.as_deref() == Some(line.id.as_str()))
        {
            return Err(DomainError::rule(
                ErrorCode::StatementLineAlreadyMatched,
                format!("statement line {} is already matched", line.id),
            ));
        }
        Ok(line)
    }

    /// Matches a statement line to `entry_id`, or to the entry proposed for it
    /// (synchronous write, one credit). Answers the line.
    ///
    /// # Errors
    /// `resource_not_found` (reconciliation or line), `reconciliation_not_open`,
    /// `statement_line_already_matched`, `inconsistent_fields` on `entry_id` when nothing
    /// is proposed or the entry has another amount, `reference_not_found` on `entry_id`
    /// (not an entry of the account), `entry_already_matched`, `insufficient_credits`.
    pub(crate) async fn accept_statement_line(
        &self,
        access: &Access,
        id: &str,
        line_id: &str,
        entry_id: Option<String>,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let before = self.get_reconciliation(access, id).await?;
        check_open(&before)?;
        let line = self.open_line(access, &before, line_id).await?;
        let entry_id = match entry_id.filter(|e| !e.trim().is_empty()) {
            Some(e) => e,
            None => self
                .proposals(&access.tenant, &before, &[&line])
                .await?
                .into_iter()
                .next()
                .map(|p| p.entry_id)
                .ok_or_else(|| {
                    DomainError::inconsistent(
                        "entry_id",
                        "no journal entry is proposed for this line; give entry_id, or create a transaction from the line",
                    )
                })?,
        };
        let add = self
            .entries_to_match(access, &before, &[entry_id], "entry_id", Some(&line))
            .await?;
        let mut record = before.clone();
        record.updated_at = self.now();
        let answer = views::statement_line(&line, &record.currency, add.first(), None);
        self.save(
            access,
            before,
            record,
            add,
            Vec::new(),
            Vec::new(),
            "reconciliation.updated",
            options,
            Some(answer),
        )
        .await
    }

    /// Books an unmatched statement line as a new posted transaction between the
    /// reconciliation's account and `counter_account_id`, through the journal's own
    /// create (its validation, events and period lock), then matches its entry on the
    /// account to the line. The write's credit pays for the transaction; the match is
    /// free. Answers the line with the transaction.
    ///
    /// # Errors
    /// As [`Ledger::accept_statement_line`] for the reconciliation and line;
    /// `missing_field`/`invalid_field` on `counter_account_id`, `invalid_field` on
    /// `line` for a zero amount, the transaction's own refusals (`account_inactive`,
    /// `currency_mismatch`, `period_locked`), `insufficient_credits`.
    pub(crate) async fn create_statement_transaction(
        &self,
        access: &Access,
        id: &str,
        line_id: &str,
        input: StatementTransactionInput,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let before = self.get_reconciliation(access, id).await?;
        check_open(&before)?;
        let line = self.open_line(access, &before, line_id).await?;
        if input.counter_account_id.trim().is_empty() {
            return Err(DomainError::missing_field("counter_account_id"));
        }
        if line.amount == 0 {
            return Err(DomainError::inconsistent(
                "line",
                "a statement line of zero books no transaction",
            ));
        }
        let counter = crate::ids::parse_reference(
            IdKind::Account,
            Resource::Account,
            "counter_account_id",
            &input.counter_account_id,
        )?;
        if counter == before.account_id {
            return Err(DomainError::inconsistent(
                "counter_account_id",
                "must be another account than the one reconciled",
            ));
        }
        let amount = format_units(line.amount.abs(), views::decimals_of(&before.currency));
        let (bank_side, counter_side) = if line.amount > 0 {
            (EntryType::Debit, EntryType::Credit)
        } else {
            (EntryType::Credit, EntryType::Debit)
        };
        let description = input
            .description
            .map(|d| d.trim().to_owned())
            .filter(|d| !d.is_empty())
            .or_else(|| Some(line.description.trim().to_owned()).filter(|d| !d.is_empty()))
            .unwrap_or_else(|| format!("Bank statement line {}", line.line_number));
        let transaction = NewTransactionInput {
            description,
            date: Some(midnight(line.date)),
            currency: None,
            reference: line.reference.clone(),
            entries: vec![
                EntryInput {
                    account_id: before.account_id.clone(),
                    entry_type: bank_side.as_str().to_owned(),
                    amount: amount.clone(),
                    description: None,
                },
                EntryInput {
                    account_id: counter.clone(),
                    entry_type: counter_side.as_str().to_owned(),
                    amount,
                    description: None,
                },
            ],
            metadata: Some(json!({
                "reconciliation_id": before.id,
                "statement_line_id": line.id,
            })),
            auto_post: true,
            contact_id: None,
            category_id: None,
        };
        let (command, draft, auto_post) = self
            .create_command(access, transaction, None)
            .await
            .map_err(|e| match e {
                DomainError::Validation {
                    code,
                    field: Some(f),
                    message,
                } if f.starts_with("entries[1]") => DomainError::Validation {
                    code,
                    field: Some("counter_account_id".into()),
                    message: message.replacen(&f, "counter_account_id", 1),
                },
                other => other,
            })?;
        let transaction_id = command.resource().1.to_owned();
        let job = self
            .apply_create_now(
                access,
                command,
                draft,
                auto_post,
                WriteOptions {
                    idempotency: None,
                    credits: options.credits,
                },
            )
            .await?;
        let job = match job {
            Written::Done(job) => job,
            Written::Replay(_) => {
                return Err(DomainError::Internal(
                    "a statement transaction without a key was replayed".into(),
                ));
            }
        };
        let posted = self
            .store
            .get_transaction(&access.tenant, &transaction_id)
            .await?
            .ok_or_else(|| {
                DomainError::Internal(format!("transaction {transaction_id} vanished"))
            })?;
        let entry = posted
            .entries
            .iter()
            .find(|e| e.line.account_id == before.account_id)
            .ok_or_else(|| {
                DomainError::Internal("the new transaction has no entry on the account".into())
            })?;
        let now = self.now();
        let m = ReconciledEntry {
            entry_id: entry.id.clone(),
            transaction_id: posted.id.clone(),
            date: line.date,
            amount: line.amount,
            description: posted.description.clone(),
            statement_line_id: Some(line.id.clone()),
            matched_at: now,
        };
        let mut answer = views::statement_line(&line, &before.currency, Some(&m), None);
        answer["transaction"] = job.result.clone().unwrap_or(Value::Null);
        let mut record = before.clone();
        record.updated_at = now;
        self.save(
            access,
            before,
            record,
            vec![m],
            Vec::new(),
            Vec::new(),
            "reconciliation.updated",
            WriteOptions {
                idempotency: options.idempotency,
                credits: 0,
            },
            Some(answer),
        )
        .await
    }
}

/// A match of `entry`, from statement line `line` when given.
fn matched(
    entry: &JournalEntry,
    line: Option<String>,
    now: time::OffsetDateTime,
) -> ReconciledEntry {
    ReconciledEntry {
        entry_id: entry.entry_id.clone(),
        transaction_id: entry.transaction_id.clone(),
        date: entry.date,
        amount: entry.amount,
        description: entry.description.chars().take(1000).collect(),
        statement_line_id: line,
        matched_at: now,
    }
}
