//! Places a document on A4 pages as text runs and filled rectangles, in points from the
//! top left corner (y grows downwards; a text run's y is its baseline).
//!
//! Invariant: nothing but the footer is placed below `CONTENT_BOTTOM`, so content never
//! runs into the page number; a table row moves whole to the next page unless it is taller
//! than a page, and every page a table continues on starts with the table's header.//!
//! The parts: this file holds the page geometry, the drawing primitives and page breaks;
//! `sections` the document's parts from header to footers; `table` the tables (items,
//! payments) with their row splitting.

mod sections;
mod table;

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
