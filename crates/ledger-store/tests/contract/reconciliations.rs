//! Reconciliations: one open per account, changes only while open and as read, one
//! match per entry, statement lines, the entries of an account with their match, the
//! lock of a completed reconciliation's transactions, deletes that free entries, and
//! tenancy.

use ledger_domain::accounts::AccountType;
use ledger_domain::ids::{IdKind, new_id};
use ledger_domain::ports::{
    Audit, EntryFilter, PageRequest, ReconciliationFilter, Store, Tenant, Written,
};
use ledger_domain::reconciliation::{
    ReconciledEntry, Reconciliation, ReconciliationChange, ReconciliationStatus, StatementLine,
};
use ledger_domain::transactions::TransactionStatus;
use time::macros::date;

use crate::absent;
use crate::charged;
use crate::journal::insert;
use crate::sign_up_each;
use crate::{T0, account_id, charge, deletion, event, transaction};

fn reconciliation(tenant: &Tenant, account: &str) -> Reconciliation {
    Reconciliation {
        id: new_id(IdKind::Reconciliation),
        organization_id: tenant.organization_id.clone(),
        livemode: tenant.livemode,
        account_id: account.to_owned(),
        account_type: AccountType::Asset,
        currency: "USD".into(),
        start_date: date!(2026 - 01 - 01),
        end_date: date!(2026 - 01 - 31),
        opening_balance: 0,
        closing_balance: 100_000,
        status: ReconciliationStatus::Open,
        completed_at: None,
        created_at: T0,
        updated_at: T0,
        matches: vec![],
    }
}

fn change(
    r: &Reconciliation,
    add: Vec<ReconciledEntry>,
    remove: Vec<String>,
) -> ReconciliationChange {
    let mut next = r.clone();
    next.updated_at = r.updated_at + time::Duration::seconds(1);
    ReconciliationChange {
        reconciliation: next,
        expected_updated_at: r.updated_at,
        add,
        remove,
        lines: vec![],
    }
}

const PAGE: PageRequest = crate::page(10, 0);

/// The reconciliation that locks the transaction `txn_id` for `tenant`, if one does.
async fn locked_by<S: Store>(db: &S, tenant: &Tenant, txn_id: &str) -> Option<String> {
    db.reconciliation_locking(tenant, txn_id)
        .await
        .expect("lock")
}

contract!(reconciliations_match_complete_lock_and_delete);
async fn reconciliations_match_complete_lock_and_delete<S: Store>(db: &S, backend: &str) {
    let [a, b] = sign_up_each(db, ["Rec A", "Rec B"]).await;
    let live = a.tenant(true);
    let cash = account_id(db, &live, "1000").await;
    let sales = account_id(db, &live, "4000").await;
    let txn = transaction(&live, T0, TransactionStatus::Posted, &cash, &sales, 100_000);
    let entry_id = txn.entries[0].id.clone();
    insert(db, &a, txn.clone()).await;
    let pending = transaction(&live, T0, TransactionStatus::Pending, &cash, &sales, 5);
    insert(db, &a, pending).await;

    let r = reconciliation(&live, &cash);
    let ev = || event(&live, "reconciliation.created", "reconciliation", "rec");
    db.insert_reconciliation(r.clone(), charged(ev(), charge(&a, true, 1)))
        .await
        .expect("insert");
    let twin = reconciliation(&live, &cash);
    let err = db
        .insert_reconciliation(twin, Audit::of(ev()))
        .await
        .expect_err("one open per account");
    assert_eq!(
        err.code().as_str(),
        "reconciliation_in_progress",
        "{backend}"
    );

    // Only counted entries of the account; the pending transaction's are not.
    let filter = EntryFilter {
        account_id: cash.clone(),
        from: Some(date!(2026 - 01 - 15)),
        until: Some(date!(2026 - 01 - 15)),
        ..EntryFilter::default()
    };
    let entries = db.journal_entries(&live, &filter).await.expect("entries");
    assert_eq!(entries.len(), 1, "{backend}");
    assert_eq!(
        (entries[0].amount, entries[0].reconciliation_id.clone()),
        (100_000, None)
    );
    assert_eq!(entries[0].transaction_reference.as_deref(), Some("INV-1"));
    let later = EntryFilter {
        from: Some(date!(2026 - 01 - 16)),
        ..filter.clone()
    };
    assert!(
        db.journal_entries(&live, &later)
            .await
            .expect("entries")
            .is_empty()
    );

    let line = StatementLine {
        id: new_id(IdKind::StatementLine),
        organization_id: live.organization_id.clone(),
        livemode: true,
        reconciliation_id: r.id.clone(),
        line_number: 1,
        date: date!(2026 - 01 - 15),
        amount: 100_000,
        description: "deposit".into(),
        reference: Some("FIT-1".into()),
        created_at: T0,
    };
    let m = ReconciledEntry {
        entry_id: entry_id.clone(),
        transaction_id: txn.id.clone(),
        date: date!(2026 - 01 - 15),
        amount: 100_000,
        description: "sale".into(),
        statement_line_id: Some(line.id.clone()),
        matched_at: T0,
    };
    let mut first = change(&r, vec![m.clone()], vec![]);
    first.lines = vec![line.clone()];
    let ev = || event(&live, "reconciliation.updated", "reconciliation", &r.id);
    db.save_reconciliation(first.clone(), Audit::of(ev()))
        .await
        .expect("matched");
    // A change decided on the old state is refused.
    let err = db
        .save_reconciliation(change(&r, vec![], vec![]), Audit::of(ev()))
        .await
        .expect_err("stale");
    assert_eq!(err.code().as_str(), "concurrent_update", "{backend}");
    let got = db
        .get_reconciliation(&live, &r.id)
        .await
        .expect("get")
        .expect("live");
    assert_eq!(got.matches, vec![m.clone()], "{backend}");
    assert_eq!(got.difference(), 0);
    assert_eq!(
        db.statement_lines(&live, &r.id).await.expect("lines"),
        vec![line]
    );
    let entries = db.journal_entries(&live, &filter).await.expect("entries");
    assert_eq!(entries[0].reconciliation_id.as_deref(), Some(r.id.as_str()));
    let unmatched = EntryFilter {
        unmatched_only: true,
        ..filter.clone()
    };
    assert!(
        db.journal_entries(&live, &unmatched)
            .await
            .expect("entries")
            .is_empty()
    );
    assert_eq!(locked_by(db, &live, &txn.id).await, None);

    // Complete: the transaction is locked, and nothing changes any more.
    let mut done = change(&got, vec![], vec![]);
    done.reconciliation.status = ReconciliationStatus::Completed;
    done.reconciliation.completed_at = Some(T0);
    db.save_reconciliation(done.clone(), Audit::of(ev()))
        .await
        .expect("completed");
    assert_eq!(
        locked_by(db, &live, &txn.id).await,
        Some(r.id.clone()),
        "{backend}"
    );
    assert_eq!(locked_by(db, &a.tenant(false), &txn.id).await, None);
    let completed = db
        .get_reconciliation(&live, &r.id)
        .await
        .expect("get")
        .expect("live");
    let err = db
        .save_reconciliation(change(&completed, vec![], vec![]), Audit::of(ev()))
        .await
        .expect_err("completed");
    assert_eq!(err.code().as_str(), "reconciliation_not_open", "{backend}");
    let err = db
        .delete_reconciliation(
            &r.id,
            deletion(&live, "reconciliation", &r.id),
            Audit::of(ev()),
        )
        .await
        .expect_err("completed");
    assert_eq!(err.code().as_str(), "reconciliation_not_open", "{backend}");

    // The next one cannot match the same entry; deleting it frees what it matched.
    let next = reconciliation(&live, &cash);
    db.insert_reconciliation(next.clone(), Audit::of(ev()))
        .await
        .expect("the next");
    let err = db
        .save_reconciliation(change(&next, vec![m.clone()], vec![]), Audit::of(ev()))
        .await
        .expect_err("matched elsewhere");
    assert_eq!(err.code().as_str(), "entry_already_matched", "{backend}");
    let filter_page = ReconciliationFilter {
        account_id: Some(cash.clone()),
        status: Some(ReconciliationStatus::Completed),
    };
    let page = db
        .list_reconciliations(&live, &filter_page, PAGE)
        .await
        .expect("list");
    assert_eq!(
        (page.total_count, page.items[0].matches.len()),
        (1, 1),
        "{backend}"
    );
    let written = db
        .delete_reconciliation(
            &next.id,
            deletion(&live, "reconciliation", &next.id),
            Audit::of(ev()),
        )
        .await
        .expect("deleted");
    assert!(matches!(written, Written::Done(())));
    absent(db.get_reconciliation(&live, &next.id).await, backend);

    // Another tenant sees none of it.
    let other = b.tenant(true);
    absent(db.get_reconciliation(&other, &r.id).await, backend);
    assert!(
        db.statement_lines(&other, &r.id)
            .await
            .expect("lines")
            .is_empty()
    );
    let all = db
        .list_reconciliations(&other, &ReconciliationFilter::default(), PAGE)
        .await
        .expect("list");
    assert_eq!(all.total_count, 0);
    let theirs = EntryFilter {
        account_id: cash.clone(),
        ..EntryFilter::default()
    };
    assert!(
        db.journal_entries(&other, &theirs)
            .await
            .expect("entries")
            .is_empty()
    );
    assert_eq!(locked_by(db, &other, &txn.id).await, None);
}
