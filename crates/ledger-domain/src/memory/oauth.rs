//! The authorization server's clients, grants and hashed secrets in memory, with the
//! same conditional updates as the SQL adapter (a one-time secret is used once).

use crate::ports::StoreError;
use time::OffsetDateTime;

use crate::oauth::{Grant, OAuthClient, SecretKind, StoredSecret};
use crate::organizations::{Organization, User};
use crate::ports::{OAuthStore, Rotation, StoreResult};

use super::{MemoryStore, State};

impl State {
    fn revoke_grant_at(&mut self, id: &str, at: OffsetDateTime) {
        if let Some(grant) = self
            .oauth_grants
            .iter_mut()
            .find(|g| g.id == id && g.revoked_at.is_none())
        {
            grant.revoked_at = Some(at);
        }
    }

    fn insert_secrets(&mut self, secrets: Vec<StoredSecret>) -> StoreResult<()> {
        if secrets
            .iter()
            .any(|s| self.oauth_secrets.contains_key(&s.hash))
        {
            return Err(StoreError::Internal("a secret hash collided".into()));
        }
        for secret in secrets {
            self.oauth_secrets.insert(secret.hash.clone(), secret);
        }
        Ok(())
    }
}

impl OAuthStore for MemoryStore {
    async fn insert_client(&self, client: OAuthClient) -> StoreResult<()> {
        let mut state = self.state();
        if state.oauth_clients.iter().any(|c| c.id == client.id) {
            return Err(StoreError::Internal("client id collided".into()));
        }
        state.oauth_clients.push(client);
        Ok(())
    }

    async fn get_client(&self, id: &str) -> StoreResult<Option<OAuthClient>> {
        Ok(self
            .state()
            .oauth_clients
            .iter()
            .find(|c| c.id == id)
            .cloned())
    }

    async fn insert_secret(&self, secret: StoredSecret) -> StoreResult<()> {
        self.state().insert_secrets(vec![secret])
    }

    async fn find_secret(&self, hash: &str) -> StoreResult<Option<StoredSecret>> {
        Ok(self.state().oauth_secrets.get(hash).cloned())
    }

    async fn use_secret(&self, hash: &str, at: OffsetDateTime) -> StoreResult<bool> {
        let mut state = self.state();
        Ok(match state.oauth_secrets.get_mut(hash) {
            Some(secret) if secret.used_at.is_none() => {
                secret.used_at = Some(at);
                true
            }
            _ => false,
        })
    }

    async fn redeem_code(
        &self,
        code_hash: &str,
        at: OffsetDateTime,
        grant: Grant,
        tokens: Vec<StoredSecret>,
    ) -> StoreResult<bool> {
        let mut state = self.state();
        if state
            .oauth_secrets
            .get(code_hash)
            .is_none_or(|s| s.used_at.is_some())
        {
            return Ok(false);
        }
        if state.oauth_grants.iter().any(|g| g.id == grant.id) {
            return Err(StoreError::Internal("grant id collided".into()));
        }
        state.insert_secrets(tokens)?;
        if let Some(code) = state.oauth_secrets.get_mut(code_hash) {
            code.used_at = Some(at);
        }
        state.oauth_grants.push(grant);
        Ok(true)
    }

    async fn rotate_refresh(
        &self,
        old_hash: &str,
        grant_id: &str,
        at: OffsetDateTime,
        tokens: Vec<StoredSecret>,
    ) -> StoreResult<Rotation> {
        let mut state = self.state();
        let fresh = state
            .oauth_secrets
            .get(old_hash)
            .is_some_and(|s| s.used_at.is_none() && s.revoked_at.is_none());
        let grant_live = state
            .oauth_grants
            .iter()
            .any(|g| g.id == grant_id && g.revoked_at.is_none());
        if !fresh || !grant_live {
            state.revoke_grant_at(grant_id, at);
            return Ok(Rotation::Reused);
        }
        state.insert_secrets(tokens)?;
        if let Some(old) = state.oauth_secrets.get_mut(old_hash) {
            old.used_at = Some(at);
        }
        Ok(Rotation::Rotated)
    }

    async fn get_grant(&self, id: &str) -> StoreResult<Option<Grant>> {
        Ok(self
            .state()
            .oauth_grants
            .iter()
            .find(|g| g.id == id)
            .cloned())
    }

    async fn revoke_grant(&self, id: &str, at: OffsetDateTime) -> StoreResult<()> {
        self.state().revoke_grant_at(id, at);
        Ok(())
    }

    async fn revoke_secret(&self, hash: &str, at: OffsetDateTime) -> StoreResult<()> {
        if let Some(secret) = self.state().oauth_secrets.get_mut(hash)
            && secret.revoked_at.is_none()
        {
            secret.revoked_at = Some(at);
        }
        Ok(())
    }

    async fn purge_oauth_secrets(&self, now: OffsetDateTime) -> StoreResult<u64> {
        let mut state = self.state();
        let revoked: std::collections::BTreeSet<String> = state
            .oauth_grants
            .iter()
            .filter(|g| g.revoked_at.is_some())
            .map(|g| g.id.clone())
            .collect();
        let before = state.oauth_secrets.len();
        state.oauth_secrets.retain(|_, s| {
            let grant_revoked = matches!(
                s.kind,
                SecretKind::Code | SecretKind::Access | SecretKind::Refresh
            ) && s.grant_id.as_ref().is_some_and(|g| revoked.contains(g));
            s.expires_at > now && s.revoked_at.is_none() && !grant_revoked
        });
        Ok((before - state.oauth_secrets.len()) as u64)
    }

    async fn find_access_token(
        &self,
        hash: &str,
    ) -> StoreResult<Option<(StoredSecret, Grant, Organization)>> {
        let state = self.state();
        let Some(token) = state
            .oauth_secrets
            .get(hash)
            .filter(|s| s.kind == SecretKind::Access)
        else {
            return Ok(None);
        };
        let grant = state
            .oauth_grants
            .iter()
            .find(|g| Some(&g.id) == token.grant_id.as_ref());
        let Some(grant) = grant else { return Ok(None) };
        Ok(state
            .organizations
            .get(&grant.organization_id)
            .map(|o| (token.clone(), grant.clone(), o.clone())))
    }

    async fn insert_user(&self, user: User) -> StoreResult<()> {
        let mut state = self.state();
        if state
            .users
            .iter()
            .any(|u| u.id == user.id || u.provider_id == user.provider_id)
        {
            return Err(StoreError::Internal("user exists already".into()));
        }
        state.users.push(user);
        Ok(())
    }

    async fn organizations_of_user(&self, user_id: &str) -> StoreResult<Vec<Organization>> {
        let state = self.state();
        let mut found: Vec<Organization> = state
            .organizations
            .values()
            .filter(|o| o.owner_user_id == user_id)
            .cloned()
            .collect();
        found.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(found)
    }
}
