//! Paths served twice: the document lists each operation of an aliased path as a
//! deprecated copy of the specification's, and each of a path served under a second
//! prefix as an equal copy.

/// A path served twice: every route under `spec` is served by the same handler under
/// `path` too, which the document lists as a deprecated copy of the spec's operation, its
/// id taking `operation_prefix` for `spec_operation_prefix`.
struct Alias {
    path: &'static str,
    operation_prefix: &'static str,
    spec: &'static str,
    spec_operation_prefix: &'static str,
}

const DEPRECATED_ALIASES: &[Alias] = &[Alias {
    path: crate::routes::recurring::LEGACY_BASE,
    operation_prefix: "recurring_schedules_",
    spec: crate::routes::recurring::BASE,
    spec_operation_prefix: "recurring_",
}];

/// A family of paths served under a second prefix as well, as an equal (spec 9): the
/// copies' operation ids end in `operation_suffix`.
struct Prefixed {
    family: &'static str,
    prefix: &'static str,
    operation_suffix: &'static str,
}

const PREFIXED: &[Prefixed] = &[Prefixed {
    family: "/organizations/{org}/api-keys",
    prefix: "/api/v1",
    operation_suffix: "_v1",
}];

/// Adds the operations of every [`PREFIXED`] family under its prefix: each a copy of the
/// unprefixed one, its id with the suffix.
pub(super) fn add_prefixed_copies(openapi: &mut utoipa::openapi::OpenApi) {
    for family in PREFIXED {
        let copies: Vec<(String, utoipa::openapi::PathItem)> = openapi
            .paths
            .paths
            .iter()
            .filter(|(path, _)| {
                path.strip_prefix(family.family)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
            })
            .map(|(path, item)| (format!("{}{path}", family.prefix), item.clone()))
            .collect();
        for (path, mut item) in copies {
            for operation in [
                item.get.as_mut(),
                item.put.as_mut(),
                item.post.as_mut(),
                item.delete.as_mut(),
                item.patch.as_mut(),
            ]
            .into_iter()
            .flatten()
            {
                operation.operation_id = operation
                    .operation_id
                    .as_deref()
                    .map(|id| format!("{id}{}", family.operation_suffix));
            }
            openapi.paths.paths.insert(path, item);
        }
    }
}

/// Adds the operations of every [`DEPRECATED_ALIASES`] path: each a copy of the spec's
/// one, deprecated, with a summary and a description that name the one to use.
pub(super) fn add_deprecated_aliases(openapi: &mut utoipa::openapi::OpenApi) {
    for alias in DEPRECATED_ALIASES {
        let copies: Vec<(String, String, utoipa::openapi::PathItem)> = openapi
            .paths
            .paths
            .iter()
            .filter_map(|(path, item)| {
                let rest = path.strip_prefix(alias.spec)?;
                (rest.is_empty() || rest.starts_with('/'))
                    .then(|| (format!("{}{rest}", alias.path), path.clone(), item.clone()))
            })
            .collect();
        for (path, spec_path, mut item) in copies {
            for (method, operation) in [
                ("GET", item.get.as_mut()),
                ("PUT", item.put.as_mut()),
                ("POST", item.post.as_mut()),
                ("DELETE", item.delete.as_mut()),
                ("PATCH", item.patch.as_mut()),
            ] {
                let Some(operation) = operation else { continue };
                operation.operation_id = operation.operation_id.as_deref().map(|id| {
                    let name = id.strip_prefix(alias.spec_operation_prefix).unwrap_or(id);
                    format!("{}{name}", alias.operation_prefix)
                });
                operation.summary = operation
                    .summary
                    .as_deref()
                    .map(|s| format!("{s} (deprecated path)"));
                let note = format!(
                    "Deprecated: the same operation as `{method} {spec_path}` (the \
                     specification's path), which new clients should use; this path keeps \
                     answering."
                );
                operation.description = Some(match operation.description.take() {
                    Some(text) if !text.is_empty() => format!("{note}\n\n{text}"),
                    _ => note,
                });
                operation.deprecated = Some(utoipa::openapi::Deprecated::True);
            }
            openapi.paths.paths.insert(path, item);
        }
    }
}
