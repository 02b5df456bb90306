//! Soft deletes as every REST resource answers them: the deletion envelope, and the row
//! the recently-deleted trail shows for it.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::{Org, TestApp};

impl TestApp {
    /// DELETEs `item` (the resource `id` of the `object` type) and asserts the soft-delete
    /// answer: `200 OK` with the id, the object, `deleted: true` and when it stops being
    /// recoverable; answers the body.
    ///
    /// # Panics
    /// When the status or the body differ.
    pub async fn soft_delete(&self, key: &str, item: &str, id: &str, object: &str) -> Value {
        let res = self.delete(key, item).await;
        assert_eq!(res.status, StatusCode::OK, "{}", res.body);
        let until = res.body["recoverable_until"].clone();
        assert_eq!(
            res.body,
            json!({"id": id, "object": object, "deleted": true, "recoverable_until": until})
        );
        // Restorable for the retention period (7 days by default).
        assert!(until.is_string(), "{}", res.body);
        res.body
    }

    /// Asserts that the newest row of the organization's recently-deleted trail is the
    /// resource `id` of `resource_type` named `name`; answers the trail.
    ///
    /// # Panics
    /// When the trail cannot be read or its newest row is another.
    pub async fn deleted_last(
        &self,
        org: &Org,
        key: &str,
        (resource_type, id, name): (&str, &str, &str),
    ) -> Value {
        let trail = self.read(key, &org.path("recently-deleted")).await;
        let row = &trail["data"][0];
        assert_eq!(
            (
                row["resource_type"].as_str(),
                row["resource_id"].as_str(),
                row["name"].as_str()
            ),
            (Some(resource_type), Some(id), Some(name)),
            "{trail}"
        );
        trail
    }
}
