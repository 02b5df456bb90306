//! The error table and the wording, details and stored form of refusals.

use serde_json::json;

use super::*;

#[test]
fn every_code_parses_back_and_is_unique() {
    let mut seen = std::collections::HashSet::new();
    for code in ErrorCode::ALL {
        assert_eq!(ErrorCode::parse(code.as_str()), Some(*code));
        assert!(seen.insert(code.as_str()), "{code} twice");
    }
    assert_eq!(ErrorCode::parse("no_such_code"), None);
}

#[test]
fn stored_errors_keep_code_kind_and_details() {
    let original = DomainError::Unbalanced {
        currency: "USD".into(),
        total_debits: "10.00".into(),
        total_credits: "9.00".into(),
        difference: "1.00".into(),
    };
    let back = DomainError::from_stored(&original.to_stored());
    assert_eq!(back.code(), ErrorCode::UnbalancedTransaction);
    assert_eq!(back.kind(), ErrorKind::BusinessRule);
    assert_eq!(back.details(), original.details());
    assert_eq!(back.public_message(), original.public_message());
    let unknown = DomainError::from_stored(&json!({"code": "nonsense", "message": "x"}));
    assert_eq!(unknown.kind(), ErrorKind::Internal);
}

#[test]
fn references_and_inconsistencies_are_business_rules_with_their_field() {
    let missing =
        DomainError::reference_not_found("entries[1].account_id", Resource::Account, "acc_9");
    assert_eq!(missing.code(), ErrorCode::ReferenceNotFound);
    assert_eq!(missing.kind(), ErrorKind::BusinessRule);
    assert_eq!(
        missing.to_string(),
        "entries[1].account_id: no account 'acc_9' in this organization"
    );
    assert_eq!(
        missing.details(),
        Some(json!({"field": "entries[1].account_id", "resource": "account", "id": "acc_9"}))
    );
    let back = DomainError::from_stored(&missing.to_stored());
    assert_eq!(back.code(), ErrorCode::ReferenceNotFound);
    assert_eq!(back.details(), missing.details());

    let inconsistent =
        DomainError::inconsistent("to_currency_id", "must differ from from_currency_id");
    assert_eq!(inconsistent.code(), ErrorCode::InconsistentFields);
    assert_eq!(inconsistent.kind(), ErrorKind::BusinessRule);
    assert_eq!(
        inconsistent.to_string(),
        "to_currency_id: must differ from from_currency_id"
    );
    assert_eq!(
        inconsistent.details(),
        Some(json!({"field": "to_currency_id"}))
    );
    // An end before its start is invalid input, with the same words and field.
    let invalid = DomainError::invalid_field("end_date", "must not be before start_date");
    assert_eq!(invalid.code(), ErrorCode::InvalidField);
    assert_eq!(invalid.kind(), ErrorKind::Validation);
    assert_eq!(
        invalid.to_string(),
        "end_date: must not be before start_date"
    );
    assert_eq!(invalid.details(), Some(json!({"field": "end_date"})));
}

#[test]
fn in_use_is_worded_once() {
    let e = DomainError::InUse {
        resource: Resource::Tax,
        id: "tax_1".into(),
        by: UsedBy::Documents,
    };
    assert_eq!(e.code(), ErrorCode::ResourceInUse);
    assert_eq!(
        e.to_string(),
        "tax tax_1 is used by invoices or bills; deactivate it instead"
    );
    assert_eq!(
        DomainError::ClaimLost("req_1".into()).kind(),
        ErrorKind::Internal
    );
}
