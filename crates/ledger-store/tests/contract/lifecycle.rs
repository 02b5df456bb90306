//! The steps the audited rows (taxes, categories, exchange rates, attachments) go through
//! alike, written once over [`Row`]: a keyed write replayed, an update only its tenant can
//! make, and a delete that hides the row, is refused to another tenant and refused when
//! repeated.

use std::fmt::Debug;
use std::future::Future;

use ledger_domain::StoreResult;
use ledger_domain::attachments::Attachment;
use ledger_domain::categories::Category;
use ledger_domain::events::Deletion;
use ledger_domain::exchange::ExchangeRate;
use ledger_domain::ports::{Audit, IdempotencyRecord, Store, Tenant, Written};
use ledger_domain::tax::Tax;
use serde_json::json;

use crate::{
    Org, PAGE, T0, at_minute, charge, charged, credits_left, deletion, event, hidden_from,
};

/// An audited row with the store methods that write, read and delete it.
pub trait Row: Clone + PartialEq + Debug + Sized {
    /// The entity type of its events and deletion records (`tax`).
    const KIND: &'static str;

    fn id(&self) -> &str;

    /// The organization and mode the row belongs to.
    fn tenant(&self) -> Tenant;

    fn insert<S: Store>(
        db: &S,
        row: Self,
        audit: Audit,
    ) -> impl Future<Output = StoreResult<Written<Self>>>;

    fn read<S: Store>(
        db: &S,
        tenant: &Tenant,
        id: &str,
    ) -> impl Future<Output = StoreResult<Option<Self>>>;

    fn delete<S: Store>(
        db: &S,
        id: &str,
        deletion: Deletion,
        audit: Audit,
    ) -> impl Future<Output = StoreResult<Written<()>>>;
}

/// A [`Row`] that can be changed after it was written.
pub trait Updated: Row {
    /// The same row filed under the organization `organization_id`.
    fn filed_under(&self, organization_id: &str) -> Self;

    fn update<S: Store>(
        db: &S,
        row: Self,
        audit: Audit,
    ) -> impl Future<Output = StoreResult<Written<Self>>>;
}

/// Implements [`Row`] (and [`Updated`] when `update` is named) for a row type with its
/// kind and its store methods.
macro_rules! row {
    ($row:ty, $kind:literal, $insert:ident, $get:ident, $delete:ident $(, $update:ident)?) => {
        impl Row for $row {
            const KIND: &'static str = $kind;

            fn id(&self) -> &str {
                &self.id
            }

            fn tenant(&self) -> Tenant {
                Tenant {
                    organization_id: self.organization_id.clone(),
                    livemode: self.livemode,
                }
            }

            async fn insert<S: Store>(db: &S, row: Self, audit: Audit) -> StoreResult<Written<Self>> {
                db.$insert(row, audit).await
            }

            async fn read<S: Store>(db: &S, tenant: &Tenant, id: &str) -> StoreResult<Option<Self>> {
                db.$get(tenant, id).await
            }

            async fn delete<S: Store>(
                db: &S,
                id: &str,
                deletion: Deletion,
                audit: Audit,
            ) -> StoreResult<Written<()>> {
                db.$delete(id, deletion, audit).await
            }
        }
        $(
            impl Updated for $row {
                fn filed_under(&self, organization_id: &str) -> Self {
                    Self {
                        organization_id: organization_id.to_owned(),
                        ..self.clone()
                    }
                }

                async fn update<S: Store>(db: &S, row: Self, audit: Audit) -> StoreResult<Written<Self>> {
                    db.$update(row, audit).await
                }
            }
        )?
    };
}

row!(Tax, "tax", insert_tax, get_tax, delete_tax, update_tax);
row!(
    Category,
    "category",
    insert_category,
    get_category,
    delete_category,
    update_category
);
row!(
    ExchangeRate,
    "exchange_rate",
    insert_exchange_rate,
    get_exchange_rate,
    delete_exchange_rate,
    update_exchange_rate
);
row!(
    Attachment,
    "attachment",
    insert_attachment,
    get_attachment,
    delete_attachment
);

/// Writes `row` in its tenant with an unpriced `{kind}.created` event (a set-up write).
pub async fn insert<S: Store, T: Row>(db: &S, row: &T) {
    let event = event(
        &row.tenant(),
        &format!("{}.created", T::KIND),
        T::KIND,
        row.id(),
    );
    T::insert(db, row.clone(), Audit::of(event))
        .await
        .unwrap_or_else(|e| panic!("insert {row:?}: {e:?}"));
}

/// Deletes `row` in its tenant with an unpriced `{kind}.deleted` event (a set-up write).
pub async fn delete<S: Store, T: Row>(db: &S, row: &T) {
    let (tenant, id) = (row.tenant(), row.id());
    let event = event(&tenant, &format!("{}.deleted", T::KIND), T::KIND, id);
    T::delete(db, id, deletion(&tenant, T::KIND, id), Audit::of(event))
        .await
        .expect("delete");
}

/// Writes `row` in its tenant with its `{kind}.created` event, charging `org` `credits`.
pub async fn insert_paid<S: Store, T: Row>(
    db: &S,
    org: &Org,
    row: &T,
    credits: i64,
) -> StoreResult<Written<T>> {
    let tenant = row.tenant();
    let event = event(&tenant, &format!("{}.created", T::KIND), T::KIND, row.id());
    let audit = charged(event, charge(org, tenant.livemode, credits));
    T::insert(db, row.clone(), audit).await
}

/// Writes `row` in its tenant charging `org` a credit: it is written as it was given.
pub async fn insert_charged<S: Store, T: Row>(db: &S, backend: &str, org: &Org, row: &T) {
    let written = insert_paid(db, org, row, 1).await.expect("insert");
    assert_eq!(written, Written::Done(row.clone()), "{backend}");
}

/// `a`'s live `row` reads back whole there, and neither `a`'s test mode nor `b` sees it.
pub async fn read_only_by_its_tenant<S: Store, T: Row>(
    db: &S,
    backend: &str,
    (a, b): (&Org, &Org),
    row: &T,
) {
    let id = row.id();
    let found = T::read(db, &a.tenant(true), id).await.expect("get");
    assert_eq!(found.as_ref(), Some(row), "{backend}");
    let others = [a.tenant(false), b.tenant(true)];
    hidden_from(&others, async |t| T::read(db, t, id).await, backend).await;
}

/// Writes `first` and then `second` (rows of the org's live mode) with the same
/// idempotency key `key`, each audited as a charged `{kind}.created`: the second write
/// answers the first's result (`{"id": first}`) and writes nothing, and only the first is
/// charged.
pub async fn a_used_key_replays_the_first<S: Store, T: Row>(
    db: &S,
    backend: &str,
    (org, key): (&Org, &str),
    [first, second]: [T; 2],
) {
    let live = org.tenant(true);
    let audit = |id: &str| Audit {
        event: event(&live, &format!("{}.created", T::KIND), T::KIND, id),
        idempotency: Some(IdempotencyRecord {
            organization_id: org.org.id.clone(),
            livemode: true,
            key: key.into(),
            request_hash: "h".into(),
            job_id: None,
            result: Some(json!({ "id": id })),
            created_at: T0,
        }),
        charge: Some(charge(org, true, 1)),
    };
    let (first_audit, second_audit) = (audit(first.id()), audit(second.id()));
    let first_id = first.id().to_owned();
    T::insert(db, first, first_audit).await.expect("insert");
    match T::insert(db, second.clone(), second_audit)
        .await
        .expect("replay")
    {
        Written::Replay(stored) => {
            assert_eq!(stored.result, Some(json!({"id": first_id})), "{backend}")
        }
        Written::Done(_) => panic!("{backend}: the key was used"),
    }
    let id = second.id();
    hidden_from(&[live], async |t| T::read(db, t, id).await, backend).await;
    assert_eq!(credits_left(db, &org.org.id).await, 499, "{backend}");
}

/// `a`'s live row saved as `changed` (its `{kind}.updated` event at minute 1) reads back
/// whole; the same change filed under `b` is refused as not found.
pub async fn update_only_by_its_tenant<S: Store, T: Updated>(
    db: &S,
    backend: &str,
    (a, b): (&Org, &Org),
    changed: &T,
) {
    let (live, id) = (a.tenant(true), changed.id());
    let updated = format!("{}.updated", T::KIND);
    let audit = Audit::of(at_minute(event(&live, &updated, T::KIND, id), 1));
    T::update(db, changed.clone(), audit).await.expect("update");
    assert_eq!(
        T::read(db, &live, id).await.expect("get").as_ref(),
        Some(changed),
        "{backend}"
    );
    let foreign = changed.filed_under(&b.org.id);
    let audit = Audit::of(event(&b.tenant(true), &updated, T::KIND, id));
    let err = T::update(db, foreign, audit)
        .await
        .expect_err("other tenant");
    assert_eq!(err.code(), "resource_not_found", "{backend}");
}

/// `a`'s live `row` deleted: `b` cannot (not found); `a` can, charged a credit, its
/// `{kind}.deleted` event at minute 2, and the row is gone then; a second delete is not
/// found; the deletion trail names the row first.
pub async fn delete_once_only_by_its_tenant<S: Store, T: Row>(
    db: &S,
    backend: &str,
    (a, b): (&Org, &Org),
    row: &T,
) {
    let (live, other, id) = (a.tenant(true), b.tenant(true), row.id());
    let deleted = format!("{}.deleted", T::KIND);
    let audit = Audit::of(event(&other, &deleted, T::KIND, id));
    let err = T::delete(db, id, deletion(&other, T::KIND, id), audit)
        .await
        .expect_err("other tenant");
    assert_eq!(err.code(), "resource_not_found", "{backend}");
    let audit = charged(
        at_minute(event(&live, &deleted, T::KIND, id), 2),
        charge(a, true, 1),
    );
    T::delete(db, id, deletion(&live, T::KIND, id), audit)
        .await
        .expect("delete");
    hidden_from(
        std::slice::from_ref(&live),
        async |t| T::read(db, t, id).await,
        backend,
    )
    .await;
    let audit = Audit::of(event(&live, &deleted, T::KIND, id));
    let again = T::delete(db, id, deletion(&live, T::KIND, id), audit)
        .await
        .expect_err("deleted");
    assert_eq!(again.code(), "resource_not_found", "{backend}");
    let trail = db.list_deletions(&live, PAGE).await.expect("trail");
    assert_eq!(trail.items[0].resource_id, id, "{backend}");
}

/// The event types recorded for the `entity_type` row `id`, oldest first.
pub async fn event_kinds<S: Store>(
    db: &S,
    tenant: &Tenant,
    entity_type: &str,
    id: &str,
) -> Vec<String> {
    db.list_events(tenant, entity_type, id)
        .await
        .expect("events")
        .into_iter()
        .map(|e| e.event_type)
        .collect()
}
