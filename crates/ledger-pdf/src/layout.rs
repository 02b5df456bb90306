//! Places a document on A4 pages as text runs and filled rectangles, in points from the
//! top left corner (y grows downwards; a text run's y is its baseline).
//!
//! Invariant: nothing but the footer is placed below `CONTENT_BOTTOM`, so content never
//! runs into the page number; a table row moves whole to the next page unless it is taller
//! than a page, and every page a table continues on starts with the table's header.

use krilla::text::KrillaGlyph;

use crate::text::{Fonts, Weight, clean};
use crate::{InvoiceDocument, Party};

pub(crate) const PAGE_WIDTH: f32 = 595.28;
pub(crate) const PAGE_HEIGHT: f32 = 841.89;
const MARGIN: f32 = 48.0;
const RIGHT: f32 = PAGE_WIDTH - MARGIN;
const CONTENT_WIDTH: f32 = RIGHT - MARGIN;
const TOP: f32 = 48.0;
pub(crate) const CONTENT_BOTTOM: f32 = PAGE_HEIGHT - 64.0;
const FOOTER_BASELINE: f32 = PAGE_HEIGHT - 34.0;

/// Body text size and line height.
const BODY: f32 = 9.0;
const LINE: f32 = 12.0;
/// Horizontal padding inside a table cell, vertical padding a table row adds to its lines.
const CELL_PAD: f32 = 6.0;
const ROW_PAD: f32 = 8.0;
const TABLE_HEAD: f32 = 20.0;
/// Width of the totals block, and of its figures' part.
const TOTALS_WIDTH: f32 = 250.0;
const TOTALS_VALUE_WIDTH: f32 = 130.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Color(pub(crate) u8, pub(crate) u8, pub(crate) u8);

const INK: Color = Color(0x1f, 0x29, 0x33);
const MUTED: Color = Color(0x61, 0x6e, 0x7c);
const RULE: Color = Color(0xd5, 0xda, 0xe1);
const HEAD_FILL: Color = Color(0xf0, 0xf2, 0xf5);
const ACCENT: Color = Color(0x1f, 0x4e, 0x79);
const WHITE: Color = Color(0xff, 0xff, 0xff);

pub(crate) struct TextRun {
    pub(crate) x: f32,
    pub(crate) y: f32,
    pub(crate) size: f32,
    pub(crate) weight: Weight,
    pub(crate) color: Color,
    pub(crate) text: String,
    pub(crate) glyphs: Vec<KrillaGlyph>,
}

pub(crate) enum Op {
    Text(TextRun),
    Rect {
        x: f32,
        y: f32,
        width: f32,
        height: f32,
        color: Color,
    },
}

pub(crate) type Page = Vec<Op>;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Align {
    Left,
    Right,
}

struct Column {
    title: &'static str,
    width: f32,
    align: Align,
    /// Wrapped cells take as many lines as they need; the others stay on one line and
    /// shrink to fit (figures must never break).
    wraps: bool,
}

/// Lays `doc` out on as many pages as it needs.
pub(crate) fn lay_out(doc: &InvoiceDocument, fonts: &Fonts) -> Vec<Page> {
    let mut writer = Writer {
        fonts,
        pages: vec![Vec::new()],
        y: TOP,
        page_top: TOP,
        running_head: clean(&format!("{} {}", doc.title, doc.number), false),
    };
    writer.header(doc);
    writer.parties_and_dates(doc);
    writer.items(doc);
    writer.totals(doc);
    writer.payments(doc);
    writer.notes(doc);
    writer.footers();
    writer.pages
}

struct Writer<'a> {
    fonts: &'a Fonts,
    pages: Vec<Page>,
    /// Top of the free space on the last page.
    y: f32,
    /// Where content starts on the last page, below its header.
    page_top: f32,
    /// `"Invoice INV-000012"`, on top of continuation pages and in every footer.
    running_head: String,
}

impl Writer<'_> {
    fn run(&self, x: f32, y: f32, size: f32, weight: Weight, color: Color, text: &str) -> Op {
        let shaped = self.fonts.shape(text, weight);
        Op::Text(TextRun {
            x,
            y,
            size,
            weight,
            color,
            text: text.to_owned(),
            glyphs: shaped.glyphs,
        })
    }

    fn push(&mut self, op: Op) {
        if let Some(page) = self.pages.last_mut() {
            page.push(op);
        }
    }

    fn text(&mut self, x: f32, y: f32, size: f32, weight: Weight, color: Color, text: &str) {
        if !text.is_empty() {
            let op = self.run(x, y, size, weight, color, text);
            self.push(op);
        }
    }

    fn text_right(
        &mut self,
        right: f32,
        y: f32,
        size: f32,
        weight: Weight,
        color: Color,
        text: &str,
    ) {
        let width = self.fonts.width(text, weight, size);
        self.text(right - width, y, size, weight, color, text);
    }

    fn rect(&mut self, x: f32, y: f32, width: f32, height: f32, color: Color) {
        self.push(Op::Rect {
            x,
            y,
            width,
            height,
            color,
        });
    }

    /// Wraps `text` into `width` and draws its lines from `top`; returns the new top.
    #[expect(clippy::too_many_arguments, reason = "one call per styled paragraph")]
    fn paragraph(
        &mut self,
        x: f32,
        top: f32,
        width: f32,
        text: &str,
        size: f32,
        weight: Weight,
        color: Color,
    ) -> f32 {
        let line_height = (size * 1.3).max(LINE);
        let mut top = top;
        for line in self.fonts.wrap(text, weight, size, width) {
            self.text(x, top + size, size, weight, color, &line);
            top += line_height;
        }
        top
    }

    fn party(&mut self, x: f32, top: f32, width: f32, party: &Party, name_size: f32) -> f32 {
        let name = clean(&party.name, false);
        let mut top = self.paragraph(x, top, width, &name, name_size, Weight::Bold, INK);
        top += 2.0;
        for line in &party.lines {
            let line = clean(line, true);
            if !line.is_empty() {
                top = self.paragraph(x, top, width, &line, BODY, Weight::Regular, MUTED);
            }
        }
        top
    }

    /// Starts a new page when `height` does not fit on this one (unless this one is still
    /// empty, where it would not fit on the next either).
    fn ensure(&mut self, height: f32) {
        if self.y + height > CONTENT_BOTTOM && self.y > self.page_top {
            self.new_page();
        }
    }

    fn new_page(&mut self) {
        self.pages.push(Vec::new());
        let head = format!("{} (continued)", self.running_head);
        self.text(MARGIN, TOP + 9.0, 9.0, Weight::Bold, MUTED, head.trim());
        self.rect(MARGIN, TOP + 16.0, CONTENT_WIDTH, 0.8, RULE);
        self.y = TOP + 30.0;
        self.page_top = self.y;
    }

    /// The issuer on the left; title, number and status badge on the right.
    fn header(&mut self, doc: &InvoiceDocument) {
        let title = clean(&doc.title, false);
        let number = clean(&doc.number, false);
        let status = clean(&doc.status, false);
        // The right column takes at most half the width; longer words shrink to fit it.
        let max_width = CONTENT_WIDTH / 2.0;
        let title_size = self.fonts.fit(&title, Weight::Bold, 22.0, max_width);
        let number_size = self.fonts.fit(&number, Weight::Bold, 11.0, max_width);
        let badge_size = self.fonts.fit(&status, Weight::Bold, 8.5, max_width - 16.0);
        let badge_width = self.fonts.width(&status, Weight::Bold, badge_size) + 16.0;
        let right_width = self
            .fonts
            .width(&title, Weight::Bold, title_size)
            .max(self.fonts.width(&number, Weight::Bold, number_size))
            .max(badge_width);

        self.text_right(RIGHT, TOP + 20.0, title_size, Weight::Bold, ACCENT, &title);
        self.text_right(RIGHT, TOP + 38.0, number_size, Weight::Bold, INK, &number);
        let mut right_bottom = TOP + 42.0;
        if !status.is_empty() {
            let top = TOP + 48.0;
            self.rect(
                RIGHT - badge_width,
                top,
                badge_width,
                16.0,
                status_color(&status),
            );
            self.text(
                RIGHT - badge_width + 8.0,
                top + 11.3,
                badge_size,
                Weight::Bold,
                WHITE,
                &status,
            );
            right_bottom = top + 16.0;
        }

        let issuer_width = (CONTENT_WIDTH - right_width - 24.0).max(150.0);
        let left_bottom = self.party(MARGIN, TOP + 2.0, issuer_width, &doc.issuer, 14.0);
        self.y = left_bottom.max(right_bottom) + 14.0;
        self.rect(MARGIN, self.y, CONTENT_WIDTH, 0.8, RULE);
        self.y += 20.0;
    }

    /// The recipient on the left; dates, currency and balance due on the right.
    fn parties_and_dates(&mut self, doc: &InvoiceDocument) {
        let top = self.y;
        let label = clean(&doc.recipient_label, false);
        let label = if label.is_empty() {
            "Bill to".to_owned()
        } else {
            label
        };
        let details_width = 220.0;
        let party_width = CONTENT_WIDTH - details_width - 24.0;
        let left = self.paragraph(MARGIN, top, party_width, &label, 8.0, Weight::Bold, MUTED);
        let left = self.party(MARGIN, left + 2.0, party_width, &doc.recipient, 11.0);

        let currency = clean(&doc.currency, false);
        let rows = [
            ("Issue date", clean(&doc.issue_date, false), Weight::Regular),
            ("Due date", clean(&doc.due_date, false), Weight::Regular),
            ("Currency", currency.clone(), Weight::Regular),
            (
                "Balance due",
                with_currency(&currency, &doc.balance_due),
                Weight::Bold,
            ),
        ];
        let label_x = RIGHT - details_width;
        let mut row_top = top;
        for (label, value, weight) in rows {
            let baseline = row_top + 10.0;
            self.text(label_x, baseline, BODY, weight, MUTED, label);
            let size = self.fonts.fit(&value, weight, BODY, details_width - 80.0);
            self.text_right(RIGHT, baseline, size, weight, INK, &value);
            row_top += 15.0;
        }
        self.y = left.max(row_top) + 22.0;
    }

    fn items(&mut self, doc: &InvoiceDocument) {
        let fixed = 50.0 + 82.0 + 70.0 + 88.0;
        let columns = [
            column("Description", CONTENT_WIDTH - fixed, Align::Left, true),
            column("Qty", 50.0, Align::Right, false),
            column("Unit price", 82.0, Align::Right, false),
            column("Tax", 70.0, Align::Right, true),
            column("Amount", 88.0, Align::Right, false),
        ];
        let rows = doc
            .items
            .iter()
            .map(|item| {
                vec![
                    clean(&item.description, true),
                    clean(&item.quantity, false),
                    clean(&item.unit_price, false),
                    clean(&item.tax, false),
                    clean(&item.line_total, false),
                ]
            })
            .collect();
        self.table(&columns, rows, "No items");
    }

    fn table_head(&mut self, columns: &[Column]) {
        self.rect(MARGIN, self.y, CONTENT_WIDTH, TABLE_HEAD, HEAD_FILL);
        let baseline = self.y + 13.0;
        let mut x = MARGIN;
        for column in columns {
            match column.align {
                Align::Left => self.text(
                    x + CELL_PAD,
                    baseline,
                    8.0,
                    Weight::Bold,
                    MUTED,
                    column.title,
                ),
                Align::Right => self.text_right(
                    x + column.width - CELL_PAD,
                    baseline,
                    8.0,
                    Weight::Bold,
                    MUTED,
                    column.title,
                ),
            }
            x += column.width;
        }
        self.y += TABLE_HEAD;
    }

    fn table(&mut self, columns: &[Column], rows: Vec<Vec<String>>, empty: &str) {
        self.ensure(TABLE_HEAD + LINE + ROW_PAD);
        self.table_head(columns);
        // True while the rows on this page are the first under its table head: a row that
        // does not fit there would not fit anywhere, so it is split over pages instead.
        let mut fresh = true;
        if rows.is_empty() {
            self.text(
                MARGIN + CELL_PAD,
                self.y + 12.5,
                BODY,
                Weight::Regular,
                MUTED,
                empty,
            );
            self.y += LINE + ROW_PAD;
        }
        for row in rows {
            let cells: Vec<(Vec<String>, f32)> = columns
                .iter()
                .zip(row)
                .map(|(column, text)| {
                    let inner = column.width - 2.0 * CELL_PAD;
                    if column.wraps {
                        (self.fonts.wrap(&text, Weight::Regular, BODY, inner), BODY)
                    } else {
                        let size = self.fonts.fit(&text, Weight::Regular, BODY, inner);
                        (vec![text], size)
                    }
                })
                .collect();
            let line_count = cells
                .iter()
                .map(|(lines, _)| lines.len())
                .max()
                .unwrap_or(1)
                .max(1);
            let mut first = 0;
            while first < line_count {
                let remaining = line_count - first;
                let room = ((CONTENT_BOTTOM - self.y - ROW_PAD) / LINE)
                    .floor()
                    .max(0.0) as usize;
                let take = if remaining <= room {
                    remaining
                } else if fresh {
                    room.max(1)
                } else {
                    self.new_page();
                    self.table_head(columns);
                    fresh = true;
                    continue;
                };
                let mut x = MARGIN;
                for (column, (lines, size)) in columns.iter().zip(&cells) {
                    for (offset, line) in lines.iter().skip(first).take(take).enumerate() {
                        let baseline = self.y + 12.5 + offset as f32 * LINE;
                        match column.align {
                            Align::Left => {
                                self.text(
                                    x + CELL_PAD,
                                    baseline,
                                    *size,
                                    Weight::Regular,
                                    INK,
                                    line,
                                );
                            }
                            Align::Right => self.text_right(
                                x + column.width - CELL_PAD,
                                baseline,
                                *size,
                                Weight::Regular,
                                INK,
                                line,
                            ),
                        }
                    }
                    x += column.width;
                }
                self.y += take as f32 * LINE + ROW_PAD;
                self.rect(MARGIN, self.y - 0.5, CONTENT_WIDTH, 0.5, RULE);
                first += take;
                fresh = false;
            }
        }
    }

    /// Subtotal, taxes, total and amount paid on the right, then the balance due boxed.
    fn totals(&mut self, doc: &InvoiceDocument) {
        let currency = clean(&doc.currency, false);
        let mut rows = vec![(
            "Subtotal".to_owned(),
            clean(&doc.subtotal, false),
            Weight::Regular,
        )];
        for (label, amount) in &doc.taxes {
            rows.push((clean(label, false), clean(amount, false), Weight::Regular));
        }
        rows.push((
            "Total".to_owned(),
            with_currency(&currency, &doc.total),
            Weight::Bold,
        ));
        rows.push((
            "Amount paid".to_owned(),
            clean(&doc.amount_paid, false),
            Weight::Regular,
        ));

        let left = RIGHT - TOTALS_WIDTH;
        let label_width = TOTALS_WIDTH - TOTALS_VALUE_WIDTH - CELL_PAD;
        let balance_height = 26.0;
        self.y += 10.0;
        let block = rows.len() as f32 * 17.0 + balance_height + 8.0;
        self.ensure(block.min(CONTENT_BOTTOM - self.page_top));
        for (label, value, weight) in rows {
            let lines = self.fonts.wrap(&label, weight, BODY, label_width);
            let height = lines.len() as f32 * LINE + 5.0;
            self.ensure(height);
            if weight == Weight::Bold {
                self.rect(left, self.y, TOTALS_WIDTH, 0.8, INK);
            }
            for (index, line) in lines.iter().enumerate() {
                self.text(
                    left + CELL_PAD,
                    self.y + 12.0 + index as f32 * LINE,
                    BODY,
                    weight,
                    INK,
                    line,
                );
            }
            let size = self
                .fonts
                .fit(&value, weight, BODY, TOTALS_VALUE_WIDTH - CELL_PAD);
            self.text_right(RIGHT - CELL_PAD, self.y + 12.0, size, weight, INK, &value);
            self.y += height;
        }

        self.y += 4.0;
        self.ensure(balance_height);
        self.rect(left, self.y, TOTALS_WIDTH, balance_height, ACCENT);
        let baseline = self.y + 17.0;
        self.text(
            left + CELL_PAD,
            baseline,
            10.5,
            Weight::Bold,
            WHITE,
            "Balance due",
        );
        let balance = with_currency(&currency, &doc.balance_due);
        let size = self
            .fonts
            .fit(&balance, Weight::Bold, 11.0, TOTALS_VALUE_WIDTH - CELL_PAD);
        self.text_right(
            RIGHT - CELL_PAD,
            baseline,
            size,
            Weight::Bold,
            WHITE,
            &balance,
        );
        self.y += balance_height;
    }

    fn section_heading(&mut self, title: &str, keep_with: f32) {
        self.y += 22.0;
        self.ensure(18.0 + keep_with);
        self.text(MARGIN, self.y + 11.0, 11.0, Weight::Bold, INK, title);
        self.y += 18.0;
    }

    fn payments(&mut self, doc: &InvoiceDocument) {
        if doc.payments.is_empty() {
            return;
        }
        self.section_heading("Payments", TABLE_HEAD + LINE + ROW_PAD);
        let fixed = 90.0 + 120.0 + 100.0;
        let columns = [
            column("Date", 90.0, Align::Left, true),
            column("Method", 120.0, Align::Left, true),
            column("Reference", CONTENT_WIDTH - fixed, Align::Left, true),
            column("Amount", 100.0, Align::Right, false),
        ];
        let rows = doc
            .payments
            .iter()
            .map(|payment| {
                vec![
                    clean(&payment.date, false),
                    clean(&payment.method, false),
                    clean(&payment.reference, false),
                    clean(&payment.amount, false),
                ]
            })
            .collect();
        self.table(&columns, rows, "");
    }

    fn notes(&mut self, doc: &InvoiceDocument) {
        let notes = doc
            .notes
            .as_deref()
            .map(|notes| clean(notes, true))
            .unwrap_or_default();
        if notes.is_empty() {
            return;
        }
        self.section_heading("Notes", LINE);
        for line in self
            .fonts
            .wrap(&notes, Weight::Regular, BODY, CONTENT_WIDTH)
        {
            self.ensure(LINE);
            self.text(MARGIN, self.y + BODY, BODY, Weight::Regular, INK, &line);
            self.y += LINE;
        }
    }

    /// The running head and "Page i of n" at the foot of every page.
    fn footers(&mut self) {
        let count = self.pages.len();
        for index in 0..count {
            let number = format!("Page {} of {count}", index + 1);
            let number_width = self.fonts.width(&number, Weight::Regular, 8.0);
            let mut ops = vec![Op::Rect {
                x: MARGIN,
                y: FOOTER_BASELINE - 14.0,
                width: CONTENT_WIDTH,
                height: 0.5,
                color: RULE,
            }];
            if !self.running_head.is_empty() {
                let size = self.fonts.fit(
                    &self.running_head,
                    Weight::Regular,
                    8.0,
                    CONTENT_WIDTH - 120.0,
                );
                ops.push(self.run(
                    MARGIN,
                    FOOTER_BASELINE,
                    size,
                    Weight::Regular,
                    MUTED,
                    &self.running_head,
                ));
            }
            ops.push(self.run(
                RIGHT - number_width,
                FOOTER_BASELINE,
                8.0,
                Weight::Regular,
                MUTED,
                &number,
            ));
            self.pages[index].extend(ops);
        }
    }
}

fn column(title: &'static str, width: f32, align: Align, wraps: bool) -> Column {
    Column {
        title,
        width,
        align,
        wraps,
    }
}

fn with_currency(currency: &str, amount: &str) -> String {
    let amount = clean(amount, false);
    if currency.is_empty() || amount.is_empty() {
        amount
    } else {
        format!("{currency} {amount}")
    }
}

/// The badge colour for a status word: green when settled, amber when partly, red when
/// overdue, grey for drafts and voids, the accent blue otherwise.
fn status_color(status: &str) -> Color {
    let status = status.to_lowercase().replace(['_', '-'], " ");
    match status.as_str() {
        "paid" => Color(0x2e, 0x7d, 0x32),
        "partially paid" => Color(0xb4, 0x53, 0x09),
        "overdue" => Color(0xc6, 0x28, 0x28),
        "draft" | "void" | "voided" => Color(0x6b, 0x72, 0x80),
        _ => ACCENT,
    }
}

#[cfg(test)]
mod tests;
