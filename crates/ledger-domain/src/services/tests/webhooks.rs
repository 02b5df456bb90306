//! Webhooks on the memory store: the fan-out turns events into deliveries once, a later
//! event of an entity waits for the earlier one, failed attempts back off and are
//! logged, and a failure streak disables the endpoint.

use std::sync::Arc;
use std::time::Duration;

use super::{World, config};
use crate::memory::MemoryWebhookTransport;
use crate::ports::PageRequest;
use crate::services::{AccountChanges, NewWebhookEndpointInput, Write};
use crate::webhooks::{DeliveryStatus, WebhookPolicy};

async fn world(policy: WebhookPolicy) -> (World, MemoryWebhookTransport, String) {
    let mut w = World::with(crate::services::LedgerConfig {
        webhooks: policy,
        ..config(500)
    })
    .await;
    let transport = MemoryWebhookTransport::default();
    w.ledger = w
        .ledger
        .clone()
        .with_webhook_transport(Arc::new(transport.clone()));
    let created = w
        .submit(
            &w.live,
            Write::CreateWebhookEndpoint(NewWebhookEndpointInput {
                url: "https://hooks.example.com/in".into(),
                ..Default::default()
            }),
        )
        .await
        .expect("endpoint")
        .into_result()
        .expect("view");
    assert!(
        created["secret"]
            .as_str()
            .is_some_and(|s| s.starts_with("whsec_"))
    );
    let id = created["id"].as_str().expect("id").to_owned();
    w.clock.advance(time::Duration::seconds(1));
    (w, transport, id)
}

fn policy() -> WebhookPolicy {
    WebhookPolicy {
        backoff_base: Duration::from_secs(10),
        backoff_cap: Duration::from_secs(60),
        max_attempts: 3,
        settle: Duration::ZERO,
        ..WebhookPolicy::default()
    }
}

async fn rename(w: &World, account: &str, name: &str) {
    let changes = AccountChanges {
        name: Some(name.into()),
        ..Default::default()
    };
    w.submit(
        &w.live,
        Write::UpdateAccount {
            id: account.to_owned(),
            changes,
        },
    )
    .await
    .expect("renamed");
}

#[tokio::test]
async fn an_entitys_events_go_out_in_order_after_retries() {
    let (w, transport, endpoint) = world(policy()).await;
    let cash = w.account(&w.live, "1000").await;
    rename(&w, &cash, "Till").await;
    w.clock.advance(time::Duration::milliseconds(1));
    rename(&w, &cash, "Drawer").await;
    w.clock.advance(time::Duration::seconds(1));
    assert_eq!(w.ledger.fan_out_webhooks().await.expect("fan-out"), 2);
    assert_eq!(w.ledger.fan_out_webhooks().await.expect("again"), 0);
    transport.script(&[500, 503]);
    // Only the earlier event is claimed; it fails and backs off.
    assert_eq!(w.ledger.deliver_webhooks().await.expect("pass"), 1);
    assert_eq!(w.ledger.deliver_webhooks().await.expect("not due"), 0);
    w.clock.advance(time::Duration::seconds(60));
    assert_eq!(w.ledger.deliver_webhooks().await.expect("retry"), 1);
    w.clock.advance(time::Duration::seconds(60));
    assert_eq!(w.ledger.deliver_webhooks().await.expect("third"), 1);
    assert_eq!(w.ledger.deliver_webhooks().await.expect("the later"), 1);
    let sent: Vec<String> = transport
        .sent()
        .iter()
        .map(|s| s.message_id.clone())
        .collect();
    assert_eq!(sent.len(), 4);
    assert_eq!(sent[0], sent[1]);
    assert_eq!(sent[1], sent[2]);
    assert_ne!(sent[2], sent[3]);
    let page = PageRequest {
        limit: 10,
        offset: 0,
    };
    let deliveries = w
        .ledger
        .list_webhook_deliveries(&w.live, &endpoint, page)
        .await
        .expect("deliveries");
    assert!(
        deliveries
            .items
            .iter()
            .all(|d| d.status == DeliveryStatus::Delivered)
    );
    let first = deliveries
        .items
        .iter()
        .find(|d| d.event_id == sent[0])
        .expect("first");
    let (_, attempts) = w
        .ledger
        .get_webhook_delivery(&w.live, &endpoint, &first.id)
        .await
        .expect("log");
    let codes: Vec<Option<i64>> = attempts.iter().map(|a| a.status_code).collect();
    assert_eq!(codes, [Some(500), Some(503), Some(200)]);
    // The test-mode key does not see the live endpoint.
    assert!(
        w.ledger
            .get_webhook_endpoint(&w.test, &endpoint)
            .await
            .is_err()
    );
}

#[tokio::test]
async fn a_failure_streak_disables_the_endpoint_and_giving_up_unblocks_the_entity() {
    let (w, transport, endpoint) = world(WebhookPolicy {
        max_attempts: 1,
        disable_after: 2,
        ..policy()
    })
    .await;
    let cash = w.account(&w.live, "1000").await;
    for name in ["A", "B", "C"] {
        rename(&w, &cash, name).await;
        w.clock.advance(time::Duration::milliseconds(1));
    }
    w.clock.advance(time::Duration::seconds(1));
    w.ledger.fan_out_webhooks().await.expect("fan-out");
    transport.script(&[500, 500, 500]);
    assert_eq!(w.ledger.deliver_webhooks().await.expect("first"), 1);
    // Given up after its only attempt: the next event of the entity proceeds.
    assert_eq!(w.ledger.deliver_webhooks().await.expect("second"), 1);
    // The streak of two disabled the endpoint: nothing more is claimed.
    assert_eq!(w.ledger.deliver_webhooks().await.expect("disabled"), 0);
    let stored = w
        .ledger
        .get_webhook_endpoint(&w.live, &endpoint)
        .await
        .expect("endpoint");
    assert!(!stored.enabled);
    assert_eq!(stored.disabled_reason.as_deref(), Some("failure_streak"));
    assert!(
        w.store()
            .events()
            .iter()
            .any(|e| e.event_type == "webhook_endpoint.disabled" && e.entity_id == endpoint)
    );
}
