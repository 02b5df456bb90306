//! The organization tree: `GET /organizations/{org}/sub-organizations` lists every
//! organization below, in tree order with its depth, to keys that reach it, on REST,
//! GraphQL and MCP.

use ledger_tests::{TestApp, both, strs};
use serde_json::{Value, json};

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
    let (a, a_key) = app.sub_org(key, &root.id, "A", "owned").await;
    let (_a1, _) = app.sub_org(key, &a, "A1", "linked").await;
    let (_b, _) = app.sub_org(key, &root.id, "B", "owned").await;
    let path = |org: &str| format!("/organizations/{org}/sub-organizations");

    let res = app.read(key, &path(&root.id)).await;
    assert_eq!(
        names(&res),
        [("A".into(), 1), ("A1".into(), 2), ("B".into(), 1)]
    );
    assert_eq!(res["data"][1]["relationship_type"], "linked");
    assert_eq!(res["data"][1]["parent_organization_id"], json!(a));
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
    let data = app
        .gql_data(
            key,
            "{ organization { subOrganizations { name parentOrganizationId } } }",
            json!({}),
        )
        .await;
    let listed = strs(&data["organization"]["subOrganizations"], "name");
    assert_eq!(listed, ["A", "A1", "B"]);
    let tool = ledger_tests::mcp::tool(app, key, "list_sub_organizations", json!({})).await;
    assert_eq!(
        names(&tool["structuredContent"]),
        [("A".into(), 1), ("A1".into(), 2), ("B".into(), 1)],
        "{tool}"
    );
}

both!(the_tree_lists_below_in_order);
