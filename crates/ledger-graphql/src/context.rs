//! The per-request context (spec 4.12): the authenticated key, its organization and its
//! permissions, and the services every resolver calls.

use ledger_domain::DomainError;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{
    Access, Channel, Ledger, MAX_WAIT, Principal, Submission, Submitted, Write,
};

use crate::errors::{GqlResult, IntoGql};

/// What every resolver can reach.
pub struct Ctx<St> {
    pub ledger: Ledger<St>,
    pub principal: Principal,
    /// `scheme://host` as the client called (REST builds its resource URLs the same way:
    /// x402's resource is the REST purchase endpoint under it).
    pub origin: String,
}

impl<St: Store> juniper::Context for Ctx<St> {}

impl<St: Store> Ctx<St> {
    /// The key's own organization id.
    pub fn own_org(&self) -> &str {
        &self.principal.organization.id
    }

    /// Clears the key for `needed` on `resource` in organization `org_id` (its own or a
    /// descendant; anything else is FORBIDDEN).
    pub async fn access(&self, org_id: &str, needed: Scope, resource: &str) -> GqlResult<Access> {
        self.ledger
            .authorize(&self.principal, org_id, needed, resource)
            .await
            .gql()
    }

    /// Access in the key's own organization.
    pub async fn own(&self, needed: Scope, resource: &str) -> GqlResult<Access> {
        let org = self.own_org().to_owned();
        self.access(&org, needed, resource).await
    }

    /// Submits a write through the domain's pipeline at GraphQL's prices and waits for it
    /// (DECISIONS 4: up to 30 s), so a mutation answers what it wrote: the written
    /// resource's view. A failed job's stored error becomes the field's error.
    pub async fn submit(&self, access: &Access, write: Write) -> GqlResult<serde_json::Value> {
        self.ledger
            .submit(access, write, Submission::new(Channel::GraphQl, MAX_WAIT))
            .await
            .and_then(Submitted::into_result)
            .gql()
    }

    /// Submits a write ([`Ctx::submit`]) and reads back the resource it wrote, found by the
    /// id of the written view, with `read`: a mutation answers what it wrote.
    pub async fn submit_and_read<T>(
        &self,
        access: &Access,
        write: Write,
        read: impl AsyncFnOnce(&Access, &str) -> Result<T, DomainError>,
    ) -> GqlResult<T> {
        let view = self.submit(access, write).await?;
        read(access, &id_of(&view)?).await.gql()
    }
}

/// The `id` of a written resource's view.
pub fn id_of(view: &serde_json::Value) -> GqlResult<String> {
    view["id"].as_str().map(str::to_owned).ok_or_else(|| {
        crate::errors::field_error(ledger_domain::DomainError::Internal(
            "a write's result carries no id".into(),
        ))
    })
}
