//! The organization tree: `GET /organizations/{org}/sub-organizations` lists every
//! organization below, in tree order with its depth, to keys that reach it, on REST,
//! GraphQL and MCP.

use ledger_tests::{TestApp, both};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// Creates a sub-organization of `parent` with `key`; its id and its key.
async fn sub(app: &TestApp, key: &str, parent: &str, name: &str, kind: &str) -> (String, String) {
    let res = app
        .post(
            key,
            "/accounts/sub",
            json!({"parent_organization_id": parent, "name": name, "relationship_type": kind}),
        )
        .await;
    assert_eq!(res.status, StatusCode::CREATED, "{}", res.body);
    (
        res.body["organization"]["id"]
            .as_str()
            .expect("id")
            .to_owned(),
        res.body["api_key"]["key"].as_str().expect("key").to_owned(),
    )
}

fn names(list: &Value) -> Vec<(String, i64)> {
    list["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|o| {
            (
                o["name"].as_str().unwrap_or("").to_owned(),
                o["depth"].as_i64().unwrap_or(-1),
            )
        })
        .collect()
}

async fn the_tree_lists_below_in_order(app: &TestApp) {
    let root = app.signup("Tree Root").await;
    let key = &root.test_key;
    let (a, a_key) = sub(app, key, &root.id, "A", "owned").await;
    let (_a1, _) = sub(app, key, &a, "A1", "linked").await;
    let (_b, _) = sub(app, key, &root.id, "B", "owned").await;
    let path = |org: &str| format!("/organizations/{org}/sub-organizations");

    let res = app.get(key, &path(&root.id)).await;
    assert_eq!(res.status, StatusCode::OK, "{}", res.body);
    assert_eq!(
        names(&res.body),
        [("A".into(), 1), ("A1".into(), 2), ("B".into(), 1)]
    );
    assert_eq!(res.body["data"][1]["relationship_type"], "linked");
    assert_eq!(res.body["data"][1]["parent_organization_id"], json!(a));
    let page = app
        .get(key, &format!("{}?limit=1&offset=1", path(&root.id)))
        .await;
    assert_eq!(names(&page.body), [("A1".into(), 2)]);
    assert_eq!(
        (&page.body["total_count"], &page.body["has_more"]),
        (&json!(3), &json!(true))
    );
    // From A: only its own subtree, depths relative to A.
    let res = app.get(&a_key, &path(&a)).await;
    assert_eq!(names(&res.body), [("A1".into(), 1)]);
    // A's key does not reach the root; another root's key reaches none of it.
    let res = app.get(&a_key, &path(&root.id)).await;
    assert_eq!(res.code(), "organization_not_found", "{}", res.body);
    let stranger = app.signup("Tree Stranger").await;
    let res = app.get(&stranger.test_key, &path(&root.id)).await;
    assert_eq!(res.code(), "organization_not_found");
    let res = app.get(&stranger.test_key, &path(&stranger.id)).await;
    assert_eq!(res.body["total_count"], 0, "{}", res.body);
    let res = app.get(key, &format!("{}?limit=0", path(&root.id))).await;
    assert_eq!(res.code(), "invalid_field");

    // GraphQL and MCP answer the same tree.
    let data = crate::pipeline::graphql_data(
        app,
        key,
        "{ organization { subOrganizations { name parentOrganizationId } } }",
        json!({}),
    )
    .await;
    let listed: Vec<&str> = data["organization"]["subOrganizations"]
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|o| o["name"].as_str())
        .collect();
    assert_eq!(listed, ["A", "A1", "B"]);
    let tool = crate::pipeline::mcp_tool(app, key, "list_sub_organizations", json!({})).await;
    assert_eq!(
        names(&tool["structuredContent"]),
        [("A".into(), 1), ("A1".into(), 2), ("B".into(), 1)],
        "{tool}"
    );
}

both!(the_tree_lists_below_in_order, the_tree_lists_below_in_order);
