//! The schemas of request members that the handlers' bodies name with `schema_with` (a
//! function) or `value_type` (a type): each says what the domain's check of that member
//! accepts, so that a value the document allows is one the server takes.

mod arrays;
mod dates;
mod decimals;
mod names;
mod recurring;
mod statements;
mod text;
mod urls;

pub(crate) use arrays::{batch_transactions, event_types, permissions, tax_ids};
pub(crate) use dates::{FlexibleDate, date_only, optional_date_only};
pub(crate) use decimals::{
    Decimal, NonNegativeAmount, PositiveAmount, Quantity, RateValue, TaxRate,
};
pub(crate) use names::{
    account_type, category_type, contact_type, currency_code, entry_type, optional_account_status,
    optional_currency_code, optional_key_mode, tax_type,
};
pub(in crate::openapi) use names::{names, typed_id};
pub(crate) use recurring::{RecurringScheduleCreateRequest, RecurringScheduleUpdateRequest};
pub(crate) use statements::{
    StatementColumn, decimal_separator, statement_date_format, statement_format,
};
pub(crate) use text::{
    name, optional_country, optional_email, optional_name, optional_object, optional_text_255,
    optional_text_5000, text, text_1000,
};
pub(crate) use urls::{optional_return_url, optional_webhook_url, optional_website, webhook_url};
