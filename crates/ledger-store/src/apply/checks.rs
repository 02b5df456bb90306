//! The checks a write makes inside its transaction: locked accounts still live and
//! active, named parties still live, preconditions reported as the facts they are.

use ledger_domain::ports::Taken;
use ledger_domain::{Resource, StoreError};

use crate::db::{TxError, unique_or};
use crate::locks::AccountLocks;
use crate::rows::{DocumentReferenceRow, EntryRow, TransactionRow};

pub(super) fn changed_meanwhile(id: &str) -> TxError {
    StoreError::changed(id).into()
}

/// The refusal when a contact's reference is taken (the partial unique index fired).
pub(super) fn duplicate_reference(e: diesel::result::Error, reference: Option<&String>) -> TxError {
    unique_or(e, || {
        StoreError::Taken(Taken::ContactReference {
            reference: reference.cloned().unwrap_or_default(),
        })
    })
}

/// Checks that every account of `wanted` came back from the lock: live, and active
/// unless `any_status` (a reversal may correct an account that was deactivated since).
pub(crate) fn check_locked(
    wanted: &[String],
    locked: &[(String, String)],
    any_status: bool,
) -> Result<(), StoreError> {
    for id in wanted {
        match locked.iter().find(|(found, _)| found == id) {
            None => {
                return Err(StoreError::Vanished {
                    resource: Resource::Account,
                    id: id.clone(),
                });
            }
            Some((_, status)) if !any_status && status != "active" => {
                return Err(StoreError::Inactive {
                    resource: Resource::Account,
                    id: id.clone(),
                    status: status.clone(),
                });
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// Share-locks the categories a document's items name and refuses the write when one
/// was deleted since validation (as [`check_parties`] does for a transaction's).
pub(super) async fn lock_categories<C: AccountLocks>(
    conn: &mut C,
    org: &str,
    livemode: bool,
    references: &[DocumentReferenceRow],
) -> Result<(), TxError> {
    for reference in references
        .iter()
        .filter(|r| r.target_type == crate::rows::CATEGORY_TARGET)
    {
        if !conn
            .lock_category(org, livemode, &reference.target_id, false)
            .await?
        {
            return Err(StoreError::Vanished {
                resource: Resource::Category,
                id: reference.target_id.clone(),
            }
            .into());
        }
    }
    Ok(())
}

/// Share-locks the contact and category `row` names and refuses the write when either
/// was deleted since validation.
pub(crate) async fn check_parties<C: AccountLocks>(
    conn: &mut C,
    org: &str,
    livemode: bool,
    row: &TransactionRow,
) -> Result<(), TxError> {
    if let Some(contact) = &row.contact_id
        && !conn.lock_contact(org, livemode, contact, false).await?
    {
        return Err(StoreError::Vanished {
            resource: Resource::Contact,
            id: contact.clone(),
        }
        .into());
    }
    if let Some(category) = &row.category_id
        && !conn.lock_category(org, livemode, category, false).await?
    {
        return Err(StoreError::Vanished {
            resource: Resource::Category,
            id: category.clone(),
        }
        .into());
    }
    Ok(())
}

/// The distinct account ids of `entries`, sorted.
pub(super) fn account_ids(entries: &[EntryRow]) -> Vec<String> {
    let mut ids: Vec<String> = entries.iter().map(|e| e.account_id.clone()).collect();
    ids.sort();
    ids.dedup();
    ids
}
