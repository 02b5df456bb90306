//! Batched balances (`totals_of_accounts`) and credits taken on their own
//! (`spend_credits`), on every backend.

use ledger_domain::StoreError;
use ledger_domain::accounts::Totals;
use ledger_domain::ports::Store;
use ledger_domain::transactions::TransactionStatus;
use time::macros::datetime;

use crate::credits_left;
use crate::harness::{Probe, in_statements};
use crate::journal::insert;
use crate::sign_up_each;
use crate::{T0, account_id, charge, sign_up};

/// Two organizations, A's live books and three of its accounts: the set-up of the
/// batched-read tests.
struct Books {
    a: crate::Org,
    b: crate::Org,
    live: ledger_domain::ports::Tenant,
    cash: String,
    sales: String,
    payable: String,
}

async fn books<S: Probe>(db: &S) -> Books {
    let [a, b] = sign_up_each(db, ["A", "B"]).await;
    let live = a.tenant(true);
    let cash = account_id(db, &live, "1000").await;
    let sales = account_id(db, &live, "4000").await;
    let payable = account_id(db, &live, "2000").await;
    Books {
        a,
        b,
        live,
        cash,
        sales,
        payable,
    }
}

contract!(totals_of_many_accounts_in_one_query_per_tenant);
async fn totals_of_many_accounts_in_one_query_per_tenant<S: Probe>(db: &S, backend: &str) {
    let Books {
        a,
        b,
        live,
        cash,
        sales,
        payable,
    } = books(db).await;
    let at = datetime!(2026-03-02 12:00 UTC);
    let posted = crate::transaction(&live, at, TransactionStatus::Posted, &cash, &sales, 700);
    insert(db, &a, posted).await;
    let pending = crate::transaction(&live, at, TransactionStatus::Pending, &cash, &sales, 5);
    insert(db, &a, pending).await;
    let ids = vec![cash.clone(), sales.clone(), payable.clone()];
    // One statement.
    let rows = in_statements(db, 1, backend, db.totals_of_accounts(&live, &ids))
        .await
        .expect("totals");
    let get = |id: &str| rows.iter().find(|(a, _)| a == id).map(|(_, t)| *t);
    // Only counted (posted) entries; accounts without entries may be missing.
    assert_eq!(
        get(&cash),
        Some(Totals {
            debit: 700,
            credit: 0
        })
    );
    assert_eq!(
        get(&sales),
        Some(Totals {
            debit: 0,
            credit: 700
        })
    );
    assert_eq!(get(&payable).unwrap_or_default(), Totals::default());
    // Another tenant (or mode) asking for the same ids sees nothing.
    for tenant in [b.tenant(true), a.tenant(false)] {
        let rows = db.totals_of_accounts(&tenant, &ids).await.expect("totals");
        assert!(rows.is_empty(), "{backend}");
    }
    assert!(
        db.totals_of_accounts(&live, &[])
            .await
            .expect("none")
            .is_empty()
    );
    // First rows of each account's history, cut per account, in one query.
    let later = datetime!(2026-03-03 12:00 UTC);
    let second = crate::transaction(&live, later, TransactionStatus::Posted, &cash, &sales, 40);
    insert(db, &a, second).await;
    // One statement.
    let history = db.first_history_of_accounts(&live, &ids, 1);
    let rows = in_statements(db, 1, backend, history)
        .await
        .expect("history");
    let mut got: Vec<(&str, i64, i64)> = rows
        .iter()
        .map(|(id, r)| (id.as_str(), r.debit, r.credit))
        .collect();
    got.sort();
    let mut want = vec![(cash.as_str(), 700, 0), (sales.as_str(), 0, 700)];
    want.sort();
    assert_eq!(got, want, "{backend}");
    let rows = db
        .first_history_of_accounts(&live, std::slice::from_ref(&cash), 10)
        .await
        .expect("history");
    assert_eq!(rows.len(), 2);
    assert_eq!((rows[1].1.debit, rows[1].1.date), (40, later));
    let other = db
        .first_history_of_accounts(&b.tenant(true), &ids, 10)
        .await
        .expect("other tenant");
    assert!(other.is_empty());
}

contract!(spending_credits_alone_refuses_a_short_pool);
async fn spending_credits_alone_refuses_a_short_pool<S: Store>(db: &S, backend: &str) {
    let a = sign_up(db, "A").await;
    db.spend_credits(charge(&a, true, 498), "req_1", T0)
        .await
        .expect("spend");
    let err = db
        .spend_credits(charge(&a, true, 5), "req_2", T0)
        .await
        .expect_err("short");
    assert_eq!(
        err,
        StoreError::CreditsShort {
            required: 5,
            available: 2
        }
    );
    assert_eq!(credits_left(db, &a.org.id).await, 2, "{backend}");
    // Test mode records usage and never touches the live pool.
    db.spend_credits(charge(&a, false, 5), "req_3", T0)
        .await
        .expect("test spend");
    assert_eq!(db.test_credits_used(&a.org.id).await.expect("used"), 5);
    assert_eq!(credits_left(db, &a.org.id).await, 2);
}

contract!(the_chart_and_one_account_come_with_their_running_totals);
/// `chart_with_totals` and `account_with_totals` (what reports and balances read): three
/// single-table statements for the chart, one for an account; the same figures as the chart and `account_totals` read apart; zero
/// for an account without counted entries; nothing of another tenant or mode.
async fn the_chart_and_one_account_come_with_their_running_totals<S: Probe>(db: &S, backend: &str) {
    let Books {
        a,
        b,
        live,
        cash,
        sales,
        payable,
    } = books(db).await;
    let at = datetime!(2026-03-02 12:00 UTC);
    for (status, amount) in [
        (TransactionStatus::Posted, 700),
        (TransactionStatus::Posted, 45),
        (TransactionStatus::Pending, 5),
    ] {
        let txn = crate::transaction(&live, at, status, &cash, &sales, amount);
        insert(db, &a, txn).await;
    }
    // The count of chart changes, the chart, the totals (tests/contract/charts.rs: then
    // the chart from memory while that count holds).
    let chart = in_statements(db, 3, backend, db.chart_with_totals(&live, None, None))
        .await
        .expect("chart");
    let apart = db
        .list_accounts(&live, &Default::default(), None)
        .await
        .expect("accounts");
    assert_eq!(
        chart
            .iter()
            .map(|l| (
                l.account.id.clone(),
                l.account.code.clone(),
                l.account.name.clone(),
                l.account.account_type,
                l.currency.clone()
            ))
            .collect::<Vec<_>>(),
        apart
            .items
            .iter()
            .map(|a| (
                a.id.clone(),
                a.code.clone(),
                a.name.clone(),
                a.account_type,
                a.currency.clone()
            ))
            .collect::<Vec<_>>(),
        "{backend}: the same chart in the same order"
    );
    let totals = db
        .account_totals(&live, None, None, None)
        .await
        .expect("totals");
    for line in &chart {
        let want = totals
            .iter()
            .find(|(id, _)| *id == line.account.id)
            .map(|(_, t)| *t)
            .unwrap_or_default();
        assert_eq!(line.totals, want, "{backend}: {}", line.account.code);
    }
    let of = |id: &str| chart.iter().find(|l| l.account.id == id).map(|l| l.totals);
    assert_eq!(
        of(&cash),
        Some(Totals {
            debit: 745,
            credit: 0
        }),
        "{backend}"
    );
    assert_eq!(
        of(&sales),
        Some(Totals {
            debit: 0,
            credit: 745
        }),
        "{backend}"
    );
    assert_eq!(of(&payable), Some(Totals::default()), "{backend}");

    let (account, totals) = in_statements(db, 1, backend, db.account_with_totals(&live, &cash))
        .await
        .expect("read")
        .expect("cash");
    assert_eq!(account.id, cash);
    assert_eq!(
        totals,
        Totals {
            debit: 745,
            credit: 0
        },
        "{backend}"
    );
    let (_, none) = db
        .account_with_totals(&live, &payable)
        .await
        .expect("read")
        .expect("payable");
    assert_eq!(none, Totals::default(), "{backend}");
    // Another tenant, or the other mode, sees neither the account nor its totals.
    for tenant in [b.tenant(true), a.tenant(false)] {
        assert!(
            db.account_with_totals(&tenant, &cash)
                .await
                .expect("read")
                .is_none(),
            "{backend}"
        );
        let theirs = db
            .chart_with_totals(&tenant, None, None)
            .await
            .expect("chart");
        assert!(
            theirs.iter().all(|l| l.account.id != cash
                && l.account.id != sales
                && l.totals == Totals::default()),
            "{backend}"
        );
    }
}
