//! Attachments in memory: rows with their event, credits and idempotency record, checked
//! in the SQL adapter's order (the key's replay, the credits, then the write), and
//! [`MemoryBlobs`], a blob store in a map.

use crate::error::Resource;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use crate::attachments::{Attachment, OwnerKind};
use crate::events::Deletion;
use crate::ports::{Attachments, Audit, Blobs, BoxFuture, StoreResult, Tenant, Written};

use super::tenanted::live_in;
use super::{MemoryStore, State, in_tenant, push_new};

impl State {
    fn live_attachment(&self, tenant: &Tenant, id: &str) -> Option<usize> {
        live_in(&self.attachments, tenant, id)
    }
}

impl Attachments for MemoryStore {
    async fn insert_attachment(
        &self,
        attachment: Attachment,
        audit: Audit,
    ) -> StoreResult<Written<Attachment>> {
        self.state().audited(audit, |state| {
            let same = |a: &Attachment| {
                a.organization_id == attachment.organization_id && a.id == attachment.id
            };
            push_new(
                &mut state.attachments,
                attachment.clone(),
                same,
                "attachment",
                &attachment.id,
            )?;
            Ok(attachment)
        })
    }

    async fn get_attachment(&self, tenant: &Tenant, id: &str) -> StoreResult<Option<Attachment>> {
        let state = self.state();
        Ok(state
            .live_attachment(tenant, id)
            .map(|i| state.attachments[i].value.clone()))
    }

    async fn list_attachments(
        &self,
        tenant: &Tenant,
        owner_type: OwnerKind,
        owner_id: &str,
    ) -> StoreResult<Vec<Attachment>> {
        let state = self.state();
        let mut found: Vec<Attachment> = state
            .attachments
            .iter()
            .filter(|r| {
                r.is_live()
                    && in_tenant(tenant, &r.value.organization_id, r.value.livemode)
                    && r.value.owner_type == owner_type
                    && r.value.owner_id == owner_id
            })
            .map(|r| r.value.clone())
            .collect();
        found.sort_by(|a, b| {
            a.created_at
                .cmp(&b.created_at)
                .then_with(|| a.id.cmp(&b.id))
        });
        Ok(found)
    }

    async fn delete_attachment(
        &self,
        attachment_id: &str,
        deletion: Deletion,
        audit: Audit,
    ) -> StoreResult<Written<()>> {
        self.state().audited(audit, |state| {
            state.soft_delete(
                |s| &mut s.attachments,
                Resource::Attachment,
                attachment_id,
                deletion,
            )
        })
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
