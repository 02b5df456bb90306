//! Maintained balances under random interleavings: many clients post, create pending
//! transactions, edit, post, delete and reverse them at once, on dates and times spread
//! over several days; afterwards every balance (now, as of a date, as of an instant
//! inside a day) and a period's income statement equal the sums of the journal as the
//! transaction list shows it, and the harness's `finish` checks every maintained total
//! against the journal (`Db::verify_balances`).

use std::collections::BTreeMap;

use ledger_tests::{Org, TestApp, both, entries};
use reqwest::Method;
use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// A seeded xorshift generator: a failure names its seed and replays.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Cents as a decimal string.
fn money(cents: i64) -> String {
    format!("{}.{:02}", cents / 100, cents % 100)
}

/// Decimal text ("12.34") as cents.
fn cents(text: &str) -> i64 {
    let (whole, frac) = text.split_once('.').unwrap_or((text, "0"));
    let sign = if whole.starts_with('-') { -1 } else { 1 };
    let whole: i64 = whole.trim_start_matches('-').parse().expect("whole");
    let frac: i64 = format!("{frac:0<2}")[..2].parse().expect("cents");
    sign * (whole * 100 + frac)
}

/// A random two-line body between two of `accounts`, dated on one of five days at a whole
/// minute (or as a bare date).
fn body(rng: &mut Rng, accounts: &[String], auto_post: bool, label: &str) -> Value {
    let debit = rng.below(accounts.len() as u64) as usize;
    let credit = (debit + 1 + rng.below(accounts.len() as u64 - 1) as usize) % accounts.len();
    let amount = money(1 + rng.below(100_000) as i64);
    let day = 1 + rng.below(5);
    let date = if rng.below(3) == 0 {
        format!("2026-03-0{day}")
    } else {
        format!(
            "2026-03-0{day}T{:02}:{:02}:00Z",
            rng.below(24),
            rng.below(60)
        )
    };
    json!({
        "description": label,
        "date": date,
        "auto_post": auto_post,
        "entries": entries(&accounts[debit], &accounts[credit], amount),
    })
}

/// One client's random walk over the transaction lifecycle, every write waited for.
async fn client(app: &TestApp, org: &Org, accounts: &[String], seed: u64) {
    let key = org.test_key.as_str();
    let base = org.path("transactions");
    let wait = [("Prefer", "wait=20")];
    let mut rng = Rng(seed);
    let mut pending: Vec<String> = Vec::new();
    let mut posted: Vec<String> = Vec::new();
    for step in 0..14 {
        let label = format!("seed {seed} step {step}");
        let choice = rng.below(10);
        let (method, path, payload) = match choice {
            // Post at once (the group commit).
            0..=3 => (
                Method::POST,
                base.clone(),
                Some(body(&mut rng, accounts, true, &label)),
            ),
            // A pending transaction, edited, posted or deleted later.
            4 | 5 => (
                Method::POST,
                base.clone(),
                Some(body(&mut rng, accounts, false, &label)),
            ),
            6 if !pending.is_empty() => {
                let id = pending.swap_remove(rng.below(pending.len() as u64) as usize);
                posted.push(id.clone());
                (Method::POST, format!("{base}/{id}/post"), None)
            }
            7 if !pending.is_empty() => {
                let id = pending.swap_remove(rng.below(pending.len() as u64) as usize);
                (Method::DELETE, format!("{base}/{id}"), None)
            }
            8 if !pending.is_empty() => {
                let id = pending[rng.below(pending.len() as u64) as usize].clone();
                let mut edit = body(&mut rng, accounts, false, &label);
                edit.as_object_mut().expect("object").remove("auto_post");
                (Method::PUT, format!("{base}/{id}"), Some(edit))
            }
            9 if !posted.is_empty() => {
                let id = posted.swap_remove(rng.below(posted.len() as u64) as usize);
                let reason = json!({"reason": label});
                (Method::POST, format!("{base}/{id}/reverse"), Some(reason))
            }
            _ => (
                Method::POST,
                base.clone(),
                Some(body(&mut rng, accounts, true, &label)),
            ),
        };
        let res = app
            .call(method.clone(), &path, Some(key), payload, &wait)
            .await;
        assert!(
            res.status.is_success(),
            "seed {seed} step {step}: {method} {path} -> {} {}",
            res.status,
            res.body
        );
        if method == Method::POST && path == base {
            let id = res.id();
            if res.body["status"] == "pending" {
                pending.push(id);
            } else {
                posted.push(id);
            }
        }
    }
}

/// Every transaction of the tenant, as the list shows it.
async fn journal(app: &TestApp, org: &Org) -> Vec<Value> {
    let mut all = Vec::new();
    loop {
        let path = format!(
            "/organizations/{}/transactions?limit=100&offset={}",
            org.id,
            all.len()
        );
        let res = app.read(&org.test_key, &path).await;
        let page = res["data"].as_array().expect("data").clone();
        if page.is_empty() {
            return all;
        }
        all.extend(page);
    }
}

/// Debit and credit cents per account of the counted lines dated before `until` (an RFC
/// 3339 instant; `None`: all).
fn sums(journal: &[Value], until: Option<&str>) -> BTreeMap<String, (i64, i64)> {
    let mut sums = BTreeMap::new();
    for t in journal {
        let counted = matches!(t["status"].as_str(), Some("posted" | "reversed"));
        let date = t["date"].as_str().expect("date");
        if !counted || until.is_some_and(|u| date >= u) {
            continue;
        }
        for e in t["entries"].as_array().expect("entries") {
            let sum: &mut (i64, i64) = sums
                .entry(e["account_id"].as_str().expect("account").to_owned())
                .or_default();
            let amount = cents(e["amount"].as_str().expect("amount"));
            if e["entry_type"] == "debit" {
                sum.0 += amount;
            } else {
                sum.1 += amount;
            }
        }
    }
    sums
}

async fn random_interleavings_keep_balances_exact(app: &TestApp) {
    let org = app.signup("Interleaved").await;
    let key = org.test_key.clone();
    let mut accounts = Vec::new();
    for code in ["1000", "1100", "4000", "5000"] {
        accounts.push(app.account_id(&org, &key, code).await);
    }
    let seeds: Vec<u64> = (1..=8).map(|c| 0x9E37_79B9_7F4A_7C15 ^ c).collect();
    futures::future::join_all(seeds.iter().map(|&s| client(app, &org, &accounts, s))).await;

    let journal = journal(app, &org).await;
    assert!(!journal.is_empty(), "seeds {seeds:?}: nothing was written");
    // Dates are stored and listed as RFC 3339 instants, so text order is time order.
    let bounds: [(Option<&str>, Option<&str>); 5] = [
        (None, None),
        (Some("2026-03-02"), Some("2026-03-03T00:00:00Z")),
        (Some("2026-03-04"), Some("2026-03-05T00:00:00Z")),
        (
            Some("2026-03-03T12:30:30Z"),
            Some("2026-03-03T12:30:30.000001Z"),
        ),
        (Some("2026-02-28"), Some("2026-03-01T00:00:00Z")),
    ];
    for (as_of, until) in bounds {
        let expected = sums(&journal, until);
        for account in &accounts {
            let query = as_of.map_or_else(String::new, |a| format!("?as_of={a}"));
            let path = org.path(&format!("accounts/{account}/balance{query}"));
            let res = app.read(&key, &path).await;
            let (debit, credit) = expected.get(account).copied().unwrap_or_default();
            assert_eq!(
                (
                    cents(res["balance"]["debit"].as_str().expect("debit")),
                    cents(res["balance"]["credit"].as_str().expect("credit")),
                ),
                (debit, credit),
                "seeds {seeds:?}: balance of {account} as of {as_of:?}"
            );
        }
    }
    // History pages count their window from the maintained line counts.
    let lines = |account: &str, from: Option<&str>, until: Option<&str>| {
        journal
            .iter()
            .filter(|t| matches!(t["status"].as_str(), Some("posted" | "reversed")))
            .filter(|t| {
                let date = t["date"].as_str().expect("date");
                from.is_none_or(|f| date >= f) && until.is_none_or(|u| date < u)
            })
            .flat_map(|t| t["entries"].as_array().expect("entries").iter())
            .filter(|e| e["account_id"] == account)
            .count()
    };
    for account in &accounts {
        for (query, from, until) in [
            ("?limit=5&offset=3".to_owned(), None, None),
            (
                "?limit=5&from_date=2026-03-02T06:15:00Z&to_date=2026-03-04T18:45:30Z".to_owned(),
                Some("2026-03-02T06:15:00Z"),
                Some("2026-03-04T18:45:30.000001Z"),
            ),
        ] {
            let path = org.path(&format!("accounts/{account}/transactions{query}"));
            let res = app.read(&key, &path).await;
            assert_eq!(
                res["total_count"],
                lines(account, from, until),
                "seeds {seeds:?}: history of {account} {query}"
            );
        }
    }
    // Every page of a history carries the running balance after each row, from the
    // opening balance of the window: pages at an offset start inside a day.
    let normal_debit = [true, true, false, true];
    for (account, debit_normal) in accounts.iter().zip(normal_debit) {
        for (window, from, until) in [
            (String::new(), None, None),
            (
                "&from_date=2026-03-02T06:15:00Z&to_date=2026-03-04T18:45:30Z".to_owned(),
                Some("2026-03-02T06:15:00Z"),
                Some("2026-03-04T18:45:30.000001Z"),
            ),
        ] {
            // The account's lines in history order: date, transaction id, line. Dates sort
            // as instants, not as text: RFC 3339 drops trailing zeros of the fraction, so
            // "…:03.12Z" sorts after "…:03.123456Z" as text (two reversals, dated when they
            // ran, in the same second).
            let mut ordered: Vec<(OffsetDateTime, String, String, usize, i64)> = Vec::new();
            for t in journal
                .iter()
                .filter(|t| matches!(t["status"].as_str(), Some("posted" | "reversed")))
            {
                let date = t["date"].as_str().expect("date").to_owned();
                let id = t["id"].as_str().expect("id").to_owned();
                for (line, e) in t["entries"].as_array().expect("entries").iter().enumerate() {
                    if e["account_id"] != account.as_str() {
                        continue;
                    }
                    let amount = cents(e["amount"].as_str().expect("amount"));
                    let debit = e["entry_type"] == "debit";
                    let net = if debit == debit_normal {
                        amount
                    } else {
                        -amount
                    };
                    let at = OffsetDateTime::parse(&date, &Rfc3339).expect("RFC 3339 date");
                    ordered.push((at, date.clone(), id.clone(), line, net));
                }
            }
            ordered.sort();
            let mut running = 0;
            let mut expected = Vec::new();
            for (_, date, _, _, net) in &ordered {
                running += net;
                let inside = from.is_none_or(|f| date.as_str() >= f)
                    && until.is_none_or(|u| date.as_str() < u);
                if inside {
                    expected.push(running);
                }
            }
            let mut seen = Vec::new();
            loop {
                let path = format!(
                    "/organizations/{}/accounts/{account}/transactions?limit=7&offset={}{window}",
                    org.id,
                    seen.len()
                );
                let res = app.read(&key, &path).await;
                let rows = res["transactions"].as_array().expect("rows").clone();
                if rows.is_empty() {
                    break;
                }
                seen.extend(
                    rows.iter()
                        .map(|r| cents(r["balance"].as_str().expect("balance"))),
                );
            }
            assert_eq!(
                seen, expected,
                "seeds {seeds:?}: running balances of {account} {window}"
            );
        }
    }
    // A period whose edges fall inside days: whole days from the daily totals, the edges
    // from their lines.
    let from = "2026-03-02T06:15:00Z";
    let to = "2026-03-04T18:45:30Z";
    let path = org.path(&format!(
        "reports/income-statement?start_date={from}&end_date={to}"
    ));
    let res = app.read(&key, &path).await;
    let before_end = sums(&journal, Some("2026-03-04T18:45:30.000001Z"));
    let before_start = sums(&journal, Some(from));
    let period = |account: &String| {
        let (d1, c1) = before_end.get(account).copied().unwrap_or_default();
        let (d0, c0) = before_start.get(account).copied().unwrap_or_default();
        (d1 - d0, c1 - c0)
    };
    let (sales_debit, sales_credit) = period(&accounts[2]);
    let (costs_debit, costs_credit) = period(&accounts[3]);
    let net_income = (sales_credit - sales_debit) - (costs_debit - costs_credit);
    assert_eq!(
        cents(res["net_income"].as_str().expect("net_income")),
        net_income,
        "seeds {seeds:?}: {}",
        res
    );
}
both!(random_interleavings_keep_balances_exact);
