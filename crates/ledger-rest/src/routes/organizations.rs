//! Sign-up of root organizations and sub-organizations (DECISIONS 3).

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::DomainError;
use ledger_domain::error::ErrorCode;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{MasterSignup, SubSignup};
use ledger_domain::views;
use serde::Deserialize;

use super::resource::organization_access;
use super::{Routes, State, at, list_response};
use crate::auth::{authenticate, generate_key, is_operator};
use crate::error::ApiError;
use crate::input::{parse_json, read_body};

pub(super) fn configure<S: Store>(r: &mut Routes<'_>) {
    r.add(at("/accounts/master").post(master::<S>))
        .add(at("/accounts/sub").post(sub::<S>))
        .add(at("/organizations/{org}").get(get_organization::<S>))
        .add(at("/organizations/{org}/sub-organizations").get(sub_organizations::<S>));
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = OrganizationMasterRequest)]
#[serde(deny_unknown_fields)]
struct MasterBody {
    #[schema(schema_with = crate::openapi::name)]
    name: String,
    #[schema(schema_with = crate::openapi::name)]
    user_provider_id: String,
    #[schema(
        pattern = "^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+$",
        max_length = 254
    )]
    user_email: String,
    provider_username: Option<String>,
    #[schema(schema_with = crate::openapi::optional_currency_code)]
    base_currency: Option<String>,
}

#[utoipa::path(
    post,
    path = "/accounts/master",
    operation_id = "organizations_master",
    tag = "organizations",
    summary = "Sign up: a root organization, its user and its first keys",
    description = "Creates a root organization with its chart of accounts, the user who owns it, and a test key and a live key, both shown once in the answer. Open to anyone when sign-up is open; otherwise it needs the operator's admin token.",
    request_body(content = MasterBody, content_type = "application/json"),
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::Signup),
    ),
    security((), ("admin_token" = [])),
)]
async fn master<S: Store>(
    state: State<S>,
    req: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    if !state.open_signup && !is_operator(state.admin_token.as_deref(), &req) {
        return Err(ApiError(DomainError::Authentication {
            code: ErrorCode::Unauthorized,
            message: "sign-up needs the admin token".into(),
        }));
    }
    let body = read_body(payload).await?;
    let input: MasterBody = parse_json(&req, &body)?;
    let result = state
        .ledger
        .sign_up_master(MasterSignup {
            name: input.name,
            user_provider_id: input.user_provider_id,
            user_email: input.user_email,
            provider_username: input.provider_username,
            base_currency: input.base_currency,
            test_key: generate_key(false)?,
            live_key: generate_key(true)?,
        })
        .await?;
    Ok(HttpResponse::build(StatusCode::CREATED).json(views::SignupView::of(&result)))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = OrganizationSubRequest)]
#[serde(deny_unknown_fields)]
struct SubBody {
    #[schema(schema_with = crate::openapi::text)]
    parent_organization_id: String,
    #[schema(schema_with = crate::openapi::name)]
    name: String,
    relationship_type: String,
}

#[utoipa::path(
    post,
    path = "/accounts/sub",
    operation_id = "organizations_sub",
    tag = "organizations",
    summary = "Create a sub-organization",
    description = "Creates an organization under `parent_organization_id` (one the caller's key reaches), with one API key in the caller's mode, shown once in the answer.",
    request_body(content = SubBody, content_type = "application/json"),
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::Signup),
    ),
)]
async fn sub<S: Store>(
    state: State<S>,
    req: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&state, &req).await?;
    let body = read_body(payload).await?;
    let input: SubBody = parse_json(&req, &body)?;
    let key = generate_key(principal.key.livemode)?;
    let result = state
        .ledger
        .sign_up_sub(
            &principal,
            SubSignup {
                parent_organization_id: input.parent_organization_id,
                name: input.name,
                relationship_type: input.relationship_type,
                key,
            },
        )
        .await?;
    Ok(HttpResponse::build(StatusCode::CREATED).json(views::SignupView::of(&result)))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}",
    operation_id = "organizations_get_organization",
    tag = "organizations",
    summary = "Get an organization",
    description = "Returns the organization: its name, base currency, parent and relationship to it, and the credits left.",
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Organization),
    ),
)]
async fn get_organization<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let access = organization_access(&state, &req, path, Scope::Read, "organizations").await?;
    let organization = state.ledger.current_organization(&access).await?;
    Ok(HttpResponse::Ok().json(views::OrganizationView::of(&organization)))
}

/// `GET /organizations/{org}/sub-organizations`: every organization below, at any depth,
/// in tree order, each with its `depth` below `{org}` (1 for a child) and its
/// relationship (DECISIONS 7).
#[utoipa::path(
    get,
    path = "/organizations/{org}/sub-organizations",
    operation_id = "organizations_sub_organizations",
    tag = "organizations",
    summary = "List the sub-organizations",
    description = "Lists the organizations directly below this one.",
    params(crate::openapi::params::Paging),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::OrganizationList),
    ),
)]
async fn sub_organizations<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let access = organization_access(&state, &req, path, Scope::Read, "organizations").await?;
    let page = crate::input::page(&req, 50)?;
    let found = state.ledger.list_sub_organizations(&access, page).await?;
    Ok(list_response(page, &found, |(organization, depth)| {
        views::SubOrganizationView::of(organization, *depth)
    }))
}
