//! Attachments on transactions, invoices and bills: upload (synchronous write, one
//! credit), list, read, download and soft delete.
//!
//! Nothing is left behind by a refused upload: the size, the file name and the sniffed
//! content type are checked before any I/O; the bytes are written under a fresh key
//! before the row, and removed again when the row is not written (a refusal, a storage
//! failure, or an `Idempotency-Key` race lost to an earlier request). A delete
//! soft-deletes the row and removes the bytes at once (see `docs/decisions.md`).

use serde_json::Value;

use crate::attachments::{Attachment, OwnerKind, clean_file_name, sha256_hex, sniff};
use crate::documents::DocumentKind;
use crate::error::{DomainError, DomainResult, ErrorCode};
use crate::ids::{IdKind, new_id};
use crate::ports::{Store, Tenant, Written};

use super::accounts::tenant_reads;
use super::deletions::Removal;
use super::{Access, Ledger, WriteOptions};

/// An upload as a client gave it.
#[derive(Clone)]
pub struct NewAttachmentInput {
    pub owner_type: OwnerKind,
    pub owner_id: String,
    /// The client's file name (cleaned before it is kept).
    pub file_name: String,
    pub bytes: Vec<u8>,
}

// By hand, so a write logged with `{:?}` never prints megabytes of file.
impl std::fmt::Debug for NewAttachmentInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewAttachmentInput")
            .field("owner_type", &self.owner_type)
            .field("owner_id", &self.owner_id)
            .field("file_name", &self.file_name)
            .field("size_bytes", &self.bytes.len())
            .finish()
    }
}

/// The refusal of an upload larger than `limit` bytes (413 `payload_too_large`).
pub fn attachment_too_large(limit: usize) -> DomainError {
    DomainError::Validation {
        code: ErrorCode::PayloadTooLarge,
        field: Some("file".into()),
        message: format!("file: the upload exceeds the limit of {limit} bytes"),
    }
}

/// The refusal of bytes that are none of the allowed kinds (415 `unsupported_media_type`).
fn unsupported() -> DomainError {
    DomainError::Validation {
        code: ErrorCode::UnsupportedMediaType,
        field: Some("file".into()),
        message: "file: the content is not an allowed kind (PDF, PNG, JPEG, GIF, WebP, plain \
                  text or CSV, OFX/QFX); the type is read from the bytes, not the \
                  Content-Type header"
            .into(),
    }
}

impl<S: Store> Ledger<S> {
    tenant_reads! {
        /// Reads an attachment's metadata in the tenant.
        ///
        /// # Errors
        /// `resource_not_found` when it does not exist in the tenant or is deleted.
        pub fn get_attachment(id) -> Attachment: Attachment, "attachment", get_attachment;
    }

    /// An attachment's metadata and bytes.
    ///
    /// # Errors
    /// `resource_not_found` as [`Ledger::get_attachment`]; `internal_error` when the
    /// bytes of a live attachment are missing from the blob store.
    pub async fn attachment_content(
        &self,
        access: &Access,
        id: &str,
    ) -> DomainResult<(Attachment, Vec<u8>)> {
        let attachment = self.get_attachment(access, id).await?;
        let bytes = self
            .blobs
            .get(&attachment.storage_key)
            .await?
            .ok_or_else(|| {
                DomainError::Internal(format!(
                    "the bytes of attachment {} are missing from the blob store",
                    attachment.id
                ))
            })?;
        Ok((attachment, bytes))
    }

    /// The live attachments of an owner, oldest first.
    ///
    /// # Errors
    /// `resource_not_found` when the owner does not exist in the tenant.
    pub async fn list_attachments(
        &self,
        access: &Access,
        owner_type: OwnerKind,
        owner_id: &str,
    ) -> DomainResult<Vec<Attachment>> {
        let owner_id = self.attachment_owner(access, owner_type, owner_id).await?;
        Ok(self
            .store
            .list_attachments(&access.tenant, owner_type, &owner_id)
            .await?)
    }

    /// The live attachments of an owner the caller already read, in the owner's own
    /// tenant (GraphQL's `attachments` fields); no owner check.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn attachments_of(
        &self,
        tenant: &Tenant,
        owner_type: OwnerKind,
        owner_id: &str,
    ) -> DomainResult<Vec<Attachment>> {
        Ok(self
            .store
            .list_attachments(tenant, owner_type, owner_id)
            .await?)
    }

    /// The normalized id of a live owner in the tenant.
    async fn attachment_owner(
        &self,
        access: &Access,
        owner_type: OwnerKind,
        owner_id: &str,
    ) -> DomainResult<String> {
        Ok(match owner_type {
            OwnerKind::Transaction => self.get_transaction(access, owner_id).await?.id,
            OwnerKind::Invoice => {
                self.get_document(access, DocumentKind::Invoice, owner_id)
                    .await?
                    .id
            }
            OwnerKind::Bill => {
                self.get_document(access, DocumentKind::Bill, owner_id)
                    .await?
                    .id
            }
        })
    }

    /// Uploads an attachment (synchronous write, one credit).
    ///
    /// # Errors
    /// `payload_too_large` over [`super::LedgerConfig::max_attachment_bytes`];
    /// `unsupported_media_type` when the bytes are not an allowed kind; `invalid_field`
    /// on `file` for an unusable file name; `resource_not_found` for an owner outside
    /// the tenant; `insufficient_credits`. Nothing is stored then.
    pub(crate) async fn create_attachment(
        &self,
        access: &Access,
        input: NewAttachmentInput,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        if input.bytes.len() > self.config.max_attachment_bytes {
            return Err(attachment_too_large(self.config.max_attachment_bytes));
        }
        // The record the path names first (404), then what the body carries.
        let owner_id = self
            .attachment_owner(access, input.owner_type, &input.owner_id)
            .await?;
        let file_name = clean_file_name(&input.file_name).ok_or_else(|| {
            DomainError::invalid_field("file", "needs a file name of 1 to 255 characters")
        })?;
        let content_type = sniff(&input.bytes, &file_name).ok_or_else(unsupported)?;
        let id = new_id(IdKind::Attachment);
        let record = Attachment {
            storage_key: format!("{}/{id}", access.tenant.organization_id),
            id,
            organization_id: access.tenant.organization_id.clone(),
            livemode: access.tenant.livemode,
            owner_type: input.owner_type,
            owner_id,
            file_name,
            content_type: content_type.to_owned(),
            size_bytes: i64::try_from(input.bytes.len()).unwrap_or(i64::MAX),
            sha256: sha256_hex(&input.bytes),
            created_by: access.key_id.clone(),
            created_at: self.now(),
        };
        let view = crate::views::attachment(&record);
        let audit = self.created_audit(access, options, "attachment", &record.id, &view);
        let key = record.storage_key.clone();
        self.blobs.put(&key, input.bytes).await?;
        let written = self.store.insert_attachment(record, audit).await;
        match written {
            Ok(Written::Done(_)) => Ok(Written::Done(view)),
            other => {
                // The row was not written: the bytes must not outlive it.
                if let Err(e) = self.blobs.delete(&key).await {
                    tracing::error!(key, error = %e, "could not remove the bytes of an upload that was not recorded");
                }
                Ok(other.map(|w| w.map(|_| view))?)
            }
        }
    }

    /// Soft-deletes an attachment and removes its bytes (synchronous write, one credit).
    ///
    /// # Errors
    /// `resource_not_found`, `insufficient_credits`.
    pub(crate) async fn delete_attachment(
        &self,
        access: &Access,
        id: &str,
        options: WriteOptions,
    ) -> DomainResult<Written<Value>> {
        let record = self.get_attachment(access, id).await?;
        let before = crate::views::attachment(&record);
        let removal = Removal::new("attachment", &record.id, &record.file_name, before);
        let written = self
            .soft_delete(access, options, removal, |deletion, audit| {
                self.store.delete_attachment(&record.id, deletion, audit)
            })
            .await?;
        if matches!(written, Written::Done(_)) {
            // The row is gone for every reader; a failure here leaves an orphan blob
            // (logged), never a row without bytes.
            if let Err(e) = self.blobs.delete(&record.storage_key).await {
                tracing::error!(key = record.storage_key, error = %e, "could not remove the bytes of a deleted attachment");
            }
        }
        Ok(written)
    }
}
