//! The authorization server's storage: clients, grants and hashed secrets (codes,
//! tokens, sessions, sign-in links), and the users who sign in to approve.
//!
//! One-time secrets are spent with a conditional update (`used_at IS NULL`), so of two
//! concurrent uses exactly one succeeds on both backends; redeeming a code and rotating a
//! refresh token write the spent mark and the new tokens in one transaction.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use ledger_domain::StoreError;
use ledger_domain::oauth::{ClientAuth, Grant, OAuthClient, SecretKind, StoredSecret};
use ledger_domain::organizations::{Organization, User};
use ledger_domain::ports::{OAuthStore, Rotation, StoreResult};
use time::{OffsetDateTime, PrimitiveDateTime};

use crate::db::{Db, TxError};
use crate::rows::{
    OrganizationRow, UserRow, corrupt, from_db, json_text, opt_from_db, opt_to_db, parse_json,
    parsed, to_db,
};
use crate::schema::{oauth_clients, oauth_grants, oauth_secrets, organizations, users};

/// Sets `$stamp` to `Some($at)` on the row of `$table` whose `$key` is `$value` unless it
/// is set already (a one-time mark: of two concurrent calls, one changes the row);
/// evaluates to the number of rows changed.
macro_rules! stamp_once {
    ($conn:expr, $table:ident, $key:ident = $value:expr, $stamp:ident = $at:expr) => {
        diesel::update($table::table)
            .filter($table::$key.eq($value))
            .filter($table::$stamp.is_null())
            .set($table::$stamp.eq(Some($at)))
            .execute(&mut *$conn)
            .await?
    };
}

/// Inserts each of the secret rows `$rows` (one statement each: diesel-async has no
/// multi-row insert on SQLite).
macro_rules! insert_secrets {
    ($conn:expr, $rows:expr) => {
        for row in $rows {
            diesel::insert_into(oauth_secrets::table)
                .values(row)
                .execute(&mut *$conn)
                .await?;
        }
    };
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = oauth_clients, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
struct ClientRow {
    id: String,
    name: Option<String>,
    redirect_uris: String,
    grant_types: String,
    auth_method: String,
    secret_hash: Option<String>,
    scope: Option<String>,
    metadata: String,
    created_at: PrimitiveDateTime,
}

fn strings(text: &str) -> Result<Vec<String>, StoreError> {
    serde_json::from_str(text).map_err(|_| corrupt("string list", text))
}

fn strings_text(items: &[String]) -> String {
    serde_json::Value::from(items.to_vec()).to_string()
}

impl From<&OAuthClient> for ClientRow {
    fn from(c: &OAuthClient) -> Self {
        Self {
            id: c.id.clone(),
            name: c.name.clone(),
            redirect_uris: strings_text(&c.redirect_uris),
            grant_types: strings_text(&c.grant_types),
            auth_method: c.auth_method.as_str().to_owned(),
            secret_hash: c.secret_hash.clone(),
            scope: c.scope.clone(),
            metadata: json_text(&c.metadata),
            created_at: to_db(c.created_at),
        }
    }
}

impl TryFrom<ClientRow> for OAuthClient {
    type Error = StoreError;

    fn try_from(r: ClientRow) -> Result<Self, StoreError> {
        Ok(Self {
            auth_method: parsed(ClientAuth::parse, "client auth method", &r.auth_method)?,
            redirect_uris: strings(&r.redirect_uris)?,
            grant_types: strings(&r.grant_types)?,
            metadata: parse_json(&r.metadata)?,
            id: r.id,
            name: r.name,
            secret_hash: r.secret_hash,
            scope: r.scope,
            created_at: from_db(r.created_at),
        })
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = oauth_grants, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
struct GrantRow {
    id: String,
    client_id: String,
    user_id: String,
    organization_id: String,
    livemode: bool,
    scopes: String,
    resource: String,
    created_at: PrimitiveDateTime,
    revoked_at: Option<PrimitiveDateTime>,
}

impl From<&Grant> for GrantRow {
    fn from(g: &Grant) -> Self {
        Self {
            id: g.id.clone(),
            client_id: g.client_id.clone(),
            user_id: g.user_id.clone(),
            organization_id: g.organization_id.clone(),
            livemode: g.livemode,
            scopes: ledger_domain::oauth::scope_string(&g.scopes),
            resource: g.resource.clone(),
            created_at: to_db(g.created_at),
            revoked_at: opt_to_db(g.revoked_at),
        }
    }
}

impl TryFrom<GrantRow> for Grant {
    type Error = StoreError;

    fn try_from(r: GrantRow) -> Result<Self, StoreError> {
        Ok(Self {
            scopes: ledger_domain::oauth::parse_scopes(&r.scopes)
                .map_err(|_| corrupt("scopes", &r.scopes))?,
            id: r.id,
            client_id: r.client_id,
            user_id: r.user_id,
            organization_id: r.organization_id,
            livemode: r.livemode,
            resource: r.resource,
            created_at: from_db(r.created_at),
            revoked_at: opt_from_db(r.revoked_at),
        })
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = oauth_secrets, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
struct SecretRow {
    hash: String,
    kind: String,
    grant_id: Option<String>,
    client_id: Option<String>,
    user_id: Option<String>,
    data: String,
    expires_at: PrimitiveDateTime,
    used_at: Option<PrimitiveDateTime>,
    revoked_at: Option<PrimitiveDateTime>,
    created_at: PrimitiveDateTime,
}

impl From<&StoredSecret> for SecretRow {
    fn from(s: &StoredSecret) -> Self {
        Self {
            hash: s.hash.clone(),
            kind: s.kind.as_str().to_owned(),
            grant_id: s.grant_id.clone(),
            client_id: s.client_id.clone(),
            user_id: s.user_id.clone(),
            data: json_text(&s.data),
            expires_at: to_db(s.expires_at),
            used_at: opt_to_db(s.used_at),
            revoked_at: opt_to_db(s.revoked_at),
            created_at: to_db(s.created_at),
        }
    }
}

impl TryFrom<SecretRow> for StoredSecret {
    type Error = StoreError;

    fn try_from(r: SecretRow) -> Result<Self, StoreError> {
        Ok(Self {
            kind: parsed(SecretKind::parse, "secret kind", &r.kind)?,
            data: parse_json(&r.data)?,
            hash: r.hash,
            grant_id: r.grant_id,
            client_id: r.client_id,
            user_id: r.user_id,
            expires_at: from_db(r.expires_at),
            used_at: opt_from_db(r.used_at),
            revoked_at: opt_from_db(r.revoked_at),
            created_at: from_db(r.created_at),
        })
    }
}

fn secret_rows(secrets: &[StoredSecret]) -> Vec<SecretRow> {
    secrets.iter().map(SecretRow::from).collect()
}

impl OAuthStore for Db {
    async fn insert_client(&self, client: OAuthClient) -> StoreResult<()> {
        insert_one!(self, oauth_clients::table, ClientRow::from(&client))
    }

    async fn get_client(&self, id: &str) -> StoreResult<Option<OAuthClient>> {
        read_first!(
            self,
            ClientRow,
            OAuthClient::try_from,
            oauth_clients::table.filter(oauth_clients::id.eq(id))
        )
    }

    async fn insert_secret(&self, secret: StoredSecret) -> StoreResult<()> {
        insert_one!(self, oauth_secrets::table, SecretRow::from(&secret))
    }

    async fn find_secret(&self, hash: &str) -> StoreResult<Option<StoredSecret>> {
        read_first!(
            self,
            SecretRow,
            StoredSecret::try_from,
            oauth_secrets::table.filter(oauth_secrets::hash.eq(hash))
        )
    }

    async fn use_secret(&self, hash: &str, at: OffsetDateTime) -> StoreResult<bool> {
        let hash = hash.to_owned();
        let at = to_db(at);
        let changed = db_write!(self, |conn| {
            Ok(stamp_once!(conn, oauth_secrets, hash = &hash, used_at = at))
        })?;
        Ok(changed == 1)
    }

    async fn redeem_code(
        &self,
        code_hash: &str,
        at: OffsetDateTime,
        grant: Grant,
        tokens: Vec<StoredSecret>,
    ) -> StoreResult<bool> {
        let code_hash = code_hash.to_owned();
        let at = to_db(at);
        let grant_row = GrantRow::from(&grant);
        let rows = secret_rows(&tokens);
        let redeemed = db_write!(self, |conn| {
            let spent = stamp_once!(conn, oauth_secrets, hash = &code_hash, used_at = at);
            if spent == 0 {
                return Ok(false);
            }
            diesel::insert_into(oauth_grants::table)
                .values(&grant_row)
                .execute(conn)
                .await?;
            insert_secrets!(conn, &rows);
            Ok::<_, TxError>(true)
        })?;
        Ok(redeemed)
    }

    async fn rotate_refresh(
        &self,
        old_hash: &str,
        grant_id: &str,
        at: OffsetDateTime,
        tokens: Vec<StoredSecret>,
    ) -> StoreResult<Rotation> {
        let old_hash = old_hash.to_owned();
        let grant_id = grant_id.to_owned();
        let at = to_db(at);
        let rows = secret_rows(&tokens);
        let rotation = db_write!(self, |conn| {
            // The grant row is written first: on PostgreSQL it locks the grant, so a
            // revocation and a rotation of one family serialise.
            let live = diesel::update(oauth_grants::table)
                .filter(oauth_grants::id.eq(&grant_id))
                .filter(oauth_grants::revoked_at.is_null())
                .set(oauth_grants::revoked_at.eq(None::<PrimitiveDateTime>))
                .execute(conn)
                .await?;
            let spent = if live == 1 {
                diesel::update(oauth_secrets::table)
                    .filter(oauth_secrets::hash.eq(&old_hash))
                    .filter(oauth_secrets::used_at.is_null())
                    .filter(oauth_secrets::revoked_at.is_null())
                    .set(oauth_secrets::used_at.eq(Some(at)))
                    .execute(conn)
                    .await?
            } else {
                0
            };
            if spent == 0 {
                stamp_once!(conn, oauth_grants, id = &grant_id, revoked_at = at);
                return Ok(Rotation::Reused);
            }
            insert_secrets!(conn, &rows);
            Ok::<_, TxError>(Rotation::Rotated)
        })?;
        Ok(rotation)
    }

    async fn get_grant(&self, id: &str) -> StoreResult<Option<Grant>> {
        read_first!(
            self,
            GrantRow,
            Grant::try_from,
            oauth_grants::table.filter(oauth_grants::id.eq(id))
        )
    }

    async fn revoke_grant(&self, id: &str, at: OffsetDateTime) -> StoreResult<()> {
        let id = id.to_owned();
        let at = to_db(at);
        db_write!(self, |conn| {
            stamp_once!(conn, oauth_grants, id = &id, revoked_at = at);
            Ok(())
        })?;
        Ok(())
    }

    async fn revoke_secret(&self, hash: &str, at: OffsetDateTime) -> StoreResult<()> {
        let hash = hash.to_owned();
        let at = to_db(at);
        db_write!(self, |conn| {
            stamp_once!(conn, oauth_secrets, hash = &hash, revoked_at = at);
            Ok(())
        })?;
        Ok(())
    }

    async fn purge_oauth_secrets(&self, now: OffsetDateTime) -> StoreResult<u64> {
        let now = to_db(now);
        let grant_kinds = [
            SecretKind::Code.as_str(),
            SecretKind::Access.as_str(),
            SecretKind::Refresh.as_str(),
        ];
        let deleted = db_write!(self, |conn| {
            let revoked_grants = oauth_grants::table
                .filter(oauth_grants::revoked_at.is_not_null())
                .select(oauth_grants::id.nullable());
            Ok(diesel::delete(
                oauth_secrets::table.filter(
                    oauth_secrets::expires_at
                        .le(now)
                        .or(oauth_secrets::revoked_at.is_not_null())
                        .or(oauth_secrets::kind
                            .eq_any(grant_kinds)
                            .and(oauth_secrets::grant_id.eq_any(revoked_grants))),
                ),
            )
            .execute(conn)
            .await?)
        })?;
        Ok(u64::try_from(deleted).unwrap_or(u64::MAX))
    }

    async fn find_access_token(
        &self,
        hash: &str,
    ) -> StoreResult<Option<(StoredSecret, Grant, Organization)>> {
        let found: Option<(SecretRow, GrantRow, OrganizationRow)> = db_read!(self, |conn| {
            Ok(oauth_secrets::table
                .inner_join(
                    oauth_grants::table.on(oauth_secrets::grant_id.eq(oauth_grants::id.nullable())),
                )
                .inner_join(
                    organizations::table.on(organizations::id.eq(oauth_grants::organization_id)),
                )
                .filter(oauth_secrets::hash.eq(hash))
                .filter(oauth_secrets::kind.eq(SecretKind::Access.as_str()))
                .select((
                    SecretRow::as_select(),
                    GrantRow::as_select(),
                    OrganizationRow::as_select(),
                ))
                .first(conn)
                .await
                .optional()?)
        })?;
        found
            .map(|(secret, grant, organization)| {
                Ok((
                    StoredSecret::try_from(secret)?,
                    Grant::try_from(grant)?,
                    organization.into_domain()?,
                ))
            })
            .transpose()
    }

    async fn insert_user(&self, user: User) -> StoreResult<()> {
        insert_one!(self, users::table, UserRow::from(&user))
    }

    async fn organizations_of_user(&self, user_id: &str) -> StoreResult<Vec<Organization>> {
        read_all!(
            self,
            OrganizationRow,
            OrganizationRow::into_domain,
            organizations::table
                .filter(organizations::owner_user_id.eq(user_id))
                .order(organizations::path.asc())
                .limit(200)
        )
    }
}
