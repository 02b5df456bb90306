//! Consolidated reports (DECISIONS 9, issue 16 item 3): `?consolidated=true` on a
//! parent's trial balance, balance sheet and income statement adds its owned
//! descendants (linked ones and what lies below them stay out), each converted into the
//! parent's currency with the parent's rates, on REST, GraphQL and MCP.

use ledger_tests::{Org, TestApp, both};
use reqwest::StatusCode;
use serde_json::json;

use crate::organization_transfers::{signup_user, transfers};

/// Posts a sale of `amount` (Cash 1000 / Sales 4000) in `org` with its own key.
async fn sale(app: &TestApp, org: &str, key: &str, amount: &str) {
    let org = Org {
        id: org.to_owned(),
        test_key: key.to_owned(),
        live_key: String::new(),
    };
    let [cash, sales] = app.account_ids(&org, key, ["1000", "4000"]).await;
    app.post_transfer(&org, key, &cash, &sales, amount).await;
}

async fn consolidated_reports_add_the_owned_members(app: &TestApp) {
    let parent = signup_user(app, "Group Parent", "group-parent", "gp@example.com").await;
    let key = &parent.test_key;
    let (a, a_key) = app.sub_org(key, &parent.id, "A", "owned").await;
    let (a1, a1_key) = app.sub_org(key, &a, "A1", "owned").await;
    let (l, l_key) = app.sub_org(key, &parent.id, "L", "linked").await;
    let (l1, l1_key) = app.sub_org(key, &l, "L1", "owned").await;
    sale(app, &parent.id, key, "100.00").await;
    sale(app, &a, &a_key, "10.00").await;
    sale(app, &a1, &a1_key, "1.00").await;
    sale(app, &l, &l_key, "1000.00").await;
    sale(app, &l1, &l1_key, "5000.00").await;
    // A member keeping its books in euros: a subtree transferred in from a euro group.
    let res = app.post_signup(json!({"name": "Euro Group", "user_provider_id": "prov-euro", "user_email": "euro@example.com", "base_currency": "EUR"}), &[])
        .await;
    let euro_root = res.body["organization"]["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let euro_key = res.body["api_key"]["key"].as_str().expect("key").to_owned();
    let (x, x_key) = app.sub_org(&euro_key, &euro_root, "X", "owned").await;
    sale(app, &x, &x_key, "50.00").await;
    let id = app
        .create_id(
            &euro_key,
            &transfers(&x),
            json!({"to_provider_username": "group-parent"}),
        )
        .await;
    let res = app
        .post(
            key,
            &format!("{}/{id}/accept", transfers(&parent.id)),
            json!({"relationship": "owned"}),
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);

    let tb = |org: &str, extra: &str| {
        format!("/organizations/{org}/reports/trial-balance?as_of=2026-12-31{extra}")
    };
    // Without a EUR rate of the parent, the euro member cannot be converted.
    let res = app.get(key, &tb(&parent.id, "&consolidated=true")).await;
    assert_eq!(res.code(), "exchange_rate_not_found", "{}", res.body);
    let res = app
        .post(
            key,
            &parent.path("exchange-rates"),
            json!({"from_currency": "EUR", "to_currency": "USD", "rate": "1.2", "effective_date": "2026-01-01"}),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);

    // The parent alone, then with its owned members: 100 + 10 + 1 + 50 EUR at 1.2.
    let res = app.get(key, &tb(&parent.id, "")).await;
    assert_eq!(res.body["total_debits"], "100.00", "{}", res.body);
    assert_eq!(res.body["consolidated"], false);
    let res = app.read(key, &tb(&parent.id, "&consolidated=true")).await;
    assert_eq!(res["consolidated"], true);
    assert_eq!(res["currency"], "USD");
    let cash = res["accounts"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["account_code"] == "1000")
        .cloned()
        .expect("cash row");
    assert_eq!(cash["debit"], "171.00", "{}", res);
    assert_eq!(
        (&res["total_debits"], &res["total_credits"]),
        (&json!("171.00"), &json!("171.00")),
        "{}",
        res
    );
    assert_eq!(res["translation_adjustment"], "0.00");
    // The sum of the members' own reports (the euro one in the parent's currency).
    let mut cents: i64 = 0;
    for (org, k, extra) in [
        (&parent.id, key.as_str(), ""),
        (&a, a_key.as_str(), ""),
        (&a1, a1_key.as_str(), ""),
    ] {
        let res = app.get(k, &tb(org, extra)).await;
        let text = res.body["total_debits"]
            .as_str()
            .expect("total")
            .replace('.', "");
        cents += text.parse::<i64>().expect("cents");
    }
    let res = app.get(key, &tb(&x, "&currency=USD")).await;
    assert_eq!(
        res.code(),
        "exchange_rate_not_found",
        "X converts with its own rates: {}",
        res.body
    );
    cents += 6_000;
    assert_eq!(cents, 17_100);

    let res = app
        .get(
            key,
            &parent.path("reports/balance-sheet?as_of=2026-12-31&consolidated=true"),
        )
        .await;
    assert_eq!(res.body["total_assets"], "171.00", "{}", res.body);
    assert_eq!(
        res.body["total_liabilities_and_equity"], "171.00",
        "{}",
        res.body
    );
    let res = app
        .get(key, &parent.path("reports/income-statement?start_date=2026-01-01&end_date=2026-12-31&consolidated=true"))
        .await;
    assert_eq!(res.body["total_revenue"], "171.00", "{}", res.body);
    assert_eq!(res.body["net_income"], "171.00", "{}", res.body);
    // Consolidating from a member, and from the linked one (its own owned child joins).
    let res = app.get(&a_key, &tb(&a, "&consolidated=true")).await;
    assert_eq!(res.body["total_debits"], "11.00", "{}", res.body);
    let res = app.get(&l_key, &tb(&l, "&consolidated=true")).await;
    assert_eq!(res.body["total_debits"], "6000.00", "{}", res.body);
    let res = app.get(key, &tb(&parent.id, "&consolidated=maybe")).await;
    assert_eq!(res.code(), "invalid_field", "{}", res.body);
    // Tenancy: a member's key cannot consolidate its parent.
    let res = app.get(&a_key, &tb(&parent.id, "&consolidated=true")).await;
    assert_eq!(res.code(), "organization_not_found", "{}", res.body);

    // GraphQL and MCP answer the same figures.
    let data = app.gql_data(key,
        "{ organization { trialBalance(asOf: \"2026-12-31\", consolidated: true) { totalDebits totalCredits } incomeStatement(startDate: \"2026-01-01\", endDate: \"2026-12-31\", consolidated: true) { netIncome } balanceSheet(asOf: \"2026-12-31\") { totalAssets } } }",
        json!({}),
    )
    .await;
    let org = &data["organization"];
    assert_eq!(org["trialBalance"]["totalDebits"], "171.00", "{data}");
    assert_eq!(org["incomeStatement"]["netIncome"], "171.00", "{data}");
    assert_eq!(org["balanceSheet"]["totalAssets"], "100.00", "{data}");
    let tool = ledger_tests::mcp::tool(
        app,
        key,
        "get_trial_balance",
        json!({"asOf": "2026-12-31", "consolidated": true}),
    )
    .await;
    assert_eq!(
        tool["structuredContent"]["total_debits"], "171.00",
        "{tool}"
    );
}

both!(consolidated_reports_add_the_owned_members);
