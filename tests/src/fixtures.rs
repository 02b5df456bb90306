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

/// [`refused`] for one case of a loop: a failure names the `case` (what was sent).
///
/// # Panics
/// When the status or the code differ (the case and the body are printed).
#[track_caller]
pub fn refused_case(case: impl std::fmt::Display, res: &Answer, status: StatusCode, code: &str) {
    assert_eq!(
        (res.status, res.code()),
        (status, code),
        "{case}: {}",
        res.body
    );
}

/// Asserts that `res` is the error envelope with `status` and `code` naming `field` in
/// its details.
///
/// # Panics
/// When the status, the code or the field differ (the body is printed).
#[track_caller]
pub fn refused_on(res: &Answer, status: StatusCode, code: &str, field: &str) {
    assert_eq!(
        (
            res.status,
            res.code(),
            &res.body["error"]["details"]["field"]
        ),
        (status, code, &json!(field)),
        "{}",
        res.body
    );
}

/// Asserts the 400 validation envelope: `code` on `field`, with the `message` when one
/// is given.
///
/// # Panics
/// When any of them differs (the body is printed).
#[track_caller]
pub fn invalid(res: &Answer, code: &str, field: &str, message: Option<&str>) {
    refused_on(res, StatusCode::BAD_REQUEST, code, field);
    assert_eq!(
        res.body["error"]["type"], "validation_error",
        "{}",
        res.body
    );
    if let Some(message) = message {
        assert_eq!(res.body["error"]["message"], message, "{}", res.body);
    }
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

    /// A list page's `has_more` and `total_count`.
    pub fn page(&self) -> (Option<bool>, Option<i64>) {
        (
            self.body["has_more"].as_bool(),
            self.body["total_count"].as_i64(),
        )
    }

    /// The value of the header `name`, when it is there and is text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The `request_id` of a queued request's 202 envelope.
    ///
    /// # Panics
    /// When the body has no string `request_id`.
    #[track_caller]
    pub fn request_id(&self) -> String {
        self.body["request_id"]
            .as_str()
            .unwrap_or_else(|| panic!("a request id: {}", self.body))
            .to_owned()
    }

    /// The `extensions.reason` (the domain's code) of the first GraphQL error ("" when
    /// there is none).
    pub fn gql_reason(&self) -> &str {
        self.body["errors"][0]["extensions"]["reason"]
            .as_str()
            .unwrap_or("")
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

    /// GET that must succeed: the body of the `200 OK`.
    ///
    /// # Panics
    /// When the status is another.
    pub async fn read(&self, key: &str, path: &str) -> Value {
        let res = self.get(key, path).await;
        assert_eq!(res.status, StatusCode::OK, "{path}: {}", res.body);
        res.body
    }

    /// A plain GET of `path` without a key, answered as it came (pages, health, metrics).
    pub async fn fetch(&self, path: &str) -> reqwest::Response {
        self.fetch_with(None, path).await
    }

    /// A GET of `path` with the bearer `key` (when one is given), answered as it came
    /// (not JSON: a PDF, the metrics text).
    pub async fn fetch_with(&self, key: Option<&str>, path: &str) -> reqwest::Response {
        let mut req = self.client.get(format!("{}{path}", self.base));
        if let Some(key) = key {
            req = req.bearer_auth(key);
        }
        req.send().await.expect("request reaches the server")
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

    /// Asserts that reading, updating (with `update`) and deleting `item` are each refused
    /// with `status` and `code`: a deleted resource, or another tenant's.
    pub async fn item_refused(
        &self,
        key: &str,
        item: &str,
        update: Value,
        status: StatusCode,
        code: &str,
    ) {
        self.item_refused_with(&[], key, item, update, (status, code))
            .await;
    }

    /// Asserts that the test key of `intruder` reaches nothing of the item `id` of the
    /// `collection` of `owner`: on the owner's path the organization is not found, on
    /// the intruder's own path the item is not (reading, updating with `update` and
    /// deleting are refused each time).
    pub async fn foreign_item_refused(
        &self,
        intruder: &Org,
        owner: &Org,
        (collection, id): (&str, &str),
        update: Value,
    ) {
        for (org, code) in [
            (owner, "organization_not_found"),
            (intruder, "resource_not_found"),
        ] {
            let item = org.path(&format!("{collection}/{id}"));
            let answer = (StatusCode::NOT_FOUND, code);
            self.item_refused_with(&[], &intruder.test_key, &item, update.clone(), answer)
                .await;
        }
    }

    /// Asserts that `key` neither reads nor deletes `item` (404 `resource_not_found`):
    /// another mode's data.
    pub async fn item_hidden(&self, key: &str, item: &str) {
        let not_found = (StatusCode::NOT_FOUND, "resource_not_found");
        refused(&self.get(key, item).await, not_found.0, not_found.1);
        refused(&self.delete(key, item).await, not_found.0, not_found.1);
    }

    /// [`TestApp::item_refused`] for a resource written through the queue: the writes
    /// wait for their jobs.
    pub async fn item_refused_queued(
        &self,
        key: &str,
        item: &str,
        update: Value,
        status: StatusCode,
        code: &str,
    ) {
        self.item_refused_with(&[WAIT], key, item, update, (status, code))
            .await;
    }

    async fn item_refused_with(
        &self,
        headers: &[(&str, &str)],
        key: &str,
        item: &str,
        update: Value,
        (status, code): (StatusCode, &str),
    ) {
        refused(&self.get(key, item).await, status, code);
        let put = self
            .call(Method::PUT, item, Some(key), Some(update), headers)
            .await;
        refused(&put, status, code);
        let delete = self
            .call(Method::DELETE, item, Some(key), None, headers)
            .await;
        refused(&delete, status, code);
    }

    /// POSTs each body of `cases` to `path` and asserts the 400 validation envelope with
    /// its code and the field it names.
    pub async fn posts_refused<'a>(
        &self,
        key: &str,
        path: &str,
        cases: impl IntoIterator<Item = (Value, &'a str, &'a str)>,
    ) {
        for (body, code, field) in cases {
            let res = self.post(key, path, body.clone()).await;
            refused_on(&res, StatusCode::BAD_REQUEST, code, field);
            let error = &res.body["error"];
            assert_eq!(error["type"], "validation_error", "{body}");
            assert!(error["request_id"].is_string(), "{}", res.body);
        }
    }

    /// Asserts that listing `path` with each of `queries` is refused as invalid (400
    /// `invalid_field`).
    pub async fn queries_refused(&self, key: &str, path: &str, queries: &[&str]) {
        for query in queries {
            let res = self.get(key, &format!("{path}?{query}")).await;
            refused(&res, StatusCode::BAD_REQUEST, "invalid_field");
        }
    }

    /// The event types recorded for the `kind` resource `id`, oldest first.
    pub async fn event_kinds(&self, key: &str, kind: &str, id: &str) -> Vec<String> {
        let res = self.get(key, &format!("/events/{kind}/{id}")).await;
        strs(&res.body, "event_type")
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// Polls the queued request `request_id` of `org` until it has completed or failed;
    /// answers its status document.
    ///
    /// # Panics
    /// When a read fails or the request does not finish within about five seconds.
    pub async fn wait_request(&self, org: &Org, key: &str, request_id: &str) -> Value {
        let path = org.path(&format!("requests/{request_id}"));
        for _ in 0..200 {
            let res = self.get(key, &path).await;
            assert_eq!(res.status, StatusCode::OK, "{}", res.body);
            let status = &res.body["data"]["status"];
            if status == "completed" || status == "failed" {
                return res.body;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
        panic!("request {request_id} did not finish");
    }

    /// POSTs `body` to `path`, asserts `201 Created` and answers the new resource's id.
    pub async fn create_id(&self, key: &str, path: &str, body: Value) -> String {
        let res = self.post(key, path, body).await;
        res.created();
        res.id()
    }

    /// Creates an API key of `org` with `permissions` using `key`; its id and its secret.
    pub async fn make_key(&self, org: &Org, key: &str, permissions: &[&str]) -> (String, String) {
        let res = self
            .post(
                key,
                &org.path("api-keys"),
                json!({ "name": "made", "permissions": permissions }),
            )
            .await;
        let body = res.created();
        (
            body["id"].as_str().expect("id").to_owned(),
            body["key"].as_str().expect("secret").to_owned(),
        )
    }

    /// [`TestApp::create_id`] through the queue: POSTs waiting for the job.
    pub async fn create_id_wait(&self, key: &str, path: &str, body: Value) -> String {
        let res = self.post_wait(key, path, body).await;
        res.created();
        res.id()
    }

    /// Signs up `name` and answers it with the test-mode ids of its accounts `codes`.
    pub async fn signup_with_accounts<const N: usize>(
        &self,
        name: &str,
        codes: [&str; N],
    ) -> (Org, [String; N]) {
        let org = self.signup(name).await;
        let ids = self.account_ids(&org, &org.test_key, codes).await;
        (org, ids)
    }

    /// Stores in the test mode of `org` the exchange rate `rate` from `from` to US dollars
    /// effective on `date`, asserting `201 Created`.
    ///
    /// # Panics
    /// When the rate is refused (the body is printed).
    pub async fn usd_rate(&self, org: &Org, from: &str, rate: &str, date: &str) {
        let res = self
            .post(
                &org.test_key,
                &org.path("exchange-rates"),
                json!({"from_currency_id": from, "to_currency_id": "USD", "rate": rate, "effective_date": date}),
            )
            .await;
        res.created();
    }

    /// Creates a contact `name` of `contact_type` through the queue; its id.
    pub async fn contact(&self, org: &Org, key: &str, contact_type: &str, name: &str) -> String {
        self.create_id_wait(
            key,
            &org.path("contacts"),
            json!({"contact_type": contact_type, "name": name}),
        )
        .await
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

    /// The balance object (`debit`, `credit`, `net`) of the account `account` of `org`,
    /// read with `key`.
    ///
    /// # Panics
    /// When the read fails.
    pub async fn balance(&self, org: &Org, key: &str, account: &str) -> Value {
        let path = org.path(&format!("accounts/{account}/balance"));
        self.read(key, &path).await["balance"].clone()
    }

    /// The net balance (in the account type's normal direction) of the account with
    /// `code` of `org`, read with `key`.
    ///
    /// # Panics
    /// When the account or its balance cannot be read.
    pub async fn net_balance(&self, org: &Org, key: &str, code: &str) -> String {
        let id = self.account_id(org, key, code).await;
        let balance = self.balance(org, key, &id).await;
        balance["net"].as_str().expect("net").to_owned()
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

    /// Sends one GraphQL operation that must fail with the `extensions.code` `code`;
    /// answers it for further checks.
    ///
    /// # Panics
    /// When the first error has another code (or there is none).
    pub async fn gql_refused(
        &self,
        key: Option<&str>,
        query: &str,
        variables: Value,
        code: &str,
    ) -> Answer {
        let res = self.gql(key, query, variables).await;
        assert_eq!(res.gql_code(), code, "{}", res.body);
        res
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

/// The two lines of a transaction of `amount` (text, or any JSON to test refusals)
/// debiting `debit` and crediting `credit`.
pub fn entries(debit: &str, credit: &str, amount: impl Into<Value>) -> Value {
    let amount = amount.into();
    json!([
        {"account_id": debit, "entry_type": "debit", "amount": amount},
        {"account_id": credit, "entry_type": "credit", "amount": amount},
    ])
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
