//! `ledger-playground`: the browser explorers of the API.
//!
//! - `GET /graphql/playground` (spec 4.12): GraphiQL against `POST /graphql`.
//! - `GET /api/playground` (spec 4.11): Swagger UI over `GET /openapi.json`.
//! - `GET /playground/assets/{file}`: their scripts and styles.
//!
//! Both pages have an API-key field: the key goes out as `Authorization: Bearer <key>`
//! on the explorer's requests to this origin only (it is kept in the tab's
//! `sessionStorage`, never sent elsewhere). Every asset is compiled into the binary
//! (`include_bytes!`): the third-party bundles are vendored from the npm registry at
//! pinned versions (`assets/vendor/`, listed with their licenses in `README.md` and
//! re-fetched by `fetch-assets.sh`), so the pages load nothing from a CDN. Their file
//! names carry the version, so they are served as immutable for a year; our own page
//! scripts are revalidated by `ETag`. Each page carries a Content-Security-Policy that
//! allows scripts from this origin only (no inline script, no `eval`).
//!
//! This crate holds no business rule and calls no service: the pages talk to the API
//! over HTTP like any other client.

use std::sync::LazyLock;

use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};

/// Where the assets are served.
pub const ASSET_PREFIX: &str = "/playground/assets/";

/// A file of the pages.
struct Asset {
    name: &'static str,
    content_type: &'static str,
    bytes: &'static [u8],
    /// Vendored at a version its name carries: never changes under the same name.
    immutable: bool,
}

macro_rules! vendored {
    ($name:literal, $content_type:expr) => {
        Asset {
            name: $name,
            content_type: $content_type,
            bytes: include_bytes!(concat!("../assets/vendor/", $name)),
            immutable: true,
        }
    };
}

macro_rules! own {
    ($name:literal, $content_type:expr) => {
        Asset {
            name: $name,
            content_type: $content_type,
            bytes: include_bytes!(concat!("../assets/", $name)),
            immutable: false,
        }
    };
}

const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const TEXT: &str = "text/plain; charset=utf-8";

static ASSETS: &[Asset] = &[
    vendored!("react-18.3.1.production.min.js", JS),
    vendored!("react-dom-18.3.1.production.min.js", JS),
    vendored!("graphiql-4.1.2.min.js", JS),
    vendored!("graphiql-4.1.2.min.css", CSS),
    vendored!("swagger-ui-5.35.0.bundle.js", JS),
    vendored!("swagger-ui-5.35.0.css", CSS),
    vendored!("react-18.3.1.LICENSE.txt", TEXT),
    vendored!("react-dom-18.3.1.LICENSE.txt", TEXT),
    vendored!("graphiql-4.1.2.LICENSE.txt", TEXT),
    vendored!("swagger-ui-5.35.0.LICENSE.txt", TEXT),
    vendored!("swagger-ui-5.35.0.NOTICE.txt", TEXT),
    vendored!("swagger-ui-5.35.0.bundle.js.LICENSE.txt", TEXT),
    own!("playground.css", CSS),
    own!("key.js", JS),
    own!("graphql-playground.js", JS),
    own!("api-playground.js", JS),
];

/// The strong `ETag` of each asset (a SHA-256 prefix of its bytes), by index.
static ETAGS: LazyLock<Vec<String>> = LazyLock::new(|| {
    ASSETS
        .iter()
        .map(|a| {
            let digest = ring::digest::digest(&ring::digest::SHA256, a.bytes);
            let hex: String = digest.as_ref()[..12]
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            format!("\"{hex}\"")
        })
        .collect()
});

/// The policy of the GraphiQL page, with the response's style nonce. Scripts from this
/// origin only. Styles from this origin, plus the one `<style>` element GraphiQL's
/// dialogs insert to lock scrolling (react-remove-scroll), which carries the nonce
/// (`graphql-playground.js` hands it to the bundle as `__webpack_nonce__`). Fonts and
/// icons are `data:` URLs inside GraphiQL's stylesheet.
fn graphql_csp(style_nonce: Option<&str>) -> String {
    let nonce = style_nonce
        .map(|n| format!(" 'nonce-{n}'"))
        .unwrap_or_default();
    format!(
        "default-src 'none'; script-src 'self'; style-src 'self'{nonce}; \
         img-src 'self' data:; font-src 'self' data:; connect-src 'self'; \
         base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )
}

/// The policy of the Swagger UI page: scripts and styles from this origin only (Swagger
/// UI styles elements through the DOM, which the policy allows); its icons are `data:`
/// SVGs.
const REST_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
    img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; \
    form-action 'none'; frame-ancestors 'none'";

/// Where the GraphiQL page template takes the style nonce.
const NONCE_SLOT: &str = "{{style_nonce}}";

const GRAPHQL_PAGE: &str = include_str!("../assets/graphql-playground.html");
const REST_PAGE: &str = include_str!("../assets/api-playground.html");

/// Registers the two pages and their assets.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/graphql/playground", web::get().to(graphql_playground))
        .route("/api/playground", web::get().to(api_playground))
        .route("/playground/assets/{file}", web::get().to(asset));
}

fn page(html: String, csp: String) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::CONTENT_SECURITY_POLICY, csp))
        .insert_header((header::X_FRAME_OPTIONS, "DENY"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header(("Cross-Origin-Opener-Policy", "same-origin"))
        .body(html)
}

/// A fresh nonce (128 random bits, hex); `None` if the system's generator fails, and
/// then the page goes without one (only the dialogs' scroll lock is refused).
fn nonce() -> Option<String> {
    use ring::rand::SecureRandom;
    let mut bytes = [0_u8; 16];
    ring::rand::SystemRandom::new().fill(&mut bytes).ok()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// `GET /graphql/playground`: GraphiQL, pointed at `POST /graphql`.
pub async fn graphql_playground() -> HttpResponse {
    let nonce = nonce();
    let html = GRAPHQL_PAGE.replace(NONCE_SLOT, nonce.as_deref().unwrap_or_default());
    page(html, graphql_csp(nonce.as_deref()))
}

/// `GET /api/playground`: Swagger UI over `/openapi.json`.
pub async fn api_playground() -> HttpResponse {
    page(REST_PAGE.to_owned(), REST_CSP.to_owned())
}

/// `GET /playground/assets/{file}`: one of the compiled-in files; 404 (plain text) for
/// any other name.
pub async fn asset(req: HttpRequest, file: web::Path<String>) -> HttpResponse {
    let Some(index) = ASSETS.iter().position(|a| a.name == file.as_str()) else {
        return HttpResponse::NotFound()
            .content_type(TEXT)
            .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
            .body("no such playground asset\n");
    };
    let asset = &ASSETS[index];
    let etag = &ETAGS[index];
    let cache = if asset.immutable {
        "public, max-age=31536000, immutable"
    } else {
        "public, no-cache"
    };
    let fresh = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',')
                .any(|t| t.trim().trim_start_matches("W/") == etag || t.trim() == "*")
        });
    let mut res = if fresh {
        HttpResponse::NotModified().finish()
    } else {
        HttpResponse::Ok()
            .content_type(asset.content_type)
            .body(asset.bytes)
    };
    let headers = res.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if let Ok(value) = HeaderValue::from_str(etag) {
        headers.insert(header::ETAG, value);
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `/playground/assets/...` the pages name is one we serve, and nothing is
    /// loaded from another origin.
    #[test]
    fn pages_name_only_served_assets() {
        for html in [GRAPHQL_PAGE, REST_PAGE] {
            for attr in ["src=\"", "href=\""] {
                for part in html.split(attr).skip(1) {
                    let url = &part[..part.find('"').expect("closing quote")];
                    assert!(!url.contains("//"), "{url} is not same-origin");
                    if let Some(name) = url.strip_prefix(ASSET_PREFIX) {
                        assert!(
                            ASSETS.iter().any(|a| a.name == name),
                            "{name} is not served"
                        );
                    }
                }
            }
            assert!(!html.contains("<script>"), "no inline script (CSP)");
            assert!(!html.contains(" style="), "no inline style");
        }
    }

    /// The README names every vendored file with its package version.
    #[test]
    fn readme_lists_every_vendored_file() {
        let readme = include_str!("../README.md");
        for asset in ASSETS.iter().filter(|a| a.immutable) {
            assert!(readme.contains(asset.name), "README misses {}", asset.name);
        }
    }

    #[test]
    fn asset_names_are_unique_and_typed() {
        for (i, a) in ASSETS.iter().enumerate() {
            assert!(
                ASSETS[i + 1..].iter().all(|b| b.name != a.name),
                "{}",
                a.name
            );
            let expected = if a.name.ends_with(".js") {
                JS
            } else if a.name.ends_with(".css") {
                CSS
            } else {
                TEXT
            };
            assert_eq!(a.content_type, expected, "{}", a.name);
            assert!(!a.bytes.is_empty(), "{}", a.name);
        }
    }

    #[test]
    fn policies_allow_no_inline_or_evaluated_script() {
        for csp in [
            graphql_csp(Some("abc")),
            graphql_csp(None),
            REST_CSP.to_owned(),
        ] {
            let script = csp
                .split(';')
                .map(str::trim)
                .find(|d| d.starts_with("script-src"))
                .expect("script-src");
            assert_eq!(script, "script-src 'self'");
            assert!(csp.contains("frame-ancestors 'none'"));
            assert!(!csp.contains("unsafe"), "{csp}");
        }
        assert!(graphql_csp(Some("abc")).contains("style-src 'self' 'nonce-abc';"));
        assert!(graphql_csp(None).contains("style-src 'self';"));
    }

    #[test]
    fn nonces_differ_and_fill_the_slot() {
        let (a, b) = (nonce().expect("nonce"), nonce().expect("nonce"));
        assert_ne!(a, b);
        assert_eq!(a.len(), 32);
        assert_eq!(GRAPHQL_PAGE.matches(NONCE_SLOT).count(), 1);
    }
}
