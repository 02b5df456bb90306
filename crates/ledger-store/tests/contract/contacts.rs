//! Contacts: reads with filters and search, and the contact effects with their
//! preconditions (unique reference among live contacts, no delete while referenced).

use ledger_domain::contacts::{Contact, ContactFields, ContactFilter, ContactType};
use ledger_domain::ids::{IdKind, new_id};
use ledger_domain::ports::{Effect, PageRequest, Store, Tenant};
use ledger_domain::transactions::TransactionStatus;
use ledger_domain::{Resource, UsedBy};
use serde_json::json;

use crate::sign_up_each;
use crate::{Org, T0, account_id, deletion, enqueue_and_claim, job, post_command, sign_up};

async fn apply<S: Store>(db: &S, org: &Org, livemode: bool, effect: Effect) -> Result<(), String> {
    let held = enqueue_and_claim(db, job(org, livemode, post_command("txn"), 0)).await;
    db.apply_job(&held, effect, vec![], json!({}), T0)
        .await
        .map_err(|e| e.code().as_str().to_owned())
}

fn contact(tenant: &Tenant, name: &str, reference: Option<&str>, offset_s: i64) -> Contact {
    Contact {
        id: new_id(IdKind::Contact),
        organization_id: tenant.organization_id.clone(),
        livemode: tenant.livemode,
        contact_type: ContactType::Customer,
        fields: ContactFields {
            name: name.to_owned(),
            email: Some(format!(
                "{}@example.com",
                name.to_lowercase().replace(' ', ".")
            )),
            phone: None,
            website: None,
            tax_number: None,
            reference: reference.map(str::to_owned),
            address: None,
            city: None,
            state: None,
            zip_code: None,
            country: Some("DE".to_owned()),
            currency_id: "USD".to_owned(),
            enabled: true,
            metadata: json!({ "k": 1 }),
        },
        created_by: "key_x".to_owned(),
        created_at: T0 + time::Duration::seconds(offset_s),
        updated_at: T0 + time::Duration::seconds(offset_s),
    }
}

const ALL: PageRequest = crate::page(100, 0);

contract!(contacts_insert_read_list_and_search);
async fn contacts_insert_read_list_and_search<S: Store>(db: &S, backend: &str) {
    let [a, b] = sign_up_each(db, ["A", "B"]).await;
    let test = a.tenant(false);
    let first = contact(&test, "Alpha Shop", Some("C-1"), 0);
    let second = contact(&test, "Beta 50%", Some("C_2"), 1);
    let mut third = contact(&test, "Gamma", None, 2);
    third.contact_type = ContactType::Vendor;
    third.fields.enabled = false;
    for c in [&first, &second, &third] {
        apply(db, &a, false, Effect::InsertContact(c.clone()))
            .await
            .expect("insert");
    }
    let got = db.get_contact(&test, &first.id).await.expect("get");
    assert_eq!(got.as_ref(), Some(&first), "{backend}");
    // Other tenant and other mode see nothing.
    assert_eq!(
        db.get_contact(&a.tenant(true), &first.id)
            .await
            .expect("get"),
        None
    );
    assert_eq!(
        db.get_contact(&b.tenant(false), &first.id)
            .await
            .expect("get"),
        None
    );

    let tenant = &test;
    let list = |filter: ContactFilter| async move {
        db.list_contacts(tenant, &filter, ALL)
            .await
            .expect("list")
            .items
            .into_iter()
            .map(|c| c.fields.name)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        list(ContactFilter::default()).await,
        ["Alpha Shop", "Beta 50%", "Gamma"]
    );
    let enabled = ContactFilter {
        enabled: Some(true),
        ..Default::default()
    };
    assert_eq!(list(enabled).await, ["Alpha Shop", "Beta 50%"]);
    let vendors = ContactFilter {
        contact_type: Some(ContactType::Vendor),
        ..Default::default()
    };
    assert_eq!(list(vendors).await, ["Gamma"]);
    let search = |s: &str| ContactFilter {
        search: Some(s.to_owned()),
        ..Default::default()
    };
    assert_eq!(list(search("ALPHA")).await, ["Alpha Shop"]);
    assert_eq!(list(search("gamma@example")).await, ["Gamma"]);
    assert_eq!(list(search("%")).await, ["Beta 50%"]);
    assert_eq!(list(search("c_")).await, ["Beta 50%"]);
    assert_eq!(list(search("c-")).await, ["Alpha Shop"]);
    let page = db
        .list_contacts(&test, &ContactFilter::default(), crate::page(1, 1))
        .await
        .expect("page");
    assert_eq!(page.total_count, 3);
    assert_eq!(page.items[0].id, second.id);
    // Many by id in one read: unknown ids skipped, another tenant or mode sees none.
    let ids = vec![first.id.clone(), third.id.clone(), "con_unknown".to_owned()];
    let mut many = db.contacts_by_ids(&test, &ids).await.expect("many");
    many.sort_by(|x, y| x.fields.name.cmp(&y.fields.name));
    assert_eq!(many, [first.clone(), third.clone()], "{backend}");
    assert!(
        db.contacts_by_ids(&test, &[])
            .await
            .expect("none")
            .is_empty()
    );
    assert!(
        db.contacts_by_ids(&a.tenant(true), &ids)
            .await
            .expect("mode")
            .is_empty()
    );
    assert!(
        db.contacts_by_ids(&b.tenant(false), &ids)
            .await
            .expect("tenant")
            .is_empty()
    );
    assert!(
        db.list_contacts(&b.tenant(false), &ContactFilter::default(), ALL)
            .await
            .expect("list")
            .items
            .is_empty()
    );
}

contract!(contact_reference_is_unique_among_live_contacts);
async fn contact_reference_is_unique_among_live_contacts<S: Store>(db: &S, backend: &str) {
    let a = sign_up(db, "A").await;
    let test = a.tenant(false);
    let first = contact(&test, "One", Some("R-1"), 0);
    apply(db, &a, false, Effect::InsertContact(first.clone()))
        .await
        .expect("insert");
    assert_eq!(
        db.contact_with_reference(&test, "R-1").await.expect("find"),
        Some(first.id.clone())
    );
    assert_eq!(
        db.contact_with_reference(&a.tenant(true), "R-1")
            .await
            .expect("find"),
        None
    );
    // The unique index refuses a second live contact with the reference...
    let dup = contact(&test, "Two", Some("R-1"), 1);
    assert_eq!(
        apply(db, &a, false, Effect::InsertContact(dup.clone())).await,
        Err("duplicate_value".to_owned()),
        "{backend}"
    );
    // ... in the same mode only.
    let live = contact(&a.tenant(true), "Two", Some("R-1"), 1);
    apply(db, &a, true, Effect::InsertContact(live))
        .await
        .expect("other mode");
    // A replace that takes a used reference fails too; one keeping its own is fine.
    let other = contact(&test, "Other", Some("R-2"), 2);
    apply(db, &a, false, Effect::InsertContact(other.clone()))
        .await
        .expect("insert");
    let mut taking = other.clone();
    taking.fields.reference = Some("R-1".to_owned());
    assert_eq!(
        apply(db, &a, false, Effect::ReplaceContact(taking)).await,
        Err("duplicate_value".to_owned())
    );
    let mut renamed = other.clone();
    renamed.fields.name = "Renamed".to_owned();
    renamed.fields.enabled = false;
    apply(db, &a, false, Effect::ReplaceContact(renamed.clone()))
        .await
        .expect("replace");
    assert_eq!(
        db.get_contact(&test, &other.id).await.expect("get"),
        Some(renamed)
    );
    // Deleted contacts free their reference.
    let delete = Effect::DeleteContact {
        contact_id: first.id.clone(),
        deletion: deletion(&test, "contact", &first.id),
    };
    apply(db, &a, false, delete).await.expect("delete");
    apply(db, &a, false, Effect::InsertContact(dup))
        .await
        .expect("reference free again");
}

contract!(contact_delete_needs_no_live_transaction);
async fn contact_delete_needs_no_live_transaction<S: Store>(db: &S, backend: &str) {
    let a = sign_up(db, "A").await;
    let test = a.tenant(false);
    let c = contact(&test, "Buyer", None, 0);
    apply(db, &a, false, Effect::InsertContact(c.clone()))
        .await
        .expect("insert");
    let cash = account_id(db, &test, "1000").await;
    let sales = account_id(db, &test, "4000").await;
    let mut txn = crate::transaction(&test, T0, TransactionStatus::Pending, &cash, &sales, 100);
    txn.contact_id = Some(c.id.clone());
    apply(db, &a, false, Effect::InsertTransaction(txn.clone()))
        .await
        .expect("insert txn");
    let stored = db.get_transaction(&test, &txn.id).await.expect("get");
    assert_eq!(stored.and_then(|s| s.contact_id), Some(c.id.clone()));
    assert_eq!(
        db.first_reference(&test, Resource::Contact, &c.id)
            .await
            .expect("in use"),
        Some(UsedBy::Transactions)
    );
    assert_eq!(
        db.first_reference(&a.tenant(true), Resource::Contact, &c.id)
            .await
            .expect("in use"),
        None
    );
    let delete = || Effect::DeleteContact {
        contact_id: c.id.clone(),
        deletion: deletion(&test, "contact", &c.id),
    };
    assert_eq!(
        apply(db, &a, false, delete()).await,
        Err("resource_in_use".to_owned()),
        "{backend}"
    );
    assert!(db.get_contact(&test, &c.id).await.expect("get").is_some());
    // Once the transaction is deleted the contact may go, into the deletion trail.
    apply(
        db,
        &a,
        false,
        Effect::DeleteTransaction {
            transaction_id: txn.id.clone(),
            deletion: deletion(&test, "transaction", &txn.id),
        },
    )
    .await
    .expect("delete txn");
    assert_eq!(
        db.first_reference(&test, Resource::Contact, &c.id)
            .await
            .expect("in use"),
        None
    );
    apply(db, &a, false, delete()).await.expect("delete");
    assert_eq!(db.get_contact(&test, &c.id).await.expect("get"), None);
    let trail = db.list_deletions(&test, ALL).await.expect("trail");
    assert!(
        trail
            .items
            .iter()
            .any(|d| d.resource_type == "contact" && d.resource_id == c.id)
    );
    // The purge removes it once its retention has passed.
    let report = db
        .purge_expired(T0 + time::Duration::days(7), T0)
        .await
        .expect("purge");
    assert_eq!(report.contacts, 1, "{backend}");
    // Deleting again, or replacing a deleted contact, finds nothing.
    assert_eq!(
        apply(db, &a, false, delete()).await,
        Err("resource_not_found".to_owned())
    );
    assert_eq!(
        apply(db, &a, false, Effect::ReplaceContact(c.clone())).await,
        Err("resource_not_found".to_owned())
    );
    // A transaction decided before the contact went cannot name it any more, through
    // the queue or through the group commit.
    let mut late = crate::transaction(&test, T0, TransactionStatus::Pending, &cash, &sales, 5);
    late.contact_id = Some(c.id.clone());
    assert_eq!(
        apply(db, &a, false, Effect::InsertTransaction(late.clone())).await,
        Err("resource_in_use".to_owned()),
        "{backend}"
    );
    let mut write = crate::group::applied(&a, false, &cash, &sales, 5, None);
    write.transaction.contact_id = Some(c.id.clone());
    let refused = ledger_domain::ports::Jobs::record_applied(db, write).await;
    assert_eq!(
        refused.err().map(|e| e.code().as_str()),
        Some("resource_in_use")
    );
}
