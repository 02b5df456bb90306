//! Replays under an `Idempotency-Key`, as every write answers them.

use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::{Answer, TestApp};

impl TestApp {
    /// Sends `method` to `path` with `body` twice under the `Idempotency-Key` `idem`: the
    /// first answer has `status`, and the second replays it (the same status and body,
    /// `Idempotent-Replayed: true`). Answers the first.
    ///
    /// # Panics
    /// When the first status or the replay differ.
    pub async fn replayed(
        &self,
        key: &str,
        (method, path, body): (Method, &str, Option<Value>),
        idem: &str,
        status: StatusCode,
    ) -> Answer {
        let headers = [("Idempotency-Key", idem)];
        let first = self
            .call(method.clone(), path, Some(key), body.clone(), &headers)
            .await;
        assert_eq!(first.status, status, "{}", first.body);
        let again = self.call(method, path, Some(key), body, &headers).await;
        assert_eq!((again.status, &again.body), (status, &first.body), "{path}");
        assert_eq!(again.header("idempotent-replayed"), Some("true"), "{path}");
        first
    }
}
