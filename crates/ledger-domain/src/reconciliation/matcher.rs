//! Proposed matches between statement lines and journal entries.
//!
//! A line and an entry may match when their amounts are equal to the unit (the line's
//! bank sign against the entry's debit-positive amount) and their dates are at most
//! [`DATE_WINDOW_DAYS`] apart. The confidence adds, in hundredths (integers, no float):
//! 50 for the equal amount, 30 for the same day down to 5 at the window's edge, and 20
//! for an equal reference (else up to 20 for the share of description words they have in
//! common). Lines and entries are then paired greedily, best confidence first (ties:
//! the closer date, then ids), so each is proposed at most once and the answer is the
//! same on every read.

use std::collections::{BTreeSet, HashSet};

use time::Date;

use super::{JournalEntry, StatementLine};
use crate::money::format_units;

/// How far apart (in days) a line's and an entry's dates may be.
pub const DATE_WINDOW_DAYS: i64 = 5;

/// A proposed match of one statement line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proposal {
    pub line_id: String,
    pub entry_id: String,
    pub transaction_id: String,
    /// Hundredths: 0..=100.
    pub confidence: u32,
    /// Why, for a person: "amount 75.50 equal; 2 days apart; reference 1001 equal".
    pub reason: String,
}

impl Proposal {
    /// The confidence as a decimal string between 0 and 1 (`"0.95"`).
    pub fn confidence_text(&self) -> String {
        let c = self.confidence.min(100);
        format!("{}.{:02}", c / 100, c % 100)
    }
}

fn days_apart(a: Date, b: Date) -> i64 {
    (i64::from(a.to_julian_day()) - i64::from(b.to_julian_day())).abs()
}

/// Lowercase words of three or more letters or digits.
fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_lowercase)
        .collect()
}

fn same_reference(a: Option<&str>, b: Option<&str>) -> bool {
    match (a.map(str::trim), b.map(str::trim)) {
        (Some(a), Some(b)) => !a.is_empty() && a.eq_ignore_ascii_case(b),
        _ => false,
    }
}

/// The confidence and reason of pairing `line` with `entry`, or `None` when they cannot
/// match (amounts differ or dates too far apart).
pub fn score(line: &StatementLine, entry: &JournalEntry, decimals: u32) -> Option<(u32, String)> {
    if line.amount != entry.amount {
        return None;
    }
    let days = days_apart(line.date, entry.date);
    if days > DATE_WINDOW_DAYS {
        return None;
    }
    let mut confidence: u32 = 50;
    let mut reason = vec![format!(
        "amount {} equal",
        format_units(line.amount.abs(), decimals)
    )];
    confidence += u32::try_from(30 - 5 * days).unwrap_or(0);
    reason.push(match days {
        0 => "same date".to_owned(),
        1 => "1 day apart".to_owned(),
        n => format!("{n} days apart"),
    });
    let line_ref = line.reference.as_deref();
    if let Some(r) = [
        entry.reference.as_deref(),
        entry.transaction_reference.as_deref(),
    ]
    .into_iter()
    .find(|r| same_reference(line_ref, *r))
    .flatten()
    {
        confidence += 20;
        reason.push(format!("reference {r} equal"));
    } else {
        let a = words(&line.description);
        let b = words(&entry.description);
        let union = a.union(&b).count();
        let common = a.intersection(&b).count();
        if common > 0 && union > 0 {
            let share = u32::try_from(20 * common / union).unwrap_or(0).max(1);
            confidence += share;
            reason.push(format!("description shares {common} of {union} words"));
        } else {
            reason.push("descriptions differ".to_owned());
        }
    }
    Some((confidence.min(100), reason.join("; ")))
}

/// The proposals for the unmatched `lines` among the `entries` not matched anywhere.
pub fn propose(lines: &[&StatementLine], entries: &[JournalEntry], decimals: u32) -> Vec<Proposal> {
    let mut pairs = Vec::new();
    for line in lines {
        for entry in entries {
            if let Some((confidence, reason)) = score(line, entry, decimals) {
                pairs.push((
                    confidence,
                    days_apart(line.date, entry.date),
                    *line,
                    entry,
                    reason,
                ));
            }
        }
    }
    pairs.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(a.1.cmp(&b.1))
            .then_with(|| a.2.line_number.cmp(&b.2.line_number))
            .then_with(|| a.3.entry_id.cmp(&b.3.entry_id))
    });
    let mut used_lines = HashSet::new();
    let mut used_entries = HashSet::new();
    let mut out = Vec::new();
    for (confidence, _, line, entry, reason) in pairs {
        if used_lines.contains(&line.id) || used_entries.contains(&entry.entry_id) {
            continue;
        }
        used_lines.insert(line.id.clone());
        used_entries.insert(entry.entry_id.clone());
        out.push(Proposal {
            line_id: line.id.clone(),
            entry_id: entry.entry_id.clone(),
            transaction_id: entry.transaction_id.clone(),
            confidence,
            reason,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use time::macros::{date, datetime};

    use super::*;

    fn line(
        id: &str,
        n: i32,
        date: Date,
        amount: i64,
        description: &str,
        r: Option<&str>,
    ) -> StatementLine {
        StatementLine {
            id: id.into(),
            organization_id: "org_1".into(),
            livemode: false,
            reconciliation_id: "rec_1".into(),
            line_number: n,
            date,
            amount,
            description: description.into(),
            reference: r.map(Into::into),
            created_at: datetime!(2026-02-01 00:00 UTC),
        }
    }

    fn entry(
        id: &str,
        date: Date,
        amount: i64,
        description: &str,
        r: Option<&str>,
    ) -> JournalEntry {
        JournalEntry {
            entry_id: id.into(),
            transaction_id: format!("txn_{id}"),
            account_id: "act_1".into(),
            date,
            amount,
            description: description.into(),
            reference: None,
            transaction_reference: r.map(Into::into),
            reconciliation_id: None,
        }
    }

    #[test]
    fn scores_amount_date_and_text() {
        let l = line(
            "l1",
            1,
            date!(2026 - 01 - 12),
            -755_000,
            "CHECK 1001 City Water",
            Some("1001"),
        );
        let exact = entry(
            "e1",
            date!(2026 - 01 - 12),
            -755_000,
            "Water bill",
            Some("1001"),
        );
        let (c, reason) = score(&l, &exact, 2).expect("matches");
        assert_eq!(c, 100);
        assert_eq!(
            reason,
            "amount 75.50 equal; same date; reference 1001 equal"
        );
        let later = entry("e2", date!(2026 - 01 - 15), -755_000, "city water", None);
        let (c, reason) = score(&l, &later, 2).expect("matches");
        assert_eq!(c, 50 + 15 + 20 * 2 / 4);
        assert!(reason.contains("3 days apart"), "{reason}");
        assert!(
            score(
                &l,
                &entry("e3", date!(2026 - 01 - 18), -755_000, "", None),
                2
            )
            .is_none()
        );
        assert!(
            score(
                &l,
                &entry("e4", date!(2026 - 01 - 12), 755_000, "", None),
                2
            )
            .is_none()
        );
        let p = Proposal {
            line_id: String::new(),
            entry_id: String::new(),
            transaction_id: String::new(),
            confidence: 5,
            reason: String::new(),
        };
        assert_eq!(p.confidence_text(), "0.05");
    }

    #[test]
    fn pairs_each_line_and_entry_once_best_first() {
        let a = line("la", 1, date!(2026 - 01 - 10), 100_000, "Coffee", None);
        let b = line("lb", 2, date!(2026 - 01 - 11), 100_000, "Coffee", None);
        let near_b = entry("e1", date!(2026 - 01 - 11), 100_000, "Coffee", None);
        let near_a = entry("e2", date!(2026 - 01 - 10), 100_000, "Coffee", None);
        let other = entry("e3", date!(2026 - 01 - 10), 999_900, "Coffee", None);
        let got = propose(&[&a, &b], &[near_b, near_a, other], 2);
        let pairs: Vec<(&str, &str)> = got
            .iter()
            .map(|p| (p.line_id.as_str(), p.entry_id.as_str()))
            .collect();
        assert_eq!(pairs, vec![("la", "e2"), ("lb", "e1")]);
        assert!(got.iter().all(|p| p.confidence == 100));
        assert!(propose(&[], &[], 2).is_empty());
    }
}
