//! Attachments: inserts with events and credits, tenant- and mode-scoped reads, an
//! owner's list in upload order, soft deletes, idempotent replays and refused writes
//! that leave nothing behind.

use ledger_domain::attachments::{Attachment, OwnerKind};
use ledger_domain::ids::{IdKind, new_id};
use ledger_domain::ports::{Audit, IdempotencyRecord, Store, Tenant, Written};
use ledger_domain::{Resource, StoreError};
use serde_json::json;

use crate::{T0, charge, deletion, event, sign_up};

fn attachment(tenant: &Tenant, owner: OwnerKind, owner_id: &str, minute: i64) -> Attachment {
    let id = new_id(IdKind::Attachment);
    Attachment {
        storage_key: format!("{}/{id}", tenant.organization_id),
        id,
        organization_id: tenant.organization_id.clone(),
        livemode: tenant.livemode,
        owner_type: owner,
        owner_id: owner_id.to_owned(),
        file_name: "receipt.pdf".into(),
        content_type: "application/pdf".into(),
        size_bytes: 1234,
        sha256: "ab".repeat(32),
        created_by: "key_1".into(),
        created_at: T0 + time::Duration::minutes(minute),
    }
}

async fn credits<S: Store>(db: &S, org_id: &str) -> i64 {
    db.get_organization(org_id)
        .await
        .expect("org")
        .expect("exists")
        .credits_remaining
}

contract!(attachments_are_written_read_listed_and_deleted_per_tenant);
async fn attachments_are_written_read_listed_and_deleted_per_tenant<S: Store>(
    db: &S,
    backend: &str,
) {
    let a = sign_up(db, "Att A").await;
    let b = sign_up(db, "Att B").await;
    let live = a.tenant(true);
    let owner = new_id(IdKind::Transaction);
    let second = attachment(&live, OwnerKind::Transaction, &owner, 2);
    let first = attachment(&live, OwnerKind::Transaction, &owner, 1);
    let on_bill = attachment(&live, OwnerKind::Bill, &owner, 3);
    for att in [&second, &first, &on_bill] {
        let written = db
            .insert_attachment(
                att.clone(),
                Audit {
                    event: event(&live, "attachment.created", "attachment", &att.id),
                    idempotency: None,
                    charge: Some(charge(&a, true, 1)),
                },
            )
            .await
            .expect("insert");
        assert_eq!(written, Written::Done(att.clone()), "{backend}");
    }
    assert_eq!(credits(db, &a.org.id).await, 497, "{backend}");
    assert_eq!(
        db.get_attachment(&live, &first.id).await.expect("get"),
        Some(first.clone()),
        "{backend}"
    );
    // Another organization, or the other mode, sees nothing.
    for tenant in [b.tenant(true), a.tenant(false)] {
        assert_eq!(
            db.get_attachment(&tenant, &first.id).await.expect("get"),
            None,
            "{backend}"
        );
        let found = db
            .list_attachments(&tenant, OwnerKind::Transaction, &owner)
            .await
            .expect("list");
        assert!(found.is_empty(), "{backend}");
    }
    // Oldest first, of the owner type asked for only.
    let found = db
        .list_attachments(&live, OwnerKind::Transaction, &owner)
        .await
        .expect("list");
    assert_eq!(found, vec![first.clone(), second.clone()], "{backend}");

    // Another tenant's deletion of it is not found, and changes nothing.
    let refused = db
        .delete_attachment(
            &first.id,
            deletion(&b.tenant(true), "attachment", &first.id),
            Audit {
                event: event(
                    &b.tenant(true),
                    "attachment.deleted",
                    "attachment",
                    &first.id,
                ),
                idempotency: None,
                charge: Some(charge(&b, true, 1)),
            },
        )
        .await;
    assert!(
        matches!(
            refused,
            Err(StoreError::Missing {
                resource: Resource::Attachment,
                ..
            })
        ),
        "{backend}: {refused:?}"
    );
    assert_eq!(credits(db, &b.org.id).await, 500, "{backend}");

    db.delete_attachment(
        &first.id,
        deletion(&live, "attachment", &first.id),
        Audit {
            event: event(&live, "attachment.deleted", "attachment", &first.id),
            idempotency: None,
            charge: Some(charge(&a, true, 1)),
        },
    )
    .await
    .expect("delete");
    assert_eq!(
        db.get_attachment(&live, &first.id).await.expect("get"),
        None,
        "{backend}"
    );
    let found = db
        .list_attachments(&live, OwnerKind::Transaction, &owner)
        .await
        .expect("list");
    assert_eq!(found, vec![second.clone()], "{backend}");
    let again = db
        .delete_attachment(
            &first.id,
            deletion(&live, "attachment", &first.id),
            Audit {
                event: event(&live, "attachment.deleted", "attachment", &first.id),
                idempotency: None,
                charge: Some(charge(&a, true, 1)),
            },
        )
        .await;
    assert!(
        matches!(again, Err(StoreError::Missing { .. })),
        "{backend}"
    );
    assert_eq!(credits(db, &a.org.id).await, 496, "{backend}");
}

contract!(a_used_key_replays_the_first_attachment);
async fn a_used_key_replays_the_first_attachment<S: Store>(db: &S, backend: &str) {
    let a = sign_up(db, "Att Replay").await;
    let live = a.tenant(true);
    let owner = new_id(IdKind::Invoice);
    let record = |result| IdempotencyRecord {
        organization_id: a.org.id.clone(),
        livemode: true,
        key: "att-1".into(),
        request_hash: "h".into(),
        job_id: None,
        result: Some(result),
        created_at: T0,
    };
    let first = attachment(&live, OwnerKind::Invoice, &owner, 1);
    db.insert_attachment(
        first.clone(),
        Audit {
            event: event(&live, "attachment.created", "attachment", &first.id),
            idempotency: Some(record(json!({"id": first.id}))),
            charge: Some(charge(&a, true, 1)),
        },
    )
    .await
    .expect("insert");
    let second = attachment(&live, OwnerKind::Invoice, &owner, 2);
    let replay = db
        .insert_attachment(
            second.clone(),
            Audit {
                event: event(&live, "attachment.created", "attachment", &second.id),
                idempotency: Some(record(json!({"id": second.id}))),
                charge: Some(charge(&a, true, 1)),
            },
        )
        .await
        .expect("replay");
    match replay {
        Written::Replay(stored) => {
            assert_eq!(stored.result, Some(json!({"id": first.id})), "{backend}")
        }
        Written::Done(_) => panic!("{backend}: the key was used"),
    }
    assert_eq!(
        db.get_attachment(&live, &second.id).await.expect("get"),
        None,
        "{backend}"
    );
    assert_eq!(credits(db, &a.org.id).await, 499, "{backend}");
}

contract!(an_attachment_without_credits_is_not_written);
async fn an_attachment_without_credits_is_not_written<S: Store>(db: &S, backend: &str) {
    let a = sign_up(db, "Att Broke").await;
    let live = a.tenant(true);
    let att = attachment(
        &live,
        OwnerKind::Transaction,
        &new_id(IdKind::Transaction),
        1,
    );
    let refused = db
        .insert_attachment(
            att.clone(),
            Audit {
                event: event(&live, "attachment.created", "attachment", &att.id),
                idempotency: None,
                charge: Some(charge(&a, true, 501)),
            },
        )
        .await;
    assert!(
        matches!(refused, Err(StoreError::CreditsShort { .. })),
        "{backend}: {refused:?}"
    );
    assert_eq!(
        db.get_attachment(&live, &att.id).await.expect("get"),
        None,
        "{backend}"
    );
    assert_eq!(credits(db, &a.org.id).await, 500, "{backend}");
}
