//! The MCP currency/exchange tools (DECISIONS 7): each is one REST request with the
//! caller's key, camelCase arguments (snake_case accepted), the REST envelope as an
//! `isError` result on refusals, and the credits of the REST operation.

use ledger_tests::{TestApp, both};
use serde_json::json;

use ledger_tests::mcp::{tool, tool_ok, tool_refused};

async fn mcp_currency_tools(app: &TestApp) {
    let org = app.signup("Mcp Fx").await;
    let key = &org.live_key;
    let credits = || async {
        app.get(key, &format!("/organizations/{}", org.id))
            .await
            .body["credits_remaining"]
            .as_i64()
            .expect("credits")
    };
    let before = credits().await;

    let page = tool_ok(app, key, "list_currencies", json!({"limit": 5})).await;
    assert_eq!(page["object"], "list");
    assert_eq!(page["data"].as_array().map(Vec::len), Some(5));
    let yen = tool_ok(app, key, "get_currency", json!({"currencyCode": "cur_JPY"})).await;
    assert_eq!(
        (yen["code"].as_str(), yen["decimals"].as_i64()),
        (Some("JPY"), Some(0))
    );
    tool_refused(
        app,
        key,
        "get_currency",
        json!({"currency_code": "XYZ"}),
        "resource_not_found",
    )
    .await;

    // Create (camelCase), create again (snake_case), read, list, update.
    let created = tool_ok(
        app,
        key,
        "create_exchange_rate",
        json!({"fromCurrencyId": "cur_USD", "toCurrencyId": "JPY", "rate": "151.235", "effectiveDate": "2026-01-01"}),
    )
    .await;
    let id = created["id"].as_str().expect("id").to_owned();
    assert_eq!(created["rate"], "151.235");
    tool(
        app,
        key,
        "create_exchange_rate",
        json!({"from_currency_id": "USD", "to_currency_id": "KWD", "rate": 0.30745, "effective_date": "2026-01-01"}),
    )
    .await;
    tool_refused(
        app,
        key,
        "create_exchange_rate",
        json!({"fromCurrencyId": "USD", "toCurrencyId": "JPY", "rate": "150", "effectiveDate": "2026-01-01"}),
        "duplicate_value",
    )
    .await;
    let got = tool_ok(app, key, "get_exchange_rate", json!({"exchangeRateId": id})).await;
    assert_eq!(got["to_currency"], "JPY");
    let list = tool_ok(
        app,
        key,
        "list_exchange_rates",
        json!({"fromCurrency": "USD", "toCurrency": "JPY"}),
    )
    .await;
    assert_eq!(list["total_count"], 1);
    let updated = tool_ok(
        app,
        key,
        "update_exchange_rate",
        json!({"exchangeRateId": id, "rate": "151.5"}),
    )
    .await;
    assert_eq!(updated["rate"], "151.5");

    // Conversions: rounded to the target's minor unit, inverse pairs, free.
    let converted = tool_ok(
        app,
        key,
        "convert_currency",
        json!({"fromCurrency": "USD", "toCurrency": "JPY", "amount": "100.01", "date": "2026-06-01"}),
    )
    .await;
    assert_eq!(
        &converted,
        &json!({"from_currency": "USD", "to_currency": "JPY", "amount": "100.01",
            "converted_amount": "15152", "rate": "151.5", "effective_date": "2026-01-01"})
    );
    let dinar = tool_ok(
        app,
        key,
        "convert_currency",
        json!({"from_currency": "KWD", "to_currency": "USD", "amount": "1.000"}),
    )
    .await;
    assert_eq!(dinar["converted_amount"], "3.25");
    assert_eq!(dinar["rate"], "3.252561392096");
    tool_refused(
        app,
        key,
        "convert_currency",
        json!({"fromCurrency": "EUR", "toCurrency": "USD", "amount": "1"}),
        "exchange_rate_not_found",
    )
    .await;
    // More places than the source currency has: the REST 400 `invalid_field` envelope.
    let places = tool(
        app,
        key,
        "convert_currency",
        json!({"fromCurrency": "USD", "toCurrency": "JPY", "amount": "1.005"}),
    )
    .await;
    assert_eq!(places["isError"], true, "{places}");
    let error = &places["structuredContent"]["error"];
    assert_eq!(
        (
            &error["type"],
            &error["code"],
            &error["status"],
            &error["details"]["field"]
        ),
        (
            &json!("validation_error"),
            &json!("invalid_field"),
            &json!(400),
            &json!("amount")
        ),
        "{places}"
    );

    let deleted = tool_ok(
        app,
        key,
        "delete_exchange_rate",
        json!({"exchangeRateId": id}),
    )
    .await;
    assert_eq!(deleted["deleted"], true);
    let gone = tool(app, key, "get_exchange_rate", json!({"exchangeRateId": id})).await;
    assert_eq!(gone["isError"], true, "{gone}");
    // Three rate writes (create, create, update) and a delete; reads and conversions free.
    assert_eq!(credits().await, before - 4);
}
both!(mcp_currency_tools);
