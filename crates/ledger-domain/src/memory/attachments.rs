//! Attachments in memory: rows with their event, credits and idempotency record, checked
//! in the SQL adapter's order (the key's replay, the credits, then the write), and
//! [`MemoryBlobs`], a blob store in a map.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use crate::attachments::{Attachment, OwnerKind};
use crate::ports::{Attachments, Audit, Blobs, BoxFuture, StoreResult, Tenant, Written};

use super::MemoryStore;
use super::tenanted::{insert_new, live_where, table_methods};

impl Attachments for MemoryStore {
    async fn insert_attachment(
        &self,
        attachment: Attachment,
        audit: Audit,
    ) -> StoreResult<Written<Attachment>> {
        self.state().audited(audit, |state| {
            insert_new(&mut state.attachments, attachment, "attachment")
        })
    }

    table_methods! {
        fn get_attachment(get) -> Attachment: attachments;
    }

    async fn list_attachments(
        &self,
        tenant: &Tenant,
        owner_type: OwnerKind,
        owner_id: &str,
    ) -> StoreResult<Vec<Attachment>> {
        let mut found = live_where(&self.state().attachments, tenant, |a| {
            a.owner_type == owner_type && a.owner_id == owner_id
        });
        found.sort_by(|a, b| {
            a.created_at
                .cmp(&b.created_at)
                .then_with(|| a.id.cmp(&b.id))
        });
        Ok(found)
    }

    table_methods! {
        fn delete_attachment(delete) -> Attachment: attachments;
    }
}

/// A blob store in a map (clones share it), for tests.
#[derive(Debug, Clone, Default)]
pub struct MemoryBlobs {
    blobs: Arc<Mutex<BTreeMap<String, Vec<u8>>>>,
}

impl MemoryBlobs {
    /// The keys held now, in order.
    pub fn keys(&self) -> Vec<String> {
        self.map().keys().cloned().collect()
    }

    fn map(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Vec<u8>>> {
        self.blobs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Blobs for MemoryBlobs {
    fn put(&self, key: &str, bytes: Vec<u8>) -> BoxFuture<'_, StoreResult<()>> {
        self.map().insert(key.to_owned(), bytes);
        Box::pin(async { Ok(()) })
    }

    fn get(&self, key: &str) -> BoxFuture<'_, StoreResult<Option<Vec<u8>>>> {
        let found = self.map().get(key).cloned();
        Box::pin(async move { Ok(found) })
    }

    fn delete(&self, key: &str) -> BoxFuture<'_, StoreResult<()>> {
        self.map().remove(key);
        Box::pin(async { Ok(()) })
    }
}
