//! Attachments through the pipeline on the memory store: the bytes are written before
//! the row and removed when the row is not written; refusals before any I/O; delete
//! removes the bytes.

use std::sync::Arc;

use super::{World, config, queued, transfer};
use crate::attachments::OwnerKind;
use crate::error::{DomainError, ErrorCode};
use crate::memory::MemoryBlobs;
use crate::services::{NewAttachmentInput, Outcome, Write};

fn upload(owner_id: &str, name: &str, bytes: &[u8]) -> Write {
    Write::CreateAttachment(NewAttachmentInput {
        owner_type: OwnerKind::Transaction,
        owner_id: owner_id.to_owned(),
        file_name: name.to_owned(),
        bytes: bytes.to_vec(),
    })
}

fn code(result: crate::DomainResult<impl std::fmt::Debug>) -> ErrorCode {
    match result {
        Err(e) => e.code(),
        Ok(v) => panic!("expected a refusal, got {v:?}"),
    }
}

/// A world of `credits` whose ledger keeps bytes in the returned blobs, with one
/// transaction (which costs one credit).
async fn world(credits: i64) -> (World, MemoryBlobs, String) {
    let mut w = World::with(config(credits)).await;
    let blobs = MemoryBlobs::default();
    w.ledger = w.ledger.clone().with_blobs(Arc::new(blobs.clone()));
    let cash = w.account(&w.live, "1000").await;
    let sales = w.account(&w.live, "4000").await;
    let submitted = w
        .submit(&w.live, transfer(&cash, &sales, "10.00", false))
        .await
        .expect("queued");
    let job = queued(&submitted);
    w.run_jobs().await;
    let done = w.ledger.get_job(&w.live, &job.id).await.expect("job");
    let id = done.result.expect("completed")["id"]
        .as_str()
        .expect("transaction id")
        .to_owned();
    (w, blobs, id)
}

#[tokio::test]
async fn an_upload_the_store_refuses_leaves_no_bytes() {
    // One credit: the transaction takes it, so the upload's row is refused for credits
    // after its bytes were written.
    let (w, blobs, txn) = world(1).await;
    let refused = w
        .submit(&w.live, upload(&txn, "r.pdf", b"%PDF-1.4\n"))
        .await;
    assert_eq!(code(refused), ErrorCode::InsufficientCredits);
    assert!(blobs.keys().is_empty(), "{:?}", blobs.keys());
    assert!(
        w.ledger
            .list_attachments(&w.live, OwnerKind::Transaction, &txn)
            .await
            .expect("list")
            .is_empty()
    );
}

#[tokio::test]
async fn uploads_are_checked_before_any_bytes_are_written() {
    let (w, blobs, txn) = world(500).await;
    let cases = [
        (
            upload(&txn, "r.pdf", b"PK\x03\x04zip"),
            ErrorCode::UnsupportedMediaType,
        ),
        (upload(&txn, "../", b"%PDF-1.4\n"), ErrorCode::InvalidField),
        (
            upload("txn_01JAAAAAAAAAAAAAAAAAAAAAAA", "r.pdf", b"%PDF-1.4\n"),
            ErrorCode::ResourceNotFound,
        ),
        (
            upload(
                &txn,
                "big.txt",
                &vec![b'a'; w.ledger.config.max_attachment_bytes + 1],
            ),
            ErrorCode::PayloadTooLarge,
        ),
    ];
    for (write, expected) in cases {
        assert_eq!(code(w.submit(&w.live, write).await), expected);
    }
    assert!(blobs.keys().is_empty());
    assert_eq!(w.credits(), 499);
}

#[tokio::test]
async fn upload_then_delete_keeps_then_removes_the_bytes() {
    let (w, blobs, txn) = world(500).await;
    let done = w
        .submit(&w.live, upload(&txn, "bank.csv", b"a,b\n1,2\n"))
        .await
        .expect("uploaded");
    let Outcome::Done(view) = done.outcome else {
        panic!("uploads are synchronous");
    };
    let id = view["id"].as_str().expect("id").to_owned();
    assert_eq!(view["content_type"], "text/csv");
    assert_eq!(w.credits(), 498);
    assert_eq!(
        blobs.keys(),
        [format!("{}/{id}", w.live.tenant.organization_id)]
    );
    let (att, bytes) = w
        .ledger
        .attachment_content(&w.live, &id)
        .await
        .expect("content");
    assert_eq!(bytes, b"a,b\n1,2\n");
    assert_eq!(att.sha256, crate::attachments::sha256_hex(&bytes));
    // The other mode does not see it.
    assert!(matches!(
        w.ledger.get_attachment(&w.test, &id).await,
        Err(DomainError::NotFound { .. })
    ));
    w.submit(&w.live, Write::DeleteAttachment { id: id.clone() })
        .await
        .expect("deleted");
    assert!(blobs.keys().is_empty());
    assert_eq!(w.credits(), 497);
    assert!(matches!(
        w.ledger.attachment_content(&w.live, &id).await,
        Err(DomainError::NotFound { .. })
    ));
}
