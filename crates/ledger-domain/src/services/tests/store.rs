//! The memory store's own contracts, driven through the services: tenant isolation,
//! "in use" refusals, soft deletes and their purge.

use crate::error::{ErrorCode, UsedBy};
use crate::ports::{Accounts, Deletions, PageRequest, Tenant};
use crate::services::{NewCategoryInput, NewTransactionInput, RunOutcome, Write};
use crate::{Resource, ports::Categories};

use super::{World, entry, new_account, transfer};

const PAGE: PageRequest = PageRequest {
    limit: 100,
    offset: 0,
};

#[tokio::test]
async fn a_row_exists_only_for_its_organization_and_mode() {
    let w = World::new().await;
    let cash = w.account(&w.live, "1000").await;
    let store = w.store();
    assert!(
        store
            .get_account(&w.live.tenant, &cash)
            .await
            .expect("read")
            .is_some()
    );
    assert!(
        store
            .get_account(&w.test.tenant, &cash)
            .await
            .expect("read")
            .is_none()
    );
    let stranger = Tenant {
        organization_id: "org_someone_else".into(),
        livemode: true,
    };
    assert!(
        store
            .get_account(&stranger, &cash)
            .await
            .expect("read")
            .is_none()
    );
    let test_chart = store
        .list_accounts(&w.test.tenant, &Default::default(), None)
        .await
        .expect("list");
    assert_eq!(test_chart.total_count, 7);
    assert!(test_chart.items.iter().all(|a| !a.livemode));
    // Sorted by code.
    let codes: Vec<&str> = test_chart.items.iter().map(|a| a.code.as_str()).collect();
    let mut sorted = codes.clone();
    sorted.sort_unstable();
    assert_eq!(codes, sorted);
}

#[tokio::test]
async fn an_account_with_entries_is_in_use_and_an_unused_one_is_purged_after_retention() {
    let w = World::new().await;
    let id_of = |submitted: crate::services::Submitted| match submitted.outcome {
        crate::services::Outcome::Done(view) => view["id"].as_str().expect("id").to_owned(),
        other => panic!("{other:?}"),
    };
    let used = id_of(
        w.submit(&w.live, new_account("1500"))
            .await
            .expect("new account"),
    );
    let unused_id = id_of(
        w.submit(&w.live, new_account("1600"))
            .await
            .expect("new account"),
    );
    let sales = w.account(&w.live, "4000").await;
    w.submit(&w.live, transfer(&used, &sales, "1.00", false))
        .await
        .expect("pending transaction");
    w.run_jobs().await;
    // Even a pending transaction's entries keep the account.
    let store = w.store();
    let first = store
        .first_reference(&w.live.tenant, Resource::Account, &used)
        .await
        .expect("reference");
    assert_eq!(first, Some(UsedBy::LedgerEntries));
    let err = w
        .submit(&w.live, Write::DeleteAccount { id: used.clone() })
        .await
        .expect_err("in use");
    assert_eq!(err.code(), ErrorCode::ResourceInUse);
    let deleting = w
        .queue(
            &w.live,
            Write::DeleteAccount {
                id: unused_id.clone(),
            },
        )
        .await;
    let outcome = w.ledger.run_now(&deleting.id).await.expect("run");
    assert!(
        matches!(outcome, Some(RunOutcome::Completed(_))),
        "{outcome:?}"
    );
    assert!(
        store
            .get_account(&w.live.tenant, &unused_id)
            .await
            .expect("read")
            .is_none()
    );
    let deletions = store
        .list_deletions(&w.live.tenant, PAGE)
        .await
        .expect("list");
    assert_eq!(deletions.total_count, 1);
    assert_eq!(deletions.items[0].resource_id, unused_id);
    // Kept while recoverable, removed after.
    let now = w.ledger.now();
    let early = store.purge_expired(now, now).await.expect("purge");
    assert_eq!(early.accounts, 0);
    let later = now + time::Duration::days(w.ledger.config.retention_days);
    let report = store.purge_expired(later, later).await.expect("purge");
    assert_eq!(report.accounts, 1);
    assert_eq!(report.deletions, 1);
    let left = store
        .list_deletions(&w.live.tenant, PAGE)
        .await
        .expect("list");
    assert_eq!(left.total_count, 0);
}

#[tokio::test]
async fn a_category_named_by_a_live_transaction_is_in_use() {
    let w = World::new().await;
    let created = w
        .submit(
            &w.live,
            Write::CreateCategory(NewCategoryInput {
                name: "Travel".into(),
                category_type: "expense".into(),
                ..NewCategoryInput::default()
            }),
        )
        .await
        .expect("category");
    let category = match created.outcome {
        crate::services::Outcome::Done(view) => view["id"].as_str().expect("id").to_owned(),
        other => panic!("{other:?}"),
    };
    let (cash, expense) = (
        w.account(&w.live, "1000").await,
        w.account(&w.live, "5000").await,
    );
    w.submit(
        &w.live,
        Write::CreateTransaction(NewTransactionInput {
            description: "Train".into(),
            date: Some(w.ledger.now()),
            currency: None,
            reference: None,
            entries: vec![
                entry(&expense, "debit", "3.00"),
                entry(&cash, "credit", "3.00"),
            ],
            metadata: None,
            auto_post: true,
            contact_id: None,
            category_id: Some(category.clone()),
        }),
    )
    .await
    .expect("transaction");
    w.run_jobs().await;
    let store = w.store();
    let first = store
        .first_reference(&w.live.tenant, Resource::Category, &category)
        .await
        .expect("reference");
    assert_eq!(first, Some(UsedBy::Transactions));
    let err = w
        .submit(
            &w.live,
            Write::DeleteCategory {
                id: category.clone(),
            },
        )
        .await
        .expect_err("in use");
    assert_eq!(err.code(), ErrorCode::ResourceInUse);
    assert!(
        store
            .get_category(&w.live.tenant, &category)
            .await
            .expect("read")
            .is_some()
    );
    // Refused writes cost nothing: category 1, transaction 1.
    assert_eq!(w.credits(), 498);
}
