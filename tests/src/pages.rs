//! Reading the console's HTML pages and redirects the way a browser does: the value of a
//! form input, the `Location` of a redirect.

/// The value of the first (hidden or radio) input `name` in a page, its entities decoded.
///
/// # Panics
/// When the page has no such input.
pub fn input_value(html: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let start = html
        .find(&marker)
        .unwrap_or_else(|| panic!("no input {name} in {html}"))
        + marker.len();
    let end = start + html[start..].find('"').expect("closing quote");
    html[start..end]
        .replace("&amp;", "&")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
}

/// The `Location` of a redirect.
///
/// # Panics
/// When the answer has none.
pub fn location(res: &reqwest::Response) -> String {
    res.headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_else(|| panic!("no Location on {}", res.status()))
        .to_owned()
}

/// The PKCE verifier of the OAuth tests' client (RFC 7636's example).
pub const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
/// The S256 challenge of [`VERIFIER`].
pub const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
/// The redirect URI the OAuth tests' client registers.
pub const REDIRECT: &str = "http://localhost:3030/callback";

/// The authorization request of the public client `client_id` on the server at `base`
/// (PKCE with [`CHALLENGE`], back to [`REDIRECT`]) for `scope` and `resource`.
pub fn authorize_url(
    base: &str,
    client_id: &str,
    scope: &str,
    state: &str,
    resource: &str,
) -> String {
    let mut url = url::Url::parse(&format!("{base}/authorize")).expect("url");
    url.query_pairs_mut()
        .append_pair("response_type", "code")
        .append_pair("client_id", client_id)
        .append_pair("redirect_uri", REDIRECT)
        .append_pair("code_challenge", CHALLENGE)
        .append_pair("code_challenge_method", "S256")
        .append_pair("scope", scope)
        .append_pair("state", state)
        .append_pair("resource", resource);
    url.to_string()
}

/// GETs `url` with the browser `client`, with the `cookie` header when given and the
/// `extra` headers.
pub async fn get(
    client: &reqwest::Client,
    url: String,
    cookie: Option<&str>,
    extra: &[(&str, &str)],
) -> reqwest::Response {
    send(client.get(url), cookie, extra).await
}

/// POSTs `form` URL-encoded with the browser `client`, with the `cookie` header when
/// given and the `extra` headers.
pub async fn post_form(
    client: &reqwest::Client,
    url: String,
    form: &[(String, String)],
    cookie: Option<&str>,
    extra: &[(&str, &str)],
) -> reqwest::Response {
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form)
        .finish();
    let req = client
        .post(url)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body);
    send(req, cookie, extra).await
}

/// Sends `req` with the `extra` headers and the `cookie` header when given.
async fn send(
    mut req: reqwest::RequestBuilder,
    cookie: Option<&str>,
    extra: &[(&str, &str)],
) -> reqwest::Response {
    for (k, v) in extra {
        req = req.header(*k, *v);
    }
    if let Some(cookie) = cookie {
        req = req.header("cookie", cookie);
    }
    req.send().await.expect("request reaches the server")
}

/// The e-mail sign-in form (`POST /signin`): a link for `email` that comes back to
/// `return_to`.
pub fn sign_in_form(email: &str, return_to: &str) -> [(String, String); 2] {
    [
        ("email".into(), email.into()),
        ("return_to".into(), return_to.into()),
    ]
}

/// The form a user sends to approve the consent `page`: its hidden fields, the `mode`,
/// the decision and each of `scopes`.
pub fn consent_form(page: &str, mode: &str, scopes: &[&str]) -> Vec<(String, String)> {
    let mut form: Vec<(String, String)> = [
        "response_type",
        "client_id",
        "redirect_uri",
        "code_challenge",
        "code_challenge_method",
        "scope",
        "state",
        "resource",
        "csrf",
        "organization_id",
    ]
    .iter()
    .map(|n| ((*n).to_owned(), input_value(page, n)))
    .collect();
    form.push(("mode".into(), mode.into()));
    form.push(("decision".into(), "approve".into()));
    for scope in scopes {
        form.push(("approved_scope".into(), (*scope).to_owned()));
    }
    form
}
