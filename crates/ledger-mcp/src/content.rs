//! Prompts and resources. Both read the caller's real books through the same in-process
//! REST path as tools (so the key's permissions apply), never around it.

use jsonrpsee::types::ErrorObjectOwned;
use serde_json::{Value, json};

use crate::rpc::{Caller, invalid_params, rest_call};
use crate::tools::Verb;
use ledger_rest::client::{RestClient, RestResponse};

/// A resource: URI, name, and the REST path (below the caller's organization) it reads.
struct Resource {
    uri: &'static str,
    name: &'static str,
    title: &'static str,
    description: &'static str,
    path: &'static str,
}

static RESOURCES: &[Resource] = &[
    Resource {
        uri: "ledger://chart-of-accounts",
        name: "chart-of-accounts",
        title: "Chart of accounts",
        description: "Every account of the organization (up to 100, sorted by code) with id, code, name, type and status.",
        path: "/accounts?limit=100",
    },
    Resource {
        uri: "ledger://reports/trial-balance",
        name: "trial-balance",
        title: "Latest trial balance",
        description: "The trial balance as of now: debit, credit and net per account from posted entries, with totals.",
        path: "/reports/trial-balance",
    },
    Resource {
        uri: "ledger://recent-activity",
        name: "recent-activity",
        title: "Recent activity",
        description: "The 20 latest transactions by date (posted, pending and reversed), newest first, each with its entries.",
        path: "/transactions?limit=20",
    },
    Resource {
        uri: "ledger://organization",
        name: "organization",
        title: "Organization",
        description: "The organization the key acts in: name, base currency, parent and credit figures.",
        path: "",
    },
];

pub fn resource_list() -> Vec<Value> {
    RESOURCES
        .iter()
        .map(|r| {
            json!({"uri": r.uri, "name": r.name, "title": r.title,
                "description": r.description, "mimeType": "application/json"})
        })
        .collect()
}

fn rest_failure(res: &RestResponse) -> ErrorObjectOwned {
    let envelope = serde_json::from_slice::<Value>(&res.body).unwrap_or(Value::Null);
    let message = envelope["error"]["message"]
        .as_str()
        .unwrap_or("the request failed")
        .to_owned();
    ErrorObjectOwned::owned(
        -32603,
        format!("reading failed ({}): {message}", res.status),
        Some(envelope),
    )
}

async fn get(
    rest: &RestClient,
    caller: &Caller,
    path: &str,
) -> Result<RestResponse, ErrorObjectOwned> {
    let path = format!("/organizations/{}{path}", caller.organization_id);
    let res = rest_call(rest, caller, Verb::Get, path, None, false, Vec::new()).await;
    if res.status >= 400 {
        return Err(rest_failure(&res));
    }
    Ok(res)
}

pub async fn read_resource(
    rest: &RestClient,
    caller: &Caller,
    params: &Value,
) -> Result<Value, ErrorObjectOwned> {
    let Some(uri) = params["uri"].as_str() else {
        return Err(invalid_params("params.uri is required"));
    };
    let Some(resource) = RESOURCES.iter().find(|r| r.uri == uri) else {
        return Err(ErrorObjectOwned::owned(
            -32002,
            format!("resource not found: {uri}; call resources/list"),
            Some(json!({"uri": uri})),
        ));
    };
    let res = get(rest, caller, resource.path).await?;
    Ok(json!({"contents": [{
        "uri": uri,
        "mimeType": "application/json",
        "text": String::from_utf8_lossy(&res.body),
    }]}))
}

struct Prompt {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    arguments: &'static [(&'static str, &'static str, bool)],
}

static PROMPTS: &[Prompt] = &[
    Prompt {
        name: "close_the_month",
        title: "Close the month",
        description: "Walk through a month-end close: pending transactions, trial balance and income statement of the month.",
        arguments: &[("month", "The month to close, YYYY-MM.", true)],
    },
    Prompt {
        name: "post_balanced_transaction",
        title: "Post a balanced transaction",
        description: "How to record any transaction in double entry: pick accounts from the chart, make debits equal credits, post it.",
        arguments: &[(
            "description",
            "What happened, e.g. \"Paid March rent\" (optional).",
            false,
        )],
    },
    Prompt {
        name: "record_customer_payment",
        title: "Record a customer payment",
        description: "Record money received from a customer: debit the bank account, credit Accounts Receivable, name the contact.",
        arguments: &[
            (
                "customer",
                "Customer name, e-mail or reference to search for.",
                true,
            ),
            ("amount", "Amount received, e.g. 250.00.", true),
            ("date", "Date received, YYYY-MM-DD (default today).", false),
        ],
    },
];

pub fn prompt_list() -> Vec<Value> {
    PROMPTS
        .iter()
        .map(|p| {
            let args: Vec<Value> = p
                .arguments
                .iter()
                .map(|(name, description, required)| {
                    json!({"name": name, "description": description, "required": required})
                })
                .collect();
            json!({"name": p.name, "title": p.title, "description": p.description, "arguments": args})
        })
        .collect()
}

fn argument<'a>(params: &'a Value, name: &str) -> Option<&'a str> {
    params["arguments"][name]
        .as_str()
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

fn body_json(res: &RestResponse) -> Value {
    serde_json::from_slice(&res.body).unwrap_or(Value::Null)
}

/// Last day of `YYYY-MM`, or `None` when it is not a month.
fn month_bounds(month: &str) -> Option<(String, String)> {
    let (y, m) = month.split_once('-')?;
    let (year, mon): (i32, u8) = (y.parse().ok()?, m.parse().ok()?);
    if y.len() != 4 || m.len() != 2 {
        return None;
    }
    let month = time::Month::try_from(mon).ok()?;
    let last = time::util::days_in_month(month, year);
    Some((
        format!("{year:04}-{mon:02}-01"),
        format!("{year:04}-{mon:02}-{last:02}"),
    ))
}

fn user_message(text: String) -> Value {
    json!({"role": "user", "content": {"type": "text", "text": text}})
}

pub async fn get_prompt(
    rest: &RestClient,
    caller: &Caller,
    params: &Value,
) -> Result<Value, ErrorObjectOwned> {
    let Some(name) = params["name"].as_str() else {
        return Err(invalid_params("params.name (the prompt name) is required"));
    };
    let Some(prompt) = PROMPTS.iter().find(|p| p.name == name) else {
        return Err(invalid_params(format!(
            "unknown prompt '{name}'; call prompts/list"
        )));
    };
    for (arg, _, required) in prompt.arguments {
        if *required && argument(params, arg).is_none() {
            return Err(invalid_params(format!(
                "prompt argument '{arg}' is required"
            )));
        }
    }
    let text = match prompt.name {
        "close_the_month" => {
            let month = argument(params, "month").unwrap_or_default();
            let (first, last) = month_bounds(month)
                .ok_or_else(|| invalid_params("month must be YYYY-MM, e.g. 2026-03"))?;
            let pending = get(
                rest,
                caller,
                &format!(
                    "/transactions?status=pending&start_date={first}&end_date={last}&limit=100"
                ),
            )
            .await?;
            let pending = body_json(&pending);
            let count = pending["data"].as_array().map_or(0, Vec::len);
            let tb = body_json(
                &get(
                    rest,
                    caller,
                    &format!("/reports/trial-balance?as_of={last}"),
                )
                .await?,
            );
            format!(
                "Close the books for {month} ({first} to {last}).\n\n\
                 1. Pending transactions dated in the month: {count}. Review each with \
                 get_transaction; post the correct ones with post_transaction and delete \
                 mistaken ones with delete_transaction.\n\
                 2. Record missing month-end entries (accruals, depreciation, bank fees) with \
                 create_transaction dated {last}, autoPost true.\n\
                 3. Check the trial balance as of {last} with get_trial_balance: total debits \
                 must equal total credits. Right now they are {} and {}.\n\
                 4. Report the result with get_income_statement (startDate {first}, endDate \
                 {last}) and get_balance_sheet (asOf {last}).\n\n\
                 Current trial balance as of {last}:\n{}",
                tb["total_debits"].as_str().unwrap_or("?"),
                tb["total_credits"].as_str().unwrap_or("?"),
                tb,
            )
        }
        "post_balanced_transaction" => {
            let what = argument(params, "description").unwrap_or("the transaction");
            let accounts = body_json(&get(rest, caller, "/accounts?limit=100").await?);
            let chart: Vec<String> = accounts["data"]
                .as_array()
                .map(|all| {
                    all.iter()
                        .filter(|a| a["status"] == "active")
                        .map(|a| {
                            format!(
                                "- {} {} ({}, {}): {}",
                                a["code"].as_str().unwrap_or("?"),
                                a["name"].as_str().unwrap_or("?"),
                                a["type"].as_str().unwrap_or("?"),
                                a["currency"].as_str().unwrap_or("?"),
                                a["id"].as_str().unwrap_or("?"),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            format!(
                "Record {what} in double entry.\n\n\
                 1. Decide which accounts change. Assets and expenses grow with a debit; \
                 liabilities, equity and income grow with a credit.\n\
                 2. Call create_transaction with a description, the date (YYYY-MM-DD), \
                 autoPost true (or false to keep it pending for review), and at least two \
                 entries, each {{accountId, entryType: \"debit\" or \"credit\", amount}}. \
                 Amounts are decimal strings in the account's currency (\"125.00\", never a \
                 float). The debits must add up to exactly the credits, or the transaction \
                 is refused (unbalanced_transaction) and nothing is written.\n\
                 3. If a call times out or fails without an answer, look for the \
                 transaction with list_transactions before you call again, so that it is \
                 not recorded twice.\n\
                 4. Check the result with get_transaction, and the effect with \
                 get_account_balance. A posted transaction is corrected by \
                 reverse_transaction, never edited.\n\n\
                 Active accounts (code, name, type, currency: id):\n{}",
                chart.join("\n"),
            )
        }
        _ => {
            let customer = argument(params, "customer").unwrap_or_default();
            let amount = argument(params, "amount").unwrap_or_default();
            let date = argument(params, "date").unwrap_or("today");
            let query: String = url::form_urlencoded::Serializer::new(String::new())
                .append_pair("search", customer)
                .append_pair("contact_type", "customer")
                .finish();
            let contacts = body_json(&get(rest, caller, &format!("/contacts?{query}")).await?);
            let accounts = body_json(&get(rest, caller, "/accounts?limit=100").await?);
            let by_code = |code: &str| {
                accounts["data"]
                    .as_array()
                    .and_then(|a| a.iter().find(|acc| acc["code"] == code))
                    .and_then(|acc| acc["id"].as_str())
                    .unwrap_or("(not found: pick it with list_accounts)")
                    .to_owned()
            };
            format!(
                "Record a payment of {amount} received from customer \"{customer}\" on {date}.\n\n\
                 Call create_transaction with description \"Payment from {customer}\", date \
                 {date}, autoPost true, and two entries of amount \"{amount}\": debit the bank \
                 account (Cash is {}) and credit Accounts Receivable ({}). Set contactId to \
                 the customer's id; if none of the matches below is right, create the \
                 customer first with create_contact.\n\n\
                 Customers matching \"{customer}\":\n{}",
                by_code("1000"),
                by_code("1100"),
                contacts,
            )
        }
    };
    Ok(json!({
        "description": prompt.description,
        "messages": [user_message(text)],
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn months_have_their_last_day() {
        let bounds = |m: &str| month_bounds(m);
        assert_eq!(
            bounds("2026-02"),
            Some(("2026-02-01".into(), "2026-02-28".into()))
        );
        assert_eq!(
            bounds("2028-02"),
            Some(("2028-02-01".into(), "2028-02-29".into()))
        );
        assert_eq!(bounds("2026-12").map(|b| b.1), Some("2026-12-31".into()));
        for bad in ["2026-13", "2026-1", "26-01", "January", "2026-00", ""] {
            assert_eq!(bounds(bad), None, "{bad}");
        }
    }
}
