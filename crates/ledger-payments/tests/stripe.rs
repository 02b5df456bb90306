//! The Stripe adapter against recorded fixtures, without the network: the session
//! request goes to a one-shot local server that answers the recorded response, and the
//! recorded webhook is verified with the signature computed for it (secret
//! `whsec_fixture0123456789abcdef`, `t=1767225905`).

use ledger_domain::ports::{CheckoutRequest, PaymentProvider};
use ledger_payments::{Stripe, StripeConfig, signature_header, verify_signature};
use time::OffsetDateTime;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const SECRET: &str = "whsec_fixture0123456789abcdef";
const CREATED: &str = include_str!("fixtures/checkout_session_created.json");
const COMPLETED: &str = include_str!("fixtures/checkout_session_completed.json");
const SIGNATURE: &str = include_str!("fixtures/checkout_session_completed.signature");

fn at(seconds: i64) -> OffsetDateTime {
    OffsetDateTime::from_unix_timestamp(seconds).expect("a valid instant")
}

fn stripe(api_base: &str) -> Stripe {
    Stripe::new(StripeConfig {
        secret_key: "sk_test_fixture".into(),
        webhook_secret: SECRET.into(),
        api_base: api_base.into(),
        default_success_url: "https://ledger.example/checkout/return?status=success".into(),
        default_cancel_url: "https://ledger.example/checkout/return?status=cancel".into(),
    })
}

fn request() -> CheckoutRequest {
    CheckoutRequest {
        purchase_id: "cpur_01JDQ5X6Z8K2M4N6P8R0T2V4W6".into(),
        organization_id: "org_01JDQ5X6Z8K2M4N6P8R0T2V4W7".into(),
        livemode: true,
        credits: 5000,
        price_cents: 4500,
        currency: "usd".into(),
        description: "5000 Ledger credits".into(),
        success_url: Some("https://example.com/success".into()),
        cancel_url: None,
        expires_at: at(1_767_229_200),
    }
}

/// Accepts one connection, returns its request text and answers `status` with `body`.
async fn one_shot(status: &str, body: &'static str) -> (String, tokio::task::JoinHandle<String>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let status = status.to_owned();
    let task = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.expect("accept");
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            let n = socket.read(&mut buf).await.expect("read");
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&seen).into_owned();
            if let Some(end) = text.find("\r\n\r\n") {
                let length = text[..end]
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                    })
                    .unwrap_or(0);
                if seen.len() >= end + 4 + length {
                    break;
                }
            }
        }
        let answer = format!(
            "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        socket.write_all(answer.as_bytes()).await.expect("write");
        String::from_utf8_lossy(&seen).into_owned()
    });
    (base, task)
}

#[tokio::test]
async fn checkout_session_request_has_stripes_shape() {
    let (base, server) = one_shot("200 OK", CREATED).await;
    let session = stripe(&base)
        .create_checkout(request())
        .await
        .expect("a session");
    assert!(session.session_id.starts_with("cs_test_"));
    assert!(session.url.starts_with("https://checkout.stripe.com/"));
    let seen = server.await.expect("server");
    let (head, body) = seen.split_once("\r\n\r\n").expect("a request");
    let head = head.to_ascii_lowercase();
    assert!(
        head.starts_with("post /v1/checkout/sessions http/1.1"),
        "{head}"
    );
    assert!(
        head.contains("authorization: bearer sk_test_fixture"),
        "{head}"
    );
    assert!(
        head.contains("content-type: application/x-www-form-urlencoded"),
        "{head}"
    );
    assert!(
        head.contains("idempotency-key: cpur_01jdq5x6z8k2m4n6p8r0t2v4w6"),
        "{head}"
    );
    for field in [
        "mode=payment",
        "client_reference_id=cpur_01JDQ5X6Z8K2M4N6P8R0T2V4W6",
        "success_url=https%3A%2F%2Fexample.com%2Fsuccess",
        "cancel_url=https%3A%2F%2Fledger.example%2Fcheckout%2Freturn%3Fstatus%3Dcancel",
        "expires_at=1767229200",
        "line_items%5B0%5D%5Bquantity%5D=1",
        "line_items%5B0%5D%5Bprice_data%5D%5Bcurrency%5D=usd",
        "line_items%5B0%5D%5Bprice_data%5D%5Bunit_amount%5D=4500",
        "line_items%5B0%5D%5Bprice_data%5D%5Bproduct_data%5D%5Bname%5D=5000+Ledger+credits",
        "metadata%5Bpurchase_id%5D=cpur_01JDQ5X6Z8K2M4N6P8R0T2V4W6",
        "metadata%5Borganization_id%5D=org_01JDQ5X6Z8K2M4N6P8R0T2V4W7",
        "metadata%5Bcredits%5D=5000",
    ] {
        assert!(body.split('&').any(|f| f == field), "{field} in {body}");
    }
}

#[tokio::test]
async fn a_refusal_of_stripe_is_service_unavailable() {
    let (base, server) = one_shot(
        "400 Bad Request",
        r#"{"error":{"type":"invalid_request_error","message":"No such price"}}"#,
    )
    .await;
    let err = stripe(&base)
        .create_checkout(request())
        .await
        .expect_err("refused");
    assert_eq!(err.code().as_str(), "service_unavailable");
    server.await.expect("server");
}

#[test]
fn the_recorded_webhook_verifies_and_confirms_the_payment() {
    let provider = stripe("http://127.0.0.1:9");
    let confirmation = provider
        .verify_notification(Some(SIGNATURE), COMPLETED.as_bytes(), at(1_767_225_910))
        .expect("verified")
        .expect("a paid session");
    assert_eq!(confirmation.purchase_id, "cpur_01JDQ5X6Z8K2M4N6P8R0T2V4W6");
    assert_eq!(
        confirmation.organization_id,
        "org_01JDQ5X6Z8K2M4N6P8R0T2V4W7"
    );
    assert_eq!(confirmation.amount_cents, 4500);
    assert_eq!(confirmation.currency, "usd");
    assert!(confirmation.session_id.starts_with("cs_test_"));
    // The helper that signs test payloads computes the recorded header.
    assert_eq!(
        signature_header(SECRET, 1_767_225_905, COMPLETED.as_bytes()),
        SIGNATURE
    );
}

#[test]
fn tampered_stale_or_unsigned_webhooks_are_refused() {
    let provider = stripe("http://127.0.0.1:9");
    let now = at(1_767_225_910);
    let tampered = COMPLETED.replace("4500", "450000");
    for (header, payload, when) in [
        (Some(SIGNATURE), tampered.as_str(), now),
        (Some(SIGNATURE), COMPLETED, at(1_767_225_905 + 301)),
        (None, COMPLETED, now),
        (Some("t=1767225905"), COMPLETED, now),
        (Some("v1=00"), COMPLETED, now),
        (
            Some(
                "t=1767225905,v1=f62523678f0d9858b853193143de021e1122082d060cb31e298d5b4e1fe9ac5e",
            ),
            COMPLETED,
            now,
        ),
    ] {
        let err = provider
            .verify_notification(header, payload.as_bytes(), when)
            .expect_err("refused");
        assert_eq!(err.code().as_str(), "invalid_field", "{header:?}");
    }
    // Another secret does not verify either.
    assert!(verify_signature("whsec_other", Some(SIGNATURE), COMPLETED.as_bytes(), now).is_err());
    // Several v1 signatures (a secret being rolled): one match is enough.
    let rolled = format!("{SIGNATURE},v1=00ff");
    assert!(verify_signature(SECRET, Some(&rolled), COMPLETED.as_bytes(), now).is_ok());
}

#[test]
fn other_events_and_unpaid_sessions_confirm_nothing() {
    let provider = stripe("http://127.0.0.1:9");
    let now = at(1_767_225_910);
    for payload in [
        COMPLETED.replace("checkout.session.completed", "checkout.session.expired"),
        COMPLETED.replace(
            "\"payment_status\": \"paid\"",
            "\"payment_status\": \"unpaid\"",
        ),
    ] {
        let header = signature_header(SECRET, 1_767_225_905, payload.as_bytes());
        assert_eq!(
            provider
                .verify_notification(Some(&header), payload.as_bytes(), now)
                .expect("verified"),
            None
        );
    }
    let header = signature_header(SECRET, 1_767_225_905, b"not json");
    let err = provider
        .verify_notification(Some(&header), b"not json", now)
        .expect_err("not an event");
    assert_eq!(err.code().as_str(), "invalid_json");
}
