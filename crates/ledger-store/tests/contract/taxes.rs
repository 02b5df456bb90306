//! Taxes and categories: writes with events and credits, tenant-scoped reads, filters,
//! pagination and soft deletes (with the "in use" refusals of categories).

use ledger_domain::StoreError;
use ledger_domain::categories::{Category, CategoryType};
use ledger_domain::ids::{IdKind, new_id};
use ledger_domain::ports::{Audit, CategoryFilter, Store, TaxFilter, Tenant};
use ledger_domain::tax::{Tax, TaxType};

use crate::PAGE;
use crate::absent;
use crate::charged;
use crate::credits_left;
use crate::hidden_from;
use crate::lifecycle;
use crate::sign_up_each;
use crate::{T0, at_minute, charge, deletion, event, sign_up};

fn tax(tenant: &Tenant, name: &str, rate: i64, tax_type: TaxType) -> Tax {
    Tax {
        id: new_id(IdKind::Tax),
        organization_id: tenant.organization_id.clone(),
        livemode: tenant.livemode,
        name: name.to_owned(),
        description: None,
        rate,
        tax_type,
        is_compound: false,
        is_active: true,
        created_at: T0,
        updated_at: T0,
    }
}

fn category(tenant: &Tenant, name: &str, parent_id: Option<&str>) -> Category {
    Category {
        id: new_id(IdKind::Category),
        organization_id: tenant.organization_id.clone(),
        livemode: tenant.livemode,
        name: name.to_owned(),
        description: Some("d".to_owned()),
        category_type: CategoryType::Expense,
        color: "#1F77B4".to_owned(),
        is_active: true,
        parent_id: parent_id.map(str::to_owned),
        created_at: T0,
        updated_at: T0,
    }
}

contract!(taxes_are_written_read_and_deleted_per_tenant);
async fn taxes_are_written_read_and_deleted_per_tenant<S: Store>(db: &S, backend: &str) {
    let [a, b] = sign_up_each(db, ["Tax A", "Tax B"]).await;
    let live = a.tenant(true);
    let vat = tax(&live, "VAT", 200_000, TaxType::Vat);
    lifecycle::insert_charged(db, backend, &a, &vat).await;
    let mut sales = tax(&live, "Sales", 82_500, TaxType::SalesTax);
    sales.is_active = false;
    lifecycle::insert(db, &sales).await;
    // Another mode or organization does not see it.
    lifecycle::read_only_by_its_tenant(db, backend, (&a, &b), &vat).await;
    assert_eq!(credits_left(db, &a.org.id).await, 499);

    // Filters and pagination.
    let all = db
        .list_taxes(&live, &TaxFilter::default(), PAGE)
        .await
        .expect("list");
    assert_eq!(all.total_count, 2);
    assert_eq!(all.items[0].name, "Sales", "by name");
    let active = TaxFilter {
        is_active: Some(true),
        ..TaxFilter::default()
    };
    assert_eq!(
        db.list_taxes(&live, &active, PAGE)
            .await
            .expect("list")
            .items,
        std::slice::from_ref(&vat)
    );
    let vats = TaxFilter {
        tax_type: Some(TaxType::Vat),
        ..TaxFilter::default()
    };
    assert_eq!(
        db.list_taxes(&live, &vats, PAGE)
            .await
            .expect("list")
            .total_count,
        1
    );
    let second = db
        .list_taxes(&live, &TaxFilter::default(), crate::page(1, 1))
        .await
        .expect("list");
    assert_eq!((second.items.len(), second.total_count), (1, 2));
    assert_eq!(
        db.list_taxes(&b.tenant(true), &TaxFilter::default(), PAGE)
            .await
            .expect("list")
            .total_count,
        0
    );

    // Update saves every mutable field; another tenant's copy is not found.
    let mut changed = vat.clone();
    changed.name = "VAT reduced".to_owned();
    changed.rate = 50_000;
    changed.is_active = false;
    changed.description = Some("food".to_owned());
    changed.updated_at = T0 + time::Duration::minutes(1);
    lifecycle::update_only_by_its_tenant(db, backend, (&a, &b), &changed).await;

    // Delete: hidden, audited, charged; twice is not found; the other tenant cannot.
    lifecycle::delete_once_only_by_its_tenant(db, backend, (&a, &b), &changed).await;
    assert_eq!(
        db.list_taxes(&live, &TaxFilter::default(), PAGE)
            .await
            .expect("list")
            .total_count,
        1
    );
    let trail = db.list_deletions(&live, PAGE).await.expect("trail");
    assert_eq!(trail.total_count, 1);
    assert_eq!(
        lifecycle::event_kinds(db, &live, "tax", &vat.id).await,
        ["tax.created", "tax.updated", "tax.deleted"]
    );
    assert_eq!(credits_left(db, &a.org.id).await, 498);
}

contract!(a_short_pool_writes_nothing);
async fn a_short_pool_writes_nothing<S: Store>(db: &S, backend: &str) {
    let a = sign_up(db, "Broke Tax").await;
    let live = a.tenant(true);
    let vat = tax(&live, "VAT", 1, TaxType::Vat);
    let err = lifecycle::insert_paid(db, &a, &vat, 501)
        .await
        .expect_err("short");
    assert!(
        matches!(err, StoreError::CreditsShort { .. }),
        "{backend}: {err:?}"
    );
    assert!(db.get_tax(&live, &vat.id).await.expect("get").is_none());
    assert!(
        db.list_events(&live, "tax", &vat.id)
            .await
            .expect("events")
            .is_empty()
    );
    let cat = category(&live, "Travel", None);
    let err = lifecycle::insert_paid(db, &a, &cat, 501)
        .await
        .expect_err("short");
    assert_eq!(err.code(), "insufficient_credits");
    absent(db.get_category(&live, &cat.id).await, backend);
}

contract!(categories_nest_and_refuse_deletion_in_use);
async fn categories_nest_and_refuse_deletion_in_use<S: Store>(db: &S, backend: &str) {
    let [a, b] = sign_up_each(db, ["Cat A", "Cat B"]).await;
    let test = a.tenant(false);
    let parent = category(&test, "Travel", None);
    let child = category(&test, "Flights", Some(&parent.id));
    let mut other = category(&test, "Archive", None);
    other.is_active = false;
    other.category_type = CategoryType::Other;
    for c in [&parent, &child, &other] {
        lifecycle::insert_paid(db, &a, c, 1).await.expect("insert");
    }
    // Test-mode credits never touch the live pool.
    assert_eq!(credits_left(db, &a.org.id).await, 500);
    assert_eq!(
        db.get_category(&test, &child.id).await.expect("get"),
        Some(child.clone()),
        "{backend}"
    );
    hidden_from(
        &[a.tenant(true), b.tenant(false)],
        async |t| db.get_category(t, &child.id).await,
        backend,
    )
    .await;

    let kids = CategoryFilter {
        parent_id: Some(parent.id.clone()),
        ..CategoryFilter::default()
    };
    assert_eq!(
        db.list_categories(&test, &kids, None)
            .await
            .expect("list")
            .items,
        std::slice::from_ref(&child)
    );
    let all = db
        .list_categories(&test, &CategoryFilter::default(), None)
        .await
        .expect("list");
    let names: Vec<&str> = all.items.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["Archive", "Flights", "Travel"]);
    let inactive = CategoryFilter {
        is_active: Some(false),
        ..CategoryFilter::default()
    };
    assert_eq!(
        db.list_categories(&test, &inactive, Some(PAGE))
            .await
            .expect("list")
            .items,
        [other.clone()]
    );
    let expense = CategoryFilter {
        category_type: Some(CategoryType::Expense),
        ..CategoryFilter::default()
    };
    let page = db
        .list_categories(&test, &expense, Some(crate::page(1, 0)))
        .await
        .expect("list");
    assert_eq!((page.items.len(), page.total_count), (1, 2));

    // Update saves every mutable field.
    let mut moved = child.clone();
    moved.name = "Air".to_owned();
    moved.color = "#000000".to_owned();
    moved.is_active = false;
    moved.description = None;
    moved.updated_at = T0 + time::Duration::minutes(1);
    db.update_category(
        moved.clone(),
        Audit::of(at_minute(
            event(&test, "category.updated", "category", &child.id),
            1,
        )),
    )
    .await
    .expect("update");
    assert_eq!(
        db.get_category(&test, &child.id).await.expect("get"),
        Some(moved.clone())
    );

    // A parent with a live child is in use; once the child is gone it can be deleted.
    let err = db
        .delete_category(
            &parent.id,
            deletion(&test, "category", &parent.id),
            Audit::of(event(&test, "category.deleted", "category", &parent.id)),
        )
        .await
        .expect_err("in use");
    assert_eq!(err.code(), "resource_in_use");
    let err = db
        .delete_category(
            &child.id,
            deletion(&b.tenant(false), "category", &child.id),
            Audit::of(event(
                &b.tenant(false),
                "category.deleted",
                "category",
                &child.id,
            )),
        )
        .await
        .expect_err("other tenant");
    assert_eq!(err.code(), "resource_not_found");
    db.delete_category(
        &child.id,
        deletion(&test, "category", &child.id),
        Audit::of(at_minute(
            event(&test, "category.deleted", "category", &child.id),
            2,
        )),
    )
    .await
    .expect("delete child");
    db.delete_category(
        &parent.id,
        deletion(&test, "category", &parent.id),
        charged(
            event(&test, "category.deleted", "category", &parent.id),
            charge(&a, false, 1),
        ),
    )
    .await
    .expect("delete parent");
    absent(db.get_category(&test, &parent.id).await, backend);
    assert_eq!(
        db.list_deletions(&test, PAGE)
            .await
            .expect("trail")
            .total_count,
        2
    );
    assert_eq!(
        lifecycle::event_kinds(db, &test, "category", &child.id).await,
        ["category.created", "category.updated", "category.deleted"]
    );
}

contract!(a_category_used_by_a_transaction_is_in_use);
async fn a_category_used_by_a_transaction_is_in_use<S: Store>(db: &S, backend: &str) {
    let a = sign_up(db, "Cat Txn").await;
    let test = a.tenant(false);
    let used = category(&test, "Consulting", None);
    lifecycle::insert(db, &used).await;
    let cash = crate::account_id(db, &test, "1000").await;
    let sales = crate::account_id(db, &test, "4000").await;
    let mut txn = crate::transaction(
        &test,
        T0,
        ledger_domain::transactions::TransactionStatus::Pending,
        &cash,
        &sales,
        10_000,
    );
    txn.category_id = Some(used.id.clone());
    crate::journal::insert(db, &a, txn.clone()).await;
    let stored = db.get_transaction(&test, &txn.id).await.expect("get");
    assert_eq!(
        stored.and_then(|s| s.category_id),
        Some(used.id.clone()),
        "{backend}"
    );
    let err = db
        .delete_category(
            &used.id,
            deletion(&test, "category", &used.id),
            Audit::of(event(&test, "category.deleted", "category", &used.id)),
        )
        .await
        .expect_err("in use");
    assert_eq!(err.code(), "resource_in_use");
    assert!(
        db.get_category(&test, &used.id)
            .await
            .expect("get")
            .is_some()
    );
}

contract!(expired_taxes_and_categories_are_purged);
async fn expired_taxes_and_categories_are_purged<S: Store>(db: &S, backend: &str) {
    let a = sign_up(db, "Purge Cat").await;
    let test = a.tenant(false);
    let gone_tax = tax(&test, "Gone", 1, TaxType::Other);
    let kept_tax = tax(&test, "Kept", 1, TaxType::Other);
    let parent = category(&test, "Parent", None);
    let child = category(&test, "Child", Some(&parent.id));
    lifecycle::insert(db, &gone_tax).await;
    lifecycle::insert(db, &kept_tax).await;
    lifecycle::insert(db, &parent).await;
    lifecycle::insert(db, &child).await;
    lifecycle::delete(db, &gone_tax).await;
    let mut later = deletion(&test, "tax", &kept_tax.id);
    later.recoverable_until = T0 + time::Duration::days(30);
    db.delete_tax(
        &kept_tax.id,
        later,
        Audit::of(event(&test, "tax.deleted", "tax", &kept_tax.id)),
    )
    .await
    .expect("delete");
    lifecycle::delete(db, &child).await;
    lifecycle::delete(db, &parent).await;
    let report = db
        .purge_expired(T0 + time::Duration::days(8), T0 - time::Duration::days(1))
        .await
        .expect("purge");
    assert_eq!(
        (report.taxes, report.categories, report.deletions),
        (1, 2, 3),
        "{backend}"
    );
    assert_eq!(
        db.list_deletions(&test, PAGE)
            .await
            .expect("trail")
            .total_count,
        1
    );
}
