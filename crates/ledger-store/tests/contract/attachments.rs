//! Attachments: inserts with events and credits, tenant- and mode-scoped reads, an
//! owner's list in upload order, soft deletes, idempotent replays and refused writes
//! that leave nothing behind.

use ledger_domain::attachments::{Attachment, OwnerKind};
use ledger_domain::ids::{IdKind, new_id};
use ledger_domain::ports::{Store, Tenant};
use ledger_domain::{Resource, StoreError};

use crate::charged;
use crate::credits_left;
use crate::lifecycle;
use crate::sign_up_each;
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

contract!(attachments_are_written_read_listed_and_deleted_per_tenant);
async fn attachments_are_written_read_listed_and_deleted_per_tenant<S: Store>(
    db: &S,
    backend: &str,
) {
    let [a, b] = sign_up_each(db, ["Att A", "Att B"]).await;
    let live = a.tenant(true);
    let owner = new_id(IdKind::Transaction);
    let second = attachment(&live, OwnerKind::Transaction, &owner, 2);
    let first = attachment(&live, OwnerKind::Transaction, &owner, 1);
    let on_bill = attachment(&live, OwnerKind::Bill, &owner, 3);
    for att in [&second, &first, &on_bill] {
        lifecycle::insert_charged(db, backend, &a, att).await;
    }
    assert_eq!(credits_left(db, &a.org.id).await, 497, "{backend}");
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
            charged(
                event(
                    &b.tenant(true),
                    "attachment.deleted",
                    "attachment",
                    &first.id,
                ),
                charge(&b, true, 1),
            ),
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
    assert_eq!(credits_left(db, &b.org.id).await, 500, "{backend}");

    db.delete_attachment(
        &first.id,
        deletion(&live, "attachment", &first.id),
        charged(
            event(&live, "attachment.deleted", "attachment", &first.id),
            charge(&a, true, 1),
        ),
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
            charged(
                event(&live, "attachment.deleted", "attachment", &first.id),
                charge(&a, true, 1),
            ),
        )
        .await;
    assert!(
        matches!(again, Err(StoreError::Missing { .. })),
        "{backend}"
    );
    assert_eq!(credits_left(db, &a.org.id).await, 496, "{backend}");
}

contract!(a_used_key_replays_the_first_attachment);
async fn a_used_key_replays_the_first_attachment<S: Store>(db: &S, backend: &str) {
    let a = sign_up(db, "Att Replay").await;
    let live = a.tenant(true);
    let owner = new_id(IdKind::Invoice);
    let [first, second] =
        [1, 2].map(|minute| attachment(&live, OwnerKind::Invoice, &owner, minute));
    lifecycle::a_used_key_replays_the_first(db, backend, (&a, "att-1"), [first, second]).await;
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
    let refused = lifecycle::insert_paid(db, &a, &att, 501).await;
    assert!(
        matches!(refused, Err(StoreError::CreditsShort { .. })),
        "{backend}: {refused:?}"
    );
    assert_eq!(
        db.get_attachment(&live, &att.id).await.expect("get"),
        None,
        "{backend}"
    );
    assert_eq!(credits_left(db, &a.org.id).await, 500, "{backend}");
}
