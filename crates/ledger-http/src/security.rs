//! Security headers on every response (issue: security review of the HTML pages).
//!
//! Every answer carries `X-Content-Type-Options: nosniff`, so no browser guesses a type
//! other than the declared one (JSON, attachments, PDFs, the playground assets). An HTML
//! page additionally gets, where its handler did not set its own: a Content-Security-Policy
//! that allows nothing but the page's own forms (`default-src 'none'`), no framing
//! (`frame-ancestors 'none'` and `X-Frame-Options: DENY`), `Referrer-Policy: no-referrer`
//! (sign-in links carry one-time tokens) and `Cross-Origin-Opener-Policy: same-origin`.
//! Pages that need more (the playgrounds load their scripts from this origin) set their
//! own policy, which this layer leaves alone.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderMap, HeaderName, HeaderValue};

/// The policy of an HTML page whose handler set none: its own styles inline, forms
/// posting to this origin, nothing else.
pub const DEFAULT_HTML_CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; \
    img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

fn set_if_absent(headers: &mut HeaderMap, name: HeaderName, value: &'static str) {
    if !headers.contains_key(&name) {
        headers.insert(name, HeaderValue::from_static(value));
    }
}

/// Whether the response is an HTML document.
fn is_html(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("text/html"))
}

/// Adds the headers to a response (see the module documentation).
pub fn apply(headers: &mut HeaderMap) {
    set_if_absent(headers, header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    if is_html(headers) {
        set_if_absent(headers, header::CONTENT_SECURITY_POLICY, DEFAULT_HTML_CSP);
        set_if_absent(headers, header::X_FRAME_OPTIONS, "DENY");
        set_if_absent(headers, header::REFERRER_POLICY, "no-referrer");
        set_if_absent(
            headers,
            HeaderName::from_static("cross-origin-opener-policy"),
            "same-origin",
        );
    }
}

/// Middleware body: [`apply`] to every response. (Refusals of the layers inside are
/// responses too; an `Err` passing through is rendered by actix after every layer.)
pub async fn security_headers<B: MessageBody>(
    req: ServiceRequest,
    next: actix_web::middleware::Next<B>,
) -> Result<ServiceResponse<B>, actix_web::Error> {
    let mut res = next.call(req).await?;
    apply(res.headers_mut());
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_gets_the_page_headers_json_only_nosniff() {
        let mut html = HeaderMap::new();
        html.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/html; charset=utf-8"),
        );
        apply(&mut html);
        assert_eq!(html.get(header::X_CONTENT_TYPE_OPTIONS).unwrap(), "nosniff");
        assert_eq!(html.get(header::X_FRAME_OPTIONS).unwrap(), "DENY");
        assert_eq!(
            html.get(header::CONTENT_SECURITY_POLICY).unwrap(),
            DEFAULT_HTML_CSP
        );
        assert_eq!(html.get(header::REFERRER_POLICY).unwrap(), "no-referrer");

        let mut json = HeaderMap::new();
        json.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        apply(&mut json);
        assert_eq!(json.get(header::X_CONTENT_TYPE_OPTIONS).unwrap(), "nosniff");
        assert!(!json.contains_key(header::CONTENT_SECURITY_POLICY));
        assert!(!json.contains_key(header::X_FRAME_OPTIONS));
    }

    #[test]
    fn a_page_keeps_its_own_policy() {
        let mut html = HeaderMap::new();
        html.insert(header::CONTENT_TYPE, HeaderValue::from_static("TEXT/HTML"));
        html.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static("default-src 'self'; frame-ancestors 'none'"),
        );
        apply(&mut html);
        assert_eq!(
            html.get(header::CONTENT_SECURITY_POLICY).unwrap(),
            "default-src 'self'; frame-ancestors 'none'"
        );
        assert_eq!(html.get(header::X_FRAME_OPTIONS).unwrap(), "DENY");
    }
}
