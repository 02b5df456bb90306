//! x402 credit purchases (issue 19 item 3): `POST /organizations/{org}/credits/x402`
//! answers 402 with `PAYMENT-REQUIRED`; a retry with `PAYMENT-SIGNATURE` (an EIP-3009
//! authorization signed here with a throwaway key) is verified by the local facilitator
//! and answers 200 with `PAYMENT-RESPONSE` and the credited purchase. A replayed
//! authorization — again later, or four copies at once — is credited once; a tampered
//! amount or recipient, an expired window, a foreign signature, a malformed header and
//! changed requirements are refused with their codes and change nothing. The MCP pair
//! (`_meta["x402/payment"]`), and the reference Python client (`x402` from PyPI) paying
//! the REST endpoint and the MCP tools. The GraphQL pair (`startX402CreditPurchase`,
//! `completeX402CreditPurchase`) over the same domain call. Every scenario runs on SQLite
//! and PostgreSQL and
//! ends in `TestApp::finish` (every pool's ledger sums to its balance).

use base64::Engine as _;
use k256::ecdsa::SigningKey;
use ledger_domain::x402::{
    Eip712Domain, PaymentRequirements, TransferWithAuthorization, chain_id_of, hex_of,
    parse_address, typed_data_digest,
};
use ledger_tests::{Answer, Org, TestApp, both, strs};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

const MODERN: &str = "2026-07-28";

fn x402_path(org: &Org) -> String {
    org.path("credits/x402")
}

fn b64(value: &Value) -> String {
    base64::engine::general_purpose::STANDARD.encode(value.to_string())
}

fn unb64(text: &str) -> Value {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .expect("base64 header");
    serde_json::from_slice(&bytes).expect("JSON header")
}

fn header(res: &Answer, name: &str) -> Option<Value> {
    res.headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(unb64)
}

/// A throwaway payer: a fixed secp256k1 key per seed (never used on any chain).
struct Payer {
    key: SigningKey,
}

/// What a test changes in an authorization before or after signing it.
#[derive(Default, Clone)]
struct Tweak {
    /// Signed with these values.
    to: Option<String>,
    valid_before: Option<u64>,
    /// Changed after signing.
    value_after_signing: Option<String>,
}

impl Payer {
    fn new(seed: u8) -> Self {
        let mut secret = [0x11u8; 32];
        secret[31] = seed;
        Self {
            key: SigningKey::from_slice(&secret).expect("a valid key"),
        }
    }

    fn address(&self) -> [u8; 20] {
        let point = self.key.verifying_key().to_sec1_point(false);
        let hash = ledger_domain::x402::keccak256(&point.as_bytes()[1..]);
        hash[12..].try_into().expect("20 bytes")
    }

    /// The base64 `PAYMENT-SIGNATURE` paying `offered`, signed by `signer` (self unless
    /// a foreign signature is wanted), with `tweak` applied.
    fn pay(&self, offered: &Value, nonce: u8, tweak: &Tweak, signer: Option<&Payer>) -> String {
        let requirements: PaymentRequirements =
            serde_json::from_value(offered.clone()).expect("requirements");
        let now = u64::try_from(time::OffsetDateTime::now_utc().unix_timestamp()).unwrap_or(0);
        let to = tweak.to.clone().unwrap_or(requirements.pay_to.clone());
        let valid_before = tweak.valid_before.unwrap_or(now + 300);
        let mut nonce_bytes = [0u8; 32];
        nonce_bytes[0] = self.address()[0];
        nonce_bytes[31] = nonce;
        let message = TransferWithAuthorization {
            from: self.address(),
            to: parse_address(&to).expect("to"),
            value: requirements.amount.parse().expect("amount"),
            valid_after: 0,
            valid_before: u128::from(valid_before),
            nonce: nonce_bytes,
        };
        let domain = Eip712Domain {
            name: requirements.extra["name"].as_str().unwrap_or("").into(),
            version: requirements.extra["version"].as_str().unwrap_or("").into(),
            chain_id: chain_id_of(&requirements.network).expect("chain"),
            verifying_contract: parse_address(&requirements.asset).expect("asset"),
        };
        let digest = typed_data_digest(&domain, &message);
        let (signature, recovery) = signer.unwrap_or(self).key.sign_prehash_recoverable(&digest);
        let mut bytes = signature.to_bytes().to_vec();
        bytes.push(27 + recovery.to_byte());
        let payload = json!({
            "x402Version": 2,
            "accepted": offered,
            "payload": {
                "signature": hex_of(&bytes),
                "authorization": {
                    "from": hex_of(&message.from),
                    "to": to,
                    "value": tweak.value_after_signing.clone().unwrap_or(requirements.amount),
                    "validAfter": "0",
                    "validBefore": valid_before.to_string(),
                    "nonce": hex_of(&nonce_bytes),
                },
            },
        });
        b64(&payload)
    }
}

async fn ask(app: &TestApp, org: &Org, key: &str, payment: Option<&str>) -> Answer {
    let mut headers = Vec::new();
    if let Some(p) = payment {
        headers.push(("PAYMENT-SIGNATURE", p));
    }
    app.call(
        Method::POST,
        &x402_path(org),
        Some(key),
        Some(json!({"credit_amount": 1000})),
        &headers,
    )
    .await
}

async fn credits(app: &TestApp, org: &Org) -> i64 {
    let res = app.read(&org.live_key, &org.path("credits")).await;
    res["credits_remaining"].as_i64().expect("credits")
}

async fn purchases(app: &TestApp, org: &Org, key: &str) -> Vec<Value> {
    let res = app
        .read(key, &org.path("credits/purchases?limit=100"))
        .await;
    res["data"].as_array().expect("purchases").clone()
}

/// The 402 of a request without payment, checked; returns the offered requirements.
async fn offered(app: &TestApp, org: &Org, key: &str) -> Value {
    let res = ask(app, org, key, None).await;
    assert_eq!(res.status, StatusCode::PAYMENT_REQUIRED, "{}", res.body);
    assert_eq!(res.code(), "payment_required");
    assert_eq!(res.body["error"]["type"], "payment_error");
    let required = header(&res, "PAYMENT-REQUIRED").expect("PAYMENT-REQUIRED");
    assert_eq!(res.body["error"]["details"]["payment_required"], required);
    assert_eq!(required["x402Version"], 2);
    assert!(
        required["resource"]["url"]
            .as_str()
            .is_some_and(|u| u.ends_with(&x402_path(org))),
        "{required}"
    );
    let accepts = required["accepts"].as_array().expect("accepts");
    assert_eq!(accepts.len(), 1);
    let r = &accepts[0];
    assert_eq!(r["scheme"], "exact");
    assert_eq!(r["network"], "eip155:84532");
    assert_eq!(r["asset"], "0x036CbD53842c5426634e7929541eC2318f3dCF7e");
    // 1000 credits cost 10.00 USD: 10 000 000 atomic USDC (6 decimals).
    assert_eq!(r["amount"], "10000000");
    assert_eq!(r["payTo"], server::DEV_X402_PAY_TO);
    assert_eq!(r["maxTimeoutSeconds"], 300);
    assert_eq!(r["extra"], json!({"name": "USDC", "version": "2"}));
    r.clone()
}

async fn paid_once_however_often_replayed(app: &TestApp) {
    let org = app.signup("X402 Buyer").await;
    let payer = Payer::new(1);
    let r = offered(app, &org, &org.live_key).await;
    assert_eq!(credits(app, &org).await, 500);

    let payment = payer.pay(&r, 1, &Tweak::default(), None);
    let res = ask(app, &org, &org.live_key, Some(&payment)).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["object"], "credit_purchase");
    assert_eq!(res.body["status"], "completed");
    assert_eq!(res.body["provider"], "x402");
    assert_eq!(res.body["credits_to_add"], 1000);
    assert_eq!(res.body["price_cents"], 1000);
    let settlement = header(&res, "PAYMENT-RESPONSE").expect("PAYMENT-RESPONSE");
    assert_eq!(settlement["success"], true);
    assert_eq!(settlement["network"], "eip155:84532");
    assert_eq!(settlement["payer"], hex_of(&payer.address()));
    assert_eq!(settlement["amount"], "10000000");
    let transaction = settlement["transaction"].as_str().expect("transaction");
    assert_eq!(transaction.len(), 66, "{transaction}");
    assert_eq!(credits(app, &org).await, 1500);

    // The same payment again: refused, nothing credited.
    let res = ask(app, &org, &org.live_key, Some(&payment)).await;
    assert_eq!(res.status, StatusCode::PAYMENT_REQUIRED, "{}", res.body);
    assert_eq!(res.code(), "payment_replayed");
    let again = header(&res, "PAYMENT-REQUIRED").expect("PAYMENT-REQUIRED");
    assert!(
        again["error"]
            .as_str()
            .is_some_and(|e| e.contains("already used"))
    );
    assert_eq!(credits(app, &org).await, 1500);

    // A replay against another organization is refused too (the key is global).
    let other = app.signup("X402 Other").await;
    let res = ask(app, &other, &other.live_key, Some(&payment)).await;
    assert_eq!(res.code(), "payment_replayed", "{}", res.body);
    assert_eq!(credits(app, &other).await, 500);

    // Four retries of one new payment at once: one is credited.
    let payment = payer.pay(&r, 2, &Tweak::default(), None);
    let answers =
        futures::future::join_all((0..4).map(|_| ask(app, &org, &org.live_key, Some(&payment))))
            .await;
    let paid = answers
        .iter()
        .filter(|a| a.status == StatusCode::OK)
        .count();
    assert_eq!(
        paid,
        1,
        "{:#?}",
        answers.iter().map(|a| &a.body).collect::<Vec<_>>()
    );
    for a in answers.iter().filter(|a| a.status != StatusCode::OK) {
        assert_eq!(a.code(), "payment_replayed", "{}", a.body);
    }
    assert_eq!(credits(app, &org).await, 2500);
    let bought = purchases(app, &org, &org.live_key).await;
    assert_eq!(bought.len(), 2, "{bought:#?}");
    assert!(bought.iter().all(|p| p["status"] == "completed"));

    // Test mode: the whole flow, and the live pool does not change.
    let r = offered(app, &org, &org.test_key).await;
    let res = ask(
        app,
        &org,
        &org.test_key,
        Some(&payer.pay(&r, 3, &Tweak::default(), None)),
    )
    .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["livemode"], false);
    assert_eq!(credits(app, &org).await, 2500);
}
both!(x402_paid_once, paid_once_however_often_replayed);

async fn refusals_change_nothing(app: &TestApp) {
    let org = app.signup("X402 Refusals").await;
    let payer = Payer::new(7);
    let r = offered(app, &org, &org.live_key).await;
    let past = u64::try_from(time::OffsetDateTime::now_utc().unix_timestamp() - 5).unwrap_or(0);
    let mut changed = r.clone();
    changed["amount"] = json!("1");
    let cases: Vec<(&str, String)> = vec![
        (
            "payment_amount_mismatch",
            payer.pay(
                &r,
                1,
                &Tweak {
                    value_after_signing: Some("1".into()),
                    ..Tweak::default()
                },
                None,
            ),
        ),
        (
            "payment_recipient_mismatch",
            payer.pay(
                &r,
                2,
                &Tweak {
                    to: Some("0x000000000000000000000000000000000000dEaD".into()),
                    ..Tweak::default()
                },
                None,
            ),
        ),
        (
            "payment_expired",
            payer.pay(
                &r,
                3,
                &Tweak {
                    valid_before: Some(past),
                    ..Tweak::default()
                },
                None,
            ),
        ),
        (
            "payment_signature_invalid",
            payer.pay(&r, 4, &Tweak::default(), Some(&Payer::new(8))),
        ),
        ("payment_invalid", "%%% not base64".to_owned()),
        ("payment_invalid", b64(&json!({"x402Version": 2}))),
        (
            "payment_invalid",
            payer.pay(&changed, 5, &Tweak::default(), None),
        ),
    ];
    for (code, payment) in &cases {
        let res = ask(app, &org, &org.live_key, Some(payment)).await;
        assert_eq!(
            res.status,
            StatusCode::PAYMENT_REQUIRED,
            "{code}: {}",
            res.body
        );
        assert_eq!(res.code(), *code, "{}", res.body);
        let required = header(&res, "PAYMENT-REQUIRED").expect("PAYMENT-REQUIRED");
        assert!(required["error"].is_string(), "{required}");
        assert_eq!(required["accepts"][0], r);
    }
    assert_eq!(credits(app, &org).await, 500);
    assert!(purchases(app, &org, &org.live_key).await.is_empty());
    // A refused authorization was not recorded: signed properly, the same nonce pays.
    let res = ask(
        app,
        &org,
        &org.live_key,
        Some(&payer.pay(&r, 1, &Tweak::default(), None)),
    )
    .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(credits(app, &org).await, 1500);

    // Not a package, or a key without admin: ordinary refusals, no 402.
    let res = app
        .post(&org.live_key, &x402_path(&org), json!({"credit_amount": 7}))
        .await;
    assert_eq!(res.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", res.body);
    assert_eq!(res.code(), "reference_not_found");
    assert!(res.headers.get("PAYMENT-REQUIRED").is_none());
    let res = app.post(&org.live_key, &x402_path(&org), json!({})).await;
    assert_eq!(res.code(), "missing_field", "{}", res.body);
    let (_, reader_key) = app.make_key(&org, &org.live_key, &["read"]).await;
    let res = ask(app, &org, &reader_key, None).await;
    assert_eq!(res.status, StatusCode::FORBIDDEN, "{}", res.body);
}
both!(x402_refusals, refusals_change_nothing);

/// A modern-era `tools/call` with `extra_meta` merged into `params._meta`.
async fn call_tool(
    app: &TestApp,
    path: &str,
    key: &str,
    name: &str,
    arguments: Value,
    extra_meta: Value,
) -> Answer {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    if let (Some(m), Some(extra)) = (meta.as_object_mut(), extra_meta.as_object()) {
        m.extend(extra.clone());
    }
    app.call(
        Method::POST,
        path,
        Some(key),
        Some(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": meta}})),
        &[
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", name),
        ],
    )
    .await
}

async fn mcp_pair_pays_once(app: &TestApp) {
    let org = app.signup("X402 Mcp").await;
    let payer = Payer::new(21);
    let args = json!({"masterOrganizationId": org.id, "creditAmount": 1000});
    let start = call_tool(
        app,
        "/mcp",
        &org.live_key,
        "start_x402_credit_purchase",
        args.clone(),
        json!({}),
    )
    .await;
    assert_eq!(start.status, StatusCode::OK, "{}", start.body);
    let result = &start.body["result"];
    assert_eq!(result["isError"], true, "{result}");
    let required = &result["structuredContent"];
    assert_eq!(required["x402Version"], 2, "{result}");
    let r = required["accepts"][0].clone();
    assert_eq!(r["amount"], "10000000");
    assert!(
        result["content"][1]["text"]
            .as_str()
            .is_some_and(|t| t.contains("payment_required")),
        "{result}"
    );

    // Paid the x402 MCP way: the PaymentPayload object in `_meta["x402/payment"]`.
    let payment = payer.pay(&r, 1, &Tweak::default(), None);
    let payload = unb64(&payment);
    let paid = call_tool(
        app,
        "/mcp",
        &org.live_key,
        "start_x402_credit_purchase",
        args.clone(),
        json!({"x402/payment": payload}),
    )
    .await;
    let result = &paid.body["result"];
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(result["structuredContent"]["status"], "completed");
    let receipt = &result["_meta"]["x402/payment-response"];
    assert_eq!(receipt["success"], true, "{result}");
    assert_eq!(receipt["payer"], hex_of(&payer.address()));
    assert_eq!(credits(app, &org).await, 1500);

    // The same payment through complete_x402_credit_purchase's argument: replayed.
    let mut with_signature = args.clone();
    with_signature["paymentSignatureB64"] = json!(payment);
    let again = call_tool(
        app,
        "/mcp",
        &org.live_key,
        "complete_x402_credit_purchase",
        with_signature.clone(),
        json!({}),
    )
    .await;
    let result = &again.body["result"];
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(result["structuredContent"]["accepts"][0], r);
    assert!(
        result["content"][1]["text"]
            .as_str()
            .is_some_and(|t| t.contains("payment_replayed")),
        "{result}"
    );
    // A new one pays.
    with_signature["paymentSignatureB64"] = json!(payer.pay(&r, 2, &Tweak::default(), None));
    let done = call_tool(
        app,
        "/mcp",
        &org.live_key,
        "complete_x402_credit_purchase",
        with_signature.clone(),
        json!({}),
    )
    .await;
    assert_eq!(done.body["result"]["isError"], false, "{}", done.body);
    assert_eq!(credits(app, &org).await, 2500);

    // The directory variant has neither tool.
    let listed = app
        .call(
            Method::POST,
            "/mcp/directory",
            Some(&org.live_key),
            Some(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list",
            "params": {"_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
            }}})),
            &[
                ("MCP-Protocol-Version", MODERN),
                ("Mcp-Method", "tools/list"),
            ],
        )
        .await;
    let names = strs(&listed.body["result"]["tools"], "name");
    assert!(!names.is_empty());
    assert!(!names.iter().any(|n| n.contains("x402")), "{names:?}");
    let refused = call_tool(
        app,
        "/mcp/directory",
        &org.live_key,
        "complete_x402_credit_purchase",
        with_signature,
        json!({}),
    )
    .await;
    assert_eq!(refused.body["error"]["code"], -32602, "{}", refused.body);
    assert_eq!(credits(app, &org).await, 2500);
}
both!(x402_mcp, mcp_pair_pays_once);

const GQL_START: &str = "mutation($org: ID, $n: Int) {
    startX402CreditPurchase(organizationId: $org, input: {creditAmount: $n}) {
        x402Version error resource { url description mimeType }
        accepts { scheme network asset amount payTo maxTimeoutSeconds extra json }
        paymentRequiredHeader } }";

const GQL_COMPLETE: &str = "mutation($org: ID, $n: Int, $sig: String!) {
    completeX402CreditPurchase(organizationId: $org,
        input: {creditAmount: $n, paymentSignature: $sig}) {
        purchase { id status provider creditsToAdd priceCents currency packageId livemode
            checkoutUrl completedAt }
        settlement { success transaction network payer amount errorReason }
        paymentResponseHeader } }";

/// `completeX402CreditPurchase` for 1000 credits in `org` (the key's own when `None`).
async fn gql_complete(app: &TestApp, key: &str, org: Option<&str>, payment: &str) -> Answer {
    app.gql(
        Some(key),
        GQL_COMPLETE,
        json!({"org": org, "n": 1000, "sig": payment}),
    )
    .await
}

/// The field's error of a refused GraphQL purchase: (code, reason, the requirements).
fn gql_refusal<'a>(res: &'a Answer, field: &str) -> (&'a str, &'a str, &'a Value) {
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["data"][field], Value::Null, "{}", res.body);
    let ext = &res.body["errors"][0]["extensions"];
    (
        ext["code"].as_str().unwrap_or(""),
        ext["reason"].as_str().unwrap_or(""),
        &ext["paymentRequired"],
    )
}

/// The GraphQL pair: `startX402CreditPurchase` answers what REST's 402 carries, and
/// `completeX402CreditPurchase` pays through the same domain call: credited once, a
/// replay (here or over REST) and bad payments refused with their codes and nothing
/// written, `admin` needed, another organization's key refused.
async fn graphql_pair_pays_once(app: &TestApp) {
    let org = app.signup("X402 Graphql").await;
    let payer = Payer::new(31);
    let res = app
        .gql(Some(&org.live_key), GQL_START, json!({"n": 1000}))
        .await;
    assert!(res.body.get("errors").is_none(), "{}", res.body);
    let node = res.body["data"]["startX402CreditPurchase"].clone();
    assert_eq!(node["x402Version"], 2, "{node}");
    assert_eq!(node["error"], Value::Null);
    assert!(
        node["resource"]["url"]
            .as_str()
            .is_some_and(|u| u.ends_with(&x402_path(&org))),
        "{node}"
    );
    assert_eq!(node["resource"]["mimeType"], "application/json");
    let typed = &node["accepts"][0];
    assert_eq!(typed["scheme"], "exact");
    assert_eq!(typed["network"], "eip155:84532");
    assert_eq!(typed["amount"], "10000000");
    assert_eq!(typed["payTo"], server::DEV_X402_PAY_TO);
    assert_eq!(typed["maxTimeoutSeconds"], 300);
    assert_eq!(typed["extra"], json!({"name": "USDC", "version": "2"}));
    // The same requirements as REST's 402, as an object and as the header's value.
    let r = offered(app, &org, &org.live_key).await;
    assert_eq!(typed["json"], r);
    let header_value = unb64(node["paymentRequiredHeader"].as_str().expect("header"));
    assert_eq!(header_value["accepts"][0], r);
    assert_eq!(header_value["resource"]["url"], node["resource"]["url"]);
    // Asking writes nothing.
    assert_eq!(credits(app, &org).await, 500);
    assert!(purchases(app, &org, &org.live_key).await.is_empty());

    // Paid: credited once, the settlement as PAYMENT-RESPONSE would carry it.
    let payment = payer.pay(&typed["json"], 1, &Tweak::default(), None);
    let res = gql_complete(app, &org.live_key, None, &payment).await;
    assert!(res.body.get("errors").is_none(), "{}", res.body);
    let paid = &res.body["data"]["completeX402CreditPurchase"];
    let purchase = &paid["purchase"];
    assert_eq!(purchase["status"], "completed", "{paid}");
    assert_eq!(purchase["provider"], "x402");
    assert_eq!(purchase["creditsToAdd"], 1000);
    assert_eq!(purchase["priceCents"], 1000);
    assert_eq!(purchase["packageId"], "credits_1000");
    assert_eq!(purchase["livemode"], true);
    assert!(purchase["completedAt"].is_string(), "{paid}");
    let settlement = &paid["settlement"];
    assert_eq!(settlement["success"], true);
    assert_eq!(settlement["network"], "eip155:84532");
    assert_eq!(settlement["payer"], hex_of(&payer.address()));
    assert_eq!(settlement["amount"], "10000000");
    assert_eq!(settlement["transaction"].as_str().map(str::len), Some(66));
    let response = unb64(paid["paymentResponseHeader"].as_str().expect("header"));
    assert_eq!(response["transaction"], settlement["transaction"]);
    assert_eq!(response["success"], true);
    assert_eq!(credits(app, &org).await, 1500);
    let bought = purchases(app, &org, &org.live_key).await;
    assert_eq!(bought.len(), 1, "{bought:#?}");
    assert_eq!(bought[0]["id"], purchase["id"]);
    assert_eq!(bought[0]["status"], "completed");

    // Replayed, over GraphQL or REST: refused, nothing credited.
    let res = gql_complete(app, &org.live_key, None, &payment).await;
    let (code, reason, required) = gql_refusal(&res, "completeX402CreditPurchase");
    assert_eq!(
        (code, reason),
        ("BUSINESS_RULE_VIOLATION", "payment_replayed"),
        "{}",
        res.body
    );
    assert_eq!(required["accepts"][0], r);
    assert!(
        required["error"]
            .as_str()
            .is_some_and(|e| e.contains("already used")),
        "{required}"
    );
    let res = ask(app, &org, &org.live_key, Some(&payment)).await;
    assert_eq!(res.code(), "payment_replayed", "{}", res.body);
    assert_eq!(credits(app, &org).await, 1500);

    // Bad payments: refused with their codes, nothing written.
    let cases = [
        (
            "payment_signature_invalid",
            payer.pay(&r, 2, &Tweak::default(), Some(&Payer::new(32))),
        ),
        (
            "payment_amount_mismatch",
            payer.pay(
                &r,
                3,
                &Tweak {
                    value_after_signing: Some("1".into()),
                    ..Tweak::default()
                },
                None,
            ),
        ),
        ("payment_invalid", "%%% not base64".to_owned()),
        ("payment_required", String::new()),
    ];
    for (expected, bad) in &cases {
        let res = gql_complete(app, &org.live_key, None, bad).await;
        let (code, reason, required) = gql_refusal(&res, "completeX402CreditPurchase");
        assert_eq!(code, "BUSINESS_RULE_VIOLATION", "{}", res.body);
        assert_eq!(reason, *expected, "{}", res.body);
        assert_eq!(required["accepts"][0], r, "{}", res.body);
    }
    assert_eq!(credits(app, &org).await, 1500);
    assert_eq!(purchases(app, &org, &org.live_key).await.len(), 1);
    // Not a package: the ordinary validation error.
    let res = app
        .gql(
            Some(&org.live_key),
            GQL_COMPLETE,
            json!({"n": 7, "sig": payer.pay(&r, 4, &Tweak::default(), None)}),
        )
        .await;
    let (code, reason, _) = gql_refusal(&res, "completeX402CreditPurchase");
    assert_eq!(
        (code, reason),
        ("BUSINESS_RULE_VIOLATION", "reference_not_found"),
        "{}",
        res.body
    );

    // Permissions as REST: a key without admin, and another organization's key (naming
    // this organization), are refused and change nothing.
    let (_, reader_key) = app.make_key(&org, &org.live_key, &["read"]).await;
    let res = app
        .gql(Some(&reader_key), GQL_START, json!({"n": 1000}))
        .await;
    let (code, _, _) = gql_refusal(&res, "startX402CreditPurchase");
    assert_eq!(code, "FORBIDDEN", "{}", res.body);
    let fresh = payer.pay(&r, 5, &Tweak::default(), None);
    let res = gql_complete(app, &reader_key, None, &fresh).await;
    let (code, _, _) = gql_refusal(&res, "completeX402CreditPurchase");
    assert_eq!(code, "FORBIDDEN", "{}", res.body);
    let other = app.signup("X402 Graphql Other").await;
    for key in [&other.live_key, &other.test_key] {
        let res = app
            .gql(Some(key), GQL_START, json!({"org": org.id, "n": 1000}))
            .await;
        let (code, _, _) = gql_refusal(&res, "startX402CreditPurchase");
        assert_eq!(code, "FORBIDDEN", "{}", res.body);
        let res = gql_complete(app, key, Some(&org.id), &fresh).await;
        let (code, _, _) = gql_refusal(&res, "completeX402CreditPurchase");
        assert_eq!(code, "FORBIDDEN", "{}", res.body);
    }
    assert_eq!(credits(app, &org).await, 1500);
    assert_eq!(credits(app, &other).await, 500);
    assert_eq!(purchases(app, &org, &org.live_key).await.len(), 1);
    assert!(purchases(app, &other, &other.live_key).await.is_empty());

    // The refused authorizations were not recorded: the nonce of the foreign signature,
    // signed properly, pays; and the unused one the refused keys carried pays too, for
    // a sub-organization named by `organizationId` (credited to the root's pool).
    let res = gql_complete(
        app,
        &org.live_key,
        None,
        &payer.pay(&r, 2, &Tweak::default(), None),
    )
    .await;
    assert!(res.body.get("errors").is_none(), "{}", res.body);
    assert_eq!(credits(app, &org).await, 2500);
    let (sub_id, _) = app
        .sub_org(&org.live_key, &org.id, "X402 Sub", "owned")
        .await;
    let res = gql_complete(app, &org.live_key, Some(&sub_id), &fresh).await;
    assert!(res.body.get("errors").is_none(), "{}", res.body);
    assert_eq!(credits(app, &org).await, 3500);

    // Test mode: the whole flow, and the live pool does not change.
    let res = app
        .gql(Some(&org.test_key), GQL_START, json!({"n": 1000}))
        .await;
    let test_offer = res.body["data"]["startX402CreditPurchase"]["accepts"][0]["json"].clone();
    assert_eq!(test_offer, r, "{}", res.body);
    let res = gql_complete(
        app,
        &org.test_key,
        None,
        &payer.pay(&test_offer, 6, &Tweak::default(), None),
    )
    .await;
    assert!(res.body.get("errors").is_none(), "{}", res.body);
    assert_eq!(
        res.body["data"]["completeX402CreditPurchase"]["purchase"]["livemode"],
        false
    );
    assert_eq!(credits(app, &org).await, 3500);
}
both!(x402_graphql, graphql_pair_pays_once);

/// The reference x402 client from PyPI (`x402[evm,httpx]==2.25.0` with
/// `eth-account==0.14.0`, `.ci/run` installs them) pays the REST endpoint and the MCP
/// tools with a throwaway key against the local facilitator: `tests/x402/pay.py`.
async fn reference_client_pays(app: &TestApp) {
    ledger_tests::require_python(
        "import x402, eth_account, httpx, mcp",
        "`pip install \"x402[evm,httpx]==2.25.0\" eth-account==0.14.0 mcp==2.3.0` (.ci/run does it)",
    );
    let org = app.signup("X402 Python").await;
    ledger_tests::run_python(
        ledger_tests::workspace().join("tests/x402/pay.py"),
        Vec::new(),
        [
            ("LEDGER_BASE", app.base.clone()),
            ("LEDGER_KEY", org.live_key.clone()),
            ("LEDGER_ORG", org.id.clone()),
        ],
    )
    .await
    .assert_ok(
        "the x402 reference client",
        &["ok: http", "ok: replay refused", "ok: mcp"],
    );
    // One package over HTTP, one over MCP; the replay added nothing.
    assert_eq!(credits(app, &org).await, 2500);
    assert_eq!(purchases(app, &org, &org.live_key).await.len(), 2);
}
both!(x402_reference_client, reference_client_pays);
