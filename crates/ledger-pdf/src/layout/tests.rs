//! Layout invariants: page bounds, page numbers, row splitting, alignment.

use super::*;
use crate::{DocumentLine, DocumentPayment};

fn fonts() -> &'static Fonts {
    Fonts::get().expect("the embedded fonts load")
}

fn runs(page: &Page) -> impl Iterator<Item = &TextRun> {
    page.iter().filter_map(|op| match op {
        Op::Text(run) => Some(run),
        Op::Rect { .. } => None,
    })
}

fn item(description: &str, total: &str) -> DocumentLine {
    DocumentLine {
        description: description.to_owned(),
        quantity: "1".to_owned(),
        unit_price: "5.00".to_owned(),
        tax: "VAT 20%".to_owned(),
        line_total: total.to_owned(),
    }
}

/// Everything at once, and far too much of it: long items, a description taller than
/// a page, many payments, long notes.
fn crowded() -> InvoiceDocument {
    let mut items: Vec<DocumentLine> = (0..40)
        .map(|n| {
            item(
                &format!("Item {n} {}", "with a long description ".repeat(n % 5)),
                "10.00",
            )
        })
        .collect();
    let tall: Vec<String> = (0..150).map(|n| format!("tall line {n}")).collect();
    items.insert(20, item(&tall.join("\n"), "99.00"));
    InvoiceDocument {
        title: "Invoice".to_owned(),
        number: "INV-1".to_owned(),
        items,
        taxes: (0..30)
            .map(|n| (format!("Tax {n}"), "1.00".to_owned()))
            .collect(),
        payments: (0..50)
            .map(|n| DocumentPayment {
                date: "2026-11-22".to_owned(),
                method: "Card".to_owned(),
                reference: format!("P-{n}"),
                amount: "1.00".to_owned(),
            })
            .collect(),
        notes: Some("A note that goes on. ".repeat(400)),
        ..InvoiceDocument::default()
    }
}

#[test]
fn nothing_but_the_footer_goes_below_the_content_bottom() {
    let pages = lay_out(&crowded(), fonts());
    assert!(pages.len() > 5, "{} pages", pages.len());
    let footer_top = FOOTER_BASELINE - 14.0;
    for (index, page) in pages.iter().enumerate() {
        for op in page {
            let bottom = match op {
                Op::Text(run) => run.y,
                Op::Rect { y, height, .. } => y + height,
            };
            let top = match op {
                Op::Text(run) => run.y,
                Op::Rect { y, .. } => *y,
            };
            assert!(
                bottom <= CONTENT_BOTTOM || top >= footer_top,
                "page {} has content at {bottom}",
                index + 1
            );
        }
        let numbered = format!("Page {} of {}", index + 1, pages.len());
        assert!(
            runs(page).any(|run| run.text == numbered),
            "page {} unnumbered",
            index + 1
        );
    }
}

#[test]
fn a_row_taller_than_a_page_is_split_and_keeps_every_line() {
    let pages = lay_out(&crowded(), fonts());
    let tall: Vec<&str> = pages
        .iter()
        .flat_map(runs)
        .filter(|run| run.text.starts_with("tall line"))
        .map(|run| run.text.as_str())
        .collect();
    let expected: Vec<String> = (0..150).map(|n| format!("tall line {n}")).collect();
    assert_eq!(tall, expected);
    let pages_with_tall = pages
        .iter()
        .filter(|page| runs(page).any(|run| run.text.starts_with("tall line")))
        .count();
    assert!(pages_with_tall >= 2);
    // Every page the items continue on starts its rows under a table head.
    for page in &pages {
        if runs(page).any(|run| run.text.starts_with("tall line") || run.text.starts_with("Item")) {
            assert!(runs(page).any(|run| run.text == "Description"));
        }
    }
}

#[test]
fn figures_end_exactly_on_their_column_edge() {
    let fonts = fonts();
    let doc = InvoiceDocument {
        items: vec![item("One", "1,200.00"), item("Two", "7.50")],
        ..InvoiceDocument::default()
    };
    let pages = lay_out(&doc, fonts);
    for total in ["1,200.00", "7.50"] {
        let run = runs(&pages[0])
            .find(|run| run.text == total)
            .expect("the line total is drawn");
        let advance: f32 = run.glyphs.iter().map(|glyph| glyph.x_advance).sum();
        let end = run.x + advance * run.size;
        assert!(
            (end - (RIGHT - CELL_PAD)).abs() < 0.01,
            "{total} ends at {end}"
        );
    }
}

#[test]
fn an_empty_document_is_one_page_with_an_empty_table() {
    let pages = lay_out(&InvoiceDocument::default(), fonts());
    assert_eq!(pages.len(), 1);
    assert!(runs(&pages[0]).any(|run| run.text == "No items"));
    assert!(runs(&pages[0]).any(|run| run.text == "Page 1 of 1"));
}

#[test]
fn long_header_words_shrink_to_stay_on_the_page() {
    let doc = InvoiceDocument {
        title: "Rechnungskorrekturbescheinigung".repeat(3),
        number: "INV-2026-".repeat(5),
        status: "Partially paid, disputed, on hold".to_owned(),
        ..InvoiceDocument::default()
    };
    let pages = lay_out(&doc, fonts());
    for run in runs(&pages[0]) {
        let advance: f32 = run.glyphs.iter().map(|glyph| glyph.x_advance).sum();
        assert!(run.x >= MARGIN - 0.01, "{:?} starts at {}", run.text, run.x);
        assert!(
            run.x + advance * run.size <= RIGHT + 0.01,
            "{:?} overflows",
            run.text
        );
    }
}

#[test]
fn status_colours_follow_the_word() {
    assert_eq!(status_color("Paid"), Color(0x2e, 0x7d, 0x32));
    assert_eq!(
        status_color("partially_paid"),
        status_color("Partially paid")
    );
    assert_eq!(status_color("VOID"), status_color("Draft"));
    assert_eq!(status_color("Sent"), ACCENT);
}
