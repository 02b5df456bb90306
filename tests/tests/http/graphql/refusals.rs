//! GraphQL refusals: every error code of spec 7.2, partial results of aliases, and
//! tenant isolation.

use ledger_tests::{TestApp, both};
use reqwest::StatusCode;
use serde_json::{Value, json};

use super::{CREATE_TXN, entries};

async fn errors(app: &TestApp) {
    let org = app.signup("Gql Errors").await;
    let key = &org.test_key;
    // No key, a malformed key, an unknown key.
    for k in [
        None,
        Some("nonsense"),
        Some("ha_test_0000000000000000000000000000000000000000000"),
    ] {
        let res = app.gql(k, "{ organization { id } }", json!({})).await;
        assert_eq!(res.status, StatusCode::UNAUTHORIZED, "{}", res.body);
        assert_eq!(res.gql_code(), "UNAUTHENTICATED", "{}", res.body);
        assert!(res.body.get("data").is_none());
    }
    // A field the schema does not have.
    let res = app
        .gql(Some(key), "{ organization { nope } }", json!({}))
        .await;
    assert_eq!(res.status, StatusCode::OK);
    assert_eq!(res.gql_code(), "GRAPHQL_VALIDATION_FAILED", "{}", res.body);
    assert!(
        res.body["errors"][0]["message"]
            .as_str()
            .unwrap_or("")
            .contains("nope")
    );
    // A syntax error and a float where a Decimal is due are validation failures too.
    app.gql_refused(
        Some(key),
        "{ organization { ",
        json!({}),
        "GRAPHQL_VALIDATION_FAILED",
    )
    .await;
    let [cash, sales] = app.account_ids(&org, key, ["1000", "4000"]).await;
    app.gql_refused(
        Some(key),
        CREATE_TXN,
        json!({ "d": "float", "e": [
            { "accountId": cash, "entryType": "DEBIT", "amount": 1.5 },
            { "accountId": sales, "entryType": "CREDIT", "amount": "1.50" } ] }),
        "GRAPHQL_VALIDATION_FAILED",
    )
    .await;
    // A body that is not a GraphQL request.
    let res = app.post(key, "/graphql", json!([1, 2])).await;
    assert_eq!(res.status, StatusCode::BAD_REQUEST);
    assert_eq!(res.gql_code(), "GRAPHQL_VALIDATION_FAILED");
    let huge = format!("{{ organization {{ id }} }} #{}", "x".repeat(1 << 20));
    let res = app.gql(Some(key), &huge, json!({})).await;
    assert_eq!(res.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(res.gql_code(), "GRAPHQL_VALIDATION_FAILED");

    // Duplicate account code: VALIDATION_ERROR naming the field.
    let res = app.gql_refused(Some(key),
        "mutation { createAccount(code: \"1000\", name: \"Again\", accountType: ASSET) { id } }",
        json!({}), "VALIDATION_ERROR").await;
    assert_eq!(res.body["errors"][0]["extensions"]["field"], "code");
    assert_eq!(res.body["errors"][0]["path"], json!(["createAccount"]));
    assert_eq!(res.body["data"]["createAccount"], Value::Null);

    // Unbalanced: the message states both totals; nothing is written or charged.
    let res = app
        .gql_refused(
            Some(key),
            CREATE_TXN,
            json!({ "d": "lopsided", "e": [
            { "accountId": cash, "entryType": "DEBIT", "amount": "10.00" },
            { "accountId": sales, "entryType": "CREDIT", "amount": "9.00" } ] }),
            "BUSINESS_RULE_VIOLATION",
        )
        .await;
    let message = res.body["errors"][0]["message"].as_str().unwrap_or("");
    assert!(
        message.contains("debits 10.00") && message.contains("credits 9.00"),
        "{message}"
    );
    assert_eq!(res.body["errors"][0]["extensions"]["totalDebits"], "10.00");
    let d = app
        .gql_data(
            key,
            "{ organization { recentTransactions { id } } }",
            json!({}),
        )
        .await;
    assert_eq!(d["organization"]["recentTransactions"], json!([]));

    // One failing alias does not undo the others, and the error names its path.
    let res = app.gql(Some(key),
        "mutation { good: createAccount(code: \"1600\", name: \"Good\", accountType: ASSET) { code }
                    bad: createAccount(code: \"16x\", name: \"Bad\", accountType: ASSET) { code }
                    also: createAccount(code: \"1601\", name: \"Also\", accountType: ASSET) { code } }",
        json!({}),
    )
    .await;
    assert_eq!(res.status, StatusCode::OK);
    assert_eq!(res.body["data"]["good"]["code"], "1600");
    assert_eq!(res.body["data"]["also"]["code"], "1601");
    assert_eq!(res.body["data"]["bad"], Value::Null);
    assert_eq!(res.body["errors"].as_array().map(Vec::len), Some(1));
    assert_eq!(res.body["errors"][0]["path"], json!(["bad"]));
    assert_eq!(res.gql_code(), "VALIDATION_ERROR");

    // A system account cannot be deleted: a business rule.
    let res = app
        .gql_refused(
            Some(key),
            "mutation($id: ID!) { deleteAccount(id: $id) }",
            json!({ "id": cash }),
            "BUSINESS_RULE_VIOLATION",
        )
        .await;
    assert_eq!(res.gql_reason(), "resource_in_use");

    // A read-only key cannot write: FORBIDDEN.
    let (reader_id, reader) = app.make_key(&org, key, &["read"]).await;
    app.gql_refused(
        Some(&reader),
        "mutation { createAccount(code: \"1700\", name: \"No\", accountType: ASSET) { id } }",
        json!({}),
        "FORBIDDEN",
    )
    .await;
    let d = app
        .gql_data(&reader, "{ organization { name } }", json!({}))
        .await;
    assert_eq!(d["organization"]["name"], "Gql Errors");
    // A disabled key is UNAUTHENTICATED (DECISIONS 6).
    let res = app
        .put(
            key,
            &org.path(&format!("api-keys/{reader_id}")),
            json!({ "disabled": true }),
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    let res = app
        .gql(Some(&reader), "{ organization { name } }", json!({}))
        .await;
    assert_eq!(res.status, StatusCode::UNAUTHORIZED);
    assert_eq!(res.gql_code(), "UNAUTHENTICATED", "{}", res.body);
    assert_eq!(res.gql_reason(), "disabled_api_key");
}

both!(graphql_errors, errors);

async fn tenants(app: &TestApp) {
    let a = app.signup("Gql Tenant A").await;
    let b = app.signup("Gql Tenant B").await;
    let [a_cash, a_sales] = app.account_ids(&a, &a.test_key, ["1000", "4000"]).await;
    let txn = app
        .post_transfer(&a, &a.test_key, &a_cash, &a_sales, "5.00")
        .await;
    let txn_id = txn["id"].as_str().expect("id").to_owned();
    let res = app
        .post_wait(
            &a.test_key,
            &a.path("contacts"),
            json!({ "contact_type": "customer", "name": "A's client" }),
        )
        .await;
    let contact = res.body["id"].as_str().expect("contact").to_owned();

    // B reads nothing of A's.
    let d = app.gql_data(&b.test_key,
        "query($a: ID!, $t: ID!, $c: ID!) { account(id: $a) { id } transaction(id: $t) { id } contact(id: $c) { id } }",
        json!({ "a": a_cash, "t": txn_id, "c": contact }),
    )
    .await;
    assert_eq!(
        d,
        json!({ "account": null, "transaction": null, "contact": null })
    );
    let res = app
        .gql_refused(
            Some(&b.test_key),
            "query($id: ID!) { organizationById(id: $id) { name } }",
            json!({ "id": a.id }),
            "FORBIDDEN",
        )
        .await;
    assert_eq!(res.body["data"]["organizationById"], Value::Null);
    // An id that exists nowhere answers the same.
    app.gql_refused(
        Some(&b.test_key),
        "{ organizationById(id: \"org_01JZZZZZZZZZZZZZZZZZZZZZZZ\") { name } }",
        json!({}),
        "FORBIDDEN",
    )
    .await;

    // B changes nothing of A's.
    let res = app.gql(Some(&b.test_key),
        "mutation($a: ID!, $c: ID!) { updateAccount(id: $a, name: \"Mine now\") { id }
            deleteContact(id: $c) updateContact(id: $c, name: \"Mine\") { id } deleteAccount(id: $a) }",
        json!({ "a": a_cash, "c": contact }),
    )
    .await;
    let errors = res.body["errors"].as_array().cloned().unwrap_or_default();
    assert_eq!(errors.len(), 4, "{}", res.body);
    assert!(
        errors
            .iter()
            .all(|e| e["extensions"]["code"] == "VALIDATION_ERROR"
                && e["extensions"]["reason"] == "resource_not_found"),
        "{}",
        res.body
    );
    // B's entries cannot name A's accounts.
    let b_cash = app.account_id(&b, &b.test_key, "1000").await;
    let res = app
        .gql(
            Some(&b.test_key),
            CREATE_TXN,
            json!({ "d": "steal", "e": entries(&b_cash, &a_sales, "1.00") }),
        )
        .await;
    // None of B's accounts: the same refusal as an id that names nothing anywhere.
    assert_eq!(res.gql_code(), "BUSINESS_RULE_VIOLATION", "{}", res.body);
    assert_eq!(res.gql_reason(), "reference_not_found", "{}", res.body);
    let d = app.gql_data(&a.test_key,
        "query($a: ID!, $c: ID!) { account(id: $a) { name balance { amount } } contact(id: $c) { name } }",
        json!({ "a": a_cash, "c": contact }),
    )
    .await;
    assert_eq!(d["account"]["name"], "Cash");
    assert_eq!(d["account"]["balance"]["amount"], "5.00");
    assert_eq!(d["contact"]["name"], "A's client");
    // Modes are tenants too: A's live key sees none of A's test-mode transactions.
    let d = app
        .gql_data(
            &a.live_key,
            "{ organization { recentTransactions { id } } }",
            json!({}),
        )
        .await;
    assert_eq!(d["organization"]["recentTransactions"], json!([]));
}
both!(graphql_tenants, tenants);
