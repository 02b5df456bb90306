//! `ledger-webhooks`: the webhook transport adapter (the domain's
//! [`WebhookTransport`] port).
//!
//! - Signing per Standard Webhooks: `webhook-id`, `webhook-timestamp` and
//!   `webhook-signature: v1,<base64 HMAC-SHA256(key, "{id}.{timestamp}.{body}")>`, the key
//!   being the base64-decoded part of the `whsec_` secret ([`sign`], [`verify`]).
//! - The SSRF guard: unless private targets are allowed, a host written as an address
//!   must be public, and a name is resolved by [`GuardedResolver`], which refuses the
//!   whole name when any address it resolves to is not public
//!   ([`ledger_domain::webhooks::is_public_address`]). reqwest connects only to the
//!   addresses the resolver returned, so a name cannot re-resolve to a private address
//!   between the check and the connection. Redirects are not followed and no proxy is
//!   used (both would bypass the check).
//! - One attempt never fails as a call: a timeout, a refused address or a connection
//!   error is a failed [`SendResult`] with the reason.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Instant;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use ledger_domain::StoreError;
use ledger_domain::ports::{BoxFuture, OutgoingWebhook, StoreResult, WebhookTransport};
use ledger_domain::webhooks::{SECRET_PREFIX, SendResult, is_public_address, snippet};
use ring::hmac;
use ring::rand::{SecureRandom, SystemRandom};

/// Random key bytes of a new secret (Standard Webhooks asks for 24 to 64).
const SECRET_BYTES: usize = 32;

/// The most bytes of a receiver's body read (the log keeps a shorter excerpt).
const BODY_READ_LIMIT: usize = 4096;

/// Why a signature cannot be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadSecret;

impl std::fmt::Display for BadSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the webhook secret is not whsec_ followed by base64")
    }
}

impl std::error::Error for BadSecret {}

fn key_of(secret: &str) -> Result<hmac::Key, BadSecret> {
    let encoded = secret.strip_prefix(SECRET_PREFIX).unwrap_or(secret);
    let bytes = STANDARD.decode(encoded).map_err(|_| BadSecret)?;
    if bytes.is_empty() {
        return Err(BadSecret);
    }
    Ok(hmac::Key::new(hmac::HMAC_SHA256, &bytes))
}

/// The `webhook-signature` value of a message: `v1,` and the base64 HMAC-SHA256 of
/// `{id}.{timestamp}.{body}` under the secret's key bytes.
///
/// # Errors
/// [`BadSecret`] when the secret is not `whsec_` and base64.
pub fn sign(secret: &str, id: &str, timestamp: i64, body: &str) -> Result<String, BadSecret> {
    let key = key_of(secret)?;
    let tag = hmac::sign(&key, format!("{id}.{timestamp}.{body}").as_bytes());
    Ok(format!("v1,{}", STANDARD.encode(tag.as_ref())))
}

/// Whether one of the space-separated `v1,` signatures of `header` is the message's
/// (compared in constant time).
pub fn verify(secret: &str, id: &str, timestamp: i64, body: &str, header: &str) -> bool {
    let Ok(key) = key_of(secret) else {
        return false;
    };
    let message = format!("{id}.{timestamp}.{body}");
    header.split(' ').any(|part| {
        part.strip_prefix("v1,")
            .and_then(|sig| STANDARD.decode(sig).ok())
            .is_some_and(|tag| hmac::verify(&key, message.as_bytes(), &tag).is_ok())
    })
}

/// A new secret: `whsec_` and the base64 of 32 random bytes.
///
/// # Errors
/// `Internal` when the system random source fails.
pub fn new_secret() -> StoreResult<String> {
    let mut bytes = [0u8; SECRET_BYTES];
    SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| StoreError::internal("system random source failed"))?;
    Ok(format!("{SECRET_PREFIX}{}", STANDARD.encode(bytes)))
}

/// A resolver that refuses a name when any of its addresses is not public.
#[derive(Debug, Clone, Copy, Default)]
pub struct GuardedResolver;

/// The refusal of a non-public address (its text names the address).
#[derive(Debug)]
struct Refused(String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if let Some(bad) = addrs.iter().find(|a| !is_public_address(a.ip())) {
                return Err(Box::new(Refused(format!(
                    "refused: {host} resolves to the non-public address {}",
                    bad.ip()
                )))
                    as Box<dyn std::error::Error + Send + Sync>);
            }
            if addrs.is_empty() {
                return Err(Box::new(Refused(format!("{host} resolves to no address")))
                    as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(addrs.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// The HTTP transport: a guarded client and, for development and tests, an unguarded
/// one (used only when the policy allows private targets).
#[derive(Debug, Clone)]
pub struct HttpWebhookTransport {
    guarded: reqwest::Client,
    open: reqwest::Client,
}

impl HttpWebhookTransport {
    /// Both clients: no redirects, no proxy, identifying user agent.
    ///
    /// # Errors
    /// When the TLS backend cannot be initialised.
    pub fn new() -> Result<Self, reqwest::Error> {
        let builder = || {
            reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .no_proxy()
                .user_agent(concat!("ledger-webhooks/", env!("CARGO_PKG_VERSION")))
        };
        Ok(Self {
            guarded: builder().dns_resolver(Arc::new(GuardedResolver)).build()?,
            open: builder().build()?,
        })
    }
}

/// The full text of an error and its causes.
fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn failed(error: String, started: Instant) -> SendResult {
    SendResult {
        status_code: None,
        error: Some(error),
        response_snippet: None,
        duration_ms: elapsed_ms(started),
    }
}

fn elapsed_ms(started: Instant) -> i64 {
    i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX)
}

impl HttpWebhookTransport {
    async fn deliver(&self, webhook: OutgoingWebhook) -> SendResult {
        let started = Instant::now();
        let url = match url::Url::parse(&webhook.url) {
            Ok(url) => url,
            Err(e) => return failed(format!("invalid URL: {e}"), started),
        };
        if !webhook.allow_private {
            let literal: Option<IpAddr> = match url.host() {
                Some(url::Host::Ipv4(ip)) => Some(ip.into()),
                Some(url::Host::Ipv6(ip)) => Some(ip.into()),
                _ => None,
            };
            // A literal address never reaches the resolver: check it here.
            if let Some(ip) = literal.filter(|ip| !is_public_address(*ip)) {
                return failed(format!("refused: {ip} is not a public address"), started);
            }
        }
        let signature = match sign(
            &webhook.secret,
            &webhook.message_id,
            webhook.timestamp,
            &webhook.body,
        ) {
            Ok(signature) => signature,
            Err(e) => return failed(e.to_string(), started),
        };
        let client = if webhook.allow_private {
            &self.open
        } else {
            &self.guarded
        };
        let sent = client
            .post(url)
            .timeout(webhook.timeout)
            .header("content-type", "application/json")
            .header("webhook-id", &webhook.message_id)
            .header("webhook-timestamp", webhook.timestamp.to_string())
            .header("webhook-signature", signature)
            .body(webhook.body)
            .send()
            .await;
        let mut response = match sent {
            Ok(response) => response,
            Err(e) if e.is_timeout() => {
                return failed(format!("timed out after {:?}", webhook.timeout), started);
            }
            Err(e) => return failed(chain(&e), started),
        };
        let status = response.status().as_u16();
        let mut body = Vec::new();
        while body.len() < BODY_READ_LIMIT {
            match response.chunk().await {
                Ok(Some(chunk)) => body.extend_from_slice(&chunk),
                // The status is what counts; an unreadable body only shortens the excerpt.
                Ok(None) | Err(_) => break,
            }
        }
        SendResult {
            status_code: Some(status),
            error: None,
            response_snippet: snippet(&String::from_utf8_lossy(&body)),
            duration_ms: elapsed_ms(started),
        }
    }
}

impl WebhookTransport for HttpWebhookTransport {
    fn new_secret(&self) -> StoreResult<String> {
        new_secret()
    }

    fn send(&self, webhook: OutgoingWebhook) -> BoxFuture<'_, SendResult> {
        Box::pin(self.deliver(webhook))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of the Standard Webhooks specification's test vectors.
    #[test]
    fn signatures_match_the_standard_webhooks_example() {
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let id = "msg_p5jXN8AQM9LWM0D4loKWxJek";
        let body = r#"{"test": 2432232314}"#;
        let signature = sign(secret, id, 1614265330, body).expect("sign");
        assert_eq!(signature, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
        assert!(verify(
            secret,
            id,
            1614265330,
            body,
            &format!("v1,bad {signature}")
        ));
        assert!(!verify(secret, id, 1614265331, body, &signature));
    }

    #[tokio::test]
    async fn names_resolving_to_loopback_are_refused() {
        use reqwest::dns::Resolve;
        let name: reqwest::dns::Name = "localhost".parse().expect("name");
        let refused = GuardedResolver.resolve(name).await.err().expect("refused");
        assert!(
            refused.to_string().contains("refused: localhost"),
            "{refused}"
        );
    }

    #[tokio::test]
    async fn private_literals_are_refused_without_a_request() {
        let transport = HttpWebhookTransport::new().expect("client");
        for url in [
            "http://127.0.0.1:9/",
            "http://10.0.0.1/",
            "http://169.254.169.254/",
        ] {
            let result = transport
                .deliver(OutgoingWebhook {
                    url: url.to_owned(),
                    message_id: "evt_1".into(),
                    timestamp: 1,
                    body: "{}".into(),
                    secret: new_secret().expect("secret"),
                    timeout: std::time::Duration::from_secs(1),
                    allow_private: false,
                })
                .await;
            assert!(
                result
                    .error
                    .as_deref()
                    .is_some_and(|e| e.starts_with("refused")),
                "{url}: {result:?}"
            );
            assert_eq!(result.status_code, None);
        }
    }

    #[test]
    fn secrets_are_prefixed_base64_of_32_bytes() {
        let secret = new_secret().expect("secret");
        let encoded = secret.strip_prefix("whsec_").expect("prefix");
        assert_eq!(STANDARD.decode(encoded).expect("base64").len(), 32);
        assert_ne!(secret, new_secret().expect("another"));
    }
}
