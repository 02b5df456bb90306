//! `OutboxMailer`: mail written as `.eml` files into a local directory (development's
//! outbox, `LEDGER_MAIL_OUTBOX`), instead of being sent over SMTP.
//!
//! Each message is one RFC 5322 file (UTF-8 plain text, `8bit`), written to a temporary
//! name and renamed, so a reader of the directory sees whole messages only. The file
//! name starts with the time, so a directory listing is in sending order.

use std::path::PathBuf;

use ledger_domain::DomainError;
use ledger_domain::ports::{BoxFuture, Mail, Mailer};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc2822;

/// A mailer writing each message as a file into a directory.
#[derive(Debug, Clone)]
pub struct OutboxMailer {
    dir: PathBuf,
    from: String,
}

impl OutboxMailer {
    /// A mailer writing into `dir` (created on the first message), from `from`.
    pub fn new(dir: impl Into<PathBuf>, from: impl Into<String>) -> Self {
        Self {
            dir: dir.into(),
            from: from.into(),
        }
    }
}

/// A header value on one line (a CR or LF would start a forged header).
fn header_value(text: &str) -> String {
    text.chars().filter(|c| *c != '\r' && *c != '\n').collect()
}

/// The message as an RFC 5322 text with CRLF line ends.
fn render(mail: &Mail, from: &str, id: &str, now: OffsetDateTime) -> String {
    let date = now.format(&Rfc2822).unwrap_or_default();
    let mut text = String::new();
    for (name, value) in [
        ("From", from),
        ("To", mail.to.as_str()),
        ("Subject", mail.subject.as_str()),
        ("Date", date.as_str()),
        ("Message-ID", &format!("<{id}@ledger.local>")),
        ("MIME-Version", "1.0"),
        ("Content-Type", "text/plain; charset=utf-8"),
        ("Content-Transfer-Encoding", "8bit"),
    ] {
        text.push_str(&format!("{name}: {}\r\n", header_value(value)));
    }
    text.push_str("\r\n");
    for line in mail.body.lines() {
        text.push_str(line);
        text.push_str("\r\n");
    }
    text
}

impl Mailer for OutboxMailer {
    fn send(&self, mail: Mail) -> BoxFuture<'_, Result<(), DomainError>> {
        Box::pin(async move {
            let failed = |e: std::io::Error| DomainError::Internal(format!("mail outbox: {e}"));
            let now = OffsetDateTime::now_utc();
            let id = ledger_domain::ids::new_id(ledger_domain::ids::IdKind::Request)
                .replacen("req_", "mail_", 1);
            let name = format!("{}-{id}.eml", now.unix_timestamp_nanos());
            tokio::fs::create_dir_all(&self.dir).await.map_err(failed)?;
            let temp = self.dir.join(format!(".{name}.tmp"));
            tokio::fs::write(&temp, render(&mail, &self.from, &id, now))
                .await
                .map_err(failed)?;
            let path = self.dir.join(&name);
            tokio::fs::rename(&temp, &path).await.map_err(failed)?;
            // Without SMTP the sign-in link is only in this file: say where it is.
            tracing::info!(path = %path.display(), subject = %mail.subject, "mail written to the outbox");
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_rfc_5322_without_header_injection() {
        let mail = Mail {
            to: "a@example.com\r\nBcc: evil@example.com".into(),
            subject: "Hi".into(),
            body: "line one\nline two".into(),
        };
        let text = render(
            &mail,
            "ledger@localhost",
            "mail_1",
            OffsetDateTime::UNIX_EPOCH,
        );
        assert!(text.contains("To: a@example.comBcc: evil@example.com\r\n"));
        assert!(text.contains("\r\n\r\nline one\r\nline two\r\n"));
        assert!(text.starts_with("From: ledger@localhost\r\n"));
    }
}
