//! `ledger-payments`: payment-provider adapters of the domain's `PaymentProvider` port.
//!
//! [`Stripe`] opens Stripe Checkout sessions (`POST /v1/checkout/sessions`, form-encoded,
//! authenticated with the secret key, the purchase id as `Idempotency-Key` and
//! `client_reference_id`) and verifies Stripe's webhooks: the `Stripe-Signature` header
//! `t=<unix seconds>,v1=<hex>` where `v1` is HMAC-SHA256 keyed with the endpoint's signing
//! secret over `"{t}.{payload}"`, within a tolerance of five minutes. Only
//! `checkout.session.completed` (paid) and `checkout.session.async_payment_succeeded`
//! confirm a payment; any other genuine event is acknowledged and ignored.

use ledger_domain::DomainError;
use ledger_domain::error::ErrorCode;
use ledger_domain::ports::{
    BoxFuture, CheckoutRequest, CheckoutSession, PaymentConfirmation, PaymentProvider,
};
use ring::hmac;
use serde_json::Value;
use time::OffsetDateTime;

/// How far a webhook's timestamp may be from now (Stripe's libraries use five minutes).
pub const SIGNATURE_TOLERANCE_SECONDS: i64 = 300;

/// Keys and endpoint of a Stripe account.
#[derive(Debug, Clone)]
pub struct StripeConfig {
    /// `sk_live_...` / `sk_test_...`.
    pub secret_key: String,
    /// The webhook endpoint's signing secret, `whsec_...`.
    pub webhook_secret: String,
    /// `https://api.stripe.com` (a test points it at a local fake).
    pub api_base: String,
    /// Where the buyer returns when the client gave no URLs.
    pub default_success_url: String,
    pub default_cancel_url: String,
}

/// The Stripe adapter.
#[derive(Debug, Clone)]
pub struct Stripe {
    config: StripeConfig,
    client: reqwest::Client,
}

impl Stripe {
    pub fn new(config: StripeConfig) -> Self {
        Self {
            config,
            client: reqwest::Client::new(),
        }
    }

    /// The form fields of the session a purchase opens (Stripe's bracket notation).
    pub fn checkout_form(&self, request: &CheckoutRequest) -> Vec<(String, String)> {
        let success = request
            .success_url
            .clone()
            .unwrap_or_else(|| self.config.default_success_url.clone());
        let cancel = request
            .cancel_url
            .clone()
            .unwrap_or_else(|| self.config.default_cancel_url.clone());
        [
            ("mode", "payment".to_owned()),
            ("client_reference_id", request.purchase_id.clone()),
            ("success_url", success),
            ("cancel_url", cancel),
            (
                "expires_at",
                request.expires_at.unix_timestamp().to_string(),
            ),
            ("line_items[0][quantity]", "1".to_owned()),
            (
                "line_items[0][price_data][currency]",
                request.currency.clone(),
            ),
            (
                "line_items[0][price_data][unit_amount]",
                request.price_cents.to_string(),
            ),
            (
                "line_items[0][price_data][product_data][name]",
                request.description.clone(),
            ),
            ("metadata[purchase_id]", request.purchase_id.clone()),
            ("metadata[organization_id]", request.organization_id.clone()),
            ("metadata[credits]", request.credits.to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
    }

    async fn open(&self, request: CheckoutRequest) -> Result<CheckoutSession, DomainError> {
        let unavailable = |why: String| {
            tracing::error!(purchase = %request.purchase_id, error = %why, "Stripe checkout failed");
            DomainError::rule(
                ErrorCode::ServiceUnavailable,
                "the payment provider could not open a checkout; try again later",
            )
        };
        let body = encode_form(&self.checkout_form(&request));
        let url = format!(
            "{}/v1/checkout/sessions",
            self.config.api_base.trim_end_matches('/')
        );
        let response = self
            .client
            .post(url)
            .bearer_auth(&self.config.secret_key)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Idempotency-Key", &request.purchase_id)
            .body(body)
            .send()
            .await
            .map_err(|e| unavailable(e.to_string()))?;
        let status = response.status();
        let text = response
            .text()
            .await
            .map_err(|e| unavailable(e.to_string()))?;
        if !status.is_success() {
            return Err(unavailable(format!("HTTP {status}: {text}")));
        }
        let session: Value =
            serde_json::from_str(&text).map_err(|e| unavailable(format!("{e}: {text}")))?;
        match (session["id"].as_str(), session["url"].as_str()) {
            (Some(id), Some(url)) => Ok(CheckoutSession {
                session_id: id.to_owned(),
                url: url.to_owned(),
            }),
            _ => Err(unavailable(format!("no id or url in {text}"))),
        }
    }
}

impl PaymentProvider for Stripe {
    fn name(&self) -> &'static str {
        "stripe"
    }

    fn create_checkout(
        &self,
        request: CheckoutRequest,
    ) -> BoxFuture<'_, Result<CheckoutSession, DomainError>> {
        Box::pin(self.open(request))
    }

    fn verify_notification(
        &self,
        signature: Option<&str>,
        payload: &[u8],
        now: OffsetDateTime,
    ) -> Result<Option<PaymentConfirmation>, DomainError> {
        verify_signature(&self.config.webhook_secret, signature, payload, now)?;
        confirmation_of(payload)
    }
}

fn bad_signature(message: &str) -> DomainError {
    DomainError::invalid_field("signature", message)
}

/// Checks a `Stripe-Signature` header over `payload` at `now`.
///
/// # Errors
/// `invalid_field` (`signature`) when the header is missing or malformed, no `v1`
/// signature matches, or its timestamp is more than the tolerance away from `now`.
pub fn verify_signature(
    secret: &str,
    header: Option<&str>,
    payload: &[u8],
    now: OffsetDateTime,
) -> Result<(), DomainError> {
    let header = header.ok_or_else(|| bad_signature("the Stripe-Signature header is missing"))?;
    let mut timestamp: Option<i64> = None;
    let mut signatures: Vec<Vec<u8>> = Vec::new();
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", t)) => timestamp = t.parse().ok(),
            Some(("v1", hex)) => {
                if let Some(bytes) = from_hex(hex) {
                    signatures.push(bytes);
                }
            }
            _ => {}
        }
    }
    let timestamp =
        timestamp.ok_or_else(|| bad_signature("the Stripe-Signature header has no timestamp"))?;
    if signatures.is_empty() {
        return Err(bad_signature(
            "the Stripe-Signature header has no v1 signature",
        ));
    }
    let key = hmac::Key::new(hmac::HMAC_SHA256, secret.as_bytes());
    let mut signed = Vec::with_capacity(payload.len() + 12);
    signed.extend_from_slice(timestamp.to_string().as_bytes());
    signed.push(b'.');
    signed.extend_from_slice(payload);
    if !signatures
        .iter()
        .any(|s| hmac::verify(&key, &signed, s).is_ok())
    {
        return Err(bad_signature("no signature matches the payload"));
    }
    if (now.unix_timestamp() - timestamp).abs() > SIGNATURE_TOLERANCE_SECONDS {
        return Err(bad_signature(
            "the signature's timestamp is outside the tolerance",
        ));
    }
    Ok(())
}

/// The `Stripe-Signature` header of `payload` signed at `timestamp` (for tests and fixtures).
pub fn signature_header(secret: &str, timestamp: i64, payload: &[u8]) -> String {
    let key = hmac::Key::new(hmac::HMAC_SHA256, secret.as_bytes());
    let mut signed = timestamp.to_string().into_bytes();
    signed.push(b'.');
    signed.extend_from_slice(payload);
    let tag = hmac::sign(&key, &signed);
    format!("t={timestamp},v1={}", to_hex(tag.as_ref()))
}

/// The payment a verified event confirms, if any.
fn confirmation_of(payload: &[u8]) -> Result<Option<PaymentConfirmation>, DomainError> {
    let malformed = || {
        DomainError::validation(
            ErrorCode::InvalidJson,
            None,
            "the payload is not a Stripe event",
        )
    };
    let event: Value = serde_json::from_slice(payload).map_err(|_| malformed())?;
    let kind = event["type"].as_str().ok_or_else(malformed)?;
    let session = &event["data"]["object"];
    let paid = match kind {
        "checkout.session.completed" => session["payment_status"].as_str() == Some("paid"),
        "checkout.session.async_payment_succeeded" => true,
        _ => false,
    };
    if !paid {
        return Ok(None);
    }
    let text = |v: &Value| v.as_str().map(str::to_owned);
    let purchase_id = text(&session["client_reference_id"])
        .or_else(|| text(&session["metadata"]["purchase_id"]))
        .ok_or_else(malformed)?;
    Ok(Some(PaymentConfirmation {
        purchase_id,
        organization_id: text(&session["metadata"]["organization_id"]).ok_or_else(malformed)?,
        session_id: text(&session["id"]).ok_or_else(malformed)?,
        amount_cents: session["amount_total"].as_i64().ok_or_else(malformed)?,
        currency: text(&session["currency"]).ok_or_else(malformed)?,
    }))
}

/// `application/x-www-form-urlencoded` of `fields`.
pub fn encode_form(fields: &[(String, String)]) -> String {
    fn encode(text: &str, out: &mut String) {
        for b in text.bytes() {
            match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                    out.push(char::from(b));
                }
                b' ' => out.push('+'),
                _ => out.push_str(&format!("%{b:02X}")),
            }
        }
    }
    let mut out = String::new();
    for (i, (k, v)) in fields.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        encode(k, &mut out);
        out.push('=');
        encode(v, &mut out);
    }
    out
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn from_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_encoding_escapes_brackets_and_spaces() {
        let form = encode_form(&[
            ("line_items[0][quantity]".into(), "1".into()),
            ("name".into(), "1000 Ledger credits".into()),
        ]);
        assert_eq!(
            form,
            "line_items%5B0%5D%5Bquantity%5D=1&name=1000+Ledger+credits"
        );
    }

    #[test]
    fn hex_round_trips() {
        assert_eq!(from_hex(&to_hex(&[0, 15, 255])), Some(vec![0, 15, 255]));
        assert_eq!(from_hex("abc"), None);
        assert_eq!(from_hex("zz"), None);
    }
}
