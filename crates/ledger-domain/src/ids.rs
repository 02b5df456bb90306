//! Prefixed identifiers: `<prefix>_<ULID>` (DECISIONS 2).
//!
//! Ids are generated with a lowercase prefix; any prefix case is accepted on input and
//! normalised, so `ACT_01H...` and `act_01h...` name the same account.

use ulid::Ulid;

/// The kinds of object that carry a prefixed id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdKind {
    Organization,
    Account,
    Transaction,
    Entry,
    Event,
    Request,
    ApiKey,
    User,
    Deletion,
    Tax,
    Category,
    Contact,
    Invoice,
    Bill,
    Payment,
    Batch,
    ExchangeRate,
    /// An ownership transfer (spec 2.1 shows `TRF_`).
    OrganizationTransfer,
    Attachment,
    /// A registered OAuth client (`client_id`).
    OAuthClient,
    /// What a user approved for an OAuth client (the refresh-token family).
    OAuthGrant,
    /// A recurring schedule.
    RecurringSchedule,
    /// One run of a recurring schedule.
    RecurringRun,
    WebhookEndpoint,
    WebhookDelivery,
    WebhookAttempt,
    Reconciliation,
    StatementLine,
    /// A credit purchase (hosted checkout).
    CreditPurchase,
}

impl IdKind {
    /// The lowercase prefix written before the underscore.
    pub fn prefix(self) -> &'static str {
        match self {
            Self::Organization => "org",
            Self::Account => "act",
            Self::Transaction => "txn",
            Self::Entry => "ent",
            Self::Event => "evt",
            Self::Request => "req",
            Self::ApiKey => "key",
            Self::User => "usr",
            Self::Deletion => "del",
            Self::Tax => "tax",
            Self::Category => "cat",
            Self::Contact => "con",
            Self::Invoice => "inv",
            Self::Bill => "bil",
            Self::Payment => "pay",
            Self::Batch => "bat",
            Self::ExchangeRate => "fx",
            Self::OrganizationTransfer => "trf",
            Self::Attachment => "att",
            Self::OAuthClient => "cli",
            Self::OAuthGrant => "grt",
            Self::RecurringSchedule => "rec",
            Self::RecurringRun => "rrn",
            Self::WebhookEndpoint => "we",
            Self::WebhookDelivery => "whd",
            Self::WebhookAttempt => "wha",
            Self::Reconciliation => "rcn",
            Self::StatementLine => "stl",
            Self::CreditPurchase => "cpur",
        }
    }
}

/// A fresh id of `kind`.
pub fn new_id(kind: IdKind) -> String {
    format!("{}_{}", kind.prefix(), Ulid::new())
}

/// Normalises an id given by a client, or `None` when it is not an id of `kind`.
pub fn parse_id(kind: IdKind, text: &str) -> Option<String> {
    let (prefix, rest) = text.trim().split_once('_')?;
    if !prefix.eq_ignore_ascii_case(kind.prefix()) {
        return None;
    }
    let ulid = Ulid::from_string(rest).ok()?;
    Some(format!("{}_{}", kind.prefix(), ulid))
}

/// Normalises an id a request member `field` gives for a record of `kind` (a body's
/// `contact_id`, a line's `account_id`). Text that is no id of `kind` names no record
/// either, so it is refused as the id of a missing one would be: `reference_not_found`
/// (422), whatever its shape (a path id that names nothing is 404 the same way).
///
/// # Errors
/// `reference_not_found` on `field`.
pub fn parse_reference(
    kind: IdKind,
    resource: crate::error::Resource,
    field: &str,
    text: &str,
) -> Result<String, crate::DomainError> {
    parse_id(kind, text)
        .ok_or_else(|| crate::DomainError::reference_not_found(field, resource, text.trim()))
}

/// Implements `ALL`, `as_str` and `parse` of a field-less enum from one list of
/// `Variant => "name"` pairs, so that each name is written once. `exact` parses the
/// names as stored; `loose` also accepts them trimmed and in any ASCII case (names a
/// client sends), trying the exact name first (a report parses one per row).
macro_rules! names {
    ($ty:ident, $parse:ident, { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// Every value, in declaration order.
            pub const ALL: [Self; [$($name),+].len()] = [$(Self::$variant),+];

            /// The name used on the wire and in storage.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)+
                }
            }

            /// Parses a name, exactly or, for a `loose` type, trimmed and in any case.
            pub fn parse(text: &str) -> Option<Self> {
                $crate::ids::names!(@parse $parse, text)
            }
        }
    };
    (@parse exact, $text:ident) => {
        Self::ALL.into_iter().find(|v| v.as_str() == $text)
    };
    (@parse loose, $text:ident) => {
        Self::ALL
            .into_iter()
            .find(|v| v.as_str() == $text)
            .or_else(|| {
                let text = $text.trim();
                Self::ALL
                    .into_iter()
                    .find(|v| v.as_str().eq_ignore_ascii_case(text))
            })
    };
}
pub(crate) use names;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_in_any_prefix_case() {
        let id = new_id(IdKind::Account);
        assert!(id.starts_with("act_"));
        assert_eq!(parse_id(IdKind::Account, &id).as_deref(), Some(id.as_str()));
        let upper = id
            .replacen("act_", "ACT_", 1)
            .to_ascii_lowercase()
            .replacen("act_", "ACT_", 1);
        assert_eq!(
            parse_id(IdKind::Account, &upper).as_deref(),
            Some(id.as_str())
        );
    }

    #[test]
    fn a_reference_that_is_no_id_names_no_record() {
        let id = new_id(IdKind::Contact);
        let upper = id.replacen("con_", "CON_", 1);
        assert_eq!(
            parse_reference(
                IdKind::Contact,
                crate::error::Resource::Contact,
                "contact_id",
                &upper
            ),
            Ok(id)
        );
        let refused = parse_reference(
            IdKind::Contact,
            crate::error::Resource::Contact,
            "contact_id",
            " 1000 ",
        )
        .unwrap_err();
        assert_eq!(refused.code(), crate::error::ErrorCode::ReferenceNotFound);
        assert_eq!(
            refused.details(),
            Some(serde_json::json!({"field": "contact_id", "resource": "contact", "id": "1000"}))
        );
    }

    #[test]
    fn wrong_kind_or_garbage_is_refused() {
        let id = new_id(IdKind::Account);
        assert_eq!(parse_id(IdKind::Transaction, &id), None);
        assert_eq!(parse_id(IdKind::Account, "act_notaulid"), None);
        assert_eq!(parse_id(IdKind::Account, "1000"), None);
    }
}
