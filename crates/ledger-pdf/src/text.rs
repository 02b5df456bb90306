//! The two embedded faces, text shaping, measuring and line wrapping.
//!
//! Text is shaped once, here, with rustybuzz; the layout measures the shaped glyphs and the
//! painter draws the very same glyphs, so a right-aligned figure ends exactly on its edge.
//! Lines run left to right: right-to-left scripts are not laid out (no bidi).

use std::sync::OnceLock;

use krilla::text::{Font, GlyphId, KrillaGlyph};

use crate::PdfError;

static REGULAR: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");
static BOLD: &[u8] = include_bytes!("../fonts/DejaVuSans-Bold.ttf");

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Weight {
    Regular,
    Bold,
}

/// One face, loaded twice over the same bytes: once for the PDF, once for shaping.
pub(crate) struct Face {
    pub(crate) pdf: Font,
    shaper: rustybuzz::Face<'static>,
    units_per_em: f32,
}

impl Face {
    fn load(data: &'static [u8], name: &'static str) -> Result<Self, &'static str> {
        let pdf = Font::new(data.into(), 0).ok_or(name)?;
        let shaper = rustybuzz::Face::from_slice(data, 0).ok_or(name)?;
        let units_per_em = pdf.units_per_em();
        Ok(Self {
            pdf,
            shaper,
            units_per_em,
        })
    }
}

pub(crate) struct Fonts {
    regular: Face,
    bold: Face,
}

/// Glyphs of one line of text at a size of 1, and their total advance.
pub(crate) struct Shaped {
    pub(crate) glyphs: Vec<KrillaGlyph>,
    pub(crate) advance: f32,
}

impl Fonts {
    /// The faces, parsed (and hashed by krilla) on first use and shared afterwards.
    pub(crate) fn get() -> Result<&'static Self, PdfError> {
        static FONTS: OnceLock<Result<Fonts, &'static str>> = OnceLock::new();
        FONTS
            .get_or_init(|| {
                Ok(Self {
                    regular: Face::load(REGULAR, "DejaVuSans.ttf")?,
                    bold: Face::load(BOLD, "DejaVuSans-Bold.ttf")?,
                })
            })
            .as_ref()
            .map_err(|name| PdfError::Font(name))
    }

    pub(crate) fn face(&self, weight: Weight) -> &Face {
        match weight {
            Weight::Regular => &self.regular,
            Weight::Bold => &self.bold,
        }
    }

    /// Shapes one line. Each glyph's text range is its cluster in `text`, which is what
    /// the PDF's text layer (copy and paste, `pdftotext`) is built from.
    pub(crate) fn shape(&self, text: &str, weight: Weight) -> Shaped {
        let face = self.face(weight);
        let mut buffer = rustybuzz::UnicodeBuffer::new();
        buffer.push_str(text);
        buffer.set_direction(rustybuzz::Direction::LeftToRight);
        buffer.guess_segment_properties();
        let output = rustybuzz::shape(&face.shaper, &[], buffer);
        let infos = output.glyph_infos();
        let positions = output.glyph_positions();
        let em = face.units_per_em;
        let mut glyphs = Vec::with_capacity(infos.len());
        let mut advance = 0.0;
        for (i, (info, pos)) in infos.iter().zip(positions).enumerate() {
            let start = info.cluster as usize;
            // Left to right, clusters never decrease: this cluster ends where the next
            // different one starts.
            let end = infos[i + 1..]
                .iter()
                .map(|next| next.cluster as usize)
                .find(|&next| next != start)
                .unwrap_or(text.len());
            let x_advance = pos.x_advance as f32 / em;
            advance += x_advance;
            glyphs.push(KrillaGlyph::new(
                GlyphId::new(info.glyph_id),
                x_advance,
                pos.x_offset as f32 / em,
                pos.y_offset as f32 / em,
                pos.y_advance as f32 / em,
                start..end,
                None,
            ));
        }
        Shaped { glyphs, advance }
    }

    /// The width of one line of `text` at `size` points.
    pub(crate) fn width(&self, text: &str, weight: Weight, size: f32) -> f32 {
        self.shape(text, weight).advance * size
    }

    /// Breaks `text` into lines no wider than `max_width`: at spaces where it can, inside
    /// a word longer than a whole line where it must. Each `\n` starts a new line; an
    /// empty text is one empty line.
    pub(crate) fn wrap(
        &self,
        text: &str,
        weight: Weight,
        size: f32,
        max_width: f32,
    ) -> Vec<String> {
        let space = self.width(" ", weight, size);
        let mut lines = Vec::new();
        for paragraph in text.split('\n') {
            let mut line = String::new();
            let mut line_width = 0.0;
            for word in paragraph.split_whitespace() {
                let word_width = self.width(word, weight, size);
                let gap = if line.is_empty() { 0.0 } else { space };
                if line_width + gap + word_width <= max_width {
                    if !line.is_empty() {
                        line.push(' ');
                    }
                    line.push_str(word);
                    line_width += gap + word_width;
                    continue;
                }
                if !line.is_empty() {
                    lines.push(std::mem::take(&mut line));
                    line_width = 0.0;
                }
                if word_width <= max_width {
                    line.push_str(word);
                    line_width = word_width;
                    continue;
                }
                for ch in word.chars() {
                    let ch_width = self.width(ch.encode_utf8(&mut [0; 4]), weight, size);
                    if !line.is_empty() && line_width + ch_width > max_width {
                        lines.push(std::mem::take(&mut line));
                        line_width = 0.0;
                    }
                    line.push(ch);
                    line_width += ch_width;
                }
            }
            lines.push(line);
        }
        lines
    }

    /// The size, at most `size`, at which one line of `text` fits in `max_width` (never
    /// below 5 points: past that a figure overflows its cell rather than vanish).
    pub(crate) fn fit(&self, text: &str, weight: Weight, size: f32, max_width: f32) -> f32 {
        let width = self.width(text, weight, size);
        if width <= max_width {
            size
        } else {
            (size * max_width / width).max(5.0)
        }
    }
}

/// Makes caller text printable: tabs and other whitespace controls become spaces, other
/// control characters go. With `multiline`, line breaks (`\n`, `\r\n`) are kept as `\n`.
pub(crate) fn clean(text: &str, multiline: bool) -> String {
    let text = text.replace("\r\n", "\n");
    text.chars()
        .filter_map(|ch| match ch {
            '\n' if multiline => Some('\n'),
            ch if ch.is_whitespace() => Some(' '),
            ch if ch.is_control() => None,
            ch => Some(ch),
        })
        .collect::<String>()
        .trim()
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fonts() -> &'static Fonts {
        Fonts::get().expect("the embedded fonts load")
    }

    #[test]
    fn wrapped_lines_fit_and_keep_every_word_in_order() {
        let fonts = fonts();
        let text = "Consulting services for the migration of the general ledger, including \
                    reconciliation of Müller GmbH accounts in São Paulo and Łódź";
        let lines = fonts.wrap(text, Weight::Regular, 9.0, 120.0);
        assert!(lines.len() > 2, "{lines:?}");
        for line in &lines {
            assert!(
                fonts.width(line, Weight::Regular, 9.0) <= 120.0,
                "{line:?} is too wide"
            );
        }
        assert_eq!(lines.join(" "), text);
    }

    #[test]
    fn a_word_longer_than_the_line_is_broken_inside() {
        let fonts = fonts();
        let word = "X".repeat(80);
        let lines = fonts.wrap(&word, Weight::Bold, 10.0, 100.0);
        assert!(lines.len() > 1);
        assert!(
            lines
                .iter()
                .all(|l| fonts.width(l, Weight::Bold, 10.0) <= 100.0)
        );
        assert_eq!(lines.concat(), word);
    }

    #[test]
    fn line_breaks_are_kept_and_empty_text_is_one_line() {
        let fonts = fonts();
        assert_eq!(
            fonts.wrap("a\n\nb", Weight::Regular, 9.0, 500.0),
            ["a", "", "b"]
        );
        assert_eq!(fonts.wrap("", Weight::Regular, 9.0, 500.0), [""]);
    }

    #[test]
    fn clusters_cover_the_text_so_it_can_be_extracted() {
        let fonts = fonts();
        let text = "Łódź € ﬁ";
        let shaped = fonts.shape(text, Weight::Regular);
        let mut covered = 0;
        for glyph in &shaped.glyphs {
            assert!(glyph.text_range.start <= covered, "a gap before {glyph:?}");
            covered = covered.max(glyph.text_range.end);
        }
        assert_eq!(covered, text.len());
        assert!(shaped.advance > 0.0);
    }

    #[test]
    fn clean_drops_controls_and_keeps_line_breaks_only_when_asked() {
        assert_eq!(clean(" a\tb\u{7}c\r\nd ", true), "a bc\nd");
        assert_eq!(clean("a\nb", false), "a b");
    }

    #[test]
    fn fit_shrinks_only_what_is_too_wide() {
        let fonts = fonts();
        assert_eq!(fonts.fit("1.00", Weight::Regular, 9.0, 100.0), 9.0);
        let size = fonts.fit("1,234,567,890,123.00", Weight::Regular, 9.0, 60.0);
        assert!(size < 9.0);
        assert!(fonts.width("1,234,567,890,123.00", Weight::Regular, size) <= 60.01);
    }
}
