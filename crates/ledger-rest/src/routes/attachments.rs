//! Attachments on transactions, invoices and bills (issue 18): multipart upload, an
//! owner's list, metadata, download and delete. Uploads and deletes are synchronous
//! writes through the pipeline; the handler only streams the `file` part under the size
//! cap, and the domain sniffs, checks and stores it.

use actix_multipart::Multipart;
use actix_web::http::StatusCode;
use actix_web::http::header::{self, ContentDisposition, DispositionParam, DispositionType};
use actix_web::{HttpRequest, HttpResponse, web};
use futures_util::StreamExt;
use ledger_domain::attachments::{OwnerKind, sha256_hex};
use ledger_domain::error::ErrorCode;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{NewAttachmentInput, Write};
use ledger_domain::views;

use super::resource::{queue_admin_write, resource_access};
use super::{Routes, State, at};
use crate::error::{ApiError, validation};
use crate::queued::submit;

const RESOURCE: &str = "attachments";

pub(super) fn configure<S: Store>(r: &mut Routes<'_>) {
    for (segment, kind) in [
        ("transactions", OwnerKind::Transaction),
        ("invoices", OwnerKind::Invoice),
        ("bills", OwnerKind::Bill),
    ] {
        r.add(
            at(format!(
                "/organizations/{{org}}/{segment}/{{id}}/attachments"
            ))
            .app_data(web::Data::new(kind))
            .get(list::<S>)
            .post(upload::<S>),
        );
    }
    r.add(
        at("/organizations/{org}/attachments/{id}")
            .get(get::<S>)
            .delete(delete::<S>),
    )
    .add(at("/organizations/{org}/attachments/{id}/content").get(content::<S>));
}

fn not_multipart() -> ApiError {
    validation(
        ErrorCode::UnsupportedMediaType,
        None,
        "send multipart/form-data with the file in a part named `file`",
    )
}

fn broken(e: &actix_multipart::MultipartError) -> ApiError {
    validation(
        ErrorCode::InvalidField,
        Some("file".into()),
        format!("file: the multipart body could not be read: {e}"),
    )
}

/// The one `file` part of a multipart body: its file name and bytes, read up to `limit`
/// bytes (reading stops at the first byte over it).
async fn read_file(mut parts: Multipart, limit: usize) -> Result<(String, Vec<u8>), ApiError> {
    let mut file: Option<(String, Vec<u8>)> = None;
    while let Some(part) = parts.next().await {
        let mut part = part.map_err(|e| match e {
            actix_multipart::MultipartError::ContentTypeMissing
            | actix_multipart::MultipartError::ContentTypeParse
            | actix_multipart::MultipartError::ContentTypeIncompatible
            | actix_multipart::MultipartError::BoundaryMissing => not_multipart(),
            other => broken(&other),
        })?;
        let name = part.name().unwrap_or_default().to_owned();
        if name != "file" {
            return Err(validation(
                ErrorCode::UnknownField,
                Some(name.clone()),
                format!("{name}: unknown part; send the file in a part named `file`"),
            ));
        }
        if file.is_some() {
            return Err(validation(
                ErrorCode::InvalidField,
                Some("file".into()),
                "file: send one file per upload",
            ));
        }
        let file_name = part
            .content_disposition()
            .and_then(|d| d.get_filename())
            .unwrap_or_default()
            .to_owned();
        let mut bytes = Vec::new();
        while let Some(chunk) = part.next().await {
            let chunk = chunk.map_err(|e| broken(&e))?;
            if bytes.len() + chunk.len() > limit {
                return Err(ledger_domain::services::attachment_too_large(limit).into());
            }
            bytes.extend_from_slice(&chunk);
        }
        file = Some((file_name, bytes));
    }
    file.ok_or_else(|| {
        validation(
            ErrorCode::MissingField,
            Some("file".into()),
            "file is required",
        )
    })
}

async fn upload<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    kind: web::Data<OwnerKind>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (access, owner_id) = resource_access(&state, &req, path, Scope::Write, RESOURCE).await?;
    let limit = state.ledger.config.max_attachment_bytes;
    let parts = Multipart::new(req.headers(), payload.into_inner());
    let (file_name, bytes) = read_file(parts, limit).await?;
    // The Idempotency-Key fingerprint: what the upload is, not how it was framed (a
    // client's multipart boundary differs on every retry).
    let fingerprint = format!("{file_name}\n{}", sha256_hex(&bytes));
    let write = Write::CreateAttachment(NewAttachmentInput {
        owner_type: *kind.get_ref(),
        owner_id,
        file_name,
        bytes,
    });
    submit(
        &state,
        &req,
        &access,
        fingerprint.as_bytes(),
        StatusCode::CREATED,
        write,
    )
    .await
}

async fn list<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    kind: web::Data<OwnerKind>,
) -> Result<HttpResponse, ApiError> {
    let (access, owner_id) = resource_access(&state, &req, path, Scope::Read, RESOURCE).await?;
    let found = state
        .ledger
        .list_attachments(&access, *kind.get_ref(), &owner_id)
        .await?;
    let data: Vec<_> = found.iter().map(views::AttachmentView::of).collect();
    Ok(HttpResponse::Ok().json(views::List::all(data)))
}

#[utoipa::path(
    get,
    path = "/organizations/{org}/attachments/{id}",
    operation_id = "attachments_get",
    tag = "attachments",
    summary = "Get an attachment",
    description = "Returns an attachment's metadata: file name, media type (sniffed from the bytes), size, SHA-256, what it is attached to, and the path to download it from.",
    responses(
        (status = 200, description = "The resource.", body = crate::openapi::schemas::Attachment),
    ),
)]
async fn get<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (access, id) = resource_access(&state, &req, path, Scope::Read, RESOURCE).await?;
    let attachment = state.ledger.get_attachment(&access, &id).await?;
    Ok(HttpResponse::Ok().json(views::AttachmentView::of(&attachment)))
}

/// The bytes, with the sniffed content type, the file name and the checksum as ETag.
#[utoipa::path(
    get,
    path = "/organizations/{org}/attachments/{id}/content",
    operation_id = "attachments_content",
    tag = "attachments",
    summary = "Download an attachment",
    description = "Downloads the attached file as it was uploaded, with its media type.",
    responses(
        (status = 200, description = "The file's bytes, with its content type.", content_type = "application/octet-stream", body = String),
    ),
)]
async fn content<S: Store>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (access, id) = resource_access(&state, &req, path, Scope::Read, RESOURCE).await?;
    let (attachment, bytes) = state.ledger.attachment_content(&access, &id).await?;
    let etag = format!("\"{}\"", attachment.sha256);
    let unchanged = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
    if unchanged {
        return Ok(HttpResponse::NotModified()
            .insert_header((header::ETAG, etag))
            .finish());
    }
    let disposition = ContentDisposition {
        disposition: DispositionType::Attachment,
        parameters: vec![DispositionParam::Filename(attachment.file_name.clone())],
    };
    Ok(HttpResponse::Ok()
        .content_type(attachment.content_type.as_str())
        .insert_header(disposition)
        .insert_header((header::ETAG, etag))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header(("X-Checksum-Sha256", attachment.sha256.as_str()))
        .body(bytes))
}

#[utoipa::path(
    delete,
    path = "/organizations/{org}/attachments/{id}",
    operation_id = "attachments_delete",
    tag = "attachments",
    summary = "Delete an attachment",
    description = "Soft-deletes an attachment and removes its stored bytes.",
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
    queue_admin_write(&state, &req, path, RESOURCE, |id| Write::DeleteAttachment {
        id,
    })
    .await
}

/// The OpenAPI operations of [`upload`] and [`list`], which serve every owner kind: for
/// each, a function named after the operation that only carries its `#[utoipa::path]`,
/// under the owner's path and with its name (`a transaction`) in the texts.
macro_rules! owner_operations {
    ($($owners:literal $owner:literal: $upload:ident, $list:ident;)+) => {$(
        #[utoipa::path(
            post,
            path = concat!("/organizations/{org}/", $owners, "/{id}/attachments"),
            operation_id = concat!("attachments_upload_", $owners),
            tag = "attachments",
            summary = concat!("Attach a file to ", $owner),
            description = concat!(
                "Attaches one file to ", $owner, " (a multipart upload with a single `file` part)."
            ),
            params(crate::openapi::params::QueuedWrite),
            request_body(content = crate::openapi::schemas::FileUpload, content_type = "multipart/form-data", description = "The file, as one multipart part."),
            responses(
                (status = 201, description = "Created.", body = crate::openapi::schemas::Attachment),
            ),
        )]
        #[expect(dead_code, reason = "the OpenAPI operation of a handler that serves every owner")]
        pub(crate) fn $upload() {}

        #[utoipa::path(
            get,
            path = concat!("/organizations/{org}/", $owners, "/{id}/attachments"),
            operation_id = concat!("attachments_list_", $owners),
            tag = "attachments",
            summary = concat!("List the attachments of ", $owner),
            description = concat!("Lists the files attached to ", $owner, "."),
            responses(
                (status = 200, description = "The resource.", body = crate::openapi::schemas::AttachmentList),
            ),
        )]
        #[expect(dead_code, reason = "the OpenAPI operation of a handler that serves every owner")]
        pub(crate) fn $list() {}
    )+};
}

owner_operations! {
    "transactions" "a transaction": upload_transactions, list_transactions;
    "invoices" "an invoice": upload_invoices, list_invoices;
    "bills" "a bill": upload_bills, list_bills;
}
