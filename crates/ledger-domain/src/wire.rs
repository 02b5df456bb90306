//! The one step from a typed view to the JSON value the services hand around, store as
//! an event's state and relay: below every module that renders a view.

use serde::Serialize;
use serde_json::Value;

/// A typed view as a JSON value. The views hold strings, numbers, booleans and JSON
/// values only, which always serialize; `null` would stand for a view that did not (and
/// is logged).
pub fn json<T: Serialize>(view: &T) -> Value {
    serde_json::to_value(view).unwrap_or_else(|error| {
        tracing::error!(%error, "a view did not serialize");
        Value::Null
    })
}
