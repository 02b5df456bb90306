//! Many clients posting to the same accounts at once: no lost update, exact balances.

use ledger_tests::{TestApp, both};
use reqwest::{Method, StatusCode};
use serde_json::json;

async fn concurrent_posts_lose_nothing(app: &TestApp) {
    let org = app.signup("Busy").await;
    let key = org.test_key.clone();
    let [cash, sales, expenses] = app.account_ids(&org, &key, ["1000", "4000", "5000"]).await;
    let base = org.path("transactions");
    let clients = 16;
    let per_client = 6;
    let tasks = (0..clients).map(|c| {
        let (key, base, cash, sales, expenses) = (key.clone(), base.clone(), cash.clone(), sales.clone(), expenses.clone());
        async move {
            for i in 0..per_client {
                // Half the clients sell, half spend; amounts differ so a lost update shows.
                let (debit, credit, amount) = if c % 2 == 0 { (&cash, &sales, format!("{}.{:02}", c + 1, i)) } else { (&expenses, &cash, format!("0.{:02}", c + i)) };
                let body = json!({"description": format!("c{c} i{i}"), "date": "2026-04-01", "auto_post": true, "entries": [
                    {"account_id": debit, "entry_type": "debit", "amount": amount}, {"account_id": credit, "entry_type": "credit", "amount": amount}]});
                let res = app.call(Method::POST, &base, Some(&key), Some(body), &[("Prefer", "wait=20")]).await;
                assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
            }
        }
    });
    futures::future::join_all(tasks).await;
    // Expected cash: sum of sales minus sum of spending, computed in integer cents.
    let mut expected_cents: i64 = 0;
    for c in 0..clients {
        for i in 0..per_client {
            if c % 2 == 0 {
                expected_cents += (c as i64 + 1) * 100 + i as i64;
            } else {
                expected_cents -= c as i64 + i as i64;
            }
        }
    }
    let res = app.get(&key, &org.path(&format!("accounts/{cash}"))).await;
    let net = res.body["balance"]["net"].as_str().expect("net").to_owned();
    assert_eq!(
        net,
        format!("{}.{:02}", expected_cents / 100, expected_cents % 100)
    );
    let res = app.get(&key, &org.path("reports/trial-balance")).await;
    assert_eq!(res.body["total_debits"], res.body["total_credits"]);
    let res = app.get(&key, &base).await;
    assert_eq!(res.body["total_count"], clients * per_client);
}
both!(concurrent_posts_lose_nothing);
