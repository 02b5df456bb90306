//! Attachments (issue 18, item 3): multipart upload on transactions, invoices and bills,
//! list, metadata, byte-identical download with the checksum, credits, idempotent
//! replay, delete; refused uploads (mislabelled, oversized, not multipart, unknown
//! owner) that leave no blob and no row; tenancy and modes.

use ledger_domain::attachments::sha256_hex;
use ledger_tests::{Answer, Org, TestApp, both, entries, strs};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use ledger_tests::refused;

const BOUNDARY: &str = "ledger-test-boundary-7MA4YWxkTrZu0gW";

/// A small but real PDF (one empty page).
const PDF: &[u8] = b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n";
const CSV: &[u8] = b"date,description,amount\n2026-03-01,Paper,12.50\n";
/// The start of a ZIP archive (and so of an executable-bearing archive or a DOCX).
const ZIP: &[u8] = b"PK\x03\x04\x14\x00\x00\x00\x08\x00payload.exe\x00\x00";

/// A multipart/form-data body with one part named `name`.
fn multipart(name: &str, file_name: &str, content_type: &str, bytes: &[u8]) -> Vec<u8> {
    let mut body = format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{file_name}\"\r\nContent-Type: {content_type}\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{BOUNDARY}--\r\n").as_bytes());
    body
}

/// Sends raw bytes; answers status, headers and the body (JSON when it parses).
async fn raw(
    app: &TestApp,
    method: Method,
    key: &str,
    path: &str,
    body: Option<(Vec<u8>, &str)>,
    headers: &[(&str, &str)],
) -> (Answer, Vec<u8>) {
    let mut req = app
        .client
        .request(method, format!("{}{path}", app.base))
        .bearer_auth(key);
    if let Some((bytes, content_type)) = body {
        req = req.header("Content-Type", content_type).body(bytes);
    }
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    let res = req.send().await.expect("request reaches the server");
    let status = res.status();
    let headers = res.headers().clone();
    let bytes = res.bytes().await.expect("body").to_vec();
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    (
        Answer {
            status,
            headers,
            body,
        },
        bytes,
    )
}

async fn upload(
    app: &TestApp,
    key: &str,
    path: &str,
    file_name: &str,
    claimed_type: &str,
    bytes: &[u8],
    headers: &[(&str, &str)],
) -> Answer {
    let body = multipart("file", file_name, claimed_type, bytes);
    let content_type = format!("multipart/form-data; boundary={BOUNDARY}");
    raw(
        app,
        Method::POST,
        key,
        path,
        Some((body, &content_type)),
        headers,
    )
    .await
    .0
}

/// Every file under the blob directory (temporary files included).
fn blob_files(app: &TestApp) -> Vec<std::path::PathBuf> {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&app.blob_dir, &mut out);
    out
}

async fn transaction(app: &TestApp, org: &Org, key: &str) -> String {
    let [cash, sales] = app.account_ids(org, key, ["1000", "4000"]).await;
    let entries = entries(&cash, &sales, "12.50");
    app.create_id_wait(
        key,
        &org.path("transactions"),
        json!({"description": "Paper", "date": "2026-03-01", "entries": entries}),
    )
    .await
}

async fn document(app: &TestApp, org: &Org, key: &str, kind: &str) -> String {
    let (contact_type, body) = match kind {
        "invoices" => (
            "customer",
            json!({"invoice_date": "2026-01-10", "due_date": "2026-02-09"}),
        ),
        _ => (
            "vendor",
            json!({"bill_date": "2026-01-10", "due_date": "2026-02-09"}),
        ),
    };
    let contact = app
        .post_wait(
            key,
            &org.path("contacts"),
            json!({"contact_type": contact_type, "name": format!("{kind} contact")}),
        )
        .await;
    assert_eq!(contact.status, StatusCode::CREATED, "{}", contact.body);
    let mut body = body;
    body["contact_id"] = contact.body["id"].clone();
    body["items"] = json!([{"description": "Paper", "quantity": 1, "unit_price": "12.50"}]);
    app.create_id_wait(key, &org.path(kind), body).await
}

async fn upload_list_download_replay_and_delete(app: &TestApp) {
    let org = app.signup("Receipts").await;
    let key = &org.live_key;
    let txn = transaction(app, &org, key).await;
    let on_txn = org.path(&format!("transactions/{txn}/attachments"));
    let before = app.credits(&org).await;

    // A PDF sent as octet-stream is still a PDF: the bytes decide.
    let pdf = upload(
        app,
        key,
        &on_txn,
        "receipt.pdf",
        "application/octet-stream",
        PDF,
        &[],
    )
    .await;
    assert_eq!(pdf.status, StatusCode::CREATED, "{}", pdf.body);
    let pdf_id = pdf.id();
    assert!(pdf_id.starts_with("att_"), "{pdf_id}");
    assert_eq!(pdf.body["object"], "attachment");
    assert_eq!(pdf.body["owner_type"], "transaction");
    assert_eq!(pdf.body["owner_id"], txn.as_str());
    assert_eq!(pdf.body["file_name"], "receipt.pdf");
    assert_eq!(pdf.body["content_type"], "application/pdf");
    assert_eq!(pdf.body["size"], PDF.len());
    assert_eq!(pdf.body["sha256"], sha256_hex(PDF));
    assert_eq!(
        pdf.body["download_url"],
        org.path(&format!("attachments/{pdf_id}/content"))
    );
    assert_eq!(app.credits(&org).await, before - 1);

    let csv = upload(
        app,
        key,
        &on_txn,
        "bank.csv",
        "text/csv",
        CSV,
        &[("Idempotency-Key", "csv-1")],
    )
    .await;
    assert_eq!(csv.status, StatusCode::CREATED, "{}", csv.body);
    assert_eq!(csv.body["content_type"], "text/csv");
    assert_eq!(app.credits(&org).await, before - 2);
    assert_eq!(blob_files(app).len(), 2);

    // The same upload with the same key answers the first one again: no charge, no blob.
    let again = upload(
        app,
        key,
        &on_txn,
        "bank.csv",
        "text/csv",
        CSV,
        &[("Idempotency-Key", "csv-1")],
    )
    .await;
    assert_eq!(again.status, StatusCode::CREATED, "{}", again.body);
    assert_eq!(again.body["id"], csv.body["id"]);
    assert_eq!(again.header("Idempotent-Replayed"), Some("true"));
    // Another file under the same key is refused.
    let other = upload(
        app,
        key,
        &on_txn,
        "bank.csv",
        "text/csv",
        b"x,y\n",
        &[("Idempotency-Key", "csv-1")],
    )
    .await;
    refused(&other, StatusCode::CONFLICT, "idempotency_key_reused");
    assert_eq!(app.credits(&org).await, before - 2);
    assert_eq!(blob_files(app).len(), 2);

    let list = app.read(key, &on_txn).await;
    assert_eq!(list["object"], "list");
    assert_eq!(
        strs(&list["data"], "id"),
        [pdf_id.as_str(), csv.body["id"].as_str().expect("id")]
    );

    let meta = app
        .read(key, &org.path(&format!("attachments/{pdf_id}")))
        .await;
    assert_eq!(meta, pdf.body);

    let content = org.path(&format!("attachments/{pdf_id}/content"));
    let (res, bytes) = raw(app, Method::GET, key, &content, None, &[]).await;
    assert_eq!(res.status, StatusCode::OK);
    assert_eq!(bytes, PDF, "the download is byte-identical");
    assert_eq!(
        sha256_hex(&bytes),
        pdf.body["sha256"].as_str().expect("sha")
    );
    let header = |name: &str| {
        res.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    assert_eq!(header("content-type"), "application/pdf");
    assert_eq!(header("etag"), format!("\"{}\"", sha256_hex(PDF)));
    assert!(
        header("content-disposition").contains("receipt.pdf"),
        "{}",
        header("content-disposition")
    );
    let etag = header("etag");
    let (cached, _) = raw(
        app,
        Method::GET,
        key,
        &content,
        None,
        &[("If-None-Match", &etag)],
    )
    .await;
    assert_eq!(cached.status, StatusCode::NOT_MODIFIED);

    // GraphQL reads them on the transaction (uploads stay REST-only).
    let res = app.post(key, "/graphql", json!({"query": "query($id: ID!) { transaction(id: $id) { attachments { id ownerType ownerId fileName contentType size sha256 downloadUrl } } }", "variables": {"id": txn}}))
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    let nodes = &res.body["data"]["transaction"]["attachments"];
    assert_eq!(nodes.as_array().map(Vec::len), Some(2), "{}", res.body);
    assert_eq!(nodes[0]["id"], pdf_id.as_str());
    assert_eq!(nodes[0]["ownerType"], "transaction");
    assert_eq!(nodes[0]["contentType"], "application/pdf");
    assert_eq!(nodes[0]["size"], PDF.len());
    assert_eq!(nodes[0]["sha256"], sha256_hex(PDF));
    assert_eq!(nodes[0]["downloadUrl"], pdf.body["download_url"]);
    assert_eq!(nodes[1]["fileName"], "bank.csv");

    // Invoices and bills take attachments too.
    for kind in ["invoices", "bills"] {
        let id = document(app, &org, key, kind).await;
        let path = org.path(&format!("{kind}/{id}/attachments"));
        let res = upload(app, key, &path, "scan.pdf", "application/pdf", PDF, &[]).await;
        assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
        assert_eq!(res.body["owner_type"], &kind[..kind.len() - 1]);
        let list = app.get(key, &path).await;
        assert_eq!(
            list.body["data"].as_array().map(Vec::len),
            Some(1),
            "{}",
            list.body
        );
    }

    // Delete (admin), once.
    let meta_path = org.path(&format!("attachments/{pdf_id}"));
    let res = app.delete(key, &meta_path).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(res.body["deleted"], true);
    refused(
        &app.get(key, &meta_path).await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    let (gone, _) = raw(app, Method::GET, key, &content, None, &[]).await;
    refused(&gone, StatusCode::NOT_FOUND, "resource_not_found");
    refused(
        &app.delete(key, &meta_path).await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    let list = app.get(key, &on_txn).await;
    assert_eq!(
        list.body["data"].as_array().map(Vec::len),
        Some(1),
        "{}",
        list.body
    );
    // The deleted PDF's bytes are gone; the CSV and the two documents' remain.
    assert_eq!(blob_files(app).len(), 3);
    let types = app.event_kinds(key, "attachment", &pdf_id).await;
    for kind in ["attachment.created", "attachment.deleted"] {
        assert!(types.contains(&kind.to_owned()), "{kind} in {types:?}");
    }
}
both!(
    attachments_round_trip,
    upload_list_download_replay_and_delete
);

async fn refused_uploads_leave_nothing_behind(app: &TestApp) {
    let org = app.signup("Refusals").await;
    let key = &org.live_key;
    let txn = transaction(app, &org, key).await;
    let path = org.path(&format!("transactions/{txn}/attachments"));
    let before = app.credits(&org).await;

    // Mislabelled: an archive and an executable claiming to be a PDF.
    let zip = upload(app, key, &path, "receipt.pdf", "application/pdf", ZIP, &[]).await;
    refused(
        &zip,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
    );
    assert_eq!(
        zip.body["error"]["details"]["field"], "file",
        "{}",
        zip.body
    );
    let exe = upload(
        app,
        key,
        &path,
        "receipt.pdf",
        "application/pdf",
        b"MZ\x90\x00\x03\x00\x00\x00",
        &[],
    )
    .await;
    refused(
        &exe,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
    );
    // Oversized: one byte over the 10 MiB default.
    let mut big = b"%PDF-1.4\n".to_vec();
    big.resize(10 * 1024 * 1024 + 1, b' ');
    let res = upload(app, key, &path, "big.pdf", "application/pdf", &big, &[]).await;
    refused(&res, StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large");
    // Not multipart; no file part; an unknown owner; an empty file.
    let (res, _) = raw(
        app,
        Method::POST,
        key,
        &path,
        Some((PDF.to_vec(), "application/pdf")),
        &[],
    )
    .await;
    refused(
        &res,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
    );
    let res = upload(
        app,
        key,
        &org.path("transactions/txn_01JAAAAAAAAAAAAAAAAAAAAAAA/attachments"),
        "r.pdf",
        "application/pdf",
        PDF,
        &[],
    )
    .await;
    refused(&res, StatusCode::NOT_FOUND, "resource_not_found");
    let res = upload(app, key, &path, "empty.txt", "text/plain", b"", &[]).await;
    refused(
        &res,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
    );
    let body = multipart("document", "r.pdf", "application/pdf", PDF);
    let content_type = format!("multipart/form-data; boundary={BOUNDARY}");
    let (res, _) = raw(
        app,
        Method::POST,
        key,
        &path,
        Some((body, &content_type)),
        &[],
    )
    .await;
    refused(&res, StatusCode::BAD_REQUEST, "unknown_field");

    assert!(blob_files(app).is_empty(), "{:?}", blob_files(app));
    let list = app.get(key, &path).await;
    assert_eq!(list.body["data"], json!([]), "{}", list.body);
    assert_eq!(app.credits(&org).await, before);
}
both!(attachments_refused, refused_uploads_leave_nothing_behind);

async fn other_tenants_and_modes_see_nothing(app: &TestApp) {
    let owner = app.signup("Owner").await;
    let stranger = app.signup("Stranger").await;
    let txn = transaction(app, &owner, &owner.live_key).await;
    let on_txn = owner.path(&format!("transactions/{txn}/attachments"));
    let res = upload(
        app,
        &owner.live_key,
        &on_txn,
        "r.pdf",
        "application/pdf",
        PDF,
        &[],
    )
    .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    let id = res.id();
    let meta = owner.path(&format!("attachments/{id}"));
    let content = format!("{meta}/content");

    // The stranger's key on the owner's paths: the organization does not exist for it.
    for key in [&stranger.live_key, &stranger.test_key] {
        let res = upload(app, key, &on_txn, "r.pdf", "application/pdf", PDF, &[]).await;
        refused(&res, StatusCode::NOT_FOUND, "organization_not_found");
        for path in [&on_txn, &meta, &content] {
            refused(
                &app.get(key, path).await,
                StatusCode::NOT_FOUND,
                "organization_not_found",
            );
        }
        refused(
            &app.delete(key, &meta).await,
            StatusCode::NOT_FOUND,
            "organization_not_found",
        );
    }
    // The stranger's own organization with the owner's ids: not found.
    let theirs = stranger.path(&format!("attachments/{id}"));
    refused(
        &app.get(&stranger.live_key, &theirs).await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    refused(
        &app.get(&stranger.live_key, &format!("{theirs}/content"))
            .await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    refused(
        &app.delete(&stranger.live_key, &theirs).await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    let res = upload(
        app,
        &stranger.live_key,
        &stranger.path(&format!("transactions/{txn}/attachments")),
        "r.pdf",
        "application/pdf",
        PDF,
        &[],
    )
    .await;
    refused(&res, StatusCode::NOT_FOUND, "resource_not_found");
    // The owner's test key does not see live attachments.
    refused(
        &app.get(&owner.test_key, &meta).await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    refused(
        &app.get(&owner.test_key, &content).await,
        StatusCode::NOT_FOUND,
        "resource_not_found",
    );
    // Permissions (DECISIONS 3): read lists and downloads, write uploads, admin deletes.
    let (_, reader) = app.make_key(&owner, &owner.live_key, &["read"]).await;
    let (_, writer) = app
        .make_key(&owner, &owner.live_key, &["read", "write"])
        .await;
    assert_eq!(app.get(&reader, &on_txn).await.status, StatusCode::OK);
    let (res, _) = raw(app, Method::GET, &reader, &content, None, &[]).await;
    assert_eq!(res.status, StatusCode::OK);
    let res = upload(app, &reader, &on_txn, "r.pdf", "application/pdf", PDF, &[]).await;
    refused(&res, StatusCode::FORBIDDEN, "insufficient_permissions");
    refused(
        &app.delete(&writer, &meta).await,
        StatusCode::FORBIDDEN,
        "insufficient_permissions",
    );
    // Everything is still there for the owner.
    assert_eq!(app.get(&owner.live_key, &meta).await.status, StatusCode::OK);
    assert_eq!(blob_files(app).len(), 1);
}
both!(attachments_tenancy, other_tenants_and_modes_see_nothing);

/// A moto S3-compatible server on a free port (stopped on drop), or `None` when
/// `moto_server` is not installed.
struct Moto(std::process::Child, u16);

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn moto() -> Option<Moto> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let child = std::process::Command::new("moto_server")
        .args(["-H", "127.0.0.1", "-p", &port.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let moto = Moto(child, port);
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Some(moto);
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("moto_server did not start on port {port}");
}

/// The same upload, download and delete with the bytes in an S3-compatible bucket
/// (`LEDGER_S3_*`) instead of the directory. The blob store does not depend on the
/// database, so this runs on SQLite only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attachments_in_an_s3_bucket() {
    let Some(moto) = moto().await else {
        let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
        assert!(
            !in_ci,
            "CI=true but moto_server is not installed (pip install 'moto[server]')"
        );
        eprintln!("moto_server is not installed: the S3 scenario is skipped");
        return;
    };
    let endpoint = format!("http://127.0.0.1:{}", moto.1);
    let s3 = ledger_store::S3Blobs::new(ledger_store::S3Config {
        endpoint: endpoint.clone(),
        bucket: "ledger-attachments".into(),
        region: "us-east-1".into(),
        access_key_id: "testing".into(),
        secret_access_key: "testing".into(),
    });
    s3.create_bucket().await.expect("bucket");
    let app = TestApp::spawn_with(ledger_tests::Backend::Sqlite, |c| {
        c.s3_bucket = Some("ledger-attachments".into());
        c.s3_endpoint = endpoint.clone();
        c.s3_access_key_id = "testing".into();
        c.s3_secret_access_key = "testing".into();
    })
    .await
    .expect("server");
    let org = app.signup("S3").await;
    let key = &org.live_key;
    let txn = transaction(&app, &org, key).await;
    let path = org.path(&format!("transactions/{txn}/attachments"));
    let res = upload(&app, key, &path, "receipt.pdf", "application/pdf", PDF, &[]).await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    let id = res.id();
    let storage_key = format!("{}/{id}", org.id);
    use ledger_domain::ports::Blobs;
    assert_eq!(
        s3.get(&storage_key).await.expect("get").as_deref(),
        Some(PDF)
    );
    assert!(blob_files(&app).is_empty(), "nothing in the directory");
    let content = org.path(&format!("attachments/{id}/content"));
    let (res, bytes) = raw(&app, Method::GET, key, &content, None, &[]).await;
    assert_eq!(res.status, StatusCode::OK);
    assert_eq!(bytes, PDF);
    // A refused upload leaves no object either.
    let res = upload(&app, key, &path, "r.pdf", "application/pdf", ZIP, &[]).await;
    refused(
        &res,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
    );
    let res = app
        .delete(key, &org.path(&format!("attachments/{id}")))
        .await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(s3.get(&storage_key).await.expect("get"), None);
    app.finish().await;
}
