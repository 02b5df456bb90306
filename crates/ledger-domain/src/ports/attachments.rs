//! Attachments: their rows (written synchronously with an event and credits) and the
//! blob store that holds their bytes.

use std::future::Future;

use crate::attachments::{Attachment, OwnerKind};
use crate::events::Deletion;

use super::{Audit, BoxFuture, StoreResult, Tenant, Written};

/// Attachment rows (the metadata; the bytes are a [`Blobs`] concern).
pub trait Attachments: Send + Sync + 'static {
    /// Inserts an attachment and its event, taking the credits of `charge`; an
    /// `idempotency` key of the tenant already used within the window is replayed
    /// instead (nothing is written).
    ///
    /// # Errors
    /// `Missing` (resource `owner_type`) when the owner is not live in the
    /// attachment's tenant; `CreditsShort` when a live pool is short. Nothing is
    /// written then.
    fn insert_attachment(
        &self,
        attachment: Attachment,
        audit: Audit,
    ) -> impl Future<Output = StoreResult<Written<Attachment>>> + Send;

    /// An attachment of the tenant that is not deleted.
    fn get_attachment(
        &self,
        tenant: &Tenant,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<Attachment>>> + Send;

    /// The live attachments of one owner in the tenant, oldest first (then by id).
    fn list_attachments(
        &self,
        tenant: &Tenant,
        owner_type: OwnerKind,
        owner_id: &str,
    ) -> impl Future<Output = StoreResult<Vec<Attachment>>> + Send;

    /// Soft-deletes an attachment with its deletion record and event, taking the
    /// credits; a used `idempotency` key is replayed instead.
    ///
    /// # Errors
    /// `Missing` when the attachment is not live in the deletion's tenant;
    /// `CreditsShort` when a live pool is short. Nothing is written then.
    fn delete_attachment(
        &self,
        attachment_id: &str,
        deletion: Deletion,
        audit: Audit,
    ) -> impl Future<Output = StoreResult<Written<()>>> + Send;
}

/// Where attachment bytes live: a flat namespace of opaque keys the domain makes up
/// (never from client input). Object-safe (boxed futures), since the ledger holds one
/// behind `Arc<dyn Blobs>` whatever its store.
pub trait Blobs: Send + Sync + 'static {
    /// Stores `bytes` under `key`, whole or not at all (a reader never sees a partial
    /// blob); an existing blob of the key is replaced.
    ///
    /// # Errors
    /// `Internal` when the backing storage fails.
    fn put(&self, key: &str, bytes: Vec<u8>) -> BoxFuture<'_, StoreResult<()>>;

    /// The bytes under `key`, `None` when there are none.
    ///
    /// # Errors
    /// `Internal` when the backing storage fails.
    fn get(&self, key: &str) -> BoxFuture<'_, StoreResult<Option<Vec<u8>>>>;

    /// Removes the blob of `key`; removing a missing blob succeeds.
    ///
    /// # Errors
    /// `Internal` when the backing storage fails.
    fn delete(&self, key: &str) -> BoxFuture<'_, StoreResult<()>>;
}

/// The blob store of a ledger nobody configured one for: every call fails, so a
/// misconfigured server refuses uploads instead of losing them.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoBlobs;

impl NoBlobs {
    fn refuse<T: Send + 'static>() -> BoxFuture<'static, StoreResult<T>> {
        Box::pin(async {
            Err(super::StoreError::Internal(
                "no blob store is configured".into(),
            ))
        })
    }
}

impl Blobs for NoBlobs {
    fn put(&self, _key: &str, _bytes: Vec<u8>) -> BoxFuture<'_, StoreResult<()>> {
        Self::refuse()
    }

    fn get(&self, _key: &str) -> BoxFuture<'_, StoreResult<Option<Vec<u8>>>> {
        Self::refuse()
    }

    fn delete(&self, _key: &str) -> BoxFuture<'_, StoreResult<()>> {
        Self::refuse()
    }
}
