//! Issue 22, item 4: a tool requires exactly what its REST operation requires.
//!
//! What REST requires is asked of REST itself, not copied: for every tool, the test builds
//! a complete call (every argument with a working value, against real resources in the
//! state the operation needs), maps it to the REST request with the tool's own row
//! (`Tool::request`), and then sends that request once per argument with that argument
//! left out. The REST operation requires the argument when it answers `missing_field`
//! naming it. The tool's `required` list must then be exactly those arguments, apart from
//! arguments the tool fills in itself (a default, the key's organization) and arguments
//! marked `required_of_agents_only` (REST defaults them; agents must choose them).

use std::collections::BTreeSet;

use ledger_mcp::tools::{Arg, Loc, TOOLS, Tool, Ty, snake};
use ledger_tests::{Org, TestApp, both, entries};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// Ids of real resources the probes act on.
pub(crate) struct Fixtures {
    pub(crate) org: Org,
    pub(crate) cash: String,
    pub(crate) sales: String,
    pub(crate) savings: String,
    pub(crate) customer: String,
    pub(crate) vendor: String,
    pub(crate) pending_txn: String,
    pub(crate) posted_txn: String,
    pub(crate) draft_invoice: String,
    pub(crate) sent_invoice: String,
    pub(crate) draft_bill: String,
    pub(crate) approved_bill: String,
    pub(crate) rate: String,
    pub(crate) posted_transfer: String,
    /// An ownership transfer offered to the organization's user (pending).
    pub(crate) org_transfer: String,
    /// A recurring schedule of a transaction, starting in the future.
    pub(crate) schedule: String,
    /// An open reconciliation of the savings account.
    pub(crate) reconciliation: String,
}

fn id_of(res: &ledger_tests::Answer, what: &str) -> String {
    assert!(res.status.is_success(), "{what}: {}", res.body);
    res.body["id"]
        .as_str()
        .or(res.body["data"]["id"].as_str())
        .unwrap_or_else(|| panic!("{what}: no id in {}", res.body))
        .to_owned()
}

pub(crate) async fn fixtures(app: &TestApp) -> Fixtures {
    let org = app.signup("Mcp Required").await;
    let key = org.test_key.clone();
    let base = format!("/organizations/{}", org.id);
    let [cash, sales] = app.account_ids(&org, &key, ["1000", "4000"]).await;
    let savings = app
        .post_wait(
            &key,
            &format!("{base}/accounts"),
            json!({"code": "1015", "name": "Savings", "account_type": "asset"}),
        )
        .await;
    let savings = id_of(&savings, "savings");
    let mut contacts = Vec::new();
    for (kind, name) in [("customer", "Probe Customer"), ("vendor", "Probe Vendor")] {
        let res = app
            .post_wait(
                &key,
                &format!("{base}/contacts"),
                json!({"contact_type": kind, "name": name}),
            )
            .await;
        contacts.push(id_of(&res, kind));
    }
    let mut txns = Vec::new();
    for auto_post in [false, true] {
        let res = app
            .post_wait(
                &key,
                &format!("{base}/transactions"),
                json!({"description": "Probe", "date": "2026-01-15", "auto_post": auto_post,
                "entries": entries(&cash, &sales, "100.00")}),
            )
            .await;
        txns.push(id_of(&res, "transaction"));
    }
    let mut documents = Vec::new();
    for (plural, issue, contact) in [
        ("invoices", "send", &contacts[0]),
        ("bills", "approve", &contacts[1]),
    ] {
        let mut ids = Vec::new();
        for issued in [false, true] {
            let res = app
                .post_wait(
                    &key,
                    &format!("{base}/{plural}"),
                    json!({"contact_id": contact, "items": [
                        {"description": "Work", "quantity": "1", "unit_price": "100.00"}]}),
                )
                .await;
            let id = id_of(&res, plural);
            if issued {
                let res = app
                    .post_wait(&key, &format!("{base}/{plural}/{id}/{issue}"), json!({}))
                    .await;
                assert!(res.status.is_success(), "{issue}: {}", res.body);
            }
            ids.push(id);
        }
        documents.push(ids);
    }
    let rate = app
        .post_wait(
            &key,
            &format!("{base}/exchange-rates"),
            json!({"from_currency_id": "EUR", "to_currency_id": "USD", "rate": "1.10",
                "effective_date": "2026-01-01"}),
        )
        .await;
    let rate = id_of(&rate, "exchange rate");
    let transfer = app
        .post_wait(
            &key,
            &format!("{base}/transfers"),
            json!({"from_account_id": cash, "to_account_id": savings, "amount": "10.00",
                "auto_post": true}),
        )
        .await;
    let posted_transfer = id_of(&transfer, "transfer");
    // Another user offers a sub-organization to this organization's user: the probes act
    // as the recipient of a pending ownership transfer.
    let sender = app.signup("Mcp Required Sender").await;
    let offered = app
        .post(
            &sender.test_key,
            "/accounts/sub",
            json!({"parent_organization_id": sender.id, "name": "Offered", "relationship_type": "owned"}),
        )
        .await;
    assert!(offered.status.is_success(), "{}", offered.body);
    let offered = offered.body["organization"]["id"]
        .as_str()
        .expect("sub-organization id")
        .to_owned();
    let org_transfer = app
        .post(
            &sender.test_key,
            &format!("/organizations/{offered}/organization-transfers"),
            json!({"to_email": "mcprequired@example.com"}),
        )
        .await;
    let org_transfer = id_of(&org_transfer, "organization transfer");
    let [customer, vendor] = <[String; 2]>::try_from(contacts).expect("two contacts");
    let [pending_txn, posted_txn] = <[String; 2]>::try_from(txns).expect("two transactions");
    let mut documents = documents.into_iter();
    let [draft_invoice, sent_invoice] =
        <[String; 2]>::try_from(documents.next().expect("invoices")).expect("two invoices");
    let [draft_bill, approved_bill] =
        <[String; 2]>::try_from(documents.next().expect("bills")).expect("two bills");
    let schedule = {
        let res = app
            .post(
                &key,
                &format!("{base}/recurring-schedules"),
                json!({"recurable_type": "transaction", "frequency": "monthly",
                "start_date": "2030-01-01", "template": {"description": "Probe",
                "entries": entries(&cash, &sales, "1.00")}}),
            )
            .await;
        id_of(&res, "recurring schedule")
    };
    let reconciliation = {
        let res = app
            .post(
                &key,
                &format!("{base}/reconciliations"),
                json!({"account_id": savings, "start_date": "2026-01-01",
                "end_date": "2026-01-31", "closing_balance": "0.00"}),
            )
            .await;
        id_of(&res, "reconciliation")
    };
    Fixtures {
        org,
        cash,
        sales,
        savings,
        customer,
        vendor,
        pending_txn,
        posted_txn,
        draft_invoice,
        sent_invoice,
        draft_bill,
        approved_bill,
        rate,
        schedule,
        reconciliation,
        posted_transfer,
        org_transfer,
    }
}

/// A working value of `arg` for `tool`, or `None` for an optional argument the probe
/// leaves out (one that needs a resource this test does not make).
pub(crate) fn value(tool: &Tool, arg: &Arg, fx: &Fixtures, n: usize) -> Option<Value> {
    let bill = tool.name.contains("bill");
    let v = match (arg.name, arg.loc) {
        ("accountId", Loc::Path) => json!(fx.savings),
        ("accountId", _) => json!(fx.cash),
        ("transactionId", _) if tool.name.starts_with("reverse") => json!(fx.posted_txn),
        ("transactionId", _) => json!(fx.pending_txn),
        ("invoiceId", _) if tool.name.starts_with("record") => json!(fx.sent_invoice),
        ("invoiceId", _) => json!(fx.draft_invoice),
        ("billId", _) if tool.name.starts_with("record") => json!(fx.approved_bill),
        ("billId", _) => json!(fx.draft_bill),
        ("exchangeRateId", _) => json!(fx.rate),
        ("scheduleId", _) => json!(fx.schedule),
        ("reconciliationId", _) => json!(fx.reconciliation),
        // Entries to match are optional and the probe makes none.
        ("matchEntryIds" | "unmatchEntryIds", _) => return None,
        // Recurring schedules start in the future, so probes generate nothing.
        ("startDate", _) if tool.name.contains("recurring") => json!("2030-01-01"),
        ("endDate", _) if tool.name.contains("recurring") => json!("2030-12-31"),
        ("template", _) => {
            json!({"description": "Probe", "entries": entries(&fx.cash, &fx.sales, "1.00")})
        }
        ("recurableType", _) => json!("transaction"),
        ("transferId", _) if tool.name.contains("organization_transfer") => {
            json!(fx.org_transfer)
        }
        ("transferId", _) => json!(fx.posted_transfer),
        ("contactId", _) if bill => json!(fx.vendor),
        ("contactId", _) => json!(fx.customer),
        ("parentOrganizationId" | "organizationId" | "masterOrganizationId", _) => {
            json!(fx.org.id)
        }
        ("fromAccountId", _) => json!(fx.cash),
        ("toAccountId", _) => json!(fx.savings),
        ("code", _) => json!(format!("9{n:03}")),
        ("name", _) => json!(format!("Probe {n}")),
        ("reference", _) => json!(format!("REF-{n}")),
        ("entries", _) => json!([
            {"accountId": fx.cash, "entryType": "debit", "amount": "1.00"},
            {"accountId": fx.sales, "entryType": "credit", "amount": "1.00"},
        ]),
        ("items", _) => json!([{"description": "Work", "quantity": "1", "unitPrice": "10.00"}]),
        ("amount", _) if tool.name == "convert_currency" => json!("1.00"),
        ("amount", _) => json!("0.01"),
        ("rate", _) => json!("1.2"),
        ("fromCurrencyId" | "fromCurrency", _) => json!("EUR"),
        ("toCurrencyId" | "toCurrency" | "currencyId" | "currency", _) => json!("USD"),
        ("effectiveDate", _) => json!(format!("2025-{:02}-{:02}", 1 + n / 28 % 12, 1 + n % 28)),
        ("dueDate", _) => json!("2026-03-02"),
        ("expiresAt", _) => json!("2030-01-01T00:00:00Z"),
        ("fromDate" | "startDate", _) => json!("2026-01-01"),
        ("toDate" | "endDate", _) => json!("2026-12-31"),
        ("paymentMethod", _) => json!("cash"),
        ("permissions", _) => json!(["read"]),
        ("email", _) => json!("probe@example.com"),
        ("website", _) => json!("https://example.com"),
        ("country", _) => json!("DE"),
        ("zipCode", _) => json!("10115"),
        ("autoPost" | "dryRun", _) => json!(false),
        ("isActive" | "includeHierarchy", _) => json!(true),
        ("offset", _) => json!(0),
        // A credit purchase names a package's size; test keys use the development
        // checkout, so the probes move no money and no live credits.
        ("creditAmount", _) => json!(1000),
        ("successUrl" | "cancelUrl", _) => json!("https://example.com/return"),
        // Optional links to resources the probe does not make.
        ("categoryId" | "parentAccountId" | "toAmount", _) => return None,
        _ => match arg.ty {
            Ty::Enum(options) => json!(options[0]),
            Ty::Date | Ty::DateOrTime => json!("2026-02-01"),
            Ty::Int => json!(1),
            Ty::Bool => json!(false),
            Ty::Amount => json!("1.00"),
            Ty::StrList => json!(["x"]),
            Ty::Str => json!(format!("probe {n}")),
            Ty::Entries | Ty::Items | Ty::Object => return None,
        },
    };
    Some(v)
}

/// `path_and_query` without the query parameter `name`.
fn without_query(path_and_query: &str, name: &str) -> String {
    let Some((path, query)) = path_and_query.split_once('?') else {
        return path_and_query.to_owned();
    };
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| pair.split('=').next() != Some(name))
        .collect();
    if kept.is_empty() {
        path.to_owned()
    } else {
        format!("{path}?{}", kept.join("&"))
    }
}

async fn mcp_tools_require_what_rest_requires(app: &TestApp) {
    let fx = fixtures(app).await;
    let key = fx.org.test_key.clone();
    let mut n = 0;
    let mut probed = 0;
    let mut agents_only = Vec::new();
    for tool in TOOLS {
        // What the body and the query require; headers (`idempotencyKey`, x402's
        // payment) are never required by REST.
        let probes: Vec<&Arg> = tool
            .all_args()
            .filter(|a| matches!(a.loc, Loc::Query | Loc::Body))
            .collect();
        if probes.is_empty() {
            continue;
        }
        let method = Method::from_bytes(tool.verb.method().as_str().as_bytes()).expect("method");
        let mut rest_required = BTreeSet::new();
        for probe in &probes {
            n += 1;
            let mut arguments = serde_json::Map::new();
            for arg in tool.all_args() {
                if let Some(v) = value(tool, arg, &fx, n) {
                    arguments.insert(arg.name.to_owned(), v);
                } else {
                    assert!(
                        !arg.required,
                        "{}: no value for required {}",
                        tool.name, arg.name
                    );
                }
            }
            let (path, body) = tool
                .request(Some(&Value::Object(arguments)), &fx.org.id)
                .unwrap_or_else(|e| panic!("{}: {e:?}", tool.name));
            let field = snake(probe.name);
            let (path, body) = match probe.loc {
                Loc::Query => (without_query(&path, &field), body),
                _ => {
                    let mut body = body.expect("a body member needs a body");
                    if let Some(map) = body.as_object_mut() {
                        map.remove(&field);
                    }
                    (path, Some(body))
                }
            };
            let res = app
                .call(
                    method.clone(),
                    &path,
                    Some(&key),
                    body,
                    &[("Prefer", "wait=30")],
                )
                .await;
            assert_ne!(
                res.status,
                StatusCode::NOT_FOUND,
                "{}: {path}: {}",
                tool.name,
                res.body
            );
            if res.code() == "missing_field" && res.body["error"]["details"]["field"] == field {
                rest_required.insert(probe.name);
            }
            probed += 1;
        }
        // The tool fills these in itself, so it need not require them.
        let fills = |a: &Arg| a.default.is_some() || a.caller_organization;
        let tool_required: BTreeSet<&str> = probes
            .iter()
            .filter(|a| a.required && !a.required_of_agents_only && !fills(a))
            .map(|a| a.name)
            .collect();
        let rest_required_unfilled: BTreeSet<&str> = probes
            .iter()
            .filter(|a| rest_required.contains(a.name) && !fills(a))
            .map(|a| a.name)
            .collect();
        assert_eq!(
            tool_required, rest_required_unfilled,
            "{}: the tool's required arguments (left) differ from what REST requires (right)",
            tool.name
        );
        agents_only.extend(
            probes
                .iter()
                .filter(|a| a.required_of_agents_only)
                .map(|a| format!("{}.{}", tool.name, a.name)),
        );
    }
    assert!(probed > 50, "only {probed} probes ran");
    // The dates of issue 22: REST defaults them, agents must give them.
    for expected in [
        "create_invoice.invoiceDate",
        "create_invoice.dueDate",
        "create_bill.billDate",
        "create_bill.dueDate",
    ] {
        assert!(agents_only.iter().any(|a| a == expected), "{expected}");
    }
}
both!(mcp_required_arguments, mcp_tools_require_what_rest_requires);
