//! Ownership transfers: one pending transfer per organization, reads by side, the
//! compare-and-set of every status change (one act wins, an expiry only once it is due),
//! the move of a whole subtree on accept, its precondition, idempotent replays and the
//! subtree's figures.

use ledger_domain::ErrorCode;
use ledger_domain::ids::{IdKind, new_id};
use ledger_domain::organizations::{Organization, Relationship};
use ledger_domain::ownership::{
    Acceptance, DEFAULT_TRANSFER_EXPIRY, OrganizationTransfer, TransferChange, TransferStatus,
};
use ledger_domain::ports::{IdempotencyRecord, NewOrganization, Store, TransferFilter, Written};
use serde_json::json;

use crate::PAGE;
use crate::credits_left;
use crate::{Org, T0, charge, event, sign_up};

/// Creates an organization below `parent` (no chart, no keys).
async fn child<S: Store>(db: &S, parent: &Organization, name: &str) -> Organization {
    let id = new_id(IdKind::Organization);
    let organization = Organization {
        path: parent.child_path(&id),
        id,
        name: name.to_owned(),
        parent_id: Some(parent.id.clone()),
        relationship: Some(Relationship::Owned),
        owner_user_id: parent.owner_user_id.clone(),
        base_currency: "USD".to_owned(),
        credits_remaining: 0,
        credits_total: 0,
        metadata: json!({}),
        created_at: T0,
        updated_at: T0,
    };
    db.create_organization(NewOrganization {
        user: None,
        organization,
        accounts: vec![],
        keys: vec![],
        events: vec![],
    })
    .await
    .expect("sub-organization")
}

fn transfer(org: &Organization, to: &Org) -> OrganizationTransfer {
    OrganizationTransfer {
        id: new_id(IdKind::OrganizationTransfer),
        organization_id: org.id.clone(),
        organization_name: org.name.clone(),
        from_path: org.path.clone(),
        from_user_id: org.owner_user_id.clone(),
        to_user_id: to.org.owner_user_id.clone(),
        status: TransferStatus::Pending,
        relationship_on_accept: None,
        to_organization_id: None,
        initiated_at: T0,
        responded_at: None,
        expires_at: T0 + DEFAULT_TRANSFER_EXPIRY,
        descendant_org_count: 0,
        initiated_by: "key_x".to_owned(),
        responded_by: None,
    }
}

async fn insert<S: Store>(db: &S, t: &OrganizationTransfer) {
    let tenant = ledger_domain::ports::Tenant {
        organization_id: t.organization_id.clone(),
        livemode: true,
    };
    let written = db
        .insert_transfer(
            t.clone(),
            vec![event(
                &tenant,
                "organization_transfer.initiated",
                "organization_transfer",
                &t.id,
            )],
            None,
            None,
        )
        .await
        .expect("insert");
    assert!(matches!(written, Written::Done(_)));
}

fn change(t: &OrganizationTransfer, status: TransferStatus, minutes: i64) -> TransferChange {
    TransferChange {
        transfer_id: t.id.clone(),
        status,
        responded_at: T0 + time::Duration::minutes(minutes),
        responded_by: Some("key_y".to_owned()),
        accept: None,
    }
}

fn accept(t: &OrganizationTransfer, root: &Org, minutes: i64) -> TransferChange {
    TransferChange {
        accept: Some(Acceptance {
            relationship: Relationship::Linked,
            root_id: root.org.id.clone(),
            root_path: root.org.path.clone(),
            owner_user_id: root.org.owner_user_id.clone(),
            from_path: t.from_path.clone(),
            descendant_org_count: 1,
        }),
        ..change(t, TransferStatus::Accepted, minutes)
    }
}

contract!(a_transfer_changes_once_and_an_accept_moves_the_subtree);
async fn a_transfer_changes_once_and_an_accept_moves_the_subtree<S: Store>(db: &S, backend: &str) {
    let a = sign_up(db, "Own A").await;
    let c = sign_up(db, "Own C").await;
    let b = child(db, &a.org, "B").await;
    let b1 = child(db, &b, "B1").await;

    let first = transfer(&b, &c);
    insert(db, &first).await;
    let again = db
        .insert_transfer(transfer(&b, &c), vec![], None, None)
        .await
        .expect_err("one pending transfer per organization");
    assert_eq!(again.code(), ErrorCode::TransferAlreadyPending, "{backend}");
    assert_eq!(
        db.get_transfer(&first.id).await.expect("get"),
        Some(first.clone()),
        "{backend}"
    );
    let sent = db
        .list_transfers(&TransferFilter::SentFrom(a.org.path.clone()), PAGE)
        .await
        .expect("list");
    assert_eq!(sent.items, std::slice::from_ref(&first), "{backend}");
    let received = db
        .list_transfers(&TransferFilter::ToUser(c.org.owner_user_id.clone()), PAGE)
        .await
        .expect("list");
    assert_eq!(received.total_count, 1, "{backend}");
    let none = db
        .list_transfers(&TransferFilter::SentFrom(b1.path.clone()), PAGE)
        .await
        .expect("list");
    assert_eq!(none.total_count, 0, "{backend}");

    // Rejected once; every later act finds it no longer pending.
    let rejected = db
        .change_transfer(
            change(&first, TransferStatus::Rejected, 1),
            vec![],
            None,
            None,
        )
        .await
        .expect("reject");
    let Written::Done(rejected) = rejected else {
        panic!("{backend}: a replay")
    };
    assert_eq!(rejected.status, TransferStatus::Rejected, "{backend}");
    assert_eq!(rejected.responded_at, Some(T0 + time::Duration::minutes(1)));
    for late in [
        change(&first, TransferStatus::Cancelled, 2),
        accept(&first, &c, 2),
    ] {
        let refused = db.change_transfer(late, vec![], None, None).await;
        assert_eq!(
            refused.expect_err("not pending").code(),
            ErrorCode::ConcurrentUpdate,
            "{backend}"
        );
    }

    // Accepted: B and B1 move under C with their shape, owner and ids.
    let second = transfer(&b, &c);
    insert(db, &second).await;
    let tenant = ledger_domain::ports::Tenant {
        organization_id: b.id.clone(),
        livemode: true,
    };
    let accepted = db
        .change_transfer(
            accept(&second, &c, 3),
            vec![event(
                &tenant,
                "organization_transfer.accepted",
                "organization_transfer",
                &second.id,
            )],
            None,
            Some(charge(&c, true, 1)),
        )
        .await
        .expect("accept");
    let Written::Done(accepted) = accepted else {
        panic!("{backend}: a replay")
    };
    assert_eq!(accepted.status, TransferStatus::Accepted, "{backend}");
    assert_eq!(accepted.relationship_on_accept, Some(Relationship::Linked));
    assert_eq!(
        accepted.to_organization_id.as_deref(),
        Some(c.org.id.as_str())
    );
    let moved = db.get_organization(&b.id).await.expect("get").expect("b");
    assert_eq!(moved.path, format!("{}{}/", c.org.path, b.id), "{backend}");
    assert_eq!(moved.parent_id.as_deref(), Some(c.org.id.as_str()));
    assert_eq!(moved.relationship, Some(Relationship::Linked));
    assert_eq!(moved.owner_user_id, c.org.owner_user_id);
    let below = db.get_organization(&b1.id).await.expect("get").expect("b1");
    assert_eq!(below.path, format!("{}{}/", moved.path, b1.id), "{backend}");
    assert_eq!(below.parent_id.as_deref(), Some(b.id.as_str()));
    assert_eq!(below.owner_user_id, c.org.owner_user_id);
    let left = db.list_descendants(&a.org.path, PAGE).await.expect("list");
    assert_eq!(left.total_count, 0, "{backend}");
    let arrived = db.list_descendants(&c.org.path, PAGE).await.expect("list");
    let ids: Vec<&str> = arrived.items.iter().map(|o| o.id.as_str()).collect();
    assert_eq!(ids, [b.id.as_str(), b1.id.as_str()], "{backend}");
    let events = db
        .list_events(&tenant, "organization_transfer", &second.id)
        .await
        .expect("events");
    assert_eq!(events.len(), 2, "{backend}: initiated and accepted");
    assert_eq!(credits_left(db, &c.org.id).await, 499, "{backend}");
    let stats = db.subtree_stats(&moved.path, true).await.expect("stats");
    assert_eq!(
        (stats.organizations, stats.accounts, stats.api_keys),
        (2, 0, 0),
        "{backend}"
    );
    let whole = db.subtree_stats(&c.org.path, true).await.expect("stats");
    assert_eq!(whole.organizations, 3, "{backend}");
    assert_eq!(whole.api_keys, 1, "{backend}: C's live key");

    // A transfer decided from a path the organization has left is refused whole.
    let stale = transfer(&b1, &a);
    let stale = OrganizationTransfer {
        from_path: format!("{}{}/{}/", a.org.path, b.id, b1.id),
        ..stale
    };
    insert(db, &stale).await;
    let refused = db
        .change_transfer(
            accept(&stale, &a, 4),
            vec![],
            None,
            Some(charge(&a, true, 1)),
        )
        .await;
    assert_eq!(
        refused.expect_err("moved").code(),
        ErrorCode::ConcurrentUpdate,
        "{backend}"
    );
    let still = db.get_transfer(&stale.id).await.expect("get").expect("t");
    assert_eq!(
        still.status,
        TransferStatus::Pending,
        "{backend}: rolled back"
    );
    assert_eq!(
        credits_left(db, &a.org.id).await,
        500,
        "{backend}: nothing charged"
    );
}

contract!(expiry_is_stored_once_and_only_when_due);
async fn expiry_is_stored_once_and_only_when_due<S: Store>(db: &S, backend: &str) {
    let a = sign_up(db, "Exp A").await;
    let c = sign_up(db, "Exp C").await;
    let d = child(db, &a.org, "D").await;
    let t = transfer(&d, &c);
    insert(db, &t).await;
    let week = DEFAULT_TRANSFER_EXPIRY.whole_minutes();
    assert!(
        db.expirable_transfers(T0, 10)
            .await
            .expect("due")
            .is_empty()
    );
    let early = db
        .change_transfer(change(&t, TransferStatus::Expired, 60), vec![], None, None)
        .await;
    assert_eq!(
        early.expect_err("not due").code(),
        ErrorCode::ConcurrentUpdate,
        "{backend}"
    );
    let late = T0 + DEFAULT_TRANSFER_EXPIRY;
    let due = db.expirable_transfers(late, 10).await.expect("due");
    assert_eq!(due, std::slice::from_ref(&t), "{backend}");
    // Past expiry, nothing but the expiry applies.
    let refused = db
        .change_transfer(accept(&t, &c, week + 1), vec![], None, None)
        .await;
    assert_eq!(
        refused.expect_err("expired").code(),
        ErrorCode::ConcurrentUpdate,
        "{backend}"
    );
    db.change_transfer(
        change(&t, TransferStatus::Expired, week + 1),
        vec![],
        None,
        None,
    )
    .await
    .expect("expire");
    let twice = db
        .change_transfer(
            change(&t, TransferStatus::Expired, week + 2),
            vec![],
            None,
            None,
        )
        .await;
    assert_eq!(
        twice.expect_err("once").code(),
        ErrorCode::ConcurrentUpdate,
        "{backend}"
    );
    assert!(
        db.expirable_transfers(late, 10)
            .await
            .expect("due")
            .is_empty()
    );
    // The organization may have a new pending transfer now.
    insert(db, &transfer(&d, &c)).await;
}

contract!(a_replayed_key_answers_the_first_change);
async fn a_replayed_key_answers_the_first_change<S: Store>(db: &S, backend: &str) {
    let a = sign_up(db, "Idem A").await;
    let c = sign_up(db, "Idem C").await;
    let e = child(db, &a.org, "E").await;
    let t = transfer(&e, &c);
    insert(db, &t).await;
    let record = IdempotencyRecord {
        organization_id: a.org.id.clone(),
        livemode: true,
        key: "cancel-1".into(),
        request_hash: "h".into(),
        job_id: None,
        result: Some(json!({ "id": t.id })),
        created_at: T0,
    };
    let first = db
        .change_transfer(
            change(&t, TransferStatus::Cancelled, 1),
            vec![],
            Some(record.clone()),
            Some(charge(&a, true, 1)),
        )
        .await
        .expect("cancel");
    assert!(matches!(first, Written::Done(_)), "{backend}");
    let replay = db
        .change_transfer(
            change(&t, TransferStatus::Cancelled, 2),
            vec![],
            Some(record),
            Some(charge(&a, true, 1)),
        )
        .await
        .expect("replay");
    assert!(
        matches!(replay, Written::Replay(r) if r.result == Some(json!({ "id": t.id }))),
        "{backend}"
    );
    assert_eq!(
        credits_left(db, &a.org.id).await,
        499,
        "{backend}: charged once"
    );
}
