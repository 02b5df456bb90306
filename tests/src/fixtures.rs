//! Shared set-ups and calls of the HTTP suites: the verbs `TestApp` lacks (PUT, DELETE,
//! their waiting forms), one-call fixtures (several chart accounts, a created resource's
//! id, a sub-organization, the live credit balance), the GraphQL and MCP wrappers, and the
//! assertion of an error envelope. Suites build on these instead of each keeping a copy.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::{Answer, Org, TestApp};

/// The header that asks the server to wait for queued work before answering.
const WAIT: (&str, &str) = ("Prefer", "wait=10");

/// Asserts that `res` is the error envelope with `status` and `code`.
///
/// # Panics
/// When the status or the code differ (the body is printed).
#[track_caller]
pub fn refused(res: &Answer, status: StatusCode, code: &str) {
    assert_eq!((res.status, res.code()), (status, code), "{}", res.body);
}

impl Org {
    /// The path of `rest` under this organization: `/organizations/{id}/{rest}`.
    pub fn path(&self, rest: &str) -> String {
        format!("/organizations/{}/{rest}", self.id)
    }
}

impl Answer {
    /// The body of a `201 Created` answer.
    ///
    /// # Panics
    /// When the status is another.
    #[track_caller]
    pub fn created(&self) -> &Value {
        assert_eq!(self.status, StatusCode::CREATED, "{}", self.body);
        &self.body
    }

    /// The `id` of the body.
    ///
    /// # Panics
    /// When the body has no string `id`.
    #[track_caller]
    pub fn id(&self) -> String {
        self.body["id"].as_str().expect("id").to_owned()
    }

    /// The `extensions.code` of the first GraphQL error ("" when there is none).
    pub fn gql_code(&self) -> &str {
        self.body["errors"][0]["extensions"]["code"]
            .as_str()
            .unwrap_or("")
    }
}

impl TestApp {
    /// PUT with JSON.
    pub async fn put(&self, key: &str, path: &str, body: Value) -> Answer {
        self.call(Method::PUT, path, Some(key), Some(body), &[])
            .await
    }

    /// DELETE.
    pub async fn delete(&self, key: &str, path: &str) -> Answer {
        self.call(Method::DELETE, path, Some(key), None, &[]).await
    }

    /// A plain GET of `path` without a key, answered as it came (pages, health, metrics).
    pub async fn fetch(&self, path: &str) -> reqwest::Response {
        self.client
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .expect("request reaches the server")
    }

    /// Any method, waiting for queued work to finish.
    pub async fn call_wait(
        &self,
        method: Method,
        key: &str,
        path: &str,
        body: Option<Value>,
    ) -> Answer {
        self.call(method, path, Some(key), body, &[WAIT]).await
    }

    /// PUT with JSON, waiting for queued work to finish.
    pub async fn put_wait(&self, key: &str, path: &str, body: Value) -> Answer {
        self.call_wait(Method::PUT, key, path, Some(body)).await
    }

    /// DELETE, waiting for queued work to finish.
    pub async fn delete_wait(&self, key: &str, path: &str) -> Answer {
        self.call_wait(Method::DELETE, key, path, None).await
    }

    /// POSTs `body` to `path`, asserts `201 Created` and answers the new resource's id.
    pub async fn create_id(&self, key: &str, path: &str, body: Value) -> String {
        let res = self.post(key, path, body).await;
        res.created();
        res.id()
    }

    /// The ids of the accounts with `codes` visible to `key`, in the order asked.
    ///
    /// # Panics
    /// When the list fails or a code is not in it.
    pub async fn account_ids<const N: usize>(
        &self,
        org: &Org,
        key: &str,
        codes: [&str; N],
    ) -> [String; N] {
        let res = self
            .get(
                key,
                &format!("/organizations/{}/accounts?limit=100", org.id),
            )
            .await;
        assert_eq!(res.status, StatusCode::OK, "{}", res.body);
        let accounts = res.body["data"].as_array().expect("accounts");
        codes.map(|code| {
            accounts
                .iter()
                .find(|acc| acc["code"] == code)
                .and_then(|acc| acc["id"].as_str())
                .unwrap_or_else(|| panic!("no account {code}"))
                .to_owned()
        })
    }

    /// Creates a sub-organization `name` of `parent_id` with `key` and the given
    /// `relationship_type`, asserting `201 Created`; its id and its key.
    pub async fn sub_org(
        &self,
        key: &str,
        parent_id: &str,
        name: &str,
        relationship_type: &str,
    ) -> (String, String) {
        let res = self
            .post(
                key,
                "/accounts/sub",
                json!({"parent_organization_id": parent_id, "name": name, "relationship_type": relationship_type}),
            )
            .await;
        let body = res.created();
        (
            body["organization"]["id"].as_str().expect("id").to_owned(),
            body["api_key"]["key"].as_str().expect("key").to_owned(),
        )
    }

    /// The organization's remaining credits, read with its live key.
    pub async fn credits(&self, org: &Org) -> i64 {
        self.get(&org.live_key, &format!("/organizations/{}", org.id))
            .await
            .body["credits_remaining"]
            .as_i64()
            .expect("credits")
    }

    /// Sends one GraphQL operation.
    pub async fn gql(&self, key: Option<&str>, query: &str, variables: Value) -> Answer {
        self.call(
            Method::POST,
            "/graphql",
            key,
            Some(json!({ "query": query, "variables": variables })),
            &[],
        )
        .await
    }

    /// Sends one GraphQL operation that must succeed without errors; answers `data`.
    ///
    /// # Panics
    /// When the status is not 200 or the answer carries errors.
    pub async fn gql_data(&self, key: &str, query: &str, variables: Value) -> Value {
        let res = self.gql(Some(key), query, variables).await;
        assert_eq!(res.status, StatusCode::OK, "{}", res.body);
        assert!(res.body.get("errors").is_none(), "{}", res.body);
        res.body["data"].clone()
    }
}

/// The string `field` of every item of the JSON array `list` (items without it are
/// skipped).
///
/// # Panics
/// When `list` is not an array (it is printed).
#[track_caller]
pub fn strs<'a>(list: &'a Value, field: &str) -> Vec<&'a str> {
    list.as_array()
        .unwrap_or_else(|| panic!("a list: {list}"))
        .iter()
        .filter_map(|item| item[field].as_str())
        .collect()
}
