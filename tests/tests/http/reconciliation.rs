//! Bank reconciliation (issue 18): a reconciliation from an OFX statement and one from a
//! CSV statement, each to completion; the refusal to complete while the difference is not
//! zero; the lock on reconciled transactions; refusals of malformed statements; tenancy;
//! and the GraphQL and MCP paths.

use ledger_tests::{Answer, Org, TestApp, both, refused_on};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::pipeline::graphql_reason;
use ledger_tests::mcp::{self, tool, tool_ok, tool_refused};
use ledger_tests::refused;

/// A January statement of a checking account as a US bank exports it (OFX 1.02 SGML):
/// a payroll deposit, a cheque, and a service fee the books do not know yet.
const OFX: &str = "OFXHEADER:100\r\nDATA:OFXSGML\r\nVERSION:102\r\nSECURITY:NONE\r\nENCODING:USASCII\r\nCHARSET:1252\r\nCOMPRESSION:NONE\r\nOLDFILEUID:NONE\r\nNEWFILEUID:NONE\r\n\r\n<OFX>\r\n<SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS><DTSERVER>20260201083000.000[-5:EST]<LANGUAGE>ENG<FI><ORG>FIRSTBANK<FID>1001</FI></SONRS></SIGNONMSGSRSV1>\r\n<BANKMSGSRSV1><STMTTRNRS><TRNUID>1001<STATUS><CODE>0<SEVERITY>INFO</STATUS>\r\n<STMTRS><CURDEF>USD<BANKACCTFROM><BANKID>121000248<ACCTID>000123456789<ACCTTYPE>CHECKING</BANKACCTFROM>\r\n<BANKTRANLIST><DTSTART>20260101000000.000[-5:EST]<DTEND>20260131235959.000[-5:EST]\r\n<STMTTRN><TRNTYPE>DIRECTDEP<DTPOSTED>20260105120000.000[-5:EST]<TRNAMT>1500.00<FITID>202601050001<NAME>ACME CORP PAYROLL<MEMO>PPD ID 9876543210</STMTTRN>\r\n<STMTTRN><TRNTYPE>CHECK<DTPOSTED>20260114120000.000[-5:EST]<TRNAMT>-75.50<FITID>202601140002<CHECKNUM>1001<NAME>CITY WATER &amp; POWER</STMTTRN>\r\n<STMTTRN><TRNTYPE>SRVCHG<DTPOSTED>20260131120000.000[-5:EST]<TRNAMT>-5.00<FITID>202601310003<NAME>MONTHLY SERVICE FEE</STMTTRN>\r\n</BANKTRANLIST><LEDGERBAL><BALAMT>1419.50<DTASOF>20260131235959.000[-5:EST]</LEDGERBAL><AVAILBAL><BALAMT>1419.50<DTASOF>20260131235959.000[-5:EST]</AVAILBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1>\r\n</OFX>\r\n";

fn base(org: &Org) -> String {
    org.path("reconciliations")
}

/// The id of the entry of `txn` on `account`.
fn entry_on(txn: &Value, account: &str) -> String {
    txn["entries"]
        .as_array()
        .and_then(|all| all.iter().find(|e| e["account_id"] == account))
        .and_then(|e| e["id"].as_str())
        .expect("an entry on the account")
        .to_owned()
}

async fn create(app: &TestApp, org: &Org, key: &str, body: Value) -> Value {
    let res = app.post(key, &base(org), body).await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    res.body
}

async fn lines(app: &TestApp, key: &str, path: &str) -> Vec<Value> {
    let res = app.read(key, &format!("{path}/statement-lines")).await;
    res["data"].as_array().cloned().unwrap_or_default()
}

async fn post_empty(app: &TestApp, key: &str, path: &str) -> Answer {
    app.call(Method::POST, path, Some(key), None, &[]).await
}

async fn ofx_statement_to_completion(app: &TestApp) {
    let org = app.signup("Recon Ofx").await;
    let key = &org.live_key;
    let [cash, sales, expenses] = app.account_ids(&org, key, ["1000", "4000", "5000"]).await;
    let payroll = app
        .post_dated(
            &org,
            key,
            "Payroll deposit ACME",
            "2026-01-05",
            (&cash, &sales),
            "1500.00",
        )
        .await;
    let water = app
        .post_dated(
            &org,
            key,
            "City water bill",
            "2026-01-12",
            (&expenses, &cash),
            "75.50",
        )
        .await;
    // An entry outside the window of any line is never proposed.
    app.post_dated(
        &org,
        key,
        "Cash sale",
        "2026-01-20",
        (&cash, &sales),
        "75.50",
    )
    .await;

    let rec = create(
        app,
        &org,
        key,
        json!({"account_id": cash, "start_date": "2026-01-01", "end_date": "2026-01-31", "closing_balance": "1419.50"}),
    )
    .await;
    let id = rec["id"].as_str().expect("id").to_owned();
    assert!(id.starts_with("rcn_"), "{id}");
    assert_eq!(
        (
            &rec["status"],
            &rec["opening_balance"],
            &rec["cleared_balance"],
            &rec["difference"]
        ),
        (
            &json!("open"),
            &json!("0.00"),
            &json!("0.00"),
            &json!("1419.50")
        )
    );
    let path = format!("{}/{id}", base(&org));

    // The import sniffs OFX; each known line gets its entry proposed.
    let res = app
        .post(key, &format!("{path}/statement"), json!({"content": OFX}))
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    assert_eq!(
        (&res.body["format"], &res.body["imported"]),
        (&json!("ofx"), &json!(3))
    );
    let all = lines(app, key, &path).await;
    assert_eq!(all.len(), 3);
    assert_eq!(all[0]["amount"], "1500.00");
    assert_eq!(all[0]["reference"], "202601050001");
    assert_eq!(all[0]["proposal"]["entry_id"], entry_on(&payroll, &cash));
    assert_eq!(all[0]["proposal"]["confidence"], "0.86", "{}", all[0]);
    assert_eq!(all[1]["description"], "CITY WATER & POWER");
    assert_eq!(all[1]["proposal"]["transaction_id"], water["id"]);
    assert!(
        all[1]["proposal"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("2 days apart")),
        "{}",
        all[1]
    );
    assert_eq!(all[2]["proposal"], Value::Null, "{}", all[2]);

    // Importing the same file again adds nothing.
    let again = app
        .post(
            key,
            &format!("{path}/statement"),
            json!({"content": OFX, "format": "qfx"}),
        )
        .await;
    assert_eq!(
        (&again.body["imported"], &again.body["skipped_duplicates"]),
        (&json!(0), &json!(3)),
        "{}",
        again.body
    );

    for line in &all[..2] {
        let res = post_empty(
            app,
            key,
            &format!(
                "{path}/statement-lines/{}/accept",
                line["id"].as_str().expect("line")
            ),
        )
        .await;
        assert_eq!(res.status, StatusCode::OK, "{}", res.body);
        assert_eq!(res.body["status"], "matched");
    }
    let twice = post_empty(
        app,
        key,
        &format!(
            "{path}/statement-lines/{}/accept",
            all[0]["id"].as_str().expect("line")
        ),
    )
    .await;
    refused(
        &twice,
        StatusCode::UNPROCESSABLE_ENTITY,
        "statement_line_already_matched",
    );

    // The fee is not in the books: completing is refused until it is.
    let res = post_empty(app, key, &format!("{path}/complete")).await;
    refused(
        &res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "reconciliation_not_balanced",
    );
    assert_eq!(
        res.body["error"]["details"]["difference"], "-5.00",
        "{}",
        res.body
    );
    assert_eq!(res.body["error"]["details"]["cleared_balance"], "1424.50");

    let fee_line = all[2]["id"].as_str().expect("line");
    let res = app
        .post(
            key,
            &format!("{path}/statement-lines/{fee_line}/create-transaction"),
            json!({"counter_account_id": expenses}),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    assert_eq!(res.body["status"], "matched");
    let fee = res.body["transaction"].clone();
    assert_eq!(
        (&fee["status"], &fee["amount"], &fee["description"]),
        (
            &json!("posted"),
            &json!("5.00"),
            &json!("MONTHLY SERVICE FEE")
        )
    );
    assert_eq!(fee["date"], "2026-01-31T00:00:00Z");

    let res = app.get(key, &path).await;
    assert_eq!(
        (&res.body["cleared_balance"], &res.body["difference"]),
        (&json!("1419.50"), &json!("0.00")),
        "{}",
        res.body
    );
    assert_eq!(res.body["matched_count"], 3);
    let done = post_empty(app, key, &format!("{path}/complete")).await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    assert_eq!(done.body["status"], "completed");
    assert!(done.body["completed_at"].is_string());

    // The matched transactions are locked; the unmatched one is not.
    let txns = org.path("transactions");
    let res = app
        .post_wait(
            key,
            &format!("{txns}/{}/reverse", payroll["id"].as_str().expect("id")),
            json!({"reason": "typo"}),
        )
        .await;
    refused(
        &res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "transaction_reconciled",
    );
    assert_eq!(
        res.body["error"]["details"]["reconciliation_id"],
        id.as_str()
    );
    let fee_path = format!("{txns}/{}", fee["id"].as_str().expect("id"));
    let res = app
        .put(key, &fee_path, json!({"description": "Bank fee"}))
        .await;
    refused(
        &res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "transaction_reconciled",
    );
    let res = app.delete(key, &fee_path).await;
    refused(
        &res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "transaction_reconciled",
    );
    // A completed reconciliation no longer changes.
    refused(
        &app.put(key, &path, json!({"closing_balance": "1"})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "reconciliation_not_open",
    );
    refused(
        &app.delete(key, &path).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "reconciliation_not_open",
    );

    let kinds = app.event_kinds(key, "reconciliation", &id).await;
    for kind in [
        "reconciliation.created",
        "reconciliation.statement_imported",
        "reconciliation.updated",
        "reconciliation.completed",
    ] {
        assert!(kinds.contains(&kind.to_owned()), "{kind} in {kinds:?}");
    }
}

both!(ofx_statement_to_completion);

async fn csv_statement_to_completion(app: &TestApp) {
    let (org, [cash, sales, expenses]) = app
        .signup_with_accounts("Recon Csv", ["1000", "4000", "5000"])
        .await;
    let key = &org.test_key;
    let rent = app
        .post_dated(
            &org,
            key,
            "Office rent March",
            "2026-03-01",
            (&expenses, &cash),
            "1200.00",
        )
        .await;
    let sale = app
        .post_dated(
            &org,
            key,
            "Invoice 1042 paid",
            "2026-03-03",
            (&cash, &sales),
            "350.25",
        )
        .await;
    let coffee = app
        .post_dated(
            &org,
            key,
            "Coffee beans",
            "2026-03-10",
            (&expenses, &cash),
            "20.00",
        )
        .await;

    let rec = create(app, &org, key, json!({"account_id": cash, "start_date": "2026-03-01", "end_date": "2026-03-31", "closing_balance": -849.75})).await;
    let id = rec["id"].as_str().expect("id").to_owned();
    let path = format!("{}/{id}", base(&org));
    let csv = "Posted,Details,Withdrawal,Deposit,Ref\n03/02/2026,\"RENT, MARCH\",\"1,200.00\",,R-77\n03/04/2026,ACH CREDIT INVOICE 1042,,350.25,\n";
    // Columns by header name (any case) or by number; a number may come as `4.0`, which
    // JSON Schema counts as the integer 4.
    let res = app
        .post(
            key,
            &format!("{path}/statement"),
            json!({"content": csv, "mapping": {"date": "Posted", "description": "details", "debit": "Withdrawal", "credit": 4.0, "reference": "Ref", "date_format": "MM/DD/YYYY"}}),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    assert_eq!(
        (&res.body["format"], &res.body["imported"]),
        (&json!("csv"), &json!(2))
    );
    let imported = res.body["statement_lines"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(imported[0]["amount"], "-1200.00");
    assert_eq!(imported[0]["proposal"]["entry_id"], entry_on(&rent, &cash));
    assert_eq!(imported[1]["proposal"]["entry_id"], entry_on(&sale, &cash));

    // Match one line by its proposal and one entry by hand (with the coffee, which is
    // not on the statement), then unmatch the coffee again.
    let res = app
        .post(
            key,
            &format!(
                "{path}/statement-lines/{}/accept",
                imported[0]["id"].as_str().expect("line")
            ),
            json!({}),
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    let res = app
        .post(
            key,
            &format!("{path}/matches"),
            json!({"entry_ids": [entry_on(&sale, &cash), entry_on(&coffee, &cash)]}),
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(
        (&res.body["cleared_balance"], &res.body["difference"]),
        (&json!("-869.75"), &json!("20.00"))
    );
    let res = post_empty(app, key, &format!("{path}/complete")).await;
    refused(
        &res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "reconciliation_not_balanced",
    );
    let res = app
        .delete(key, &format!("{path}/matches/{}", entry_on(&coffee, &cash)))
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["difference"], "0.00");
    // The statement line of the sale reads matched once its entry is (by hand).
    let res = post_empty(app, key, &format!("{path}/complete")).await;
    assert_eq!(
        (res.status, &res.body["status"]),
        (StatusCode::OK, &json!("completed")),
        "{}",
        res.body
    );

    // The coffee is still free: reversible, and matchable next month, whose opening
    // balance is March's closing balance.
    let next = create(app, &org, key, json!({"account_id": cash, "start_date": "2026-04-01", "end_date": "2026-04-30", "closing_balance": "-869.75"})).await;
    assert_eq!(next["opening_balance"], "-849.75");
    let next_path = format!("{}/{}", base(&org), next["id"].as_str().expect("id"));
    let res = app
        .put(
            key,
            &next_path,
            json!({"match_entry_ids": [entry_on(&coffee, &cash)]}),
        )
        .await;
    assert_eq!(
        (res.status, &res.body["difference"]),
        (StatusCode::OK, &json!("0.00")),
        "{}",
        res.body
    );
    let res = app
        .put(
            key,
            &next_path,
            json!({"match_entry_ids": [entry_on(&rent, &cash)]}),
        )
        .await;
    refused(
        &res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "entry_already_matched",
    );
    // An overlapping period is refused; the list filters by status.
    let res = app.post(key, &base(&org), json!({"account_id": cash, "start_date": "2026-03-15", "end_date": "2026-05-31", "closing_balance": "0"})).await;
    refused(
        &res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "inconsistent_fields",
    );
    let list = app
        .get(
            key,
            &format!("{}?status=completed&account_id={cash}", base(&org)),
        )
        .await;
    assert_eq!(list.body["total_count"], 1, "{}", list.body);
    // Deleting the open one frees its entries.
    let res = app.delete(key, &next_path).await;
    assert_eq!(
        (res.status, &res.body["deleted"]),
        (StatusCode::OK, &json!(true)),
        "{}",
        res.body
    );
    let res = app.get(key, &next_path).await;
    refused(&res, StatusCode::NOT_FOUND, "resource_not_found");
    let res = app
        .post_wait(
            key,
            &format!(
                "/organizations/{}/transactions/{}/reverse",
                org.id,
                coffee["id"].as_str().expect("id")
            ),
            json!({"reason": "returned"}),
        )
        .await;
    assert!(res.status.is_success(), "{}", res.body);
}

both!(csv_statement_to_completion);

async fn refusals_and_tenancy(app: &TestApp) {
    let org = app.signup("Recon Refusals").await;
    let other = app.signup("Recon Other").await;
    let key = &org.live_key;
    let [cash, sales] = app.account_ids(&org, key, ["1000", "4000"]).await;
    let [other_cash, other_sales] = app
        .account_ids(&other, &other.live_key, ["1000", "4000"])
        .await;
    let foreign = app
        .post_dated(
            &other,
            &other.live_key,
            "Theirs",
            "2026-01-05",
            (&other_cash, &other_sales),
            "10.00",
        )
        .await;

    let body = |account: &str| json!({"account_id": account, "start_date": "2026-01-01", "end_date": "2026-01-31", "closing_balance": "10.00"});
    // Well formed, refused by the books (422): an account of another type, another
    // organization's account (none of these books). Invalid input (400): an end before
    // the start, more decimals than the account's currency has.
    refused(
        &app.post(key, &base(&org), body(&sales)).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "reference_not_usable",
    );
    refused(
        &app.post(key, &base(&org), body(&other_cash)).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "reference_not_found",
    );
    for (body, field) in [
        (
            json!({"account_id": cash, "start_date": "2026-02-01", "end_date": "2026-01-31", "closing_balance": "1"}),
            "end_date",
        ),
        (
            json!({"account_id": cash, "start_date": "2026-01-01", "end_date": "2026-01-31", "closing_balance": "1.001"}),
            "closing_balance",
        ),
    ] {
        let res = app.post(key, &base(&org), body).await;
        refused(&res, StatusCode::BAD_REQUEST, "invalid_field");
        assert_eq!(
            res.body["error"]["type"], "validation_error",
            "{}",
            res.body
        );
        assert_eq!(res.body["error"]["details"]["field"], field, "{}", res.body);
    }
    let rec = create(app, &org, key, body(&cash)).await;
    refused(
        &app.post(key, &base(&org), body(&cash)).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "reconciliation_in_progress",
    );
    let id = rec["id"].as_str().expect("id");
    let path = format!("{}/{id}", base(&org));

    // Another organization's entry is no entry of this account.
    let res = app
        .put(
            key,
            &path,
            json!({"match_entry_ids": [entry_on(&foreign, &other_cash)]}),
        )
        .await;
    refused_on(
        &res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "reference_not_found",
        "match_entry_ids[0]",
    );
    assert_eq!(res.body["error"]["details"]["resource"], "entry");
    // Statements their format or mapping cannot read are 422 `inconsistent_fields` on the
    // member at fault; a format or a date format that is none is 400. Nothing is added.
    for (content, extra, status, code, field) in [
        (
            "OFXHEADER:100\n\n<OFX><STMTTRN><DTPOSTED>20260105<TRNAMT>abc</STMTTRN></OFX>",
            json!({}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "inconsistent_fields",
            "content",
        ),
        (
            "OFXHEADER:100\n\n<OFX><STMTTRN><DTPOSTED>20260105<TRNAMT>1.00",
            json!({}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "inconsistent_fields",
            "content",
        ),
        (
            "date,description,amount\n2026-13-01,Fee,1.00\n",
            json!({}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "inconsistent_fields",
            "content",
        ),
        (
            "date,amount\n2026-01-01,1.00\n",
            json!({"mapping": {"amount": "total"}}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "inconsistent_fields",
            "mapping",
        ),
        (
            "date,amount\n2026-01-01,1.00\n",
            json!({"mapping": {"date_format": "%d"}}),
            StatusCode::BAD_REQUEST,
            "invalid_field",
            "mapping.date_format",
        ),
        (
            "date,amount\n2026-01-01,1.00\n",
            json!({"format": "pdf"}),
            StatusCode::BAD_REQUEST,
            "invalid_field",
            "format",
        ),
        // Wider than any statement (the document's maximum), or not a whole number.
        (
            "date,amount\n2026-01-01,1.00\n",
            json!({"mapping": {"amount": 16385}}),
            StatusCode::BAD_REQUEST,
            "invalid_field",
            "mapping.amount",
        ),
        (
            "date,amount\n2026-01-01,1.00\n",
            json!({"mapping": {"amount": 2.5}}),
            StatusCode::BAD_REQUEST,
            "invalid_field",
            "mapping.amount",
        ),
        // Within the maximum but beyond the file's columns: its lines have no amount.
        (
            "date,amount\n2026-01-01,1.00\n",
            json!({"mapping": {"amount": 16384}}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "inconsistent_fields",
            "content",
        ),
    ] {
        let mut body = json!({"content": content});
        if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
            b.extend(e.clone());
        }
        let res = app.post(key, &format!("{path}/statement"), body).await;
        refused(&res, status, code);
        assert_eq!(res.body["error"]["details"]["field"], field, "{}", res.body);
    }
    let eur = "OFXHEADER:100\n\n<OFX><STMTRS><CURDEF>EUR<BANKTRANLIST><STMTTRN><DTPOSTED>20260105<TRNAMT>1.00<FITID>1</STMTTRN></BANKTRANLIST></STMTRS></OFX>";
    refused(
        &app.post(key, &format!("{path}/statement"), json!({"content": eur}))
            .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "currency_mismatch",
    );
    assert!(lines(app, key, &path).await.is_empty());

    // Another organization's key, and the other mode's key, see nothing.
    for (who, route) in [
        (&other.live_key, base(&org)),
        (
            &other.live_key,
            other.path(&format!("reconciliations/{id}")),
        ),
    ] {
        let res = app.get(who, &route).await;
        assert_eq!(res.status, StatusCode::NOT_FOUND, "{}", res.body);
    }
    refused(
        &post_empty(
            app,
            &other.live_key,
            &other.path(&format!("reconciliations/{id}/complete")),
        )
        .await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    refused(
        &app.get(&org.test_key, &path).await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    let theirs = app.get(&other.live_key, &base(&other)).await;
    assert_eq!(theirs.body["total_count"], 0, "{}", theirs.body);
    // Deleting needs admin.
    let (_, reader) = app.make_key(&org, key, &["read", "write"]).await;
    refused(
        &app.delete(&reader, &path).await,
        StatusCode::FORBIDDEN,
        "insufficient_permissions",
    );
}

both!(refusals_and_tenancy);

async fn graphql_and_mcp(app: &TestApp) {
    let org = app.signup("Recon Agents").await;
    let key = &org.live_key;
    let [cash, sales] = app.account_ids(&org, key, ["1000", "4000"]).await;
    let sale = app
        .post_dated(
            &org,
            key,
            "Card sale",
            "2026-02-02",
            (&cash, &sales),
            "99.90",
        )
        .await;

    // GraphQL: create, import a CSV with default columns, read the proposal, accept it.
    let data = app.gql_data(key,
        "mutation($a: ID!) { createReconciliation(accountId: $a, startDate: \"2026-02-01\", endDate: \"2026-02-28\", closingBalance: \"99.90\") { id status difference } }",
        json!({"a": cash}),
    )
    .await;
    let id = data["createReconciliation"]["id"]
        .as_str()
        .expect("id")
        .to_owned();
    assert_eq!(data["createReconciliation"]["difference"], "99.90");
    let data = app.gql_data(key,
        "mutation($id: ID!, $c: String!) { importReconciliationStatement(id: $id, content: $c) { format imported statementLines { id amount proposal { entryId confidence reason } } } }",
        json!({"id": id, "c": "date,amount,description\n2026-02-03,99.90,CARD SALE\n"}),
    )
    .await;
    let imported = &data["importReconciliationStatement"];
    assert_eq!(
        (&imported["format"], &imported["imported"]),
        (&json!("csv"), &json!(1))
    );
    assert_eq!(
        imported["statementLines"][0]["proposal"]["entryId"],
        entry_on(&sale, &cash)
    );
    let line = imported["statementLines"][0]["id"]
        .as_str()
        .expect("line")
        .to_owned();
    let reason = graphql_reason(
        app,
        key,
        "mutation($id: ID!) { completeReconciliation(id: $id) { id } }",
        json!({"id": id}),
    )
    .await;
    assert_eq!(reason, "reconciliation_not_balanced");
    let data = app.gql_data(key,
        "mutation($id: ID!, $l: ID!) { acceptStatementLine(reconciliationId: $id, lineId: $l) { status matchedEntryId } }",
        json!({"id": id, "l": line}),
    )
    .await;
    assert_eq!(data["acceptStatementLine"]["status"], "matched");
    let data = app.gql_data(key,
        "query($id: ID!) { reconciliation(id: $id) { difference clearedBalance matches { entryId amount statementLineId } } reconciliationStatementLines(id: $id) { status } }",
        json!({"id": id}),
    )
    .await;
    assert_eq!(data["reconciliation"]["difference"], "0.00");
    assert_eq!(data["reconciliation"]["matches"][0]["amount"], "99.90");
    assert_eq!(data["reconciliationStatementLines"][0]["status"], "matched");
    let data = app
        .gql_data(
            key,
            "mutation($id: ID!) { completeReconciliation(id: $id) { status } }",
            json!({"id": id}),
        )
        .await;
    assert_eq!(data["completeReconciliation"]["status"], "completed");

    // MCP: the six tools, next month.
    let refund = app
        .post_dated(&org, key, "Refund", "2026-03-04", (&sales, &cash), "9.90")
        .await;
    let rec = tool_ok(
        app,
        key,
        "create_reconciliation",
        json!({"accountId": cash, "startDate": "2026-03-01", "endDate": "2026-03-31", "closingBalance": "90.00"}),
    )
    .await;
    assert_eq!(rec["opening_balance"], "99.90");
    let rid = rec["id"].as_str().expect("id").to_owned();
    let listed = tool_ok(
        app,
        key,
        "list_reconciliations",
        json!({"accountId": cash, "status": "open"}),
    )
    .await;
    assert_eq!(listed["total_count"], 1);
    let refused_call = tool(
        app,
        key,
        "complete_reconciliation",
        json!({"reconciliationId": rid}),
    )
    .await;
    assert_eq!(
        mcp::code(&refused_call),
        "reconciliation_not_balanced",
        "{refused_call}"
    );
    let updated = tool_ok(
        app,
        key,
        "update_reconciliation",
        json!({"reconciliationId": rid, "matchEntryIds": [entry_on(&refund, &cash)]}),
    )
    .await;
    assert_eq!(updated["difference"], "0.00");
    let got = tool_ok(
        app,
        key,
        "get_reconciliation",
        json!({"reconciliation_id": rid}),
    )
    .await;
    assert_eq!(got["matches"][0]["transaction_id"], refund["id"]);
    let done = tool_ok(
        app,
        key,
        "complete_reconciliation",
        json!({"reconciliationId": rid}),
    )
    .await;
    assert_eq!(done["status"], "completed");
    tool_refused(
        app,
        key,
        "delete_reconciliation",
        json!({"reconciliationId": rid}),
        "reconciliation_not_open",
    )
    .await;
    let fresh = tool_ok(
        app,
        key,
        "create_reconciliation",
        json!({"accountId": cash, "startDate": "2026-04-01", "endDate": "2026-04-30", "closingBalance": "90.00"}),
    )
    .await;
    let fresh_id = fresh["id"].as_str().expect("id").to_owned();
    let deleted = tool_ok(
        app,
        key,
        "delete_reconciliation",
        json!({"reconciliationId": fresh_id}),
    )
    .await;
    assert_eq!(deleted["deleted"], true);
}

both!(graphql_and_mcp);
