//! Route table: spec section 4 paths, each to one handler.

pub(crate) mod accounts;
pub(crate) mod attachments;
pub(crate) mod categories;
pub(crate) mod contacts;
pub(crate) mod credits;
mod crud;
pub(crate) mod currencies;
pub(crate) mod deletions;
pub(crate) mod documents;
pub(crate) mod exchange_rates;
pub(crate) mod keys;
pub(crate) mod organization_transfers;
pub(crate) mod organizations;
pub(crate) mod pdf;
pub(crate) mod reconciliations;
pub(crate) mod recurring;
pub(crate) mod reports;
mod resource;
pub(crate) mod revaluations;
pub(crate) mod settings;
pub(crate) mod system;
pub(crate) mod system_info;
pub(crate) mod taxes;
pub(crate) mod transactions;
pub(crate) mod transfers;
pub(crate) mod webhooks;
pub(crate) mod x402;

use actix_web::http::Method;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{FromRequest, Handler, HttpRequest, HttpResponse, Responder, ResponseError, web};
use ledger_domain::DomainError;
use ledger_domain::error::ErrorCode;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::{Page, PageRequest, Store};
use ledger_domain::services::Access;

use crate::AppState;
use crate::auth::authenticate;
use crate::error::ApiError;

/// Shared state as handlers receive it.
pub(crate) type State<S> = web::Data<AppState<S>>;

/// Authenticates the request and clears it for `needed` on `resource` in `org`.
pub(crate) async fn access<S: Store>(
    state: &AppState<S>,
    req: &HttpRequest,
    org: &str,
    needed: Scope,
    resource: &str,
) -> Result<Access, ApiError> {
    let principal = authenticate(state, req).await?;
    Ok(state
        .ledger
        .authorize(&principal, org, needed, resource)
        .await?)
}

/// The list envelope of one page ([`views::List`]): `object`, `data` (each item through
/// `view`), `has_more` and `total_count`.
pub(crate) fn list_response<'r, T, V: serde::Serialize>(
    page: PageRequest,
    result: &'r Page<T>,
    view: impl Fn(&'r T) -> V,
) -> HttpResponse {
    let data: Vec<V> = result.items.iter().map(view).collect();
    HttpResponse::Ok().json(ledger_domain::views::List::page(
        data,
        page.offset,
        result.total_count,
    ))
}

/// One REST path and the methods it answers, as registered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteEntry {
    /// The path template (`/organizations/{org}/accounts`), as in the OpenAPI document.
    pub path: String,
    /// The methods registered on it (HEAD is served as GET by a middleware).
    pub methods: Vec<Method>,
}

/// The one way a REST route is registered: each path is one resource with all its
/// methods, whose other methods answer 405 with `Allow` and the error envelope, and the
/// path lands in the route table (which a test compares with the OpenAPI document).
/// Without a `ServiceConfig` it only builds the table.
pub(crate) struct Routes<'a> {
    cfg: Option<&'a mut web::ServiceConfig>,
    table: Vec<RouteEntry>,
    /// The resources under `/organizations/{org}/<family>/...`, by family in the order
    /// the families first appear, each family's in registration order: [`Routes::finish`]
    /// registers them as one scope per family inside one `/organizations/{org}` scope.
    scoped: Vec<(String, Vec<actix_web::Resource>)>,
}

/// The prefix of the per-organization paths, registered as one scope so a request is
/// matched against its family's few paths instead of every path in turn (actix tries
/// each pattern of a level in order; the pattern match was about 5% of the server's CPU
/// on a balance read).
const ORG_SCOPE: &str = "/organizations/{org}";

/// One path being registered: its resource and the methods added so far.
pub(crate) struct At {
    path: String,
    /// The path's family under `/organizations/{org}` ([`family_of`]), if any.
    family: Option<String>,
    resource: actix_web::Resource,
    methods: Vec<Method>,
}

/// The methods of [`At`] that add a handler for one HTTP method, each named after it.
macro_rules! http_methods {
    ($($name:ident $method:ident;)+) => {$(
        #[doc = concat!("Answers `", stringify!($method), "` on this path with `handler`.")]
        pub(crate) fn $name<F, Args>(self, handler: F) -> Self
        where
            F: Handler<Args>,
            Args: FromRequest + 'static,
            F::Output: Responder + 'static,
        {
            self.method(Method::$method, handler)
        }
    )+};
}

impl At {
    /// Data for the handlers of this path only.
    pub(crate) fn app_data<U: 'static>(mut self, data: U) -> Self {
        self.resource = self.resource.app_data(data);
        self
    }

    http_methods! {
        get GET;
        post POST;
        put PUT;
        patch PATCH;
        delete DELETE;
    }

    fn method<F, Args>(mut self, method: Method, handler: F) -> Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.resource = self.resource.route(web::method(method.clone()).to(handler));
        self.methods.push(method);
        self
    }
}

/// A path to register with [`Routes::add`].
pub(crate) fn at(path: impl Into<String>) -> At {
    let path = path.into();
    let (family, pattern) = match family_of(&path) {
        Some((family, rest)) => (Some(family.to_owned()), rest.to_owned()),
        None => (None, path.clone()),
    };
    At {
        resource: web::resource(pattern),
        path,
        family,
        methods: Vec::new(),
    }
}

/// For a path under `/organizations/{org}/`, its family (`/accounts`) and the rest of
/// the path after it (`/{id}/balance`, or empty for the family's own path).
fn family_of(path: &str) -> Option<(&str, &str)> {
    let below = path.strip_prefix(ORG_SCOPE)?;
    if !below.starts_with('/') || below.len() < 2 {
        return None;
    }
    let end = below[1..].find('/').map_or(below.len(), |i| i + 1);
    let (family, rest) = below.split_at(end);
    // A family must be a literal segment: a template there would have to be tried
    // against every request, which is what the scope avoids.
    (!family.contains('{')).then_some((family, rest))
}

impl Routes<'_> {
    /// Registers one path with its methods. Order matters as in actix: a literal path
    /// (`/transactions/batch`) goes before the template that would match it (`/{id}`).
    pub(crate) fn add(&mut self, at: At) -> &mut Self {
        let allow = allow_header(&at.methods);
        if let Some(cfg) = self.cfg.as_deref_mut() {
            let resource = at.resource.default_service(web::to(move || {
                let allow = allow.clone();
                async move { method_not_allowed(allow) }
            }));
            match at.family {
                Some(family) => match self.scoped.iter_mut().find(|(f, _)| *f == family) {
                    Some((_, resources)) => resources.push(resource),
                    None => self.scoped.push((family, vec![resource])),
                },
                None => {
                    cfg.service(resource);
                }
            }
        }
        self.table.push(RouteEntry {
            path: at.path,
            methods: at.methods,
        });
        self
    }

    /// Registers the per-organization resources collected by [`Routes::add`]: one
    /// `/organizations/{org}` scope holding one scope per family. Families are distinct
    /// literal segments, so their order does not matter; within a family the order of
    /// registration is kept. A path no family resource matches falls to the app's
    /// default service (404 in the envelope), as without scopes.
    fn finish(self) {
        let Some(cfg) = self.cfg else { return };
        if self.scoped.is_empty() {
            return;
        }
        let mut organization = web::scope(ORG_SCOPE);
        for (family, resources) in self.scoped {
            let mut scope = web::scope(&family);
            for resource in resources {
                scope = scope.service(resource);
            }
            organization = organization.service(scope);
        }
        cfg.service(organization);
    }
}

/// The `Allow` value of a path's methods; GET brings HEAD (served as GET).
fn allow_header(methods: &[Method]) -> HeaderValue {
    let mut names: Vec<&str> = methods.iter().map(Method::as_str).collect();
    if methods.contains(&Method::GET) {
        names.push("HEAD");
    }
    HeaderValue::from_str(&names.join(", ")).unwrap_or(HeaderValue::from_static("GET"))
}

/// A method the path does not take: 405 in the error envelope, with `Allow`.
fn method_not_allowed(allow: HeaderValue) -> HttpResponse {
    let message = format!("this path takes {}", allow.to_str().unwrap_or_default());
    let mut response = crate::error::ApiError(DomainError::Validation {
        code: ErrorCode::MethodNotAllowed,
        field: None,
        message,
    })
    .error_response();
    response.headers_mut().insert(header::ALLOW, allow);
    response
}

/// Registers every REST route on `cfg`.
pub(crate) fn configure<S: Store>(cfg: &mut web::ServiceConfig) {
    let mut routes = Routes {
        cfg: Some(&mut *cfg),
        table: Vec::new(),
        scoped: Vec::new(),
    };
    register::<S>(&mut routes);
    routes.finish();
    // Not API operations: the development checkout pages and the payment provider's
    // webhook stay outside the registrar, as the other pages do (docs/decisions.md).
    credits::configure_pages::<S>(cfg);
}

/// The REST route table, as [`configure`] registers it.
pub(crate) fn table<S: Store>() -> Vec<RouteEntry> {
    let mut routes = Routes {
        cfg: None,
        table: Vec::new(),
        scoped: Vec::new(),
    };
    register::<S>(&mut routes);
    routes.table
}

fn register<S: Store>(cfg: &mut Routes<'_>) {
    system::configure::<S>(cfg);
    organizations::configure::<S>(cfg);
    organization_transfers::configure::<S>(cfg);
    accounts::configure::<S>(cfg);
    transactions::configure::<S>(cfg);
    contacts::configure::<S>(cfg);
    documents::configure::<S>(cfg);
    reports::configure::<S>(cfg);
    keys::configure::<S>(cfg);
    settings::configure::<S>(cfg);
    taxes::configure::<S>(cfg);
    categories::configure::<S>(cfg);
    transfers::configure::<S>(cfg);
    revaluations::configure::<S>(cfg);
    deletions::configure::<S>(cfg);
    system_info::configure::<S>(cfg);
    exchange_rates::configure::<S>(cfg);
    attachments::configure::<S>(cfg);
    reconciliations::configure::<S>(cfg);
    currencies::configure::<S>(cfg);
    recurring::configure::<S>(cfg);
    webhooks::configure::<S>(cfg);
    credits::configure::<S>(cfg);
    x402::configure::<S>(cfg);
}
