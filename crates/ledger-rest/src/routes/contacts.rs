//! Contacts (spec 4.7): create, update and delete are queued (DECISIONS 4); the list is
//! the bare array of summaries the spec shows (DECISIONS 10).

use actix_web::{HttpRequest, HttpResponse};
use ledger_domain::contacts::{ContactChanges, ContactFilter, ContactType};
use ledger_domain::error::ErrorCode;
use ledger_domain::ports::{PageRequest, Store};
use ledger_domain::services::{Access, NewContactInput, Write};
use ledger_domain::views;
use serde::Deserialize;

use super::crud::{Crud, crud_operations};
use super::resource::required;
use crate::AppState;
use crate::error::{ApiError, validation};
use crate::input::{query_bool, query_param};

crud_operations! {
    Contacts, tag "contacts", schemas Contact, _;
    paths "/organizations/{org}/contacts", "/organizations/{org}/contacts/{id}";
    create "contacts_create": "Create a contact",
        "Creates a customer or a supplier, with its contact details and addresses.";
    get "contacts_get": "Get a contact", "Returns one contact with its details.";
    update "contacts_update": "Update a contact",
        "Changes a contact's details, or disables it so that no new document can name it.";
    delete "contacts_delete": "Delete a contact",
        "Soft-deletes a contact that no live transaction references.";
    list "contacts_list": "List contacts",
        "Lists the organization's customers and suppliers, oldest first, filtered by type, by whether they are enabled, or by a search text.",
        filters(
            ("contact_type" = Option<String>, Query, description = "Filter by contact type."),
            ("type" = Option<String>, Query, description = "Filter by type."),
            ("enabled" = Option<String>, Query, description = "Filter by enabled."),
            ("search" = Option<String>, Query, description = "Filter by search."),
        ),
        answers(
            description = "The contacts of the page, as summaries (a bare array, spec 4.7).",
            body = [crate::openapi::schemas::ContactSummary],
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

struct Contacts;

impl Crud for Contacts {
    const RESOURCE: &'static str = "contacts";
    type CreateBody = CreateBody;
    type UpdateBody = UpdateBody;

    fn create(input: CreateBody) -> Result<Write, ApiError> {
        Ok(Write::CreateContact(NewContactInput {
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
        }))
    }

    fn update(id: String, input: UpdateBody) -> Result<Write, ApiError> {
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
    }

    fn delete(id: String) -> Write {
        Write::DeleteContact { id }
    }

    async fn get<S: Store>(
        state: &AppState<S>,
        access: &Access,
        id: &str,
    ) -> Result<HttpResponse, ApiError> {
        let contact = state.ledger.get_contact(access, id).await?;
        Ok(HttpResponse::Ok().json(views::contact(&contact)))
    }

    /// The bare array of the page's summaries (spec 4.7), filtered by type, by whether
    /// they are enabled (`true` unless the query says; `all` lists both) and by a search
    /// text.
    async fn list<S: Store>(
        state: &AppState<S>,
        req: &HttpRequest,
        access: &Access,
        page: PageRequest,
    ) -> Result<HttpResponse, ApiError> {
        let contact_type = query_param(req, "contact_type")
            .or_else(|| query_param(req, "type"))
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
        let enabled = if query_param(req, "enabled").as_deref() == Some("all") {
            None
        } else {
            Some(query_bool(req, "enabled")?.unwrap_or(true))
        };
        let filter = ContactFilter {
            contact_type,
            enabled,
            search: query_param(req, "search"),
        };
        let result = state.ledger.list_contacts(access, &filter, page).await?;
        let summaries: Vec<serde_json::Value> =
            result.items.iter().map(views::contact_summary).collect();
        Ok(HttpResponse::Ok().json(summaries))
    }
}
