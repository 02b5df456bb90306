//! Ownership transfers of organizations (spec 2.10, 3.1; DECISIONS 5).
//!
//! A transfer hands a sub-organization, with its whole subtree, from its owner to another
//! registered user. It starts `pending`; the recipient accepts or rejects it, the sender
//! cancels it, and past `expires_at` it is `expired`. Only a pending transfer changes
//! state, and it changes exactly once: the store applies every change by compare-and-set
//! on the stored status, so of two concurrent acts one wins.
//!
//! A pending transfer whose `expires_at` has passed *reads* as `expired` at once
//! ([`OrganizationTransfer::status_at`]); a periodic job then stores that status (and its
//! event), idempotently across replicas.

use time::OffsetDateTime;

use crate::organizations::Relationship;

/// How long a transfer waits for its recipient unless configured otherwise.
pub const DEFAULT_TRANSFER_EXPIRY: time::Duration = time::Duration::days(7);

/// The states of spec 3.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TransferStatus {
    Pending,
    Accepted,
    Rejected,
    Cancelled,
    Expired,
}

impl TransferStatus {
    /// Every status, in lifecycle order.
    pub const ALL: [TransferStatus; 5] = [
        Self::Pending,
        Self::Accepted,
        Self::Rejected,
        Self::Cancelled,
        Self::Expired,
    ];

    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Accepted => "accepted",
            Self::Rejected => "rejected",
            Self::Cancelled => "cancelled",
            Self::Expired => "expired",
        }
    }

    /// Parses a lowercase name.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }

    /// The event type of a change into this status.
    pub fn event_type(self) -> &'static str {
        match self {
            Self::Pending => "organization_transfer.initiated",
            Self::Accepted => "organization_transfer.accepted",
            Self::Rejected => "organization_transfer.rejected",
            Self::Cancelled => "organization_transfer.cancelled",
            Self::Expired => "organization_transfer.expired",
        }
    }
}

/// An ownership transfer as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct OrganizationTransfer {
    /// `trf_<ULID>`.
    pub id: String,
    pub organization_id: String,
    /// The organization's name when the transfer was initiated.
    pub organization_name: String,
    /// The organization's materialised path when the transfer was initiated: the
    /// sender's side. Keys of the organization or an ancestor at that time list and
    /// cancel it; an accept requires the organization to be there still.
    pub from_path: String,
    pub from_user_id: String,
    pub to_user_id: String,
    /// The stored status (see [`OrganizationTransfer::status_at`] for what it reads as).
    pub status: TransferStatus,
    pub relationship_on_accept: Option<Relationship>,
    /// The recipient's root organization the subtree was moved under (accepted only).
    pub to_organization_id: Option<String>,
    pub initiated_at: OffsetDateTime,
    pub responded_at: Option<OffsetDateTime>,
    pub expires_at: OffsetDateTime,
    /// Organizations below the transferred one: at initiation, then as moved on accept.
    pub descendant_org_count: i64,
    /// The key that initiated it.
    pub initiated_by: String,
    /// The key that accepted, rejected or cancelled it (none for an expiry).
    pub responded_by: Option<String>,
}

impl OrganizationTransfer {
    /// The status as of `now`: a pending transfer past `expires_at` is `expired`.
    pub fn status_at(&self, now: OffsetDateTime) -> TransferStatus {
        if self.status == TransferStatus::Pending && now >= self.expires_at {
            TransferStatus::Expired
        } else {
            self.status
        }
    }

    /// The organizations the transfer covers: the organization and its descendants.
    pub fn total_org_count(&self) -> i64 {
        self.descendant_org_count + 1
    }

    /// The path of the transferred organization once moved under a root at `root_path`.
    pub fn path_under(&self, root_path: &str) -> String {
        format!("{root_path}{}/", self.organization_id)
    }
}

/// A change of a pending transfer's status, applied by compare-and-set.
#[derive(Debug, Clone, PartialEq)]
pub struct TransferChange {
    pub transfer_id: String,
    /// `accepted`, `rejected`, `cancelled` or `expired`.
    pub status: TransferStatus,
    pub responded_at: OffsetDateTime,
    pub responded_by: Option<String>,
    /// Accepted only: the chosen relationship and where the subtree goes.
    pub accept: Option<Acceptance>,
}

/// What an accept moves, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct Acceptance {
    pub relationship: Relationship,
    /// The recipient's root organization, the new parent.
    pub root_id: String,
    /// The root's path (`/org_root/`).
    pub root_path: String,
    /// The new owner of every organization of the subtree.
    pub owner_user_id: String,
    /// The transferred organization's path the accept was decided from; the store
    /// refuses (`concurrent_update`) when the organization is no longer there.
    pub from_path: String,
    /// The organizations below the transferred one, as counted when the accept was
    /// decided (stored on the transfer).
    pub descendant_org_count: i64,
}

/// Figures of an organization's subtree in one mode (the transfer `stats`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SubtreeStats {
    /// The organization and its descendants.
    pub organizations: i64,
    pub accounts: i64,
    pub transactions: i64,
    pub invoices: i64,
    pub bills: i64,
    pub contacts: i64,
    pub categories: i64,
    /// Line items of the invoices and bills.
    pub items: i64,
    pub api_keys: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transfer(status: TransferStatus) -> OrganizationTransfer {
        let at = OffsetDateTime::UNIX_EPOCH;
        OrganizationTransfer {
            id: "trf_1".into(),
            organization_id: "org_b".into(),
            organization_name: "B".into(),
            from_path: "/org_a/org_b/".into(),
            from_user_id: "usr_a".into(),
            to_user_id: "usr_c".into(),
            status,
            relationship_on_accept: None,
            to_organization_id: None,
            initiated_at: at,
            responded_at: None,
            expires_at: at + DEFAULT_TRANSFER_EXPIRY,
            descendant_org_count: 2,
            initiated_by: "key_1".into(),
            responded_by: None,
        }
    }

    #[test]
    fn a_pending_transfer_reads_expired_from_its_expiry_on() {
        let t = transfer(TransferStatus::Pending);
        let just_before = t.expires_at - time::Duration::microseconds(1);
        assert_eq!(t.status_at(just_before), TransferStatus::Pending);
        assert_eq!(t.status_at(t.expires_at), TransferStatus::Expired);
        let done = transfer(TransferStatus::Rejected);
        assert_eq!(done.status_at(done.expires_at), TransferStatus::Rejected);
    }

    #[test]
    fn statuses_round_trip_and_paths_nest() {
        for s in TransferStatus::ALL {
            assert_eq!(TransferStatus::parse(s.as_str()), Some(s));
        }
        let t = transfer(TransferStatus::Pending);
        assert_eq!(t.path_under("/org_c/"), "/org_c/org_b/");
        assert_eq!(t.total_org_count(), 3);
    }
}
