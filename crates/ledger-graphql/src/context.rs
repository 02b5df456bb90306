//! The per-request context (spec 4.12): the authenticated key, its organization and its
//! permissions, and the services every resolver calls.

use std::sync::atomic::{AtomicU32, Ordering};

use ledger_domain::DomainError;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::Store;
use ledger_domain::services::{
    Access, Channel, IdempotencyKey, Ledger, MAX_WAIT, Principal, Submission, Submitted, Write,
};

use crate::errors::{GqlResult, IntoGql};

/// What every resolver can reach.
pub struct Ctx<St> {
    pub ledger: Ledger<St>,
    pub principal: Principal,
    /// `scheme://host` as the client called (REST builds its resource URLs the same way:
    /// x402's resource is the REST purchase endpoint under it).
    pub origin: String,
    /// The request's `Idempotency-Key`, when it has one.
    pub idempotency: Option<RequestKey>,
}

impl<St: Store> juniper::Context for Ctx<St> {}

/// A GraphQL request's `Idempotency-Key` (docs/decisions.md, "An idempotency key compares
/// what the request means"): the request's writes, in the order the mutation's fields run,
/// are keyed `key`, `key#1`, `key#2`, ..., each bound to the fingerprint of the whole
/// request (its query, operation name and variables) and its place in it. A retry of the
/// same request replays each write; another request under the key is refused.
pub struct RequestKey {
    pub key: String,
    /// The fingerprint of the request.
    pub request_hash: String,
    /// How many writes of the request were submitted so far.
    pub writes: AtomicU32,
}

impl RequestKey {
    /// The key of the request's next write.
    fn next(&self) -> IdempotencyKey {
        let n = self.writes.fetch_add(1, Ordering::SeqCst);
        let (key, request_hash) = if n == 0 {
            (self.key.clone(), self.request_hash.clone())
        } else {
            (
                format!("{}#{n}", self.key),
                format!("{}#{n}", self.request_hash),
            )
        };
        IdempotencyKey { key, request_hash }
    }
}

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
        let mut submission = Submission::new(Channel::GraphQl, MAX_WAIT);
        submission.idempotency = self.idempotency.as_ref().map(RequestKey::next);
        self.ledger
            .submit(access, write, submission)
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
