//! `S3Blobs`: the blob store on an S3-compatible object store (AWS S3, MinIO, moto),
//! configured by `LEDGER_S3_*`. Path-style requests (`{endpoint}/{bucket}/{key}`) signed
//! with AWS Signature Version 4 over the whole payload (no chunked signing: an
//! attachment is at most a few MiB and already in memory). Keys are checked as in
//! `LocalBlobs`; an object is written by one `PUT`, which S3 makes visible whole or not
//! at all.

use ledger_domain::StoreError;
use ledger_domain::ports::{Blobs, BoxFuture, StoreResult};
use ring::{digest, hmac};
use time::OffsetDateTime;
use time::macros::format_description;

/// Where and how to reach the bucket.
#[derive(Debug, Clone)]
pub struct S3Config {
    /// `https://s3.eu-central-1.amazonaws.com` or `http://127.0.0.1:9000`.
    pub endpoint: String,
    pub bucket: String,
    pub region: String,
    pub access_key_id: String,
    pub secret_access_key: String,
}

/// A blob store in one bucket of an S3-compatible service.
#[derive(Debug, Clone)]
pub struct S3Blobs {
    config: S3Config,
    client: reqwest::Client,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex(digest::digest(&digest::SHA256, bytes).as_ref())
}

fn hmac_sha256(key: &[u8], data: &str) -> Vec<u8> {
    let key = hmac::Key::new(hmac::HMAC_SHA256, key);
    hmac::sign(&key, data.as_bytes()).as_ref().to_vec()
}

fn s3_error(what: &str, key: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::Internal(format!("blob store (S3): {what} '{key}': {e}"))
}

/// Whether `key` is plain segments of ASCII letters, digits and `_` (nothing to encode,
/// nothing that could name another object than the one meant).
fn plain_key(key: &str) -> bool {
    !key.is_empty()
        && key.split('/').all(|segment| {
            !segment.is_empty()
                && segment
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_')
        })
}

impl S3Blobs {
    /// A store over `config`.
    pub fn new(config: S3Config) -> Self {
        Self {
            config,
            client: reqwest::Client::new(),
        }
    }

    /// The host (with port) of the endpoint, as signed.
    fn host(&self) -> StoreResult<String> {
        let url = reqwest::Url::parse(&self.config.endpoint)
            .map_err(|e| s3_error("parsing the endpoint", &self.config.endpoint, e))?;
        let host = url.host_str().unwrap_or_default().to_owned();
        Ok(match url.port() {
            Some(port) => format!("{host}:{port}"),
            None => host,
        })
    }

    /// A request of `method` on `/{bucket}/{key}` (or the bucket itself for an empty
    /// key), signed with SigV4 at `now`.
    fn signed(
        &self,
        method: reqwest::Method,
        key: &str,
        body: Vec<u8>,
        now: OffsetDateTime,
    ) -> StoreResult<reqwest::RequestBuilder> {
        let path = if key.is_empty() {
            format!("/{}", self.config.bucket)
        } else {
            format!("/{}/{key}", self.config.bucket)
        };
        let host = self.host()?;
        let amz_date = now
            .format(format_description!(
                "[year][month][day]T[hour][minute][second]Z"
            ))
            .map_err(|e| s3_error("formatting the date for", key, e))?;
        let day = &amz_date[..8];
        let payload_hash = sha256_hex(&body);
        let canonical = format!(
            "{method}\n{path}\n\nhost:{host}\nx-amz-content-sha256:{payload_hash}\nx-amz-date:{amz_date}\n\nhost;x-amz-content-sha256;x-amz-date\n{payload_hash}",
            method = method.as_str()
        );
        let scope = format!("{day}/{}/s3/aws4_request", self.config.region);
        let to_sign = format!(
            "AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{}",
            sha256_hex(canonical.as_bytes())
        );
        let secret = format!("AWS4{}", self.config.secret_access_key);
        let k_date = hmac_sha256(secret.as_bytes(), day);
        let k_region = hmac_sha256(&k_date, &self.config.region);
        let k_service = hmac_sha256(&k_region, "s3");
        let k_signing = hmac_sha256(&k_service, "aws4_request");
        let signature = hex(&hmac_sha256(&k_signing, &to_sign));
        let authorization = format!(
            "AWS4-HMAC-SHA256 Credential={}/{scope}, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature={signature}",
            self.config.access_key_id
        );
        let url = format!("{}{path}", self.config.endpoint.trim_end_matches('/'));
        Ok(self
            .client
            .request(method, url)
            .header("x-amz-date", amz_date)
            .header("x-amz-content-sha256", payload_hash)
            .header("authorization", authorization)
            .body(body))
    }

    /// Sends the signed request `method` on the object `key` (checked plain first), now;
    /// a failure to send is an error while `doing` it.
    async fn object_request(
        &self,
        method: reqwest::Method,
        key: &str,
        body: Vec<u8>,
        doing: &str,
    ) -> StoreResult<reqwest::Response> {
        Self::checked(key)?;
        self.signed(method, key, body, OffsetDateTime::now_utc())?
            .send()
            .await
            .map_err(|e| s3_error(doing, key, e))
    }

    fn checked(key: &str) -> StoreResult<()> {
        if plain_key(key) {
            Ok(())
        } else {
            Err(StoreError::Internal(format!(
                "refusing the blob key '{key}'"
            )))
        }
    }

    /// Creates the bucket (tests and first setup); an existing bucket of ours is fine.
    ///
    /// # Errors
    /// `Internal` when the service refuses.
    pub async fn create_bucket(&self) -> StoreResult<()> {
        let bucket = self.config.bucket.clone();
        let res = self
            .signed(
                reqwest::Method::PUT,
                "",
                Vec::new(),
                OffsetDateTime::now_utc(),
            )?
            .send()
            .await
            .map_err(|e| s3_error("creating the bucket", &bucket, e))?;
        let status = res.status();
        if status.is_success() || status == reqwest::StatusCode::CONFLICT {
            Ok(())
        } else {
            Err(s3_error("creating the bucket", &bucket, status))
        }
    }
}

impl Blobs for S3Blobs {
    fn put(&self, key: &str, bytes: Vec<u8>) -> BoxFuture<'_, StoreResult<()>> {
        let key = key.to_owned();
        Box::pin(async move {
            let res = self
                .object_request(reqwest::Method::PUT, &key, bytes, "writing")
                .await?;
            if !res.status().is_success() {
                return Err(s3_error("writing", &key, res.status()));
            }
            Ok(())
        })
    }

    fn get(&self, key: &str) -> BoxFuture<'_, StoreResult<Option<Vec<u8>>>> {
        let key = key.to_owned();
        Box::pin(async move {
            let res = self
                .object_request(reqwest::Method::GET, &key, Vec::new(), "reading")
                .await?;
            if res.status() == reqwest::StatusCode::NOT_FOUND {
                return Ok(None);
            }
            if !res.status().is_success() {
                return Err(s3_error("reading", &key, res.status()));
            }
            let bytes = res
                .bytes()
                .await
                .map_err(|e| s3_error("reading", &key, e))?;
            Ok(Some(bytes.to_vec()))
        })
    }

    fn delete(&self, key: &str) -> BoxFuture<'_, StoreResult<()>> {
        let key = key.to_owned();
        Box::pin(async move {
            let res = self
                .object_request(reqwest::Method::DELETE, &key, Vec::new(), "removing")
                .await?;
            // S3 answers 204 for a missing key too.
            if !res.status().is_success() && res.status() != reqwest::StatusCode::NOT_FOUND {
                return Err(s3_error("removing", &key, res.status()));
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of the AWS documentation's "signature calculation" for a GET.
    #[test]
    fn signing_keys_follow_the_sigv4_chain() {
        let secret = "AWS4wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
        let k_date = hmac_sha256(secret.as_bytes(), "20150830");
        let k_region = hmac_sha256(&k_date, "us-east-1");
        let k_service = hmac_sha256(&k_region, "iam");
        let k_signing = hmac_sha256(&k_service, "aws4_request");
        assert_eq!(
            hex(&k_signing),
            "c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9"
        );
    }

    #[test]
    fn only_plain_keys_are_sent() {
        assert!(plain_key("org_1/att_2"));
        for key in ["", "../x", "a/../b", "a//b", "a b", "a?b", "a%2Fb"] {
            assert!(!plain_key(key), "{key:?}");
        }
    }
}
