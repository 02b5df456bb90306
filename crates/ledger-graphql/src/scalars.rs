//! The custom scalars of spec 2.1: `DateTime`, `Decimal` and `Json` (`ID` is built in).
//!
//! Money never passes through a float: `Decimal` is a string on the wire both ways, and
//! an input written as a GraphQL float literal (or a JSON number with a fraction in the
//! variables) is refused rather than rounded.

use juniper::{
    Arguments, ExecutionResult, Executor, FromInputValue, GraphQLType, GraphQLValue,
    GraphQLValueAsync, InputValue, ParseScalarResult, ParseScalarValue, Registry, Scalar,
    ScalarToken, ScalarValue, Value, meta::MetaType,
};
use ledger_domain::dates::FlexDate;
use time::OffsetDateTime;

/// An instant: RFC 3339 UTC with `Z` on output; RFC 3339 or a bare date (`2026-01-31`,
/// midnight UTC) on input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, juniper::GraphQLScalar)]
#[graphql(
    name = "DateTime",
    description = "An instant: RFC 3339 in UTC on output; RFC 3339 or YYYY-MM-DD (midnight UTC) on input.",
    with = datetime_scalar,
    parse_token(String)
)]
pub struct DateTime(pub FlexDate);

impl DateTime {
    /// The instant of a stored timestamp.
    pub fn at(at: OffsetDateTime) -> Self {
        Self(FlexDate {
            at,
            date_only: false,
        })
    }
}

mod datetime_scalar {
    use super::*;

    pub(super) fn to_output<S: ScalarValue>(v: &DateTime) -> S {
        S::from_displayable(&ledger_domain::views::timestamp(v.0.at))
    }

    pub(super) fn from_input(v: &Scalar<impl ScalarValue>) -> Result<DateTime, Box<str>> {
        let text = v
            .try_to_string()
            .ok_or_else(|| Box::<str>::from("a DateTime is a string"))?;
        FlexDate::parse(&text).map(DateTime).ok_or_else(|| {
            format!("'{text}' is not an RFC 3339 date-time or a YYYY-MM-DD date").into()
        })
    }
}

/// An exact decimal number, as a string (`"100.00"`); inputs may also be integers.
#[derive(Debug, Clone, PartialEq, Eq, juniper::GraphQLScalar)]
#[graphql(
    name = "Decimal",
    description = "An exact decimal number as a string, e.g. \"100.00\". Never a float.",
    with = decimal_scalar,
    parse_token_with = decimal_scalar::parse_token
)]
pub struct Decimal(pub String);

mod decimal_scalar {
    use super::*;

    pub(super) fn to_output<S: ScalarValue>(v: &Decimal) -> S {
        S::from_displayable(&v.0)
    }

    pub(super) fn from_input(v: &Scalar<impl ScalarValue>) -> Result<Decimal, Box<str>> {
        if let Some(text) = v.try_to_string() {
            return Ok(Decimal(text));
        }
        if let Some(int) = v.try_to_int() {
            return Ok(Decimal(int.to_string()));
        }
        Err(
            "a Decimal is a string such as \"100.00\" (floats are refused: they are not exact)"
                .into(),
        )
    }

    pub(super) fn parse_token<S: ScalarValue>(t: ScalarToken<'_>) -> ParseScalarResult<S> {
        match t {
            // A float literal is refused here, so `amount: 0.1` fails validation.
            ScalarToken::Float(_) => Err(juniper::ParseError::unexpected_token(
                juniper::parser::Token::Scalar(t),
            )),
            _ => <String as ParseScalarValue<S>>::from_str(t)
                .or_else(|_| <i32 as ParseScalarValue<S>>::from_str(t)),
        }
    }
}

/// Free-form JSON (`metadata`): an object, list or value, returned as JSON itself.
#[derive(Debug, Clone, PartialEq)]
pub struct Json(pub serde_json::Value);

/// A JSON value as a GraphQL value (objects stay objects; numbers keep their kind where
/// GraphQL has one, else they are their decimal text).
pub fn json_to_value<S: ScalarValue>(v: &serde_json::Value) -> Value<S> {
    match v {
        serde_json::Value::Null => Value::null(),
        serde_json::Value::Bool(b) => Value::scalar(*b),
        serde_json::Value::Number(n) => {
            match (n.as_i64().and_then(|i| i32::try_from(i).ok()), n.as_f64()) {
                (Some(i), _) => Value::scalar(i),
                // A fraction stays a number; an integer too big for a GraphQL Int keeps its
                // exact digits as text rather than losing them in a float.
                (None, Some(f)) if n.is_f64() => Value::scalar(f),
                _ => Value::scalar(n.to_string()),
            }
        }
        serde_json::Value::String(s) => Value::scalar(s.clone()),
        serde_json::Value::Array(items) => Value::list(items.iter().map(json_to_value).collect()),
        serde_json::Value::Object(map) => Value::object(
            map.iter()
                .map(|(k, v)| (k.clone(), json_to_value(v)))
                .collect(),
        ),
    }
}

/// A GraphQL input value as JSON (`None` for an unbound variable).
pub fn input_to_json<S: ScalarValue>(v: &InputValue<S>) -> Option<serde_json::Value> {
    Some(match v {
        InputValue::Null => serde_json::Value::Null,
        InputValue::Scalar(s) => {
            if let Some(b) = s.try_to_bool() {
                serde_json::Value::Bool(b)
            } else if let Some(i) = s.try_to_int() {
                serde_json::Value::from(i)
            } else if let Some(text) = s.try_to_string() {
                serde_json::Value::String(text)
            } else {
                serde_json::Value::String(s.to_string())
            }
        }
        InputValue::Enum(e) => serde_json::Value::String(e.clone()),
        InputValue::Variable(_) => return None,
        InputValue::List(items) => serde_json::Value::Array(
            items
                .iter()
                .map(|i| input_to_json(&i.item))
                .collect::<Option<_>>()?,
        ),
        InputValue::Object(fields) => serde_json::Value::Object(
            fields
                .iter()
                .map(|(k, v)| Some((k.item.clone(), input_to_json(&v.item)?)))
                .collect::<Option<_>>()?,
        ),
    })
}

impl<S: ScalarValue> GraphQLType<S> for Json {
    fn name(_: &()) -> Option<juniper::ArcStr> {
        Some(juniper::arcstr::literal!("Json"))
    }

    fn meta(info: &(), registry: &mut Registry<S>) -> MetaType<S> {
        registry
            .build_scalar_type::<Self>(info)
            .description("Free-form JSON: objects and lists are returned as JSON, not as text.")
            .into_meta()
    }
}

impl<S: ScalarValue> GraphQLValue<S> for Json {
    type Context = ();
    type TypeInfo = ();

    fn type_name(&self, info: &()) -> Option<juniper::ArcStr> {
        <Self as GraphQLType<S>>::name(info)
    }

    fn resolve(
        &self,
        _info: &(),
        _selection: Option<&[juniper::Selection<S>]>,
        _executor: &Executor<(), S>,
    ) -> ExecutionResult<S> {
        Ok(json_to_value(&self.0))
    }

    fn resolve_field(
        &self,
        _info: &(),
        field: &str,
        _args: &Arguments<S>,
        _executor: &Executor<(), S>,
    ) -> ExecutionResult<S> {
        Err(juniper::FieldError::from(format!(
            "Json has no field '{field}'"
        )))
    }
}

impl<S: ScalarValue + Send + Sync> GraphQLValueAsync<S> for Json {
    fn resolve_async<'a>(
        &'a self,
        info: &'a (),
        selection: Option<&'a [juniper::Selection<S>]>,
        executor: &'a Executor<(), S>,
    ) -> juniper::BoxFuture<'a, ExecutionResult<S>> {
        Box::pin(futures::future::ready(
            self.resolve(info, selection, executor),
        ))
    }
}

impl<S: ScalarValue> FromInputValue<S> for Json {
    type Error = String;

    fn from_input_value(v: &InputValue<S>) -> Result<Self, Self::Error> {
        input_to_json(v)
            .map(Json)
            .ok_or_else(|| "a Json value cannot contain unbound variables".to_owned())
    }
}

impl<S: ScalarValue> ParseScalarValue<S> for Json {
    fn from_str(t: ScalarToken<'_>) -> ParseScalarResult<S> {
        <String as ParseScalarValue<S>>::from_str(t)
            .or_else(|_| <i32 as ParseScalarValue<S>>::from_str(t))
            .or_else(|_| <bool as ParseScalarValue<S>>::from_str(t))
    }
}

impl<S: ScalarValue> juniper::marker::IsOutputType<S> for Json {}
impl<S: ScalarValue> juniper::marker::IsInputType<S> for Json {}

impl<S> juniper::macros::reflect::BaseType<S> for Json {
    const NAME: juniper::macros::reflect::Type = "Json";
}

impl<S> juniper::macros::reflect::BaseSubTypes<S> for Json {
    const NAMES: juniper::macros::reflect::Types = &["Json"];
}

impl<S> juniper::macros::reflect::WrappedType<S> for Json {
    const VALUE: juniper::macros::reflect::WrappedValue = 1;
}
