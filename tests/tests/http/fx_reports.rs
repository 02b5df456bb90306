//! Reports in one currency over accounts in several: balance-sheet items at the closing
//! rate, income-statement items at the rate of each posting's date, and the currency
//! translation adjustment that keeps the converted books balanced.

use ledger_tests::{Org, TestApp, both, refused};
use reqwest::StatusCode;
use serde_json::{Value, json};

async fn account(app: &TestApp, org: &Org, code: &str, kind: &str, currency: &str) -> String {
    app.create_id(&org.test_key,
            &org.path("accounts"),
            json!({"code": code, "name": format!("{kind} {currency}"), "account_type": kind, "currency": currency})).await
}

async fn sale(app: &TestApp, org: &Org, bank: &str, revenue: &str, amount: &str, date: &str) {
    let key = &org.test_key;
    app.post_dated(org, key, "EUR sale", date, (bank, revenue), amount)
        .await;
}

fn row<'a>(report: &'a Value, section: &str, id: &str) -> &'a Value {
    let rows = if section.is_empty() {
        &report["accounts"]
    } else {
        &report[section]["accounts"]
    };
    rows.as_array()
        .and_then(|r| r.iter().find(|a| a["account_id"] == id))
        .unwrap_or_else(|| panic!("no row {id} in {report}"))
}

async fn report(app: &TestApp, org: &Org, query: &str) -> Value {
    app.read(&org.test_key, &org.path(&format!("reports/{query}")))
        .await
}

async fn reports_convert_by_the_documented_rules(app: &TestApp) {
    let org = app.signup("FX Reports").await;
    let bank = account(app, &org, "1050", "asset", "EUR").await;
    let revenue = account(app, &org, "4050", "revenue", "EUR").await;
    app.usd_rate(&org, "EUR", "1.10", "2026-01-01").await;
    app.usd_rate(&org, "EUR", "1.20", "2026-02-01").await;
    sale(app, &org, &bank, &revenue, "100.00", "2026-01-15").await;
    sale(app, &org, &bank, &revenue, "50.00", "2026-02-15").await;

    // In USD on 28 February: the bank at the closing 1.20 (150 EUR = 180 USD), the
    // revenue at each sale's rate (110 + 60 = 170 USD), 10 USD of translation.
    let tb = report(app, &org, "trial-balance?as_of=2026-02-28").await;
    assert_eq!(tb["currency"], "USD");
    assert_eq!(row(&tb, "", &bank)["debit"], "180.00", "{tb}");
    assert_eq!(row(&tb, "", &revenue)["credit"], "170.00");
    assert_eq!(tb["translation_adjustment"], "10.00");
    assert_eq!(
        (&tb["total_debits"], &tb["total_credits"]),
        (&json!("180.00"), &json!("180.00"))
    );
    let bs = report(app, &org, "balance-sheet?as_of=2026-02-28").await;
    assert_eq!(row(&bs, "assets", &bank)["balance"], "180.00", "{bs}");
    assert_eq!(
        (
            &bs["equity"]["current_earnings"],
            &bs["equity"]["translation_adjustment"]
        ),
        (&json!("170.00"), &json!("10.00"))
    );
    assert_eq!(
        (&bs["total_assets"], &bs["total_liabilities_and_equity"]),
        (&json!("180.00"), &json!("180.00"))
    );
    let is = report(
        app,
        &org,
        "income-statement?start_date=2026-01-01&end_date=2026-02-28",
    )
    .await;
    assert_eq!(is["total_revenue"], "170.00", "{is}");
    let january = report(
        app,
        &org,
        "income-statement?start_date=2026-01-01&end_date=2026-01-31",
    )
    .await;
    assert_eq!(january["total_revenue"], "110.00", "{january}");

    // At the end of January the closing rate is January's: nothing to translate.
    let tb = report(app, &org, "trial-balance?as_of=2026-01-31").await;
    assert_eq!(row(&tb, "", &bank)["debit"], "110.00", "{tb}");
    assert_eq!(tb["translation_adjustment"], "0.00");

    // In EUR every moved account is in its own currency (the USD ones hold nothing).
    let tb = report(app, &org, "trial-balance?as_of=2026-02-28&currency=eur").await;
    assert_eq!(tb["currency"], "EUR");
    assert_eq!(row(&tb, "", &bank)["debit"], "150.00", "{tb}");
    assert_eq!(tb["translation_adjustment"], "0.00");

    // No rate for a currency asked: refused, and an unknown code is a bad field.
    let res = app
        .get(
            &org.test_key,
            &org.path("reports/balance-sheet?currency=JPY"),
        )
        .await;
    refused(
        &res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "exchange_rate_not_found",
    );
    let res = app
        .get(
            &org.test_key,
            &org.path("reports/trial-balance?currency=XYZ"),
        )
        .await;
    assert_eq!(res.code(), "invalid_field", "{}", res.body);
    assert_eq!(res.body["error"]["details"]["field"], "currency");

    // A balance converts at the rate of its day, on every interface.
    let res = app
        .get(
            &org.test_key,
            &org.path(&format!(
                "accounts/{bank}/balance?as_of=2026-02-28&currency=USD"
            )),
        )
        .await;
    assert_eq!(res.body["balance"]["net"], "150.00", "{}", res.body);
    assert_eq!(
        (
            &res.body["converted"]["net"],
            &res.body["converted"]["currency"],
            &res.body["converted"]["rate"]
        ),
        (&json!("180.00"), &json!("USD"), &json!("1.2"))
    );
    let res = app
        .get(
            &org.test_key,
            &org.path(&format!(
                "accounts/{bank}/balance?as_of=2026-01-20&currency=USD"
            )),
        )
        .await;
    assert_eq!(res.body["converted"]["net"], "110.00", "{}", res.body);
    let res = app
        .get(
            &org.test_key,
            &org.path(&format!("accounts/{bank}/balance?currency=GBP")),
        )
        .await;
    assert_eq!(res.code(), "exchange_rate_not_found", "{}", res.body);
    let tool = ledger_tests::mcp::tool(
        app,
        &org.test_key,
        "get_account_balance",
        json!({"accountId": bank, "asOf": "2026-02-28", "currency": "USD"}),
    )
    .await;
    assert_eq!(
        tool["structuredContent"]["converted"]["net"], "180.00",
        "{tool}"
    );
    let data = app.gql_data(&org.test_key,
        "query($id: ID!) { account(id: $id) { balance(currency: \"USD\") { amount currency } } }",
        json!({"id": bank}),
    )
    .await;
    assert_eq!(
        data["account"]["balance"],
        json!({"amount": "180.00", "currency": "USD"})
    );

    // GraphQL answers the same figures.
    let data = app.gql_data(&org.test_key,
        "{ organization { trialBalance(asOf: \"2026-02-28\", currency: \"USD\") { translationAdjustment totalDebits totalCredits } balanceSheet(asOf: \"2026-02-28\") { translationAdjustment totalAssets } } }",
        json!({}),
    )
    .await;
    let org_data = &data["organization"];
    assert_eq!(
        org_data["trialBalance"],
        json!({"translationAdjustment": "10.00", "totalDebits": "180.00", "totalCredits": "180.00"})
    );
    assert_eq!(org_data["balanceSheet"]["translationAdjustment"], "10.00");
}

both!(reports_convert_by_the_documented_rules);

async fn revaluations_post_the_open_positions_and_reverse(app: &TestApp) {
    let org = app.signup("FX Revaluation").await;
    let key = &org.test_key;
    let cash = app.account_id(&org, key, "1000").await;
    let bank = account(app, &org, "1050", "asset", "EUR").await;
    let res = app
        .post_wait(
            key,
            &org.path("transfers"),
            json!({"from_account_id": cash, "to_account_id": bank, "amount": "100.00",
                   "to_amount": "92.50", "date": "2026-04-01", "auto_post": true}),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    let revalue = |date: &str| {
        let body = json!({ "date": date });
        let path = org.path("revaluations");
        async move { app.post_wait(key, &path, body).await }
    };
    let res = revalue("2026-04-30").await;
    assert_eq!(res.code(), "exchange_rate_not_found", "{}", res.body);

    app.usd_rate(&org, "EUR", "1.10", "2026-04-01").await;
    // 92.50 EUR at 1.10 is 101.75 USD, bought for 100.00: 1.75 not yet realised.
    let res = revalue("2026-04-30").await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    assert_eq!(res.body["count"], 2, "{}", res.body);
    let posting = &res.body["transactions"][0];
    let reversal = &res.body["transactions"][1];
    assert_eq!(
        (&posting["date"], &posting["amount"], &posting["status"]),
        (
            &json!("2026-04-30T00:00:00Z"),
            &json!("1.75"),
            &json!("posted")
        )
    );
    assert_eq!(reversal["date"], "2026-05-01T00:00:00Z");
    let gains = app.account_id(&org, key, "4950").await;
    assert_eq!(
        posting["entries"][1]["account_id"],
        json!(gains),
        "{posting}"
    );
    assert_eq!(posting["entries"][1]["entry_type"], "credit");
    assert_eq!(
        (
            &reversal["entries"][0]["account_id"],
            &reversal["entries"][0]["entry_type"]
        ),
        (&json!(gains), &json!("debit"))
    );

    let april = report(
        app,
        &org,
        "income-statement?start_date=2026-04-01&end_date=2026-04-30",
    )
    .await;
    assert_eq!(april["total_revenue"], "1.75", "{april}");
    let may = report(
        app,
        &org,
        "income-statement?start_date=2026-05-01&end_date=2026-05-31",
    )
    .await;
    assert_eq!(may["total_revenue"], "-1.75", "{may}");
    let bs = report(app, &org, "balance-sheet?as_of=2026-04-30").await;
    assert_eq!(
        (
            &bs["total_assets"],
            &bs["equity"]["current_earnings"],
            &bs["equity"]["translation_adjustment"]
        ),
        (&json!("1.75"), &json!("1.75"), &json!("0.00")),
        "{bs}"
    );
    // Valued again the same day, nothing has moved.
    let res = revalue("2026-04-30").await;
    assert_eq!(res.code(), "invalid_state_transition", "{}", res.body);

    // GraphQL: at 1.20 the position is worth 111.00, 11.00 above cost.
    app.usd_rate(&org, "EUR", "1.20", "2026-06-01").await;
    let data = app
        .gql_data(
            key,
            "mutation { revalueCurrencies(date: \"2026-06-30\") { amount date status } }",
            json!({}),
        )
        .await;
    assert_eq!(
        data["revalueCurrencies"][0],
        json!({"amount": "11.00", "date": "2026-06-30T00:00:00Z", "status": "POSTED"})
    );
}

both!(revaluations_post_the_open_positions_and_reverse);
