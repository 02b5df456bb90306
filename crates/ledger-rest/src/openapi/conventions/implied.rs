//! What an operation's path and method imply, so that its `#[utoipa::path]` says only
//! what is its own: the `{org}` and `{id}` path parameters of its template (the members of
//! [`ResourcePath`]), and its scope when it declares none: a `GET` reads
//! (`ledger:read`), any other method writes (`ledger:write`). An operation that needs
//! `ledger:admin`, no credential, or another scheme says so in its own `security(...)`.

use utoipa::IntoParams;
use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::security::SecurityRequirement;

use crate::openapi::params::ResourcePath;

/// Adds the path parameters the template names and the operation leaves out (`{org}` and
/// `{id}` as [`ResourcePath`] declares them), and puts the path parameters first, in the
/// template's order.
pub(super) fn add_path_parameters(path: &str, operation: &mut Operation) {
    let shared = ResourcePath::into_params(|| None);
    let parameters = operation.parameters.get_or_insert_with(Vec::new);
    let mut in_path = Vec::new();
    for name in template_names(path) {
        let declared = parameters
            .iter()
            .position(|p| p.name == name && matches!(p.parameter_in, ParameterIn::Path));
        if let Some(at) = declared {
            in_path.push(parameters.remove(at));
        } else if let Some(implied) = shared.iter().find(|p| p.name == name) {
            in_path.push(implied.clone());
        }
    }
    if in_path.is_empty() && parameters.is_empty() {
        operation.parameters = None;
        return;
    }
    in_path.append(parameters);
    *parameters = in_path;
}

/// The `{name}`s of a path template, in order.
fn template_names(path: &str) -> impl Iterator<Item = &str> {
    path.split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(name, _)| name))
}

/// Gives an operation that declares no security the scope its method implies.
pub(super) fn add_default_security(method: &str, operation: &mut Operation) {
    if operation.security.is_some() {
        return;
    }
    let scope = if method == "get" {
        "ledger:read"
    } else {
        "ledger:write"
    };
    operation.security = Some(vec![
        SecurityRequirement::new("api_key", Vec::<String>::new()),
        SecurityRequirement::new("oauth2", [scope]),
    ]);
}
