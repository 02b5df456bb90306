//! The checks after a chaos (or soak) run, through the API and the tables.

use std::collections::{HashMap, HashSet};

use anyhow::{Context, bail};
use ledger_store::Db;
use ledger_store::bench::audit_journal;
use serde_json::{Value, json};

use super::load::Outcome;
use crate::bench::load::Target;

/// How many acknowledged writes are sent once more to check that the replay answers the
/// same transaction.
const REPLAYS: usize = 25;

/// Checks the books after the run and answers the report: `counts` and `failures`
/// (empty when every check passed).
pub(crate) async fn check(
    client: &reqwest::Client,
    target: &Target,
    database_url: &str,
    outcomes: &[Outcome],
) -> anyhow::Result<Value> {
    let mut failures: Vec<String> = Vec::new();
    let mut fail = |text: String| {
        if failures.len() < 50 {
            failures.push(text);
        }
    };

    // The tables.
    let db = Db::connect(database_url, 2)
        .await
        .context("opening the database for the checks")?;
    let audit = audit_journal(&db, &target.org)
        .await
        .context("reading the journal")?;
    let differences = db
        .verify_balances()
        .await
        .context("verifying the balances")?;
    for d in differences
        .iter()
        .filter(|d| d.organization_id == target.org)
    {
        fail(format!(
            "maintained totals differ from the journal: account {} day {:?}: journal {:?} ({} lines), stored {:?} ({} lines)",
            d.account_id, d.day, d.journal, d.journal_entries, d.stored, d.stored_entries
        ));
    }
    let mut by_reference: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut half_applied = 0u64;
    for t in &audit.transactions {
        let Some(reference) = t.reference.as_deref() else {
            continue;
        };
        by_reference.entry(reference).or_default().push(&t.id);
        if t.status != "posted"
            || t.deleted
            || t.entries < 2
            || t.debits != t.credits
            || t.debits != t.amount
        {
            half_applied += 1;
            fail(format!(
                "transaction {} ({reference}) is {} with {} lines, debits {} credits {} amount {}{}",
                t.id,
                t.status,
                t.entries,
                t.debits,
                t.credits,
                t.amount,
                if t.deleted { ", deleted" } else { "" }
            ));
        }
    }
    if audit.orphan_entries > 0 {
        half_applied += 1;
        fail(format!(
            "{} ledger lines without their transaction",
            audit.orphan_entries
        ));
    }
    let unfinished: i64 = audit
        .jobs_by_status
        .iter()
        .filter(|(status, _)| status != "completed" && status != "failed")
        .map(|(_, n)| n)
        .sum();
    if unfinished > 0 {
        fail(format!(
            "jobs left unfinished after the run: {:?}",
            audit.jobs_by_status
        ));
    }

    // Every write against what exists.
    let (mut lost, mut duplicated, mut acknowledged, mut refused, mut retried) = (0, 0, 0, 0, 0);
    let (mut attempts, mut unacknowledged_applied, mut expected_cash) = (0u64, 0, 0i64);
    let mut written_keys = HashSet::new();
    for outcome in outcomes {
        let key = outcome.write.key.as_str();
        written_keys.insert(key);
        attempts += u64::from(outcome.attempts);
        if outcome.attempts > 1 {
            retried += 1;
        }
        let found = by_reference.get(key).map_or(&[][..], Vec::as_slice);
        if found.len() > 1 {
            duplicated += 1;
            fail(format!("{key} exists {} times: {found:?}", found.len()));
        }
        if found.len() == 1 {
            expected_cash += outcome.write.cash_delta;
        }
        if let Some(refusal) = &outcome.refused {
            refused += 1;
            fail(format!("{key} was refused: {refusal}"));
        }
        match &outcome.acknowledged {
            Some(id) => {
                acknowledged += 1;
                if found.is_empty() {
                    lost += 1;
                    fail(format!("{key} was acknowledged as {id} but does not exist"));
                } else if !found.contains(&id.as_str()) {
                    lost += 1;
                    fail(format!(
                        "{key} was acknowledged as {id} but exists as {found:?}"
                    ));
                }
            }
            None if !found.is_empty() => unacknowledged_applied += 1,
            None => {}
        }
    }
    for (reference, ids) in &by_reference {
        if reference.starts_with("chaos-") && !written_keys.contains(reference) {
            fail(format!("{reference} exists ({ids:?}) but was never sent"));
        }
    }

    // The API: the same transactions, the balance of Cash, the trial balance.
    let listed = list_transactions(client, target).await?;
    let stored: HashSet<&str> = audit
        .transactions
        .iter()
        .filter(|t| !t.deleted)
        .map(|t| t.id.as_str())
        .collect();
    let listed_ids: HashSet<&str> = listed.iter().map(String::as_str).collect();
    if listed_ids != stored || listed.len() != stored.len() {
        fail(format!(
            "the API lists {} transactions ({} distinct), the tables hold {}",
            listed.len(),
            listed_ids.len(),
            stored.len()
        ));
    }
    let balance = get(client, target, &format!("accounts/{}/balance", target.cash)).await?;
    let cash = units(&balance["balance"]["net"])
        .with_context(|| format!("the balance's net in {balance}"))?;
    if cash != expected_cash {
        fail(format!(
            "Cash is {} by the API, the writes that exist add up to {expected_cash} (units of 1/10 000)",
            cash
        ));
    }
    let trial = get(client, target, "reports/trial-balance").await?;
    let (debits, credits) = (
        units(&trial["total_debits"]).context("total_debits")?,
        units(&trial["total_credits"]).context("total_credits")?,
    );
    if debits != credits {
        fail(format!(
            "the trial balance does not balance: debits {debits}, credits {credits}"
        ));
    }

    // Replays answer the first outcome.
    let mut replays = 0;
    for outcome in outcomes
        .iter()
        .filter(|o| o.acknowledged.is_some())
        .take(REPLAYS)
    {
        replays += 1;
        let response = outcome
            .write
            .send(client, target)
            .await
            .context("replaying a write")?;
        let replayed = response
            .headers()
            .get("idempotent-replayed")
            .is_some_and(|v| v == "true");
        let status = response.status();
        let body: Value = response.json().await.unwrap_or(Value::Null);
        if !status.is_success()
            || !replayed
            || body["id"].as_str() != outcome.acknowledged.as_deref()
        {
            fail(format!(
                "replaying {} answered {status} (replayed: {replayed}) {}, first answer {:?}",
                outcome.write.key, body["id"], outcome.acknowledged
            ));
        }
    }

    let sent = outcomes.len();
    Ok(json!({
        "counts": {
            "sent": sent,
            "acknowledged": acknowledged,
            "unacknowledged": sent - acknowledged,
            "unacknowledged_applied": unacknowledged_applied,
            "retried": retried,
            "attempts": attempts,
            "refused": refused,
            "lost": lost,
            "duplicated": duplicated,
            "half_applied": half_applied,
            "transactions_stored": audit.transactions.len(),
            "replays_checked": replays,
        },
        "trial_balance": { "debits": trial["total_debits"], "credits": trial["total_credits"] },
        "jobs_by_status": audit.jobs_by_status.iter().map(|(s, n)| json!([s, n])).collect::<Vec<_>>(),
        "failures": failures,
    }))
}

/// Every transaction id of the organization, page by page.
async fn list_transactions(
    client: &reqwest::Client,
    target: &Target,
) -> anyhow::Result<Vec<String>> {
    let mut ids = Vec::new();
    for page in 0..10_000 {
        let body = get(
            client,
            target,
            &format!("transactions?limit=100&offset={}", page * 100),
        )
        .await?;
        let rows = body["data"]
            .as_array()
            .or_else(|| body.as_array())
            .context("a transaction list without data")?;
        ids.extend(
            rows.iter()
                .filter_map(|t| t["id"].as_str().map(str::to_owned)),
        );
        if rows.len() < 100 {
            return Ok(ids);
        }
    }
    bail!("more than a million transactions listed")
}

async fn get(client: &reqwest::Client, target: &Target, path: &str) -> anyhow::Result<Value> {
    let response = target
        .get(client, path)
        .send()
        .await
        .with_context(|| format!("GET {path}"))?;
    let status = response.status();
    let body: Value = response
        .json()
        .await
        .with_context(|| format!("GET {path}"))?;
    if !status.is_success() {
        bail!("GET {path} answered {status}: {body}");
    }
    Ok(body)
}

/// A decimal amount (JSON string or number) in units of 1/10 000.
pub(crate) fn units(value: &Value) -> Option<i64> {
    let text = match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => return None,
    };
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.as_str()),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    if fraction.len() > 4
        || whole.is_empty()
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || !fraction.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let whole: i64 = whole.parse().ok()?;
    let fraction: i64 = format!("{fraction:0<4}").parse().ok()?;
    let value = whole.checked_mul(10_000)?.checked_add(fraction)?;
    Some(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::units;
    use serde_json::json;

    #[test]
    fn amounts_are_read_exactly() {
        assert_eq!(units(&json!("12.34")), Some(123_400));
        assert_eq!(units(&json!("-0.5")), Some(-5_000));
        assert_eq!(units(&json!("7")), Some(70_000));
        assert_eq!(units(&json!("1.23456")), None);
        assert_eq!(units(&json!("abc")), None);
        assert_eq!(units(&json!(null)), None);
    }
}
