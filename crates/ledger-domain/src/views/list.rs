//! The list envelope every interface answers a page of a list with.

use std::borrow::Cow;

use serde::Serialize;
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Schema, Type};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};

/// One page of a list: `object: "list"`, the items, whether more follow, and the total.
/// Its schema is named after the item's (`Tax` -> `TaxList`).
#[derive(Debug, Clone, Serialize)]
pub struct List<T> {
    object: &'static str,
    data: Vec<T>,
    has_more: bool,
    total_count: i64,
}

impl<T> List<T> {
    /// A whole list in one page (the payments of a document, the attachments of a record).
    pub fn all(data: Vec<T>) -> Self {
        let total_count = i64::try_from(data.len()).unwrap_or(i64::MAX);
        Self::page(data, 0, total_count)
    }

    /// The page that starts at `offset` of `total_count` items.
    pub fn page(data: Vec<T>, offset: i64, total_count: i64) -> Self {
        let has_more = offset + i64::try_from(data.len()).unwrap_or(i64::MAX) < total_count;
        Self {
            object: "list",
            data,
            has_more,
            total_count,
        }
    }
}

impl<T: ToSchema> PartialSchema for List<T> {
    fn schema() -> RefOr<Schema> {
        let item = RefOr::Ref(Ref::from_schema_name(T::name()));
        ObjectBuilder::new()
            .description(Some(
                "One page of a list: `data`, whether more follow, and the total.",
            ))
            .property(
                "object",
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .examples(["list"]),
            )
            .property("data", ArrayBuilder::new().items(item))
            .property("has_more", ObjectBuilder::new().schema_type(Type::Boolean))
            .property(
                "total_count",
                ObjectBuilder::new().schema_type(Type::Integer).format(Some(
                    utoipa::openapi::SchemaFormat::KnownFormat(utoipa::openapi::KnownFormat::Int64),
                )),
            )
            .required("object")
            .required("data")
            .required("has_more")
            .required("total_count")
            .into()
    }
}

impl<T: ToSchema> ToSchema for List<T> {
    fn name() -> Cow<'static, str> {
        Cow::Owned(format!("{}List", T::name()))
    }

    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((T::name().into_owned(), T::schema()));
        T::schemas(schemas);
    }
}
