//! Chart of accounts: create, read, update, filters, pagination, balance, history, delete.

use ledger_tests::{TestApp, both, entries, refused, refused_on, strs};
use reqwest::StatusCode;
use serde_json::json;

async fn create_read_update_and_filter(app: &TestApp) {
    let org = app.signup("Chart").await;
    let key = &org.test_key;
    let base = org.path("accounts");
    let res = app.post(key, &base, json!({"code": "1010", "name": "Checking", "account_type": "asset", "description": "Main bank"})).await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    assert_eq!(res.body["object"], "account");
    assert_eq!(res.body["type"], "asset");
    assert_eq!(res.body["is_active"], true);
    assert_eq!(res.body["currency"], "USD");
    let id = res.id();
    assert!(id.starts_with("act_"));
    // `type` is accepted as an alias of `account_type`.
    let res = app
        .post(
            key,
            &base,
            json!({"code": "6000", "name": "Rent", "type": "expense", "parent_account_id": null}),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    let res = app
        .post(
            key,
            &base,
            json!({"code": "1010", "name": "Again", "account_type": "asset"}),
        )
        .await;
    refused_on(&res, StatusCode::BAD_REQUEST, "duplicate_value", "code");
    // Ids are accepted in any prefix case.
    let upper = id.replacen("act_", "ACT_", 1);
    let res = app.get(key, &format!("{base}/{upper}")).await;
    assert_eq!(res.status, StatusCode::OK);
    assert_eq!(res.body["id"], id.as_str());
    assert_eq!(
        res.body["balance"],
        json!({"debit": "0.00", "credit": "0.00", "net": "0.00"})
    );
    let res = app
        .put(
            key,
            &format!("{base}/{id}"),
            json!({"name": "Checking (old)", "is_active": false}),
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(
        (res.body["name"].as_str(), res.body["is_active"].as_bool()),
        (Some("Checking (old)"), Some(false))
    );
    let res = app.get(key, &format!("{base}?status=inactive")).await;
    assert_eq!(res.body["total_count"], 1);
    let res = app.get(key, &format!("{base}?account_type=expense")).await;
    let codes = strs(&res.body["data"], "code");
    assert_eq!(codes, ["5000", "6000"]);
    let res = app.get(key, &format!("{base}?limit=3&offset=3")).await;
    assert_eq!(res.body["data"].as_array().map(Vec::len), Some(3));
    assert_eq!(res.page(), (Some(true), Some(9)));
    let res = app.get(key, &format!("{base}?limit=101")).await;
    assert_eq!(res.code(), "invalid_field");
    let res = app.get(key, &format!("{base}?account_type=cash")).await;
    assert_eq!(res.code(), "invalid_field");
    assert_eq!(
        app.event_kinds(key, "account", &id).await,
        ["account.created", "account.updated"]
    );
}
both!(create_read_update_and_filter);

async fn inactive_accounts_refuse_postings(app: &TestApp) {
    let (org, [cash, sales]) = app.signup_with_accounts("Inactive", ["1000", "4000"]).await;
    let key = &org.test_key;
    let res = app
        .put(
            key,
            &org.path(&format!("accounts/{sales}")),
            json!({"status": "suspended"}),
        )
        .await;
    assert_eq!(res.body["status"], "suspended");
    let res = app
        .post(key, &org.path("transactions"), json!({"description": "x", "date": "2026-01-01", "entries": entries(&cash, &sales, "5")}))
        .await;
    refused(&res, StatusCode::UNPROCESSABLE_ENTITY, "account_inactive");
}
both!(inactive_accounts_refuse_postings);

async fn balance_as_of_and_history_with_running_balance(app: &TestApp) {
    let (org, [cash, sales, expenses]) = app
        .signup_with_accounts("History", ["1000", "4000", "5000"])
        .await;
    let key = &org.test_key;
    for (date, debit, credit, amount) in [
        ("2026-01-10", &cash, &sales, "100.00"),
        ("2026-02-10", &expenses, &cash, "30.50"),
        ("2026-03-10", &cash, &sales, "0.10"),
    ] {
        app.post_dated(
            &org,
            key,
            &format!("on {date}"),
            date,
            (debit, credit),
            amount,
        )
        .await;
    }
    assert_eq!(
        app.balance(&org, key, &cash).await,
        json!({"debit": "100.10", "credit": "30.50", "net": "69.60"})
    );
    let res = app
        .get(
            key,
            &org.path(&format!("accounts/{cash}/balance?as_of=2026-02-10")),
        )
        .await;
    assert_eq!(res.body["balance"]["net"], "69.50");
    let res = app
        .get(
            key,
            &org.path(&format!("accounts/{sales}/balance?as_of=2026-01-31")),
        )
        .await;
    assert_eq!(
        res.body["balance"]["net"], "100.00",
        "revenue is credit-positive"
    );
    let res = app
        .get(key, &org.path(&format!("accounts/{cash}/transactions")))
        .await;
    let balances = strs(&res.body["transactions"], "balance");
    assert_eq!(balances, ["100.00", "69.50", "69.60"]);
    assert_eq!(res.body["transactions"][1]["credit"], "30.50");
    // The running balance carries over pages.
    let res = app
        .get(
            key,
            &org.path(&format!("accounts/{cash}/transactions?limit=1&offset=2")),
        )
        .await;
    assert_eq!(res.body["transactions"][0]["balance"], "69.60");
    assert_eq!(res.page(), (Some(false), Some(3)));
    let res = app
        .get(
            key,
            &org.path(&format!(
                "accounts/{cash}/transactions?from_date=2026-02-01&to_date=2026-02-28"
            )),
        )
        .await;
    assert_eq!(res.body["total_count"], 1);
    assert_eq!(res.body["transactions"][0]["balance"], "69.50");
}
both!(balance_as_of_and_history_with_running_balance);

async fn delete_only_without_transactions(app: &TestApp) {
    let org = app.signup("Deletes").await;
    let key = &org.test_key;
    let base = org.path("accounts");
    let petty = app
        .create_id(
            key,
            &base,
            json!({"code": "1200", "name": "Petty cash", "account_type": "asset"}),
        )
        .await;
    let unused = app
        .create_id(
            key,
            &base,
            json!({"code": "1300", "name": "Unused", "account_type": "asset"}),
        )
        .await;
    let sales = app.account_id(&org, key, "4000").await;
    app.post_transfer(&org, key, &petty, &sales, "3.00").await;
    let res = app.delete(key, &format!("{base}/{petty}")).await;
    refused(&res, StatusCode::UNPROCESSABLE_ENTITY, "resource_in_use");
    let cash = app.account_id(&org, key, "1000").await;
    let res = app.delete(key, &format!("{base}/{cash}")).await;
    assert_eq!(res.code(), "resource_in_use", "system accounts stay");
    let res = app.delete_wait(key, &format!("{base}/{unused}")).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["deleted"], true);
    let res = app.get(key, &format!("{base}/{unused}")).await;
    assert_eq!(res.code(), "resource_not_found");
    // The code is free again.
    let res = app
        .post(
            key,
            &base,
            json!({"code": "1300", "name": "Reused", "account_type": "asset"}),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
}
both!(delete_only_without_transactions);
