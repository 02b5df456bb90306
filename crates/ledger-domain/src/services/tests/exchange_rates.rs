//! Exchange rates through the pipeline on the memory store: validation, the duplicate
//! refusal, credits and events, and the rate that applies on a date (latest on or
//! before, the inverse pair, the same currency) with conversions at each currency's
//! minor unit.

use time::macros::date;

use super::World;
use crate::error::ErrorCode;
use crate::exchange::RateSource;
use crate::money::Currency;
use crate::services::{
    ConversionInput, ExchangeRateChanges, NewExchangeRateInput, Outcome, Submitted, Write,
};

fn create(from: &str, to: &str, rate: &str, day: &str) -> Write {
    Write::CreateExchangeRate(NewExchangeRateInput {
        from_currency: from.into(),
        to_currency: to.into(),
        rate: rate.into(),
        effective_date: day.into(),
    })
}

fn view(submitted: Submitted) -> serde_json::Value {
    match submitted.outcome {
        Outcome::Done(view) => view,
        Outcome::Queued(job) => panic!("rates are synchronous, got job {}", job.id),
    }
}

fn currency(code: &str) -> Currency {
    Currency::from_code(code).expect("a known currency")
}

fn convert(from: &str, to: &str, amount: &str, day: Option<&str>) -> ConversionInput {
    ConversionInput {
        from_currency: from.into(),
        to_currency: to.into(),
        amount: amount.into(),
        date: day.map(str::to_owned),
    }
}

#[tokio::test]
async fn rates_are_validated_written_once_per_pair_and_date_and_charged() {
    let w = World::new().await;
    let before = w.credits();
    let created = view(
        w.submit(&w.live, create("cur_EUR", "usd", "1.08250", "2026-01-01"))
            .await
            .expect("create"),
    );
    assert_eq!(created["rate"], "1.0825");
    assert_eq!(created["from_currency"], "EUR");
    assert_eq!(created["to_currency_id"], "cur_USD");
    assert_eq!(created["effective_date"], "2026-01-01");
    assert!(
        created["id"]
            .as_str()
            .is_some_and(|id| id.starts_with("fx_"))
    );
    assert_eq!(w.credits(), before - 1);

    let refusals = [
        (
            create("EUR", "EUR", "1", "2026-01-01"),
            ErrorCode::InconsistentFields,
        ),
        (
            create("EUR", "XYZ", "1", "2026-01-01"),
            ErrorCode::InvalidField,
        ),
        (
            create("EUR", "USD", "0", "2026-01-01"),
            ErrorCode::InvalidField,
        ),
        (
            create("EUR", "USD", "1.0000000000001", "2026-01-01"),
            ErrorCode::InvalidField,
        ),
        (
            create("EUR", "USD", "1", "2026-13-01"),
            ErrorCode::InvalidField,
        ),
        (
            create("EUR", "USD", "1.1", "2026-01-01"),
            ErrorCode::DuplicateValue,
        ),
    ];
    for (write, code) in refusals {
        let e = w.submit(&w.live, write).await.expect_err("refused");
        assert_eq!(e.code(), code, "{e}");
    }
    assert_eq!(w.credits(), before - 1, "refusals cost nothing");
    // The other mode has rates of its own.
    w.submit(&w.test, create("EUR", "USD", "1.1", "2026-01-01"))
        .await
        .expect("test mode");

    // An update may move the date, not onto another rate of the pair.
    let id = created["id"].as_str().expect("id").to_owned();
    w.submit(&w.live, create("EUR", "USD", "1.09", "2026-02-01"))
        .await
        .expect("second");
    let clash = Write::UpdateExchangeRate {
        id: id.clone(),
        changes: ExchangeRateChanges {
            rate: None,
            effective_date: Some("2026-02-01".into()),
        },
    };
    let e = w.submit(&w.live, clash).await.expect_err("clash");
    assert_eq!(e.code(), ErrorCode::DuplicateValue);
    let update = Write::UpdateExchangeRate {
        id: id.clone(),
        changes: ExchangeRateChanges {
            rate: Some("1.07".into()),
            effective_date: Some("2025-12-31".into()),
        },
    };
    let updated = view(w.submit(&w.live, update).await.expect("update"));
    assert_eq!(
        (updated["rate"].as_str(), updated["effective_date"].as_str()),
        (Some("1.07"), Some("2025-12-31"))
    );
    let deleted = view(
        w.submit(&w.live, Write::DeleteExchangeRate { id: id.clone() })
            .await
            .expect("delete"),
    );
    assert_eq!(deleted["deleted"], true);
    let kinds: Vec<String> = w
        .store()
        .events()
        .iter()
        .filter(|e| e.entity_id == id)
        .map(|e| e.event_type.clone())
        .collect();
    assert_eq!(
        kinds,
        [
            "exchange_rate.created",
            "exchange_rate.updated",
            "exchange_rate.deleted"
        ]
    );
    // Deleted, the date is free again.
    w.submit(&w.live, create("EUR", "USD", "1.2", "2025-12-31"))
        .await
        .expect("the date is free");
}

#[tokio::test]
async fn the_rate_on_a_date_is_the_latest_on_or_before_it_else_the_inverse() {
    let w = World::new().await;
    for (from, to, rate, day) in [
        ("EUR", "USD", "1.05", "2026-01-01"),
        ("EUR", "USD", "1.10", "2026-02-01"),
        ("EUR", "USD", "1.20", "2026-03-01"),
        ("USD", "JPY", "160", "2026-01-10"),
    ] {
        w.submit(&w.live, create(from, to, rate, day))
            .await
            .expect("rate");
    }
    let tenant = &w.live.tenant;
    let (eur, usd, jpy, kwd) = (
        currency("EUR"),
        currency("USD"),
        currency("JPY"),
        currency("KWD"),
    );
    let on = |day| w.ledger.rate_on(tenant, eur, usd, day);
    assert_eq!(on(date!(2025 - 12 - 31)).await.expect("read"), None);
    let jan = on(date!(2026 - 01 - 31))
        .await
        .expect("read")
        .expect("a rate");
    assert_eq!(
        (jan.rate.as_str(), jan.effective_date),
        ("1.05", date!(2026 - 01 - 01))
    );
    assert!(matches!(jan.source, RateSource::Direct(_)));
    let feb = on(date!(2026 - 02 - 01))
        .await
        .expect("read")
        .expect("a rate");
    assert_eq!(feb.rate, "1.1");
    let later = on(date!(2027 - 01 - 01))
        .await
        .expect("read")
        .expect("a rate");
    assert_eq!(later.rate, "1.2");

    // The reversed pair is inverted: 1 / 160 = 0.00625.
    let back = w
        .ledger
        .rate_on(tenant, jpy, usd, date!(2026 - 01 - 10))
        .await
        .expect("read")
        .expect("the inverse");
    assert_eq!(back.rate, "0.00625");
    assert!(matches!(back.source, RateSource::Inverse(_)));
    assert_eq!(
        w.ledger
            .rate_on(tenant, jpy, usd, date!(2026 - 01 - 09))
            .await
            .expect("read"),
        None
    );
    let same = w
        .ledger
        .rate_on(tenant, kwd, kwd, date!(2026 - 01 - 09))
        .await
        .expect("read")
        .expect("identity");
    assert_eq!(
        (same.rate.as_str(), same.source),
        ("1", RateSource::Identity)
    );
    // Another mode sees none of them.
    assert_eq!(
        w.ledger
            .rate_on(&w.test.tenant, eur, usd, date!(2026 - 03 - 01))
            .await
            .expect("read"),
        None
    );
}

#[tokio::test]
async fn conversions_round_to_the_minor_unit_and_refuse_what_they_cannot_do() {
    let w = World::new().await;
    for (from, to, rate) in [("USD", "JPY", "151.235"), ("USD", "KWD", "0.30745")] {
        w.submit(&w.live, create(from, to, rate, "2026-01-01"))
            .await
            .expect("rate");
    }
    let show = |c: &crate::exchange::Conversion| crate::views::conversion(c);
    let yen = w
        .ledger
        .convert_currency(&w.live, convert("USD", "JPY", "100", Some("2026-01-02")))
        .await
        .expect("convert");
    assert_eq!(show(&yen)["converted_amount"], "15124");
    assert_eq!(show(&yen)["amount"], "100.00");
    let dinar = w
        .ledger
        .convert_currency(&w.live, convert("usd", "cur_KWD", "10", None))
        .await
        .expect("convert today");
    assert_eq!(show(&dinar)["converted_amount"], "3.075");
    let back = w
        .ledger
        .convert_currency(&w.live, convert("JPY", "USD", "15124", None))
        .await
        .expect("inverse");
    // 1 / 151.235 = 0.006612226006 (12 decimals); 15124 JPY -> 100.0033... USD.
    assert_eq!(show(&back)["rate"], "0.006612226006");
    assert_eq!(show(&back)["converted_amount"], "100.00");

    let refusals = [
        // More places than the source currency has: invalid input (400).
        (
            convert("USD", "JPY", "1.005", None),
            ErrorCode::InvalidField,
        ),
        (convert("JPY", "USD", "1.5", None), ErrorCode::InvalidField),
        (convert("USD", "JPY", "-1", None), ErrorCode::InvalidField),
        (
            convert("USD", "JPY", "1", Some("yesterday")),
            ErrorCode::InvalidField,
        ),
        (
            convert("USD", "EUR", "1", None),
            ErrorCode::ExchangeRateNotFound,
        ),
        (
            convert("USD", "JPY", "1", Some("2025-12-31")),
            ErrorCode::ExchangeRateNotFound,
        ),
    ];
    for (input, code) in refusals {
        let e = w
            .ledger
            .convert_currency(&w.live, input)
            .await
            .expect_err("refused");
        assert_eq!(e.code(), code, "{e}");
    }
}
