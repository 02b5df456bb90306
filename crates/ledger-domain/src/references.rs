//! "In use" (DECISIONS 10), defined once: which references keep each resource from
//! being deleted. The store checks each kind of reference by ids (never by matching
//! text) under the lock the delete takes, and reports the first it finds as
//! [`DomainError::InUse`](crate::error::DomainError::InUse); the domain words it.

use crate::error::{Resource, UsedBy};

/// The references that keep `resource` from being deleted, in the order they are
/// checked (and so reported).
pub fn used_by(resource: Resource) -> &'static [UsedBy] {
    match resource {
        // Any entry, of a pending, posted, reversed or deleted transaction: the journal
        // never loses the account its rows post to.
        Resource::Account => &[UsedBy::LedgerEntries],
        Resource::Contact => &[UsedBy::Transactions, UsedBy::Documents],
        // Transaction lines carry no tax of their own; items of invoices and bills do.
        Resource::Tax => &[UsedBy::Documents],
        Resource::Category => &[
            UsedBy::Transactions,
            UsedBy::Documents,
            UsedBy::Subcategories,
        ],
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_deletable_resource_names_its_references() {
        for resource in [
            Resource::Account,
            Resource::Contact,
            Resource::Tax,
            Resource::Category,
        ] {
            assert!(!used_by(resource).is_empty(), "{resource:?}");
        }
        assert!(used_by(Resource::Category).contains(&UsedBy::Documents));
    }
}
