//! The domain's `Mailer` port over SMTP with `lettre` (the e-mailed sign-in link when
//! `LEDGER_SMTP_URL` is set; without it, mail lands in the local outbox directory).
//!
//! The URL is lettre's: `smtps://user:pass@host:465` (TLS), `smtp://...?tls=required`
//! (STARTTLS required), `smtp://host:port` (plain, for a local relay or a test sink).

use std::time::Duration;

use ledger_domain::DomainError;
use ledger_domain::ports::{BoxFuture, Mail, Mailer};
use lettre::message::Mailbox;
use lettre::message::header::ContentType;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

/// Sends each message to one SMTP relay.
pub struct SmtpMailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
}

impl SmtpMailer {
    /// A mailer sending through the relay of `url`, from `from` (`Name <address>`).
    ///
    /// # Errors
    /// A message naming what is wrong with the URL or the sender.
    pub fn new(url: &str, from: &str) -> Result<Self, String> {
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .map_err(|e| format!("LEDGER_SMTP_URL is not a usable SMTP URL: {e}"))?
            .timeout(Some(Duration::from_secs(15)))
            .build();
        let from = from
            .parse()
            .map_err(|e| format!("LEDGER_MAIL_FROM is not a mailbox: {e}"))?;
        Ok(Self { transport, from })
    }
}

impl Mailer for SmtpMailer {
    fn send(&self, mail: Mail) -> BoxFuture<'_, Result<(), DomainError>> {
        Box::pin(async move {
            let to: Mailbox = mail.to.parse().map_err(|e| {
                DomainError::invalid_field("email", format!("cannot be mailed to: {e}"))
            })?;
            let message = Message::builder()
                .from(self.from.clone())
                .to(to)
                .subject(mail.subject)
                .header(ContentType::TEXT_PLAIN)
                .body(mail.body)
                .map_err(|e| DomainError::Internal(format!("building the mail: {e}")))?;
            self.transport
                .send(message)
                .await
                .map(|_| ())
                .map_err(|e| DomainError::Internal(format!("SMTP delivery failed: {e}")))
        })
    }
}
