//! The server-rendered pages of sign-in and consent: plain HTML forms that work without
//! JavaScript, every input with a visible label, every value escaped.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use ledger_domain::oauth::OAuthScope;
use ledger_domain::organizations::Organization;

pub use ledger_http::html::escape;

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;\
padding:0 1rem;line-height:1.5;color:#1a1a1a}fieldset{margin:1rem 0;border:1px solid #999;\
border-radius:4px}label{display:block;margin:.25rem 0}input[type=email],input[type=text]{\
width:100%;padding:.5rem;font-size:1rem}button{font-size:1rem;padding:.5rem 1rem;margin-right:.5rem}\
.error{color:#a00}";

/// A whole page with the headers every page of the flow carries: no caching, no
/// framing (clickjacking), no referrer (links carry one-time tokens), no scripts.
pub fn page(status: StatusCode, title: &str, body: &str) -> HttpResponse {
    let html = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title} · Ledger</title><style>{STYLE}</style></head>\
         <body><main>{body}</main></body></html>\n",
        title = escape(title),
    );
    HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .insert_header(("Cache-Control", "no-store"))
        .insert_header(("X-Frame-Options", "DENY"))
        .insert_header((
            "Content-Security-Policy",
            "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
        ))
        .insert_header(("Referrer-Policy", "no-referrer"))
        .body(html)
}

fn hidden(name: &str, value: &str) -> String {
    format!(
        "<input type=\"hidden\" name=\"{}\" value=\"{}\">",
        escape(name),
        escape(value)
    )
}

/// An error the user sees instead of a redirect (untrusted client or redirect URI).
pub fn error_page(status: StatusCode, code: &str, description: &str) -> HttpResponse {
    page(
        status,
        "Authorization failed",
        &format!(
            "<h1>Authorization failed</h1><p class=\"error\" role=\"alert\"><strong>{}</strong>: {}</p>\
             <p>Return to the application and try again.</p>",
            escape(code),
            escape(description)
        ),
    )
}

/// The e-mail sign-in form, then one "Sign in with `<provider>`" button per configured
/// external identity provider (`(id, name)`); after sign-in the browser returns to
/// `return_to`.
pub fn sign_in(
    return_to: &str,
    problem: Option<&str>,
    providers: &[(String, String)],
) -> HttpResponse {
    let buttons: String = providers
        .iter()
        .map(|(id, name)| {
            format!(
                "<form method=\"post\" action=\"/signin/oidc/{}\">{}\
                 <p><button type=\"submit\">Sign in with {}</button></p></form>",
                escape(id),
                hidden("return_to", return_to),
                escape(name)
            )
        })
        .collect();
    let buttons = if buttons.is_empty() {
        buttons
    } else {
        format!("<p>Or sign in with another account:</p>{buttons}")
    };
    let problem = problem
        .map(|p| format!("<p class=\"error\" role=\"alert\">{}</p>", escape(p)))
        .unwrap_or_default();
    page(
        if problem.is_empty() {
            StatusCode::OK
        } else {
            StatusCode::BAD_REQUEST
        },
        "Sign in",
        &format!(
            "<h1>Sign in to Ledger</h1>{problem}\
             <p>An application asks to use your Ledger organizations. Sign in first: we \
             e-mail you a link that works once.</p>\
             <form method=\"post\" action=\"/signin\">{}\
             <label for=\"email\">E-mail address</label>\
             <input id=\"email\" name=\"email\" type=\"email\" autocomplete=\"email\" required>\
             <p><button type=\"submit\">E-mail me a sign-in link</button></p></form>{buttons}",
            hidden("return_to", return_to)
        ),
    )
}

/// After the link was sent (it works for `minutes`).
pub fn link_sent(minutes: i64) -> HttpResponse {
    page(
        StatusCode::OK,
        "Check your e-mail",
        &format!(
            "<h1>Check your e-mail</h1><p role=\"status\">If the address can sign in, a \
             sign-in link is on its way. It works once, for {minutes} minutes. You can close \
             this page.</p>"
        ),
    )
}

/// The page a sign-in link opens: one button, so a mail scanner that fetches the link
/// does not spend it.
pub fn confirm_sign_in(token: &str) -> HttpResponse {
    page(
        StatusCode::OK,
        "Sign in",
        &format!(
            "<h1>Sign in to Ledger</h1><form method=\"post\" action=\"/signin/verify\">{}\
             <p><button type=\"submit\">Continue signing in</button></p></form>",
            hidden("token", token)
        ),
    )
}

/// What the consent page shows and carries.
pub struct Consent<'a> {
    pub client_name: &'a str,
    pub redirect_uri: &'a str,
    pub user_email: &'a str,
    pub organizations: &'a [Organization],
    pub scopes: &'a [OAuthScope],
    pub csrf: &'a str,
    /// The authorization request's parameters, carried through the form.
    pub params: &'a [(String, String)],
    /// Where the sign-out form returns to (this authorization request).
    pub sign_out_to: &'a str,
    /// Whether "Test data" is the preselected choice (development, where the books one
    /// has been trying things in are the test ones), else "Live data".
    pub test_first: bool,
    /// Whether the person may create an organization here when they own none (sign-up is
    /// open: in development, or with `LEDGER_OPEN_SIGNUP`).
    pub can_create: bool,
    /// Why the last attempt to create an organization was refused, shown above its form.
    pub notice: Option<&'a str>,
}

/// The "Not you? Sign out" form of the consent page.
fn sign_out_form(csrf: &str, return_to: &str) -> String {
    format!(
        "<form method=\"post\" action=\"/signout\">{}{}\
         <p>Not you? <button type=\"submit\">Sign out</button></p></form>",
        hidden("csrf", csrf),
        hidden("return_to", return_to)
    )
}

/// After sign-out.
pub fn signed_out() -> HttpResponse {
    page(
        StatusCode::OK,
        "Signed out",
        "<h1>Signed out</h1><p role=\"status\">You are signed out of Ledger. You can close \
         this page.</p>",
    )
}

/// The consent page: pick an organization and a mode, approve scopes, allow or deny.
pub fn consent(c: &Consent<'_>) -> HttpResponse {
    let mut hidden_fields: String = c
        .params
        .iter()
        .filter(|(k, _)| {
            matches!(
                k.as_str(),
                "response_type"
                    | "client_id"
                    | "redirect_uri"
                    | "code_challenge"
                    | "code_challenge_method"
                    | "scope"
                    | "state"
                    | "resource"
            )
        })
        .map(|(k, v)| hidden(k, v))
        .collect();
    hidden_fields.push_str(&hidden("csrf", c.csrf));
    let sign_out = sign_out_form(c.csrf, c.sign_out_to);
    let host = url::Url::parse(c.redirect_uri)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_else(|| c.redirect_uri.to_owned());
    let intro = format!(
        "<h1>Allow {} to use Ledger?</h1><p>Signed in as <strong>{}</strong>. After you \
         decide, you return to <strong>{}</strong>.</p>",
        escape(c.client_name),
        escape(c.user_email),
        escape(&host)
    );
    if c.organizations.is_empty() {
        let create = if c.can_create {
            let notice = c.notice.map_or_else(String::new, |n| {
                format!("<p class=\"error\" role=\"alert\">{}</p>", escape(n))
            });
            format!(
                "<p role=\"status\">You own no organization yet, so there is nothing to grant. \
                 Create one now: it starts with the default chart of accounts, owned by \
                 <strong>{email}</strong>.</p>{notice}\
                 <form method=\"post\" action=\"/authorize/organization\">{hidden_fields}\
                 <label for=\"organization_name\">Organization name</label>\
                 <input type=\"text\" id=\"organization_name\" name=\"name\" required \
                 maxlength=\"255\" autocomplete=\"organization\">\
                 <p><button type=\"submit\">Create organization</button></p></form>",
                email = escape(c.user_email),
            )
        } else {
            "<p role=\"alert\">You own no organization yet, so there is nothing to grant. \
             Organizations on this server are created by its operator (sign-up needs the \
             operator's admin token): ask them for one in your name, then return here.</p>"
                .to_owned()
        };
        return page(
            StatusCode::OK,
            "Authorize",
            &format!(
                "{intro}{create}<form method=\"post\" action=\"/authorize\">\
                 {hidden_fields}<button type=\"submit\" name=\"decision\" value=\"deny\">\
                 Return to the application</button></form>{sign_out}"
            ),
        );
    }
    let organizations: String = c
        .organizations
        .iter()
        .enumerate()
        .map(|(i, o)| {
            format!(
                "<label><input type=\"radio\" name=\"organization_id\" value=\"{}\"{}> {} \
                 <small>({})</small></label>",
                escape(&o.id),
                if i == 0 { " checked" } else { "" },
                escape(&o.name),
                escape(&o.id)
            )
        })
        .collect();
    let (live, test) = if c.test_first {
        ("", " checked")
    } else {
        (" checked", "")
    };
    let scopes: String = c
        .scopes
        .iter()
        .map(|s| {
            format!(
                "<label><input type=\"checkbox\" name=\"approved_scope\" value=\"{}\" checked> \
                 {} <small>({})</small></label>",
                s.as_str(),
                escape(s.describe()),
                s.as_str()
            )
        })
        .collect();
    page(
        StatusCode::OK,
        "Authorize",
        &format!(
            "{intro}<form method=\"post\" action=\"/authorize\">{hidden_fields}\
             <fieldset><legend>Organization</legend>{organizations}</fieldset>\
             <fieldset><legend>Data</legend>\
             <label><input type=\"radio\" name=\"mode\" value=\"live\"{live}> Live data \
             <small>(the real books: writes cost credits)</small></label>\
             <label><input type=\"radio\" name=\"mode\" value=\"test\"{test}> Test data \
             <small>(the books of test-mode keys, kept apart from the real ones; no credits \
             charged)</small></label></fieldset>\
             <fieldset><legend>Permissions</legend>{scopes}</fieldset>\
             <p><button type=\"submit\" name=\"decision\" value=\"approve\">Allow</button>\
             <button type=\"submit\" name=\"decision\" value=\"deny\">Deny</button></p></form>\
             {sign_out}"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_covers_markup_and_quotes() {
        assert_eq!(
            escape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    fn nothing_owned(can_create: bool, notice: Option<&str>) -> String {
        let params = [("client_id".to_owned(), "cli_1".to_owned())];
        let response = consent(&Consent {
            client_name: "Agent",
            redirect_uri: "http://localhost:3030/callback",
            user_email: "nobody@example.com",
            organizations: &[],
            scopes: &[],
            csrf: "ledger_csrf_1",
            params: &params,
            sign_out_to: "/authorize?client_id=cli_1",
            test_first: true,
            can_create,
            notice,
        });
        let bytes = actix_web::rt::System::new()
            .block_on(actix_web::body::to_bytes(response.into_body()))
            .expect("body");
        String::from_utf8(bytes.to_vec()).expect("utf-8")
    }

    #[test]
    fn a_person_who_owns_nothing_may_create_an_organization_only_where_sign_up_is_open() {
        let open = nothing_owned(true, Some("The organization name <is> blank."));
        assert!(
            open.contains("action=\"/authorize/organization\""),
            "{open}"
        );
        assert!(open.contains("<label for=\"organization_name\">"), "{open}");
        assert!(
            open.contains("name=\"csrf\" value=\"ledger_csrf_1\""),
            "{open}"
        );
        assert!(
            open.contains("name=\"client_id\" value=\"cli_1\""),
            "{open}"
        );
        assert!(
            open.contains("The organization name &lt;is&gt; blank."),
            "{open}"
        );
        let closed = nothing_owned(false, None);
        assert!(!closed.contains("/authorize/organization"), "{closed}");
        assert!(closed.contains("created by its operator"), "{closed}");
        assert!(closed.contains("Return to the application"), "{closed}");
    }
}
