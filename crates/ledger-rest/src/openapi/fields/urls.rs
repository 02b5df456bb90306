//! URL members: a contact's website, a purchase's return URLs and a webhook endpoint's
//! URL, each as the domain checks it.

use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, SchemaFormat, Type};

use super::text::optional_or_blank;

/// A host name of dotted labels whose last one starts with a letter (so that it is no
/// IPv4 address either: a URL's host that ends in a number is read as one).
const HOST: &str =
    r"([A-Za-z0-9]([A-Za-z0-9-]{0,30}[A-Za-z0-9])?\.)+[A-Za-z]([A-Za-z0-9-]{0,30}[A-Za-z0-9])?";

/// An absolute http or https URL with a host name and an optional port; `fragment`: may
/// it end with `#...`. With a fragment (a contact's website, a purchase's return URLs,
/// kept as sent): no blank, backslash or control character after the host, and no `uri`
/// format, since international characters are taken as they are (an IRI, which RFC 3986
/// would have percent-encoded). Without (a webhook URL, stored as parsed): a `uri`.
pub(crate) fn http_url(max_length: usize, fragment: bool) -> ObjectBuilder {
    let (rest, format) = if fragment {
        (r"[/?#][^\s\\\x00-\x1f\x7f-\x9f]*", None)
    } else {
        (r"[/?][^\s#]*", Some(SchemaFormat::Custom("uri".to_owned())))
    };
    ObjectBuilder::new()
        .schema_type(Type::String)
        .format(format)
        .pattern(Some(format!(
            "^https?://{HOST}(:[1-9][0-9]{{0,3}})?({rest})?$"
        )))
        .max_length(Some(max_length))
}

/// An optional website: an absolute http or https URL (`check_website`).
pub(crate) fn optional_website() -> Schema {
    optional_or_blank(http_url(255, true), "An absolute http or https URL.")
}

/// A client's return URL (`ledger_domain::credits::check_return_url`): an absolute http
/// or https URL with a host name, at most 2048 characters (the server also takes IP
/// addresses and single-label hosts such as `localhost`); blank or `null` is "not given".
pub(crate) fn optional_return_url() -> Schema {
    optional_or_blank(
        http_url(2048, true),
        "An absolute http(s) URL of at most 2048 characters.",
    )
}

/// A webhook endpoint's URL (`ledger_domain::webhooks::check_url`): absolute http or
/// https with a host name, without a fragment, at most 2048 characters. (A host written as
/// an IP address must be public unless the operator allows private ones; a name is
/// resolved and checked at every delivery.)
pub(crate) fn webhook_url() -> Schema {
    http_url(ledger_domain::webhooks::MAX_URL_CHARS, false)
        .description(Some(
            "An absolute http or https URL of at most 2048 characters, without a fragment.",
        ))
        .into()
}

/// [`webhook_url`] or `null` (unchanged).
pub(crate) fn optional_webhook_url() -> Schema {
    OneOfBuilder::new()
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .item(webhook_url())
        .into()
}
