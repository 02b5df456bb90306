//! Attachments: files (receipts, statements) kept beside a transaction, invoice or bill.
//!
//! The bytes live in a blob store ([`crate::ports::Blobs`]) under a key the service
//! makes up (never client input); the row holds what the service decided about them: the
//! content type sniffed from the bytes (the client's `Content-Type` is never trusted),
//! the size and the SHA-256 checksum. [`sniff`] is the allow-list.

use sha2::{Digest, Sha256};
use time::OffsetDateTime;

/// Default upper bound of one upload, in bytes (10 MiB).
pub const DEFAULT_MAX_ATTACHMENT_BYTES: usize = 10 * 1024 * 1024;

/// Longest file name kept (in characters); longer names are refused.
pub const MAX_FILE_NAME_CHARS: usize = 255;

/// What an attachment belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OwnerKind {
    Transaction,
    Invoice,
    Bill,
}

impl OwnerKind {
    /// The resource name (`transaction`, `invoice`, `bill`), as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Transaction => "transaction",
            Self::Invoice => "invoice",
            Self::Bill => "bill",
        }
    }

    /// Parses a stored owner type.
    pub fn parse(text: &str) -> Option<Self> {
        [Self::Transaction, Self::Invoice, Self::Bill]
            .into_iter()
            .find(|k| k.as_str() == text)
    }
}

/// An attachment's metadata (the bytes are in the blob store under `storage_key`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    pub id: String,
    pub organization_id: String,
    pub livemode: bool,
    pub owner_type: OwnerKind,
    pub owner_id: String,
    pub file_name: String,
    /// Sniffed from the bytes (see [`sniff`]).
    pub content_type: String,
    pub size_bytes: i64,
    /// Lowercase hex SHA-256 of the bytes.
    pub sha256: String,
    pub storage_key: String,
    /// The API key that uploaded it.
    pub created_by: String,
    pub created_at: OffsetDateTime,
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for byte in digest {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// The content type of `bytes` by their magic numbers, or `None` when the kind is not
/// allowed: PDF, PNG, JPEG, GIF, WebP, OFX/QFX statements, and text (valid UTF-8
/// without NUL bytes; `text/csv` when the file name ends in `.csv`, else `text/plain`).
/// Empty input is not allowed.
pub fn sniff(bytes: &[u8], file_name: &str) -> Option<&'static str> {
    if bytes.starts_with(b"%PDF-") {
        return Some("application/pdf");
    }
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Some("image/png");
    }
    if bytes.starts_with(b"\xFF\xD8\xFF") {
        return Some("image/jpeg");
    }
    if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        return Some("image/gif");
    }
    if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        return Some("image/webp");
    }
    if bytes.is_empty() || bytes.contains(&0) {
        return None;
    }
    let text = std::str::from_utf8(bytes).ok()?;
    let head = text.trim_start_matches('\u{feff}').trim_start();
    if head.starts_with("OFXHEADER") || head.starts_with("<OFX>") {
        return Some("application/x-ofx");
    }
    // Text passes through only with the printable characters and the usual whitespace.
    let control = text
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t' | '\u{c}'));
    if control {
        return None;
    }
    if file_name.to_ascii_lowercase().ends_with(".csv") {
        Some("text/csv")
    } else {
        Some("text/plain")
    }
}

/// A client's file name made safe to keep and to echo in `Content-Disposition`: the last
/// path segment, control characters and quotes dropped, trimmed; `None` when nothing
/// remains or it is longer than [`MAX_FILE_NAME_CHARS`]. The name never reaches storage
/// keys.
pub fn clean_file_name(name: &str) -> Option<String> {
    let last = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let cleaned: String = last
        .chars()
        .filter(|c| !c.is_control() && *c != '"')
        .collect();
    let cleaned = cleaned.trim().to_owned();
    let fine = !cleaned.is_empty()
        && cleaned != "."
        && cleaned != ".."
        && cleaned.chars().count() <= MAX_FILE_NAME_CHARS;
    fine.then_some(cleaned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffing_allows_the_listed_kinds_by_their_bytes() {
        let cases: &[(&[u8], &str, Option<&str>)] = &[
            (b"%PDF-1.7\n...", "a.bin", Some("application/pdf")),
            (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "x.png", Some("image/png")),
            (b"\xFF\xD8\xFF\xE0\0\x10JFIF", "x.jpg", Some("image/jpeg")),
            (b"GIF89a\x01\0", "x.gif", Some("image/gif")),
            (b"RIFF\x24\0\0\0WEBPVP8 ", "x.webp", Some("image/webp")),
            (
                b"date,amount\n2026-01-01,10.00\n",
                "bank.CSV",
                Some("text/csv"),
            ),
            (b"date,amount\n", "notes.txt", Some("text/plain")),
            (
                "Beleg f\u{fc}r M\u{e4}rz\r\n".as_bytes(),
                "r.txt",
                Some("text/plain"),
            ),
            (
                b"OFXHEADER:100\nDATA:OFXSGML\n",
                "s.qfx",
                Some("application/x-ofx"),
            ),
            (
                b"\xEF\xBB\xBF  <OFX>\n<SIGNONMSGSRSV1>",
                "s.ofx",
                Some("application/x-ofx"),
            ),
        ];
        for (bytes, name, expected) in cases {
            assert_eq!(sniff(bytes, name), *expected, "{name}");
        }
    }

    #[test]
    fn sniffing_refuses_everything_else_whatever_the_name() {
        let cases: &[&[u8]] = &[
            b"",
            b"MZ\x90\0\x03\0\0\0",        // a Windows executable
            b"\x7fELF\x02\x01\x01\0",     // an ELF executable
            b"PK\x03\x04\x14\0\0\0",      // a ZIP (and so DOCX/XLSX)
            b"text with a \0 NUL",        // binary posing as text
            b"\xC3\x28 invalid UTF-8",    // not UTF-8
            b"escape \x1b[31m sequences", // control characters
            b"RIFF\x24\0\0\0WAVEfmt ",    // RIFF, but not WebP
        ];
        for bytes in cases {
            assert_eq!(sniff(bytes, "receipt.pdf"), None, "{bytes:?}");
        }
    }

    #[test]
    fn checksums_are_lowercase_hex_sha256() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn file_names_keep_their_last_segment_only() {
        assert_eq!(
            clean_file_name("../../etc/passwd").as_deref(),
            Some("passwd")
        );
        assert_eq!(
            clean_file_name("C:\\x\\r\"1\".pdf").as_deref(),
            Some("r1.pdf")
        );
        assert_eq!(clean_file_name("  a.csv ").as_deref(), Some("a.csv"));
        assert_eq!(clean_file_name("dir/"), None);
        assert_eq!(clean_file_name(".."), None);
        assert_eq!(clean_file_name(&"a".repeat(256)), None);
    }
}
