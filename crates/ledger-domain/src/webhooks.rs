//! Webhooks (DECISIONS 9): endpoints an organization registers, the deliveries of its
//! events to them, and the pure policy of delivery: which events an endpoint wants, the
//! retry schedule (exponential backoff with jitter), when a delivery is given up, when a
//! failure streak disables an endpoint, and which addresses may never be delivered to
//! (the SSRF guard's rule; resolving names is the adapter's business).
//!
//! The events table is the outbox: a change and its event commit together, and a fan-out
//! step turns each event into one delivery per endpoint that wants it (idempotently:
//! one delivery per endpoint and event). Deliveries of one entity reach one endpoint in
//! the events' order: a later one is not attempted while an earlier one is pending.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use sha2::{Digest, Sha256};
use time::OffsetDateTime;

use crate::error::DomainError;
pub use crate::urls::{is_host_name, is_portable_http_url};

/// The prefix of an endpoint's signing secret (Standard Webhooks).
pub const SECRET_PREFIX: &str = "whsec_";

/// The longest endpoint URL kept.
pub const MAX_URL_CHARS: usize = 2048;

/// The longest description kept.
pub const MAX_DESCRIPTION_CHARS: usize = 500;

/// The most event kinds one endpoint lists.
pub const MAX_EVENT_TYPES: usize = 100;

/// The longest response body excerpt kept per attempt, in characters.
pub const RESPONSE_SNIPPET_CHARS: usize = 500;

/// Entity types whose events are never delivered: changes to the webhooks themselves.
const NOT_DELIVERED: [&str; 2] = ["webhook_endpoint", "webhook_delivery"];

/// A registered receiver of an organization's events (of one mode).
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookEndpoint {
    pub id: String,
    pub organization_id: String,
    pub livemode: bool,
    pub url: String,
    pub description: Option<String>,
    /// The event kinds delivered; empty means every kind.
    pub event_types: Vec<String>,
    pub enabled: bool,
    /// Why a disabled endpoint is disabled: `manual` or `failure_streak`.
    pub disabled_reason: Option<String>,
    /// `whsec_` + base64 of the key bytes; shown at creation and rotation only.
    pub secret: String,
    /// Consecutive failed attempts (reset by a success).
    pub failure_streak: i64,
    /// Every event created at or before this instant has been fanned out to it.
    pub fanned_out_until: OffsetDateTime,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

// By hand, so a logged endpoint never prints its secret.
impl std::fmt::Debug for WebhookEndpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookEndpoint")
            .field("id", &self.id)
            .field("organization_id", &self.organization_id)
            .field("livemode", &self.livemode)
            .field("url", &self.url)
            .field("event_types", &self.event_types)
            .field("enabled", &self.enabled)
            .field("failure_streak", &self.failure_streak)
            .finish_non_exhaustive()
    }
}

impl WebhookEndpoint {
    /// Whether events of `event_type` about `entity_type` go to this endpoint.
    pub fn wants(&self, event_type: &str, entity_type: &str) -> bool {
        if NOT_DELIVERED.contains(&entity_type) {
            return false;
        }
        self.event_types.is_empty() || self.event_types.iter().any(|t| t == event_type)
    }
}

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeliveryStatus {
    /// Waiting for its (next) attempt, or being attempted.
    Pending,
    /// The receiver answered 2xx.
    Delivered,
    /// Given up after the last allowed attempt (a replay makes it pending again).
    Failed,
}

impl DeliveryStatus {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Delivered => "delivered",
            Self::Failed => "failed",
        }
    }

    /// Parses a lowercase name.
    pub fn parse(text: &str) -> Option<Self> {
        [Self::Pending, Self::Delivered, Self::Failed]
            .into_iter()
            .find(|s| s.as_str() == text)
    }
}

/// One event on its way to one endpoint.
#[derive(Debug, Clone, PartialEq)]
pub struct WebhookDelivery {
    pub id: String,
    pub organization_id: String,
    pub livemode: bool,
    pub endpoint_id: String,
    pub event_id: String,
    pub event_type: String,
    pub entity_type: String,
    pub entity_id: String,
    /// When the event was recorded: with `event_id`, the order within an entity.
    pub event_created_at: OffsetDateTime,
    /// The exact body sent (kept, so retries and replays send the same bytes).
    pub payload: String,
    pub status: DeliveryStatus,
    /// Attempts started (a claim counts one).
    pub attempts: i64,
    pub next_attempt_at: OffsetDateTime,
    /// While an attempt runs: when another worker may take the delivery over.
    pub locked_until: Option<OffsetDateTime>,
    pub last_status_code: Option<i64>,
    pub last_error: Option<String>,
    pub delivered_at: Option<OffsetDateTime>,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

/// One attempt of a delivery, for the delivery log.
#[derive(Debug, Clone, PartialEq)]
pub struct WebhookAttempt {
    pub id: String,
    pub organization_id: String,
    pub livemode: bool,
    pub delivery_id: String,
    /// 1 for the first attempt.
    pub attempt: i64,
    pub started_at: OffsetDateTime,
    pub duration_ms: i64,
    /// The receiver's status, when it answered.
    pub status_code: Option<i64>,
    /// Why no answer counted: a timeout, a refused address, a connection error.
    pub error: Option<String>,
    /// The start of the receiver's body.
    pub response_snippet: Option<String>,
}

/// What the transport saw of one attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SendResult {
    pub status_code: Option<u16>,
    pub error: Option<String>,
    pub response_snippet: Option<String>,
    pub duration_ms: i64,
}

impl SendResult {
    /// Whether the receiver acknowledged the delivery (2xx).
    pub fn succeeded(&self) -> bool {
        self.error.is_none() && self.status_code.is_some_and(|s| (200..300).contains(&s))
    }
}

/// The tunables of delivery (see `docs/decisions.md`, "Webhooks").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookPolicy {
    /// Delay before the second attempt; each further one doubles it.
    pub backoff_base: std::time::Duration,
    /// The longest delay between two attempts.
    pub backoff_cap: std::time::Duration,
    /// Attempts of one delivery before it is given up (`failed`).
    pub max_attempts: i64,
    /// Consecutive failed attempts to one endpoint that disable it.
    pub disable_after: i64,
    /// How long the transport waits for a receiver.
    pub timeout: std::time::Duration,
    /// How old an event must be before it is fanned out, so that a transaction that
    /// recorded an earlier event and commits a little later is not overtaken.
    pub settle: std::time::Duration,
    /// Whether loopback, private, link-local and other non-public addresses may be
    /// delivered to (development and tests only; never in production).
    pub allow_private: bool,
    /// Deliveries one worker pass claims at most.
    pub batch: i64,
}

impl Default for WebhookPolicy {
    fn default() -> Self {
        Self {
            backoff_base: std::time::Duration::from_secs(30),
            backoff_cap: std::time::Duration::from_secs(6 * 60 * 60),
            max_attempts: 12,
            disable_after: 100,
            timeout: std::time::Duration::from_secs(10),
            settle: std::time::Duration::from_secs(2),
            allow_private: false,
            batch: 16,
        }
    }
}

impl WebhookPolicy {
    /// The delay after failed attempt number `attempt` (1-based) of `delivery_id`:
    /// `backoff_base * 2^(attempt-1)`, capped at `backoff_cap`, of which a pseudo-random
    /// share between 50 % and 100 % is kept ("equal jitter"). The share comes from a
    /// hash of the delivery and the attempt, so deliveries failing together spread out
    /// and a schedule replays exactly.
    pub fn retry_delay(&self, delivery_id: &str, attempt: i64) -> time::Duration {
        let exponent = u32::try_from(attempt.saturating_sub(1).clamp(0, 30)).unwrap_or(30);
        let base = self.backoff_base.as_millis().min(u128::from(u64::MAX)) as u64;
        let cap = self.backoff_cap.as_millis().min(u128::from(u64::MAX)) as u64;
        let full = base.saturating_mul(1u64 << exponent).min(cap);
        let digest = Sha256::digest(format!("{delivery_id}:{attempt}").as_bytes());
        let share = u64::from(u16::from_be_bytes([digest[0], digest[1]])); // 0..=65535
        let kept = full / 2 + (full / 2).saturating_mul(share) / 65_535;
        time::Duration::milliseconds(i64::try_from(kept).unwrap_or(i64::MAX))
    }

    /// How a failed attempt number `attempt` leaves its delivery: retried at the
    /// returned instant, or given up (`None`) after the last allowed attempt.
    pub fn next_attempt(
        &self,
        delivery_id: &str,
        attempt: i64,
        now: OffsetDateTime,
    ) -> Option<OffsetDateTime> {
        (attempt < self.max_attempts).then(|| now + self.retry_delay(delivery_id, attempt))
    }
}

/// Whether `ip` is a public unicast address a webhook may be delivered to: not
/// loopback, private (RFC 1918, unique local), link-local (cloud metadata lives at
/// 169.254.169.254), shared (100.64/10), unspecified, broadcast, multicast,
/// documentation or reserved; IPv4 inside IPv6 (mapped, NAT64) is judged as IPv4.
pub fn is_public_address(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    let reserved = ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT)
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 198 && (18..20).contains(&b)) // benchmarking
        || a >= 240; // reserved
    !reserved
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_public_v4(v4);
    }
    let s = ip.segments();
    if s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0, 0, 0, 0] {
        // NAT64: the IPv4 address in the last 32 bits.
        let v4 = Ipv4Addr::new(
            (s[6] >> 8) as u8,
            (s[6] & 0xff) as u8,
            (s[7] >> 8) as u8,
            (s[7] & 0xff) as u8,
        );
        return is_public_v4(v4);
    }
    let reserved = ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_multicast()
        || ip.is_unique_local()
        || ip.is_unicast_link_local()
        || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation
        || (s[0] == 0 && s[1] == 0 && s[2..6] == [0, 0, 0, 0]); // compatible and reserved
    !reserved
}

/// Checks an endpoint URL: absolute `http` or `https`, with a host, without
/// credentials or a fragment, at most [`MAX_URL_CHARS`]; when `allow_private` is false, a
/// host written as an IP address must be public and `localhost` is refused (names are
/// checked again, resolved, at every delivery). Answers the URL as normalised.
///
/// # Errors
/// `invalid_field` on `url`.
pub fn check_url(text: &str, allow_private: bool) -> Result<String, DomainError> {
    let invalid = |why: &str| DomainError::invalid_field("url", why.to_owned());
    let text = text.trim();
    if text.is_empty() || text.chars().count() > MAX_URL_CHARS {
        return Err(invalid(
            "must be an http or https URL of 1 to 2048 characters",
        ));
    }
    let url = url::Url::parse(text).map_err(|_| invalid("is not an absolute URL"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid("must use http or https"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(invalid("must not carry credentials"));
    }
    if url.fragment().is_some() {
        return Err(invalid("must not have a fragment"));
    }
    let public = match url.host() {
        None => return Err(invalid("must name a host")),
        Some(url::Host::Ipv4(ip)) => is_public_v4(ip),
        Some(url::Host::Ipv6(ip)) => is_public_v6(ip),
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            if !is_host_name(&name) {
                return Err(invalid("must name a valid host"));
            }
            name != "localhost" && !name.ends_with(".localhost")
        }
    };
    if !public && !allow_private {
        return Err(invalid(
            "must not point at a loopback, private, link-local or otherwise non-public address",
        ));
    }
    Ok(url.to_string())
}

/// Checks an event kind filter: kinds such as `invoice.created` (lowercase letters,
/// digits and `_`, one or more dots), or `*` alone for every kind (the same as an empty
/// list). Answers the kinds sorted, without duplicates (empty: every kind).
///
/// # Errors
/// `invalid_field` on `event_types`.
pub fn check_event_types(kinds: &[String]) -> Result<Vec<String>, DomainError> {
    if kinds.len() > MAX_EVENT_TYPES {
        return Err(DomainError::invalid_field(
            "event_types",
            format!("lists more than {MAX_EVENT_TYPES} kinds"),
        ));
    }
    let mut out: Vec<String> = Vec::with_capacity(kinds.len());
    for kind in kinds {
        let kind = kind.trim();
        if kind == "*" {
            return if kinds.len() == 1 {
                Ok(Vec::new())
            } else {
                Err(DomainError::invalid_field(
                    "event_types",
                    "'*' (every kind) cannot be combined with other kinds",
                ))
            };
        }
        let well_formed = kind.contains('.')
            && kind.len() <= 100
            && kind.split('.').all(|part| {
                !part.is_empty()
                    && part
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            });
        if !well_formed {
            return Err(DomainError::invalid_field(
                "event_types",
                format!("'{kind}' is not an event kind such as 'invoice.created' (or '*')"),
            ));
        }
        out.push(kind.to_owned());
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// The body of a delivery: the event record of `/events` under Standard Webhooks'
/// `type`, `timestamp` and `data`.
pub fn payload(event: &crate::events::Event) -> String {
    serde_json::json!({
        "id": event.id,
        "type": event.event_type,
        "timestamp": crate::dates::timestamp(event.created_at),
        "data": crate::events::view(event),
    })
    .to_string()
}

/// The excerpt kept of a receiver's body.
pub fn snippet(body: &str) -> Option<String> {
    let text: String = body.chars().take(RESPONSE_SNIPPET_CHARS).collect();
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> WebhookPolicy {
        WebhookPolicy {
            backoff_base: std::time::Duration::from_secs(30),
            backoff_cap: std::time::Duration::from_secs(3600),
            max_attempts: 5,
            ..WebhookPolicy::default()
        }
    }

    #[test]
    fn backoff_doubles_up_to_the_cap_and_keeps_half_to_all_of_it() {
        let p = policy();
        for (attempt, full_secs) in [(1, 30), (2, 60), (3, 120), (8, 3600), (40, 3600)] {
            for id in ["whd_a", "whd_b", "whd_c", "whd_d"] {
                let d = p.retry_delay(id, attempt);
                let full = time::Duration::seconds(full_secs);
                assert!(d >= full / 2 && d <= full, "{id} #{attempt}: {d}");
            }
        }
        // The same delivery and attempt always wait the same; others differ.
        assert_eq!(p.retry_delay("whd_x", 3), p.retry_delay("whd_x", 3));
        let spread: std::collections::HashSet<_> = (0..20)
            .map(|i| p.retry_delay(&format!("whd_{i}"), 3))
            .collect();
        assert!(spread.len() > 10, "jitter spreads deliveries: {spread:?}");
    }

    #[test]
    fn a_delivery_is_given_up_after_its_last_attempt() {
        let p = policy();
        let now = OffsetDateTime::UNIX_EPOCH;
        assert!(p.next_attempt("whd_a", 4, now).is_some_and(|t| t > now));
        assert_eq!(p.next_attempt("whd_a", 5, now), None);
    }

    #[test]
    fn only_public_addresses_are_delivered_to() {
        for private in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "224.0.0.1",
            "::1",
            "::",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::a9fe:a9fe",
        ] {
            let ip: IpAddr = private.parse().expect("address");
            assert!(!is_public_address(ip), "{private}");
        }
        for public in [
            "93.184.216.34",
            "8.8.8.8",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
        ] {
            let ip: IpAddr = public.parse().expect("address");
            assert!(is_public_address(ip), "{public}");
        }
    }

    #[test]
    fn urls_are_checked_and_private_literals_refused_unless_allowed() {
        assert!(check_url("https://hooks.example.com/in?x=1", false).is_ok());
        assert!(check_url("https://xn--bcher-kva.example/", false).is_ok());
        assert!(check_url("https://bücher.example/", false).is_ok());
        for bad in [
            "ftp://example.com/",
            "https://user:pw@example.com/",
            "/relative",
            "https://example.com/#frag",
            "https://2.example*",
            "https://under_score.example/",
            "https://-dash.example/",
        ] {
            assert!(check_url(bad, true).is_err(), "{bad}");
        }
        for private in [
            "http://127.0.0.1:9000/",
            "http://10.0.0.5/",
            "http://169.254.169.254/latest/meta-data",
            "http://[::1]/",
            "http://localhost:8080/",
        ] {
            assert!(check_url(private, false).is_err(), "{private}");
            assert!(check_url(private, true).is_ok(), "{private}");
        }
    }

    #[test]
    fn event_kinds_are_validated_sorted_and_star_means_all() {
        let kinds = |k: &[&str]| k.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            check_event_types(&kinds(&[
                "invoice.created",
                "account.created",
                "invoice.created"
            ]))
            .expect("valid"),
            kinds(&["account.created", "invoice.created"])
        );
        assert_eq!(
            check_event_types(&kinds(&["*"])).expect("all"),
            Vec::<String>::new()
        );
        assert!(check_event_types(&kinds(&["*", "invoice.created"])).is_err());
        assert!(check_event_types(&kinds(&["Invoice.Created"])).is_err());
        assert!(check_event_types(&kinds(&["invoice"])).is_err());
    }
}
