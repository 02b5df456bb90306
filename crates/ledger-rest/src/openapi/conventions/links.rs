//! The links of an operation: from a create (201) to the get of what it made, and from
//! a queued write (202) to its status.

use std::collections::BTreeMap;

use utoipa::openapi::RefOr;
use utoipa::openapi::link::LinkBuilder;
use utoipa::openapi::path::Operation;

/// The operation id of each GET by path.
pub(super) fn get_operation_ids(openapi: &utoipa::openapi::OpenApi) -> BTreeMap<String, String> {
    openapi
        .paths
        .paths
        .iter()
        .filter_map(|(path, item)| {
            let id = item.get.as_ref()?.operation_id.clone()?;
            Some((path.clone(), id))
        })
        .collect()
}

/// Links a 201 to the get of the created resource (`{path}/{id}`, or the path's own get
/// for a sub-resource), and a 202 to the status of the queued write.
pub(super) fn add_links(path: &str, operation: &mut Operation, gets: &BTreeMap<String, String>) {
    let target = gets
        .iter()
        .find(|(p, _)| {
            p.strip_prefix(path).is_some_and(|rest| {
                rest.starts_with("/{") && rest.ends_with('}') && !rest[1..].contains('/')
            })
        })
        .map(|(p, id)| (p.clone(), id.clone()));
    let org = path.starts_with("/organizations/{org}") || path.contains("/organizations/{org}/");
    for (status, response) in operation.responses.responses.iter_mut() {
        let RefOr::T(response) = response else {
            continue;
        };
        if status == "201"
            && let Some((target_path, operation_id)) = &target
        {
            let mut link = LinkBuilder::new()
                .operation_id(operation_id.clone())
                .description("Get the resource this request created.");
            let last = target_path.rsplit('/').next().unwrap_or_default();
            for name in path_parameters(target_path) {
                let value = if format!("{{{name}}}") == last {
                    "$response.body#/id".to_owned()
                } else {
                    format!("$request.path.{name}")
                };
                link = link.parameter(name, value);
            }
            response.links.insert(
                format!("Get{}", pascal(operation_id)),
                RefOr::T(link.build()),
            );
        }
        if status == "202" && org {
            let link = LinkBuilder::new()
                .operation_id("requests_get")
                .description("Follow the queued write to its outcome.")
                .parameter("org", "$request.path.org")
                .parameter("request_id", "$response.body#/request_id")
                .build();
            response
                .links
                .insert("GetRequestStatus".to_owned(), RefOr::T(link));
        }
    }
}

/// The `{name}` parameters of a path template, in order.
fn path_parameters(path: &str) -> Vec<String> {
    path.split('/')
        .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
        .map(str::to_owned)
        .collect()
}

/// `accounts_get` as `AccountsGet`.
fn pascal(id: &str) -> String {
    id.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}
