//! Production transport security (DECISIONS 1): in production a request must arrive over
//! TLS, served natively or terminated by a trusted proxy that says so with
//! `X-Forwarded-Proto: https`. Anything else is refused before any handler runs, so a
//! plain-HTTP request is never processed. `GET /health` and `GET /ready` stay open for
//! load balancers' and orchestrators' plain-HTTP probes (they carry no key and reveal
//! nothing of a tenant).

use ledger_domain::error::ErrorCode;
use std::net::IpAddr;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::{ResponseError, web};
use ipnet::IpNet;
use ledger_domain::DomainError;

use crate::error::ApiError;

/// How requests must reach the service.
#[derive(Debug, Clone, Default)]
pub struct TransportPolicy {
    /// Refuse requests that did not come over TLS (production).
    pub require_https: bool,
    /// The listener itself serves TLS: every request on it is encrypted.
    pub native_tls: bool,
    /// Peers whose `X-Forwarded-Proto` is believed.
    pub trusted_proxies: Vec<IpNet>,
}

impl TransportPolicy {
    /// Parses a comma-separated list of addresses and networks (`10.0.0.1, 10.1.0.0/16`).
    ///
    /// # Errors
    /// The first entry that is neither an IP address nor a CIDR network.
    pub fn parse_proxies(list: &str) -> Result<Vec<IpNet>, String> {
        list.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| {
                s.parse::<IpNet>()
                    .or_else(|_| s.parse::<IpAddr>().map(IpNet::from))
                    .map_err(|_| format!("'{s}' is not an IP address or CIDR network"))
            })
            .collect()
    }

    /// Whether a request from `peer` with the given `X-Forwarded-Proto` came over TLS.
    pub fn is_secure(&self, peer: Option<IpAddr>, forwarded_proto: Option<&str>) -> bool {
        if !self.require_https || self.native_tls {
            return true;
        }
        let trusted = peer.is_some_and(|ip| self.trusted_proxies.iter().any(|n| n.contains(&ip)));
        // The proxy nearest to us appends last; only its word counts.
        let proto = forwarded_proto
            .and_then(|v| v.rsplit(',').next())
            .map(str::trim);
        trusted && proto.is_some_and(|p| p.eq_ignore_ascii_case("https"))
    }
}

/// Middleware body: refuses a request that did not come over TLS when the policy (in app
/// data) requires it.
pub async fn require_https<B: MessageBody + 'static>(
    req: ServiceRequest,
    next: actix_web::middleware::Next<B>,
) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
    let secure = match req.app_data::<web::Data<TransportPolicy>>() {
        None => true,
        Some(policy) => {
            let proto = req
                .headers()
                .get("x-forwarded-proto")
                .and_then(|v| v.to_str().ok());
            matches!(req.path(), "/health" | "/ready")
                || policy.is_secure(req.peer_addr().map(|a| a.ip()), proto)
        }
    };
    if secure {
        return Ok(next.call(req).await?.map_into_left_body());
    }
    let error = ApiError(DomainError::rule(
        ErrorCode::HttpsRequired,
        "this service accepts requests over HTTPS only",
    ));
    Ok(req
        .into_response(error.error_response())
        .map_into_right_body())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(proxies: &str) -> TransportPolicy {
        TransportPolicy {
            require_https: true,
            native_tls: false,
            trusted_proxies: TransportPolicy::parse_proxies(proxies).expect("proxies"),
        }
    }

    #[test]
    fn only_a_trusted_proxy_saying_https_is_believed() {
        let p = policy("10.0.0.1, 192.168.0.0/16");
        let proxy: IpAddr = "10.0.0.1".parse().expect("ip");
        let inner: IpAddr = "192.168.4.2".parse().expect("ip");
        let stranger: IpAddr = "203.0.113.9".parse().expect("ip");
        assert!(p.is_secure(Some(proxy), Some("https")));
        assert!(p.is_secure(Some(inner), Some("HTTPS")));
        assert!(p.is_secure(Some(proxy), Some("http, https")));
        assert!(!p.is_secure(Some(proxy), Some("https, http")));
        assert!(!p.is_secure(Some(proxy), Some("http")));
        assert!(!p.is_secure(Some(proxy), None));
        assert!(!p.is_secure(Some(stranger), Some("https")));
        assert!(!p.is_secure(None, Some("https")));
    }

    #[test]
    fn native_tls_and_development_pass() {
        let mut p = policy("");
        assert!(!p.is_secure(None, None));
        p.native_tls = true;
        assert!(p.is_secure(None, None));
        assert!(TransportPolicy::default().is_secure(None, None));
    }

    #[test]
    fn bad_proxy_lists_are_refused() {
        assert!(TransportPolicy::parse_proxies("10.0.0.1, nope").is_err());
        assert_eq!(
            TransportPolicy::parse_proxies(" ,::1").map(|v| v.len()),
            Ok(1)
        );
    }
}
