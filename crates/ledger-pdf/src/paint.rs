//! Writes laid-out pages into a PDF with krilla, which embeds only the glyphs used (font
//! subsetting) and builds the text layer from each glyph's text range. No creation date is
//! written and krilla derives the document id from the content, so output is reproducible.

use krilla::Document;
use krilla::color::rgb;
use krilla::geom::{PathBuilder, Point, Rect};
use krilla::metadata::Metadata;
use krilla::num::NormalizedF32;
use krilla::page::PageSettings;
use krilla::paint::{Fill, FillRule};
use krilla::surface::Surface;

use crate::PdfError;
use crate::layout::{Color, Op, PAGE_HEIGHT, PAGE_WIDTH, Page};
use crate::text::Fonts;

pub(crate) fn paint(pages: &[Page], fonts: &Fonts, title: String) -> Result<Vec<u8>, PdfError> {
    let mut document = Document::new();
    document.set_metadata(Metadata::new().title(title).creator("Ledger".to_owned()));
    let settings = PageSettings::from_wh(PAGE_WIDTH, PAGE_HEIGHT)
        .ok_or_else(|| PdfError::Write("invalid page size".to_owned()))?;
    for ops in pages {
        let mut page = document.start_page_with(settings.clone());
        let mut surface = page.surface();
        for op in ops {
            draw(&mut surface, fonts, op);
        }
        surface.finish();
        page.finish();
    }
    document
        .finish()
        .map_err(|error| PdfError::Write(error.to_string()))
}

fn draw(surface: &mut Surface<'_>, fonts: &Fonts, op: &Op) {
    match op {
        Op::Text(run) => {
            surface.set_fill(Some(fill(run.color)));
            surface.draw_glyphs(
                Point::from_xy(run.x, run.y),
                &run.glyphs,
                fonts.face(run.weight).pdf.clone(),
                &run.text,
                run.size,
                false,
            );
        }
        Op::Rect {
            x,
            y,
            width,
            height,
            color,
        } => {
            let mut builder = PathBuilder::new();
            if let Some(rect) = Rect::from_xywh(*x, *y, *width, *height) {
                builder.push_rect(rect);
            }
            if let Some(path) = builder.finish() {
                surface.set_fill(Some(fill(*color)));
                surface.draw_path(&path);
            }
        }
    }
}

fn fill(Color(red, green, blue): Color) -> Fill {
    Fill {
        paint: rgb::Color::new(red, green, blue).into(),
        opacity: NormalizedF32::ONE,
        rule: FillRule::NonZero,
    }
}
