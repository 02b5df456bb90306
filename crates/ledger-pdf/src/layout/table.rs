//! Tables: a header row, then rows whose wrapped cells take as many lines as they need.
//! A row moves whole to the next page (which starts with the header again) unless it is
//! taller than a page, in which case it is split over pages.

use super::{
    Align, BODY, CELL_PAD, CONTENT_BOTTOM, CONTENT_WIDTH, Column, HEAD_FILL, INK, LINE, MARGIN,
    MUTED, ROW_PAD, RULE, TABLE_HEAD, Writer,
};
use crate::text::Weight;

/// A row's cells as laid out: each cell's lines and its text size.
type Cells = Vec<(Vec<String>, f32)>;

impl Writer<'_> {
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

    pub(super) fn table(&mut self, columns: &[Column], rows: Vec<Vec<String>>, empty: &str) {
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
            let cells = self.cells(columns, row);
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
                self.row_lines(columns, &cells, first, take);
                self.y += take as f32 * LINE + ROW_PAD;
                self.rect(MARGIN, self.y - 0.5, CONTENT_WIDTH, 0.5, RULE);
                first += take;
                fresh = false;
            }
        }
    }

    /// Each cell of `row`: wrapped into its column, or on one line shrunk to fit it.
    fn cells(&self, columns: &[Column], row: Vec<String>) -> Cells {
        columns
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
            .collect()
    }

    /// Draws lines `first..first + take` of every cell of a row, from the current top.
    fn row_lines(&mut self, columns: &[Column], cells: &Cells, first: usize, take: usize) {
        let mut x = MARGIN;
        for (column, (lines, size)) in columns.iter().zip(cells) {
            for (offset, line) in lines.iter().skip(first).take(take).enumerate() {
                let baseline = self.y + 12.5 + offset as f32 * LINE;
                match column.align {
                    Align::Left => {
                        self.text(x + CELL_PAD, baseline, *size, Weight::Regular, INK, line);
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
    }
}
