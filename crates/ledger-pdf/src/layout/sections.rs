//! The document's sections, top to bottom: header, parties and dates, items, totals,
//! payments, notes, and the footers added once every page exists.

use super::{
    ACCENT, Align, BODY, CELL_PAD, CONTENT_BOTTOM, CONTENT_WIDTH, FOOTER_BASELINE, INK, LINE,
    MARGIN, MUTED, Op, RIGHT, ROW_PAD, RULE, TABLE_HEAD, TOP, TOTALS_VALUE_WIDTH, TOTALS_WIDTH,
    WHITE, Writer, column, status_color, with_currency,
};
use crate::InvoiceDocument;
use crate::text::{Weight, clean};

impl Writer<'_> {
    /// The issuer on the left; title, number and status badge on the right.
    pub(super) fn header(&mut self, doc: &InvoiceDocument) {
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
    pub(super) fn parties_and_dates(&mut self, doc: &InvoiceDocument) {
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

    pub(super) fn items(&mut self, doc: &InvoiceDocument) {
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
    /// Subtotal, taxes, total and amount paid on the right, then the balance due boxed.
    pub(super) fn totals(&mut self, doc: &InvoiceDocument) {
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

    pub(super) fn payments(&mut self, doc: &InvoiceDocument) {
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

    pub(super) fn notes(&mut self, doc: &InvoiceDocument) {
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
    pub(super) fn footers(&mut self) {
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
