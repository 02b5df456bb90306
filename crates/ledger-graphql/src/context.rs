//! The per-request context (spec 4.12): the authenticated key, its organization and its
//! permissions, and the services every resolver calls.

use std::time::Duration;

use ledger_domain::DomainError;
use ledger_domain::jobs::Job;
use ledger_domain::organizations::Scope;
use ledger_domain::ports::{Store, Tenant, Written};
use ledger_domain::services::{Access, Ledger, Principal};
use ledger_rest::JobWaker;

use crate::errors::{GqlResult, IntoGql, stored_error};

/// How long a mutation waits for its queued job (DECISIONS 4: `Prefer: wait` up to 30 s).
const JOB_WAIT: Duration = Duration::from_secs(30);

/// What every resolver can reach.
pub struct Ctx<St> {
    pub ledger: Ledger<St>,
    pub principal: Principal,
    pub waker: JobWaker,
    /// Whether the request runs its own jobs at once (else the workers do).
    pub run_inline: bool,
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

    /// Runs an accepted job now (or wakes the workers) and waits until it ends, so a
    /// mutation answers what it wrote. A failed job's stored error becomes the field's
    /// error; a job still running after the wait is an internal error naming its id.
    pub async fn settle(&self, written: Written<Job>) -> GqlResult<Job> {
        let job = match written {
            Written::Done(job) => job,
            Written::Replay(_) => {
                return Err(crate::errors::field_error(DomainError::Internal(
                    "GraphQL writes carry no idempotency key".into(),
                )));
            }
        };
        let mut current = job;
        if !current.status.is_final() {
            let deadline = tokio::time::Instant::now() + JOB_WAIT;
            if self.run_inline {
                // Its own task: a client that hangs up cannot cancel the job half-way.
                let ledger = self.ledger.clone();
                let id = current.id.clone();
                let run = tokio::spawn(async move { ledger.run_now(&id).await });
                let _ = tokio::time::timeout_at(deadline, run).await;
            } else {
                self.waker.wake();
            }
            let tenant = Tenant {
                organization_id: current.organization_id.clone(),
                livemode: current.livemode,
            };
            let mut pause = Duration::from_millis(5);
            loop {
                if let Some(found) = self
                    .ledger
                    .store
                    .get_job(&tenant, &current.id)
                    .await
                    .gql()?
                {
                    current = found;
                }
                if current.status.is_final() || tokio::time::Instant::now() >= deadline {
                    break;
                }
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_millis(200));
            }
        }
        match current.status {
            ledger_domain::jobs::JobStatus::Completed => Ok(current),
            ledger_domain::jobs::JobStatus::Failed => Err(stored_error(
                current.error.as_ref().unwrap_or(&serde_json::Value::Null),
            )),
            _ => Err(crate::errors::field_error(DomainError::Internal(format!(
                "request {} is still running; read the resource later",
                current.id
            )))),
        }
    }
}
