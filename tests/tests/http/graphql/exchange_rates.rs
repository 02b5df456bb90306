//! GraphQL currencies and exchange rates: `currency`, `exchangeRate`, the organization's
//! `exchangeRates`, `convertCurrency`, and the create/update/delete mutations through the
//! same pipeline (credits, duplicate refusal, admin deletes, tenant isolation).

use ledger_tests::{TestApp, both};
use serde_json::{Value, json};

use super::credits;

const CREATE: &str = "mutation($from: String!, $to: String!, $rate: Decimal!, $day: DateTime!) {
  createExchangeRate(fromCurrencyId: $from, toCurrencyId: $to, rate: $rate, effectiveDate: $day) {
    id fromCurrency toCurrency fromCurrencyId toCurrencyId rate effectiveDate createdAt updatedAt
  }
}";

const CONVERT: &str = "query($from: String!, $to: String!, $amount: Decimal!, $date: DateTime) {
  convertCurrency(fromCurrency: $from, toCurrency: $to, amount: $amount, date: $date) {
    fromCurrency toCurrency amount convertedAmount rate effectiveDate
  }
}";

fn rate(from: &str, to: &str, value: &str, day: &str) -> Value {
    json!({"from": from, "to": to, "rate": value, "day": day})
}

async fn rates_and_conversions(app: &TestApp) {
    let org = app.signup("Gql Fx").await;
    let key = &org.live_key;
    let before = credits(app, key).await;
    let d = app
        .gql_data(
            key,
            CREATE,
            rate("cur_USD", "JPY", "151.2350", "2026-01-01"),
        )
        .await;
    let created = &d["createExchangeRate"];
    let id = created["id"].as_str().expect("id").to_owned();
    assert!(id.starts_with("fx_"), "{created}");
    assert_eq!(
        (
            created["fromCurrency"].as_str(),
            created["toCurrencyId"].as_str(),
            created["rate"].as_str(),
            created["effectiveDate"].as_str()
        ),
        (
            Some("USD"),
            Some("cur_JPY"),
            Some("151.235"),
            Some("2026-01-01T00:00:00Z")
        )
    );
    app.gql_data(key, CREATE, rate("USD", "KWD", "0.30745", "2026-01-01"))
        .await;
    assert_eq!(credits(app, key).await, before - 2);

    // The same pair and date again: refused, free.
    let res = app
        .gql_refused(
            Some(key),
            CREATE,
            rate("USD", "JPY", "150", "2026-01-01"),
            "VALIDATION_ERROR",
        )
        .await;
    assert_eq!(res.gql_reason(), "duplicate_value");
    assert_eq!(
        res.body["errors"][0]["extensions"]["field"],
        "effective_date"
    );
    assert_eq!(res.body["data"]["createExchangeRate"], Value::Null);
    // A float rate is refused by the Decimal scalar before anything runs.
    app.gql_refused(Some(key),
        "mutation { createExchangeRate(fromCurrencyId: \"EUR\", toCurrencyId: \"USD\", rate: 1.1, effectiveDate: \"2026-01-01\") { id } }",
        json!({}), "GRAPHQL_VALIDATION_FAILED").await;
    assert_eq!(credits(app, key).await, before - 2);

    // Reads: one rate, the organization's list, currencies by code or id.
    let d = app
        .gql_data(
            key,
            "query($id: ID!) { exchangeRate(id: $id) { id rate }
           missing: exchangeRate(id: \"fx_01HZZZZZZZZZZZZZZZZZZZZZZZ\") { id }
           organization { exchangeRates(fromCurrency: \"USD\", limit: 10) { id toCurrency }
                          yen: exchangeRates(toCurrency: \"cur_JPY\") { id } }
           currency(code: \"cur_kwd\") { id code decimalPlaces }
           nothing: currency(code: \"XYZ\") { code } }",
            json!({"id": id}),
        )
        .await;
    assert_eq!(d["exchangeRate"]["rate"], "151.235");
    assert_eq!(d["missing"], Value::Null);
    assert_eq!(
        d["organization"]["exchangeRates"].as_array().map(Vec::len),
        Some(2)
    );
    assert_eq!(d["organization"]["yen"][0]["id"], id.as_str());
    assert_eq!(
        d["currency"],
        json!({"id": "cur_KWD", "code": "KWD", "decimalPlaces": 3})
    );
    assert_eq!(d["nothing"], Value::Null);

    // Conversions: JPY has no decimals, KWD three; the inverse pair; free.
    let cases = [
        (
            json!({"from": "USD", "to": "JPY", "amount": "100"}),
            "15124",
            "151.235",
        ),
        (
            json!({"from": "USD", "to": "KWD", "amount": "10.00", "date": "2026-01-01"}),
            "3.075",
            "0.30745",
        ),
        (
            json!({"from": "JPY", "to": "USD", "amount": "15124"}),
            "100.00",
            "0.006612226006",
        ),
    ];
    for (vars, converted, applied) in cases {
        let d = app.gql_data(key, CONVERT, vars.clone()).await;
        let c = &d["convertCurrency"];
        assert_eq!(
            (c["convertedAmount"].as_str(), c["rate"].as_str()),
            (Some(converted), Some(applied)),
            "{vars}: {c}"
        );
        assert_eq!(c["effectiveDate"], "2026-01-01T00:00:00Z");
    }
    let res = app
        .gql_refused(
            Some(key),
            CONVERT,
            json!({"from": "USD", "to": "EUR", "amount": "1"}),
            "BUSINESS_RULE_VIOLATION",
        )
        .await;
    assert_eq!(res.gql_reason(), "exchange_rate_not_found");
    let res = app
        .gql(
            Some(key),
            CONVERT,
            json!({"from": "USD", "to": "JPY", "amount": "1.005"}),
        )
        .await;
    // More places than the source currency has: invalid input (400 in REST).
    assert_eq!(res.gql_code(), "VALIDATION_ERROR", "{}", res.body);
    assert_eq!(res.gql_reason(), "invalid_field");
    assert_eq!(res.body["errors"][0]["extensions"]["field"], "amount");
    assert_eq!(credits(app, key).await, before - 2);

    // Update and delete through the pipeline (1 credit each).
    let d = app.gql_data(key,
        "mutation($id: ID!) { updateExchangeRate(id: $id, rate: \"152\", effectiveDate: \"2026-01-02\") { rate effectiveDate } }",
        json!({"id": id}),
    )
    .await;
    assert_eq!(
        d["updateExchangeRate"],
        json!({"rate": "152", "effectiveDate": "2026-01-02T00:00:00Z"})
    );
    let d = app
        .gql_data(
            key,
            "mutation($id: ID!) { deleteExchangeRate(id: $id) }",
            json!({"id": id}),
        )
        .await;
    assert_eq!(d["deleteExchangeRate"], true);
    assert_eq!(credits(app, key).await, before - 4);
    let d = app
        .gql_data(
            key,
            "query($id: ID!) { exchangeRate(id: $id) { id } }",
            json!({"id": id}),
        )
        .await;
    assert_eq!(d["exchangeRate"], Value::Null);
}
both!(rates_and_conversions);

async fn other_organizations_and_keys_are_refused(app: &TestApp) {
    let a = app.signup("Gql Fx A").await;
    let b = app.signup("Gql Fx B").await;
    let d = app
        .gql_data(&a.test_key, CREATE, rate("EUR", "USD", "1.1", "2026-01-01"))
        .await;
    let id = d["createExchangeRate"]["id"]
        .as_str()
        .expect("id")
        .to_owned();
    // Another organization's key neither sees nor changes it.
    let d = app
        .gql_data(
            &b.test_key,
            "query($id: ID!) { exchangeRate(id: $id) { id } }",
            json!({"id": id}),
        )
        .await;
    assert_eq!(d["exchangeRate"], Value::Null);
    let res = app
        .gql_refused(
            Some(&b.test_key),
            "mutation($id: ID!) { updateExchangeRate(id: $id, rate: \"9\") { id } }",
            json!({"id": id}),
            "VALIDATION_ERROR",
        )
        .await;
    assert_eq!(res.gql_reason(), "resource_not_found");
    app.gql_refused(
        Some(&b.test_key),
        "query($org: ID!) { organizationById(id: $org) { exchangeRates { id } } }",
        json!({"org": a.id}),
        "FORBIDDEN",
    )
    .await;
    // The live key of the same organization has no such rate either.
    let d = app
        .gql_data(
            &a.live_key,
            "query($id: ID!) { exchangeRate(id: $id) { id } }",
            json!({"id": id}),
        )
        .await;
    assert_eq!(d["exchangeRate"], Value::Null);
    // Deletes need admin.
    let (_, writer) = app.make_key(&a, &a.test_key, &["read", "write"]).await;
    let res = app
        .gql_refused(
            Some(&writer),
            "mutation($id: ID!) { deleteExchangeRate(id: $id) }",
            json!({"id": id}),
            "FORBIDDEN",
        )
        .await;
    assert_eq!(res.body["errors"][0]["extensions"]["required"], "admin");
}
both!(other_organizations_and_keys_are_refused);
