//! From a row to the wire: its `tools/list` entry, and a call's REST request.

use ledger_domain::error::ErrorCode;
use serde_json::{Map, Value, json};

use super::rows::arg;
use super::{Arg, ArgError, Loc, Tool, Ty, snake};

const ORGANIZATION_ARG: Arg = Arg {
    caller_organization: true,
    ..arg(
        "organizationId",
        Ty::Str,
        Loc::Path,
        false,
        "Organization to act in (org_...); defaults to the organization of the API key.",
    )
};

/// The `Idempotency-Key` of a write whose REST operation takes one.
const IDEMPOTENCY_ARG: Arg = arg(
    "idempotencyKey",
    Ty::Str,
    Loc::Header("Idempotency-Key"),
    false,
    "Makes a retry safe: the same key with the same arguments answers the first outcome and writes nothing again.",
);

/// A tool call as a REST request: path and query, JSON body, headers.
pub type RestCall = (String, Option<Value>, Vec<(&'static str, String)>);

impl Tool {
    /// Every argument including the implicit `organizationId` of organization paths and
    /// the implicit `idempotencyKey` of writes whose REST operation takes the header.
    pub fn all_args(&self) -> impl Iterator<Item = &Arg> {
        let org = self.path.contains("{organizationId}");
        org.then_some(&ORGANIZATION_ARG)
            .into_iter()
            .chain(self.args.iter())
            .chain(self.takes_idempotency_key().then_some(&IDEMPOTENCY_ARG))
    }

    /// The tool as `tools/list` shows it, with its `outputSchema` when it has one.
    pub fn describe(&self) -> Value {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for a in self.all_args() {
            properties.insert(a.name.to_owned(), schema(a));
            if a.required {
                required.push(Value::from(a.name));
            }
        }
        let mut tool = json!({
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": false,
            },
            "annotations": {
                "title": self.title,
                "readOnlyHint": self.read_only,
                "destructiveHint": self.destructive,
                "idempotentHint": self.idempotent,
                "openWorldHint": false,
            },
            "_meta": { "ledger/credits": self.credits },
        });
        if let Some(schema) = self.output_schema() {
            tool["outputSchema"] = schema.clone();
        }
        tool
    }

    /// Maps call arguments to the REST request: path, query and body.
    ///
    /// # Errors
    /// The validation error of a tool result (`isError`): `unknown_field` for an argument
    /// the tool does not take, `missing_field` for a required one that is absent,
    /// `invalid_field` for a wrong type, an argument given twice, a path value that is
    /// not a plain identifier, or arguments that are not an object.
    pub fn request(
        &self,
        arguments: Option<&Value>,
        default_org: &str,
    ) -> Result<(String, Option<Value>), ArgError> {
        self.request_with_headers(arguments, default_org)
            .map(|(path, body, _)| (path, body))
    }

    /// [`Tool::request`] with the request headers arguments map to
    /// ([`Loc::Header`]).
    ///
    /// # Errors
    /// As [`Tool::request`].
    pub fn request_with_headers(
        &self,
        arguments: Option<&Value>,
        default_org: &str,
    ) -> Result<RestCall, ArgError> {
        let empty = Map::new();
        let given = match arguments {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(map)) => map,
            Some(_) => {
                return Err(ArgError {
                    code: ErrorCode::InvalidField,
                    argument: None,
                    message: "arguments must be an object".into(),
                });
            }
        };
        let args: Vec<&Arg> = self.all_args().collect();
        let mut values: Vec<Option<&Value>> = vec![None; args.len()];
        for (key, value) in given {
            let Some(i) = args
                .iter()
                .position(|a| a.name == key || snake(a.name) == *key)
            else {
                let known: Vec<&str> = args.iter().map(|a| a.name).collect();
                return Err(ArgError::new(
                    ErrorCode::UnknownField,
                    key,
                    format!(
                        "unknown argument '{key}' for {}; expected: {}",
                        self.name,
                        known.join(", ")
                    ),
                ));
            };
            if values[i].is_some() {
                return Err(ArgError::new(
                    ErrorCode::InvalidField,
                    args[i].name,
                    format!(
                        "argument '{}' is given twice (camelCase and snake_case)",
                        args[i].name
                    ),
                ));
            }
            if !value.is_null() {
                values[i] = Some(value);
            }
        }
        let mut path = self.path.to_owned();
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        let mut has_query = false;
        let mut body = Map::new();
        let mut headers = Vec::new();
        for (a, value) in args.iter().zip(values) {
            let default = match (a.default, a.caller_organization) {
                (Some(n), _) => Some(Value::from(n)),
                (None, true) => Some(Value::from(default_org)),
                (None, false) => None,
            };
            let value = match (value, &default) {
                (Some(v), _) => v,
                (None, Some(d)) => d,
                (None, None) if a.required => {
                    return Err(ArgError::new(
                        ErrorCode::MissingField,
                        a.name,
                        format!("missing required argument '{}'", a.name),
                    ));
                }
                (None, None) => continue,
            };
            check_type(a, value)?;
            match a.loc {
                Loc::Path => {
                    let text = value.as_str().unwrap_or_default();
                    if text.is_empty()
                        || text == "."
                        || text == ".."
                        || !text
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b))
                    {
                        return Err(ArgError::new(
                            ErrorCode::InvalidField,
                            a.name,
                            format!("'{}' must be a plain id", a.name),
                        ));
                    }
                    path = path.replace(&format!("{{{}}}", a.name), text);
                }
                Loc::Query => {
                    let text = match value {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    query.append_pair(&snake(a.name), &text);
                    has_query = true;
                }
                Loc::Body => {
                    body.insert(snake(a.name), snake_keys(value));
                }
                Loc::Header(name) => {
                    headers.push((name, value.as_str().unwrap_or_default().to_owned()));
                }
            }
        }
        if has_query {
            path.push('?');
            path.push_str(&query.finish());
        }
        let body = self.verb.has_body().then_some(Value::Object(body));
        Ok((path, body, headers))
    }
}

/// The members of an invoice or bill line.
const ITEM_FIELDS: [&str; 7] = [
    "description",
    "quantity",
    "unitPrice",
    "accountId",
    "categoryId",
    "taxIds",
    "itemId",
];

/// Converts object keys to snake_case, recursively (journal lines are objects).
fn snake_keys(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (snake(k), snake_keys(v))).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(snake_keys).collect()),
        other => other.clone(),
    }
}

fn check_type(a: &Arg, value: &Value) -> Result<(), ArgError> {
    let ok = match a.ty {
        Ty::Str | Ty::Date | Ty::DateOrTime => value.is_string(),
        Ty::Int => value.is_i64() || value.is_u64(),
        Ty::Bool => value.is_boolean(),
        Ty::Amount => value.is_string() || value.is_number(),
        Ty::Enum(options) => value.as_str().is_some_and(|v| options.contains(&v)),
        Ty::StrList => value
            .as_array()
            .is_some_and(|items| items.iter().all(Value::is_string)),
        Ty::Items => value.as_array().is_some_and(|items| {
            !items.is_empty()
                && items.iter().all(|line| {
                    line.as_object().is_some_and(|o| {
                        o.keys()
                            .all(|k| ITEM_FIELDS.iter().any(|n| *n == k || snake(n) == *k))
                    })
                })
        }),
        Ty::Object => value.is_object(),
        Ty::Entries => value.as_array().is_some_and(|items| {
            items.iter().all(|line| {
                line.as_object().is_some_and(|o| {
                    o.keys().all(|k| {
                        ["accountId", "entryType", "amount", "description"]
                            .iter()
                            .any(|n| *n == k || snake(n) == *k)
                    })
                })
            })
        }),
    };
    if ok {
        Ok(())
    } else {
        let expected = match a.ty {
            Ty::Str => "a string".to_owned(),
            Ty::Date => "a date string (YYYY-MM-DD)".to_owned(),
            Ty::DateOrTime => "a date or date-time string".to_owned(),
            Ty::Int => "an integer".to_owned(),
            Ty::Bool => "a boolean".to_owned(),
            Ty::Amount => "a decimal string or number".to_owned(),
            Ty::Enum(options) => format!("one of {}", options.join(", ")),
            Ty::StrList => "an array of strings".to_owned(),
            Ty::Entries => {
                "an array of {accountId, entryType, amount, description?} objects".to_owned()
            }
            Ty::Items => "a non-empty array of {description, quantity, unitPrice, accountId?, taxIds?, categoryId?, itemId?} objects".to_owned(),
            Ty::Object => "a JSON object".to_owned(),
        };
        Err(ArgError::new(
            ErrorCode::InvalidField,
            a.name,
            format!("argument '{}' must be {expected}", a.name),
        ))
    }
}

fn schema(a: &Arg) -> Value {
    let mut s = match a.ty {
        Ty::Str => json!({"type": "string"}),
        Ty::Int => json!({"type": "integer", "minimum": 0}),
        Ty::Bool => json!({"type": "boolean"}),
        // One JSON type keeps the schema portable (no `type` unions); numbers are
        // accepted all the same (`check_type`).
        Ty::Amount => json!({"type": "string"}),
        Ty::Date => json!({"type": "string", "format": "date"}),
        Ty::DateOrTime => json!({"type": "string"}),
        Ty::Enum(options) => json!({"type": "string", "enum": options}),
        Ty::StrList => json!({"type": "array", "items": {"type": "string"}}),
        Ty::Object => json!({"type": "object"}),
        Ty::Items => json!({
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "description": {"type": "string"},
                    "quantity": {"type": "string", "description": "Positive decimal, up to 4 decimals, e.g. \"2\" (a JSON number is accepted too)."},
                    "unitPrice": {"type": "string", "description": "Price per unit, a decimal string, e.g. \"19.99\" (a JSON number is accepted too)."},
                    "accountId": {"type": "string", "description": "Revenue (invoice) or expense/asset (bill) account."},
                    "taxIds": {"type": "array", "items": {"type": "string"}, "description": "Taxes in order (tax_...)."},
                    "categoryId": {"type": "string", "description": "A category (cat_...) the line is booked under."},
                    "itemId": {"type": "string", "description": "Your catalog reference."},
                },
                "required": ["description", "quantity", "unitPrice"],
                "additionalProperties": false,
            },
        }),
        Ty::Entries => json!({
            "type": "array",
            "minItems": 2,
            "items": {
                "type": "object",
                "properties": {
                    "accountId": {"type": "string", "description": "Account id (acc_...)."},
                    "entryType": {"type": "string", "enum": ["debit", "credit"]},
                    "amount": {"type": "string", "description": "Positive decimal string, e.g. \"100.00\" (a JSON number is accepted too)."},
                    "description": {"type": "string"},
                },
                "required": ["accountId", "entryType", "amount"],
                "additionalProperties": false,
            },
        }),
    };
    s["description"] = match a.ty {
        Ty::Amount => Value::from(format!("{} A JSON number is accepted too.", a.doc)),
        _ => Value::from(a.doc),
    };
    if let Some(d) = a.default {
        s["default"] = Value::from(d);
    }
    if a.name == "limit" {
        s["maximum"] = Value::from(100);
        s["minimum"] = Value::from(1);
    }
    s
}
