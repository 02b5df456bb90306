//! Members that take one of a closed set of names (types, statuses, modes, currency
//! codes) and typed ids: what the domain's tables list, in the cases it reads.

use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, Type};

/// A string that is one of `values` (the server also takes them in any case).
pub(in crate::openapi) fn names<'a>(
    values: impl IntoIterator<Item = &'a str>,
    description: &str,
) -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(values))
        .description(Some(description))
        .into()
}

/// A nullable enum of names (`null` means the default).
pub(super) fn optional_names<'a>(
    values: impl IntoIterator<Item = &'a str>,
    description: &str,
) -> Schema {
    OneOfBuilder::new()
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .item(names(values, description))
        .into()
}

/// The type of an account (`asset`, `liability`, ...), a request field.
pub(crate) fn account_type() -> Schema {
    use ledger_domain::accounts::AccountType;
    names(
        AccountType::ALL.iter().map(|t| t.as_str()),
        "The type of the account.",
    )
}

/// The type of a category, a request field.
pub(crate) fn category_type() -> Schema {
    use ledger_domain::categories::CategoryType;
    names(
        CategoryType::ALL.iter().map(|t| t.as_str()),
        "The type of the category.",
    )
}

/// The type of a contact, a request field.
pub(crate) fn contact_type() -> Schema {
    use ledger_domain::contacts::ContactType;
    names(
        [
            ContactType::Customer,
            ContactType::Vendor,
            ContactType::Employee,
            ContactType::Other,
        ]
        .iter()
        .map(|t| t.as_str()),
        "The type of the contact.",
    )
}

/// The type of a tax, a request field.
pub(crate) fn tax_type() -> Schema {
    use ledger_domain::tax::TaxType;
    names(
        TaxType::ALL.iter().map(|t| t.as_str()),
        "The type of the tax.",
    )
}

/// The side of a journal line, a request field.
pub(crate) fn entry_type() -> Schema {
    names(["debit", "credit"], "The side of the line.")
}

/// An account's status in a change, or `null` (unchanged).
pub(crate) fn optional_account_status() -> Schema {
    optional_names(
        ["active", "inactive", "suspended"],
        "The status of the account.",
    )
}

/// A new key's mode, or `null` (the calling key's).
pub(crate) fn optional_key_mode() -> Schema {
    optional_names(["live", "test"], "The mode of the new key.")
}

/// An ISO 4217 code the server knows (it also takes `cur_USD` and any case).
pub(crate) fn currency_code() -> Schema {
    let codes: Vec<String> = ledger_domain::money::Currency::all()
        .iter()
        .map(|c| c.code())
        .collect();
    names(
        codes.iter().map(String::as_str),
        "An ISO 4217 currency code.",
    )
}

/// [`currency_code`] or `null` (not given).
pub(crate) fn optional_currency_code() -> Schema {
    let codes: Vec<String> = ledger_domain::money::Currency::all()
        .iter()
        .map(|c| c.code())
        .collect();
    OneOfBuilder::new()
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .item(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some(codes)),
        )
        .description(Some("An ISO 4217 currency code."))
        .into()
}

/// An id of the kind `prefix` (`cat_` and a ULID).
pub(in crate::openapi) fn typed_id(prefix: &str) -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(format!(
            "^{}_[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{{25}}$",
            any_case(prefix)
        )))
        .into()
}

/// `cat` as `[cC][aA][tT]`: an id's prefix is read in any case.
fn any_case(prefix: &str) -> String {
    prefix
        .chars()
        .map(|c| format!("[{}{}]", c.to_ascii_lowercase(), c.to_ascii_uppercase()))
        .collect()
}
