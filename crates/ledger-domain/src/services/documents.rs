//! Invoices and bills (spec 4.10, DECISIONS 4-5): reads, and queued writes whose
//! accounting effects post balanced transactions through the journal's rules.
//!
//! Every write is validated here first (a refused one never enters the queue) and decided
//! again from the current state when its job runs: a document changed by another job in
//! between makes the store refuse the effect with `concurrent_update`, and the runner
//! decides the job again, so two payments racing for the same balance can never overpay.

use crate::error::ErrorCode;
use std::collections::HashMap;

use serde_json::{Value, json};
use time::Date;

use crate::accounts::{Account, AccountType};
use crate::documents::{
    Document, DocumentItem, DocumentKind, DocumentStatus, Payment, PostingAccounts, StatusChange,
    check_draft, check_payment, check_void, format_number, issue_entries, payment_entries,
    price_items, status_after_payment, totals,
};
use crate::error::{DomainError, DomainResult};
use crate::ids::{IdKind, new_id, parse_id};
use crate::jobs::{DocumentDraft, Job, JobCommand, PaymentDraft};
use crate::money::{AmountError, parse_positive_units, parse_units};
use crate::ports::{
    DocumentEffect, DocumentFilter, DocumentTransition, Effect, Page, PageRequest, Reversal, Store,
    Tenant, Written,
};
use crate::tax::Tax;
use crate::transactions::{
    EntryLine, StoredEntry, Transaction, TransactionStatus, check_balanced, mirror_entries,
};
use crate::views;

use super::accounts::{check_postable, not_found};
use super::runner::Decision;
use super::{Access, Ledger, WriteOptions};

/// Most items on one document.
pub const MAX_ITEMS: usize = 200;
/// Most taxes on one item.
pub const MAX_ITEM_TAXES: usize = 5;
/// Days from the issue date to the due date when the client gives no due date.
pub const DEFAULT_TERMS_DAYS: i64 = 30;
/// The setting naming the account bill taxes are debited to (recoverable tax).
pub const RECOVERABLE_TAX_SETTING: &str = "recoverable_tax_account_id";

/// One item as a client sent it; amounts are decimal texts.
#[derive(Debug, Clone, Default)]
pub struct DocumentItemInput {
    pub description: Option<String>,
    pub quantity: Option<String>,
    pub unit_price: Option<String>,
    pub item_id: Option<String>,
    pub account_id: Option<String>,
    pub tax_ids: Vec<String>,
    /// A category of the tenant (DECISIONS 10: items may name one).
    pub category_id: Option<String>,
}

/// A new document, or the changes to a draft (`None` keeps the value).
#[derive(Debug, Clone, Default)]
pub struct DocumentInput {
    pub contact_id: Option<String>,
    pub issue_date: Option<Date>,
    pub due_date: Option<Date>,
    pub items: Option<Vec<DocumentItemInput>>,
    /// `Some(None)` clears the notes.
    pub notes: Option<Option<String>>,
}

/// A payment as a client sent it.
#[derive(Debug, Clone, Default)]
pub struct PaymentInput {
    pub amount: String,
    pub payment_date: Option<Date>,
    pub payment_method: Option<String>,
    pub reference: Option<String>,
    pub notes: Option<String>,
    pub account_id: Option<String>,
}

/// A document with its payments, ready to render.
#[derive(Debug, Clone, PartialEq)]
pub struct DocumentView {
    pub document: Document,
    pub payments: Vec<Payment>,
}

fn check_text(field: &str, value: Option<&str>, max: usize) -> DomainResult<Option<String>> {
    match value.map(str::trim) {
        None | Some("") => Ok(None),
        Some(text) if text.chars().count() > max => Err(DomainError::invalid_field(
            field,
            format!("must be at most {max} characters"),
        )),
        Some(text) => Ok(Some(text.to_owned())),
    }
}

fn amount_error(field: String, currency: &str, err: AmountError) -> DomainError {
    match err {
        AmountError::TooManyDecimals(d) => DomainError::invalid_field(
            field,
            format!("{currency} allows at most {d} decimal places"),
        ),
        other => DomainError::invalid_field(field, other.to_string()),
    }
}

/// The system account of `subtype`, live and accepting postings.
fn system_account<'a>(accounts: &'a [Account], subtype: &str) -> DomainResult<&'a Account> {
    accounts
        .iter()
        .find(|a| a.is_system && a.subtype.as_deref() == Some(subtype))
        .ok_or_else(|| {
            DomainError::rule(
                ErrorCode::AccountInactive,
                format!("the organization has no live '{subtype}' system account"),
            )
        })
}

impl<S: Store> Ledger<S> {
    /// A live document of the tenant.
    ///
    /// # Errors
    /// `resource_not_found`.
    pub async fn get_document(
        &self,
        access: &Access,
        kind: DocumentKind,
        id: &str,
    ) -> DomainResult<Document> {
        self.current_document(&access.tenant, kind, id).await
    }

    async fn current_document(
        &self,
        tenant: &Tenant,
        kind: DocumentKind,
        id: &str,
    ) -> DomainResult<Document> {
        let Some(parsed) = parse_id(kind.id_kind(), id) else {
            return Err(not_found(kind.as_str(), id));
        };
        self.store
            .get_document(tenant, kind, &parsed)
            .await?
            .ok_or_else(|| not_found(kind.as_str(), id))
    }

    /// A live document with its payments.
    ///
    /// # Errors
    /// `resource_not_found`.
    pub async fn document_view(
        &self,
        access: &Access,
        kind: DocumentKind,
        id: &str,
    ) -> DomainResult<DocumentView> {
        let document = self.get_document(access, kind, id).await?;
        let payments = self
            .store
            .list_payments(&access.tenant, std::slice::from_ref(&document.id))
            .await?;
        Ok(DocumentView { document, payments })
    }

    /// Documents of a kind, newest first, each with its payments.
    ///
    /// # Errors
    /// Storage failures only.
    pub async fn list_documents(
        &self,
        access: &Access,
        kind: DocumentKind,
        filter: &DocumentFilter,
        page: PageRequest,
    ) -> DomainResult<Page<DocumentView>> {
        let documents = self
            .store
            .list_documents(&access.tenant, kind, filter, page)
            .await?;
        let ids: Vec<String> = documents.items.iter().map(|d| d.id.clone()).collect();
        let mut payments = self.store.list_payments(&access.tenant, &ids).await?;
        let items = documents
            .items
            .into_iter()
            .map(|document| {
                let (mine, rest): (Vec<Payment>, Vec<Payment>) = std::mem::take(&mut payments)
                    .into_iter()
                    .partition(|p| p.document_id == document.id);
                payments = rest;
                DocumentView {
                    document,
                    payments: mine,
                }
            })
            .collect();
        Ok(Page {
            items,
            total_count: documents.total_count,
        })
    }

    /// The status history of a document, oldest first.
    ///
    /// # Errors
    /// `resource_not_found`.
    pub async fn document_history(
        &self,
        access: &Access,
        kind: DocumentKind,
        id: &str,
    ) -> DomainResult<Vec<StatusChange>> {
        let document = self.get_document(access, kind, id).await?;
        self.store
            .document_history(&access.tenant, &document.id)
            .await
    }

    /// The JSON of a document as of now.
    pub fn render_document(&self, view: &DocumentView) -> Value {
        views::document(&view.document, &view.payments, self.now().date())
    }

    /// Validates a new invoice or bill and queues its creation.
    ///
    /// # Errors
    /// Validation errors, `account_inactive`, `currency_mismatch`, `insufficient_credits`.
    pub(crate) async fn create_document(
        &self,
        access: &Access,
        kind: DocumentKind,
        input: DocumentInput,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let contact_id = input
            .contact_id
            .ok_or_else(|| DomainError::missing_field("contact_id"))?;
        let items = input
            .items
            .ok_or_else(|| DomainError::missing_field("items"))?;
        let issue_date = input.issue_date.unwrap_or_else(|| self.now().date());
        let due_date = input
            .due_date
            .unwrap_or(issue_date + time::Duration::days(DEFAULT_TERMS_DAYS));
        let draft = self
            .check_draft_input(
                &access.tenant,
                kind,
                &contact_id,
                issue_date,
                due_date,
                &items,
                input.notes.flatten().as_deref(),
            )
            .await?;
        let command = JobCommand::CreateDocument {
            document_id: new_id(kind.id_kind()),
            kind,
            draft,
        };
        self.enqueue(access, command, options).await
    }

    /// Validates changes to a draft and queues them.
    ///
    /// # Errors
    /// `resource_not_found`, `invoice_not_draft` / `invalid_state_transition`, validation
    /// errors as for a new document.
    pub(crate) async fn update_document(
        &self,
        access: &Access,
        kind: DocumentKind,
        id: &str,
        input: DocumentInput,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let current = self.get_document(access, kind, id).await?;
        check_draft(&current, "updated")?;
        let items: Vec<DocumentItemInput> = match input.items {
            Some(items) => items,
            None => current
                .items
                .iter()
                .map(|i| DocumentItemInput {
                    description: Some(i.description.clone()),
                    quantity: Some(crate::money::format_units(i.quantity, 4)),
                    unit_price: Some(crate::money::format_units(i.unit_price, 4)),
                    item_id: i.item_id.clone(),
                    account_id: Some(i.account_id.clone()),
                    tax_ids: i.tax_ids.clone(),
                    category_id: i.category_id.clone(),
                })
                .collect(),
        };
        let contact_id = input.contact_id.unwrap_or(current.contact_id.clone());
        let notes = match input.notes {
            Some(notes) => notes,
            None => current.notes.clone(),
        };
        let draft = self
            .check_draft_input(
                &access.tenant,
                kind,
                &contact_id,
                input.issue_date.unwrap_or(current.issue_date),
                input.due_date.unwrap_or(current.due_date),
                &items,
                notes.as_deref(),
            )
            .await?;
        let command = JobCommand::UpdateDocument {
            document_id: current.id,
            kind,
            draft,
        };
        self.enqueue(access, command, options).await
    }

    /// Queues the soft delete of a draft.
    ///
    /// # Errors
    /// `resource_not_found`, `invoice_not_draft` / `invalid_state_transition`.
    pub(crate) async fn delete_document(
        &self,
        access: &Access,
        kind: DocumentKind,
        id: &str,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let current = self.get_document(access, kind, id).await?;
        check_draft(&current, "deleted")?;
        let command = JobCommand::DeleteDocument {
            document_id: current.id,
            kind,
        };
        self.enqueue(access, command, options).await
    }

    /// Queues sending an invoice or approving a bill: it is posted to the books.
    ///
    /// # Errors
    /// `resource_not_found`, `invoice_not_draft` / `invalid_state_transition`,
    /// `account_inactive`, `currency_mismatch`.
    pub(crate) async fn issue_document(
        &self,
        access: &Access,
        kind: DocumentKind,
        id: &str,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let current = self.get_document(access, kind, id).await?;
        check_draft(&current, kind.issue_verb())?;
        // Checks the accounts now, so a refused posting never enters the queue.
        self.issue_posting_lines(&access.tenant, &current).await?;
        let command = JobCommand::IssueDocument {
            document_id: current.id,
            kind,
            transaction_id: new_id(IdKind::Transaction),
        };
        self.enqueue(access, command, options).await
    }

    /// Validates a payment and queues it.
    ///
    /// # Errors
    /// `resource_not_found`, validation errors, `invalid_state_transition` (a draft or a
    /// paid or void document), `overpayment`, `account_inactive`, `currency_mismatch`.
    pub(crate) async fn record_payment(
        &self,
        access: &Access,
        kind: DocumentKind,
        id: &str,
        input: PaymentInput,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let current = self.get_document(access, kind, id).await?;
        let decimals = views::decimals_of(&current.currency);
        let amount = parse_positive_units(&input.amount, decimals)
            .map_err(|e| amount_error("amount".into(), &current.currency, e))?;
        let payment_method = check_text("payment_method", input.payment_method.as_deref(), 100)?
            .ok_or_else(|| DomainError::missing_field("payment_method"))?;
        let payment_date = input
            .payment_date
            .ok_or_else(|| DomainError::missing_field("payment_date"))?;
        let account_id = self
            .money_account(
                &access.tenant,
                &current.currency,
                input.account_id.as_deref(),
            )
            .await?;
        check_payment(&current, amount, decimals)?;
        let payment = PaymentDraft {
            amount,
            payment_date,
            payment_method,
            reference: check_text("reference", input.reference.as_deref(), 255)?,
            notes: check_text("notes", input.notes.as_deref(), 5000)?,
            account_id,
        };
        let command = JobCommand::RecordPayment {
            document_id: current.id,
            kind,
            payment_id: new_id(IdKind::Payment),
            transaction_id: new_id(IdKind::Transaction),
            payment,
        };
        self.enqueue(access, command, options).await
    }

    /// Queues voiding a document: a draft simply ends, a posted one without payments has
    /// its posting reversed.
    ///
    /// # Errors
    /// `resource_not_found`, `invalid_state_transition`.
    pub(crate) async fn void_document(
        &self,
        access: &Access,
        kind: DocumentKind,
        id: &str,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let current = self.get_document(access, kind, id).await?;
        check_void(&current)?;
        let command = JobCommand::VoidDocument {
            document_id: current.id,
            kind,
            mirror_id: new_id(IdKind::Transaction),
        };
        self.enqueue(access, command, options).await
    }

    /// The account a payment moves money through: the client's (an active asset account
    /// in the document's currency) or the Cash system account.
    async fn money_account(
        &self,
        tenant: &Tenant,
        currency: &str,
        given: Option<&str>,
    ) -> DomainResult<String> {
        let account = match given {
            Some(id) => {
                let found = match parse_id(IdKind::Account, id) {
                    Some(parsed) => self.store.get_account(tenant, &parsed).await?,
                    None => None,
                };
                let account = found.ok_or_else(|| {
                    DomainError::invalid_field(
                        "account_id",
                        format!("no account '{id}' in this organization"),
                    )
                })?;
                if account.account_type != AccountType::Asset {
                    return Err(DomainError::invalid_field(
                        "account_id",
                        "must be an asset (bank or cash) account",
                    ));
                }
                account
            }
            None => {
                let system = self.store.system_accounts(tenant).await?;
                system_account(&system, "cash")?.clone()
            }
        };
        check_postable(&account, currency, "document")?;
        Ok(account.id)
    }

    /// Checks a document's content and resolves its references: the contact (a live,
    /// enabled customer or vendor of the tenant, whose currency the document takes), the
    /// items' accounts (default Sales or General Expenses) and taxes.
    #[allow(clippy::too_many_arguments)]
    async fn check_draft_input(
        &self,
        tenant: &Tenant,
        kind: DocumentKind,
        contact_id: &str,
        issue_date: Date,
        due_date: Date,
        items: &[DocumentItemInput],
        notes: Option<&str>,
    ) -> DomainResult<DocumentDraft> {
        let contact = match parse_id(IdKind::Contact, contact_id) {
            Some(parsed) => self.store.get_contact(tenant, &parsed).await?,
            None => None,
        }
        .ok_or_else(|| {
            DomainError::invalid_field(
                "contact_id",
                format!("no contact '{contact_id}' in this organization"),
            )
        })?;
        if !contact.fields.enabled {
            return Err(DomainError::invalid_field(
                "contact_id",
                format!("contact '{}' is disabled", contact.id),
            ));
        }
        if !kind.accepts(contact.contact_type) {
            return Err(DomainError::invalid_field(
                "contact_id",
                format!(
                    "a {} needs a {} (or 'other') contact; '{}' is a {}",
                    kind.as_str(),
                    match kind {
                        DocumentKind::Invoice => "customer",
                        DocumentKind::Bill => "vendor",
                    },
                    contact.id,
                    contact.contact_type.as_str()
                ),
            ));
        }
        if due_date < issue_date {
            return Err(DomainError::invalid_field(
                "due_date",
                format!("must not be before the {}", kind.date_field()),
            ));
        }
        if items.is_empty() {
            return Err(DomainError::invalid_field(
                "items",
                "needs at least one item",
            ));
        }
        if items.len() > MAX_ITEMS {
            return Err(DomainError::invalid_field(
                "items",
                format!("at most {MAX_ITEMS} items per {}", kind.as_str()),
            ));
        }
        let currency = contact.fields.currency_id.clone();
        let decimals = views::decimals_of(&currency);
        let system = self.store.system_accounts(tenant).await?;
        let default_account = match kind {
            DocumentKind::Invoice => system_account(&system, "sales")?,
            DocumentKind::Bill => system_account(&system, "general_expense")?,
        }
        .id
        .clone();
        let mut lines = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let field = |name: &str| format!("items[{i}].{name}");
            let description = check_text(&field("description"), item.description.as_deref(), 1000)?
                .ok_or_else(|| DomainError::missing_field(field("description")))?;
            let quantity_text = item
                .quantity
                .as_deref()
                .ok_or_else(|| DomainError::missing_field(field("quantity")))?;
            let quantity = parse_positive_units(quantity_text, 4)
                .map_err(|e| DomainError::invalid_field(field("quantity"), e.to_string()))?;
            let price_text = item
                .unit_price
                .as_deref()
                .ok_or_else(|| DomainError::missing_field(field("unit_price")))?;
            let unit_price = parse_units(price_text, decimals)
                .map_err(|e| amount_error(field("unit_price"), &currency, e))?;
            if unit_price < 0 {
                return Err(DomainError::invalid_field(
                    field("unit_price"),
                    "must not be negative",
                ));
            }
            let account_id = match item.account_id.as_deref() {
                None => default_account.clone(),
                Some(id) => parse_id(IdKind::Account, id).ok_or_else(|| {
                    DomainError::invalid_field(field("account_id"), "is not an account id")
                })?,
            };
            if item.tax_ids.len() > MAX_ITEM_TAXES {
                return Err(DomainError::invalid_field(
                    field("tax_ids"),
                    format!("at most {MAX_ITEM_TAXES} taxes per item"),
                ));
            }
            let mut tax_ids = Vec::with_capacity(item.tax_ids.len());
            for id in &item.tax_ids {
                let parsed = parse_id(IdKind::Tax, id).ok_or_else(|| {
                    DomainError::invalid_field(field("tax_ids"), format!("'{id}' is not a tax id"))
                })?;
                if tax_ids.contains(&parsed) {
                    return Err(DomainError::invalid_field(
                        field("tax_ids"),
                        format!("tax '{parsed}' is listed twice"),
                    ));
                }
                tax_ids.push(parsed);
            }
            let category_id = match item.category_id.as_deref().map(str::trim) {
                Some(id) if !id.is_empty() => Some(
                    self.check_category_in(tenant, &field("category_id"), id)
                        .await?,
                ),
                _ => None,
            };
            lines.push(DocumentItem {
                description,
                quantity,
                unit_price,
                item_id: check_text(&field("item_id"), item.item_id.as_deref(), 255)?,
                account_id,
                tax_ids,
                category_id,
                amount: 0,
                tax_amount: 0,
            });
        }
        // The items' accounts: live, of the right type, accepting postings, same currency.
        let mut ids: Vec<String> = lines.iter().map(|l| l.account_id.clone()).collect();
        ids.sort();
        ids.dedup();
        let found: HashMap<String, Account> = self
            .store
            .get_accounts(tenant, &ids)
            .await?
            .into_iter()
            .map(|a| (a.id.clone(), a))
            .collect();
        for (i, line) in lines.iter().enumerate() {
            let field = format!("items[{i}].account_id");
            let account = found.get(&line.account_id).ok_or_else(|| {
                DomainError::invalid_field(
                    field.clone(),
                    format!("no account '{}' in this organization", line.account_id),
                )
            })?;
            let fits = match kind {
                DocumentKind::Invoice => account.account_type == AccountType::Revenue,
                DocumentKind::Bill => matches!(
                    account.account_type,
                    AccountType::Expense | AccountType::Asset
                ),
            };
            if !fits {
                return Err(DomainError::invalid_field(
                    field,
                    match kind {
                        DocumentKind::Invoice => "must be a revenue account",
                        DocumentKind::Bill => "must be an expense or asset account",
                    },
                ));
            }
            check_postable(account, &currency, "document")?;
        }
        let taxes = self.item_taxes(tenant, &lines).await?;
        let mut priced = lines.clone();
        price_items(&mut priced, &taxes, decimals)?;
        let (_, _, total) = totals(&priced)?;
        if total <= 0 {
            return Err(DomainError::invalid_field(
                "items",
                format!("the {} total must be greater than zero", kind.as_str()),
            ));
        }
        Ok(DocumentDraft {
            contact_id: contact.id,
            issue_date,
            due_date,
            currency,
            items: lines,
            notes: check_text("notes", notes, 5000)?,
        })
    }

    /// The live, active taxes the items name, by id.
    async fn item_taxes(
        &self,
        tenant: &Tenant,
        items: &[DocumentItem],
    ) -> DomainResult<HashMap<String, Tax>> {
        let mut taxes = HashMap::new();
        for (i, item) in items.iter().enumerate() {
            for id in &item.tax_ids {
                if taxes.contains_key(id) {
                    continue;
                }
                let tax = self
                    .store
                    .get_tax(tenant, id)
                    .await?
                    .filter(|t| t.is_active)
                    .ok_or_else(|| {
                        DomainError::invalid_field(
                            format!("items[{i}].tax_ids"),
                            format!("no active tax '{id}' in this organization"),
                        )
                    })?;
                taxes.insert(id.clone(), tax);
            }
        }
        Ok(taxes)
    }

    /// Prices a draft with the taxes' current rates into a document.
    async fn build_document(
        &self,
        job: &Job,
        tenant: &Tenant,
        base: Document,
        draft: &DocumentDraft,
    ) -> DomainResult<Document> {
        let mut items = draft.items.clone();
        let taxes = self.item_taxes(tenant, &items).await?;
        let tax_lines = price_items(&mut items, &taxes, views::decimals_of(&draft.currency))?;
        let (subtotal, tax_amount, total) = totals(&items)?;
        if total <= 0 {
            return Err(DomainError::invalid_field(
                "items",
                format!(
                    "the {} total must be greater than zero",
                    job.command.resource().0
                ),
            ));
        }
        Ok(Document {
            contact_id: draft.contact_id.clone(),
            issue_date: draft.issue_date,
            due_date: draft.due_date,
            currency: draft.currency.clone(),
            items,
            taxes: tax_lines,
            subtotal,
            tax_amount,
            total,
            notes: draft.notes.clone(),
            updated_at: self.now(),
            ..base
        })
    }

    /// The lines of a document's issuing posting, its accounts checked.
    async fn issue_posting_lines(
        &self,
        tenant: &Tenant,
        doc: &Document,
    ) -> DomainResult<Vec<EntryLine>> {
        let system = self.store.system_accounts(tenant).await?;
        let accounts = match doc.kind {
            DocumentKind::Invoice => PostingAccounts {
                control: system_account(&system, "accounts_receivable")?.id.clone(),
                tax: Some(system_account(&system, "sales_tax_payable")?.id.clone()),
            },
            DocumentKind::Bill => PostingAccounts {
                control: system_account(&system, "accounts_payable")?.id.clone(),
                tax: self
                    .store
                    .get_setting(tenant, RECOVERABLE_TAX_SETTING)
                    .await?
                    .and_then(|s| parse_id(IdKind::Account, &s.value)),
            },
        };
        let lines = issue_entries(doc, &accounts);
        self.check_lines(tenant, &doc.currency, &lines).await?;
        Ok(lines)
    }

    /// Checks that every account of `lines` is live, accepts postings and is in `currency`,
    /// and that the lines balance.
    async fn check_lines(
        &self,
        tenant: &Tenant,
        currency: &str,
        lines: &[EntryLine],
    ) -> DomainResult<()> {
        let mut ids: Vec<String> = lines.iter().map(|l| l.account_id.clone()).collect();
        ids.sort();
        ids.dedup();
        let found = self.store.get_accounts(tenant, &ids).await?;
        for id in &ids {
            let account = found.iter().find(|a| &a.id == id).ok_or_else(|| {
                DomainError::rule(
                    ErrorCode::AccountInactive,
                    format!("account {id} no longer exists; the posting cannot be written"),
                )
            })?;
            check_postable(account, currency, "document")?;
        }
        check_balanced(lines, views::decimals_of(currency))?;
        Ok(())
    }

    /// The control account (receivable or payable) of a kind.
    async fn control_account(&self, tenant: &Tenant, kind: DocumentKind) -> DomainResult<String> {
        let system = self.store.system_accounts(tenant).await?;
        let subtype = match kind {
            DocumentKind::Invoice => "accounts_receivable",
            DocumentKind::Bill => "accounts_payable",
        };
        Ok(system_account(&system, subtype)?.id.clone())
    }

    /// A posted transaction of a document's job.
    #[allow(clippy::too_many_arguments)]
    fn document_posting(
        &self,
        job: &Job,
        id: &str,
        doc: &Document,
        description: String,
        date: Date,
        lines: Vec<EntryLine>,
        extra: Value,
    ) -> DomainResult<Transaction> {
        let now = self.now();
        let amount = check_balanced(&lines, views::decimals_of(&doc.currency))?;
        let mut metadata =
            json!({ "source": doc.kind.as_str(), format!("{}_id", doc.kind.as_str()): doc.id });
        if let (Some(m), Value::Object(extra)) = (metadata.as_object_mut(), extra) {
            m.extend(extra);
        }
        Ok(Transaction {
            id: id.to_owned(),
            organization_id: job.organization_id.clone(),
            livemode: job.livemode,
            description,
            date: date.midnight().assume_utc(),
            status: TransactionStatus::Posted,
            currency: doc.currency.clone(),
            amount,
            reference: Some(doc.number.clone()),
            reversal_of: None,
            reversed_by: None,
            reversal_reason: None,
            contact_id: Some(doc.contact_id.clone()),
            category_id: None,
            metadata,
            entries: lines
                .into_iter()
                .map(|line| StoredEntry {
                    id: new_id(IdKind::Entry),
                    line,
                })
                .collect(),
            posted_at: Some(now),
            created_at: now,
            updated_at: now,
        })
    }

    fn status_change(
        &self,
        job: &Job,
        document_id: &str,
        status: DocumentStatus,
        note: Option<String>,
    ) -> StatusChange {
        StatusChange {
            id: new_id(IdKind::Event).replacen("evt_", "dsc_", 1),
            organization_id: job.organization_id.clone(),
            document_id: document_id.to_owned(),
            status,
            changed_at: self.now(),
            api_key_id: job.api_key_id.clone(),
            note,
        }
    }

    /// Decides a document job from the current state.
    pub(super) async fn document_decision(
        &self,
        job: &Job,
        tenant: &Tenant,
    ) -> DomainResult<Decision> {
        let now = self.now();
        let today = now.date();
        match &job.command {
            JobCommand::CreateDocument {
                document_id,
                kind,
                draft,
            } => {
                // The contact may have been deleted or disabled since validation.
                let contact = self
                    .store
                    .get_contact(tenant, &draft.contact_id)
                    .await?
                    .filter(|c| c.fields.enabled)
                    .ok_or_else(|| {
                        DomainError::invalid_field(
                            "contact_id",
                            format!("contact '{}' is no longer available", draft.contact_id),
                        )
                    })?;
                let sequence = self.store.next_document_sequence(tenant, *kind).await?;
                let prefix = self
                    .store
                    .get_setting(tenant, kind.prefix_setting())
                    .await?
                    .map_or_else(|| kind.default_prefix().to_owned(), |s| s.value);
                let base = Document {
                    id: document_id.clone(),
                    organization_id: job.organization_id.clone(),
                    livemode: job.livemode,
                    kind: *kind,
                    sequence,
                    number: format_number(&prefix, sequence),
                    contact_id: contact.id,
                    issue_date: draft.issue_date,
                    due_date: draft.due_date,
                    currency: draft.currency.clone(),
                    status: DocumentStatus::Draft,
                    items: Vec::new(),
                    taxes: Vec::new(),
                    subtotal: 0,
                    tax_amount: 0,
                    total: 0,
                    amount_paid: 0,
                    notes: None,
                    posting_id: None,
                    created_by: job.api_key_id.clone(),
                    created_at: now,
                    updated_at: now,
                };
                let document = self.build_document(job, tenant, base, draft).await?;
                let result = views::document(&document, &[], today);
                let events = vec![self.job_event(
                    job,
                    &format!("{}.created", kind.as_str()),
                    kind.as_str(),
                    &document.id,
                    None,
                    Some(result.clone()),
                )];
                let history = self.status_change(job, &document.id, DocumentStatus::Draft, None);
                Ok(Decision {
                    effect: Effect::Document(DocumentEffect::Insert { document, history }),
                    events,
                    result,
                })
            }
            JobCommand::UpdateDocument {
                document_id,
                kind,
                draft,
            } => {
                let before = self.current_document(tenant, *kind, document_id).await?;
                check_draft(&before, "updated")?;
                let document = self
                    .build_document(job, tenant, before.clone(), draft)
                    .await?;
                let result = views::document(&document, &[], today);
                let events = vec![self.job_event(
                    job,
                    &format!("{}.updated", kind.as_str()),
                    kind.as_str(),
                    &document.id,
                    Some(views::document(&before, &[], today)),
                    Some(result.clone()),
                )];
                Ok(Decision {
                    effect: Effect::Document(DocumentEffect::Replace(document)),
                    events,
                    result,
                })
            }
            JobCommand::DeleteDocument { document_id, kind } => {
                let before = self.current_document(tenant, *kind, document_id).await?;
                check_draft(&before, "deleted")?;
                let deletion = self.deletion(job, kind.as_str(), &before.id, &before.number);
                let result = json!({
                    "id": before.id,
                    "object": kind.as_str(),
                    "deleted": true,
                    "recoverable_until": views::timestamp(deletion.recoverable_until),
                });
                let events = vec![self.job_event(
                    job,
                    &format!("{}.deleted", kind.as_str()),
                    kind.as_str(),
                    &before.id,
                    Some(views::document(&before, &[], today)),
                    None,
                )];
                Ok(Decision {
                    effect: Effect::Document(DocumentEffect::Delete {
                        document_id: before.id.clone(),
                        deletion,
                    }),
                    events,
                    result,
                })
            }
            JobCommand::IssueDocument {
                document_id,
                kind,
                transaction_id,
            } => {
                let before = self.current_document(tenant, *kind, document_id).await?;
                check_draft(&before, kind.issue_verb())?;
                let lines = self.issue_posting_lines(tenant, &before).await?;
                let verb = kind.issue_verb();
                let posting = self.document_posting(
                    job,
                    transaction_id,
                    &before,
                    format!("{} {} {verb}", title(*kind), before.number),
                    before.issue_date,
                    lines,
                    json!({}),
                )?;
                let document = Document {
                    status: kind.issued_status(),
                    posting_id: Some(posting.id.clone()),
                    updated_at: now,
                    ..before.clone()
                };
                let payments = self
                    .store
                    .list_payments(tenant, std::slice::from_ref(&document.id))
                    .await?;
                let result = views::document(&document, &payments, today);
                let posting_json = views::transaction(&posting);
                let events = vec![
                    self.job_event(
                        job,
                        &format!("{}.{verb}", kind.as_str()),
                        kind.as_str(),
                        &document.id,
                        Some(views::document(&before, &payments, today)),
                        Some(result.clone()),
                    ),
                    self.job_event(
                        job,
                        "transaction.posted",
                        "transaction",
                        &posting.id,
                        None,
                        Some(posting_json),
                    ),
                ];
                let history = self.status_change(job, &document.id, kind.issued_status(), None);
                Ok(Decision {
                    effect: Effect::Document(DocumentEffect::Transition(Box::new(
                        DocumentTransition {
                            document,
                            expected_status: before.status,
                            expected_paid: before.amount_paid,
                            posting: Some(posting),
                            reversal: None,
                            payment: None,
                            history,
                        },
                    ))),
                    events,
                    result,
                })
            }
            JobCommand::RecordPayment {
                document_id,
                kind,
                payment_id,
                transaction_id,
                payment,
            } => {
                let before = self.current_document(tenant, *kind, document_id).await?;
                let decimals = views::decimals_of(&before.currency);
                check_payment(&before, payment.amount, decimals)?;
                let control = self.control_account(tenant, *kind).await?;
                let lines = payment_entries(*kind, payment.amount, &payment.account_id, &control);
                self.check_lines(tenant, &before.currency, &lines).await?;
                let posting = self.document_posting(
                    job,
                    transaction_id,
                    &before,
                    format!("Payment of {} {}", kind.as_str(), before.number),
                    payment.payment_date,
                    lines,
                    json!({ "payment_id": payment_id }),
                )?;
                let status = status_after_payment(&before, payment.amount);
                let record = Payment {
                    id: payment_id.clone(),
                    organization_id: job.organization_id.clone(),
                    livemode: job.livemode,
                    document_id: before.id.clone(),
                    kind: *kind,
                    amount: payment.amount,
                    currency: before.currency.clone(),
                    payment_date: payment.payment_date,
                    payment_method: payment.payment_method.clone(),
                    reference: payment.reference.clone(),
                    notes: payment.notes.clone(),
                    account_id: payment.account_id.clone(),
                    transaction_id: posting.id.clone(),
                    created_by: job.api_key_id.clone(),
                    created_at: now,
                };
                let document = Document {
                    status,
                    amount_paid: before.amount_paid + payment.amount,
                    updated_at: now,
                    ..before.clone()
                };
                let result = views::payment(&record);
                let mut events = vec![
                    self.job_event(
                        job,
                        "payment.created",
                        "payment",
                        &record.id,
                        None,
                        Some(result.clone()),
                    ),
                    self.job_event(
                        job,
                        &format!("{}.{}", kind.as_str(), status.as_str()),
                        kind.as_str(),
                        &document.id,
                        Some(views::document(&before, &[], today)),
                        Some(views::document(&document, &[], today)),
                    ),
                ];
                events.push(self.job_event(
                    job,
                    "transaction.posted",
                    "transaction",
                    &posting.id,
                    None,
                    Some(views::transaction(&posting)),
                ));
                let history = self.status_change(
                    job,
                    &document.id,
                    status,
                    Some(format!(
                        "payment {} of {} {}",
                        record.id,
                        crate::money::format_units(record.amount, decimals),
                        record.currency
                    )),
                );
                Ok(Decision {
                    effect: Effect::Document(DocumentEffect::Transition(Box::new(
                        DocumentTransition {
                            document,
                            expected_status: before.status,
                            expected_paid: before.amount_paid,
                            posting: Some(posting),
                            reversal: None,
                            payment: Some(record),
                            history,
                        },
                    ))),
                    events,
                    result,
                })
            }
            JobCommand::VoidDocument {
                document_id,
                kind,
                mirror_id,
            } => {
                let before = self.current_document(tenant, *kind, document_id).await?;
                check_void(&before)?;
                let reversal = match &before.posting_id {
                    None => None,
                    Some(posting_id) => {
                        let original = self
                            .store
                            .get_transaction(tenant, posting_id)
                            .await?
                            .ok_or_else(|| not_found("transaction", posting_id))?;
                        let lines: Vec<EntryLine> =
                            original.entries.iter().map(|e| e.line.clone()).collect();
                        let reason = format!("{} {} voided", title(*kind), before.number);
                        let mut mirror = self.document_posting(
                            job,
                            mirror_id,
                            &before,
                            format!("Reversal of {}", original.description),
                            today,
                            mirror_entries(&lines),
                            json!({}),
                        )?;
                        mirror.reversal_of = Some(original.id.clone());
                        Some(Reversal {
                            transaction_id: original.id,
                            reason,
                            mirror,
                        })
                    }
                };
                let document = Document {
                    status: DocumentStatus::Void,
                    updated_at: now,
                    ..before.clone()
                };
                let result = views::document(&document, &[], today);
                let mut events = vec![self.job_event(
                    job,
                    &format!("{}.voided", kind.as_str()),
                    kind.as_str(),
                    &document.id,
                    Some(views::document(&before, &[], today)),
                    Some(result.clone()),
                )];
                if let Some(r) = &reversal {
                    events.push(self.job_event(
                        job,
                        "transaction.reversed",
                        "transaction",
                        &r.transaction_id,
                        None,
                        Some(views::transaction(&r.mirror)),
                    ));
                }
                let history = self.status_change(job, &document.id, DocumentStatus::Void, None);
                Ok(Decision {
                    effect: Effect::Document(DocumentEffect::Transition(Box::new(
                        DocumentTransition {
                            document,
                            expected_status: before.status,
                            expected_paid: before.amount_paid,
                            posting: None,
                            reversal,
                            payment: None,
                            history,
                        },
                    ))),
                    events,
                    result,
                })
            }
            other => Err(DomainError::Internal(format!(
                "{} is not a document job",
                other.name()
            ))),
        }
    }
}

/// `Invoice` or `Bill`.
fn title(kind: DocumentKind) -> &'static str {
    match kind {
        DocumentKind::Invoice => "Invoice",
        DocumentKind::Bill => "Bill",
    }
}
