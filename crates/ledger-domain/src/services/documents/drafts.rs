//! Checking a draft's content and resolving what it names: contact, accounts, taxes,
//! the paying account and the accounts a posting touches.

use std::collections::HashMap;

use time::Date;

use crate::accounts::{Account, AccountType};
use serde_json::{Value, json};

use crate::documents::foreign::{booked_in_base, issue_in_base};
use crate::documents::{
    Document, DocumentItem, DocumentKind, PostingAccounts, issue_entries, price_items, totals,
};
use crate::error::{DomainError, DomainResult, ErrorCode, Resource};
use crate::ids::{IdKind, parse_id};
use crate::jobs::{DocumentDraft, Job};
use crate::money::{parse_positive_units, parse_units};
use crate::ports::{Store, Tenant};
use crate::tax::Tax;
use crate::transactions::{EntryLine, check_balanced};
use crate::views;

use crate::services::Ledger;
use crate::services::accounts::check_postable;

use super::{
    DocumentItemInput, MAX_ITEM_TAXES, MAX_ITEMS, RECOVERABLE_TAX_SETTING, check_text,
    system_account,
};

impl<S: Store> Ledger<S> {
    /// The account a payment moves money through: the client's (an active asset account
    /// in the document's currency or, for a foreign document, in the base currency `base`)
    /// or the Cash system account (in the base currency).
    pub(super) async fn money_account(
        &self,
        tenant: &Tenant,
        currency: &str,
        base: &str,
        given: Option<&str>,
    ) -> DomainResult<String> {
        let account = match given {
            Some(id) => {
                let parsed = crate::ids::parse_reference(
                    IdKind::Account,
                    Resource::Account,
                    "account_id",
                    id,
                )?;
                let account = self
                    .store
                    .get_account(tenant, &parsed)
                    .await?
                    .ok_or_else(|| {
                        DomainError::reference_not_found("account_id", Resource::Account, &parsed)
                    })?;
                if account.account_type != AccountType::Asset {
                    return Err(DomainError::reference_not_usable(
                        "account_id",
                        Resource::Account,
                        &account.id,
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
        if account.currency == base && currency != base {
            check_postable(&account, base, "payment")?;
        } else {
            check_postable(&account, currency, "document")?;
        }
        Ok(account.id)
    }

    /// Checks a document's content and resolves its references: the contact (a live,
    /// enabled customer or vendor of the tenant, whose currency the document takes), the
    /// items' accounts (default Sales or General Expenses, in the base currency `base`,
    /// where a foreign document's items are booked) and taxes.
    #[expect(
        clippy::too_many_arguments,
        reason = "the parts of a draft as each write names them; a struct would only rename them"
    )]
    pub(in crate::services) async fn check_draft_input(
        &self,
        tenant: &Tenant,
        base: &str,
        kind: DocumentKind,
        contact_id: &str,
        issue_date: Date,
        due_date: Date,
        items: &[DocumentItemInput],
        notes: Option<&str>,
    ) -> DomainResult<DocumentDraft> {
        let parsed = crate::ids::parse_reference(
            IdKind::Contact,
            Resource::Contact,
            "contact_id",
            contact_id,
        )?;
        let contact = self
            .store
            .get_contact(tenant, &parsed)
            .await?
            .ok_or_else(|| {
                DomainError::reference_not_found("contact_id", Resource::Contact, &parsed)
            })?;
        if !contact.fields.enabled {
            return Err(DomainError::reference_not_usable(
                "contact_id",
                Resource::Contact,
                &contact.id,
                format!("contact '{}' is disabled", contact.id),
            ));
        }
        if !kind.accepts(contact.contact_type) {
            return Err(DomainError::reference_not_usable(
                "contact_id",
                Resource::Contact,
                &contact.id,
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
            return Err(DomainError::inconsistent(
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
                // The document's currency (its contact's) decides the places.
                .map_err(|e| e.refusal(field("unit_price"), &currency))?;
            if unit_price < 0 {
                return Err(DomainError::invalid_field(
                    field("unit_price"),
                    "must not be negative",
                ));
            }
            let account_id = match item.account_id.as_deref() {
                None => default_account.clone(),
                Some(id) => crate::ids::parse_reference(
                    IdKind::Account,
                    Resource::Account,
                    &field("account_id"),
                    id,
                )?,
            };
            if item.tax_ids.len() > MAX_ITEM_TAXES {
                return Err(DomainError::invalid_field(
                    field("tax_ids"),
                    format!("at most {MAX_ITEM_TAXES} taxes per item"),
                ));
            }
            let mut tax_ids = Vec::with_capacity(item.tax_ids.len());
            for id in &item.tax_ids {
                let parsed =
                    crate::ids::parse_reference(IdKind::Tax, Resource::Tax, &field("tax_ids"), id)?;
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
                DomainError::reference_not_found(field.clone(), Resource::Account, &line.account_id)
            })?;
            let fits = match kind {
                DocumentKind::Invoice => account.account_type == AccountType::Revenue,
                DocumentKind::Bill => matches!(
                    account.account_type,
                    AccountType::Expense | AccountType::Asset
                ),
            };
            if !fits {
                return Err(DomainError::reference_not_usable(
                    field,
                    Resource::Account,
                    &account.id,
                    match kind {
                        DocumentKind::Invoice => "must be a revenue account",
                        DocumentKind::Bill => "must be an expense or asset account",
                    },
                ));
            }
            if account.currency != base {
                return Err(DomainError::rule(
                    ErrorCode::CurrencyMismatch,
                    format!(
                        "account {} is in {}, but a {}'s items are booked in the organization's base currency {base} (a {currency} {} is converted at its date's rate)",
                        account.code,
                        account.currency,
                        kind.as_str(),
                        kind.as_str()
                    ),
                ));
            }
            check_postable(account, base, "document")?;
        }
        let taxes = self.item_taxes(tenant, &lines).await?;
        let mut priced = lines.clone();
        price_items(&mut priced, &taxes, decimals)?;
        let (_, _, total) = totals(&priced)?;
        if total <= 0 {
            return Err(DomainError::inconsistent(
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
    pub(super) async fn item_taxes(
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
                let field = format!("items[{i}].tax_ids");
                let tax = self.store.get_tax(tenant, id).await?.ok_or_else(|| {
                    DomainError::reference_not_found(field.clone(), Resource::Tax, id)
                })?;
                if !tax.is_active {
                    return Err(DomainError::reference_not_usable(
                        field,
                        Resource::Tax,
                        id,
                        format!("tax '{id}' is inactive"),
                    ));
                }
                taxes.insert(id.clone(), tax);
            }
        }
        Ok(taxes)
    }

    /// Prices a draft with the taxes' current rates into a document.
    pub(super) async fn build_document(
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

    /// The lines of a document's issuing posting, its accounts checked, and for a
    /// foreign document (not in the base currency `base`) the metadata of its rate.
    pub(super) async fn issue_posting_lines(
        &self,
        tenant: &Tenant,
        doc: &Document,
        base: &str,
    ) -> DomainResult<(Vec<EntryLine>, Value)> {
        let system = self.store.system_accounts(tenant).await?;
        let tax = match doc.kind {
            DocumentKind::Invoice => Some(system_account(&system, "sales_tax_payable")?.id.clone()),
            DocumentKind::Bill => self
                .store
                .get_setting(tenant, RECOVERABLE_TAX_SETTING)
                .await?
                .and_then(|s| parse_id(IdKind::Account, &s.value)),
        };
        if doc.currency == base {
            let control = match doc.kind {
                DocumentKind::Invoice => "accounts_receivable",
                DocumentKind::Bill => "accounts_payable",
            };
            let accounts = PostingAccounts {
                control: system_account(&system, control)?.id.clone(),
                tax,
            };
            let lines = issue_entries(doc, &accounts);
            self.check_lines(tenant, &doc.currency, &lines).await?;
            return Ok((lines, json!({})));
        }
        let foreign = self
            .foreign_accounts(tenant, doc.kind, &doc.currency, base)
            .await?;
        let accounts = PostingAccounts {
            control: foreign.control.clone(),
            tax,
        };
        let rate = self
            .document_rate(tenant, doc, base, doc.issue_date)
            .await?;
        let lines = issue_in_base(
            issue_entries(doc, &accounts),
            &foreign.control,
            &foreign.exchange,
            |units| rate.convert(units),
        )
        .ok_or_else(|| DomainError::Internal("a converted amount overflowed".into()))?;
        self.check_lines(tenant, &doc.currency, &lines).await?;
        let booked = booked_in_base(doc.kind, &lines, &foreign.exchange);
        let metadata = json!({
            "exchange_rate": rate.rate,
            "exchange_rate_date": views::date(rate.effective_date),
            "booked_in_base": crate::money::format_units(booked, views::decimals_of(base)),
            "base_currency": base,
        });
        Ok((lines, metadata))
    }

    /// Checks that every account of `lines` is live, accepts postings and is in its
    /// line's currency (`currency`, the document's, unless the line names another), and
    /// that the lines balance in each currency.
    pub(super) async fn check_lines(
        &self,
        tenant: &Tenant,
        currency: &str,
        lines: &[EntryLine],
    ) -> DomainResult<()> {
        let mut ids: Vec<String> = lines.iter().map(|l| l.account_id.clone()).collect();
        ids.sort();
        ids.dedup();
        let found = self.store.get_accounts(tenant, &ids).await?;
        for line in lines {
            let id = &line.account_id;
            let account = found.iter().find(|a| &a.id == id).ok_or_else(|| {
                DomainError::rule(
                    ErrorCode::AccountInactive,
                    format!("account {id} no longer exists; the posting cannot be written"),
                )
            })?;
            check_postable(account, line.currency_in(currency), "document")?;
        }
        check_balanced(lines, currency)?;
        Ok(())
    }

    /// The control account (receivable or payable) of a kind.
    pub(super) async fn control_account(
        &self,
        tenant: &Tenant,
        kind: DocumentKind,
    ) -> DomainResult<String> {
        let system = self.store.system_accounts(tenant).await?;
        let subtype = match kind {
            DocumentKind::Invoice => "accounts_receivable",
            DocumentKind::Bill => "accounts_payable",
        };
        Ok(system_account(&system, subtype)?.id.clone())
    }
}
