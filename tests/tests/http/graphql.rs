//! GraphQL (spec 4.12, 7.2): every query, mutation and error code on both databases,
//! credits spent and refused, tenant isolation, document limits, batched balances
//! (counted in store queries), the playground and the exported SDL.

use ledger_tests::{TestApp, both};
use serde_json::{Value, json};

async fn credits(app: &TestApp, key: &str) -> i64 {
    let d = app
        .gql_data(
            key,
            "{ organization { creditBalance { creditsRemaining } } }",
            json!({}),
        )
        .await;
    d["organization"]["creditBalance"]["creditsRemaining"]
        .as_i64()
        .expect("credits")
}

const CREATE_TXN: &str = "mutation($d: String!, $e: [LedgerEntryInput!]!) {
  createTransaction(description: $d, date: \"2026-01-15\", entries: $e, autoPost: true) {
    id status amount currency { code } entries { accountId entryType amount }
  }
}";

fn entries(debit: &str, credit: &str, amount: &str) -> Value {
    json!([
        { "accountId": debit, "entryType": "DEBIT", "amount": amount },
        { "accountId": credit, "entryType": "CREDIT", "amount": amount },
    ])
}

async fn reads(app: &TestApp) {
    let (org, [cash, sales]) = app
        .signup_with_accounts("Gql Reads", ["1000", "4000"])
        .await;
    let key = &org.test_key;
    app.post_transfer(&org, key, &cash, &sales, "125.50").await;
    let d = app
        .gql_data(
            key,
            "{ organization { id name isRoot parentOrganizationId baseCurrency { code symbol }
             creditsRemaining createdAt metadata
             accounts { id code accountType status isSystem balance { amount formatted currency } }
             recentTransactions(limit: 5) { id status amount entries { entryType amount } } } }",
            json!({}),
        )
        .await;
    let o = &d["organization"];
    assert_eq!(o["id"], org.id.as_str());
    assert_eq!(o["isRoot"], true);
    assert_eq!(o["parentOrganizationId"], Value::Null);
    assert_eq!(o["baseCurrency"]["code"], "USD");
    assert_eq!(o["creditsRemaining"], 500);
    assert!(o["metadata"].is_object(), "{o}");
    let accounts = o["accounts"].as_array().expect("accounts");
    assert_eq!(accounts.len(), 7);
    let by_code = |c: &str| {
        accounts
            .iter()
            .find(|a| a["code"] == c)
            .cloned()
            .unwrap_or(Value::Null)
    };
    assert_eq!(by_code("1000")["balance"]["amount"], "125.50");
    assert_eq!(by_code("1000")["balance"]["formatted"], "$125.50 USD");
    assert_eq!(by_code("4000")["balance"]["amount"], "125.50");
    assert_eq!(by_code("4000")["accountType"], "REVENUE");
    assert_eq!(by_code("2000")["balance"]["amount"], "0.00");
    assert_eq!(by_code("1000")["status"], "ACTIVE");
    assert_eq!(by_code("1000")["isSystem"], true);
    let txns = o["recentTransactions"].as_array().expect("transactions");
    assert_eq!(txns.len(), 1);
    assert_eq!(txns[0]["status"], "POSTED");
    assert_eq!(txns[0]["amount"], "125.50");
    let txn_id = txns[0]["id"].as_str().expect("id").to_owned();

    let d = app
        .gql_data(
            key,
            "query($id: ID!, $t: ID!) {
           account(id: $id) { code name balance { amount }
             transactions(limit: 10) { transactionId description debit credit balance date } }
           transaction(id: $t) { id description date status currency { code decimalPlaces }
             entries { id accountId entryType amount description } metadata }
           missing: account(id: \"act_01JZZZZZZZZZZZZZZZZZZZZZZZ\") { id } }",
            json!({ "id": cash, "t": txn_id }),
        )
        .await;
    assert_eq!(d["account"]["code"], "1000");
    let history = d["account"]["transactions"].as_array().expect("history");
    assert_eq!(history.len(), 1);
    assert_eq!(history[0]["debit"], "125.50");
    assert_eq!(history[0]["credit"], "0.00");
    assert_eq!(history[0]["balance"], "125.50");
    assert_eq!(history[0]["transactionId"], txn_id.as_str());
    assert_eq!(d["transaction"]["date"], "2026-01-15T00:00:00Z");
    assert_eq!(d["transaction"]["currency"]["decimalPlaces"], 2);
    assert_eq!(
        d["transaction"]["entries"].as_array().map(Vec::len),
        Some(2)
    );
    assert_eq!(d["missing"], Value::Null);

    // Contacts: one made over REST reads back here.
    let contact_id = app
        .create_id_wait(
            key,
            &org.path("contacts"),
            json!({ "contact_type": "vendor", "name": "Paper Co", "tax_number": "VAT-9" }),
        )
        .await;
    let d = app.gql_data(key,
        "query($c: ID!) { contact(id: $c) { id name contactType taxId enabled currencyId createdBy }
           organization { contacts { id name } } currencies { code name symbol decimalPlaces } }",
        json!({ "c": contact_id }),
    )
    .await;
    assert_eq!(d["contact"]["name"], "Paper Co");
    assert_eq!(d["contact"]["contactType"], "VENDOR");
    assert_eq!(d["contact"]["taxId"], "VAT-9");
    assert_eq!(d["contact"]["currencyId"], "USD");
    assert_eq!(d["organization"]["contacts"][0]["id"], contact_id.as_str());
    let currencies = d["currencies"].as_array().expect("currencies");
    let eur = currencies.iter().find(|c| c["code"] == "EUR").expect("EUR");
    assert_eq!(eur["decimalPlaces"], 2);
    assert!(
        currencies
            .iter()
            .any(|c| c["code"] == "JPY" && c["decimalPlaces"] == 0)
    );

    // organizationById: the key's own organization.
    let d = app
        .gql_data(
            key,
            "query($id: ID!) { organizationById(id: $id) { id name } }",
            json!({ "id": org.id }),
        )
        .await;
    assert_eq!(d["organizationById"]["name"], "Gql Reads");

    // A descendant is reached by id, with its own chart; the child cannot reach up.
    let (child, child_key) = app.sub_org(key, &org.id, "Gql Child", "owned").await;
    let d = app.gql_data(key,
        "query($id: ID!) { organizationById(id: $id) { name isRoot parentOrganizationId creditsRemaining
             accounts { code balance { amount } } } }",
        json!({ "id": child }),
    )
    .await;
    let c = &d["organizationById"];
    assert_eq!(c["name"], "Gql Child");
    assert_eq!(c["isRoot"], false);
    assert_eq!(c["parentOrganizationId"], org.id.as_str());
    assert_eq!(c["creditsRemaining"], 500);
    assert_eq!(c["accounts"].as_array().map(Vec::len), Some(7));
    assert!(
        c["accounts"]
            .as_array()
            .into_iter()
            .flatten()
            .all(|a| a["balance"]["amount"] == "0.00")
    );
    app.gql_refused(
        Some(&child_key),
        "query($id: ID!) { organizationById(id: $id) { name } }",
        json!({ "id": org.id }),
        "FORBIDDEN",
    )
    .await;
}
both!(graphql_reads, reads);

async fn reports(app: &TestApp) {
    let org = app.signup("Gql Reports").await;
    let key = &org.live_key;
    let [cash, sales, expenses] = app.account_ids(&org, key, ["1000", "4000", "5000"]).await;
    app.post_transfer(&org, key, &cash, &sales, "300.00").await;
    app.post_transfer(&org, key, &expenses, &cash, "45.25")
        .await;
    let before = credits(app, key).await;
    let d = app.gql_data(key,
        "{ organization {
             trialBalance { currency totalDebits totalCredits accounts { accountCode debit credit netBalance } }
             balanceSheet(asOf: \"2026-12-31\") { asOf totalAssets totalLiabilitiesAndEquity currentEarnings
               equity { total accounts { accountCode balance } } assets { total } }
             incomeStatement(startDate: \"2026-01-01\", endDate: \"2026-12-31\") {
               startDate endDate totalRevenue totalExpenses netIncome revenue { accounts { accountCode balance } } } } }",
        json!({}),
    )
    .await;
    let o = &d["organization"];
    assert_eq!(o["trialBalance"]["totalDebits"], "300.00");
    assert_eq!(o["trialBalance"]["totalCredits"], "300.00");
    assert_eq!(o["trialBalance"]["currency"], "USD");
    assert_eq!(o["balanceSheet"]["totalAssets"], "254.75");
    assert_eq!(o["balanceSheet"]["totalLiabilitiesAndEquity"], "254.75");
    assert_eq!(o["balanceSheet"]["currentEarnings"], "254.75");
    assert_eq!(o["balanceSheet"]["asOf"], "2026-12-31T00:00:00Z");
    assert_eq!(o["incomeStatement"]["totalRevenue"], "300.00");
    assert_eq!(o["incomeStatement"]["totalExpenses"], "45.25");
    assert_eq!(o["incomeStatement"]["netIncome"], "254.75");
    assert_eq!(o["incomeStatement"]["startDate"], "2026-01-01T00:00:00Z");
    // Three report fields cost 5 credits each; the credit balance itself is free.
    assert_eq!(credits(app, key).await, before - 15);
    // Before an invalid period is refused, nothing is charged.
    let res = app.gql(Some(key),
        "{ organization { incomeStatement(startDate: \"2026-02-01\", endDate: \"2026-01-01\") { netIncome } } }",
        json!({}),
    )
    .await;
    // Two dates in the wrong order: invalid input, as in REST (400 `invalid_field`).
    assert_eq!(res.gql_code(), "VALIDATION_ERROR", "{}", res.body);
    assert_eq!(res.gql_reason(), "invalid_field", "{}", res.body);
    assert_eq!(
        res.body["errors"][0]["extensions"]["field"], "endDate",
        "{}",
        res.body
    );
    assert_eq!(
        res.body["errors"][0]["message"], "endDate: must not be before startDate",
        "{}",
        res.body
    );
    assert_eq!(credits(app, key).await, before - 15);
}
both!(graphql_reports, reports);

/// Without `as_of`, REST and GraphQL count the same entries, a future-dated one included
/// (docs/decisions.md, "A report without as_of counts every posted entry"); with one
/// before that entry's date, both leave it out.
async fn reports_without_as_of_agree(app: &TestApp) {
    let org = app.signup("Gql As Of").await;
    let key = &org.live_key;
    let [cash, sales] = app.account_ids(&org, key, ["1000", "4000"]).await;
    app.post_transfer(&org, key, &cash, &sales, "10.00").await;
    app.post_dated(
        &org,
        key,
        "next year",
        "2099-06-01",
        (&cash, &sales),
        "5.00",
    )
    .await;
    for (as_of, total) in [(None, "15.00"), (Some("2099-05-31"), "10.00")] {
        let (query, args) = match as_of {
            Some(d) => (format!("?as_of={d}"), format!("(asOf: \"{d}\")")),
            None => (String::new(), String::new()),
        };
        let rest = app
            .get(
                key,
                &format!("/organizations/{}/reports/trial-balance{query}", org.id),
            )
            .await;
        assert_eq!(rest.body["total_debits"], total, "{}", rest.body);
        let d = app
            .gql_data(
                key,
                &format!("{{ organization {{ trialBalance{args} {{ totalDebits }} balanceSheet{args} {{ totalAssets }} }} }}"),
                json!({}),
            )
            .await;
        assert_eq!(
            d["organization"]["trialBalance"]["totalDebits"], total,
            "{d}"
        );
        assert_eq!(
            d["organization"]["balanceSheet"]["totalAssets"], total,
            "{d}"
        );
    }
}
both!(graphql_reports_without_as_of, reports_without_as_of_agree);

async fn mutations(app: &TestApp) {
    let org = app.signup("Gql Writes").await;
    let key = &org.live_key;
    let start = credits(app, key).await;
    let d = app.gql_data(key,
        "mutation { createAccount(code: \"1500\", name: \"Petty Cash\", accountType: ASSET, description: \"drawer\") {
           id code name accountType status description balance { amount } } }",
        json!({}),
    )
    .await;
    let petty = d["createAccount"]["id"].as_str().expect("id").to_owned();
    assert_eq!(d["createAccount"]["accountType"], "ASSET");
    assert_eq!(d["createAccount"]["balance"]["amount"], "0.00");
    assert_eq!(credits(app, key).await, start - 1);

    let d = app.gql_data(key,
        "mutation($id: ID!) { updateAccount(id: $id, name: \"Petty cash box\", status: INACTIVE) { name status } }",
        json!({ "id": petty }),
    )
    .await;
    assert_eq!(d["updateAccount"]["name"], "Petty cash box");
    assert_eq!(d["updateAccount"]["status"], "INACTIVE");
    assert_eq!(credits(app, key).await, start - 2);

    let [cash, sales] = app.account_ids(&org, key, ["1000", "4000"]).await;
    let d = app
        .gql_data(
            key,
            CREATE_TXN,
            json!({ "d": "Sale", "e": entries(&cash, &sales, "19.99") }),
        )
        .await;
    let t = &d["createTransaction"];
    assert_eq!(t["status"], "POSTED");
    assert_eq!(t["amount"], "19.99");
    assert_eq!(t["currency"]["code"], "USD");
    // createTransaction costs 2 credits (spec 4.12).
    assert_eq!(credits(app, key).await, start - 4);
    // The client reads what it wrote: the balance already counts it.
    let d = app
        .gql_data(
            key,
            "query($id: ID!) { account(id: $id) { balance { amount } } }",
            json!({ "id": cash }),
        )
        .await;
    assert_eq!(d["account"]["balance"]["amount"], "19.99");

    let d = app.gql_data(key,
        "mutation { createContact(name: \"Acme\", contactType: CUSTOMER, email: \"ap@acme.example\", taxId: \"T-1\") {
           id name contactType email taxId enabled } }",
        json!({}),
    )
    .await;
    let acme = d["createContact"]["id"].as_str().expect("id").to_owned();
    assert_eq!(d["createContact"]["contactType"], "CUSTOMER");
    assert_eq!(d["createContact"]["enabled"], true);
    assert_eq!(credits(app, key).await, start - 5);
    let d = app.gql_data(key,
        "mutation($id: ID!) { updateContact(id: $id, phone: \"+1 555 0100\", email: \"\") { phone email name } }",
        json!({ "id": acme }),
    )
    .await;
    assert_eq!(d["updateContact"]["phone"], "+1 555 0100");
    assert_eq!(d["updateContact"]["email"], Value::Null);
    assert_eq!(d["updateContact"]["name"], "Acme");
    assert_eq!(credits(app, key).await, start - 6);
    let d = app
        .gql_data(
            key,
            "mutation($c: ID!, $a: ID!) { deleteContact(id: $c) deleteAccount(id: $a) }",
            json!({ "c": acme, "a": petty }),
        )
        .await;
    assert_eq!(
        (d["deleteContact"].clone(), d["deleteAccount"].clone()),
        (json!(true), json!(true))
    );
    assert_eq!(credits(app, key).await, start - 8);
    let d = app
        .gql_data(
            key,
            "query($c: ID!, $a: ID!) { contact(id: $c) { id } account(id: $a) { id } }",
            json!({ "c": acme, "a": petty }),
        )
        .await;
    assert_eq!(
        (d["contact"].clone(), d["account"].clone()),
        (Value::Null, Value::Null)
    );
    // Deletions are soft (spec 3.6): the REST trail shows both.
    let res = app.read(key, &org.path("recently-deleted")).await;
    assert!(res.to_string().contains(&acme) && res.to_string().contains(&petty));
}
both!(graphql_mutations, mutations);

mod exchange_rates;
mod invoices;
mod protection;
mod refusals;
