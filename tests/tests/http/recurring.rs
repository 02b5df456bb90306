//! Recurring schedules: month ends and leap days, catching up after downtime, two
//! schedulers racing on one occurrence, a failing occurrence that does not stop the
//! schedule, pause and resume, manual runs, validation, tenancy, GraphQL and MCP.

use std::sync::Arc;

use ledger_domain::memory::ManualClock;
use ledger_tests::mcp::tool_ok;
use ledger_tests::{Backend, Org, TestApp, entries, invalid, refused, refused_case, refused_on};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use time::macros::datetime;

/// Runs `scenario` on SQLite and PostgreSQL with a clock the scenario sets.
macro_rules! with_clock {
    ($name:ident, $scenario:ident, $start:expr) => {
        mod $name {
            use super::*;

            async fn on(backend: Backend) {
                let clock = ManualClock::new($start);
                if let Some(app) = TestApp::spawn_with_clock(backend, Arc::new(clock.clone())).await
                {
                    super::$scenario(&app, &clock).await;
                    app.finish().await;
                }
            }

            ledger_tests::on_backends!(on);
        }
    };
}

fn schedules(org: &Org) -> String {
    org.path("recurring-schedules")
}

/// The spec's collection path (4.11); every route is served under both.
fn spec_schedules(org: &Org) -> String {
    org.path("recurring")
}

fn at(date: &str) -> time::OffsetDateTime {
    let format = time::macros::format_description!("[year]-[month]-[day]");
    time::Date::parse(date, &format)
        .expect("a date")
        .with_hms(9, 0, 0)
        .expect("a time")
        .assume_utc()
}

async fn customer(app: &TestApp, org: &Org, key: &str) -> String {
    app.contact(org, key, "customer", "Acme").await
}

/// Creates a schedule, asserting `201 Created`: its id and the body.
async fn create(app: &TestApp, org: &Org, key: &str, body: Value) -> (String, Value) {
    let res = app.post(key, &schedules(org), body).await;
    res.created();
    (res.id(), res.body)
}

async fn runs(app: &TestApp, org: &Org, key: &str, id: &str) -> Vec<Value> {
    let res = app
        .read(key, &format!("{}/{id}/runs?limit=100", schedules(org)))
        .await;
    res["data"].as_array().expect("runs").clone()
}

async fn schedule(app: &TestApp, org: &Org, key: &str, id: &str) -> Value {
    app.read(key, &format!("{}/{id}", schedules(org))).await
}

fn invoice_template(contact: &str, date: &str, due: &str) -> Value {
    json!({
        "contact_id": contact,
        "invoice_date": date,
        "due_date": due,
        "items": [{ "description": "Hosting", "quantity": 1, "unit_price": "100.00" }],
    })
}

/// Transactions of the tenant with `description`, by date.
async fn transactions(app: &TestApp, org: &Org, key: &str, description: &str) -> Vec<Value> {
    let res = app.read(key, &org.path("transactions?limit=100")).await;
    let mut found: Vec<Value> = res["data"]
        .as_array()
        .expect("transactions")
        .iter()
        .filter(|t| t["description"] == description)
        .cloned()
        .collect();
    found.sort_by_key(|t| t["date"].as_str().unwrap_or("").to_owned());
    found
}

fn transaction_template(app_cash: &str, other: &str, description: &str) -> Value {
    json!({
        "description": description,
        "date": "2027-01-01",
        "auto_post": true,
        "entries": entries(other, app_cash, "25.00"),
    })
}

/// Creates in the test mode of `org` a schedule of the transaction `description` moving
/// 25.00 from `cash` to `other`, on the schedule `terms` (frequency, start, ...): its id
/// and the body.
async fn transaction_schedule(
    app: &TestApp,
    org: &Org,
    (cash, other, description): (&str, &str, &str),
    mut terms: Value,
) -> (String, Value) {
    terms["recurable_type"] = json!("transaction");
    terms["template"] = transaction_template(cash, other, description);
    create(app, org, &org.test_key, terms).await
}

/// A monthly invoice anchored on January 31: February 28 (29 in a leap year), then
/// March 31; each sent at once (`auto_send`) with the template's 14-day terms.
async fn month_ends(app: &TestApp, clock: &ManualClock, year: i32) {
    let org = app.signup("Monthly").await;
    let key = &org.test_key;
    let contact = customer(app, &org, key).await;
    let (id, created) = create(
        app,
        &org,
        key,
        json!({
            "recurable_type": "invoice",
            "template": invoice_template(&contact, &format!("{year}-01-31"), &format!("{year}-02-14")),
            "frequency": "monthly",
            "interval": 1,
            "start_date": format!("{year}-01-31"),
            "auto_send": true,
        }),
    )
    .await;
    assert_eq!(created["object"], "recurring_schedule");
    assert_eq!(created["status"], "active");
    assert_eq!(created["next_run_date"], format!("{year}-01-31"));
    let feb = if year % 4 == 0 { 29 } else { 28 };
    let expected = [
        format!("{year}-01-31"),
        format!("{year}-02-{feb}"),
        format!("{year}-03-31"),
    ];
    for date in &expected {
        clock.set(at(date));
        app.run_recurring().await;
        // Nothing more is due the same day.
        app.run_recurring().await;
    }
    let runs = runs(app, &org, key, &id).await;
    assert_eq!(runs.len(), 3, "{runs:#?}");
    let mut dates: Vec<&str> = runs
        .iter()
        .map(|r| r["occurrence_date"].as_str().expect("date"))
        .collect();
    dates.reverse();
    let wanted: Vec<&str> = expected.iter().map(String::as_str).collect();
    assert_eq!(dates, wanted);
    for run in &runs {
        assert_eq!(run["status"], "succeeded", "{run}");
        assert_eq!(run["trigger"], "scheduled");
        let invoice_id = run["document_id"].as_str().expect("document id");
        let invoice = app
            .read(key, &org.path(&format!("invoices/{invoice_id}")))
            .await;
        assert_eq!(invoice["invoice_date"], run["occurrence_date"]);
        // Sent at once; the earlier ones read overdue by March 31.
        assert!(
            ["sent", "overdue"].contains(&invoice["status"].as_str().unwrap_or("")),
            "{}",
            invoice
        );
        assert_eq!(invoice["total"], "100.00");
        let issued = time::Date::parse(
            invoice["invoice_date"].as_str().expect("date"),
            &time::macros::format_description!("[year]-[month]-[day]"),
        )
        .expect("date");
        let due = time::Date::parse(
            invoice["due_date"].as_str().expect("date"),
            &time::macros::format_description!("[year]-[month]-[day]"),
        )
        .expect("date");
        assert_eq!((due - issued).whole_days(), 14, "{}", invoice);
    }
    let after = schedule(app, &org, key, &id).await;
    assert_eq!(after["next_run_date"], format!("{year}-04-30"));
    assert_eq!(after["occurrences"], 3);
    assert_eq!(after["last_run_date"], format!("{year}-03-31"));
}

async fn month_end_common_year(app: &TestApp, clock: &ManualClock) {
    month_ends(app, clock, 2027).await;
}

async fn month_end_leap_year(app: &TestApp, clock: &ManualClock) {
    month_ends(app, clock, 2028).await;
}

with_clock!(
    a_monthly_schedule_keeps_the_31st_in_a_common_year,
    month_end_common_year,
    datetime!(2027-01-31 08:00 UTC)
);
with_clock!(
    a_monthly_schedule_keeps_the_31st_in_a_leap_year,
    month_end_leap_year,
    datetime!(2028-01-31 08:00 UTC)
);

/// A yearly transaction anchored on a leap day, with the server down for three years:
/// one pass generates every missed occurrence (February 28 in common years), once.
async fn leap_day_catch_up(app: &TestApp, clock: &ManualClock) {
    let (org, [cash, expense]) = app.signup_with_accounts("Leap", ["1000", "5000"]).await;
    let key = &org.test_key;
    let terms = json!({"name": "Leap fee", "frequency": "yearly", "start_date": "2028-02-29"});
    let (id, created) = transaction_schedule(app, &org, (&cash, &expense, "Leap fee"), terms).await;
    assert_eq!(created["interval"], 1);
    // Nothing is due before the start.
    assert_eq!(app.run_recurring().await, 0);
    clock.set(at("2031-03-01"));
    assert_eq!(app.run_recurring().await, 4);
    assert_eq!(app.run_recurring().await, 0);
    let found = transactions(app, &org, key, "Leap fee").await;
    let dates: Vec<&str> = found
        .iter()
        .map(|t| &t["date"].as_str().expect("date")[..10])
        .collect();
    assert_eq!(
        dates,
        ["2028-02-29", "2029-02-28", "2030-02-28", "2031-02-28"]
    );
    assert!(found.iter().all(|t| t["status"] == "posted"), "{found:#?}");
    let after = schedule(app, &org, key, &id).await;
    assert_eq!(after["next_run_date"], "2032-02-29");
    assert_eq!(runs(app, &org, key, &id).await.len(), 4);
}

with_clock!(
    a_leap_day_schedule_catches_up_after_downtime,
    leap_day_catch_up,
    datetime!(2028-01-10 08:00 UTC)
);

/// Two servers on one database run their schedulers at once on the same due occurrences:
/// each occurrence is one transaction and one run.
async fn racing_schedulers(app: &TestApp, clock: &ManualClock) {
    let (org, [cash, expense]) = app.signup_with_accounts("Race", ["1000", "5000"]).await;
    let key = &org.test_key;
    let terms = json!({"frequency": "daily", "start_date": "2027-05-01", "count": 5});
    let (id, _) = transaction_schedule(app, &org, (&cash, &expense, "Daily fee"), terms).await;
    let replica = app.replica_with_clock(Arc::new(clock.clone())).await;
    for day in ["2027-05-01", "2027-05-02", "2027-05-04"] {
        clock.set(at(day));
        let (a, b) = tokio::join!(app.run_recurring(), replica.run_recurring());
        assert!(a + b <= 3, "{a} + {b} runs recorded");
    }
    let found = transactions(app, &org, key, "Daily fee").await;
    let dates: Vec<&str> = found
        .iter()
        .map(|t| &t["date"].as_str().expect("date")[..10])
        .collect();
    assert_eq!(
        dates,
        ["2027-05-01", "2027-05-02", "2027-05-03", "2027-05-04"],
        "one transaction per occurrence"
    );
    assert_eq!(runs(app, &org, key, &id).await.len(), 4);
    // The fifth is the last (count 5).
    clock.set(at("2027-05-09"));
    let (a, b) = tokio::join!(app.run_recurring(), replica.run_recurring());
    assert!(a + b <= 1);
    assert_eq!(transactions(app, &org, key, "Daily fee").await.len(), 5);
    let after = schedule(app, &org, key, &id).await;
    assert_eq!(after["status"], "completed");
    assert_eq!(after["next_run_date"], Value::Null);
    replica.finish().await;
}

with_clock!(
    two_schedulers_generate_each_occurrence_once,
    racing_schedulers,
    datetime!(2027-04-30 08:00 UTC)
);

/// An occurrence whose document is refused (its account was deactivated) is a failed
/// run; the schedule moves on and the next occurrence succeeds.
async fn failing_occurrence(app: &TestApp, clock: &ManualClock) {
    let org = app.signup("Failing").await;
    let key = &org.test_key;
    let cash = app.account_id(&org, key, "1000").await;
    let software = app
        .create_id(
            key,
            &org.path("accounts"),
            json!({"name": "Software", "code": "5100", "account_type": "expense"}),
        )
        .await;
    // A whole number sent as a float is a JSON Schema integer all the same.
    let terms = json!({"frequency": "weekly", "interval": 2.0, "start_date": "2027-06-01"});
    let (id, _) = transaction_schedule(app, &org, (&cash, &software, "Licence"), terms).await;
    let account = org.path(&format!("accounts/{software}"));
    let res = app
        .call(
            reqwest::Method::PUT,
            &account,
            Some(key),
            Some(json!({"is_active": false})),
            &[],
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    clock.set(at("2027-06-01"));
    app.run_recurring().await;
    let after = schedule(app, &org, key, &id).await;
    assert_eq!(after["status"], "active");
    assert_eq!(after["next_run_date"], "2027-06-15");
    let first = runs(app, &org, key, &id).await;
    assert_eq!(first.len(), 1);
    assert_eq!(first[0]["status"], "failed", "{}", first[0]);
    assert_eq!(
        first[0]["error"]["code"], "account_inactive",
        "{}",
        first[0]
    );
    assert_eq!(first[0]["document_id"], Value::Null);
    let res = app
        .call(
            reqwest::Method::PUT,
            &account,
            Some(key),
            Some(json!({"is_active": true})),
            &[],
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    clock.set(at("2027-06-15"));
    app.run_recurring().await;
    let all = runs(app, &org, key, &id).await;
    assert_eq!(all.len(), 2);
    assert_eq!(all[0]["occurrence_date"], "2027-06-15");
    assert_eq!(all[0]["status"], "succeeded", "{}", all[0]);
    assert_eq!(transactions(app, &org, key, "Licence").await.len(), 1);
}

with_clock!(
    a_failed_occurrence_is_recorded_and_the_schedule_continues,
    failing_occurrence,
    datetime!(2027-05-30 08:00 UTC)
);

/// Paused, nothing is generated; resumed, what fell due meanwhile is skipped. A manual
/// run generates a document dated today without moving the schedule, once per key.
async fn pause_resume_run(app: &TestApp, clock: &ManualClock) {
    let org = app.signup("Pausing").await;
    let key = &org.test_key;
    let contact = customer(app, &org, key).await;
    let (id, _) = create(
        app,
        &org,
        key,
        json!({
            "recurable_type": "invoice",
            "template": invoice_template(&contact, "2027-07-01", "2027-07-31"),
            "frequency": "monthly",
            "start_date": "2027-07-01",
        }),
    )
    .await;
    let base = format!("{}/{id}", schedules(&org));
    let paused = app.post(key, &format!("{base}/pause"), json!({})).await;
    assert_eq!(paused.status, StatusCode::OK, "{}", paused.body);
    assert_eq!(paused.body["status"], "paused");
    clock.set(at("2027-08-15"));
    assert_eq!(app.run_recurring().await, 0);
    let resumed = app.post(key, &format!("{base}/resume"), json!({})).await;
    assert_eq!(resumed.status, StatusCode::OK, "{}", resumed.body);
    assert_eq!(resumed.body["status"], "active");
    assert_eq!(resumed.body["next_run_date"], "2027-09-01");
    assert_eq!(app.run_recurring().await, 0);

    // A manual run, retried with the same key: one invoice, one run.
    let headers = [("Idempotency-Key", "run-once")];
    let first = app
        .call(
            reqwest::Method::POST,
            &format!("{base}/run"),
            Some(key),
            None,
            &headers,
        )
        .await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.body);
    assert_eq!(first.body["status"], "succeeded", "{}", first.body);
    assert_eq!(first.body["trigger"], "manual");
    assert_eq!(first.body["occurrence_date"], "2027-08-15");
    let again = app
        .call(
            reqwest::Method::POST,
            &format!("{base}/run"),
            Some(key),
            None,
            &headers,
        )
        .await;
    assert_eq!(again.status, StatusCode::CREATED, "{}", again.body);
    assert_eq!(again.body["id"], first.body["id"]);
    assert_eq!(again.body["document_id"], first.body["document_id"]);
    let invoice = app
        .get(
            key,
            &format!(
                "/organizations/{}/invoices/{}",
                org.id,
                first.body["document_id"].as_str().expect("invoice id")
            ),
        )
        .await;
    assert_eq!(invoice.body["invoice_date"], "2027-08-15");
    assert_eq!(invoice.body["status"], "draft");
    assert_eq!(runs(app, &org, key, &id).await.len(), 1);
    assert_eq!(
        schedule(app, &org, key, &id).await["next_run_date"],
        "2027-09-01"
    );

    // Update: a new rule applies from today.
    let res = app
        .call(
            reqwest::Method::PUT,
            &base,
            Some(key),
            Some(json!({"frequency": "weekly", "interval": 2, "name": "Fortnightly"})),
            &[],
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["frequency"], "weekly");
    assert_eq!(res.body["name"], "Fortnightly");
    assert_eq!(res.body["next_run_date"], "2027-08-26");

    // Delete (admin): gone from reads and from the scheduler.
    let res = app
        .call(reqwest::Method::DELETE, &base, Some(key), None, &[])
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["deleted"], true);
    assert_eq!(app.get(key, &base).await.status, StatusCode::NOT_FOUND);
    clock.set(at("2027-09-30"));
    assert_eq!(app.run_recurring().await, 0);
}

with_clock!(
    pause_resume_update_run_and_delete,
    pause_resume_run,
    datetime!(2027-06-20 08:00 UTC)
);

/// `body` without the members that name what one request made (its id, the document
/// and the job of a run), to compare two answers of the same operation.
fn without_ids(body: &Value) -> Value {
    let mut body = body.clone();
    if let Some(members) = body.as_object_mut() {
        for member in ["id", "document_id", "request_id"] {
            members.remove(member);
        }
    }
    body
}

/// Every route is served under the spec's `/recurring` (4.11) and the first
/// `/recurring-schedules` by the same handler: each read, update, pause, resume, run and
/// delete answers the same under both.
async fn spec_and_legacy_paths(app: &TestApp, _clock: &ManualClock) {
    let (org, [cash, expense]) = app
        .signup_with_accounts("Both Paths", ["1000", "5000"])
        .await;
    let key = &org.test_key;
    let body = json!({
        "recurable_type": "transaction",
        "frequency": "monthly",
        "start_date": "2027-06-01",
        "template": transaction_template(&cash, &expense, "Rent"),
    });
    let created = app.post(key, &spec_schedules(&org), body.clone()).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.body);
    let id = created.id();
    let second = app.post(key, &schedules(&org), body).await;
    assert_eq!(second.status, StatusCode::CREATED, "{}", second.body);
    assert_eq!(without_ids(&second.body), without_ids(&created.body));
    let other_id = second.id();
    let spec = format!("{}/{id}", spec_schedules(&org));
    let legacy = format!("{}/{id}", schedules(&org));

    // Reads: the schedule, the list and the runs.
    let got = app.get(key, &spec).await;
    assert_eq!(got.status, StatusCode::OK, "{}", got.body);
    assert_eq!(got.body, created.body);
    let same = app.get(key, &legacy).await;
    assert_eq!((same.status, &same.body), (got.status, &got.body));
    for query in ["", "?limit=1", "?limit=1&offset=1"] {
        let a = app
            .get(key, &format!("{}{query}", spec_schedules(&org)))
            .await;
        assert_eq!(a.status, StatusCode::OK, "{}", a.body);
        assert_eq!(a.body["total_count"], 2, "{}", a.body);
        let b = app.get(key, &format!("{}{query}", schedules(&org))).await;
        assert_eq!((b.status, &b.body), (a.status, &a.body), "{query}");
    }

    // Updates: PATCH and PUT.
    for (method, name) in [
        (Method::PATCH, "Rent (patched)"),
        (Method::PUT, "Rent (put)"),
    ] {
        let change = json!({ "name": name });
        let a = app
            .call(method.clone(), &spec, Some(key), Some(change.clone()), &[])
            .await;
        assert_eq!(a.status, StatusCode::OK, "{method} {}", a.body);
        assert_eq!(a.body["name"], name);
        let b = app
            .call(method.clone(), &legacy, Some(key), Some(change), &[])
            .await;
        assert_eq!((b.status, &b.body), (a.status, &a.body), "{method}");
    }

    // Pause and resume.
    for (action, status) in [("pause", "paused"), ("resume", "active")] {
        let a = app.post(key, &format!("{spec}/{action}"), json!({})).await;
        assert_eq!(a.status, StatusCode::OK, "{action}: {}", a.body);
        assert_eq!(a.body["status"], status);
        let b = app
            .post(key, &format!("{legacy}/{action}"), json!({}))
            .await;
        assert_eq!((b.status, &b.body), (a.status, &a.body), "{action}");
    }

    // A manual run: the same run under either path (a retry with its key answers it
    // again), and the runs list.
    let run = |path: String, idempotency: &'static str| async move {
        app.call(
            Method::POST,
            &path,
            Some(key),
            None,
            &[("Idempotency-Key", idempotency)],
        )
        .await
    };
    let a = run(format!("{spec}/run"), "run-spec").await;
    assert_eq!(a.status, StatusCode::CREATED, "{}", a.body);
    assert_eq!(a.body["status"], "succeeded", "{}", a.body);
    assert_eq!(a.body["schedule_id"], json!(id));
    let again = run(format!("{spec}/run"), "run-spec").await;
    assert_eq!((again.status, &again.body), (a.status, &a.body));
    let b = run(format!("{legacy}/run"), "run-legacy").await;
    assert_eq!(b.status, StatusCode::CREATED, "{}", b.body);
    assert_ne!(b.body["id"], a.body["id"]);
    assert_eq!(without_ids(&b.body), without_ids(&a.body));
    let listed = app.get(key, &format!("{spec}/runs")).await;
    assert_eq!(listed.status, StatusCode::OK, "{}", listed.body);
    assert_eq!(listed.body["total_count"], 2, "{}", listed.body);
    let same = app.get(key, &format!("{legacy}/runs")).await;
    assert_eq!((same.status, &same.body), (listed.status, &listed.body));

    // Delete (admin), one schedule under each path; then both paths answer 404.
    let a = app.delete(key, &spec).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
    assert_eq!(a.body["deleted"], true, "{}", a.body);
    assert_eq!(a.body["id"], json!(id));
    let b = app
        .delete(key, &format!("{}/{other_id}", schedules(&org)))
        .await;
    assert_eq!(b.status, StatusCode::OK, "{}", b.body);
    assert_eq!(without_ids(&b.body), without_ids(&a.body));
    for path in [&spec, &legacy] {
        let gone = app.get(key, path).await;
        assert_eq!(
            (gone.status, gone.code()),
            (StatusCode::NOT_FOUND, "resource_not_found"),
            "{path}: {}",
            gone.body
        );
    }
    let list = app.get(key, &spec_schedules(&org)).await;
    assert_eq!(list.body["total_count"], 0, "{}", list.body);
}

with_clock!(
    the_spec_paths_and_the_first_paths_answer_alike,
    spec_and_legacy_paths,
    datetime!(2027-05-10 08:00 UTC)
);

/// Templates are validated when the schedule is written; another tenant's key and the
/// other mode's key see nothing.
async fn validation_and_tenancy(app: &TestApp, _clock: &ManualClock) {
    let org = app.signup("Owner").await;
    let other = app.signup("Stranger").await;
    let key = &org.test_key;
    let [cash, expense] = app.account_ids(&org, key, ["1000", "5000"]).await;
    let template = transaction_template(&cash, &expense, "Rent");
    let mut unbalanced = template.clone();
    unbalanced["entries"][0]["amount"] = json!("30.00");
    let base = json!({"recurable_type": "transaction", "frequency": "monthly"});
    let with = |extra: Value| {
        let mut body = base.clone();
        for (k, v) in extra.as_object().expect("object") {
            body[k] = v.clone();
        }
        body
    };
    let with_template = |member: &str, value: Value| {
        let mut body = with(json!({"template": template.clone()}));
        body[member] = value;
        body
    };
    // Each body with the status, code and field (if any) it is refused with.
    let mut cases = vec![
        (
            with(json!({"template": {"descriptionx": "x"}})),
            StatusCode::BAD_REQUEST,
            "unknown_field",
            "template.descriptionx",
        ),
        (
            with(json!({"template": unbalanced})),
            StatusCode::UNPROCESSABLE_ENTITY,
            "unbalanced_transaction",
            "",
        ),
        (
            json!({"recurable_type": "transaction", "template": template.clone()}),
            StatusCode::BAD_REQUEST,
            "missing_field",
            "frequency",
        ),
        // Only an invoice schedule sends: the member contradicts `recurable_type` (422).
        (
            with_template("auto_send", json!(true)),
            StatusCode::UNPROCESSABLE_ENTITY,
            "inconsistent_fields",
            "auto_send",
        ),
    ];
    // Only whole numbers in range.
    for (member, value) in [
        ("interval", json!(0)),
        ("interval", json!(1.5)),
        ("count", json!(0)),
        ("count", json!(10_001)),
        ("count", json!(2.5)),
    ] {
        let body = with_template(member, value);
        cases.push((body, StatusCode::BAD_REQUEST, "invalid_field", member));
    }
    for (body, status, code, field) in cases {
        let res = app.post(key, &schedules(&org), body.clone()).await;
        refused_case(&body, &res, status, code);
        if !field.is_empty() {
            let named = &res.body["error"]["details"]["field"];
            assert_eq!(named, field, "{body}: {}", res.body);
        }
    }
    // An end before its start is invalid request data (400), on either path.
    for path in [schedules(&org), spec_schedules(&org)] {
        let res = app
            .post(
                key,
                &path,
                with(json!({"template": template.clone(), "start_date": "2027-04-01", "end_date": "2027-03-31"})),
            )
            .await;
        invalid(
            &res,
            "invalid_field",
            "end_date",
            Some("end_date: must not be before start_date"),
        );
    }
    // The spec's path creates too.
    let id = app
        .create_id(
            key,
            &spec_schedules(&org),
            with(json!({"template": template.clone(), "start_date": "2027-03-01"})),
        )
        .await;
    // An end set before the stored start: the same 400.
    let res = app
        .call(
            Method::PATCH,
            &format!("{}/{id}", spec_schedules(&org)),
            Some(key),
            Some(json!({"end_date": "2027-02-28"})),
            &[],
        )
        .await;
    refused_on(&res, StatusCode::BAD_REQUEST, "invalid_field", "end_date");
    // A template of another kind than the schedule's is well formed, but not for this
    // schedule (422); neither is an invoice to copy that is not there.
    let res = app
        .call(
            Method::PATCH,
            &format!("{}/{id}", schedules(&org)),
            Some(key),
            Some(json!({"template": invoice_template("con_01HZZZZZZZZZZZZZZZZZZZZZZZ", "2027-03-01", "2027-03-31")})),
            &[],
        )
        .await;
    refused_on(
        &res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "inconsistent_fields",
        "template",
    );
    let res = app
        .post(
            key,
            &schedules(&org),
            json!({"recurable_type": "invoice", "frequency": "monthly", "recurable_id": "inv_01HZZZZZZZZZZZZZZZZZZZZZZZ"}),
        )
        .await;
    refused_on(
        &res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "reference_not_found",
        "recurable_id",
    );

    // Another organization: its key on this organization's path, and on its own path.
    let res = app
        .get(&other.test_key, &format!("{}/{id}", schedules(&org)))
        .await;
    refused(&res, StatusCode::NOT_FOUND, "organization_not_found");
    for path in [
        format!("{}/{id}", schedules(&other)),
        format!("{}/{id}/runs", schedules(&other)),
    ] {
        let res = app.get(&other.test_key, &path).await;
        refused_case(&path, &res, StatusCode::NOT_FOUND, "resource_not_found");
    }
    let res = app
        .post(
            &other.test_key,
            &format!("{}/{id}/run", schedules(&other)),
            json!({}),
        )
        .await;
    refused(&res, StatusCode::NOT_FOUND, "resource_not_found");
    let list = app.get(&other.test_key, &schedules(&other)).await;
    assert_eq!(list.body["total_count"], 0, "{}", list.body);
    // The live key does not see test-mode schedules.
    let res = app
        .get(&org.live_key, &format!("{}/{id}", schedules(&org)))
        .await;
    refused(&res, StatusCode::NOT_FOUND, "resource_not_found");
    let list = app.get(key, &schedules(&org)).await;
    assert_eq!(list.body["total_count"], 1, "{}", list.body);
}

with_clock!(
    templates_are_validated_and_tenants_isolated,
    validation_and_tenancy,
    datetime!(2027-03-01 08:00 UTC)
);

/// GraphQL queries and mutations, and the MCP tools, over the same schedules.
async fn graphql_and_mcp(app: &TestApp, clock: &ManualClock) {
    let (org, [cash, expense]) = app.signup_with_accounts("Agents", ["1000", "5000"]).await;
    let key = &org.test_key;
    let gql =
        |query: String, variables: Value| async move { app.gql_data(key, &query, variables).await };
    let data = gql(
        format!(
            r#"mutation($t: Json!) {{ createRecurringSchedule(organizationId: "{}", input: {{ recurableType: "transaction", frequency: "monthly", startDate: "2027-10-31" }}, template: $t) {{ id status nextRunDate frequency interval }} }}"#,
            org.id
        ),
        json!({ "t": transaction_template(&cash, &expense, "GraphQL fee").to_string() }),
    )
    .await;
    let created = &data["createRecurringSchedule"];
    assert!(
        created["nextRunDate"]
            .as_str()
            .is_some_and(|d| d.starts_with("2027-10-31")),
        "{data}"
    );
    let id = created["id"].as_str().expect("id").to_owned();
    let data = gql(
        format!(
            r#"mutation {{ updateRecurringSchedule(organizationId: "{}", id: "{id}", input: {{ status: "paused" }}) {{ status }} }}"#,
            org.id
        ),
        json!({}),
    )
    .await;
    assert_eq!(data["updateRecurringSchedule"]["status"], "paused");
    let data = gql(
        format!(
            r#"mutation {{ runRecurringSchedule(organizationId: "{}", id: "{id}") {{ status trigger documentId occurrenceDate }} }}"#,
            org.id
        ),
        json!({}),
    )
    .await;
    assert_eq!(
        data["runRecurringSchedule"]["status"], "succeeded",
        "{data}"
    );
    let data = gql(
        format!(
            r#"{{ recurringSchedules(organizationId: "{}") {{ id status template }} recurringSchedule(organizationId: "{}", id: "{id}") {{ runs {{ status trigger }} }} }}"#,
            org.id, org.id
        ),
        json!({}),
    )
    .await;
    let listed = data["recurringSchedules"].as_array().expect("schedules");
    assert_eq!(listed.len(), 1, "{data}");
    assert_eq!(
        listed[0]["template"]["description"], "GraphQL fee",
        "{data}"
    );
    assert_eq!(
        data["recurringSchedule"]["runs"][0]["trigger"], "manual",
        "{data}"
    );

    // MCP: list, get, update (resume), run, runs, create, delete.
    let mcp = |name: &'static str, arguments: Value| tool_ok(app, key, name, arguments);
    let listed = mcp(
        "list_recurring_schedules",
        json!({"organizationId": org.id}),
    )
    .await;
    assert_eq!(listed["total_count"], 1, "{listed}");
    let got = mcp(
        "get_recurring_schedule",
        json!({"organizationId": org.id, "scheduleId": id}),
    )
    .await;
    assert_eq!(got["status"], "paused", "{got}");
    let resumed = mcp(
        "update_recurring_schedule",
        json!({"organizationId": org.id, "scheduleId": id, "status": "active"}),
    )
    .await;
    assert_eq!(resumed["status"], "active", "{resumed}");
    clock.set(at("2027-10-31"));
    let run = mcp(
        "run_recurring_schedule",
        json!({"organizationId": org.id, "scheduleId": id}),
    )
    .await;
    assert_eq!(run["status"], "succeeded", "{run}");
    app.run_recurring().await;
    let history = mcp(
        "list_recurring_runs",
        json!({"organizationId": org.id, "scheduleId": id}),
    )
    .await;
    assert_eq!(history["total_count"], 3, "{history}");
    let created = mcp(
        "create_recurring_schedule",
        json!({
            "organizationId": org.id,
            "recurableType": "transaction",
            "frequency": "quarterly",
            "template": transaction_template(&cash, &expense, "MCP fee"),
        }),
    )
    .await;
    assert_eq!(created["frequency"], "quarterly", "{created}");
    let deleted = mcp(
        "delete_recurring_schedule",
        json!({"organizationId": org.id, "scheduleId": id}),
    )
    .await;
    assert_eq!(deleted["deleted"], true, "{deleted}");
}

with_clock!(
    graphql_and_mcp_manage_schedules,
    graphql_and_mcp,
    datetime!(2027-10-01 08:00 UTC)
);
