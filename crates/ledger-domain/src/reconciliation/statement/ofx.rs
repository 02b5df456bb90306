//! OFX statements (SGML-style 1.x and XML 2.x alike): the body split into tags and
//! texts, each `STMTTRN` read into a [`ParsedLine`], and `CURDEF` kept as a fact.

use super::{
    MAX_STATEMENT_LINES, ParsedLine, StatementError, StatementFacts, compact_date, read_amount,
};

/// One token of an OFX body: a start tag, an end tag, or the text after a tag.
#[derive(Debug)]
enum Token<'a> {
    Start(String),
    End(String),
    Text(&'a str),
}

/// The tags and texts of an OFX body (from `<OFX>` on). Processing instructions and
/// comments are skipped; SGML leaves without end tags read the same as XML leaves.
fn tokens(body: &str) -> Result<Vec<Token<'_>>, StatementError> {
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(open) = rest.find('<') {
        let text = rest[..open].trim();
        if !text.is_empty() {
            out.push(Token::Text(text));
        }
        rest = &rest[open..];
        if rest.starts_with("<!--") {
            let end = rest
                .find("-->")
                .ok_or_else(|| StatementError::Ofx("a comment is not closed".into()))?;
            rest = &rest[end + 3..];
            continue;
        }
        let close = rest
            .find('>')
            .ok_or_else(|| StatementError::Ofx("a tag is not closed".into()))?;
        let tag = &rest[1..close];
        rest = &rest[close + 1..];
        if tag.starts_with('?') || tag.starts_with('!') {
            continue;
        }
        let self_closing = tag.ends_with('/');
        let name = tag
            .trim_end_matches('/')
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_uppercase();
        if let Some(end) = name.strip_prefix('/') {
            out.push(Token::End(end.to_owned()));
        } else if !name.is_empty() {
            out.push(Token::Start(name.clone()));
            if self_closing {
                out.push(Token::End(name));
            }
        }
    }
    let text = rest.trim();
    if !text.is_empty() {
        out.push(Token::Text(text));
    }
    Ok(out)
}

/// XML and SGML character entities OFX files use.
fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&")
}

/// The transactions and facts of an OFX statement (from its `<OFX>` element on).
pub(super) fn parse_ofx(
    content: &str,
    decimals: u32,
) -> Result<(Vec<ParsedLine>, StatementFacts), StatementError> {
    let upper = content.to_ascii_uppercase();
    let start = upper
        .find("<OFX>")
        .or_else(|| upper.find("<OFX "))
        .ok_or_else(|| StatementError::Ofx("no <OFX> element".into()))?;
    let tokens = tokens(&content[start..])?;
    let mut facts = StatementFacts::default();
    let mut lines = Vec::new();
    // The leaves of the STMTTRN being read (tag, text), and its ordinal.
    let mut current: Option<Vec<(String, String)>> = None;
    let mut ordinal = 0;
    let mut last_tag = String::new();
    for token in tokens {
        match token {
            Token::Start(name) => {
                if name == "STMTTRN" {
                    if current.is_some() {
                        return Err(StatementError::Ofx(format!(
                            "transaction {ordinal} is not closed before the next one"
                        )));
                    }
                    ordinal += 1;
                    current = Some(Vec::new());
                }
                last_tag = name;
            }
            Token::End(name) => {
                if name == "STMTTRN" {
                    let leaves = current.take().ok_or_else(|| {
                        StatementError::Ofx("</STMTTRN> without a transaction".into())
                    })?;
                    if lines.len() >= MAX_STATEMENT_LINES {
                        return Err(StatementError::TooManyLines);
                    }
                    lines.push(ofx_line(&leaves, ordinal, decimals)?);
                }
                last_tag.clear();
            }
            Token::Text(text) => {
                if last_tag.is_empty() {
                    continue;
                }
                let value = unescape(text);
                match &mut current {
                    Some(leaves) => leaves.push((last_tag.clone(), value)),
                    None if last_tag == "CURDEF" => {
                        facts.currency = Some(value.trim().to_ascii_uppercase());
                    }
                    None => {}
                }
                last_tag.clear();
            }
        }
    }
    if current.is_some() {
        return Err(StatementError::Ofx(format!(
            "transaction {ordinal} is not closed"
        )));
    }
    Ok((lines, facts))
}

/// One `STMTTRN` from its leaves: `DTPOSTED` and `TRNAMT` required, `FITID`, `NAME`,
/// `MEMO`, `CHECKNUM` optional.
fn ofx_line(
    leaves: &[(String, String)],
    ordinal: usize,
    decimals: u32,
) -> Result<ParsedLine, StatementError> {
    let get = |tag: &str| {
        leaves
            .iter()
            .find(|(t, _)| t == tag)
            .map(|(_, v)| v.trim())
            .filter(|v| !v.is_empty())
    };
    let bad = |message: String| StatementError::Ofx(format!("transaction {ordinal}: {message}"));
    let posted = get("DTPOSTED").ok_or_else(|| bad("DTPOSTED is missing".into()))?;
    let date =
        compact_date(posted).ok_or_else(|| bad(format!("DTPOSTED '{posted}' is not a date")))?;
    let amount_text = get("TRNAMT").ok_or_else(|| bad("TRNAMT is missing".into()))?;
    // Some banks write a decimal comma.
    let decimal = if amount_text.contains(',') && !amount_text.contains('.') {
        ','
    } else {
        '.'
    };
    let amount =
        read_amount(amount_text, decimal, decimals).map_err(|m| bad(format!("TRNAMT {m}")))?;
    let name = get("NAME").or_else(|| get("PAYEE"));
    let memo = get("MEMO");
    let description = match (name, memo) {
        (Some(n), Some(m)) if !n.eq_ignore_ascii_case(m) => format!("{n} {m}"),
        (Some(n), _) => n.to_owned(),
        (None, Some(m)) => m.to_owned(),
        (None, None) => String::new(),
    };
    let reference = get("FITID")
        .or_else(|| get("CHECKNUM"))
        .or_else(|| get("REFNUM"))
        .map(str::to_owned);
    Ok(ParsedLine {
        date,
        amount,
        description,
        reference,
    })
}
