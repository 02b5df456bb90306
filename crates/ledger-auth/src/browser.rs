//! The browser side of the authorization server: `/authorize` (sign-in form or consent
//! page), the consent decision, the organization a person who owns none creates from the
//! consent page (where sign-up is open), and the e-mailed sign-in link that opens a
//! session.
//!
//! Sessions are a cookie (`HttpOnly`, `SameSite=Lax`, `Secure` in production) holding
//! a random token whose hash the store knows; the consent form carries the session's
//! CSRF token. Errors that would redirect to a URI the client did not register are shown
//! as pages instead (no open redirect).

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::DomainError;
use ledger_domain::oauth::{self, OAuthScope, SessionData};
use ledger_domain::organizations::User;
use ledger_domain::ports::Store;
use ledger_domain::services::{
    AuthorizationRequest, AuthorizeRefusal, MasterSignup, OAuthError, OAuthErrorCode,
    ValidatedRequest,
};
use ledger_http::AppState;
use ledger_http::auth::generate_key;

use crate::html;
use crate::oidc::Providers;

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "ledger_session";

/// The parameters of an authorization request the consent form carries through.
const REQUEST_PARAMS: [&str; 8] = [
    "response_type",
    "client_id",
    "redirect_uri",
    "code_challenge",
    "code_challenge_method",
    "scope",
    "state",
    "resource",
];

/// The value of the cookie `name` the request carries.
pub(crate) fn cookie_value(req: &HttpRequest, name: &str) -> Option<String> {
    req.headers()
        .get_all(header::COOKIE)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(n, _)| *n == name)
        .map(|(_, value)| value.trim().to_owned())
}

fn session_token(req: &HttpRequest) -> Option<String> {
    cookie_value(req, SESSION_COOKIE)
}

/// The `Set-Cookie` value of a new console session: `HttpOnly`, `SameSite=Lax`, the
/// session's lifetime, and `Secure` in production.
pub(crate) fn session_cookie(session: &str, lifetime: time::Duration, secure: bool) -> String {
    let mut cookie = format!(
        "{SESSION_COOKIE}={session}; Path=/; HttpOnly; SameSite=Lax; Max-Age={}",
        lifetime.whole_seconds()
    );
    if secure {
        cookie.push_str("; Secure");
    }
    cookie
}

/// The `Set-Cookie` value that removes the session cookie (sign-out).
pub(crate) fn cleared_session_cookie(secure: bool) -> String {
    let mut cookie = format!("{SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0");
    if secure {
        cookie.push_str("; Secure");
    }
    cookie
}

/// The sign-in buttons of the configured external identity providers.
fn buttons(providers: Option<&web::Data<Providers>>) -> Vec<(String, String)> {
    providers.map(|p| p.buttons()).unwrap_or_default()
}

fn pairs(text: &[u8]) -> Vec<(String, String)> {
    url::form_urlencoded::parse(text).into_owned().collect()
}

/// The first value of form field `name`.
fn field<'a>(fields: &'a [(String, String)], name: &str) -> Option<&'a str> {
    fields
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// The authorization request in `params`; a repeated parameter is refused (RFC 6749 3.1).
fn authorization_request(
    params: &[(String, String)],
) -> Result<AuthorizationRequest, &'static str> {
    let mut request = AuthorizationRequest::default();
    for name in REQUEST_PARAMS {
        let mut values = params.iter().filter(|(k, _)| k == name).map(|(_, v)| v);
        let value = values.next().cloned();
        if values.next().is_some() {
            return Err("a parameter of the authorization request is repeated");
        }
        let slot = match name {
            "response_type" => &mut request.response_type,
            "client_id" => &mut request.client_id,
            "redirect_uri" => &mut request.redirect_uri,
            "code_challenge" => &mut request.code_challenge,
            "code_challenge_method" => &mut request.code_challenge_method,
            "scope" => &mut request.scope,
            "state" => &mut request.state,
            _ => &mut request.resource,
        };
        *slot = value;
    }
    Ok(request)
}

/// A redirect to the client's (registered) redirect URI with `params`, `state` and `iss`.
fn back_to_client(
    status: StatusCode,
    redirect_uri: &str,
    params: &[(&str, &str)],
    state: Option<&str>,
    issuer: &str,
) -> HttpResponse {
    let Ok(mut url) = url::Url::parse(redirect_uri) else {
        return html::error_page(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "the redirect URI is not valid",
        );
    };
    {
        let mut query = url.query_pairs_mut();
        for (k, v) in params {
            query.append_pair(k, v);
        }
        if let Some(state) = state {
            query.append_pair("state", state);
        }
        query.append_pair("iss", issuer);
    }
    HttpResponse::build(status)
        .insert_header((header::LOCATION, url.to_string()))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .finish()
}

fn refusal_response(refusal: AuthorizeRefusal, status: StatusCode, issuer: &str) -> HttpResponse {
    match refusal {
        AuthorizeRefusal::Page(e) => page_for(&e),
        AuthorizeRefusal::Redirect {
            redirect_uri,
            state,
            error,
        } => back_to_client(
            status,
            &redirect_uri,
            &[
                ("error", error.code.as_str()),
                ("error_description", error.description.as_str()),
            ],
            state.as_deref(),
            issuer,
        ),
    }
}

fn page_for(e: &OAuthError) -> HttpResponse {
    let status = if e.code == OAuthErrorCode::ServerError {
        StatusCode::INTERNAL_SERVER_ERROR
    } else {
        StatusCode::BAD_REQUEST
    };
    html::error_page(status, e.code.as_str(), &e.description)
}

pub(crate) fn storage_failure(e: &DomainError) -> HttpResponse {
    tracing::error!(error = ?e, "authorization page failed");
    html::error_page(
        StatusCode::INTERNAL_SERVER_ERROR,
        "server_error",
        "the server could not complete the request",
    )
}

/// A validation message without the field it starts with (`name: must be ...`), for a
/// sentence that names the field in words.
fn reason(message: &str) -> &str {
    message
        .split_once(": ")
        .map_or(message, |(_, reason)| reason)
}

/// `/authorize?...` of the request's own parameters (where sign-in returns to).
fn return_path(params: &[(String, String)]) -> String {
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in params
        .iter()
        .filter(|(k, _)| REQUEST_PARAMS.contains(&k.as_str()))
    {
        query.append_pair(k, v);
    }
    format!("/authorize?{}", query.finish())
}

/// The session the request's cookie opens, if any.
async fn current_session<S: Store>(
    state: &AppState<S>,
    req: &HttpRequest,
) -> Result<Option<(User, SessionData)>, HttpResponse> {
    match session_token(req) {
        Some(token) => state
            .ledger
            .session(&token)
            .await
            .map_err(|e| storage_failure(&e)),
        None => Ok(None),
    }
}

/// The session a posted form of the authorization flow runs in: without one, the
/// sign-in page (the session ended); with a CSRF token other than the session's, 403.
async fn form_session<S: Store>(
    state: &AppState<S>,
    req: &HttpRequest,
    fields: &[(String, String)],
    providers: Option<&web::Data<Providers>>,
) -> Result<(User, SessionData), HttpResponse> {
    let Some((user, data)) = current_session(state, req).await? else {
        return Err(html::sign_in(
            &return_path(fields),
            Some("Your session ended. Sign in again to continue."),
            &buttons(providers),
        ));
    };
    if field(fields, "csrf") != Some(data.csrf.as_str()) {
        return Err(html::error_page(
            StatusCode::FORBIDDEN,
            "invalid_request",
            "the form is not valid any more; start the authorization again",
        ));
    }
    Ok((user, data))
}

/// `GET /authorize`: checks the request, then shows the sign-in form (no session) or
/// the consent page.
pub async fn authorize<S: Store>(
    state: web::Data<AppState<S>>,
    providers: Option<web::Data<Providers>>,
    req: HttpRequest,
) -> HttpResponse {
    let params = pairs(req.query_string().as_bytes());
    let request = match authorization_request(&params) {
        Ok(r) => r,
        Err(text) => return html::error_page(StatusCode::BAD_REQUEST, "invalid_request", text),
    };
    let issuer = &state.oauth.issuer;
    let validated = match state
        .ledger
        .check_authorization(&request, &state.oauth.resources())
        .await
    {
        Ok(v) => v,
        Err(refusal) => return refusal_response(refusal, StatusCode::FOUND, issuer),
    };
    let session = match current_session(&state, &req).await {
        Ok(session) => session,
        Err(page) => return page,
    };
    let Some((user, data)) = session else {
        return html::sign_in(&return_path(&params), None, &buttons(providers.as_ref()));
    };
    consent_page(&state, &params, &validated, &user, &data.csrf, None).await
}

/// The consent page of `validated` for the signed-in `user`, with `notice` above the
/// organization form when there is one to show.
async fn consent_page<S: Store>(
    state: &AppState<S>,
    params: &[(String, String)],
    validated: &ValidatedRequest,
    user: &User,
    csrf: &str,
    notice: Option<&str>,
) -> HttpResponse {
    let organizations = match state.ledger.organizations_of_user(&user.id).await {
        Ok(o) => o,
        Err(e) => return storage_failure(&e),
    };
    let client_name = validated
        .client
        .name
        .clone()
        .unwrap_or_else(|| validated.client.id.clone());
    let sign_out_to = return_path(params);
    html::consent(&html::Consent {
        sign_out_to: &sign_out_to,
        client_name: &client_name,
        redirect_uri: &validated.redirect_uri,
        user_email: &user.email,
        organizations: &organizations,
        scopes: &validated.scopes,
        csrf,
        params,
        // Cookies are secure exactly in production (the server's listener sets both from
        // `LEDGER_ENV`): elsewhere the consent offers the test books first.
        test_first: !state.oauth.secure_cookies,
        can_create: state.open_signup,
        notice,
    })
}

/// `POST /authorize/organization`: a signed-in person who owns no organization creates
/// one from the consent page (only where sign-up is open), then returns to the consent
/// page of the same request, which now lists it. The organization is signed up as
/// `POST /accounts/master` would (default chart, a test and a live key, whose secrets are
/// not shown: the person's agent is authorized by OAuth, and keys can be made later).
pub async fn create_organization<S: Store>(
    state: web::Data<AppState<S>>,
    providers: Option<web::Data<Providers>>,
    req: HttpRequest,
    body: web::Bytes,
) -> HttpResponse {
    let fields = pairs(&body);
    let (user, data) = match form_session(&state, &req, &fields, providers.as_ref()).await {
        Ok(signed_in) => signed_in,
        Err(page) => return page,
    };
    if !state.open_signup {
        return html::error_page(
            StatusCode::FORBIDDEN,
            "access_denied",
            "organizations on this server are created by its operator",
        );
    }
    let request = match authorization_request(&fields) {
        Ok(r) => r,
        Err(text) => return html::error_page(StatusCode::BAD_REQUEST, "invalid_request", text),
    };
    let validated = match state
        .ledger
        .check_authorization(&request, &state.oauth.resources())
        .await
    {
        Ok(v) => v,
        Err(refusal) => {
            return refusal_response(refusal, StatusCode::SEE_OTHER, &state.oauth.issuer);
        }
    };
    let keys = generate_key(false).and_then(|test| Ok((test, generate_key(true)?)));
    let signup = match keys {
        Ok((test_key, live_key)) => MasterSignup {
            name: field(&fields, "name").unwrap_or_default().to_owned(),
            user_provider_id: user.provider_id.clone(),
            user_email: user.email.clone(),
            provider_username: user.provider_username.clone(),
            base_currency: None,
            test_key,
            live_key,
        },
        Err(e) => return storage_failure(&e),
    };
    match state.ledger.sign_up_master(signup).await {
        Ok(_) => HttpResponse::SeeOther()
            .insert_header((header::LOCATION, return_path(&fields)))
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .finish(),
        Err(DomainError::Validation { message, .. }) => {
            let notice = format!("The organization name {}.", reason(&message));
            consent_page(
                &state,
                &fields,
                &validated,
                &user,
                &data.csrf,
                Some(&notice),
            )
            .await
        }
        Err(e) => storage_failure(&e),
    }
}

/// `POST /authorize`: the consent form's decision.
pub async fn decide<S: Store>(
    state: web::Data<AppState<S>>,
    providers: Option<web::Data<Providers>>,
    req: HttpRequest,
    body: web::Bytes,
) -> HttpResponse {
    let fields = pairs(&body);
    let one = |name: &str| field(&fields, name);
    let (user, _) = match form_session(&state, &req, &fields, providers.as_ref()).await {
        Ok(signed_in) => signed_in,
        Err(page) => return page,
    };
    let request = match authorization_request(&fields) {
        Ok(r) => r,
        Err(text) => return html::error_page(StatusCode::BAD_REQUEST, "invalid_request", text),
    };
    let issuer = &state.oauth.issuer;
    let validated = match state
        .ledger
        .check_authorization(&request, &state.oauth.resources())
        .await
    {
        Ok(v) => v,
        Err(refusal) => return refusal_response(refusal, StatusCode::SEE_OTHER, issuer),
    };
    let state_param = validated.state.as_deref();
    if one("decision") != Some("approve") {
        return back_to_client(
            StatusCode::SEE_OTHER,
            &validated.redirect_uri,
            &[
                ("error", "access_denied"),
                ("error_description", "the user denied the request"),
            ],
            state_param,
            issuer,
        );
    }
    let approved: Vec<OAuthScope> = fields
        .iter()
        .filter(|(k, _)| k == "approved_scope")
        .filter_map(|(_, v)| oauth::parse_scopes(v).ok())
        .flatten()
        .collect();
    let livemode = one("mode") != Some("test");
    let organization_id = one("organization_id").unwrap_or_default();
    match state
        .ledger
        .approve(&user, &validated, organization_id, livemode, &approved)
        .await
    {
        Ok(code) => back_to_client(
            StatusCode::SEE_OTHER,
            &validated.redirect_uri,
            &[("code", code.as_str())],
            state_param,
            issuer,
        ),
        Err(e) if e.code == OAuthErrorCode::ServerError => page_for(&e),
        Err(e) => back_to_client(
            StatusCode::SEE_OTHER,
            &validated.redirect_uri,
            &[
                ("error", e.code.as_str()),
                ("error_description", e.description.as_str()),
            ],
            state_param,
            issuer,
        ),
    }
}

/// `POST /signin`: mails a sign-in link.
pub async fn sign_in<S: Store>(
    state: web::Data<AppState<S>>,
    providers: Option<web::Data<Providers>>,
    req: HttpRequest,
    body: web::Bytes,
) -> HttpResponse {
    if let Err(retry_after) = crate::throttle(&state, &req, "signin").await {
        return crate::too_many_page(retry_after);
    }
    let fields = pairs(&body);
    let one = |name: &str| field(&fields, name).unwrap_or_default();
    let return_to = one("return_to");
    if !oauth::return_to_is_safe(return_to) {
        return html::error_page(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "sign-in must start from an authorization request",
        );
    }
    let link_base = format!("{}/signin/verify?token=", state.oauth.base_url);
    match state
        .ledger
        .start_sign_in(one("email"), return_to, &link_base)
        .await
    {
        Ok(()) => html::link_sent(state.ledger.oauth_lifetimes().sign_in_link.whole_minutes()),
        Err(DomainError::Validation { message, .. }) => html::sign_in(
            return_to,
            Some(&format!("The e-mail address {}.", reason(&message))),
            &buttons(providers.as_ref()),
        ),
        Err(e) => storage_failure(&e),
    }
}

/// `GET /signin/verify?token=...`: the page the mailed link opens.
pub async fn confirm_sign_in(req: HttpRequest) -> HttpResponse {
    let params = pairs(req.query_string().as_bytes());
    match params.iter().find(|(k, _)| k == "token") {
        Some((_, token)) => html::confirm_sign_in(token),
        None => html::error_page(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "the sign-in link is incomplete",
        ),
    }
}

/// `POST /signin/verify`: spends the link, opens a session, returns to the request.
pub async fn verify_sign_in<S: Store>(
    state: web::Data<AppState<S>>,
    req: HttpRequest,
    body: web::Bytes,
) -> HttpResponse {
    if let Err(retry_after) = crate::throttle(&state, &req, "signin_verify").await {
        return crate::too_many_page(retry_after);
    }
    let fields = pairs(&body);
    let token = fields
        .iter()
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v.as_str())
        .unwrap_or_default();
    match state.ledger.finish_sign_in(token).await {
        Ok((session, return_to)) => HttpResponse::SeeOther()
            .insert_header((
                header::SET_COOKIE,
                session_cookie(
                    &session,
                    state.ledger.oauth_lifetimes().session,
                    state.oauth.secure_cookies,
                ),
            ))
            .insert_header((header::LOCATION, return_to))
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .finish(),
        Err(DomainError::Authentication { message, .. }) => {
            html::error_page(StatusCode::BAD_REQUEST, "invalid_token", &message)
        }
        Err(e) => storage_failure(&e),
    }
}

/// `POST /signout`: ends the console session. The form carries the session's CSRF token
/// (a forged form is refused with 403 and the session stays); the session is revoked in
/// the store, so the cookie no longer works even if replayed, and the browser is told to
/// drop it. Without a current session there is nothing to end: the cookie is cleared all
/// the same. With a safe `return_to` (a path of the authorization request) the answer is
/// 303 there (the sign-in form again), else the "signed out" page.
pub async fn sign_out<S: Store>(
    state: web::Data<AppState<S>>,
    req: HttpRequest,
    body: web::Bytes,
) -> HttpResponse {
    let fields = pairs(&body);
    let one = |name: &str| field(&fields, name);
    if let Some(token) = session_token(&req) {
        let session = match state.ledger.session(&token).await {
            Ok(s) => s,
            Err(e) => return storage_failure(&e),
        };
        if let Some((_, data)) = session {
            if one("csrf") != Some(data.csrf.as_str()) {
                return html::error_page(
                    StatusCode::FORBIDDEN,
                    "invalid_request",
                    "the sign-out form is not valid; reload the page and try again",
                );
            }
            if let Err(e) = state.ledger.end_session(&token).await {
                return storage_failure(&e);
            }
        }
    }
    let cleared = cleared_session_cookie(state.oauth.secure_cookies);
    match one("return_to").filter(|r| oauth::return_to_is_safe(r)) {
        Some(return_to) => HttpResponse::SeeOther()
            .insert_header((header::SET_COOKIE, cleared))
            .insert_header((header::LOCATION, return_to.to_owned()))
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .finish(),
        None => {
            let mut page = html::signed_out();
            if let Ok(value) = header::HeaderValue::from_str(&cleared) {
                page.headers_mut().insert(header::SET_COOKIE, value);
            }
            page
        }
    }
}
