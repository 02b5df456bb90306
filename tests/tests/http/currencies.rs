//! Currencies and conversions (DECISIONS 10): the global ISO 4217 list and one
//! currency by code or id, and conversions with the caller's rates (minor-unit rounding
//! for JPY and KWD, inverse pairs, the latest rate on or before the date, refusals).

use ledger_tests::{TestApp, both};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::exchange_rates::{convert, create};
use ledger_tests::refused;

async fn currencies_are_global_reference_data(app: &TestApp) {
    let org = app.signup("Fx Currencies").await;
    let key = &org.test_key;
    let res = app.read(key, "/currencies").await;
    assert_eq!(res["object"], "list");
    assert_eq!(res["data"].as_array().map(Vec::len), Some(100));
    assert_eq!(res["has_more"], true);
    let total = res["total_count"].as_i64().expect("total");
    let rest = app.get(key, "/currencies?offset=100").await;
    assert_eq!(rest.body["has_more"], false);
    let all: Vec<Value> = [&res["data"], &rest.body["data"]]
        .iter()
        .flat_map(|d| d.as_array().cloned().unwrap_or_default())
        .collect();
    assert_eq!(all.len() as i64, total);
    let usd = all.iter().find(|c| c["code"] == "USD").expect("USD");
    assert_eq!(
        usd,
        &json!({"id": "cur_USD", "object": "currency", "code": "USD", "name": "United States dollar", "symbol": "$", "decimals": 2})
    );
    for (path, code, decimals) in [
        ("/currencies/JPY", "JPY", 0),
        ("/currencies/kwd", "KWD", 3),
        ("/currencies/CUR_usd", "USD", 2),
        ("/currencies/cur_EUR", "EUR", 2),
    ] {
        let res = app.get(key, path).await;
        assert_eq!(res.status, StatusCode::OK, "{path}: {}", res.body);
        assert_eq!(
            (res.body["code"].as_str(), res.body["decimals"].as_i64()),
            (Some(code), Some(decimals)),
            "{path}"
        );
        assert_eq!(res.body["id"], format!("cur_{code}"));
    }
    for path in [
        "/currencies/XYZ",
        "/currencies/act_USD",
        "/currencies/dollars",
    ] {
        refused(
            &app.get(key, path).await,
            StatusCode::NOT_FOUND,
            "resource_not_found",
        );
    }
    refused(
        &app.call(Method::GET, "/currencies", None, None, &[]).await,
        StatusCode::UNAUTHORIZED,
        "missing_api_key",
    );
    // A key narrowed to another resource does not read currencies; one narrowed to
    // currencies does.
    let (_, invoices_only) = app.make_key(&org, key, &["invoices:read"]).await;
    refused(
        &app.get(&invoices_only, "/currencies/USD").await,
        StatusCode::FORBIDDEN,
        "insufficient_permissions",
    );
    let (_, currencies_only) = app.make_key(&org, key, &["currencies:read"]).await;
    assert_eq!(
        app.get(&currencies_only, "/currencies/USD").await.status,
        StatusCode::OK
    );
}
both!(currencies_are_global_reference_data);

async fn conversions(app: &TestApp) {
    let org = app.signup("Fx Convert").await;
    let key = &org.live_key;
    for (from, to, rate, day) in [
        ("USD", "JPY", "151.235", "2026-01-01"),
        ("USD", "JPY", "150", "2026-03-01"),
        ("USD", "KWD", "0.30745", "2026-01-01"),
        ("EUR", "USD", "1.25", "2026-01-01"),
    ] {
        create(app, &org, key, json!({"from_currency_id": from, "to_currency_id": to, "rate": rate, "effective_date": day})).await;
    }
    let before = app.credits(&org).await;
    let cases = [
        // JPY has no decimals: 15123.5 rounds half away from zero.
        (
            json!({"from_currency": "USD", "to_currency": "JPY", "amount": 100, "date": "2026-02-28"}),
            json!({"from_currency": "USD", "to_currency": "JPY", "amount": "100.00", "converted_amount": "15124", "rate": "151.235", "effective_date": "2026-01-01"}),
        ),
        // The latest rate on or before the date.
        (
            json!({"from_currency": "usd", "to_currency": "cur_JPY", "amount": "100", "date": "2026-03-01"}),
            json!({"from_currency": "USD", "to_currency": "JPY", "amount": "100.00", "converted_amount": "15000", "rate": "150", "effective_date": "2026-03-01"}),
        ),
        // KWD has three decimals: 3.0745 -> 3.075.
        (
            json!({"from_currency": "USD", "to_currency": "KWD", "amount": "10.00", "date": "2026-01-01"}),
            json!({"from_currency": "USD", "to_currency": "KWD", "amount": "10.00", "converted_amount": "3.075", "rate": "0.30745", "effective_date": "2026-01-01"}),
        ),
        // The inverse pair: 1 / 1.25 = 0.8; the date defaults to today.
        (
            json!({"from_currency": "USD", "to_currency": "EUR", "amount": "10.01"}),
            json!({"from_currency": "USD", "to_currency": "EUR", "amount": "10.01", "converted_amount": "8.01", "rate": "0.8", "effective_date": "2026-01-01"}),
        ),
        // JPY to USD is the inverse of the latest USD to JPY rate.
        (
            json!({"from_currency": "JPY", "to_currency": "USD", "amount": 15000, "date": "2026-06-01"}),
            json!({"from_currency": "JPY", "to_currency": "USD", "amount": "15000", "converted_amount": "100.00", "rate": "0.006666666667", "effective_date": "2026-03-01"}),
        ),
        (
            json!({"from_currency": "KWD", "to_currency": "KWD", "amount": "1.234", "date": "2020-01-01"}),
            json!({"from_currency": "KWD", "to_currency": "KWD", "amount": "1.234", "converted_amount": "1.234", "rate": "1", "effective_date": "2020-01-01"}),
        ),
    ];
    for (body, want) in cases {
        let res = convert(app, key, body.clone()).await;
        assert_eq!((res.status, &res.body), (StatusCode::OK, &want), "{body}");
    }
    let refusals = [
        // More decimals than `from_currency` has: invalid input (400).
        (
            json!({"from_currency": "USD", "to_currency": "JPY", "amount": "1.005"}),
            StatusCode::BAD_REQUEST,
            "invalid_field",
            Some("amount"),
        ),
        (
            json!({"from_currency": "JPY", "to_currency": "USD", "amount": "1.5"}),
            StatusCode::BAD_REQUEST,
            "invalid_field",
            Some("amount"),
        ),
        (
            json!({"from_currency": "USD", "to_currency": "JPY", "amount": "-1"}),
            StatusCode::BAD_REQUEST,
            "invalid_field",
            Some("amount"),
        ),
        (
            json!({"from_currency": "USD", "to_currency": "JPY", "amount": "ten"}),
            StatusCode::BAD_REQUEST,
            "invalid_field",
            Some("amount"),
        ),
        (
            json!({"from_currency": "USD", "to_currency": "XYZ", "amount": "1"}),
            StatusCode::BAD_REQUEST,
            "invalid_field",
            Some("to_currency"),
        ),
        (
            json!({"from_currency": "USD", "to_currency": "JPY", "amount": "1", "date": "01/01/2026"}),
            StatusCode::BAD_REQUEST,
            "invalid_field",
            Some("date"),
        ),
        (
            json!({"from_currency": "USD", "to_currency": "JPY"}),
            StatusCode::BAD_REQUEST,
            "missing_field",
            Some("amount"),
        ),
        (
            json!({"from_currency": "USD", "to_currency": "JPY", "amount": "1", "rate": "2"}),
            StatusCode::BAD_REQUEST,
            "unknown_field",
            Some("rate"),
        ),
        (
            json!({"from_currency": "JPY", "to_currency": "KWD", "amount": "1"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "exchange_rate_not_found",
            None,
        ),
        (
            json!({"from_currency": "USD", "to_currency": "JPY", "amount": "1", "date": "2025-12-31"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "exchange_rate_not_found",
            None,
        ),
    ];
    for (body, status, code, field) in refusals {
        let res = convert(app, key, body.clone()).await;
        refused(&res, status, code);
        if let Some(field) = field {
            assert_eq!(res.body["error"]["details"]["field"], field, "{body}");
        }
    }
    assert_eq!(app.credits(&org).await, before, "conversions are free");
    refused(
        &app.call(
            Method::POST,
            "/currencies/convert",
            None,
            Some(json!({})),
            &[],
        )
        .await,
        StatusCode::UNAUTHORIZED,
        "missing_api_key",
    );
}
both!(conversions);
