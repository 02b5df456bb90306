//! The conventions applied to every operation here instead of being repeated on each:
//! the path parameters and default scope its path and method imply ([`implied`]), the
//! security schemes, the shared error responses ([`errors`]), the copies of paths served
//! twice ([`aliases`]), the constraints of the shared parameters
//! ([`parameters`]), the 202 answer of a queued write ([`queued`]) and the links from a
//! create or a queued write ([`links`]); and the
//! transaction schemas derived from the create body.

mod aliases;
mod errors;
mod implied;
mod links;
mod parameters;
mod queued;

use utoipa::Modify;
use utoipa::openapi::schema::Schema;
use utoipa::openapi::security::{
    AuthorizationCode, Flow, HttpAuthScheme, HttpBuilder, OAuth2, Scopes, SecurityScheme,
};
use utoipa::openapi::{Components, RefOr};

/// The OAuth 2.0 authorization-code scheme (PKCE S256) of the authorization server at
/// `issuer` (relative to the API when empty).
pub(super) fn oauth2(issuer: &str) -> SecurityScheme {
    SecurityScheme::OAuth2(OAuth2::with_description(
        [Flow::AuthorizationCode(AuthorizationCode::new(
            format!("{issuer}/authorize"),
            format!("{issuer}/token"),
            Scopes::from_iter([
                ("ledger:read", "Read the organization's data."),
                ("ledger:write", "Create and change records."),
                (
                    "ledger:admin",
                    "Delete records, manage keys, webhooks and settings.",
                ),
            ]),
        ))],
        "OAuth 2.1 authorization code with PKCE (S256); the access token is a bearer token.",
    ))
}

/// Applies the shared conventions to the generated document.
pub(super) struct Conventions;

impl Modify for Conventions {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        add_security_schemes(components);
        add_transaction_variants(components);
        errors::add_responses(components);
        aliases::add_deprecated_aliases(openapi);
        aliases::add_prefixed_copies(openapi);
        let get_operations = links::get_operation_ids(openapi);
        for (path, item) in openapi.paths.paths.iter_mut() {
            for (method, operation) in [
                ("get", item.get.as_mut()),
                ("put", item.put.as_mut()),
                ("post", item.post.as_mut()),
                ("delete", item.delete.as_mut()),
                ("patch", item.patch.as_mut()),
            ] {
                if let Some(operation) = operation {
                    implied::add_path_parameters(path, operation);
                    implied::add_default_security(method, operation);
                    parameters::constrain_parameters(path, operation);
                    queued::add_queued_answer(operation);
                    errors::add_errors(method, operation);
                    links::add_links(path, operation, &get_operations);
                }
            }
        }
    }
}

/// The schemes an operation names: an API key, the operator's admin token and OAuth.
fn add_security_schemes(components: &mut Components) {
    components.add_security_scheme(
        "api_key",
        SecurityScheme::Http(
            HttpBuilder::new()
                .scheme(HttpAuthScheme::Bearer)
                .bearer_format("API key")
                .description(Some(
                    "An API key of the organization (`sk_test_...` or `sk_live_...`)                          as a bearer token.",
                ))
                .build(),
        ),
    );
    components.add_security_scheme(
        "admin_token",
        SecurityScheme::Http(
            HttpBuilder::new()
                .scheme(HttpAuthScheme::Bearer)
                .description(Some(
                    "The operator's admin token, which allows sign-up when it is not open.",
                ))
                .build(),
        ),
    );
    components.add_security_scheme("oauth2", oauth2(""));
}

/// Adds the schemas derived from the transaction create body: a batch item
/// (`TransactionInput`) is the create body without `dry_run` (a batch is written all or
/// none); a transaction schedule's template (`TransactionTemplate`) is that too, with its
/// `date` optional (each run dates the transaction it makes).
fn add_transaction_variants(components: &mut Components) {
    if let Some(RefOr::T(Schema::Object(create))) =
        components.schemas.get("TransactionCreateRequest")
    {
        let mut input = create.clone();
        input.properties.remove("dry_run");
        input.title = Some("TransactionInput".to_owned());
        input.description =
            Some("A transaction as a batch item: the create body without `dry_run`.".to_owned());
        let mut template = input.clone();
        template.required.retain(|member| member != "date");
        template.title = Some("TransactionTemplate".to_owned());
        template.description = Some(
            "A transaction schedule's template: the create body without `dry_run`; its \
             `date` is ignored (each run dates the transaction it makes)."
                .to_owned(),
        );
        components.schemas.insert(
            "TransactionInput".to_owned(),
            RefOr::T(Schema::Object(input)),
        );
        components.schemas.insert(
            "TransactionTemplate".to_owned(),
            RefOr::T(Schema::Object(template)),
        );
    }
}
