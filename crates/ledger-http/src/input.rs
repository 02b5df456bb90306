//! Reading requests: bodies (size limit, JSON, unknown fields), amounts as exact decimal
//! text, dates, pagination and the `Prefer` / `Idempotency-Key` headers.
//!
//! Every failure here is a 4xx in the documented envelope; nothing reaches the services.

use actix_web::HttpRequest;
use actix_web::web::Payload;
use futures::StreamExt;
use ledger_domain::error::ErrorCode;
use ledger_domain::ports::PageRequest;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::error::{ApiError, validation};

/// Largest accepted request body.
pub const MAX_BODY_BYTES: usize = 1 << 20;

/// Reads the body, refusing more than [`MAX_BODY_BYTES`].
///
/// # Errors
/// `payload_too_large`, or `invalid_json` when the stream breaks.
pub async fn read_body(mut payload: Payload) -> Result<Vec<u8>, ApiError> {
    let mut body = Vec::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| {
            validation(
                ErrorCode::InvalidJson,
                None,
                format!("could not read the request body: {e}"),
            )
        })?;
        if body.len() + chunk.len() > MAX_BODY_BYTES {
            return Err(validation(
                ErrorCode::PayloadTooLarge,
                None,
                format!("the request body exceeds {MAX_BODY_BYTES} bytes"),
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// The member whose value is free-form JSON kept as JSON text (escaped, so a NUL there
/// is stored as `\u0000` and reads back as it came): NUL is not refused inside it.
const FREE_JSON_MEMBER: &str = "metadata";

/// The path of the first string (member name or value) holding a NUL character, outside
/// `metadata`.
fn nul_at(value: &Value, path: String) -> Option<String> {
    match value {
        Value::String(s) => s.contains('\0').then_some(path),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| nul_at(v, format!("{path}[{i}]"))),
        Value::Object(members) => members.iter().find_map(|(k, v)| {
            let here = format!("{path}.{k}");
            if k.contains('\0') {
                Some(here)
            } else if k == FREE_JSON_MEMBER {
                None
            } else {
                nul_at(v, here)
            }
        }),
        _ => None,
    }
}

/// Parses a JSON body into `T`, naming the field at fault.
///
/// # Errors
/// `unsupported_media_type` unless the content type is JSON; `invalid_json`,
/// `unknown_field`, `missing_field` or `invalid_field`.
pub fn parse_json<T: DeserializeOwned>(req: &HttpRequest, body: &[u8]) -> Result<T, ApiError> {
    let content_type = req
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if !(essence == "application/json" || essence.ends_with("+json")) {
        return Err(validation(
            ErrorCode::UnsupportedMediaType,
            None,
            "send the body as JSON with 'Content-Type: application/json'",
        ));
    }
    // No body at all is an empty object (the actions: `/post`, `/reverse`, ...); anything
    // sent must be JSON, so a body of only whitespace is not.
    let body: &[u8] = if body.is_empty() { b"{}" } else { body };
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        validation(
            ErrorCode::InvalidJson,
            None,
            format!("the body is not valid JSON: {e}"),
        )
    })?;
    if !value.is_object() {
        return Err(validation(
            ErrorCode::InvalidJson,
            None,
            "the body must be a JSON object",
        ));
    }
    // PostgreSQL text cannot hold NUL (`\u0000`): refused here for every body, as the
    // client's mistake it is, rather than failing in the database.
    if let Some(path) = nul_at(&value, String::new()) {
        let field = path.trim_start_matches('.').to_owned();
        return Err(validation(
            ErrorCode::InvalidField,
            Some(field.clone()),
            format!("{field}: must not contain the NUL character (\\u0000)"),
        ));
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        let parent = if path == "." {
            String::new()
        } else {
            format!("{path}.")
        };
        if let Some(rest) = inner.strip_prefix("unknown field `") {
            let name = rest.split('`').next().unwrap_or_default();
            // The path of an unknown field already ends with the field's own name.
            let field = if path == name || path.ends_with(&format!(".{name}")) {
                path.clone()
            } else {
                format!("{parent}{name}").trim_start_matches('.').to_owned()
            };
            validation(
                ErrorCode::UnknownField,
                Some(field.clone()),
                format!("unknown field '{field}'"),
            )
        } else if let Some(rest) = inner.strip_prefix("missing field `") {
            let name = rest.split('`').next().unwrap_or_default();
            let field = format!("{parent}{name}").trim_start_matches('.').to_owned();
            validation(
                ErrorCode::MissingField,
                Some(field.clone()),
                format!("{field} is required"),
            )
        } else {
            validation(
                ErrorCode::InvalidField,
                Some(path.clone()),
                format!("{path}: {inner}"),
            )
        }
    })
}

/// A decimal given as a JSON number or string, kept as its exact text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecimalText(pub String);

impl<'de> Deserialize<'de> for DecimalText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::Number(n) => Ok(Self(n.to_string())),
            Value::String(s) => Ok(Self(s)),
            _ => Err(serde::de::Error::custom(
                "expected a decimal number or a decimal string",
            )),
        }
    }
}

/// A whole number given as a JSON integer or as a number with no fraction (`1.0`): JSON
/// Schema's `integer` is both, so a body that keeps to the document is read either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WholeNumber(pub i64);

impl<'de> Deserialize<'de> for WholeNumber {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let refused = || serde::de::Error::custom("expected a whole number");
        match Value::deserialize(d)? {
            Value::Number(n) => match (n.as_i64(), n.as_f64()) {
                (Some(whole), _) => Ok(Self(whole)),
                // Beyond ±2^53 a float no longer tells whole numbers apart.
                (None, Some(f)) if f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_992.0 => {
                    Ok(Self(f as i64))
                }
                _ => Err(refused()),
            },
            _ => Err(refused()),
        }
    }
}

/// `Option<WholeNumber>` as `Option<i64>`.
pub fn whole(n: Option<WholeNumber>) -> Option<i64> {
    n.map(|WholeNumber(n)| n)
}

pub use ledger_domain::dates::FlexDate;

/// The query string as pairs.
pub fn query_pairs(req: &HttpRequest) -> Vec<(String, String)> {
    url::form_urlencoded::parse(req.query_string().as_bytes())
        .into_owned()
        .collect()
}

/// One query parameter.
pub fn query_param(req: &HttpRequest, name: &str) -> Option<String> {
    query_pairs(req)
        .into_iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v)
        .filter(|v| !v.is_empty())
}

/// A date query parameter.
///
/// # Errors
/// `invalid_field` naming the parameter.
pub fn query_date(req: &HttpRequest, name: &str) -> Result<Option<FlexDate>, ApiError> {
    query_param(req, name)
        .map(|v| {
            FlexDate::parse(&v).ok_or_else(|| {
                validation(
                    ErrorCode::InvalidField,
                    Some(name.into()),
                    if v.trim().len() == 10 {
                        format!("{name} {}", ledger_domain::dates::day_problem(&v))
                    } else {
                        format!("{name} must be a date (YYYY-MM-DD) or an RFC 3339 date-time")
                    },
                )
            })
        })
        .transpose()
}

/// A boolean query parameter.
///
/// # Errors
/// `invalid_field` unless `true` or `false`.
pub fn query_bool(req: &HttpRequest, name: &str) -> Result<Option<bool>, ApiError> {
    query_param(req, name)
        .map(|v| match v.as_str() {
            "true" | "1" => Ok(true),
            "false" | "0" => Ok(false),
            _ => Err(validation(
                ErrorCode::InvalidField,
                Some(name.into()),
                format!("{name} must be true or false"),
            )),
        })
        .transpose()
}

/// `limit` (1..=max, default `default`) and `offset` (>= 0, default 0).
///
/// # Errors
/// `invalid_field` on either parameter.
pub fn page(req: &HttpRequest, default: i64) -> Result<PageRequest, ApiError> {
    let number = |name: &str| -> Result<Option<i64>, ApiError> {
        query_param(req, name)
            .map(|v| {
                v.parse::<i64>().map_err(|_| {
                    validation(
                        ErrorCode::InvalidField,
                        Some(name.into()),
                        format!("{name} must be an integer"),
                    )
                })
            })
            .transpose()
    };
    Ok(PageRequest::bounded(
        number("limit")?,
        number("offset")?,
        default,
    )?)
}

/// Seconds from `Prefer: wait=N` (RFC 7240), at most 30.
pub fn prefer_wait(req: &HttpRequest) -> Option<u64> {
    req.headers()
        .get_all("prefer")
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .find_map(|pref| {
            let (name, value) = pref.trim().split_once('=')?;
            (name.trim().eq_ignore_ascii_case("wait"))
                .then(|| value.trim().trim_matches('"').parse::<u64>().ok())
                .flatten()
                .map(|n| n.min(30))
        })
}

/// The `Idempotency-Key` header, checked.
///
/// # Errors
/// `invalid_field` unless it is 1 to 255 visible ASCII characters, with spaces (not tabs)
/// inside: the pattern the OpenAPI document states.
pub fn idempotency_key(req: &HttpRequest) -> Result<Option<String>, ApiError> {
    let Some(value) = req.headers().get("idempotency-key") else {
        return Ok(None);
    };
    let key = value.to_str().map(str::trim).unwrap_or("");
    if key.is_empty() || key.len() > 255 || !key.bytes().all(|b| (b' '..=b'~').contains(&b)) {
        return Err(validation(
            ErrorCode::InvalidField,
            Some("Idempotency-Key".into()),
            "Idempotency-Key must be 1 to 255 visible ASCII characters",
        ));
    }
    Ok(Some(key.to_owned()))
}

/// `value` as compact JSON with every object's members in key order: what an
/// `Idempotency-Key` compares of a JSON request (REST's body, GraphQL's request), so that
/// member order and whitespace do not make a retry another request. serde_json's own
/// compact form is that, its maps being ordered by key (without its `preserve_order`
/// feature; the test below fails if a dependency turns it on).
pub fn canonical_json(value: &serde_json::Value) -> String {
    value.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ledger_domain::DomainError;

    #[test]
    fn canonical_json_orders_members_by_key_at_every_depth() {
        let parsed: serde_json::Value =
            serde_json::from_str("{ \"b\": [ {\"z\": 1, \"a\": \"1.50\"} ], \"a\": null }")
                .expect("json");
        assert_eq!(
            canonical_json(&parsed),
            r#"{"a":null,"b":[{"a":"1.50","z":1}]}"#
        );
    }

    #[test]
    fn idempotency_keys_are_visible_ascii_with_spaces_inside() {
        let key = |value: &str| {
            let req = actix_web::test::TestRequest::default()
                .insert_header(("idempotency-key", value))
                .to_http_request();
            idempotency_key(&req).map_err(|e| e.0.code())
        };
        assert_eq!(key("order 42/a").expect("taken"), Some("order 42/a".into()));
        assert_eq!(key(&"k".repeat(255)).expect("255"), Some("k".repeat(255)));
        for bad in ["a\tb", "", &"k".repeat(256)] {
            assert_eq!(key(bad), Err(ErrorCode::InvalidField), "{bad:?}");
        }
        let none = actix_web::test::TestRequest::default().to_http_request();
        assert_eq!(idempotency_key(&none).expect("absent"), None);
    }

    #[test]
    fn dates_and_datetimes() {
        let d = FlexDate::parse("2026-01-31").expect("date");
        assert!(d.date_only);
        assert_eq!(d.inclusive_until() - d.at, time::Duration::days(1));
        let t = FlexDate::parse("2026-01-31T10:00:00+02:00").expect("datetime");
        assert_eq!(t.at.hour(), 8);
        assert!(FlexDate::parse("31/01/2026").is_none());
    }

    #[test]
    fn decimal_text_keeps_the_digits() {
        let v: DecimalText = serde_json::from_str("0.1").expect("number");
        assert_eq!(v.0, "0.1");
        let v: DecimalText = serde_json::from_str("\"100.10\"").expect("string");
        assert_eq!(v.0, "100.10");
        assert!(serde_json::from_str::<DecimalText>("true").is_err());
    }

    #[test]
    fn whole_numbers_come_as_integers_or_as_floats_without_a_fraction() {
        let read = |text: &str| serde_json::from_str::<WholeNumber>(text).map(|n| n.0);
        assert_eq!(read("3").expect("integer"), 3);
        assert_eq!(read("3.0").expect("whole float"), 3);
        assert_eq!(read("-2.0").expect("negative whole float"), -2);
        assert!(read("1.5").is_err());
        assert!(read("1e300").is_err());
        assert!(read("\"3\"").is_err());
        assert!(read("null").is_err());
    }

    #[test]
    fn no_body_is_an_empty_object_and_blank_text_is_not_json() {
        let req = actix_web::test::TestRequest::default()
            .insert_header(("content-type", "application/json"))
            .to_http_request();
        let empty: Value = parse_json(&req, b"").expect("no body");
        assert_eq!(empty, serde_json::json!({}));
        for blank in [&b"\t"[..], b" ", b"\r\n"] {
            let err = parse_json::<Value>(&req, blank).expect_err("blank text");
            assert_eq!(err.0.code(), ErrorCode::InvalidJson);
        }
    }

    #[test]
    fn a_nul_character_is_refused_with_its_path() {
        let req = actix_web::test::TestRequest::default()
            .insert_header(("content-type", "application/json"))
            .to_http_request();
        let refused = parse_json::<Value>(&req, br#"{"name":"a","items":[{"note":"x\u0000y"}]}"#)
            .expect_err("NUL refused");
        let DomainError::Validation { code, field, .. } = refused.0 else {
            panic!("a validation error expected, got {:?}", refused.0);
        };
        assert_eq!(code, ErrorCode::InvalidField);
        assert_eq!(field.as_deref(), Some("items[0].note"));
        let nested = parse_json::<Value>(&req, br#"{"items":[{"metadata":{"k":1},"n":"\u0000"}]}"#)
            .expect_err("NUL beside metadata refused");
        let DomainError::Validation { field, .. } = nested.0 else {
            panic!("a validation error expected, got {:?}", nested.0);
        };
        assert_eq!(field.as_deref(), Some("items[0].n"));
        // Metadata is free JSON, kept as JSON text: a NUL there is stored escaped.
        let free: Value = parse_json(
            &req,
            br#"{"metadata":{"k\u0000":"v\u0000","deep":[{"x":"\u0000"}]}}"#,
        )
        .expect("NUL inside metadata");
        assert_eq!(free["metadata"]["k\0"], "v\0");
        let fine: Value =
            parse_json(&req, br#"{"name":"a\\u0000"}"#).expect("an escaped backslash is text");
        assert_eq!(fine["name"], "a\\u0000");
    }
}
