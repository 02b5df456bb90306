//! The resources of an organization written and read the plain way: a collection (list,
//! create) and its items (get, update, soft delete), each write queued as the caller's
//! write, each read cleared for `read`. A resource says only what is its own: its bodies,
//! its writes and its reads in a [`Crud`] impl, and its paths, schemas and texts in one
//! [`crud_operations!`] table; the handlers, their route registration and the OpenAPI
//! conventions of the five operations (scopes, shared parameters, answers) are here once.

use actix_web::{HttpRequest, HttpResponse, web};
use ledger_domain::organizations::Scope;
use ledger_domain::ports::{PageRequest, Store};
use ledger_domain::services::{Access, Write};
use serde::de::DeserializeOwned;

use super::State;
use super::resource::{
    list_access, queue_admin_write, queue_create, queue_update, resource_access,
};
use crate::AppState;
use crate::error::ApiError;

/// What one plain resource does on its own.
pub(crate) trait Crud {
    /// The resource a request is cleared on (`taxes`).
    const RESOURCE: &'static str;
    /// The body of a create.
    type CreateBody: DeserializeOwned;
    /// The body of an update.
    type UpdateBody: DeserializeOwned;
    /// How many resources a list read answers unless its query says.
    const PAGE: i64 = 20;
    /// The scope a create or an update needs: `write`, or `admin` for a resource that
    /// configures the organization (its table says `writes need "ledger:admin"`).
    const WRITE: Scope = Scope::Write;

    /// The write a create's body asks for.
    fn create(input: Self::CreateBody) -> Result<Write, ApiError>;

    /// The write an update's body asks for on resource `id`.
    fn update(id: String, input: Self::UpdateBody) -> Result<Write, ApiError>;

    /// The soft delete of resource `id`.
    fn delete(id: String) -> Write;

    /// The answer to a read of resource `id`.
    async fn get<S: Store>(
        state: &AppState<S>,
        access: &Access,
        id: &str,
    ) -> Result<HttpResponse, ApiError>;

    /// The answer to a read of `page` of the resources, filtered by the request's query.
    async fn list<S: Store>(
        state: &AppState<S>,
        req: &HttpRequest,
        access: &Access,
        page: PageRequest,
    ) -> Result<HttpResponse, ApiError>;
}

/// `POST` on the collection: the create, 201 once it is done.
pub(crate) async fn create<S: Store, R: Crud>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    queue_create(
        &state,
        &req,
        path,
        payload,
        R::WRITE,
        R::RESOURCE,
        R::create,
    )
    .await
}

/// `GET` on an item.
pub(crate) async fn get<S: Store, R: Crud>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (access, id) = resource_access(&state, &req, path, Scope::Read, R::RESOURCE).await?;
    R::get(&state, &access, &id).await
}

/// `PUT` (and `PATCH`, where the table has it) on an item: the update, 200 once it is
/// done.
pub(crate) async fn update<S: Store, R: Crud>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    queue_update(
        &state,
        &req,
        path,
        payload,
        R::WRITE,
        R::RESOURCE,
        R::update,
    )
    .await
}

/// `DELETE` on an item: the soft delete (needs `admin`), 200 once it is done.
pub(crate) async fn delete<S: Store, R: Crud>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    queue_admin_write(&state, &req, path, R::RESOURCE, R::delete).await
}

/// `GET` on the collection: a page of [`Crud::PAGE`] unless the query says.
pub(crate) async fn list<S: Store, R: Crud>(
    state: State<S>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (access, page) = list_access(&state, &req, path, R::RESOURCE, R::PAGE).await?;
    R::list(&state, &req, &access, page).await
}

/// The routes and the OpenAPI operations of a [`Crud`] resource: `configure` registers
/// the collection path (`list`, `create`) and the item path (`get`, `update`, `delete`),
/// and each operation is a handler named after it with its `#[utoipa::path]`. The table
/// gives the resource type, the tag, the schemas of one resource and of a page, the two
/// paths (and the function that registers the resource's further paths after them), and
/// for each operation its id, summary and description (and for `list`, its filters). The
/// module names its bodies `CreateBody` and `UpdateBody`.
///
/// Three rows are optional: `writes need "ledger:admin";` documents the scope of a
/// resource whose [`Crud::WRITE`] is `admin`; `patch` serves the update under `PATCH`
/// too, as its own operation; and a list whose answer is not a page schema says what it
/// answers in `answers(description = ..., body = ...)` after its filters (its table
/// names no page schema: `schemas Contact, _`).
macro_rules! crud_operations {
    (
        $resource:ident, tag $tag:tt, schemas $schema:ident, $list_schema:tt;
        paths $collection:tt, $item:tt $(, then $more:ident)?;
        $(writes need $write_scope:tt;)?
        create $create_id:tt: $create_summary:tt, $create_description:tt;
        get $get_id:tt: $get_summary:tt, $get_description:tt;
        update $update_id:tt: $update_summary:tt, $update_description:tt;
        $(patch $patch_id:tt: $patch_summary:tt, $patch_description:tt;)?
        delete $delete_id:tt: $delete_summary:tt, $delete_description:tt;
        list $list_id:tt: $list_summary:tt, $list_description:tt, filters($($filter:tt),* $(,)?)
            $(, answers($($answer:tt)*))?;
    ) => {
        pub(super) fn configure<S: ledger_domain::ports::Store>(r: &mut crate::routes::Routes<'_>) {
            let item = crate::routes::at($item).get(get::<S>).put(update::<S>);
            let item = crate::routes::crud::crud_operations!(@patch item $($patch_id)?);
            r.add(crate::routes::at($collection).get(list::<S>).post(create::<S>))
                .add(item.delete(delete::<S>));
            $($more::<S>(r);)?
        }

        #[utoipa::path(
            post,
            path = $collection,
            operation_id = $create_id,
            tag = $tag,
            summary = $create_summary,
            description = $create_description,
            params(crate::openapi::params::QueuedWrite),
            request_body(content = CreateBody, content_type = "application/json"),
            responses(
                (status = 201, description = "Created.", body = crate::openapi::schemas::$schema),
            ),
            $(security(("api_key" = []), ("oauth2" = [$write_scope])),)?
        )]
        async fn create<S: ledger_domain::ports::Store>(
            state: crate::routes::State<S>,
            req: actix_web::HttpRequest,
            path: actix_web::web::Path<String>,
            payload: actix_web::web::Payload,
        ) -> Result<actix_web::HttpResponse, crate::error::ApiError> {
            crate::routes::crud::create::<S, $resource>(state, req, path, payload).await
        }

        #[utoipa::path(
            get,
            path = $item,
            operation_id = $get_id,
            tag = $tag,
            summary = $get_summary,
            description = $get_description,
            responses(
                (status = 200, description = "The resource.", body = crate::openapi::schemas::$schema),
            ),
        )]
        async fn get<S: ledger_domain::ports::Store>(
            state: crate::routes::State<S>,
            req: actix_web::HttpRequest,
            path: actix_web::web::Path<(String, String)>,
        ) -> Result<actix_web::HttpResponse, crate::error::ApiError> {
            crate::routes::crud::get::<S, $resource>(state, req, path).await
        }

        crate::routes::crud::crud_operations!(@update put update
            [$update_id, $update_summary, $update_description] [$($write_scope)?]
            $resource, $tag, $item, $schema
        );
        crate::routes::crud::crud_operations!(@patch_operation
            [$($patch_id, $patch_summary, $patch_description)?] [$($write_scope)?]
            $resource, $tag, $item, $schema
        );

        #[utoipa::path(
            delete,
            path = $item,
            operation_id = $delete_id,
            tag = $tag,
            summary = $delete_summary,
            description = $delete_description,
            params(crate::openapi::params::QueuedWrite),
            responses(
                (status = 200, description = "The resource.", body = crate::openapi::schemas::Deleted),
            ),
            security(("api_key" = []), ("oauth2" = ["ledger:admin"])),
        )]
        async fn delete<S: ledger_domain::ports::Store>(
            state: crate::routes::State<S>,
            req: actix_web::HttpRequest,
            path: actix_web::web::Path<(String, String)>,
        ) -> Result<actix_web::HttpResponse, crate::error::ApiError> {
            crate::routes::crud::delete::<S, $resource>(state, req, path).await
        }

        crate::routes::crud::crud_operations!(@list
            [$($($answer)*)?]
            [description = "The resource.", body = crate::openapi::schemas::$list_schema]
            $resource, $tag, $collection, $list_id, $list_summary, $list_description,
            [$($filter),*]
        );
    };
    // The item path with `PATCH` when the table has a `patch` row.
    (@patch $at:ident) => { $at };
    (@patch $at:ident $patch_id:tt) => { $at.patch(patch::<S>) };
    // The `PATCH` operation, when the table has a `patch` row: the update's.
    (@patch_operation [] [$($write_scope:tt)?] $($rest:tt)*) => {};
    (@patch_operation [$($patch:tt)+] [$($write_scope:tt)?] $($rest:tt)*) => {
        crate::routes::crud::crud_operations!(@update patch patch
            [$($patch)+] [$($write_scope)?] $($rest)*
        );
    };
    // An update under `$method`, served by the handler `$handler`.
    (
        @update $method:ident $handler:ident [$id:tt, $summary:tt, $description:tt]
        [$($write_scope:tt)?] $resource:ident, $tag:tt, $item:tt, $schema:ident
    ) => {
        #[utoipa::path(
            $method,
            path = $item,
            operation_id = $id,
            tag = $tag,
            summary = $summary,
            description = $description,
            params(crate::openapi::params::QueuedWrite),
            request_body(content = UpdateBody, content_type = "application/json"),
            responses(
                (status = 200, description = "The resource.", body = crate::openapi::schemas::$schema),
            ),
            $(security(("api_key" = []), ("oauth2" = [$write_scope])),)?
        )]
        async fn $handler<S: ledger_domain::ports::Store>(
            state: crate::routes::State<S>,
            req: actix_web::HttpRequest,
            path: actix_web::web::Path<(String, String)>,
            payload: actix_web::web::Payload,
        ) -> Result<actix_web::HttpResponse, crate::error::ApiError> {
            crate::routes::crud::update::<S, $resource>(state, req, path, payload).await
        }
    };
    // The list's answer: the one the table gives, else the page schema.
    (@list [] [$($default:tt)*] $($rest:tt)*) => {
        crate::routes::crud::crud_operations!(@list_operation [$($default)*] $($rest)*);
    };
    (@list [$($answer:tt)+] [$($default:tt)*] $($rest:tt)*) => {
        crate::routes::crud::crud_operations!(@list_operation [$($answer)*] $($rest)*);
    };
    (
        @list_operation [$($answer:tt)*] $resource:ident, $tag:tt, $collection:tt,
        $list_id:tt, $list_summary:tt, $list_description:tt, [$($filter:tt),*]
    ) => {
        #[utoipa::path(
            get,
            path = $collection,
            operation_id = $list_id,
            tag = $tag,
            summary = $list_summary,
            description = $list_description,
            params(
                $($filter,)*
                crate::openapi::params::Paging,
            ),
            responses(
                (status = 200, $($answer)*),
            ),
        )]
        async fn list<S: ledger_domain::ports::Store>(
            state: crate::routes::State<S>,
            req: actix_web::HttpRequest,
            path: actix_web::web::Path<String>,
        ) -> Result<actix_web::HttpResponse, crate::error::ApiError> {
            crate::routes::crud::list::<S, $resource>(state, req, path).await
        }
    };
}
pub(crate) use crud_operations;
