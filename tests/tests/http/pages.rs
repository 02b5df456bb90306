//! The HTML pages the server serves (the two playgrounds, sign-in and the OAuth error,
//! confirmation and consent pages) and their assets: security headers (issue 21 item 5),
//! content types and cache headers; `nosniff` on JSON and plain answers too. The pages
//! driven in a real browser are in `pages/browser.rs`.

use ledger_tests::{TestApp, both};
use reqwest::StatusCode;
use reqwest::header::HeaderMap;

mod browser;

/// The directives of a Content-Security-Policy, by name.
fn directive<'a>(csp: &'a str, name: &str) -> Option<&'a str> {
    csp.split(';')
        .map(str::trim)
        .find(|d| d.split_whitespace().next() == Some(name))
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> &'a str {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_else(|| panic!("no {name} in {headers:?}"))
}

/// What every HTML page must carry.
fn assert_page_headers(path: &str, headers: &HeaderMap) {
    assert!(
        header(headers, "content-type").starts_with("text/html"),
        "{path}"
    );
    assert_eq!(
        header(headers, "x-content-type-options"),
        "nosniff",
        "{path}"
    );
    assert_eq!(header(headers, "x-frame-options"), "DENY", "{path}");
    assert_eq!(header(headers, "referrer-policy"), "no-referrer", "{path}");
    let csp = header(headers, "content-security-policy");
    assert_eq!(
        directive(csp, "frame-ancestors"),
        Some("frame-ancestors 'none'"),
        "{path}: {csp}"
    );
    assert!(
        directive(csp, "default-src") == Some("default-src 'none'"),
        "{path}: everything not listed is refused: {csp}"
    );
    // Scripts: none, or this origin's files only; never inline or evaluated.
    if let Some(script) = directive(csp, "script-src") {
        assert_eq!(script, "script-src 'self'", "{path}: {csp}");
    }
    assert!(!csp.contains("unsafe-eval"), "{path}: {csp}");
    assert!(
        !csp.contains("http:") && !csp.contains("https:"),
        "{path}: {csp}"
    );
}

/// The `src`/`href` values of a page.
fn references(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in ["src=\"", "href=\""] {
        for part in html.split(attr).skip(1) {
            out.push(part[..part.find('"').expect("closing quote")].to_owned());
        }
    }
    out
}

async fn html_pages_carry_the_security_headers(app: &TestApp) {
    let pages = [
        ("/graphql/playground", StatusCode::OK),
        ("/api/playground", StatusCode::OK),
        // The authorization error page (no client) and the sign-in link's page.
        ("/authorize", StatusCode::BAD_REQUEST),
        ("/signin/verify?token=anything", StatusCode::OK),
    ];
    for (path, status) in pages {
        let res = app.fetch(path).await;
        assert_eq!(res.status(), status, "{path}");
        assert_page_headers(path, res.headers());
    }
    // The playgrounds load scripts, from this origin only, and nothing inline.
    for path in ["/graphql/playground", "/api/playground"] {
        let res = app.fetch(path).await;
        let csp = header(res.headers(), "content-security-policy").to_owned();
        assert_eq!(directive(&csp, "script-src"), Some("script-src 'self'"));
        assert_eq!(directive(&csp, "connect-src"), Some("connect-src 'self'"));
        let html = res.text().await.expect("html");
        assert!(!html.contains("<script>"), "{path}: inline script");
        let refs = references(&html);
        assert!(refs.iter().any(|r| r.ends_with(".js")), "{path}: {refs:?}");
        for r in refs {
            let same_origin = r.starts_with('/') && !r.starts_with("//");
            assert!(same_origin || r == "data:,", "{path}: {r}");
        }
    }
}
both!(html_pages_carry_the_security_headers);

/// Every script and stylesheet the playgrounds name is served by the binary with its
/// content type; the vendored ones (versioned names) are cached for a year, ours
/// revalidated by `ETag`.
async fn playground_assets_are_served_from_the_binary(app: &TestApp) {
    let mut seen = 0;
    for page in ["/graphql/playground", "/api/playground"] {
        let html = app.fetch(page).await.text().await.expect("html");
        for r in references(&html)
            .into_iter()
            .filter(|r| r.starts_with("/playground/assets/"))
        {
            let res = app.fetch(&r).await;
            assert_eq!(res.status(), StatusCode::OK, "{r}");
            let headers = res.headers().clone();
            let expected = if r.ends_with(".js") {
                "text/javascript; charset=utf-8"
            } else {
                "text/css; charset=utf-8"
            };
            assert_eq!(header(&headers, "content-type"), expected, "{r}");
            assert_eq!(header(&headers, "x-content-type-options"), "nosniff");
            let vendored = r.contains("-18.3.1") || r.contains("-4.1.2") || r.contains("-5.35.0");
            let cache = header(&headers, "cache-control");
            if vendored {
                assert_eq!(cache, "public, max-age=31536000, immutable", "{r}");
            } else {
                assert_eq!(cache, "public, no-cache", "{r}");
            }
            let etag = header(&headers, "etag").to_owned();
            assert!(!res.bytes().await.expect("body").is_empty(), "{r}");
            let again = app
                .client
                .get(format!("{}{r}", app.base))
                .header("if-none-match", &etag)
                .send()
                .await
                .expect("asset");
            assert_eq!(again.status(), StatusCode::NOT_MODIFIED, "{r}");
            assert_eq!(header(again.headers(), "etag"), etag);
            seen += 1;
        }
    }
    assert!(seen >= 8, "the pages name {seen} assets");
    // The license files travel with the bundles.
    let res = app
        .client
        .get(format!(
            "{}/playground/assets/graphiql-4.1.2.LICENSE.txt",
            app.base
        ))
        .send()
        .await
        .expect("license");
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.text().await.expect("text").contains("MIT"));
    // Any other name is not found, and not guessed at.
    for name in ["nope.js", "..%2Fsrc%2Flib.rs", "graphiql-4.1.2.min.js.map"] {
        let res = app.fetch(&format!("/playground/assets/{name}")).await;
        assert_eq!(res.status(), StatusCode::NOT_FOUND, "{name}");
        assert_eq!(header(res.headers(), "x-content-type-options"), "nosniff");
    }
}
both!(playground_assets_are_served_from_the_binary);

/// JSON and plain-text answers say `nosniff` too: successes, refusals and unknown paths.
async fn api_answers_say_nosniff(app: &TestApp) {
    let org = app.signup("Nosniff Co").await;
    let ok = app.get(&org.test_key, &org.path("accounts")).await;
    assert_eq!(ok.status, StatusCode::OK);
    let refused = app
        .call(reqwest::Method::GET, &org.path("accounts"), None, None, &[])
        .await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
    let unknown = app.get(&org.test_key, "/no/such/path").await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    for answer in [&ok, &refused, &unknown] {
        assert_eq!(
            header(&answer.headers, "x-content-type-options"),
            "nosniff",
            "{}",
            answer.status
        );
        assert!(
            !answer.headers.contains_key("x-frame-options"),
            "page headers are for pages"
        );
    }
    let health = app.fetch("/health").await;
    assert_eq!(
        header(health.headers(), "x-content-type-options"),
        "nosniff"
    );
}
both!(api_answers_say_nosniff);
