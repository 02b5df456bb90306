//! Contacts (spec 4.7): create, update and delete are queued (DECISIONS 4); the list is
//! the bare array of summaries the spec shows (DECISIONS 10).

use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::contacts::{ContactChanges, ContactFilter, ContactType};
use ledger_domain::error::ErrorCode;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{NewContactInput, Write};
use ledger_domain::views;
use serde::Deserialize;

use super::resource::{list_access, queue_admin_write, queue_create, queue_update, required};
use super::{Routes, State, access, at};
use crate::error::{ApiError, validation};
use crate::input::{query_bool, query_param};

pub(super) fn configure<S: Store>(r: &mut Routes<'_>) {
    r.add(
        at("/organizations/{org}/contacts")
            .get(list::<S>)
            .post(create::<S>),
    )
    .add(
        at("/organizations/{org}/contacts/{id}")
            .get(get::<S>)
            .put(update::<S>)
            .delete(delete::<S>),
    );
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = ContactCreateRequest)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    #[schema(required = true, schema_with = crate::openapi::contact_type)]
    contact_type: Option<String>,
    #[schema(required = true, schema_with = crate::openapi::name)]
    name: Option<String>,
    #[schema(schema_with = crate::openapi::optional_email)]
    email: Option<String>,
    #[schema(schema_with = crate::openapi::optional_text_255)]
    phone: Option<String>,
    #[schema(schema_with = crate::openapi::optional_website)]
    website: Option<String>,
    #[schema(schema_with = crate::openapi::optional_text_255)]
    tax_number: Option<String>,
    /// Unique among the organization's contacts.
    #[schema(schema_with = crate::openapi::optional_text_255)]
    reference: Option<String>,
    #[schema(schema_with = crate::openapi::optional_text_255)]
    address: Option<String>,
    #[schema(schema_with = crate::openapi::optional_text_255)]
    city: Option<String>,
    #[schema(schema_with = crate::openapi::optional_text_255)]
    state: Option<String>,
    #[schema(schema_with = crate::openapi::optional_text_255)]
    zip_code: Option<String>,
    #[schema(schema_with = crate::openapi::optional_country)]
    country: Option<String>,
    #[schema(schema_with = crate::openapi::optional_currency_code)]
    currency_id: Option<String>,
    #[schema(schema_with = crate::openapi::optional_object)]
    metadata: Option<serde_json::Value>,
}

#[utoipa::path(
    post,
    path = "/organizations/{org}/contacts",
    operation_id = "contacts_create",
    tag = "contacts",
    summary = "Create a contact",
    description = "Creates a customer or a supplier, with its contact details and addresses.",
    params(crate::openapi::params::QueuedWrite),
    request_body(content = CreateBody, content_type = "application/json"),
    responses(
        (status = 201, description = "Created.", body = crate::openapi::schemas::Contact),
    ),
)]
async fn create<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    queue_create(
        &state,
        &req,
        path,
        payload,
        Scope::Write,
        "contacts",
        |input: CreateBody| {
            let input = NewContactInput {
                contact_type: required(input.contact_type, "contact_type")?,
                name: required(input.name, "name")?,
                email: input.email,
                phone: input.phone,
                website: input.website,
                tax_number: input.tax_number,
                reference: input.reference,
                address: input.address,
                city: input.city,
                state: input.state,
                zip_code: input.zip_code,
                country: input.country,
                currency_id: input.currency_id,
                metadata: input.metadata,
            };
            Ok(Write::CreateContact(input))
        },
    )
    .await
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/contacts/{id}",
    operation_id = "contacts_get",
    tag = "contacts",
    summary = "Get a contact",
    description = "Returns one contact with its details.",
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Contact),
    ),
)]
async fn get<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = path.into_inner();
    let access = access(&state, &req, &org, Scope::Read, "contacts").await?;
    let contact = state.ledger.get_contact(&access, &id).await?;
    Ok(HttpResponse::Ok().json(views::contact(&contact)))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/contacts",
    operation_id = "contacts_list",
    tag = "contacts",
    summary = "List contacts",
    description = "Lists the organization's customers and suppliers, oldest first, filtered by type, by whether they are enabled, or by a search text.",
    params(
        ("contact_type" = Option<String>, Query, description = "Filter by contact type."),
        ("type" = Option<String>, Query, description = "Filter by type."),
        ("enabled" = Option<String>, Query, description = "Filter by enabled."),
        ("search" = Option<String>, Query, description = "Filter by search."),
        crate::openapi::params::Paging,
    ),
    responses(
        (status = 200, description = "The contacts of the page, as summaries (a bare array, spec 4.7).", body = [crate::openapi::schemas::ContactSummary]),
    ),
)]
async fn list<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (access, page) = list_access(&state, &req, path, "contacts", 20).await?;
    let contact_type = query_param(&req, "contact_type")
        .or_else(|| query_param(&req, "type"))
        .map(|t| {
            ContactType::parse(&t).ok_or_else(|| {
                validation(
                    ErrorCode::InvalidField,
                    Some("contact_type".into()),
                    "contact_type must be customer, vendor, employee or other",
                )
            })
        })
        .transpose()?;
    // `enabled` defaults to true (spec 4.7); `all` lists both.
    let enabled = if query_param(&req, "enabled").as_deref() == Some("all") {
        None
    } else {
        Some(query_bool(&req, "enabled")?.unwrap_or(true))
    };
    let filter = ContactFilter {
        contact_type,
        enabled,
        search: query_param(&req, "search"),
    };
    let result = state.ledger.list_contacts(&access, &filter, page).await?;
    let summaries: Vec<serde_json::Value> =
        result.items.iter().map(views::contact_summary).collect();
    Ok(HttpResponse::Ok().json(summaries))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = ContactUpdateRequest)]
#[serde(deny_unknown_fields)]
struct UpdateBody {
    /// Read only to refuse it by name: a contact's type never changes, so the document
    /// leaves it out of the changes a client may send.
    #[schema(ignore)]
    contact_type: Option<serde_json::Value>,
    #[schema(schema_with = crate::openapi::optional_name)]
    name: Option<String>,
    #[schema(schema_with = crate::openapi::optional_email)]
    email: Option<String>,
    #[schema(schema_with = crate::openapi::optional_text_255)]
    phone: Option<String>,
    #[schema(schema_with = crate::openapi::optional_website)]
    website: Option<String>,
    #[schema(schema_with = crate::openapi::optional_text_255)]
    tax_number: Option<String>,
    /// Unique among the organization's contacts.
    #[schema(schema_with = crate::openapi::optional_text_255)]
    reference: Option<String>,
    #[schema(schema_with = crate::openapi::optional_text_255)]
    address: Option<String>,
    #[schema(schema_with = crate::openapi::optional_text_255)]
    city: Option<String>,
    #[schema(schema_with = crate::openapi::optional_text_255)]
    state: Option<String>,
    #[schema(schema_with = crate::openapi::optional_text_255)]
    zip_code: Option<String>,
    #[schema(schema_with = crate::openapi::optional_country)]
    country: Option<String>,
    #[schema(schema_with = crate::openapi::optional_currency_code)]
    currency_id: Option<String>,
    enabled: Option<bool>,
    #[schema(schema_with = crate::openapi::optional_object)]
    metadata: Option<serde_json::Value>,
}

#[utoipa::path(
    put,
    path = "/organizations/{org}/contacts/{id}",
    operation_id = "contacts_update",
    tag = "contacts",
    summary = "Update a contact",
    description = "Changes a contact's details, or disables it so that no new document can name it.",
    params(crate::openapi::params::QueuedWrite),
    request_body(content = UpdateBody, content_type = "application/json"),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Contact),
    ),
)]
async fn update<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    queue_update(
        &state,
        &req,
        path,
        payload,
        Scope::Write,
        "contacts",
        |id, input: UpdateBody| {
            if input.contact_type.is_some() {
                return Err(validation(
                    ErrorCode::InvalidField,
                    Some("contact_type".into()),
                    "contact_type cannot be changed",
                ));
            }
            let changes = ContactChanges {
                name: input.name,
                email: input.email,
                phone: input.phone,
                website: input.website,
                tax_number: input.tax_number,
                reference: input.reference,
                address: input.address,
                city: input.city,
                state: input.state,
                zip_code: input.zip_code,
                country: input.country,
                currency_id: input.currency_id,
                enabled: input.enabled,
                metadata: input.metadata,
            };
            Ok(Write::UpdateContact { id, changes })
        },
    )
    .await
}

#[utoipa::path(
    delete,
    path = "/organizations/{org}/contacts/{id}",
    operation_id = "contacts_delete",
    tag = "contacts",
    summary = "Delete a contact",
    description = "Soft-deletes a contact that no live transaction references.",
    params(crate::openapi::params::QueuedWrite),
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Deleted),
    ),
    security(("api_key" = []), ("oauth2" = ["ledger:admin"])),
)]
async fn delete<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    queue_admin_write(&state, &req, path, "contacts", |id| Write::DeleteContact {
        id,
    })
    .await
}
