//! A local SMTP sink the test starts: it speaks enough RFC 5321 for a client (greeting,
//! EHLO/HELO, MAIL, RCPT, DATA with dot-unstuffing, RSET, NOOP, QUIT) and keeps each
//! message it receives with its envelope.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// One received message.
#[derive(Debug, Clone, Default)]
pub struct Received {
    pub mail_from: String,
    pub rcpt_to: Vec<String>,
    /// The message as sent after DATA (headers and body, CRLF line ends).
    pub data: String,
}

/// The running sink.
pub struct SmtpSink {
    pub port: u16,
    messages: Arc<Mutex<Vec<Received>>>,
    task: tokio::task::JoinHandle<()>,
}

impl SmtpSink {
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let messages = Arc::new(Mutex::new(Vec::new()));
        let store = messages.clone();
        let task = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let store = store.clone();
                tokio::spawn(async move {
                    let _ = session(socket, store).await;
                });
            }
        });
        Self {
            port,
            messages,
            task,
        }
    }

    /// The messages received so far.
    pub fn messages(&self) -> Vec<Received> {
        self.messages.lock().expect("messages").clone()
    }

    pub fn stop(self) {
        self.task.abort();
    }
}

async fn session(
    socket: tokio::net::TcpStream,
    store: Arc<Mutex<Vec<Received>>>,
) -> std::io::Result<()> {
    let (read, mut write) = socket.into_split();
    let mut lines = BufReader::new(read);
    write.write_all(b"220 sink.test ESMTP ready\r\n").await?;
    let mut current = Received::default();
    loop {
        let mut line = String::new();
        if lines.read_line(&mut line).await? == 0 {
            return Ok(());
        }
        let command = line.trim_end().to_owned();
        let verb = command
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_ascii_uppercase();
        match verb.as_str() {
            "EHLO" => {
                write
                    .write_all(b"250-sink.test\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n")
                    .await?
            }
            "HELO" => write.write_all(b"250 sink.test\r\n").await?,
            "MAIL" => {
                current = Received {
                    mail_from: path_of(&command),
                    ..Received::default()
                };
                write.write_all(b"250 OK\r\n").await?;
            }
            "RCPT" => {
                current.rcpt_to.push(path_of(&command));
                write.write_all(b"250 OK\r\n").await?;
            }
            "DATA" => {
                write
                    .write_all(b"354 End data with <CR><LF>.<CR><LF>\r\n")
                    .await?;
                let mut data = String::new();
                loop {
                    let mut line = String::new();
                    if lines.read_line(&mut line).await? == 0 {
                        return Ok(());
                    }
                    if line == ".\r\n" || line == ".\n" {
                        break;
                    }
                    data.push_str(line.strip_prefix('.').unwrap_or(&line));
                }
                current.data = data;
                store.lock().expect("messages").push(current.clone());
                write.write_all(b"250 OK: queued\r\n").await?;
            }
            "RSET" | "NOOP" => write.write_all(b"250 OK\r\n").await?,
            "QUIT" => {
                write.write_all(b"221 Bye\r\n").await?;
                return Ok(());
            }
            _ => write.write_all(b"502 Command not implemented\r\n").await?,
        }
    }
}

/// The `<path>` of a MAIL or RCPT command (parameters after it dropped).
fn path_of(command: &str) -> String {
    match (command.find('<'), command.find('>')) {
        (Some(start), Some(end)) if start < end => command[start..=end].to_owned(),
        _ => String::new(),
    }
}

/// The text of a `quoted-printable` body (soft line breaks joined, `=XX` decoded).
pub fn decode_quoted_printable(text: &str) -> String {
    let joined = text.replace("=\r\n", "").replace("=\n", "");
    let bytes = joined.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        if bytes[i] == b'='
            && let Some(b) = hex
        {
            out.push(b);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
