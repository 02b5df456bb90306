//! Renders sample documents and reads them back with poppler-utils: `pdftotext -layout`
//! must find every field in reading order, `pdfinfo` the page count, and `pdftoppm` must
//! rasterise the first page. Set `LEDGER_PDF_KEEP=DIR` to keep the PDFs and PNGs in DIR.

use std::path::{Path, PathBuf};
use std::process::Command;

use ledger_pdf::{DocumentLine, DocumentPayment, InvoiceDocument, Party, render};

fn party(name: &str, lines: &[&str]) -> Party {
    Party {
        name: name.to_owned(),
        lines: lines.iter().map(|line| (*line).to_owned()).collect(),
    }
}

fn line(
    description: &str,
    quantity: &str,
    unit_price: &str,
    tax: &str,
    total: &str,
) -> DocumentLine {
    DocumentLine {
        description: description.to_owned(),
        quantity: quantity.to_owned(),
        unit_price: unit_price.to_owned(),
        tax: tax.to_owned(),
        line_total: total.to_owned(),
    }
}

fn one_item() -> InvoiceDocument {
    InvoiceDocument {
        title: "Invoice".to_owned(),
        number: "INV-000012".to_owned(),
        status: "Partially paid".to_owned(),
        issuer: party(
            "Acme Books Ltd",
            &[
                "1 High Street",
                "London EC1A 1AA",
                "billing@acme.example",
                "VAT GB123456789",
            ],
        ),
        recipient_label: String::new(),
        recipient: party(
            "Globex Corporation",
            &["42 Market Road", "Springfield", "ap@globex.example"],
        ),
        issue_date: "2026-11-02".to_owned(),
        due_date: "2026-12-02".to_owned(),
        currency: "GBP".to_owned(),
        items: vec![line(
            "Bookkeeping, November",
            "10",
            "120.00",
            "VAT 20%",
            "1,200.00",
        )],
        subtotal: "1,200.00".to_owned(),
        taxes: vec![("VAT 20%".to_owned(), "240.00".to_owned())],
        total: "1,440.00".to_owned(),
        amount_paid: "440.00".to_owned(),
        balance_due: "1,000.00".to_owned(),
        payments: vec![DocumentPayment {
            date: "2026-11-10".to_owned(),
            method: "Bank transfer".to_owned(),
            reference: "FT-889911".to_owned(),
            amount: "440.00".to_owned(),
        }],
        notes: Some("Payment within 30 days to the account on file.".to_owned()),
    }
}

const LONG: &str = "Monthly reconciliation of the operating, payroll and savings accounts, with \
                    the review of every unmatched bank line and a written report to the board";

fn sixty_items() -> InvoiceDocument {
    let items = (1..=60)
        .map(|n| {
            let description = if n % 7 == 0 {
                format!("Item {n:02}: {LONG}")
            } else {
                format!("Item {n:02}: hours of consulting")
            };
            line(
                &description,
                &format!("{n}"),
                "25.00",
                "VAT 20%",
                &format!("{}.00", n * 25),
            )
        })
        .collect();
    InvoiceDocument {
        status: "Sent".to_owned(),
        number: "INV-000060".to_owned(),
        items,
        subtotal: "45,750.00".to_owned(),
        total: "54,900.00".to_owned(),
        taxes: vec![("VAT 20%".to_owned(), "9,150.00".to_owned())],
        amount_paid: "0.00".to_owned(),
        balance_due: "54,900.00".to_owned(),
        payments: Vec::new(),
        notes: Some("Sixty lines.".to_owned()),
        ..one_item()
    }
}

fn non_ascii() -> InvoiceDocument {
    InvoiceDocument {
        number: "RE-2026-0007".to_owned(),
        status: "Paid".to_owned(),
        issuer: party(
            "Müller GmbH",
            &["Königstraße 12", "70173 Stuttgart", "USt-IdNr. DE123456789"],
        ),
        recipient: party(
            "Łódź Trading Sp. z o.o.",
            &["Avenida Paulista 1000", "São Paulo"],
        ),
        currency: "EUR".to_owned(),
        items: vec![line(
            "Übersetzung ins Polnische – Ελληνικά, Русский (Pauschale 500 €)",
            "1",
            "500.00",
            "USt 19%",
            "500.00",
        )],
        subtotal: "500.00".to_owned(),
        taxes: vec![("USt 19%".to_owned(), "95.00".to_owned())],
        total: "595.00".to_owned(),
        amount_paid: "595.00".to_owned(),
        balance_due: "0.00".to_owned(),
        payments: vec![DocumentPayment {
            date: "2026-11-20".to_owned(),
            method: "SEPA-Überweisung".to_owned(),
            reference: "Zahlung für RE-2026-0007".to_owned(),
            amount: "595.00".to_owned(),
        }],
        notes: Some("Vielen Dank für Ihren Auftrag – dziękujemy!".to_owned()),
        ..one_item()
    }
}

/// Runs a poppler tool, failing the test with the install hint when it is not there.
fn poppler(tool: &str, args: &[&str]) -> String {
    let output = Command::new(tool).args(args).output().unwrap_or_else(|error| {
        panic!("cannot run `{tool}` ({error}): install poppler-utils (apt-get install -y poppler-utils)")
    });
    assert!(
        output.status.success(),
        "`{tool} {}` failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("poppler writes UTF-8 text")
}

struct Rendered {
    _dir: tempfile::TempDir,
    pdf: PathBuf,
    bytes: Vec<u8>,
}

impl Rendered {
    fn new(doc: &InvoiceDocument, name: &str) -> Self {
        let bytes = render(doc).expect("the document renders");
        let dir = tempfile::tempdir().expect("a temporary directory");
        let pdf = dir.path().join(format!("{name}.pdf"));
        std::fs::write(&pdf, &bytes).expect("the PDF is written");
        if let Some(keep) = std::env::var_os("LEDGER_PDF_KEEP") {
            std::fs::create_dir_all(&keep).expect("LEDGER_PDF_KEEP is a directory");
            std::fs::write(Path::new(&keep).join(format!("{name}.pdf")), &bytes).expect("kept");
        }
        Self {
            _dir: dir,
            pdf,
            bytes,
        }
    }

    fn path(&self) -> &str {
        self.pdf.to_str().expect("a UTF-8 temporary path")
    }

    fn text(&self) -> String {
        poppler("pdftotext", &["-layout", self.path(), "-"])
    }

    fn page_text(&self, page: usize) -> String {
        let page = page.to_string();
        poppler(
            "pdftotext",
            &["-layout", "-f", &page, "-l", &page, self.path(), "-"],
        )
    }

    fn pages(&self) -> usize {
        let info = poppler("pdfinfo", &[self.path()]);
        info.lines()
            .find_map(|line| line.strip_prefix("Pages:"))
            .and_then(|count| count.trim().parse().ok())
            .unwrap_or_else(|| panic!("pdfinfo names no page count:\n{info}"))
    }

    /// Rasterises page 1 at 50 dpi and checks the PNG is an A4 page's size.
    fn rasterise_first_page(&self, name: &str) {
        let prefix = self.pdf.with_file_name(name);
        let prefix = prefix.to_str().expect("a UTF-8 temporary path");
        poppler(
            "pdftoppm",
            &[
                "-png",
                "-r",
                "50",
                "-f",
                "1",
                "-l",
                "1",
                "-singlefile",
                self.path(),
                prefix,
            ],
        );
        let png = std::fs::read(format!("{prefix}.png")).expect("pdftoppm wrote page 1");
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "page 1 is not a PNG");
        let width = u32::from_be_bytes(png[16..20].try_into().expect("IHDR width"));
        let height = u32::from_be_bytes(png[20..24].try_into().expect("IHDR height"));
        // A4 is 595.28 × 841.89 pt: 413.4 × 584.6 pixels at 50 dpi, rounded either way.
        assert!(
            (413..=414).contains(&width) && (584..=585).contains(&height),
            "A4 at 50 dpi: {width}×{height}"
        );
        if let Some(keep) = std::env::var_os("LEDGER_PDF_KEEP") {
            std::fs::write(Path::new(&keep).join(format!("{name}.png")), &png).expect("kept");
        }
    }
}

/// Checks each of `expected` occurs in `text` after the previous one.
fn assert_in_order(text: &str, expected: &[&str]) {
    let mut from = 0;
    for needle in expected {
        match text[from..].find(needle) {
            Some(at) => from += at + needle.len(),
            None => panic!("{needle:?} is missing (or out of order) after byte {from} of:\n{text}"),
        }
    }
}

#[test]
fn pdf_one_item_shows_every_field_in_reading_order() {
    let doc = one_item();
    let rendered = Rendered::new(&doc, "one-item");
    assert!(rendered.bytes.starts_with(b"%PDF-"));
    assert_eq!(rendered.pages(), 1);
    let text = rendered.text();
    assert_in_order(
        &text,
        &[
            "Acme Books Ltd",
            "1 High Street",
            "London EC1A 1AA",
            "billing@acme.example",
        ],
    );
    assert_in_order(
        &text,
        &["Invoice", "INV-000012", "Partially paid", "Bill to"],
    );
    assert_in_order(
        &text,
        &[
            "VAT GB123456789",
            "Bill to",
            "Globex Corporation",
            "42 Market Road",
            "Springfield",
            "ap@globex.example",
        ],
    );
    assert_in_order(
        &text,
        &[
            "Issue date",
            "2026-11-02",
            "Due date",
            "2026-12-02",
            "Currency",
            "GBP",
            "Balance due",
            "GBP 1,000.00",
            "Description",
            "Qty",
            "Unit price",
            "Tax",
            "Amount",
            "Bookkeeping, November",
            "10",
            "120.00",
            "VAT 20%",
            "1,200.00",
            "Subtotal",
            "1,200.00",
            "VAT 20%",
            "240.00",
            "Total",
            "GBP 1,440.00",
            "Amount paid",
            "440.00",
            "Balance due",
            "GBP 1,000.00",
            "Payments",
            "Date",
            "Method",
            "Reference",
            "Amount",
            "2026-11-10",
            "Bank transfer",
            "FT-889911",
            "440.00",
            "Notes",
            "Payment within 30 days to the account on file.",
            "Invoice INV-000012",
            "Page 1 of 1",
        ],
    );
    rendered.rasterise_first_page("one-item-page-1");
}

#[test]
fn pdf_sixty_items_flow_over_pages_with_the_table_head_repeated() {
    let doc = sixty_items();
    let rendered = Rendered::new(&doc, "sixty-items");
    let pages = rendered.pages();
    assert!(
        pages >= 3,
        "60 items, some of five lines, take at least three pages, got {pages}"
    );

    let text = rendered.text();
    // A wrapped description reads in order, word by word; a row's figures stand on its
    // first line, after the description's start and before the next item.
    let words: Vec<&str> = doc
        .items
        .iter()
        .flat_map(|item| item.description.split_whitespace())
        .collect();
    assert_in_order(&text, &words);
    let mut expected = Vec::new();
    for item in &doc.items {
        expected.extend([
            &item.description[..8],
            item.quantity.as_str(),
            item.unit_price.as_str(),
            item.line_total.as_str(),
        ]);
    }
    expected.extend([
        "Subtotal",
        "45,750.00",
        "VAT 20%",
        "9,150.00",
        "Total",
        "GBP 54,900.00",
    ]);
    expected.extend([
        "Amount paid",
        "0.00",
        "Balance due",
        "GBP 54,900.00",
        "Notes",
        "Sixty lines.",
    ]);
    assert_in_order(&text, &expected);
    assert!(
        !text.contains("Payments"),
        "no payments, no payments section"
    );

    for page in 1..=pages {
        let page_text = rendered.page_text(page);
        assert!(
            page_text.contains(&format!("Page {page} of {pages}")),
            "page {page} is numbered:\n{page_text}"
        );
        if page > 1 {
            assert!(
                page_text.contains("Invoice INV-000060 (continued)"),
                "page {page}:\n{page_text}"
            );
        }
        if page < pages {
            assert_in_order(
                &page_text,
                &["Description", "Qty", "Unit price", "Tax", "Amount", "Item"],
            );
        }
    }
    rendered.rasterise_first_page("sixty-items-page-1");
}

#[test]
fn pdf_non_ascii_text_survives_the_round_trip() {
    let doc = non_ascii();
    let rendered = Rendered::new(&doc, "non-ascii");
    let text = rendered.text();
    assert_in_order(
        &text,
        &[
            "Müller GmbH",
            "Königstraße 12",
            "70173 Stuttgart",
            "USt-IdNr. DE123456789",
        ],
    );
    assert_in_order(&text, &["RE-2026-0007", "Paid"]);
    assert_in_order(
        &text,
        &[
            "Łódź Trading Sp. z o.o.",
            "Avenida Paulista 1000",
            "São Paulo",
            "EUR 0.00",
            "Übersetzung",
            "Ελληνικά,",
            "Русский",
            "500",
            "€)",
            "500.00",
            "USt 19%",
            "95.00",
            "EUR 595.00",
            "SEPA-Überweisung",
            "Zahlung für RE-2026-0007",
            "595.00",
            "Vielen Dank für Ihren Auftrag – dziękujemy!",
        ],
    );
    rendered.rasterise_first_page("non-ascii-page-1");
}

#[test]
fn pdf_output_is_deterministic_and_subset() {
    let doc = one_item();
    let first = render(&doc).expect("renders");
    assert_eq!(
        first,
        render(&doc).expect("renders again"),
        "same document, same bytes"
    );
    let raw = String::from_utf8_lossy(&first);
    assert!(
        !raw.contains("CreationDate") && !raw.contains("ModDate"),
        "no clock in the file"
    );
    // The two embedded faces are 1.4 MB; a subset of the few glyphs used is a few kB.
    assert!(
        first.len() < 100_000,
        "the fonts are subset: {} bytes",
        first.len()
    );
    let other = render(&InvoiceDocument {
        number: "INV-000013".to_owned(),
        ..doc
    })
    .expect("renders");
    assert_ne!(first, other, "the content decides the bytes");
}

/// A bill with many payments and long notes: the payments table continues over pages
/// with its head repeated, and the notes follow it.
fn busy_bill() -> InvoiceDocument {
    InvoiceDocument {
        title: "Bill".to_owned(),
        number: "BILL-000031".to_owned(),
        status: "Partially paid".to_owned(),
        recipient_label: "Vendor".to_owned(),
        recipient: party("Initech Supplies", &["9 Mill Lane", "Leeds LS1 4AP"]),
        items: (1..=25)
            .map(|n| {
                line(
                    &format!("Supply {n:02}: paper and toner"),
                    "4",
                    "12.50",
                    "VAT 20%",
                    "50.00",
                )
            })
            .collect(),
        subtotal: "1,250.00".to_owned(),
        taxes: vec![("VAT 20%".to_owned(), "250.00".to_owned())],
        total: "1,500.00".to_owned(),
        amount_paid: "1,200.00".to_owned(),
        balance_due: "300.00".to_owned(),
        payments: (1..=40)
            .map(|n| DocumentPayment {
                date: format!("2026-10-{:02}", n % 28 + 1),
                method: "Direct debit".to_owned(),
                reference: format!("DD-{n:04}"),
                amount: "30.00".to_owned(),
            })
            .collect(),
        notes: Some("Deliveries are made on Tuesdays. ".repeat(40)),
        ..one_item()
    }
}

#[test]
fn pdf_payments_continue_over_pages_with_their_head_repeated() {
    let doc = busy_bill();
    let rendered = Rendered::new(&doc, "busy-bill");
    let pages = rendered.pages();
    assert!(pages >= 2, "got {pages} pages");
    let text = rendered.text();
    assert_in_order(
        &text,
        &[
            "Bill",
            "BILL-000031",
            "Vendor",
            "Initech Supplies",
            "Supply 01",
        ],
    );
    let mut expected = vec!["Supply 25", "Balance due", "GBP 300.00", "Payments"];
    let references: Vec<String> = (1..=40).map(|n| format!("DD-{n:04}")).collect();
    expected.extend(references.iter().map(String::as_str));
    expected.extend(["Notes", "Deliveries are made on Tuesdays."]);
    assert_in_order(&text, &expected);

    let mut pages_with_payments = 0;
    for page in 1..=pages {
        let page_text = rendered.page_text(page);
        assert!(
            page_text.contains(&format!("Page {page} of {pages}")),
            "page {page}"
        );
        if page_text.contains("DD-") {
            pages_with_payments += 1;
            assert_in_order(
                &page_text,
                &["Date", "Method", "Reference", "Amount", "DD-"],
            );
        }
    }
    assert!(pages_with_payments >= 2, "the payments table spans pages");
    rendered.rasterise_first_page("busy-bill-page-1");
}
