//! Validating the entries of a transaction against the tenant's accounts: they exist and
//! accept postings, each amount fits its account's currency, and every currency
//! balances.

use std::collections::HashMap;

use crate::accounts::{Account, EntryType};
use crate::error::{DomainError, DomainResult, Resource};
use crate::ids::IdKind;
use crate::money::{Currency, parse_positive_units};
use crate::ports::Store;
use crate::transactions::{EntryLine, check_balanced};

use crate::services::accounts::check_postable;
use crate::services::{Access, Ledger};

use super::EntryInput;

impl<S: Store> Ledger<S> {
    /// Validates entries against the tenant's accounts: they exist and accept postings;
    /// each line is in its account's currency, its amount fits that currency, and every
    /// currency balances (see [`check_balanced`]). Answers the transaction's currency
    /// (`currency`, else the organization's base currency when a line uses it, else the
    /// first line's) with the lines.
    pub(super) async fn validate_entries(
        &self,
        access: &Access,
        currency: Option<&str>,
        entries: &[EntryInput],
    ) -> DomainResult<(String, Vec<EntryLine>)> {
        if entries.is_empty() {
            return Err(DomainError::missing_field("entries"));
        }
        if entries.len() > 500 {
            return Err(DomainError::invalid_field(
                "entries",
                "at most 500 entries per transaction",
            ));
        }
        let mut parsed = Vec::with_capacity(entries.len());
        for (i, e) in entries.iter().enumerate() {
            let account_id = crate::ids::parse_reference(
                IdKind::Account,
                Resource::Account,
                &format!("entries[{i}].account_id"),
                &e.account_id,
            )?;
            let entry_type = EntryType::parse(&e.entry_type).ok_or_else(|| {
                DomainError::invalid_field(
                    format!("entries[{i}].entry_type"),
                    "must be 'debit' or 'credit'",
                )
            })?;
            parsed.push((account_id, entry_type));
        }
        let found = self
            .accounts_by_id(access, parsed.iter().map(|(id, _)| id))
            .await?;
        let mut accounts = Vec::with_capacity(parsed.len());
        for (i, (account_id, _)) in parsed.iter().enumerate() {
            let account = found.get(account_id).ok_or_else(|| {
                DomainError::reference_not_found(
                    format!("entries[{i}].account_id"),
                    Resource::Account,
                    account_id,
                )
            })?;
            check_postable(account, &account.currency, "transaction")?;
            accounts.push(account);
        }
        let currency = match currency {
            Some(code) => code.to_owned(),
            None => {
                let base = &access.organization.base_currency;
                if accounts.iter().any(|a| &a.currency == base) {
                    base.clone()
                } else {
                    accounts[0].currency.clone()
                }
            }
        };
        let mut lines = Vec::with_capacity(entries.len());
        for (i, ((e, (account_id, entry_type)), account)) in
            entries.iter().zip(parsed).zip(accounts).enumerate()
        {
            let code = account.currency.as_str();
            let decimals = Currency::from_code(code).map_or(2, |c| c.decimals());
            // More places than the account's currency has is invalid input (400).
            let amount = parse_positive_units(&e.amount, decimals)
                .map_err(|err| err.refusal(format!("entries[{i}].amount"), code))?;
            lines.push(EntryLine {
                account_id,
                entry_type,
                amount,
                description: e.description.clone(),
                currency: (code != currency).then(|| code.to_owned()),
            });
        }
        check_balanced(&lines, &currency)?;
        Ok((currency, lines))
    }

    /// The live accounts of the tenant among `ids`, by id (copies read moments ago will
    /// do: a write re-checks its accounts under lock).
    async fn accounts_by_id<'a>(
        &self,
        access: &Access,
        ids: impl Iterator<Item = &'a String>,
    ) -> DomainResult<HashMap<String, Account>> {
        let mut ids: Vec<String> = ids.cloned().collect();
        ids.sort();
        ids.dedup();
        let (mut accounts, missing) = self.account_cache.get(&access.tenant, &ids);
        if !missing.is_empty() {
            let read = self.store.get_accounts(&access.tenant, &missing).await?;
            self.account_cache.put(&access.tenant, &read);
            accounts.extend(read);
        }
        Ok(accounts.into_iter().map(|a| (a.id.clone(), a)).collect())
    }
}
