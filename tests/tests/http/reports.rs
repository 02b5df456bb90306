//! Reports: trial balance, balance sheet and income statement from posted entries.

use ledger_tests::{TestApp, both, invalid};
use reqwest::StatusCode;
use serde_json::json;

async fn reports_balance_and_follow_dates(app: &TestApp) {
    let org = app.signup("Reports").await;
    let key = &org.test_key;
    let id = |code: &'static str| app.account_id(&org, key, code);
    let (cash, ar, ap, equity, sales, expenses) = (
        id("1000").await,
        id("1100").await,
        id("2000").await,
        id("3000").await,
        id("4000").await,
        id("5000").await,
    );
    app.post_transfer(&org, key, &cash, &equity, "1000.00")
        .await;
    app.post_transfer(&org, key, &ar, &sales, "400.00").await;
    app.post_transfer(&org, key, &expenses, &ap, "150.25").await;
    app.post_transfer(&org, key, &cash, &ar, "100.00").await;
    let res = app.read(key, &org.path("reports/trial-balance")).await;
    assert_eq!(res["object"], "trial_balance");
    assert_eq!(
        (res["total_debits"].as_str(), res["total_credits"].as_str()),
        (Some("1550.25"), Some("1550.25"))
    );
    let cash_row = res["accounts"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["account_code"] == "1000")
        .expect("cash row")
        .clone();
    assert_eq!(cash_row["debit"], "1100.00");
    assert_eq!(cash_row["net_balance"], "1100.00");
    let res = app.get(key, &org.path("reports/balance-sheet")).await;
    assert_eq!(res.body["total_assets"], "1400.00");
    assert_eq!(res.body["total_liabilities"], "150.25");
    assert_eq!(res.body["equity"]["current_earnings"], "249.75");
    assert_eq!(res.body["total_equity"], "1249.75");
    assert_eq!(res.body["total_liabilities_and_equity"], "1400.00");
    let res = app
        .get(
            key,
            &org.path("reports/income-statement?start_date=2026-01-01&end_date=2026-12-31"),
        )
        .await;
    assert_eq!(res.body["object"], "income_statement");
    assert_eq!(
        (
            res.body["total_revenue"].as_str(),
            res.body["total_expenses"].as_str(),
            res.body["net_income"].as_str()
        ),
        (Some("400.00"), Some("150.25"), Some("249.75"))
    );
    assert_eq!(res.body["revenue"]["accounts"][0]["balance"], "400.00");
    // Before the first posting everything is zero.
    let res = app
        .get(key, &org.path("reports/trial-balance?as_of=2025-12-31"))
        .await;
    assert_eq!(res.body["total_debits"], "0.00");
    let res = app
        .get(
            key,
            &org.path("reports/income-statement?start_date=2026-02-01&end_date=2026-02-28"),
        )
        .await;
    assert_eq!(res.body["net_income"], "0.00");
    let res = app
        .get(
            key,
            &org.path("reports/income-statement?start_date=2026-03-01&end_date=2026-02-01"),
        )
        .await;
    // An end before its start: invalid request data (400 `invalid_field` on `end_date`).
    invalid(
        &res,
        "invalid_field",
        "end_date",
        Some("end_date: must not be before start_date"),
    );
    let res = app
        .get(key, &org.path("reports/balance-sheet?as_of=banana"))
        .await;
    assert_eq!(res.code(), "invalid_field");
    let _ = json!(null);
}
both!(reports_balance_and_follow_dates);

/// The trial balance lists the chart as it is now: reports keep each tenant's chart in
/// memory between changes (docs/decisions.md, "Session 16"), and an account added,
/// renamed or deleted shows in the next report, on this server and on a replica.
async fn reports_follow_the_chart_as_it_changes(app: &TestApp) {
    let org = app.signup("Chart changes").await;
    let key = &org.test_key;
    let replica = app.replica(|_| {}).await;
    let base = org.path("accounts");
    let rows = |answer: &ledger_tests::Answer| -> Vec<(String, String)> {
        answer.body["accounts"]
            .as_array()
            .expect("rows")
            .iter()
            .map(|r| {
                (
                    r["account_code"].as_str().unwrap_or_default().to_owned(),
                    r["account_name"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect()
    };
    let report = org.path("reports/trial-balance");
    let before = rows(&app.get(key, &report).await);
    assert!(before.iter().all(|(code, _)| code != "1250"));
    let float = replica
        .create_id(
            key,
            &base,
            json!({"code": "1250", "name": "Float", "account_type": "asset"}),
        )
        .await;
    for server in [app, &replica] {
        let now = rows(&server.get(key, &report).await);
        assert_eq!(now.len(), before.len() + 1);
        assert!(now.contains(&("1250".to_owned(), "Float".to_owned())));
    }
    let res = replica
        .put_wait(
            key,
            &format!("{base}/{float}"),
            json!({"name": "Till float"}),
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    let now = rows(&app.get(key, &report).await);
    assert!(now.contains(&("1250".to_owned(), "Till float".to_owned())));
    assert!(!now.contains(&("1250".to_owned(), "Float".to_owned())));
    let res = app.delete_wait(key, &format!("{base}/{float}")).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    for server in [app, &replica] {
        assert_eq!(rows(&server.get(key, &report).await), before);
    }
    replica.finish().await;
}
both!(reports_follow_the_chart_as_it_changes);
