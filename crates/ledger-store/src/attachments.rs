//! Attachment rows: inserts, reads, an owner's list and soft deletes, each write with its
//! event and credits. The bytes are the blob store's (`blobs`).

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use ledger_domain::Resource;
use ledger_domain::StoreError;
use ledger_domain::attachments::{Attachment, OwnerKind};
use ledger_domain::events::Deletion;
use ledger_domain::ports::{Attachments, Audit, StoreResult, Tenant, Written};
use time::PrimitiveDateTime;

use crate::db::Db;
use crate::rows::{from_db, to_db};
use crate::schema::attachments;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = attachments, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
struct AttachmentRow {
    organization_id: String,
    livemode: bool,
    id: String,
    owner_type: String,
    owner_id: String,
    file_name: String,
    content_type: String,
    size_bytes: i64,
    sha256: String,
    storage_key: String,
    created_by: String,
    created_at: PrimitiveDateTime,
}

impl From<&Attachment> for AttachmentRow {
    fn from(a: &Attachment) -> Self {
        Self {
            organization_id: a.organization_id.clone(),
            livemode: a.livemode,
            id: a.id.clone(),
            owner_type: a.owner_type.as_str().to_owned(),
            owner_id: a.owner_id.clone(),
            file_name: a.file_name.clone(),
            content_type: a.content_type.clone(),
            size_bytes: a.size_bytes,
            sha256: a.sha256.clone(),
            storage_key: a.storage_key.clone(),
            created_by: a.created_by.clone(),
            created_at: to_db(a.created_at),
        }
    }
}

impl TryFrom<AttachmentRow> for Attachment {
    type Error = StoreError;

    fn try_from(r: AttachmentRow) -> Result<Self, StoreError> {
        let owner_type = OwnerKind::parse(&r.owner_type).ok_or_else(|| {
            StoreError::Internal(format!(
                "attachment {} has the unknown owner type '{}'",
                r.id, r.owner_type
            ))
        })?;
        Ok(Self {
            id: r.id,
            organization_id: r.organization_id,
            livemode: r.livemode,
            owner_type,
            owner_id: r.owner_id,
            file_name: r.file_name,
            content_type: r.content_type,
            size_bytes: r.size_bytes,
            sha256: r.sha256,
            storage_key: r.storage_key,
            created_by: r.created_by,
            created_at: from_db(r.created_at),
        })
    }
}

impl Attachments for Db {
    async fn insert_attachment(
        &self,
        attachment: Attachment,
        audit: Audit,
    ) -> StoreResult<Written<Attachment>> {
        let row = AttachmentRow::from(&attachment);
        audited!(self, audit, |conn| {
            diesel::insert_into(attachments::table)
                .values(&row)
                .execute(conn)
                .await?;
            attachment
        })
    }

    async fn get_attachment(&self, tenant: &Tenant, id: &str) -> StoreResult<Option<Attachment>> {
        live_record!(self, attachments, tenant, id, AttachmentRow)
    }

    async fn list_attachments(
        &self,
        tenant: &Tenant,
        owner_type: OwnerKind,
        owner_id: &str,
    ) -> StoreResult<Vec<Attachment>> {
        let owner_type = owner_type.as_str();
        read_all!(
            self,
            AttachmentRow,
            Attachment::try_from,
            attachments::table
                .filter(tenant_of!(attachments, tenant))
                .filter(attachments::owner_type.eq(owner_type))
                .filter(attachments::owner_id.eq(owner_id))
                .filter(attachments::deleted_at.is_null())
                .order((attachments::created_at.asc(), attachments::id.asc()))
        )
    }

    async fn delete_attachment(
        &self,
        attachment_id: &str,
        deletion: Deletion,
        audit: Audit,
    ) -> StoreResult<Written<()>> {
        audited_soft_delete!(
            self,
            attachments,
            Resource::Attachment,
            attachment_id,
            deletion,
            audit
        )
    }
}
