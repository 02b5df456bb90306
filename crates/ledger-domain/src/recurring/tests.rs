//! The date math of recurring schedules: table-driven cases and properties.

use proptest::prelude::*;
use serde_json::json;
use time::macros::date;

use super::*;

#[test]
fn a_month_end_anchor_keeps_its_day() {
    let start = date!(2027 - 01 - 31);
    let dates: Vec<Date> = (0..6)
        .map(|i| occurrence(start, Frequency::Monthly, 1, i).unwrap())
        .collect();
    assert_eq!(
        dates,
        vec![
            date!(2027 - 01 - 31),
            date!(2027 - 02 - 28),
            date!(2027 - 03 - 31),
            date!(2027 - 04 - 30),
            date!(2027 - 05 - 31),
            date!(2027 - 06 - 30),
        ]
    );
    // In a leap year February has its 29th.
    assert_eq!(
        occurrence(date!(2028 - 01 - 31), Frequency::Monthly, 1, 1),
        Some(date!(2028 - 02 - 29))
    );
}

#[test]
fn a_leap_day_anchor_returns_to_the_29th_in_leap_years() {
    let start = date!(2028 - 02 - 29);
    let dates: Vec<Date> = (0..5)
        .map(|i| occurrence(start, Frequency::Yearly, 1, i).unwrap())
        .collect();
    assert_eq!(
        dates,
        vec![
            date!(2028 - 02 - 29),
            date!(2029 - 02 - 28),
            date!(2030 - 02 - 28),
            date!(2031 - 02 - 28),
            date!(2032 - 02 - 29),
        ]
    );
}

#[test]
fn every_frequency_and_interval() {
    let start = date!(2026 - 11 - 30);
    let cases = [
        (Frequency::Daily, 3, 2, date!(2026 - 12 - 06)),
        (Frequency::Weekly, 2, 1, date!(2026 - 12 - 14)),
        (Frequency::Monthly, 1, 3, date!(2027 - 02 - 28)),
        (Frequency::Monthly, 2, 1, date!(2027 - 01 - 30)),
        (Frequency::Quarterly, 1, 1, date!(2027 - 02 - 28)),
        (Frequency::Quarterly, 1, 2, date!(2027 - 05 - 30)),
        (Frequency::Yearly, 2, 1, date!(2028 - 11 - 30)),
    ];
    for (frequency, interval, index, expected) in cases {
        assert_eq!(
            occurrence(start, frequency, interval, index),
            Some(expected),
            "{frequency:?} every {interval}, occurrence {index}"
        );
    }
}

#[test]
fn the_end_date_and_count_end_a_schedule() {
    let now = OffsetDateTime::UNIX_EPOCH;
    let mut schedule = RecurringSchedule {
        id: "rec_1".into(),
        organization_id: "org_1".into(),
        livemode: false,
        name: None,
        recurable_type: RecurableType::Transaction,
        recurable_id: None,
        template: json!({}),
        frequency: Frequency::Monthly,
        interval: 1,
        start_date: date!(2027 - 01 - 31),
        end_date: Some(date!(2027 - 03 - 30)),
        max_occurrences: None,
        auto_send: false,
        status: ScheduleStatus::Active,
        next_index: 0,
        next_run_date: Some(date!(2027 - 01 - 31)),
        occurrences: 0,
        last_run_date: None,
        created_by: "key_1".into(),
        created_at: now,
        updated_at: now,
    };
    let first = schedule.advance(now);
    assert_eq!(first.next_run_date, Some(date!(2027 - 02 - 28)));
    assert_eq!(first.status, ScheduleStatus::Active);
    schedule.next_index = first.next_index;
    schedule.next_run_date = first.next_run_date;
    schedule.occurrences = first.occurrences;
    // March 31 is past the end date.
    let second = schedule.advance(now);
    assert_eq!(second.next_run_date, None);
    assert_eq!(second.status, ScheduleStatus::Completed);
    assert_eq!(second.last_run_date, Some(date!(2027 - 02 - 28)));

    schedule.end_date = None;
    schedule.max_occurrences = Some(2);
    assert_eq!(schedule.advance(now).status, ScheduleStatus::Completed);
    schedule.max_occurrences = Some(3);
    assert_eq!(
        schedule.advance(now).next_run_date,
        Some(date!(2027 - 03 - 31))
    );
}

#[test]
fn rescheduling_skips_to_the_first_occurrence_on_or_after_a_day() {
    let start = date!(2027 - 01 - 31);
    assert_eq!(
        first_index_on_or_after(start, Frequency::Monthly, 1, 0, date!(2027 - 03 - 01)),
        Some(2)
    );
    assert_eq!(
        first_index_on_or_after(start, Frequency::Monthly, 1, 0, date!(2027 - 02 - 28)),
        Some(1)
    );
    assert_eq!(
        first_index_on_or_after(start, Frequency::Daily, 1, 5, date!(2026 - 01 - 01)),
        Some(5)
    );
}

#[test]
fn templates_are_the_create_bodies() {
    let invoice = json!({
        "contact_id": "con_1",
        "invoice_date": "2027-01-31",
        "due_date": "2027-02-14",
        "items": [{ "description": "Hosting", "quantity": 1, "unit_price": "10.00" }],
    });
    let Template::Document(parsed) = Template::parse(RecurableType::Invoice, &invoice).unwrap()
    else {
        panic!("a document template");
    };
    assert_eq!(parsed.terms_days(date!(2027 - 01 - 31)), Some(14));
    let refused = Template::parse(RecurableType::Bill, &invoice).unwrap_err();
    assert_eq!(refused.code(), ErrorCode::UnknownField);
    let unknown = Template::parse(RecurableType::Transaction, &json!({ "amount": 1 })).unwrap_err();
    assert_eq!(unknown.code(), ErrorCode::UnknownField);
    assert!(Template::parse(RecurableType::Transaction, &json!([])).is_err());
}

fn frequencies() -> impl Strategy<Value = Frequency> {
    prop_oneof![
        Just(Frequency::Daily),
        Just(Frequency::Weekly),
        Just(Frequency::Monthly),
        Just(Frequency::Quarterly),
        Just(Frequency::Yearly),
    ]
}

proptest! {
    /// Occurrences strictly increase, month-based ones fall on the anchor day or on the
    /// last day of a shorter month, and rescheduling finds exactly the first occurrence
    /// on or after a day.
    #[test]
    fn occurrences_keep_the_anchor_and_increase(
        julian in 2_440_000i32..2_480_000,
        frequency in frequencies(),
        interval in 1i64..13,
        probe in 0i64..4_000,
    ) {
        let start = Date::from_julian_day(julian).unwrap();
        let mut previous: Option<Date> = None;
        for index in 0..40 {
            let d = occurrence(start, frequency, interval, index).unwrap();
            if let Some(p) = previous {
                prop_assert!(d > p, "{d} after {p}");
            }
            if matches!(frequency, Frequency::Monthly | Frequency::Quarterly | Frequency::Yearly) {
                let last = time::util::days_in_month(d.month(), d.year());
                prop_assert_eq!(d.day(), start.day().min(last));
            }
            previous = Some(d);
        }
        let day = start + time::Duration::days(probe);
        let index = first_index_on_or_after(start, frequency, interval, 0, day).unwrap();
        prop_assert!(occurrence(start, frequency, interval, index).unwrap() >= day);
        if index > 0 {
            prop_assert!(occurrence(start, frequency, interval, index - 1).unwrap() < day);
        }
    }
}
