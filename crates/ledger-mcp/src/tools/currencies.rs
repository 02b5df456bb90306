//! Tools of currencies and exchange rates (DECISIONS 7's currency/exchange group, 8):
//! the global ISO 4217 list, the organization's rates, and conversions. A conversion is
//! a POST that only reads: read-only, idempotent and free.

use super::rows::*;
use super::{Arg, Tool, Ty, Verb};

const RATE_ID: Arg = path_id("exchangeRateId", "Exchange rate id (fx_...).");

pub(super) const TOOLS: &[Tool] = &[
    tool(
        "list_currencies",
        "List currencies",
        "List the ISO 4217 currencies the service knows, by code, each with its id (cur_USD), name, symbol and decimals (minor unit). Use it to find a currency code or how many decimals amounts take.",
        Verb::Get,
        "/currencies",
        &[limit(100), OFFSET],
    ),
    tool(
        "get_currency",
        "Get currency",
        "Get one currency by ISO code (USD) or id (cur_USD): name, symbol and decimals (0 for JPY, 2 for USD, 3 for KWD). Use it to check how many decimals an amount in that currency may have.",
        Verb::Get,
        "/currencies/{currencyCode}",
        &[path_id(
            "currencyCode",
            "ISO 4217 code (USD) or currency id (cur_USD).",
        )],
    ),
    tool(
        "list_exchange_rates",
        "List exchange rates",
        "List the organization's exchange rates, newest effective date first, optionally of one source or target currency. Returns a page of rates (from, to, exact rate, effective date) with has_more.",
        Verb::Get,
        "/organizations/{organizationId}/exchange-rates",
        &[
            query(
                "fromCurrency",
                Ty::Str,
                "Only rates from this currency (code or cur_ id).",
            ),
            query(
                "toCurrency",
                Ty::Str,
                "Only rates to this currency (code or cur_ id).",
            ),
            limit(20),
            OFFSET,
        ],
    ),
    tool(
        "get_exchange_rate",
        "Get exchange rate",
        "Get one exchange rate of the organization by id: the currency pair, the exact rate (units of to per unit of from) and the date from which it applies. Use it before updating or deleting a rate.",
        Verb::Get,
        "/organizations/{organizationId}/exchange-rates/{exchangeRateId}",
        &[RATE_ID],
    ),
    tool(
        "create_exchange_rate",
        "Create exchange rate",
        "Record an exchange rate: how many units of toCurrencyId one unit of fromCurrencyId buys from effectiveDate on. One rate per pair and date; the reverse pair is derived when missing. Returns the rate.",
        Verb::Post,
        "/organizations/{organizationId}/exchange-rates",
        &[
            req_body(
                "fromCurrencyId",
                Ty::Str,
                "Currency converted from: id (cur_EUR) or ISO code (EUR).",
            ),
            req_body(
                "toCurrencyId",
                Ty::Str,
                "Currency converted to: id (cur_USD) or ISO code (USD).",
            ),
            req_body(
                "rate",
                Ty::Amount,
                "Positive decimal, at most 12 decimals, e.g. \"1.0825\".",
            ),
            req_body(
                "effectiveDate",
                Ty::Date,
                "First day the rate applies (YYYY-MM-DD).",
            ),
        ],
    ),
    tool(
        "update_exchange_rate",
        "Update exchange rate",
        "Correct an exchange rate's value or move its effective date; the currency pair cannot change (create another rate instead). Omitted fields stay unchanged. Returns the updated rate.",
        Verb::Put,
        "/organizations/{organizationId}/exchange-rates/{exchangeRateId}",
        &[
            RATE_ID,
            opt_body(
                "rate",
                Ty::Amount,
                "New rate: positive decimal, at most 12 decimals.",
            ),
            opt_body(
                "effectiveDate",
                Ty::Date,
                "New effective date (YYYY-MM-DD).",
            ),
        ],
    ),
    tool(
        "delete_exchange_rate",
        "Delete exchange rate",
        "Delete an exchange rate (soft delete, recoverable for seven days). Conversions then use the latest remaining rate of the pair on or before their date. Needs admin. Returns the deletion.",
        Verb::Delete,
        "/organizations/{organizationId}/exchange-rates/{exchangeRateId}",
        &[RATE_ID],
    ),
    read_only(tool(
        "convert_currency",
        "Convert currency",
        "Convert an amount between two currencies with the organization's rates on a date (default today): the latest rate on or before it, else the inverse of the reverse pair. Rounded to the target's minor unit; free.",
        Verb::Post,
        "/currencies/convert",
        &[
            req_body(
                "fromCurrency",
                Ty::Str,
                "ISO code converted from, e.g. USD.",
            ),
            req_body("toCurrency", Ty::Str, "ISO code converted to, e.g. JPY."),
            req_body(
                "amount",
                Ty::Amount,
                "Amount, at most the source currency's decimals, e.g. \"100.00\".",
            ),
            opt_body(
                "date",
                Ty::Date,
                "Date whose rate applies (YYYY-MM-DD); default today (UTC).",
            ),
        ],
    )),
];
