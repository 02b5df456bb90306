//! Criterion micro-benchmarks of the pure domain rules on the hot path of a posted
//! transaction (`check_balanced`, `money::parse_units`) and of the largest report
//! computation (`reports::trial_balance`).
//!
//! Run with `cargo bench -p ledger-domain --bench domain` (add `-- --quick` for a short
//! run). The end-to-end figures are `cargo xtask bench`'s (see docs/benchmarks.md).

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use ledger_domain::accounts::{AccountType, EntryType, Totals};
use ledger_domain::money::parse_units;
use ledger_domain::reports::{AccountRef, AccountTotals, trial_balance};
use ledger_domain::transactions::{EntryLine, check_balanced};

/// `n` balanced entries (n even): alternating debits and credits of the same amounts.
fn balanced_entries(n: usize) -> Vec<EntryLine> {
    (0..n)
        .map(|i| EntryLine {
            account_id: format!("act_{i:026}"),
            entry_type: if i % 2 == 0 {
                EntryType::Debit
            } else {
                EntryType::Credit
            },
            amount: 1_000_000 + (i as i64 / 2) * 12_345,
            description: None,
            currency: None,
        })
        .collect()
}

fn bench_check_balanced(c: &mut Criterion) {
    let mut group = c.benchmark_group("check_balanced");
    for n in [2, 50] {
        let entries = balanced_entries(n);
        group.bench_function(format!("{n} entries"), |b| {
            b.iter(|| check_balanced(black_box(&entries), black_box("USD")));
        });
    }
    group.finish();
}

fn bench_parse_units(c: &mut Criterion) {
    let mut group = c.benchmark_group("money::parse_units");
    for text in ["100.00", "1234567.89", "0.01"] {
        group.bench_function(text, |b| {
            b.iter(|| parse_units(black_box(text), black_box(2)));
        });
    }
    group.finish();
}

/// 500 accounts over the five types with non-zero totals, in no particular order (the
/// report sorts by code).
fn chart(n: usize) -> Vec<AccountTotals> {
    let types = [
        AccountType::Asset,
        AccountType::Liability,
        AccountType::Equity,
        AccountType::Revenue,
        AccountType::Expense,
    ];
    (0..n)
        .map(|i| {
            // A fixed permutation of the codes, so sorting has work to do.
            let code = (i * 7919) % n + 1000;
            AccountTotals {
                account: AccountRef {
                    id: format!("act_{i:026}"),
                    code: code.to_string(),
                    name: format!("Account {code}"),
                    account_type: types[i % types.len()],
                },
                totals: Totals {
                    debit: (i as i64 + 1) * 10_000,
                    credit: (i as i64 % 7) * 25_000,
                },
            }
        })
        .collect()
}

fn bench_trial_balance(c: &mut Criterion) {
    let accounts = chart(500);
    c.bench_function("reports::trial_balance/500 accounts", |b| {
        // The report takes its input by value: clone outside the measured part.
        b.iter_batched(
            || accounts.clone(),
            |input| trial_balance(black_box(input), 0),
            BatchSize::SmallInput,
        );
    });
}

criterion_group!(
    benches,
    bench_check_balanced,
    bench_parse_units,
    bench_trial_balance
);
criterion_main!(benches);
