//! Properties of the ledger posted through `Ledger::submit` on the memory store: random
//! balanced transactions, some posted at once (group commit), some queued and run by the
//! runner, some left pending, keep the trial balance balanced and every balance equal
//! to the sum of its posted entries.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use proptest::prelude::*;

use crate::memory::runtime::TestRuntime;
use crate::services::{Channel, Ledger, NewTransactionInput, Submission, Write};

use super::{World, config, entry};

/// The default chart's codes.
const CODES: [&str; 7] = ["1000", "1100", "2000", "2100", "3000", "4000", "5000"];

/// One generated transaction: legs of (debit account, credit account, cents), whether
/// it is posted, and whether the caller waits for it (applied at once).
#[derive(Debug, Clone)]
struct Generated {
    legs: Vec<(usize, usize, i64)>,
    auto_post: bool,
    wait: bool,
}

fn generated() -> impl Strategy<Value = Generated> {
    (
        prop::collection::vec((0..CODES.len(), 0..CODES.len(), 1i64..1_000_000), 1..4),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(legs, auto_post, wait)| Generated {
            legs,
            auto_post,
            wait,
        })
}

async fn check(transactions: Vec<Generated>) -> Result<(), TestCaseError> {
    let mut waited = config(1_000_000);
    waited.run_inline = true;
    let w = World::with(waited).await;
    // A second ledger over the same store whose writes only the runner applies.
    let queued = Ledger::new(
        w.store().clone(),
        Arc::new(w.clock.clone()),
        Arc::new(TestRuntime),
        config(0),
    );
    let chart = w.chart(&w.live).await;
    let mut expected: HashMap<String, (i64, i64)> = HashMap::new();
    for t in &transactions {
        let mut entries = Vec::new();
        for &(debit, credit, cents) in &t.legs {
            let amount = format!("{}.{:02}", cents / 100, cents % 100);
            let (debit, credit) = (&chart[CODES[debit]], &chart[CODES[credit]]);
            entries.push(entry(debit, "debit", &amount));
            entries.push(entry(credit, "credit", &amount));
            if t.auto_post {
                // Stored units are 1/10000.
                expected.entry(debit.clone()).or_default().0 += cents * 100;
                expected.entry(credit.clone()).or_default().1 += cents * 100;
            }
        }
        let write = Write::CreateTransaction(NewTransactionInput {
            description: "Generated".into(),
            date: Some(w.ledger.now()),
            currency: None,
            reference: None,
            entries,
            metadata: None,
            auto_post: t.auto_post,
            contact_id: None,
            category_id: None,
        });
        let (ledger, wait) = if t.wait {
            (&w.ledger, Duration::from_secs(5))
        } else {
            (&queued, Duration::ZERO)
        };
        ledger
            .submit(&w.live, write, Submission::new(Channel::Rest, wait))
            .await
            .map_err(|e| TestCaseError::fail(format!("submit: {e}")))?;
    }
    queued.run_batch(1_000).await.expect("run the queue");
    prop_assert!(
        w.store()
            .jobs()
            .iter()
            .all(|j| j.status == crate::jobs::JobStatus::Completed)
    );
    let trial = w
        .ledger
        .trial_balance(&w.live, usd(), None, false, Channel::Rest)
        .await
        .expect("trial balance");
    prop_assert_eq!(trial.total_debits, trial.total_credits);
    for id in chart.values() {
        let balance = w
            .ledger
            .account_balance(&w.live, id, None)
            .await
            .expect("balance");
        let (debit, credit) = expected.get(id).copied().unwrap_or_default();
        prop_assert_eq!(
            (balance.totals.debit, balance.totals.credit),
            (debit, credit)
        );
    }
    // Test mode saw none of it.
    let test_trial = w
        .ledger
        .trial_balance(&w.test, usd(), None, false, Channel::Rest)
        .await
        .expect("test trial balance");
    prop_assert_eq!(test_trial.total_debits, 0);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_balanced_transactions_keep_the_trial_balance_balanced(
        transactions in prop::collection::vec(generated(), 1..12)
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(check(transactions))?;
    }
}

fn usd() -> crate::money::Currency {
    crate::money::Currency::from_code("USD").expect("USD")
}
