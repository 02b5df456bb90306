//! A small OpenID Connect provider the tests start: discovery, a JWKS with an RS256 key
//! made at test start, `/authorize` that signs in a configured user at once (redirecting
//! back with a code, or posting a form for `response_mode=form_post`), and `/token`
//! that checks the code, the redirect URI, PKCE S256 and the client's authentication
//! (a secret, or an Apple-style ES256 client-secret JWT) before returning a signed
//! `id_token`. Several issuers live on one server, each under `/{tenant}`, and each can
//! be told to misbehave (wrong nonce, issuer, audience or signature).

use std::collections::HashMap;
use std::net::TcpListener;
use std::sync::{Arc, Mutex, OnceLock};

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use base64::Engine;
use rsa::RsaPrivateKey;
use rsa::pkcs1v15::SigningKey;
use rsa::sha2::{Digest, Sha256};
use rsa::signature::{SignatureEncoding, Signer};
use rsa::traits::PublicKeyParts;
use serde_json::{Value, json};

/// How a tenant's next ID tokens go wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Misbehaviour {
    None,
    WrongNonce,
    WrongIssuer,
    WrongAudience,
    BadSignature,
}

/// One issuer of the provider.
#[derive(Debug, Clone)]
pub struct Tenant {
    pub client_id: String,
    /// The expected client secret (`client_secret_basic`), or `None` for an Apple-style
    /// client whose secret is an ES256 JWT checked against `apple_key`.
    pub client_secret: Option<String>,
    /// Apple-style: the team id, key id and the P-256 public key (uncompressed point).
    pub apple: Option<(String, String, Vec<u8>)>,
    /// The user `/authorize` signs in: `sub` and `email`.
    pub user: (String, String),
    pub misbehaviour: Misbehaviour,
}

struct Issued {
    tenant: String,
    client_id: String,
    redirect_uri: String,
    challenge: String,
    nonce: String,
    user: (String, String),
}

struct Shared {
    base: String,
    tenants: Mutex<HashMap<String, Tenant>>,
    codes: Mutex<HashMap<String, Issued>>,
    /// Client secrets (Apple-style JWTs) the token endpoint accepted.
    pub accepted_apple_secrets: Mutex<Vec<String>>,
}

/// The running provider.
pub struct Provider {
    pub base: String,
    shared: Arc<Shared>,
    handle: actix_web::dev::ServerHandle,
}

const KID: &str = "test-key-1";

/// The RS256 key, made once per test binary (key generation is the slow part).
fn key() -> &'static RsaPrivateKey {
    static KEY: OnceLock<RsaPrivateKey> = OnceLock::new();
    KEY.get_or_init(|| RsaPrivateKey::new(&mut rand::rngs::OsRng, 2048).expect("an RSA key"))
}

fn b64url(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

fn unb64url(text: &str) -> Option<Vec<u8>> {
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text)
        .ok()
}

/// A compact JWS of `claims`, RS256 with the provider's key.
fn sign(claims: &Value, corrupt: bool) -> String {
    let header = json!({"alg": "RS256", "kid": KID, "typ": "JWT"});
    let input = format!(
        "{}.{}",
        b64url(header.to_string().as_bytes()),
        b64url(claims.to_string().as_bytes())
    );
    let signer = SigningKey::<Sha256>::new(key().clone());
    let mut signature = signer.sign(input.as_bytes()).to_bytes().to_vec();
    if corrupt {
        signature[0] ^= 1;
    }
    format!("{input}.{}", b64url(&signature))
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_secs()
}

impl Provider {
    /// Starts the provider on a free port with `tenants` (`/{name}` each).
    pub async fn start(tenants: Vec<(&str, Tenant)>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let shared = Arc::new(Shared {
            base: base.clone(),
            tenants: Mutex::new(
                tenants
                    .into_iter()
                    .map(|(n, t)| (n.to_owned(), t))
                    .collect(),
            ),
            codes: Mutex::new(HashMap::new()),
            accepted_apple_secrets: Mutex::new(Vec::new()),
        });
        let data = web::Data::from(shared.clone());
        let server = HttpServer::new(move || {
            App::new()
                .app_data(data.clone())
                .route(
                    "/{tenant}/.well-known/openid-configuration",
                    web::get().to(discovery),
                )
                .route("/{tenant}/jwks", web::get().to(jwks))
                .route("/{tenant}/authorize", web::get().to(authorize))
                .route("/{tenant}/token", web::post().to(token))
        })
        .workers(1)
        .listen(listener)
        .expect("listen")
        .run();
        let handle = server.handle();
        tokio::spawn(server);
        Self {
            base,
            shared,
            handle,
        }
    }

    /// The issuer of `tenant`.
    pub fn issuer(&self, tenant: &str) -> String {
        format!("{}/{tenant}", self.base)
    }

    /// Changes what `tenant` does next.
    pub fn set(&self, tenant: &str, change: impl FnOnce(&mut Tenant)) {
        let mut tenants = self.shared.tenants.lock().expect("tenants");
        change(tenants.get_mut(tenant).expect("a tenant"));
    }

    /// How many Apple-style client secrets the token endpoint verified and accepted.
    pub fn accepted_apple_secrets(&self) -> usize {
        self.shared
            .accepted_apple_secrets
            .lock()
            .expect("secrets")
            .len()
    }

    pub async fn stop(self) {
        self.handle.stop(true).await;
    }
}

fn tenant_of(shared: &Shared, name: &str) -> Option<Tenant> {
    shared.tenants.lock().expect("tenants").get(name).cloned()
}

async fn discovery(shared: web::Data<Shared>, path: web::Path<String>) -> HttpResponse {
    let name = path.into_inner();
    if tenant_of(&shared, &name).is_none() {
        return HttpResponse::NotFound().finish();
    }
    let issuer = format!("{}/{name}", shared.base);
    HttpResponse::Ok().json(json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "jwks_uri": format!("{issuer}/jwks"),
        "response_types_supported": ["code"],
        "response_modes_supported": ["query", "form_post"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "scopes_supported": ["openid", "email"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        "code_challenge_methods_supported": ["S256"],
        "claims_supported": ["sub", "iss", "aud", "exp", "iat", "nonce", "email", "email_verified"],
    }))
}

async fn jwks() -> HttpResponse {
    let key = key().to_public_key();
    HttpResponse::Ok().json(json!({"keys": [{
        "kty": "RSA",
        "use": "sig",
        "alg": "RS256",
        "kid": KID,
        "n": b64url(&key.n().to_bytes_be()),
        "e": b64url(&key.e().to_bytes_be()),
    }]}))
}

fn pairs(text: &[u8]) -> HashMap<String, String> {
    url::form_urlencoded::parse(text).into_owned().collect()
}

fn bad_request(error: &str) -> HttpResponse {
    HttpResponse::BadRequest().json(json!({"error": error}))
}

async fn authorize(
    shared: web::Data<Shared>,
    path: web::Path<String>,
    req: HttpRequest,
) -> HttpResponse {
    let name = path.into_inner();
    let Some(tenant) = tenant_of(&shared, &name) else {
        return HttpResponse::NotFound().finish();
    };
    let q = pairs(req.query_string().as_bytes());
    let get = |k: &str| q.get(k).cloned().unwrap_or_default();
    let scopes: Vec<&str> = q
        .get("scope")
        .map(|s| s.split(' ').collect())
        .unwrap_or_default();
    if get("client_id") != tenant.client_id
        || get("response_type") != "code"
        || !scopes.contains(&"openid")
        || get("code_challenge_method") != "S256"
        || get("code_challenge").len() != 43
        || get("nonce").is_empty()
        || get("state").is_empty()
        || get("redirect_uri").is_empty()
    {
        return bad_request("invalid_request");
    }
    let code = format!("code-{}", b64url(&rand::random::<[u8; 16]>()));
    shared.codes.lock().expect("codes").insert(
        code.clone(),
        Issued {
            tenant: name,
            client_id: tenant.client_id,
            redirect_uri: get("redirect_uri"),
            challenge: get("code_challenge"),
            nonce: get("nonce"),
            user: tenant.user,
        },
    );
    let redirect_uri = get("redirect_uri");
    if get("response_mode") == "form_post" {
        // What Apple does: an auto-submitting form (the test's browser submits it).
        let field =
            |k: &str, v: &str| format!("<input type=\"hidden\" name=\"{k}\" value=\"{v}\">");
        return HttpResponse::Ok().content_type("text/html").body(format!(
            "<form method=\"post\" action=\"{redirect_uri}\">{}{}{}</form>",
            field("code", &code),
            field("state", &get("state")),
            field(
                "user",
                "{&quot;name&quot;:{&quot;firstName&quot;:&quot;Alice&quot;}}"
            ),
        ));
    }
    let mut back = url::Url::parse(&redirect_uri).expect("a redirect URI");
    back.query_pairs_mut()
        .append_pair("code", &code)
        .append_pair("state", &get("state"));
    HttpResponse::Found()
        .insert_header(("location", back.to_string()))
        .finish()
}

/// Checks an Apple-style client secret: an ES256 JWT by the team's key, for this client
/// and issuer, not expired.
fn apple_secret_is_valid(secret: &str, tenant: &Tenant, issuer: &str) -> bool {
    let Some((team_id, key_id, public_key)) = &tenant.apple else {
        return false;
    };
    let parts: Vec<&str> = secret.split('.').collect();
    let [header, claims, signature] = parts[..] else {
        return false;
    };
    let (Some(h), Some(c), Some(sig)) = (unb64url(header), unb64url(claims), unb64url(signature))
    else {
        return false;
    };
    let (Ok(h), Ok(c)) = (
        serde_json::from_slice::<Value>(&h),
        serde_json::from_slice::<Value>(&c),
    ) else {
        return false;
    };
    let key = ring::signature::UnparsedPublicKey::new(
        &ring::signature::ECDSA_P256_SHA256_FIXED,
        public_key,
    );
    h["alg"] == "ES256"
        && h["kid"] == key_id.as_str()
        && c["iss"] == team_id.as_str()
        && c["sub"] == tenant.client_id.as_str()
        && c["aud"] == issuer
        && c["exp"].as_u64().is_some_and(|exp| exp > now())
        && key
            .verify(format!("{header}.{claims}").as_bytes(), &sig)
            .is_ok()
}

async fn token(
    shared: web::Data<Shared>,
    path: web::Path<String>,
    req: HttpRequest,
    body: web::Bytes,
) -> HttpResponse {
    let name = path.into_inner();
    let Some(tenant) = tenant_of(&shared, &name) else {
        return HttpResponse::NotFound().finish();
    };
    let issuer = format!("{}/{name}", shared.base);
    let form = pairs(&body);
    let get = |k: &str| form.get(k).cloned().unwrap_or_default();
    // Client authentication: Basic (secret clients) or the ES256 JWT in the body.
    let basic = req
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .and_then(|v| base64::engine::general_purpose::STANDARD.decode(v).ok())
        .and_then(|v| String::from_utf8(v).ok());
    let authenticated = match &tenant.client_secret {
        Some(secret) => basic.is_some_and(|b| {
            let (id, given) = b.split_once(':').unwrap_or_default();
            let decode = |s: &str| {
                url::form_urlencoded::parse(format!("x={s}").as_bytes())
                    .next()
                    .map(|(_, v)| v.into_owned())
                    .unwrap_or_default()
            };
            decode(id) == tenant.client_id && decode(given) == *secret
        }),
        None => {
            let ok = get("client_id") == tenant.client_id
                && apple_secret_is_valid(&get("client_secret"), &tenant, &issuer);
            if ok {
                shared
                    .accepted_apple_secrets
                    .lock()
                    .expect("secrets")
                    .push(get("client_secret"));
            }
            ok
        }
    };
    if !authenticated {
        return HttpResponse::Unauthorized().json(json!({"error": "invalid_client"}));
    }
    if get("grant_type") != "authorization_code" {
        return bad_request("unsupported_grant_type");
    }
    let Some(issued) = shared.codes.lock().expect("codes").remove(&get("code")) else {
        return bad_request("invalid_grant");
    };
    let challenge = b64url(&Sha256::digest(get("code_verifier").as_bytes()));
    if issued.tenant != name
        || issued.client_id != tenant.client_id
        || issued.redirect_uri != get("redirect_uri")
        || issued.challenge != challenge
    {
        return bad_request("invalid_grant");
    }
    let now = now();
    let m = tenant.misbehaviour;
    let email_verified = if tenant.apple.is_some() {
        // Apple sends booleans as strings.
        json!("true")
    } else {
        json!(true)
    };
    let claims = json!({
        "iss": if m == Misbehaviour::WrongIssuer { format!("{}/elsewhere", shared.base) } else { issuer },
        "sub": issued.user.0,
        "aud": if m == Misbehaviour::WrongAudience { "another-client".to_owned() } else { issued.client_id },
        "exp": now + 300,
        "iat": now,
        "nonce": if m == Misbehaviour::WrongNonce { "ledger_nc_not-the-one".to_owned() } else { issued.nonce },
        "email": issued.user.1,
        "email_verified": email_verified,
    });
    HttpResponse::Ok()
        .insert_header(("cache-control", "no-store"))
        .json(json!({
            "access_token": format!("at-{}", b64url(&rand::random::<[u8; 16]>())),
            "token_type": "Bearer",
            "expires_in": 3600,
            "id_token": sign(&claims, m == Misbehaviour::BadSignature),
        }))
}
