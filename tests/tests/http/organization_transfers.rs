//! Ownership transfers of organizations (spec 3.1, 4.4; DECISIONS 5, 10) on REST: every
//! row of the state table, the refusals with their codes, a three-level subtree moved
//! under the recipient's root with its keys still working, the sender's keys no longer
//! reaching it, concurrent accept and cancel with exactly one winner, and expiry.

use std::sync::Arc;

use ledger_tests::mcp::{tool_ok, tool_refused};
use ledger_tests::{Answer, Backend, Org, ShiftedClock, TestApp, both, refused};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// Signs up a root organization owned by a new user with a provider username.
pub(crate) async fn signup_user(app: &TestApp, name: &str, username: &str, email: &str) -> Org {
    app.signup_as(json!({
        "name": name,
        "user_provider_id": format!("prov-{username}"),
        "user_email": email,
        "provider_username": username,
    }))
    .await
}

pub(crate) fn transfers(org: &str) -> String {
    format!("/organizations/{org}/organization-transfers")
}

/// Asserts that `res` refuses to act on a transfer that is no longer pending but
/// `status`.
///
/// # Panics
/// When the code or the status named differ (the body is printed).
#[track_caller]
fn no_longer_pending(res: &Answer, status: &str) {
    assert_eq!(res.code(), "transfer_not_pending", "{}", res.body);
    assert_eq!(
        res.body["error"]["details"]["status"], status,
        "{}",
        res.body
    );
}

fn ids(list: &Value) -> Vec<String> {
    list["data"]
        .as_array()
        .expect("data")
        .iter()
        .filter_map(|t| t["id"].as_str().map(str::to_owned))
        .collect()
}

async fn a_three_level_subtree_moves_with_its_keys(app: &TestApp) {
    let sender = signup_user(app, "Sender Co", "sender", "sender@example.com").await;
    let recipient = signup_user(app, "Recipient Co", "Recip", "recip@example.com").await;
    let s_key = &sender.test_key;
    let r_key = &recipient.test_key;
    let (a, a_key) = app.sub_org(s_key, &sender.id, "A", "owned").await;
    let (a1, _a1_key) = app.sub_org(s_key, &a, "A1", "linked").await;
    let (a2, a2_key) = app.sub_org(s_key, &a1, "A2", "owned").await;
    // Something to count and to read back after the move.
    let a2_org = Org {
        id: a2.clone(),
        test_key: a2_key.clone(),
        live_key: String::new(),
    };
    let [cash, sales] = app.account_ids(&a2_org, &a2_key, ["1000", "4000"]).await;
    let txn = app
        .post_transfer(&a2_org, &a2_key, &cash, &sales, "25.00")
        .await;
    let customer = app
        .create_id_wait(
            &a2_key,
            &format!("/organizations/{a2}/contacts"),
            json!({"contact_type": "customer", "name": "Moved Customer"}),
        )
        .await;
    let res = app
        .post_wait(
            &a2_key,
            &format!("/organizations/{a2}/invoices"),
            json!({"contact_id": customer, "invoice_date": "2026-01-10", "due_date": "2026-02-09",
            "items": [
                {"description": "Consulting", "quantity": 2, "unit_price": "50.00"},
                {"description": "Setup", "quantity": 1, "unit_price": "10.00"},
            ]}),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);

    // Refusals of the initiation.
    let res = app
        .post(
            s_key,
            &transfers(&sender.id),
            json!({"to_email": "recip@example.com"}),
        )
        .await;
    assert_eq!(
        (res.status, res.code()),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            "root_organization_not_transferable"
        ),
        "{}",
        res.body
    );
    // Two sign-in providers, one e-mail: ambiguous by e-mail, clear by username.
    signup_user(app, "Twin One", "twin-one", "twin@example.com").await;
    signup_user(app, "Twin Two", "twin-two", "TWIN@example.com").await;
    let (_, writer) = app.make_key(&sender, s_key, &["read", "write"]).await;
    let recip = json!({"to_provider_username": "recip"});
    let (invalid, unprocessable) = (StatusCode::BAD_REQUEST, StatusCode::UNPROCESSABLE_ENTITY);
    for (key, body, status, code) in [
        (
            s_key,
            json!({"to_email": "recip@example.com", "to_provider_username": "recip"}),
            invalid,
            "invalid_field",
        ),
        (s_key, json!({}), invalid, "missing_field"),
        (
            s_key,
            json!({"to_email": "nobody@example.com"}),
            unprocessable,
            "recipient_not_found",
        ),
        (
            s_key,
            json!({"to_email": "twin@example.com"}),
            unprocessable,
            "ambiguous_recipient",
        ),
        // Ownership transfers need admin.
        (
            &writer,
            recip.clone(),
            StatusCode::FORBIDDEN,
            "insufficient_permissions",
        ),
        // The recipient's key does not reach the sender's tree at all.
        (
            r_key,
            recip,
            StatusCode::NOT_FOUND,
            "organization_not_found",
        ),
    ] {
        refused(&app.post(key, &transfers(&a), body).await, status, code);
    }

    // Initiated by the sender's root key (an ancestor), the username in another case.
    let res = app
        .post(
            s_key,
            &transfers(&a),
            json!({"to_provider_username": "RECIP"}),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    let t = res.body.clone();
    let id = t["id"].as_str().expect("id").to_owned();
    assert!(id.starts_with("trf_"), "{id}");
    assert_eq!(t["object"], "organization_transfer");
    assert_eq!(t["status"], "pending");
    assert_eq!(t["organization_id"], json!(a));
    assert_eq!(t["organization_name"], "A");
    assert_eq!(t["from_provider_username"], "sender");
    assert_eq!(t["to_provider_username"], "Recip");
    assert_eq!(t["to_email"], "recip@example.com");
    assert_eq!(
        (&t["descendant_org_count"], &t["total_org_count"]),
        (&json!(2), &json!(3))
    );
    assert_eq!(t["relationship_on_accept"], Value::Null);
    assert_eq!(t["responded_at"], Value::Null);
    let res = app
        .post(
            s_key,
            &transfers(&a),
            json!({"to_provider_username": "recip"}),
        )
        .await;
    assert_eq!(res.code(), "transfer_already_pending", "{}", res.body);
    // Ids are accepted in any prefix case.
    let upper = id.replacen("trf_", "TRF_", 1);
    let res = app
        .get(r_key, &format!("{}/{upper}", transfers(&recipient.id)))
        .await;
    assert_eq!(res.body["id"], json!(id), "{}", res.body);

    // Outgoing under the organization and its ancestor; incoming under the recipient's root.
    for (key, org) in [(s_key, &sender.id), (&a_key, &a)] {
        let res = app.get(key, &transfers(org)).await;
        assert_eq!(ids(&res.body), std::slice::from_ref(&id), "{}", res.body);
    }
    let res = app.get(&a2_key, &transfers(&a2)).await;
    assert_eq!(res.body["total_count"], 0, "{}", res.body);
    let res = app
        .get(r_key, &format!("{}/incoming", transfers(&recipient.id)))
        .await;
    assert_eq!(ids(&res.body), std::slice::from_ref(&id), "{}", res.body);
    let res = app
        .get(s_key, &format!("{}/incoming", transfers(&sender.id)))
        .await;
    assert_eq!(res.body["total_count"], 0, "{}", res.body);
    let res = app
        .get(&a_key, &format!("{}/incoming", transfers(&a)))
        .await;
    refused(&res, StatusCode::FORBIDDEN, "not_transfer_recipient");
    // A stranger's root sees nothing of it.
    let stranger = signup_user(app, "Stranger", "stranger", "stranger@example.com").await;
    let res = app
        .get(
            &stranger.test_key,
            &format!("{}/{id}", transfers(&stranger.id)),
        )
        .await;
    assert_eq!(res.code(), "resource_not_found", "{}", res.body);

    // Stats: the subtree's figures in the caller's mode.
    let res = app
        .read(r_key, &format!("{}/{id}/stats", transfers(&recipient.id)))
        .await;
    let stats = res.clone();
    assert_eq!(
        (
            &stats["descendant_organizations"],
            &stats["total_organizations"]
        ),
        (&json!(2), &json!(3))
    );
    assert_eq!(stats["transactions"], 1, "{stats}");
    assert_eq!(stats["api_keys"], 3, "{stats}");
    assert!(stats["accounts"].as_i64().unwrap_or(0) >= 3 * 7, "{stats}");
    assert_eq!(
        (&stats["invoices"], &stats["items"], &stats["contacts"]),
        (&json!(1), &json!(2), &json!(1)),
        "{stats}"
    );
    for field in ["bills", "categories"] {
        assert_eq!(stats[field], 0, "{field}: {stats}");
    }

    // The wrong side is refused with its code; a bad relationship too.
    let act = |org: &str, what: &str| format!("{}/{id}/{what}", transfers(org));
    let res = app
        .post(
            s_key,
            &act(&sender.id, "accept"),
            json!({"relationship": "owned"}),
        )
        .await;
    refused(&res, StatusCode::FORBIDDEN, "not_transfer_recipient");
    let res = app.post(s_key, &act(&sender.id, "reject"), json!({})).await;
    assert_eq!(res.code(), "not_transfer_recipient", "{}", res.body);
    let res = app
        .post(r_key, &act(&recipient.id, "cancel"), json!({}))
        .await;
    assert_eq!(res.code(), "not_transfer_sender", "{}", res.body);
    let res = app
        .post(r_key, &act(&recipient.id, "accept"), json!({}))
        .await;
    assert_eq!(res.code(), "missing_field", "{}", res.body);
    let res = app
        .post(
            r_key,
            &act(&recipient.id, "accept"),
            json!({"relationship": "partner"}),
        )
        .await;
    assert_eq!(res.code(), "invalid_field", "{}", res.body);

    // Accepted: the whole subtree moves under the recipient's root.
    let res = app
        .post(
            r_key,
            &act(&recipient.id, "accept"),
            json!({"relationship": "owned"}),
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["status"], "accepted");
    assert_eq!(res.body["relationship_on_accept"], "owned");
    assert_eq!(res.body["to_organization_id"], json!(recipient.id));
    assert!(res.body["responded_at"].is_string(), "{}", res.body);
    // Acting again is refused: it is no longer pending.
    let res = app
        .post(
            r_key,
            &act(&recipient.id, "accept"),
            json!({"relationship": "owned"}),
        )
        .await;
    refused(
        &res,
        StatusCode::UNPROCESSABLE_ENTITY,
        "transfer_not_pending",
    );
    let res = app.post(s_key, &act(&sender.id, "cancel"), json!({})).await;
    no_longer_pending(&res, "accepted");

    // Ids and keys unchanged: the moved organizations' own keys still work.
    let res = app.read(&a_key, &format!("/organizations/{a}")).await;
    assert_eq!(res["parent_organization_id"], json!(recipient.id));
    assert_eq!(res["relationship_type"], "owned");
    let res = app
        .get(
            &a2_key,
            &format!(
                "/organizations/{a2}/transactions/{}",
                txn["id"].as_str().unwrap_or("")
            ),
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    let res = app.get(&a_key, &format!("/organizations/{a2}")).await;
    assert_eq!(
        res.status,
        StatusCode::OK,
        "A still reaches A2: {}",
        res.body
    );
    // The internal hierarchy is kept, below the recipient's root.
    let res = app.get(r_key, &recipient.path("sub-organizations")).await;
    let tree: Vec<(String, i64)> = res.body["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|o| {
            (
                o["id"].as_str().unwrap_or("").to_owned(),
                o["depth"].as_i64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        tree,
        [(a.clone(), 1), (a1.clone(), 2), (a2.clone(), 3)],
        "{}",
        res.body
    );
    let res = app.get(r_key, &format!("/organizations/{a1}")).await;
    assert_eq!(res.body["relationship_type"], "linked", "{}", res.body);

    // Tenant isolation: the sender's keys no longer reach the moved subtree; the
    // recipient's root keys do, live and test.
    for org in [&a, &a1, &a2] {
        for path in [
            format!("/organizations/{org}"),
            format!("/organizations/{org}/accounts"),
        ] {
            let res = app.get(s_key, &path).await;
            assert_eq!(res.code(), "organization_not_found", "{path}: {}", res.body);
            let res = app.get(&sender.live_key, &path).await;
            assert_eq!(res.code(), "organization_not_found", "{path}: {}", res.body);
            let res = app.get(r_key, &path).await;
            assert_eq!(res.status, StatusCode::OK, "{path}: {}", res.body);
            let res = app.get(&recipient.live_key, &path).await;
            assert_eq!(res.status, StatusCode::OK, "{path}: {}", res.body);
        }
    }
    let res = app.get(s_key, &sender.path("sub-organizations")).await;
    assert_eq!(res.body["total_count"], 0, "{}", res.body);
    let res = app
        .post(
            s_key,
            "/accounts/sub",
            json!({"parent_organization_id": a, "name": "X", "relationship_type": "owned"}),
        )
        .await;
    assert_eq!(res.code(), "organization_not_found", "{}", res.body);
    // The moved organization's key cannot climb to its new root.
    let res = app
        .get(&a_key, &format!("/organizations/{}", recipient.id))
        .await;
    assert_eq!(res.code(), "organization_not_found", "{}", res.body);
    // The sender still sees its outgoing transfer, now accepted.
    let res = app.get(s_key, &transfers(&sender.id)).await;
    assert_eq!(res.body["data"][0]["status"], "accepted", "{}", res.body);
    // The recipient's root can create under the moved organization; it joins the tree.
    let (_new, _) = app.sub_org(r_key, &a2, "A3", "owned").await;

    // Events of each state change, on both sides.
    assert_eq!(
        app.event_kinds(&a_key, "organization_transfer", &id).await,
        [
            "organization_transfer.initiated",
            "organization_transfer.accepted"
        ]
    );
    assert_eq!(
        app.event_kinds(r_key, "organization_transfer", &id).await,
        ["organization_transfer.accepted"]
    );
}

both!(a_three_level_subtree_moves_with_its_keys);

async fn reject_cancel_and_one_winner_of_a_race(app: &TestApp) {
    let sender = signup_user(app, "Race Sender", "race-sender", "rs@example.com").await;
    let recipient = signup_user(app, "Race Recipient", "race-recipient", "rr@example.com").await;
    let s_key = &sender.test_key;
    let r_key = &recipient.test_key;
    let act = |org: &str, id: &str, what: &str| format!("{}/{id}/{what}", transfers(org));

    // Reject (recipient) and cancel (sender), each once.
    let (b, _) = app.sub_org(s_key, &sender.id, "B", "owned").await;
    let id = app
        .create_id(s_key, &transfers(&b), json!({"to_email": "RR@example.com"}))
        .await;
    let res = app
        .call(
            Method::POST,
            &act(&recipient.id, &id, "reject"),
            Some(r_key),
            None,
            &[],
        )
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["status"], "rejected");
    let res = app.get(s_key, &format!("/organizations/{b}")).await;
    assert_eq!(res.body["parent_organization_id"], json!(sender.id));
    let id = app
        .create_id(s_key, &transfers(&b), json!({"to_email": "rr@example.com"}))
        .await;
    let res = app.post(s_key, &act(&b, &id, "cancel"), json!({})).await;
    assert_eq!(res.body["status"], "cancelled", "{}", res.body);
    let res = app
        .post(r_key, &act(&recipient.id, &id, "reject"), json!({}))
        .await;
    assert_eq!(res.code(), "transfer_not_pending", "{}", res.body);
    // An Idempotency-Key replays the first answer.
    let id = app
        .create_id(s_key, &transfers(&b), json!({"to_email": "rr@example.com"}))
        .await;
    let cancel = act(&b, &id, "cancel");
    let request = (Method::POST, cancel.as_str(), Some(json!({})));
    app.replayed(s_key, request, "cancel-once", StatusCode::OK)
        .await;

    // A transfer of an organization whose ancestor moved meanwhile is superseded: its
    // accept cancels it (with its event) and is refused.
    let (p, _) = app.sub_org(s_key, &sender.id, "P", "owned").await;
    let (p1, p1_key) = app.sub_org(s_key, &p, "P1", "owned").await;
    let inner = app
        .create_id(
            s_key,
            &transfers(&p1),
            json!({"to_email": "rr@example.com"}),
        )
        .await;
    let outer = app
        .create_id(s_key, &transfers(&p), json!({"to_email": "rr@example.com"}))
        .await;
    let res = app
        .post(
            r_key,
            &act(&recipient.id, &outer, "accept"),
            json!({"relationship": "owned"}),
        )
        .await;
    assert_eq!(res.body["status"], "accepted", "{}", res.body);
    assert_eq!(res.body["descendant_org_count"], 1, "{}", res.body);
    let res = app
        .post(
            r_key,
            &act(&recipient.id, &inner, "accept"),
            json!({"relationship": "linked"}),
        )
        .await;
    no_longer_pending(&res, "cancelled");
    let res = app
        .get(r_key, &format!("{}/{inner}", transfers(&recipient.id)))
        .await;
    assert_eq!(res.body["status"], "cancelled", "{}", res.body);
    assert_eq!(
        app.event_kinds(&p1_key, "organization_transfer", &inner)
            .await,
        [
            "organization_transfer.initiated",
            "organization_transfer.cancelled"
        ]
    );
    let res = app.get(r_key, &format!("/organizations/{p1}")).await;
    assert_eq!(
        res.body["parent_organization_id"],
        json!(p),
        "P1 stays below P: {}",
        res.body
    );

    // Concurrent accept and cancel of one transfer: exactly one wins, every time.
    for round in 0..4 {
        let (c, _) = app
            .sub_org(s_key, &sender.id, &format!("C{round}"), "owned")
            .await;
        let id = app
            .create_id(
                s_key,
                &transfers(&c),
                json!({"to_provider_username": "race-recipient"}),
            )
            .await;
        let accept_path = act(&recipient.id, &id, "accept");
        // Under the sender's root, which its key reaches whoever wins.
        let cancel_path = act(&sender.id, &id, "cancel");
        let (accepted, cancelled) = tokio::join!(
            app.post(r_key, &accept_path, json!({"relationship": "linked"})),
            app.post(s_key, &cancel_path, json!({})),
        );
        let winners = [&accepted, &cancelled]
            .iter()
            .filter(|r| r.status == StatusCode::OK)
            .count();
        assert_eq!(
            winners, 1,
            "accept {} / cancel {}",
            accepted.body, cancelled.body
        );
        let loser = if accepted.status == StatusCode::OK {
            &cancelled
        } else {
            &accepted
        };
        assert_eq!(loser.code(), "transfer_not_pending", "{}", loser.body);
        let res = app
            .get(r_key, &format!("{}/{id}", transfers(&recipient.id)))
            .await;
        let parent = if accepted.status == StatusCode::OK {
            assert_eq!(res.body["status"], "accepted");
            &recipient
        } else {
            assert_eq!(res.body["status"], "cancelled");
            &sender
        };
        let key = if accepted.status == StatusCode::OK {
            r_key
        } else {
            s_key
        };
        let res = app.get(key, &format!("/organizations/{c}")).await;
        assert_eq!(
            res.body["parent_organization_id"],
            json!(parent.id),
            "{}",
            res.body
        );
    }
}

both!(reject_cancel_and_one_winner_of_a_race);

/// Past `expires_at` a pending transfer reads `expired` and cannot be accepted; the job
/// stores it once, with its event, however often it runs.
async fn expiry(backend: Backend) {
    let clock = Arc::new(ShiftedClock::default());
    let Some(app) = TestApp::spawn_with_clock(backend, clock.clone()).await else {
        return;
    };
    let sender = signup_user(&app, "Exp Sender", "exp-sender", "es@example.com").await;
    let recipient = signup_user(&app, "Exp Recipient", "exp-recipient", "er@example.com").await;
    let (d, d_key) = app
        .sub_org(&sender.test_key, &sender.id, "D", "owned")
        .await;
    let res = app
        .post(
            &d_key,
            &transfers(&d),
            json!({"to_email": "er@example.com"}),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    let id = res.id();
    let initiated = time::OffsetDateTime::parse(
        res.body["initiated_at"].as_str().unwrap_or(""),
        &time::format_description::well_known::Rfc3339,
    )
    .expect("time");
    let expires = time::OffsetDateTime::parse(
        res.body["expires_at"].as_str().unwrap_or(""),
        &time::format_description::well_known::Rfc3339,
    )
    .expect("time");
    assert_eq!(expires - initiated, time::Duration::days(7));
    assert_eq!(app.expire_transfers().await, 0);

    clock.advance(time::Duration::days(7) + time::Duration::seconds(5));
    let res = app
        .get(
            &recipient.test_key,
            &format!("{}/{id}", transfers(&recipient.id)),
        )
        .await;
    assert_eq!(res.body["status"], "expired", "{}", res.body);
    let res = app
        .post(
            &recipient.test_key,
            &format!("{}/{id}/accept", transfers(&recipient.id)),
            json!({"relationship": "owned"}),
        )
        .await;
    no_longer_pending(&res, "expired");
    // A new transfer of the same organization is possible at once (the stale one is
    // stored expired first).
    let second = app
        .create_id(
            &d_key,
            &transfers(&d),
            json!({"to_email": "er@example.com"}),
        )
        .await;
    assert_eq!(
        app.expire_transfers().await,
        0,
        "already stored by the initiation"
    );
    assert_eq!(
        app.event_kinds(&d_key, "organization_transfer", &id).await,
        [
            "organization_transfer.initiated",
            "organization_transfer.expired"
        ]
    );

    // The job stores each expiry once, however many runs race for it (each is a
    // compare-and-set, as with replicas).
    clock.advance(time::Duration::days(8));
    let (here, there) = tokio::join!(app.expire_transfers(), app.expire_transfers());
    assert_eq!(here + there, 1, "stored once");
    assert_eq!(app.expire_transfers().await, 0);
    let res = app
        .get(&d_key, &format!("/events/organization_transfer/{second}"))
        .await;
    let expired = res
        .body
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["event_type"] == "organization_transfer.expired")
        .count();
    assert_eq!(expired, 1, "{}", res.body);
    app.finish().await;
}

mod expiry {
    ledger_tests::on_backends!(super::expiry);
}

/// The same flows through GraphQL and MCP, with the same refusals and the same reach
/// afterwards.
async fn the_same_flows_through_graphql_and_mcp(app: &TestApp) {
    use crate::pipeline::{graphql, graphql_reason};
    use ledger_tests::mcp;
    let sender = signup_user(app, "Gql Sender", "gql-sender", "gs@example.com").await;
    let recipient = signup_user(app, "Gql Recipient", "gql-recipient", "gr@example.com").await;
    let s_key = &sender.test_key;
    let r_key = &recipient.test_key;
    let (e, e_key) = app.sub_org(s_key, &sender.id, "E", "owned").await;
    let (e1, _) = app.sub_org(s_key, &e, "E1", "owned").await;

    // GraphQL: initiate, list incoming, stats, refusals, accept.
    let data = app.gql_data(s_key,
        "mutation($org: ID!) { initiateOrganizationTransfer(organizationId: $org, toEmail: \"GR@example.com\") { id status descendantOrgCount totalOrgCount toEmail organizationName } }",
        json!({"org": e}),
    )
    .await;
    let t = &data["initiateOrganizationTransfer"];
    assert_eq!(t["status"], "PENDING", "{data}");
    assert_eq!(
        (&t["descendantOrgCount"], &t["totalOrgCount"]),
        (&json!(1), &json!(2))
    );
    let id = t["id"].as_str().expect("id").to_owned();
    let reason = graphql_reason(
        app,
        s_key,
        "mutation { initiateOrganizationTransfer(toEmail: \"gr@example.com\") { id } }",
        json!({}),
    )
    .await;
    assert_eq!(reason, "root_organization_not_transferable");
    let data = app.gql_data(r_key,
        "query($id: ID!) { incomingOrganizationTransfers { id status } organizationTransferStats(id: $id) { totalOrganizations descendantOrganizations apiKeys } organizationTransfer(id: $id) { fromProviderUsername } }",
        json!({"id": id}),
    )
    .await;
    assert_eq!(
        data["incomingOrganizationTransfers"][0]["id"],
        json!(id),
        "{data}"
    );
    assert_eq!(
        data["organizationTransferStats"]["totalOrganizations"], 2,
        "{data}"
    );
    assert_eq!(
        data["organizationTransfer"]["fromProviderUsername"],
        "gql-sender"
    );
    let body = graphql(
        app,
        s_key,
        "mutation($id: ID!) { acceptOrganizationTransfer(id: $id, relationship: OWNED) { id } }",
        json!({"id": id}),
    )
    .await;
    assert_eq!(
        body["errors"][0]["extensions"]["reason"], "not_transfer_recipient",
        "{body}"
    );
    assert_eq!(
        body["errors"][0]["extensions"]["code"], "FORBIDDEN",
        "{body}"
    );
    let data = app.gql_data(r_key,
        "mutation($id: ID!) { acceptOrganizationTransfer(id: $id, relationship: OWNED) { status relationshipOnAccept toOrganizationId respondedAt } }",
        json!({"id": id}),
    )
    .await;
    let t = &data["acceptOrganizationTransfer"];
    assert_eq!(
        (&t["status"], &t["relationshipOnAccept"]),
        (&json!("ACCEPTED"), &json!("OWNED")),
        "{data}"
    );
    assert_eq!(t["toOrganizationId"], json!(recipient.id));
    let reason = graphql_reason(
        app,
        s_key,
        "mutation($id: ID!) { cancelOrganizationTransfer(id: $id) { id } }",
        json!({"id": id}),
    )
    .await;
    assert_eq!(reason, "transfer_not_pending");
    // Reach afterwards: the sender's key is refused, the recipient's root and the moved
    // organization's own key are not.
    let by_id = "query($id: ID!) { organizationById(id: $id) { id name parentOrganizationId } }";
    for org in [&e, &e1] {
        let body = graphql(app, s_key, by_id, json!({"id": org})).await;
        assert_eq!(
            body["errors"][0]["extensions"]["reason"], "organization_not_found",
            "{body}"
        );
        let data = app.gql_data(r_key, by_id, json!({"id": org})).await;
        assert_eq!(data["organizationById"]["id"], json!(org), "{data}");
    }
    let data = app
        .gql_data(
            &e_key,
            "{ organization { parentOrganizationId } }",
            json!({}),
        )
        .await;
    assert_eq!(
        data["organization"]["parentOrganizationId"],
        json!(recipient.id),
        "{data}"
    );

    // MCP: initiate, list both sides, refusal, accept as linked, reach; then a cancel.
    let (f, _) = app.sub_org(s_key, &sender.id, "F", "owned").await;
    let result = tool_ok(
        app,
        s_key,
        "initiate_organization_transfer",
        json!({"organizationId": f, "toProviderUsername": "gql-recipient"}),
    )
    .await;
    let mcp_id = result["id"].as_str().expect("id").to_owned();
    let listed = mcp::tool(app, s_key, "list_organization_transfers", json!({})).await;
    assert_eq!(listed["structuredContent"]["total_count"], 2, "{listed}");
    let incoming = mcp::tool(
        app,
        r_key,
        "list_incoming_organization_transfers",
        json!({}),
    )
    .await;
    assert_eq!(
        incoming["structuredContent"]["data"][0]["id"],
        json!(mcp_id),
        "{incoming}"
    );
    tool_refused(
        app,
        s_key,
        "reject_organization_transfer",
        json!({"transferId": mcp_id}),
        "not_transfer_recipient",
    )
    .await;
    let accepted = mcp::tool(
        app,
        r_key,
        "accept_organization_transfer",
        json!({"transferId": mcp_id, "relationship": "linked"}),
    )
    .await;
    assert_eq!(
        accepted["structuredContent"]["status"], "accepted",
        "{accepted}"
    );
    tool_refused(
        app,
        s_key,
        "get_organization",
        json!({"organizationId": f}),
        "organization_not_found",
    )
    .await;
    let here = mcp::tool(app, r_key, "get_organization", json!({"organizationId": f})).await;
    assert_eq!(
        here["structuredContent"]["relationship_type"], "linked",
        "{here}"
    );
    let tree = mcp::tool(app, r_key, "list_sub_organizations", json!({})).await;
    assert_eq!(tree["structuredContent"]["total_count"], 3, "{tree}");
    let (g, g_key) = app.sub_org(s_key, &sender.id, "G", "owned").await;
    let result = mcp::tool(
        app,
        &g_key,
        "initiate_organization_transfer",
        json!({"toEmail": "gr@example.com"}),
    )
    .await;
    let g_id = result["structuredContent"]["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let cancelled = mcp::tool(
        app,
        &g_key,
        "cancel_organization_transfer",
        json!({"transferId": g_id}),
    )
    .await;
    assert_eq!(
        cancelled["structuredContent"]["status"], "cancelled",
        "{cancelled}"
    );
    let res = app.get(s_key, &format!("/organizations/{g}")).await;
    assert_eq!(res.body["parent_organization_id"], json!(sender.id));
}

both!(the_same_flows_through_graphql_and_mcp);
